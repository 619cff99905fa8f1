#include "launcher/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* When the stage began: the report before its first (a stage reports
 * after its first rows or bytes; two stages run at once, the timeline and
 * the summaries, so each keeps its own). */
static const struct timespec *stage_start(struct progress *p, const char *stage)
{
	for (int i = 0; i < PROGRESS_STAGES; i++) {
		if (p->stages[i].stage && strcmp(p->stages[i].stage, stage) == 0)
			return &p->stages[i].start;
		if (!p->stages[i].stage) {
			p->stages[i].stage = stage;
			p->stages[i].start = p->prev;
			return &p->stages[i].start;
		}
	}
	return &p->start;
}

static void progress_cb(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	const struct timespec *st = stage_start(p, stage);
	p->prev = now;
	if (since(&p->start, &now) < p->after_s || (p->shown && since(&p->last, &now) < 0.25))
		return;
	double s = since(st, &now);
	p->last = now;
	p->shown = true;
	if (total)
		printf("\r\033[K[INFO] %s: %s %u%%, %.1f MB/s", p->name, stage,
		       (unsigned)(done >= total ? 100 : done * 100 / total), s > 0 ? (double)done / 1e6 / s : 0.0);
	else if (done)
		printf("\r\033[K[INFO] %s: %s, %llu written, %.0f/s", p->name, stage, (unsigned long long)done,
		       s > 0 ? (double)done / s : 0.0);
	else
		printf("\r\033[K[INFO] %s: %s", p->name, stage);
	fflush(stdout);
}

void progress_begin(struct progress *p, const char *name, struct export_options *opt)
{
	*p = (struct progress){ .name = name, .after_s = PROGRESS_AFTER_S };
	/* a test's export of a size CI can afford may end within the default */
	const char *after = getenv("MSPROF_TEST_PROGRESS_AFTER_S");
	if (after && *after)
		p->after_s = strtod(after, NULL);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->prev = p->start;
	if (isatty(STDOUT_FILENO)) {
		opt->on_progress = progress_cb;
		opt->progress_ctx = p;
	}
}

void progress_end(struct progress *p, struct export_options *opt)
{
	if (p->shown) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
	}
	opt->on_progress = NULL;
	opt->progress_ctx = NULL;
}
