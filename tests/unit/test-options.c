/* The msprof command line: argv splitting, every validation message (the
 * exact text msprof prints), ranges at both edges, mode selection and the
 * option-set checks, --help layout, application and output resolution. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/app.h"
#include "common/host-sys.h"
#include "launcher/modes.h"
#include "launcher/options.h"
#include "common/util.h"

static unsigned n_checks, n_fails;

#define CHECK(cond) check_((cond), #cond, __FILE__, __LINE__)
static void check_(bool ok, const char *what, const char *file, int line)
{
	n_checks++;
	if (!ok) {
		n_fails++;
		fprintf(stderr, "%s:%d: FAIL: %s\n", file, line, what);
	}
}

#define CHECK_STR(got, want) check_str_((got), (want), __FILE__, __LINE__)
static void check_str_(const char *got, const char *want, const char *file, int line)
{
	n_checks++;
	if (!got || strcmp(got, want) != 0) {
		n_fails++;
		fprintf(stderr, "%s:%d: FAIL:\n  got:  '%s'\n  want: '%s'\n", file, line, got ? got : "(null)", want);
	}
}

/* Parse a NULL-terminated argv; o and d are reset first. */
static int parse_argv(struct msprof_opts *o, struct diag *d, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	opts_release(o);
	*d = (struct diag){ 0 };
	return opts_parse(argc, argv, o, d);
}
/* The --host-sys or --host-sys-usage list as session_start sends it. */
static const char *list_of(const struct msprof_opts *o, enum setting_id id)
{
	static char buf[64];
	settings_list_str(id, opts_u(o, id), true, buf, sizeof(buf));
	return buf;
}

#define PARSE(o, d, ...) parse_argv((o), (d), (char *[]){ "msprof", __VA_ARGS__, NULL })

/* The parse must fail with exactly this message. */
#define PARSE_ERR(want, ...) do { \
		struct msprof_opts o_; struct diag d_; opts_init(&o_); \
		CHECK(PARSE(&o_, &d_, __VA_ARGS__) == -EINVAL); \
		CHECK_STR(d_.error, (want)); \
		opts_release(&o_); \
	} while (0)

#define PARSE_OK(...) do { \
		struct msprof_opts o_; struct diag d_; opts_init(&o_); \
		int r_ = PARSE(&o_, &d_, __VA_ARGS__); \
		CHECK(r_ == 0); \
		if (r_ < 0) fprintf(stderr, "  error: %s\n", d_.error); \
		opts_release(&o_); \
	} while (0)

static void test_split(void)
{
	struct msprof_opts o;
	struct diag d;
	opts_init(&o);

	CHECK(PARSE(&o, &d, "--output=/tmp/x", "app", "a", "--b") == 0);
	CHECK_STR(o.output, "/tmp/x");
	CHECK(o.app_argc == 3);
	CHECK_STR(o.app_argv[0], "app");
	CHECK_STR(o.app_argv[2], "--b");

	/* "--opt value": the next token is the value, even if it looks odd */
	CHECK(PARSE(&o, &d, "--output", "/tmp/y", "app") == 0);
	CHECK_STR(o.output, "/tmp/y");
	CHECK(o.app_argc == 1 && streq(o.app_argv[0], "app"));
	CHECK(PARSE(&o, &d, "--environment", "--A=1", "app") == 0);
	CHECK_STR(o.environment, "--A=1");
	CHECK(o.app_argc == 1);

	/* everything after the first non-option token is the application's */
	CHECK(PARSE(&o, &d, "app", "--output=/x", "--type=bad") == 0);
	CHECK(o.output == NULL && o.app_argc == 3);
	CHECK(!opts_used(&o, OPT_OUTPUT));

	/* "--" ends the options (ours) */
	CHECK(PARSE(&o, &d, "--type=db", "--", "--weird", "x") == 0);
	CHECK(o.type == OUT_DB && o.app_argc == 2 && streq(o.app_argv[0], "--weird"));

	/* --application wins over the new style */
	CHECK(PARSE(&o, &d, "--application=/bin/echo hi", "/bin/true") == 0);
	CHECK_STR(o.application, "/bin/echo hi");
	CHECK(o.app_argc == 0 && o.app_argv == NULL);
	CHECK(opts_used(&o, OPT_APPLICATION));

	/* options only */
	CHECK(PARSE(&o, &d, "--export=on", "--output=/x") == 0);
	CHECK(o.app_argc == 0 && o.export_on);

	/* relative --output is made absolute against the cwd */
	char cwd[PATH_MAX], want[PATH_MAX + 8];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(want, sizeof(want), "%s/rel/dir", cwd);
	CHECK(PARSE(&o, &d, "--output=rel/dir") == 0);
	CHECK_STR(o.output, want);

	/* the last of a repeated option wins */
	CHECK(PARSE(&o, &d, "--type=db", "--type=text", "app") == 0);
	CHECK(o.type == OUT_TEXT);

	/* unique prefixes, as getopt_long (msprof's "export " entry needs it) */
	CHECK(PARSE(&o, &d, "--outp=/p", "--exp=on", "--host-sys=cpu") == 0);
	CHECK_STR(o.output, "/p");
	CHECK(o.export_on && opts_u(&o, SET_HOST_SYS) == HOST_SYS_CPU);
	CHECK(PARSE(&o, &d, "--vers") == 0 && o.version);

	/* --help stops parsing: what follows is not checked */
	CHECK(PARSE(&o, &d, "--type=db", "--help", "--bogus") == 0);
	CHECK(o.help);
	CHECK(PARSE(&o, &d, "--help", "app") == 0 && o.help);
	CHECK(PARSE(&o, &d, "--version") == 0 && o.version);
	/* ...but what precedes it is */
	PARSE_ERR("Argument --type: invalid value: x. Please input 'text' or 'db'.", "--type=x", "--help");

	/* defaults */
	CHECK(PARSE(&o, &d, "app") == 0);
	CHECK(o.type == OUT_TEXT && opts_u(&o, SET_HOST_SYS_FREQ) == 50 && opts_u(&o, SET_HOST_SYS_USAGE_FREQ) == 50);
	CHECK(opts_u(&o, SET_STORAGE_LIMIT) == 0 && o.sys_period == 0 && opts_u(&o, SET_HOST_SYS) == 0 &&
	      opts_u(&o, SET_HOST_SYS_USAGE) == 0);
	opts_release(&o);
}

static void test_getopt_messages(void)
{
	struct msprof_opts o;
	struct diag d;
	opts_init(&o);

	CHECK(PARSE(&o, &d, "--foo=1", "app") == -EINVAL);
	CHECK_STR(d.error, "msprof: unrecognized option '--foo=1'");
	CHECK(d.plain && d.hint && !d.usage);
	CHECK_STR(d.meant, "");   /* nothing near */

	CHECK(PARSE(&o, &d, "--=x") == -EINVAL);
	CHECK_STR(d.error, "msprof: unrecognized option '--=x'");

	CHECK(PARSE(&o, &d, "--host-sys-u=cpu") == -EINVAL);
	CHECK_STR(d.error, "msprof: option '--host-sys-u=cpu' is ambiguous; possibilities: "
		  "'--host-sys-usage-freq' '--host-sys-usage'");
	CHECK(d.plain && d.hint && !d.usage);
	CHECK_STR(d.meant, "host-sys-usage");

	/* misspelt: the nearest option is meant */
	CHECK(PARSE(&o, &d, "--host-sy=cpu", "app") == -EINVAL);
	CHECK_STR(d.meant, "host-sys");
	CHECK(PARSE(&o, &d, "--outptu=/tmp", "app") == -EINVAL);
	CHECK_STR(d.error, "msprof: unrecognized option '--outptu=/tmp'");
	CHECK_STR(d.meant, "output");
	CHECK(PARSE(&o, &d, "--ai-coer=on", "app") == -EINVAL);
	CHECK_STR(d.meant, "ai-core");
	CHECK(PARSE(&o, &d, "--msprotx=on", "app") == -EINVAL);
	CHECK_STR(d.meant, "msproftx");

	CHECK(PARSE(&o, &d, "--help=1") == -EINVAL);
	CHECK_STR(d.error, "msprof: option '--help' doesn't allow an argument");
	CHECK(d.plain && d.hint && !d.usage);

	/* argv[0] as given, like glibc */
	char *argv[] = { "./bin/msprof", "--nope", NULL };
	opts_release(&o);
	d = (struct diag){ 0 };
	CHECK(opts_parse(2, argv, &o, &d) == -EINVAL);
	CHECK_STR(d.error, "./bin/msprof: unrecognized option '--nope'");
	opts_release(&o);
}

static void test_messages(void)
{
	/* --output */
	PARSE_ERR("Argument --output: expected one argument", "--output");
	PARSE_ERR("Argument --output: expected one argument", "--output=");
	char longp[MSPROF_MAX_PATH_LEN + 2];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';           /* 1025 characters */
	PARSE_ERR("Argument --output is invalid because of exceeds the maximum length of 1024",
		  "--output", longp);
	longp[MSPROF_MAX_PATH_LEN] = '\0';         /* 1024: accepted */
	PARSE_OK("--output", longp);
	PARSE_ERR("Argument --output /tmp/a;b contains invalid character.", "--output=/tmp/a;b");
	PARSE_ERR("Argument --output /tmp/a\nb contains invalid character.", "--output=/tmp/a\nb");

	/* --storage-limit */
	PARSE_ERR("Argument --storage-limit: expected one argument", "--storage-limit");
	PARSE_ERR("Argument --storage-limit: expected one argument", "--storage-limit=");
	PARSE_ERR("Argument --storage-limit 199MB is invalid, valid range is 200MB~4294967295MB", "--storage-limit=199MB");
	PARSE_ERR("Argument --storage-limit 4294967296MB is invalid, valid range is 200MB~4294967295MB",
		  "--storage-limit=4294967296MB");
	PARSE_ERR("Argument --storage-limit 500 is invalid, valid range is 200MB~4294967295MB", "--storage-limit=500");
	PARSE_ERR("Argument --storage-limit 500mb is invalid, valid range is 200MB~4294967295MB", "--storage-limit=500mb");
	PARSE_ERR("Argument --storage-limit MB is invalid, valid range is 200MB~4294967295MB", "--storage-limit=MB");
	PARSE_ERR("Argument --storage-limit -1MB is invalid, valid range is 200MB~4294967295MB", "--storage-limit=-1MB");
	PARSE_ERR("Argument --storage-limit 00000000200MB is invalid, valid range is 200MB~4294967295MB",
		  "--storage-limit=00000000200MB");

	/* --application */
	PARSE_ERR("Argument --application: expected one argument", "--application");
	PARSE_ERR("Argument --application: expected one argument", "--application=");
	char longa[MSPROF_MAX_APP_LEN + 2];
	memset(longa, 'a', sizeof(longa) - 1);
	longa[sizeof(longa) - 1] = '\0';           /* 2049 */
	PARSE_ERR("Argument --application: expected param length less than 2048", "--application", longa);
	longa[MSPROF_MAX_APP_LEN] = '\0';
	PARSE_OK("--application", longa);

	/* --environment */
	PARSE_ERR("Argument --environment: expected one argument", "--environment");
	PARSE_ERR("Argument --environment: expected one argument", "--environment=");

	/* --type */
	PARSE_ERR("Argument --type: expected one argument", "--type");
	PARSE_ERR("Argument --type: invalid value: . Please input 'text' or 'db'.", "--type=");
	PARSE_ERR("Argument --type: invalid value: DB. Please input 'text' or 'db'.", "--type=DB");

	/* --export (msprof CheckArgOnOff) */
	PARSE_ERR("Argument --export: expected one argument,please enter a valid value.", "--export");
	PARSE_ERR("Argument --export: invalid value: yes. Please input 'on' or 'off'.", "--export=yes");
	PARSE_ERR("Argument --export: invalid value: . Please input 'on' or 'off'.", "--export=");

	/* --host-sys */
	PARSE_ERR("Argument --host-sys: expected one argument", "--host-sys");
	PARSE_ERR("Argument --host-sys is empty. Please input in the range of 'cpu|mem|disk|network|osrt'", "--host-sys=");
	PARSE_ERR("Argument --host-sys is empty. Please input in the range of 'cpu|mem|disk|network|osrt'",
		  "--host-sys=,,");
	PARSE_ERR("Argument --host-sys: invalid value:gpu. Please input in the range of 'cpu|mem|disk|network|osrt'",
		  "--host-sys=cpu,gpu,mem");
	PARSE_ERR("Argument --host-sys: invalid value:CPU. Please input in the range of 'cpu|mem|disk|network|osrt'",
		  "--host-sys=CPU");
	/* osrt: msprof's order rule; the samplers' list leaves it out */
	PARSE_ERR("If you want to use this parameter:--host-sys, please put it behind the --output or --application.",
		  "--host-sys=cpu,osrt", "--output=/tmp");
	struct msprof_opts o;
	struct diag d;
	opts_init(&o);
	CHECK(PARSE(&o, &d, "--output=/tmp", "--host-sys=osrt,cpu", "app") == 0);
	CHECK(opts_osrt(&o) && (opts_u(&o, SET_HOST_SYS) & HOST_SYS_CPU) && streq(list_of(&o, SET_HOST_SYS), "cpu"));
	CHECK(opts_u(&o, SET_OSRT_THRESHOLD) == 1000);
	opts_release(&o);
	CHECK(PARSE(&o, &d, "--application=/bin/true", "--host-sys=osrt", "--osrt-threshold=0") == 0);
	CHECK(opts_osrt(&o) && streq(list_of(&o, SET_HOST_SYS), "") && opts_u(&o, SET_OSRT_THRESHOLD) == 0);
	opts_release(&o);
	CHECK(PARSE(&o, &d, "--output=/tmp", "--host-sys=cpu", "app") == 0);
	CHECK(!opts_osrt(&o) && streq(list_of(&o, SET_HOST_SYS), "cpu"));
	opts_release(&o);
	/* --osrt-threshold (ours) */
	PARSE_OK("--output=/tmp", "--host-sys=osrt", "--osrt-threshold=1000000000", "app");
	PARSE_ERR("Argument --osrt-threshold: invalid int value: 1000000001.Please input data is in 0 to 1000000000.",
		  "--output=/tmp", "--host-sys=osrt", "--osrt-threshold=1000000001", "app");
	PARSE_ERR("Argument --osrt-threshold: invalid value: 1us.Please input an integer value in 0-1000000000.",
		  "--output=/tmp", "--host-sys=osrt", "--osrt-threshold=1us", "app");
	PARSE_ERR("Argument --osrt-threshold must be used with --host-sys=osrt.", "--output=/tmp", "--host-sys=cpu",
		  "--osrt-threshold=5", "app");
	PARSE_ERR("Argument --osrt-threshold must be used with --host-sys=osrt.", "--osrt-threshold=5", "app");

	/* --host-sys-pid */
	PARSE_ERR("Argument --host-sys-pid is empty,Please enter a valid --host-sys-pid value.", "--host-sys-pid");
	PARSE_ERR("Argument --host-sys-pid: invalid value: abc.Please input an integer value.The min value is 0.",
		  "--host-sys-pid=abc");
	PARSE_ERR("Argument --host-sys-pid: invalid value: -1.Please input an integer value.The min value is 0.",
		  "--host-sys-pid=-1");
	PARSE_ERR("Argument --host-sys-pid: invalid value: .Please input an integer value.The min value is 0.",
		  "--host-sys-pid=");
	PARSE_ERR("Argument --host-sys-pid: invalid value: 2147483648.Please input an integer value.The min value is 0.",
		  "--host-sys-pid=2147483648");
	PARSE_ERR("Argument --host-sys-pid: invalid int value: 2147483647.The process cannot be found, please enter a "
		  "correct host-sys-pid.", "--host-sys-pid=2147483647");
	PARSE_ERR("Argument --host-sys-pid: invalid int value: 0.The process cannot be found, please enter a "
		  "correct host-sys-pid.", "--host-sys-pid=0");

	/* --host-sys-usage */
	PARSE_ERR("Argument --host-sys-usage is empty. Please input in the range of 'cpu|mem'.", "--host-sys-usage");
	PARSE_ERR("Argument --host-sys-usage is empty. Please input in the range of 'cpu|mem'.", "--host-sys-usage=");
	PARSE_ERR("Argument --host-sys-usage=cpu,disk is invalid. Please input in the range of 'cpu|mem'.",
		  "--host-sys-usage=cpu,disk");
	PARSE_ERR("Argument --host-sys-usage=, is invalid. Please input in the range of 'cpu|mem'.",
		  "--host-sys-usage=,");

	/* --sys-period */
	PARSE_ERR("Argument --sys-period is empty,Please enter a valid --sys-period value.", "--sys-period");
	PARSE_ERR("Argument --sys-period: invalid value: 1s.Please input an integer value."
		  "The range of period is 1~2592000 seconds.", "--sys-period=1s");
	PARSE_ERR("Argument --sys-period: invalid value: .Please input an integer value."
		  "The range of period is 1~2592000 seconds.", "--sys-period=");
}

/* Both edges of every range, and the messages just outside. */
static void test_ranges(void)
{
	struct msprof_opts o;
	struct diag d;
	opts_init(&o);

	PARSE_ERR("Argument --host-sys-usage-freq: invalid int value: 0.Please input data is in 1 to 50.",
		  "--host-sys-usage-freq=0");
	CHECK(PARSE(&o, &d, "--host-sys-usage-freq=1") == 0 && opts_u(&o, SET_HOST_SYS_USAGE_FREQ) == 1);
	CHECK(PARSE(&o, &d, "--host-sys-usage-freq=50") == 0 && opts_u(&o, SET_HOST_SYS_USAGE_FREQ) == 50);
	PARSE_ERR("Argument --host-sys-usage-freq: invalid int value: 51.Please input data is in 1 to 50.",
		  "--host-sys-usage-freq=51");
	PARSE_ERR("Argument --host-sys-usage-freq: invalid value: 5x.Please input an integer value in 1-50.",
		  "--host-sys-usage-freq=5x");
	PARSE_ERR("Argument --host-sys-usage-freq: invalid value: .Please input an integer value in 1-50.",
		  "--host-sys-usage-freq=");
	PARSE_ERR("Argument --host-sys-usage-freq is empty, please enter a valid value.", "--host-sys-usage-freq");
	PARSE_ERR("Argument --host-sys-usage-freq: invalid int value: 99999999999999999999999.Please input data is in "
		  "1 to 50.", "--host-sys-usage-freq=99999999999999999999999");

	PARSE_ERR("Argument --host-sys-freq: invalid int value: 0.Please input data is in 1 to 1000.",
		  "--host-sys-freq=0");
	CHECK(PARSE(&o, &d, "--host-sys-freq=1") == 0 && opts_u(&o, SET_HOST_SYS_FREQ) == 1);
	CHECK(PARSE(&o, &d, "--host-sys-freq=1000") == 0 && opts_u(&o, SET_HOST_SYS_FREQ) == 1000);
	PARSE_ERR("Argument --host-sys-freq: invalid int value: 1001.Please input data is in 1 to 1000.",
		  "--host-sys-freq=1001");
	PARSE_ERR("Argument --host-sys-freq: invalid value: -5.Please input an integer value in 1-1000.",
		  "--host-sys-freq=-5");
	PARSE_ERR("Argument --host-sys-freq is empty, please enter a valid value.", "--host-sys-freq");

	PARSE_ERR("Argument --storage-limit 199MB is invalid, valid range is 200MB~4294967295MB", "--storage-limit=199MB");
	CHECK(PARSE(&o, &d, "--storage-limit=200MB") == 0 && opts_u(&o, SET_STORAGE_LIMIT) == 200);
	CHECK_STR(opts_s(&o, SET_STORAGE_LIMIT), "200MB");
	CHECK(PARSE(&o, &d, "--storage-limit=4294967295MB") == 0 && opts_u(&o, SET_STORAGE_LIMIT) == 4294967295ULL);
	PARSE_ERR("Argument --storage-limit 4294967296MB is invalid, valid range is 200MB~4294967295MB",
		  "--storage-limit=4294967296MB");
	CHECK(PARSE(&o, &d, "--storage-limit=0200MB") == 0 && opts_u(&o, SET_STORAGE_LIMIT) == 200);
	PARSE_ERR("Argument --storage-limit 200 MB is invalid, valid range is 200MB~4294967295MB",
		  "--storage-limit=200 MB");
	PARSE_ERR("Argument --storage-limit +200MB is invalid, valid range is 200MB~4294967295MB",
		  "--storage-limit=+200MB");

	PARSE_ERR("Argument --sys-period: invalid int value: 0.The range of period is 1~2592000 seconds.",
		  "--sys-period=0");
	CHECK(PARSE(&o, &d, "--sys-period=1") == 0 && o.sys_period == 1);
	CHECK(PARSE(&o, &d, "--sys-period=2592000") == 0 && o.sys_period == 2592000);
	PARSE_ERR("Argument --sys-period: invalid int value: 2592001.The range of period is 1~2592000 seconds.",
		  "--sys-period=2592001");

	/* lists: canonical order, duplicates and empty items folded */
	CHECK(PARSE(&o, &d, "--host-sys=network,cpu,,cpu,disk,mem") == 0);
	CHECK(opts_u(&o, SET_HOST_SYS) == (HOST_SYS_CPU | HOST_SYS_MEM | HOST_SYS_DISK | HOST_SYS_NETWORK));
	CHECK_STR(list_of(&o, SET_HOST_SYS), "cpu,mem,disk,network");
	CHECK(PARSE(&o, &d, "--host-sys-usage=mem,cpu") == 0);
	CHECK(opts_u(&o, SET_HOST_SYS_USAGE) == (HOST_USAGE_CPU | HOST_USAGE_MEM));
	CHECK_STR(list_of(&o, SET_HOST_SYS_USAGE), "cpu,mem");
	CHECK(PARSE(&o, &d, "--host-sys-usage=mem") == 0);
	CHECK_STR(list_of(&o, SET_HOST_SYS_USAGE), "mem");

	char pid[32];
	snprintf(pid, sizeof(pid), "--host-sys-pid=%d", (int)getpid());
	CHECK(PARSE(&o, &d, pid) == 0 && o.host_sys_pid == getpid());

	/* launch mode's default when no host option is given, and only then */
	CHECK(PARSE(&o, &d, "app") == 0);
	opts_default_host_sys(&o);
	CHECK(opts_u(&o, SET_HOST_SYS) == (HOST_SYS_CPU | HOST_SYS_MEM) && opts_u(&o, SET_HOST_SYS_USAGE) == 0);
	CHECK_STR(list_of(&o, SET_HOST_SYS), "cpu,mem");
	CHECK(PARSE(&o, &d, "--host-sys-usage=mem", "app") == 0);
	opts_default_host_sys(&o);
	CHECK(opts_u(&o, SET_HOST_SYS) == 0 && streq(list_of(&o, SET_HOST_SYS), ""));
	CHECK(PARSE(&o, &d, "--host-sys=disk", "app") == 0);
	opts_default_host_sys(&o);
	CHECK_STR(list_of(&o, SET_HOST_SYS), "disk");
	opts_release(&o);
}

static void test_forbidden_chars(void)
{
	const char bad[] = "\n\f\r\b\t\v\x7f\"'\\%><|&$;`";
	for (const char *c = bad; *c; c++) {
		char path[32];
		snprintf(path, sizeof(path), "/tmp/x%cy", *c);
		CHECK(path_has_forbidden_char(path));
		char arg[48], want[96];
		snprintf(arg, sizeof(arg), "--output=%s", path);
		snprintf(want, sizeof(want), "Argument --output %s contains invalid character.", path);
		PARSE_ERR(want, arg);
	}
	CHECK(!path_has_forbidden_char("/tmp/ok-dir_1.2/@x+y=z,w:v~ #!"));
}

/* Mode selection and msprof's white/black/necessary sets. */
static int select_for(struct diag *d, const struct mode_def **m, char **argv)
{
	struct msprof_opts o;
	opts_init(&o);
	int r = parse_argv(&o, d, argv);
	if (r == 0)
		r = mode_select(&o, m, d);
	opts_release(&o);
	return r;
}
#define SELECT(d, m, ...) select_for((d), (m), (char *[]){ "msprof", __VA_ARGS__, NULL })

static void test_modes(void)
{
	struct diag d;
	const struct mode_def *m;
	char pid[32];
	snprintf(pid, sizeof(pid), "--host-sys-pid=%d", (int)getpid());

	CHECK(SELECT(&d, &m, "--type=db", "--host-sys=cpu", "--host-sys-usage=cpu", "--host-sys-freq=100",
		     "--environment=A=1", "--storage-limit=300MB", "--output=/tmp", "app") == 0);
	CHECK(m->id == MODE_LAUNCH && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--application=app") == 0 && m->id == MODE_LAUNCH);

	/* options other modes use are "useless" with an application */
	CHECK(SELECT(&d, &m, "--export=on", pid, "--sys-period=5", "app") == 0 && m->id == MODE_LAUNCH);
	CHECK(d.n_warn == 1);
	CHECK_STR(d.warn[0], "The argument --export --sys-period --host-sys-pid is useless when --application is not empty");

	/* host-sys: needs --output and a pid */
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys=cpu", pid) == 0 && m->id == MODE_HOST_SYS);
	CHECK(d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--host-sys=cpu", pid) == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --host-sys is not empty");
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys=cpu,mem") == -EINVAL);
	CHECK_STR(d.error, "The argument --host-sys-pid are required when app is empty and --host-sys is on.");
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys=cpu", pid, "--environment=A=1", "--sys-period=3") == 0);
	CHECK(m->id == MODE_HOST_SYS && d.n_warn == 1);
	CHECK_STR(d.warn[0], "The argument --environment is useless when --host-sys is not empty");

	/* host-sys-usage: no pid needed */
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys-usage=cpu,mem", "--host-sys-usage-freq=10") == 0);
	CHECK(m->id == MODE_HOST_SYS_USAGE && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--host-sys-usage=cpu") == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --host-sys-usage is not empty");
	/* host-sys has the priority */
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys-usage=cpu", "--host-sys=mem", pid) == 0);
	CHECK(m->id == MODE_HOST_SYS);

	/* export */
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp") == 0 && m->id == MODE_EXPORT && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--type=text") == 0 && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--export=on") == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --export is not empty");
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--environment=A=1") == 0);
	CHECK_STR(d.warn[0], "The argument --environment is useless when --export is not empty");
	/* --type=db narrows the sets and renames the key (msprof ExportMode) */
	CHECK(SELECT(&d, &m, "--export=on", "--type=db") == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --export and --type is not empty");
	CHECK(SELECT(&d, &m, "--export=on", "--type=db", "--output=/tmp", "--storage-limit=300MB") == 0);
	CHECK_STR(d.warn[0], "The argument --storage-limit is useless when --export and --type is not empty");

	/* export's own options, and what --type=db forbids of them */
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--model-id=4294967295", "--iteration-id=3",
		     "--summary-format=json", "--clear=on", "--reports=/tmp/r.json", "--python-path=python3") == 0);
	CHECK(m->id == MODE_EXPORT && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--model-id=1") == -EINVAL);
	CHECK_STR(d.error, "Please set 'model-id' and 'iteration-id' simultaneously.");
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--iteration-id=1") == -EINVAL);
	CHECK_STR(d.error, "Please set 'model-id' and 'iteration-id' simultaneously.");
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--type=db", "--summary-format=csv") == -EINVAL);
	CHECK_STR(d.error, "The argument --summary-format is forbidden when --export and --type is not empty");
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--type=db", "--clear=on", "--reports=/r") == -EINVAL);
	CHECK_STR(d.error, "The argument --reports --clear is forbidden when --export and --type is not empty");
	CHECK(SELECT(&d, &m, "--export=on", "--output=/tmp", "--rule=communication") == -EINVAL);
	CHECK_STR(d.error, "The argument --rule is forbidden when --export is not empty");
	CHECK(SELECT(&d, &m, "--export=on", "--analyze=on", "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "The argument --analyze is forbidden when --export is not empty");

	/* parse, query, analyze: msprof's priority parse > query > export > analyze */
	CHECK(SELECT(&d, &m, "--parse=on", "--output=/tmp") == 0 && m->id == MODE_PARSE && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--parse=on") == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --parse is not empty");
	CHECK(SELECT(&d, &m, "--parse=on", "--output=/tmp", "--clear=on") == -EINVAL);
	CHECK_STR(d.error, "The argument --clear is forbidden when --parse is not empty");
	CHECK(SELECT(&d, &m, "--parse=on", "--export=on", "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "The argument --export is forbidden when --parse is not empty");
	CHECK(SELECT(&d, &m, "--parse=on", "--output=/tmp", "--type=db") == 0);
	CHECK_STR(d.warn[0], "The argument --type is useless when --parse is not empty");
	CHECK(SELECT(&d, &m, "--query=on", "--output=/tmp") == 0 && m->id == MODE_QUERY && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--query=on", "--export=on", "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "The argument --export is forbidden when --query is not empty");
	CHECK(SELECT(&d, &m, "--query=on", "--output=/tmp", "--rule=communication") == -EINVAL);
	CHECK_STR(d.error, "The argument --rule is forbidden when --query is not empty");
	CHECK(SELECT(&d, &m, "--analyze=on", "--output=/tmp", "--rule=communication,communication_matrix",
		     "--clear=on", "--type=db") == 0);
	CHECK(m->id == MODE_ANALYZE && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--analyze=on") == -EINVAL);
	CHECK_STR(d.error, "The argument --output is neccessary when --analyze is not empty");
	CHECK(SELECT(&d, &m, "--analyze=on", "--output=/tmp", "--model-id=1") == 0);
	CHECK_STR(d.warn[0], "The argument --model-id is useless when --analyze is not empty");

	/* the values */
	PARSE_ERR("Argument --rule: invalid value: comm. Please input 'communication' or 'communication_matrix'.", "--rule=comm");
	PARSE_ERR("Argument --summary-format: invalid value: xml. Please input 'csv' or 'json'.", "--summary-format=xml");
	PARSE_ERR("Argument --clear: invalid value: yes. Please input 'on' or 'off'.", "--clear=yes");
	PARSE_ERR("Argument --parse: invalid value: 1. Please input 'on' or 'off'.", "--parse=1");
	PARSE_ERR("Argument --model-id: invalid value: 4294967296.Please input an integer value in 0-4294967295.", "--model-id=4294967296");
	PARSE_ERR("Argument --iteration-id: invalid value: x.Please input an integer value in 0-4294967295.", "--iteration-id=x");

	/* nothing to do */
	CHECK(SELECT(&d, &m, "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "No valid argument found in --application --sys-devices --host-sys --host-sys-usage --parse --query --export --analyze");
	CHECK(d.hint && !d.usage);
	CHECK(SELECT(&d, &m, "--export=off", "--output=/tmp") == -EINVAL);
	CHECK(SELECT(&d, &m, pid, "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "No valid argument found in --application --sys-devices --host-sys --host-sys-usage --parse --query --export --analyze");

	/* the names list is in msprof's enum order */
	char names[256];
	opts_names(OPT_BIT(OPT_HOST_SYS_USAGE) | OPT_BIT(OPT_OUTPUT) | OPT_BIT(OPT_EXPORT), names, sizeof(names));
	CHECK_STR(names, "--output --export --host-sys-usage");
}

static void test_help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	opts_print_help(f);
	fclose(f);
	CHECK(startswith(buf, "\nUsage:\n      ./msprof [--options]\n\nOptions:\n"));
	CHECK(strstr(buf, "\n      --output                          <Optional> Specify the directory that is used "
			  "for storing data results.\n") != NULL);
	CHECK(strstr(buf, "\n      --host-sys-usage-freq             <Optional> The sampling frequency") != NULL);
	/* msprof lists --help last */
	const char *last = "      --help                            <Optional> help message.\n";
	CHECK(len >= strlen(last) && streq(buf + len - strlen(last), last));
	/* every option of the table, each on a line of its own */
	for (unsigned i = 0; i < _OPT_MAX; i++) {
		const struct opt_def *def = opt_get((enum opt_id)i);
		if (!def) /* a derived setting */
			continue;
		char line[64];
		snprintf(line, sizeof(line), "\n      --%-32s<Optional> ", def->name);
		CHECK(strstr(buf, line) != NULL);
		CHECK(def->id == i);
	}
	free(buf);
}

/* --- files: application, environment, output ----------------------------- */

static char tmpdir[PATH_MAX];

static void write_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, "#!/bin/sh\n", 10) == 10);
		close(fd);
		chmod(path, mode);
	}
}

static void test_app(void)
{
	struct msprof_opts o;
	struct diag d;
	struct app_cmd a = { 0 };
	char exe[PATH_MAX + 16], noexec[PATH_MAX + 16], sub[PATH_MAX + 16], want[2 * PATH_MAX];
	opts_init(&o);

	snprintf(exe, sizeof(exe), "%s/tool", tmpdir);
	snprintf(noexec, sizeof(noexec), "%s/data", tmpdir);
	snprintf(sub, sizeof(sub), "%s/sub", tmpdir);
	write_file(exe, 0755);
	write_file(noexec, 0644);
	CHECK(mkdir(sub, 0755) == 0);

	CHECK(PARSE(&o, &d, exe, "a1", "a2") == 0);
	CHECK(app_resolve(&o, &a, &d) == 0);
	CHECK_STR(a.path, exe);
	CHECK_STR(a.name, "tool");
	CHECK(a.argv[0] == o.app_argv[0] && streq(a.argv[2], "a2") && a.argv[3] == NULL);
	app_cmd_release(&a);

	/* bare names through PATH; argv[0] stays as written */
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char newpath[2 * PATH_MAX];
	snprintf(newpath, sizeof(newpath), "/nonexistent:%s", tmpdir);
	setenv("PATH", newpath, 1);
	CHECK(PARSE(&o, &d, "tool", "x") == 0);
	CHECK(app_resolve(&o, &a, &d) == 0);
	CHECK_STR(a.path, exe);
	CHECK_STR(a.argv[0], "tool");
	app_cmd_release(&a);
	CHECK(PARSE(&o, &d, "no-such-tool-here") == 0);
	CHECK(app_resolve(&o, &a, &d) < 0);
	CHECK_STR(d.error, "App path(no-such-tool-here) does not exist or permission denied!!!");
	CHECK(PARSE(&o, &d, "data") == 0);
	CHECK(app_resolve(&o, &a, &d) < 0);
	snprintf(want, sizeof(want), "This app(%s) has no executable permission!", noexec);
	CHECK_STR(d.error, want);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);

	/* --application: split on blanks, wins, app_dir for the output */
	char spec[PATH_MAX + 64];
	snprintf(spec, sizeof(spec), "--application=%s  one\ttwo ", exe);
	CHECK(PARSE(&o, &d, spec, "/bin/false") == 0);
	CHECK(app_resolve(&o, &a, &d) == 0);
	CHECK_STR(a.path, exe);
	CHECK(streq(a.argv[1], "one") && streq(a.argv[2], "two") && a.argv[3] == NULL);
	char *out = NULL;
	unsetenv("ASCEND_WORK_PATH");
	CHECK(output_prepare(&o, &a, &out, &d) == 0);
	CHECK_STR(out, tmpdir);
	free(out);
	app_cmd_release(&a);

	/* the checks, in msprof's order: exists, executable, not a directory */
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof(missing), "%s/missing", tmpdir);
	CHECK(PARSE(&o, &d, missing) == 0);
	CHECK(app_resolve(&o, &a, &d) == -ENOENT);
	snprintf(want, sizeof(want), "App path(%s) does not exist or permission denied!!!", missing);
	CHECK_STR(d.error, want);
	CHECK(PARSE(&o, &d, noexec) == 0);
	CHECK(app_resolve(&o, &a, &d) == -EACCES || getuid() == 0);
	if (getuid() != 0) {
		snprintf(want, sizeof(want), "This app(%s) has no executable permission!", noexec);
		CHECK_STR(d.error, want);
	}
	CHECK(PARSE(&o, &d, sub) == 0);
	CHECK(app_resolve(&o, &a, &d) == -EISDIR);
	snprintf(want, sizeof(want), "Argument --application:%s is a directory, please enter the executable file path.", sub);
	CHECK_STR(d.error, want);

	/* a relative path is made absolute */
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(chdir(tmpdir) == 0);
	CHECK(PARSE(&o, &d, "./tool") == 0);
	CHECK(app_resolve(&o, &a, &d) == 0);
	snprintf(want, sizeof(want), "%s/./tool", tmpdir);
	CHECK_STR(a.path, want);
	CHECK_STR(a.dir, tmpdir);
	app_cmd_release(&a);
	CHECK(chdir(cwd) == 0);
	opts_release(&o);
}

static void test_env(void)
{
	char *base[] = { "PATH=/bin", "A=old", "AB=keep", NULL };
	char **env = NULL;
	struct diag d = { 0 };

	CHECK(app_env_build(base, "A=new;C=3;;bad;=x;D=a=b", &env, &d) == 0);
	CHECK_STR(strv_env_get(env, "A"), "new");
	CHECK_STR(strv_env_get(env, "AB"), "keep");
	CHECK_STR(strv_env_get(env, "C"), "3");
	CHECK_STR(strv_env_get(env, "D"), "a=b");
	CHECK_STR(strv_env_get(env, "PATH"), "/bin");
	CHECK(strv_env_get(env, "bad") == NULL);
	size_t n = 0;
	while (env[n])
		n++;
	CHECK(n == 5);
	CHECK(d.n_warn == 2);
	CHECK_STR(d.warn[0], "Invalid app_env params bad");
	CHECK_STR(d.warn[1], "Invalid app_env params =x");
	strv_free(env);

	d = (struct diag){ 0 };
	CHECK(app_env_build(base, NULL, &env, &d) == 0);
	CHECK(env[3] == NULL && streq(env[1], "A=old") && d.n_warn == 0);
	strv_free(env);
}

static void test_output(void)
{
	struct msprof_opts o;
	struct diag d;
	char arg[2 * PATH_MAX + 64], want[2 * PATH_MAX + 64], path[PATH_MAX + 32];
	char *out = NULL;
	opts_init(&o);

	/* made with its parents */
	snprintf(path, sizeof(path), "%s/o/p/q", tmpdir);
	snprintf(arg, sizeof(arg), "--output=%s", path);
	CHECK(PARSE(&o, &d, arg, "app") == 0);
	CHECK(output_prepare(&o, NULL, &out, &d) == 0);
	CHECK_STR(out, path);
	free(out);
	out = NULL;
	struct stat st;
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));

	/* a file in the way */
	char file[PATH_MAX + 16];
	snprintf(file, sizeof(file), "%s/data", tmpdir);
	snprintf(arg, sizeof(arg), "--output=%s", file);
	CHECK(PARSE(&o, &d, arg, "app") == 0);
	CHECK(output_prepare(&o, NULL, &out, &d) < 0);
	snprintf(want, sizeof(want), "Argument --output %s is not a dir.", file);
	CHECK_STR(d.error, want);
	snprintf(arg, sizeof(arg), "--output=%s/below", file);
	CHECK(PARSE(&o, &d, arg, "app") == 0);
	CHECK(output_prepare(&o, NULL, &out, &d) < 0);
	CHECK_STR(d.error, "Create output dir failed.ErrorCode: 20, ErrorInfo: Not a directory.");

	/* $ASCEND_WORK_PATH/profiling_data, then the current directory */
	setenv("ASCEND_WORK_PATH", tmpdir, 1);
	CHECK(PARSE(&o, &d, "app") == 0);
	CHECK(output_prepare(&o, NULL, &out, &d) == 0);
	snprintf(want, sizeof(want), "%s/profiling_data", tmpdir);
	CHECK_STR(out, want);
	free(out);
	out = NULL;
	unsetenv("ASCEND_WORK_PATH");
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(chdir(path) == 0);
	CHECK(output_prepare(&o, NULL, &out, &d) == 0);
	CHECK_STR(out, path);
	free(out);
	out = NULL;
	CHECK(chdir(cwd) == 0);

	/* export: must exist, no symlink */
	snprintf(arg, sizeof(arg), "--output=%s/none", tmpdir);
	CHECK(PARSE(&o, &d, "--export=on", arg) == 0);
	CHECK(output_check_analysis(&o, &out, &d) < 0);
	snprintf(want, sizeof(want), "Analysis output path(%s/none) does not exist.", tmpdir);
	CHECK_STR(d.error, want);
	char link[PATH_MAX + 16];
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	CHECK(symlink(path, link) == 0);
	snprintf(arg, sizeof(arg), "--output=%s/", link);
	CHECK(PARSE(&o, &d, "--export=on", arg) == 0);
	CHECK(output_check_analysis(&o, &out, &d) < 0);
	snprintf(want, sizeof(want), "Analysis output path(%s/) is soft link.", link);
	CHECK_STR(d.error, want);
	snprintf(arg, sizeof(arg), "--output=%s", path);
	CHECK(PARSE(&o, &d, "--export=on", arg) == 0);
	CHECK(output_check_analysis(&o, &out, &d) == 0);
	CHECK_STR(out, path);
	free(out);

	d = (struct diag){ 0 };
	CHECK(output_check_space(tmpdir, &d) == 0);   /* a test machine has 20 MB */
	opts_release(&o);
}


/* --- dynamic mode, --delay/--duration, the agent options ------------------- */

static void test_dynamic_options(void)
{
	struct msprof_opts o;
	struct diag d;
	char self[32], pid_self[48], both[96], want[256];
	opts_init(&o);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	snprintf(pid_self, sizeof(pid_self), "--pid=%s", self);

	/* option values (msprof CheckArgOnOff, CheckArgRange) */
	PARSE_ERR("Argument --dynamic: invalid value: yes. Please input 'on' or 'off'.", "--dynamic=yes", "app");
	PARSE_ERR("Argument --dynamic: expected one argument,please enter a valid value.", "--dynamic");
	PARSE_ERR("Argument --pid: expected one argument,please enter a valid value.", "--dynamic=on", "--pid");
	PARSE_ERR("Argument --msproftx: invalid value: 1. Please input 'on' or 'off'.", "--msproftx=1", "app");
	PARSE_ERR("Argument --mstx-domain-include: expected one argument,please enter a valid value.",
		  "--mstx-domain-include");
	PARSE_ERR("Argument --mstx-domain-exclude: expected one argument,please enter a valid value.",
		  "--mstx-domain-exclude");
	PARSE_ERR("Argument --sys-cpu-profiling: invalid value: 2. Please input 'on' or 'off'.",
		  "--sys-cpu-profiling=2", "app");
	PARSE_ERR("Argument --sys-devices is empty,Please enter a valid --sys-devices value.", "--sys-devices=");
	PARSE_ERR("Argument --sys-devices: invalid value: x.Please input a valid device id.", "--sys-devices=0,x");
	PARSE_OK("--sys-devices=all", "app");
	PARSE_OK("--sys-devices=0,1", "app");

	/* CheckDynProfValid, in msprof's order */
	PARSE_ERR("Argument --dynamic=off, but --pid is set.", pid_self);
	PARSE_ERR("Argument --dynamic=off, but --pid is set.", "--dynamic=off", pid_self, "app");
	PARSE_OK("--dynamic=off", "--pid=", "app");   /* an empty --pid is no --pid */
	PARSE_ERR("Argument --dynamic=on, but --application/--pid is all empty.", "--dynamic=on");
	PARSE_ERR("Argument --dynamic=on, but --application/--pid is all empty.", "--dynamic=on", "--pid=");
	PARSE_ERR("Argument --dynamic=on, can not set --application/--pid at the same time.",
		  "--dynamic=on", pid_self, "app");
	PARSE_ERR("Argument --dynamic=on, can not set --application/--pid at the same time.",
		  "--dynamic=on", pid_self, "--application=app");
	PARSE_ERR("Argument --dynamic and --sys-devices cannot be configured at the same time.",
		  "--dynamic=on", "--sys-devices=all", "app");
	PARSE_ERR("Argument --dynamic and --sys-period cannot be configured at the same time.",
		  "--dynamic=on", "--sys-period=5", pid_self);
	PARSE_ERR("Argument --dynamic and --sys-cpu-profiling cannot be configured at the same time.",
		  "--dynamic=on", "--sys-cpu-profiling=off", "app");
	PARSE_ERR("Argument --dynamic and --delay cannot be configured at the same time.",
		  "--delay=1", "--dynamic=on", "app");
	PARSE_ERR("Argument --dynamic and --duration cannot be configured at the same time.",
		  "--dynamic=on", "--duration=1", "app");

	/* --pid lists (msprof CheckDynaProfPidValid) */
	PARSE_ERR("Argument --pid: invalid non-numeric pid value: abc,x1, stop profiling.",
		  "--dynamic=on", "--pid=12,abc,,x1");
	PARSE_ERR("Argument --pid: invalid non-numeric pid value: 99999999999, stop profiling.",
		  "--dynamic=on", "--pid=99999999999");
	CHECK(PARSE(&o, &d, "--dynamic=on", "--pid=2147483647,0") == -EINVAL);
	CHECK_STR(d.error, "Argument --pid: no valid pid values, stop profiling.");
	CHECK(d.n_warn == 2);
	CHECK_STR(d.warn[0], "process 2147483647 does not exist");
	CHECK_STR(d.warn[1], "process 0 does not exist");
	PARSE_ERR("Argument --pid: no valid pid values, stop profiling.", "--dynamic=on", "--pid=,,");

	snprintf(both, sizeof(both), "--pid=%s,2147483647,-5,%s", self, self);
	CHECK(PARSE(&o, &d, "--dynamic=on", both) == 0);
	CHECK(o.n_pids == 1 && o.pids[0] == getpid());
	CHECK(d.n_warn == 3);
	CHECK_STR(d.warn[0], "process 2147483647 does not exist");
	CHECK_STR(d.warn[1], "process -5 does not exist");
	CHECK_STR(d.warn[2], "Argument --pid: invalid pid value: 2147483647,-5, will not collect profiling data for "
		  "these process.");
	snprintf(both, sizeof(both), "--pid=%d,%s", (int)getppid(), self);
	CHECK(PARSE(&o, &d, "--dynamic", "on", both) == 0);
	CHECK(o.n_pids == 2 && o.pids[0] == getppid() && o.pids[1] == getpid() && d.n_warn == 0);
	CHECK(o.dynamic);

	/* what "attachable" means */
	char why[160];
	CHECK(pid_attachable(getpid(), why, sizeof(why)));
	CHECK(!pid_attachable(2147483647, why, sizeof(why)));
	CHECK_STR(why, "process 2147483647 does not exist");
	pid_t zombie = fork();
	if (zombie == 0)
		_exit(0);
	CHECK(zombie > 0);
	for (int i = 0; i < 1000; i++) {   /* until the kernel has made it a zombie */
		char path[64], st[256];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)zombie);
		FILE *f = fopen(path, "re");
		bool z = f && fgets(st, sizeof(st), f) && strstr(st, ") Z ");
		if (f)
			fclose(f);
		if (z)
			break;
		usleep(1000);
	}
	CHECK(!pid_attachable(zombie, why, sizeof(why)));
	snprintf(want, sizeof(want), "process %d has exited", (int)zombie);
	CHECK_STR(why, want);
	waitpid(zombie, NULL, 0);
	if (geteuid() != 0) {
		CHECK(!pid_attachable(1, why, sizeof(why)));
		CHECK(strstr(why, "process 1 belongs to uid 0, not to uid ") == why);
	}

	/* CheckMstxValid */
	PARSE_ERR("Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on.",
		  "--mstx-domain-include=a", "app");
	PARSE_ERR("Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on.",
		  "--msproftx=off", "--mstx-domain-exclude=default", "app");
	PARSE_ERR("Argument --mstx-domain-include and --mstx-domain-exclude cannot be used at the same time.",
		  "--msproftx=on", "--mstx-domain-include=a", "--mstx-domain-exclude=b", "app");
	PARSE_OK("--mstx-domain-include=", "app");   /* empty: as not given */
	CHECK(PARSE(&o, &d, "--msproftx=on", "--mstx-domain-include=default,d1", "app") == 0);
	CHECK(opts_u(&o, SET_MSPROFTX) && streq(opts_s(&o, SET_MSTX_DOMAIN_INCLUDE), "default,d1") &&
	      !opts_s(&o, SET_MSTX_DOMAIN_EXCLUDE));
	/* the dynamic checks come first */
	PARSE_ERR("Argument --dynamic=on, but --application/--pid is all empty.", "--dynamic=on",
		  "--mstx-domain-include=a");

	/* --step-range=A-B and --ranks (ours) */
	CHECK(PARSE(&o, &d, "--msproftx=on", "--step-range=2-4", "--ranks=0,2", "app") == 0);
	CHECK(streq(opts_s(&o, SET_STEP_RANGE), "2-4") && streq(opts_s(&o, SET_RANKS), "0,2"));
	PARSE_OK("--msproftx=on", "--step-range=0-1", "app");
	PARSE_OK("--msproftx=on", "--step-range=0-9223372036854775807", "--ranks=1000000", "app");
	PARSE_ERR("Argument --step-range must be used with --msproftx=on.", "--step-range=2-4", "app");
	PARSE_OK("--msproftx=off", "--ranks=0", "app"); /* --ranks limits all collection */
	PARSE_ERR("Argument --step-range: expected one argument,please enter a valid value.", "--msproftx=on",
		  "--step-range=", "app");
	PARSE_ERR("Argument --step-range is invalid: '4-2', the start step must be less than the end step, both "
		  "at most 9223372036854775807.", "--msproftx=on", "--step-range=4-2", "app");
	PARSE_ERR("Argument --step-range is invalid: '3-3', the start step must be less than the end step, both "
		  "at most 9223372036854775807.", "--msproftx=on", "--step-range=3-3", "app");
	PARSE_ERR("Argument --step-range is invalid: '0-9223372036854775808', the start step must be less than "
		  "the end step, both at most 9223372036854775807.", "--msproftx=on",
		  "--step-range=0-9223372036854775808", "app");
	static const char *const bad_ranges[] = { "2", "-1-3", "2-", "a-b", "2-4x", " 2-4", "2 -4", "+2-4", "2--4" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_ranges); i++) {
		char arg[64], wmsg[160];
		snprintf(arg, sizeof arg, "--step-range=%s", bad_ranges[i]);
		snprintf(wmsg, sizeof wmsg, "Argument --step-range is invalid: '%s', expected A-B (steps A to B-1, "
			 "non-negative integers), e.g. 2-4.", bad_ranges[i]);
		PARSE_ERR(wmsg, "--msproftx=on", arg, "app");
	}
	PARSE_ERR("Argument --ranks: expected one argument,please enter a valid value.", "--msproftx=on",
		  "--ranks=", "app");
	PARSE_ERR("Argument --ranks is invalid: '1000001', a rank must be in range 0 ~ 1000000.", "--msproftx=on",
		  "--ranks=1000001", "app");
	static const char *const bad_ranks[] = { "a", "0,", ",0", "0,,2", "-1", "0 2", "0;2" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_ranks); i++) {
		char arg[64], wmsg[160];
		snprintf(arg, sizeof arg, "--ranks=%s", bad_ranks[i]);
		snprintf(wmsg, sizeof wmsg, "Argument --ranks is invalid: '%s', expected comma-separated ranks, e.g. 0,2.",
			 bad_ranks[i]);
		PARSE_ERR(wmsg, "--msproftx=on", arg, "app");
	}
	{
		/* IPC_RANKS_MAX ranks pass, one more does not */
		char arg[8 + 2 * 1025 + 1] = "--ranks=";
		for (int i = 0; i < 1024; i++)
			strcat(arg, i ? ",0" : "0");
		PARSE_OK("--msproftx=on", arg, "app");
		strcat(arg, ",0");
		PARSE_ERR("Argument --ranks is invalid: more than 1024 ranks.", "--msproftx=on", arg, "app");
	}

	/* --delay and --duration: 1 to 4294967295 seconds */
	PARSE_ERR("Argument --delay: invalid int value: 0.Please input data is in 1 to 4294967295.", "--delay=0", "app");
	CHECK(PARSE(&o, &d, "--delay=1", "app") == 0 && o.delay_s == 1);
	CHECK(PARSE(&o, &d, "--delay=4294967295", "--duration=4294967295", "app") == 0);
	CHECK(o.delay_s == 4294967295U && o.duration_s == 4294967295U);
	PARSE_ERR("Argument --delay: invalid int value: 4294967296.Please input data is in 1 to 4294967295.",
		  "--delay=4294967296", "app");
	PARSE_ERR("Argument --duration: invalid int value: 0.Please input data is in 1 to 4294967295.",
		  "--duration=0", "app");
	PARSE_ERR("Argument --duration: invalid value: 2s.Please input an integer value in 1-4294967295.",
		  "--duration=2s", "app");
	PARSE_ERR("Argument --delay is empty, please enter a valid value.", "--delay");

	/* --list (ours) */
	PARSE_ERR("Argument --list must be used with --dynamic=on.", "--list");
	PARSE_ERR("Argument --list must be used with --dynamic=on.", "--dynamic=off", "--list");
	PARSE_ERR("Argument --list cannot be used with --application/--pid.", "--dynamic=on", "--list", "app");
	PARSE_ERR("Argument --list cannot be used with --application/--pid.", "--dynamic=on", "--list", pid_self);
	CHECK(PARSE(&o, &d, "--dynamic=on", "--list") == 0 && o.list);
	CHECK(PARSE(&o, &d, "--list=1") == -EINVAL);
	CHECK_STR(d.error, "msprof: option '--list' doesn't allow an argument");

	/* --flight-recorder, --dump-on, --dump (ours: common/flight-recorder.h) */
	CHECK(PARSE(&o, &d, "--flight-recorder=60s,512MB", "app") == 0);
	CHECK(PARSE(&o, &d, "--flight-recorder=1GB,2h", "--dump-on=slow-step:2.5,hang:10m,exit", "app") == 0);
	CHECK(PARSE(&o, &d, "--flight-recorder=16MB", "--dump-on=none", "app") == 0);
	static const char *const bad_fr[] = { "60", "0s", "31d", "60s,60s", "512MB,1GB", "15MB", "60s,", ",60s",
					      "721h", "1TB", "-5s", "60 s", "" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_fr); i++) {
		char arg[64];
		snprintf(arg, sizeof arg, "--flight-recorder=%s", bad_fr[i]);
		CHECK(PARSE(&o, &d, arg, "app") == -EINVAL || (fprintf(stderr, "taken: %s\n", arg), 0));
	}
	static const char *const bad_on[] = { "slow-step:1", "slow-step:1.05", "slow-step:2.", "slow-step:1001",
					      "hang:0s", "hang:8d", "hang:169h", "exit,exit", "crash", "exit,", "none,exit",
					      "slow-step:", "" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_on); i++) {
		char arg[64];
		snprintf(arg, sizeof arg, "--dump-on=%s", bad_on[i]);
		CHECK(PARSE(&o, &d, "--flight-recorder=60s", arg, "app") == -EINVAL ||
		      (fprintf(stderr, "taken: %s\n", arg), 0));
	}
	PARSE_ERR("Argument --dump-on must be used with --flight-recorder.", "--dump-on=exit", "app");
	CHECK(PARSE(&o, &d, "--flight-recorder=60s", "--dynamic=on", "app") == 0);
	PARSE_ERR("Argument --flight-recorder and --schedule cannot be configured at the same time.",
		  "--flight-recorder=60s", "--schedule=active=2", "app");
	char two[96];
	snprintf(two, sizeof two, "--pid=%s,%d", self, (int)getppid());
	PARSE_ERR("Argument --dump takes one --pid, any process of the job.", "--dump", two);
	CHECK(PARSE(&o, &d, "--dump", pid_self) == 0 && o.dump && o.n_pids == 1);

	/* getopt prefixes among the new names */
	CHECK(PARSE(&o, &d, "--d=on", "app") == -EINVAL);
	CHECK_STR(d.error, "msprof: option '--d=on' is ambiguous; possibilities: '--dynamic' '--delay' '--duration' "
		  "'--dump' '--dump-on' '--dvpp-profiling' '--dvpp-freq'");
	CHECK(PARSE(&o, &d, "--dyn=on", "--pi", self) == 0 && o.dynamic && o.n_pids == 1);
	opts_release(&o);
}

static void test_dynamic_modes(void)
{
	struct diag d;
	const struct mode_def *m;
	char pid_self[48], host_pid[48];
	snprintf(pid_self, sizeof(pid_self), "--pid=%d", (int)getpid());
	snprintf(host_pid, sizeof(host_pid), "--host-sys-pid=%d", (int)getpid());

	CHECK(SELECT(&d, &m, "--dynamic=on", "--output=/tmp", "--host-sys=cpu", "--msproftx=on",
		     "--mstx-domain-exclude=x", "--type=db", "app") == 0);
	CHECK(m->id == MODE_DYNAMIC && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--dynamic=on", pid_self, "--storage-limit=300MB", "--host-sys-usage=cpu") == 0);
	CHECK(m->id == MODE_DYNAMIC && d.n_warn == 0);
	/* msprof's AppMode key in the messages */
	CHECK(SELECT(&d, &m, "--dynamic=on", pid_self, host_pid, "--export=on") == 0 && m->id == MODE_DYNAMIC);
	CHECK(d.n_warn == 1);
	CHECK_STR(d.warn[0], "The argument --export --host-sys-pid is useless when --application is not empty");
	CHECK(SELECT(&d, &m, "--dynamic=on", "--list") == 0 && m->id == MODE_LIST && d.n_warn == 0);
	CHECK(SELECT(&d, &m, "--dynamic=on", "--list", "--output=/tmp") == 0 && m->id == MODE_LIST);
	CHECK_STR(d.warn[0], "The argument --output is useless when --list is not empty");

	/* launch mode takes --dynamic=off, the delay and the agent options */
	CHECK(SELECT(&d, &m, "--dynamic=off", "--delay=2", "--duration=3", "--msproftx=on",
		     "--mstx-domain-include=a", "app") == 0);
	CHECK(m->id == MODE_LAUNCH && d.n_warn == 0);
	/* system mode's options are useless with an application; the NPU's
	 * CPU data is warned about where it is given */
	CHECK(SELECT(&d, &m, "--sys-devices=all", "--sys-cpu-profiling=on", "app") == 0 && m->id == MODE_LAUNCH);
	CHECK(d.n_warn == 2);
	CHECK_STR(d.warn[0], "Argument --sys-cpu-profiling=on is ignored: it asks for AI CPU, Ctrl CPU and TS CPU data, "
		  "which only an Ascend NPU has.");
	CHECK_STR(d.warn[1], "The argument --sys-devices --sys-cpu-profiling is useless when --application is not empty");
	/* without an application they are useless as well */
	CHECK(SELECT(&d, &m, "--output=/tmp", "--host-sys=cpu", host_pid, "--delay=1", "--msproftx=on") == 0);
	CHECK(m->id == MODE_HOST_SYS);
	CHECK_STR(d.warn[0], "The argument --delay --msproftx is useless when --host-sys is not empty");
	/* --sys-devices without an application: msprof's system mode */
	CHECK(SELECT(&d, &m, "--sys-devices=0", "--output=/tmp") == -EINVAL);
	CHECK_STR(d.error, "The argument --sys-period is neccessary when --sys-devices is not empty");
	CHECK(SELECT(&d, &m, "--sys-devices=all", "--sys-period=2", "--sys-hardware-mem=on") == 0);
	CHECK(m->id == MODE_SYSTEM && d.n_warn == 0);
}

static void test_agent_env(void)
{
	char *base[] = { "PATH=/bin", "PROFILING_MODE=true", "LD_PRELOAD=/lib/a.so /lib/b.so", NULL };
	char **env = NULL;
	struct msprof_opts o;
	struct diag d = { 0 };
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	opts_init(&o);

	/* dynamic launch: msprof's variables replace the user's */
	CHECK(PARSE(&o, &d, "--dynamic=on", "--environment=PROFILING_MODE=x;K=v", "app") == 0);
	CHECK(app_env_for(base, &o, "/opt/agent/libmsprof_agent.so", &env, &d) == 0);
	CHECK_STR(strv_env_get(env, "PROFILING_MODE"), "dynamic");
	CHECK_STR(strv_env_get(env, "DYNAMIC_PROFILING_KEY_PID"), pid);
	CHECK_STR(strv_env_get(env, "K"), "v");
	CHECK_STR(strv_env_get(env, "LD_PRELOAD"), "/lib/a.so /lib/b.so:/opt/agent/libmsprof_agent.so");
	CHECK_STR(strv_env_get(env, "MSTX_INJECTION_PATH"), "/opt/agent/libmsprof_agent.so");
	CHECK_STR(strv_env_get(env, "NVTX_INJECTION64_PATH"), "/opt/agent/libmsprof_agent.so");
	CHECK(strv_env_get(env, "MSPROF_AGENT_WAIT_MS") == NULL);   /* no session yet: no waiting */
	/* NCCL loads the agent as its profiler plugin */
	CHECK_STR(strv_env_get(env, "NCCL_PROFILER_PLUGIN"), "/opt/agent/libmsprof_agent.so");
	/* a preload the user made already stays as it is */
	CHECK(app_env_add_agent(&env, "/lib/b.so") == 0);
	CHECK_STR(strv_env_get(env, "LD_PRELOAD"), "/lib/a.so /lib/b.so:/opt/agent/libmsprof_agent.so");
	strv_free(env);

	/* delay: msprof's delay_or_duration; no agent unless asked */
	CHECK(PARSE(&o, &d, "--delay=3", "app") == 0);
	CHECK(app_env_for(base, &o, NULL, &env, &d) == 0);
	CHECK_STR(strv_env_get(env, "PROFILING_MODE"), "delay_or_duration");
	CHECK_STR(strv_env_get(env, "LD_PRELOAD"), "/lib/a.so /lib/b.so");
	CHECK(strv_env_get(env, "DYNAMIC_PROFILING_KEY_PID") == NULL);
	CHECK(strv_env_get(env, "MSTX_INJECTION_PATH") == NULL);
	CHECK(strv_env_get(env, "NCCL_PROFILER_PLUGIN") == NULL);
	strv_free(env);

	/* plain launch: the environment untouched; an empty LD_PRELOAD is set */
	char *base2[] = { "LD_PRELOAD=", NULL };
	CHECK(PARSE(&o, &d, "app") == 0);
	CHECK(app_env_for(base2, &o, "/x/libmsprof_agent.so", &env, &d) == 0);
	CHECK_STR(strv_env_get(env, "LD_PRELOAD"), "/x/libmsprof_agent.so");
	CHECK(strv_env_get(env, "PROFILING_MODE") == NULL);
	CHECK_STR(strv_env_get(env, "MSPROF_AGENT_WAIT_MS"), AGENT_WAIT_MS);   /* held app: register at load */
	strv_free(env);
	/* the user's own profiler plugin (or "none") is kept */
	char *base3[] = { "NCCL_PROFILER_PLUGIN=none", NULL };
	CHECK(app_env_for(base3, &o, "/x/libmsprof_agent.so", &env, &d) == 0);
	CHECK_STR(strv_env_get(env, "NCCL_PROFILER_PLUGIN"), "none");
	strv_free(env);
	CHECK(PARSE(&o, &d, "--duration=5", "--msproftx=on", "app") == 0);
	CHECK(app_env_for(base2, &o, "/x/libmsprof_agent.so", &env, &d) == 0);
	CHECK(strv_env_get(env, "MSPROF_AGENT_WAIT_MS") == NULL);
	strv_free(env);

	/* MSPROF_AGENT_PATH wins, made absolute and clean */
	char path[PATH_MAX + 64], arg[PATH_MAX + 96], want[2 * PATH_MAX + 256];
	char *agent = NULL;
	snprintf(path, sizeof(path), "%s/agent dir", tmpdir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/libmsprof_agent.so", tmpdir);
	write_file(path, 0644);
	snprintf(arg, sizeof(arg), "%s/./libmsprof_agent.so", tmpdir);
	setenv("MSPROF_AGENT_PATH", arg, 1);
	d = (struct diag){ 0 };
	CHECK(agent_find(&agent, &d) == 0);
	CHECK_STR(agent, path);
	free(agent);
	snprintf(arg, sizeof(arg), "%s/none.so", tmpdir);
	setenv("MSPROF_AGENT_PATH", arg, 1);
	CHECK(agent_find(&agent, &d) == -EINVAL);
	snprintf(want, sizeof(want), "MSPROF_AGENT_PATH '%s' is not a readable file", arg);
	CHECK_STR(d.error, want);
	setenv("MSPROF_AGENT_PATH", tmpdir, 1);    /* a directory */
	CHECK(agent_find(&agent, &d) == -EINVAL);
	/* LD_PRELOAD splits on blanks: such a path cannot be injected */
	snprintf(arg, sizeof(arg), "%s/agent dir/libmsprof_agent.so", tmpdir);
	write_file(arg, 0644);
	setenv("MSPROF_AGENT_PATH", arg, 1);
	CHECK(agent_find(&agent, &d) == -EINVAL);
	snprintf(want, sizeof(want), "the msprof agent '%s' cannot be preloaded: its path holds a blank or a colon", arg);
	CHECK_STR(d.error, want);
	unsetenv("MSPROF_AGENT_PATH");
	opts_release(&o);
}

static void test_prof_names(void)
{
	CHECK(is_prof_dir_name("PROF_000001_20260323031749197_00815596RKPKAHRB"));
	CHECK(is_prof_dir_name("PROF_1_2_a"));
	CHECK(!is_prof_dir_name("PROF_1_2_"));
	CHECK(!is_prof_dir_name("PROF_1__a"));
	CHECK(!is_prof_dir_name("PROF_x_2_a"));
	CHECK(!is_prof_dir_name("PROF_1_2_a-b"));
	CHECK(!is_prof_dir_name("prof_1_2_a"));
	CHECK(!is_prof_dir_name("mindstudio_profiler_output"));
}

static void rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test-options.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	char *canon = realpath(tmpdir, NULL);
	if (canon) {
		snprintf(tmpdir, sizeof(tmpdir), "%s", canon);
		free(canon);
	}

	test_split();
	test_getopt_messages();
	test_messages();
	test_ranges();
	test_forbidden_chars();
	test_modes();
	test_help();
	test_app();
	test_env();
	test_output();
	test_prof_names();
	test_dynamic_options();
	test_dynamic_modes();
	test_agent_env();

	rm_rf(tmpdir);
	printf("%u checks, %u failed\n", n_checks, n_fails);
	return n_fails ? 1 : 0;
}
