/* msprof __complete WORD...: the candidates for shell completion, for the
 * completion scripts (scripts/completion/), so that the option names and
 * their values come from the tables msprof parses with (options.c, the
 * settings' rows in ipc/settings.c, compat.c, subcmd.c's forms) and not
 * from a copy in each script.
 *
 * The words are msprof's arguments up to the one being completed, which is
 * last (possibly empty), with "--opt=value" whole.  Output, one per line:
 * the candidates that start with that word, or, for the shell to complete
 * itself, one of
 *   @dirs      directories
 *   @files     files
 *   @commands  a program (the application), then files
 * A candidate ending in '=' is an option waiting for its value (no space
 * after it).  Exit status 0, even with no candidate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/compat.h"
#include "launcher/options.h"
#include "launcher/runners.h"
#include "common/util.h"

/* Each '|'-separated choice of list that starts with prefix, after head
 * (what comes before the value in the word: "cpu," of "cpu,me"). */
static void print_choices(const char *choices, const char *head, const char *prefix, const char *taken)
{
	size_t plen = strlen(prefix);
	for (const char *p = choices; *p;) {
		size_t len = strcspn(p, "|");
		bool dup = false;
		/* a list does not offer what it holds already */
		for (const char *t = taken; t && *t && !dup;) {
			size_t tl = strcspn(t, ",");
			dup = tl == len && strncmp(t, p, len) == 0;
			t += tl + (t[tl] == ',');
		}
		if (!dup && len >= plen && strncmp(p, prefix, plen) == 0)
			printf("%s%.*s\n", head, (int)len, p);
		p += len + (p[len] == '|');
	}
}

/* A setting's or an NPU option's choices as one '|'-separated list. */
static void join_setting_choices(const struct setting_def *s, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct setting_choice *c = s->choices; c && c->name && used < size; c++)
		if (!c->refuse)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "|" : "", c->name);
}

/* The values of def that start with value (the part after '=' or the next
 * word): candidates, or an @ line. */
static void complete_value(const struct opt_def *def, const char *value)
{
	enum opt_values kind = OPT_VALUES_NONE;
	const char *choices = NULL;
	char buf[512];

	if ((unsigned)def->id < _OPT_LAUNCHER_MAX) {
		kind = def->values;
		choices = def->choices;
	} else if ((unsigned)def->id < _OPT_MAX) {
		const struct setting_def *s = &setting_table[def->id - _OPT_LAUNCHER_MAX];
		if (s->type == SETTING_SWITCH) {
			kind = OPT_VALUES_CHOICE;
			choices = "on|off";
		} else if (s->type == SETTING_ENUM || s->type == SETTING_LIST) {
			kind = s->type == SETTING_ENUM ? OPT_VALUES_CHOICE : OPT_VALUES_LIST;
			join_setting_choices(s, buf, sizeof(buf));
			choices = buf;
		}
	} else {
		const struct compat_def *c = &compat_table[def->id - _OPT_MAX];
		if (c->value == COMPAT_SWITCH) {
			kind = OPT_VALUES_CHOICE;
			choices = "on|off";
		} else if (c->value == COMPAT_CHOICE) {
			kind = OPT_VALUES_CHOICE;
			choices = c->choices;
		}
	}

	switch (kind) {
	case OPT_VALUES_NONE:
		return;
	case OPT_VALUES_CHOICE:
		print_choices(choices, "", value, NULL);
		return;
	case OPT_VALUES_LIST: {
		const char *last = strrchr(value, ',');
		size_t head = last ? (size_t)(last + 1 - value) : 0;
		char taken[512];
		snprintf(taken, sizeof(taken), "%.*s", (int)head, value);
		print_choices(choices, taken, value + head, taken);
		return;
	}
	case OPT_VALUES_DIR:
		puts("@dirs");
		return;
	case OPT_VALUES_FILE:
		puts("@files");
		return;
	case OPT_VALUES_COMMAND:
		puts("@commands");
		return;
	}
}

/* The option name (before any '=') means: exact, or a unique prefix as the
 * parser allows.  NULL when none or several. */
static const struct opt_def *find_option(const char *name, size_t len)
{
	const struct opt_def *const *all, *found = NULL;
	unsigned n = opts_ordered(&all), hits = 0;
	for (unsigned i = 0; i < n; i++) {
		if (strlen(all[i]->name) == len && strncmp(all[i]->name, name, len) == 0)
			return all[i];
		if (strncmp(all[i]->name, name, len) == 0) {
			found = all[i];
			hits++;
		}
	}
	return hits == 1 ? found : NULL;
}

static void complete_option_names(const char *word)
{
	const struct opt_def *const *all;
	unsigned n = opts_ordered(&all);
	size_t len = strlen(word + 2);
	for (unsigned i = 0; i < n; i++)
		if (strncmp(all[i]->name, word + 2, len) == 0)
			printf("--%s%s\n", all[i]->name, all[i]->takes_value ? "=" : "");
}

/* msprof.py's forms: "export" then "timeline", "-dir" then a directory. */
static void complete_subcmd(char **w, int n)
{
	const char *cur = w[n - 1], *prev = n >= 2 ? w[n - 2] : "";
	size_t len = strlen(cur);
	if (streq(prev, "-dir") || streq(prev, "--collection-dir") || startswith(cur, "-dir=") ||
	    startswith(cur, "--collection-dir=")) {
		puts("@dirs");
		return;
	}
	if (cur[0] == '-') {
		static const char *const dir_opts[] = { "-dir", "--collection-dir", "--help" };
		for (size_t i = 0; i < ARRAY_SIZE(dir_opts); i++)
			if (strncmp(dir_opts[i], cur, len) == 0)
				puts(dir_opts[i]);
		return;
	}
	if (n != 2)
		return;
	/* the second words of the forms that start with w[0] */
	size_t first = strlen(w[0]);
	for (size_t i = 0; subcmd_form(i); i++) {
		const char *f = subcmd_form(i);
		if (strncmp(f, w[0], first) == 0 && f[first] == ' ' && strncmp(f + first + 1, cur, len) == 0)
			puts(f + first + 1);
	}
}

int complete_run(int argc, char **argv)
{
	char *empty[] = { (char *)"" };
	char **w = argc > 0 ? argv : empty;
	int n = argc > 0 ? argc : 1;
	const char *cur = w[n - 1];

	if (n >= 2 && subcmd_is(w[0])) {
		complete_subcmd(w, n);
		return 0;
	}
	/* the words before the current one: options and their values, until
	 * the application's own words begin */
	const struct opt_def *pending = NULL;   /* "--opt" whose value is the next word */
	for (int i = 0; i < n - 1; i++) {
		if (pending) {
			pending = NULL;
			continue;
		}
		if (streq(w[i], "--")) {
			puts(i == n - 2 ? "@commands" : "@files");
			return 0;
		}
		if (!startswith(w[i], "--")) {
			puts("@files");   /* the application's arguments */
			return 0;
		}
		const char *eq = strchr(w[i], '=');
		const struct opt_def *def = find_option(w[i] + 2, eq ? (size_t)(eq - w[i] - 2) : strlen(w[i] + 2));
		if (def && def->takes_value && !eq)
			pending = def;
	}
	if (pending) {
		complete_value(pending, cur);
		return 0;
	}
	if (startswith(cur, "--")) {
		const char *eq = strchr(cur, '=');
		if (!eq) {
			complete_option_names(cur);
			return 0;
		}
		const struct opt_def *def = find_option(cur + 2, (size_t)(eq - cur - 2));
		if (def && def->takes_value)
			complete_value(def, eq + 1);
		return 0;
	}
	if (n == 1) {
		/* the first word: msprof.py's forms, or the application */
		size_t len = strlen(cur);
		for (size_t i = 0; subcmd_form(i); i++) {
			const char *f = subcmd_form(i);
			size_t fl = strcspn(f, " ");
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++)
				seen = strncmp(subcmd_form(k), f, fl) == 0 && strchr(" ", subcmd_form(k)[fl]);
			if (!seen && fl >= len && strncmp(f, cur, len) == 0)
				printf("%.*s\n", (int)fl, f);
		}
	}
	puts("@commands");
	return 0;
}
