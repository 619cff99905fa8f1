/* Running modes: which one a command line selects, and the option sets each
 * allows, forbids and needs (msprof's RunningMode white/black/necessary sets,
 * reference §1.3); the options' rows say which modes allow them.  The table
 * is in msprof's priority order.
 *
 * The table is apart from the code that runs a mode, so that tests check
 * selection and sets linking modes.c and options.c alone (what the linker
 * takes from the launcher library); the code that runs a mode is in
 * mode-*.c and is found through mode_runners[] (msprof.c), indexed by the
 * same enum. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "launcher/diag.h"
#include "launcher/msprof-opts.h"


/* The options a mode allows are those whose rows name it (opt_def.modes)
 * and the settings of its scopes; the others are "useless" (a warning). */
struct mode_rules {
	const char *key;      /* the option named in messages: "--%s is not empty" */
	unsigned scopes;      /* the settings it takes (enum setting_scope) */
	uint64_t forbidden;   /* an error, and never allowed */
	uint64_t necessary;   /* an error when missing */
};

struct mode_def {
	enum mode_id id;
	const char *name;
	bool (*selected)(const struct msprof_opts *o);
	struct mode_rules rules;
	/* Rules that replace `rules` for some values (export with --type=db). */
	const struct mode_rules *(*rules_for)(const struct msprof_opts *o);
	/* Checks of the mode beyond the sets; NULL when none. */
	int (*check)(const struct msprof_opts *o, struct diag *d);
	/* Left out of "No valid argument found in ...": selected only by an
	 * option that the parser already checked. */
	bool unlisted;
};

extern const struct mode_def mode_table[_MODE_MAX];

/* Select the mode for o and run its checks: 0 and *ret on success (d may
 * hold warnings to print), -EINVAL with d->error set otherwise. */
int mode_select(const struct msprof_opts *o, const struct mode_def **ret, struct diag *d);

/* Whether mode id (with its table rules, not rules_for's) allows option opt. */
bool mode_allows(enum mode_id id, enum opt_id opt);

/* Provided by the msprof program, one per mode. */
typedef int (*mode_run_fn)(const struct msprof_opts *o);
