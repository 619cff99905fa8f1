/* msprof's options for data only an Ascend NPU has (reference §1.2), accepted
 * on any machine so that a command line copied from Ascend's documentation
 * runs.  Each row either maps onto the setting that records the same kind of
 * data here (--ascendcl: the CUDA runtime and driver API calls, as
 * --runtime-api) and says so in one line, or is ignored with one warning
 * naming it.  The options this implementation collects for real have rows of
 * their own (launcher/options.c, ipc/settings.c); these never do.
 *
 * The parser (options.c) matches these names like its own, checks the value
 * with msprof's messages (compat_check), keeps what was given, and applies
 * the mappings once every option is known (compat_apply): an option of our
 * own given on the same command line wins over a mapping onto it. */
#pragma once

#include <stdbool.h>

#include "launcher/diag.h"
#include "launcher/msprof-opts.h"

enum compat_value {
	COMPAT_SWITCH,   /* on|off */
	COMPAT_RANGE,    /* an integer in [min, max] */
	COMPAT_CHOICE,   /* one of choices, '|'-separated */
	COMPAT_TEXT,     /* anything not empty (metric lists, event codes) */
};

enum compat_map {
	COMPAT_NPU,      /* no equivalent here: a warning */
	COMPAT_SAME,     /* the value goes to target as if given to it */
	COMPAT_FLAGS,    /* "on" adds flags to the LIST setting target */
	COMPAT_COMM,     /* "on": the agent goes in, NCCL's profiler plugin records */
};

struct compat_def {
	const char *name;
	enum compat_value value;
	unsigned min, max;           /* RANGE */
	const char *choices;         /* CHOICE */
	enum compat_map map;
	enum setting_id target;      /* SAME, FLAGS */
	uint64_t flags;              /* FLAGS */
	const char *help;            /* --help and the man page */
	const char *said;            /* NPU: the data it names; mapped: what is recorded here */
};

extern const struct compat_def compat_table[];
extern const unsigned compat_count;

/* The row of name (exact), NULL if none. */
const struct compat_def *compat_find(const char *name);

/* Check v for row c with msprof's messages; 0 or -EINVAL with d->error. */
int compat_check(const struct compat_def *c, const char *v, struct diag *d);

/* Apply the compatibility options kept in o (o->compat) to its settings,
 * one line each in d: an info line for a mapping, a warning otherwise. */
void compat_apply(struct msprof_opts *o, struct diag *d);
