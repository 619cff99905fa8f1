/* msprofd's options: one table, read by the parser, --help and the test of
 * the man page, as the launcher's are (launcher/options.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon/msprofd.h"

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)

#define IDLE_TIMEOUT_DEFAULT 60
#define IDLE_TIMEOUT_MAX (30 * 86400)

/* A limit from the option or, without it, the environment: 1..SERVER_MAX_LIMIT. */
static int parse_limit(const char *what, const char *value, unsigned *ret)
{
	uint64_t v;
	if (parse_u64(value, 1, SERVER_MAX_LIMIT, &v) < 0) {
		fprintf(stderr, "msprofd: invalid %s '%s': a number in 1..%u\n", what, value, SERVER_MAX_LIMIT);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

static int check_foreground(struct daemon_options *o, const char *v)
{
	o->foreground = true;
	return 0;
}

static int check_ready_fd(struct daemon_options *o, const char *v)
{
	uint64_t fd;
	/* Not 0-2: those become /dev/null or the log. */
	if (parse_u64(v, 3, INT32_MAX, &fd) < 0 || fcntl((int)fd, F_GETFD) < 0) {
		fprintf(stderr, "msprofd: invalid --ready-fd '%s': need an open file descriptor above 2\n", v);
		return -EINVAL;
	}
	o->ready_fd = (int)fd;
	return 0;
}

static int check_idle_timeout(struct daemon_options *o, const char *v)
{
	uint64_t s;
	if (parse_u64(v, 0, IDLE_TIMEOUT_MAX, &s) < 0) {
		fprintf(stderr, "msprofd: invalid --idle-timeout '%s': seconds in 0..%u\n", v, IDLE_TIMEOUT_MAX);
		return -EINVAL;
	}
	o->idle_timeout_s = (unsigned)s;
	return 0;
}

static int check_max_clients(struct daemon_options *o, const char *v)
{
	return parse_limit("--max-clients", v, &o->max_clients);
}

static int check_max_agents(struct daemon_options *o, const char *v)
{
	return parse_limit("--max-agents", v, &o->max_agents);
}

static int check_help(struct daemon_options *o, const char *v)
{
	daemon_print_help(stdout);
	return 1;
}

static int check_version(struct daemon_options *o, const char *v)
{
	printf("msprofd %s (protocol %d)\n", MSPROF_VERSION, IPC_PROTO_VERSION);
	return 1;
}

const struct daemon_opt daemon_opts[] = {
	{ "foreground", 'f', NULL, "stay in the foreground and log to stderr", check_foreground },
	{ "ready-fd", 0, "N", "write \"ready <pid>\" to fd N once accepting connections", check_ready_fd },
	{ "idle-timeout", 0, "SEC", "exit after SEC seconds without clients or sessions\n"
		"(default " XSTR(IDLE_TIMEOUT_DEFAULT) "; 0: never)", check_idle_timeout },
	{ "max-clients", 0, "N", "serve N clients at once (default " XSTR(SERVER_MAX_CLIENTS_DEFAULT) ", or\n"
		"$MSPROFD_MAX_CLIENTS); past it the longest idle goes", check_max_clients },
	{ "max-agents", 0, "N", "serve the agents of N processes at once (default " XSTR(SERVER_MAX_AGENTS_DEFAULT)
		",\nor $MSPROFD_MAX_AGENTS); past it they are turned away", check_max_agents },
	{ "help", 'h', NULL, "show this help and exit", check_help },
	{ "version", 'V', NULL, "show the version and exit", check_version },
};
const unsigned daemon_opts_count = ARRAY_SIZE(daemon_opts);

/* The column the descriptions start at, as in GNU tools' --help. */
#define HELP_COLUMN 26

void daemon_print_help(FILE *f)
{
	fputs("Usage: msprofd [OPTION]...\n"
	      "The per-user msprof daemon: samples hosts and processes for msprof sessions.\n"
	      "msprof starts it on demand; it exits by itself when idle.\n"
	      "\n", f);
	for (unsigned i = 0; i < daemon_opts_count; i++) {
		const struct daemon_opt *d = &daemon_opts[i];
		char name[64], shortopt[8] = "";
		snprintf(name, sizeof(name), "--%s%s%s", d->name, d->arg ? "=" : "", d->arg ? d->arg : "");
		if (d->short_name)
			snprintf(shortopt, sizeof(shortopt), "-%c,", d->short_name);
		fprintf(f, "  %-4s%-*s", shortopt, HELP_COLUMN - 6, name);
		for (const char *p = d->help; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(f, "%.*s\n", (int)n, p);
			p += n;
			if (*p == '\n') {
				p++;
				fprintf(f, "%*s", HELP_COLUMN, "");
			}
		}
	}
	fputs("\n"
	      "Socket: $MSPROF_RUNTIME_DIR, else $XDG_RUNTIME_DIR/msprof, else /tmp/msprof-UID,\n"
	      "then /msprofd.sock.  See msprofd(8).\n", f);
}

/* getopt_long's value for a row without a short name: past every char. */
#define LONG_ONLY 0x100

int daemon_parse_options(int argc, char **argv, struct daemon_options *o)
{
	struct option longopts[ARRAY_SIZE(daemon_opts) + 1];
	char shortopts[2 * ARRAY_SIZE(daemon_opts) + 1];
	size_t n_short = 0;
	int c, r;

	for (unsigned i = 0; i < daemon_opts_count; i++) {
		const struct daemon_opt *d = &daemon_opts[i];
		int val = d->short_name ? d->short_name : LONG_ONLY + (int)i;
		longopts[i] = (struct option){ d->name, d->arg ? required_argument : no_argument, NULL, val };
		if (d->short_name) {
			shortopts[n_short++] = d->short_name;
			if (d->arg)
				shortopts[n_short++] = ':';
		}
	}
	longopts[daemon_opts_count] = (struct option){ 0 };
	shortopts[n_short] = '\0';

	*o = (struct daemon_options){ .ready_fd = -1, .idle_timeout_s = IDLE_TIMEOUT_DEFAULT,
				      .max_clients = SERVER_MAX_CLIENTS_DEFAULT,
				      .max_agents = SERVER_MAX_AGENTS_DEFAULT };
	/* msprof starts msprofd on demand: the environment is how a user
	 * sets its limits then */
	const char *env = getenv("MSPROFD_MAX_CLIENTS");
	if (env && *env && parse_limit("MSPROFD_MAX_CLIENTS", env, &o->max_clients) < 0)
		return -EINVAL;
	env = getenv("MSPROFD_MAX_AGENTS");
	if (env && *env && parse_limit("MSPROFD_MAX_AGENTS", env, &o->max_agents) < 0)
		return -EINVAL;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
		const struct daemon_opt *d = NULL;
		for (unsigned i = 0; i < daemon_opts_count && !d; i++)
			if (c == (daemon_opts[i].short_name ? daemon_opts[i].short_name : LONG_ONLY + (int)i))
				d = &daemon_opts[i];
		if (!d) {
			daemon_print_help(stderr);
			return -EINVAL;
		}
		r = d->check(o, optarg);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	if (optind < argc) {
		fprintf(stderr, "msprofd: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 1;
}
