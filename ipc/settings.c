/* The collection settings table and what reads it: the command line (with
 * msprof's messages, input_parser.cpp and param_validation.cpp in
 * hicann/oam-tools, spacing and punctuation included, because users and
 * wrappers grep them), session_start in both directions, and
 * host/sample.json in both directions. */
#include "ipc/settings.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/flight-recorder.h"
#include "common/host-sys.h"
#include "common/util.h"
#include "ipc/json.h"
#include "ipc/selectors.h"

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)

#define CONT SETTING_HELP_CONT

/* --mstx-domain-include/exclude as the agents take them */
#define DOMAIN_LIST_MAX 1024          /* bytes of a list */
#define DOMAIN_NAME_MAX 255

/* --- the value checks ------------------------------------------------------ */

/* "a,b": names of 1..DOMAIN_NAME_MAX bytes separated by commas, no control
 * characters; "" is no list.  The agent compares names byte for byte;
 * "default" is the default domain, as in msprof. */
static int check_domains(const char *list)
{
	size_t n = strnlen(list, DOMAIN_LIST_MAX + 1);
	if (n > DOMAIN_LIST_MAX)
		return -EINVAL;
	size_t item = 0;
	for (size_t i = 0; i <= n; i++) {
		unsigned char ch = (unsigned char)list[i];
		if (ch == ',' || ch == '\0') {
			if (n > 0 && (item == 0 || item > DOMAIN_NAME_MAX))
				return -EINVAL;
			item = 0;
		} else if (ch < 0x20 || ch == 0x7f) {
			return -EINVAL;
		} else {
			item++;
		}
	}
	return 0;
}

static int check_step_range(const char *v)
{
	int64_t lo, hi;
	return !*v ? 0 : ipc_parse_step_range(v, &lo, &hi);
}

static int check_ranks(const char *v)
{
	return !*v ? 0 : ipc_parse_ranks(v);
}

static int check_flight_recorder(const char *v)
{
	struct flight_spec f;
	return !*v ? 0 : flight_spec_parse(v, &f);
}

static int check_dump_on(const char *v)
{
	struct dump_on d;
	return !*v ? 0 : dump_on_parse(v, &d);
}

/* "<N>MB", N at most 10 digits in [min, max] (msprof's storage limit). */
static int parse_mb(const struct setting_def *def, const char *s, uint64_t *ret_mb)
{
	size_t n = strlen(s);
	if (n <= 2 || strcmp(s + n - 2, "MB") != 0)
		return -EINVAL;
	if (n - 2 > 10)
		return -ERANGE;
	char digits[11];
	memcpy(digits, s, n - 2);
	digits[n - 2] = '\0';
	uint64_t v;
	int r = parse_u64(digits, def->min, def->max, &v);
	if (r < 0)
		return r;
	*ret_mb = v;
	return 0;
}

static const struct setting_choice *choice_named(const struct setting_def *def, const char *name, size_t len)
{
	for (const struct setting_choice *c = def->choices; c && c->name; c++)
		if (strlen(c->name) == len && strncmp(c->name, name, len) == 0)
			return c;
	return NULL;
}

/* Comma list against the choices; empty items are skipped (msprof's Split
 * drops them).  -EINVAL with the item in bad otherwise. */
static int list_parse(const struct setting_def *def, const char *list, uint64_t *ret_flags, char *bad,
		      size_t bad_size)
{
	uint64_t flags = 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len > 0) {
			const struct setting_choice *c = choice_named(def, p, len);
			if (!c) {
				snprintf(bad, bad_size, "%.*s", (int)len, p);
				return -EINVAL;
			}
			flags |= c->value;
		}
		p += len + (p[len] == ',');
	}
	*ret_flags = flags;
	return 0;
}

/* --- the command line ------------------------------------------------------ */

/* msprof's CheckArgRange: an unsigned integer in [min, max]. */
static int cli_uint(const struct setting_def *def, const char *v, uint64_t *ret, char *err, size_t err_len)
{
	const char *name = def->cli;
	unsigned long long min = def->min, max = def->max;
	if (!v) {
		snprintf(err, err_len, "Argument --%s is empty, please enter a valid value.", name);
		return -EINVAL;
	}
	if (!all_digits(v)) {
		snprintf(err, err_len, "Argument --%s: invalid value: %s.Please input an integer value in %llu-%llu.",
			 name, v, min, max);
		return -EINVAL;
	}
	uint64_t n;
	if (parse_u64(v, def->min, def->max, &n) < 0) {
		/* msprof prints the number it parsed; for one too long for
		 * 64 bits, the text as given is the honest rendering */
		uint64_t shown;
		if (parse_u64(v, 0, UINT64_MAX, &shown) == 0)
			snprintf(err, err_len, "Argument --%s: invalid int value: %llu.Please input data is in %llu to %llu.",
				 name, (unsigned long long)shown, min, max);
		else
			snprintf(err, err_len, "Argument --%s: invalid int value: %s.Please input data is in %llu to %llu.",
				 name, v, min, max);
		return -EINVAL;
	}
	*ret = n;
	return 0;
}

/* "'on', 'off', 'l0', 'l1' or 'l2'" */
static void choices_phrase(const struct setting_def *def, char *buf, size_t size)
{
	size_t n = 0, used = 0;
	buf[0] = '\0';
	for (const struct setting_choice *c = def->choices; c->name; c++)
		n += !c->refuse;
	for (const struct setting_choice *c = def->choices; c->name; c++) {
		if (c->refuse)
			continue;
		used++;
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s'%s'", used == 1 ? "" : used == n ? " or " : ", ", c->name);
	}
}

/* "'cpu|mem|disk|network|osrt'" */
static void choices_range(const struct setting_def *def, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "'");
	for (const struct setting_choice *c = def->choices; c->name && len < size; c++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", c == def->choices ? "" : "|", c->name);
	if (len < size)
		snprintf(buf + len, size - len, "'");
}

static int cli_generic(const struct setting_def *def, const char *v, struct settings *s, char *err, size_t err_len)
{
	const char *name = def->cli;
	enum setting_id id = def->id;
	char words[160];

	switch (def->type) {
	case SETTING_SWITCH: /* msprof's CheckArgOnOff */
		if (!v) {
			snprintf(err, err_len, "Argument --%s: expected one argument,please enter a valid value.", name);
			return -EINVAL;
		}
		if (!streq(v, "on") && !streq(v, "off")) {
			snprintf(err, err_len, "Argument --%s: invalid value: %s. Please input 'on' or 'off'.", name, v);
			return -EINVAL;
		}
		s->u[id] = streq(v, "on");
		return 0;
	case SETTING_UINT:
		return cli_uint(def, v, &s->u[id], err, err_len);
	case SETTING_ENUM: {
		if (!v) {
			snprintf(err, err_len, "Argument --%s: expected one argument,please enter a valid value.", name);
			return -EINVAL;
		}
		const struct setting_choice *c = choice_named(def, v, strlen(v));
		if (c && c->refuse) {
			snprintf(err, err_len, "%s", c->refuse);
			return -EINVAL;
		}
		if (!c) {
			choices_phrase(def, words, sizeof(words));
			snprintf(err, err_len, "Argument --%s: invalid value: %s. Please input %s.", name, v, words);
			return -EINVAL;
		}
		s->u[id] = c->value;
		return 0;
	}
	case SETTING_LIST: { /* msprof's --host-sys checks */
		uint64_t flags;
		char bad[64];
		choices_range(def, words, sizeof(words));
		if (!v) {
			snprintf(err, err_len, "Argument --%s: expected one argument", name);
			return -EINVAL;
		}
		if (list_parse(def, v, &flags, bad, sizeof(bad)) < 0) {
			snprintf(err, err_len, "Argument --%s: invalid value:%s. Please input in the range of %s", name, bad,
				 words);
			return -EINVAL;
		}
		if (flags == 0) {
			snprintf(err, err_len, "Argument --%s is empty. Please input in the range of %s", name, words);
			return -EINVAL;
		}
		s->u[id] = flags;
		return 0;
	}
	case SETTING_STR:
		/* msprof lets the domain lists through after the NULL check; an
		 * empty list counts as not given (CheckMstxValid tests empty()) */
		if (!v) {
			snprintf(err, err_len, "Argument --%s: expected one argument,please enter a valid value.", name);
			return -EINVAL;
		}
		s->s[id] = v;
		return 0;
	case SETTING_MB:
		break;
	}
	snprintf(err, err_len, "Argument --%s: cannot be parsed", name);
	return -EINVAL;
}

/* msprof's --host-sys-usage wording differs from --host-sys's */
static int cli_host_usage(const struct setting_def *def, const char *v, struct settings *s, char *err,
			  size_t err_len)
{
	uint64_t flags = 0;
	char bad[64], words[64];
	choices_range(def, words, sizeof(words));
	if (!v || !*v) {
		snprintf(err, err_len, "Argument --%s is empty. Please input in the range of %s.", def->cli, words);
		return -EINVAL;
	}
	if (list_parse(def, v, &flags, bad, sizeof(bad)) < 0 || flags == 0) {
		snprintf(err, err_len, "Argument --%s=%s is invalid. Please input in the range of %s.", def->cli, v, words);
		return -EINVAL;
	}
	s->u[def->id] = flags;
	return 0;
}

static int cli_storage_limit(const struct setting_def *def, const char *v, struct settings *s, char *err,
			     size_t err_len)
{
	uint64_t mb;
	if (!v || !*v) {
		snprintf(err, err_len, "Argument --%s: expected one argument", def->cli);
		return -EINVAL;
	}
	if (parse_mb(def, v, &mb) < 0) {
		snprintf(err, err_len, "Argument --%s %s is invalid, valid range is %lluMB~%lluMB", def->cli, v,
			 (unsigned long long)def->min, (unsigned long long)def->max);
		return -EINVAL;
	}
	s->u[def->id] = mb;
	s->s[def->id] = v;
	return 0;
}

/* Ours (MindSpeed's profile_step_start/end and profile_ranks); the values
 * are checked as the daemon checks them (ipc/selectors.c). */
static int cli_step_range(const struct setting_def *def, const char *v, struct settings *s, char *err,
			  size_t err_len)
{
	if (!v || !*v) {
		snprintf(err, err_len, "Argument --%s: expected one argument,please enter a valid value.", def->cli);
		return -EINVAL;
	}
	int r = check_step_range(v);
	if (r == -ERANGE) {
		snprintf(err, err_len, "Argument --%s is invalid: '%s', the start step must be less than the end "
			 "step, both at most %" PRId64 ".", def->cli, v, INT64_MAX);
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(err, err_len, "Argument --%s is invalid: '%s', expected A-B (steps A to B-1, "
			 "non-negative integers), e.g. 2-4.", def->cli, v);
		return -EINVAL;
	}
	s->s[def->id] = v;
	return 0;
}

static int cli_flight_recorder(const struct setting_def *def, const char *v, struct settings *s, char *err,
			       size_t err_len)
{
	if (!v || !*v || check_flight_recorder(v) < 0) {
		snprintf(err, err_len, "Argument --%s is invalid: '%s', expected a span of %d s to %llu s "
			 "(e.g. 60s, 10m, 2h) and/or a size of %d MB to %llu MB (e.g. 512MB, 2GB), comma-separated.",
			 def->cli, v ? v : "", FLIGHT_SPAN_MIN_S, (unsigned long long)FLIGHT_SPAN_MAX_S,
			 FLIGHT_RING_MIN_MB, (unsigned long long)FLIGHT_RING_MAX_MB);
		return -EINVAL;
	}
	s->s[def->id] = v;
	return 0;
}

static int cli_dump_on(const struct setting_def *def, const char *v, struct settings *s, char *err,
		       size_t err_len)
{
	if (!v || !*v || check_dump_on(v) < 0) {
		snprintf(err, err_len, "Argument --%s is invalid: '%s', expected any of slow-step:K (K 1.1 to 1000), "
			 "hang:T (T 1s to 7 days, e.g. 300s, 10m) and exit, comma-separated, or none.", def->cli,
			 v ? v : "");
		return -EINVAL;
	}
	s->s[def->id] = v;
	return 0;
}

static int cli_ranks(const struct setting_def *def, const char *v, struct settings *s, char *err, size_t err_len)
{
	if (!v || !*v) {
		snprintf(err, err_len, "Argument --%s: expected one argument,please enter a valid value.", def->cli);
		return -EINVAL;
	}
	int r = check_ranks(v);
	if (r == -ERANGE)
		snprintf(err, err_len, "Argument --%s is invalid: '%s', a rank must be in range 0 ~ %d.", def->cli, v,
			 IPC_RANK_MAX);
	else if (r == -E2BIG)
		snprintf(err, err_len, "Argument --%s is invalid: more than %d ranks.", def->cli, IPC_RANKS_MAX);
	else if (r < 0)
		snprintf(err, err_len, "Argument --%s is invalid: '%s', expected comma-separated ranks, e.g. 0,2.",
			 def->cli, v);
	if (r < 0)
		return -EINVAL;
	s->s[def->id] = v;
	return 0;
}

/* --- derived rows ---------------------------------------------------------- */

static uint64_t derive_osrt(const struct settings *s)
{
	return (s->u[SET_HOST_SYS] & HOST_SYS_OSRT) != 0;
}

/* The devices are described whenever device data may come (task time is
 * on by default), sampled with the sys switches. */
static uint64_t derive_device(const struct settings *s)
{
	return s->u[SET_TASK_TIME] != TASK_TIME_OFF || s->u[SET_RUNTIME_API] || s->u[SET_SYS_HARDWARE_MEM] ||
	       s->u[SET_SYS_INTERCONNECTION];
}

/* --- the table ------------------------------------------------------------- */

/* The samplers first, as msprofd samples them; osrt goes to the agents. */
static const struct setting_choice host_sys_choices[] = {
	{ "cpu", HOST_SYS_CPU }, { "mem", HOST_SYS_MEM }, { "disk", HOST_SYS_DISK },
	{ "network", HOST_SYS_NETWORK }, { "osrt", HOST_SYS_OSRT, .local = true }, { NULL },
};
static const struct setting_choice host_usage_choices[] = {
	{ "cpu", HOST_USAGE_CPU }, { "mem", HOST_USAGE_MEM }, { NULL },
};
/* msprof's --task-time values (input_parser.cpp CheckTaskTime) */
static const struct setting_choice task_time_choices[] = {
	{ "on", TASK_TIME_L1, .alias = true }, { "off", TASK_TIME_OFF }, { "l0", TASK_TIME_L0 },
	{ "l1", TASK_TIME_L1 }, { "l2", TASK_TIME_L2 },
	{ "l3", TASK_TIME_L2, .refuse = "l3 is not supported on this platform." }, { NULL },
};

#define HZ " Hz"
#define BOTH (SCOPE_APP | SCOPE_SYSTEM)
/* msprof's SystemMode takes the device options, its AppMode too */
#define DEVICES (SCOPE_APP | SCOPE_DEVICES)
/* The daemon's messages name a field's pair where they always did. */
#define DOMAINS_WHY "'mstx_domain_include' and 'mstx_domain_exclude' must be comma-separated domain names (1 to " \
		    XSTR(DOMAIN_NAME_MAX) " bytes each, no control characters, " XSTR(DOMAIN_LIST_MAX) " bytes in all)"
#define HOST_LISTS_WHY "'host_sys' and 'host_sys_usage' must be strings"
#define DEVICE_WHY "'device', 'sys_hardware_mem' and 'sys_interconnection' must be true or false"

const struct setting_def setting_table[_SET_MAX] = {
	[SET_HOST_SYS] = {
		.id = SET_HOST_SYS, .cli = "host-sys", .type = SETTING_LIST, .choices = host_sys_choices,
		.ipc_key = "host_sys", .sample_key = "host_sys", .scopes = BOTH, .order = 280,
		.why = HOST_LISTS_WHY,
		.help = "The host-sys data type, include cpu, mem, disk, network, osrt."
			CONT "osrt: OS runtime calls of the application (locks, waits, sleeps, I/O, poll...)"
			CONT "recorded in-process by the msprof agent (no perf, ltrace or sudo).",
	},
	[SET_HOST_SYS_FREQ] = {
		.id = SET_HOST_SYS_FREQ, .cli = "host-sys-freq", .type = SETTING_UINT, .min = 1, .max = 1000,
		.def = 50, .ipc_key = "host_sys_freq", .sample_key = "host_sys_freq", .unit = HZ, .scopes = BOTH,
		.order = 370,
		.help = "The host-sys sampling frequency in hertz, the default value is 50 Hz, the range is 1 to 1000 Hz."
			CONT "(an option of this implementation; CANN msprof has none)",
	},
	[SET_HOST_SYS_USAGE] = {
		.id = SET_HOST_SYS_USAGE, .cli = "host-sys-usage", .type = SETTING_LIST,
		.choices = host_usage_choices, .ipc_key = "host_sys_usage", .sample_key = "host_sys_usage",
		.scopes = BOTH, .order = 300, .parse_cli = cli_host_usage,
		.why = HOST_LISTS_WHY,
		.help = "The host-sys-usage data type, include cpu, mem.",
	},
	[SET_HOST_SYS_USAGE_FREQ] = {
		.id = SET_HOST_SYS_USAGE_FREQ, .cli = "host-sys-usage-freq", .type = SETTING_UINT, .min = 1,
		.max = 50, .def = 50, .ipc_key = "host_sys_usage_freq", .sample_key = "host_sys_usage_freq",
		.unit = HZ, .scopes = BOTH, .order = 270,
		.help = "The sampling frequency in hertz. the default value is 50 Hz the range is 1 to 50 Hz.",
	},
	[SET_STORAGE_LIMIT] = {
		.id = SET_STORAGE_LIMIT, .cli = "storage-limit", .type = SETTING_MB, .min = 200,
		.max = 4294967295ULL, .ipc_key = "storage_limit_mb", .sample_key = "storageLimit", .scopes = BOTH,
		.order = 20, .parse_cli = cli_storage_limit,
		.help = "Specify the output directory volume. range 200MB ~ 4294967295MB.",
	},
	[SET_MSPROFTX] = {
		.id = SET_MSPROFTX, .cli = "msproftx", .type = SETTING_SWITCH, .ipc_key = "msproftx",
		.sample_key = "msproftx", .flags = SETTING_AGENT, .scopes = SCOPE_APP, .order = 110,
		.why = "'agent' and 'msproftx' must be true or false",
		.help = "Show msproftx and mstx data, the default value is off.",
	},
	[SET_MSTX_DOMAIN_INCLUDE] = {
		.id = SET_MSTX_DOMAIN_INCLUDE, .cli = "mstx-domain-include", .type = SETTING_STR,
		.ipc_key = "mstx_domain_include", .sample_key = "mstx_domain_include", .flags = SETTING_AGENT,
		.scopes = SCOPE_APP, .order = 120, .check_str = check_domains,
		.why = DOMAINS_WHY,
		.needs = "msproftx=on",
		.help = "Choose to only include mstx events from a comma separated list of domains;"
			CONT "`default` filters the mstx default domain;"
			CONT "The switch is only applicable when parameter msproftx is set to on;"
			CONT "The switch cannot be set with mstx-domain-exclude at the same time.",
	},
	[SET_MSTX_DOMAIN_EXCLUDE] = {
		.id = SET_MSTX_DOMAIN_EXCLUDE, .cli = "mstx-domain-exclude", .type = SETTING_STR,
		.ipc_key = "mstx_domain_exclude", .sample_key = "mstx_domain_exclude", .flags = SETTING_AGENT,
		.scopes = SCOPE_APP, .order = 130, .check_str = check_domains,
		.why = DOMAINS_WHY,
		.needs = "msproftx=on",
		.help = "Choose to exclude mstx events from a comma separated list of domains;"
			CONT "`default` excludes the mstx default domain;"
			CONT "The switch is only applicable when parameter msproftx is set to on;"
			CONT "The switch cannot be set with mstx-domain-include at the same time.",
	},
	[SET_OSRT] = {
		.id = SET_OSRT, .type = SETTING_SWITCH, .ipc_key = "osrt", .flags = SETTING_AGENT,
		.derive = derive_osrt,
	},
	/* Ours: msprof's osrt keeps what ltrace reports, with no threshold. */
	[SET_OSRT_THRESHOLD] = {
		.id = SET_OSRT_THRESHOLD, .cli = "osrt-threshold", .type = SETTING_UINT, .min = 0,
		.max = OSRT_THRESHOLD_MAX_NS, .def = OSRT_THRESHOLD_DEFAULT_NS, .ipc_key = "osrt_threshold_ns",
		.unit = " ns", .flags = SETTING_AGENT, .scopes = BOTH, .order = 420,
		.needs = "host-sys=osrt",
		.help = "With --host-sys=osrt: keep the calls that took at least this many nanoseconds,"
			CONT "the default value is 1000, the range is 0 to 1000000000 ns."
			CONT "(an option of this implementation; CANN msprof has none)",
	},
	[SET_STEP_RANGE] = {
		.id = SET_STEP_RANGE, .cli = "step-range", .type = SETTING_STR, .ipc_key = "step_range",
		.sample_key = "step_range", /* the export keeps the window (select-steps.c) */
		.flags = SETTING_IPC_IF_SET | SETTING_AGENT, .scopes = SCOPE_APP, .order = 400,
		.parse_cli = cli_step_range, .check_str = check_step_range,
		.why = "'step_range' must be \"A-B\", decimal step numbers with A < B",
		.needs = "msproftx=on",
		.help = "With --msproftx=on: record annotations only in training steps A to B-1 (A-B, e.g. 2-4),"
			CONT "and export only what lies in them, of every kind of data; steps are mstx/NVTX ranges"
			CONT "named `step N` or `ProfilerStep#N`, mstxStep(N) or mstxStepEnd(N)."
			CONT "(an option of this implementation; CANN msprof has none)",
	},
	[SET_RANKS] = {
		.id = SET_RANKS, .cli = "ranks", .type = SETTING_STR, .ipc_key = "ranks",
		.flags = SETTING_IPC_IF_SET | SETTING_AGENT, .scopes = SCOPE_APP, .order = 410,
		.parse_cli = cli_ranks, .check_str = check_ranks,
		.why = "'ranks' must be comma-separated ranks 0 to " XSTR(IPC_RANK_MAX) " (at most " XSTR(IPC_RANKS_MAX) ")",
		.help = "Profile only the processes of these ranks (e.g. 0,2) and their children: host sampling,"
			CONT "OS runtime calls, annotations and device tasks. A process's rank is read from its"
			CONT "environment: RANK_ID, RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or LOCAL_RANK."
			CONT "(an option of this implementation; CANN msprof has none)",
	},
	[SET_FLIGHT_RECORDER] = {
		.id = SET_FLIGHT_RECORDER, .cli = "flight-recorder", .type = SETTING_STR, .ipc_key = "flight_recorder",
		.sample_key = "flight_recorder", .flags = SETTING_IPC_IF_SET, .scopes = SCOPE_APP, .order = 430,
		.parse_cli = cli_flight_recorder, .check_str = check_flight_recorder,
		.why = "'flight_recorder' must be a span (60s, 10m, 2h) and/or a size (512MB, 2GB), comma-separated",
		.help = "Keep only the last span (e.g. 60s) or size (e.g. 512MB) of everything collected, in memory,"
			CONT "and write it out as a PROF dir when --dump-on's triggers fire, at `dump` or at"
			CONT "`msprof --dump --pid=P`. Both may be given (60s,512MB); the size bounds the ring of the"
			CONT "whole job on this host (256MB when only a span is given)."
			CONT "(an option of this implementation; CANN msprof has none)",
	},
	[SET_DUMP_ON] = {
		.id = SET_DUMP_ON, .cli = "dump-on", .type = SETTING_STR, .ipc_key = "dump_on",
		.sample_key = "dump_on", .flags = SETTING_IPC_IF_SET | SETTING_AGENT, .scopes = SCOPE_APP, .order = 431,
		.parse_cli = cli_dump_on, .check_str = check_dump_on,
		.why = "'dump_on' must be slow-step:K, hang:T and exit, comma-separated, or none",
		.needs = "flight-recorder=60s",
		.help = "With --flight-recorder: when to dump. slow-step:K, a step K times slower than the median"
			CONT "of its process's last steps; hang:T, a step or a collective going on for T (e.g. 300s);"
			CONT "exit, the job or a process of it ending with a non-zero status or a signal; none. Default:"
			CONT FLIGHT_DUMP_ON_DEFAULT ". (an option of this implementation; CANN msprof has none)",
	},
	[SET_TASK_TIME] = {
		.id = SET_TASK_TIME, .cli = "task-time", .type = SETTING_ENUM, .choices = task_time_choices,
		.def = TASK_TIME_L1, .sample_key = "task_time", .scopes = SCOPE_APP, .order = 310,
		.help = "Show task time data on the device, include on, off, l0, l1, l2; on is l1,"
			CONT "the default value is on. On NVIDIA GPUs: CUDA kernels, memcpy and memset from CUPTI"
			CONT "(the agent is injected where /dev/nvidiactl exists, or with --msproftx=on).",
	},
	[SET_RUNTIME_API] = {
		.id = SET_RUNTIME_API, .cli = "runtime-api", .type = SETTING_SWITCH, .sample_key = "runtime_api",
		.scopes = SCOPE_APP, .order = 320,
		.help = "Show runtime api data, the default value is off."
			CONT "On NVIDIA GPUs: CUDA runtime calls and the waits in them (CANN_API, api_statistic, CANN"
			CONT "track), and with --task-time MEMCPY_INFO and the launch-to-task flows.",
	},
	[SET_SYS_HARDWARE_MEM] = {
		.id = SET_SYS_HARDWARE_MEM, .cli = "sys-hardware-mem", .type = SETTING_SWITCH,
		.ipc_key = "sys_hardware_mem", .sample_key = "sys_hardware_mem", .scopes = DEVICES, .order = 330,
		.why = DEVICE_WHY,
		.help = "The memory acquisition switch of the device, optional on / off, the default value is off."
			CONT "On NVIDIA GPUs: memory used and reserved (also per profiled process), utilisation,"
			CONT "SM and memory clocks, power and temperature from NVML.",
	},
	[SET_SYS_HARDWARE_MEM_FREQ] = {
		.id = SET_SYS_HARDWARE_MEM_FREQ, .cli = "sys-hardware-mem-freq", .type = SETTING_UINT, .min = 1,
		.max = 100, .def = 50, .ipc_key = "sys_hardware_mem_freq", .sample_key = "sys_hardware_mem_freq",
		.unit = HZ, .scopes = DEVICES, .order = 340,
		.help = "The sampling frequency of the device memory in hertz, the default value is 50 Hz,"
			CONT "the range is 1 to 100 Hz.",
	},
	[SET_SYS_INTERCONNECTION] = {
		.id = SET_SYS_INTERCONNECTION, .cli = "sys-interconnection-profiling", .type = SETTING_SWITCH,
		.ipc_key = "sys_interconnection", .sample_key = "sys_interconnection_profiling",
		.scopes = DEVICES, .order = 350,
		.why = DEVICE_WHY,
		.help = "The interconnection acquisition switch, optional on / off, the default value is off."
			CONT "On NVIDIA GPUs: PCIe throughput from NVML.",
	},
	[SET_SYS_INTERCONNECTION_FREQ] = {
		.id = SET_SYS_INTERCONNECTION_FREQ, .cli = "sys-interconnection-freq", .type = SETTING_UINT,
		.min = 1, .max = 50, .def = 50, .ipc_key = "sys_interconnection_freq",
		.sample_key = "sys_interconnection_freq", .unit = HZ, .scopes = DEVICES, .order = 360,
		.help = "The sampling frequency of the interconnection in hertz, the default value is 50 Hz,"
			CONT "the range is 1 to 50 Hz.",
	},
	[SET_DEVICE] = {
		.id = SET_DEVICE, .type = SETTING_SWITCH, .ipc_key = "device", .derive = derive_device,
		.why = DEVICE_WHY,
	},
};

_Static_assert(_SET_MAX <= 64, "settings.given holds a bit per setting");
_Static_assert((HOST_SYS_OSRT & HOST_SYS_SAMPLED) == 0, "osrt must not overlap the samplers");

/* --- reading and writing ---------------------------------------------------- */

void settings_init(struct settings *s)
{
	*s = (struct settings){ 0 };
	for (unsigned i = 0; i < _SET_MAX; i++)
		s->u[i] = setting_table[i].def;
}

int settings_parse_cli(struct settings *s, enum setting_id id, const char *v, char *err, size_t err_len)
{
	if ((unsigned)id >= _SET_MAX || !setting_table[id].cli) {
		snprintf(err, err_len, "no such setting");
		return -EINVAL;
	}
	const struct setting_def *def = &setting_table[id];
	int r = def->parse_cli ? def->parse_cli(def, v, s, err, err_len) : cli_generic(def, v, s, err, err_len);
	if (r < 0)
		return r;
	s->given |= SETTING_BIT(id);
	return 0;
}

void settings_list_str(enum setting_id id, uint64_t flags, bool ipc_only, char *buf, size_t size)
{
	const struct setting_def *def = &setting_table[id];
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (const struct setting_choice *c = def->choices; c && c->name && used < size; c++)
		if ((flags & c->value) && !c->alias && !(ipc_only && c->local))
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", c->name);
}

static const char *enum_name(const struct setting_def *def, uint64_t v)
{
	for (const struct setting_choice *c = def->choices; c->name; c++)
		if (c->value == v && !c->alias && !c->refuse)
			return c->name;
	return "";
}

void settings_derive(struct settings *s)
{
	for (unsigned i = 0; i < _SET_MAX; i++)
		if (setting_table[i].derive)
			s->u[i] = setting_table[i].derive(s);
}

/* One value as session_start (ipc) or host/sample.json (!ipc) has it. */
static cJSON *value_json(const struct setting_def *def, const struct settings *s, bool ipc)
{
	char list[128];
	uint64_t u = s->u[def->id];
	const char *str = s->s[def->id] ? s->s[def->id] : "";

	switch (def->type) {
	case SETTING_SWITCH:
		return ipc ? cJSON_CreateBool(u != 0) : cJSON_CreateString(u ? "on" : "off");
	case SETTING_UINT:
		return cJSON_CreateNumber((double)u);
	case SETTING_ENUM:
		return cJSON_CreateString(enum_name(def, u));
	case SETTING_LIST:
		settings_list_str(def->id, u, ipc, list, sizeof(list));
		return cJSON_CreateString(list);
	case SETTING_STR:
		return cJSON_CreateString(str);
	case SETTING_MB:
		return ipc ? cJSON_CreateNumber((double)u) : cJSON_CreateString(str);
	}
	return NULL;
}

static int add_value(cJSON *obj, const char *key, cJSON *v)
{
	if (!v)
		return -ENOMEM;
	if (!cJSON_AddItemToObject(obj, key, v)) {
		cJSON_Delete(v);
		return -ENOMEM;
	}
	return 0;
}

static int to_ipc(const struct settings *s, cJSON *msg, unsigned need_flags, bool derive)
{
	struct settings d = *s;
	if (derive)
		settings_derive(&d);
	for (unsigned i = 0; i < _SET_MAX; i++) {
		const struct setting_def *def = &setting_table[i];
		if (!def->ipc_key || (def->flags & need_flags) != need_flags)
			continue;
		if ((def->flags & SETTING_IPC_IF_SET) && (!d.s[i] || !*d.s[i]))
			continue;
		int r = add_value(msg, def->ipc_key, value_json(def, &d, true));
		if (r < 0)
			return r;
	}
	return 0;
}

int settings_to_ipc(const struct settings *s, cJSON *msg)
{
	return to_ipc(s, msg, 0, true);
}

int settings_to_agent(const struct settings *s, cJSON *msg)
{
	/* as the daemon got them: osrt was derived by the launcher */
	return to_ipc(s, msg, SETTING_AGENT, false);
}

/* The IPC list: "" is none; otherwise every item must be a choice sent in
 * session_start, no empty ones (the launcher sends the canonical list). */
static int ipc_list(const struct setting_def *def, const char *list, uint64_t *ret, char *why, size_t why_len)
{
	uint64_t flags = 0;
	for (const char *p = list; *list;) {
		size_t len = strcspn(p, ",");
		const struct setting_choice *c = choice_named(def, p, len);
		if (!c || c->local) {
			char use[96] = "";
			size_t used = 0;
			for (c = def->choices; c->name && used < sizeof(use); c++)
				if (!c->local)
					used += (size_t)snprintf(use + used, sizeof(use) - used, "%s%s", used ? ", " : "",
								 c->name);
			snprintf(why, why_len, "'%s': unknown item '%.*s' (use %s)", def->ipc_key, (int)len, p, use);
			return -EINVAL;
		}
		flags |= c->value;
		if (!p[len])
			break;
		p += len + 1;
	}
	*ret = flags;
	return 0;
}

int settings_from_ipc(const cJSON *msg, struct settings *ret, char *why, size_t why_len)
{
	struct settings s;
	settings_init(&s);
	for (unsigned i = 0; i < _SET_MAX; i++) {
		const struct setting_def *def = &setting_table[i];
		const char *key = def->ipc_key, *str;
		bool b;
		if (!key)
			continue;
		if (cJSON_GetObjectItemCaseSensitive(msg, key))
			s.given |= SETTING_BIT(i);
		switch (def->type) {
		case SETTING_SWITCH:
			if (json_get_bool(msg, key, false, def->def != 0, &b) < 0) {
				if (def->why)
					snprintf(why, why_len, "%s", def->why);
				else
					snprintf(why, why_len, "'%s' must be true or false", key);
				return -EINVAL;
			}
			s.u[i] = b;
			break;
		case SETTING_UINT:
		case SETTING_MB: {
			/* 0 is "no limit" on the wire, not a value given */
			uint64_t min = def->type == SETTING_MB ? 0 : def->min;
			if (json_get_u64(msg, key, min, def->max, false, def->def, &s.u[i]) < 0) {
				snprintf(why, why_len, "'%s' must be an integer in %llu..%llu%s", key,
					 (unsigned long long)min, (unsigned long long)def->max, def->unit ? def->unit : "");
				return -EINVAL;
			}
			break;
		}
		case SETTING_ENUM:
		case SETTING_LIST:
		case SETTING_STR:
			if (json_get_str(msg, key, false, def->type == SETTING_ENUM ? enum_name(def, def->def) : "",
					 &str) < 0) {
				if (def->why)
					snprintf(why, why_len, "%s", def->why);
				else
					snprintf(why, why_len, "'%s' must be a string", key);
				return -EINVAL;
			}
			if (def->type == SETTING_LIST) {
				if (ipc_list(def, str, &s.u[i], why, why_len) < 0)
					return -EINVAL;
			} else if (def->type == SETTING_ENUM) {
				const struct setting_choice *c = choice_named(def, str, strlen(str));
				if (!c || c->alias || c->refuse) {
					snprintf(why, why_len, "'%s': unknown value '%.64s'", key, str);
					return -EINVAL;
				}
				s.u[i] = c->value;
			} else {
				if (def->check_str && def->check_str(str) < 0) {
					snprintf(why, why_len, "%s", def->why ? def->why : "is not valid");
					return -EINVAL;
				}
				s.s[i] = str;
			}
			break;
		}
	}
	*ret = s;
	return 0;
}

int settings_to_sample(const struct settings *s, enum setting_id first, enum setting_id end, cJSON *obj)
{
	for (unsigned i = first; i < (unsigned)end && i < _SET_MAX; i++) {
		const struct setting_def *def = &setting_table[i];
		if (!def->sample_key)
			continue;
		int r = add_value(obj, def->sample_key, value_json(def, s, false));
		if (r < 0)
			return r;
	}
	return 0;
}

/* A LIST in sample.json: "a,b" as the option takes it, or a JSON array of
 * such strings; names not known are skipped. */
static uint64_t sample_list(const struct setting_def *def, const cJSON *v)
{
	uint64_t flags = 0;
	if (cJSON_IsArray(v)) {
		const cJSON *item;
		cJSON_ArrayForEach(item, v) flags |= sample_list(def, item);
		return flags;
	}
	if (!cJSON_IsString(v) || !v->valuestring)
		return 0;
	for (const char *p = v->valuestring; *p;) {
		size_t n = strcspn(p, ",");
		const struct setting_choice *c = choice_named(def, p, n);
		if (c && !c->refuse)
			flags |= c->value;
		p += n + (p[n] == ',');
	}
	return flags;
}

void settings_from_sample(const cJSON *obj, struct settings *ret)
{
	struct settings s;
	settings_init(&s);
	for (unsigned i = 0; i < _SET_MAX; i++) {
		const struct setting_def *def = &setting_table[i];
		const cJSON *v = def->sample_key ? cJSON_GetObjectItemCaseSensitive(obj, def->sample_key) : NULL;
		const char *str = cJSON_IsString(v) ? v->valuestring : NULL;
		bool ok = false;
		if (!v)
			continue;
		switch (def->type) {
		case SETTING_SWITCH:
			/* as the export always read them: "on" is on, any other
			 * string off */
			if ((ok = str != NULL))
				s.u[i] = streq(str, "on");
			break;
		case SETTING_UINT: {
			uint64_t u;
			if ((ok = json_value_u64(v, 0, JSON_MAX_INT, &u) == 0))
				s.u[i] = u;
			break;
		}
		case SETTING_ENUM: {
			const struct setting_choice *c = str ? choice_named(def, str, strlen(str)) : NULL;
			if ((ok = c && !c->refuse))
				s.u[i] = c->value;
			break;
		}
		case SETTING_LIST:
			ok = cJSON_IsString(v) || cJSON_IsArray(v);
			s.u[i] = sample_list(def, v);
			break;
		case SETTING_STR:
			if ((ok = str != NULL))
				s.s[i] = str;
			break;
		case SETTING_MB:
			if ((ok = str != NULL)) {
				s.s[i] = str;
				if (!*str || parse_mb(def, str, &s.u[i]) < 0)
					s.u[i] = 0;
			}
			break;
		}
		if (ok)
			s.given |= SETTING_BIT(i);
	}
	*ret = s;
}
