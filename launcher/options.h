/* The msprof command line: the option table (name, value, help, check),
 * the options it parses into and the limits their checks apply.  One table
 * drives parsing, validation and --help (reference/msprof-formats.md §1.1,
 * §1.2); which options a mode allows, forbids or needs is the mode table's
 * (modes.h), and msprof.py's command forms (msprof export|query|... -dir)
 * are parsed by subcmd.c.
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

/* In msprof's enum order (input_parser.h), which is also the order the mode
 * checks list option names in.  New options slot in where msprof has them. */
enum opt_id {
	OPT_HELP,
	OPT_OUTPUT,
	OPT_STORAGE_LIMIT,
	OPT_APPLICATION,
	OPT_ENVIRONMENT,
	OPT_DYNAMIC,
	OPT_PID,
	OPT_DELAY,
	OPT_DURATION,
	OPT_SYS_DEVICES,
	OPT_TYPE,
	OPT_MSPROFTX,
	OPT_MSTX_DOMAIN_INCLUDE,
	OPT_MSTX_DOMAIN_EXCLUDE,
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
	OPT_HOST_SYS_USAGE_FREQ,
	OPT_HOST_SYS,
	OPT_HOST_SYS_PID,
	OPT_HOST_SYS_USAGE,
	/* device collection (msprof's names; collectors/device.h, the agent's CUPTI) */
	OPT_TASK_TIME,
	OPT_RUNTIME_API,
	OPT_SYS_HARDWARE_MEM,
	OPT_SYS_HARDWARE_MEM_FREQ,
	OPT_SYS_INTERCONNECTION_PROFILING,
	OPT_SYS_INTERCONNECTION_FREQ,
	/* ours, not in msprof */
	OPT_HOST_SYS_FREQ,
	OPT_VERSION,
	OPT_LIST,
	OPT_STEP_RANGE,
	OPT_RANKS,
	OPT_OSRT_THRESHOLD,
	_OPT_MAX
};

#define OPT_BIT(id) (UINT64_C(1) << (id))

/* Limits and defaults, one place for parser, help, man page and tests. */
#define MSPROF_MAX_PATH_LEN 1024U        /* --output (msprof MAX_PATH_LENGTH) */
#define MSPROF_MAX_APP_LEN 2048U         /* --application (msprof MAX_APP_LEN) */
#define MSPROF_STORAGE_MIN_MB 200U
#define MSPROF_STORAGE_MAX_MB 4294967295ULL
#define MSPROF_SYS_PERIOD_MAX 2592000U   /* seconds */
#define MSPROF_HOST_SYS_FREQ_MAX 1000U
#define MSPROF_HOST_USAGE_FREQ_MAX 50U
#define MSPROF_DEFAULT_FREQ 50U
#define MSPROF_HW_MEM_FREQ_MAX 100U      /* --sys-hardware-mem-freq */
#define MSPROF_INTERCONNECT_FREQ_MAX 50U /* --sys-interconnection-freq */
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

/* --host-sys=osrt, next to collectors/host.h's sampler flags: OS runtime
 * calls are not sampled by msprofd but recorded by the agent's osrt build
 * (libmsprof_agent_osrt.so) inside the application. */
#define HOST_SYS_OSRT (1U << 16)
/* --task-time: off, l0, l1 (= on, the default), l2; l3 is refused as on
 * platforms without PyPTO. */
enum task_time { TASK_TIME_OFF = 0, TASK_TIME_L0 = 1, TASK_TIME_L1 = 2, TASK_TIME_L2 = 3 };

/* Messages for the user, filled by the parser and the mode checks.  `error`
 * is printed as "[ERROR] <error>" unless `plain` (getopt-style lines such as
 * "msprof: unrecognized option '--x'"); `usage` asks for the usage after it.
 * Warnings are printed first, as "[WARNING] <warn>". */
#define DIAG_MAX_WARN 8
struct diag {
	char error[1200];
	bool plain;
	bool usage;
	unsigned n_warn;
	char warn[DIAG_MAX_WARN][600];
};

int diag_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warn(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct msprof_opts {
	uint64_t used;                   /* OPT_BIT(id) for each option given */
	bool help, version;

	char *output;                    /* --output made absolute, NULL if not given */
	uint64_t storage_limit_mb;       /* 0: none */
	char *storage_limit;             /* as given, e.g. "500MB", for sample.json */
	const char *application;         /* --application string as given */
	const char *environment;         /* --environment as given */
	enum out_type type;
	bool export_on;
	bool parse_on, query_on, analyze_on;   /* --parse, --query, --analyze */
	bool clear;                      /* --clear=on */
	bool summary_json;               /* --summary-format=json */
	uint64_t model_id, iteration_id; /* --model-id, --iteration-id as given */
	const char *reports;             /* --reports path as given, NULL if not */
	unsigned rules;                  /* --rule: enum analyze_rules */
	const char *python_path;         /* accepted for msprof's command lines */
	unsigned sys_period;             /* seconds, 0: none */

	unsigned host_sys;               /* enum host_sys_flags, | HOST_SYS_OSRT */
	char host_sys_list[48];          /* the samplers, canonical "cpu,mem,disk,network" (no osrt) */
	unsigned osrt_threshold_ns;      /* --osrt-threshold (ours), default 1000 */
	unsigned host_sys_freq;
	pid_t host_sys_pid;              /* 0: none */
	unsigned host_usage;             /* enum host_usage_flags */
	char host_usage_list[16];        /* canonical "cpu,mem" */
	unsigned host_usage_freq;

	bool dynamic;                    /* --dynamic=on */
	const char *pid_arg;             /* --pid as given, NULL if not given */
	pid_t *pids;                     /* --pid: the valid ones, in the order given, no duplicates */
	unsigned n_pids;
	unsigned delay_s, duration_s;    /* --delay, --duration; 0: not given */
	bool msproftx;                   /* --msproftx=on */
	const char *mstx_include;        /* --mstx-domain-include, NULL or "" when not given */
	const char *mstx_exclude;        /* --mstx-domain-exclude */
	const char *step_range;          /* --step-range=A-B (ours), NULL when not given */
	int64_t step_lo, step_hi;        /* its steps: A inclusive, B exclusive */
	const char *ranks;               /* --ranks=0,2 (ours), NULL when not given */
	const char *sys_devices;         /* accepted for msprof's checks; no device data here */
	bool sys_cpu_profiling;
	enum task_time task_time;        /* device tasks (CUPTI kernels, memcpy) */
	bool runtime_api;                /* --runtime-api=on: CUDA runtime API calls */
	bool sys_hardware_mem;           /* device memory, clocks, power (NVML) */
	unsigned sys_hardware_mem_freq;
	bool sys_interconnection;        /* PCIe throughput (NVML) */
	unsigned sys_interconnection_freq;
	bool list;                       /* --list (ours) */

	/* The application, new style: argv[app_first..] (not copied). */
	char **app_argv;
	int app_argc;
};

struct opt_def {
	enum opt_id id;
	const char *name;
	bool takes_value;
	const char *help;                /* lines after the first are indented */
	int (*check)(struct msprof_opts *o, const char *value, struct diag *d);
};

/* The table, in enum order (opt_table[i].id == i). */
extern const struct opt_def opt_table[_OPT_MAX];

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
	return (o->host_sys & HOST_SYS_OSRT) != 0;
}

/* Whether the application was given, new style or with --application. */
static inline bool opts_have_app(const struct msprof_opts *o)
{
	return o->app_argc > 0 || o->application;
}

/* Exposed for tests: the path and value checks. */
bool path_has_forbidden_char(const char *path);
int parse_storage_limit(const char *s, uint64_t *ret_mb);

/* Whether this user may attach to pid: it exists, has not exited, and its
 * real, effective and saved uids are ours (root may attach to any).  When
 * not, why gets the reason ("process 7 does not exist"). */
bool pid_attachable(pid_t pid, char *why, size_t why_len);
