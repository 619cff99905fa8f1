/* Timeline: database -> mindstudio_profiler_output/msprof_{ts}.json.
 *
 * A bare JSON array (reference §4, §9), streamed row by row from SQLite:
 * nothing is held in memory but the current row.  Each domain writes its
 * own layers (exp_domains, in their order: the host counters of
 * domain-*.c through exp_write_counter_layer, domain-host-counters.c, then OS
 * runtime calls, device samples, device tasks); the mstx layers of the
 * annotated processes (domain-mstx.c) come last.  A layer without data is left
 * out, metadata included.  Metadata events come after all others, in
 * every piece when the timeline is split (timeline-writer.c); --reports leaves out
 * the tracks it does not name (e->tracks). */
#include <pthread.h>

#include "export/domain-host-counters.h"
#include "export/domain-mstx.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "export/timeline.h"
#include "common/util.h"

/* Commit out and then, when with_tx, tx_out; both aborted after an
 * error r. */
static int commit_both(struct exp_tl *out, struct exp_tl *tx_out, bool with_tx, int r)
{
	if (r == 0)
		r = exp_tl_commit(out);
	else
		exp_tl_abort(out);
	if (with_tx) {
		if (r == 0)
			r = exp_tl_commit(tx_out);
		else
			exp_tl_abort(tx_out);
	}
	return r;
}

/* The mstx layers written ahead (stages.c): wait for them, append them,
 * and commit both files as exp_write_timeline does. */
static int finish_ahead(struct exp_tx_ahead *a, struct exp_tl *out, int r)
{
	pthread_mutex_lock(&a->lock);
	while (!a->done)
		pthread_cond_wait(&a->cond, &a->lock);
	pthread_mutex_unlock(&a->lock);
	a->taken = true;
	if (r == 0)
		r = a->r;
	if (r == 0)
		r = exp_tl_append(out, &a->spool);
	return commit_both(out, &a->tx_out, a->with_tx, r);
}

/* Every domain's layers, in list order: all but the mstx layers. */
static int domain_layers(struct exp *e, struct exp_tl *out)
{
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++) {
		const struct exp_domain *d = exp_domains[i];
		if (d->counter_layer)
			r = exp_write_counter_layer(e, out, d->counter_layer);
		if (r == 0 && d->layers)
			r = d->layers(e, out);
	}
	return r;
}

int exp_write_layers(struct exp *e, struct exp_tl *tl)
{
	int r = domain_layers(e, tl);
	if (r == 0 && exp_domain_mstx.has_layers(e))
		r = exp_write_tx_layer(e, tl, NULL);
	return r;
}

int exp_write_timeline(struct exp *e, const char *dir)
{
	bool tx = exp_domain_mstx.has_layers(e), any = false;
	if (!exp_track_on(e, TRACK_MSPROFTX))
		/* left out by --reports: an older export's file is not this one's */
		exp_remove_stale(dir, "msprof_tx", ".json", e->ts, 0);
	for (size_t i = 0; i < exp_domains_n && !any; i++) {
		const struct exp_domain *d = exp_domains[i];
		any = (d->counter_layer && exp_counter_layer_has(e, d->counter_layer)) ||
		      (d->has_layers && d->has_layers(e));
	}
	if (!any)
		return 0;

	struct exp_tl out;
	int r = exp_tl_open(e, &out, dir, "msprof");
	if (r < 0)
		return r;
	/* the mstx layers, last, are not among the hooks: they go to
	 * msprof_tx_{ts}.json too, and may be written ahead by the summaries'
	 * thread (below) */
	r = domain_layers(e, &out);
	/* msprof_tx_{ts}.json, the mstx layers alone, is written in the same
	 * pass, whatever the summaries' format: the msprof_tx summary as JSON
	 * is msprof_tx_summary_{ts}.json (tables.c) */
	if (e->tx_ahead)
		return finish_ahead(e->tx_ahead, &out, r);
	struct exp_tl tx_out;
	bool with_tx = false;
	if (r == 0 && tx) {
		r = exp_tl_open(e, &tx_out, dir, "msprof_tx");
		with_tx = r == 0;
	}
	if (r == 0 && tx)
		r = exp_write_tx_layer(e, &out, with_tx ? &tx_out : NULL);
	return commit_both(&out, &tx_out, with_tx, r);
}
