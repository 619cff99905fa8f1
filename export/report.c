/* mindstudio_profiler_output/report.html: one self-contained page a person
 * opens in a browser (export/report-page.html: styles and a script that
 * draws SVG; no network at view time).  The export aggregates here and
 * embeds only the aggregates as JSON, so the page stays small and opens at
 * once whatever the size of the trace:
 *
 *   timeline   host and device samples in REPORT_BUCKETS intervals of the
 *              session (the mean of each interval), with each series' mean
 *              and peak over the points drawn
 *   steps      every step's duration (or the slowest of each group past
 *              REPORT_STEP_POINTS), count, mean, p50, p99, the slowest
 *   ranges     the annotation ranges with the largest total time, with
 *              count, min and max (steps left out: they have their own)
 *   threads    per-thread CPU of the profiled processes, the busiest first
 *   ranks      this rank and the ranks of the PROF dirs beside it
 *   losses     what the database counted as dropped, missed or left out,
 *              and the export's notes
 *
 * Each part is one scan of its table, aggregated in C: a GROUP BY over
 * millions of rows would sort them. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "export/aggregate.h"
#include "export/buf.h"
#include "export/domain-agents.h"
#include "export/exp.h"
#include "export/export.h"
#include "export/files.h"
#include "export/report-page.h"
#include "export/report.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"

#define REPORT_BUCKETS 240
#define REPORT_THREAD_ROWS 30
#define REPORT_THREAD_SERIES 8
#define REPORT_NETCARDS 4
#define REPORT_STEP_POINTS 2000
#define REPORT_MAX_RANKS 4096
#define REPORT_DATA_MARK "@DATA@"

/* --- the timeline: samples in buckets ----------------------------------------------- */

struct span {
	int64_t t0, end, bucket_ns;
};

struct series {
	int64_t key;                 /* what the rows' first column said (keyed scans) */
	double sum[REPORT_BUCKETS];
	uint32_t cnt[REPORT_BUCKETS];
	double total, peak;
	uint64_t n;
};

struct collect {
	const struct span *sp;
	bool keyed;                  /* rows are (key, timestampNs, value), else (timestampNs, value) */
	double scale;
	struct exp_kmap map;
	struct series *v;
	size_t n, cap;
};

static int collect_row(sqlite3_stmt *st, void *ctx)
{
	struct collect *c = ctx;
	int col = c->keyed ? 1 : 0;
	if (sqlite3_column_type(st, col + 1) == SQLITE_NULL)
		return 0;
	int64_t key = c->keyed ? sqlite3_column_int64(st, 0) : 0, t = sqlite3_column_int64(st, col);
	double v = sqlite3_column_double(st, col + 1) * c->scale;
	if (!isfinite(v))
		return 0;
	bool fresh;
	int64_t i = exp_kmap_get(&c->map, key, 0, &fresh);
	if (i < 0)
		return (int)i;
	if (fresh) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4;
			struct series *nv = realloc(c->v, cap * sizeof *nv);
			if (!nv)
				return -ENOMEM;
			c->v = nv;
			c->cap = cap;
		}
		c->v[c->n] = (struct series){ .key = key };
		c->n++;
	}
	struct series *s = &c->v[i];
	s->total += v;
	if (!s->n || v > s->peak)
		s->peak = v;
	s->n++;
	/* a sample stamped at the end of the span belongs to the last bucket */
	if (t >= c->sp->t0 && t <= c->sp->end) {
		int64_t b = (t - c->sp->t0) / c->sp->bucket_ns;
		if (b >= REPORT_BUCKETS)
			b = REPORT_BUCKETS - 1;
		s->sum[b] += v;
		s->cnt[b]++;
	}
	return 0;
}

static void collect_release(struct collect *c)
{
	exp_kmap_release(&c->map);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* The rows of sql into c (released by the caller, also on error). */
static int collect(struct exp *e, const struct span *sp, const char *sql, bool keyed, double scale,
		   struct collect *c)
{
	*c = (struct collect){ .sp = sp, .keyed = keyed, .scale = scale };
	int r = exp_each(e, sql, NULL, collect_row, c);
	return r < 0 ? r : 0;
}

static double round3(double v)
{
	return exp_round(v, 3);
}

/* {"name", "v": [per-bucket mean or null], "mean", "peak", "samples"} */
static cJSON *series_json(const struct series *s, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *v = cJSON_AddArrayToObject(o, "v");
	cJSON_AddStringToObject(o, "name", name);
	/* the legend's mean and peak are the drawn points': a peak of one
	 * sample that no point shows read as a line that never reached it */
	double sum = 0, peak = 0;
	int points = 0;
	for (int b = 0; b < REPORT_BUCKETS; b++) {
		if (!s->cnt[b]) {
			cJSON_AddItemToArray(v, cJSON_CreateNull());
			continue;
		}
		double m = round3(s->sum[b] / s->cnt[b]);
		cJSON_AddItemToArray(v, cJSON_CreateNumber(m));
		sum += m;
		if (!points++ || m > peak)
			peak = m;
	}
	cJSON_AddNumberToObject(o, "mean", round3(points ? sum / points : 0));
	cJSON_AddNumberToObject(o, "peak", round3(peak));
	cJSON_AddNumberToObject(o, "samples", (double)s->n);
	return o;
}

static cJSON *chart(cJSON *charts, const char *id, const char *title, const char *unit, const char *what, double max)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "id", id);
	cJSON_AddStringToObject(c, "title", title);
	cJSON_AddStringToObject(c, "unit", unit);
	cJSON_AddStringToObject(c, "what", what);
	if (max > 0)
		cJSON_AddNumberToObject(c, "max", max);
	cJSON_AddArrayToObject(c, "series");
	cJSON_AddItemToArray(charts, c);
	return c;
}

/* One unkeyed series of sql into chart c (made on first use through
 * *c): nothing when there are no rows. */
static int add_series(struct exp *e, const struct span *sp, cJSON *charts, cJSON **c, const char *id,
		      const char *title, const char *unit, const char *what, double max, const char *name,
		      const char *sql, double scale)
{
	struct collect col;
	int r = collect(e, sp, sql, false, scale, &col);
	if (r == 0 && col.n) {
		if (!*c)
			*c = chart(charts, id, title, unit, what, max);
		cJSON_AddItemToArray(cJSON_GetObjectItem(*c, "series"), series_json(&col.v[0], name));
	}
	collect_release(&col);
	return r;
}

/* Network: each interface's receive and send rates, the busiest
 * REPORT_NETCARDS interfaces (by bytes in both directions). */
struct netcard {
	const struct series *rx, *tx;
	double both;
};

static int cmp_netcard(const void *a, const void *b)
{
	const struct netcard *x = a, *y = b;
	return (x->both < y->both) - (x->both > y->both);
}

static int net_chart(struct exp *e, struct exp_strings *strs, const struct span *sp, cJSON *charts)
{
	if (!exp_table_has_rows(e, "NETWORK_INTERFACE_USAGE"))
		return 0;
	struct collect rx, tx = { 0 };
	struct netcard *cards = NULL;
	size_t n = 0;
	int r = collect(e, sp, "SELECT name, timestampNs, rxRate FROM NETWORK_INTERFACE_USAGE", true, 1e-6, &rx);
	if (r == 0)
		r = collect(e, sp, "SELECT name, timestampNs, txRate FROM NETWORK_INTERFACE_USAGE", true, 1e-6, &tx);
	if (r == 0 && rx.n && !(cards = calloc(rx.n, sizeof *cards)))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < rx.n; i++)
		for (size_t j = 0; j < tx.n; j++)
			if (tx.v[j].key == rx.v[i].key)
				cards[n++] = (struct netcard){ &rx.v[i], &tx.v[j], rx.v[i].total + tx.v[j].total };
	if (n) {
		qsort_safe(cards, n, sizeof *cards, cmp_netcard);
		/* an interface without traffic is named, not drawn */
		char what[1024], idle[512] = "";
		size_t shown = 0, il = 0;
		for (size_t i = 0; i < n; i++) {
			char name[RAW_AGENT_MAX_STR + 1];
			if (cards[i].rx->peak > 0 || cards[i].tx->peak > 0 || (i == 0 && cards[i].rx->n))
				continue;
			exp_strings_copy(strs, cards[i].rx->key, name, sizeof name);
			if (il < sizeof idle)
				il += (size_t)snprintf(idle + il, sizeof idle - il, "%s%s", il ? ", " : "", name);
		}
		snprintf(what, sizeof what, "each interface's bytes received (rx) and sent (tx) per second "
			 "(/proc/net/dev); 1 MB = 10^6 bytes%s%s", idle[0] ? "; no traffic on " : "", idle);
		cJSON *c = chart(charts, "network", "Network", "MB/s", what, 0);
		cJSON *arr = cJSON_GetObjectItem(c, "series");
		for (size_t i = 0; i < n && shown < REPORT_NETCARDS; i++) {
			char name[RAW_AGENT_MAX_STR + 1], label[RAW_AGENT_MAX_STR + 8];
			if (i > 0 && !(cards[i].rx->peak > 0 || cards[i].tx->peak > 0))
				continue;
			exp_strings_copy(strs, cards[i].rx->key, name, sizeof name);
			snprintf(label, sizeof label, "%s rx", name);
			cJSON_AddItemToArray(arr, series_json(cards[i].rx, label));
			snprintf(label, sizeof label, "%s tx", name);
			cJSON_AddItemToArray(arr, series_json(cards[i].tx, label));
			shown++;
		}
	}
	free(cards);
	collect_release(&rx);
	collect_release(&tx);
	return r;
}

/* Devices: utilisation and memory used, a series per device. */
static int device_charts(struct exp *e, const struct span *sp, cJSON *charts)
{
	if (!exp_table_has_rows(e, "GPU_SAMPLE"))
		return 0;
	static const struct {
		const char *id, *title, *unit, *what, *sql;
		double scale, max;
	} k[] = {
		{ "device-util", "Device utilisation", "%", "time a kernel ran on each device (NVML utilization.gpu)",
		  "SELECT deviceId, timestampNs, gpuUtil FROM GPU_SAMPLE", 1, 100 },
		{ "device-mem", "Device memory", "MiB", "memory used on each device (NVML), 1 MiB = 2^20 bytes",
		  "SELECT deviceId, timestampNs, memUsed FROM GPU_SAMPLE", 1.0 / 1048576.0, 0 },
	};
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(k) && r == 0; i++) {
		struct collect c;
		r = collect(e, sp, k[i].sql, true, k[i].scale, &c);
		if (r == 0 && c.n) {
			cJSON *ch = chart(charts, k[i].id, k[i].title, k[i].unit, k[i].what, k[i].max);
			for (size_t j = 0; j < c.n; j++) {
				char name[32];
				snprintf(name, sizeof name, "device %" PRId64, c.v[j].key);
				cJSON_AddItemToArray(cJSON_GetObjectItem(ch, "series"), series_json(&c.v[j], name));
			}
		}
		collect_release(&c);
	}
	return r;
}

static int timeline(struct exp *e, struct exp_strings *strs, const struct span *sp, cJSON *root)
{
	cJSON *tl = cJSON_AddObjectToObject(root, "timeline");
	cJSON_AddNumberToObject(tl, "buckets", REPORT_BUCKETS);
	cJSON_AddNumberToObject(tl, "bucket_ns", (double)sp->bucket_ns);
	cJSON *charts = cJSON_AddArrayToObject(tl, "charts");
	cJSON *cpu = NULL, *mem = NULL, *disk = NULL;
	int r = 0;
	/* the host from /proc/stat (--host-sys-usage=cpu), else the profiled
	 * processes alone, titled so: both in % of all the host's CPUs */
	if (exp_table_has_rows(e, "SYS_CPU"))
		r = add_series(e, sp, charts, &cpu, "cpu", "Host CPU", "%",
			       "busy time of all the host's CPUs together (/proc/stat: all but idle and iowait), and "
			       "the profiled processes' CPU time; 100 = every CPU busy", 100, "host, all CPUs",
			       "SELECT t, busy * 100.0 / (busy + idl) FROM (SELECT LAG(timestampNs) OVER w AS t, "
			       "user + nice + system + irq + softirq + steal - LAG(user + nice + system + irq + softirq + "
			       "steal) OVER w AS busy, idle + iowait - LAG(idle + iowait) OVER w AS idl FROM SYS_CPU "
			       "WHERE cpuId = -1 WINDOW w AS (ORDER BY timestampNs)) WHERE busy >= 0 AND idl >= 0 AND "
			       "busy + idl > 0",
			       1);
	if (r == 0 && exp_table_has_rows(e, "CPU_USAGE_AVG"))
		r = add_series(e, sp, charts, &cpu, "cpu", "CPU of the profiled processes", "%",
			       "CPU time of the profiled processes over all the host's CPUs; 100 = every CPU busy "
			       "(the host's own needs --host-sys-usage=cpu)", 100, "profiled processes",
			       "SELECT timestampNs, usage FROM CPU_USAGE_AVG", 1);
	if (r == 0 && e->mem_total_kb && exp_table_has_rows(e, "HOST_MEM_USAGE"))
		r = add_series(e, sp, charts, &mem, "memory", "Memory", "MiB",
			       "resident memory (RSS) of the profiled processes; used memory of the host "
			       "(MemTotal - MemFree - Buffers - Cached, /proc/meminfo); 1 MiB = 2^20 bytes", 0,
			       "profiled processes, RSS", "SELECT timestampNs, usage FROM HOST_MEM_USAGE",
			       (double)e->mem_total_kb / 100.0 / 1024.0);
	if (r == 0 && exp_table_has_rows(e, "SYS_MEM"))
		r = add_series(e, sp, charts, &mem, "memory", "Memory", "MiB",
			       "used memory of the host (MemTotal - MemFree - Buffers - Cached, /proc/meminfo); "
			       "1 MiB = 2^20 bytes", 0, "host, used",
			       "SELECT timestampNs, memTotal - memFree - buffers - cached FROM SYS_MEM", 1.0 / 1024.0);
	if (r == 0 && exp_table_has_rows(e, "HOST_DISK_USAGE")) {
		static const char what[] = "bytes the profiled processes read from and wrote to storage per second "
					   "(/proc/PID/io read_bytes, write_bytes); 1 MB = 10^6 bytes";
		r = add_series(e, sp, charts, &disk, "disk", "Disk I/O", "MB/s", what, 0, "read",
			       "SELECT timestampNs, readRate FROM HOST_DISK_USAGE", 1e-6);
		if (r == 0)
			r = add_series(e, sp, charts, &disk, "disk", "Disk I/O", "MB/s", what, 0, "write",
				       "SELECT timestampNs, writeRate FROM HOST_DISK_USAGE", 1e-6);
	}
	if (r == 0)
		r = net_chart(e, strs, sp, charts);
	if (r == 0)
		r = device_charts(e, sp, charts);
	return r;
}

/* --- per-thread CPU ------------------------------------------------------------------- */

static int cmp_series_mean(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	double mx = x->n ? x->total / (double)x->n : 0, my = y->n ? y->total / (double)y->n : 0;
	if (mx != my)
		return (mx < my) - (mx > my);
	return (x->key > y->key) - (x->key < y->key);
}

static int threads(struct exp *e, const struct span *sp, cJSON *root)
{
	if (!exp_table_has_rows(e, "TARGET_THREAD_CPU_USAGE"))
		return 0;
	struct collect c;
	int r = collect(e, sp, "SELECT (pid << 32) | tid, timestampNs, usage FROM TARGET_THREAD_CPU_USAGE", true, 1,
			&c);
	if (r == 0 && c.n) {
		qsort_safe(c.v, c.n, sizeof *c.v, cmp_series_mean);
		bool agent = exp_table_has_rows(e, "AGENT_THREAD");
		cJSON *t = cJSON_AddObjectToObject(root, "threads");
		cJSON_AddNumberToObject(t, "total", (double)c.n);
		cJSON *rows = cJSON_AddArrayToObject(t, "rows"), *ser = cJSON_AddArrayToObject(t, "series");
		for (size_t i = 0; i < c.n && i < REPORT_THREAD_ROWS; i++) {
			const struct series *s = &c.v[i];
			int64_t pid = (int64_t)((uint64_t)s->key >> 32), tid = s->key & 0xffffffff;
			char proc[256], name[256], label[600];
			exp_process_name(e, pid, proc, sizeof proc);
			name[0] = '\0';
			if (agent)
				exp_agent_thread_name(e, pid, tid, name, sizeof name);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "pid", (double)pid);
			cJSON_AddStringToObject(o, "process", proc);
			cJSON_AddNumberToObject(o, "tid", (double)tid);
			cJSON_AddStringToObject(o, "name", name);
			cJSON_AddNumberToObject(o, "mean", round3(s->n ? s->total / (double)s->n : 0));
			cJSON_AddNumberToObject(o, "peak", round3(s->peak));
			cJSON_AddNumberToObject(o, "samples", (double)s->n);
			cJSON_AddItemToArray(rows, o);
			if (i < REPORT_THREAD_SERIES) {
				snprintf(label, sizeof label, "%s%s%s %" PRId64 " (%s %" PRId64 ")", name, name[0] ? ", " : "",
					 "tid", tid, proc[0] ? proc : "pid", pid);
				cJSON_AddItemToArray(ser, series_json(s, label));
			}
		}
	}
	collect_release(&c);
	return r;
}

/* --- steps ------------------------------------------------------------------------------ */

/* count, mean, p50, p99, min, max (ms) */
static void step_summary(cJSON *o, const struct exp_agg_steps *s)
{
	cJSON_AddNumberToObject(o, "count", (double)s->n);
	cJSON_AddNumberToObject(o, "mean", round3(s->mean_ns / 1e6));
	cJSON_AddNumberToObject(o, "p50", round3((double)s->p50 / 1e6));
	cJSON_AddNumberToObject(o, "p99", round3((double)s->p99 / 1e6));
	cJSON_AddNumberToObject(o, "min", round3((double)s->min / 1e6));
	cJSON_AddNumberToObject(o, "max", round3((double)s->max / 1e6));
}

static void steps(const struct exp_agg *a, cJSON *root)
{
	const struct exp_agg_steps *s = &a->steps;
	if (!s->n)
		return;
	cJSON *o = cJSON_AddObjectToObject(root, "steps");
	cJSON_AddStringToObject(o, "who", "pid");
	cJSON *sl = cJSON_AddObjectToObject(o, "slowest");
	cJSON_AddNumberToObject(sl, "step", (double)s->id[s->slowest]);
	cJSON_AddNumberToObject(sl, "id", (double)s->pid[s->slowest]);
	cJSON_AddNumberToObject(sl, "ms", round3((double)s->dur[s->slowest] / 1e6));
	cJSON_AddNumberToObject(o, "processes", (double)s->processes);
	/* the points, each the slowest of `group` consecutive steps */
	size_t group = (s->n + REPORT_STEP_POINTS - 1) / REPORT_STEP_POINTS;
	cJSON_AddNumberToObject(o, "group", (double)group);
	cJSON *pts = cJSON_AddArrayToObject(o, "points");
	for (size_t i = 0; i < s->n; i += group) {
		size_t m = i;
		for (size_t j = i; j < s->n && j < i + group; j++)
			if (s->dur[j] > s->dur[m])
				m = j;
		cJSON *p = cJSON_CreateArray();
		cJSON_AddItemToArray(p, cJSON_CreateNumber((double)s->id[m]));
		cJSON_AddItemToArray(p, cJSON_CreateNumber(round3((double)s->dur[m] / 1e6)));
		cJSON_AddItemToArray(p, cJSON_CreateNumber((double)s->pid[m]));
		cJSON_AddItemToArray(pts, p);
	}
	step_summary(o, s);
}

/* --- top ranges ---------------------------------------------------------------------- */

static void ranges(const struct exp_agg *a, cJSON *root)
{
	if (!a->have_ranges)
		return;
	cJSON *o = cJSON_AddObjectToObject(root, "ranges"), *top = cJSON_AddArrayToObject(o, "top");
	for (size_t i = 0; i < a->n_top; i++) {
		const struct exp_agg_range *g = &a->top[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", g->name);
		cJSON_AddStringToObject(t, "domain", g->domain);
		cJSON_AddNumberToObject(t, "count", (double)g->count);
		cJSON_AddNumberToObject(t, "total", round3((double)g->total / 1e6));
		cJSON_AddNumberToObject(t, "min", round3((double)g->min / 1e6));
		cJSON_AddNumberToObject(t, "max", round3((double)g->max / 1e6));
		cJSON_AddItemToArray(top, t);
	}
	cJSON_AddNumberToObject(o, "count", (double)a->range_count);
	cJSON_AddNumberToObject(o, "names", (double)a->range_names);
}

/* --- communication ----------------------------------------------------------------------- */

struct comm_steps {
	cJSON *rows;
	size_t group, i;
	double best[4];      /* the group's step with the most communication */
};

static void comm_step_flush(struct comm_steps *c)
{
	cJSON *p = cJSON_CreateArray();
	for (int k = 0; k < 4; k++)
		cJSON_AddItemToArray(p, cJSON_CreateNumber(k ? round3(c->best[k]) : c->best[k]));
	cJSON_AddItemToArray(c->rows, p);
}

/* step, its span, communication and the part not overlapped (ms), each
 * point the step with the most communication of `group` consecutive ones */
static int comm_step_row(sqlite3_stmt *st, void *ctx)
{
	struct comm_steps *c = ctx;
	double v[4] = { (double)sqlite3_column_int64(st, 0), (double)sqlite3_column_int64(st, 1) / 1e6,
			(double)sqlite3_column_int64(st, 2) / 1e6, (double)sqlite3_column_int64(st, 3) / 1e6 };
	if (c->i % c->group == 0 || v[2] > c->best[2])
		memcpy(c->best, v, sizeof v);
	if (++c->i % c->group == 0)
		comm_step_flush(c);
	return 0;
}

static int comm_steps_count(sqlite3_stmt *st, void *ctx)
{
	*(size_t *)ctx = (size_t)sqlite3_column_int64(st, 0);
	return 1;
}

/* The operations by kind (the aggregate's), their share of the steps'
 * time and what the steps wait for (the overlap analysis), per step. */
static int communication(struct exp *e, const struct exp_agg *a, cJSON *root)
{
	if (!a->comm_ops)
		return 0;
	cJSON *o = cJSON_AddObjectToObject(root, "communication"), *top = cJSON_AddArrayToObject(o, "top");
	cJSON_AddNumberToObject(o, "ops", (double)a->comm_ops);
	for (size_t i = 0; i < a->n_comm_top; i++) {
		const struct exp_agg_comm_op *k = &a->comm_top[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", k->type);
		cJSON_AddNumberToObject(t, "count", (double)k->count);
		cJSON_AddNumberToObject(t, "total", round3((double)k->total_ns / 1e6));
		cJSON_AddNumberToObject(t, "max", round3((double)k->max_ns / 1e6));
		cJSON_AddNumberToObject(t, "bytes", k->bytes);
		cJSON_AddItemToArray(top, t);
	}
	if (!a->have_comm)
		return 0;
	cJSON *sh = cJSON_AddObjectToObject(o, "share");
	cJSON_AddNumberToObject(sh, "comm", round3((double)a->comm_ns / 1e6));
	cJSON_AddNumberToObject(sh, "exposed", round3((double)a->comm_exposed_ns / 1e6));
	cJSON_AddNumberToObject(sh, "span", round3((double)a->comm_span_ns / 1e6));
	/* one row per step: the owners (devices, the host) of one step summed */
	static const char rows[] = "SELECT step, MAX(endNs) - MIN(startNs), CAST(total(communication) AS INTEGER), "
				   "CAST(total(communicationNotOverlapped) AS INTEGER) FROM STEP_TRACE_TIME "
				   "WHERE step IS NOT NULL GROUP BY step, pid ORDER BY MIN(startNs), step";
	size_t n = 0;
	int r = exp_each(e, "SELECT COUNT(*) FROM (SELECT 1 FROM STEP_TRACE_TIME WHERE step IS NOT NULL GROUP BY step, pid)",
			 NULL, comm_steps_count, &n);
	if (r < 0 || n == 0)
		return r < 0 ? r : 0;
	struct comm_steps c = { .rows = cJSON_AddArrayToObject(o, "steps"),
				.group = (n + REPORT_STEP_POINTS - 1) / REPORT_STEP_POINTS };
	cJSON_AddNumberToObject(o, "group", (double)c.group);
	cJSON_AddNumberToObject(o, "step_rows", (double)n);
	r = exp_each(e, rows, NULL, comm_step_row, &c);
	if (r >= 0 && c.i % c.group)
		comm_step_flush(&c);
	return r < 0 ? r : 0;
}

/* --- ranks ------------------------------------------------------------------------------- */

/* This rank's row from its own database, the others' from theirs. */
static int rank_row(cJSON *arr, sqlite3 *db, int64_t rank, const char *dir, const char *host, bool self)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "rank", (double)rank);
	cJSON_AddStringToObject(o, "dir", dir);
	cJSON_AddStringToObject(o, "host", host);
	cJSON_AddBoolToObject(o, "self", self);
	cJSON_AddBoolToObject(o, "db", db != NULL);
	struct exp_agg_steps s = { 0 };
	int r = db ? exp_agg_steps_of(db, &s) : 0;
	if (r >= 0 && s.n)
		step_summary(o, &s);
	else
		cJSON_AddNumberToObject(o, "count", 0);
	exp_agg_steps_release(&s);
	cJSON_AddItemToArray(arr, o);
	return r == -ENOMEM ? r : 0;
}

struct rank_dir {
	int64_t rank;
	bool self;
	char dir[NAME_MAX + 1];
	char host[256];
};

static int cmp_rank_dir(const void *a, const void *b)
{
	const struct rank_dir *x = a, *y = b;
	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	return strcmp(x->dir, y->dir);
}

/* The PROF dirs beside this one with a rank_id in host/info.json, and this
 * one; *ret to free(). */
static int list_ranks(struct exp *e, const char *parent, const char *self, struct rank_dir **ret, size_t *ret_n)
{
	struct rank_dir *v = calloc(REPORT_MAX_RANKS, sizeof *v);
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	v[n] = (struct rank_dir){ .rank = e->rank_id, .self = true };
	snprintf(v[n].dir, sizeof v[n].dir, "%s", self);
	snprintf(v[n].host, sizeof v[n].host, "%s", e->hostname);
	n++;
	DIR *d = opendir(parent);
	struct dirent *de;
	while (d && n < REPORT_MAX_RANKS && (de = readdir(d))) {
		if (!startswith(de->d_name, "PROF_") || streq(de->d_name, self))
			continue;
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s/host/info.json", parent, de->d_name) >= sizeof path)
			continue;
		_cleanup_json_ cJSON *info = NULL;
		if (profdir_read_json(path, &info) < 0)
			continue;
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(info, "rank_id"),
			    *host = cJSON_GetObjectItemCaseSensitive(info, "hostname");
		double rank = cJSON_IsNumber(rk) ? rk->valuedouble :
			      cJSON_IsString(rk) && rk->valuestring ? atof(rk->valuestring) : -1;
		if (!(rank >= 0 && rank <= INT32_MAX))
			continue;
		v[n] = (struct rank_dir){ .rank = (int64_t)rank };
		snprintf(v[n].dir, sizeof v[n].dir, "%s", de->d_name);
		snprintf(v[n].host, sizeof v[n].host, "%s", cJSON_IsString(host) && host->valuestring ? host->valuestring : "");
		n++;
	}
	if (d)
		closedir(d);
	/* readdir's order is no order */
	qsort_safe(v, n, sizeof *v, cmp_rank_dir);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* A distributed job's ranks: each has a PROF dir with a rank_id in its
 * info.json, and they lie side by side (DESIGN.md, "Distributed jobs"). */
static int ranks(struct exp *e, cJSON *root)
{
	if (e->rank_id < 0)
		return 0;
	const char *slash = strrchr(e->prof_dir, '/');
	char parent[PATH_MAX];
	if (slash == e->prof_dir)
		snprintf(parent, sizeof parent, "/");
	else if (slash)
		snprintf(parent, sizeof parent, "%.*s", (int)(slash - e->prof_dir), e->prof_dir);
	else
		snprintf(parent, sizeof parent, ".");
	struct rank_dir *v;
	size_t n;
	int r = list_ranks(e, parent, slash ? slash + 1 : e->prof_dir, &v, &n);
	if (r < 0)
		return r;
	cJSON *arr = cJSON_AddArrayToObject(root, "ranks");
	for (size_t i = 0; i < n && r == 0; i++) {
		char path[PATH_MAX], db_path[PATH_MAX];
		sqlite3 *db = NULL;
		if (!v[i].self && (size_t)snprintf(path, sizeof path, "%s/%s", parent, v[i].dir) < sizeof path &&
		    exp_newest_db(path, db_path, sizeof db_path) &&
		    sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
			sqlite3_close(db);
			db = NULL;
		}
		r = rank_row(arr, v[i].self ? e->db : db, v[i].rank, v[i].dir, v[i].host, v[i].self);
		sqlite3_close(db);
	}
	free(v);
	return r;
}

/* --- losses ------------------------------------------------------------------------------ */

static void losses(const struct exp_agg *a, cJSON *root)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "losses");
	for (size_t i = 0; i < a->n_losses; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "count", (double)a->losses[i].count);
		cJSON_AddStringToObject(o, "what", a->losses[i].what);
		cJSON_AddBoolToObject(o, "loss", a->losses[i].loss);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < a->n_notes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(a->notes[i]));
}

/* --- the page ----------------------------------------------------------------------------- */

/* The application as it was run: the command line its agent recorded
 * (AGENT_PROCESS), cut to fit with "..." at the end; "" without one (the
 * caller takes its name, the 15-character comm). */
static void app_command(struct exp *e, char *buf, size_t size)
{
	sqlite3_stmt *st;
	buf[0] = '\0';
	/* no AGENT_PROCESS (a database of host data only): no command line */
	if (sqlite3_prepare_v2(e->db, "SELECT cmdline FROM AGENT_PROCESS WHERE pid = ? AND cmdline <> '' "
				      "ORDER BY startNs DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, e->app_pid);
	const unsigned char *c;
	if (sqlite3_step(st) == SQLITE_ROW && (c = sqlite3_column_text(st, 0))) {
		size_t n = strlen((const char *)c);
		if (n < size) {
			memcpy(buf, c, n + 1);
		} else {
			size_t k = size - 4;
			while (k && (c[k] & 0xC0) == 0x80)
				k--; /* not inside a UTF-8 character */
			snprintf(buf, size, "%.*s...", (int)k, (const char *)c);
		}
	}
	sqlite3_finalize(st);
}

static void meta(struct exp *e, const struct span *sp, cJSON *root)
{
	cJSON *m = cJSON_AddObjectToObject(root, "meta");
	const char *slash = strrchr(e->prof_dir, '/');
	cJSON_AddStringToObject(m, "prof", slash && slash[1] ? slash + 1 : e->prof_dir);
	char real[PATH_MAX];
	cJSON_AddStringToObject(m, "path", realpath(e->prof_dir, real) ? real : e->prof_dir);
	cJSON_AddStringToObject(m, "host", e->hostname);
	cJSON_AddNumberToObject(m, "start_ns", (double)sp->t0);
	cJSON_AddNumberToObject(m, "end_ns", (double)sp->end);
	cJSON_AddNumberToObject(m, "cpus", e->cpu_nums);
	cJSON_AddNumberToObject(m, "mem_total_kb", (double)e->mem_total_kb);
	cJSON_AddNumberToObject(m, "rank", (double)e->rank_id);
	cJSON_AddBoolToObject(m, "system_only", e->system_only);
	cJSON_AddBoolToObject(m, "selected", e->selected);
	if (e->flight.on) {
		cJSON *d = cJSON_AddObjectToObject(m, "dump");
		cJSON_AddStringToObject(d, "trigger", e->flight.trigger);
		cJSON_AddStringToObject(d, "detail", e->flight.detail);
		cJSON_AddNumberToObject(d, "span_s", (double)e->flight.span_s);
	}
	char app[300] = "";
	if (e->app_pid) {
		char name[256];
		app_command(e, name, sizeof name);
		if (!name[0])
			exp_process_name(e, e->app_pid, name, sizeof name);
		snprintf(app, sizeof app, "%s (pid %" PRIu32 ")", name[0] ? name : "?", e->app_pid);
	}
	cJSON_AddStringToObject(m, "app", app);
	/* e->ts: YYYYMMDDhhmmss, local time */
	char when[48];
	snprintf(when, sizeof when, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s (local time)", e->ts, e->ts + 4, e->ts + 6, e->ts + 8,
		 e->ts + 10, e->ts + 12);
	cJSON_AddStringToObject(m, "exported", when);
}

/* The JSON inside a <script> element: "</script>" in a string must not
 * end it, and '<' stands only inside strings in JSON. */
static void put_json(FILE *f, const char *s)
{
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "<");
		fwrite(p, 1, n, f);
		p += n;
		if (*p == '<') {
			fputs("\\u003c", f);
			p++;
		}
	}
}

int exp_write_report(struct exp *e, const char *dir, const struct exp_agg *a)
{
	exp_progress(e, "report", 0, 0);
	struct span sp = { .t0 = a->t0, .end = a->end };
	int r;
	if (sp.end <= sp.t0)
		sp.end = sp.t0 + 1;
	sp.bucket_ns = (sp.end - sp.t0 + REPORT_BUCKETS - 1) / REPORT_BUCKETS;

	_cleanup_json_ cJSON *root = cJSON_CreateObject();
	if (!root)
		return -ENOMEM;
	struct exp_strings *strs = NULL;
	if ((r = exp_strings_new(e, &strs)) < 0)
		return r;
	meta(e, &sp, root);
	r = timeline(e, strs, &sp, root);
	exp_strings_free(strs);
	steps(a, root);
	ranges(a, root);
	if (r == 0)
		r = communication(e, a, root);
	if (r == 0)
		r = threads(e, &sp, root);
	if (r == 0)
		r = ranks(e, root);
	losses(a, root);
	if (r < 0)
		return r;
	_cleanup_free_ char *json = cJSON_PrintUnformatted(root);
	if (!json)
		return -ENOMEM;

	const char *mark = strstr(report_page, REPORT_DATA_MARK);
	struct exp_out o;
	if ((r = exp_out_open(&o, dir, EXPORT_REPORT_FILE)) < 0) {
		exp_note(e, "cannot write '%s/%s': %s", dir, EXPORT_REPORT_FILE, strerror(-r));
		return r;
	}
	fwrite(report_page, 1, (size_t)(mark - report_page), o.f);
	put_json(o.f, json);
	fputs(mark + strlen(REPORT_DATA_MARK), o.f);
	/* not one of msprof's deliverables: README.txt does not list it and
	 * files_written does not count it, as README.txt itself */
	unsigned before = e->n_written;
	r = exp_out_commit(e, &o);
	e->n_written = before;
	return r;
}
