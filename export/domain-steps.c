/* Training steps: MSTX_EVENTS -> STEP (ours) -> step_trace_{ts}.csv (§3).
 *
 * The convention is collectors/steps.h: a push/pop or start/end range named
 * "step N" / "ProfilerStep#N" is step N from its start to its end; a mark
 * "step N" in the domain "msprof.step" (mstxStep, the top of a loop)
 * starts step N on its thread's process and ends that process's previous
 * mstxStep step; one in "msprof.step.end" (mstxStepEnd, the bottom) ends
 * step N, which began at the process's step under way (an mstxStep's),
 * else where its previous step mark was, else at its first annotation of
 * another domain, else where its recording began (AGENT_PROCESS.startNs).
 * The last mstxStep step of a process, when no end mark closes it, ends
 * where its last recorded annotation ends (never before its own start).
 * Steps are per process: ranks each have their own step N.
 *
 * step_trace rows are msprof's for host-only data in step mode: the FP/BP,
 * refresh and data-augmentation columns are N/A (they come from the
 * device's training trace), Model ID is 4294967295 (what msprof uses for
 * --model-id=4294967295, step mode). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/db.h"
#include "export/domain-mstx.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "collectors/steps.h"
#include "common/util.h"

#define STEP_MODEL_ID "4294967295"

struct pending {
	bool open;
	int64_t step, start;
	uint64_t gtid;
	int64_t boundary;    /* the process's last step mark, 0 none */
};

static int insert(struct exp *e, sqlite3_stmt *ins, int64_t step, int64_t start, int64_t end, uint64_t gtid)
{
	sqlite3_bind_int64(ins, 1, step);
	sqlite3_bind_int64(ins, 2, start);
	sqlite3_bind_int64(ins, 3, end < start ? start : end);
	sqlite3_bind_int64(ins, 4, (int64_t)(gtid >> 32));
	sqlite3_bind_int64(ins, 5, (int64_t)(gtid & 0xffffffffU));
	return exp_step_done(e, ins, "STEP");
}

/* The end of pid's last annotation (0 when it cannot be read). */
static int64_t last_end(sqlite3_stmt *q, uint64_t pid)
{
	int64_t v = 0;
	sqlite3_bind_int64(q, 1, (int64_t)pid);
	(void)db_stmt_each_rc(q, db_row_i64, &v, NULL);
	return v;
}

struct step_walk {
	struct exp *e;
	sqlite3_stmt *ins, *q, *first;
	struct pending p;
};

/* Where the first step of pid that an end mark at t closes began: its
 * first annotation of another domain, else the first record of its agent;
 * never after t. */
static int64_t first_start(sqlite3_stmt *q, uint64_t pid, int64_t t)
{
	int64_t v = 0;
	sqlite3_bind_int64(q, 1, (int64_t)pid);
	(void)db_stmt_each_rc(q, db_row_i64, &v, NULL);
	return v > 0 && v < t ? v : t;
}

static int step_row(sqlite3_stmt *st, void *ctx)
{
	struct step_walk *w = ctx;
	struct pending *p = &w->p;
	uint64_t gtid = (uint64_t)sqlite3_column_int64(st, 0), step;
	int64_t type = sqlite3_column_int64(st, 1), start = sqlite3_column_int64(st, 2);
	const char *msg = (const char *)sqlite3_column_text(st, 4);
	const char *dom = (const char *)sqlite3_column_text(st, 5);
	if (!msg || !step_parse(msg, (size_t)sqlite3_column_bytes(st, 4), &step))
		return 0;
	int r = 0;
	if (p->gtid >> 32 != gtid >> 32) {
		if (p->open)
			r = insert(w->e, w->ins, p->step, p->start, last_end(w->q, p->gtid >> 32), p->gtid);
		*p = (struct pending){ .gtid = gtid };
	}
	if (r < 0)
		return r;
	if (type == 1 || type == 2) {
		r = insert(w->e, w->ins, (int64_t)step, start, sqlite3_column_int64(st, 3), gtid);
	} else if (dom && streq(dom, STEP_DOMAIN)) {
		if (p->open)
			r = insert(w->e, w->ins, p->step, p->start, start, p->gtid);
		*p = (struct pending){ true, (int64_t)step, start, gtid, start };
	} else if (dom && streq(dom, STEP_END_DOMAIN)) {
		int64_t from = p->open ? p->start : p->boundary ? p->boundary : first_start(w->first, gtid >> 32, start);
		r = insert(w->e, w->ins, (int64_t)step, from, start, gtid);
		*p = (struct pending){ false, 0, 0, gtid, start };
	}
	return r;
}

static int exp_build_steps(struct exp *e)
{
	/* by process, then time: mstxStep steps close on the next one */
	static const char sql[] =
		"SELECT m.globalTid, m.eventType, m.startNs, m.endNs, s.value, d.value "
		"FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId "
		"WHERE s.value LIKE 'step %' OR s.value LIKE 'ProfilerStep#%' "
		"ORDER BY m.globalTid >> 32, m.startNs, m.rowid";
	if (!exp_table_has_rows(e, "MSTX_EVENTS"))
		return 0;
	struct step_walk w = { .e = e };
	int r = exp_prepare(e, "INSERT INTO STEP (stepId, startNs, endNs, pid, tid) VALUES (?, ?, ?, ?, ?)", &w.ins);
	if (r == 0)
		r = exp_prepare(e, "SELECT max(endNs) FROM MSTX_EVENTS WHERE globalTid >> 32 = ?", &w.q);
	if (r == 0)
		r = exp_prepare(e, "SELECT COALESCE((SELECT min(m.startNs) FROM MSTX_EVENTS m JOIN STRING_IDS d "
				   "ON d.id = m.domainId WHERE m.globalTid >> 32 = ?1 AND d.value NOT IN ('" STEP_DOMAIN
				   "', '" STEP_END_DOMAIN "')), (SELECT min(startNs) FROM AGENT_PROCESS WHERE pid = ?1))",
				&w.first);
	const struct exp_mstx_step_row *v;
	size_t n;
	if (r == 0 && exp_mstx_step_rows(e, &v, &n) > 0) {
		/* the parse listed them: no need to read every row */
		sqlite3_stmt *one;
		r = exp_prepare(e, "SELECT m.globalTid, m.eventType, m.startNs, m.endNs, s.value, d.value "
				   "FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message "
				   "JOIN STRING_IDS d ON d.id = m.domainId WHERE m.rowid = ?", &one);
		for (size_t i = 0; r >= 0 && i < n; i++) {
			sqlite3_bind_int64(one, 1, v[i].rowid);
			r = exp_stmt_each(e, one, "MSTX_EVENTS", step_row, &w);
		}
		sqlite3_finalize(one);
	} else if (r == 0) {
		r = exp_each(e, sql, NULL, step_row, &w);
	}
	if (r >= 0 && w.p.open)
		r = insert(e, w.ins, w.p.step, w.p.start, last_end(w.q, w.p.gtid >> 32), w.p.gtid);
	sqlite3_finalize(w.ins);
	sqlite3_finalize(w.q);
	sqlite3_finalize(w.first);
	return r < 0 ? r : 0;
}

static void step_trace_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
	char e_us[32], d_us[32];
	exp_format_ts(end, e_us);
	exp_format_ts(end - start, d_us);
	fprintf(f, "host,%" PRId64 ",N/A,N/A,%s\t,%s,N/A,N/A,N/A," STEP_MODEL_ID "\n",
		(int64_t)sqlite3_column_int64(st, 0), e_us, d_us);
}

static int exp_write_step_trace(struct exp *e, const char *dir)
{
	static const char sql[] = "SELECT stepId, startNs, endNs FROM STEP ORDER BY startNs, pid, stepId";
	if (!exp_table_has_rows(e, "STEP"))
		return 0;
	return exp_table_query(e, dir, CSV_STEP_TRACE, sql, step_trace_row, NULL);
}

static const char *const tables[] = { "STEP", NULL };
static const enum export_csv csvs[] = { CSV_STEP_TRACE, _CSV_MAX };

/* Training steps: STEP from the step annotations of MSTX_EVENTS; the
 * step_trace summary. */
const struct exp_domain exp_domain_steps = {
	.name = "steps",
	.tables = tables,
	.csvs = csvs,
	.build = exp_build_steps,
	.summaries = exp_write_step_trace,
};
