/* The settings table (ipc/settings.c), walked row by row: each setting,
 * given on the command line with a value other than its default, arrives
 * unchanged through every stage that reads the table:
 *
 *   msprof's parser (opts_parse) and mode checks -> session_start (encoded,
 *   framed, decoded) -> the daemon's checks (settings_from_ipc) and its
 *   agent_start -> host/sample.json (written with profdir) -> the export's
 *   reader (settings_from_sample)
 *
 * and it is listed in `msprof --help` and in man/msprof.1 (argv[1]).  The
 * daemon also refuses, naming the field, a value of the wrong type and one
 * out of range. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/profdir.h"
#include "common/cjson-cleanup.h"
#include "common/host-sys.h"
#include "common/util.h"
#include "ipc/ipc.h"
#include "ipc/settings.h"
#include "launcher/modes.h"
#include "launcher/compat.h"
#include "launcher/options.h"
#include "tests/unit/unittest.h"

static char tmpdir[] = "/tmp/test-settings.XXXXXX";
static char *man_text;

/* A value for the row other than its default, as the command line takes it. */
static void pick_value(const struct setting_def *def, char *buf, size_t size)
{
	switch (def->type) {
	case SETTING_SWITCH:
		snprintf(buf, size, "%s", def->def ? "off" : "on");
		return;
	case SETTING_UINT:
		snprintf(buf, size, "%llu", (unsigned long long)(def->def != def->max ? def->max : def->min));
		return;
	case SETTING_MB:
		snprintf(buf, size, "%lluMB", (unsigned long long)def->min + 1);
		return;
	case SETTING_ENUM:
		for (const struct setting_choice *c = def->choices; c->name; c++)
			if (!c->alias && !c->refuse && c->value != def->def) {
				snprintf(buf, size, "%s", c->name);
				return;
			}
		break;
	case SETTING_LIST: /* every choice, in reverse: the written list is canonical */
		buf[0] = '\0';
		for (const struct setting_choice *c = def->choices; c->name; c++) {
			char tmp[128];
			snprintf(tmp, sizeof(tmp), "%s%s%s", c->name, buf[0] ? "," : "", buf);
			snprintf(buf, size, "%s", tmp);
		}
		return;
	case SETTING_STR: { /* the first the row takes */
		static const char *const candidates[] = { "1-3", "0,2", "default,d1", "60s,512MB", "slow-step:3,exit" };
		for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
			if (def->check_str && def->check_str(candidates[i]) < 0)
				continue;
			snprintf(buf, size, "%s", candidates[i]);
			return;
		}
		break;
	}
	}
	fprintf(stderr, "no value for --%s\n", def->cli);
	CHECK(0);
}

/* u as the stage after session_start holds it: a list without the choices
 * that do not travel in it (osrt goes as "osrt"). */
static uint64_t ipc_u(const struct setting_def *def, uint64_t u)
{
	if (def->type == SETTING_LIST)
		for (const struct setting_choice *c = def->choices; c->name; c++)
			if (c->local)
				u &= ~c->value;
	return u;
}

static bool same_str(const char *a, const char *b)
{
	return streq(a ? a : "", b ? b : "");
}

/* session_start as the launcher sends it and the daemon reads it (the
 * strings in *ret point into *ret_msg). */
static void through_ipc(const struct settings *sent, struct settings *ret, cJSON **ret_msg)
{
	_cleanup_json_ cJSON *req = ipc_msg_new(IPC_T_SESSION_START, 1);
	CHECK(req && settings_to_ipc(sent, req) == 0);
	char *frame;
	size_t len, used;
	CHECK(ipc_frame_encode(req, &frame, &len) == 0);
	_cleanup_json_ cJSON *got = NULL;
	CHECK(ipc_frame_decode(frame, len, &used, &got) == 1 && used == len);
	free(frame);
	char why[512] = "";
	int r = settings_from_ipc(got, ret, why, sizeof(why));
	if (r < 0)
		fprintf(stderr, "session_start refused: %s\n", why);
	CHECK(r == 0);
	*ret_msg = TAKE_PTR(got);
}

/* host/sample.json as the launcher writes it and the export reads it (the
 * strings in *ret point into *ret_file). */
static void through_sample(const struct settings *written, struct settings *ret, cJSON **ret_file)
{
	char path[512];
	_cleanup_json_ cJSON *sample = cJSON_CreateObject();
	CHECK(sample && cJSON_AddStringToObject(sample, "result_dir", tmpdir));
	CHECK(settings_to_sample(written, 0, SET_SAMPLE_SPLIT, sample) == 0);
	CHECK(cJSON_AddStringToObject(sample, "app", "app"));
	CHECK(settings_to_sample(written, SET_SAMPLE_SPLIT, _SET_MAX, sample) == 0);
	CHECK(profdir_write_sample(tmpdir, sample) == 0);
	snprintf(path, sizeof(path), "%s/host/sample.json", tmpdir);
	CHECK(profdir_read_json(path, ret_file) == 0);
	settings_from_sample(*ret_file, ret);
}

/* The daemon refuses a wrong type and, for numbers, one past the range,
 * with a message that names the field. */
static void refused(const struct setting_def *def)
{
	struct settings s;
	char why[512];
	_cleanup_json_ cJSON *bad = cJSON_CreateObject();
	bool number = def->type == SETTING_UINT || def->type == SETTING_MB;
	CHECK(bad && cJSON_AddItemToObject(bad, def->ipc_key, def->type == SETTING_SWITCH || number ?
					   cJSON_CreateString("x") : cJSON_CreateNumber(1)));
	why[0] = '\0';
	CHECK(settings_from_ipc(bad, &s, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, def->ipc_key) != NULL);
	if (number) {
		cJSON_ReplaceItemInObjectCaseSensitive(bad, def->ipc_key, cJSON_CreateNumber((double)def->max + 1));
		why[0] = '\0';
		CHECK(settings_from_ipc(bad, &s, why, sizeof(why)) == -EINVAL);
		CHECK(strstr(why, def->ipc_key) != NULL);
	}
}

/* "--host-sys-usage-freq" as the man page spells it: "\-\-host\-sys\-usage\-freq". */
static bool in_man(const char *cli)
{
	char roff[128] = "\\-\\-";
	for (const char *p = cli; *p; p++) {
		size_t n = strlen(roff);
		if (*p == '-')
			snprintf(roff + n, sizeof(roff) - n, "\\-");
		else
			snprintf(roff + n, sizeof(roff) - n, "%c", *p);
	}
	return strstr(man_text, roff) != NULL;
}

static void test_row(const struct setting_def *def, const char *help)
{
	char value[128], opt[192], needs[64] = "--output=/tmp", scope[64];
	pick_value(def, value, sizeof(value));
	snprintf(opt, sizeof(opt), "--%s=%s", def->cli, value);
	if (def->needs)
		snprintf(needs, sizeof(needs), "--%s", def->needs);
	/* a mode that takes it: an application, or else --host-sys-usage */
	snprintf(scope, sizeof(scope), "%s", def->scopes & SCOPE_APP ? "app" : "--host-sys-usage=cpu");

	/* the command line and the mode checks: given, taken, not "useless" */
	struct msprof_opts o;
	struct diag d = { 0 };
	char *argv[] = { "msprof", "--output=/tmp", needs, opt, scope, NULL };
	opts_init(&o);
	int r = opts_parse(5, argv, &o, &d);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", opt, d.error);
	CHECK(r == 0);
	CHECK(settings_given(&o.set, def->id) && opts_used(&o, OPT_SET(def->id)));
	const struct mode_def *m;
	CHECK(mode_select(&o, &m, &d) == 0 || (fprintf(stderr, "%s: %s\n", opt, d.error), 0));
	for (unsigned i = 0; i < d.n_warn; i++)
		fprintf(stderr, "%s: warning: %s\n", opt, d.warn[i]);
	CHECK(d.n_warn == 0);
	const struct settings *cli = &o.set;
	struct settings def_set;
	settings_init(&def_set);
	CHECK(cli->u[def->id] != def_set.u[def->id] || !same_str(cli->s[def->id], def_set.s[def->id]));

	/* session_start and the daemon */
	struct settings daemon;
	_cleanup_json_ cJSON *msg = NULL;
	through_ipc(cli, &daemon, &msg);
	if (def->ipc_key) {
		CHECK(settings_given(&daemon, def->id));
		CHECK(daemon.u[def->id] == ipc_u(def, cli->u[def->id]));
		CHECK(same_str(daemon.s[def->id], def->type == SETTING_MB ? NULL : cli->s[def->id]));
		refused(def);
	}
	struct settings derived = *cli;
	settings_derive(&derived);
	for (unsigned i = 0; i < _SET_MAX; i++)
		if (setting_table[i].derive)
			CHECK(daemon.u[i] == derived.u[i]);
	_cleanup_json_ cJSON *agent = cJSON_CreateObject();
	CHECK(agent && settings_to_agent(&daemon, agent) == 0);
	CHECK(!!cJSON_GetObjectItemCaseSensitive(agent, def->ipc_key ? def->ipc_key : "") ==
	      ((def->flags & SETTING_AGENT) != 0));

	/* host/sample.json, written and read back as the export reads it */
	struct settings file;
	_cleanup_json_ cJSON *json = NULL;
	through_sample(cli, &file, &json);
	if (def->sample_key) {
		CHECK(cJSON_GetObjectItemCaseSensitive(json, def->sample_key) != NULL);
		CHECK(settings_given(&file, def->id));
		CHECK(file.u[def->id] == cli->u[def->id]);
		CHECK(same_str(file.s[def->id], cli->s[def->id]));
	}

	/* --help and the man page */
	char line[160];
	snprintf(line, sizeof(line), "\n      --%-32s<Optional> %.40s", def->cli, def->help);
	CHECK(strstr(help, line) != NULL || (fprintf(stderr, "not in --help: %s\n", line), 0));
	CHECK(in_man(def->cli) || (fprintf(stderr, "not in man/msprof.1: --%s\n", def->cli), 0));
	opts_release(&o);
}

/* Names, keys and orders are unique, and each row is complete. */
static void test_table(void)
{
	const struct opt_def *const *defs;
	unsigned n = opts_ordered(&defs);
	for (unsigned i = 0; i + 1 < n; i++) {
		CHECK(defs[i]->order < defs[i + 1]->order);
		for (unsigned k = i + 1; k < n; k++)
			CHECK(!streq(defs[i]->name, defs[k]->name));
	}
	for (unsigned i = 0; i < _SET_MAX; i++) {
		const struct setting_def *a = &setting_table[i];
		CHECK(a->id == i);
		CHECK(a->cli ? a->help && a->scopes : a->derive && a->ipc_key);
		CHECK(a->type != SETTING_LIST && a->type != SETTING_ENUM ? !a->choices : a->choices != NULL);
		for (unsigned k = i + 1; k < _SET_MAX; k++) {
			const struct setting_def *b = &setting_table[k];
			CHECK(!a->ipc_key || !b->ipc_key || !streq(a->ipc_key, b->ipc_key));
			CHECK(!a->sample_key || !b->sample_key || !streq(a->sample_key, b->sample_key));
		}
	}
}

/* The lists' names parse to common/host-sys.h's flags, a name twice is
 * once, and a name must be spelt exactly (the table is their only parser). */
static void test_lists(void)
{
	struct settings s;
	char err[256];
	settings_init(&s);
	CHECK(settings_parse_cli(&s, SET_HOST_SYS, "cpu,mem,disk,network,osrt", err, sizeof(err)) == 0);
	CHECK(s.u[SET_HOST_SYS] == (HOST_SYS_SAMPLED | HOST_SYS_OSRT));
	CHECK(settings_parse_cli(&s, SET_HOST_SYS, "network", err, sizeof(err)) == 0 &&
	      s.u[SET_HOST_SYS] == HOST_SYS_NETWORK);
	CHECK(settings_parse_cli(&s, SET_HOST_SYS, "cpu,cpu", err, sizeof(err)) == 0 && s.u[SET_HOST_SYS] == HOST_SYS_CPU);
	CHECK(settings_parse_cli(&s, SET_HOST_SYS, "cpu ,mem", err, sizeof(err)) == -EINVAL);
	CHECK(settings_parse_cli(&s, SET_HOST_SYS_USAGE, "cpu,mem", err, sizeof(err)) == 0 &&
	      s.u[SET_HOST_SYS_USAGE] == (HOST_USAGE_CPU | HOST_USAGE_MEM));
	CHECK(settings_parse_cli(&s, SET_HOST_SYS_USAGE, "mem,disk", err, sizeof(err)) == -EINVAL);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CHECK(m != NULL);
	int ch;
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

int main(int argc, char **argv)
{
	CHECK(argc == 2); /* man/msprof.1 */
	man_text = read_all(argv[1]);
	CHECK(mkdtemp(tmpdir) != NULL);
	char host[64];
	snprintf(host, sizeof(host), "%s/host", tmpdir);
	CHECK(mkdir(host, 0755) == 0);

	char *help = NULL;
	size_t help_len = 0;
	FILE *f = open_memstream(&help, &help_len);
	CHECK(f != NULL);
	opts_print_help(f);
	fclose(f);

	test_table();
	test_lists();
	unsigned rows = 0;
	for (unsigned i = 0; i < _SET_MAX; i++)
		if (setting_table[i].cli) {
			test_row(&setting_table[i], help);
			rows++;
		}
	printf("%u settings: command line, session_start, daemon, agent_start, sample.json, --help, man page\n",
	       rows);
	/* msprof's Ascend NPU options (launcher/compat.c): in --help and the man page too */
	for (unsigned i = 0; i < compat_count; i++) {
		char line[64];
		snprintf(line, sizeof(line), "      --%-32s<Optional>", compat_table[i].name);
		CHECK(strstr(help, line) != NULL || (fprintf(stderr, "not in --help: %s\n", line), 0));
		CHECK(in_man(compat_table[i].name) ||
		      (fprintf(stderr, "not in man/msprof.1: --%s\n", compat_table[i].name), 0));
	}
	printf("%u options of Ascend NPUs: --help, man page\n", compat_count);
	free(help);
	free(man_text);
	rm_rf(tmpdir);
	return 0;
}
