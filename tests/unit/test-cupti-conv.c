/* The CUPTI conversion with records built from the CUDA headers' own
 * structs: each goes through cupti_convert, the raw codec and back, and
 * every value comes out as put in; impossible records are refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cupti-conv.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

static const char *namer(uint32_t cbid)
{
	return cbid == 211 ? "cudaLaunchKernel_v7000" : NULL;
}

static struct cupti_out out_all;

/* cupti_convert, its task and API results copied out */
static int conv(const CUpti_Activity *rec, cupti_api_namer n, struct gpu_task *t, struct gpu_api *a)
{
	int r = cupti_convert(rec, n, &out_all);
	*t = out_all.task;
	*a = out_all.api;
	return r;
}

static void roundtrip_task(const struct gpu_task *t, struct gpu_task *out)
{
	struct raw_buf b = { 0 };
	CHECK(gpu_encode_task(&b, t) == 0);
	CHECK(gpu_decode_task(b.data, b.len, out) == 0);
	for (size_t n = 0; n < b.len; n++)
		CHECK(gpu_decode_task(b.data, n, out) == -EBADMSG);
	CHECK(gpu_decode_task(b.data, b.len, out) == 0);
	raw_buf_release(&b);
}

int main(void)
{
	struct gpu_task t, out;
	struct gpu_api a, aout;

	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = 1000, k.end = 5500;
	k.deviceId = 1, k.contextId = 2, k.streamId = 7, k.correlationId = 42;
	k.gridX = 128, k.gridY = 2, k.gridZ = 1;
	k.blockX = 256, k.blockY = 1, k.blockZ = 1;
	k.staticSharedMemory = 1024, k.dynamicSharedMemory = 2048;
	k.registersPerThread = 32;
	k.name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_T1_";
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == CUPTI_CONV_TASK);
	roundtrip_task(&t, &out);
	CHECK(out.kind == GPU_TASK_KERNEL && out.start == 1000 && out.end == 5500 && out.device == 1 &&
	      out.context == 2 && out.stream == 7 && out.correlation == 42);
	CHECK(out.grid[0] == 128 && out.grid[1] == 2 && out.grid[2] == 1 && out.block[0] == 256 &&
	      out.block[1] == 1 && out.block[2] == 1 && out.shared_mem == 3072 && out.registers == 32);
	CHECK(streq(out.name, k.name));
	/* the legacy serialising kind has the same record */
	k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == CUPTI_CONV_TASK);
	/* impossible: no name, an empty grid, end before start, device 31 */
	const char *name = k.name;
	k.name = NULL;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -EBADMSG);
	k.name = name, k.gridY = 0;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -EBADMSG);
	k.gridY = 2, k.end = 999;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -EBADMSG);
	k.end = 5500, k.deviceId = 31;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -EBADMSG);
	/* no time (CUPTI_TIMESTAMP_UNKNOWN): still running at a forced flush,
	 * or not timed; neither a task nor damage */
	k.deviceId = 1, k.end = 0;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -ENODATA);
	k.start = 0;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == -ENODATA);
	k.start = 1000, k.end = 5500;
	CHECK(conv((const CUpti_Activity *)&k, namer, &t, &a) == CUPTI_CONV_TASK);

	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.start = 2000, m.end = 2600;
	m.deviceId = 0, m.contextId = 1, m.streamId = 3, m.correlationId = 43;
	CHECK(conv((const CUpti_Activity *)&m, namer, &t, &a) == CUPTI_CONV_TASK);
	roundtrip_task(&t, &out);
	CHECK(out.kind == GPU_TASK_MEMCPY && out.copy_kind == GPU_COPY_HTOD && out.bytes == 1 << 20 &&
	      out.start == 2000 && out.end == 2600 && out.stream == 3 && out.correlation == 43 && !out.name[0]);
	m.end = 0;
	CHECK(conv((const CUpti_Activity *)&m, namer, &t, &a) == -ENODATA);
	m.end = 2600;

	CUpti_ActivityMemset4 s;
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.value = 0xab, s.bytes = 4096, s.start = 3000, s.end = 3100, s.streamId = 3, s.correlationId = 44;
	CHECK(conv((const CUpti_Activity *)&s, namer, &t, &a) == CUPTI_CONV_TASK);
	roundtrip_task(&t, &out);
	CHECK(out.kind == GPU_TASK_MEMSET && out.copy_kind == 0xab && out.bytes == 4096 && out.correlation == 44);

	CUpti_ActivityAPI api;
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.cbid = 211, api.start = 900, api.end = 990, api.threadId = 77, api.correlationId = 42;
	CHECK(conv((const CUpti_Activity *)&api, namer, &t, &a) == CUPTI_CONV_API);
	struct raw_buf b = { 0 };
	CHECK(gpu_encode_api(&b, &a) == 0);
	CHECK(gpu_decode_api(b.data, b.len, &aout) == 0);
	CHECK(aout.start == 900 && aout.end == 990 && aout.tid == 77 && aout.correlation == 42 && aout.cbid == 211 &&
	      streq(aout.name, "cudaLaunchKernel_v7000"));
	CHECK(gpu_decode_api(b.data, b.len - 1, &aout) == -EBADMSG);
	api.cbid = 9999;   /* no name known: the id stands in */
	CHECK(conv((const CUpti_Activity *)&api, namer, &t, &a) == CUPTI_CONV_API);
	CHECK(streq(a.name, "cudaApi#9999"));
	api.end = 1;
	CHECK(conv((const CUpti_Activity *)&api, namer, &t, &a) == -EBADMSG);
	api.start = 0, api.end = 0;
	CHECK(conv((const CUpti_Activity *)&api, namer, &t, &a) == -ENODATA);
	raw_buf_release(&b);

	/* synchronisation: a stream sync, a context sync (stream and event
	 * not applicable), an event sync */
	CUpti_ActivitySynchronization2 y;
	memset(&y, 0, sizeof(y));
	y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	y.start = 7000, y.end = 9500, y.correlationId = 45, y.contextId = 1, y.streamId = 7;
	y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE, y.returnValue = 0;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == CUPTI_CONV_SYNC);
	struct gpu_sync ys;
	CHECK(gpu_encode_sync(&b, &out_all.sync) == 0);
	CHECK(gpu_decode_sync(b.data, b.len, &ys) == 0);
	for (size_t n = 0; n < b.len; n++)
		CHECK(gpu_decode_sync(b.data, n, &ys) == -EBADMSG);
	CHECK(gpu_decode_sync(b.data, b.len, &ys) == 0);
	CHECK(ys.start == 7000 && ys.end == 9500 && ys.type == GPU_SYNC_STREAM && ys.correlation == 45 &&
	      ys.context == 1 && ys.stream == 7 && ys.event == GPU_SYNC_NONE && ys.result == 0);
	CHECK(streq(gpu_sync_name(ys.type), "Stream Synchronize"));
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	y.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE, y.returnValue = 700;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == CUPTI_CONV_SYNC);
	CHECK(out_all.sync.type == GPU_SYNC_CONTEXT && out_all.sync.stream == GPU_SYNC_NONE &&
	      out_all.sync.event == GPU_SYNC_NONE && out_all.sync.result == 700);
	CHECK(streq(gpu_sync_name(out_all.sync.type), "Context Synchronize"));
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, y.cudaEventId = 3;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == CUPTI_CONV_SYNC);
	CHECK(out_all.sync.type == GPU_SYNC_EVENT && out_all.sync.event == 3);
	/* impossible: end before start, a type CUPTI does not define */
	y.end = 6999;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == -EBADMSG);
	y.end = 9500, y.type = (CUpti_ActivitySynchronizationType)5;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == -EBADMSG);
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, y.end = 0;
	CHECK(cupti_convert((const CUpti_Activity *)&y, namer, &out_all) == -ENODATA);
	y.end = 9500;
	CHECK(streq(gpu_sync_name(5), "Unknown"));
	/* a decoder refuses what an encoder would never write */
	struct gpu_sync bad = ys;
	bad.type = 9;
	CHECK(gpu_encode_sync(&b, &bad) == 0 && gpu_decode_sync(b.data, b.len, &ys) == -EBADMSG);
	raw_buf_release(&b);

	/* kinds not converted are skipped */
	CUpti_Activity other = { .kind = CUPTI_ACTIVITY_KIND_OVERHEAD };
	CHECK(conv(&other, namer, &t, &a) == CUPTI_CONV_SKIP);
	return 0;
}
