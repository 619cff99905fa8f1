/* mstx outputs: MSTX_EVENTS -> the msprof_tx layers of msprof_{ts}.json,
 * msprof_tx_{ts}.json (the same layers alone, reference §2.3) and
 * msprof_tx_{ts}.csv (§3).
 *
 * Timeline (msprof's MsprofTxAssembler): per process one layer, msprof's
 * "PID Name/MsprofTx" (sort index 6) renamed to the process name, label
 * CPU; per thread thread_name "<name> (<tid>)" (AGENT_THREAD's name; else
 * "Thread <tid>") and thread_sort_index <tid>.
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
 * (index MstxEventsIndex holds it: no sort), thread by thread when the
 * timeline reads them itself, the threads interleaved in start order when
 * they come with the summary's (one read for both, below); the events go
 * to the file in the order they come, the metadata of every process and
 * thread at the end.  Memory: about 150 bytes a thread until the end,
 * and a thread's lanes (the ends of its open events, up to LANE_DEPTH_MAX
 * a lane) while its events may still come: one thread's at a time when
 * they come thread by thread, every thread's (at most MERGE_MAX_THREADS)
 * when interleaved. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/aggregate.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain-agents.h"
#include "export/domain-mstx.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

#define LANE_DEPTH_MAX 4096   /* open events per lane; deeper ones move on */

static const char *event_type_name(int64_t t)
{
	return t >= 0 && t < 4 ? export_mstx_event_types[t] : "unknown";
}

/* An MSTX_EVENTS row as both outputs read it: integers only (strings by
 * id, exp_strings). */
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

/* --- one read for both --------------------------------------------------------- */

/* The msprof_tx summary merges each thread's rows in start order (below);
 * the mstx layers need each thread's rows in start order and nothing
 * across threads.  So a thread of the export (stages.c write_both) reads
 * MSTX_EVENTS once, merging as the summary does, and hands the rows in
 * blocks to two feeds: to the timeline's thread each row as the merge
 * reads it (each thread's rows in the index's order, the threads'
 * interleaved), to the summaries' thread the merge's output.  One pass
 * over the table instead of two, which at millions of rows is most of
 * what either output costs.  Memory: FEED_BLOCKS + 2 blocks a feed.  The
 * reader decides once per feed whether it feeds it: the summary always
 * (from the merge or SQLite's sort), the timeline where the rows are
 * merged; a feed not fed leaves its taker to read the table itself.  A
 * failure of one taker does not stop the other: the reader stops handing
 * rows to a feed its taker has closed, and still reads for the other. */
#define FEED_ROWS 1024
#define FEED_BLOCKS 16

struct feed_block {
	size_t n;
	struct tx_row rows[FEED_ROWS];
};

enum feed_state { FEED_UNDECIDED, FEED_ON, FEED_OFF };

struct exp_tx_feed {
	pthread_mutex_t lock;
	pthread_cond_t cond;            /* any change of what follows */
	enum feed_state state;
	bool ended;                     /* the reader handed its last row; r its error */
	bool closed;                    /* the taker takes no more */
	int r;
	struct feed_block *ring[FEED_BLOCKS]; /* full blocks, count from head */
	size_t head, count;
	struct feed_block *fill, *take; /* the reader's, the taker's */
};

static struct exp_tx_feed *feed_free(struct exp_tx_feed *f);

static struct exp_tx_feed *feed_new(void)
{
	struct exp_tx_feed *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	bool ok = (f->fill = calloc(1, sizeof *f->fill)) && (f->take = calloc(1, sizeof *f->take));
	for (size_t i = 0; i < FEED_BLOCKS && ok; i++)
		ok = (f->ring[i] = calloc(1, sizeof *f->ring[i])) != NULL;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	return ok ? f : feed_free(f);
}

static struct exp_tx_feed *feed_free(struct exp_tx_feed *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < FEED_BLOCKS; i++)
		free(f->ring[i]);
	free(f->fill);
	free(f->take);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return NULL;
}

static void feed_decide(struct exp_tx_feed *f, bool on)
{
	pthread_mutex_lock(&f->lock);
	if (f->state == FEED_UNDECIDED)
		f->state = on ? FEED_ON : FEED_OFF;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* The reader's full block into the ring (waiting for room); false once
 * the timeline takes no more. */
static bool feed_push(struct exp_tx_feed *f)
{
	pthread_mutex_lock(&f->lock);
	while (f->count == FEED_BLOCKS && !f->closed)
		pthread_cond_wait(&f->cond, &f->lock);
	bool open = !f->closed;
	if (open) {
		size_t i = (f->head + f->count++) % FEED_BLOCKS;
		struct feed_block *b = f->ring[i];
		f->ring[i] = f->fill;
		f->fill = b;
		pthread_cond_broadcast(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
	f->fill->n = 0;
	return open;
}

/* One row for the timeline; false once it takes no more. */
static bool feed_row(struct exp_tx_feed *f, const struct tx_row *x)
{
	f->fill->rows[f->fill->n++] = *x;
	return f->fill->n < FEED_ROWS || feed_push(f);
}

/* The last row handed (r: the reader's error, 0 none). */
static void feed_end(struct exp_tx_feed *f, int r)
{
	if (f->fill->n)
		(void)feed_push(f);
	pthread_mutex_lock(&f->lock);
	f->ended = true;
	f->r = r;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void feed_finish(struct exp_tx_feed *f)
{
	feed_decide(f, false);
	pthread_mutex_lock(&f->lock);
	bool open = f->state == FEED_ON && !f->ended;
	pthread_mutex_unlock(&f->lock);
	if (open) /* not reached: tx_read ends what it began */
		feed_end(f, -ECANCELED);
}

static void feed_close(struct exp_tx_feed *f)
{
	pthread_mutex_lock(&f->lock);
	f->closed = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* Whether the rows come through f (the reader's decision, waited for). */
static bool feed_wait(struct exp_tx_feed *f)
{
	pthread_mutex_lock(&f->lock);
	while (f->state == FEED_UNDECIDED)
		pthread_cond_wait(&f->cond, &f->lock);
	bool on = f->state == FEED_ON;
	pthread_mutex_unlock(&f->lock);
	return on;
}

/* The next block into f->take: 1, 0 after the last (*r the reader's
 * error). */
static int feed_take(struct exp_tx_feed *f, int *r)
{
	pthread_mutex_lock(&f->lock);
	while (!f->count && !f->ended)
		pthread_cond_wait(&f->cond, &f->lock);
	int got = f->count > 0;
	if (got) {
		struct feed_block *b = f->ring[f->head];
		f->ring[f->head] = f->take;
		f->take = b;
		f->head = (f->head + 1) % FEED_BLOCKS;
		f->count--;
		pthread_cond_broadcast(&f->cond);
	} else {
		*r = f->r;
	}
	pthread_mutex_unlock(&f->lock);
	return got;
}

/* --- timeline ---------------------------------------------------------------- */

/* A thread's open events, the end of each, per lane: arrays grown while a
 * lane's depth grows. */
struct lanes {
	int64_t *end[EXPORT_MAX_LANES];
	unsigned n[EXPORT_MAX_LANES], cap[EXPORT_MAX_LANES];
	unsigned used;             /* lanes this thread needed */
};

struct thr {
	int64_t g;                 /* globalTid */
	struct lanes l;
};

struct txl {
	struct exp *e;
	struct exp_tl *out, *out2;
	struct exp_buf ev;         /* one event, formatted once for both */
	sqlite3_stmt *name;        /* AGENT_PROCESS name of a pid */
	struct exp_strings *msgs, *domains;
	bool ordered;              /* rows come thread by thread: a thread's lanes go when the next begins */
	struct thr *threads;       /* in the order of their first event */
	size_t n_threads, cap_threads, last; /* last: the thread of the last event */
	struct exp_kmap index;     /* (globalTid, 0) -> its place in threads (until all_meta sorts them) */
};

/* The lane an event goes on: the first where it nests; <0 out of memory. */
static int place(struct lanes *l, int64_t start, int64_t end)
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
	if (l->n[k] < LANE_DEPTH_MAX) {
		size_t cap = l->cap[k];
		int64_t *a = grow_array(l->end[k], &cap, l->n[k], sizeof *a, 16);
		if (!a)
			return -ENOMEM;
		l->end[k] = a;
		l->cap[k] = (unsigned)cap;
		a[l->n[k]++] = end;
	}
	if (k + 1 > l->used)
		l->used = k + 1;
	return (int)k;
}

static void lanes_release(struct lanes *l)
{
	for (unsigned k = 0; k < EXPORT_MAX_LANES; k++) {
		free(l->end[k]);
		l->end[k] = NULL;
		l->n[k] = l->cap[k] = 0;
	}
}

/* The state of thread g, new on its first event; NULL out of memory. */
static struct thr *thread_of(struct txl *t, int64_t g)
{
	if (t->n_threads && t->threads[t->last].g == g)
		return &t->threads[t->last];
	/* room first: a key the index holds always has its entry */
	bool fresh;
	int64_t i;
	if (GROW_ARRAY(t->threads, t->cap_threads, t->n_threads, 16) < 0 ||
	    (i = exp_kmap_get(&t->index, g, 0, &fresh)) < 0)
		return NULL;
	if (fresh) {
		if (t->ordered && t->n_threads)
			lanes_release(&t->threads[t->last].l); /* done: only its count of lanes stays */
		t->threads[t->n_threads++] = (struct thr){ .g = g };
	}
	t->last = (size_t)i;
	return &t->threads[t->last];
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

/* A process's metadata and its threads', h[0..n) (by tid). */
static int process_meta(struct txl *t, uint32_t pid, const struct thr *h, size_t n)
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
	for (size_t i = 0; i < n; i++) {
		uint32_t thread = (uint32_t)h[i].g;
		char name[256];
		exp_agent_thread_name(t->e, pid, thread, name, sizeof name);
		for (unsigned k = 0; k < (h[i].l.used ? h[i].l.used : 1); k++) {
			uint64_t tid = thread + (uint64_t)k * EXPORT_LANE_TID_STEP;
			b = meta(t, fpid, tid, "thread_name", "name");
			exp_buf_putc(b, '"');
			if (name[0]) {
				exp_buf_json_str(b, name, strlen(name));
				exp_buf_lit(b, " (");
				exp_buf_u64(b, thread);
				exp_buf_putc(b, ')');
			} else {
				exp_buf_lit(b, "Thread ");
				exp_buf_u64(b, thread);
			}
			if (k) {
				exp_buf_lit(b, " (overlapping ranges ");
				exp_buf_u64(b, k);
				exp_buf_putc(b, ')');
			}
			exp_buf_lit(b, "\"}}");
			meta_end(t);
			b = meta(t, fpid, tid, "thread_sort_index", "sort_index");
			exp_buf_u64(b, thread);
			exp_buf_lit(b, "}}");
			meta_end(t);
		}
	}
	return t->ev.err;
}

static int thread_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct thr *)a)->g, y = ((const struct thr *)b)->g;
	return (x > y) - (x < y);
}

/* Every process's metadata, in globalTid order. */
static int all_meta(struct txl *t)
{
	if (t->n_threads > 1) /* (none: no array, and qsort takes none) */
		qsort_safe(t->threads, t->n_threads, sizeof *t->threads, thread_cmp);
	int r = 0;
	for (size_t i = 0, j; i < t->n_threads && r == 0; i = j) {
		uint32_t pid = (uint32_t)((uint64_t)t->threads[i].g >> 32);
		for (j = i + 1; j < t->n_threads && (uint32_t)((uint64_t)t->threads[j].g >> 32) == pid; j++)
			;
		r = process_meta(t, pid, t->threads + i, j - i);
	}
	return r;
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

/* One row, each thread's in start order (the longer first on a tie), the
 * threads' in any order. */
static int tx_event(struct txl *t, const struct tx_row *x)
{
	const char *msg, *domain;
	size_t msg_len, domain_len;
	int r;
	if ((r = exp_strings_get(t->msgs, x->msg, &msg, &msg_len)) <= 0 ||
	    (r = exp_strings_get(t->domains, x->domain, &domain, &domain_len)) <= 0)
		return r; /* no string: not an event, as a join leaves it out */
	struct thr *h = thread_of(t, x->g);
	if (!h)
		return -ENOMEM;
	int lane = place(&h->l, x->start, x->end);
	if (lane < 0)
		return lane;
	event(t, (uint32_t)((uint64_t)x->g >> 32), (uint32_t)x->g + (uint64_t)lane * EXPORT_LANE_TID_STEP, x->start,
	      x->end, x->type, x->category, msg, msg_len, domain, domain_len);
	return t->ev.err;
}

static int tx_event_row(sqlite3_stmt *st, void *ctx)
{
	struct tx_row x;
	tx_row_get(st, &x);
	return tx_event(ctx, &x);
}

/* The rows the reader's thread hands over (feed_take). */
static int tx_events_fed(struct txl *t, struct exp_tx_feed *f)
{
	int r = 0;
	while (r == 0 && feed_take(f, &r) > 0)
		for (size_t i = 0; i < f->take->n && r == 0; i++)
			r = tx_event(t, &f->take->rows[i]);
	feed_close(f); /* after an error: the reader stops handing rows */
	return r;
}

/* The domain's state, where it has one. */
static struct exp_mstx_state *state_of(struct exp *e)
{
	return *exp_domain_state(e, &exp_domain_mstx);
}

/* The mstx layers into out, and the same events into out2 too unless NULL
 * (msprof_{ts}.json and msprof_tx_{ts}.json in one pass). */
static int layers(struct exp *e, struct exp_tl *out, struct exp_tl *out2)
{
	/* the index's order (ties of start and end as it has them) */
	static const char sql[] = "SELECT " TX_COLUMNS " FROM MSTX_EVENTS ORDER BY globalTid, startNs, endNs DESC";
	if (!exp_table_has_rows(e, "MSTX_EVENTS"))
		return 0;
	struct txl t = { .e = e, .out = out, .out2 = out2 };
	/* the name, and how many other processes with events have it (a
	 * range of the globalTid index each) */
	int r = exp_prepare(e, "SELECT s.value, (SELECT count(DISTINCT o.pid) FROM AGENT_PROCESS o WHERE "
			       "o.name = a.name AND o.pid <> a.pid AND EXISTS (SELECT 1 FROM MSTX_EVENTS m "
			       "WHERE m.globalTid >= o.pid << 32 AND m.globalTid < (o.pid + 1) << 32)) "
			       "FROM AGENT_PROCESS a JOIN STRING_IDS s ON s.id = a.name WHERE a.pid = ?",
			    &t.name);
	if (r == 0)
		r = exp_strings_new(e, &t.msgs);
	if (r == 0)
		r = exp_strings_new(e, &t.domains);
	struct exp_mstx_state *s = state_of(e);
	if (r == 0 && s && s->layer && feed_wait(s->layer)) {
		r = tx_events_fed(&t, s->layer);
	} else if (r == 0) {
		t.ordered = true;
		r = exp_each(e, sql, NULL, tx_event_row, &t);
		if (r > 0)
			r = 0; /* a row count */
	}
	if (r == 0)
		r = all_meta(&t);
	sqlite3_finalize(t.name);
	exp_strings_free(t.msgs);
	exp_strings_free(t.domains);
	for (size_t i = 0; i < t.n_threads; i++)
		lanes_release(&t.threads[i].l);
	free(t.threads);
	exp_kmap_release(&t.index);
	exp_buf_release(&t.ev);
	return r;
}

/* --- summary ------------------------------------------------------------------ */

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
	struct exp_tx_feed *feed;  /* every row read goes there too, or NULL */
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

/* The rows of every cursor not yet read, to the timeline alone, each
 * cursor's in turn (each holds a row not yet read); 0 or the reader's
 * error. */
static int feed_rest(struct tx_rows *m)
{
	for (size_t i = 0; i < m->n_cur; i++) {
		int got = 1;
		while (got > 0) {
			struct tx_row x;
			tx_row_get(m->cur[i].st, &x);
			if (!feed_row(m->feed, &x))
				return 0; /* the timeline takes no more */
			got = exp_step(m->e, m->cur[i].st, "MSTX_EVENTS");
		}
		if (got < 0)
			return got;
	}
	return 0;
}

/* The last row to the timeline: after the rest of them unless the reader
 * failed (r). */
static void feed_stop(struct tx_rows *m, int r)
{
	if (!m->feed)
		return;
	if (r == 0)
		r = feed_rest(m);
	feed_end(m->feed, r);
	m->feed = NULL;
}

static void tx_rows_release(struct tx_rows *m)
{
	feed_stop(m, 0);
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

/* feed: the timeline's, or NULL; fed where the rows are merged. */
static int tx_rows_open(struct exp *e, struct tx_rows *m, struct exp_tx_feed *feed)
{
	*m = (struct tx_rows){ .e = e };
	int64_t *tids = malloc((MERGE_MAX_THREADS + 1) * sizeof *tids);
	if (!tids)
		return -ENOMEM;
	size_t n = 0;
	int r = exp_table_has_index(e, "MstxEventsIndex") ? tx_threads(e, tids, &n) : 0;
	if (r == 0 && (n == 0 || n > MERGE_MAX_THREADS)) {
		free(tids);
		if (feed)
			feed_decide(feed, false);
		return tx_rows_sorted(e, m);
	}
	if (r == 0 && (!(m->cur = calloc(n, sizeof *m->cur)) || !(m->rows = malloc(MERGE_MAX_ROWS * sizeof *m->rows))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct tx_cursor c = { 0 };
		/* the index's order: no sort */
		r = exp_prepare(e, "SELECT " TX_COLUMNS " FROM MSTX_EVENTS WHERE globalTid = ? "
				   "ORDER BY startNs, endNs DESC", &c.st);
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
	if (feed) {
		feed_decide(feed, r == 0);
		m->feed = r == 0 ? feed : NULL;
	}
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
		if (m->feed && !feed_row(m->feed, &m->rows[m->n_rows])) {
			feed_end(m->feed, 0); /* the timeline takes no more */
			m->feed = NULL;
		}
		rows_up(m->rows, m->n_rows++);
		got = exp_step(m->e, c->st, "MSTX_EVENTS");
	} while (got > 0 && (c->start = sqlite3_column_int64(c->st, 3)) == start);
	if (got < 0) {
		feed_stop(m, got);
		return got;
	}
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
			feed_stop(m, 0); /* the rest to the timeline before the sort */
			if ((r = tx_rows_sorted(m->e, m)) < 0)
				return r;
			return tx_rows_next(m, ret);
		}
	}
	if (!m->n_cur)
		feed_stop(m, 0);
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

/* The reader's thread (stages.c, shared_read): MSTX_EVENTS read once, in start order
 * to csv (the merge or the sort), each thread's rows in start order to
 * layer where they are merged, and report.html's range sums of every row
 * (complete once all are read).  Leaves both feeds decided and ended. */
static void tx_read(struct exp *e, struct exp_tx_feed *layer, struct exp_tx_feed *csv,
		    struct exp_agg_range_sums *sums)
{
	struct tx_rows m = { 0 };
	int r = exp_table_has_rows(e, "MSTX_EVENTS") ? tx_rows_open(e, &m, layer) : -ENODATA;
	bool open = r == 0;
	feed_decide(csv, open);
	struct tx_row x;
	while (r == 0 && (r = tx_rows_next(&m, &x)) > 0) {
		if (sums && exp_agg_range_counts(x.type, x.start, x.end) &&
		    exp_agg_range_add(sums, x.msg, x.domain, x.end - x.start) < 0)
			sums = NULL; /* out of memory: report.html sums them itself */
		r = feed_row(csv, &x) ? 0 : 1; /* 1: the summary takes no more */
	}
	if (sums && r == 0)
		sums->complete = true;
	if (open)
		feed_end(csv, r < 0 ? r : 0);
	tx_rows_release(&m); /* the rest of the rows to layer */
	feed_finish(layer);
	feed_finish(csv);
}

/* The summary's rows: from the reader's thread (f) or its own merge. */
struct csv_rows {
	struct exp_tx_feed *f;
	size_t i;                  /* the next of f->take */
	struct tx_rows m;
};

static int csv_rows_next(struct csv_rows *c, struct tx_row *ret)
{
	if (!c->f)
		return tx_rows_next(&c->m, ret);
	while (c->i == c->f->take->n) {
		int r = 0;
		if (!feed_take(c->f, &r))
			return r;
		c->i = 0;
	}
	*ret = c->f->take->rows[c->i++];
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
	struct exp_mstx_state *s = state_of(e);
	struct csv_rows rows = { .f = s && s->csv && feed_wait(s->csv) ? s->csv : NULL };
	struct exp_buf b = { 0 };
	struct exp_table w;
	bool open = false;
	int r = exp_strings_new(e, &msgs);
	if (r == 0)
		r = exp_strings_new(e, &domains);
	if (r == 0 && !rows.f)
		r = tx_rows_open(e, &rows.m, NULL);
	if (r == 0)
		open = (r = exp_table_open(e, &w, dir, CSV_MSPROF_TX)) == 0;
	struct tx_row x;
	while (r == 0 && (r = csv_rows_next(&rows, &x)) > 0) {
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
	if (rows.f)
		feed_close(rows.f); /* after an error: the reader stops handing rows */
	tx_rows_release(&rows.m);
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

/* The rows of a table as written, before any --model-id view: its largest
 * rowid (the export only inserts); 0 without the table. */
static int64_t table_size(struct exp *e, const char *table)
{
	char sql[96];
	snprintf(sql, sizeof sql, "SELECT max(rowid) FROM main.%s", table);
	int64_t n = 0;
	(void)db_each(e->db, sql, NULL, db_row_i64, &n);
	return n;
}

/* The mstx layers cost about what the msprof_tx summary does, the device
 * layers about half again what their summaries do: written ahead, they
 * even the threads out while the device tasks are at least as many as the
 * mstx events, and would hold up the summaries with fewer (mstx events
 * alone, or ten times as many), which then take the rows of one read of
 * the table (shared_read). */
static bool layers_ahead(struct exp *e)
{
	return table_size(e, "MSTX_EVENTS") <= table_size(e, "TASK");
}

/* --- one read of MSTX_EVENTS for the layers and the summary ------------------------------ */

static bool read_wanted(struct exp *e)
{
	return has_layers(e);
}

static void read_end(struct exp *e)
{
	struct exp_mstx_state *s = state_of(e);
	if (!s)
		return;
	s->layer = feed_free(s->layer);
	s->csv = feed_free(s->csv);
	if (s->sums)
		exp_agg_range_sums_release(s->sums);
	free(s->sums);
	s->sums = NULL;
	e->agg_ranges = NULL;
	exp_mstx_state_drop(e);
}

static int read_begin(struct exp *e)
{
	struct exp_mstx_state *s = exp_mstx_state(e);
	if (!s)
		return -ENOMEM;
	s->layer = feed_new();
	s->csv = feed_new();
	s->sums = calloc(1, sizeof *s->sums);
	if (!s->layer || !s->csv || !s->sums) {
		read_end(e);
		return -ENOMEM;
	}
	e->agg_ranges = s->sums;
	return 0;
}

static void read_rows(struct exp *e)
{
	struct exp_mstx_state *s = state_of(e);
	tx_read(e, s->layer, s->csv, s->sums);
}

static void read_cancel(struct exp *e)
{
	struct exp_mstx_state *s = state_of(e);
	if (s && s->layer) {
		feed_finish(s->layer);
		feed_finish(s->csv);
	}
}

static void read_done(struct exp *e, bool timeline)
{
	struct exp_mstx_state *s = state_of(e);
	if (s && s->layer)
		feed_close(timeline ? s->layer : s->csv);
}

static const struct exp_shared_read shared_read = {
	.wanted = read_wanted,
	.begin = read_begin,
	.read = read_rows,
	.cancel = read_cancel,
	.done = read_done,
	.end = read_end,
};

/* The names of MSTX_EVENTS' eventType, whatever was collected. */
static int write_event_types(struct exp *e)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(export_mstx_event_types); i++) {
		char ins[128];
		snprintf(ins, sizeof ins, "INSERT INTO ENUM_MSTX_EVENT_TYPE VALUES (%zu, '%s')", i,
			 export_mstx_event_types[i]);
		r = exp_exec(e, ins);
	}
	return r;
}

static const char *const tables[] = { "MSTX_EVENTS", "ENUM_MSTX_EVENT_TYPE", "AGENT_CATEGORY", NULL };
static const enum export_csv csvs[] = { CSV_MSPROF_TX, _CSV_MAX };

/* Annotations: MSTX_EVENTS and AGENT_CATEGORY from the agents' records
 * (decoders and range matching in domain-mstx-parse.c); the msprof_tx
 * layers, also in msprof_tx_{ts}.json, written ahead or from one read of
 * MSTX_EVENTS shared with the msprof_tx summary. */
const struct exp_domain exp_domain_mstx = {
	.name = "mstx",
	.agent_records = exp_mstx_records,
	.agent_ops = &exp_mstx_agent_ops,
	.parse = write_event_types,
	.release = exp_mstx_release,
	.tables = tables,
	.csvs = csvs,
	.has_layers = has_layers,
	.layers = layers,
	.summaries = exp_write_tx_summary,
	.own_timeline = "msprof_tx",
	.own_track = TRACK_MSPROFTX,
	.layers_ahead = layers_ahead,
	.shared_read = &shared_read,
};
