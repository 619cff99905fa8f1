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

#include <cjson/cJSON.h>

#include "cjson-cleanup.h"
#include "gputask.h"
#include "internal.h"
#include "profdir.h"
#include "raw.h"
#include "util.h"

#define MODEL_ID_NONE 4294967295LL   /* msprof's model id for "no model" */
#define API_TYPE_RUNTIME 5000        /* ENUM_API_TYPE runtime */

struct exp_gpu {
	sqlite3_stmt *task, *api, *sync;
};

static const char task_sql[] =
	"INSERT INTO GPU_TASK VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char api_sql[] = "INSERT INTO GPU_API VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char sync_sql[] = "INSERT INTO GPU_SYNC VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)";

void exp_gpu_free(struct exp *e)
{
	if (!e->gpu)
		return;
	sqlite3_finalize(e->gpu->task);
	sqlite3_finalize(e->gpu->api);
	sqlite3_finalize(e->gpu->sync);
	free(e->gpu);
	e->gpu = NULL;
}

/* A synchronisation; its thread and connection id come from its call at
 * build time (sync_threads). */
static int sync_record(struct exp *e, const struct raw_header *h, uint32_t pid, const struct raw_record *rec)
{
	struct gpu_sync y;
	if (gpu_decode_sync(rec->payload, rec->len, &y) < 0)
		return 1;
	sqlite3_stmt *st = e->gpu->sync;
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

int exp_gpu_record(struct exp *e, const struct raw_header *h, uint32_t pid, const struct raw_record *rec)
{
	if (!e->gpu) {
		if (!(e->gpu = calloc(1, sizeof(*e->gpu))))
			return -ENOMEM;
		int r = exp_prepare(e, task_sql, &e->gpu->task);
		if (r == 0)
			r = exp_prepare(e, api_sql, &e->gpu->api);
		if (r == 0)
			r = exp_prepare(e, sync_sql, &e->gpu->sync);
		if (r < 0)
			return r;
	}
	if (rec->type == RAW_AGENT_GPU_SYNC)
		return sync_record(e, h, pid, rec);
	if (rec->type == RAW_AGENT_GPU_TASK) {
		struct gpu_task *t = malloc(sizeof(*t));
		if (!t)
			return -ENOMEM;
		if (gpu_decode_task(rec->payload, rec->len, t) < 0)
			return free(t), 1;
		sqlite3_stmt *st = e->gpu->task;
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
		sqlite3_bind_text(st, c++, t->name, -1, SQLITE_TRANSIENT);
		exp_note_time(e, raw_unix_ns(h, t->end));
		free(t);
		return exp_step_done(e, st, "GPU_TASK");
	}
	struct gpu_api *a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	if (gpu_decode_api(rec->payload, rec->len, a) < 0)
		return free(a), 1;
	sqlite3_stmt *st = e->gpu->api;
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, a->tid);
	sqlite3_bind_int64(st, 3, raw_unix_ns(h, a->start));
	sqlite3_bind_int64(st, 4, raw_unix_ns(h, a->end));
	sqlite3_bind_int64(st, 5, a->correlation);
	sqlite3_bind_int64(st, 6, a->cbid);
	sqlite3_bind_int64(st, 7, a->result);
	sqlite3_bind_text(st, 8, a->name, -1, SQLITE_TRANSIENT);
	exp_note_time(e, raw_unix_ns(h, a->end));
	free(a);
	return exp_step_done(e, st, "GPU_API");
}

/* --- names --------------------------------------------------------------------- */

/* The C++ runtime's demangler, found at run time so that the export has
 * no C++ dependency; without it names stay mangled. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangler(void)
{
	static bool tried;
	static demangle_fn fn;
	if (!tried) {
		tried = true;
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
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
static int build_task_ranges(struct exp *e)
{
	static const char sql[] =
		"SELECT globalTid, startNs, endNs, message, 0 AS call, 0 FROM MSTX_EVENTS "
		"WHERE eventType IN (1, 2) AND endNs IS NOT NULL "
		"UNION ALL SELECT (a.pid << 32) | a.tid, a.startNs, a.endNs, 0, 1, t.globalTaskId FROM TASK t "
		"JOIN GPU_TASK g ON g.rowid = t.globalTaskId "
		"JOIN GPU_API a ON a.pid = g.pid AND a.correlationId = g.correlationId "
		"ORDER BY 1, 2, 5, 3 DESC";
	sqlite3_stmt *sel, *ins;
	int r = exp_prepare(e, sql, &sel);
	if (r < 0)
		return r;
	if ((r = exp_prepare(e, "INSERT INTO GPU_TASK_RANGE VALUES (?, ?)", &ins)) < 0) {
		sqlite3_finalize(sel);
		return r;
	}
	_cleanup_free_ struct open_range *stack = NULL;
	size_t n = 0, cap = 0;
	int64_t tid = 0;
	int rc = SQLITE_DONE;
	while (r == 0 && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(sel, 0), start = sqlite3_column_int64(sel, 1);
		int64_t end = sqlite3_column_int64(sel, 2);
		if (n == 0 || t != tid)
			n = 0, tid = t;
		if (!sqlite3_column_int64(sel, 4)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 64;
				struct open_range *s = realloc(stack, c * sizeof(*s));
				if (!s) {
					r = -ENOMEM;
					break;
				}
				stack = s, cap = c;
			}
			stack[n++] = (struct open_range){ start, end, sqlite3_column_int64(sel, 3) };
			continue;
		}
		while (n > 0 && stack[n - 1].end < start)
			n--;
		for (size_t i = n; i-- > 0;) {
			if (stack[i].end < end)
				continue;
			sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 5));
			sqlite3_bind_int64(ins, 2, stack[i].message);
			r = exp_step_done(e, ins, "GPU_TASK_RANGE");
			break;
		}
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, "GPU_TASK_RANGE");
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
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

/* TASK, COMPUTE_TASK_INFO (--task-time) and MEMCPY_INFO (with --runtime-api too) */
static int build_tasks(struct exp *e, bool memcpy_info)
{
	/* TaskConnectionIndex: the CANN layer asks, per call, whether it
	 * launched a task (without it, a scan of TASK per call) */
	int r = exp_exec(e, "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId); "
			    "CREATE INDEX TaskConnectionIndex ON TASK (connectionId)");
	if (r < 0)
		return r;
	int64_t ids[4] = { 0 };
	for (int k = GPU_TASK_KERNEL; k <= GPU_TASK_MEMSET && r == 0; k++)
		r = exp_intern_id(e, task_types[k], &ids[k]);
	if (r < 0)
		return r;
	char sql[1024];
	/* globalTaskId: GPU_TASK's rowid, in the order the tasks were read */
	snprintf(sql, sizeof sql,
		 "INSERT INTO TASK SELECT t.startNs, t.endNs, t.deviceId, (g.ord << 32) | t.correlationId, t.rowid, "
		 "t.pid, CASE t.kind WHEN 1 THEN %" PRId64 " WHEN 2 THEN %" PRId64 " ELSE %" PRId64 " END, "
		 "t.contextId, t.streamId, t.correlationId, %lld FROM GPU_TASK t JOIN GPU_PID g ON g.pid = t.pid",
		 ids[1], ids[2], ids[3], MODEL_ID_NONE);
	if ((r = exp_exec(e, sql)) < 0)
		return r;
	if (memcpy_info && (r = memcpy_rows(e)) < 0)
		return r;

	/* COMPUTE_TASK_INFO, one row per kernel, names demangled here */
	sqlite3_stmt *sel, *ins;
	r = exp_prepare(e, "SELECT rowid, name, gridX, gridY, gridZ, blockX, blockY, blockZ FROM GPU_TASK "
			   "WHERE kind = 1", &sel);
	/* mixBlockNum: threads per block */
	if (r < 0)
		return r;
	r = exp_prepare(e, "INSERT INTO COMPUTE_TASK_INFO VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			&ins);
	if (r < 0) {
		sqlite3_finalize(sel);
		return r;
	}
	int64_t na;
	r = exp_intern_id(e, "N/A", &na);
	int rc = SQLITE_DONE;
	while (r == 0 && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *mangled = (const char *)sqlite3_column_text(sel, 1);
		_cleanup_free_ char *name = demangle(mangled ? mangled : "");
		char type[512], grid[64], block[64];
		int64_t name_id, type_id;
		if (!name) {
			r = -ENOMEM;
			break;
		}
		op_type(name, type, sizeof type);
		int64_t g[3], b[3];
		for (int i = 0; i < 3; i++)
			g[i] = sqlite3_column_int64(sel, 2 + i), b[i] = sqlite3_column_int64(sel, 5 + i);
		snprintf(grid, sizeof grid, "%" PRId64 ",%" PRId64 ",%" PRId64, g[0], g[1], g[2]);
		snprintf(block, sizeof block, "%" PRId64 ",%" PRId64 ",%" PRId64, b[0], b[1], b[2]);
		if ((r = exp_intern_id(e, name, &name_id)) < 0 || (r = exp_intern_id(e, type, &type_id)) < 0)
			break;
		int c = 1;
		sqlite3_bind_int64(ins, c++, name_id);
		sqlite3_bind_int64(ins, c++, sqlite3_column_int64(sel, 0));
		sqlite3_bind_int64(ins, c++, g[0] * g[1] * g[2]);    /* blockNum: blocks in the grid */
		sqlite3_bind_int64(ins, c++, b[0] * b[1] * b[2]);    /* mixBlockNum: threads per block */
		sqlite3_bind_int64(ins, c++, ids[GPU_TASK_KERNEL]);  /* taskType */
		sqlite3_bind_int64(ins, c++, type_id);               /* opType */
		for (int i = 0; i < 6; i++)                           /* formats, types, shapes */
			sqlite3_bind_int64(ins, c++, na);
		sqlite3_bind_int64(ins, c++, na);                    /* attrInfo */
		sqlite3_bind_int64(ins, c++, na);                    /* opState */
		sqlite3_bind_int64(ins, c++, na);                    /* hf32Eligible */
		sqlite3_bind_text(ins, c++, grid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, c++, block, -1, SQLITE_TRANSIENT);
		r = exp_step_done(e, ins, "COMPUTE_TASK_INFO");
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, "GPU_TASK");
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return r;
}

/* CANN_API: the runtime calls, names interned (--runtime-api) */
static int build_api(struct exp *e)
{
	sqlite3_stmt *sel, *ins;
	int rc = SQLITE_DONE;
	int r = exp_prepare(e, "SELECT a.startNs, a.endNs, (a.pid << 32) | a.tid, (g.ord << 32) | a.correlationId, a.name "
			   "FROM GPU_API a JOIN GPU_PID g ON g.pid = a.pid", &sel);
	if (r < 0)
		return r;
	r = exp_prepare(e, "INSERT OR IGNORE INTO CANN_API VALUES (?, ?, ?, ?, ?, ?)", &ins);
	while (r == 0 && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t name_id;
		const char *name = (const char *)sqlite3_column_text(sel, 4);
		if ((r = exp_intern_id(e, name ? name : "", &name_id)) < 0)
			break;
		sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
		sqlite3_bind_int64(ins, 2, sqlite3_column_int64(sel, 1));
		sqlite3_bind_int64(ins, 3, API_TYPE_RUNTIME);
		sqlite3_bind_int64(ins, 4, sqlite3_column_int64(sel, 2));
		sqlite3_bind_int64(ins, 5, sqlite3_column_int64(sel, 3));
		sqlite3_bind_int64(ins, 6, name_id);
		r = exp_step_done(e, ins, "CANN_API");
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = exp_sql_fail(e, rc, "GPU_API");
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	if (r == 0)
		r = exp_exec(e, "INSERT INTO ENUM_API_TYPE VALUES (5000, 'runtime')");
	return r;
}

/* --task-time and --runtime-api as host/sample.json has them; without
 * the file (an agent's standalone output) both are taken as on, so
 * whatever was recorded is exported. */
static void gpu_switches(struct exp *e, bool *ret_tasks, bool *ret_api)
{
	char path[PATH_MAX];
	_cleanup_json_ cJSON *j = NULL;
	bool tasks = true, api = true;
	if ((size_t)snprintf(path, sizeof path, "%s/host/sample.json", e->prof_dir) < sizeof path &&
	    profdir_read_json(path, &j) == 0) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "task_time");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "runtime_api");
		if (cJSON_IsString(t) && t->valuestring)
			tasks = !streq(t->valuestring, "off");
		if (cJSON_IsString(a) && a->valuestring)
			api = streq(a->valuestring, "on");
	}
	*ret_tasks = tasks;
	*ret_api = api;
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
