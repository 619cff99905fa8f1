/* OS runtime calls (--host-sys=osrt): OSRT_API -> the "OS Runtime API"
 * layers of msprof_{ts}.json and os_runtime_statistic_{ts}.csv.
 *
 * Timeline (msprof's HostSyscallPresenter): one process "OS Runtime API"
 * (sort index 13, label CPU) per profiled process that made slow calls,
 * pid packed as the other host layers; per thread thread_name
 * "Thread <tid>" and thread_sort_index <tid>; every call an "X" event named
 * after the call (keys name, pid, tid, ts, dur, ph, args).  The agent never
 * records a call made inside another of the same thread, so the events of
 * one thread follow each other and nest trivially.  Streamed by thread and
 * time (index OsrtApiIndex).
 *
 * Summary (msprof's HostSyscall.get_summary_runtime_api_data): per
 * process, thread and call, the total, count, mean, longest and shortest
 * duration, longest total first.  Time(%) is the row's share of the total
 * of all rows, in percent with 3 decimals: msprof's query divides the two
 * sums and writes the fraction (0.25 for a quarter) under its "Time(%)"
 * header; we write what the header says (25.0).  Durations are µs with 3
 * decimals. */
#include "export/internal.h"
#include "common/util.h"

static unsigned layer_pid(uint32_t pid)
{
	return export_format_pid(pid, export_tracks[TRACK_OS_RUNTIME_API].sort_index, EXPORT_HOST_DEVICE_ID);
}

/* A process's metadata and the names of its threads (tids[0..n)). */
static void process_meta(struct exp_tl *out, uint32_t pid, const uint32_t *tids, size_t n)
{
	const struct export_track_info *k = &export_tracks[TRACK_OS_RUNTIME_API];
	unsigned fpid = layer_pid(pid);
	exp_tl_process(out, fpid, k->process_name, k->label, k->sort_index);
	for (size_t i = 0; i < n; i++)
		exp_tl_thread(out, fpid, tids[i], "Thread");
}

int exp_write_osrt_layer(struct exp *e, struct exp_tl *out)
{
	static const char sql[] = "SELECT o.globalTid, o.startNs, o.endNs, s.value FROM OSRT_API o "
				  "JOIN STRING_IDS s ON s.id = o.name ORDER BY o.globalTid, o.startNs, o.rowid";
	if (!exp_table_has_rows(e, "OSRT_API"))
		return 0;
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	uint32_t *tids = NULL;
	size_t n = 0, cap = 0;
	int64_t cur = -1;
	struct exp_buf b = { 0 };   /* one event, handed to the timeline in one write */
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t g = sqlite3_column_int64(st, 0);
		uint32_t pid = (uint32_t)((uint64_t)g >> 32), tid = (uint32_t)g;
		if (g != cur) {
			if (cur >= 0 && (uint32_t)((uint64_t)cur >> 32) != pid) {
				process_meta(out, (uint32_t)((uint64_t)cur >> 32), tids, n);
				n = 0;
			}
			if (n == cap) {
				size_t c = cap ? cap * 2 : 16;
				uint32_t *t = realloc(tids, c * sizeof *t);
				if (!t) {
					r = -ENOMEM;
					break;
				}
				tids = t;
				cap = c;
			}
			tids[n++] = tid;
			cur = g;
		}
		int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
		const char *name = (const char *)sqlite3_column_text(st, 3);
		exp_buf_lit(&b, "{\"name\":\"");
		exp_buf_json_str(&b, name ? name : "", (size_t)sqlite3_column_bytes(st, 3));
		exp_buf_lit(&b, "\",\"pid\":");
		exp_buf_u64(&b, layer_pid(pid));
		exp_buf_lit(&b, ",\"tid\":");
		exp_buf_u64(&b, tid);
		exp_buf_lit(&b, ",\"ts\":\"");
		exp_buf_ts(&b, start);
		exp_buf_lit(&b, "\",\"dur\":");
		exp_buf_dur_us(&b, end - start);
		exp_buf_lit(&b, ",\"ph\":\"X\",\"args\":{}}");
		if ((r = b.err) < 0)
			break;
		exp_buf_flush_to(&b, exp_tl_event(out));
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	if (r == 0 && cur >= 0)
		process_meta(out, (uint32_t)((uint64_t)cur >> 32), tids, n);
	sqlite3_finalize(st);
	free(tids);
	exp_buf_release(&b);
	return r;
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

int exp_write_osrt_summary(struct exp *e, const char *dir)
{
	static const char sql[] =
		"SELECT o.globalTid >> 32, o.globalTid & 4294967295, s.value, SUM(o.endNs - o.startNs) AS t, "
		"COUNT(*), AVG(o.endNs - o.startNs), MAX(o.endNs - o.startNs), MIN(o.endNs - o.startNs) "
		"FROM OSRT_API o JOIN STRING_IDS s ON s.id = o.name GROUP BY o.globalTid, o.name "
		"ORDER BY t DESC, o.globalTid, s.value";
	if (e->have_sample && !(e->ask_sys & ASK_OSRT))
		return 0;
	if (!exp_table_has_rows(e, "OSRT_API")) {
		if (e->selected) { /* the chosen steps hold no call: no older file stays */
			exp_remove_stale(dir, export_csv_tables[CSV_OS_RUNTIME_STATISTIC].type, ".csv", e->ts, 0);
			exp_remove_stale(dir, export_csv_tables[CSV_OS_RUNTIME_STATISTIC].type, ".json", e->ts, 0);
		}
		return 0;
	}
	sqlite3_stmt *st;
	int64_t total = 0;
	int r = exp_prepare(e, "SELECT SUM(endNs - startNs) FROM OSRT_API", &st);
	if (r < 0)
		return r;
	if (sqlite3_step(st) == SQLITE_ROW)
		total = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return exp_table_query(e, dir, CSV_OS_RUNTIME_STATISTIC, sql, osrt_row, &total);
}
