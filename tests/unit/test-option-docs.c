/* Every option of msprof (its table, launcher/options.c, with the settings'
 * and msprof's NPU options) and of msprofd (daemon/cmdline.c) is listed in
 * its --help and has an entry in its man page's OPTIONS (argv[1]:
 * man/msprof.1, argv[2]: man/msprofd.8): a line after .TP or .TQ that
 * names it (msprof's options for NPU data alone: named in the section).
 * And every option such a line names is one the program has, so that an
 * option taken out leaves no entry behind. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "daemon/msprofd.h"
#include "launcher/compat.h"
#include "launcher/options.h"
#include "tests/unit/unittest-count.h"

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long len = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET) < 0 || !(buf = calloc((size_t)len + 1, 1)) ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return buf;
}

/* The OPTIONS section: up to the next .SH, its .SS subsections included. */
static char *man_options(const char *man)
{
	const char *sec = strstr(man, "\n.SH OPTIONS\n");
	CHECK(sec != NULL);
	if (!sec)
		return strdup("");
	sec += strlen("\n.SH OPTIONS\n");
	const char *end = strstr(sec, "\n.SH ");
	return strndup(sec, end ? (size_t)(end - sec) : strlen(sec));
}

/* The header lines of its entries, one per line. */
static char *man_option_headers(const char *sec)
{
	const char *end = sec + strlen(sec);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool header = false;
	for (const char *p = sec; p < end;) {
		size_t n = strcspn(p, "\n");
		if (header)
			fprintf(m, "%.*s\n", (int)n, p);
		header = (n == 3 && (strncmp(p, ".TP", 3) == 0 || strncmp(p, ".TQ", 3) == 0));
		p += n + (p[n] == '\n');
	}
	fclose(m);
	return buf;
}

/* Whether text has "--name" (in roff "\-\-name", each '-' as "\-") not
 * followed by more of a name. */
static bool has_option(const char *text, const char *name, bool roff)
{
	char want[128];
	size_t n = (size_t)snprintf(want, sizeof(want), "%s", roff ? "\\-\\-" : "--");
	for (const char *p = name; *p && n < sizeof(want); p++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, roff && *p == '-' ? "\\-" : "%c", *p);
	for (const char *p = strstr(text, want); p; p = strstr(p + 1, want)) {
		const char *after = p + n;
		bool longer = isalnum((unsigned char)*after) || *after == '_' ||
			      (roff ? strncmp(after, "\\-", 2) == 0 : *after == '-');
		/* in roff, "\fB" may come right before it */
		bool inside = !roff && p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-');
		if (!longer && !inside)
			return true;
	}
	return false;
}

/* Every "\-\-name" in the headers is one of names[]. */
static unsigned check_headers_known(const char *headers, const char *const *names, unsigned n_names,
				    const char *page)
{
	unsigned seen = 0;
	for (const char *p = strstr(headers, "\\-\\-"); p; p = strstr(p, "\\-\\-")) {
		char name[64];
		size_t k = 0;
		p += 4;
		while (k + 1 < sizeof(name)) {
			if (isalnum((unsigned char)*p) || *p == '_')
				name[k++] = *p++;
			else if (strncmp(p, "\\-", 2) == 0 && isalnum((unsigned char)p[2]))
				name[k++] = '-', p += 2;
			else
				break;
		}
		name[k] = '\0';
		bool known = false;
		for (unsigned i = 0; i < n_names && !known; i++)
			known = streq(names[i], name);
		CHECK(known || (fprintf(stderr, "%s: an entry for --%s, which is no option\n", page, name), 0));
		seen++;
	}
	return seen;
}

/* A program's --help and its man page's OPTIONS. */
struct docs {
	const char *prog, *man_path;
	char *help, *man, *sec, *headers;
};

static void docs_read(struct docs *d, const char *prog, void (*print_help)(FILE *f), const char *man_path)
{
	size_t len = 0;
	*d = (struct docs){ .prog = prog, .man_path = man_path };
	FILE *f = open_memstream(&d->help, &len);
	CHECK(f != NULL);
	print_help(f);
	fclose(f);
	d->man = read_all(man_path);
	d->sec = man_options(d->man);
	d->headers = man_option_headers(d->sec);
}

static void docs_free(struct docs *d)
{
	free(d->help);
	free(d->man);
	free(d->sec);
	free(d->headers);
}

/* name in --help, and in an entry's header (listed: in the section). */
static void check_option(const struct docs *d, const char *name, bool listed)
{
	CHECK(has_option(d->help, name, false) || (fprintf(stderr, "%s --help: no --%s\n", d->prog, name), 0));
	CHECK(has_option(listed ? d->sec : d->headers, name, true) ||
	      (fprintf(stderr, "%s OPTIONS: no entry for --%s\n", d->man_path, name), 0));
}

static void test_msprof(const char *man_path)
{
	struct docs d;
	docs_read(&d, "msprof", opts_print_help, man_path);
	const struct opt_def *const *defs;
	unsigned n = opts_ordered(&defs);
	const char **names = calloc(n, sizeof(*names));
	CHECK(names != NULL && n > 0);
	for (unsigned i = 0; i < n && names; i++) {
		names[i] = defs[i]->name;
		/* msprof's options for NPU data alone are one list in the
		 * section, as they are one warning each */
		bool npu = (unsigned)defs[i]->id >= _OPT_MAX && compat_table[defs[i]->id - _OPT_MAX].map == COMPAT_NPU;
		check_option(&d, names[i], npu);
	}
	unsigned seen = check_headers_known(d.headers, names, n, man_path);
	printf("msprof: %u options in --help and %s, whose entries name %u\n", n, man_path, seen);
	free(names);
	docs_free(&d);
}

static void test_msprofd(const char *man_path)
{
	struct docs d;
	docs_read(&d, "msprofd", daemon_print_help, man_path);
	const char *names[64];
	CHECK(daemon_opts_count > 0 && daemon_opts_count <= 64);
	for (unsigned i = 0; i < daemon_opts_count && i < 64; i++) {
		const struct daemon_opt *o = &daemon_opts[i];
		names[i] = o->name;
		check_option(&d, o->name, false);
		if (o->short_name) {
			char s[8];
			snprintf(s, sizeof(s), "  -%c, ", o->short_name);
			CHECK(strstr(d.help, s) || (fprintf(stderr, "msprofd --help: no -%c\n", o->short_name), 0));
			snprintf(s, sizeof(s), "\\-%c ", o->short_name);
			CHECK(strstr(d.headers, s) ||
			      (fprintf(stderr, "%s OPTIONS: no entry for -%c\n", man_path, o->short_name), 0));
		}
	}
	unsigned seen = check_headers_known(d.headers, names, daemon_opts_count, man_path);
	printf("msprofd: %u options in --help and %s, whose entries name %u\n", daemon_opts_count, man_path, seen);
	docs_free(&d);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s man/msprof.1 man/msprofd.8\n", argv[0]);
		return 2;
	}
	test_msprof(argv[1]);
	test_msprofd(argv[2]);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
