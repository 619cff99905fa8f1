/* exp_aggregate: one pass over the tables a person looks at first, kept as
 * C structs so that report.c and summary.c render the same numbers. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/aggregate.h"
#include "export/domain-comm.h"
#include "export/db.h"
#include "export/domain-agents.h"
#include "export/domain-host-summary.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "collectors/steps.h"
#include "common/util.h"

/* --- the key map ----------------------------------------------------------------- */

static uint64_t khash(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;
	return h ^ (h >> 29);
}

static int kmap_grow(struct exp_kmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	int64_t *keys = calloc(cap * 2, sizeof *keys);
	uint32_t *idx = calloc(cap, sizeof *idx);
	if (!keys || !idx) {
		free(keys);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->idx[i])
			continue;
		size_t j = khash(m->keys[2 * i], m->keys[2 * i + 1]) & (cap - 1);
		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = m->idx[i];
		keys[2 * j] = m->keys[2 * i];
		keys[2 * j + 1] = m->keys[2 * i + 1];
	}
	free(m->keys);
	free(m->idx);
	m->keys = keys;
	m->idx = idx;
	m->cap = cap;
	return 0;
}

int64_t exp_kmap_get(struct exp_kmap *m, int64_t a, int64_t b, bool *ret_new)
{
	if ((m->n + 1) * 2 > m->cap && kmap_grow(m) < 0)
		return -ENOMEM;
	size_t j = khash(a, b) & (m->cap - 1);
	while (m->idx[j]) {
		if (m->keys[2 * j] == a && m->keys[2 * j + 1] == b) {
			*ret_new = false;
			return m->idx[j] - 1;
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[2 * j] = a;
	m->keys[2 * j + 1] = b;
	m->idx[j] = (uint32_t)++m->n;
	*ret_new = true;
	return (int64_t)m->n - 1;
}

void exp_kmap_release(struct exp_kmap *m)
{
	free(m->keys);
	free(m->idx);
	*m = (struct exp_kmap){ 0 };
}

/* Room for one more in *v of *cap elements of size each. */
static int grow(void **v, size_t n, size_t *cap, size_t each)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *nv = realloc(*v, c * each);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* --- steps -------------------------------------------------------------------------- */

static int step_row(sqlite3_stmt *st, void *ctx)
{
	struct exp_agg_steps *s = ctx;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		int64_t *d = realloc(s->dur, cap * sizeof *d);
		if (d)
			s->dur = d;
		int64_t *i = realloc(s->id, cap * sizeof *i);
		if (i)
			s->id = i;
		int64_t *p = realloc(s->pid, cap * sizeof *p);
		if (p)
			s->pid = p;
		if (!d || !i || !p)
			return -ENOMEM;
		s->cap = cap;
	}
	s->id[s->n] = sqlite3_column_int64(st, 0);
	s->dur[s->n] = sqlite3_column_int64(st, 1);
	s->pid[s->n] = sqlite3_column_int64(st, 2);
	s->n++;
	return 0;
}

void exp_agg_steps_release(struct exp_agg_steps *s)
{
	free(s->dur);
	free(s->id);
	free(s->pid);
	*s = (struct exp_agg_steps){ 0 };
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The figures of s's durations, which stay in start order. */
static int step_figures(struct exp_agg_steps *s)
{
	if (!s->n)
		return 0;
	int64_t *v = malloc(s->n * sizeof *v);
	if (!v)
		return -ENOMEM;
	double sum = 0;
	for (size_t i = 0; i < s->n; i++) {
		sum += (double)s->dur[i];
		if (s->dur[i] > s->dur[s->slowest])
			s->slowest = i;
	}
	memcpy(v, s->dur, s->n * sizeof *v);
	qsort_safe(v, s->n, sizeof *v, cmp_i64);
	size_t p50 = (s->n * 50 + 99) / 100, p99 = (s->n * 99 + 99) / 100;
	s->mean_ns = sum / (double)s->n;
	s->p50 = v[p50 ? p50 - 1 : 0];
	s->p99 = v[p99 ? p99 - 1 : 0];
	s->min = v[0];
	s->max = v[s->n - 1];
	memcpy(v, s->pid, s->n * sizeof *v);
	qsort_safe(v, s->n, sizeof *v, cmp_i64);
	for (size_t i = 0; i < s->n; i++)
		s->processes += !i || v[i] != v[i - 1];
	free(v);
	return 0;
}

static const char step_sql[] = "SELECT stepId, endNs - startNs, pid FROM STEP ORDER BY startNs, pid, stepId";

int exp_agg_steps_of(sqlite3 *db, struct exp_agg_steps *ret)
{
	*ret = (struct exp_agg_steps){ 0 };
	int r = db_each(db, step_sql, NULL, step_row, ret);
	if (r < 0)
		return r;
	return step_figures(ret);
}

/* --- ranges -------------------------------------------------------------------------- */

int exp_agg_range_add(struct exp_agg_range_sums *g, int64_t msg, int64_t dom, int64_t d)
{
	bool fresh;
	int64_t i = exp_kmap_get(&g->map, msg, dom, &fresh);
	if (i < 0)
		return (int)i;
	if (fresh) {
		if (grow((void **)&g->v, g->n, &g->cap, sizeof *g->v) < 0)
			return -ENOMEM;
		g->v[g->n++] = (struct exp_agg_range_sum){ .msg = msg, .dom = dom, .min = d, .max = d };
	}
	struct exp_agg_range_sum *a = &g->v[i];
	a->count++;
	a->total += d;
	if (d < a->min)
		a->min = d;
	if (d > a->max)
		a->max = d;
	return 0;
}

void exp_agg_range_sums_release(struct exp_agg_range_sums *g)
{
	exp_kmap_release(&g->map);
	free(g->v);
	*g = (struct exp_agg_range_sums){ 0 };
}

static int range_row(sqlite3_stmt *st, void *ctx)
{
	return exp_agg_range_add(ctx, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
				 sqlite3_column_int64(st, 2));
}

static int cmp_range_total(const void *a, const void *b)
{
	const struct exp_agg_range_sum *x = a, *y = b;
	if (x->total != y->total)
		return (x->total < y->total) - (x->total > y->total);
	if (x->msg != y->msg)
		return (x->msg > y->msg) - (x->msg < y->msg);
	return (x->dom > y->dom) - (x->dom < y->dom);
}

static int ranges(struct exp *e, struct exp_agg *a)
{
	if (!exp_table_has_rows(e, "MSTX_EVENTS"))
		return 0;
	struct exp_agg_range_sums own = { 0 }, *g = e->agg_ranges;
	struct exp_strings *strs = NULL;
	int r = 1;
	if (!g || !g->complete) {
		g = &own;
		r = exp_each(e, "SELECT message, domainId, endNs - startNs FROM MSTX_EVENTS WHERE " EXP_AGG_RANGE_SQL,
			     NULL, range_row, g);
	}
	if (r > 0 && g->n)
		r = exp_strings_new(e, &strs);
	if (r >= 0 && g->n) {
		a->have_ranges = true;
		qsort_safe(g->v, g->n, sizeof *g->v, cmp_range_total);
		for (size_t i = 0; i < g->n; i++) {
			char name[RAW_AGENT_MAX_STR + 1];
			uint64_t step;
			exp_strings_copy(strs, g->v[i].msg, name, sizeof name);
			if (step_parse(name, strlen(name), &step))
				continue;
			/* the communication domain's ranges are operations:
			 * COMMUNICATION_OP and the summaries' own part */
			char dom[64];
			exp_strings_copy(strs, g->v[i].dom, dom, sizeof dom);
			if (streq(dom, EXP_COMM_MSTX_DOMAIN))
				continue;
			a->range_count += g->v[i].count;
			a->range_names++;
			if (a->n_top == EXP_AGG_TOP_RANGES)
				continue;
			struct exp_agg_range *t = &a->top[a->n_top++];
			snprintf(t->name, sizeof t->name, "%s", name);
			exp_strings_copy(strs, g->v[i].dom, t->domain, sizeof t->domain);
			t->count = g->v[i].count;
			t->total = g->v[i].total;
			t->min = g->v[i].min;
			t->max = g->v[i].max;
		}
	}
	exp_strings_free(strs);
	exp_agg_range_sums_release(&own);
	return r < 0 ? r : 0;
}

void exp_process_name(struct exp *e, int64_t pid, char *buf, size_t size)
{
	sqlite3_stmt *st;
	buf[0] = '\0';
	if (exp_prepare(e, "SELECT " EXP_NAME_OF_PID " FROM (SELECT ? AS pid) u", &st) < 0)
		return;
	sqlite3_bind_int64(st, 1, pid);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* --- processes ------------------------------------------------------------------------ */

struct procs {
	struct exp_agg *a;
	struct exp_kmap map;
	size_t cap;
	int64_t *last_ts;            /* per process: the sample being summed */
	double *sum;
	size_t aux_cap;
	uint32_t page_size;
	double cpu_max;              /* 100 x the host's CPUs (0: unknown) */
};

static int proc_of(struct procs *p, int64_t pid, struct exp_agg_proc **ret)
{
	bool fresh;
	int64_t i = exp_kmap_get(&p->map, pid, 0, &fresh);
	if (i < 0)
		return (int)i;
	if (fresh) {
		struct exp_agg *a = p->a;
		size_t cap = p->cap, aux = p->aux_cap;
		if (grow((void **)&a->procs, a->n_procs, &cap, sizeof *a->procs) < 0 ||
		    grow((void **)&p->last_ts, a->n_procs, &aux, sizeof *p->last_ts) < 0)
			return -ENOMEM;
		p->cap = cap;
		if (aux != p->aux_cap) {
			double *s = realloc(p->sum, aux * sizeof *s);
			if (!s)
				return -ENOMEM;
			p->sum = s;
			p->aux_cap = aux;
		}
		a->procs[a->n_procs] = (struct exp_agg_proc){ .pid = pid };
		p->last_ts[a->n_procs] = INT64_MIN;
		p->sum[a->n_procs] = 0;
		a->n_procs++;
	}
	*ret = &p->a->procs[i];
	return (int)i;
}

static void proc_sample_end(struct procs *p, size_t i)
{
	struct exp_agg_proc *q = &p->a->procs[i];
	if (p->last_ts[i] == INT64_MIN)
		return;
	/* Each thread's share is of the time its own counters span (the
	 * sampler stamps every read); threads read a little apart in one
	 * sample can add up past what the CPUs can do together by that
	 * misalignment: a process is at most every CPU busy. */
	double v = p->cpu_max > 0 ? fmin(p->sum[i], p->cpu_max) : p->sum[i];
	if (!q->cpu_samples || v > q->cpu_peak)
		q->cpu_peak = v;
	q->cpu_mean += v;            /* a sum until the scan ends */
	q->cpu_samples++;
}

/* A process's CPU in one sample is the sum of its threads' rows of that
 * timestamp: the sampler writes a sample's rows together, so a new
 * timestamp closes the process's previous sample. */
static int thread_cpu_row(sqlite3_stmt *st, void *ctx)
{
	struct procs *p = ctx;
	struct exp_agg_proc *q;
	int i = proc_of(p, sqlite3_column_int64(st, 0), &q);
	if (i < 0)
		return i;
	int64_t ts = sqlite3_column_int64(st, 1);
	if (ts != p->last_ts[i]) {
		proc_sample_end(p, (size_t)i);
		p->last_ts[i] = ts;
		p->sum[i] = 0;
	}
	double v = sqlite3_column_double(st, 2);
	if (isfinite(v))
		p->sum[i] += v;
	return 0;
}

static int proc_mem_row(sqlite3_stmt *st, void *ctx)
{
	struct procs *p = ctx;
	struct exp_agg_proc *q;
	int i = proc_of(p, sqlite3_column_int64(st, 0), &q);
	if (i < 0)
		return i;
	int64_t pages = sqlite3_column_int64(st, 1);
	uint64_t bytes = pages > 0 ? (uint64_t)pages * p->page_size : 0;
	if (bytes > q->rss_peak_bytes)
		q->rss_peak_bytes = bytes;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct exp_agg_proc *x = a, *y = b;
	if (x->cpu_peak != y->cpu_peak)
		return (x->cpu_peak < y->cpu_peak) - (x->cpu_peak > y->cpu_peak);
	if (x->rss_peak_bytes != y->rss_peak_bytes)
		return (x->rss_peak_bytes < y->rss_peak_bytes) - (x->rss_peak_bytes > y->rss_peak_bytes);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int procs(struct exp *e, struct exp_agg *a)
{
	struct procs p = { .a = a, .page_size = e->page_size ? e->page_size : 4096, .cpu_max = 100.0 * e->cpu_nums };
	int r = 0;
	if (exp_table_has_rows(e, "TARGET_THREAD_CPU_USAGE"))
		r = exp_each(e, "SELECT pid, timestampNs, usage FROM TARGET_THREAD_CPU_USAGE", NULL, thread_cpu_row, &p);
	for (size_t i = 0; r >= 0 && i < a->n_procs; i++) {
		proc_sample_end(&p, i);
		if (a->procs[i].cpu_samples)
			a->procs[i].cpu_mean /= (double)a->procs[i].cpu_samples;
	}
	if (r >= 0 && exp_table_has_rows(e, "TARGET_PROCESS_MEM"))
		r = exp_each(e, "SELECT pid, residentPages FROM TARGET_PROCESS_MEM", NULL, proc_mem_row, &p);
	exp_kmap_release(&p.map);
	free(p.last_ts);
	free(p.sum);
	if (r < 0)
		return r;
	if (a->n_procs) /* (none: no array, and qsort's must not be NULL) */
		qsort_safe(a->procs, a->n_procs, sizeof *a->procs, cmp_proc);
	for (size_t i = 0; i < a->n_procs; i++)
		exp_process_name(e, a->procs[i].pid, a->procs[i].name, sizeof a->procs[i].name);
	return 0;
}

/* --- devices and communication ------------------------------------------------------------- */

struct devices {
	struct exp_agg *a;
	struct exp_kmap map;
	size_t cap;
};

static int device_row(sqlite3_stmt *st, void *ctx)
{
	struct devices *d = ctx;
	if (sqlite3_column_type(st, 1) == SQLITE_NULL)
		return 0;
	bool fresh;
	int64_t i = exp_kmap_get(&d->map, sqlite3_column_int64(st, 0), 0, &fresh);
	if (i < 0)
		return (int)i;
	if (fresh) {
		if (grow((void **)&d->a->devices, d->a->n_devices, &d->cap, sizeof *d->a->devices) < 0)
			return -ENOMEM;
		d->a->devices[d->a->n_devices++] = (struct exp_agg_device){ .id = sqlite3_column_int64(st, 0) };
	}
	struct exp_agg_device *v = &d->a->devices[i];
	double u = sqlite3_column_double(st, 1);
	if (!v->samples || u > v->util_peak)
		v->util_peak = u;
	v->util_mean += u;
	v->samples++;
	return 0;
}

static int cmp_device(const void *a, const void *b)
{
	const struct exp_agg_device *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int devices(struct exp *e, struct exp_agg *a)
{
	if (!exp_table_has_rows(e, "GPU_SAMPLE"))
		return 0;
	struct devices d = { .a = a };
	int r = exp_each(e, "SELECT deviceId, gpuUtil FROM GPU_SAMPLE", NULL, device_row, &d);
	exp_kmap_release(&d.map);
	for (size_t i = 0; i < a->n_devices; i++)
		a->devices[i].util_mean /= (double)a->devices[i].samples;
	qsort_safe(a->devices, a->n_devices, sizeof *a->devices, cmp_device);
	return r < 0 ? r : 0;
}

static int comm_row(sqlite3_stmt *st, void *ctx)
{
	struct exp_agg *a = ctx;
	a->comm_ns = sqlite3_column_int64(st, 0);
	a->comm_span_ns = sqlite3_column_int64(st, 1);
	a->comm_exposed_ns = sqlite3_column_int64(st, 2);
	a->have_comm = a->comm_ns > 0 && a->comm_span_ns > 0;
	return 1;
}

static int comm_op_row(sqlite3_stmt *st, void *ctx)
{
	struct exp_agg *a = ctx;
	if (a->n_comm_top >= EXP_AGG_COMM_TOP)
		return 1;
	struct exp_agg_comm_op *o = &a->comm_top[a->n_comm_top++];
	const char *type = (const char *)sqlite3_column_text(st, 0);
	snprintf(o->type, sizeof o->type, "%s", type ? type : "?");
	o->count = (uint64_t)sqlite3_column_int64(st, 1);
	o->total_ns = sqlite3_column_int64(st, 2);
	o->max_ns = sqlite3_column_int64(st, 3);
	o->bytes = sqlite3_column_double(st, 4);
	return 0;
}

static int comm_count_row(sqlite3_stmt *st, void *ctx)
{
	*(uint64_t *)ctx = (uint64_t)sqlite3_column_int64(st, 0);
	return 1;
}

/* The overlap analysis's communication over the spans it covers (its
 * steps, or the whole collection), every device's rows together; and the
 * operations themselves by kind: ENUM_HCCL_DATA_TYPE's sizes (N/A and
 * the invalid type: no bytes). */
static int communication(struct exp *e, struct exp_agg *a)
{
	int r = 0;
	if (exp_table_has_rows(e, "STEP_TRACE_TIME"))
		r = exp_each(e, "SELECT CAST(total(communication) AS INTEGER), CAST(total(endNs - startNs) AS INTEGER), "
				"CAST(total(communicationNotOverlapped) AS INTEGER) FROM STEP_TRACE_TIME",
			     NULL, comm_row, a);
	if (r >= 0 && exp_table_has_rows(e, "COMMUNICATION_OP"))
		r = exp_each(e, "SELECT COUNT(*) FROM COMMUNICATION_OP", NULL, comm_count_row, &a->comm_ops);
	if (r >= 0 && a->comm_ops)
		r = exp_each(e, "SELECT s.value, COUNT(*), total(MAX(o.endNs - o.startNs, 0)), MAX(o.endNs - o.startNs), "
				"total(o.count * CASE o.dataType WHEN 0 THEN 1 WHEN 7 THEN 1 WHEN 1 THEN 2 WHEN 3 THEN 2 "
				"WHEN 8 THEN 2 WHEN 11 THEN 2 WHEN 2 THEN 4 WHEN 4 THEN 4 WHEN 9 THEN 4 WHEN 5 THEN 8 "
				"WHEN 6 THEN 8 WHEN 10 THEN 8 WHEN 12 THEN 16 ELSE 0 END) "
				"FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.opType GROUP BY o.opType "
				"ORDER BY 3 DESC, 1", NULL, comm_op_row, a);
	return r < 0 ? r : 0;
}

/* --- losses ---------------------------------------------------------------------------- */

static int loss(struct exp_agg *a, size_t *cap, uint64_t count, bool is_loss, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int loss(struct exp_agg *a, size_t *cap, uint64_t count, bool is_loss, const char *fmt, ...)
{
	if (!count)
		return 0;
	if (grow((void **)&a->losses, a->n_losses, cap, sizeof *a->losses) < 0)
		return -ENOMEM;
	struct exp_agg_loss *l = &a->losses[a->n_losses++];
	l->count = count;
	l->loss = is_loss;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->what, sizeof l->what, fmt, ap);
	va_end(ap);
	return 0;
}

/* AGENT_COUNTERS's columns summed over the processes, in this order. */
enum {
	AC_DROPPED, AC_CAUSES, AC_BAD = AC_CAUSES + EXP_DROP_CAUSES, AC_TRUNCATED, AC_OPEN, AC_NOSTART, AC_OVERFLOW,
	AC_FILTERED, AC_GPU_LOST, AC_GPU_UNTIMED, AC_GPU_BAD, _AC_MAX
};

static int counters_row(sqlite3_stmt *st, void *ctx)
{
	uint64_t *v = ctx;
	for (int i = 0; i < _AC_MAX; i++)
		v[i] = (uint64_t)sqlite3_column_int64(st, i);
	return 1;
}

struct sampler_ctx {
	struct exp_agg *a;
	size_t *cap;
};

static int sampler_row(sqlite3_stmt *st, void *ctx)
{
	struct sampler_ctx *c = ctx;
	const char *src = (const char *)sqlite3_column_text(st, 0);
	return loss(c->a, c->cap, (uint64_t)sqlite3_column_int64(st, 2), true,
		    "of %" PRId64 " tick(s) of msprofd's '%s' sampler missed: it could not keep to the rate (the "
		    "intervals around them are longer)", (int64_t)sqlite3_column_int64(st, 1), src ? src : "?");
}

static int losses(struct exp *e, struct exp_agg *a)
{
	size_t cap = 0;
	int r = 0;
	if (exp_table_has_rows(e, "AGENT_COUNTERS")) {
		uint64_t v[_AC_MAX] = { 0 };
		r = exp_each(e, "SELECT total(dropped), total(droppedFull), total(droppedNested), total(droppedNoBuffer), "
				"total(droppedUnopened), total(droppedUnwritten), total(badCalls), total(truncated), "
				"total(openAtEnd), total(endWithoutStart), total(matchOverflow), total(filtered), "
				"total(gpuLost), total(gpuUntimed), total(gpuBad) FROM AGENT_COUNTERS",
			     NULL, counters_row, v);
		uint64_t caused = 0;
		for (int i = 0; i < EXP_DROP_CAUSES && r >= 0; i++) {
			r = loss(a, &cap, v[AC_CAUSES + i], true, "event(s) dropped by the agents %s",
				 exp_drop_cause_text[i]);
			caused += v[AC_CAUSES + i];
		}
		if (r >= 0 && v[AC_DROPPED] > caused)
			r = loss(a, &cap, v[AC_DROPPED] - caused, true, "event(s) dropped by an older agent, cause not recorded");
		if (r >= 0)
			r = loss(a, &cap, v[AC_BAD], true, "bad mstx call(s) ignored (NULL message, unknown range id, pop "
				 "without push, destroyed domain)");
		if (r >= 0)
			r = loss(a, &cap, v[AC_TRUNCATED], true, "mstx message(s) cut to %d bytes", RAW_AGENT_MAX_STR);
		if (r >= 0)
			r = e->flight.on ? loss(a, &cap, v[AC_OPEN], false, "range(s) still open at the dump: they end "
						"at its end") :
					   loss(a, &cap, v[AC_OPEN], true, "range(s) never ended: they end at the session end");
		if (r >= 0)
			r = loss(a, &cap, v[AC_NOSTART], true, "range end(s) without a start left out");
		if (r >= 0)
			r = loss(a, &cap, v[AC_OVERFLOW], true, "range(s) beyond the limit of ranges open at once could "
				 "not be matched");
		if (r >= 0)
			r = loss(a, &cap, v[AC_FILTERED], false, "annotation(s) left out as asked "
				 "(--mstx-domain-include/exclude)");
		if (r >= 0)
			r = loss(a, &cap, v[AC_GPU_LOST], true, "device record(s) lost: the agent's queue of CUPTI records "
				 "was full");
		if (r >= 0)
			r = loss(a, &cap, v[AC_GPU_UNTIMED], true, "device task(s), call(s) or wait(s) without an end time "
				 "(still running at the stop) left out");
		if (r >= 0)
			r = loss(a, &cap, v[AC_GPU_BAD], true, "CUPTI record(s) with impossible values left out");
	}
	/* a flight recorder's dump: what its ring had let go before it */
	for (unsigned i = 0; r >= 0 && i < e->flight.n_overwritten; i++)
		r = loss(a, &cap, e->flight.overwritten[i].records, false,
			 "%s overwritten in the flight recorder's ring before this dump (the whole job's on this host, "
			 "older than its span or past its size)", raw_type_noun(e->flight.overwritten[i].type));
	if (r >= 0 && e->flight.on)
		r = loss(a, &cap, e->flight.refused_writes, true, "write(s) refused by the flight recorder's ring (every "
			 "slice left was the newest of its writer)");
	if (r >= 0 && exp_table_has_rows(e, "SAMPLER_TICKS"))
		r = exp_each(e, "SELECT source, taken, missed FROM SAMPLER_TICKS WHERE missed > 0 ORDER BY source", NULL,
			     sampler_row, &(struct sampler_ctx){ a, &cap });
	if (r < 0)
		return r;
	/* the export's own notes, this run's: parse problems when it parsed,
	 * what --storage-limit deleted on every run; the report's message
	 * holds them "; "-separated (exp.c) */
	size_t ncap = 0;
	exp_lock(e);
	for (const char *m = e->rep->message; *m && r == 0;) {
		const char *end = strstr(m, "; ");
		size_t len = end ? (size_t)(end - m) : strlen(m);
		char *one = strndup(m, len);
		if (!one || grow((void **)&a->notes, a->n_notes, &ncap, sizeof *a->notes) < 0) {
			free(one);
			r = -ENOMEM;
		} else {
			a->notes[a->n_notes++] = one;
		}
		m += len + (end ? 2 : 0);
	}
	exp_unlock(e);
	return r;
}

/* --- the whole ----------------------------------------------------------------------------- */

static int session_row(sqlite3_stmt *st, void *ctx)
{
	struct exp_agg *a = ctx;
	a->t0 = sqlite3_column_int64(st, 0);
	a->end = sqlite3_column_int64(st, 1);
	return 1;
}

int exp_aggregate(struct exp *e, struct exp_agg *ret)
{
	struct exp_agg *a = ret;
	*a = (struct exp_agg){ 0 };
	int r = exp_each(e, "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO", NULL, session_row, a);
	if (r >= 0 && exp_table_has_rows(e, "STEP")) {
		r = exp_each(e, step_sql, NULL, step_row, &a->steps);
		if (r >= 0)
			r = step_figures(&a->steps);
	}
	if (r >= 0)
		r = ranges(e, a);
	if (r >= 0)
		r = procs(e, a);
	if (r >= 0)
		r = devices(e, a);
	if (r >= 0)
		r = communication(e, a);
	if (r >= 0)
		r = losses(e, a);
	return r < 0 ? r : 0;
}

void exp_agg_release(struct exp_agg *a)
{
	exp_agg_steps_release(&a->steps);
	free(a->procs);
	free(a->devices);
	free(a->losses);
	for (size_t i = 0; i < a->n_notes; i++)
		free(a->notes[i]);
	free(a->notes);
	*a = (struct exp_agg){ 0 };
}
