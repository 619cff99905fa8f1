/* Device tasks -> op_summary, op_statistic, task_time, api_statistic
 * (reference §3) and the Ascend Hardware / CANN timeline layers with their
 * HostToDevice flows (§4, §9).  Read from TASK, COMPUTE_TASK_INFO,
 * CANN_API (msprof's tables) joined with GPU_TASK for what CUDA adds. */
#include "gputask.h"
#include "internal.h"
#include "util.h"

/* The tasks with what the other tables know of them, in columns T_*;
 * wait: T_WAIT too, from a table w (id, wait) the caller defines; tail:
 * WHERE and ORDER BY.  COMPUTE_TASK_INFO (no kernels) and CANN_API (no API
 * calls recorded) are dropped when empty, so the query is made for what
 * exists.  GPU_TASK is named in main: under iteration selection its
 * plain name is a view (select.c), whose rows have no rowid to join on
 * (TASK, the view, already keeps the chosen tasks alone).  Returns a
 * malloc'd string or NULL. */
static char *tasks_sql(struct exp *e, bool wait, const char *tail)
{
	bool kernels = exp_table_has_rows(e, "COMPUTE_TASK_INFO"), api = exp_table_has_rows(e, "CANN_API");
	bool ranges = exp_table_has_rows(e, "GPU_TASK_RANGE");
	char *sql = NULL;
	if (asprintf(&sql,
		     "SELECT t.deviceId, t.streamId, t.taskId, t.startNs, t.endNs, t.connectionId, g.kind, %s, %s, "
		     "%s, %s, %s, %s, g.copyKind, g.bytes, tt.value AS ttype, g.pid, %s AS launched, %s AS range%s "
		     "FROM TASK t JOIN main.GPU_TASK g ON g.rowid = t.globalTaskId %s %s "
		     "JOIN STRING_IDS tt ON tt.id = t.taskType%s %s",
		     kernels ? "sn.value AS name" : "NULL", kernels ? "ot.value AS optype" : "NULL",
		     kernels ? "c.blockNum" : "NULL", kernels ? "c.mixBlockNum" : "NULL", kernels ? "c.gridDim" : "NULL",
		     kernels ? "c.blockDim" : "NULL",
		     api ? "EXISTS (SELECT 1 FROM CANN_API a WHERE a.connectionId = t.connectionId)" : "0",
		     ranges ? "rs.value" : "NULL", wait ? ", w.wait" : "",
		     kernels ? "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
			       "LEFT JOIN STRING_IDS sn ON sn.id = c.name LEFT JOIN STRING_IDS ot ON ot.id = c.opType"
			     : "",
		     ranges ? "LEFT JOIN GPU_TASK_RANGE r ON r.globalTaskId = t.globalTaskId "
			      "LEFT JOIN STRING_IDS rs ON rs.id = r.message" : "",
		     wait ? " JOIN w ON w.id = t.globalTaskId" : "", tail) < 0)
		return NULL;
	return sql;
}
enum { T_DEV, T_STREAM, T_TASKID, T_START, T_END, T_CONN, T_KIND, T_NAME, T_OPTYPE, T_BLOCKS, T_THREADS,
       T_GRID, T_BLOCK, T_COPY, T_BYTES, T_TYPE, T_PID, T_LAUNCHED, T_RANGE, T_WAIT };

static const char *const copy_names[] = { "Memcpy Unknown", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
					  "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
					  "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP" };

static const char *col_text(sqlite3_stmt *st, int i, const char *dflt)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : dflt;
}

/* A task's name: the demangled kernel name, "Memcpy HtoD", "Memset" */
static const char *task_name(sqlite3_stmt *st)
{
	int64_t kind = sqlite3_column_int64(st, T_KIND), copy = sqlite3_column_int64(st, T_COPY);
	if (kind == GPU_TASK_MEMCPY)
		return copy >= 0 && copy < (int64_t)ARRAY_SIZE(copy_names) ? copy_names[copy] : "Memcpy";
	if (kind == GPU_TASK_MEMSET)
		return "Memset";
	return col_text(st, T_NAME, "");
}

static void csv_str(FILE *f, const char *s)
{
	exp_csv_field(f, s, strlen(s));
}

static void us(FILE *f, int64_t ns)
{
	char b[32];
	exp_format_ts(ns, b);
	fputs(b, f);
}

static void op_summary_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	fprintf(f, "%" PRId64 ",4294967295,%" PRId64 ",%" PRId64 ",", (int64_t)sqlite3_column_int64(st, T_DEV),
		(int64_t)sqlite3_column_int64(st, T_TASKID), (int64_t)sqlite3_column_int64(st, T_STREAM));
	csv_str(f, task_name(st));
	fputc(',', f);
	csv_str(f, col_text(st, T_OPTYPE, "N/A"));
	fprintf(f, ",N/A,%s,", col_text(st, T_TYPE, "KERNEL"));
	int64_t s = sqlite3_column_int64(st, T_START), end = sqlite3_column_int64(st, T_END);
	us(f, s);
	fputs("\t,", f);
	us(f, end - s);
	fputc(',', f);
	us(f, sqlite3_column_int64(st, T_WAIT));
	fprintf(f, ",%" PRId64 ",%" PRId64 ",N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n",
		(int64_t)sqlite3_column_int64(st, T_BLOCKS), (int64_t)sqlite3_column_int64(st, T_THREADS));
}

/* Task Wait Time: since the previous task (of any kind) on the same stream
 * of the same process and device ended; 0 for the first and for overlaps.
 * Computed over TASK's own columns and joined by id: the window over the
 * whole joined row sorted every task's names and strings twice (6 s of a
 * 16 s export at 1,000,000 tasks). */
static char *op_summary_sql(struct exp *e)
{
	_cleanup_free_ char *inner = tasks_sql(e, true, "WHERE g.kind = 1 ORDER BY t.startNs");
	char *sql = NULL;
	if (!inner || asprintf(&sql, "WITH w (id, wait) AS MATERIALIZED (SELECT globalTaskId, max(0, startNs - "
				     "coalesce(lag(endNs) OVER (PARTITION BY globalPid, deviceId, streamId ORDER BY "
				     "startNs), startNs)) FROM TASK) %s", inner) < 0)
		return NULL;
	return sql;
}

/* per device and kernel (opType), longest total first */
#define OP_STATISTIC_SQL \
	"SELECT ot.value, count(*), sum(t.endNs - t.startNs), min(t.endNs - t.startNs), " \
	"max(t.endNs - t.startNs), (SELECT sum(x.endNs - x.startNs) FROM TASK x JOIN COMPUTE_TASK_INFO y " \
	"ON y.globalTaskId = x.globalTaskId WHERE x.deviceId = t.deviceId), t.deviceId " \
	"FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = " \
	"t.globalTaskId JOIN STRING_IDS ot ON ot.id = c.opType GROUP BY t.deviceId, c.opType " \
	"ORDER BY 7, 3 DESC, 1"

static void op_statistic_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t n = sqlite3_column_int64(st, 1), total = sqlite3_column_int64(st, 2);
	int64_t all = sqlite3_column_int64(st, 5);
	char ratio[64];
	exp_format_num(all ? 100.0 * (double)total / (double)all : 0, 3, ratio, sizeof ratio);
	fprintf(f, "%" PRId64 ",", (int64_t)sqlite3_column_int64(st, 6));
	csv_str(f, col_text(st, 0, ""));
	fprintf(f, ",CUDA,%" PRId64 ",", n);
	us(f, total);
	fputc(',', f);
	us(f, sqlite3_column_int64(st, 3));
	fputc(',', f);
	us(f, n ? total / n : 0);
	fputc(',', f);
	us(f, sqlite3_column_int64(st, 4));
	fprintf(f, ",%s\n", ratio);
}

static void task_time_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t s = sqlite3_column_int64(st, T_START), end = sqlite3_column_int64(st, T_END);
	fprintf(f, "%" PRId64 ",", (int64_t)sqlite3_column_int64(st, T_DEV));
	csv_str(f, task_name(st));
	fprintf(f, ",%s,%" PRId64 ",%" PRId64 ",", col_text(st, T_TYPE, ""), (int64_t)sqlite3_column_int64(st, T_STREAM),
		(int64_t)sqlite3_column_int64(st, T_TASKID));
	us(f, end - s);
	fputc(',', f);
	us(f, s);
	fputs("\t,", f);
	us(f, end);
	fputs("\t\n", f);
}

static char *task_time_sql(struct exp *e)
{
	return tasks_sql(e, false, "ORDER BY t.startNs");
}

/* durations in µs as doubles for the variance (population, µs²) */
#define API_STATISTIC_SQL \
	"SELECT s.value, sum(a.endNs - a.startNs), count(*), min(a.endNs - a.startNs), max(a.endNs - a.startNs), " \
	"avg((a.endNs - a.startNs) / 1000.0 * (a.endNs - a.startNs) / 1000.0) - " \
	"avg((a.endNs - a.startNs) / 1000.0) * avg((a.endNs - a.startNs) / 1000.0) " \
	"FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name GROUP BY a.name ORDER BY 2 DESC, 1"

static void api_statistic_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t total = sqlite3_column_int64(st, 1), n = sqlite3_column_int64(st, 2);
	double var = sqlite3_column_double(st, 5);
	char v[64];
	exp_format_num(var < 0 ? 0 : var, 3, v, sizeof v);
	fputs("host,Runtime,", f);
	csv_str(f, col_text(st, 0, ""));
	fputc(',', f);
	us(f, total);
	fprintf(f, ",%" PRId64 ",", n);
	us(f, n ? total / n : 0);
	fputc(',', f);
	us(f, sqlite3_column_int64(st, 3));
	fputc(',', f);
	us(f, sqlite3_column_int64(st, 4));
	fprintf(f, ",%s\n", v);
}

static char *op_statistic_sql(struct exp *e)
{
	return strdup(OP_STATISTIC_SQL);
}

static char *api_statistic_sql(struct exp *e)
{
	return strdup(API_STATISTIC_SQL);
}

int exp_write_gpu_summaries(struct exp *e, const char *dir)
{
	static const struct {
		enum export_csv csv;
		const char *table;
		char *(*sql)(struct exp *e); /* malloc'd */
		void (*row)(FILE *f, sqlite3_stmt *st, void *arg);
	} files[] = {
		{ CSV_OP_SUMMARY, "COMPUTE_TASK_INFO", op_summary_sql, op_summary_row },
		{ CSV_OP_STATISTIC, "COMPUTE_TASK_INFO", op_statistic_sql, op_statistic_row },
		{ CSV_TASK_TIME, "TASK", task_time_sql, task_time_row },
		{ CSV_API_STATISTIC, "CANN_API", api_statistic_sql, api_statistic_row },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (!exp_table_has_rows(e, files[i].table))
			continue;
		_cleanup_free_ char *sql = files[i].sql(e);
		if (!sql)
			return -ENOMEM;
		int r = exp_table_query(e, dir, files[i].csv, sql, files[i].row, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

/* --- timeline ------------------------------------------------------------------- */

/* msprof's flow id: the string of connectionId << 32 (our connection ids
 * may pass 32 bits, so the shift is done in 128 bits, never wrapped) */
__extension__ typedef unsigned __int128 u128;

static void flow_id(int64_t conn, char buf[48])
{
	u128 v = (u128)(uint64_t)conn << 32;
	char tmp[48];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
}

static void flow(struct exp_tl *t, const char *ph, unsigned pid, int64_t tid, int64_t conn, const char *ts)
{
	FILE *f;
	char id[48];
	flow_id(conn, id);
	f = exp_tl_event(t);
	fprintf(f, "{\"name\":\"HostToDevice%s\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"%s\",\"cat\":\"HostToDevice\","
		   "\"id\":\"%s\",\"ts\":\"%s\"%s}", id, pid, tid, ph, id, ts, *ph == 'f' ? ",\"bp\":\"e\"" : "");
}

bool exp_have_gpu_layers(struct exp *e)
{
	return exp_table_has_rows(e, "TASK") || exp_table_has_rows(e, "CANN_API");
}

static int hw_layer(struct exp *e, struct exp_tl *t)
{
	FILE *f;
	const struct export_track_info *k = &export_tracks[TRACK_ASCEND_HW];
	_cleanup_free_ char *sql = tasks_sql(e, false, "ORDER BY t.deviceId, t.streamId, t.startNs");
	if (!sql)
		return -ENOMEM;
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st), rc = SQLITE_DONE;
	int64_t dev = -1, stream = -1;
	unsigned pid = 0;
	char label[32];
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t d = sqlite3_column_int64(st, T_DEV), s = sqlite3_column_int64(st, T_STREAM);
		if (d < 0 || d > 30)
			continue;
		if (d != dev || s != stream) {
			if (stream >= 0)
				exp_tl_thread(t, pid, stream, "Stream");
			if (d != dev && dev >= 0) {
				snprintf(label, sizeof label, "NPU %" PRId64, dev);
				exp_tl_process(t, pid, k->process_name, label, k->sort_index);
			}
			dev = d, stream = s;
			pid = export_format_pid(e->app_pid, k->sort_index, (unsigned)d);
		}
		int64_t start = sqlite3_column_int64(st, T_START), end = sqlite3_column_int64(st, T_END);
		char ts[32], dur[32];
		exp_format_ts(start, ts);
		exp_format_ts(end - start, dur);
		f = exp_tl_event(t);
		fputs("{\"name\":\"", f);
		const char *name = task_name(st);
		exp_json_str(f, name, strlen(name));
		fprintf(f, "\",\"pid\":%u,\"tid\":%" PRId64 ",\"ts\":\"%s\",\"dur\":%s,\"ph\":\"X\",\"args\":{\"Model Id\":"
			   "4294967295,\"Task Type\":\"%s\",\"Physic Stream Id\":%" PRId64 ",\"Task Id\":%" PRId64
			   ",\"Batch Id\":0,\"Subtask Id\":4294967295,\"connection_id\":%" PRId64,
			pid, s, ts, dur, col_text(st, T_TYPE, ""), s, (int64_t)sqlite3_column_int64(st, T_TASKID),
			(int64_t)sqlite3_column_int64(st, T_CONN));
		int64_t kind = sqlite3_column_int64(st, T_KIND);
		if (kind == GPU_TASK_KERNEL) {
			fprintf(f, ",\"Grid Dim\":\"%s\",\"Block Dim\":\"%s\"", col_text(st, T_GRID, ""),
				col_text(st, T_BLOCK, ""));
		} else {
			int64_t bytes = sqlite3_column_int64(st, T_BYTES);
			char bw[64];
			exp_format_num(end > start ? (double)bytes / (double)(end - start) : 0, 6, bw, sizeof bw);
			fprintf(f, ",\"size(B)\":%" PRId64 ",\"bandwidth(GB/s)\":%s", bytes, bw);
			if (kind == GPU_TASK_MEMCPY)
				fprintf(f, ",\"operation\":\"%s\"", task_name(st) + strlen("Memcpy "));
		}
		const char *range = (const char *)sqlite3_column_text(st, T_RANGE);
		if (range) {
			fputs(",\"range\":\"", f);
			exp_json_str(f, range, strlen(range));
			fputc('"', f);
		}
		fputs("}}", f);
		/* the flow's end, at the task start (§9: same pid, tid, ts) */
		if (sqlite3_column_int64(st, T_LAUNCHED))
			flow(t, "f", pid, s, sqlite3_column_int64(st, T_CONN), ts);
	}
	if (stream >= 0) {
		exp_tl_thread(t, pid, stream, "Stream");
		snprintf(label, sizeof label, "NPU %" PRId64, dev);
		exp_tl_process(t, pid, k->process_name, label, k->sort_index);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	if (r == 0)
		sqlite3_finalize(st);
	return r;
}

static int cann_layer(struct exp *e, struct exp_tl *tl)
{
	FILE *f;
	const struct export_track_info *k = &export_tracks[TRACK_CANN];
	unsigned pid = export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID);
	/* a flow starts only at a call that launched a task (no TASK table
	 * with --task-time=off) */
	static const char with_tasks[] = "SELECT a.globalTid & 4294967295, a.startNs, a.endNs, a.connectionId, s.value, "
					 "a.connectionId IN (SELECT connectionId FROM TASK) "
					 "FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name ORDER BY 1, a.startNs";
	static const char no_tasks[] = "SELECT a.globalTid & 4294967295, a.startNs, a.endNs, a.connectionId, s.value, 0 "
				       "FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name ORDER BY 1, a.startNs";
	const char *sql = exp_table_has_rows(e, "TASK") ? with_tasks : no_tasks;
	sqlite3_stmt *st = NULL;
	int r = exp_prepare(e, sql, &st), rc = SQLITE_DONE;
	int64_t tid = -1;
	bool any = false;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
		int64_t end = sqlite3_column_int64(st, 2), conn = sqlite3_column_int64(st, 3);
		if (t != tid && tid >= 0)
			exp_tl_thread(tl, pid, tid, "Thread");
		tid = t;
		any = true;
		char ts[32], dur[32];
		exp_format_ts(start, ts);
		exp_format_ts(end - start, dur);
		const char *name = col_text(st, 4, "");
		f = exp_tl_event(tl);
		fputs("{\"name\":\"Runtime@", f);
		exp_json_str(f, name, strlen(name));
		fprintf(f, "\",\"pid\":%u,\"tid\":%" PRId64 ",\"ts\":\"%s\",\"dur\":%s,\"ph\":\"X\",\"args\":{\"Thread Id\":%"
			   PRId64 ",\"Mode\":\"N/A\",\"level\":\"runtime\",\"id\":\"", pid, t, ts, dur, t);
		exp_json_str(f, name, strlen(name));
		fprintf(f, "\",\"item_id\":\"N/A\",\"connection_id\":%" PRId64 "}}", conn);
		if (sqlite3_column_int64(st, 5))
			flow(tl, "s", pid, t, conn, ts);
	}
	if (tid >= 0)
		exp_tl_thread(tl, pid, tid, "Thread");
	if (any)
		exp_tl_process(tl, pid, k->process_name, k->label, k->sort_index);
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* Synchronisations on the CANN layer: a "Sync@<type>" slice inside the
 * runtime call each happened in, on that call's thread (so only where
 * the call was recorded), cut to the call's span so that the viewers nest
 * it under the call. */
static int sync_slices(struct exp *e, struct exp_tl *tl)
{
	const struct export_track_info *k = &export_tracks[TRACK_CANN];
	unsigned pid = export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID);
	static const char sql[] = "SELECT s.tid, max(s.startNs, a.startNs), min(s.endNs, a.endNs), s.type, "
				  "s.connectionId, s.contextId, s.streamId, s.eventId, s.result FROM GPU_SYNC s "
				  "JOIN GPU_API a ON a.pid = s.pid AND a.correlationId = s.correlationId "
				  "WHERE s.tid IS NOT NULL ORDER BY s.tid, s.startNs";
	sqlite3_stmt *st = NULL;
	int r = exp_prepare(e, sql, &st), rc = SQLITE_DONE;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
		int64_t end = sqlite3_column_int64(st, 2);
		const char *name = gpu_sync_name((uint32_t)sqlite3_column_int64(st, 3));
		char ts[32], dur[32];
		exp_format_ts(start, ts);
		exp_format_ts(end > start ? end - start : 0, dur);
		FILE *f = exp_tl_event(tl);
		fprintf(f, "{\"name\":\"Sync@%s\",\"pid\":%u,\"tid\":%" PRId64 ",\"ts\":\"%s\",\"dur\":%s,\"ph\":\"X\","
			   "\"args\":{\"Thread Id\":%" PRId64 ",\"Mode\":\"N/A\",\"level\":\"sync\",\"id\":\"%s\","
			   "\"item_id\":\"N/A\",\"connection_id\":%" PRId64 ",\"Context Id\":%" PRId64,
			name, pid, tid, ts, dur, tid, name, (int64_t)sqlite3_column_int64(st, 4),
			(int64_t)sqlite3_column_int64(st, 5));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			fprintf(f, ",\"Stream Id\":%" PRId64, (int64_t)sqlite3_column_int64(st, 6));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			fprintf(f, ",\"Event Id\":%" PRId64, (int64_t)sqlite3_column_int64(st, 7));
		fprintf(f, ",\"Result\":%" PRId64 "}}", (int64_t)sqlite3_column_int64(st, 8));
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

int exp_write_gpu_layers(struct exp *e, struct exp_tl *t)
{
	int r = 0;
	/* --reports may leave either out */
	if (exp_track_on(e, TRACK_CANN) && exp_table_has_rows(e, "CANN_API")) {
		r = cann_layer(e, t);
		if (r == 0 && exp_table_has_rows(e, "GPU_SYNC"))
			r = sync_slices(e, t);
	}
	if (r == 0 && exp_track_on(e, TRACK_ASCEND_HW) && exp_table_has_rows(e, "TASK"))
		r = hw_layer(e, t);
	return r;
}
