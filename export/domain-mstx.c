/* mstx outputs: MSTX_EVENTS -> the msprof_tx layers of msprof_{ts}.json,
 * msprof_tx_{ts}.json (the same layers alone, reference §2.3) and
 * msprof_tx_{ts}.csv (§3).
 *
 * Timeline (msprof's MsprofTxAssembler): per process one layer, msprof's
 * "PID Name/MsprofTx" (sort index 6) renamed to the process name, label
 * CPU; per thread thread_name "Thread <tid>" and thread_sort_index <tid>.
 * Every mark and range is an "X" event (keys name, pid, tid, ts, dur, ph,
 * args), a mark with dur 0, on the thread that started it; args are those
 * of msprof's mstx events, {"event_type", "domain"}, led by "Category"
 * (as a string, as msprof writes it) when the event has one (NVTX).  No
 * MsTx flow arrows: they link a host event to its device task, and host-only
 * events have none.
 *
 * Viewers need the events of one thread to nest (Perfetto puts the rest on
 * an overflow track or drops them).  Marks and push/pop ranges always nest;
 * start/end ranges may overlap partly, and a range ended on another thread
 * is drawn on the thread that started it.  So each thread's events are
 * placed in start order (the longer first on a tie) on the first of
 * EXPORT_MAX_LANES lanes where they nest; lane 0 is the thread itself,
 * lane k > 0 an extra track with tid + k * EXPORT_LANE_TID_STEP named
 * "Thread <tid> (overlapping ranges k)".  Only what cannot nest moves; the
 * last lane takes whatever is left.  Rows stream from SQLite in that order
 * (index MstxEventsIndex holds it: no sort); memory is the lanes of one
 * thread and the list of one process's threads. */
#include <ctype.h>
#include <dirent.h>

#include "export/internal.h"
#include "common/util.h"

#define LANE_DEPTH_MAX 4096   /* open events per lane; deeper ones move on */

static const char *event_type_name(int64_t t)
{
	return t >= 0 && t < 4 ? export_mstx_event_types[t] : "unknown";
}

/* --- timeline ---------------------------------------------------------------- */

struct lanes {
	int64_t *end[EXPORT_MAX_LANES];
	unsigned n[EXPORT_MAX_LANES];
	unsigned used;             /* lanes this thread needed */
};

struct thr { uint32_t tid; unsigned lanes; };

struct txl {
	struct exp *e;
	struct exp_tl *out, *out2;
	struct exp_buf ev;         /* one event, formatted once for both */
	sqlite3_stmt *name;        /* AGENT_PROCESS name of a pid */
	struct exp_strings *msgs, *domains;
	struct lanes l;
	struct thr *threads;
	size_t n_threads, cap_threads;
	int64_t cur;               /* globalTid of the thread walked, -1 none */
};

/* The lane an event goes on: the first where it nests. */
static unsigned place(struct lanes *l, int64_t start, int64_t end)
{
	unsigned k;
	for (k = 0; k < EXPORT_MAX_LANES; k++) {
		while (l->n[k] && l->end[k][l->n[k] - 1] <= start)
			l->n[k]--;
		if (l->n[k] == LANE_DEPTH_MAX)
			continue;
		if (!l->n[k] || end <= l->end[k][l->n[k] - 1])
			break;
	}
	if (k == EXPORT_MAX_LANES) /* nowhere: the last lane, nested or not */
		k = EXPORT_MAX_LANES - 1;
	if (l->n[k] < LANE_DEPTH_MAX)
		l->end[k][l->n[k]++] = end;
	if (k + 1 > l->used)
		l->used = k + 1;
	return k;
}

/* Metadata events are formatted into t->ev and copied to each output when
 * complete (meta_end). */
static void meta_end(struct txl *t)
{
	fwrite(t->ev.p, 1, t->ev.len, exp_tl_meta(t->out));
	if (t->out2)
		fwrite(t->ev.p, 1, t->ev.len, exp_tl_meta(t->out2));
	t->ev.len = 0;
}

static struct exp_buf *meta(struct txl *t, unsigned pid, uint64_t tid, const char *name, const char *key)
{
	struct exp_buf *b = &t->ev;
	exp_buf_lit(b, "{\"name\":\"");
	exp_buf_puts(b, name);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, pid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_u64(b, tid);
	exp_buf_lit(b, ",\"ph\":\"M\",\"args\":{\"");
	exp_buf_puts(b, key);
	exp_buf_lit(b, "\":");
	return b;
}

struct process_name {
	struct txl *t;
	unsigned fpid;
	uint32_t pid;
	bool done;
};

/* name, followed by " (pid <pid>)" when pid is not 0 */
static void process_name_meta(struct txl *t, unsigned fpid, const char *name, uint32_t pid)
{
	struct exp_buf *b = meta(t, fpid, 0, "process_name", "name");
	exp_buf_putc(b, '"');
	exp_buf_json_str(b, name, strlen(name));
	if (pid) {
		exp_buf_lit(b, " (pid ");
		exp_buf_u64(b, pid);
		exp_buf_putc(b, ')');
	}
	exp_buf_lit(b, "\"}}");
	meta_end(t);
}

/* The process's name from AGENT_PROCESS, while the row is there: the
 * command name, as msprof renames its framework layer to the process's
 * name.  Process names must be unique in a timeline file (MindSpore's
 * parser raises "Process name 'X' already exists." otherwise, readers/
 * NOTES.md §5): a name that another annotated process also has (the ranks
 * of one job are all "python") or that a layer of the export has (column
 * 1 counts the others) is followed by " (pid <pid>)", in every process
 * that has it, so that none passes for another. */
static int process_name_row(sqlite3_stmt *st, void *ctx)
{
	struct process_name *p = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 0);
	if (name) {
		bool shared = sqlite3_column_int64(st, 1) > 0 || export_track_find(name);
		process_name_meta(p->t, p->fpid, name, shared ? p->pid : 0);
		p->done = true;
	}
	return 1;
}

static int process_meta(struct txl *t, uint32_t pid)
{
	unsigned fpid = export_format_pid(pid, export_tracks[TRACK_MSPROFTX].sort_index, EXPORT_HOST_DEVICE_ID);
	struct process_name p = { t, fpid, pid, false };
	sqlite3_bind_int64(t->name, 1, pid);
	int r = exp_stmt_each(t->e, t->name, "AGENT_PROCESS", process_name_row, &p);
	if (r < 0)
		return r;
	if (!p.done) {
		char fallback[32];
		snprintf(fallback, sizeof fallback, "pid %u", pid);
		process_name_meta(t, fpid, fallback, 0);
	}
	struct exp_buf *b = meta(t, fpid, 0, "process_labels", "labels");
	exp_buf_putc(b, '"');
	exp_buf_puts(b, export_tracks[TRACK_MSPROFTX].label);
	exp_buf_lit(b, "\"}}");
	meta_end(t);
	b = meta(t, fpid, 0, "process_sort_index", "sort_index");
	exp_buf_u64(b, export_tracks[TRACK_MSPROFTX].sort_index);
	exp_buf_lit(b, "}}");
	meta_end(t);
	for (size_t i = 0; i < t->n_threads; i++) {
		const struct thr *h = &t->threads[i];
		for (unsigned k = 0; k < h->lanes; k++) {
			uint64_t tid = h->tid + (uint64_t)k * EXPORT_LANE_TID_STEP;
			b = meta(t, fpid, tid, "thread_name", "name");
			exp_buf_lit(b, "\"Thread ");
			exp_buf_u64(b, h->tid);
			if (k) {
				exp_buf_lit(b, " (overlapping ranges ");
				exp_buf_u64(b, k);
				exp_buf_putc(b, ')');
			}
			exp_buf_lit(b, "\"}}");
			meta_end(t);
			b = meta(t, fpid, tid, "thread_sort_index", "sort_index");
			exp_buf_u64(b, h->tid);
			exp_buf_lit(b, "}}");
			meta_end(t);
		}
	}
	t->n_threads = 0;
	return t->ev.err;
}

/* The thread just finished: into the process's list. */
static int thread_done(struct txl *t, uint32_t tid)
{
	struct thr *n = grow_array(t->threads, &t->cap_threads, t->n_threads, sizeof *n, 16);
	if (!n)
		return -ENOMEM;
	t->threads = n;
	t->threads[t->n_threads++] = (struct thr){ tid, t->l.used ? t->l.used : 1 };
	for (unsigned k = 0; k < EXPORT_MAX_LANES; k++)
		t->l.n[k] = 0;
	t->l.used = 0;
	return 0;
}

static void event(struct txl *t, uint32_t pid, uint64_t tid, int64_t start, int64_t end, int64_t type,
		  int64_t category, const char *msg, size_t msg_len, const char *domain, size_t domain_len)
{
	unsigned fpid = export_format_pid(pid, export_tracks[TRACK_MSPROFTX].sort_index, EXPORT_HOST_DEVICE_ID);
	struct exp_buf *b = &t->ev;
	exp_buf_x_event(b, msg, msg_len, fpid, tid, start, end);
	if (category != EXPORT_MSTX_NONE) {
		exp_buf_lit(b, "\"Category\":\"");
		exp_buf_i64(b, category);
		exp_buf_lit(b, "\",");
	}
	exp_buf_lit(b, "\"event_type\":\"");
	exp_buf_puts(b, event_type_name(type));
	exp_buf_lit(b, "\",\"domain\":\"");
	exp_buf_json_str(b, domain, domain_len);
	exp_buf_lit(b, "\"}}");
	fwrite(b->p, 1, b->len, exp_tl_event(t->out));
	if (t->out2)
		fwrite(b->p, 1, b->len, exp_tl_event(t->out2));
	b->len = 0;
}

/* One event, in thread order: a thread's lanes when the next thread
 * begins, a process's metadata when the next process does. */
static int tx_event(sqlite3_stmt *st, void *ctx)
{
	struct txl *t = ctx;
	const char *msg, *domain;
	size_t msg_len, domain_len;
	int r;
	if ((r = exp_strings_get(t->msgs, sqlite3_column_int64(st, 5), &msg, &msg_len)) <= 0 ||
	    (r = exp_strings_get(t->domains, sqlite3_column_int64(st, 6), &domain, &domain_len)) <= 0)
		return r; /* no string: not an event, as a join leaves it out */
	int64_t g = sqlite3_column_int64(st, 0);
	uint32_t pid = (uint32_t)((uint64_t)g >> 32), tid = (uint32_t)g;
	if (t->cur >= 0 && g != t->cur) {
		r = thread_done(t, (uint32_t)t->cur);
		if (r == 0 && (uint32_t)((uint64_t)t->cur >> 32) != pid)
			r = process_meta(t, (uint32_t)((uint64_t)t->cur >> 32));
		if (r < 0)
			return r;
	}
	t->cur = g;
	int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
	unsigned lane = place(&t->l, start, end);
	event(t, pid, tid + (uint64_t)lane * EXPORT_LANE_TID_STEP, start, end, sqlite3_column_int64(st, 3),
	      sqlite3_column_int64(st, 4), msg, msg_len, domain, domain_len);
	return t->ev.err;
}

int exp_write_tx_layer(struct exp *e, struct exp_tl *out, struct exp_tl *out2)
{
	static const char sql[] =
		"SELECT globalTid, startNs, endNs, eventType, category, message, domainId FROM MSTX_EVENTS "
		"ORDER BY globalTid, startNs, endNs DESC, rowid";
	if (!exp_table_has_rows(e, "MSTX_EVENTS"))
		return 0;
	struct txl t = { .e = e, .out = out, .out2 = out2, .cur = -1 };
	int r = 0;
	for (unsigned k = 0; k < EXPORT_MAX_LANES && r == 0; k++)
		if (!(t.l.end[k] = malloc(LANE_DEPTH_MAX * sizeof(int64_t))))
			r = -ENOMEM;
	if (r == 0)
		/* the name, and how many other processes with events have it
		 * (a range of the globalTid index each) */
		r = exp_prepare(e, "SELECT s.value, (SELECT count(DISTINCT o.pid) FROM AGENT_PROCESS o WHERE "
				   "o.name = a.name AND o.pid <> a.pid AND EXISTS (SELECT 1 FROM MSTX_EVENTS m "
				   "WHERE m.globalTid >= o.pid << 32 AND m.globalTid < (o.pid + 1) << 32)) "
				   "FROM AGENT_PROCESS a JOIN STRING_IDS s ON s.id = a.name WHERE a.pid = ?",
				&t.name);
	if (r == 0)
		r = exp_strings_new(e, &t.msgs);
	if (r == 0)
		r = exp_strings_new(e, &t.domains);
	if (r == 0)
		r = exp_each(e, sql, NULL, tx_event, &t);
	if (r > 0)
		r = 0; /* a row count: rows without their strings write no event */
	if (r == 0 && t.cur >= 0) {
		r = thread_done(&t, (uint32_t)t.cur);
		if (r == 0)
			r = process_meta(&t, (uint32_t)((uint64_t)t.cur >> 32));
	}
	sqlite3_finalize(t.name);
	exp_strings_free(t.msgs);
	exp_strings_free(t.domains);
	for (unsigned k = 0; k < EXPORT_MAX_LANES; k++)
		free(t.l.end[k]);
	free(t.threads);
	exp_buf_release(&t.ev);
	return r;
}

/* --- summary ------------------------------------------------------------------ */

/* An MSTX_EVENTS row as the CSV reads it: integers only (strings by id). */
struct tx_row {
	int64_t g, category, type, start, end, msg, domain, rowid;
};

#define TX_COLUMNS "globalTid, category, eventType, startNs, endNs, message, domainId, rowid"

static void tx_row_get(sqlite3_stmt *st, struct tx_row *ret)
{
	*ret = (struct tx_row){
		.g = sqlite3_column_int64(st, 0), .category = sqlite3_column_int64(st, 1),
		.type = sqlite3_column_int64(st, 2), .start = sqlite3_column_int64(st, 3),
		.end = sqlite3_column_int64(st, 4), .msg = sqlite3_column_int64(st, 5),
		.domain = sqlite3_column_int64(st, 6), .rowid = sqlite3_column_int64(st, 7),
	};
}

/* One row as msprof's MsprofTxViewer.format_tx_ex_summary_data writes an
 * mstx event, with the Device_id column and the device times (N/A: no
 * device side) of its merge step; times are µs with three decimals and the
 * "\t" msprof appends (format_high_precision_for_csv). */
static void csv_row(struct exp_buf *b, const struct tx_row *x, const char *msg, size_t msg_len, const char *domain,
		    size_t domain_len)
{
	exp_buf_lit(b, "host,");
	exp_buf_u64(b, (uint64_t)x->g >> 32);
	exp_buf_putc(b, ',');
	exp_buf_u64(b, (uint64_t)x->g & 0xffffffffU);
	exp_buf_putc(b, ',');
	if (x->category == EXPORT_MSTX_NONE)
		exp_buf_lit(b, "N/A");
	else
		exp_buf_i64(b, x->category);
	exp_buf_putc(b, ',');
	exp_buf_puts(b, event_type_name(x->type));
	exp_buf_lit(b, ",N/A,N/A,");
	exp_buf_ts(b, x->start);
	exp_buf_lit(b, "\t,");
	exp_buf_ts(b, x->end);
	exp_buf_lit(b, "\t,N/A,");
	exp_buf_csv_field(b, msg, msg_len);
	exp_buf_putc(b, ',');
	exp_buf_csv_field(b, domain, domain_len);
	exp_buf_lit(b, ",N/A,N/A\n");
}

/* The rows of the CSV in start order (ties: the lower rowid first).  The
 * index MstxEventsIndex holds each thread's events in start order already,
 * so with few threads their cursors are merged here instead of SQLite
 * sorting the table, which at millions of rows spills to temporary files
 * and merges those.  A cursor reads the index's order, in which events of
 * one thread starting together are not by rowid: each such group is read
 * whole into a heap of rows ordered by (start, rowid), and a row leaves
 * the heap once no cursor can still hold an earlier one.  Many threads or
 * a database without the index take SQLite's sort; so do the rows after a
 * group of starts too large for the heap. */
#define MERGE_MAX_THREADS 256
#define MERGE_MAX_ROWS 65536

struct tx_cursor {
	int64_t start;             /* of the current row, not yet read */
	sqlite3_stmt *st;
};

struct tx_rows {
	struct exp *e;
	sqlite3_stmt *sorted;      /* the sort, or NULL: the merge */
	struct tx_cursor *cur;     /* heap by start */
	size_t n_cur;
	struct tx_row *rows;       /* heap by (start, rowid) */
	size_t n_rows;
	bool any;                  /* rows handed out, the last one: */
	int64_t last_start, last_rowid;
};

static bool row_before(const struct tx_row *a, const struct tx_row *b)
{
	return a->start < b->start || (a->start == b->start && a->rowid < b->rowid);
}

static void rows_down(struct tx_row *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < n && row_before(&h[l], &h[min]))
			min = l;
		if (r < n && row_before(&h[r], &h[min]))
			min = r;
		if (min == i)
			return;
		struct tx_row t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

static void rows_up(struct tx_row *h, size_t i)
{
	while (i > 0 && row_before(&h[i], &h[(i - 1) / 2])) {
		struct tx_row t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void cur_down(struct tx_cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < n && h[l].start < h[min].start)
			min = l;
		if (r < n && h[r].start < h[min].start)
			min = r;
		if (min == i)
			return;
		struct tx_cursor t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

static void tx_rows_release(struct tx_rows *m)
{
	sqlite3_finalize(m->sorted);
	for (size_t i = 0; i < m->n_cur; i++)
		sqlite3_finalize(m->cur[i].st);
	free(m->cur);
	free(m->rows);
	*m = (struct tx_rows){ 0 };
}

/* The threads of MSTX_EVENTS, at most MERGE_MAX_THREADS + 1 of them. */
static int tx_threads(struct exp *e, int64_t *ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = exp_prepare(e, "SELECT globalTid FROM MSTX_EVENTS WHERE globalTid > ? ORDER BY globalTid LIMIT 1", &st);
	if (r < 0)
		return r;
	size_t n = 0;
	int64_t last = INT64_MIN;
	while (n <= MERGE_MAX_THREADS) {
		sqlite3_bind_int64(st, 1, last);
		if ((r = exp_stmt_each(e, st, "MSTX_EVENTS threads", db_row_i64, &last)) <= 0)
			break;
		ret[n++] = last;
	}
	sqlite3_finalize(st);
	*ret_n = n;
	return r < 0 ? r : 0;
}

/* SQLite's sort, of the rows after the ones handed out. */
static int tx_rows_sorted(struct exp *e, struct tx_rows *m)
{
	bool any = m->any;
	int64_t start = m->last_start, rowid = m->last_rowid;
	tx_rows_release(m);
	m->e = e;
	int r = exp_prepare(e, any ? "SELECT " TX_COLUMNS " FROM MSTX_EVENTS WHERE startNs > ?1 OR "
				     "(startNs = ?1 AND rowid > ?2) ORDER BY startNs, rowid"
				   : "SELECT " TX_COLUMNS " FROM MSTX_EVENTS ORDER BY startNs, rowid",
			    &m->sorted);
	if (r == 0 && any) {
		sqlite3_bind_int64(m->sorted, 1, start);
		sqlite3_bind_int64(m->sorted, 2, rowid);
	}
	return r;
}

static int tx_rows_open(struct exp *e, struct tx_rows *m)
{
	*m = (struct tx_rows){ .e = e };
	int64_t *tids = malloc((MERGE_MAX_THREADS + 1) * sizeof *tids);
	if (!tids)
		return -ENOMEM;
	size_t n = 0;
	int r = exp_table_has_index(e, "MstxEventsIndex") ? tx_threads(e, tids, &n) : 0;
	if (r == 0 && (n == 0 || n > MERGE_MAX_THREADS)) {
		free(tids);
		return tx_rows_sorted(e, m);
	}
	if (r == 0 && (!(m->cur = calloc(n, sizeof *m->cur)) || !(m->rows = malloc(MERGE_MAX_ROWS * sizeof *m->rows))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct tx_cursor c = { 0 };
		/* the index's order: no sort */
		r = exp_prepare(e, "SELECT " TX_COLUMNS " FROM MSTX_EVENTS WHERE globalTid = ? "
				   "ORDER BY startNs, endNs DESC, rowid", &c.st);
		if (r < 0)
			break;
		sqlite3_bind_int64(c.st, 1, tids[i]);
		int got = exp_step(e, c.st, "MSTX_EVENTS");
		if (got > 0) {
			c.start = sqlite3_column_int64(c.st, 3);
			m->cur[m->n_cur++] = c;
		} else {
			sqlite3_finalize(c.st);
			r = got;
		}
	}
	free(tids);
	for (size_t i = m->n_cur; i-- > 0;)
		cur_down(m->cur, m->n_cur, i);
	if (r < 0)
		tx_rows_release(m);
	return r;
}

/* Read the first cursor's group of rows starting together into the row
 * heap: 0, 1 when the heap is full (the caller takes the sort), <0. */
static int tx_load_group(struct tx_rows *m)
{
	struct tx_cursor *c = &m->cur[0];
	int64_t start = c->start;
	int got;
	do {
		if (m->n_rows == MERGE_MAX_ROWS)
			return 1;
		tx_row_get(c->st, &m->rows[m->n_rows]);
		rows_up(m->rows, m->n_rows++);
		got = exp_step(m->e, c->st, "MSTX_EVENTS");
	} while (got > 0 && (c->start = sqlite3_column_int64(c->st, 3)) == start);
	if (got < 0)
		return got;
	if (got == 0) {
		sqlite3_finalize(c->st);
		m->cur[0] = m->cur[--m->n_cur];
	}
	cur_down(m->cur, m->n_cur, 0);
	return 0;
}

/* The next row: 1 and *ret, 0 when done, <0. */
static int tx_rows_next(struct tx_rows *m, struct tx_row *ret)
{
	if (m->sorted) {
		int got = exp_step(m->e, m->sorted, "MSTX_EVENTS");
		if (got > 0)
			tx_row_get(m->sorted, ret);
		return got;
	}
	/* a row may leave once every cursor is past its start */
	while (m->n_cur && (!m->n_rows || m->rows[0].start >= m->cur[0].start)) {
		int r = tx_load_group(m);
		if (r < 0)
			return r;
		if (r > 0) {
			if ((r = tx_rows_sorted(m->e, m)) < 0)
				return r;
			return tx_rows_next(m, ret);
		}
	}
	if (!m->n_rows)
		return 0;
	*ret = m->rows[0];
	m->rows[0] = m->rows[--m->n_rows];
	rows_down(m->rows, m->n_rows, 0);
	m->any = true;
	m->last_start = ret->start;
	m->last_rowid = ret->rowid;
	return 1;
}

static int exp_write_tx_summary(struct exp *e, const char *dir)
{
	if (!exp_table_has_rows(e, "MSTX_EVENTS")) {
		if (e->selected) { /* the chosen steps hold no event: no older file stays */
			const struct export_csv_table *t = &export_csv_tables[CSV_MSPROF_TX];
			exp_remove_stale(dir, export_csv_stem(t, false), ".csv", e->ts, 0);
			exp_remove_stale(dir, export_csv_stem(t, true), ".json", e->ts, 0);
		}
		return 0;
	}
	/* the strings by id (exp_strings): the sort, when there is one,
	 * carries integers only */
	struct exp_strings *msgs = NULL, *domains = NULL;
	struct tx_rows rows = { 0 };
	struct exp_buf b = { 0 };
	struct exp_table w;
	bool open = false;
	int r = exp_strings_new(e, &msgs);
	if (r == 0)
		r = exp_strings_new(e, &domains);
	if (r == 0)
		r = tx_rows_open(e, &rows);
	if (r == 0)
		open = (r = exp_table_open(e, &w, dir, CSV_MSPROF_TX)) == 0;
	struct tx_row x;
	while (r == 0 && (r = tx_rows_next(&rows, &x)) > 0) {
		r = 0;
		const char *msg, *domain;
		size_t msg_len, domain_len;
		if ((r = exp_strings_get(msgs, x.msg, &msg, &msg_len)) <= 0 ||
		    (r = exp_strings_get(domains, x.domain, &domain, &domain_len)) <= 0) {
			if (r < 0)
				break;
			r = 0;
			continue; /* no string: left out, as a join leaves it out */
		}
		csv_row(&b, &x, msg, msg_len, domain, domain_len);
		if ((r = exp_table_put(&w, &b)) < 0)
			break;
	}
	tx_rows_release(&rows);
	exp_strings_free(msgs);
	exp_strings_free(domains);
	exp_buf_release(&b);
	if (open)
		r = exp_table_end(&w, r);
	return r;
}

static bool has_layers(struct exp *e)
{
	return exp_track_on(e, TRACK_MSPROFTX) && exp_table_has_rows(e, "MSTX_EVENTS");
}

static const char *const tables[] = { "MSTX_EVENTS", "ENUM_MSTX_EVENT_TYPE", "AGENT_CATEGORY", NULL };
static const enum export_csv csvs[] = { CSV_MSPROF_TX, _CSV_MAX };

/* Annotations: MSTX_EVENTS and AGENT_CATEGORY from the agents' records
 * (decoders and range matching in parse-mstx.c); the msprof_tx layers,
 * written by exp_write_timeline itself (layers NULL): they go to
 * msprof_tx_{ts}.json too and may be written ahead by another thread; the
 * msprof_tx summary. */
const struct exp_domain exp_domain_mstx = {
	.name = "mstx",
	.agent_records = exp_mstx_records,
	.agent_ops = &exp_mstx_agent_ops,
	.release = exp_mstx_release,
	.tables = tables,
	.csvs = csvs,
	.has_layers = has_layers,
	.summaries = exp_write_tx_summary,
};
