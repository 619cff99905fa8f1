/* The host CPU: CPU_USAGE and CPU_USAGE_AVG (the profiled tree, --host-sys),
 * SYS_CPU and PROCESS_CPU_USAGE (the whole host, --host-sys-usage), parsed
 * with the other host samples (domain-host.c); the CPU Usage layer; the
 * host_cpu_usage, cpu_usage and process_cpu_usage summaries. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/domain-host-counters.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

/* A summary's writer and its file, for the row callbacks. */
struct summary_row {
	struct exp *e;
	FILE *f;
};

static int host_cpu_row(sqlite3_stmt *st, void *ctx)
{
	struct summary_row *w = ctx;
	fprintf(w->f, "host,%u,%" PRId64 ",%" PRId64 "\n", w->e->cpu_nums, (int64_t)sqlite3_column_int64(st, 0),
		(int64_t)sqlite3_column_int64(st, 1));
	return 1;
}

/* msprof HostCpuUsage.get_num_of_used_cpus: CPUs that appear in CPU_USAGE
 * (occupied) and those whose largest sample is above zero (recommend). */
static int write_host_cpu(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT COUNT(*), COALESCE(SUM(m > 0), 0) FROM "
				  "(SELECT cpuId, MAX(usage) AS m FROM CPU_USAGE GROUP BY cpuId)";
	struct summary_row w = { e, f };
	int r = exp_each(e, sql, NULL, host_cpu_row, &w);
	return r < 0 ? r : 0;
}

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
		exp_put_num(f, total > 0 ? d[col[k]] * 100.0 / total : 0.0, 3);
	fputc('\n', f);
}

/* The samples of one CPU at a time, in order: its first and last. */
struct cpu_walk {
	FILE *f;
	struct cpu_ticks first, last, avg_first, avg_last;
	int64_t cur;            /* INT64_MIN: none yet */
	bool have_avg;
};

/* The CPU walked so far is complete: its row, or kept for Avg (id < 0). */
static void cpu_done(struct cpu_walk *w)
{
	if (w->cur == INT64_MIN)
		return;
	if (w->cur < 0) {
		w->avg_first = w->first;
		w->avg_last = w->last;
		w->have_avg = true;
	} else {
		char type[32];
		snprintf(type, sizeof type, "cpu%" PRId64, w->cur);
		cpu_row(w->f, type, &w->first, &w->last);
	}
}

static int cpu_sample(sqlite3_stmt *st, void *ctx)
{
	struct cpu_walk *w = ctx;
	int64_t id = sqlite3_column_int64(st, 0);
	if (id != w->cur)
		cpu_done(w);
	struct cpu_ticks t;
	for (int k = 0; k < 8; k++)
		t.v[k] = sqlite3_column_int64(st, 1 + k);
	if (id != w->cur)
		w->first = t;
	w->last = t;
	w->cur = id;
	return 0;
}

static int write_cpu_usage(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT cpuId, user, nice, system, idle, iowait, irq, softirq, steal "
				  "FROM SYS_CPU ORDER BY cpuId, timestampNs";
	struct cpu_walk w = { .f = f, .cur = INT64_MIN };
	int r = exp_each(e, sql, NULL, cpu_sample, &w);
	if (r < 0)
		return r;
	cpu_done(&w);
	if (w.have_avg)
		cpu_row(f, "Avg", &w.avg_first, &w.avg_last);
	return 0;
}

static int process_cpu_row(sqlite3_stmt *st, void *ctx)
{
	FILE *f = ctx;
	exp_put_process(f, st);
	exp_put_num(f, sqlite3_column_double(st, 2), 3);
	fputc('\n', f);
	return 0;
}

/* msprof cpu_usage_report._proc_usage_data: per process, the mean over the
 * samples of its share of all CPUs, 3 decimals, busiest first. */
static int write_process_cpu(struct exp *e, FILE *f)
{
	static const char sql[] = "SELECT u.pid, " EXP_NAME_OF_PID ", AVG(u.usage) AS a "
				  "FROM PROCESS_CPU_USAGE u GROUP BY u.pid ORDER BY a DESC, u.pid";
	int r = exp_each(e, sql, NULL, process_cpu_row, f);
	return r < 0 ? r : 0;
}

static const struct exp_host_summary summaries[] = {
	{ CSV_HOST_CPU_USAGE, false, HOST_SYS_CPU, "CPU_USAGE", write_host_cpu },
	{ CSV_CPU_USAGE, true, HOST_SYS_CPU, "SYS_CPU", write_cpu_usage },
	{ CSV_PROCESS_CPU_USAGE, true, HOST_SYS_CPU, "PROCESS_CPU_USAGE", write_process_cpu },
};

static const struct exp_counter_layer layer = {
	TRACK_CPU_USAGE, "CPU_USAGE", "SELECT timestampNs, cpuId, usage FROM CPU_USAGE", true, "CPU ",
	"SELECT timestampNs, usage FROM CPU_USAGE_AVG", "CPU Avg", "CPU_USAGE_AVG",
};

/* Thread CPU: per process of the tree a timeline process "Thread CPU:
 * <name> (pid <pid>)" (the pid makes it unique beside the mstx layer,
 * which is named after the process too), with one counter per thread
 * named "<comm> (<tid>)": % of one CPU, as TARGET_THREAD_CPU_USAGE has it.
 * A thread's name is its newest (TARGET_THREAD_INFO); a thread without
 * one is "Thread <tid>". */
static bool thread_cpu_has(struct exp *e)
{
	return exp_track_on(e, TRACK_THREAD_CPU) && exp_table_has_rows(e, "TARGET_THREAD_CPU_USAGE");
}

static int thread_cpu_row(sqlite3_stmt *st, void *ctx)
{
	struct exp_tl *out = ctx;
	const struct export_track_info *k = &export_tracks[TRACK_THREAD_CPU];
	unsigned pid = (unsigned)sqlite3_column_int64(st, 1);
	int64_t tid = sqlite3_column_int64(st, 2);
	const char *comm = (const char *)sqlite3_column_text(st, 4);
	char name[64];
	if (comm)
		snprintf(name, sizeof name, "%s (%" PRId64 ")", comm, tid);
	else
		snprintf(name, sizeof name, "Thread %" PRId64, tid);
	exp_tl_counter2(out, export_format_pid(pid, k->sort_index, EXPORT_HOST_DEVICE_ID),
			sqlite3_column_int64(st, 0), name, "Usage(%)", sqlite3_column_double(st, 3), NULL, 0);
	return 0;
}

static int thread_cpu_process(sqlite3_stmt *st, void *ctx)
{
	struct exp_tl *out = ctx;
	const struct export_track_info *k = &export_tracks[TRACK_THREAD_CPU];
	unsigned pid = (unsigned)sqlite3_column_int64(st, 0);
	const char *pname = (const char *)sqlite3_column_text(st, 1);
	char name[128];
	snprintf(name, sizeof name, "%s: %s (pid %u)", k->process_name, pname && *pname ? pname : "?", pid);
	exp_tl_process(out, export_format_pid(pid, k->sort_index, EXPORT_HOST_DEVICE_ID), name, k->label,
		       k->sort_index);
	return 0;
}

static int thread_cpu_layers(struct exp *e, struct exp_tl *out, struct exp_tl *own)
{
	if (!thread_cpu_has(e))
		return 0;
	/* the names as one small table SQLite indexes for the join, not a
	 * lookup per row */
	static const char rows[] =
		"SELECT u.timestampNs, u.pid, u.tid, u.usage, s.value FROM TARGET_THREAD_CPU_USAGE u "
		"LEFT JOIN (SELECT pid, tid, name, MAX(timestampNs) FROM TARGET_THREAD_INFO GROUP BY pid, tid) n "
		"ON n.pid = u.pid AND n.tid = u.tid LEFT JOIN STRING_IDS s ON s.id = n.name";
	/* raw files of an older msprofd have no names (the table is dropped) */
	static const char unnamed[] = "SELECT timestampNs, pid, tid, usage, NULL FROM TARGET_THREAD_CPU_USAGE";
	int r = exp_each(e, exp_table_has_rows(e, "TARGET_THREAD_INFO") ? rows : unnamed, NULL, thread_cpu_row, out);
	if (r < 0)
		return r;
	static const char procs[] = "SELECT u.pid, " EXP_NAME_OF_PID " FROM "
				    "(SELECT DISTINCT pid FROM TARGET_THREAD_CPU_USAGE) u ORDER BY u.pid";
	r = exp_each(e, procs, NULL, thread_cpu_process, out);
	return r < 0 ? r : 0;
}

static const char *const tables[] = {
	"CPU_USAGE", "CPU_USAGE_AVG", "TARGET_THREAD_CPU_USAGE", "TARGET_THREAD_INFO", "SYS_CPU", "PROCESS_CPU_USAGE", NULL
};

const struct exp_domain exp_domain_cpu = {
	.name = "cpu",
	.tables = tables,
	.counter_layer = &layer,
	.has_layers = thread_cpu_has,
	.layers = thread_cpu_layers,
	.host_summaries = summaries,
	.n_host_summaries = ARRAY_SIZE(summaries),
};
