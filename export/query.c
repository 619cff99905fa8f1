/* What the analysis commands ask of a PROF dir without exporting it:
 * msprof --query=on's table, --analyze's tables, and --reports' track
 * choice. */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "common/cjson-cleanup.h"
#include "export/db.h"
#include "export/export.h"
#include "export/query.h"
#include "export/tables.h"
#include "collectors/profdir.h"
#include "ipc/settings.h"
#include "common/util.h"

int export_reports_parse(const char *json, uint64_t *ret_tracks, char *err, size_t err_size)
{
	cJSON *j = cJSON_Parse(json);
	const cJSON *proc = j ? cJSON_GetObjectItemCaseSensitive(j, "json_process") : NULL;
	if (!cJSON_IsObject(proc)) {
		snprintf(err, err_size, "%s", j ? "it has no \"json_process\" object" : "it is not valid JSON");
		cJSON_Delete(j);
		return -EINVAL;
	}
	uint64_t tracks = 0;
	for (unsigned k = 0; k < _TRACK_MAX; k++) {
		const char *key = export_tracks[k].report;
		const cJSON *v = key ? cJSON_GetObjectItemCaseSensitive(proc, key) : NULL;
		if (!key || cJSON_IsTrue(v))
			tracks |= UINT64_C(1) << k;
	}
	cJSON_Delete(j);
	*ret_tracks = tracks;
	return 0;
}

/* The database of prof_dir, parsed now unless a current one exists. */
static int current_db(const char *prof_dir, struct export_report *rep)
{
	struct export_options opt = { .type = EXPORT_DB };
	return export_prof_dir(prof_dir, &opt, rep);
}

static int one_row(sqlite3_stmt *st, void *ctx)
{
	if (sqlite3_column_type(st, 0) != SQLITE_NULL)
		*(int64_t *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

/* The first column of sql's first row; fallback without one, or NULL. */
static int64_t one(sqlite3 *db, const char *sql, int64_t fallback)
{
	int64_t v = fallback;
	(void)db_each(db, sql, NULL, one_row, &v);
	return v;
}

static bool has_table(sqlite3 *db, const char *name)
{
	return db_each(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", db_bind_text1, db_row_stop,
		       (void *)name) > 0;
}

static int top_row(sqlite3_stmt *st, void *ctx)
{
	struct export_query *q = ctx;
	if (q->n_top == ARRAY_SIZE(q->top))
		return 1;
	q->top[q->n_top++] = sqlite3_column_int64(st, 0);
	return 0;
}

/* The current database of prof_dir, opened read-only. */
int exp_open_current(const char *prof_dir, sqlite3 **ret, struct export_report *rep)
{
	int r = current_db(prof_dir, rep);
	if (r < 0)
		return r;
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(rep->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(rep->error, sizeof rep->error, "cannot open database '%.400s': %s", rep->db_path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	*ret = db;
	return 0;
}

int export_query_prof_dir(const char *prof_dir, struct export_query *ret, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = exp_open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	struct export_query q = { .rank = -1 };
	snprintf(q.db_path, sizeof q.db_path, "%s", rep->db_path);
	q.start_ns = one(db, "SELECT startTimeNs FROM SESSION_TIME_INFO", 0);
	if (has_table(db, "AGENT_PROCESS"))
		q.rank = one(db, "SELECT MIN(rank) FROM AGENT_PROCESS WHERE rank >= 0", -1);
	if (has_table(db, "STEP")) {
		q.n_steps = (uint64_t)one(db, "SELECT COUNT(DISTINCT stepId) FROM STEP", 0);
		/* a step of several processes (ranks) lasts its longest */
		(void)db_each(db, "SELECT stepId, MAX(endNs - startNs) AS d FROM STEP GROUP BY stepId "
				  "ORDER BY d DESC, stepId LIMIT 5", NULL, top_row, &q);
	}
	sqlite3_close(db);
	*ret = q;
	return 0;
}

/* Rows of sql (integer columns) appended to *v, ncol int64 each. */
struct rows_i64 {
	unsigned ncol;
	int64_t **v;
	size_t *n;
};

static int row_i64(sqlite3_stmt *st, void *ctx)
{
	struct rows_i64 *w = ctx;
	size_t n = *w->n;
	int64_t *nv = realloc(*w->v, (n + 1) * w->ncol * sizeof(**w->v));
	if (!nv)
		return -ENOMEM;
	*w->v = nv;
	for (unsigned c = 0; c < w->ncol; c++)
		nv[n * w->ncol + c] = sqlite3_column_int64(st, (int)c);
	(*w->n)++;
	return 0;
}

static int rows_i64(sqlite3 *db, const char *sql, unsigned ncol, int64_t **v, size_t *n, struct export_report *rep)
{
	struct rows_i64 w = { ncol, v, n };
	int rc = SQLITE_OK;
	int r = db_each_rc(db, sql, NULL, row_i64, &w, &rc);
	if (rc != SQLITE_OK) {
		snprintf(rep->error, sizeof rep->error, "cannot read '%.400s': %s", rep->db_path, sqlite3_errmsg(db));
		return -EIO;
	}
	return r < 0 ? r : 0;
}

/* A process's query id: its rank, or its pid when it has none. */
#define QUERY_ID_SQL "(SELECT CASE WHEN MAX(a.rank) >= 0 THEN MAX(a.rank) ELSE %s END FROM AGENT_PROCESS a WHERE a.pid = %s)"

/* rows_i64 fills these structs as int64 columns */
_Static_assert(sizeof(struct export_query_id) == 2 * sizeof(int64_t), "export_query_id is two int64");
_Static_assert(sizeof(struct export_query_step) == 5 * sizeof(int64_t), "export_query_step is five int64");

/* The query sql_of writes (it may look at the database) from the current
 * database of prof_dir, ncol int64 a row; no rows without table. */
static int query_rows(const char *prof_dir, const char *table, void (*sql_of)(sqlite3 *db, char *sql, size_t size),
		      unsigned ncol, int64_t **ret, size_t *ret_n, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = exp_open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	int64_t *v = NULL;
	size_t n = 0;
	if (has_table(db, table)) {
		char sql[512];
		sql_of(db, sql, sizeof sql);
		r = rows_i64(db, sql, ncol, &v, &n, rep);
	}
	sqlite3_close(db);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void ids_sql(sqlite3 *db, char *sql, size_t size)
{
	snprintf(sql, size, "SELECT pid, MAX(rank) FROM AGENT_PROCESS GROUP BY pid ORDER BY pid");
}

int export_query_ids(const char *prof_dir, struct export_query_id **ret, size_t *ret_n, struct export_report *rep)
{
	int64_t *v;
	int r = query_rows(prof_dir, "AGENT_PROCESS", ids_sql, 2, &v, ret_n, rep);
	if (r == 0) /* two int64 per row are exactly one struct export_query_id */
		*ret = (struct export_query_id *)v;
	return r;
}

static void steps_sql(sqlite3 *db, char *sql, size_t size)
{
	char id[256];
	if (has_table(db, "AGENT_PROCESS"))
		snprintf(id, sizeof id, QUERY_ID_SQL, "s.pid", "s.pid");
	else
		snprintf(id, sizeof id, "s.pid");
	snprintf(sql, size, "SELECT %s AS id, s.pid, s.stepId, s.startNs, s.endNs FROM STEP s ORDER BY id, s.stepId, s.startNs",
		 id);
}

int export_query_steps(const char *prof_dir, struct export_query_step **ret, size_t *ret_n, struct export_report *rep)
{
	int64_t *v;
	int r = query_rows(prof_dir, "STEP", steps_sql, 5, &v, ret_n, rep);
	if (r == 0)
		*ret = (struct export_query_step *)v;
	return r;
}

/* --- msprof.py query --data-type 8 ------------------------------------------------------- */

static int64_t host_json_i64(const char *prof_dir, const char *file, const char *key, int64_t fallback)
{
	char path[PATH_MAX];
	_cleanup_json_ cJSON *j = NULL;
	if ((size_t)snprintf(path, sizeof path, "%s/host/%s", prof_dir, file) >= sizeof path ||
	    profdir_read_json(path, &j) < 0)
		return fallback;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	int64_t n;
	if (cJSON_IsNumber(v))
		return double_to_i64(v->valuedouble, &n) ? n : fallback;
	if (cJSON_IsString(v) && v->valuestring && *v->valuestring)
		return strtoll(v->valuestring, NULL, 10);
	return fallback;
}

/* Hundredths as a JSON number: "12.34". */
static void centi(FILE *f, int64_t c)
{
	fprintf(f, "%s%" PRId64 ".%02" PRId64, c < 0 ? "-" : "", (c < 0 ? -c : c) / 100, (c < 0 ? -c : c) % 100);
}

/* round(100 * part / whole, 2) in hundredths */
static int64_t pct(int64_t part, int64_t whole)
{
	return whole ? (int64_t)((double)part * 10000.0 / (double)whole + 0.5) : 0;
}

/* round(seconds since t0, 2) in hundredths */
static int64_t rel_s(int64_t t, int64_t t0)
{
	return (t - t0 + 5000000) / 10000000;
}

static int open_out(const char *out_dir, const char *stem, const char *suffix, char *path, size_t size, FILE **ret)
{
	if ((size_t)snprintf(path, size, "%s/%s_%s.json", out_dir, stem, suffix) >= size)
		return -ENAMETOOLONG;
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	*ret = f;
	return 0;
}

static int close_out(FILE *f, int r)
{
	if (ferror(f) && r == 0)
		r = -EIO;
	if (fclose(f) < 0 && r == 0)
		r = -errno;
	return r;
}

static void pid_list(FILE *f, const int64_t *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%" PRId64, i ? ", " : "", v[i]);
	fputc(']', f);
}

/* What the usage files say besides their rows. */
struct usage {
	int64_t interval_ms, cpu_nums, pid;
	const int64_t *pids;
	size_t n_pids;
};

/* One usage file, {out_dir}/{stem}_{suffix}.json, from n rows of ncol
 * values (the first the time):
 * {"info": {<info>}, "data": [{<fields>"timestamp": <s since the first>}, ...]}
 * where info writes the inside of "info" and fields each row's values,
 * each followed by ", ".  A failed write is noted in rep. */
static int usage_file(const char *out_dir, const char *stem, const char *suffix, const int64_t *v, size_t n,
		      unsigned ncol, const struct usage *u,
		      void (*info)(FILE *f, const struct usage *u, const int64_t *v, size_t n),
		      void (*fields)(FILE *f, const int64_t *row), struct export_report *rep)
{
	char path[PATH_MAX];
	FILE *f = NULL;
	int r = open_out(out_dir, stem, suffix, path, sizeof path, &f);
	if (r < 0)
		return r;
	fputs("{\"info\": {", f);
	info(f, u, v, n);
	fputs("}, \"data\": [", f);
	for (size_t i = 0; i < n; i++) {
		const int64_t *row = v + i * ncol;
		fputs(i ? ", {" : "{", f);
		fields(f, row);
		fputs("\"timestamp\": ", f);
		centi(f, rel_s(row[0], v[0]));
		fputc('}', f);
	}
	fputs("]}", f);
	if ((r = close_out(f, 0)) < 0)
		snprintf(rep->error, sizeof rep->error, "cannot write '%.400s': %s", path, strerror(-r));
	return r;
}

/* system CPU: rows of (t, user, sys, io, idle) ticks */
static const char *const cpu_avg[] = { "average_user_usage", "average_sys_usage", "average_io_usage",
				       "average_idle_usage" };
static const char *const cpu_tag[] = { "user_usage", "sys_usage", "io_usage", "idle_usage" };

static void sys_cpu_info(FILE *f, const struct usage *u, const int64_t *v, size_t n)
{
	int64_t sum[4] = { 0 }, total = 0;
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 4; c++)
			sum[c] += v[i * 5 + 1 + c], total += v[i * 5 + 1 + c];
	fprintf(f, "\"cpu_nums\": %" PRId64 ", \"sampling_interval\": %" PRId64, u->cpu_nums, u->interval_ms);
	for (int c = 0; c < 4; c++) {
		fprintf(f, ", \"%s\": ", cpu_avg[c]);
		centi(f, pct(sum[c], total));
	}
}

static void sys_cpu_fields(FILE *f, const int64_t *row)
{
	int64_t rs = row[1] + row[2] + row[3] + row[4];
	for (int c = 0; c < 4; c++) {
		fprintf(f, "\"%s\": ", cpu_tag[c]);
		centi(f, pct(row[1 + c], rs));
		fputs(", ", f);
	}
}

/* system memory: rows of (t, memTotal, memFree) */
static void sys_mem_info(FILE *f, const struct usage *u, const int64_t *v, size_t n)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += pct(v[i * 3 + 1] - v[i * 3 + 2], v[i * 3 + 1]);
	fprintf(f, "\"sampling_interval\": %" PRId64 ", \"total_mem\": %" PRId64 ", \"average_mem_usage\": ",
		u->interval_ms, v[1]);
	centi(f, (sum + (int64_t)n / 2) / (int64_t)n);
}

static void sys_mem_fields(FILE *f, const int64_t *row)
{
	fputs("\"mem_usage\": ", f);
	centi(f, pct(row[1] - row[2], row[1]));
	fputs(", ", f);
}

/* the process's memory: rows of (t, size, resident, shared) statm pages */
static void pid_mem_info(FILE *f, const struct usage *u, const int64_t *v, size_t n)
{
	(void)v, (void)n;
	fprintf(f, "\"sampling_interval\": %" PRId64 ", \"cur_pid\": %" PRId64 ", \"all_pids\": ", u->interval_ms,
		u->pid);
	pid_list(f, u->pids, u->n_pids);
}

static void pid_mem_fields(FILE *f, const int64_t *row)
{
	/* as MB: 4 KB pages, as msprof */
	fprintf(f, "\"size\": %" PRId64 ", \"resident\": %" PRId64 ", \"shared\": %" PRId64 ", ", row[1] / 256,
		row[2] / 256, row[3] / 256);
}

/* A usage file: its name, its rows' values and how they are written. */
struct usage_kind {
	const char *stem;
	unsigned ncol;
	void (*info)(FILE *f, const struct usage *u, const int64_t *v, size_t n);
	void (*fields)(FILE *f, const int64_t *row);
	unsigned bit;                   /* EXPORT_HOST_USAGE_* */
};

static const struct usage_kind usage_sys_cpu = { "host_sys_cpu_usage", 5, sys_cpu_info, sys_cpu_fields,
						 EXPORT_HOST_USAGE_SYS_CPU };
static const struct usage_kind usage_sys_mem = { "host_sys_mem_usage", 3, sys_mem_info, sys_mem_fields,
						 EXPORT_HOST_USAGE_SYS_MEM };
static const struct usage_kind usage_pid_mem = { "host_pid_mem_usage", 4, pid_mem_info, pid_mem_fields,
						 EXPORT_HOST_USAGE_PID_MEM };

/* k's file from the rows of sql, when it has any (its bit then set in
 * *written). */
static int usage_rows(sqlite3 *db, const char *sql, const struct usage_kind *k, const char *out_dir,
		      const char *suffix, const struct usage *u, unsigned *written, struct export_report *rep)
{
	int64_t *v = NULL;
	size_t n = 0;
	int r = rows_i64(db, sql, k->ncol, &v, &n, rep);
	if (r == 0 && n && (r = usage_file(out_dir, k->stem, suffix, v, n, k->ncol, u, k->info, k->fields, rep)) >= 0)
		*written |= k->bit;
	free(v);
	return r < 0 ? r : 0;
}

int export_query_host_usage(const char *prof_dir, int64_t id, const char *out_dir, const char *suffix,
			    unsigned *ret_written, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = exp_open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	int64_t *pids = NULL;
	size_t n_pids = 0;
	unsigned written = 0;
	char sql[512];

	/* the process of id: an agent process with that rank, or without a
	 * rank and with that pid; else the process host/info.json names */
	int64_t pid = -1;
	if (has_table(db, "AGENT_PROCESS")) {
		snprintf(sql, sizeof sql,
			 "SELECT pid FROM AGENT_PROCESS GROUP BY pid HAVING MAX(rank) = %" PRId64
			 " OR (MAX(rank) < 0 AND pid = %" PRId64 ") ORDER BY pid LIMIT 1", id, id);
		pid = one(db, sql, -1);
	}
	if (pid < 0 && host_json_i64(prof_dir, "info.json", "pid", -1) == id)
		pid = id;
	if (pid < 0) {
		r = -ENOENT;
		goto out;
	}
	/* its key by its settings row; a number, or a numeric string, as
	 * any sample.json may have it */
	int64_t freq = host_json_i64(prof_dir, "sample.json", setting_table[SET_HOST_SYS_USAGE_FREQ].sample_key, 0);
	struct usage u = { .interval_ms = freq > 0 ? 1000 / freq : 0,
			   .cpu_nums = host_json_i64(prof_dir, "info.json", "cpuNums", 0), .pid = pid };

	/* system CPU: the aggregate /proc/stat line, ticks per interval,
	 * stamped with the start of the interval, as the other host values
	 * are */
	if (has_table(db, "SYS_CPU") &&
	    (r = usage_rows(db,
			    "SELECT t, u, s, io, idl FROM (SELECT LAG(timestampNs) OVER w AS t, "
			    "user + nice - LAG(user + nice) OVER w AS u, "
			    "system + irq + softirq - LAG(system + irq + softirq) OVER w AS s, "
			    "iowait - LAG(iowait) OVER w AS io, idle - LAG(idle) OVER w AS idl "
			    "FROM SYS_CPU WHERE cpuId = -1 WINDOW w AS (ORDER BY timestampNs)) "
			    "WHERE u IS NOT NULL AND u + s + io + idl > 0 ORDER BY t",
			    &usage_sys_cpu, out_dir, suffix, &u, &written, rep)) < 0)
		goto out;
	/* system memory: MemTotal - MemFree of MemTotal */
	if (has_table(db, "SYS_MEM") &&
	    (r = usage_rows(db, "SELECT timestampNs, memTotal, memFree FROM SYS_MEM WHERE memTotal > 0 ORDER BY timestampNs",
			    &usage_sys_mem, out_dir, suffix, &u, &written, rep)) < 0)
		goto out;
	/* the process's memory */
	if (has_table(db, "PROCESS_MEM_USAGE")) {
		if ((r = rows_i64(db, "SELECT DISTINCT pid FROM PROCESS_MEM_USAGE ORDER BY pid", 1, &pids, &n_pids, rep)) <
		    0)
			goto out;
		u.pids = pids, u.n_pids = n_pids;
		snprintf(sql, sizeof sql,
			 "SELECT timestampNs, sizePages, residentPages, sharedPages FROM PROCESS_MEM_USAGE "
			 "WHERE pid = %" PRId64 " ORDER BY timestampNs", pid);
		if ((r = usage_rows(db, sql, &usage_pid_mem, out_dir, suffix, &u, &written, rep)) < 0)
			goto out;
	}
	r = 0;
	*ret_written = written;
out:
	free(pids);
	sqlite3_close(db);
	return r;
}
