/* Timeline: database -> mindstudio_profiler_output/msprof_{ts}.json.
 *
 * A bare JSON array (reference §4, §9), streamed row by row from SQLite:
 * nothing is held in memory but the current row.  Each domain writes its
 * own layers (exp_domains, in their order: the host counters of
 * domain-*.c through exp_write_counter_layer, domain-host-counters.c,
 * then OS runtime calls, device samples, device tasks, ...); the layers
 * of a domain with a timeline file of its own (the mstx layers, also in
 * msprof_tx_{ts}.json) come last.  A layer without data is left out,
 * metadata included.  Metadata events come after all others, in every
 * piece when the timeline is split (timeline-writer.c); --reports leaves
 * out the tracks it does not name (e->tracks). */
#include <pthread.h>

#include "export/domain-host-counters.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "export/timeline.h"
#include "common/util.h"

/* Files of their own that one timeline may have beside it: more own
 * timelines in the domain list than this fail the export. */
#define OWN_FILES_MAX 4

struct own_file {
	bool open;
	struct exp_tl *tl;          /* &store, or the one written ahead */
	struct exp_tl store;
};

/* The layers of a's domain written ahead (stages.c): wait for them and
 * append them to out; their own file is taken into own. */
static int take_ahead(struct exp_layers_ahead *a, struct exp_tl *out, struct own_file *own)
{
	pthread_mutex_lock(&a->lock);
	while (!a->done)
		pthread_cond_wait(&a->cond, &a->lock);
	pthread_mutex_unlock(&a->lock);
	a->taken = true;
	own->open = a->with_own;
	own->tl = &a->own;
	int r = a->r;
	if (r == 0)
		r = exp_tl_append(out, &a->spool);
	return r;
}

/* Every domain's layers in list order: those without a timeline file of
 * their own (own false), or those with one (own true), the counter layer
 * first. */
static int layers_of(struct exp *e, struct exp_tl *out, bool own)
{
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++) {
		const struct exp_domain *d = exp_domains[i];
		if (!d->own_timeline != !own)
			continue;
		if (d->counter_layer)
			r = exp_write_counter_layer(e, out, d->counter_layer);
		if (r == 0 && d->layers && (!own || d->has_layers(e)))
			r = d->layers(e, out, NULL);
	}
	return r;
}

int exp_write_layers(struct exp *e, struct exp_tl *tl)
{
	int r = layers_of(e, tl, false);
	if (r == 0)
		r = layers_of(e, tl, true);
	return r;
}

void exp_write_layers_ahead(struct exp *e, const char *dir, struct exp_layers_ahead *a)
{
	int r = exp_tl_spool_open(e, &a->spool, dir, "msprof");
	if (r == 0) {
		r = exp_tl_open(e, &a->own, dir, a->d->own_timeline);
		a->with_own = r == 0;
	}
	if (r == 0)
		r = a->d->layers(e, &a->spool, a->with_own ? &a->own : NULL);
	pthread_mutex_lock(&a->lock);
	a->r = r;
	a->done = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

int exp_write_timeline(struct exp *e, const char *dir)
{
	bool any = false;
	for (size_t i = 0; i < exp_domains_n; i++) {
		const struct exp_domain *d = exp_domains[i];
		if (d->own_timeline && !exp_track_on(e, d->own_track))
			/* left out by --reports: an older export's file is not this one's */
			exp_remove_stale(dir, d->own_timeline, ".json", e->ts, 0);
		any = any || (d->counter_layer && exp_counter_layer_has(e, d->counter_layer)) ||
		      (d->has_layers && d->has_layers(e));
	}
	if (!any)
		return 0;

	struct exp_tl out;
	int r = exp_tl_open(e, &out, dir, "msprof");
	if (r < 0)
		return r;
	r = layers_of(e, &out, false);
	/* then the layers with a file of their own, written into both in the
	 * same pass (or ahead by the summaries' thread), whatever the
	 * summaries' format: the msprof_tx summary as JSON is
	 * msprof_tx_summary_{ts}.json (tables.c) */
	struct own_file own[OWN_FILES_MAX];
	size_t n_own = 0;
	for (size_t i = 0; i < exp_domains_n; i++) {
		const struct exp_domain *d = exp_domains[i];
		bool ahead = e->ahead && e->ahead->d == d;
		if (!d->own_timeline || (!ahead && !d->has_layers(e)))
			continue;
		if (n_own == OWN_FILES_MAX) {
			exp_fail(e, "more than %d domains with a timeline file of their own", OWN_FILES_MAX);
			r = r ? r : -E2BIG;
			break;
		}
		struct own_file *o = &own[n_own++];
		*o = (struct own_file){ .tl = &o->store };
		if (ahead) {
			int ra = take_ahead(e->ahead, &out, o);
			r = r ? r : ra;
			continue;
		}
		if (r == 0) {
			r = exp_tl_open(e, o->tl, dir, d->own_timeline);
			o->open = r == 0;
		}
		if (r == 0)
			r = d->layers(e, &out, o->open ? o->tl : NULL);
	}
	/* msprof_{ts}.json first, then each file of its own; all aborted
	 * after an error */
	if (r == 0)
		r = exp_tl_commit(&out);
	else
		exp_tl_abort(&out);
	for (size_t i = 0; i < n_own; i++) {
		if (!own[i].open)
			continue;
		if (r == 0)
			r = exp_tl_commit(own[i].tl);
		else
			exp_tl_abort(own[i].tl);
	}
	return r;
}
