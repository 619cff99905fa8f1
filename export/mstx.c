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

#include "internal.h"
#include "util.h"

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

static int process_meta(struct txl *t, uint32_t pid)
{
	unsigned fpid = export_format_pid(pid, export_tracks[TRACK_MSPROFTX].sort_index, EXPORT_HOST_DEVICE_ID);
	char fallback[32];
	const char *name = fallback;
	snprintf(fallback, sizeof fallback, "pid %u", pid);
	sqlite3_bind_int64(t->name, 1, pid);
	int rc = sqlite3_step(t->name);
	if (rc == SQLITE_ROW && sqlite3_column_text(t->name, 0))
		name = (const char *)sqlite3_column_text(t->name, 0);
	else if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sqlite3_reset(t->name);
		return exp_sql_fail(t->e, rc, "AGENT_PROCESS");
	}
	struct exp_buf *b = meta(t, fpid, 0, "process_name", "name");
	exp_buf_putc(b, '"');
	exp_buf_json_str(b, name, strlen(name));
	exp_buf_lit(b, "\"}}");
	meta_end(t);
	sqlite3_reset(t->name);
	b = meta(t, fpid, 0, "process_labels", "labels");
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
	if (t->n_threads == t->cap_threads) {
		size_t cap = t->cap_threads ? t->cap_threads * 2 : 16;
		struct thr *n = realloc(t->threads, cap * sizeof *n);
		if (!n)
			return -ENOMEM;
		t->threads = n;
		t->cap_threads = cap;
	}
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
	exp_buf_lit(b, "{\"name\":\"");
	exp_buf_json_str(b, msg, msg_len);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, fpid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_u64(b, tid);
	exp_buf_lit(b, ",\"ts\":\"");
	exp_buf_ts(b, start);
	exp_buf_lit(b, "\",\"dur\":");
	exp_buf_dur_us(b, end - start);
	exp_buf_lit(b, ",\"ph\":\"X\",\"args\":{");
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

int exp_write_tx_layer(struct exp *e, struct exp_tl *out, struct exp_tl *out2)
{
	static const char sql[] =
		"SELECT globalTid, startNs, endNs, eventType, category, message, domainId FROM MSTX_EVENTS "
		"ORDER BY globalTid, startNs, endNs DESC, rowid";
	if (!exp_table_has_rows(e, "MSTX_EVENTS"))
		return 0;
	struct txl t = { .e = e, .out = out, .out2 = out2 };
	sqlite3_stmt *st = NULL;
	int r = 0;
	for (unsigned k = 0; k < EXPORT_MAX_LANES && r == 0; k++)
		if (!(t.l.end[k] = malloc(LANE_DEPTH_MAX * sizeof(int64_t))))
			r = -ENOMEM;
	if (r == 0)
		r = exp_prepare(e, "SELECT s.value FROM AGENT_PROCESS a JOIN STRING_IDS s ON s.id = a.name WHERE a.pid = ?",
				&t.name);
	if (r == 0)
		r = exp_strings_new(e, &t.msgs);
	if (r == 0)
		r = exp_strings_new(e, &t.domains);
	if (r == 0)
		r = exp_prepare(e, sql, &st);
	int64_t cur = -1;
	int rc = SQLITE_DONE;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *msg, *domain;
		size_t msg_len, domain_len;
		if ((r = exp_strings_get(t.msgs, sqlite3_column_int64(st, 5), &msg, &msg_len)) <= 0 ||
		    (r = exp_strings_get(t.domains, sqlite3_column_int64(st, 6), &domain, &domain_len)) <= 0) {
			if (r < 0)
				break;
			r = 0;
			continue; /* no string: not an event, as a join leaves it out */
		}
		r = 0;
		int64_t g = sqlite3_column_int64(st, 0);
		uint32_t pid = (uint32_t)((uint64_t)g >> 32), tid = (uint32_t)g;
		if (cur >= 0 && g != cur) {
			r = thread_done(&t, (uint32_t)cur);
			if (r == 0 && (uint32_t)((uint64_t)cur >> 32) != pid)
				r = process_meta(&t, (uint32_t)((uint64_t)cur >> 32));
			if (r < 0)
				break;
		}
		cur = g;
		int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
		unsigned lane = place(&t.l, start, end);
		event(&t, pid, tid + (uint64_t)lane * EXPORT_LANE_TID_STEP, start, end, sqlite3_column_int64(st, 3),
		      sqlite3_column_int64(st, 4), msg, msg_len, domain, domain_len);
		if (t.ev.err)
			r = t.ev.err;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	if (r == 0 && cur >= 0) {
		r = thread_done(&t, (uint32_t)cur);
		if (r == 0)
			r = process_meta(&t, (uint32_t)((uint64_t)cur >> 32));
	}
	sqlite3_finalize(st);
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

/* One row as msprof's MsprofTxViewer.format_tx_ex_summary_data writes an
 * mstx event, with the Device_id column and the device times (N/A: no
 * device side) of its merge step; times are µs with three decimals and the
 * "\t" msprof appends (format_high_precision_for_csv). */
static void csv_row(struct exp_buf *b, sqlite3_stmt *st, const char *msg, size_t msg_len, const char *domain,
		    size_t domain_len)
{
	int64_t g = sqlite3_column_int64(st, 0), category = sqlite3_column_int64(st, 1);
	exp_buf_lit(b, "host,");
	exp_buf_u64(b, (uint64_t)g >> 32);
	exp_buf_putc(b, ',');
	exp_buf_u64(b, (uint64_t)g & 0xffffffffU);
	exp_buf_putc(b, ',');
	if (category == EXPORT_MSTX_NONE)
		exp_buf_lit(b, "N/A");
	else
		exp_buf_i64(b, category);
	exp_buf_putc(b, ',');
	exp_buf_puts(b, event_type_name(sqlite3_column_int64(st, 2)));
	exp_buf_lit(b, ",N/A,N/A,");
	exp_buf_ts(b, sqlite3_column_int64(st, 3));
	exp_buf_lit(b, "\t,");
	exp_buf_ts(b, sqlite3_column_int64(st, 4));
	exp_buf_lit(b, "\t,N/A,");
	exp_buf_csv_field(b, msg, msg_len);
	exp_buf_putc(b, ',');
	exp_buf_csv_field(b, domain, domain_len);
	exp_buf_lit(b, ",N/A,N/A\n");
}

int exp_write_tx_summary(struct exp *e, const char *dir)
{
	/* the strings by id after the sort (exp_strings): the sorter carries
	 * integers only */
	static const char sql[] =
		"SELECT globalTid, category, eventType, startNs, endNs, message, domainId FROM MSTX_EVENTS "
		"ORDER BY startNs, rowid";
	if (!exp_table_has_rows(e, "MSTX_EVENTS")) {
		if (e->selected) /* the chosen steps hold no event: no older file stays */
			exp_remove_stale(dir, "msprof_tx", ".csv", e->ts, 0);
		return 0;
	}
	struct exp_strings *msgs = NULL, *domains = NULL;
	sqlite3_stmt *st = NULL;
	struct exp_buf b = { 0 };
	struct exp_table w;
	bool open = false;
	int r = exp_strings_new(e, &msgs);
	if (r == 0)
		r = exp_strings_new(e, &domains);
	if (r == 0)
		r = exp_prepare(e, sql, &st);
	if (r == 0)
		open = (r = exp_table_open(e, &w, dir, CSV_MSPROF_TX)) == 0;
	int rc = SQLITE_DONE;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *msg, *domain;
		size_t msg_len, domain_len;
		if ((r = exp_strings_get(msgs, sqlite3_column_int64(st, 5), &msg, &msg_len)) <= 0 ||
		    (r = exp_strings_get(domains, sqlite3_column_int64(st, 6), &domain, &domain_len)) <= 0) {
			if (r < 0)
				break;
			r = 0;
			continue; /* no string: left out, as a join leaves it out */
		}
		csv_row(&b, st, msg, msg_len, domain, domain_len);
		if ((r = b.err) < 0)
			break;
		FILE *f = exp_table_row(&w);
		if (!f) {
			r = w.err;
			break;
		}
		exp_buf_flush_to(&b, f);
		r = exp_table_row_end(&w);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	exp_strings_free(msgs);
	exp_strings_free(domains);
	exp_buf_release(&b);
	if (open) {
		if (r == 0)
			r = exp_table_commit(&w);
		else
			exp_table_abort(&w);
	}
	return r;
}
