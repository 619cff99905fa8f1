/* Device tasks from the agents' files (RAW_AGENT_GPU_TASK, RAW_AGENT_GPU_API;
 * collectors/gputask.h) -> GPU_TASK, GPU_API (ours, as recorded) -> msprof's
 * TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API -> op_summary, op_statistic,
 * task_time, api_statistic CSVs and the timeline's Ascend Hardware (one
 * track per stream per device) and CANN (API calls per thread) layers with
 * HostToDevice flows from each launch to its task.
 *
 * connectionId links a task to the API call that launched it: CUDA's
 * correlation id, which is per process, so the process's ordinal (pids in
 * ascending order, 0 for the first) goes above bit 32; with one process it
 * is the correlation id itself.  SCHEMA.md lists how every CUDA value fills
 * an msprof column, and which columns are N/A. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/gputask.h"
#include "export/domain-tasks.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/tables.h"
#include "collectors/raw.h"
#include "common/util.h"

/* The entry, at the end: its hooks keep their state in its slot. */
extern const struct exp_domain exp_domain_tasks;

#define MODEL_ID_NONE 4294967295LL   /* msprof's model id for "no model" */
#define API_TYPE_RUNTIME 5000        /* ENUM_API_TYPE runtime */

struct exp_gpu {
	sqlite3_stmt *task, *api, *sync;
	/* the record being inserted: its name is bound without a copy, and
	 * stays valid until the next record's (the statements go first) */
	struct gpu_task t;
	struct gpu_api a;
};

static const char task_sql[] =
	"INSERT INTO GPU_TASK VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char api_sql[] = "INSERT INTO GPU_API VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char sync_sql[] = "INSERT INTO GPU_SYNC VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)";

/* The domain's state: its statements, while the agents' files are read. */
static struct exp_gpu **gpu_of(struct exp *e)
{
	return (struct exp_gpu **)exp_domain_state(e, &exp_domain_tasks);
}

void exp_gpu_free(struct exp *e)
{
	struct exp_gpu *g = *gpu_of(e);
	if (!g)
		return;
	sqlite3_finalize(g->task);
	sqlite3_finalize(g->api);
	sqlite3_finalize(g->sync);
	free(g);
	*gpu_of(e) = NULL;
}

/* A device record's start or end far outside the session, or an end
 * before its start: damage, counted as malformed. */
static bool span_far(const struct exp *e, const struct raw_header *h, uint64_t start, uint64_t end)
{
	return end < start || exp_time_far(e, raw_unix_ns(h, start)) || exp_time_far(e, raw_unix_ns(h, end));
}

/* A synchronisation; its thread and connection id come from its call at
 * build time (sync_threads). */
static int sync_record(struct exp *e, struct exp_gpu *g, const struct raw_header *h, uint32_t pid, const struct raw_record *rec)
{
	struct gpu_sync y;
	if (gpu_decode_sync(rec->payload, rec->len, &y) < 0 || span_far(e, h, y.start, y.end))
		return 1;
	sqlite3_stmt *st = g->sync;
	int c = 1;
	sqlite3_bind_int64(st, c++, pid);
	sqlite3_bind_int64(st, c++, raw_unix_ns(h, y.start));
	sqlite3_bind_int64(st, c++, raw_unix_ns(h, y.end));
	sqlite3_bind_int64(st, c++, y.type);
	sqlite3_bind_int64(st, c++, y.context);
	if (y.stream == GPU_SYNC_NONE)
		sqlite3_bind_null(st, c++);
	else
		sqlite3_bind_int64(st, c++, y.stream);
	if (y.event == GPU_SYNC_NONE)
		sqlite3_bind_null(st, c++);
	else
		sqlite3_bind_int64(st, c++, y.event);
	sqlite3_bind_int64(st, c++, y.correlation);
	sqlite3_bind_int64(st, c++, y.result);
	exp_note_time(e, raw_unix_ns(h, y.end));
	return exp_step_done(e, st, "GPU_SYNC");
}

static int gpu_record(struct exp *e, const struct raw_header *h, uint32_t pid, const struct raw_record *rec)
{
	struct exp_gpu *g = *gpu_of(e);
	if (!g) {
		if (!(g = *gpu_of(e) = calloc(1, sizeof *g)))
			return -ENOMEM;
		int r = exp_prepare(e, task_sql, &g->task);
		if (r == 0)
			r = exp_prepare(e, api_sql, &g->api);
		if (r == 0)
			r = exp_prepare(e, sync_sql, &g->sync);
		if (r < 0)
			return r;
	}
	if (rec->type == RAW_AGENT_GPU_SYNC)
		return sync_record(e, g, h, pid, rec);
	if (rec->type == RAW_AGENT_GPU_TASK) {
		struct gpu_task *t = &g->t;
		if (gpu_decode_task(rec->payload, rec->len, t) < 0 || span_far(e, h, t->start, t->end))
			return 1;
		sqlite3_stmt *st = g->task;
		int c = 1;
		sqlite3_bind_int64(st, c++, pid);
		sqlite3_bind_int64(st, c++, raw_unix_ns(h, t->start));
		sqlite3_bind_int64(st, c++, raw_unix_ns(h, t->end));
		sqlite3_bind_int64(st, c++, t->kind);
		sqlite3_bind_int64(st, c++, t->device);
		sqlite3_bind_int64(st, c++, t->context);
		sqlite3_bind_int64(st, c++, t->stream);
		sqlite3_bind_int64(st, c++, t->correlation);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_int64(st, c++, t->grid[i]);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_int64(st, c++, t->block[i]);
		sqlite3_bind_int64(st, c++, t->shared_mem);
		sqlite3_bind_int64(st, c++, t->registers);
		sqlite3_bind_int64(st, c++, t->copy_kind);
		sqlite3_bind_int64(st, c++, t->bytes > INT64_MAX ? INT64_MAX : (int64_t)t->bytes);
		sqlite3_bind_text(st, c++, t->name, -1, SQLITE_STATIC);
		exp_note_time(e, raw_unix_ns(h, t->end));
		return exp_step_done(e, st, "GPU_TASK");
	}
	struct gpu_api *a = &g->a;
	if (gpu_decode_api(rec->payload, rec->len, a) < 0 || span_far(e, h, a->start, a->end))
		return 1;
	sqlite3_stmt *st = g->api;
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, a->tid);
	sqlite3_bind_int64(st, 3, raw_unix_ns(h, a->start));
	sqlite3_bind_int64(st, 4, raw_unix_ns(h, a->end));
	sqlite3_bind_int64(st, 5, a->correlation);
	sqlite3_bind_int64(st, 6, a->cbid);
	sqlite3_bind_int64(st, 7, a->result);
	sqlite3_bind_text(st, 8, a->name, -1, SQLITE_STATIC);
	exp_note_time(e, raw_unix_ns(h, a->end));
	return exp_step_done(e, st, "GPU_API");
}

/* --- names --------------------------------------------------------------------- */

/* The C++ runtime's demangler, found at run time so that the export has
 * no C++ dependency; without it names stay mangled. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangle_found;

static void demangler_find(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&demangle_found = dlsym(h, "__cxa_demangle");
}

/* once for all threads (export cluster reads ranks on several) */
static demangle_fn demangler(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, demangler_find);
	return demangle_found;
}

/* The demangled name (malloc'd) or a copy of name. */
static char *demangle(const char *name)
{
	demangle_fn fn = demangler();
	int status = -1;
	char *d = fn && startswith(name, "_Z") ? fn(name, NULL, NULL, &status) : NULL;
	if (d && status == 0)
		return d;
	free(d);
	return strdup(name);
}

/* OP Type of a kernel: its qualified name without return type, template
 * arguments and parameters ("void at::native::foo<4>(int)" ->
 * "at::native::foo"). */
static void op_type(const char *demangled, char *buf, size_t size)
{
	const char *s = demangled;
	const char *paren = strchr(s, '('), *lt = strchr(s, '<');
	const char *end = paren && (!lt || paren < lt) ? paren : lt ? lt : s + strlen(s);
	/* the return type is the last space-separated word before the name
	 * at template depth 0 */
	const char *sp = NULL;
	for (const char *q = s; q < end; q++)
		if (*q == ' ')
			sp = q;
	if (sp)
		s = sp + 1;
	size_t n = (size_t)(end - s);
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

static const char *const task_types[] = { [GPU_TASK_KERNEL] = "KERNEL", [GPU_TASK_MEMCPY] = "MEMCPY",
					  [GPU_TASK_MEMSET] = "MEMSET" };

/* ENUM_MEMCPY_OPERATION (§5); GPU_TASK.copyKind maps onto it in
 * exp_build_gpu_tasks: HtoH 0; HtoD, HtoA 1; DtoH, AtoH 2; DtoD, AtoD, DtoA, AtoA 3;
 * peer to peer 5 (addr device to device); anything else 65535 */
const char *const exp_memcpy_operations[8] = { "host to host", "host to device", "device to host",
					      "device to device", "managed memory", "addr device to device",
					      "host to device ex", "device to host ex" };

/* --- the range around each launch -------------------------------------------------- */

struct open_range {
	int64_t start, end, message;
};

/* GPU_TASK_RANGE: for each task whose launch was recorded, the range of the
 * launching thread with the latest start at or before the call's start
 * that ends at or after the call's end (of those starting together, the
 * one ending first).  One sweep over the ranges and the calls of each
 * thread in start order: a query per task that looks back through the
 * thread's annotations costs the number of tasks times the number of
 * annotations (hours at a million of each).
 *
 * The ranges started so far sit on a stack in start order; a call is
 * answered by the first range from the top that contains it.  A range
 * that ended before a call started can contain no later call (calls come
 * in start order): dead ranges on top are dropped, ones further down are
 * passed over, so properly nested ranges cost O(1) per call. */
/* A call from start to end that launched task: the dead ranges on top of
 * the stack (ended before the call started) dropped, the first one from
 * the top that contains the call is the task's (GPU_TASK_RANGE). */
static int answer(struct exp *e, sqlite3_stmt *ins, const struct open_range *stack, size_t *n, int64_t start,
		  int64_t end, int64_t task)
{
	while (*n > 0 && stack[*n - 1].end < start)
		(*n)--;
	for (size_t i = *n; i-- > 0;) {
		if (stack[i].end < end)
			continue;
		sqlite3_bind_int64(ins, 1, task);
		sqlite3_bind_int64(ins, 2, stack[i].message);
		return exp_step_done(e, ins, "GPU_TASK_RANGE");
	}
	return 0;
}

struct sorted_sweep {
	struct exp *e;
	sqlite3_stmt *sel, *ins;
	struct open_range *stack;
	size_t n, cap;
	int64_t tid;
};

/* A range (call 0: pushed) or a call (answered from the stack). */
static int sorted_sweep_row(sqlite3_stmt *sel, void *ctx)
{
	struct sorted_sweep *w = ctx;
	int64_t t = sqlite3_column_int64(sel, 0), start = sqlite3_column_int64(sel, 1);
	int64_t end = sqlite3_column_int64(sel, 2);
	if (w->n == 0 || t != w->tid)
		w->n = 0, w->tid = t;
	if (!sqlite3_column_int64(sel, 4)) {
		struct open_range *s = grow_array(w->stack, &w->cap, w->n, sizeof *s, 64);
		if (!s)
			return -ENOMEM;
		w->stack = s;
		w->stack[w->n++] = (struct open_range){ start, end, sqlite3_column_int64(sel, 3) };
		return 0;
	}
	return answer(w->e, w->ins, w->stack, &w->n, start, end, sqlite3_column_int64(sel, 5));
}

static int build_task_ranges_sorted(struct exp *e)
{
	static const char sql[] =
		"SELECT globalTid, startNs, endNs, message, 0 AS call, 0 FROM MSTX_EVENTS "
		"WHERE eventType IN (1, 2) AND endNs IS NOT NULL "
		"UNION ALL SELECT (a.pid << 32) | a.tid, a.startNs, a.endNs, 0, 1, t.globalTaskId FROM GPU_API a "
		"JOIN GPU_PID p ON p.pid = a.pid JOIN TASK t ON t.connectionId = (p.ord << 32) | a.correlationId "
		"ORDER BY 1, 2, 5, 3 DESC";
	struct sorted_sweep w = { .e = e };
	int r = exp_prepare(e, sql, &w.sel);
	if (r == 0)
		r = exp_prepare(e, "INSERT OR IGNORE INTO GPU_TASK_RANGE VALUES (?, ?)", &w.ins);
	if (r == 0)
		r = exp_stmt_each(e, w.sel, "GPU_TASK_RANGE", sorted_sweep_row, &w);
	sqlite3_finalize(w.sel);
	sqlite3_finalize(w.ins);
	free(w.stack);
	return r < 0 ? r : 0;
}

/* The same sweep without sorting the calls, when the calls of each thread
 * were recorded in start order (the agent writes them as they return, a
 * thread at a time) and the launching threads are few: the calls are read
 * as recorded, and each thread has its own stack and its own cursor over
 * its ranges in start order (MstxEventsIndex), advanced to each call's
 * start.  The result is the sorted sweep's; ret_done is false, with
 * nothing written, when the calls are not in that order or come from more
 * than RANGE_THREADS_MAX threads. */
#define RANGE_THREADS_MAX 64

struct range_thread {
	int64_t tid, last_start;
	sqlite3_stmt *ranges;     /* the thread's ranges in start order */
	bool pending, done;       /* a range read and not yet pushed; no more */
	struct open_range next;
	struct open_range *stack;
	size_t n, cap;
};

static int range_push(struct range_thread *t)
{
	struct open_range *s = grow_array(t->stack, &t->cap, t->n, sizeof *s, 64);
	if (!s)
		return -ENOMEM;
	t->stack = s;
	t->stack[t->n++] = t->next;
	t->pending = false;
	return 0;
}

struct streamed_sweep {
	struct exp *e;
	sqlite3_stmt *sel, *ins;
	struct range_thread th[RANGE_THREADS_MAX];
	size_t nth, cur;
	bool ordered;             /* false: stopped, the sorted sweep must run */
};

/* The thread's ranges starting at or before start onto its stack: its
 * cursor is advanced as far as the call (a merge, so stepped by hand). */
static int ranges_upto(struct exp *e, struct range_thread *t, int64_t start)
{
	for (;;) {
		if (!t->pending && !t->done) {
			int got = exp_step(e, t->ranges, "MSTX_EVENTS");
			if (got > 0) {
				t->next = (struct open_range){ sqlite3_column_int64(t->ranges, 0),
							       sqlite3_column_int64(t->ranges, 1),
							       sqlite3_column_int64(t->ranges, 2) };
				t->pending = true;
			} else if (got == 0) {
				t->done = true;
			} else {
				return got;
			}
		}
		if (!t->pending || t->next.start > start)
			return 0;
		int r = range_push(t);
		if (r < 0)
			return r;
	}
}

static int streamed_sweep_row(sqlite3_stmt *sel, void *ctx)
{
	static const char ranges_sql[] =
		"SELECT startNs, endNs, message FROM MSTX_EVENTS WHERE globalTid = ? AND eventType IN (1, 2) "
		"AND endNs IS NOT NULL ORDER BY startNs, endNs DESC";
	struct streamed_sweep *w = ctx;
	int64_t tid = sqlite3_column_int64(sel, 0), start = sqlite3_column_int64(sel, 1);
	int64_t end = sqlite3_column_int64(sel, 2);
	int r;
	if (w->cur >= w->nth || w->th[w->cur].tid != tid) {
		for (w->cur = 0; w->cur < w->nth && w->th[w->cur].tid != tid; w->cur++)
			;
		if (w->cur == w->nth) {
			if (w->nth == RANGE_THREADS_MAX) {
				w->ordered = false;
				return 1;
			}
			w->th[w->nth] = (struct range_thread){ .tid = tid, .last_start = INT64_MIN };
			if ((r = exp_prepare(w->e, ranges_sql, &w->th[w->nth].ranges)) < 0)
				return r;
			sqlite3_bind_int64(w->th[w->nth].ranges, 1, tid);
			w->nth++;
		}
	}
	struct range_thread *t = &w->th[w->cur];
	if (start < t->last_start) {
		w->ordered = false;
		return 1;
	}
	t->last_start = start;
	if ((r = ranges_upto(w->e, t, start)) < 0)
		return r;
	return answer(w->e, w->ins, t->stack, &t->n, start, end, sqlite3_column_int64(sel, 3));
}

static int build_task_ranges_streamed(struct exp *e, bool *ret_done)
{
	static const char calls_sql[] =
		"SELECT (a.pid << 32) | a.tid, a.startNs, a.endNs, t.globalTaskId FROM GPU_API a "
		"JOIN GPU_PID p ON p.pid = a.pid JOIN TASK t ON t.connectionId = (p.ord << 32) | a.correlationId "
		"ORDER BY a.rowid";
	struct streamed_sweep w = { .e = e, .ordered = true };
	*ret_done = false;
	int r = exp_prepare(e, calls_sql, &w.sel);
	if (r == 0)
		r = exp_prepare(e, "INSERT OR IGNORE INTO GPU_TASK_RANGE VALUES (?, ?)", &w.ins);
	if (r == 0)
		r = exp_stmt_each(e, w.sel, "GPU_TASK_RANGE", streamed_sweep_row, &w);
	if (r > 0)
		r = 0;
	bool ordered = w.ordered;
	for (size_t i = 0; i < w.nth; i++) {
		sqlite3_finalize(w.th[i].ranges);
		free(w.th[i].stack);
	}
	sqlite3_finalize(w.sel);
	sqlite3_finalize(w.ins);
	/* the sorted sweep starts over (no ROLLBACK TO: the database is
	 * built without a journal) */
	if (r == 0 && !ordered)
		r = exp_exec(e, "DELETE FROM GPU_TASK_RANGE");
	*ret_done = r == 0 && ordered;
	return r;
}

static int build_task_ranges(struct exp *e)
{
	bool done;
	int r = build_task_ranges_streamed(e, &done);
	if (r == 0 && !done)
		r = build_task_ranges_sorted(e);
	return r;
}

/* --- msprof's tables --------------------------------------------------------------- */

static int memcpy_rows(struct exp *e)
{
	char sql[128];
	int r = exp_exec(e, "INSERT INTO MEMCPY_INFO SELECT rowid, bytes, CASE copyKind "
			    "WHEN 9 THEN 0 WHEN 1 THEN 1 WHEN 3 THEN 1 WHEN 2 THEN 2 WHEN 4 THEN 2 "
			    "WHEN 8 THEN 3 WHEN 6 THEN 3 WHEN 7 THEN 3 WHEN 5 THEN 3 WHEN 10 THEN 5 ELSE 65535 END "
			    "FROM GPU_TASK WHERE kind = 2");
	for (size_t i = 0; i < ARRAY_SIZE(exp_memcpy_operations) && r == 0; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO ENUM_MEMCPY_OPERATION VALUES (%zu, '%s')", i,
			 exp_memcpy_operations[i]);
		r = exp_exec(e, sql);
	}
	if (r == 0)
		r = exp_exec(e, "INSERT INTO ENUM_MEMCPY_OPERATION VALUES (65535, 'other')");
	return r;
}

/* Kernel names repeat (a training step launches the same few hundred
 * kernels over and over): the STRING_IDS ids of each mangled name's
 * demangled name and OP Type are kept in a direct-mapped table, so each
 * distinct name is demangled about once.  A slot holds the last name that
 * hashed to it, which bounds the table at KNAME_SLOTS names. */
#define KNAME_SLOTS 4096U

struct kname {
	char *mangled;
	int64_t name_id, type_id;
};

static uint32_t kname_hash(const char *s)
{
	uint32_t h = 2166136261U;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619U;
	return h;
}

static int kname_ids(struct exp *e, struct kname *cache, const char *mangled, int64_t *ret_name, int64_t *ret_type,
		     bool *ret_added)
{
	struct kname *k = &cache[kname_hash(mangled) & (KNAME_SLOTS - 1)];
	bool added = !k->mangled || !streq(k->mangled, mangled);
	if (added) {
		_cleanup_free_ char *name = demangle(mangled);
		char *copy = strdup(mangled);
		char type[512];
		int64_t name_id, type_id;
		if (!name || !copy)
			return free(copy), -ENOMEM;
		op_type(name, type, sizeof type);
		int r = exp_intern_id(e, name, &name_id);
		if (r == 0)
			r = exp_intern_id(e, type, &type_id);
		if (r < 0)
			return free(copy), r;
		free(k->mangled);
		*k = (struct kname){ copy, name_id, type_id };
	}
	*ret_name = k->name_id;
	*ret_type = k->type_id;
	*ret_added = added;
	return 0;
}

/* TASK, COMPUTE_TASK_INFO (--task-time) and MEMCPY_INFO (with --runtime-api
 * too), each one INSERT ... SELECT over GPU_TASK in the order the tasks
 * were read (globalTaskId is GPU_TASK's rowid, so each table is written in
 * its key order).  Kernel names are demangled once per distinct name, in a
 * pass that interns them in the order the kernels were read, into the
 * TEMP table KERNEL_NAME the COMPUTE_TASK_INFO insert joins. */
struct kernel_walk {
	struct exp *e;
	sqlite3_stmt *ins;
	struct kname *cache;
};

static int kernel_name_row(sqlite3_stmt *sel, void *ctx)
{
	struct kernel_walk *w = ctx;
	const char *mangled = (const char *)sqlite3_column_text(sel, 0);
	bool added;
	int64_t name_id, type_id;
	if (!mangled)
		return -ENOMEM;
	int r = kname_ids(w->e, w->cache, mangled, &name_id, &type_id, &added);
	if (r < 0 || !added)
		return r;
	sqlite3_bind_text(w->ins, 1, mangled, -1, SQLITE_STATIC);
	sqlite3_bind_int64(w->ins, 2, name_id);
	sqlite3_bind_int64(w->ins, 3, type_id);
	return exp_step_done(w->e, w->ins, "KERNEL_NAME");
}

static int kernel_names(struct exp *e)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int r = exp_exec(e, "CREATE TEMP TABLE KERNEL_NAME (mangled TEXT PRIMARY KEY, nameId INTEGER, "
			    "typeId INTEGER) WITHOUT ROWID");
	if (r == 0)
		r = exp_prepare(e, "SELECT coalesce(name, '') FROM GPU_TASK WHERE kind = 1 ORDER BY rowid", &sel);
	if (r == 0)
		r = exp_prepare(e, "INSERT OR IGNORE INTO KERNEL_NAME VALUES (?, ?, ?)", &ins);
	struct kernel_walk w = { e, ins, r == 0 ? calloc(KNAME_SLOTS, sizeof(*w.cache)) : NULL };
	if (r == 0 && !w.cache)
		r = -ENOMEM;
	if (r == 0)
		r = exp_stmt_each(e, sel, "GPU_TASK", kernel_name_row, &w);
	for (size_t i = 0; w.cache && i < KNAME_SLOTS; i++)
		free(w.cache[i].mangled);
	free(w.cache);
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return r < 0 ? r : 0;
}

static int build_tasks(struct exp *e, bool memcpy_info)
{
	/* TaskConnectionIndex: the CANN layer asks, per call, whether it
	 * launched a task (without it, a scan of TASK per call).  Both are
	 * made before the rows go in: the tasks come nearly in start and
	 * connection order, so keeping them costs less than sorting after. */
	int r = exp_exec(e, "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId); "
			    "CREATE INDEX TaskConnectionIndex ON TASK (connectionId)");
	if (r < 0)
		return r;
	int64_t ids[4] = { 0 }, na = 0;
	for (int k = GPU_TASK_KERNEL; k <= GPU_TASK_MEMSET && r == 0; k++)
		r = exp_intern_id(e, task_types[k], &ids[k]);
	if (r < 0)
		return r;
	char sql[1024];
	snprintf(sql, sizeof sql,
		 "INSERT INTO TASK SELECT t.startNs, t.endNs, t.deviceId, (g.ord << 32) | t.correlationId, t.rowid, "
		 "t.pid, CASE t.kind WHEN 1 THEN %" PRId64 " WHEN 2 THEN %" PRId64 " ELSE %" PRId64 " END, "
		 "t.contextId, t.streamId, t.correlationId, %lld FROM GPU_TASK t JOIN GPU_PID g ON g.pid = t.pid "
		 "ORDER BY t.rowid",
		 ids[GPU_TASK_KERNEL], ids[GPU_TASK_MEMCPY], ids[GPU_TASK_MEMSET], MODEL_ID_NONE);
	if ((r = exp_exec(e, sql)) < 0)
		return r;
	if (memcpy_info && (r = memcpy_rows(e)) < 0)
		return r;
	/* opState "static" (reference §3, §5: msprof's op_summary OP State and
	 * COMPUTE_TASK_INFO.opState are "static" or "dynamic" for an operator,
	 * N/A for a task that is none).  A CUDA kernel is launched with its
	 * grid and block fixed and runs code compiled before the launch: no
	 * shape is inferred or tiled at run time, which is what makes an
	 * Ascend operator "dynamic".  Nothing we record says otherwise, so no
	 * row is "dynamic"; memory copies and sets are no operators and have no
	 * COMPUTE_TASK_INFO row (nor an op_summary one).  msprof-analyze's
	 * advisor reports "all operators are dynamic shape" unless a row says
	 * exactly "static" (readers/NOTES.md §2). */
	int64_t op_static = 0;
	if ((r = exp_intern_id(e, "N/A", &na)) < 0 || (r = exp_intern_id(e, "static", &op_static)) < 0 ||
	    (r = kernel_names(e)) < 0)
		return r;
	/* blockNum: blocks in the grid; mixBlockNum: threads per block;
	 * formats, types, shapes, attrInfo, hf32Eligible N/A */
	snprintf(sql, sizeof sql,
		 "INSERT INTO COMPUTE_TASK_INFO SELECT k.nameId, t.rowid, t.gridX * t.gridY * t.gridZ, "
		 "t.blockX * t.blockY * t.blockZ, %" PRId64 ", k.typeId, %" PRId64 ", %" PRId64 ", %" PRId64 ", "
		 "%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", "
		 "printf('%%d,%%d,%%d', t.gridX, t.gridY, t.gridZ), printf('%%d,%%d,%%d', t.blockX, t.blockY, t.blockZ) "
		 "FROM GPU_TASK t JOIN KERNEL_NAME k ON k.mangled = coalesce(t.name, '') WHERE t.kind = 1 "
		 "ORDER BY t.rowid",
		 ids[GPU_TASK_KERNEL], na, na, na, na, na, na, na, op_static, na);
	if ((r = exp_exec(e, sql)) == 0)
		r = exp_exec(e, "DROP TABLE KERNEL_NAME");
	return r;
}

/* CANN_API: the runtime calls, names interned (--runtime-api) in the order
 * of the calls' connection ids, as the CANN layer lists them: a pass over
 * the calls collects each distinct name with its first connection id, then
 * one INSERT ... SELECT in connection id order (CANN_API's key) joins the
 * names' ids from the TEMP table API_NAME.  Of two calls with one
 * connection id the first read is kept. */
struct api_name {
	char *name;
	int64_t first; /* (pid << 32) | correlationId of its first call */
	int64_t rowid;
};

static int api_name_cmp(const void *a, const void *b)
{
	const struct api_name *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

/* Distinct names are few (the runtime's entry points); past API_NAMES_MAX
 * the names are interned call by call instead. */
#define API_NAMES_MAX 1024U
#define API_NAME_SLOTS (2 * API_NAMES_MAX)

/* The distinct names of the calls, each with its first call. */
struct api_walk {
	struct api_name *v;
	uint16_t slot[API_NAME_SLOTS]; /* index + 1 in v of the names, by hash */
	size_t n, cap, last;
	bool full;                     /* more than API_NAMES_MAX: given up */
};

static int api_name_row(sqlite3_stmt *sel, void *ctx)
{
	struct api_walk *w = ctx;
	const char *name = (const char *)sqlite3_column_text(sel, 0);
	int64_t first = sqlite3_column_int64(sel, 1), rowid = sqlite3_column_int64(sel, 2);
	if (!name)
		return -ENOMEM;
	size_t n = w->n, i = w->last < n && streq(w->v[w->last].name, name) ? w->last : n;
	uint32_t h = kname_hash(name) & (API_NAME_SLOTS - 1);
	for (; i == n && w->slot[h]; h = (h + 1) & (API_NAME_SLOTS - 1))
		if (streq(w->v[w->slot[h] - 1].name, name))
			i = w->slot[h] - 1U;
	if (i < n) {
		if (first < w->v[i].first)
			w->v[i].first = first, w->v[i].rowid = rowid;
		w->last = i;
		return 0;
	}
	if (n == API_NAMES_MAX) {
		w->full = true;
		return 1;
	}
	struct api_name *nv = grow_array(w->v, &w->cap, n, sizeof *nv, 64);
	if (!nv)
		return -ENOMEM;
	w->v = nv;
	if (!(w->v[n].name = strdup(name)))
		return -ENOMEM;
	w->v[n].first = first, w->v[n].rowid = rowid;
	w->slot[h] = (uint16_t)(n + 1);
	w->last = w->n++;
	return 0;
}

static int api_names(struct exp *e, bool *ret_done)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	struct api_walk *w = calloc(1, sizeof(*w));
	*ret_done = false;
	if (!w)
		return -ENOMEM;
	int r = exp_prepare(e, "SELECT coalesce(name, ''), (pid << 32) | correlationId, rowid FROM GPU_API", &sel);
	if (r == 0)
		r = exp_stmt_each(e, sel, "GPU_API", api_name_row, w);
	if (r > 0)
		r = 0;
	if (r == 0 && !w->full) {
		struct api_name *v = w->v;
		size_t n = w->n;
		r = exp_exec(e, "CREATE TEMP TABLE API_NAME (name TEXT PRIMARY KEY, id INTEGER) WITHOUT ROWID");
		if (r == 0)
			r = exp_prepare(e, "INSERT INTO API_NAME VALUES (?, ?)", &ins);
		if (r == 0)
			qsort_safe(v, n, sizeof(*v), api_name_cmp);
		for (size_t i = 0; i < n && r == 0; i++) {
			int64_t id;
			if ((r = exp_intern_id(e, v[i].name, &id)) < 0)
				break;
			sqlite3_bind_text(ins, 1, v[i].name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, 2, id);
			r = exp_step_done(e, ins, "API_NAME");
		}
		*ret_done = r == 0;
	}
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].name);
	free(w->v);
	free(w);
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return r;
}

/* The same, a call at a time: names interned as the calls are read */
struct api_each {
	struct exp *e;
	sqlite3_stmt *ins;
};

static int api_call_row(sqlite3_stmt *sel, void *ctx)
{
	struct api_each *w = ctx;
	int64_t name_id;
	const char *name = (const char *)sqlite3_column_text(sel, 4);
	int r = exp_intern_id(w->e, name ? name : "", &name_id);
	if (r < 0)
		return r;
	sqlite3_stmt *ins = w->ins;
	sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
	sqlite3_bind_int64(ins, 2, sqlite3_column_int64(sel, 1));
	sqlite3_bind_int64(ins, 3, API_TYPE_RUNTIME);
	sqlite3_bind_int64(ins, 4, sqlite3_column_int64(sel, 2));
	sqlite3_bind_int64(ins, 5, sqlite3_column_int64(sel, 3));
	sqlite3_bind_int64(ins, 6, name_id);
	return exp_step_done(w->e, ins, "CANN_API");
}

static int build_api_each(struct exp *e)
{
	sqlite3_stmt *sel;
	int r = exp_prepare(e, "SELECT a.startNs, a.endNs, (a.pid << 32) | a.tid, (g.ord << 32) | a.correlationId, a.name "
			   "FROM GPU_API a JOIN GPU_PID g ON g.pid = a.pid ORDER BY a.pid, a.correlationId, a.rowid", &sel);
	if (r < 0)
		return r;
	struct api_each w = { e, NULL };
	r = exp_prepare(e, "INSERT OR IGNORE INTO CANN_API VALUES (?, ?, ?, ?, ?, ?)", &w.ins);
	if (r == 0)
		r = exp_stmt_each(e, sel, "GPU_API", api_call_row, &w);
	sqlite3_finalize(sel);
	sqlite3_finalize(w.ins);
	return r < 0 ? r : 0;
}

static int build_api(struct exp *e)
{
	bool named;
	int r = api_names(e, &named);
	if (r == 0 && named) {
		char sql[512];
		snprintf(sql, sizeof sql,
			 "INSERT OR IGNORE INTO CANN_API SELECT a.startNs, a.endNs, %d, (a.pid << 32) | a.tid, "
			 "(g.ord << 32) | a.correlationId, n.id FROM GPU_API a JOIN GPU_PID g ON g.pid = a.pid "
			 "JOIN API_NAME n ON n.name = coalesce(a.name, '') ORDER BY a.pid, a.correlationId, a.rowid",
			 API_TYPE_RUNTIME);
		r = exp_exec(e, sql);
		if (r == 0)
			r = exp_exec(e, "DROP TABLE API_NAME");
	} else if (r == 0) {
		r = build_api_each(e);
	}
	if (r == 0)
		r = exp_exec(e, "INSERT INTO ENUM_API_TYPE VALUES (5000, 'runtime')");
	return r;
}

/* --task-time and --runtime-api as host/sample.json has them; where the
 * file or the key is missing (an agent's standalone output) both are taken
 * as on, so whatever was recorded is exported. */
static void gpu_switches(struct exp *e, bool *ret_tasks, bool *ret_api)
{
	const struct settings *s = &e->sample;
	*ret_tasks = !settings_given(s, SET_TASK_TIME) || s->u[SET_TASK_TIME] != TASK_TIME_OFF;
	*ret_api = !settings_given(s, SET_RUNTIME_API) || s->u[SET_RUNTIME_API];
}

/* GPU_SYNC.tid and .connectionId from the call each wait happened in */
static int sync_threads(struct exp *e)
{
	if (!exp_table_has_rows(e, "GPU_SYNC") || !exp_table_has_rows(e, "GPU_API"))
		return 0;
	return exp_exec(e, "UPDATE GPU_SYNC SET (tid, connectionId) = (SELECT a.tid, (g.ord << 32) | a.correlationId "
			   "FROM GPU_API a JOIN GPU_PID g ON g.pid = a.pid WHERE a.pid = GPU_SYNC.pid AND "
			   "a.correlationId = GPU_SYNC.correlationId)");
}

int exp_build_gpu_tasks(struct exp *e)
{
	exp_gpu_free(e);
	if (!exp_table_has_rows(e, "GPU_TASK") && !exp_table_has_rows(e, "GPU_API") &&
	    !exp_table_has_rows(e, "GPU_SYNC"))
		return 0;
	bool want_tasks, want_api;
	gpu_switches(e, &want_tasks, &want_api);
	int r = exp_exec(e, "CREATE INDEX GpuApiIndex ON GPU_API (pid, correlationId); "
			    "CREATE TEMP TABLE GPU_PID AS SELECT pid, row_number() OVER (ORDER BY pid) - 1 AS ord "
			    "FROM (SELECT pid FROM GPU_TASK UNION SELECT pid FROM GPU_API)");
	if (r == 0)
		r = sync_threads(e);
	if (r == 0 && want_tasks)
		r = build_tasks(e, want_api);
	if (r == 0 && want_api)
		r = build_api(e);
	/* the innermost mstx/NVTX range (push/pop or start/end) of the
	 * launching thread around each launch */
	if (r == 0 && want_tasks && exp_table_has_rows(e, "MSTX_EVENTS") && exp_table_has_rows(e, "GPU_API"))
		r = build_task_ranges(e);
	if (r == 0)
		r = exp_index_gpu_tasks(e);
	return r;
}

static int take_gpu(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		    int64_t t)
{
	return gpu_record(e, ap->h, ap->pid, rec);
}

static const struct exp_agent_record records[] = {
	{ RAW_AGENT_GPU_TASK, take_gpu },
	{ RAW_AGENT_GPU_API, take_gpu },
	{ RAW_AGENT_GPU_SYNC, take_gpu },
	{ 0, NULL },
};

static const char *const tables[] = {
	"GPU_TASK", "GPU_API", "GPU_SYNC", "GPU_TASK_RANGE", "TASK", "COMPUTE_TASK_INFO", "MEMCPY_INFO",
	"CANN_API", "ENUM_API_TYPE", "ENUM_MEMCPY_OPERATION", NULL
};
static const enum export_csv csvs[] = { CSV_OP_SUMMARY, CSV_OP_STATISTIC, CSV_TASK_TIME, CSV_API_STATISTIC, _CSV_MAX };

/* Device tasks (kernels, copies, sets) and the runtime calls that launched
 * them: the agents' GPU records -> GPU_TASK, GPU_API,
 * GPU_SYNC -> TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API; the CANN and
 * Ascend Hardware layers and the op_summary, op_statistic, task_time and
 * api_statistic summaries (domain-tasks-output.c). */
const struct exp_domain exp_domain_tasks = {
	.name = "device tasks",
	.tables = tables,
	.csvs = csvs,
	.agent_records = records,
	.build = exp_build_gpu_tasks,
	.release = exp_gpu_free,
	.has_layers = exp_have_gpu_layers,
	.layers = exp_write_gpu_layers,
	.summaries = exp_write_gpu_summaries,
};
