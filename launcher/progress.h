/* The progress line of a long export: one line on a terminal, rewritten in
 * place, once the export has run PROGRESS_AFTER_S seconds; nothing when
 * stdout is not a terminal.  Each stage shows its percent where the export
 * knows its total (the parse: raw bytes) and its rate. */
#pragma once

#include <stdbool.h>
#include <time.h>

#include "export/export.h"

#define PROGRESS_AFTER_S 2.0 /* MSPROF_TEST_PROGRESS_AFTER_S: another (tests) */
#define PROGRESS_STAGES 4

struct progress {
	const char *name;            /* the PROF dir's name */
	struct timespec start, last, prev;  /* the export's start, the line's last show, the last report */
	double after_s;              /* PROGRESS_AFTER_S */
	bool shown;
	struct {
		const char *stage;   /* the export's string, compared by value */
		struct timespec start;
	} stages[PROGRESS_STAGES];
};

/* Start p for the export of name and hook it into opt when stdout is a
 * terminal. */
void progress_begin(struct progress *p, const char *name, struct export_options *opt);
/* Clear the line (when one was shown) and unhook opt. */
void progress_end(struct progress *p, struct export_options *opt);
