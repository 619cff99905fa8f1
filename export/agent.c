/* Agent data: every host/data/agent_<pid>.data.slice_<n> -> MSTX_EVENTS,
 * OSRT_API and the AGENT_* tables (SCHEMA.md has the meaning of each
 * column).  An OS runtime call is one record and one row.
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
#include "export/internal.h"
#include "collectors/osrt-api.h"
#include "collectors/raw.h"
#include "common/util.h"

#define MATCH_MAX (1U << 18)        /* entries in each matching table */
#define DOMAINS_MAX 65536           /* per process; the agent keeps 4096 */
#define STACKS_MAX 65536            /* (thread, domain) pairs with pushes */

enum {
	ST_INSERT,
	ST_END,
	ST_THREAD,
	ST_CATEGORY,
	ST_PROCESS,
	ST_COUNTERS,
	ST_OSRT,
	_ST_MAX,
};

static const char *const st_sql[_ST_MAX] = {
	[ST_INSERT] = "INSERT INTO MSTX_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* an end before the start (clocks of two threads read in the other
	 * order) is taken as the start */
	[ST_END] = "UPDATE MSTX_EVENTS SET endNs = max(?1, startNs), endGlobalTid = ?2 WHERE rowid = ?3",
	[ST_THREAD] = "INSERT INTO AGENT_THREAD (pid, tid, name) VALUES (?, ?, ?) "
		      "ON CONFLICT (pid, tid) DO UPDATE SET name = excluded.name",
	[ST_CATEGORY] = "INSERT INTO AGENT_CATEGORY (pid, domainId, category, name) VALUES (?, ?, ?, ?) "
			"ON CONFLICT (pid, domainId, category) DO UPDATE SET name = excluded.name",
	[ST_PROCESS] = "INSERT INTO AGENT_PROCESS VALUES (?, ?, ?, ?, ?, ?, ?)",
	[ST_COUNTERS] = "INSERT INTO AGENT_COUNTERS VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
	[ST_OSRT] = "INSERT INTO OSRT_API VALUES (?, ?, ?, ?)",
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

struct agent_parse {
	struct exp *e;
	sqlite3_stmt *st[_ST_MAX];
	struct raw_header h;
	uint32_t pid;

	struct dom *doms;
	size_t n_doms, cap_doms;
	struct map dom_of;  /* domain id -> index in doms */
	struct dom def;

	struct map open, early, stack_of;
	struct stack *stacks;
	size_t n_stacks, cap_stacks;
	size_t pushed;
	char msg[RAW_AGENT_MAX_STR + 1];

	/* this process */
	bool have_proc, have_counters, have_records;
	uint32_t ppid;
	int32_t rank;
	int64_t name_sid;
	char *cmdline;
	int64_t first_ns, last_ns;
	uint64_t events, dropped, bad, truncated;        /* the agent's counts */
	uint64_t gpu_lost, gpu_untimed, gpu_bad;         /* device records not written */
	uint64_t end_without_start, overflow, filtered;  /* ours */
	uint64_t malformed;

	/* all processes, for the report */
	uint64_t t_events, t_dropped, t_bad, t_truncated, t_unmatched, t_overflow;
	uint64_t t_gpu_lost, t_gpu_untimed, t_gpu_bad;
	unsigned t_dropping_pids;
};

static int step(struct agent_parse *p, int idx) { return exp_step_done(p->e, p->st[idx], st_sql[idx]); }

/* A string field: u32 length + bytes, at most RAW_AGENT_MAX_STR, copied
 * NUL-terminated into buf (RAW_AGENT_MAX_STR + 1 bytes); an embedded NUL
 * ends it.  false: malformed. */
static bool take_str(struct raw_cur *c, char *buf)
{
	uint32_t n = raw_cur_u32(c);
	if (c->err || n > RAW_AGENT_MAX_STR || n > c->left) {
		c->err = 1;
		return false;
	}
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	c->left -= n;
	return true;
}

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

static int domain_set(struct agent_parse *p, uint64_t id, const char *name)
{
	int64_t sid;
	int r = exp_intern_id(p->e, name, &sid);
	if (r < 0)
		return r;
	struct mval *v = map_get(&p->dom_of, id);
	if (v) {
		p->doms[v->a].sid = sid;
		p->doms[v->a].skip = domain_skipped(p->e, name);
		return 0;
	}
	if (p->n_doms == p->cap_doms) {
		if (p->cap_doms >= DOMAINS_MAX)
			return 1; /* damage: the agent never has that many */
		size_t cap = p->cap_doms ? p->cap_doms * 2 : 16;
		struct dom *d = realloc(p->doms, cap * sizeof *d);
		if (!d)
			return -ENOMEM;
		p->doms = d;
		p->cap_doms = cap;
	}
	r = map_put(&p->dom_of, id, (struct mval){ (int64_t)p->n_doms, 0 });
	if (r < 0)
		return r == -ENOSPC ? 1 : r;
	p->doms[p->n_doms++] = (struct dom){ id, sid, domain_skipped(p->e, name) };
	return 0;
}

/* The domain of an event; one never described (its slice was lost) gets
 * a name that says so. */
static int domain_get(struct agent_parse *p, uint64_t id, const struct dom **ret)
{
	if (id == 0) {
		*ret = &p->def;
		return 0;
	}
	struct mval *v = map_get(&p->dom_of, id);
	if (v) {
		*ret = &p->doms[v->a];
		return 0;
	}
	char name[48];
	snprintf(name, sizeof name, "unknown domain %" PRIu64, id);
	int r = domain_set(p, id, name);
	if (r != 0)
		return r;
	*ret = &p->doms[p->n_doms - 1];
	return 0;
}

/* --- events --------------------------------------------------------------------- */

static int64_t gtid(const struct agent_parse *p, uint32_t tid)
{
	return (int64_t)(((uint64_t)p->pid << 32) | tid);
}

/* A row; end < 0: still open (endNs NULL).  *ret_rowid gets its rowid. */
static int insert(struct agent_parse *p, int64_t start, int64_t end, uint32_t type, int64_t range_id,
		  uint64_t category, const char *msg, uint32_t tid, int64_t end_gtid, const struct dom *d,
		  int64_t *ret_rowid)
{
	int64_t msg_id;
	int r = exp_intern_id(p->e, msg, &msg_id);
	if (r < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_INSERT];
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
	sqlite3_bind_int64(st, 7, gtid(p, tid));
	sqlite3_bind_int64(st, 8, end_gtid);
	sqlite3_bind_int64(st, 9, d->sid);
	sqlite3_bind_int64(st, 10, EXPORT_MSTX_NO_CONNECTION);
	r = step(p, ST_INSERT);
	if (r == 0 && ret_rowid)
		*ret_rowid = sqlite3_last_insert_rowid(p->e->db);
	return r;
}

static int end_row(struct agent_parse *p, int64_t rowid, int64_t end, uint32_t tid)
{
	sqlite3_stmt *st = p->st[ST_END];
	sqlite3_bind_int64(st, 1, end);
	sqlite3_bind_int64(st, 2, gtid(p, tid));
	sqlite3_bind_int64(st, 3, rowid);
	return step(p, ST_END);
}

static int on_mark(struct agent_parse *p, struct raw_cur *c, int64_t t)
{
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t domain = raw_cur_u64(c), category = raw_cur_u64(c);
	(void)raw_cur_u32(c); /* color */
	(void)raw_cur_u32(c);
	if (!take_str(c, p->msg) || (type != 0 && type != 3))
		return 1;
	const struct dom *d;
	int r = domain_get(p, domain, &d);
	if (r != 0)
		return r;
	if (d->skip) {
		p->filtered++;
		return 0;
	}
	return insert(p, t, t, type, EXPORT_MSTX_NONE, category, p->msg, tid, gtid(p, tid), d, NULL);
}

static struct stack *stack_for(struct agent_parse *p, uint32_t tid, uint64_t domain, bool create)
{
	uint64_t key = ((uint64_t)tid << 32) | (domain & 0xffffffffU);
	if (!key)
		key = 1ULL << 63; /* tid 0, default domain: 0 is the empty key */
	struct mval *v = map_get(&p->stack_of, key);
	if (v)
		return &p->stacks[v->a];
	if (!create || p->n_stacks >= STACKS_MAX)
		return NULL;
	if (p->n_stacks == p->cap_stacks) {
		size_t cap = p->cap_stacks ? p->cap_stacks * 2 : 16;
		struct stack *s = realloc(p->stacks, cap * sizeof *s);
		if (!s)
			return NULL;
		p->stacks = s;
		p->cap_stacks = cap;
	}
	if (map_put(&p->stack_of, key, (struct mval){ (int64_t)p->n_stacks, 0 }) < 0)
		return NULL;
	p->stacks[p->n_stacks] = (struct stack){ 0 };
	return &p->stacks[p->n_stacks++];
}

static int on_start(struct agent_parse *p, struct raw_cur *c, int64_t t)
{
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t id = raw_cur_u64(c), domain = raw_cur_u64(c), category = raw_cur_u64(c);
	(void)raw_cur_u32(c);
	(void)raw_cur_u32(c);
	if (!take_str(c, p->msg) || (type != 1 && type != 2) || (type == 2 && id == 0))
		return 1;
	const struct dom *d;
	int r = domain_get(p, domain, &d);
	if (r != 0)
		return r;
	if (d->skip) {
		p->filtered++;
		return 0;
	}
	int64_t rowid;
	if (type == 2) {
		struct mval early;
		if (map_take(&p->early, id, &early))
			return insert(p, t, early.a, type, (int64_t)id, category, p->msg, tid,
				      gtid(p, (uint32_t)early.b), d, NULL);
		r = insert(p, t, -1, type, (int64_t)id, category, p->msg, tid, gtid(p, tid), d, &rowid);
		if (r < 0)
			return r;
		r = map_put(&p->open, id, (struct mval){ rowid, 0 });
		if (r == -ENOSPC) {
			p->overflow++;
			return 0;
		}
		return r;
	}
	r = insert(p, t, -1, type, EXPORT_MSTX_NONE, category, p->msg, tid, gtid(p, tid), d, &rowid);
	if (r < 0)
		return r;
	struct stack *s = stack_for(p, tid, domain, true);
	if (!s || p->pushed >= MATCH_MAX) {
		p->overflow++;
		if (s)
			s->lost++;
		return 0;
	}
	if (s->lost) { /* deeper than one that found no room: cannot be matched in order */
		s->lost++;
		p->overflow++;
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
	p->pushed++;
	return 0;
}

static int on_end(struct agent_parse *p, struct raw_cur *c, int64_t t)
{
	uint32_t tid = raw_cur_u32(c), type = raw_cur_u32(c);
	uint64_t id = raw_cur_u64(c), domain = raw_cur_u64(c);
	if (c->err || (type != 1 && type != 2) || (type == 2 && id == 0))
		return 1;
	const struct dom *d;
	int r = domain_get(p, domain, &d);
	if (r != 0)
		return r;
	if (d->skip)
		return 0; /* its start was left out */
	if (type == 2) {
		struct mval open;
		if (map_take(&p->open, id, &open))
			return end_row(p, open.a, t, tid);
		r = map_put(&p->early, id, (struct mval){ t, tid });
		if (r == -ENOSPC) {
			p->end_without_start++;
			return 0;
		}
		return r;
	}
	struct stack *s = stack_for(p, tid, domain, false);
	if (s && s->lost) {
		s->lost--; /* the pop of a push that found no room: its row ends at the session end */
		return 0;
	}
	if (!s || !s->n) {
		p->end_without_start++;
		return 0;
	}
	p->pushed--;
	return end_row(p, s->rows[--s->n], t, tid);
}

/* --- the other records ------------------------------------------------------------ */

static int on_process(struct agent_parse *p, struct raw_cur *c)
{
	uint32_t pid = raw_cur_u32(c), ppid = raw_cur_u32(c);
	int32_t rank = (int32_t)raw_cur_u32(c);
	(void)raw_cur_u32(c);
	char *cmd = malloc(RAW_AGENT_MAX_STR + 1);
	if (!cmd)
		return -ENOMEM;
	if (!take_str(c, p->msg) || !take_str(c, cmd) || pid != p->pid) {
		free(cmd);
		return 1;
	}
	int r = exp_intern_id(p->e, p->msg, &p->name_sid);
	if (r < 0) {
		free(cmd);
		return r;
	}
	free(p->cmdline);
	p->cmdline = cmd;
	p->ppid = ppid;
	p->rank = rank;
	p->have_proc = true;
	return 0;
}

static int on_thread(struct agent_parse *p, struct raw_cur *c)
{
	uint32_t tid = raw_cur_u32(c);
	if (!take_str(c, p->msg))
		return 1;
	int64_t sid;
	int r = exp_intern_id(p->e, p->msg, &sid);
	if (r < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_THREAD];
	sqlite3_bind_int64(st, 1, p->pid);
	sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, sid);
	return step(p, ST_THREAD);
}

static int on_domain(struct agent_parse *p, struct raw_cur *c)
{
	uint64_t id = raw_cur_u64(c);
	if (!take_str(c, p->msg) || id == 0)
		return 1;
	return domain_set(p, id, p->msg);
}

static int on_category(struct agent_parse *p, struct raw_cur *c)
{
	uint64_t domain = raw_cur_u64(c), category = raw_cur_u64(c);
	if (!take_str(c, p->msg) || category > INT64_MAX)
		return 1;
	int64_t sid;
	const struct dom *d;
	int r = domain_get(p, domain, &d);
	if (r != 0)
		return r;
	int64_t dsid = d->sid;
	if ((r = exp_intern_id(p->e, p->msg, &sid)) < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_CATEGORY];
	sqlite3_bind_int64(st, 1, p->pid);
	sqlite3_bind_int64(st, 2, dsid);
	sqlite3_bind_int64(st, 3, (int64_t)category);
	sqlite3_bind_int64(st, 4, sid);
	return step(p, ST_CATEGORY);
}

/* An OS runtime call (--host-sys=osrt): OSRT_API(name, globalTid, startNs,
 * endNs).  An api id this build does not know (a newer agent's) is kept
 * under a name that says so. */
static int on_osrt(struct agent_parse *p, struct raw_cur *c, int64_t t)
{
	uint32_t tid = raw_cur_u32(c), api = raw_cur_u32(c);
	uint64_t end = raw_cur_u64(c);
	if (c->err || end > INT64_MAX)
		return 1;
	int64_t end_ns = raw_unix_ns(&p->h, end);
	if (end_ns < t)
		return 1;
	const char *name = osrt_api_name(api);
	char unknown[32];
	if (!name) {
		snprintf(unknown, sizeof unknown, "osrt call %u", api);
		name = unknown;
	}
	int64_t sid;
	int r = exp_intern_id(p->e, name, &sid);
	if (r < 0)
		return r;
	exp_note_time(p->e, end_ns);
	sqlite3_stmt *st = p->st[ST_OSRT];
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, gtid(p, tid));
	sqlite3_bind_int64(st, 3, t);
	sqlite3_bind_int64(st, 4, end_ns);
	return step(p, ST_OSRT);
}

static int on_counters(struct agent_parse *p, struct raw_cur *c)
{
	/* the device counts are missing in an older agent's record */
	uint64_t v[7] = { 0 };
	int n = c->left >= 7 * 8 ? 7 : 4;
	for (int i = 0; i < n; i++)
		v[i] = raw_cur_u64(c);
	if (c->err)
		return 1;
	/* cumulative for the window: the last one has them all */
	p->events = v[0];
	p->dropped = v[1];
	p->bad = v[2];
	p->truncated = v[3];
	p->gpu_lost = v[4];
	p->gpu_untimed = v[5];
	p->gpu_bad = v[6];
	p->have_counters = true;
	return 0;
}

static int on_record(struct agent_parse *p, const struct raw_record *rec)
{
	struct raw_cur c = { .p = rec->payload, .left = rec->len };
	uint64_t ts = raw_cur_u64(&c);
	if (c.err)
		return 1;
	int64_t t = raw_unix_ns(&p->h, ts);
	exp_note_time(p->e, t);
	if (!p->have_records || t < p->first_ns)
		p->first_ns = t;
	if (!p->have_records || t > p->last_ns)
		p->last_ns = t;
	p->have_records = true;

	switch (rec->type) {
	case RAW_AGENT_MARK: return on_mark(p, &c, t);
	case RAW_AGENT_RANGE_START: return on_start(p, &c, t);
	case RAW_AGENT_RANGE_END: return on_end(p, &c, t);
	case RAW_AGENT_PROCESS: return on_process(p, &c);
	case RAW_AGENT_THREAD: return on_thread(p, &c);
	case RAW_AGENT_DOMAIN: return on_domain(p, &c);
	case RAW_AGENT_CATEGORY: return on_category(p, &c);
	case RAW_AGENT_COUNTERS: return on_counters(p, &c);
	case RAW_AGENT_OSRT: return on_osrt(p, &c, t);
	case RAW_AGENT_GPU_TASK:
	case RAW_AGENT_GPU_API:
	case RAW_AGENT_GPU_SYNC: return exp_gpu_record(p->e, &p->h, p->pid, rec);
	default: return 0; /* a newer agent's record */
	}
}

static int on_record_cb(void *ctx, const struct raw_record *rec)
{
	return on_record(ctx, rec);
}

/* --- one process -------------------------------------------------------------------- */

static int process_begin(struct agent_parse *p, uint32_t pid)
{
	p->pid = pid;
	p->have_proc = p->have_counters = p->have_records = false;
	p->ppid = 0;
	p->rank = -1;
	p->name_sid = -1;
	free(p->cmdline);
	p->cmdline = NULL;
	p->events = p->dropped = p->bad = p->truncated = 0;
	p->gpu_lost = p->gpu_untimed = p->gpu_bad = 0;
	p->end_without_start = p->overflow = p->filtered = 0;
	p->n_doms = 0;
	p->def = (struct dom){ 0, 0, domain_skipped(p->e, "default") };
	return exp_intern_id(p->e, "default", &p->def.sid);
}

static void process_forget(struct agent_parse *p)
{
	map_release(&p->open);
	map_release(&p->early);
	map_release(&p->stack_of);
	for (size_t i = 0; i < p->n_stacks; i++)
		free(p->stacks[i].rows);
	free(p->stacks);
	p->stacks = NULL;
	p->n_stacks = p->cap_stacks = 0;
	p->pushed = 0;
	map_release(&p->dom_of);
	p->n_doms = 0;
}

static int process_end(struct agent_parse *p)
{
	int r;
	/* ends whose start never came */
	p->end_without_start += p->early.used;
	if (p->have_proc || p->have_records) {
		sqlite3_stmt *st = p->st[ST_PROCESS];
		if (p->name_sid < 0) {
			char name[32];
			snprintf(name, sizeof name, "pid %u", p->pid);
			if ((r = exp_intern_id(p->e, name, &p->name_sid)) < 0)
				return r;
		}
		sqlite3_bind_int64(st, 1, p->pid);
		sqlite3_bind_int64(st, 2, p->ppid);
		sqlite3_bind_int64(st, 3, p->rank);
		sqlite3_bind_int64(st, 4, p->name_sid);
		if (p->cmdline)
			sqlite3_bind_text(st, 5, p->cmdline, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_int64(st, 6, p->first_ns);
		sqlite3_bind_int64(st, 7, p->last_ns);
		if ((r = step(p, ST_PROCESS)) < 0)
			return r;
	}
	sqlite3_stmt *st = p->st[ST_COUNTERS];
	sqlite3_bind_int64(st, 1, p->pid);
	sqlite3_bind_int64(st, 2, (int64_t)p->events);
	sqlite3_bind_int64(st, 3, (int64_t)p->dropped);
	sqlite3_bind_int64(st, 4, (int64_t)p->bad);
	sqlite3_bind_int64(st, 5, (int64_t)p->truncated);
	sqlite3_bind_int64(st, 6, (int64_t)p->end_without_start);
	sqlite3_bind_int64(st, 7, (int64_t)p->overflow);
	sqlite3_bind_int64(st, 8, (int64_t)p->filtered);
	sqlite3_bind_int64(st, 9, (int64_t)p->gpu_lost);
	sqlite3_bind_int64(st, 10, (int64_t)p->gpu_untimed);
	sqlite3_bind_int64(st, 11, (int64_t)p->gpu_bad);
	if ((r = step(p, ST_COUNTERS)) < 0)
		return r;
	p->t_gpu_lost += p->gpu_lost;
	p->t_gpu_untimed += p->gpu_untimed;
	p->t_gpu_bad += p->gpu_bad;
	p->t_events += p->events;
	p->t_dropped += p->dropped;
	p->t_bad += p->bad;
	p->t_truncated += p->truncated;
	p->t_unmatched += p->end_without_start;
	p->t_overflow += p->overflow;
	p->t_dropping_pids += p->dropped > 0;
	return 0;
}

static int agent_file(struct agent_parse *p, const char *path)
{
	struct raw_reader *rd = NULL;
	int r = exp_reader_open(p->e, path, &rd);
	if (r <= 0)
		return r;
	p->h = *raw_reader_header(rd);
	return exp_reader_drain(p->e, path, rd, on_record_cb, p, &p->malformed);
}

/* --- all processes ------------------------------------------------------------------ */

/* Ranges still open when the data ends close at the session end, counted
 * per process (a partial index keeps finding them cheap). */
static int close_open(struct agent_parse *p, uint64_t *ret_open)
{
	struct exp *e = p->e;
	int64_t end = e->end_ns ? (int64_t)e->end_ns : e->last_ns;
	sqlite3_stmt *st;
	uint64_t total = 0;
	int r = exp_prepare(e, "SELECT globalTid >> 32, COUNT(*) FROM MSTX_EVENTS WHERE endNs IS NULL GROUP BY 1", &st);
	if (r < 0)
		return r;
	sqlite3_stmt *up;
	r = exp_prepare(e, "UPDATE AGENT_COUNTERS SET openAtEnd = ?2 WHERE pid = ?1", &up);
	if (r < 0) {
		sqlite3_finalize(st);
		return r;
	}
	int rc;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_bind_int64(up, 1, sqlite3_column_int64(st, 0));
		sqlite3_bind_int64(up, 2, sqlite3_column_int64(st, 1));
		total += (uint64_t)sqlite3_column_int64(st, 1);
		r = exp_step_done(e, up, "AGENT_COUNTERS");
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, "open ranges");
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	if (r < 0)
		return r;
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
	/* the timeline reads OS runtime calls by thread, then time */
	if (r == 0)
		r = exp_exec(e, "CREATE INDEX OsrtApiIndex ON OSRT_API (globalTid, startNs)");
	*ret_open = total;
	return r;
}

static void report(struct agent_parse *p, uint64_t open)
{
	struct exp *e = p->e;
	struct export_report *rep = e->rep;
	rep->mstx_dropped = p->t_dropped;
	if (p->t_dropped)
		exp_note_add(e, "agent: %" PRIu64 " event(s) (annotations, OS runtime calls) dropped in %u process(es): its buffers "
			     "were full (MSPROF_AGENT_BUFFER_KB makes them larger)", p->t_dropped, p->t_dropping_pids);
	if (p->t_gpu_untimed)
		exp_note_add(e, "device: %" PRIu64 " task(s), call(s) or wait(s) had no end time when CUPTI handed them "
			     "over (still running at the stop) and are left out", p->t_gpu_untimed);
	if (p->t_gpu_lost)
		exp_note_add(e, "device: %" PRIu64 " record(s) lost: the agent's queue of CUPTI records was full",
			     p->t_gpu_lost);
	if (p->t_gpu_bad)
		exp_note_add(e, "device: %" PRIu64 " CUPTI record(s) with impossible values left out", p->t_gpu_bad);
	if (p->t_bad)
		exp_note_add(e, "mstx: %" PRIu64 " bad call(s) ignored (NULL message, unknown range id, pop "
			     "without push, destroyed domain)", p->t_bad);
	if (p->t_truncated)
		exp_note_add(e, "mstx: %" PRIu64 " message(s) cut to %d bytes", p->t_truncated, RAW_AGENT_MAX_STR);
	if (open)
		exp_note_add(e, "mstx: %" PRIu64 " range(s) never ended: they end at the session end", open);
	if (p->t_unmatched)
		exp_note_add(e, "mstx: %" PRIu64 " range end(s) without a start left out", p->t_unmatched);
	if (p->t_overflow)
		exp_note_add(e, "mstx: %" PRIu64 " range(s) beyond %u open at once could not be matched "
			     "to their ends", p->t_overflow, MATCH_MAX);
	if (p->malformed)
		exp_note_add(e, "mstx: %" PRIu64 " agent record(s) with a malformed payload skipped", p->malformed);
}

int exp_parse_agents(struct exp *e, const char *dir)
{
	uint32_t *pids = NULL;
	size_t n = 0;
	int r = raw_list_agent_pids(dir, &pids, &n);
	if (r < 0) {
		if (r == -ENOENT)
			return 0;
		exp_note(e, "cannot list '%s': %s", dir, strerror(-r));
		return r;
	}
	if (!n) {
		free(pids);
		return 0;
	}
	struct agent_parse p = { .e = e };
	r = exp_exec(e, "CREATE INDEX MstxOpenIndex ON MSTX_EVENTS (globalTid) WHERE endNs IS NULL");
	for (int i = 0; i < _ST_MAX && r == 0; i++)
		r = exp_prepare(e, st_sql[i], &p.st[i]);
	for (size_t i = 0; i < n && r == 0; i++) {
		char stem[RAW_STEM_MAX];
		char **paths = NULL;
		raw_agent_stem((pid_t)pids[i], stem);
		int k = raw_list_stem_slices(dir, stem, &paths);
		if (k <= 0) {
			raw_paths_free(paths);
			continue;
		}
		r = process_begin(&p, pids[i]);
		for (char **pp = paths; r == 0 && *pp; pp++)
			r = agent_file(&p, *pp);
		raw_paths_free(paths);
		if (r == 0)
			r = process_end(&p);
		process_forget(&p);
	}
	uint64_t open = 0;
	if (r == 0)
		r = close_open(&p, &open);
	if (r == 0)
		report(&p, open);
	e->rep->bad_records += p.malformed;
	free(p.doms);
	free(p.cmdline);
	free(pids);
	for (int i = 0; i < _ST_MAX; i++)
		sqlite3_finalize(p.st[i]);
	return r;
}
