/* The mstx domain (domain-mstx.c, domain-mstx-parse.c): its decoders of
 * the agents' records, what its parse kept for the steps' and the
 * overlap's builds, and its state. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/domain.h"

struct exp;
struct exp_agg_range_sums;
struct exp_mstx;
struct exp_tx_feed;

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
/* The entry (domain-mstx.c). */
extern const struct exp_domain exp_domain_mstx;

/* The domain's state (exp_domain_state): the parse's while the agents'
 * files are read (domain-mstx-parse.c, freed by release), and what a
 * reader of MSTX_EVENTS hands over while the outputs are written
 * (domain-mstx.c, its shared_read hooks: begin makes it, end frees it). */
struct exp_mstx_state {
	struct exp_mstx *parse;
	/* the rows of the reader's thread: to the timeline's thread (layer),
	 * to the summaries' thread (csv) */
	struct exp_tx_feed *layer, *csv;
	/* report.html's range sums, made by that reader as it reads (lent
	 * to the aggregates as e->agg_ranges) */
	struct exp_agg_range_sums *sums;
};
/* The state, made on first use; NULL: out of memory (domain-mstx-parse.c,
 * below domain-mstx.c). */
struct exp_mstx_state *exp_mstx_state(struct exp *e);
/* Forget it once neither part holds anything. */
void exp_mstx_state_drop(struct exp *e);
