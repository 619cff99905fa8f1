/* Iteration selection: --model-id/--iteration-id (and msprof.py's
 * --iteration-count) export only what lies inside the chosen steps.
 *
 * The writers read tables by their plain names; a TEMP view of the same
 * name shadows the main table for the rest of the connection (SQLite looks
 * in temp first), so every writer, and every table added later, is
 * filtered without knowing it.  A table is filtered by its columns:
 *   STEP                      the chosen steps themselves
 *   startNs and globalTid     events of a process: those starting inside one
 *                             of that process's chosen steps
 *   startNs                   events: starting inside the chosen span
 *   timestampNs               samples: taken inside the chosen span
 * where the span runs from the first chosen step's start to the last one's
 * end, over all processes (host samples belong to no process's step).
 *
 * Steps are in step mode (domain-steps.c): model id 4294967295, as msprof numbers
 * the steps of MindSpore and torch_npu data with --model-id=4294967295. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "export/db.h"
#include "export/exp.h"
#include "export/select-steps.h"
#include "export/sql.h"
#include "export/tables.h"
#include "ipc/selectors.h"
#include "common/util.h"

#define STEP_MODE_MODEL_ID 4294967295ULL

static bool has_column(const char *columns, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = columns; (p = strstr(p, name)); p += n)
		if ((p == columns || p[-1] == ' ') && p[n] == ' ')
			return true;
	return false;
}

static int table_exists(struct exp *e, const char *name, bool *ret)
{
	int r = exp_each(e, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", db_bind_text1,
			 db_row_stop, (void *)name);
	if (r < 0)
		return r;
	*ret = r > 0;
	return 0;
}

struct two {
	int64_t a, b;
	bool null;
};

static int two_row(sqlite3_stmt *st, void *ctx)
{
	struct two *t = ctx;
	t->null = sqlite3_column_type(st, 0) == SQLITE_NULL;
	t->a = sqlite3_column_int64(st, 0);
	t->b = sqlite3_column_int64(st, 1);
	return 1;
}

/* Two integers from a one-row query. */
static int two(struct exp *e, const char *sql, int64_t *a, int64_t *b, bool *ret_null)
{
	struct two t;
	int r = exp_each(e, sql, NULL, two_row, &t);
	if (r == 0)
		return exp_sql_fail(e, SQLITE_DONE, sql);
	if (r < 0)
		return r;
	*a = t.a;
	*b = t.b;
	*ret_null = t.null;
	return 0;
}

/* The views over the chosen steps, or (trim) the rows outside them
 * deleted from the database being built. */
static int select_core(struct exp *e, uint64_t model_id, uint64_t first, unsigned count, bool trim);

int exp_select_steps(struct exp *e, uint64_t model_id, uint64_t first, unsigned count)
{
	return select_core(e, model_id, first, count, false);
}

static int select_core(struct exp *e, uint64_t model_id, uint64_t first, unsigned count, bool trim)
{
	int64_t lo = 0, hi = 0;
	bool none = false;
	char sql[1024];
	int r;

	if (!exp_table_has_rows(e, "STEP")) {
		exp_fail(e, "no training steps in '%s': --iteration-id needs steps marked with mstx or NVTX "
			    "(ranges named \"step N\" or \"ProfilerStep#N\", or mstxStep)", e->prof_dir);
		return -ENOENT;
	}
	if ((r = two(e, "SELECT MIN(stepId), MAX(stepId) FROM main.STEP", &lo, &hi, &none)) < 0)
		return r;
	if (model_id != STEP_MODE_MODEL_ID) {
		exp_fail(e, "model id %" PRIu64 " is not in '%s': its steps %" PRId64 " to %" PRId64
			    " are in step mode, select them with --model-id=4294967295",
			 model_id, e->prof_dir, lo, hi);
		return -ENOENT;
	}
	if (count == 0)
		count = 1;
	snprintf(sql, sizeof sql,
		 "CREATE TEMP TABLE SELECTED_STEP AS SELECT stepId, pid, startNs, endNs FROM main.STEP "
		 "WHERE stepId >= %" PRIu64 " AND stepId < %" PRIu64,
		 first, first + count);
	if ((r = exp_exec(e, sql)) < 0)
		return r;
	int64_t s_lo = 0, s_hi = 0;
	if ((r = two(e, "SELECT MIN(startNs), MAX(endNs) FROM SELECTED_STEP", &s_lo, &s_hi, &none)) < 0)
		return r;
	if (none) {
		exp_fail(e, "iteration %" PRIu64 " is not in '%s': its steps are %" PRId64 " to %" PRId64, first,
			 e->prof_dir, lo, hi);
		return -ENOENT;
	}

	for (size_t i = 0; i < export_db_tables_n; i++) {
		const struct export_db_table *t = &export_db_tables[i];
		/* AGENT_PROCESS: startNs/endNs describe the process, which the
		 * layers need whenever any of its events is shown */
		if (streq(t->name, "AGENT_PROCESS"))
			continue;
		bool exists;
		if ((r = table_exists(e, t->name, &exists)) < 0)
			return r;
		if (!exists)
			continue;
		/* what is kept: a view of it, or the rest deleted */
		char keep[512];
		if (streq(t->name, "STEP"))
			snprintf(keep, sizeof keep, "stepId >= %" PRIu64 " AND stepId < %" PRIu64, first, first + count);
		else if (has_column(t->columns, "startNs") && has_column(t->columns, "globalTid"))
			/* an event at a step's end belongs to the step that starts
			 * there; where none does (the process's last step, which
			 * ends at its last event), to this one */
			snprintf(keep, sizeof keep,
				 "EXISTS (SELECT 1 FROM SELECTED_STEP s WHERE s.pid = (x.globalTid >> 32) "
				 "AND x.startNs >= s.startNs AND (x.startNs < s.endNs OR x.startNs = s.startNs OR "
				 "(x.startNs = s.endNs AND NOT EXISTS (SELECT 1 FROM main.STEP n WHERE n.pid = s.pid "
				 "AND n.startNs = s.endNs))))");
		else if (has_column(t->columns, "startNs"))
			snprintf(keep, sizeof keep, "startNs BETWEEN %" PRId64 " AND %" PRId64, s_lo, s_hi);
		else if (has_column(t->columns, "timestampNs"))
			snprintf(keep, sizeof keep, "timestampNs BETWEEN %" PRId64 " AND %" PRId64, s_lo, s_hi);
		else
			continue;
		if (trim)
			snprintf(sql, sizeof sql, "DELETE FROM main.%s AS x WHERE NOT (%s)", t->name, keep);
		else
			snprintf(sql, sizeof sql, "CREATE TEMP VIEW %s AS SELECT * FROM main.%s AS x WHERE %s", t->name,
				 t->name, keep);
		if ((r = exp_exec(e, sql)) < 0)
			return r;
	}
	if (trim) {
		/* the span is the kept one */
		snprintf(sql, sizeof sql, "UPDATE main.SESSION_TIME_INFO SET startTimeNs = MAX(startTimeNs, %" PRId64
			 "), endTimeNs = MIN(endTimeNs, %" PRId64 ")", s_lo, s_hi);
		bool has_session;
		if ((r = table_exists(e, "SESSION_TIME_INFO", &has_session)) < 0 ||
		    (has_session && (r = exp_exec(e, sql)) < 0) || (r = exp_exec(e, "DROP TABLE SELECTED_STEP")) < 0)
			return r;
		return 0;
	}
	e->selected = true;
	return 0;
}

static int count_row(sqlite3_stmt *st, void *ctx)
{
	*(int64_t *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

static int step_range(struct exp *e, const char *range, bool trim);

int exp_select_step_range(struct exp *e, const char *range)
{
	return step_range(e, range, false);
}

int exp_trim_step_range(struct exp *e, const char *range)
{
	return step_range(e, range, true);
}

static int step_range(struct exp *e, const char *range, bool trim)
{
	int64_t lo, hi, n = 0;
	if (!range || !*range || ipc_parse_step_range(range, &lo, &hi) < 0)
		return 0;
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM main.STEP WHERE stepId >= %" PRId64 " AND stepId < %" PRId64,
		 lo, hi);
	int r = exp_table_has_rows(e, "STEP") ? exp_each(e, sql, NULL, count_row, &n) : 0;
	if (r < 0)
		return r;
	if (n == 0) {
		exp_note(e, "--step-range=%s: the job marked none of steps %" PRId64 " to %" PRId64 ", so no window "
			    "opened: everything collected is exported", range, lo, hi - 1);
		return 0;
	}
	if ((r = select_core(e, STEP_MODE_MODEL_ID, (uint64_t)lo, (unsigned)(hi - lo), trim)) < 0)
		return r;
	if (!trim)   /* the views, after the build trimmed: said once */
		exp_note(e, "--step-range=%s: only what lies in steps %" PRId64 " to %" PRId64 " is kept, in the "
			    "database and every output: a process's events that start in one of its steps, and samples "
			    "whose interval starts between the first step's start and the last one's end (one that ends "
			    "past it is kept whole)", range, lo, hi - 1);
	return 0;
}
