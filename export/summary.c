/* Summaries: database -> mindstudio_profiler_output/{type}_{ts}.csv (or
 * .json with --summary-format=json; output.c writes the files).
 *
 * Headers come from export_csv_tables (tables.c); the first column is
 * Device_id = "host" as msprof's merge step writes it for host data.  A file
 * is written when its switch was given (sample.json) and its data exists.
 * Rows are streamed from SQLite; aggregation happens in SQL. */
#include <math.h>

#include "export/internal.h"
#include "common/util.h"

/* msprof Constant.RECOMMEND_PERCENTILE and RATIO_FOR_BEST_PERFORMANCE */
#define RECOMMEND_PERCENTILE 0.98
#define RATIO_FOR_BEST_PERFORMANCE 0.8

/* The first column of the first row; 0 when there is no row. */
static int single_value(struct exp *e, const char *sql, double *ret_d, int64_t *ret_i)
{
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	double d = 0;
	int64_t i = 0;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		d = sqlite3_column_double(st, 0);
		i = sqlite3_column_int64(st, 0);
	} else if (rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	if (r == 0 && ret_d)
		*ret_d = d;
	if (r == 0 && ret_i)
		*ret_i = i;
	return r;
}

/* msprof HostProfDataBase.get_recommend_value: peak = the largest sample;
 * recommend = the positive samples sorted ascending, the one at index
 * ceil((n - 1) * 0.98), divided by 0.8 (0 when no sample is positive).
 * The sort is SQLite's, so memory stays bounded. */
static int peak_recommend(struct exp *e, const char *table, const char *col, double *ret_peak, double *ret_rec)
{
	char sql[256];
	double peak = 0, rec = 0;
	int64_t npos = 0;
	snprintf(sql, sizeof sql, "SELECT MAX(%s) FROM %s", col, table);
	int r = single_value(e, sql, &peak, NULL);
	if (r < 0)
		return r;
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s WHERE %s > 0", table, col);
	if ((r = single_value(e, sql, NULL, &npos)) < 0)
		return r;
	if (npos > 0) {
		int64_t k = (int64_t)ceil((double)(npos - 1) * RECOMMEND_PERCENTILE);
		snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s > 0 ORDER BY %s LIMIT 1 OFFSET %" PRId64, col,
			 table, col, col, k);
		double v = 0;
		if ((r = single_value(e, sql, &v, NULL)) < 0)
			return r;
		rec = v / RATIO_FOR_BEST_PERFORMANCE;
	}
	*ret_peak = peak;
	*ret_rec = rec;
	return 0;
}

static void put_num(FILE *f, double v, int decimals)
{
	char b[64];
	exp_format_num(v, decimals, b, sizeof b);
	fputc(',', f);
	fputs(b, f);
}

/* --- one row summaries of the profiled tree (--host-sys) ------------------- */

/* msprof HostCpuUsage.get_num_of_used_cpus: CPUs that appear in CPU_USAGE
 * (occupied) and those whose largest sample is above zero (recommend). */
static int write_host_cpu(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT COUNT(*), COALESCE(SUM(m > 0), 0) FROM "
				  "(SELECT cpuId, MAX(usage) AS m FROM CPU_USAGE GROUP BY cpuId)";
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(f, "host,%u,%" PRId64 ",%" PRId64 "\n", e->cpu_nums, (int64_t)sqlite3_column_int64(st, 0),
			(int64_t)sqlite3_column_int64(st, 1));
	else
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* msprof HostMemUsagePresenter.get_summary_data: peak and recommend of the
 * usage percentages, times memoryTotal / 100, rounded to 3 decimals. */
static int write_host_mem(struct exp *e, FILE *f)
{
	double peak, rec;
	int r = peak_recommend(e, "HOST_MEM_USAGE", "usage", &peak, &rec);
	if (r < 0)
		return r;
	double total = (double)e->mem_total_kb;
	fprintf(f, "host,%" PRIu64, e->mem_total_kb);
	put_num(f, peak * total / 100.0, 3);
	put_num(f, rec * total / 100.0, 3);
	fputc('\n', f);
	return 0;
}

/* Rates are B/s in the database (msprof's unit there), KB/s here; msprof
 * does not round these (nor the network ones), so neither do we. */
static int write_host_disk(struct exp *e, FILE *f)
{
	double rp, rr, wp, wr;
	int r = peak_recommend(e, "HOST_DISK_USAGE", "readRate", &rp, &rr);
	if (r == 0)
		r = peak_recommend(e, "HOST_DISK_USAGE", "writeRate", &wp, &wr);
	if (r < 0)
		return r;
	fputs("host", f);
	put_num(f, rp / 1024.0, -1);
	put_num(f, rr / 1024.0, -1);
	put_num(f, wp / 1024.0, -1);
	put_num(f, wr / 1024.0, -1);
	fputc('\n', f);
	return 0;
}

/* msprof HostNetworkUsagePresenter: Netcard Speed = sum of the known rated
 * speeds (Mbit/s * 125000 / 1024 KB/s); peak and recommend of speed. */
static int write_host_network(struct exp *e, FILE *f)
{
	double peak, rec, cards = 0;
	int r = peak_recommend(e, "HOST_NETWORK_USAGE", "speed", &peak, &rec);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < e->n_netcards; i++)
		if (e->netcards[i].speed_mbps > 0)
			cards += (double)e->netcards[i].speed_mbps * 125000.0 / 1024.0;
	fputs("host", f);
	put_num(f, cards, -1);
	put_num(f, peak / 1024.0, -1);
	put_num(f, rec / 1024.0, -1);
	fputc('\n', f);
	return 0;
}

/* --- whole-host summaries (--host-sys-usage) ---------------------------------- */

/* msprof cpu_usage_report._sys_usage_data: each state's share of all ticks,
 * in percent, 3 decimals.  msprof sums its samples; /proc/stat counters are
 * cumulative, so we take the difference between the first and the last
 * sample of each CPU, which is the run's own share.  Rows: cpu0, cpu1, ...
 * then Avg (the aggregate "cpu" line). */
struct cpu_ticks { int64_t v[8]; };

static void cpu_row(FILE *f, const char *type, const struct cpu_ticks *a, const struct cpu_ticks *b)
{
	/* user nice system idle iowait irq softirq steal */
	double d[8], total = 0;
	for (int k = 0; k < 8; k++) {
		d[k] = b->v[k] >= a->v[k] ? (double)(b->v[k] - a->v[k]) : 0;
		total += d[k];
	}
	static const int col[6] = { 0, 2, 4, 5, 6, 3 }; /* User Sys IoWait Irq Soft Idle */
	fputs("host,", f);
	exp_csv_field(f, type, strlen(type));
	for (int k = 0; k < 6; k++)
		put_num(f, total > 0 ? d[col[k]] * 100.0 / total : 0.0, 3);
	fputc('\n', f);
}

static int write_cpu_usage(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT cpuId, user, nice, system, idle, iowait, irq, softirq, steal "
				  "FROM SYS_CPU ORDER BY cpuId, timestampNs";
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	struct cpu_ticks first = { 0 }, last = { 0 }, avg_first = { 0 }, avg_last = { 0 };
	int64_t cur = INT64_MIN;
	bool have_avg = false;
	int rc;
	for (;;) {
		rc = sqlite3_step(st);
		int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : INT64_MAX;
		if (id != cur && cur != INT64_MIN) {
			if (cur < 0) {
				avg_first = first;
				avg_last = last;
				have_avg = true;
			} else {
				char type[32];
				snprintf(type, sizeof type, "cpu%" PRId64, cur);
				cpu_row(f, type, &first, &last);
			}
		}
		if (rc != SQLITE_ROW)
			break;
		struct cpu_ticks t;
		for (int k = 0; k < 8; k++)
			t.v[k] = sqlite3_column_int64(st, 1 + k);
		if (id != cur)
			first = t;
		last = t;
		cur = id;
	}
	if (rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	if (r == 0 && have_avg)
		cpu_row(f, "Avg", &avg_first, &avg_last);
	return r;
}

/* msprof get_msvp_summary_mem.get_sys_mem_data: mean of each field over the
 * samples (integer division, as SQLite does it on msprof's integer
 * columns). */
static int write_sys_mem(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT SUM(memTotal)/COUNT(*), SUM(memFree)/COUNT(*), SUM(buffers)/COUNT(*), "
				  "SUM(cached)/COUNT(*), SUM(shmem)/COUNT(*), SUM(commitLimit)/COUNT(*), "
				  "SUM(committedAs)/COUNT(*), SUM(hugePagesTotal)/COUNT(*), "
				  "SUM(hugePagesFree)/COUNT(*) FROM SYS_MEM";
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		fputs("host", f);
		for (int k = 0; k < 9; k++)
			fprintf(f, ",%" PRId64, (int64_t)sqlite3_column_int64(st, k));
		fputc('\n', f);
	} else
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* The name of a pid: the newest PROCESS_INFO row's (a pid may be reused). */
#define NAME_OF_PID                                                                     \
	"COALESCE((SELECT s.value FROM PROCESS_INFO i JOIN STRING_IDS s ON s.id = i.name " \
	"WHERE i.pid = u.pid ORDER BY i.firstSeenNs DESC LIMIT 1), '')"

/* msprof cpu_usage_report._proc_usage_data: per process, the mean over the
 * samples of its share of all CPUs, 3 decimals, busiest first. */
static int write_process_cpu(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT u.pid, " NAME_OF_PID ", AVG(u.usage) AS a "
				  "FROM PROCESS_CPU_USAGE u GROUP BY u.pid ORDER BY a DESC, u.pid";
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "host,%" PRId64 ",", (int64_t)sqlite3_column_int64(st, 0));
		const char *name = (const char *)sqlite3_column_text(st, 1); /* before its length */
		exp_csv_field(f, name, (size_t)sqlite3_column_bytes(st, 1));
		put_num(f, sqlite3_column_double(st, 2), 3);
		fputc('\n', f);
	}
	if (rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

/* msprof get_process_mem_data: per process the mean of size, resident and
 * shared pages (integer division), largest first. */
static int write_process_mem(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT u.pid, " NAME_OF_PID ", SUM(u.sizePages)/COUNT(*) AS s, "
				  "SUM(u.residentPages)/COUNT(*) AS r, SUM(u.sharedPages)/COUNT(*) AS h "
				  "FROM PROCESS_MEM_USAGE u GROUP BY u.pid ORDER BY s + r + h DESC, u.pid";
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "host,%" PRId64 ",", (int64_t)sqlite3_column_int64(st, 0));
		const char *name = (const char *)sqlite3_column_text(st, 1); /* before its length */
		exp_csv_field(f, name, (size_t)sqlite3_column_bytes(st, 1));
		for (int k = 2; k < 5; k++)
			fprintf(f, ",%" PRId64, (int64_t)sqlite3_column_int64(st, k));
		fputc('\n', f);
	}
	if (rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, sql);
	sqlite3_finalize(st);
	return r;
}

struct summary {
	enum export_csv csv;
	bool usage;          /* --host-sys-usage (else --host-sys) */
	unsigned ask;        /* the item of that switch */
	const char *table;   /* written only when this table has rows */
	int (*write)(struct exp *e, FILE *f);
};

static const struct summary summaries[] = {
	{ CSV_HOST_CPU_USAGE, false, ASK_CPU, "CPU_USAGE", write_host_cpu },
	{ CSV_HOST_MEM_USAGE, false, ASK_MEM, "HOST_MEM_USAGE", write_host_mem },
	{ CSV_HOST_DISK_USAGE, false, ASK_DISK, "HOST_DISK_USAGE", write_host_disk },
	{ CSV_HOST_NETWORK_USAGE, false, ASK_NETWORK, "HOST_NETWORK_USAGE", write_host_network },
	{ CSV_CPU_USAGE, true, ASK_CPU, "SYS_CPU", write_cpu_usage },
	{ CSV_PROCESS_CPU_USAGE, true, ASK_CPU, "PROCESS_CPU_USAGE", write_process_cpu },
	{ CSV_SYS_MEM, true, ASK_MEM, "SYS_MEM", write_sys_mem },
	{ CSV_PROCESS_MEM, true, ASK_MEM, "PROCESS_MEM_USAGE", write_process_mem },
};

int exp_write_summaries(struct exp *e, const char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(summaries); i++) {
		const struct summary *s = &summaries[i];
		if (e->have_sample && !((s->usage ? e->ask_usage : e->ask_sys) & s->ask))
			continue;
		if (!exp_table_has_rows(e, s->table)) {
			/* nothing in this export (the chosen steps hold no
			 * sample): an older file would pass for this one's */
			const char *type = export_csv_tables[s->csv].type;
			exp_remove_stale(dir, type, ".csv", e->ts, 0);
			exp_remove_stale(dir, type, ".json", e->ts, 0);
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
