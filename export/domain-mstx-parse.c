/* The mstx domain's part of the agents' files (domain-agents.c reads them):
 * its records (marks, ranges, domains, categories) -> MSTX_EVENTS and
 * AGENT_CATEGORY, through its decoders and the agent parse's hooks
 * (exp_mstx_agent_ops, exp_mstx_records; the entry is domain-mstx.c's).
 *
 * One process at a time, its slices in order, records as they come.  A
 * mark or a range takes its rowid when it starts (the readers order ties
 * by rowid: the order the events started in), and its row is written once,
 * complete, in rowid order: rows wait in a window of pending rows until
 * every row before them is complete.  What stays in memory is bounded:
 *
 *   pending  rows started, not yet written, in rowid order (PENDING_MAX);
 *            past it the oldest is written still open (endNs NULL) and its
 *            end, when it comes, updates it by rowid, as every range's end
 *            did before rows waited: a long range (a training step) costs
 *            one update, nothing is lost
 *   open     start/end ranges by range id -> rowid (MATCH_MAX entries)
 *   early    ends read before their start (the agent drains each thread's
 *            buffer in turn, so a range ended on another thread can come
 *            first) by range id -> end time and thread (MATCH_MAX)
 *   stacks   push/pop ranges per (thread, domain): rowids, innermost last
 *            (MATCH_MAX entries in all)
 *   domains  domain id -> name (STRING_IDS id), filtered or not
 *   steps    the rows whose message names a step (STEP_ROWS_MAX), so that
 *            the steps' build does not read the whole table for them
 *   ranges   every range as it ends (RANGES_MAX), for the overlap's build,
 *            which would read the whole table for them
 *   opened   the rows written open (OPENED_MAX), those the end closes
 *
 * A start that finds its table full still gets its row; it is counted
 * (matchOverflow) and ends, like every range still open when the data
 * ends, at the session end (openAtEnd, counted per process as the rows are
 * made).  A push that finds no room is remembered as a count on its
 * stack, so the pop that belongs to it does not end an outer range.  An
 * end without its start is counted (endWithoutStart).  Every count reaches
 * the report. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/raw.h"
#include "collectors/steps.h"
#include "export/db.h"
#include "export/domain-mstx.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/reader.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/tables.h"
#include "common/util.h"

#define MATCH_MAX (1U << 18)        /* entries in each matching table */
#define DOMAINS_MAX 65536           /* per process; the agent keeps 4096 */
#define STACKS_MAX 65536            /* (thread, domain) pairs with pushes */
#define PENDING_MAX (1U << 16)      /* rows waiting to be written: 5 MiB */
#define STEP_ROWS_MAX (1U << 20)    /* step rows listed: 24 MiB */
#define RANGES_MAX (1U << 20)       /* ranges listed: 32 MiB */
#define OPENED_MAX (1U << 20)       /* rows written open listed: 8 MiB */

enum {
	MS_END,
	MS_CATEGORY,
	MS_ROW,
	_MS_MAX,
};

static const char *const ms_sql[_MS_MAX] = {
	/* a row written before its range ended (the pending window was full);
	 * an end before the start (clocks of two threads read in the other
	 * order) is taken as the start */
	[MS_END] = "UPDATE MSTX_EVENTS SET endNs = max(?1, startNs), endGlobalTid = ?2 WHERE rowid = ?3",
	[MS_CATEGORY] = ("INSERT INTO AGENT_CATEGORY (pid, domainId, category, name) VALUES (?, ?, ?, ?) "
			 "ON CONFLICT (pid, domainId, category) DO UPDATE SET name = excluded.name"),
	/* a range written open, for the list of ranges once it ends */
	[MS_ROW] = "SELECT startNs, message, domainId FROM MSTX_EVENTS WHERE rowid = ?",
};

/* u64 key (never 0) -> two values; open addressing, backward-shift delete. */
struct mval { int64_t a; uint64_t b; };
struct map {
	uint64_t *key;
	struct mval *val;
	size_t cap, used;
};

static size_t map_slot(const struct map *m, uint64_t k)
{
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);
	while (m->key[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static struct mval *map_get(struct map *m, uint64_t k)
{
	if (!m->cap)
		return NULL;
	size_t i = map_slot(m, k);
	return m->key[i] ? &m->val[i] : NULL;
}

/* 0, -ENOSPC when MATCH_MAX entries are in, -ENOMEM. */
static int map_put(struct map *m, uint64_t k, struct mval v)
{
	if ((m->used + 1) * 2 > m->cap) {
		if (m->used >= MATCH_MAX)
			return -ENOSPC;
		struct map n = { .cap = m->cap ? m->cap * 2 : 64 };
		n.key = calloc(n.cap, sizeof *n.key);
		n.val = calloc(n.cap, sizeof *n.val);
		if (!n.key || !n.val) {
			free(n.key);
			free(n.val);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t j = map_slot(&n, m->key[i]);
				n.key[j] = m->key[i];
				n.val[j] = m->val[i];
				n.used++;
			}
		free(m->key);
		free(m->val);
		*m = n;
	}
	size_t i = map_slot(m, k);
	if (!m->key[i])
		m->used++;
	m->key[i] = k;
	m->val[i] = v;
	return 0;
}

static bool map_take(struct map *m, uint64_t k, struct mval *ret)
{
	if (!m->cap)
		return false;
	size_t i = map_slot(m, k);
	if (!m->key[i])
		return false;
	*ret = m->val[i];
	m->key[i] = 0;
	m->used--;
	for (size_t j = (i + 1) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = (size_t)((m->key[j] * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			m->key[j] = 0;
			i = j;
		}
	}
	return true;
}

static void map_release(struct map *m)
{
	free(m->key);
	free(m->val);
	*m = (struct map){ 0 };
}

struct stack {
	int64_t *rows;
	uint32_t n, cap;
	uint64_t lost;      /* pushes beyond MATCH_MAX, innermost */
};

struct dom {
	uint64_t id;
	int64_t sid;        /* STRING_IDS id of its name */
	bool skip;          /* left out by --mstx-domain-include/exclude */
};


#define INSERT_COLUMNS 10 /* MSTX_EVENTS's (exp_batch_init's types below) */

/* A row not yet written; end < 0: still open. */
struct prow {
	int64_t start, end, type, range_id, category, msg, gtid, end_gtid, dom;
};

/* The matching state of the process being read, and the totals of all. */
struct exp_mstx {
	struct exp *e;
	sqlite3_stmt *st[_MS_MAX];
	/* rows are written in rowid order, so each takes the next rowid
	 * (one more than the last): given explicitly, each insert would seek
	 * first (9% more work) */
	struct exp_batch rows;

	struct dom *doms;
	size_t n_doms, cap_doms;
	struct map dom_of;  /* domain id -> index in doms */
	struct dom def;

	struct map open, early, stack_of;
	struct stack *stacks;
	size_t n_stacks, cap_stacks;
	size_t pushed;
	char msg[RAW_AGENT_MAX_STR + 1];

	/* rows head..next-1 wait at pending[rowid & (cap_pending - 1)] */
	struct prow *pending;
	size_t cap_pending;
	int64_t head, next;
	int64_t first_open;     /* the lowest rowid written open, 0 none */
	int64_t *opened;        /* the rowids written open (OPENED_MAX) */
	size_t n_opened, cap_opened;
	bool opened_lost;       /* more: the end looks for them from first_open */
	uint64_t n_open;        /* this process's ranges without an end so far */

	struct exp_mstx_step_row *steps;
	size_t n_steps, cap_steps;
	bool steps_lost;        /* more than STEP_ROWS_MAX: not listed */
	bool steps_sorted;
	struct exp_mstx_range *ranges;
	size_t n_ranges, cap_ranges;
	bool ranges_lost;       /* more than RANGES_MAX: not listed */

	uint64_t t_unmatched, t_overflow, open_at_end;
};

/* The domain's state while the agents' files are read (mstx_begin_all). */
static struct exp_mstx *mstx_of(struct exp *e)
{
	struct exp_mstx_state *s = *exp_domain_state(e, &exp_domain_mstx);
	return s ? s->parse : NULL;
}

static int step(struct exp_mstx *m, int idx) { return exp_step_done(m->e, m->st[idx], ms_sql[idx]); }

/* --- domains and the filter ------------------------------------------------- */

/* Is name in the comma-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t ln = strlen(name);
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");
		if (n == ln && strncmp(s, name, n) == 0)
			return true;
		s += n + (s[n] == ',');
	}
	return false;
}

static bool domain_skipped(const struct exp *e, const char *name)
{
	/* the agents filter already; a file written without the filter (the
	 * agent's standalone mode) is filtered here */
	const char *inc = e->sample.s[SET_MSTX_DOMAIN_INCLUDE], *exc = e->sample.s[SET_MSTX_DOMAIN_EXCLUDE];
	if (inc && inc[0])
		return !in_list(inc, name);
	return exc && exc[0] && in_list(exc, name);
}

static int domain_set(struct exp_mstx *m, uint64_t id, const char *name)
{
	int64_t sid;
	int r = exp_intern_id(m->e, name, &sid);
	if (r < 0)
		return r;
	struct mval *v = map_get(&m->dom_of, id);
	if (v) {
		m->doms[v->a].sid = sid;
		m->doms[v->a].skip = domain_skipped(m->e, name);
		return 0;
	}
	if (m->n_doms == m->cap_doms && m->cap_doms >= DOMAINS_MAX)
		return 1; /* damage: the agent never has that many */
	struct dom *d = grow_array(m->doms, &m->cap_doms, m->n_doms, sizeof *d, 16);
	if (!d)
		return -ENOMEM;
	m->doms = d;
	r = map_put(&m->dom_of, id, (struct mval){ (int64_t)m->n_doms, 0 });
	if (r < 0)
		return r == -ENOSPC ? 1 : r;
	m->doms[m->n_doms++] = (struct dom){ id, sid, domain_skipped(m->e, name) };
	return 0;
}

/* The domain of an event; one never described (its slice was lost) gets
 * a name that says so. */
static int domain_get(struct exp_mstx *m, uint64_t id, const struct dom **ret)
{
	if (id == 0) {
		*ret = &m->def;
		return 0;
	}
	struct mval *v = map_get(&m->dom_of, id);
	if (v) {
		*ret = &m->doms[v->a];
		return 0;
	}
	char name[48];
	snprintf(name, sizeof name, "unknown domain %" PRIu64, id);
	int r = domain_set(m, id, name);
	if (r != 0)
		return r;
	*ret = &m->doms[m->n_doms - 1];
	return 0;
}

/* --- events --------------------------------------------------------------------- */

static int64_t gtid(const struct exp_agent_process *ap, uint32_t tid)
{
	return (int64_t)(((uint64_t)ap->pid << 32) | tid);
}

/* --- rows: made in rowid order, written once, complete ------------------------ */

/* A range ended: into the list, while it holds them all. */
static int note_range(struct exp_mstx *m, int64_t start, int64_t end, int64_t msg, int64_t dom)
{
	if (m->ranges_lost)
		return 0;
	if (m->n_ranges == RANGES_MAX) {
		m->ranges_lost = true;
		free(m->ranges);
		m->ranges = NULL;
		m->n_ranges = m->cap_ranges = 0;
		return 0;
	}
	int r = GROW_ARRAY(m->ranges, m->cap_ranges, m->n_ranges, 1024);
	if (r < 0)
		return r;
	m->ranges[m->n_ranges++] = (struct exp_mstx_range){ start, end, msg, dom };
	return 0;
}

struct ended {
	struct exp_mstx *m;
	int64_t end;
};

/* A range's row written open, now ended at w->end. */
static int ended_row(sqlite3_stmt *st, void *ctx)
{
	struct ended *w = ctx;
	int64_t start = sqlite3_column_int64(st, 0);
	return note_range(w->m, start, w->end < start ? start : w->end, sqlite3_column_int64(st, 1),
			  sqlite3_column_int64(st, 2));
}

static int write_row(struct exp_mstx *m, int64_t rowid, const struct prow *p)
{
	const union exp_value v[INSERT_COLUMNS] = {
		{ .i = p->start }, { .i = p->end < 0 ? EXP_NULL : p->end }, /* NULL: still open */
		{ .i = p->type },  { .i = p->range_id },
		{ .i = p->category }, { .i = p->msg },
		{ .i = p->gtid },  { .i = p->end_gtid },
		{ .i = p->dom },   { .i = EXPORT_MSTX_NO_CONNECTION },
	};
	if (p->end < 0) {
		if (!m->first_open)
			m->first_open = rowid;
		if (m->n_opened == OPENED_MAX) {
			m->opened_lost = true;
			free(m->opened);
			m->opened = NULL;
			m->n_opened = m->cap_opened = 0;
		}
		if (!m->opened_lost) {
			int r = GROW_ARRAY(m->opened, m->cap_opened, m->n_opened, 64);
			if (r < 0)
				return r;
			m->opened[m->n_opened++] = rowid;
		}
	}
	if (p->end >= 0 && (p->type == 1 || p->type == 2)) {
		int r = note_range(m, p->start, p->end, p->msg, p->dom);
		if (r < 0)
			return r;
	}
	return exp_batch_put(&m->rows, v);
}

static struct prow *pending_at(struct exp_mstx *m, int64_t rowid)
{
	return &m->pending[(size_t)rowid & (m->cap_pending - 1)];
}

/* Write the complete rows at the head, up to the first open one (all of
 * them with all: the process ends). */
static int flush(struct exp_mstx *m, bool all)
{
	for (; m->head < m->next; m->head++) {
		const struct prow *p = pending_at(m, m->head);
		if (p->end < 0 && !all)
			return 0;
		int r = write_row(m, m->head, p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Room for one more pending row: the window doubles up to PENDING_MAX;
 * past it the oldest row is written, open if it still is. */
static int pending_room(struct exp_mstx *m)
{
	size_t n = (size_t)(m->next - m->head);
	if (n < m->cap_pending)
		return 0;
	if (m->cap_pending < PENDING_MAX) {
		size_t cap = m->cap_pending ? m->cap_pending * 2 : 1024;
		struct prow *q = malloc(cap * sizeof *q);
		if (!q)
			return -ENOMEM;
		for (int64_t id = m->head; id < m->next; id++)
			q[(size_t)id & (cap - 1)] = *pending_at(m, id);
		free(m->pending);
		m->pending = q;
		m->cap_pending = cap;
		return 0;
	}
	int r = write_row(m, m->head, pending_at(m, m->head));
	if (r < 0)
		return r;
	m->head++;
	return flush(m, false);
}

/* A row; end < 0: still open, counted until its end comes.  *ret_rowid
 * gets its rowid. */
static int add_row(struct exp_mstx *m, const struct exp_agent_process *ap, int64_t start, int64_t end, uint32_t type,
		   int64_t range_id, uint64_t category, const char *msg, uint32_t tid, int64_t end_gtid,
		   const struct dom *d, int64_t *ret_rowid)
{
	int64_t msg_id;
	int r = exp_intern_id(m->e, msg, &msg_id);
	if (r < 0 || (r = pending_room(m)) < 0)
		return r;
	int64_t rowid = m->next++;
	uint64_t step;
	/* the first letter first: a step's message is rare */
	if (msg[0] && strchr("sSpP", msg[0]) && step_parse(msg, strlen(msg), &step) && !m->steps_lost) {
		if (m->n_steps == STEP_ROWS_MAX) {
			m->steps_lost = true;
		} else {
			if ((r = GROW_ARRAY(m->steps, m->cap_steps, m->n_steps, 64)) < 0)
				return r;
			m->steps[m->n_steps++] = (struct exp_mstx_step_row){ gtid(ap, tid) >> 32, start, rowid };
		}
	}
	*pending_at(m, rowid) = (struct prow){
		.start = start,
		.end = end < 0 ? -1 : end < start ? start : end,
		.type = type,
		.range_id = range_id,
		.category = category && category < (uint64_t)EXPORT_MSTX_NONE ? (int64_t)category : EXPORT_MSTX_NONE,
		.msg = msg_id,
		.gtid = gtid(ap, tid),
		.end_gtid = end_gtid,
		.dom = d->sid,
	};
	if (end < 0)
		m->n_open++;
	if (ret_rowid)
		*ret_rowid = rowid;
	return rowid == m->head && end >= 0 ? flush(m, false) : 0;
}

/* The end of the range of row rowid: in the pending row, or an update of
 * the row written open. */
static int end_row(struct exp_mstx *m, const struct exp_agent_process *ap, int64_t rowid, int64_t end, uint32_t tid)
{
	m->n_open--;
	if (rowid >= m->head) {
		struct prow *p = pending_at(m, rowid);
		p->end = end < p->start ? p->start : end;
		p->end_gtid = gtid(ap, tid);
		return rowid == m->head ? flush(m, false) : 0;
	}
	int r = exp_batch_drain(&m->rows); /* the row is in the table */
	if (r < 0)
		return r;
	sqlite3_stmt *st = m->st[MS_END];
	sqlite3_bind_int64(st, 1, end);
	sqlite3_bind_int64(st, 2, gtid(ap, tid));
	sqlite3_bind_int64(st, 3, rowid);
	r = step(m, MS_END);
	if (r < 0 || m->ranges_lost)
		return r;
	sqlite3_bind_int64(m->st[MS_ROW], 1, rowid);
	r = exp_stmt_each(m->e, m->st[MS_ROW], "MSTX_EVENTS", ended_row, &(struct ended){ m, end });
	return r < 0 ? r : 0;
}

/* The domain of a mark or a start; *ret NULL when the filter leaves the
 * event out (counted). */
static int kept_domain(struct exp_mstx *m, struct exp_agent_process *ap, uint64_t id, const struct dom **ret)
{
	const struct dom *d;
	int r = domain_get(m, id, &d);
	if (r != 0)
		return r;
	if (d->skip) {
		ap->filtered++;
		d = NULL;
	}
	*ret = d;
	return 0;
}

static int take_mark(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		     int64_t t)
{
	struct exp_mstx *m = mstx_of(e);
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t domain = raw_cur_u64(c), category = raw_cur_u64(c);
	(void)raw_cur_u32(c); /* color */
	(void)raw_cur_u32(c);
	if (!exp_take_str(c, m->msg) || (type != 0 && type != 3))
		return 1;
	const struct dom *d;
	int r = kept_domain(m, ap, domain, &d);
	if (r != 0 || !d)
		return r;
	return add_row(m, ap, t, t, type, EXPORT_MSTX_NONE, category, m->msg, tid, gtid(ap, tid), d, NULL);
}

static struct stack *stack_for(struct exp_mstx *m, uint32_t tid, uint64_t domain, bool create)
{
	uint64_t key = ((uint64_t)tid << 32) | (domain & 0xffffffffU);
	if (!key)
		key = 1ULL << 63; /* tid 0, default domain: 0 is the empty key */
	struct mval *v = map_get(&m->stack_of, key);
	if (v)
		return &m->stacks[v->a];
	if (!create || m->n_stacks >= STACKS_MAX)
		return NULL;
	struct stack *s = grow_array(m->stacks, &m->cap_stacks, m->n_stacks, sizeof *s, 16);
	if (!s)
		return NULL;
	m->stacks = s;
	if (map_put(&m->stack_of, key, (struct mval){ (int64_t)m->n_stacks, 0 }) < 0)
		return NULL;
	m->stacks[m->n_stacks] = (struct stack){ 0 };
	return &m->stacks[m->n_stacks++];
}

static int take_start(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		     int64_t t)
{
	struct exp_mstx *m = mstx_of(e);
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t id = raw_cur_u64(c), domain = raw_cur_u64(c), category = raw_cur_u64(c);
	(void)raw_cur_u32(c);
	(void)raw_cur_u32(c);
	if (!exp_take_str(c, m->msg) || (type != 1 && type != 2) || (type == 2 && id == 0))
		return 1;
	const struct dom *d;
	int r = kept_domain(m, ap, domain, &d);
	if (r != 0 || !d)
		return r;
	int64_t rowid;
	if (type == 2) {
		struct mval early;
		if (map_take(&m->early, id, &early))
			return add_row(m, ap, t, early.a, type, (int64_t)id, category, m->msg, tid,
				      gtid(ap, (uint32_t)early.b), d, NULL);
		r = add_row(m, ap, t, -1, type, (int64_t)id, category, m->msg, tid, gtid(ap, tid), d, &rowid);
		if (r < 0)
			return r;
		r = map_put(&m->open, id, (struct mval){ rowid, 0 });
		if (r == -ENOSPC) {
			ap->overflow++;
			return 0;
		}
		return r;
	}
	r = add_row(m, ap, t, -1, type, EXPORT_MSTX_NONE, category, m->msg, tid, gtid(ap, tid), d, &rowid);
	if (r < 0)
		return r;
	struct stack *s = stack_for(m, tid, domain, true);
	if (!s || m->pushed >= MATCH_MAX) {
		ap->overflow++;
		if (s)
			s->lost++;
		return 0;
	}
	if (s->lost) { /* deeper than one that found no room: cannot be matched in order */
		s->lost++;
		ap->overflow++;
		return 0;
	}
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		int64_t *rows = realloc(s->rows, cap * sizeof *rows);
		if (!rows)
			return -ENOMEM;
		s->rows = rows;
		s->cap = cap;
	}
	s->rows[s->n++] = rowid;
	m->pushed++;
	return 0;
}

static int take_end(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		     int64_t t)
{
	struct exp_mstx *m = mstx_of(e);
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t id = raw_cur_u64(c), domain = raw_cur_u64(c);
	if (c->err || (type != 1 && type != 2) || (type == 2 && id == 0))
		return 1;
	const struct dom *d;
	int r = domain_get(m, domain, &d);
	if (r != 0)
		return r;
	if (d->skip)
		return 0; /* its start was left out */
	if (type == 2) {
		struct mval open;
		if (map_take(&m->open, id, &open))
			return end_row(m, ap, open.a, t, tid);
		r = map_put(&m->early, id, (struct mval){ t, tid });
		if (r == -ENOSPC) {
			ap->end_without_start++;
			return 0;
		}
		return r;
	}
	struct stack *s = stack_for(m, tid, domain, false);
	if (s && s->lost) {
		s->lost--; /* the pop of a push that found no room: its row ends at the session end */
		return 0;
	}
	if (!s || !s->n) {
		ap->end_without_start++;
		return 0;
	}
	m->pushed--;
	return end_row(m, ap, s->rows[--s->n], t, tid);
}

static int take_domain(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		       int64_t t)
{
	struct exp_mstx *m = mstx_of(e);
	uint64_t id = raw_cur_u64(c);
	if (!exp_take_str(c, m->msg) || id == 0)
		return 1;
	return domain_set(m, id, m->msg);
}

static int take_category(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec,
			 struct raw_cur *c, int64_t t)
{
	struct exp_mstx *m = mstx_of(e);
	uint64_t domain = raw_cur_u64(c), category = raw_cur_u64(c);
	if (!exp_take_str(c, m->msg) || category > INT64_MAX)
		return 1;
	int64_t sid;
	const struct dom *d;
	int r = domain_get(m, domain, &d);
	if (r != 0)
		return r;
	int64_t dsid = d->sid;
	if ((r = exp_intern_id(m->e, m->msg, &sid)) < 0)
		return r;
	sqlite3_stmt *st = m->st[MS_CATEGORY];
	sqlite3_bind_int64(st, 1, ap->pid);
	sqlite3_bind_int64(st, 2, dsid);
	sqlite3_bind_int64(st, 3, (int64_t)category);
	sqlite3_bind_int64(st, 4, sid);
	return step(m, MS_CATEGORY);
}


struct exp_mstx_state *exp_mstx_state(struct exp *e)
{
	void **slot = exp_domain_state(e, &exp_domain_mstx);
	if (!*slot)
		*slot = calloc(1, sizeof(struct exp_mstx_state));
	return *slot;
}

void exp_mstx_state_drop(struct exp *e)
{
	void **slot = exp_domain_state(e, &exp_domain_mstx);
	struct exp_mstx_state *s = *slot;
	if (s && !s->parse && !s->layer && !s->csv && !s->sums) {
		free(s);
		*slot = NULL;
	}
}

/* --- the agent parse's hooks ---------------------------------------------------------- */

static int mstx_begin_all(struct exp *e)
{
	struct exp_mstx *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	m->e = e;
	m->head = m->next = 1; /* MSTX_EVENTS is empty */
	struct exp_mstx_state *s = exp_mstx_state(e);
	if (!s) {
		free(m);
		return -ENOMEM;
	}
	s->parse = m;
	int r = exp_batch_init(e, &m->rows, "MSTX_EVENTS", "iiiiiiiiii");
	for (int i = 0; i < _MS_MAX && r == 0; i++)
		r = exp_prepare(e, ms_sql[i], &m->st[i]);
	return r;
}

static int mstx_begin(struct exp *e, struct exp_agent_process *ap)
{
	struct exp_mstx *m = mstx_of(e);
	m->n_doms = 0;
	m->n_open = 0;
	m->def = (struct dom){ 0, 0, domain_skipped(e, "default") };
	return exp_intern_id(e, "default", &m->def.sid);
}

static int mstx_end(struct exp *e, struct exp_agent_process *ap)
{
	struct exp_mstx *m = mstx_of(e);
	/* the ranges still open are written open: they end at the session
	 * end, known once every process was read (end_all) */
	int r = flush(m, true);
	if (r < 0)
		return r;
	ap->open_at_end = m->n_open;
	m->open_at_end += m->n_open;
	/* ends whose start never came */
	ap->end_without_start += m->early.used;
	m->t_unmatched += ap->end_without_start;
	m->t_overflow += ap->overflow;
	return 0;
}

static void mstx_forget(struct exp *e)
{
	struct exp_mstx *m = mstx_of(e);
	m->head = m->next; /* a failed process's rows: the parse fails */
	map_release(&m->open);
	map_release(&m->early);
	map_release(&m->stack_of);
	for (size_t i = 0; i < m->n_stacks; i++)
		free(m->stacks[i].rows);
	free(m->stacks);
	m->stacks = NULL;
	m->n_stacks = m->cap_stacks = 0;
	m->pushed = 0;
	map_release(&m->dom_of);
	m->n_doms = 0;
}

/* The rows still open (endNs NULL) among those written open, from first
 * on or by rowid: into the list of ranges, then ended at end. */
static int close_rows(struct exp *e, struct exp_mstx *m, int64_t end, const int64_t *rowids, size_t n, int64_t first)
{
	static const char *const sql[2][2] = {
		{ "SELECT startNs, message, domainId FROM MSTX_EVENTS WHERE rowid >= ? AND endNs IS NULL",
		  "UPDATE MSTX_EVENTS SET endNs = max(?2, startNs) WHERE rowid >= ?1 AND endNs IS NULL" },
		{ "SELECT startNs, message, domainId FROM MSTX_EVENTS WHERE rowid = ? AND endNs IS NULL",
		  "UPDATE MSTX_EVENTS SET endNs = max(?2, startNs) WHERE rowid = ?1 AND endNs IS NULL" },
	};
	const char *const *q = sql[rowids != NULL];
	sqlite3_stmt *sel = NULL, *up = NULL;
	int r = exp_prepare(e, q[0], &sel);
	if (r == 0)
		r = exp_prepare(e, q[1], &up);
	for (size_t i = 0; r >= 0 && i < (rowids ? n : 1); i++) {
		int64_t id = rowids ? rowids[i] : first;
		if (!m->ranges_lost) {
			sqlite3_bind_int64(sel, 1, id);
			r = exp_stmt_each(e, sel, "open ranges", ended_row, &(struct ended){ m, end });
		}
		if (r >= 0) {
			sqlite3_bind_int64(up, 1, id);
			sqlite3_bind_int64(up, 2, end);
			r = exp_step_done(e, up, "closing open ranges");
		}
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(up);
	return r < 0 ? r : 0;
}

/* Ranges still open when the data ends close at the session end: those
 * written open and not ended since (listed, or past the list found from
 * the first of them on). */
static int close_open(struct exp *e, struct exp_mstx *m)
{
	int64_t end = e->end_ns ? (int64_t)e->end_ns : e->last_ns;
	if (m->opened_lost)
		return close_rows(e, m, end, NULL, 0, m->first_open);
	return close_rows(e, m, end, m->opened, m->n_opened, 0);
}

/* Ranges still open when the data ends close at the session end (each
 * process's count is in its AGENT_COUNTERS row); then the readers' index,
 * made after the load: by thread, then time, the longer first (the
 * timeline's order, so it reads the events without a sort). */
static int mstx_end_all(struct exp *e)
{
	struct exp_mstx *m = mstx_of(e);
	/* the rowids the ranges' ends were matched by are the table's */
	int64_t last = 0;
	int r = exp_batch_drain(&m->rows);
	if (r == 0)
		r = exp_each(e, "SELECT max(rowid) FROM MSTX_EVENTS", NULL, db_row_i64, &last);
	if (r < 0)
		return r;
	if (last != m->next - 1) {
		exp_note(e, "mstx: MSTX_EVENTS has rowids up to %" PRId64 ", %" PRId64 " rows were written", last,
			 m->next - 1);
		return -EIO;
	}
	r = m->open_at_end ? close_open(e, m) : 0;
	/* each thread's events in start order, the longer first (the export's
	 * order, domain-mstx.c), and every column the mstx outputs, report.html's
	 * ranges and the device tasks' range sweep read: they read the index
	 * alone */
	if (r == 0)
		r = exp_exec(e, "CREATE INDEX MstxEventsIndex ON MSTX_EVENTS "
				"(globalTid, startNs, endNs DESC, category, eventType, message, domainId)");
	return r;
}

static void mstx_report(struct exp *e)
{
	const struct exp_mstx *m = mstx_of(e);
	if (m->open_at_end) {
		if (e->flight.on)
			exp_note(e, "mstx: %" PRIu64 " range(s) still open at the flight recorder's dump: they end at its "
				    "end", m->open_at_end);
		else
			exp_note(e, "mstx: %" PRIu64 " range(s) never ended: they end at the session end", m->open_at_end);
	}
	if (m->t_unmatched)
		exp_note(e, "mstx: %" PRIu64 " range end(s) without a start left out%s", m->t_unmatched,
			 e->flight.on ? " (the flight recorder's ring had overwritten their starts)" : "");
	if (m->t_overflow)
		exp_note(e, "mstx: %" PRIu64 " range(s) beyond %u open at once could not be matched "
			     "to their ends", m->t_overflow, MATCH_MAX);
}

static int step_row_cmp(const void *x, const void *y)
{
	const struct exp_mstx_step_row *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->rowid > b->rowid) - (a->rowid < b->rowid);
}

int exp_mstx_step_rows(struct exp *e, const struct exp_mstx_step_row **ret, size_t *ret_n)
{
	struct exp_mstx *m = mstx_of(e);
	if (!m || m->steps_lost)
		return 0;
	if (!m->steps_sorted) {
		qsort_safe(m->steps, m->n_steps, sizeof *m->steps, step_row_cmp);
		m->steps_sorted = true;
	}
	*ret = m->steps;
	*ret_n = m->n_steps;
	return 1;
}

int exp_mstx_ranges(struct exp *e, const struct exp_mstx_range **ret, size_t *ret_n)
{
	struct exp_mstx *m = mstx_of(e);
	if (!m || m->ranges_lost)
		return 0;
	*ret = m->ranges;
	*ret_n = m->n_ranges;
	return 1;
}

void exp_mstx_release(struct exp *e)
{
	struct exp_mstx *m = mstx_of(e);
	if (!m)
		return;
	for (int i = 0; i < _MS_MAX; i++)
		sqlite3_finalize(m->st[i]);
	exp_batch_release(&m->rows);
	free(m->pending);
	free(m->steps);
	free(m->ranges);
	free(m->opened);
	free(m->doms);
	free(m);
	exp_mstx_state(e)->parse = NULL;
	exp_mstx_state_drop(e);
}

const struct exp_agent_ops exp_mstx_agent_ops = {
	.begin_all = mstx_begin_all,
	.begin = mstx_begin,
	.end = mstx_end,
	.forget = mstx_forget,
	.end_all = mstx_end_all,
	.report = mstx_report,
};

const struct exp_agent_record exp_mstx_records[] = {
	{ RAW_AGENT_MARK, take_mark },
	{ RAW_AGENT_RANGE_START, take_start },
	{ RAW_AGENT_RANGE_END, take_end },
	{ RAW_AGENT_DOMAIN, take_domain },
	{ RAW_AGENT_CATEGORY, take_category },
	{ 0, NULL },
};
