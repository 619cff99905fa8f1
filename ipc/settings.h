/* The collection settings, one table (tmux's options-table.c): every row is
 * one setting with its command-line name, value type and range (or choices),
 * default, the key it travels under in session_start, the key it is written
 * under in host/sample.json, the modes that take it, and its --help text.
 *
 * Read by the launcher (option parsing, range checks with msprof's messages,
 * --help, the mode sets), the IPC codec (session_start), the daemon (its
 * validation of session_start), the launcher's host/sample.json and the
 * export's reader of it.  A new setting is one row here, plus the code that
 * collects it; cross-setting rules (include xor exclude, osrt needs the
 * agent) stay with the code that applies them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* In the order session_start, agent_start and host/sample.json carry them.
 * Rows with no command-line name are derived from others (settings_derive). */
enum setting_id {
	SET_HOST_SYS,
	SET_HOST_SYS_FREQ,
	SET_HOST_SYS_USAGE,
	SET_HOST_SYS_USAGE_FREQ,
	SET_STORAGE_LIMIT,
	/* host/sample.json's job keys ("app", ..., "duration") come here */
	SET_MSPROFTX,
	SET_MSTX_DOMAIN_INCLUDE,
	SET_MSTX_DOMAIN_EXCLUDE,
	SET_OSRT,             /* derived: --host-sys holds osrt */
	SET_OSRT_THRESHOLD,
	SET_STEP_RANGE,
	SET_RANKS,
	SET_FLIGHT_RECORDER,
	SET_DUMP_ON,
	SET_TASK_TIME,
	SET_RUNTIME_API,
	SET_SYS_HARDWARE_MEM,
	SET_SYS_HARDWARE_MEM_FREQ,
	SET_SYS_INTERCONNECTION,
	SET_SYS_INTERCONNECTION_FREQ,
	SET_DEVICE,           /* derived: some device data may come */
	_SET_MAX
};

/* host/sample.json: the rows before this one are written before the job's
 * own keys (app, app_dir, type, ...), the rest after them, as msprof's
 * sample.json orders them. */
#define SET_SAMPLE_SPLIT SET_MSPROFTX

enum setting_type {
	SETTING_SWITCH,  /* on|off; IPC bool; sample.json "on"/"off" */
	SETTING_UINT,    /* an integer in [min, max]; IPC and sample.json a number */
	SETTING_ENUM,    /* one of choices; IPC and sample.json its canonical name */
	SETTING_LIST,    /* comma list of choices, as flags; IPC and sample.json "a,b" */
	SETTING_STR,     /* text as given; IPC and sample.json a string */
	SETTING_MB,      /* "<N>MB" in [min, max]; IPC N (0: none); sample.json the text */
};

/* Which modes take a setting (launcher/modes.c maps them onto its modes). */
enum setting_scope {
	SCOPE_APP = 1 << 0,     /* an application is profiled: launch, dynamic */
	SCOPE_SYSTEM = 1 << 1,  /* no application: --host-sys, --host-sys-usage, --sys-devices */
	SCOPE_DEVICES = 1 << 2, /* no application, the devices: --sys-devices */
};

/* Row flags. */
enum {
	SETTING_IPC_IF_SET = 1 << 0,  /* sent in session_start only when not empty */
	SETTING_AGENT = 1 << 1,       /* the daemon passes it on in agent_start */
};

/* --task-time: off, l0, l1 (= on, the default), l2; l3 is refused as on
 * platforms without PyPTO. */
enum task_time { TASK_TIME_OFF = 0, TASK_TIME_L0 = 1, TASK_TIME_L1 = 2, TASK_TIME_L2 = 3 };

struct setting_choice {
	const char *name;
	uint64_t value;
	bool alias;        /* accepted, never written ("on" for l1) */
	bool local;        /* LIST: not sent in the IPC list (osrt goes as "osrt") */
	const char *refuse; /* accepted name refused with this message (l3) */
};

struct settings;

struct setting_def {
	enum setting_id id;
	const char *cli;           /* "host-sys-usage-freq"; NULL: derived */
	enum setting_type type;
	uint64_t min, max, def;    /* UINT, MB: the range; def for UINT, SWITCH, ENUM, LIST */
	const struct setting_choice *choices;   /* ENUM, LIST; ends with a NULL name */
	const char *ipc_key;       /* in session_start; NULL: not sent */
	const char *sample_key;    /* in host/sample.json; NULL: not written */
	const char *unit;          /* in the daemon's range message: " Hz", " ns" */
	unsigned flags;
	unsigned scopes;           /* enum setting_scope */
	unsigned order;            /* msprof's option order (its enum), for --help and messages */
	const char *needs;         /* the option it must be used with ("msproftx=on"); the rule and
				    * its message are the launcher's and the daemon's */
	const char *help;          /* --help text, continuation lines indented with SETTING_HELP_CONT */

	/* The command line, where msprof's checks and wording are its own
	 * (NULL: the type's); err gets msprof's message. */
	int (*parse_cli)(const struct setting_def *def, const char *v, struct settings *s, char *err,
			 size_t err_len);
	/* STR: is the value valid (session_start; the command line's own
	 * checks are in parse_cli) */
	int (*check_str)(const char *v);
	/* the daemon's bad_request message for a value of the wrong type or,
	 * STR, one check_str refuses (NULL: the type's, naming the key) */
	const char *why;
	/* derived rows: the value from the others */
	uint64_t (*derive)(const struct settings *s);
};

/* Continuation lines of a --help description are indented as msprof does it. */
#define SETTING_HELP_CONT "\n\t\t\t\t\t\t   "

extern const struct setting_def setting_table[_SET_MAX];

/* The values: u for SWITCH (0/1), UINT, ENUM, LIST (flags), MB (megabytes,
 * 0: none); s for STR and MB (the text as given, NULL: not given).  The
 * strings are not copied: they point into argv or a cJSON tree. */
struct settings {
	uint64_t given;            /* bit per setting given (command line, message, file) */
	uint64_t u[_SET_MAX];
	const char *s[_SET_MAX];
};

#define SETTING_BIT(id) (UINT64_C(1) << (id))

static inline bool settings_given(const struct settings *s, enum setting_id id)
{
	return (s->given & SETTING_BIT(id)) != 0;
}

/* Every setting at its default. */
void settings_init(struct settings *s);

/* --name=v as the launcher gets it (v NULL: no value).  0, or -EINVAL with
 * msprof's message in err. */
int settings_parse_cli(struct settings *s, enum setting_id id, const char *v, char *err, size_t err_len);

/* "cpu,mem" for the flags, in the table's order; with ipc_only, the
 * choices sent in session_start alone. */
void settings_list_str(enum setting_id id, uint64_t flags, bool ipc_only, char *buf, size_t size);

/* Fill the derived rows (osrt, device) from the others. */
void settings_derive(struct settings *s);

/* Add the session_start fields to msg, the derived rows derived first. */
int settings_to_ipc(const struct settings *s, cJSON *msg);
/* Read and check session_start's fields: missing ones take their default;
 * -EINVAL with the first problem in why (for a bad_request error). */
int settings_from_ipc(const cJSON *msg, struct settings *ret, char *why, size_t why_len);
/* Add the SETTING_AGENT fields to an agent_start message, as they are
 * (the daemon's settings came from session_start, derived rows included). */
int settings_to_agent(const struct settings *s, cJSON *msg);

/* Add the host/sample.json keys of the rows [first, end) to obj. */
int settings_to_sample(const struct settings *s, enum setting_id first, enum setting_id end, cJSON *obj);
/* Read host/sample.json as the export does: keys that are missing or of
 * another type are left at their default and not marked given; a SWITCH is
 * on for "on" alone, off for any other string; LIST takes a JSON array too,
 * and ignores names it does not know. */
void settings_from_sample(const cJSON *obj, struct settings *ret);
