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

void console_diag(const struct diag *d)
{
	for (unsigned i = 0; i < d->n_warn; i++)
		console_warn("%s", d->warn[i]);
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
