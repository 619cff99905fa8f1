#include "launcher/console.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

static void vline(FILE *f, const char *tag, const char *fmt, va_list ap)
{
	fputs(tag, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void console_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "[INFO] ", fmt, ap);
	va_end(ap);
}

void console_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stdout, "[WARNING] ", fmt, ap);
	va_end(ap);
}

void console_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "[ERROR] ", fmt, ap);
	va_end(ap);
}

void console_data_saved(const char *dir)
{
	console_info("Profiling finished.");
	console_info("Process profiling data complete. Data is saved in %s", dir);
}

/* The lines of one kind, and how many more there were than room for. */
static void diag_lines(void (*print)(const char *fmt, ...), const char *lines, size_t width, unsigned n,
		       unsigned room)
{
	for (unsigned i = 0; i < n && i < room; i++)
		print("%s", lines + i * width);
	if (n > room)
		print("... and %u more like these.", n - room);
}

void console_diag(const struct diag *d)
{
	diag_lines(console_info, d->info[0], sizeof(d->info[0]), d->n_info, DIAG_MAX_INFO);
	diag_lines(console_warn, d->warn[0], sizeof(d->warn[0]), d->n_warn, DIAG_MAX_WARN);
	if (!d->error[0])
		return;
	if (d->plain) {
		fprintf(stderr, "%s\n", d->error);
		fflush(stderr);
	} else {
		console_error("%s", d->error);
	}
	if (d->usage) {
		opts_print_help(stderr);
		fflush(stderr);
	} else if (d->hint) {
		if (d->meant[0])
			fprintf(stderr, "Did you mean '--%s'?\n", d->meant);
		fputs("Usage: msprof [options] <application> [arguments]\n"
		      "`msprof --help` lists every option; `man msprof` describes them.\n", stderr);
		fflush(stderr);
	}
}

int console_finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = errno;
		fprintf(stderr, "[ERROR] cannot write to standard output: %s\n", strerror(e ? e : EIO));
		return rc ? rc : 1;
	}
	return rc;
}
