/* Mode selection and msprof's option-set checks (running_mode.cpp,
 * running_mode_open.cpp, msprof_manager.cpp).  Sets list only options that
 * exist here; msprof's others join them as they are added. */
#include "launcher/modes.h"

#include <errno.h>
#include <string.h>

#include "common/util.h"

#define B(x) OPT_BIT(OPT_##x)

/* The collection settings a mode takes come from their rows' scopes
 * (ipc/settings.c): SCOPE_APP for launch and dynamic mode, SCOPE_SYSTEM
 * for the --host-sys modes.  msprof's AppMode white set lacks the
 * host-sys-usage pair, but its docs (host_system_data.md) use them with an
 * application and our daemon collects them, so their rows allow them
 * there. */
#define LAUNCH_OPTS (B(OUTPUT) | B(APPLICATION) | B(ENVIRONMENT) | B(TYPE) | B(DYNAMIC) | B(SUMMARY))

/* The options of the settings taken in scopes. */
static uint64_t setting_opts(unsigned scopes)
{
	uint64_t mask = 0;
	for (unsigned i = 0; i < _SET_MAX; i++)
		if (setting_table[i].cli && (setting_table[i].scopes & scopes))
			mask |= OPT_BIT(OPT_SET(i));
	return mask;
}

static bool list_selected(const struct msprof_opts *o)
{
	return o->list;
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

/* msprof ExportMode::ModeParamsCheck: --type=db narrows the export sets. */
#define EXPORT_OPTS (B(OUTPUT) | B(EXPORT) | B(ITERATION_ID) | B(MODEL_ID) | B(SUMMARY_FORMAT) | \
		     B(PYTHON_PATH) | B(CLEAR) | B(TYPE) | B(REPORTS) | B(SUMMARY))
static const struct mode_rules export_db_rules = {
	.key = "export and --type",
	.allowed = B(OUTPUT) | B(EXPORT) | B(TYPE) | B(PYTHON_PATH) | B(SUMMARY),
	.forbidden = (EXPORT_OPTS & ~(B(OUTPUT) | B(EXPORT) | B(TYPE) | B(PYTHON_PATH) | B(SUMMARY))) |
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
		.rules = { .key = "list", .allowed = B(DYNAMIC) | B(LIST) },
		.unlisted = true,
	},
	/* msprof runs both forms of dynamic mode as its AppMode, hence the
	 * key; --delay and --duration were refused by the parser. */
	[MODE_DYNAMIC] = {
		.id = MODE_DYNAMIC, .name = "dynamic", .selected = dynamic_selected,
		.rules = { .key = "application", .allowed = LAUNCH_OPTS | B(PID), .scopes = SCOPE_APP },
		.unlisted = true,
	},
	[MODE_LAUNCH] = {
		.id = MODE_LAUNCH, .name = "launch", .selected = launch_selected,
		.rules = { .key = "application", .allowed = LAUNCH_OPTS | B(DELAY) | B(DURATION), .scopes = SCOPE_APP },
	},
	/* msprof's SystemMode: the devices and the host for --sys-period
	 * seconds (the device options are app-scoped rows, listed here) */
	[MODE_SYSTEM] = {
		.id = MODE_SYSTEM, .name = "system", .selected = system_selected,
		.rules = {
			.key = "sys-devices",
			.allowed = B(OUTPUT) | B(SYS_DEVICES) | B(SYS_PERIOD) | B(HOST_SYS_PID) | B(TYPE) | B(SUMMARY) |
				   B(SYS_CPU_PROFILING) |
				   OPT_BIT(OPT_SET(SET_SYS_HARDWARE_MEM)) | OPT_BIT(OPT_SET(SET_SYS_HARDWARE_MEM_FREQ)) |
				   OPT_BIT(OPT_SET(SET_SYS_INTERCONNECTION)) |
				   OPT_BIT(OPT_SET(SET_SYS_INTERCONNECTION_FREQ)),
			.scopes = SCOPE_SYSTEM,
			.necessary = B(SYS_PERIOD),
		},
	},
	/* msprof's SystemMode also needs --sys-period; here a pid or Ctrl-C
	 * ends collection, and --sys-period only bounds it. */
	[MODE_HOST_SYS] = {
		.id = MODE_HOST_SYS, .name = "host-sys", .selected = host_sys_selected,
		.rules = {
			.key = "host-sys",
			.allowed = B(OUTPUT) | B(SYS_PERIOD) | B(HOST_SYS_PID) | B(TYPE) | B(SUMMARY),
			.scopes = SCOPE_SYSTEM,
			.necessary = B(OUTPUT),
		},
		.check = host_sys_check,
	},
	[MODE_HOST_SYS_USAGE] = {
		.id = MODE_HOST_SYS_USAGE, .name = "host-sys-usage", .selected = host_usage_selected,
		.rules = {
			.key = "host-sys-usage",
			.allowed = B(OUTPUT) | B(SYS_PERIOD) | B(HOST_SYS_PID) | B(TYPE) | B(SUMMARY),
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
			.allowed = B(OUTPUT) | B(PARSE) | B(PYTHON_PATH),
			.forbidden = B(QUERY) | B(EXPORT) | B(ANALYZE) | B(RULE) | B(CLEAR),
			.necessary = B(OUTPUT) | B(PARSE),
		},
	},
	[MODE_QUERY] = {
		.id = MODE_QUERY, .name = "query", .selected = query_selected,
		.rules = {
			.key = "query",
			.allowed = B(OUTPUT) | B(QUERY) | B(PYTHON_PATH),
			.forbidden = B(PARSE) | B(EXPORT) | B(ANALYZE) | B(RULE) | B(CLEAR),
			.necessary = B(OUTPUT) | B(QUERY),
		},
	},
	[MODE_EXPORT] = {
		.id = MODE_EXPORT, .name = "export", .selected = export_selected,
		.rules = {
			.key = "export",
			.allowed = EXPORT_OPTS,
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
			.allowed = B(OUTPUT) | B(ANALYZE) | B(PYTHON_PATH) | B(RULE) | B(CLEAR) | B(TYPE),
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

	uint64_t allowed = r->allowed | setting_opts(r->scopes);
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
