/* Option table, argv splitting and per-option validation.  Message texts are
 * msprof's (input_parser.cpp, input_parser_open.cpp, param_validation.cpp in
 * hicann/oam-tools), including their spacing and punctuation, because users
 * and wrappers grep them.  Our own additions use house style. */
#include "launcher/options.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/host.h"
#include "collectors/osrt-api.h"
#include "common/proc-owner.h"
#include "ipc/selectors.h"
#include "common/util.h"

int diag_error(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->error, sizeof(d->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void diag_warn(struct diag *d, const char *fmt, ...)
{
	if (d->n_warn >= DIAG_MAX_WARN)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->warn[d->n_warn++], sizeof(d->warn[0]), fmt, ap);
	va_end(ap);
}

/* --- small parsers -------------------------------------------------------- */

static bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The characters msprof refuses in paths (docs general_collect_commands.md,
 * Utils::CheckPathWithInvalidChar): control characters that break logs and
 * shell metacharacters that break the commands msprof builds. */
bool path_has_forbidden_char(const char *path)
{
	static const char bad[] = "\n\f\r\b\t\v\x7f\"'\\%><|&$;`";
	return strpbrk(path, bad) != NULL;
}

int parse_storage_limit(const char *s, uint64_t *ret_mb)
{
	size_t n = strlen(s);
	if (n <= 2 || strcmp(s + n - 2, "MB") != 0)
		return -EINVAL;
	/* msprof: at most 10 digits, then 200 <= v <= UINT32_MAX */
	if (n - 2 > 10)
		return -ERANGE;
	char digits[11];
	memcpy(digits, s, n - 2);
	digits[n - 2] = '\0';
	uint64_t v;
	int r = parse_u64(digits, MSPROF_STORAGE_MIN_MB, MSPROF_STORAGE_MAX_MB, &v);
	if (r < 0)
		return r;
	*ret_mb = v;
	return 0;
}

/* Comma list against a name table; empty items are skipped (msprof's Split
 * drops them).  Returns the flags, or -EINVAL with *ret_bad = the item. */
struct flag_name {
	const char *name;
	unsigned flag;
};

static int parse_list(const char *list, const struct flag_name *names, size_t n_names,
		      unsigned *ret_flags, char *bad, size_t bad_size)
{
	unsigned flags = 0;
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len > 0) {
			size_t i;
			for (i = 0; i < n_names; i++)
				if (strlen(names[i].name) == len && strncmp(names[i].name, p, len) == 0)
					break;
			if (i == n_names) {
				snprintf(bad, bad_size, "%.*s", (int)len, p);
				return -EINVAL;
			}
			flags |= names[i].flag;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*ret_flags = flags;
	return 0;
}

static void list_canonical(unsigned flags, const struct flag_name *names, size_t n_names, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n_names; i++) {
		if (!(flags & names[i].flag))
			continue;
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", used ? "," : "", names[i].name);
	}
}

/* The samplers first: host_sys_list names those alone (what msprofd
 * samples); osrt goes to the agent. */
#define HOST_SYS_SAMPLERS 4
static const struct flag_name host_sys_names[] = {
	{ "cpu", HOST_SYS_CPU },
	{ "mem", HOST_SYS_MEM },
	{ "disk", HOST_SYS_DISK },
	{ "network", HOST_SYS_NETWORK },
	{ "osrt", HOST_SYS_OSRT },
};

static const struct flag_name host_usage_names[] = {
	{ "cpu", HOST_USAGE_CPU },
	{ "mem", HOST_USAGE_MEM },
};

/* --- per-option checks ---------------------------------------------------- */

static int check_output(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --output: expected one argument");
	char *abs;
	if (v[0] == '/') {
		abs = strdup(v);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return diag_error(d, "cannot resolve '%s': %s", v, strerror(errno));
		if (asprintf(&abs, "%s/%s", cwd, v) < 0)
			abs = NULL;
	}
	if (!abs)
		return diag_error(d, "out of memory");
	if (strlen(abs) > MSPROF_MAX_PATH_LEN) {
		free(abs);
		return diag_error(d, "Argument --output is invalid because of exceeds the maximum length of %u",
				  MSPROF_MAX_PATH_LEN);
	}
	if (path_has_forbidden_char(abs)) {
		diag_error(d, "Argument --output %s contains invalid character.", abs);
		free(abs);
		return -EINVAL;
	}
	free(o->output);
	o->output = abs;
	return 0;
}

static int check_storage_limit(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --storage-limit: expected one argument");
	uint64_t mb;
	if (parse_storage_limit(v, &mb) < 0)
		return diag_error(d, "Argument --storage-limit %s is invalid, valid range is %uMB~%lluMB", v,
				  MSPROF_STORAGE_MIN_MB, (unsigned long long)MSPROF_STORAGE_MAX_MB);
	char *copy = strdup(v);
	if (!copy)
		return diag_error(d, "out of memory");
	free(o->storage_limit);
	o->storage_limit = copy;
	o->storage_limit_mb = mb;
	return 0;
}

static int check_application(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --application: expected one argument");
	if (strlen(v) > MSPROF_MAX_APP_LEN)
		return diag_error(d, "Argument --application: expected param length less than %u", MSPROF_MAX_APP_LEN);
	o->application = v;
	return 0;
}

static int check_environment(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --environment: expected one argument");
	o->environment = v;
	return 0;
}

static int check_type(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --type: expected one argument");
	if (streq(v, "text"))
		o->type = OUT_TEXT;
	else if (streq(v, "db"))
		o->type = OUT_DB;
	else
		return diag_error(d, "Argument --type: invalid value: %s. Please input 'text' or 'db'.", v);
	return 0;
}

/* msprof's CheckArgOnOff. */
static int check_on_off(const char *name, const char *v, bool *ret, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --%s: expected one argument,please enter a valid value.", name);
	if (streq(v, "on"))
		*ret = true;
	else if (streq(v, "off"))
		*ret = false;
	else
		return diag_error(d, "Argument --%s: invalid value: %s. Please input 'on' or 'off'.", name, v);
	return 0;
}

static int check_export(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("export", v, &o->export_on, d);
}

static int check_parse(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("parse", v, &o->parse_on, d);
}

static int check_query(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("query", v, &o->query_on, d);
}

static int check_analyze(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("analyze", v, &o->analyze_on, d);
}

static int check_clear(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("clear", v, &o->clear, d);
}

/* An id as msprof takes --model-id and --iteration-id: 0 to 4294967295. */
static int check_id(const char *name, const char *v, uint64_t *ret, struct diag *d)
{
	uint64_t n;
	if (!v || !*v)
		return diag_error(d, "Argument --%s: expected one argument,please enter a valid value.", name);
	if (!all_digits(v) || parse_u64(v, 0, UINT32_MAX, &n) < 0)
		return diag_error(d, "Argument --%s: invalid value: %s.Please input an integer value in 0-4294967295.",
				  name, v);
	*ret = n;
	return 0;
}

static int check_model_id(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_id("model-id", v, &o->model_id, d);
}

static int check_iteration_id(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_id("iteration-id", v, &o->iteration_id, d);
}

static int check_summary_format(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --summary-format: expected one argument,please enter a valid value.");
	if (streq(v, "csv"))
		o->summary_json = false;
	else if (streq(v, "json"))
		o->summary_json = true;
	else
		return diag_error(d, "Argument --summary-format: invalid value: %s. Please input 'csv' or 'json'.", v);
	return 0;
}

static int check_reports(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --reports: expected one argument,please enter a valid value.");
	if (strlen(v) > MSPROF_MAX_PATH_LEN)
		return diag_error(d, "Argument --reports is invalid because of exceeds the maximum length of %u",
				  MSPROF_MAX_PATH_LEN);
	o->reports = v;
	return 0;
}

/* msprof's analyze rules, a comma separated list. */
static int check_rule(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --rule: expected one argument,please enter a valid value.");
	unsigned rules = 0;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		if (n == 13 && strncmp(p, "communication", n) == 0)
			rules |= RULE_COMMUNICATION;
		else if (n == 20 && strncmp(p, "communication_matrix", n) == 0)
			rules |= RULE_COMMUNICATION_MATRIX;
		else
			return diag_error(d, "Argument --rule: invalid value: %s. "
					     "Please input 'communication' or 'communication_matrix'.", v);
		p += n + (p[n] == ',');
	}
	o->rules = rules;
	return 0;
}

static int check_python_path(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --python-path: expected one argument,please enter a valid value.");
	o->python_path = v;
	return 0;
}

/* msprof's CheckArgRange: an unsigned integer in [min, max]. */
static int check_range(const char *name, const char *v, unsigned min, unsigned max, unsigned *ret, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --%s is empty, please enter a valid value.", name);
	if (!all_digits(v))
		return diag_error(d, "Argument --%s: invalid value: %s.Please input an integer value in %u-%u.",
				  name, v, min, max);
	uint64_t n;
	int r = parse_u64(v, min, max, &n);
	if (r < 0) {
		/* msprof prints the number it parsed; for one too long for
		 * 64 bits, the text as given is the honest rendering */
		uint64_t shown;
		if (parse_u64(v, 0, UINT64_MAX, &shown) == 0)
			return diag_error(d, "Argument --%s: invalid int value: %llu.Please input data is in %u to %u.",
					  name, (unsigned long long)shown, min, max);
		return diag_error(d, "Argument --%s: invalid int value: %s.Please input data is in %u to %u.",
				  name, v, min, max);
	}
	*ret = (unsigned)n;
	return 0;
}

static int check_host_sys_usage_freq(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("host-sys-usage-freq", v, 1, MSPROF_HOST_USAGE_FREQ_MAX, &o->host_usage_freq, d);
}

static int check_host_sys_freq(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("host-sys-freq", v, 1, MSPROF_HOST_SYS_FREQ_MAX, &o->host_sys_freq, d);
}

static int check_sys_period(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --sys-period is empty,Please enter a valid --sys-period value.");
	if (!all_digits(v))
		return diag_error(d, "Argument --sys-period: invalid value: %s.Please input an integer value."
				  "The range of period is 1~%u seconds.", v, MSPROF_SYS_PERIOD_MAX);
	uint64_t n;
	if (parse_u64(v, 1, MSPROF_SYS_PERIOD_MAX, &n) < 0)
		return diag_error(d, "Argument --sys-period: invalid int value: %s.The range of period is 1~%u seconds.",
				  v, MSPROF_SYS_PERIOD_MAX);
	o->sys_period = (unsigned)n;
	return 0;
}

static int check_host_sys(struct msprof_opts *o, const char *v, struct diag *d)
{
	static const char range[] = "'cpu|mem|disk|network|osrt'";
	if (!v)
		return diag_error(d, "Argument --host-sys: expected one argument");
	unsigned flags;
	char bad[64];
	if (parse_list(v, host_sys_names, ARRAY_SIZE(host_sys_names), &flags, bad, sizeof(bad)) < 0)
		return diag_error(d, "Argument --host-sys: invalid value:%s. Please input in the range of %s", bad, range);
	if (flags == 0)
		return diag_error(d, "Argument --host-sys is empty. Please input in the range of %s", range);
	/* msprof checks the order before probing perf and ltrace for osrt
	 * (CheckOsrtTools); we keep that rule and probe nothing: the agent
	 * records the calls, no tool or sudo is involved. */
	if ((flags & HOST_SYS_OSRT) && !opts_used(o, OPT_OUTPUT) && !opts_used(o, OPT_APPLICATION))
		return diag_error(d, "If you want to use this parameter:--host-sys, please put it behind the "
				  "--output or --application.");
	o->host_sys = flags;
	list_canonical(flags, host_sys_names, HOST_SYS_SAMPLERS, o->host_sys_list, sizeof(o->host_sys_list));
	return 0;
}

/* Ours: msprof's osrt keeps what ltrace reports, with no threshold. */
static int check_osrt_threshold(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("osrt-threshold", v, 0, (unsigned)OSRT_THRESHOLD_MAX_NS, &o->osrt_threshold_ns, d);
}

static int check_host_sys_pid(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --host-sys-pid is empty,Please enter a valid --host-sys-pid value.");
	uint64_t pid;
	if (!all_digits(v) || parse_u64(v, 0, INT32_MAX, &pid) < 0)
		return diag_error(d, "Argument --host-sys-pid: invalid value: %s.Please input an integer value."
				  "The min value is 0.", v);
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof(proc), "/proc/%llu/status", (unsigned long long)pid);
	if (pid == 0 || stat(proc, &st) < 0)
		return diag_error(d, "Argument --host-sys-pid: invalid int value: %llu.The process cannot be found, "
				  "please enter a correct host-sys-pid.", (unsigned long long)pid);
	o->host_sys_pid = (pid_t)pid;
	return 0;
}

static int check_host_sys_usage(struct msprof_opts *o, const char *v, struct diag *d)
{
	unsigned flags = 0;
	char bad[64];
	if (!v || !*v)
		return diag_error(d, "Argument --host-sys-usage is empty. Please input in the range of 'cpu|mem'.");
	if (parse_list(v, host_usage_names, ARRAY_SIZE(host_usage_names), &flags, bad, sizeof(bad)) < 0 || flags == 0)
		return diag_error(d, "Argument --host-sys-usage=%s is invalid. Please input in the range of 'cpu|mem'.", v);
	o->host_usage = flags;
	list_canonical(flags, host_usage_names, ARRAY_SIZE(host_usage_names), o->host_usage_list,
		       sizeof(o->host_usage_list));
	return 0;
}

static int check_dynamic(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("dynamic", v, &o->dynamic, d);
}

/* msprof stores --pid as given and checks it once all options are known
 * (CheckDynaProfPidValid); so do we, in check_dynamic_combination. */
static int check_pid(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --pid: expected one argument,please enter a valid value.");
	o->pid_arg = v;
	return 0;
}

static int check_delay(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("delay", v, 1, MSPROF_DELAY_MAX, &o->delay_s, d);
}

static int check_duration(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("duration", v, 1, MSPROF_DELAY_MAX, &o->duration_s, d);
}

/* msprof CheckSysDevicesValid: "all" or a list of device ids.  Accepted so
 * that msprof's command lines get msprof's answers; there are no devices
 * to collect from here. */
static int check_sys_devices(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --sys-devices is empty,Please enter a valid --sys-devices value.");
	if (!streq(v, "all")) {
		for (const char *p = v; *p; ) {
			size_t len = strcspn(p, ",");
			bool ok = len > 0 && len < 10;
			for (size_t i = 0; ok && i < len; i++)
				ok = p[i] >= '0' && p[i] <= '9';
			if (len > 0 && !ok)
				return diag_error(d, "Argument --sys-devices: invalid value: %.*s.Please input a valid device id.",
						  (int)len, p);
			p += len;
			if (*p == ',')
				p++;
		}
	}
	o->sys_devices = v;
	return 0;
}

static int check_msproftx(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("msproftx", v, &o->msproftx, d);
}

/* msprof's CheckArgOnOff lets the domain lists through after the NULL
 * check; an empty list counts as not given (CheckMstxValid tests empty()). */
static int check_mstx_include(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --mstx-domain-include: expected one argument,please enter a valid value.");
	o->mstx_include = v;
	return 0;
}

/* Ours (MindSpeed's profile_step_start/end and profile_ranks); the values
 * are checked as the daemon checks them (ipc/select.c). */
static int check_step_range(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --step-range: expected one argument,please enter a valid value.");
	int r = ipc_parse_step_range(v, &o->step_lo, &o->step_hi);
	if (r == -ERANGE)
		return diag_error(d, "Argument --step-range is invalid: '%s', the start step must be less than the end "
				     "step, both at most %" PRId64 ".", v, INT64_MAX);
	if (r < 0)
		return diag_error(d, "Argument --step-range is invalid: '%s', expected A-B (steps A to B-1, "
				     "non-negative integers), e.g. 2-4.", v);
	o->step_range = v;
	return 0;
}

static int check_ranks(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !*v)
		return diag_error(d, "Argument --ranks: expected one argument,please enter a valid value.");
	int r = ipc_parse_ranks(v);
	if (r == -ERANGE)
		return diag_error(d, "Argument --ranks is invalid: '%s', a rank must be in range 0 ~ %d.", v,
				  IPC_RANK_MAX);
	if (r == -E2BIG)
		return diag_error(d, "Argument --ranks is invalid: more than %d ranks.", IPC_RANKS_MAX);
	if (r < 0)
		return diag_error(d, "Argument --ranks is invalid: '%s', expected comma-separated ranks, e.g. 0,2.", v);
	o->ranks = v;
	return 0;
}

static int check_mstx_exclude(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v)
		return diag_error(d, "Argument --mstx-domain-exclude: expected one argument,please enter a valid value.");
	o->mstx_exclude = v;
	return 0;
}

static int check_sys_cpu_profiling(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("sys-cpu-profiling", v, &o->sys_cpu_profiling, d);
}

/* msprof's --task-time values (input_parser.cpp CheckTaskTime) */
static int check_task_time(struct msprof_opts *o, const char *v, struct diag *d)
{
	static const struct { const char *name; enum task_time level; } levels[] = {
		{ "on", TASK_TIME_L1 }, { "off", TASK_TIME_OFF }, { "l0", TASK_TIME_L0 },
		{ "l1", TASK_TIME_L1 }, { "l2", TASK_TIME_L2 },
	};
	if (!v)
		return diag_error(d, "Argument --task-time: expected one argument,please enter a valid value.");
	if (streq(v, "l3"))
		return diag_error(d, "l3 is not supported on this platform.");
	for (size_t i = 0; i < ARRAY_SIZE(levels); i++)
		if (streq(v, levels[i].name)) {
			o->task_time = levels[i].level;
			return 0;
		}
	return diag_error(d, "Argument --task-time: invalid value: %s. Please input 'on', 'off', 'l0', 'l1' or 'l2'.", v);
}

static int check_runtime_api(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("runtime-api", v, &o->runtime_api, d);
}

static int check_sys_hardware_mem(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("sys-hardware-mem", v, &o->sys_hardware_mem, d);
}

static int check_sys_hardware_mem_freq(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("sys-hardware-mem-freq", v, 1, MSPROF_HW_MEM_FREQ_MAX, &o->sys_hardware_mem_freq, d);
}

static int check_sys_interconnection(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_on_off("sys-interconnection-profiling", v, &o->sys_interconnection, d);
}

static int check_sys_interconnection_freq(struct msprof_opts *o, const char *v, struct diag *d)
{
	return check_range("sys-interconnection-freq", v, 1, MSPROF_INTERCONNECT_FREQ_MAX,
			   &o->sys_interconnection_freq, d);
}

static int check_list(struct msprof_opts *o, const char *v, struct diag *d)
{
	o->list = true;
	return 0;
}

bool pid_attachable(pid_t pid, char *why, size_t why_len)
{
	if (pid <= 0) {
		snprintf(why, why_len, "process %d does not exist", (int)pid);
		return false;
	}
	return proc_check_owner((uint64_t)pid, geteuid(), why, why_len) == 0;
}

/* Append item to a comma list in buf. */
static void list_add(char *buf, size_t size, const char *item, size_t len)
{
	size_t used = strlen(buf);
	snprintf(buf + used, size - used, "%s%.*s", used ? "," : "", (int)len, item);
}

/* msprof CheckDynaProfPidValid: every item must be a number; the numbers
 * that are not processes we may attach to are skipped with a warning; at
 * least one must remain.  Why each was skipped is ours. */
static int parse_pid_list(struct msprof_opts *o, struct diag *d)
{
	char nonnum[512] = "", invalid[512] = "";
	unsigned n_items = 0;

	for (const char *p = o->pid_arg; *p; p++)
		n_items += *p == ',';
	free(o->pids);
	o->n_pids = 0;
	o->pids = calloc(n_items + 1, sizeof(*o->pids));
	if (!o->pids)
		return diag_error(d, "out of memory");

	for (const char *p = o->pid_arg; *p; ) {
		size_t len = strcspn(p, ",");
		if (len > 0) {
			char item[32];
			long long v = 0;
			bool numeric = len < sizeof(item);
			if (numeric) {
				memcpy(item, p, len);
				item[len] = '\0';
				numeric = all_digits(item[0] == '-' ? item + 1 : item);
				if (numeric) {
					errno = 0;
					v = strtoll(item, NULL, 10);
					numeric = errno == 0 && v >= INT32_MIN && v <= INT32_MAX;
				}
			}
			char why[160];
			if (!numeric) {
				list_add(nonnum, sizeof(nonnum), p, len);
			} else if (!pid_attachable((pid_t)v, why, sizeof(why))) {
				list_add(invalid, sizeof(invalid), p, len);
				diag_warn(d, "%s", why);
			} else {
				bool dup = false;
				for (unsigned i = 0; i < o->n_pids; i++)
					dup = dup || o->pids[i] == (pid_t)v;
				if (!dup)
					o->pids[o->n_pids++] = (pid_t)v;
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (nonnum[0])
		return diag_error(d, "Argument --pid: invalid non-numeric pid value: %s, stop profiling.", nonnum);
	if (o->n_pids == 0)
		return diag_error(d, "Argument --pid: no valid pid values, stop profiling.");
	if (o->n_pids > MSPROF_MAX_DYNAMIC_PIDS)
		return diag_error(d, "Argument --pid: at most %u processes can be profiled at once, stop profiling.",
				  MSPROF_MAX_DYNAMIC_PIDS);
	if (invalid[0])
		diag_warn(d, "Argument --pid: invalid pid value: %s, will not collect profiling data for these process.",
			  invalid);
	return 0;
}

/* The checks msprof makes once every option is known, in its order:
 * CheckDynProfValid (with CheckDynConflict), then CheckMstxValid.  --list
 * and the --delay/--duration conflict are ours; the latter is in msprof's
 * documentation (dynamically.md, delayed_mode.md) but not in its code. */
static int check_combinations(struct msprof_opts *o, struct diag *d)
{
	static const enum opt_id dynamic_conflicts[] = {
		OPT_SYS_DEVICES, OPT_SYS_PERIOD, OPT_SYS_CPU_PROFILING, OPT_DELAY, OPT_DURATION,
	};
	bool have_pid = o->pid_arg && *o->pid_arg;

	if (o->list) {
		if (!o->dynamic)
			return diag_error(d, "Argument --list must be used with --dynamic=on.");
		if (opts_have_app(o) || have_pid)
			return diag_error(d, "Argument --list cannot be used with --application/--pid.");
	} else if (!o->dynamic) {
		if (have_pid)
			return diag_error(d, "Argument --dynamic=off, but --pid is set.");
	} else {
		if (!opts_have_app(o) && !have_pid)
			return diag_error(d, "Argument --dynamic=on, but --application/--pid is all empty.");
		if (opts_have_app(o) && have_pid)
			return diag_error(d, "Argument --dynamic=on, can not set --application/--pid at the same time.");
		for (size_t i = 0; i < ARRAY_SIZE(dynamic_conflicts); i++)
			if (opts_used(o, dynamic_conflicts[i]))
				return diag_error(d, "Argument --dynamic and --%s cannot be configured at the same time.",
						  opt_table[dynamic_conflicts[i]].name);
		if (have_pid) {
			int r = parse_pid_list(o, d);
			if (r < 0)
				return r;
		}
	}

	bool inc = o->mstx_include && *o->mstx_include, exc = o->mstx_exclude && *o->mstx_exclude;
	if (!o->msproftx && (inc || exc))
		return diag_error(d, "Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on.");
	if (inc && exc)
		return diag_error(d, "Argument --mstx-domain-include and --mstx-domain-exclude cannot be used at the same time.");
	if (!o->msproftx && (o->step_range || o->ranks))
		return diag_error(d, "Argument --step-range/--ranks must be used with --msproftx=on.");
	if (opts_used(o, OPT_OSRT_THRESHOLD) && !opts_osrt(o))
		return diag_error(d, "Argument --osrt-threshold must be used with --host-sys=osrt.");
	return 0;
}

/* --- the table ------------------------------------------------------------- */

/* Continuation lines of a description are indented as msprof does it. */
#define CONT "\n\t\t\t\t\t\t   "

const struct opt_def opt_table[_OPT_MAX] = {
	[OPT_HELP] = { OPT_HELP, "help", false, "help message.", NULL },
	[OPT_OUTPUT] = { OPT_OUTPUT, "output", true,
		"Specify the directory that is used for storing data results.", check_output },
	[OPT_STORAGE_LIMIT] = { OPT_STORAGE_LIMIT, "storage-limit", true,
		"Specify the output directory volume. range 200MB ~ 4294967295MB.", check_storage_limit },
	[OPT_APPLICATION] = { OPT_APPLICATION, "application", true,
		"Specify application path, considering the risk of privilege escalation, please pay attention to"
		CONT "the group of the application and confirm whether it is the same as the user currently."
		CONT "[Note] This option will be discarded in later versions."
		CONT "you can try to use: msprof [msprof arguments] <app> [app arguments]", check_application },
	[OPT_ENVIRONMENT] = { OPT_ENVIRONMENT, "environment", true,
		"User app custom environment variable configuration.", check_environment },
	[OPT_DYNAMIC] = { OPT_DYNAMIC, "dynamic", true,
		"Dynamic profiling switch, the default value is off.", check_dynamic },
	[OPT_PID] = { OPT_PID, "pid", true,
		"Dynamic profiling pids of the target processes", check_pid },
	[OPT_DELAY] = { OPT_DELAY, "delay", true,
		"Collect start delay time in seconds, range 1 ~ 4294967295s.", check_delay },
	[OPT_DURATION] = { OPT_DURATION, "duration", true,
		"Collection duration in seconds, range 1 ~ 4294967295s.", check_duration },
	[OPT_SYS_DEVICES] = { OPT_SYS_DEVICES, "sys-devices", true,
		"Specify the profiling scope by device ID when collect sys profiling."
		"The value is all or ID list (split with ',')."
		CONT "(accepted for compatibility; every NVIDIA GPU NVML lists is collected)", check_sys_devices },
	[OPT_TYPE] = { OPT_TYPE, "type", true,
		"The export type, only used when argument `export` is on "
		CONT "or when collecting data, include text, db."
		CONT "the default value is text(which will also export the database).", check_type },
	[OPT_MSPROFTX] = { OPT_MSPROFTX, "msproftx", true,
		"Show msproftx and mstx data, the default value is off.", check_msproftx },
	[OPT_MSTX_DOMAIN_INCLUDE] = { OPT_MSTX_DOMAIN_INCLUDE, "mstx-domain-include", true,
		"Choose to only include mstx events from a comma separated list of domains;"
		CONT "`default` filters the mstx default domain;"
		CONT "The switch is only applicable when parameter msproftx is set to on;"
		CONT "The switch cannot be set with mstx-domain-exclude at the same time.", check_mstx_include },
	[OPT_MSTX_DOMAIN_EXCLUDE] = { OPT_MSTX_DOMAIN_EXCLUDE, "mstx-domain-exclude", true,
		"Choose to exclude mstx events from a comma separated list of domains;"
		CONT "`default` excludes the mstx default domain;"
		CONT "The switch is only applicable when parameter msproftx is set to on;"
		CONT "The switch cannot be set with mstx-domain-include at the same time.", check_mstx_exclude },
	[OPT_SYS_CPU_PROFILING] = { OPT_SYS_CPU_PROFILING, "sys-cpu-profiling", true,
		"The CPU acquisition switch, optional on / off,the default value is off."
		CONT "(accepted for compatibility; GPUs have no such CPU data)", check_sys_cpu_profiling },
	[OPT_EXPORT] = { OPT_EXPORT, "export", true,
		"Switch for using msprof to export collecting data, the default value is off.", check_export },
	[OPT_ITERATION_ID] = { OPT_ITERATION_ID, "iteration-id", true,
		"The export iteration id, only used when argument `export` is on,"
		CONT "must be set together with `model-id`; steps marked with mstx/NVTX are"
		CONT "numbered as in step_trace (`model-id` 4294967295).", check_iteration_id },
	[OPT_MODEL_ID] = { OPT_MODEL_ID, "model-id", true,
		"The export model id, only used when argument `export` is on,"
		CONT "must be set together with `iteration-id`; 4294967295 selects step mode.", check_model_id },
	[OPT_SUMMARY_FORMAT] = { OPT_SUMMARY_FORMAT, "summary-format", true,
		"The export summary file format, only used when argument `export` is on,"
		CONT "include csv, json, the default value is csv.", check_summary_format },
	[OPT_REPORTS] = { OPT_REPORTS, "reports", true,
		"The timeline tracks to export, a JSON file like msprof's reports_sample_config.json"
		CONT "({\"json_process\": {\"cpu_usage\": true, ...}}), only used when argument `export` is on.",
		check_reports },
	[OPT_PARSE] = { OPT_PARSE, "parse", true,
		"Switch for using msprof to parse collecting data, the default value is off.", check_parse },
	[OPT_QUERY] = { OPT_QUERY, "query", true,
		"Switch for using msprof to query collecting data, the default value is off.", check_query },
	[OPT_ANALYZE] = { OPT_ANALYZE, "analyze", true,
		"Switch for using msprof to analyze collecting data, the default value is off.", check_analyze },
	[OPT_RULE] = { OPT_RULE, "rule", true,
		"The analyze rules, only used when argument `analyze` is on,"
		CONT "include communication, communication_matrix (split with ',').", check_rule },
	[OPT_CLEAR] = { OPT_CLEAR, "clear", true,
		"Switch for deleting the intermediate sqlite/ data after export or analyze, the default value is off.",
		check_clear },
	[OPT_PYTHON_PATH] = { OPT_PYTHON_PATH, "python-path", true,
		"Specify the python interpreter path."
		CONT "(accepted for compatibility; this implementation needs no Python)", check_python_path },
	[OPT_SYS_PERIOD] = { OPT_SYS_PERIOD, "sys-period", true,
		"Set total sampling period of system profiling in seconds, range 1 ~ 2592000s."
		CONT "Without an application, collection otherwise runs until the process exits or Ctrl-C.",
		check_sys_period },
	[OPT_HOST_SYS_USAGE_FREQ] = { OPT_HOST_SYS_USAGE_FREQ, "host-sys-usage-freq", true,
		"The sampling frequency in hertz. the default value is 50 Hz the range is 1 to 50 Hz.",
		check_host_sys_usage_freq },
	[OPT_HOST_SYS] = { OPT_HOST_SYS, "host-sys", true,
		"The host-sys data type, include cpu, mem, disk, network, osrt."
		CONT "osrt: OS runtime calls of the application (locks, waits, sleeps, I/O, poll...)"
		CONT "recorded in-process by the msprof agent (no perf, ltrace or sudo).", check_host_sys },
	[OPT_HOST_SYS_PID] = { OPT_HOST_SYS_PID, "host-sys-pid", true,
		"Set the PID of the app process for which you want to collect performance data.", check_host_sys_pid },
	[OPT_HOST_SYS_USAGE] = { OPT_HOST_SYS_USAGE, "host-sys-usage", true,
		"The host-sys-usage data type, include cpu, mem.", check_host_sys_usage },
	[OPT_TASK_TIME] = { OPT_TASK_TIME, "task-time", true,
		"Show task time data on the device, include on, off, l0, l1, l2; on is l1,"
		CONT "the default value is on. On NVIDIA GPUs: CUDA kernels, memcpy and memset from CUPTI"
		CONT "(the agent is injected where /dev/nvidiactl exists, or with --msproftx=on).", check_task_time },
	[OPT_RUNTIME_API] = { OPT_RUNTIME_API, "runtime-api", true,
		"Show runtime api data, the default value is off."
		CONT "On NVIDIA GPUs: CUDA runtime calls and the waits in them (CANN_API, api_statistic, CANN"
		CONT "track), and with --task-time MEMCPY_INFO and the launch-to-task flows.",
		check_runtime_api },
	[OPT_SYS_HARDWARE_MEM] = { OPT_SYS_HARDWARE_MEM, "sys-hardware-mem", true,
		"The memory acquisition switch of the device, optional on / off, the default value is off."
		CONT "On NVIDIA GPUs: memory used and reserved (also per profiled process), utilisation,"
		CONT "SM and memory clocks, power and temperature from NVML.", check_sys_hardware_mem },
	[OPT_SYS_HARDWARE_MEM_FREQ] = { OPT_SYS_HARDWARE_MEM_FREQ, "sys-hardware-mem-freq", true,
		"The sampling frequency of the device memory in hertz, the default value is 50 Hz,"
		CONT "the range is 1 to 100 Hz.", check_sys_hardware_mem_freq },
	[OPT_SYS_INTERCONNECTION_PROFILING] = { OPT_SYS_INTERCONNECTION_PROFILING, "sys-interconnection-profiling",
		true, "The interconnection acquisition switch, optional on / off, the default value is off."
		CONT "On NVIDIA GPUs: PCIe throughput from NVML.", check_sys_interconnection },
	[OPT_SYS_INTERCONNECTION_FREQ] = { OPT_SYS_INTERCONNECTION_FREQ, "sys-interconnection-freq", true,
		"The sampling frequency of the interconnection in hertz, the default value is 50 Hz,"
		CONT "the range is 1 to 50 Hz.", check_sys_interconnection_freq },
	[OPT_HOST_SYS_FREQ] = { OPT_HOST_SYS_FREQ, "host-sys-freq", true,
		"The host-sys sampling frequency in hertz, the default value is 50 Hz, the range is 1 to 1000 Hz."
		CONT "(an option of this implementation; CANN msprof has none)", check_host_sys_freq },
	[OPT_VERSION] = { OPT_VERSION, "version", false,
		"Print the version and exit. (an option of this implementation; CANN msprof has none)", NULL },
	[OPT_LIST] = { OPT_LIST, "list", false,
		"With --dynamic=on: list the processes --pid can attach to with agent data (mstx, NVTX),"
		CONT "those whose msprof agent has registered. (an option of this implementation; CANN msprof has none)",
		check_list },
	[OPT_STEP_RANGE] = { OPT_STEP_RANGE, "step-range", true,
		"With --msproftx=on: record annotations only in training steps A to B-1 (A-B, e.g. 2-4);"
		CONT "steps are mstx/NVTX ranges named `step N` or `ProfilerStep#N`, or mstxStep(N)."
		CONT "(an option of this implementation; CANN msprof has none)", check_step_range },
	[OPT_RANKS] = { OPT_RANKS, "ranks", true,
		"With --msproftx=on: record annotations only in processes of these ranks (e.g. 0,2),"
		CONT "the rank read from RANK, LOCAL_RANK, OMPI_COMM_WORLD_RANK or SLURM_PROCID."
		CONT "(an option of this implementation; CANN msprof has none)", check_ranks },
	[OPT_OSRT_THRESHOLD] = { OPT_OSRT_THRESHOLD, "osrt-threshold", true,
		"With --host-sys=osrt: keep the calls that took at least this many nanoseconds,"
		CONT "the default value is 1000, the range is 0 to 1000000000 ns."
		CONT "(an option of this implementation; CANN msprof has none)", check_osrt_threshold },
};

void opts_init(struct msprof_opts *o)
{
	*o = (struct msprof_opts){
		.type = OUT_TEXT,
		.host_sys_freq = MSPROF_DEFAULT_FREQ,
		.host_usage_freq = MSPROF_DEFAULT_FREQ,
		.osrt_threshold_ns = (unsigned)OSRT_THRESHOLD_DEFAULT_NS,
		.task_time = TASK_TIME_L1,
		.sys_hardware_mem_freq = MSPROF_DEFAULT_FREQ,
		.sys_interconnection_freq = MSPROF_DEFAULT_FREQ,
	};
}

void opts_release(struct msprof_opts *o)
{
	free(o->output);
	free(o->storage_limit);
	free(o->pids);
	opts_init(o);
}

void opts_default_host_sys(struct msprof_opts *o)
{
	if (o->host_sys || o->host_usage)
		return;
	o->host_sys = HOST_SYS_CPU | HOST_SYS_MEM;
	list_canonical(o->host_sys, host_sys_names, HOST_SYS_SAMPLERS, o->host_sys_list,
		       sizeof(o->host_sys_list));
}

void opts_names(uint64_t mask, char *buf, size_t size)
{
	if (size == 0)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; i < _OPT_MAX; i++) {
		if (!(mask & OPT_BIT(i)))
			continue;
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s--%s", used ? " " : "", opt_table[i].name);
	}
}

void opts_print_help(FILE *f)
{
	fputs("\nUsage:\n      ./msprof [--options]\n\nOptions:\n", f);
	/* table order, except that msprof lists --help last */
	for (unsigned k = 1; k <= _OPT_MAX; k++) {
		const struct opt_def *o = &opt_table[k % _OPT_MAX];
		fprintf(f, "%8s%-32s%s %s\n", "--", o->name, "<Optional>", o->help);
	}
}

/* getopt_long's matching: an exact name wins, else a unique prefix.  The
 * messages are glibc's, since msprof leaves them to getopt_long. */
static int opt_lookup(const char *argv0, const char *tok, const struct opt_def **ret, struct diag *d)
{
	const char *name = tok + 2;
	size_t len = strcspn(name, "=");
	const struct opt_def *found = NULL;
	unsigned n_found = 0;

	for (unsigned i = 0; len > 0 && i < _OPT_MAX; i++) {
		if (strncmp(opt_table[i].name, name, len) != 0)
			continue;
		if (opt_table[i].name[len] == '\0') {
			*ret = &opt_table[i];
			return 0;
		}
		found = &opt_table[i];
		n_found++;
	}
	d->plain = true;
	d->usage = true;
	if (n_found == 1) {
		d->plain = d->usage = false;
		*ret = found;
		return 0;
	}
	if (n_found == 0)
		return diag_error(d, "%s: unrecognized option '%s'", argv0, tok);

	int n = snprintf(d->error, sizeof(d->error), "%s: option '%s' is ambiguous; possibilities:", argv0, tok);
	for (unsigned i = 0; i < _OPT_MAX && n >= 0 && (size_t)n < sizeof(d->error); i++)
		if (strncmp(opt_table[i].name, name, len) == 0)
			n += snprintf(d->error + n, sizeof(d->error) - (size_t)n, " '--%s'", opt_table[i].name);
	return -EINVAL;
}

int opts_parse(int argc, char **argv, struct msprof_opts *o, struct diag *d)
{
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "msprof";
	int i;

	for (i = 1; i < argc; i++) {
		const char *tok = argv[i];
		if (!startswith(tok, "--"))
			break;
		/* ours: "--" ends the options, as in getopt */
		if (streq(tok, "--")) {
			i++;
			break;
		}
		const struct opt_def *def = NULL;
		int r = opt_lookup(argv0, tok, &def, d);
		if (r < 0)
			return r;

		const char *eq = strchr(tok, '=');
		const char *value = NULL;
		if (!def->takes_value) {
			if (eq) {
				d->plain = d->usage = true;
				return diag_error(d, "%s: option '--%s' doesn't allow an argument", argv0, def->name);
			}
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		}

		o->used |= OPT_BIT(def->id);
		if (def->id == OPT_HELP) {
			o->help = true;
			return 0;
		}
		if (def->id == OPT_VERSION) {
			o->version = true;
			return 0;
		}
		r = def->check(o, value, d);
		if (r < 0)
			return r;
	}

	/* --application has the higher priority (msprof HandleApp). */
	if (i < argc && !o->application) {
		o->app_argv = argv + i;
		o->app_argc = argc - i;
	}
	return check_combinations(o, d);
}
