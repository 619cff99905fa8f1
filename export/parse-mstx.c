/* The mstx domain's part of the agents' files (parse-agent.c reads them):
 * its records (marks, ranges, domains, categories) -> MSTX_EVENTS and
 * AGENT_CATEGORY, through its decoders and the agent parse's hooks
 * (exp_mstx_agent_ops, exp_mstx_records; the entry is domain-mstx.c's).
 *
 * One process at a time, its slices in order, records as they come.  A row
 * goes into MSTX_EVENTS when its mark or range starts; a range's end updates
 * its row (by rowid).  What stays in memory is what matching needs, bounded:
 *
 *   open     start/end ranges by range id -> rowid (MATCH_MAX entries)
 *   early    ends read before their start (the agent drains each thread's
 *            buffer in turn, so a range ended on another thread can come
 *            first) by range id -> end time and thread (MATCH_MAX)
 *   stacks   push/pop ranges per (thread, domain): rowids, innermost last
 *            (MATCH_MAX entries in all)
 *   domains  domain id -> name (STRING_IDS id), filtered or not
 *
 * A start that finds its table full still gets its row; it is counted
 * (matchOverflow) and ends, like every range still open when the data
 * ends, at the session end (openAtEnd).  A push that finds no room is
 * remembered as a count on its stack, so the pop that belongs to it does
 * not end an outer range.  An end without its start is counted
 * (endWithoutStart).  Every count reaches the report. */
#include "collectors/raw.h"
#include "export/internal.h"
#include "common/util.h"

#define MATCH_MAX (1U << 18)        /* entries in each matching table */
#define DOMAINS_MAX 65536           /* per process; the agent keeps 4096 */
#define STACKS_MAX 65536            /* (thread, domain) pairs with pushes */

enum {
	MS_INSERT,
	MS_END,
	MS_CATEGORY,
	_MS_MAX,
};

static const char *const ms_sql[_MS_MAX] = {
	[MS_INSERT] = "INSERT INTO MSTX_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* an end before the start (clocks of two threads read in the other
	 * order) is taken as the start */
	[MS_END] = "UPDATE MSTX_EVENTS SET endNs = max(?1, startNs), endGlobalTid = ?2 WHERE rowid = ?3",
	[MS_CATEGORY] = "INSERT INTO AGENT_CATEGORY (pid, domainId, category, name) VALUES (?, ?, ?, ?) "
			"ON CONFLICT (pid, domainId, category) DO UPDATE SET name = excluded.name",
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


/* The matching state of the process being read, and the totals of all. */
struct exp_mstx {
	struct exp *e;
	sqlite3_stmt *st[_MS_MAX];

	struct dom *doms;
	size_t n_doms, cap_doms;
	struct map dom_of;  /* domain id -> index in doms */
	struct dom def;

	struct map open, early, stack_of;
	struct stack *stacks;
	size_t n_stacks, cap_stacks;
	size_t pushed;
	char msg[RAW_AGENT_MAX_STR + 1];

	uint64_t t_unmatched, t_overflow, open_at_end;
};

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
	if (e->mstx_include[0])
		return !in_list(e->mstx_include, name);
	return e->mstx_exclude[0] && in_list(e->mstx_exclude, name);
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

/* A row; end < 0: still open (endNs NULL).  *ret_rowid gets its rowid. */
static int insert(struct exp_mstx *m, const struct exp_agent_process *ap, int64_t start, int64_t end, uint32_t type,
		  int64_t range_id, uint64_t category, const char *msg, uint32_t tid, int64_t end_gtid,
		  const struct dom *d, int64_t *ret_rowid)
{
	int64_t msg_id;
	int r = exp_intern_id(m->e, msg, &msg_id);
	if (r < 0)
		return r;
	sqlite3_stmt *st = m->st[MS_INSERT];
	sqlite3_bind_int64(st, 1, start);
	if (end >= 0)
		sqlite3_bind_int64(st, 2, end < start ? start : end);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, type);
	sqlite3_bind_int64(st, 4, range_id);
	sqlite3_bind_int64(st, 5, category && category < (uint64_t)EXPORT_MSTX_NONE ? (int64_t)category :
									      EXPORT_MSTX_NONE);
	sqlite3_bind_int64(st, 6, msg_id);
	sqlite3_bind_int64(st, 7, gtid(ap, tid));
	sqlite3_bind_int64(st, 8, end_gtid);
	sqlite3_bind_int64(st, 9, d->sid);
	sqlite3_bind_int64(st, 10, EXPORT_MSTX_NO_CONNECTION);
	r = step(m, MS_INSERT);
	if (r == 0 && ret_rowid)
		*ret_rowid = sqlite3_last_insert_rowid(m->e->db);
	return r;
}

static int end_row(struct exp_mstx *m, const struct exp_agent_process *ap, int64_t rowid, int64_t end, uint32_t tid)
{
	sqlite3_stmt *st = m->st[MS_END];
	sqlite3_bind_int64(st, 1, end);
	sqlite3_bind_int64(st, 2, gtid(ap, tid));
	sqlite3_bind_int64(st, 3, rowid);
	return step(m, MS_END);
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
	struct exp_mstx *m = e->mstx;
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
	return insert(m, ap, t, t, type, EXPORT_MSTX_NONE, category, m->msg, tid, gtid(ap, tid), d, NULL);
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
	struct exp_mstx *m = e->mstx;
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
			return insert(m, ap, t, early.a, type, (int64_t)id, category, m->msg, tid,
				      gtid(ap, (uint32_t)early.b), d, NULL);
		r = insert(m, ap, t, -1, type, (int64_t)id, category, m->msg, tid, gtid(ap, tid), d, &rowid);
		if (r < 0)
			return r;
		r = map_put(&m->open, id, (struct mval){ rowid, 0 });
		if (r == -ENOSPC) {
			ap->overflow++;
			return 0;
		}
		return r;
	}
	r = insert(m, ap, t, -1, type, EXPORT_MSTX_NONE, category, m->msg, tid, gtid(ap, tid), d, &rowid);
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
	struct exp_mstx *m = e->mstx;
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
	struct exp_mstx *m = e->mstx;
	uint64_t id = raw_cur_u64(c);
	if (!exp_take_str(c, m->msg) || id == 0)
		return 1;
	return domain_set(m, id, m->msg);
}

static int take_category(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec,
			 struct raw_cur *c, int64_t t)
{
	struct exp_mstx *m = e->mstx;
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


/* --- the agent parse's hooks ---------------------------------------------------------- */

static int mstx_begin_all(struct exp *e)
{
	struct exp_mstx *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	m->e = e;
	e->mstx = m;
	/* ranges still open, found again at the end (end_all) */
	int r = exp_exec(e, "CREATE INDEX MstxOpenIndex ON MSTX_EVENTS (globalTid) WHERE endNs IS NULL");
	for (int i = 0; i < _MS_MAX && r == 0; i++)
		r = exp_prepare(e, ms_sql[i], &m->st[i]);
	return r;
}

static int mstx_begin(struct exp *e, struct exp_agent_process *ap)
{
	struct exp_mstx *m = e->mstx;
	m->n_doms = 0;
	m->def = (struct dom){ 0, 0, domain_skipped(e, "default") };
	return exp_intern_id(e, "default", &m->def.sid);
}

static void mstx_end(struct exp *e, struct exp_agent_process *ap)
{
	struct exp_mstx *m = e->mstx;
	/* ends whose start never came */
	ap->end_without_start += m->early.used;
	m->t_unmatched += ap->end_without_start;
	m->t_overflow += ap->overflow;
}

static void mstx_forget(struct exp *e)
{
	struct exp_mstx *m = e->mstx;
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

struct open_count {
	struct exp *e;
	sqlite3_stmt *up;
	uint64_t total;
};

/* A process's ranges left open, into its AGENT_COUNTERS row. */
static int open_count_row(sqlite3_stmt *st, void *ctx)
{
	struct open_count *w = ctx;
	sqlite3_bind_int64(w->up, 1, sqlite3_column_int64(st, 0));
	sqlite3_bind_int64(w->up, 2, sqlite3_column_int64(st, 1));
	w->total += (uint64_t)sqlite3_column_int64(st, 1);
	return exp_step_done(w->e, w->up, "AGENT_COUNTERS");
}

/* Ranges still open when the data ends close at the session end, counted
 * per process (a partial index keeps finding them cheap). */
static int mstx_end_all(struct exp *e)
{
	int64_t end = e->end_ns ? (int64_t)e->end_ns : e->last_ns;
	struct open_count w = { e, NULL, 0 };
	sqlite3_stmt *st;
	int r = exp_prepare(e, "SELECT globalTid >> 32, COUNT(*) FROM MSTX_EVENTS WHERE endNs IS NULL GROUP BY 1", &st);
	if (r < 0)
		return r;
	r = exp_prepare(e, "UPDATE AGENT_COUNTERS SET openAtEnd = ?2 WHERE pid = ?1", &w.up);
	if (r == 0)
		r = exp_stmt_each(e, st, "open ranges", open_count_row, &w);
	sqlite3_finalize(st);
	sqlite3_finalize(w.up);
	if (r < 0)
		return r;
	e->mstx->open_at_end = w.total;
	r = exp_prepare(e, "UPDATE MSTX_EVENTS SET endNs = max(?, startNs) WHERE endNs IS NULL", &st);
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, end);
	r = exp_step_done(e, st, "closing open ranges");
	sqlite3_finalize(st);
	/* the open-range index served its purpose; one for the readers (by
	 * thread, then time, the longer first: the timeline's order, so it
	 * reads the events without a sort) replaces it */
	if (r == 0)
		r = exp_exec(e, "DROP INDEX MstxOpenIndex");
	if (r == 0)
		r = exp_exec(e, "CREATE INDEX MstxEventsIndex ON MSTX_EVENTS (globalTid, startNs, endNs DESC)");
	return r;
}

static void mstx_report(struct exp *e)
{
	const struct exp_mstx *m = e->mstx;
	if (m->open_at_end)
		exp_note_add(e, "mstx: %" PRIu64 " range(s) never ended: they end at the session end", m->open_at_end);
	if (m->t_unmatched)
		exp_note_add(e, "mstx: %" PRIu64 " range end(s) without a start left out", m->t_unmatched);
	if (m->t_overflow)
		exp_note_add(e, "mstx: %" PRIu64 " range(s) beyond %u open at once could not be matched "
			     "to their ends", m->t_overflow, MATCH_MAX);
}

void exp_mstx_release(struct exp *e)
{
	struct exp_mstx *m = e->mstx;
	if (!m)
		return;
	for (int i = 0; i < _MS_MAX; i++)
		sqlite3_finalize(m->st[i]);
	free(m->doms);
	free(m);
	e->mstx = NULL;
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
