/* The msprof command line: the option table (name, value, help, check)
 * and its parser; what it parses into, the options' ids and the limits
 * their checks apply are msprof-opts.h's.  One table
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

#include "launcher/diag.h"
#include "launcher/msprof-opts.h"

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

/* The option a command-line word "--name[=value]" names, as opts_parse
 * matches it (the name, or a unique prefix of one); NULL: none. */
const struct opt_def *opts_find(const char *tok);

void opts_init(struct msprof_opts *o);
void opts_release(struct msprof_opts *o);

/* Parse argv.  0 on success (o->help / o->version may be set: nothing else
 * is meaningful then); -EINVAL with d->error set otherwise. */
int opts_parse(int argc, char **argv, struct msprof_opts *o, struct diag *d);

/* "--a --b" for the options in mask, in enum order (msprof's
 * ConvertParamsSetToString). */
void opts_names(uint64_t mask, char *buf, size_t size);

/* Usage and one line per option (msprof's Args::PrintHelp layout). */
void opts_print_help(FILE *f);

/* Launch mode without --host-sys and --host-sys-usage collects
 * --host-sys=cpu,mem (ours: msprof's defaults are device data we do not
 * have; a run must produce something to look at). */
void opts_default_host_sys(struct msprof_opts *o);
/* --flight-recorder's defaults: the agent records (unless --msproftx=off
 * was given), --dump-on's default triggers. */
void opts_default_flight(struct msprof_opts *o);

/* Exposed for tests: the path check. */
bool path_has_forbidden_char(const char *path);

/* Whether this user may attach to pid: it exists, has not exited, and its
 * real, effective and saved uids are ours (root may attach to any).  When
 * not, why gets the reason ("process 7 does not exist"). */
bool pid_attachable(pid_t pid, char *why, size_t why_len);
