/* Host memory: HOST_MEM_USAGE (--host-sys), SYS_MEM and PROCESS_MEM_USAGE
 * (--host-sys-usage), parsed with the other host samples (domain-host.c); the
 * Memory Usage layer; the host_mem_usage, sys_mem and process_mem
 * summaries. */
#include <inttypes.h>
#include <stdio.h>
#include <sqlite3.h>

#include "export/domain-host-counters.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/tables.h"
#include "common/util.h"

/* msprof HostMemUsagePresenter.get_summary_data: peak and recommend of the
 * usage percentages, times memoryTotal / 100, rounded to 3 decimals. */
static int write_host_mem(struct exp *e, FILE *f)
{
	double peak, rec;
	int r = exp_peak_recommend(e, "HOST_MEM_USAGE", "usage", &peak, &rec);
	if (r < 0)
		return r;
	double total = (double)e->mem_total_kb;
	fprintf(f, "host,%" PRIu64, e->mem_total_kb);
	exp_put_num(f, peak * total / 100.0, 3);
	exp_put_num(f, rec * total / 100.0, 3);
	fputc('\n', f);
	return 0;
}

/* msprof get_msvp_summary_mem.get_sys_mem_data: mean of each field over the
 * samples (integer division, as SQLite does it on msprof's integer
 * columns). */
static int sys_mem_row(sqlite3_stmt *st, void *ctx)
{
	FILE *f = ctx;
	fputs("host", f);
	for (int k = 0; k < 9; k++)
		fprintf(f, ",%" PRId64, (int64_t)sqlite3_column_int64(st, k));
	fputc('\n', f);
	return 1;
}

static int write_sys_mem(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT SUM(memTotal)/COUNT(*), SUM(memFree)/COUNT(*), SUM(buffers)/COUNT(*), "
				  "SUM(cached)/COUNT(*), SUM(shmem)/COUNT(*), SUM(commitLimit)/COUNT(*), "
				  "SUM(committedAs)/COUNT(*), SUM(hugePagesTotal)/COUNT(*), "
				  "SUM(hugePagesFree)/COUNT(*) FROM SYS_MEM";
	int r = exp_each(e, sql, NULL, sys_mem_row, f);
	return r < 0 ? r : 0;
}

static int process_mem_row(sqlite3_stmt *st, void *ctx)
{
	FILE *f = ctx;
	exp_put_process(f, st);
	for (int k = 2; k < 5; k++)
		fprintf(f, ",%" PRId64, (int64_t)sqlite3_column_int64(st, k));
	fputc('\n', f);
	return 0;
}

/* msprof get_process_mem_data: per process the mean of size, resident and
 * shared pages (integer division), largest first. */
static int write_process_mem(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT u.pid, " EXP_NAME_OF_PID ", SUM(u.sizePages)/COUNT(*) AS s, "
				  "SUM(u.residentPages)/COUNT(*) AS r, SUM(u.sharedPages)/COUNT(*) AS h "
				  "FROM PROCESS_MEM_USAGE u GROUP BY u.pid ORDER BY s + r + h DESC, u.pid";
	int r = exp_each(e, sql, NULL, process_mem_row, f);
	return r < 0 ? r : 0;
}

static const struct exp_host_summary summaries[] = {
	{ CSV_HOST_MEM_USAGE, false, HOST_SYS_MEM, "HOST_MEM_USAGE", write_host_mem },
	{ CSV_SYS_MEM, true, HOST_SYS_MEM, "SYS_MEM", write_sys_mem },
	{ CSV_PROCESS_MEM, true, HOST_SYS_MEM, "PROCESS_MEM_USAGE", write_process_mem },
};

/* MB beside the percentage (MB = 2^20 bytes): the machine's used and
 * available memory, and each process's resident set (?1: page size). */
static const struct exp_counter_track sizes[] = {
	{ "HOST_SYSTEM_MEM", "SELECT timestampNs, 'System Memory', memUsed, memAvailable FROM HOST_SYSTEM_MEM",
	  "Used(MB)", "Available(MB)", 1.0 / 1024.0 },
	{ "TARGET_PROCESS_MEM",
	  "SELECT u.timestampNs, " EXP_NAME_OF_PID " || ' (pid ' || u.pid || ')', u.residentPages * ?1 "
	  "FROM TARGET_PROCESS_MEM u",
	  "RSS(MB)", NULL, 1.0 / 1048576.0 },
};

static const struct exp_counter_layer layer = {
	TRACK_MEMORY_USAGE, "HOST_MEM_USAGE", "SELECT timestampNs, usage FROM HOST_MEM_USAGE", false, "Memory Usage",
	NULL, NULL, NULL, sizes, ARRAY_SIZE(sizes),
};

static const char *const tables[] = { "HOST_MEM_USAGE", "TARGET_PROCESS_MEM", "SYS_MEM", "PROCESS_MEM_USAGE", "HOST_SYSTEM_MEM", NULL };

const struct exp_domain exp_domain_mem = {
	.name = "mem",
	.tables = tables,
	.counter_layer = &layer,
	.host_summaries = summaries,
	.n_host_summaries = ARRAY_SIZE(summaries),
};
