/* What the analysis commands ask of a PROF dir without exporting it:
 * msprof --query=on's table, --analyze's tables, and --reports' track
 * choice. */
#include <cjson/cJSON.h>

#include "internal.h"
#include "util.h"

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

static int64_t one(sqlite3 *db, const char *sql, int64_t fallback)
{
	sqlite3_stmt *st = NULL;
	int64_t v = fallback;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static bool has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool yes = false;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

/* The current database of prof_dir, opened read-only. */
static int open_current(const char *prof_dir, sqlite3 **ret, struct export_report *rep)
{
	int r = current_db(prof_dir, rep);
	if (r < 0)
		return r;
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(rep->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(rep->message, sizeof rep->message, "cannot open database '%.400s': %s", rep->db_path,
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
	int r = open_current(prof_dir, &db, rep);
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
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db,
				       "SELECT stepId, MAX(endNs - startNs) AS d FROM STEP GROUP BY stepId "
				       "ORDER BY d DESC, stepId LIMIT 5", -1, &st, NULL) == SQLITE_OK)
			while (q.n_top < ARRAY_SIZE(q.top) && sqlite3_step(st) == SQLITE_ROW)
				q.top[q.n_top++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	*ret = q;
	return 0;
}

int export_has_tables(const char *prof_dir, const char *const *tables, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	bool any = false;
	for (const char *const *t = tables; *t && !any; t++)
		any = has_table(db, *t);
	sqlite3_close(db);
	return any;
}

/* Rows of sql (integer columns) appended to *v, ncol int64 each. */
static int rows_i64(sqlite3 *db, const char *sql, unsigned ncol, int64_t **v, size_t *n, struct export_report *rep)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		int64_t *nv = realloc(*v, (*n + 1) * ncol * sizeof(**v));
		if (!nv) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		*v = nv;
		for (unsigned c = 0; c < ncol; c++)
			nv[*n * ncol + c] = sqlite3_column_int64(st, (int)c);
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		/* the loop ends on an error or on SQLITE_DONE */
		snprintf(rep->message, sizeof rep->message, "cannot read '%.400s': %s", rep->db_path, sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

/* A process's query id: its rank, or its pid when it has none. */
#define QUERY_ID_SQL "(SELECT CASE WHEN MAX(a.rank) >= 0 THEN MAX(a.rank) ELSE %s END FROM AGENT_PROCESS a WHERE a.pid = %s)"

int export_query_ids(const char *prof_dir, struct export_query_id **ret, size_t *ret_n, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	int64_t *v = NULL;
	size_t n = 0;
	if (has_table(db, "AGENT_PROCESS"))
		r = rows_i64(db, "SELECT pid, MAX(rank) FROM AGENT_PROCESS GROUP BY pid ORDER BY pid", 2, &v, &n, rep);
	sqlite3_close(db);
	if (r < 0) {
		free(v);
		return r;
	}
	/* two int64 per row are exactly one struct export_query_id */
	*ret = (struct export_query_id *)v;
	*ret_n = n;
	return 0;
}

int export_query_steps(const char *prof_dir, struct export_query_step **ret, size_t *ret_n, struct export_report *rep)
{
	sqlite3 *db = NULL;
	int r = open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	int64_t *v = NULL;
	size_t n = 0;
	if (has_table(db, "STEP")) {
		char sql[512];
		char id[256];
		if (has_table(db, "AGENT_PROCESS"))
			snprintf(id, sizeof id, QUERY_ID_SQL, "s.pid", "s.pid");
		else
			snprintf(id, sizeof id, "s.pid");
		snprintf(sql, sizeof sql,
			 "SELECT %s AS id, s.pid, s.stepId, s.startNs, s.endNs FROM STEP s ORDER BY id, s.stepId, s.startNs",
			 id);
		r = rows_i64(db, sql, 5, &v, &n, rep);
	}
	sqlite3_close(db);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = (struct export_query_step *)v;
	*ret_n = n;
	return 0;
}
