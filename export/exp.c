/* One export run's notes and failures for its report (exp.h). */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/exp.h"
#include "common/util.h"

/* Append one note to buf ("; " between), unless it is there already; a
 * note that does not fit leaves a mark that more were left out, once. */
static void note_append(char *buf, size_t size, const char *fmt, va_list ap)
{
	static const char more[] = "; (more problems left out)";
	char one[1024];
	vsnprintf(one, sizeof one, fmt, ap);
	size_t n = strlen(buf), k = strlen(one);
	if (strstr(buf, one) || strstr(buf, more))
		return;
	if (n + 2 + k + sizeof more > size) {
		if (n + sizeof more <= size)
			strcpy(buf + n, more);
		return;
	}
	if (n) {
		strcpy(buf + n, "; ");
		n += 2;
	}
	strcpy(buf + n, one);
}

void exp_note(struct exp *e, const char *fmt, ...)
{
	va_list ap;
	exp_lock(e);
	va_start(ap, fmt);
	note_append(e->rep->message, sizeof e->rep->message, fmt, ap);
	va_end(ap);
	exp_unlock(e);
}

void exp_fail(struct exp *e, const char *fmt, ...)
{
	va_list ap;
	exp_lock(e);
	va_start(ap, fmt);
	/* the first failure is the cause; later ones are its consequences
	 * (a statement left unfinished, a file not renamed): kept as notes */
	if (!e->rep->error[0])
		vsnprintf(e->rep->error, sizeof e->rep->error, fmt, ap);
	else
		note_append(e->rep->message, sizeof e->rep->message, fmt, ap);
	va_end(ap);
	exp_unlock(e);
}

void exp_report_settle(struct export_report *rep, int r)
{
	/* a failure noted on a path the export then recovered from is a
	 * note like the others */
	if (r >= 0 && rep->error[0]) {
		char copy[sizeof rep->error];
		strcpy(copy, rep->error);
		rep->error[0] = '\0';
		size_t n = strlen(rep->message);
		snprintf(rep->message + n, sizeof rep->message - n, "%s%s", n ? "; " : "", copy);
	}
}
