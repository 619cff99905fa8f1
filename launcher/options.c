/* Option table, argv splitting and per-option validation; the collection
 * settings' options come from ipc/settings.c, with their checks.  Message texts are
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

#include "launcher/compat.h"
#include "common/host-sys.h"
#include "common/proc-owner.h"
#include "common/flight-recorder.h"
#include "common/step-schedule.h"
#include "common/util.h"

/* --- small parsers -------------------------------------------------------- */

/* The characters msprof refuses in paths (docs general_collect_commands.md,
 * Utils::CheckPathWithInvalidChar): control characters that break logs and
 * shell metacharacters that break the commands msprof builds. */
bool path_has_forbidden_char(const char *path)
{
	static const char bad[] = "\n\f\r\b\t\v\x7f\"'\\%><|&$;`";
	return strpbrk(path, bad) != NULL;
}

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

static int check_summary(struct msprof_opts *o, const char *v, struct diag *d)
{
	bool on = true;
	int r = check_on_off("summary", v, &on, d);
	if (r == 0)
		o->summary_off = !on;
	return r;
}

/* --capture-range=cudaProfilerApi|mstx:NAME|nvtx:NAME (nsys's names): the
 * job's cudaProfilerStart opens a window and cudaProfilerStop closes it,
 * or a range of that whole message opens one and its end closes it. */
static int check_capture_range(struct msprof_opts *o, const char *v, struct diag *d)
{
	if (!v || !(streq(v, "cudaProfilerApi") ||
		    ((startswith(v, "mstx:") || startswith(v, "nvtx:")) && v[5] && strlen(v) <= 200)))
		return diag_error(d, "Argument --capture-range: invalid value: %s. Please input cudaProfilerApi, "
				     "mstx:NAME or nvtx:NAME (the message of the range that opens and closes a window, "
				     "at most 195 bytes).", v ? v : "");
	o->capture_range = v;
	return 0;
}

/* --capture-range-end=stop|repeat:N: how many such ranges open a window */
static int check_capture_range_end(struct msprof_opts *o, const char *v, struct diag *d)
{
	uint64_t n;
	if (!v || !(streq(v, "stop") || (startswith(v, "repeat:") && parse_u64(v + 7, 1, 1000000, &n) == 0)))
		return diag_error(d, "Argument --capture-range-end: invalid value: %s. Please input stop or repeat:N "
				     "(N from 1 to 1000000).", v ? v : "");
	o->capture_range_end = v;
	return 0;
}

/* --schedule=skip_first=S,wait=W,warmup=U,active=A,repeat=R */
static int check_schedule(struct msprof_opts *o, const char *v, struct diag *d)
{
	struct step_schedule sc;
	if (!v || strlen(v) > 200 || step_schedule_parse(v, &sc) < 0)
		return diag_error(d, "Argument --schedule: invalid value: %s. Please input skip_first=S,wait=W,warmup=U,"
				     "active=A,repeat=R, any of them, each a number up to %llu (active at least 1, "
				     "the default; the others 0 by default; repeat 0: until the job ends).",
				  v ? v : "", (unsigned long long)STEP_SCHEDULE_MAX);
	o->schedule = v;
	return 0;
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

static int check_sys_cpu_profiling(struct msprof_opts *o, const char *v, struct diag *d)
{
	int r = check_on_off("sys-cpu-profiling", v, &o->sys_cpu_profiling, d);
	if (r == 0 && o->sys_cpu_profiling)
		diag_warn(d, "Argument --sys-cpu-profiling=on is ignored: it asks for AI CPU, Ctrl CPU and TS CPU data, "
			  "which only an Ascend NPU has.");
	return r;
}

static int check_list(struct msprof_opts *o, const char *v, struct diag *d)
{
	o->list = true;
	return 0;
}

static int check_dump(struct msprof_opts *o, const char *v, struct diag *d)
{
	o->dump = true;
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

	if (o->dump) {
		if (!have_pid || opts_have_app(o) || o->dynamic)
			return diag_error(d, "Argument --dump needs --pid=P (a process of a job that msprof "
					  "--flight-recorder profiles) and neither --dynamic nor an application.");
		int r = parse_pid_list(o, d);
		if (r < 0)
			return r;
		if (o->n_pids != 1)
			return diag_error(d, "Argument --dump takes one --pid, any process of the job.");
	} else if (o->list) {
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
						  opt_get(dynamic_conflicts[i])->name);
		if (have_pid) {
			int r = parse_pid_list(o, d);
			if (r < 0)
				return r;
		}
	}

	const char *inc_s = opts_s(o, SET_MSTX_DOMAIN_INCLUDE), *exc_s = opts_s(o, SET_MSTX_DOMAIN_EXCLUDE);
	bool inc = inc_s && *inc_s, exc = exc_s && *exc_s, tx = opts_u(o, SET_MSPROFTX);
	if (!tx && (inc || exc))
		return diag_error(d, "Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on.");
	if (inc && exc)
		return diag_error(d, "Argument --mstx-domain-include and --mstx-domain-exclude cannot be used at the same time.");
	if (!tx && opts_s(o, SET_STEP_RANGE))
		return diag_error(d, "Argument --step-range must be used with --msproftx=on.");
	if (opts_used(o, OPT_OSRT_THRESHOLD) && !opts_osrt(o))
		return diag_error(d, "Argument --osrt-threshold must be used with --host-sys=osrt.");
	if (opts_s(o, SET_DUMP_ON) && !opts_s(o, SET_FLIGHT_RECORDER))
		return diag_error(d, "Argument --dump-on must be used with --flight-recorder.");
	if (opts_s(o, SET_FLIGHT_RECORDER)) {
		/* the recorder is always on: windows are another way of
		 * choosing */
		static const enum opt_id fr_conflicts[] = {
			OPT_DELAY, OPT_DURATION, OPT_CAPTURE_RANGE, OPT_SCHEDULE,
		};
		for (size_t i = 0; i < ARRAY_SIZE(fr_conflicts); i++)
			if (opts_used(o, fr_conflicts[i]))
				return diag_error(d, "Argument --flight-recorder and --%s cannot be configured at the same "
						  "time.", opt_get(fr_conflicts[i])->name);
		if (opts_s(o, SET_STEP_RANGE))
			return diag_error(d, "Argument --flight-recorder and --step-range cannot be configured at the "
					  "same time.");
	}
	return 0;
}

/* --- the table ------------------------------------------------------------- */

/* Continuation lines of a description are indented as msprof does it. */
#define CONT SETTING_HELP_CONT
#define NPU_ONLY CONT "(Ascend NPU data: accepted and ignored here, with a warning)"

/* The modes that allow an option (modes.h). */
#define M(x) MODE_BIT(MODE_##x)
#define APP_MODES (M(DYNAMIC) | M(LAUNCH))
#define SYSTEM_MODES (M(SYSTEM) | M(HOST_SYS) | M(HOST_SYS_USAGE))
#define ANALYSIS_MODES (M(PARSE) | M(QUERY) | M(EXPORT) | M(ANALYZE))

/* The launcher's own options; the settings' come from ipc/settings.c.
 * The number after the check is msprof's order (its enum in
 * input_parser.h, times 10), shared with the settings' rows; the last field
 * the modes that allow the option (--help and --version select none). */
static const struct opt_def launcher_opts[_OPT_LAUNCHER_MAX] = {
	[OPT_HELP] = { OPT_HELP, "help", false, "help message.", NULL, 0, OPT_VALUES_NONE, NULL, 0 },
	[OPT_OUTPUT] = { OPT_OUTPUT, "output", true,
		"Specify the directory that is used for storing data results.", check_output, 10,
		OPT_VALUES_DIR, NULL,
		APP_MODES | SYSTEM_MODES | ANALYSIS_MODES },
	[OPT_APPLICATION] = { OPT_APPLICATION, "application", true,
		"Specify application path, considering the risk of privilege escalation, please pay attention to"
		CONT "the group of the application and confirm whether it is the same as the user currently."
		CONT "[Note] This option will be discarded in later versions."
		CONT "you can try to use: msprof [msprof arguments] <app> [app arguments]", check_application, 30,
		OPT_VALUES_COMMAND, NULL,
		APP_MODES },
	[OPT_ENVIRONMENT] = { OPT_ENVIRONMENT, "environment", true,
		"User app custom environment variable configuration.", check_environment, 40, OPT_VALUES_NONE, NULL,
		APP_MODES },
	[OPT_DYNAMIC] = { OPT_DYNAMIC, "dynamic", true,
		"Dynamic profiling switch, the default value is off.", check_dynamic, 50, OPT_VALUES_CHOICE, "on|off",
		M(LIST) | APP_MODES },
	[OPT_PID] = { OPT_PID, "pid", true,
		"Dynamic profiling pids of the target processes", check_pid, 60, OPT_VALUES_NONE, NULL,
		M(DYNAMIC) | M(DUMP) },
	[OPT_DELAY] = { OPT_DELAY, "delay", true,
		"Collect start delay time in seconds, range 1 ~ 4294967295s.", check_delay, 70, OPT_VALUES_NONE, NULL,
		M(LAUNCH) },
	[OPT_DURATION] = { OPT_DURATION, "duration", true,
		"Collection duration in seconds, range 1 ~ 4294967295s.", check_duration, 80, OPT_VALUES_NONE, NULL,
		M(LAUNCH) },
	[OPT_SYS_DEVICES] = { OPT_SYS_DEVICES, "sys-devices", true,
		"Specify the profiling scope by device ID when collect sys profiling."
		"The value is all or ID list (split with ',')."
		CONT "Without an application, with --sys-period: system mode (the host's CPU and memory usage,"
		CONT "and the NVIDIA devices' memory and utilisation); every device NVML lists is collected.",
		check_sys_devices, 90, OPT_VALUES_CHOICE, "all",
		M(SYSTEM) },
	[OPT_TYPE] = { OPT_TYPE, "type", true,
		"The export type, only used when argument `export` is on "
		CONT "or when collecting data, include text, db."
		CONT "the default value is text(which will also export the database).", check_type, 100,
		OPT_VALUES_CHOICE, "text|db",
		APP_MODES | SYSTEM_MODES | M(EXPORT) | M(ANALYZE) },
	[OPT_SYS_CPU_PROFILING] = { OPT_SYS_CPU_PROFILING, "sys-cpu-profiling", true,
		"The CPU acquisition switch, optional on / off,the default value is off."
		NPU_ONLY, check_sys_cpu_profiling, 140, OPT_VALUES_CHOICE, "on|off",
		M(SYSTEM) },
	[OPT_EXPORT] = { OPT_EXPORT, "export", true,
		"Switch for using msprof to export collecting data, the default value is off.", check_export, 150,
		OPT_VALUES_CHOICE, "on|off",
		M(EXPORT) },
	[OPT_ITERATION_ID] = { OPT_ITERATION_ID, "iteration-id", true,
		"The export iteration id, only used when argument `export` is on,"
		CONT "must be set together with `model-id`; steps marked with mstx/NVTX are"
		CONT "numbered as in step_trace (`model-id` 4294967295).", check_iteration_id, 160,
		OPT_VALUES_NONE, NULL,
		M(EXPORT) },
	[OPT_MODEL_ID] = { OPT_MODEL_ID, "model-id", true,
		"The export model id, only used when argument `export` is on,"
		CONT "must be set together with `iteration-id`; 4294967295 selects step mode.", check_model_id, 170,
		OPT_VALUES_NONE, NULL,
		M(EXPORT) },
	[OPT_SUMMARY_FORMAT] = { OPT_SUMMARY_FORMAT, "summary-format", true,
		"The export summary file format, only used when argument `export` is on,"
		CONT "include csv, json, the default value is csv.", check_summary_format, 180,
		OPT_VALUES_CHOICE, "csv|json",
		M(EXPORT) },
	[OPT_REPORTS] = { OPT_REPORTS, "reports", true,
		"The timeline tracks to export, a JSON file like msprof's reports_sample_config.json"
		CONT "({\"json_process\": {\"cpu_usage\": true, ...}}), only used when argument `export` is on.",
		check_reports, 190, OPT_VALUES_FILE, NULL,
		M(EXPORT) },
	[OPT_PARSE] = { OPT_PARSE, "parse", true,
		"Switch for using msprof to parse collecting data, the default value is off.", check_parse, 200,
		OPT_VALUES_CHOICE, "on|off",
		M(PARSE) },
	[OPT_QUERY] = { OPT_QUERY, "query", true,
		"Switch for using msprof to query collecting data, the default value is off.", check_query, 210,
		OPT_VALUES_CHOICE, "on|off",
		M(QUERY) },
	[OPT_ANALYZE] = { OPT_ANALYZE, "analyze", true,
		"Switch for using msprof to analyze collecting data, the default value is off.", check_analyze, 220,
		OPT_VALUES_CHOICE, "on|off",
		M(ANALYZE) },
	[OPT_RULE] = { OPT_RULE, "rule", true,
		"The analyze rules, only used when argument `analyze` is on,"
		CONT "include communication, communication_matrix (split with ',').", check_rule, 230,
		OPT_VALUES_LIST, "communication|communication_matrix",
		M(ANALYZE) },
	[OPT_CLEAR] = { OPT_CLEAR, "clear", true,
		"Switch for deleting the intermediate sqlite/ data after export or analyze, the default value is off.",
		check_clear, 240, OPT_VALUES_CHOICE, "on|off",
		M(EXPORT) | M(ANALYZE) },
	[OPT_PYTHON_PATH] = { OPT_PYTHON_PATH, "python-path", true,
		"Specify the python interpreter path."
		CONT "(accepted for compatibility; this implementation needs no Python)", check_python_path, 250,
		OPT_VALUES_FILE, NULL,
		ANALYSIS_MODES },
	[OPT_SYS_PERIOD] = { OPT_SYS_PERIOD, "sys-period", true,
		"Set total sampling period of system profiling in seconds, range 1 ~ 2592000s."
		CONT "Without an application, collection otherwise runs until the process exits or Ctrl-C.",
		check_sys_period, 260, OPT_VALUES_NONE, NULL,
		SYSTEM_MODES },
	[OPT_HOST_SYS_PID] = { OPT_HOST_SYS_PID, "host-sys-pid", true,
		"Set the PID of the app process for which you want to collect performance data.", check_host_sys_pid, 290,
		OPT_VALUES_NONE, NULL,
		SYSTEM_MODES },
	[OPT_VERSION] = { OPT_VERSION, "version", false,
		"Print the version and exit. (an option of this implementation; CANN msprof has none)", NULL, 380,
		OPT_VALUES_NONE, NULL,
		0 },
	[OPT_LIST] = { OPT_LIST, "list", false,
		"With --dynamic=on: list the processes --pid can attach to with agent data (mstx, NVTX),"
		CONT "those whose msprof agent has registered. (an option of this implementation; CANN msprof has none)",
		check_list, 390, OPT_VALUES_NONE, NULL,
		M(LIST) },
	[OPT_SUMMARY] = { OPT_SUMMARY, "summary", true,
		"The run at a glance after each export (duration, steps, top ranges, peaks, losses),"
		CONT "on or off, the default value is on. (an option of this implementation; CANN msprof has none)",
		check_summary, 395, OPT_VALUES_CHOICE, "on|off",
		APP_MODES | SYSTEM_MODES | M(EXPORT) },
	[OPT_CAPTURE_RANGE] = { OPT_CAPTURE_RANGE, "capture-range", true,
		"With an application: its cudaProfilerStart opens a window and cudaProfilerStop closes it"
		CONT "(cudaProfilerApi), or an mstx or NVTX range whose whole message is NAME opens one as it"
		CONT "starts and closes it as it ends (mstx:NAME or nvtx:NAME), each window its own PROF dir; the"
		CONT "collection starts closed (with --dynamic=on the prompt works too). (an option of this"
		CONT "implementation; CANN msprof has none)",
		check_capture_range, 396, OPT_VALUES_NONE, NULL,
		M(DYNAMIC) | M(LAUNCH) },
	[OPT_CAPTURE_RANGE_END] = { OPT_CAPTURE_RANGE_END, "capture-range-end", true,
		"With --capture-range: stop (the first such range or start/stop pair only, the default) or"
		CONT "repeat:N (the first N). (an option of this implementation; CANN msprof has none)",
		check_capture_range_end, 397, OPT_VALUES_NONE, NULL,
		M(DYNAMIC) | M(LAUNCH) },
	[OPT_SCHEDULE] = { OPT_SCHEDULE, "schedule", true,
		"With --msproftx=on, an application or --pid: windows at the job's training steps, as"
		CONT "torch.profiler.schedule: skip the first S steps, then cycles of W steps waited, U warmed up"
		CONT "(collected, not kept) and A kept, R cycles (0: until the job ends); each cycle's A steps"
		CONT "are a window and its own PROF dir (skip_first=S,wait=W,warmup=U,active=A,repeat=R, any"
		CONT "of them; start_step=N counts from step number N, deadline=D closes a window open D s)."
		CONT "The collection starts closed. (an option of this implementation; CANN msprof has none)",
		check_schedule, 398, OPT_VALUES_NONE, NULL,
		M(DYNAMIC) | M(LAUNCH) },
	[OPT_DUMP] = { OPT_DUMP, "dump", false,
		"With --pid=P: have the --flight-recorder of the job P belongs to write out what it holds"
		CONT "now, as the `dump` trigger does. (an option of this implementation; CANN msprof has none)",
		check_dump, 399, OPT_VALUES_NONE, NULL,
		M(DUMP) },
};

/* A setting's option: its row's checks and msprof's messages; --host-sys
 * keeps msprof's rule on where osrt may be given. */
static int check_setting(struct msprof_opts *o, enum setting_id id, const char *v, struct diag *d)
{
	int r = settings_parse_cli(&o->set, id, v, d->error, sizeof(d->error));
	if (r < 0)
		return r;
	/* msprof checks the order before probing perf and ltrace for osrt
	 * (CheckOsrtTools); we keep that rule and probe nothing: the agent
	 * records the calls, no tool or sudo is involved. */
	if (id == SET_HOST_SYS && opts_osrt(o) && !opts_used(o, OPT_OUTPUT) && !opts_used(o, OPT_APPLICATION))
		return diag_error(d, "If you want to use this parameter:--host-sys, please put it behind the "
				  "--output or --application.");
	return 0;
}

_Static_assert(_OPT_MAX <= 64, "msprof_opts.used holds a bit per option");

/* msprof's NPU options (compat.c) come after every option of ours. */
#define COMPAT_ORDER 1000

/* The settings' and msprof's NPU options as options, and every option in
 * msprof's order; built on first use from the three tables. */
static struct opt_def setting_opts[_SET_MAX];
static struct opt_def compat_opts[MSPROF_COMPAT_MAX];
static const struct opt_def *ordered[_OPT_MAX + MSPROF_COMPAT_MAX];
static unsigned n_ordered;

static void ordered_add(const struct opt_def *def)
{
	unsigned k = n_ordered++;
	for (; k > 0 && ordered[k - 1]->order > def->order; k--)
		ordered[k] = ordered[k - 1];
	ordered[k] = def;
}

static void opts_build(void)
{
	if (n_ordered)
		return;
	for (unsigned i = 0; i < _SET_MAX; i++) {
		const struct setting_def *s = &setting_table[i];
		setting_opts[i] = (struct opt_def){ .id = OPT_SET(i), .name = s->cli, .takes_value = true,
						    .help = s->help, .order = s->order };
	}
	for (unsigned i = 0; i < _OPT_MAX; i++) {
		const struct opt_def *def = opt_get((enum opt_id)i);
		if (def)
			ordered_add(def);
	}
	for (unsigned i = 0; i < compat_count; i++) {
		const struct compat_def *c = &compat_table[i];
		compat_opts[i] = (struct opt_def){ .id = (enum opt_id)(_OPT_MAX + i), .name = c->name,
						   .takes_value = true, .help = c->help, .order = COMPAT_ORDER + i };
		ordered_add(&compat_opts[i]);
	}
}

const struct opt_def *opt_get(enum opt_id id)
{
	if ((unsigned)id < _OPT_LAUNCHER_MAX)
		return &launcher_opts[id];
	if ((unsigned)id >= _OPT_MAX || !setting_table[id - _OPT_LAUNCHER_MAX].cli)
		return NULL;
	if (!setting_opts[id - _OPT_LAUNCHER_MAX].name)
		opts_build();
	return &setting_opts[id - _OPT_LAUNCHER_MAX];
}

unsigned opts_ordered(const struct opt_def *const **ret)
{
	opts_build();
	*ret = ordered;
	return n_ordered;
}

void opts_init(struct msprof_opts *o)
{
	*o = (struct msprof_opts){ .type = OUT_TEXT };
	settings_init(&o->set);
}

void opts_release(struct msprof_opts *o)
{
	free(o->output);
	free(o->pids);
	opts_init(o);
}

void opts_default_host_sys(struct msprof_opts *o)
{
	if (opts_u(o, SET_HOST_SYS) || opts_u(o, SET_HOST_SYS_USAGE))
		return;
	o->set.u[SET_HOST_SYS] = HOST_SYS_CPU | HOST_SYS_MEM;
}

void opts_default_flight(struct msprof_opts *o)
{
	if (!opts_s(o, SET_FLIGHT_RECORDER))
		return;
	/* the recorder keeps the job's annotations and watches its steps:
	 * its agent records unless --msproftx=off says otherwise */
	if (!settings_given(&o->set, SET_MSPROFTX))
		o->set.u[SET_MSPROFTX] = 1;
	/* ... and the triggers go to the agents, the defaults too */
	if (!opts_s(o, SET_DUMP_ON)) {
		o->set.s[SET_DUMP_ON] = FLIGHT_DUMP_ON_DEFAULT;
		o->set.given |= SETTING_BIT(SET_DUMP_ON);
	}
}

void opts_names(uint64_t mask, char *buf, size_t size)
{
	const struct opt_def *const *defs;
	unsigned n = opts_ordered(&defs);
	if (size == 0)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		if ((unsigned)defs[i]->id >= _OPT_MAX || !(mask & OPT_BIT(defs[i]->id)))
			continue;
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s--%s", used ? " " : "", defs[i]->name);
	}
}

void opts_print_help(FILE *f)
{
	const struct opt_def *const *defs;
	unsigned n = opts_ordered(&defs);
	fputs("\nUsage:\n      ./msprof [--options]\n\nOptions:\n", f);
	/* msprof's order, except that it lists --help last */
	for (unsigned k = 1; k <= n; k++) {
		const struct opt_def *o = defs[k % n];
		fprintf(f, "%8s%-32s%s %s\n", "--", o->name, "<Optional>", o->help);
	}
}

/* The edit distance (insertions, deletions, substitutions, swaps of two
 * neighbours) between a[0..la) and b, at most MAX_NAME + 1. */
#define MAX_NAME 40
static unsigned name_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);
	if (la > MAX_NAME || lb > MAX_NAME)
		return MAX_NAME + 1;
	unsigned m[MAX_NAME + 1][MAX_NAME + 1];
	for (size_t i = 0; i <= la; i++)
		m[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		m[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = m[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (m[i - 1][j] + 1 < best)
				best = m[i - 1][j] + 1;
			if (m[i][j - 1] + 1 < best)
				best = m[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && m[i - 2][j - 2] + 1 < best)
				best = m[i - 2][j - 2] + 1;
			m[i][j] = best;
		}
	}
	return m[la][lb];
}

/* The option a mistyped name most likely meant: the nearest by edit
 * distance, if near enough (a third of the name, at least 2), else NULL;
 * for an ambiguous prefix, the nearest of those it begins. */
static const struct opt_def *opt_suggest(const char *name, size_t len, bool prefix)
{
	const struct opt_def *const *defs;
	unsigned n_defs = opts_ordered(&defs), best = UINT32_MAX;
	const struct opt_def *found = NULL;
	for (unsigned i = 0; i < n_defs; i++) {
		if (prefix && strncmp(defs[i]->name, name, len) != 0)
			continue;
		unsigned dist = name_distance(name, len, defs[i]->name);
		if (dist < best) {
			best = dist;
			found = defs[i];
		}
	}
	unsigned near = len / 3 > 2 ? (unsigned)(len / 3) : 2;
	return prefix || best <= near ? found : NULL;
}

/* After getopt's line: the nearest option, and where the usage is. */
static void add_suggestion(const char *name, size_t len, bool prefix, struct diag *d)
{
	const struct opt_def *near = opt_suggest(name, len, prefix);
	if (near)
		snprintf(d->meant, sizeof(d->meant), "%s", near->name);
	d->usage = false;
	d->hint = true;
}

/* getopt_long's matching: an exact name wins, else a unique prefix.  The
 * first line of a message is glibc's, since msprof leaves them to
 * getopt_long; then ours: the option meant, and where the usage is. */
static const struct opt_def *opt_match(const char *tok, unsigned *ret_n_found)
{
	const char *name = tok + 2;
	size_t len = strcspn(name, "=");
	const struct opt_def *found = NULL;
	const struct opt_def *const *defs;
	unsigned n_found = 0, n_defs = opts_ordered(&defs);

	for (unsigned i = 0; len > 0 && i < n_defs; i++) {
		if (strncmp(defs[i]->name, name, len) != 0)
			continue;
		if (defs[i]->name[len] == '\0') {
			*ret_n_found = 1;
			return defs[i];
		}
		found = defs[i];
		n_found++;
	}
	*ret_n_found = n_found;
	return n_found == 1 ? found : NULL;
}

const struct opt_def *opts_find(const char *tok)
{
	unsigned n;
	return startswith(tok, "--") ? opt_match(tok, &n) : NULL;
}

static int opt_lookup(const char *argv0, const char *tok, const struct opt_def **ret, struct diag *d)
{
	const char *name = tok + 2;
	size_t len = strcspn(name, "=");
	unsigned n_found;
	const struct opt_def *const *defs;
	unsigned n_defs = opts_ordered(&defs);
	if ((*ret = opt_match(tok, &n_found)))
		return 0;
	d->plain = true;
	if (n_found == 0) {
		diag_error(d, "%s: unrecognized option '%s'", argv0, tok);
		add_suggestion(name, len, false, d);
		return -EINVAL;
	}

	int n = snprintf(d->error, sizeof(d->error), "%s: option '%s' is ambiguous; possibilities:", argv0, tok);
	for (unsigned i = 0; i < n_defs && n >= 0 && (size_t)n < sizeof(d->error); i++)
		if (strncmp(defs[i]->name, name, len) == 0)
			n += snprintf(d->error + n, sizeof(d->error) - (size_t)n, " '--%s'", defs[i]->name);
	add_suggestion(name, len, true, d);
	return -EINVAL;
}

/* Keep msprof's NPU option c as given, the last value of each. */
static int compat_keep(struct msprof_opts *o, const struct opt_def *def, const char *value, struct diag *d)
{
	unsigned row = (unsigned)def->id - _OPT_MAX;
	int r = compat_check(&compat_table[row], value, d);
	if (r < 0)
		return r;
	unsigned i = 0;
	while (i < o->n_compat && o->compat[i].row != row)
		i++;
	if (i == o->n_compat)
		o->n_compat++;
	o->compat[i].row = (unsigned char)row;
	o->compat[i].value = value;
	return 0;
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
				d->plain = d->hint = true;
				return diag_error(d, "%s: option '--%s' doesn't allow an argument", argv0, def->name);
			}
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		}

		if ((unsigned)def->id >= _OPT_MAX) {
			r = compat_keep(o, def, value, d);
			if (r < 0)
				return r;
			continue;
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
		r = def->id >= _OPT_LAUNCHER_MAX ? check_setting(o, (enum setting_id)(def->id - _OPT_LAUNCHER_MAX), value, d)
						 : def->check(o, value, d);
		if (r < 0)
			return r;
	}

	/* --application has the higher priority (msprof HandleApp). */
	if (i < argc && !o->application) {
		o->app_argv = argv + i;
		o->app_argc = argc - i;
	}
	compat_apply(o, d);
	return check_combinations(o, d);
}
