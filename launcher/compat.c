/* msprof's Ascend NPU options: the table, their checks, their mappings
 * (compat.h). */
#include "launcher/compat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/host-sys.h"
#include "common/util.h"

#define CONT SETTING_HELP_CONT
#define NPU_ONLY CONT "(Ascend NPU data: accepted and ignored here, with a warning)"

/* In msprof's order of its help where it has one; the Ascend-only ones
 * first, the ones with an equivalent after. */
const struct compat_def compat_table[] = {
	{ "ascendcl", COMPAT_SWITCH, .map = COMPAT_SAME, .target = SET_RUNTIME_API,
	  .help = "Show acl api data, the default value is on."
		  CONT "Here: the CUDA runtime and driver API calls, as --runtime-api.",
	  .said = "the CUDA runtime and driver API calls are recorded, as with --runtime-api" },
	{ "task-trace", COMPAT_CHOICE, .choices = "on|off|l0|l1|l2|l3", .map = COMPAT_SAME, .target = SET_TASK_TIME,
	  .help = "The former name of --task-time; the same values.",
	  .said = "the device tasks are recorded, as with --task-time" },
	{ "hccl", COMPAT_SWITCH, .map = COMPAT_COMM,
	  .help = "Show hccl data, the default value is off."
		  CONT "Here: NCCL's collectives and point-to-point operations (its profiler plugin).",
	  .said = "NCCL's communication operations are recorded through its profiler plugin (the msprof agent is "
		  "injected)" },
	{ "sys-profiling", COMPAT_SWITCH, .map = COMPAT_FLAGS, .target = SET_HOST_SYS_USAGE,
	  .flags = HOST_USAGE_CPU | HOST_USAGE_MEM,
	  .help = "The system CPU usage and system memory acquisition switch, the default value is off."
		  CONT "Here: the host's CPU and memory usage, as --host-sys-usage=cpu,mem.",
	  .said = "the host's CPU and memory usage are sampled, as with --host-sys-usage=cpu,mem" },
	{ "sys-sampling-freq", COMPAT_RANGE, 1, 10, .map = COMPAT_SAME, .target = SET_HOST_SYS_USAGE_FREQ,
	  .help = "The sampling frequency in hertz of --sys-profiling, the default value is 10 Hz, the range is 1 to 10 Hz."
		  CONT "Here: --host-sys-usage-freq.",
	  .said = "the host's usage is sampled at this rate, as with --host-sys-usage-freq" },
	{ "sys-pid-profiling", COMPAT_SWITCH, .map = COMPAT_FLAGS, .target = SET_HOST_SYS,
	  .flags = HOST_SYS_CPU | HOST_SYS_MEM,
	  .help = "The CPU usage and memory of the processes acquisition switch, the default value is off."
		  CONT "Here: the profiled processes' CPU and memory, as --host-sys=cpu,mem.",
	  .said = "the profiled processes' CPU and memory are sampled, as with --host-sys=cpu,mem" },
	{ "sys-pid-sampling-freq", COMPAT_RANGE, 1, 10, .map = COMPAT_SAME, .target = SET_HOST_SYS_FREQ,
	  .help = "The sampling frequency in hertz of --sys-pid-profiling, the default value is 10 Hz,"
		  CONT "the range is 1 to 10 Hz. Here: --host-sys-freq.",
	  .said = "the processes are sampled at this rate, as with --host-sys-freq" },
	{ "sys-io-profiling", COMPAT_SWITCH, .map = COMPAT_FLAGS, .target = SET_HOST_SYS,
	  .flags = HOST_SYS_DISK | HOST_SYS_NETWORK,
	  .help = "The NIC and RoCE acquisition switch, the default value is off."
		  CONT "Here: disk and network I/O, as --host-sys=disk,network.",
	  .said = "disk and network I/O are sampled, as with --host-sys=disk,network" },
	{ "sys-io-sampling-freq", COMPAT_RANGE, 1, 100, .map = COMPAT_SAME, .target = SET_HOST_SYS_FREQ,
	  .help = "The sampling frequency in hertz of --sys-io-profiling, the default value is 100 Hz,"
		  CONT "the range is 1 to 100 Hz. Here: --host-sys-freq.",
	  .said = "the host is sampled at this rate, as with --host-sys-freq" },

	{ "aicore-shape", COMPAT_SWITCH, .help = "Show the shapes of AI Core tasks, the default value is off." NPU_ONLY,
	  .said = "AI Core task shapes" },
	{ "ge-api", COMPAT_CHOICE, .choices = "off|l0|l1",
	  .help = "Show the dynamic-shape host scheduling (GE API) data, include off, l0, l1." NPU_ONLY,
	  .said = "GE API data" },
	{ "task-memory", COMPAT_SWITCH, .help = "Show the operators' memory, the default value is off." NPU_ONLY,
	  .said = "operator memory" },
	{ "task-tsfw", COMPAT_SWITCH, .help = "Show the task scheduler firmware data, the default value is off." NPU_ONLY,
	  .said = "task scheduler firmware data" },
	{ "task-block", COMPAT_CHOICE, .choices = "all|on|off",
	  .help = "Show the block-level task data, include all, on, off." NPU_ONLY, .said = "block-level task data" },
	{ "model-execution", COMPAT_SWITCH, .help = "Show ge model execution data, the default value is off." NPU_ONLY,
	  .said = "GE model execution data" },
	{ "ai-core", COMPAT_SWITCH, .help = "Turn on / off the AI Core, the default value is on." NPU_ONLY,
	  .said = "AI Core data" },
	{ "aic-mode", COMPAT_CHOICE, .choices = "task-based|sample-based",
	  .help = "AI Core mode, include task-based, sample-based." NPU_ONLY, .said = "AI Core sampling" },
	{ "aic-freq", COMPAT_RANGE, 1, 100,
	  .help = "The AI Core sampling frequency in hertz, the default value is 100 Hz, the range is 1 to 100 Hz." NPU_ONLY,
	  .said = "AI Core sampling" },
	{ "aic-metrics", COMPAT_TEXT,
	  .help = "The AI Core metrics, include ArithmeticUtilization, PipeUtilization, Memory, MemoryL0,"
		  CONT "MemoryUB, ResourceConflictRatio, L2Cache, PipelineExecuteUtilization, MemoryAccess." NPU_ONLY,
	  .said = "AI Core PMU metrics" },
	{ "aiv", COMPAT_SWITCH, .help = "Turn on / off the AI Vector core (MDC)." NPU_ONLY, .said = "AI Vector core data" },
	{ "aiv-mode", COMPAT_CHOICE, .choices = "task-based|sample-based",
	  .help = "AI Vector core mode, include task-based, sample-based (MDC)." NPU_ONLY,
	  .said = "AI Vector core sampling" },
	{ "aiv-freq", COMPAT_RANGE, 1, 100, .help = "The AI Vector core sampling frequency in hertz (MDC)." NPU_ONLY,
	  .said = "AI Vector core sampling" },
	{ "aiv-metrics", COMPAT_TEXT, .help = "The AI Vector core metrics (MDC)." NPU_ONLY,
	  .said = "AI Vector core PMU metrics" },
	{ "aicpu", COMPAT_SWITCH, .help = "Show aicpu data, the default value is off." NPU_ONLY, .said = "AI CPU data" },
	{ "l2", COMPAT_SWITCH, .help = "L2 Cache and TLB acquisition switch, the default value is off." NPU_ONLY,
	  .said = "L2 cache data" },
	{ "npu-events", COMPAT_TEXT, .help = "Custom SoC PMU events (0x..)." NPU_ONLY, .said = "SoC PMU events" },
	{ "llc-profiling", COMPAT_CHOICE, .choices = "read|write",
	  .help = "The LLC acquisition event, include read, write, the default value is read." NPU_ONLY,
	  .said = "LLC data" },
	{ "sys-mem-serviceflow", COMPAT_TEXT, .help = "The memory service flow acquisition." NPU_ONLY,
	  .said = "memory service flow data" },
	{ "sys-cpu-freq", COMPAT_RANGE, 1, 50,
	  .help = "The AI CPU / Ctrl CPU / TS CPU sampling frequency in hertz, the range is 1 to 50 Hz." NPU_ONLY,
	  .said = "NPU CPU sampling" },
	{ "dvpp-profiling", COMPAT_SWITCH, .help = "DVPP acquisition switch, the default value is off." NPU_ONLY,
	  .said = "DVPP data" },
	{ "dvpp-freq", COMPAT_RANGE, 1, 100,
	  .help = "The DVPP sampling frequency in hertz, the default value is 50 Hz, the range is 1 to 100 Hz." NPU_ONLY,
	  .said = "DVPP data" },
	{ "instr-profiling", COMPAT_SWITCH, .help = "The instruction acquisition switch, the default value is off." NPU_ONLY,
	  .said = "instruction data" },
	{ "instr-profiling-freq", COMPAT_RANGE, 300, 30000,
	  .help = "The instruction sampling period in cycles, the default value is 1000, the range is 300 to 30000."
		  NPU_ONLY,
	  .said = "instruction data" },
	{ "sys-lp", COMPAT_SWITCH, .help = "The low-power acquisition switch (Ascend 950)." NPU_ONLY, .said = "low-power data" },
	{ "sys-lp-freq", COMPAT_RANGE, 1, 100,
	  .help = "The low-power sampling frequency in hertz, the range is 1 to 100 Hz (Ascend 950)." NPU_ONLY,
	  .said = "low-power data" },
	{ "nts-metrics", COMPAT_TEXT, .help = "The NTS metrics." NPU_ONLY, .said = "NTS metrics" },
	{ "optype", COMPAT_TEXT, .help = "The operator types to collect." NPU_ONLY, .said = "operator type filtering" },
};

const unsigned compat_count = ARRAY_SIZE(compat_table);

_Static_assert(ARRAY_SIZE(compat_table) <= MSPROF_COMPAT_MAX, "msprof_opts.compat holds every row once");

const struct compat_def *compat_find(const char *name)
{
	for (unsigned i = 0; i < compat_count; i++)
		if (streq(compat_table[i].name, name))
			return &compat_table[i];
	return NULL;
}

/* Whether v is one of the '|'-separated choices. */
static bool choice_ok(const char *choices, const char *v)
{
	size_t len = strlen(v);
	for (const char *p = choices; *p; ) {
		size_t n = strcspn(p, "|");
		if (n == len && strncmp(p, v, n) == 0)
			return true;
		p += n;
		if (*p == '|')
			p++;
	}
	return false;
}

int compat_check(const struct compat_def *c, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --%s: expected one argument,please enter a valid value.", c->name);
	switch (c->value) {
	case COMPAT_SWITCH:
		if (!streq(v, "on") && !streq(v, "off"))
			return diag_error(d, "Argument --%s: invalid value: %s. Please input 'on' or 'off'.", c->name, v);
		break;
	case COMPAT_RANGE: {
		uint64_t n;
		if (!all_digits(v) || parse_u64(v, c->min, c->max, &n) < 0)
			return diag_error(d, "Argument --%s: invalid value: %s.Please input an integer value in %u-%u.",
					  c->name, v, c->min, c->max);
		break;
	}
	case COMPAT_CHOICE:
		if (!choice_ok(c->choices, v))
			return diag_error(d, "Argument --%s: invalid value: %s. Please input one of: %s.", c->name, v,
					  c->choices);
		break;
	case COMPAT_TEXT:
		break;
	}
	return 0;
}

/* One line of d for row c given v: info for a mapping, else a warning. */
static void apply_one(struct msprof_opts *o, const struct compat_def *c, const char *v, uint64_t ours,
		      struct diag *d)
{
	bool on = !streq(v, "off");
	switch (c->map) {
	case COMPAT_NPU:
		diag_warn(d, "Argument --%s=%s is ignored: it asks for %s, which only an Ascend NPU has.",
			  c->name, v, c->said);
		return;
	case COMPAT_COMM:
		if (on) {
			o->comm = true;
			diag_info(d, "Argument --%s=%s: %s.", c->name, v, c->said);
		}
		return;
	case COMPAT_FLAGS:
		if (on) {
			o->set.u[c->target] |= c->flags;
			o->set.given |= SETTING_BIT(c->target);
			diag_info(d, "Argument --%s=%s: %s.", c->name, v, c->said);
		}
		return;
	case COMPAT_SAME:
		if (ours & SETTING_BIT(c->target)) {
			diag_info(d, "Argument --%s=%s: ignored, --%s is given.", c->name, v, setting_table[c->target].cli);
			return;
		}
		char err[sizeof(d->error)];
		if (settings_parse_cli(&o->set, c->target, v, err, sizeof(err)) < 0) {
			/* a value msprof takes that ours does not (task-trace's l3) */
			diag_warn(d, "Argument --%s=%s: %s", c->name, v, err);
			return;
		}
		if (on)
			diag_info(d, "Argument --%s=%s: %s.", c->name, v, c->said);
		return;
	}
}

void compat_apply(struct msprof_opts *o, struct diag *d)
{
	/* the settings given by their own options, which win */
	uint64_t ours = o->set.given;
	for (unsigned i = 0; i < o->n_compat; i++)
		apply_one(o, &compat_table[o->compat[i].row], o->compat[i].value, ours, d);
}
