/* Device tasks -> op_summary, op_statistic, task_time, api_statistic
 * (reference §3) and the Ascend Hardware / CANN timeline layers with their
 * HostToDevice flows (§4, §9).  Read from TASK, COMPUTE_TASK_INFO,
 * CANN_API (msprof's tables) joined with GPU_TASK for what CUDA adds. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/gputask.h"
#include "export/aggregate.h"
#include "export/buf.h"
#include "export/domain-tasks.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

static const char *const copy_names[] = { "Memcpy Unknown", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
					  "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
					  "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP" };

static const char *col_text(sqlite3_stmt *st, int i, const char *dflt)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : dflt;
}

/* The indexes the outputs read tasks and calls in, made once at build
 * time instead of a sort of a million rows at each export:
 * TaskStreamIndex, the Ascend Hardware layer's (device, stream, start);
 * CannApiThreadIndex, the CANN layer's (thread, start). */
int exp_index_gpu_tasks(struct exp *e)
{
	int r = 0;
	if (exp_table_has_rows(e, "TASK"))
		r = exp_exec(e, "CREATE INDEX TaskStreamIndex ON TASK (deviceId, streamId, startNs)");
	if (r == 0 && exp_table_has_rows(e, "CANN_API"))
		r = exp_exec(e, "CREATE INDEX CannApiThreadIndex ON CANN_API (globalTid & 4294967295, startNs)");
	return r;
}

/* --- summaries ------------------------------------------------------------------ */

/* op_summary, op_statistic and task_time come from one pass over the tasks
 * in start order (index TaskIndex: no sort), names by id through
 * exp_strings caches instead of joins to STRING_IDS per row:
 *   task_time   every task;
 *   op_summary  the kernels, with Task Wait Time: since the previous task
 *               (of any kind, in start order) on the same stream of the same
 *               process and device ended; 0 for the first and for overlaps;
 *   op_statistic per device and kernel type (opType): count, total, min,
 *               max, summed here, written at the end longest total first,
 *               each total's share of its device's kernel time. */
enum { S_DEV, S_STREAM, S_TASKID, S_START, S_END, S_KIND, S_NAME, S_OPTYPE, S_BLOCKS, S_THREADS, S_COPY, S_TYPE,
       S_PID, S_INFO, S_STATE };

/* GPU_TASK (kind, copy kind, bytes) is read only for what is not a
 * kernel: a task's kind is its type (TASK.taskType, KERNEL, MEMCPY or
 * MEMSET, one to one with GPU_TASK.kind), and a kernel has all the rest in
 * COMPUTE_TASK_INFO; GPU_TASK's rows, with their mangled names, are the
 * largest of the tables read. */
#define NOT_KERNEL(kernels) ((kernels) ? "CASE WHEN c.globalTaskId IS NULL THEN " : "(")
/* A kernel's name: COMPUTE_TASK_INFO's, or COMMUNICATION_TASK_INFO's for a
 * communication kernel (NCCL's), which domain-comm.c moves there as msprof
 * keeps its communication tasks out of COMPUTE_TASK_INFO; looked up only
 * for tasks without the first (CommTaskIndex). */
#define KERNEL_NAME                                                            \
	"coalesce(c.name, (SELECT m.name FROM COMMUNICATION_TASK_INFO m "      \
	"WHERE m.globalTaskId = t.globalTaskId))"

/* Whether any task is a kernel with a name: the outputs join its info. */
static bool have_kernels(struct exp *e)
{
	return exp_table_has_rows(e, "COMPUTE_TASK_INFO") || exp_table_has_rows(e, "COMMUNICATION_TASK_INFO");
}
#define NOT_KERNEL_END(kernels) ((kernels) ? " END" : ")")

static char *pass_sql(bool kernels)
{
	char *sql = NULL;
	if (asprintf(&sql,
		     "SELECT t.deviceId, t.streamId, t.taskId, t.startNs, t.endNs, NULL, %s, "
		     "%s(SELECT copyKind FROM main.GPU_TASK g WHERE g.rowid = t.globalTaskId)%s, t.taskType, "
		     "t.globalPid, %s, %s FROM TASK t %s ORDER BY t.startNs",
		     kernels ? KERNEL_NAME ", c.opType, c.blockNum, c.mixBlockNum" : "NULL, NULL, NULL, NULL",
		     NOT_KERNEL(kernels), NOT_KERNEL_END(kernels), kernels ? "c.globalTaskId IS NOT NULL" : "0",
		     kernels ? "c.opState" : "NULL",
		     kernels ? "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId" : "") < 0)
		return NULL;
	return sql;
}

/* GPU_TASK.kind from the task's type */
static int64_t type_kind(const char *type, size_t len)
{
	if (len == 6 && memcmp(type, "KERNEL", 6) == 0)
		return GPU_TASK_KERNEL;
	if (len == 6 && memcmp(type, "MEMCPY", 6) == 0)
		return GPU_TASK_MEMCPY;
	return GPU_TASK_MEMSET;
}

/* A task's name: a copy's by its kind, "Memset", or a kernel's by its id
 * in column col ("" without one, or without the id in STRING_IDS). */
static int task_name(sqlite3_stmt *st, int col, int64_t kind, int64_t copy, struct exp_strings *names,
		     const char **ret, size_t *ret_len)
{
	if (kind == GPU_TASK_MEMCPY) {
		*ret = copy >= 0 && copy < (int64_t)ARRAY_SIZE(copy_names) ? copy_names[copy] : "Memcpy";
		*ret_len = strlen(*ret);
	} else if (kind == GPU_TASK_MEMSET) {
		*ret = "Memset", *ret_len = 6;
	} else if (sqlite3_column_type(st, col) != SQLITE_NULL) {
		int r = exp_strings_get(names, sqlite3_column_int64(st, col), ret, ret_len);
		if (r < 0)
			return r;
		if (r == 0)
			*ret = "", *ret_len = 0;
	}
	return 0;
}

/* The end of the last task of each stream (process, device, stream). */
struct stream_end {
	int64_t pid, dev, stream, end;
	bool used;
};

struct stream_ends {
	struct stream_end *s;
	size_t cap, n;
};

static size_t stream_hash(int64_t pid, int64_t dev, int64_t stream)
{
	uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ULL;
	h ^= (uint64_t)dev * 0xC2B2AE3D27D4EB4FULL + (h >> 29);
	h ^= (uint64_t)stream * 0x165667B19E3779F9ULL + (h >> 32);
	return (size_t)(h ^ (h >> 31));
}

/* The slot of a stream, NULL for want of memory. */
static struct stream_end *stream_slot(struct stream_ends *m, int64_t pid, int64_t dev, int64_t stream)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct stream_end *s = calloc(cap, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->s[i].used)
				continue;
			size_t k = stream_hash(m->s[i].pid, m->s[i].dev, m->s[i].stream) & (cap - 1);
			while (s[k].used)
				k = (k + 1) & (cap - 1);
			s[k] = m->s[i];
		}
		free(m->s);
		m->s = s, m->cap = cap;
	}
	size_t k = stream_hash(pid, dev, stream) & (m->cap - 1);
	while (m->s[k].used && (m->s[k].pid != pid || m->s[k].dev != dev || m->s[k].stream != stream))
		k = (k + 1) & (m->cap - 1);
	return &m->s[k];
}

/* op_statistic: one group per device and opType id */
struct op_group {
	int64_t dev, type, n, total, min, max;
	const char *name;          /* at the end, from the cache of names */
	char *name_copy;
};

struct op_groups {
	struct op_group *g;
	size_t n, cap;
	struct exp_kmap index;     /* (dev, type) -> its place in g (until sorted) */
};

static struct op_group *op_group(struct op_groups *m, int64_t dev, int64_t type)
{
	/* room first: a key the index holds always has its group */
	bool fresh;
	int64_t i;
	if (GROW_ARRAY(m->g, m->cap, m->n, 32) < 0 || (i = exp_kmap_get(&m->index, dev, type, &fresh)) < 0)
		return NULL;
	if (fresh)
		m->g[m->n++] = (struct op_group){ .dev = dev, .type = type, .min = INT64_MAX, .max = INT64_MIN };
	return &m->g[i];
}

static void op_groups_free(struct op_groups *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->g[i].name_copy);
	free(m->g);
	exp_kmap_release(&m->index);
}

/* device, then longest total first, then name (SQLite's BINARY order) */
static int op_group_cmp(const void *a, const void *b)
{
	const struct op_group *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The device totals: the kernel time of each device over every kernel
 * with its COMPUTE_TASK_INFO (a type without a name in STRING_IDS too). */
struct dev_total {
	int64_t dev, total;
};

static int write_op_statistic(struct exp *e, const char *dir, struct op_groups *m, struct exp_strings *names,
			      const struct dev_total *totals, size_t n_totals)
{
	/* the groups whose type has a name, as the inner join keeps them */
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++) {
		const char *s;
		size_t len;
		int r = exp_strings_get(names, m->g[i].type, &s, &len);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (!(m->g[i].name_copy = strdup(s)))
			return -ENOMEM;
		m->g[i].name = m->g[i].name_copy;
		m->g[n++] = m->g[i];
		if (n - 1 != i)
			m->g[i].name_copy = NULL;
	}
	for (size_t i = n; i < m->n; i++)
		free(m->g[i].name_copy), m->g[i].name_copy = NULL;
	m->n = n;
	qsort_safe(m->g, n, sizeof *m->g, op_group_cmp);
	struct exp_table w;
	int r = exp_table_open(e, &w, dir, CSV_OP_STATISTIC);
	if (r < 0)
		return r;
	struct exp_buf b = { 0 };
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct op_group *g = &m->g[i];
		int64_t all = 0;
		for (size_t k = 0; k < n_totals; k++)
			if (totals[k].dev == g->dev)
				all = totals[k].total;
		char ratio[64];
		exp_format_num(all ? 100.0 * (double)g->total / (double)all : 0, 3, ratio, sizeof ratio);
		exp_buf_i64(&b, g->dev);
		exp_buf_putc(&b, ',');
		exp_buf_csv_field(&b, g->name, strlen(g->name));
		exp_buf_lit(&b, ",CUDA,");
		exp_buf_i64(&b, g->n);
		exp_buf_putc(&b, ',');
		exp_buf_ts(&b, g->total);
		exp_buf_putc(&b, ',');
		exp_buf_ts(&b, g->min);
		exp_buf_putc(&b, ',');
		exp_buf_ts(&b, g->n ? g->total / g->n : 0);
		exp_buf_putc(&b, ',');
		exp_buf_ts(&b, g->max);
		exp_buf_putc(&b, ',');
		exp_buf_puts(&b, ratio);
		exp_buf_putc(&b, '\n');
		if ((r = exp_table_put(&w, &b)) < 0)
			break;
	}
	exp_buf_release(&b);
	return exp_table_end(&w, r);
}

struct pass {
	struct exp *e;
	const char *dir;
	struct exp_table sum, time;        /* op_summary, task_time */
	bool want_sum, want_time, sum_open, time_open;
	struct exp_strings *names, *types, *task_types, *states;
	struct stream_ends ends;
	struct op_groups groups;
	struct dev_total *totals;
	size_t n_totals;
	struct exp_buf b;
};

static int add_total(struct pass *p, int64_t dev, int64_t dur)
{
	for (size_t k = 0; k < p->n_totals; k++)
		if (p->totals[k].dev == dev) {
			p->totals[k].total += dur;
			return 0;
		}
	struct dev_total *t = realloc(p->totals, (p->n_totals + 1) * sizeof *t);
	if (!t)
		return -ENOMEM;
	p->totals = t;
	p->totals[p->n_totals++] = (struct dev_total){ dev, dur };
	return 0;
}

static int pass_row(sqlite3_stmt *st, void *ctx)
{
	struct pass *p = ctx;
	const char *type, *name = "";
	size_t type_len, name_len = 0;
	int r = exp_strings_get(p->task_types, sqlite3_column_int64(st, S_TYPE), &type, &type_len);
	if (r <= 0)
		return r; /* no task type: left out, as an inner join leaves it */
	int64_t dev = sqlite3_column_int64(st, S_DEV), stream = sqlite3_column_int64(st, S_STREAM);
	int64_t task = sqlite3_column_int64(st, S_TASKID), start = sqlite3_column_int64(st, S_START);
	int64_t end = sqlite3_column_int64(st, S_END), kind = type_kind(type, type_len);
	int64_t copy = sqlite3_column_int64(st, S_COPY), pid = sqlite3_column_int64(st, S_PID);
	bool info = sqlite3_column_int64(st, S_INFO);
	if ((r = task_name(st, S_NAME, kind, copy, p->names, &name, &name_len)) < 0)
		return r;
	/* the wait, from the stream's previous task */
	struct stream_end *se = stream_slot(&p->ends, pid, dev, stream);
	if (!se)
		return -ENOMEM;
	int64_t wait = 0;
	if (se->used)
		wait = start - se->end > 0 ? start - se->end : 0;
	else
		*se = (struct stream_end){ .pid = pid, .dev = dev, .stream = stream, .used = true }, p->ends.n++;
	se->end = end;

	if (info) {
		int64_t dur = end - start, ot = sqlite3_column_int64(st, S_OPTYPE);
		if ((r = add_total(p, dev, dur)) < 0)
			return r;
		if (sqlite3_column_type(st, S_OPTYPE) != SQLITE_NULL) {
			struct op_group *g = op_group(&p->groups, dev, ot);
			if (!g)
				return -ENOMEM;
			g->n++, g->total += dur;
			if (dur < g->min)
				g->min = dur;
			if (dur > g->max)
				g->max = dur;
		}
	}
	struct exp_buf *b = &p->b;
	if (p->sum_open && kind == GPU_TASK_KERNEL) {
		const char *ot = "N/A";
		size_t ot_len = 3;
		if (sqlite3_column_type(st, S_OPTYPE) != SQLITE_NULL &&
		    (r = exp_strings_get(p->types, sqlite3_column_int64(st, S_OPTYPE), &ot, &ot_len)) <= 0) {
			if (r < 0)
				return r;
			ot = "N/A", ot_len = 3;
		}
		exp_buf_i64(b, dev);
		exp_buf_lit(b, ",4294967295,");
		exp_buf_i64(b, task);
		exp_buf_putc(b, ',');
		exp_buf_i64(b, stream);
		exp_buf_putc(b, ',');
		exp_buf_csv_field(b, name, name_len);
		exp_buf_putc(b, ',');
		exp_buf_csv_field(b, ot, ot_len);
		/* OP State as COMPUTE_TASK_INFO.opState says (domain-tasks.c) */
		const char *state = "N/A";
		size_t state_len = 3;
		if (sqlite3_column_type(st, S_STATE) != SQLITE_NULL &&
		    (r = exp_strings_get(p->states, sqlite3_column_int64(st, S_STATE), &state, &state_len)) <= 0) {
			if (r < 0)
				return r;
			state = "N/A", state_len = 3;
		}
		exp_buf_putc(b, ',');
		exp_buf_csv_field(b, state, state_len);
		exp_buf_putc(b, ',');
		exp_buf_put(b, type, type_len);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, start);
		exp_buf_lit(b, "\t,");
		exp_buf_ts(b, end - start);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, wait);
		exp_buf_putc(b, ',');
		exp_buf_i64(b, sqlite3_column_int64(st, S_BLOCKS));
		exp_buf_putc(b, ',');
		exp_buf_i64(b, sqlite3_column_int64(st, S_THREADS));
		exp_buf_lit(b, ",N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n");
		if ((r = exp_table_put(&p->sum, b)) < 0)
			return r;
	}
	if (p->time_open) {
		exp_buf_i64(b, dev);
		exp_buf_putc(b, ',');
		exp_buf_csv_field(b, name, name_len);
		exp_buf_putc(b, ',');
		exp_buf_put(b, type, type_len);
		exp_buf_putc(b, ',');
		exp_buf_i64(b, stream);
		exp_buf_putc(b, ',');
		exp_buf_i64(b, task);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, end - start);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, start);
		exp_buf_lit(b, "\t,");
		exp_buf_ts(b, end);
		exp_buf_lit(b, "\t\n");
		if ((r = exp_table_put(&p->time, b)) < 0)
			return r;
	}
	return 0;
}

/* As the statement's bind step: the files are opened once the query is
 * known to be valid. */
static int pass_open(sqlite3_stmt *st, void *ctx)
{
	struct pass *p = ctx;
	int r = 0;
	if (p->want_sum && (r = exp_table_open(p->e, &p->sum, p->dir, CSV_OP_SUMMARY)) == 0)
		p->sum_open = true;
	if (r == 0 && p->want_time && (r = exp_table_open(p->e, &p->time, p->dir, CSV_TASK_TIME)) == 0)
		p->time_open = true;
	return r;
}

static int task_pass(struct exp *e, const char *dir)
{
	bool kernels = have_kernels(e);
	struct pass p = { .e = e, .want_sum = kernels, .want_time = exp_table_has_rows(e, "TASK") };
	if (!p.want_sum && !p.want_time)
		return 0;
	_cleanup_free_ char *sql = pass_sql(kernels);
	p.dir = dir;
	int r = sql ? 0 : -ENOMEM;
	if (r == 0)
		r = exp_strings_new(e, &p.names);
	if (r == 0)
		r = exp_strings_new(e, &p.types);
	if (r == 0)
		r = exp_strings_new(e, &p.task_types);
	if (r == 0)
		r = exp_strings_new(e, &p.states);
	if (r == 0)
		r = exp_each(e, sql, pass_open, pass_row, &p);
	if (r > 0)
		r = 0;
	if (p.sum_open)
		r = exp_table_end(&p.sum, r);
	if (p.time_open)
		r = exp_table_end(&p.time, r);
	if (r == 0 && p.want_sum)
		r = write_op_statistic(e, dir, &p.groups, p.types, p.totals, p.n_totals);
	exp_strings_free(p.names);
	exp_strings_free(p.types);
	exp_strings_free(p.task_types);
	exp_strings_free(p.states);
	free(p.ends.s);
	op_groups_free(&p.groups);
	free(p.totals);
	exp_buf_release(&p.b);
	return r;
}

/* durations in µs as doubles for the variance (population, µs²) */
#define API_STATISTIC_SQL \
	"SELECT s.value, sum(a.endNs - a.startNs), count(*), min(a.endNs - a.startNs), max(a.endNs - a.startNs), " \
	"avg((a.endNs - a.startNs) / 1000.0 * (a.endNs - a.startNs) / 1000.0) - " \
	"avg((a.endNs - a.startNs) / 1000.0) * avg((a.endNs - a.startNs) / 1000.0) " \
	"FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name GROUP BY a.name ORDER BY 2 DESC, 1"

static void api_statistic_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	int64_t total = sqlite3_column_int64(st, 1), n = sqlite3_column_int64(st, 2);
	double var = sqlite3_column_double(st, 5);
	char v[64], b[32];
	const char *name = col_text(st, 0, "");
	exp_format_num(var < 0 ? 0 : var, 3, v, sizeof v);
	fputs("host,Runtime,", f);
	exp_csv_field(f, name, strlen(name));
	fputc(',', f);
	exp_format_ts(total, b);
	fprintf(f, "%s,%" PRId64 ",", b, n);
	exp_format_ts(n ? total / n : 0, b);
	fputs(b, f);
	fputc(',', f);
	exp_format_ts(sqlite3_column_int64(st, 3), b);
	fputs(b, f);
	fputc(',', f);
	exp_format_ts(sqlite3_column_int64(st, 4), b);
	fputs(b, f);
	fprintf(f, ",%s\n", v);
}

int exp_write_gpu_summaries(struct exp *e, const char *dir)
{
	int r = task_pass(e, dir);
	if (r == 0 && exp_table_has_rows(e, "CANN_API"))
		r = exp_table_query(e, dir, CSV_API_STATISTIC, API_STATISTIC_SQL, api_statistic_row, NULL);
	return r;
}

/* --- timeline ------------------------------------------------------------------- */

/* msprof's flow id: the string of connectionId << 32 (our connection ids
 * may pass 32 bits, so the shift is done in 128 bits, never wrapped) */
__extension__ typedef unsigned __int128 u128;

static void flow_id(int64_t conn, char buf[48])
{
	if ((uint64_t)conn <= UINT32_MAX) { /* the common case, in 64 bits */
		exp_fmt_u64(buf, (uint64_t)conn << 32);
		return;
	}
	u128 v = (u128)(uint64_t)conn << 32;
	char tmp[48];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
}

/* The flow's start (ph "s", on the launching call) or end ("f", at the
 * task's start: same pid, tid, ts, §9), formatted after the event in b */
static void flow(struct exp_buf *b, char ph, unsigned pid, int64_t tid, int64_t conn, const char *ts, size_t ts_len)
{
	char id[48];
	flow_id(conn, id);
	size_t id_len = strlen(id);
	exp_buf_lit(b, "{\"name\":\"HostToDevice");
	exp_buf_put(b, id, id_len);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, pid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_i64(b, tid);
	exp_buf_lit(b, ",\"ph\":\"");
	exp_buf_putc(b, ph);
	exp_buf_lit(b, "\",\"cat\":\"HostToDevice\",\"id\":\"");
	exp_buf_put(b, id, id_len);
	exp_buf_lit(b, "\",\"ts\":\"");
	exp_buf_put(b, ts, ts_len);
	if (ph == 'f')
		exp_buf_lit(b, "\",\"bp\":\"e\"}");
	else
		exp_buf_lit(b, "\"}");
}

/* b[from..to) as the next event of t. */
static void event_out(struct exp_tl *t, struct exp_buf *b, size_t from, size_t to)
{
	fwrite(b->p + from, 1, to - from, exp_tl_event(t));
}

/* The opening of an "X" event of these layers up to its args' "{", as
 * exp_buf_x_event but for the duration, written as a time (exp_buf_ts),
 * a name after prefix, and where its ts lies in b: b[*ret_ts_at..*ret_ts_end). */
static inline void x_open(struct exp_buf *b, const char *prefix, const char *name, size_t name_len, unsigned pid,
			  int64_t tid, int64_t start, int64_t end, size_t *ret_ts_at, size_t *ret_ts_end)
{
	exp_buf_lit(b, "{\"name\":\"");
	exp_buf_puts(b, prefix);
	exp_buf_json_str(b, name, name_len);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, pid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_i64(b, tid);
	exp_buf_lit(b, ",\"ts\":\"");
	*ret_ts_at = b->len;
	exp_buf_ts(b, start);
	*ret_ts_end = b->len;
	exp_buf_lit(b, "\",\"dur\":");
	exp_buf_ts(b, end - start);
	exp_buf_lit(b, ",\"ph\":\"X\",\"args\":{");
}

/* The event in b as the next event of t and, when launched, its flow's
 * start or end (ph) after it, at the event's ts b[ts_at..ts_end); b
 * emptied. */
static int event_flow_out(struct exp_tl *t, struct exp_buf *b, bool launched, char ph, unsigned pid, int64_t tid,
			  int64_t conn, size_t ts_at, size_t ts_end)
{
	if (b->err)
		return b->err;
	size_t ev_end = b->len;
	event_out(t, b, 0, ev_end);
	if (launched) {
		char ts[32];
		size_t ts_len = ts_end - ts_at;
		memcpy(ts, b->p + ts_at, ts_len);
		flow(b, ph, pid, tid, conn, ts, ts_len);
		if (b->err)
			return b->err;
		event_out(t, b, ev_end, b->len);
	}
	b->len = 0;
	return 0;
}

bool exp_have_gpu_layers(struct exp *e)
{
	return exp_table_has_rows(e, "TASK") || exp_table_has_rows(e, "CANN_API");
}

/* The Ascend Hardware layer: per device a process, per stream a thread,
 * each task an "X" event, the end of its flow after it when its launch was
 * recorded.  Rows come in (device, stream, start) order from the index
 * TaskStreamIndex (exp_index_gpu_tasks), names by id from caches. */
enum { H_DEV, H_STREAM, H_TASKID, H_START, H_END, H_CONN, H_KIND, H_NAME, H_GRID, H_BLOCK, H_COPY, H_BYTES,
       H_TYPE, H_LAUNCHED, H_RANGE };

static char *hw_sql(struct exp *e)
{
	bool kernels = have_kernels(e), api = exp_table_has_rows(e, "CANN_API");
	bool ranges = exp_table_has_rows(e, "GPU_TASK_RANGE");
	char *sql = NULL;
	if (asprintf(&sql,
		     "SELECT t.deviceId, t.streamId, t.taskId, t.startNs, t.endNs, t.connectionId, NULL, %s, "
		     "%s(SELECT copyKind FROM main.GPU_TASK g WHERE g.rowid = t.globalTaskId)%s, "
		     "%s(SELECT bytes FROM main.GPU_TASK g WHERE g.rowid = t.globalTaskId)%s, "
		     "t.taskType, %s, %s FROM TASK t %s %s ORDER BY t.deviceId, t.streamId, t.startNs",
		     kernels ? KERNEL_NAME ", c.gridDim, c.blockDim" : "NULL, NULL, NULL", NOT_KERNEL(kernels),
		     NOT_KERNEL_END(kernels), NOT_KERNEL(kernels), NOT_KERNEL_END(kernels),
		     api ? "EXISTS (SELECT 1 FROM CANN_API a WHERE a.connectionId = t.connectionId)" : "0",
		     ranges ? "r.message" : "NULL",
		     kernels ? "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId" : "",
		     ranges ? "LEFT JOIN GPU_TASK_RANGE r ON r.globalTaskId = t.globalTaskId" : "") < 0)
		return NULL;
	return sql;
}

static int hw_row(struct exp_buf *b, sqlite3_stmt *st, unsigned pid, struct exp_strings *names,
		  struct exp_strings *types, struct exp_strings *ranges, struct exp_tl *t)
{
	const char *type, *name = "", *range = NULL;
	size_t type_len, name_len = 0, range_len = 0;
	int r = exp_strings_get(types, sqlite3_column_int64(st, H_TYPE), &type, &type_len);
	if (r <= 0)
		return r; /* no task type: left out, as an inner join leaves it */
	int64_t kind = type_kind(type, type_len), copy = sqlite3_column_int64(st, H_COPY);
	if ((r = task_name(st, H_NAME, kind, copy, names, &name, &name_len)) < 0)
		return r;
	if (sqlite3_column_type(st, H_RANGE) != SQLITE_NULL &&
	    (r = exp_strings_get(ranges, sqlite3_column_int64(st, H_RANGE), &range, &range_len)) <= 0) {
		if (r < 0)
			return r;
		range = NULL;
	}
	int64_t s = sqlite3_column_int64(st, H_STREAM), conn = sqlite3_column_int64(st, H_CONN);
	int64_t start = sqlite3_column_int64(st, H_START), end = sqlite3_column_int64(st, H_END);
	size_t ts_at, ts_end;
	x_open(b, "", name, name_len, pid, s, start, end, &ts_at, &ts_end);
	exp_buf_lit(b, "\"Model Id\":4294967295,\"Task Type\":\"");
	exp_buf_put(b, type, type_len);
	exp_buf_lit(b, "\",\"Physic Stream Id\":");
	exp_buf_i64(b, s);
	exp_buf_lit(b, ",\"Task Id\":");
	exp_buf_i64(b, sqlite3_column_int64(st, H_TASKID));
	exp_buf_lit(b, ",\"Batch Id\":0,\"Subtask Id\":4294967295,\"connection_id\":");
	exp_buf_i64(b, conn);
	if (kind == GPU_TASK_KERNEL) {
		const char *grid = (const char *)sqlite3_column_text(st, H_GRID);
		const char *block = (const char *)sqlite3_column_text(st, H_BLOCK);
		exp_buf_lit(b, ",\"Grid Dim\":\"");
		exp_buf_puts(b, grid ? grid : "");
		exp_buf_lit(b, "\",\"Block Dim\":\"");
		exp_buf_puts(b, block ? block : "");
		exp_buf_putc(b, '"');
	} else {
		int64_t bytes = sqlite3_column_int64(st, H_BYTES);
		char bw[64];
		exp_format_num(end > start ? (double)bytes / (double)(end - start) : 0, 6, bw, sizeof bw);
		exp_buf_lit(b, ",\"size(B)\":");
		exp_buf_i64(b, bytes);
		exp_buf_lit(b, ",\"bandwidth(GB/s)\":");
		exp_buf_puts(b, bw);
		if (kind == GPU_TASK_MEMCPY) {
			exp_buf_lit(b, ",\"operation\":\"");
			exp_buf_puts(b, name_len > 7 ? name + 7 : ""); /* past "Memcpy " */
			exp_buf_putc(b, '"');
		}
	}
	if (range) {
		exp_buf_lit(b, ",\"range\":\"");
		exp_buf_json_str(b, range, range_len);
		exp_buf_putc(b, '"');
	}
	exp_buf_lit(b, "}}");
	return event_flow_out(t, b, sqlite3_column_int64(st, H_LAUNCHED), 'f', pid, s, conn, ts_at, ts_end);
}

/* The tasks by device and stream: a stream's thread metadata when the
 * next stream begins, a device's process metadata when the next device
 * does. */
struct hw_walk {
	struct exp_tl_devices devs;
	struct exp_strings *names, *types, *ranges;
	struct exp_buf b;
	int64_t stream;
};

static int hw_task(sqlite3_stmt *st, void *ctx)
{
	struct hw_walk *w = ctx;
	int64_t d = sqlite3_column_int64(st, H_DEV), s = sqlite3_column_int64(st, H_STREAM);
	if (!exp_tl_device_valid(d))
		return 0;
	if (d != w->devs.dev || s != w->stream) {
		if (w->stream >= 0)
			exp_tl_thread(w->devs.t, w->devs.pid, w->stream, "Stream");
		exp_tl_devices_enter(&w->devs, d);
		w->stream = s;
	}
	return hw_row(&w->b, st, w->devs.pid, w->names, w->types, w->ranges, w->devs.t);
}

static int hw_layer(struct exp *e, struct exp_tl *t)
{
	_cleanup_free_ char *sql = hw_sql(e);
	struct hw_walk w = { .devs = { .t = t, .k = &export_tracks[TRACK_ASCEND_HW], .app_pid = e->app_pid, .dev = -1 },
			     .stream = -1 };
	int r = sql ? 0 : -ENOMEM;
	if (r == 0)
		r = exp_strings_new(e, &w.names);
	if (r == 0)
		r = exp_strings_new(e, &w.types);
	if (r == 0)
		r = exp_strings_new(e, &w.ranges);
	if (r == 0)
		r = exp_each(e, sql, NULL, hw_task, &w);
	if (r >= 0 && w.stream >= 0) {
		exp_tl_thread(t, w.devs.pid, w.stream, "Stream");
		exp_tl_devices_end(&w.devs);
	}
	exp_strings_free(w.names);
	exp_strings_free(w.types);
	exp_strings_free(w.ranges);
	exp_buf_release(&w.b);
	return r < 0 ? r : 0;
}

struct cann_walk {
	struct exp_tl *tl;
	unsigned pid;
	struct exp_strings *names;
	struct exp_buf b;
	int64_t tid;
	bool any;
};

static int cann_call(sqlite3_stmt *st, void *ctx)
{
	struct cann_walk *w = ctx;
	struct exp_tl *tl = w->tl;
	struct exp_buf *b = &w->b;
	unsigned pid = w->pid;
	const char *name;
	size_t name_len;
	int r = exp_strings_get(w->names, sqlite3_column_int64(st, 4), &name, &name_len);
	if (r <= 0)
		return r; /* no name: left out, as an inner join leaves it */
	int64_t t = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
	int64_t end = sqlite3_column_int64(st, 2), conn = sqlite3_column_int64(st, 3);
	if (t != w->tid && w->tid >= 0)
		exp_tl_thread(tl, pid, w->tid, "Thread");
	w->tid = t;
	w->any = true;
	size_t ts_at, ts_end;
	x_open(b, "Runtime@", name, name_len, pid, t, start, end, &ts_at, &ts_end);
	exp_buf_lit(b, "\"Thread Id\":");
	exp_buf_i64(b, t);
	exp_buf_lit(b, ",\"Mode\":\"N/A\",\"level\":\"runtime\",\"id\":\"");
	exp_buf_json_str(b, name, name_len);
	exp_buf_lit(b, "\",\"item_id\":\"N/A\",\"connection_id\":");
	exp_buf_i64(b, conn);
	exp_buf_lit(b, "}}");
	return event_flow_out(tl, b, sqlite3_column_int64(st, 5), 's', pid, t, conn, ts_at, ts_end);
}

/* The CANN layer: per thread the runtime calls, in (thread, start) order
 * from the index CannApiThreadIndex (exp_index_gpu_tasks); a flow starts
 * at a call that launched a task (no TASK table with --task-time=off). */
static int cann_layer(struct exp *e, struct exp_tl *tl)
{
	const struct export_track_info *k = &export_tracks[TRACK_CANN];
	static const char with_tasks[] = "SELECT a.globalTid & 4294967295, a.startNs, a.endNs, a.connectionId, a.name, "
					 "a.connectionId IN (SELECT connectionId FROM TASK) FROM CANN_API a "
					 "ORDER BY 1, a.startNs";
	static const char no_tasks[] = "SELECT a.globalTid & 4294967295, a.startNs, a.endNs, a.connectionId, a.name, 0 "
				       "FROM CANN_API a ORDER BY 1, a.startNs";
	const char *sql = exp_table_has_rows(e, "TASK") ? with_tasks : no_tasks;
	struct cann_walk w = { .tl = tl, .pid = export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID),
			       .tid = -1 };
	int r = exp_strings_new(e, &w.names);
	if (r == 0)
		r = exp_each(e, sql, NULL, cann_call, &w);
	if (r >= 0 && w.tid >= 0)
		exp_tl_thread(tl, w.pid, w.tid, "Thread");
	if (r >= 0 && w.any)
		exp_tl_process(tl, w.pid, k->process_name, k->label, k->sort_index);
	exp_strings_free(w.names);
	exp_buf_release(&w.b);
	return r < 0 ? r : 0;
}

struct sync_walk {
	struct exp_tl *tl;
	unsigned pid;
};

static int sync_row(sqlite3_stmt *st, void *ctx)
{
	const struct sync_walk *w = ctx;
	int64_t tid = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
	int64_t end = sqlite3_column_int64(st, 2);
	const char *name = gpu_sync_name((uint32_t)sqlite3_column_int64(st, 3));
	char ts[32], dur[32];
	exp_format_ts(start, ts);
	exp_format_ts(end > start ? end - start : 0, dur);
	FILE *f = exp_tl_event(w->tl);
	fprintf(f, "{\"name\":\"Sync@%s\",\"pid\":%u,\"tid\":%" PRId64 ",\"ts\":\"%s\",\"dur\":%s,\"ph\":\"X\","
		   "\"args\":{\"Thread Id\":%" PRId64 ",\"Mode\":\"N/A\",\"level\":\"sync\",\"id\":\"%s\","
		   "\"item_id\":\"N/A\",\"connection_id\":%" PRId64 ",\"Context Id\":%" PRId64,
		name, w->pid, tid, ts, dur, tid, name, (int64_t)sqlite3_column_int64(st, 4),
		(int64_t)sqlite3_column_int64(st, 5));
	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		fprintf(f, ",\"Stream Id\":%" PRId64, (int64_t)sqlite3_column_int64(st, 6));
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		fprintf(f, ",\"Event Id\":%" PRId64, (int64_t)sqlite3_column_int64(st, 7));
	fprintf(f, ",\"Result\":%" PRId64 "}}", (int64_t)sqlite3_column_int64(st, 8));
	return 0;
}

/* Synchronisations on the CANN layer: a "Sync@<type>" slice inside the
 * runtime call each happened in, on that call's thread (so only where
 * the call was recorded), cut to the call's span so that the viewers nest
 * it under the call. */
static int sync_slices(struct exp *e, struct exp_tl *tl)
{
	const struct export_track_info *k = &export_tracks[TRACK_CANN];
	static const char sql[] = "SELECT s.tid, max(s.startNs, a.startNs), min(s.endNs, a.endNs), s.type, "
				  "s.connectionId, s.contextId, s.streamId, s.eventId, s.result FROM GPU_SYNC s "
				  "JOIN GPU_API a ON a.pid = s.pid AND a.correlationId = s.correlationId "
				  "WHERE s.tid IS NOT NULL ORDER BY s.tid, s.startNs";
	struct sync_walk w = { tl, export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID) };
	int r = exp_each(e, sql, NULL, sync_row, &w);
	return r < 0 ? r : 0;
}

int exp_write_gpu_layers(struct exp *e, struct exp_tl *t, struct exp_tl *own)
{
	int r = 0;
	/* --reports may leave either out */
	if (exp_track_on(e, TRACK_CANN) && exp_table_has_rows(e, "CANN_API")) {
		r = cann_layer(e, t);
		if (r == 0 && exp_table_has_rows(e, "GPU_SYNC"))
			r = sync_slices(e, t);
	}
	if (r == 0 && exp_track_on(e, TRACK_ASCEND_HW) && exp_table_has_rows(e, "TASK"))
		r = hw_layer(e, t);
	return r;
}
