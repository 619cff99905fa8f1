/* The mstx domain (domain-mstx.c, domain-mstx-parse.c): its decoders of
 * the agents' records, what its parse kept for the steps' and the
 * overlap's builds, and its layers and summary, which the stages may
 * make on threads of their own. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/domain.h"
#include "export/timeline-writer.h"

struct exp;

/* The mstx domain's (domain-mstx-parse.c). */
extern const struct exp_agent_ops exp_mstx_agent_ops;
extern const struct exp_agent_record exp_mstx_records[];
void exp_mstx_release(struct exp *e);
/* An MSTX_EVENTS row whose whole message names a step (collectors/steps.h). */
struct exp_mstx_step_row {
	int64_t pid, start, rowid;  /* pid: globalTid >> 32 */
};
/* The step rows the parse wrote, in the steps' order (process, start,
 * rowid), for the builds: 1, the list and its length; 0 when not known (no
 * agent file was parsed in this run, or more rows than the parse keeps):
 * the table has them. */
int exp_mstx_step_rows(struct exp *e, const struct exp_mstx_step_row **ret, size_t *ret_n);
/* A range of MSTX_EVENTS (eventType 1 or 2) as the parse ended it. */
struct exp_mstx_range {
	int64_t start, end, msg, dom;   /* msg, dom: STRING_IDS ids */
};
/* Every range the parse wrote, in no order, for the builds: 1, the list
 * and its length; 0 when not known (no agent file was parsed in this run,
 * or more ranges than the parse keeps): the table has them. */
int exp_mstx_ranges(struct exp *e, const struct exp_mstx_range **ret, size_t *ret_n);
/* The mstx layers written ahead by the summaries' thread (stages.c) while
 * the timeline's thread writes the layers before them: done and r under
 * lock, signalled through cond; the timeline's thread appends spool and
 * commits tx_out (msprof_tx_{ts}.json, when with_tx) after its own file,
 * and sets taken. */
struct exp_tx_ahead {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, with_tx, taken;
	int r;
	struct exp_tl spool, tx_out;
};
/* The mstx layers (domain-mstx.c) into tl, and the same events into tl2 too
 * unless NULL (msprof_{ts}.json and msprof_tx_{ts}.json in one pass). */
int exp_write_tx_layer(struct exp *e, struct exp_tl *tl, struct exp_tl *tl2);
/* MSTX_EVENTS read once for the mstx layers and the msprof_tx summary
 * (domain-mstx.c): exp_tx_read, on a thread of its own, hands the rows to
 * two feeds, each taken by one other thread.  The reader leaves both
 * decided (the taker reads the table itself where not fed) and ended
 * (exp_tx_feed_finish does so too where the reader could not start); a
 * taker closes its feed when it takes no more (the reader then stops
 * handing it rows); free after all three are done.  NULL: out of memory. */
struct exp_tx_feed *exp_tx_feed_new(void);
/* ... and sums e->tx_range_sums (when not NULL) on the way */
void exp_tx_read(struct exp *e, struct exp_tx_feed *layer, struct exp_tx_feed *csv);
void exp_tx_feed_finish(struct exp_tx_feed *f);
void exp_tx_feed_close(struct exp_tx_feed *f);
struct exp_tx_feed *exp_tx_feed_free(struct exp_tx_feed *f); /* NULL */
