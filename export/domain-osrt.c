/* OS runtime calls (--host-sys=osrt): OSRT_API -> the "OS Runtime API"
 * layers of msprof_{ts}.json and os_runtime_statistic_{ts}.csv.
 *
 * Timeline (msprof's HostSyscallPresenter): one process "OS Runtime API"
 * (sort index 13, label CPU), pid packed with the PROF dir's pid as the
 * other host layers; a thread per tid of every profiled process that
 * made slow calls, thread_name "Thread <tid>" and thread_sort_index <tid>;
 * every call an "X" event named after the call (keys name, pid, tid, ts,
 * dur, ph, args).  The agent never records a call made inside another of
 * the same thread, so the events of one thread follow each other and nest
 * trivially.  Streamed by thread and time (index OsrtApiIndex).
 *
 * Summary (msprof's HostSyscall.get_summary_runtime_api_data): per
 * process, thread and call, the total, count, mean, longest and shortest
 * duration, longest total first.  Time(%) is the row's share of the total
 * of all rows, in percent with 3 decimals: msprof's query divides the two
 * sums and writes the fraction (0.25 for a quarter) under its "Time(%)"
 * header; we write what the header says (25.0).  Durations are µs with 3
 * decimals. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>

#include "collectors/osrt-api.h"
#include "collectors/raw.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain-agents.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

/* The entry, at the end: its hooks keep their state in its slot. */
extern const struct exp_domain exp_domain_osrt;

/* An OS runtime call (--host-sys=osrt), one record: OSRT_API(name,
 * globalTid, startNs, endNs).  An api id this build does not know (a newer
 * agent's) is kept under a name that says so. */
static int take_call(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		     int64_t t)
{
	uint32_t tid = raw_cur_u32(c), api = raw_cur_u32(c);
	uint64_t end = raw_cur_u64(c);
	if (c->err || end > INT64_MAX)
		return 1;
	int64_t end_ns = raw_unix_ns(ap->h, end);
	if (end_ns < t || exp_time_far(e, end_ns))
		return 1;
	const char *name = osrt_api_name(api);
	char unknown[32];
	if (!name) {
		snprintf(unknown, sizeof unknown, "osrt call %u", api);
		name = unknown;
	}
	int64_t sid;
	int r = exp_intern_id(e, name, &sid);
	if (r < 0)
		return r;
	struct exp_batch *rows = *exp_domain_state(e, &exp_domain_osrt);
	if (!rows)
		return -EINVAL; /* begin_all made it */
	exp_note_time(e, end_ns);
	const union exp_value v[4] = { { .i = sid }, { .i = (int64_t)(((uint64_t)ap->pid << 32) | tid) }, { .i = t },
					{ .i = end_ns } };
	return exp_batch_put(rows, v);
}

/* The domain's state: OSRT_API's rows, batched while the agents' files
 * are read. */
static int begin_all(struct exp *e)
{
	void **state = exp_domain_state(e, &exp_domain_osrt);
	struct exp_batch *rows = calloc(1, sizeof *rows);
	if (!rows)
		return -ENOMEM;
	*state = rows;
	return exp_batch_init(e, rows, "OSRT_API", "iiii");
}

/* Every call read is in OSRT_API before its index is made (domain-agents.c). */
static int end_all(struct exp *e)
{
	struct exp_batch *rows = *exp_domain_state(e, &exp_domain_osrt);
	return rows ? exp_batch_drain(rows) : 0; /* none put: nothing to do */
}

static const struct exp_agent_ops agent_ops = {
	.begin_all = begin_all,
	.end_all = end_all,
};

static void release(struct exp *e)
{
	void **state = exp_domain_state(e, &exp_domain_osrt);
	if (*state)
		exp_batch_release(*state);
	free(*state);
	*state = NULL;
}

/* The one "OS Runtime API" process of the file, pid packed with the PROF
 * dir's pid (host/info.json), as the other host layers are. */
static unsigned layer_pid(const struct exp *e)
{
	return export_format_pid(e->app_pid, export_tracks[TRACK_OS_RUNTIME_API].sort_index, EXPORT_HOST_DEVICE_ID);
}

static int tid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The process's metadata and the names of its threads (tids[0..n), a
 * tid that two processes used in turn named once). */
static void process_meta(struct exp *e, struct exp_tl *out, uint32_t *tids, size_t n)
{
	const struct export_track_info *k = &export_tracks[TRACK_OS_RUNTIME_API];
	unsigned fpid = layer_pid(e);
	exp_tl_process(out, fpid, k->process_name, k->label, k->sort_index);
	qsort_safe(tids, n, sizeof *tids, tid_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && tids[i] == tids[i - 1])
			continue;
		char name[256];
		exp_agent_thread_name(e, -1, tids[i], name, sizeof name);
		exp_tl_thread_named(out, fpid, tids[i], "Thread", name);
	}
}

/* The calls in thread order, every thread of every process on a thread
 * of its own tid in one process: MindSpore's parser rejects a timeline
 * in which two processes share a name (readers/NOTES.md §5), and msprof
 * writes one "OS Runtime API" process.  Tids are unique among the live
 * threads of a pid namespace, so the rows keep theirs. */
struct osrt_walk {
	struct exp *e;
	struct exp_tl *out;
	uint32_t *tids;
	size_t n, cap;
	int64_t cur;                /* globalTid of the thread walked, -1 none */
	struct exp_buf b;           /* one event, handed to the timeline in one write */
};

static int osrt_event(sqlite3_stmt *st, void *ctx)
{
	struct osrt_walk *w = ctx;
	struct exp_buf *b = &w->b;
	int64_t g = sqlite3_column_int64(st, 0);
	uint32_t tid = (uint32_t)g;
	if (g != w->cur) {
		uint32_t *t = grow_array(w->tids, &w->cap, w->n, sizeof *t, 16);
		if (!t)
			return -ENOMEM;
		w->tids = t;
		w->tids[w->n++] = tid;
		w->cur = g;
	}
	int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
	const char *name = (const char *)sqlite3_column_text(st, 3);
	exp_buf_x_event(b, name ? name : "", (size_t)sqlite3_column_bytes(st, 3), layer_pid(w->e), tid, start, end);
	exp_buf_lit(b, "}}");
	if (b->err < 0)
		return b->err;
	exp_buf_flush_to(b, exp_tl_event(w->out));
	return 0;
}

static int exp_write_osrt_layer(struct exp *e, struct exp_tl *out)
{
	static const char sql[] = "SELECT o.globalTid, o.startNs, o.endNs, s.value FROM OSRT_API o "
				  "JOIN STRING_IDS s ON s.id = o.name ORDER BY o.globalTid, o.startNs, o.rowid";
	if (!exp_table_has_rows(e, "OSRT_API"))
		return 0;
	struct osrt_walk w = { .e = e, .out = out, .cur = -1 };
	int r = exp_each(e, sql, NULL, osrt_event, &w);
	if (r >= 0 && w.cur >= 0)
		process_meta(e, out, w.tids, w.n);
	free(w.tids);
	exp_buf_release(&w.b);
	return r < 0 ? r : 0;
}

static void put_us(FILE *f, double ns)
{
	char b[64];
	exp_format_num(ns / 1000.0, 3, b, sizeof b);
	fputc(',', f);
	fputs(b, f);
}

/* One (process, thread, call) row; arg: the total time of all calls, ns */
static void osrt_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t total = *(const int64_t *)arg;
	double sum = sqlite3_column_double(st, 3);
	char pct[64];
	exp_format_num(total > 0 ? sum * 100.0 / (double)total : 0.0, 3, pct, sizeof pct);
	fprintf(f, "host,%" PRId64 ",%" PRId64 ",%s,%s", (int64_t)sqlite3_column_int64(st, 0),
		(int64_t)sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 2), pct);
	put_us(f, sum);
	fprintf(f, ",%" PRId64, (int64_t)sqlite3_column_int64(st, 4));
	put_us(f, sqlite3_column_double(st, 5));
	put_us(f, sqlite3_column_double(st, 6));
	put_us(f, sqlite3_column_double(st, 7));
	fputc('\n', f);
}

static int exp_write_osrt_summary(struct exp *e, const char *dir)
{
	static const char sql[] =
		"SELECT o.globalTid >> 32, o.globalTid & 4294967295, s.value, SUM(o.endNs - o.startNs) AS t, "
		"COUNT(*), AVG(o.endNs - o.startNs), MAX(o.endNs - o.startNs), MIN(o.endNs - o.startNs) "
		"FROM OSRT_API o JOIN STRING_IDS s ON s.id = o.name GROUP BY o.globalTid, o.name "
		"ORDER BY t DESC, o.globalTid, s.value";
	if (e->have_sample && !(e->sample.u[SET_HOST_SYS] & HOST_SYS_OSRT))
		return 0;
	if (!exp_table_has_rows(e, "OSRT_API")) {
		if (e->selected) { /* the chosen steps hold no call: no older file stays */
			const struct export_csv_table *t = &export_csv_tables[CSV_OS_RUNTIME_STATISTIC];
			exp_remove_stale(dir, export_csv_stem(t, false), ".csv", e->ts, 0);
			exp_remove_stale(dir, export_csv_stem(t, true), ".json", e->ts, 0);
		}
		return 0;
	}
	int64_t total = 0;
	int r = exp_each(e, "SELECT SUM(endNs - startNs) FROM OSRT_API", NULL, db_row_i64, &total);
	if (r < 0)
		return r;
	return exp_table_query(e, dir, CSV_OS_RUNTIME_STATISTIC, sql, osrt_row, &total);
}

static bool has_layers(struct exp *e)
{
	return exp_track_on(e, TRACK_OS_RUNTIME_API) && exp_table_has_rows(e, "OSRT_API");
}

static int layers(struct exp *e, struct exp_tl *tl, struct exp_tl *own)
{
	return exp_track_on(e, TRACK_OS_RUNTIME_API) ? exp_write_osrt_layer(e, tl) : 0;
}

static const struct exp_agent_record records[] = {
	{ RAW_AGENT_OSRT, take_call },
	{ 0, NULL },
};

static const char *const tables[] = { "OSRT_API", NULL };
static const enum export_csv csvs[] = { CSV_OS_RUNTIME_STATISTIC, _CSV_MAX };

/* OS runtime calls: OSRT_API, from the agents' RAW_AGENT_OSRT records. */
const struct exp_domain exp_domain_osrt = {
	.name = "osrt",
	.tables = tables,
	.csvs = csvs,
	.agent_records = records,
	.agent_ops = &agent_ops,
	.release = release,
	.has_layers = has_layers,
	.layers = layers,
	.summaries = exp_write_osrt_summary,
};
