/* What a msprof command line says (parsed by options.c, its mode chosen
 * by modes.c): the options' ids, the limits their checks apply, the parsed
 * options and the modes a command line can select. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/host-sys.h"
#include "ipc/settings.h"

/* The options of the launcher itself; the collection settings
 * (ipc/settings.h) follow them, one id each: OPT_SET(SET_x).  Messages and
 * --help list options in msprof's order (its enum in input_parser.h), which
 * each row gives as `order`, the settings' too. */
enum opt_id {
	OPT_HELP,
	OPT_OUTPUT,
	OPT_APPLICATION,
	OPT_ENVIRONMENT,
	OPT_DYNAMIC,
	OPT_PID,
	OPT_DELAY,
	OPT_DURATION,
	OPT_SYS_DEVICES,
	OPT_TYPE,
	OPT_SYS_CPU_PROFILING,
	OPT_EXPORT,
	OPT_ITERATION_ID,
	OPT_MODEL_ID,
	OPT_SUMMARY_FORMAT,
	OPT_REPORTS,
	OPT_PARSE,
	OPT_QUERY,
	OPT_ANALYZE,
	OPT_RULE,
	OPT_CLEAR,
	OPT_PYTHON_PATH,
	OPT_SYS_PERIOD,
	OPT_HOST_SYS_PID,
	/* ours, not in msprof */
	OPT_VERSION,
	OPT_LIST,
	OPT_SUMMARY,
	OPT_CAPTURE_RANGE,
	OPT_CAPTURE_RANGE_END,
	OPT_SCHEDULE,
	OPT_DUMP,
	_OPT_LAUNCHER_MAX,
	/* the settings, by name where the launcher's own code needs them */
	OPT_STORAGE_LIMIT = _OPT_LAUNCHER_MAX + SET_STORAGE_LIMIT,
	OPT_MSPROFTX = _OPT_LAUNCHER_MAX + SET_MSPROFTX,
	OPT_MSTX_DOMAIN_INCLUDE = _OPT_LAUNCHER_MAX + SET_MSTX_DOMAIN_INCLUDE,
	OPT_MSTX_DOMAIN_EXCLUDE = _OPT_LAUNCHER_MAX + SET_MSTX_DOMAIN_EXCLUDE,
	OPT_HOST_SYS = _OPT_LAUNCHER_MAX + SET_HOST_SYS,
	OPT_HOST_SYS_FREQ = _OPT_LAUNCHER_MAX + SET_HOST_SYS_FREQ,
	OPT_HOST_SYS_USAGE = _OPT_LAUNCHER_MAX + SET_HOST_SYS_USAGE,
	OPT_HOST_SYS_USAGE_FREQ = _OPT_LAUNCHER_MAX + SET_HOST_SYS_USAGE_FREQ,
	OPT_TASK_TIME = _OPT_LAUNCHER_MAX + SET_TASK_TIME,
	OPT_OSRT_THRESHOLD = _OPT_LAUNCHER_MAX + SET_OSRT_THRESHOLD,
	OPT_FLIGHT_RECORDER = _OPT_LAUNCHER_MAX + SET_FLIGHT_RECORDER,
	OPT_DUMP_ON = _OPT_LAUNCHER_MAX + SET_DUMP_ON,
	_OPT_MAX = _OPT_LAUNCHER_MAX + _SET_MAX
};

#define OPT_SET(sid) ((enum opt_id)(_OPT_LAUNCHER_MAX + (sid)))

#define OPT_BIT(id) (UINT64_C(1) << (id))

/* Limits and defaults, one place for parser, help, man page and tests. */
#define MSPROF_MAX_PATH_LEN 1024U        /* --output (msprof MAX_PATH_LENGTH) */
#define MSPROF_MAX_APP_LEN 2048U         /* --application (msprof MAX_APP_LEN) */
#define MSPROF_SYS_PERIOD_MAX 2592000U   /* seconds */
#define MSPROF_MIN_FREE_MB 20U           /* below this nothing is collected */
#define MSPROF_DELAY_MAX 4294967295U     /* --delay, --duration: seconds (msprof PROF_MAX_DYNAMIC_TIME) */
#define MSPROF_MAX_DYNAMIC_PIDS 32       /* --pid: one daemon session each, IPC_MAX_SESSIONS in all */

enum out_type { OUT_TEXT = 0, OUT_DB = 1 };

/* --rule values (msprof's analyze rules). */
enum analyze_rules {
	RULE_COMMUNICATION = 1 << 0,
	RULE_COMMUNICATION_MATRIX = 1 << 1,
};
#define MSPROF_MAX_REPORTS_BYTES (64U << 20)   /* --reports file (msprof's limit) */

/* msprof's Ascend NPU options kept as given (launcher/compat.h): room for
 * each row once. */
#define MSPROF_COMPAT_MAX 48

struct msprof_opts {
	uint64_t used;                   /* OPT_BIT(id) for each option given */
	bool help, version;

	char *output;                    /* --output made absolute, NULL if not given */
	const char *application;         /* --application string as given */
	const char *environment;         /* --environment as given */
	enum out_type type;
	bool export_on;
	bool summary_off;                /* --summary=off: no text summary after an export */
	const char *capture_range;       /* --capture-range "mstx:NAME" / "nvtx:NAME", NULL none */
	const char *capture_range_end;   /* --capture-range-end "stop" / "repeat:N", NULL: stop */
	const char *schedule;            /* --schedule as given (common/step-schedule.h), NULL none */
	bool parse_on, query_on, analyze_on;   /* --parse, --query, --analyze */
	bool clear;                      /* --clear=on */
	bool summary_json;               /* --summary-format=json */
	uint64_t model_id, iteration_id; /* --model-id, --iteration-id as given */
	const char *reports;             /* --reports path as given, NULL if not */
	unsigned rules;                  /* --rule: enum analyze_rules */
	const char *python_path;         /* accepted for msprof's command lines */
	unsigned sys_period;             /* seconds, 0: none */
	pid_t host_sys_pid;              /* 0: none */

	/* the collection settings (ipc/settings.h): set.u[SET_HOST_SYS], ... */
	struct settings set;

	bool dynamic;                    /* --dynamic=on */
	const char *pid_arg;             /* --pid as given, NULL if not given */
	pid_t *pids;                     /* --pid: the valid ones, in the order given, no duplicates */
	unsigned n_pids;
	unsigned delay_s, duration_s;    /* --delay, --duration; 0: not given */
	const char *sys_devices;         /* accepted for msprof's checks; no device data here */
	bool sys_cpu_profiling;
	bool list;                       /* --list (ours) */
	bool dump;                       /* --dump (ours): ask --pid's flight recorder for a dump */
	bool comm;                       /* --hccl=on: inject the agent for NCCL's plugin */
	struct {
		unsigned char row;       /* compat_table[row] */
		const char *value;
	} compat[MSPROF_COMPAT_MAX];     /* msprof's NPU options, the last value of each */
	unsigned n_compat;

	/* The application, new style: argv[app_first..] (not copied). */
	char **app_argv;
	int app_argc;
};

static inline bool opts_used(const struct msprof_opts *o, enum opt_id id)
{
	return (o->used & OPT_BIT(id)) != 0;
}

/* --host-sys holds osrt. */
static inline bool opts_osrt(const struct msprof_opts *o)
{
	return (o->set.u[SET_HOST_SYS] & HOST_SYS_OSRT) != 0;
}

/* A setting's number (SWITCH, UINT, ENUM, LIST flags, MB) and text. */
static inline uint64_t opts_u(const struct msprof_opts *o, enum setting_id id)
{
	return o->set.u[id];
}

static inline const char *opts_s(const struct msprof_opts *o, enum setting_id id)
{
	return o->set.s[id];
}

/* Whether the application was given, new style or with --application. */
static inline bool opts_have_app(const struct msprof_opts *o)
{
	return o->app_argc > 0 || o->application;
}

/* The running modes, in msprof's priority order (modes.h). */
enum mode_id {
	MODE_LIST,            /* --dynamic=on --list (ours) */
	MODE_DUMP,            /* --dump --pid=P (ours) */
	MODE_DYNAMIC,         /* --dynamic=on <app> | --dynamic=on --pid=P[,P...] */
	MODE_LAUNCH,          /* msprof [options] <app> | --application=... */
	MODE_SYSTEM,          /* --sys-devices with --sys-period, no app */
	MODE_HOST_SYS,        /* --host-sys with --host-sys-pid, no app */
	MODE_HOST_SYS_USAGE,  /* --host-sys-usage, no app */
	MODE_PARSE,           /* --parse=on --output=<PROF dir or parent> */
	MODE_QUERY,           /* --query=on --output=... */
	MODE_EXPORT,          /* --export=on --output=<PROF dir or parent> */
	MODE_ANALYZE,         /* --analyze=on --output=... */
	_MODE_MAX
};

/* The bit of a mode in an option's row (opt_def.modes). */
#define MODE_BIT(id) (1U << (id))
