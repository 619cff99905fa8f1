/* msprof_{ts}.json: every domain's layers (timeline.c). */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "export/timeline-writer.h"

struct exp;
struct exp_domain;

/* The layers of a domain with a timeline file of its own (domain.h,
 * own_timeline) written ahead by the summaries' thread while the
 * timeline's thread writes the layers before them: done and r under
 * lock, signalled through cond; the timeline's thread appends spool,
 * commits own (when with_own) after msprof_{ts}.json, and sets taken. */
struct exp_layers_ahead {
	const struct exp_domain *d;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, with_own, taken;
	int r;
	struct exp_tl spool, own;
};

int exp_write_timeline(struct exp *e, const char *dir);
/* a->d's layers into a->spool and its own file in dir, for the timeline's
 * thread (e->ahead = a there), signalled when done. */
void exp_write_layers_ahead(struct exp *e, const char *dir, struct exp_layers_ahead *a);
/* Every layer of msprof_{ts}.json, those of domains with a file of their
 * own last, into tl (the cluster timeline's spool of one rank). */
int exp_write_layers(struct exp *e, struct exp_tl *tl);
