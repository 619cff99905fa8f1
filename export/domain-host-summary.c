/* The host samples' summaries (the domains cpu, mem, disk and network
 * hold their tables of them): database ->
 * mindstudio_profiler_output/{type}_{ts}.csv (or .json with
 * --summary-format=json; table-writer.c writes the files).
 *
 * Headers come from export_csv_tables (tables.c); the first column is
 * Device_id = "host" as msprof's merge step writes it for host data.  A file
 * is written when its switch was given (sample.json) and its data exists.
 * Rows are streamed from SQLite; aggregation happens in SQL. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/db.h"
#include "export/domain-host-summary.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/sql.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "common/util.h"

/* msprof Constant.RECOMMEND_PERCENTILE and RATIO_FOR_BEST_PERFORMANCE */
#define RECOMMEND_PERCENTILE 0.98
#define RATIO_FOR_BEST_PERFORMANCE 0.8

/* msprof HostProfDataBase.get_recommend_value: peak = the largest sample;
 * recommend = the positive samples sorted ascending, the one at index
 * ceil((n - 1) * 0.98), divided by 0.8 (0 when no sample is positive).
 * The sort is SQLite's, so memory stays bounded. */
int exp_peak_recommend(struct exp *e, const char *table, const char *col, double *ret_peak, double *ret_rec)
{
	char sql[256];
	double peak = 0, rec = 0;
	int64_t npos = 0;
	snprintf(sql, sizeof sql, "SELECT MAX(%s) FROM %s", col, table);
	int r = exp_each(e, sql, NULL, db_row_double, &peak);
	if (r < 0)
		return r;
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s WHERE %s > 0", table, col);
	if ((r = exp_each(e, sql, NULL, db_row_i64, &npos)) < 0)
		return r;
	if (npos > 0) {
		int64_t k = (int64_t)ceil((double)(npos - 1) * RECOMMEND_PERCENTILE);
		snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s > 0 ORDER BY %s LIMIT 1 OFFSET %" PRId64, col,
			 table, col, col, k);
		double v = 0;
		if ((r = exp_each(e, sql, NULL, db_row_double, &v)) < 0)
			return r;
		rec = v / RATIO_FOR_BEST_PERFORMANCE;
	}
	*ret_peak = peak;
	*ret_rec = rec;
	return 0;
}

void exp_put_num(FILE *f, double v, int decimals)
{
	char b[64];
	exp_format_num(v, decimals, b, sizeof b);
	fputc(',', f);
	fputs(b, f);
}


void exp_put_process(FILE *f, sqlite3_stmt *st)
{
	fprintf(f, "host,%" PRId64 ",", (int64_t)sqlite3_column_int64(st, 0));
	const char *name = (const char *)sqlite3_column_text(st, 1); /* before its length */
	exp_csv_field(f, name, (size_t)sqlite3_column_bytes(st, 1));
}

int exp_write_host_summaries(struct exp *e, const char *dir, const struct exp_host_summary *s, size_t n)
{
	for (; n; n--, s++) {
		if (e->have_sample && !(e->sample.u[s->usage ? SET_HOST_SYS_USAGE : SET_HOST_SYS] & s->ask))
			continue;
		if (!exp_table_has_rows(e, s->table)) {
			/* nothing in this export (the chosen steps hold no
			 * sample): an older file would pass for this one's */
			const struct export_csv_table *t = &export_csv_tables[s->csv];
			exp_remove_stale(dir, export_csv_stem(t, false), ".csv", e->ts, 0);
			exp_remove_stale(dir, export_csv_stem(t, true), ".json", e->ts, 0);
			continue;
		}
		if (s->csv == CSV_HOST_MEM_USAGE && !e->mem_total_kb)
			continue;

		int r = exp_table_write(e, dir, s->csv, s->write);
		if (r < 0)
			return r;
	}
	return 0;
}
