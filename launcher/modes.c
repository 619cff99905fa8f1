/* Mode selection and msprof's option-set checks (running_mode.cpp,
 * running_mode_open.cpp, msprof_manager.cpp).  Sets list only options that
 * exist here; msprof's others join them as they are added. */
#include "launcher/modes.h"
#include "launcher/options.h"

#include <errno.h>
#include <string.h>

#include "common/util.h"

#define B(x) OPT_BIT(OPT_##x)

/* The options a mode allows: the launcher's whose rows name it, and the
 * settings of its scopes (ipc/settings.c): SCOPE_APP for launch and
 * dynamic mode, SCOPE_SYSTEM for the modes without an application,
 * SCOPE_DEVICES for system mode.  msprof's AppMode white set lacks the
 * host-sys-usage pair, but its docs (host_system_data.md) use them with an
 * application and our daemon collects them, so their rows allow them
 * there. */
static uint64_t mode_allowed(enum mode_id id, const struct mode_rules *r)
{
	uint64_t mask = 0;
	for (unsigned i = 0; i < _OPT_LAUNCHER_MAX; i++)
		if (opt_get((enum opt_id)i)->modes & MODE_BIT(id))
			mask |= OPT_BIT(i);
	for (unsigned i = 0; i < _SET_MAX; i++)
		if (setting_table[i].cli && (setting_table[i].scopes & r->scopes))
			mask |= OPT_BIT(OPT_SET(i));
	return mask & ~r->forbidden;
}

bool mode_allows(enum mode_id id, enum opt_id opt)
{
	return (unsigned)id < _MODE_MAX && (unsigned)opt < _OPT_MAX &&
	       (mode_allowed(id, &mode_table[id].rules) & OPT_BIT(opt)) != 0;
}

static bool list_selected(const struct msprof_opts *o)
{
	return o->list;
}

static bool dump_selected(const struct msprof_opts *o)
{
	return o->dump;
}

/* The parser has checked the combinations (msprof CheckDynProfValid): with
 * --dynamic=on there is an application or --pid, never both. */
static bool dynamic_selected(const struct msprof_opts *o)
{
	return o->dynamic;
}

static bool launch_selected(const struct msprof_opts *o)
{
	return opts_have_app(o);
}

static bool system_selected(const struct msprof_opts *o)
{
	return opts_used(o, OPT_SYS_DEVICES);
}

static bool host_sys_selected(const struct msprof_opts *o)
{
	return opts_u(o, SET_HOST_SYS) != 0;
}

static bool host_usage_selected(const struct msprof_opts *o)
{
	return opts_u(o, SET_HOST_SYS_USAGE) != 0;
}

static bool parse_selected(const struct msprof_opts *o)
{
	return o->parse_on;
}

static bool query_selected(const struct msprof_opts *o)
{
	return o->query_on;
}

static bool export_selected(const struct msprof_opts *o)
{
	return o->export_on;
}

static bool analyze_selected(const struct msprof_opts *o)
{
	return o->analyze_on;
}

/* msprof.py's check: both ids or neither. */
static int export_check(const struct msprof_opts *o, struct diag *d)
{
	if (opts_used(o, OPT_MODEL_ID) != opts_used(o, OPT_ITERATION_ID))
		return diag_error(d, "Please set 'model-id' and 'iteration-id' simultaneously.");
	return 0;
}

static int host_sys_check(const struct msprof_opts *o, struct diag *d)
{
	/* msprof SystemMode::CheckHostSysParams, wording as is */
	if (o->host_sys_pid == 0)
		return diag_error(d, "The argument --host-sys-pid are required when app is empty and --host-sys is on.");
	return 0;
}

/* msprof ExportMode::ModeParamsCheck: --type=db forbids some of the
 * options export mode allows, and with them narrows what it allows. */
static const struct mode_rules export_db_rules = {
	.key = "export and --type",
	.forbidden = B(ITERATION_ID) | B(MODEL_ID) | B(SUMMARY_FORMAT) | B(REPORTS) | B(CLEAR) |
		     B(QUERY) | B(PARSE) | B(ANALYZE) | B(RULE),
	.necessary = B(OUTPUT) | B(EXPORT) | B(TYPE),
};

static const struct mode_rules *export_rules_for(const struct msprof_opts *o)
{
	return o->type == OUT_DB ? &export_db_rules : NULL;
}

const struct mode_def mode_table[_MODE_MAX] = {
	[MODE_LIST] = {
		.id = MODE_LIST, .name = "list", .selected = list_selected,
		.rules = { .key = "list" },
		.unlisted = true,
	},
	[MODE_DUMP] = {
		.id = MODE_DUMP, .name = "dump", .selected = dump_selected,
		.rules = { .key = "dump", .necessary = B(PID) },
		.unlisted = true,
	},
	/* msprof runs both forms of dynamic mode as its AppMode, hence the
	 * key; --delay and --duration were refused by the parser. */
	[MODE_DYNAMIC] = {
		.id = MODE_DYNAMIC, .name = "dynamic", .selected = dynamic_selected,
		.rules = { .key = "application", .scopes = SCOPE_APP },
		.unlisted = true,
	},
	[MODE_LAUNCH] = {
		.id = MODE_LAUNCH, .name = "launch", .selected = launch_selected,
		.rules = { .key = "application", .scopes = SCOPE_APP },
	},
	/* msprof's SystemMode: the devices and the host for --sys-period
	 * seconds */
	[MODE_SYSTEM] = {
		.id = MODE_SYSTEM, .name = "system", .selected = system_selected,
		.rules = {
			.key = "sys-devices",
			.scopes = SCOPE_SYSTEM | SCOPE_DEVICES,
			.necessary = B(SYS_PERIOD),
		},
	},
	/* msprof's SystemMode also needs --sys-period; here a pid or Ctrl-C
	 * ends collection, and --sys-period only bounds it. */
	[MODE_HOST_SYS] = {
		.id = MODE_HOST_SYS, .name = "host-sys", .selected = host_sys_selected,
		.rules = {
			.key = "host-sys",
			.scopes = SCOPE_SYSTEM,
			.necessary = B(OUTPUT),
		},
		.check = host_sys_check,
	},
	[MODE_HOST_SYS_USAGE] = {
		.id = MODE_HOST_SYS_USAGE, .name = "host-sys-usage", .selected = host_usage_selected,
		.rules = {
			.key = "host-sys-usage",
			.scopes = SCOPE_SYSTEM,
			.necessary = B(OUTPUT),
		},
	},
	/* the analysis modes, msprof's ParseMode, QueryMode, ExportMode and
	 * AnalyzeMode sets */
	[MODE_PARSE] = {
		.id = MODE_PARSE, .name = "parse", .selected = parse_selected,
		.rules = {
			.key = "parse",
			.forbidden = B(QUERY) | B(EXPORT) | B(ANALYZE) | B(RULE) | B(CLEAR),
			.necessary = B(OUTPUT) | B(PARSE),
		},
	},
	[MODE_QUERY] = {
		.id = MODE_QUERY, .name = "query", .selected = query_selected,
		.rules = {
			.key = "query",
			.forbidden = B(PARSE) | B(EXPORT) | B(ANALYZE) | B(RULE) | B(CLEAR),
			.necessary = B(OUTPUT) | B(QUERY),
		},
	},
	[MODE_EXPORT] = {
		.id = MODE_EXPORT, .name = "export", .selected = export_selected,
		.rules = {
			.key = "export",
			.forbidden = B(QUERY) | B(PARSE) | B(ANALYZE) | B(RULE),
			.necessary = B(OUTPUT) | B(EXPORT),
		},
		.rules_for = export_rules_for,
		.check = export_check,
	},
	[MODE_ANALYZE] = {
		.id = MODE_ANALYZE, .name = "analyze", .selected = analyze_selected,
		.rules = {
			.key = "analyze",
			.forbidden = B(QUERY) | B(EXPORT) | B(PARSE),
			.necessary = B(OUTPUT) | B(ANALYZE),
		},
	},
};

int mode_select(const struct msprof_opts *o, const struct mode_def **ret, struct diag *d)
{
	const struct mode_def *m = NULL;
	for (unsigned i = 0; i < _MODE_MAX && !m; i++)
		if (mode_table[i].selected(o))
			m = &mode_table[i];

	if (!m) {
		/* msprof lists the option of every mode it has; so do we */
		char list[256] = "";
		for (unsigned i = 0; i < _MODE_MAX; i++) {
			if (mode_table[i].unlisted)
				continue;
			size_t used = strlen(list);
			snprintf(list + used, sizeof(list) - used, "%s--%s", used ? " " : "", mode_table[i].rules.key);
		}
		d->hint = true;
		return diag_error(d, "No valid argument found in %s", list);
	}

	const struct mode_rules *r = m->rules_for ? m->rules_for(o) : NULL;
	if (!r)
		r = &m->rules;

	uint64_t allowed = mode_allowed(m->id, r);
	char names[512];
	if (o->used & r->forbidden) {
		opts_names(o->used & r->forbidden, names, sizeof(names));
		return diag_error(d, "The argument %s is forbidden when --%s is not empty", names, r->key);
	}
	if (r->necessary & ~o->used) {
		/* "neccessary" is msprof's spelling; kept so greps match */
		opts_names(r->necessary & ~o->used, names, sizeof(names));
		return diag_error(d, "The argument %s is neccessary when --%s is not empty", names, r->key);
	}
	if (o->used & ~allowed) {
		opts_names(o->used & ~allowed, names, sizeof(names));
		diag_warn(d, "The argument %s is useless when --%s is not empty", names, r->key);
	}
	if (m->check) {
		int e = m->check(o, d);
		if (e < 0)
			return e;
	}
	*ret = m;
	return 0;
}
