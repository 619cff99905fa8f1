/* The messages the parser and the mode checks leave for the user (struct
 * diag, launcher/diag.h); console.c prints them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "launcher/diag.h"

int diag_error(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->error, sizeof(d->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void diag_warn(struct diag *d, const char *fmt, ...)
{
	if (d->n_warn++ >= DIAG_MAX_WARN)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->warn[d->n_warn - 1], sizeof(d->warn[0]), fmt, ap);
	va_end(ap);
}

void diag_info(struct diag *d, const char *fmt, ...)
{
	if (d->n_info++ >= DIAG_MAX_INFO)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->info[d->n_info - 1], sizeof(d->info[0]), fmt, ap);
	va_end(ap);
}
