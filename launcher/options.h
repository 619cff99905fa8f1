/* The msprof command line: the option table (name, value, help, check),
 * the options it parses into and the limits their checks apply.  One table
 * drives parsing, validation and --help (reference/msprof-formats.md §1.1,
 * §1.2), joined by the collection settings' (ipc/settings.h).  A row names
 * the modes that allow its option; what a mode forbids or needs is the mode
 * table's (modes.h), and msprof.py's command forms (msprof export|query|...
 * -dir) are parsed by subcmd.c.
 *
 * argv splitting follows msprof's SplitApplicationArgv: a token starting with
 * "--" is an option; "--opt=value" carries its value, "--opt value" takes the
 * next token as the value; the first token that does not start with "--"
 * (or the one after a lone "--", ours) begins the application's own command
 * line.  Option names may be abbreviated to a unique prefix, as msprof's
 * getopt_long allows.
 *
 * The parser never prints: what the user must read comes back in a struct
 * diag, with msprof's wording, so that tests compare messages exactly. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* Messages for the user, filled by the parser and the mode checks.  `error`
 * is printed as "[ERROR] <error>" unless `plain` (getopt-style lines such as
 * "msprof: unrecognized option '--x'"); `usage` asks for the usage after it,
 * `hint` for a few lines that say where the usage is instead, after the
 * option meant (`meant`, for a misspelt one).  Info lines
 * are printed first, as "[INFO] <info>", then warnings, as "[WARNING] <warn>";
 * past the room for them, the last line says how many more there were. */
#define DIAG_MAX_WARN 40               /* msprof's NPU options, one line each */
#define DIAG_MAX_INFO 16
struct diag {
	char error[1200];
	bool plain;
	bool usage;
	bool hint;
	char meant[48];                /* "host-sys": "Did you mean '--host-sys'?" */
	unsigned n_warn, n_info;       /* given, even past the room */
	char warn[DIAG_MAX_WARN][512];
	char info[DIAG_MAX_INFO][300];
};

int diag_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warn(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_info(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

/* What a launcher option's value is, for shell completion (complete.c);
 * the settings' and msprof's NPU options' come from their own rows. */
enum opt_values {
	OPT_VALUES_NONE,                 /* a number, a pid, free text */
	OPT_VALUES_CHOICE,               /* one of choices */
	OPT_VALUES_LIST,                 /* a comma list of choices */
	OPT_VALUES_DIR,
	OPT_VALUES_FILE,
	OPT_VALUES_COMMAND,              /* a command line: the program first */
};

struct opt_def {
	enum opt_id id;
	const char *name;
	bool takes_value;
	const char *help;                /* lines after the first are indented */
	int (*check)(struct msprof_opts *o, const char *value, struct diag *d);
	unsigned order;                  /* msprof's order: --help, messages, prefix matches */
	enum opt_values values;
	const char *choices;             /* CHOICE, LIST: '|'-separated, each one check takes */
	unsigned modes;                  /* MODE_BIT(enum mode_id, modes.h) of each mode that allows it;
					  * a setting's come from its row's scopes */
};

/* The option of id: the launcher's own, or a setting's (ipc/settings.h);
 * NULL for an id without a command-line option (a derived setting). */
const struct opt_def *opt_get(enum opt_id id);
/* Every option in msprof's order, msprof's NPU options (compat.h, ids from
 * _OPT_MAX on, never in msprof_opts.used) last; returns how many. */
unsigned opts_ordered(const struct opt_def *const **ret);

void opts_init(struct msprof_opts *o);
void opts_release(struct msprof_opts *o);

/* Parse argv.  0 on success (o->help / o->version may be set: nothing else
 * is meaningful then); -EINVAL with d->error set otherwise. */
int opts_parse(int argc, char **argv, struct msprof_opts *o, struct diag *d);

static inline bool opts_used(const struct msprof_opts *o, enum opt_id id)
{
	return (o->used & OPT_BIT(id)) != 0;
}

/* "--a --b" for the options in mask, in enum order (msprof's
 * ConvertParamsSetToString). */
void opts_names(uint64_t mask, char *buf, size_t size);

/* Usage and one line per option (msprof's Args::PrintHelp layout). */
void opts_print_help(FILE *f);

/* Launch mode without --host-sys and --host-sys-usage collects
 * --host-sys=cpu,mem (ours: msprof's defaults are device data we do not
 * have; a run must produce something to look at). */
void opts_default_host_sys(struct msprof_opts *o);

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

/* Exposed for tests: the path check. */
bool path_has_forbidden_char(const char *path);

/* Whether this user may attach to pid: it exists, has not exited, and its
 * real, effective and saved uids are ours (root may attach to any).  When
 * not, why gets the reason ("process 7 does not exist"). */
bool pid_attachable(pid_t pid, char *why, size_t why_len);
