/* Device tasks through the export: an agent file written with the real raw
 * writer and codec holds CUDA runtime calls and the kernels, copy and set
 * they launched (and one impossible task); the export must give exactly
 * these TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API rows, op_summary,
 * op_statistic, task_time, api_statistic CSVs, and timeline events with a
 * HostToDevice flow from each launch to its task (same pid, tid and ts as
 * the task's event, §9). */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "export/export.h"
#include "export/tables.h"
#include "collectors/gputask.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define US NSEC_PER_USEC
#define PID 5000U

static char tmp[] = "/tmp/test-export-gpu.XXXXXX";

static struct raw_writer *w;
static struct raw_buf b;

static void emit(uint16_t type)
{
	CHECK(b.err == 0 && raw_writer_append(w, type, b.data, (uint32_t)b.len) == 0);
}

static void api(uint64_t us0, uint64_t us1, uint32_t tid, uint32_t corr, const char *name)
{
	struct gpu_api a = { .start = MONO0 + us0 * US, .end = MONO0 + us1 * US, .tid = tid, .correlation = corr,
			     .cbid = 211 };
	snprintf(a.name, sizeof a.name, "%s", name);
	CHECK(gpu_encode_api(&b, &a) == 0);
	emit(RAW_AGENT_GPU_API);
}

/* RAW_AGENT_RANGE_START / _END of a push/pop range in the default domain */
static void push(uint64_t us0, uint32_t tid, const char *msg)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us0 * US);
	raw_buf_u32(&b, tid), raw_buf_u32(&b, 1), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0);
	raw_buf_u32(&b, 0), raw_buf_u32(&b, 0);
	raw_buf_u32(&b, (uint32_t)strlen(msg)), raw_buf_bytes(&b, msg, strlen(msg));
	emit(RAW_AGENT_RANGE_START);
}

static void pop(uint64_t us0, uint32_t tid)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us0 * US);
	raw_buf_u32(&b, tid), raw_buf_u32(&b, 1), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0);
	emit(RAW_AGENT_RANGE_END);
}

static struct gpu_task task;

static void put_task(uint32_t kind, uint64_t us0, uint64_t us1, uint32_t stream, uint32_t corr)
{
	task.kind = kind, task.start = MONO0 + us0 * US, task.end = MONO0 + us1 * US;
	task.device = 0, task.context = 1, task.stream = stream, task.correlation = corr;
	CHECK(gpu_encode_task(&b, &task) == 0);
	emit(RAW_AGENT_GPU_TASK);
}

/* A PROF dir "PROF_00000<index>_..." under tmp/<sub> (tmp itself when sub
 * is NULL) with the host files of a session ending end_us after the start,
 * and its agent file open in w with the process record written. */
/* The output file in dir named prefix and a digit holds exactly want. */
static void check_file(const char *dir, const char *prefix, const char *want)
{
	char *p = find_file(dir, prefix, NULL);
	check_text(prefix, slurp(p), want);
	free(p);
}

static char *open_prof(const char *sub, int index, uint64_t end_us)
{
	char *parent, *prof, *host;
	if (sub)
		CHECK(asprintf(&parent, "%s/%s", tmp, sub) > 0 && mkdir(parent, 0755) == 0);
	else
		CHECK((parent = strdup(tmp)) != NULL);
	CHECK(asprintf(&prof, "%s/PROF_%06d_20231114221320000_00005000ABCDEFGH", parent, index) > 0);
	w = agent_prof_open(prof, end_us, MONO0, REAL0, &b, &host);
	free(parent);
	free(host);
	return prof;
}

static char *make_prof(void)
{
	char *prof = open_prof(NULL, 1, 20000);

	/* an NVTX push "forward" on thread 5000 from 500 to 6500 µs: it
	 * encloses the first two launches, not the third (another thread) */
	push(500, 5000, "forward");
	/* µs after the start: launches on threads 5000 and 5001, tasks on
	 * streams 7 and 13 */
	api(1000, 1010, 5000, 1, "cudaLaunchKernel");
	api(6000, 6030, 5000, 2, "cudaMemcpyAsync");
	api(7800, 7830, 5001, 3, "cudaLaunchKernel");
	pop(6500, 5000);
	task = (struct gpu_task){ .grid = { 128, 2, 1 }, .block = { 256, 1, 1 }, .shared_mem = 0, .registers = 32 };
	snprintf(task.name, sizeof task.name, "_Z4fillIfEvi");  /* void fill<float>(int) */
	put_task(GPU_TASK_KERNEL, 2000, 5000, 7, 1);
	task = (struct gpu_task){ .copy_kind = GPU_COPY_HTOD, .bytes = 1 << 20 };
	put_task(GPU_TASK_MEMCPY, 7000, 7500, 7, 2);
	task = (struct gpu_task){ .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	snprintf(task.name, sizeof task.name, "_Z4fillIfEvi");
	put_task(GPU_TASK_KERNEL, 8000, 9000, 7, 3);
	task = (struct gpu_task){ .copy_kind = 0, .bytes = 4096 };
	put_task(GPU_TASK_MEMSET, 10000, 10100, 13, 4);   /* no API call recorded: no flow */
	/* impossible: ends before it starts -- skipped, counted */
	raw_buf_reset(&b);
	task = (struct gpu_task){ .kind = GPU_TASK_MEMSET, .start = MONO0 + 5, .end = MONO0 + 4 };
	CHECK(gpu_encode_task(&b, &task) == 0);
	emit(RAW_AGENT_GPU_TASK);
	raw_writer_free(w);
	raw_buf_release(&b);
	return prof;
}

/* RAW_AGENT_RANGE_START / _END of a start/end range (event type 2) */
static void range_start(uint64_t us0, uint32_t tid, uint64_t id, const char *msg)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us0 * US);
	raw_buf_u32(&b, tid), raw_buf_u32(&b, 2), raw_buf_u64(&b, id), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0);
	raw_buf_u32(&b, 0), raw_buf_u32(&b, 0);
	raw_buf_u32(&b, (uint32_t)strlen(msg)), raw_buf_bytes(&b, msg, strlen(msg));
	emit(RAW_AGENT_RANGE_START);
}

static void range_end(uint64_t us0, uint32_t tid, uint64_t id)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us0 * US);
	raw_buf_u32(&b, tid), raw_buf_u32(&b, 2), raw_buf_u64(&b, id), raw_buf_u64(&b, 0);
	emit(RAW_AGENT_RANGE_END);
}

/* Threads, each a pseudo-random run of nested push/pop ranges,
 * overlapping start/end ranges, ranges starting together, and launches
 * lasting 0..3 µs (some outlive the range around their start); no two
 * ranges of a thread end at the same time, so the innermost range around
 * each launch is one range.  With swap, every other call is recorded
 * after the next one (calls out of start order).  Returns the number of
 * launches. */
static unsigned make_nested_prof(const char *name, uint32_t threads, int events, bool swap, char **ret_prof)
{
	char *prof = open_prof(name, 2, 100000);

	uint32_t seed = 12345, corr = 0;
	uint64_t next_id = 1;
	for (uint32_t tid = 5000; tid < 5000 + threads; tid++) {
		uint64_t t = 10, open_se[4], held_start = 0, held_end = 0;
		uint32_t held_corr = 0;
		unsigned depth = 0, n_se = 0;
		char msg[32];
		for (int k = 0; k < events; k++) {
			seed = seed * 1103515245U + 12345U;
			unsigned action = (seed >> 16) % 5;
			if (action == 0 && depth < 6) {
				t += (seed >> 8) % 2;             /* sometimes with the previous start */
				snprintf(msg, sizeof msg, "push %u.%d", tid, k);
				push(t, tid, msg);
				depth++;
			} else if (action == 1 && depth > 0) {
				pop(++t, tid);                     /* ends are never shared */
				depth--;
			} else if (action == 2 && n_se < 4) {
				t += (seed >> 8) % 2;
				snprintf(msg, sizeof msg, "range %u.%d", tid, k);
				open_se[n_se++] = next_id;
				range_start(t, tid, next_id++, msg);
			} else if (action == 3 && n_se > 0) {
				unsigned i = (seed >> 8) % n_se;  /* any of them: overlaps */
				range_end(++t, tid, open_se[i]);
				open_se[i] = open_se[--n_se];
			} else {
				t += (seed >> 8) % 2;
				task = (struct gpu_task){ .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
				snprintf(task.name, sizeof task.name, "k");
				if (swap && !held_corr) {
					held_start = t, held_end = t + (seed >> 10) % 4, held_corr = ++corr;
					put_task(GPU_TASK_KERNEL, t + 5, t + 6, 7, corr);
					continue;
				}
				api(t, t + (seed >> 10) % 4, tid, ++corr, "cudaLaunchKernel");
				put_task(GPU_TASK_KERNEL, t + 5, t + 6, 7, corr);
				if (held_corr)
					api(held_start, held_end, tid, held_corr, "cudaLaunchKernel");
				held_corr = 0;
			}
		}
		if (held_corr)
			api(held_start, held_end, tid, held_corr, "cudaLaunchKernel");
		while (depth-- > 0)
			pop(++t, tid);
		while (n_se > 0)
			range_end(++t, tid, open_se[--n_se]);
	}
	raw_writer_free(w);
	raw_buf_release(&b);
	*ret_prof = prof;
	return corr;
}

/* GPU_TASK_RANGE of prof's export against its definition */
static void check_ranges(const char *prof)
{
	struct export_report rep;
	sqlite3 *db = NULL;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);

	char *want = rows(db, "SELECT t.globalTaskId, (SELECT m.message FROM MSTX_EVENTS m WHERE m.globalTid = "
			      "a.globalTid AND m.eventType IN (1, 2) AND m.startNs <= a.startNs AND m.endNs >= a.endNs "
			      "ORDER BY m.startNs DESC, m.endNs LIMIT 1) AS message FROM TASK t JOIN CANN_API a ON "
			      "a.connectionId = t.connectionId WHERE message IS NOT NULL ORDER BY 1");
	char *counts = rows(db, "SELECT count(*) > 100, count(*) < (SELECT count(*) FROM TASK), "
			       "count(DISTINCT message) > 50 FROM GPU_TASK_RANGE");
	check_text("GPU_TASK_RANGE, nested and overlapping ranges",
		   rows(db, "SELECT globalTaskId, message FROM GPU_TASK_RANGE ORDER BY 1"), want);
	free(want);
	/* some launches inside ranges, some outside, many different ranges */
	check_text("GPU_TASK_RANGE, what it covers", counts, "1|1|1\n");
	sqlite3_close(db);
}

/* A launch whose runtime call was recorded twice (a damaged or replayed
 * file: the same correlation id on one pid): the export goes on, the task
 * gets one range and the call one CANN_API row. */
static void check_duplicate_call(void)
{
	char *prof = open_prof("dup", 3, 20000);
	push(100, 5000, "outer");
	api(200, 210, 5000, 1, "cudaLaunchKernel");
	api(200, 210, 5000, 1, "cudaLaunchKernel");
	pop(1000, 5000);
	task = (struct gpu_task){ .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	snprintf(task.name, sizeof task.name, "_Z4fillIfEvi");
	put_task(GPU_TASK_KERNEL, 300, 400, 7, 1);
	raw_writer_free(w);
	raw_buf_release(&b);

	struct export_report rep;
	sqlite3 *db;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	check_text("GPU_TASK_RANGE, a call recorded twice",
		   rows(db, "SELECT globalTaskId, s.value FROM GPU_TASK_RANGE r JOIN STRING_IDS s ON s.id = r.message"),
		   "1|outer\n");
	check_text("CANN_API, a call recorded twice", rows(db, "SELECT count(*) FROM CANN_API"), "1\n");
	sqlite3_close(db);
	free(prof);
}

/* The Overlap Analysis of kernels (export/domain-overlap.c): compute and
 * NCCL kernels (mangled names, NCCL >= 2.19 and older), a copy that is
 * neither, in two steps; the sums below are the intervals' algebra worked
 * out by hand from the tasks' times (µs after the start). */
struct ov_ev {
	char name[40];
	int64_t s, e; /* µs after REAL0 */
};

static size_t overlap_events(const char *out, struct ov_ev *ev, size_t max, char *label, size_t label_size)
{
	char *p = find_file(out, "msprof_", NULL), *text = slurp(p);
	cJSON *j = cJSON_Parse(text);
	free(text);
	free(p);
	CHECK(cJSON_IsArray(j));
	double opid = -1;
	const cJSON *e;
	cJSON_ArrayForEach(e, j) {
		const cJSON *args = cJSON_GetObjectItem(e, "args");
		if (streq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), "process_name") &&
		    streq(cJSON_GetStringValue(cJSON_GetObjectItem(args, "name")), "Overlap Analysis")) {
			CHECK(opid < 0); /* one such process */
			opid = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "pid"));
		}
	}
	CHECK(opid == export_format_pid(PID, 31, 0));
	size_t n = 0;
	cJSON_ArrayForEach(e, j) {
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "pid")) != opid)
			continue;
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
		if (streq(name, "process_labels"))
			snprintf(label, label_size, "%s",
				 cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "labels")));
		if (!streq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph")), "X"))
			continue;
		CHECK(n < max);
		double ts = strtod(cJSON_GetStringValue(cJSON_GetObjectItem(e, "ts")), NULL) - REAL0 / 1000;
		ev[n] = (struct ov_ev){ .s = llround(ts),
					.e = llround(ts + cJSON_GetNumberValue(cJSON_GetObjectItem(e, "dur"))) };
		snprintf(ev[n++].name, sizeof ev[0].name, "%s", name);
	}
	cJSON_Delete(j);
	return n;
}

static void check_overlap(void)
{
	/* the one name test, both spellings, mangled or not */
	CHECK(gpu_kernel_is_comm("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 73));
	CHECK(gpu_kernel_is_comm("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", 78));
	CHECK(gpu_kernel_is_comm("_Z26ncclKernel_SendRecv_RING_LL12ncclWorkElem", 44));
	CHECK(!gpu_kernel_is_comm("_Z4fillIfEvi", 12));
	CHECK(!gpu_kernel_is_comm("_ZncclKernel_x", 14));
	CHECK(!gpu_kernel_is_comm("void my_ncclDevKernel_(int)", 27));

	char *prof = open_prof("overlap", 4, 20000);
	/* steps 1 [500, 8000) and 2 [8000, 12000) on thread 5000 */
	push(500, 5000, "step 1");
	pop(8000, 5000);
	push(8000, 5000, "step 2");
	pop(12000, 5000);
	task = (struct gpu_task){ .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	snprintf(task.name, sizeof task.name, "_Z4fillIfEvi");
	put_task(GPU_TASK_KERNEL, 1000, 5000, 7, 1);
	snprintf(task.name, sizeof task.name, "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE");
	put_task(GPU_TASK_KERNEL, 4000, 7000, 8, 2);
	task = (struct gpu_task){ .copy_kind = GPU_COPY_HTOD, .bytes = 4096 };
	put_task(GPU_TASK_MEMCPY, 7200, 7600, 7, 3);
	task = (struct gpu_task){ .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	snprintf(task.name, sizeof task.name, "_Z4fillIfEvi");
	put_task(GPU_TASK_KERNEL, 9000, 10000, 7, 4);
	snprintf(task.name, sizeof task.name, "_Z26ncclKernel_SendRecv_RING_LL12ncclWorkElem");
	put_task(GPU_TASK_KERNEL, 9500, 9800, 8, 5);
	raw_writer_free(w);
	raw_buf_release(&b);

	struct export_report rep;
	sqlite3 *db;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
	/* step 1: computing [1000, 5000), communication [4000, 7000): 1000
	 * overlapped, 2000 not; busy [1000, 7000), free 7500 - 6000; the
	 * copy is neither; preparing 1000 - 500.  Step 2: computing [9000,
	 * 10000), the SendRecv inside it: 300 overlapped; free 4000 - 1000;
	 * preparing 1000.  No receive (an NCCL kernel is none). */
	check_text("STEP_TRACE_TIME",
		   rows(db, "SELECT deviceId, step, pid, (startNs - 1700000000000000000) / 1000, computing / 1000, "
			    "communicationNotOverlapped / 1000, overlapped / 1000, communication / 1000, free / 1000, "
			    "stage / 1000, bubble / 1000, communicationNotOverlappedExcludeReceive / 1000, "
			    "preparing / 1000 FROM STEP_TRACE_TIME ORDER BY startNs"),
		   "0|1|5000|500|4000|2000|1000|3000|1500|7500|0|2000|500\n"
		   "0|2|5000|8000|1000|0|300|300|3000|4000|0|0|1000\n");
	char *out;
	CHECK(asprintf(&out, "%s/mindstudio_profiler_output", prof) > 0);
	check_file(out, "overlap_analysis_",
		   "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
		   "Communication(Not Overlapped and Exclude Receive),Preparing\n"
		   "0,1,4000.0,2000.0,1000.0,3000.0,1500.0,7500.0,0.0,2000.0,500.0\n"
		   "0,2,1000.0,0.0,300.0,300.0,3000.0,4000.0,0.0,0.0,1000.0\n");
	/* the layer: unions within the steps, Free cut at the step boundary */
	struct ov_ev ev[32];
	char label[32] = "";
	size_t n = overlap_events(out, ev, ARRAY_SIZE(ev), label, sizeof label);
	CHECK(streq(label, "NPU 0"));
	static const struct ov_ev want[] = {
		{ "Computing", 1000, 5000 }, { "Computing", 9000, 10000 },
		{ "Communication", 4000, 7000 }, { "Communication", 9500, 9800 },
		{ "Communication(Not Overlapped)", 5000, 7000 },
		{ "Free", 500, 1000 }, { "Free", 7000, 8000 }, { "Free", 8000, 9000 }, { "Free", 10000, 12000 },
	};
	CHECK(n == ARRAY_SIZE(want));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(want); i++) {
		CHECK(streq(ev[i].name, want[i].name));
		CHECK(ev[i].s == want[i].s && ev[i].e == want[i].e);
	}

	/* COMMUNICATION_OP, as the communication domain writes it (reference
	 * §5), joins the device's communication: a receive [10500, 11000).
	 * The database is newer
	 * than the raw files: the export reads it as it is and the layer
	 * takes the table in */
	CHECK(sqlite3_exec(db,
			   "CREATE TABLE IF NOT EXISTS COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
			   "connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, "
			   "retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER, "
			   "deviceId INTEGER, rankSize INTEGER);"
			   "INSERT INTO STRING_IDS (value) VALUES ('hcom_receive__7_0_1');"
			   "INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, deviceId) VALUES "
			   "((SELECT id FROM STRING_IDS WHERE value = 'hcom_receive__7_0_1'), 1700000000010500000, "
			   "1700000000011000000, 0)",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	n = overlap_events(out, ev, ARRAY_SIZE(ev), label, sizeof label);
	static const struct ov_ev want2[] = {
		{ "Computing", 1000, 5000 }, { "Computing", 9000, 10000 },
		{ "Communication", 4000, 7000 }, { "Communication", 9500, 9800 }, { "Communication", 10500, 11000 },
		{ "Communication(Not Overlapped)", 5000, 7000 }, { "Communication(Not Overlapped)", 10500, 11000 },
		{ "Free", 500, 1000 }, { "Free", 7000, 8000 }, { "Free", 8000, 9000 }, { "Free", 10000, 10500 },
		{ "Free", 11000, 12000 },
	};
	CHECK(n == ARRAY_SIZE(want2));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(want2); i++) {
		CHECK(streq(ev[i].name, want2[i].name));
		CHECK(ev[i].s == want2[i].s && ev[i].e == want2[i].e);
	}
	free(out);
	free(prof);
}

int main(void)
{
	CHECK(mkdtemp(tmp));
	char *prof = make_prof(), *prof2;
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(rep.bad_records == 1);

	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	/* start, end (Unix ns), device, connectionId, globalTaskId, pid, type, context, stream, taskId, model */
	check_text("TASK", rows(db, "SELECT t.startNs, t.endNs, deviceId, connectionId, globalTaskId, globalPid, s.value, "
				    "contextId, streamId, taskId, modelId FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
				    "ORDER BY startNs"),
		   "1700000000002000000|1700000000005000000|0|1|1|5000|KERNEL|1|7|1|4294967295\n"
		   "1700000000007000000|1700000000007500000|0|2|2|5000|MEMCPY|1|7|2|4294967295\n"
		   "1700000000008000000|1700000000009000000|0|3|3|5000|KERNEL|1|7|3|4294967295\n"
		   "1700000000010000000|1700000000010100000|0|4|4|5000|MEMSET|1|13|4|4294967295\n");
	check_text("COMPUTE_TASK_INFO",
		   rows(db, "SELECT n.value, globalTaskId, blockNum, mixBlockNum, o.value, h.value, st.value, gridDim, "
			    "blockDim FROM COMPUTE_TASK_INFO c JOIN STRING_IDS n ON n.id = c.name JOIN STRING_IDS o ON "
			    "o.id = c.opType JOIN STRING_IDS h ON h.id = c.hf32Eligible JOIN STRING_IDS st ON "
			    "st.id = c.opState ORDER BY globalTaskId"),
		   /* a CUDA kernel's shape is fixed at launch: opState static */
		   "void fill<float>(int)|1|256|256|fill|N/A|static|128,2,1|256,1,1\n"
		   "void fill<float>(int)|3|1|32|fill|N/A|static|1,1,1|32,1,1\n");
	check_text("MEMCPY_INFO", rows(db, "SELECT * FROM MEMCPY_INFO"), "2|1048576|1\n");
	/* no device_<N> dir: the devices of RANK_DEVICE_MAP are those that
	 * ran tasks, with no rank (info.json has none) */
	char *devices = rows(db, "SELECT DISTINCT -1, deviceId FROM TASK ORDER BY deviceId");
	check_text("RANK_DEVICE_MAP", rows(db, "SELECT rankId, deviceId FROM RANK_DEVICE_MAP ORDER BY deviceId"),
		   devices);
	free(devices);
	check_text("GPU_TASK_RANGE", rows(db, "SELECT globalTaskId, s.value FROM GPU_TASK_RANGE r JOIN STRING_IDS s "
					       "ON s.id = r.message ORDER BY 1"),
		   "1|forward\n2|forward\n");
	check_text("CANN_API", rows(db, "SELECT startNs, endNs, type, globalTid, connectionId, s.value FROM CANN_API a "
					"JOIN STRING_IDS s ON s.id = a.name ORDER BY startNs"),
		   "1700000000001000000|1700000000001010000|5000|21474836485000|1|cudaLaunchKernel\n"
		   "1700000000006000000|1700000000006030000|5000|21474836485000|2|cudaMemcpyAsync\n"
		   "1700000000007800000|1700000000007830000|5000|21474836485001|3|cudaLaunchKernel\n");
	sqlite3_close(db);

	char *out;
	CHECK(asprintf(&out, "%s/mindstudio_profiler_output", prof) > 0);
	check_file(out, "op_summary_",
		   "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
		   "Task Duration(us),Task Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,"
		   "Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID\n"
		   "0,4294967295,1,7,void fill<float>(int),fill,static,KERNEL,1700000000002000.000\t,3000.000,0.000,256,256,"
		   "N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n"
		   "0,4294967295,3,7,void fill<float>(int),fill,static,KERNEL,1700000000008000.000\t,1000.000,500.000,1,32,"
		   "N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n");
	check_file(out, "op_statistic_",
		   "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
		   "0,fill,CUDA,2,4000.000,1000.000,2000.000,3000.000,100.0\n");
	check_file(out, "task_time_",
		   "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n"
		   "0,void fill<float>(int),KERNEL,7,1,3000.000,1700000000002000.000\t,1700000000005000.000\t\n"
		   "0,Memcpy HtoD,MEMCPY,7,2,500.000,1700000000007000.000\t,1700000000007500.000\t\n"
		   "0,void fill<float>(int),KERNEL,7,3,1000.000,1700000000008000.000\t,1700000000009000.000\t\n"
		   "0,Memset,MEMSET,13,4,100.000,1700000000010000.000\t,1700000000010100.000\t\n");
	check_file(out, "api_statistic_",
		   "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
		   "host,Runtime,cudaLaunchKernel,40.000,2,20.000,10.000,30.000,100.0\n"
		   "host,Runtime,cudaMemcpyAsync,30.000,1,30.000,30.000,30.000,0.0\n");

	/* timeline: every flow's f matches a device X event exactly, its s a
	 * Runtime@ event; the memset (no launch recorded) has none */
	char *p = find_file(out, "msprof_", NULL);
	char *text = slurp(p);
	cJSON *ev = cJSON_Parse(text);
	CHECK(cJSON_IsArray(ev));
	unsigned hw_pid = (PID << 10) | (14 << 5) | 0, cann_pid = (PID << 10) | (7 << 5) | 31;
	unsigned n_s = 0, n_f = 0, n_x = 0;
	const cJSON *e, *x;
	cJSON_ArrayForEach(e, ev) {
		const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
		if (streq(ph, "X") && (unsigned)cJSON_GetObjectItem(e, "pid")->valuedouble == hw_pid)
			n_x++;
		if (!streq(ph, "s") && !streq(ph, "f"))
			continue;
		const char *id = cJSON_GetObjectItem(e, "id")->valuestring;
		const char *ts = cJSON_GetObjectItem(e, "ts")->valuestring;
		double pid = cJSON_GetObjectItem(e, "pid")->valuedouble, tid = cJSON_GetObjectItem(e, "tid")->valuedouble;
		CHECK(streq(cJSON_GetObjectItem(e, "cat")->valuestring, "HostToDevice"));
		bool matched = false;
		cJSON_ArrayForEach(x, ev) {
			if (!streq(cJSON_GetObjectItem(x, "ph")->valuestring, "X") ||
			    cJSON_GetObjectItem(x, "pid")->valuedouble != pid ||
			    cJSON_GetObjectItem(x, "tid")->valuedouble != tid ||
			    !streq(cJSON_GetObjectItem(x, "ts")->valuestring, ts))
				continue;
			char want[48];
			snprintf(want, sizeof want, "%llu",
				 (unsigned long long)cJSON_GetObjectItem(cJSON_GetObjectItem(x, "args"), "connection_id")
					 ->valuedouble << 32);
			CHECK(streq(id, want));
			matched = true;
		}
		CHECK(matched);
		if (streq(ph, "s")) {
			CHECK((unsigned)pid == cann_pid);
			n_s++;
		} else {
			CHECK((unsigned)pid == hw_pid && streq(cJSON_GetObjectItem(e, "bp")->valuestring, "e"));
			n_f++;
		}
	}
	CHECK(n_x == 4 && n_s == 3 && n_f == 3);
	CHECK(strstr(text, "\"name\":\"Runtime@cudaLaunchKernel\""));
	/* the enclosing range in the args of the tasks it launched, only those */
	const char *r1 = strstr(text, ",\"range\":\"forward\"}}");
	CHECK(r1 && strstr(r1 + 1, ",\"range\":\"forward\"}}") && !strstr(strstr(r1 + 1, ",\"range\":") + 1, ",\"range\":"));
	CHECK(strstr(text, "{\"name\":\"thread_name\",\"pid\":5120448,\"tid\":13,\"ph\":\"M\",\"args\":{\"name\":\"Stream 13\"}}"));
	CHECK(strstr(text, "{\"name\":\"process_labels\",\"pid\":5120448,\"tid\":0,\"ph\":\"M\",\"args\":{\"labels\":\"NPU 0\"}}"));
	cJSON_Delete(ev);
	free(text);
	free(p);
	free(out);

	/* the range around each launch, against its definition run as one
	 * query per task on the same database: calls in start order on two
	 * threads, on more threads than the sweep follows at once (80), and
	 * out of start order */
	static const struct { const char *name; uint32_t threads; int events; bool swap; } nested[] = {
		{ "nested", 2, 600, false }, { "nested-threads", 80, 60, false }, { "nested-swapped", 2, 600, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(nested); i++) {
		unsigned launches = make_nested_prof(nested[i].name, nested[i].threads, nested[i].events, nested[i].swap,
						     &prof2);
		fprintf(stderr, "%s: %u launches\n", nested[i].name, launches);
		check_ranges(prof2);
		free(prof2);
	}
	check_duplicate_call();
	check_overlap();
	rm_rf(tmp);
	free(prof);
	return 0;
}
