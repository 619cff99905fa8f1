/* CUDA synchronisation records and the device switches through the export:
 * an agent file written with the real raw writer and codec holds a
 * cudaStreamSynchronize call with its wait (which CUPTI stamped a little
 * wider than the call), a context wait whose call was not recorded, an
 * impossible wait, and one kernel launch.  Exported as --task-time and
 * --runtime-api ask in host/sample.json, each PROF dir must have exactly
 * the GPU_SYNC rows, msprof tables, files and timeline events its switches
 * give. */
#include <dirent.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "export/export.h"
#include "collectors/gputask.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define US NSEC_PER_USEC
#define PID 5000U

static char tmp[] = "/tmp/test-export-gpusync.XXXXXX";
static struct raw_writer *w;
static struct raw_buf b;

static void emit(uint16_t type)
{
	CHECK(b.err == 0 && raw_writer_append(w, type, b.data, (uint32_t)b.len) == 0);
}

static void api(uint64_t us0, uint64_t us1, uint32_t corr, const char *name)
{
	static struct gpu_api a;
	a = (struct gpu_api){ .start = MONO0 + us0 * US, .end = MONO0 + us1 * US, .tid = PID, .correlation = corr };
	snprintf(a.name, sizeof a.name, "%s", name);
	CHECK(gpu_encode_api(&b, &a) == 0);
	emit(RAW_AGENT_GPU_API);
}

static void wait_rec(uint64_t us0, uint64_t us1, uint32_t type, uint32_t stream, uint32_t corr)
{
	struct gpu_sync y = { .start = MONO0 + us0 * US, .end = MONO0 + us1 * US, .type = type, .context = 1,
			      .stream = stream, .event = GPU_SYNC_NONE, .correlation = corr, .result = 0 };
	CHECK(gpu_encode_sync(&b, &y) == 0);
	emit(RAW_AGENT_GPU_SYNC);
}

/* PROF dir n with the records above and sample.json's switches */
static char *make_prof(int n, const char *task_time, const char *runtime_api)
{
	char *prof, *host, *sample;
	CHECK(asprintf(&prof, "%s/PROF_00000%d_20231114221320000_00005000ABCDEFGH", tmp, n) > 0);
	w = agent_prof_open(prof, 20000, MONO0, REAL0, &b, &host);
	CHECK(asprintf(&sample, "{\"task_time\":\"%s\",\"runtime_api\":\"%s\"}", task_time, runtime_api) > 0);
	write_text(host, "sample.json", sample);

	api(500, 510, 3, "cudaLaunchKernel");
	static struct gpu_task t;
	t = (struct gpu_task){ .kind = GPU_TASK_KERNEL, .start = MONO0 + 600 * US, .end = MONO0 + 900 * US,
			       .stream = 7, .context = 1, .correlation = 3, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	snprintf(t.name, sizeof t.name, "_Z6kernelv");
	CHECK(gpu_encode_task(&b, &t) == 0);
	emit(RAW_AGENT_GPU_TASK);
	/* the call 1000..1100 µs, its wait stamped 990..1120 */
	api(1000, 1100, 1, "cudaStreamSynchronize");
	wait_rec(990, 1120, GPU_SYNC_STREAM, 7, 1);
	/* a context wait whose call was not recorded */
	wait_rec(2000, 2100, GPU_SYNC_CONTEXT, GPU_SYNC_NONE, 2);
	/* impossible: ends before it starts -- skipped, counted */
	wait_rec(3000, 2999, GPU_SYNC_STREAM, 7, 4);
	raw_writer_free(w);
	free(host);
	free(sample);
	return prof;
}

static unsigned count(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Export PROF dir n with the switches; checks common to every case. */
static void run(int n, const char *task_time, const char *runtime_api, sqlite3 **ret_db, char **ret_out,
		char **ret_timeline)
{
	char *prof = make_prof(n, task_time, runtime_api);
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(rep.bad_records == 1);
	CHECK(sqlite3_open_v2(rep.db_path, ret_db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	/* as recorded, whatever the switches: the wait keeps CUPTI's stamps,
	 * and takes its call's thread and connection id; the other has none */
	check_text("GPU_SYNC", rows(*ret_db, "SELECT pid, startNs, endNs, type, contextId, streamId, eventId, "
					     "correlationId, result, tid, connectionId FROM GPU_SYNC ORDER BY startNs"),
		   "5000|1700000000000990000|1700000000001120000|3|1|7|NULL|1|0|5000|1\n"
		   "5000|1700000000002000000|1700000000002100000|4|1|NULL|NULL|2|0|NULL|NULL\n");
	CHECK(asprintf(ret_out, "%s/mindstudio_profiler_output", prof) > 0);
	char *p = find_file(*ret_out, "msprof_", NULL);
	CHECK(p);
	*ret_timeline = slurp(p);
	free(p);
	free(prof);
}

int main(void)
{
	CHECK(mkdtemp(tmp));
	sqlite3 *db;
	char *out, *tl, *p;

	/* the defaults: tasks, no runtime API outputs */
	run(1, "l1", "off", &db, &out, &tl);
	check_text("TASK", rows(db, "SELECT startNs, streamId, taskId FROM TASK"), "1700000000000600000|7|3\n");
	check_text("CANN_API", rows(db, "SELECT count(*) FROM CANN_API"), "(no such table)\n");
	check_text("MEMCPY_INFO", rows(db, "SELECT count(*) FROM MEMCPY_INFO"), "(no such table)\n");
	CHECK((p = find_file(out, "op_summary_", NULL)) != NULL);
	free(p);
	CHECK(find_file(out, "api_statistic_", NULL) == NULL);
	CHECK(count(tl, "Sync@") == 0 && count(tl, "Runtime@") == 0 && count(tl, "HostToDevice") == 0);
	CHECK(count(tl, "\"name\":\"kernel()\"") == 1);
	sqlite3_close(db);
	free(out);
	free(tl);

	/* --runtime-api=on: the calls, and the one wait with a call, cut to
	 * the call's span (1000..1100 µs) so that it nests under it */
	run(2, "l1", "on", &db, &out, &tl);
	check_text("CANN_API", rows(db, "SELECT startNs, endNs, globalTid & 4294967295, connectionId, s.value FROM "
					"CANN_API a JOIN STRING_IDS s ON s.id = a.name ORDER BY startNs"),
		   "1700000000000500000|1700000000000510000|5000|3|cudaLaunchKernel\n"
		   "1700000000001000000|1700000000001100000|5000|1|cudaStreamSynchronize\n");
	CHECK(count(tl, "Sync@") == 1);
	CHECK(count(tl, "{\"name\":\"Sync@Stream Synchronize\",\"pid\":5120255,\"tid\":5000,"
			"\"ts\":\"1700000000001000.000\",\"dur\":100.000,\"ph\":\"X\",\"args\":{\"Thread Id\":5000,"
			"\"Mode\":\"N/A\",\"level\":\"sync\",\"id\":\"Stream Synchronize\",\"item_id\":\"N/A\","
			"\"connection_id\":1,\"Context Id\":1,\"Stream Id\":7,\"Result\":0}}") == 1);
	CHECK(count(tl, "\"name\":\"Runtime@cudaStreamSynchronize\",\"pid\":5120255,\"tid\":5000,"
			"\"ts\":\"1700000000001000.000\",\"dur\":100.000") == 1);
	CHECK(count(tl, "\"cat\":\"HostToDevice\"") == 2);  /* the launch's s and f */
	CHECK((p = find_file(out, "api_statistic_", NULL)) != NULL);
	free(p);
	sqlite3_close(db);
	free(out);
	free(tl);

	/* --task-time=off --runtime-api=on: calls and the wait, no task */
	run(3, "off", "on", &db, &out, &tl);
	/* TASK is always there (cluster readers need it), empty here */
	check_text("TASK", rows(db, "SELECT count(*) FROM TASK"), "0\n");
	check_text("CANN_API", rows(db, "SELECT count(*) FROM CANN_API"), "2\n");
	CHECK(find_file(out, "op_summary_", NULL) == NULL && find_file(out, "task_time_", NULL) == NULL);
	CHECK(count(tl, "Sync@") == 1 && count(tl, "Runtime@") == 2 && count(tl, "HostToDevice") == 0);
	CHECK(count(tl, "\"name\":\"kernel()\"") == 0);
	sqlite3_close(db);
	free(out);
	free(tl);

	raw_buf_release(&b);
	rm_rf(tmp);
	return 0;
}
