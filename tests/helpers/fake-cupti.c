/* A fake libcupti for the tests: the activity API the agent uses
 * (collectors/agent/cupti.c), loaded through its real dlopen path
 * (MSPROF_CUPTI_LIBRARY), delivering records built from the CUDA headers'
 * own structs.  At every cuptiActivityFlushAll it hands over one buffer,
 * stamped with the clock the agent registered (T = its value at the flush):
 *   for i in 0..K-1 (K = FAKE_CUPTI_KERNELS, default 3):
 *     runtime API cbid 211 ("cudaLaunchKernel_v7000"), correlation i+1,
 *       thread = the flushing thread, T - 10000 + 2000 i .. +100 ns
 *     kernel "_Z6kernelv" on device 0, context 1, stream 7, correlation
 *       i+1, grid (4 + i, 1, 1), block (128, 1, 1), T - 9000 + 2000 i .. +500 ns
 *   a memcpy HtoD of 4096 bytes, stream 9, correlation K+1, no API call,
 *     T - 1000 .. T - 800 ns
 *   runtime API cbid 131 ("cudaStreamSynchronize_v3020"), correlation K+2,
 *     T - 4000 .. T - 2500 ns, and its synchronisation record: stream
 *     sync, context 1, stream 7, T - 3900 .. T - 2600 ns
 *   runtime API cbid 165 ("cudaDeviceSynchronize_v3020"), correlation K+3,
 *     T - 2400 .. T - 1500 ns, and its synchronisation record: context
 *     sync, context 1, no stream, T - 2350 .. T - 1550 ns
 *   FAKE_CUPTI_UNTIMED kernels "_Z7runningv" still running (end 0; the
 *     first has start 0 too, the others T - 100), correlation K+10+i
 *   with FAKE_CUPTI_NCCL=1, for each kernel i an NCCL kernel (mangled
 *     ncclDevKernel_AllReduce_Sum_f32_RING_LL) on device 0, context 1,
 *     stream 8, correlation 1000+i, no API call, from 250 ns into kernel i
 *     for 1000 ns: half of kernel i overlaps it
 * Environment: FAKE_CUPTI_SUBSCRIBE_ERROR (cuptiSubscribe's result, 39:
 * another subscriber), FAKE_CUPTI_KERNELS, FAKE_CUPTI_UNTIMED (default 0),
 * FAKE_CUPTI_NCCL (default 0).
 * It also stands for the CUDA runtime's cudaProfilerStart/cudaProfilerStop
 * (a job finds them with dlsym on this library): each calls the
 * subscriber's callback as CUDA does, for the callbacks enabled with
 * cuptiEnableCallback, at the runtime call's entry, then the driver's
 * cuProfilerStart/Stop's entry and exit under it, then the runtime call's
 * exit.
 * FAKE_CUPTI_KERNEL_NAMES: comma-separated kernel names, kernel i named
 * the (i mod count)th (NCCL's "ncclDevKernel_AllReduce_Sum_f32_RING_LL"...,
 * for the communication domain) instead of "_Z6kernelv".
 *
 * Like libcupti, it tears down at exit through a handler it registers when
 * loaded (and its destructor): a flush after that aborts with "fake CUPTI:
 * flush after teardown".  Its own buffer thread, with FAKE_CUPTI_THREAD_MS:
 * that many ms after the callbacks are registered it starts completing one
 * buffer (the same records, stamped then), creates the file
 * FAKE_CUPTI_BUSY_FILE, holds the buffer FAKE_CUPTI_BUSY_MS (default 300),
 * then hands it over; a flush meanwhile waits for it, as CUPTI's forced
 * flush does.  FAKE_CUPTI_FLUSH_HANG=1: a flush never returns (a wedged
 * CUPTI). */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static CUpti_TimestampCallbackFunc stamp;
static uint64_t enabled;  /* bit per CUpti_ActivityKind (all below 64) */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;  /* one buffer completed at a time */
static volatile int torn_down;

static void teardown(void)
{
	torn_down = 1;
}

__attribute__((constructor)) static void fake_load(void)
{
	atexit(teardown);
}

__attribute__((destructor)) static void fake_unload(void)
{
	torn_down = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? atol(v) : dflt;
}

static int deliver(void);

/* The name of kernel i from FAKE_CUPTI_KERNEL_NAMES (at most 64 names):
 * kept in a static slot per name, since a record points to its name until
 * the buffer is completed. */
static const char *kernel_name(unsigned i)
{
	static char names[64][256];
	const char *v = getenv("FAKE_CUPTI_KERNEL_NAMES");
	if (!v || !*v)
		return "_Z6kernelv";
	unsigned count = 1;
	for (const char *p = v; *p; p++)
		count += *p == ',';
	if (count > 64)
		count = 64;
	unsigned k = i % count;
	const char *p = v;
	for (unsigned j = k; j > 0; j--)
		p = strchr(p, ',') + 1;
	snprintf(names[k], sizeof names[k], "%.*s", (int)strcspn(p, ","), p);
	return names[k];
}

static void *buffer_thread(void *arg)
{
	(void)arg;
	sleep_ms(env_long("FAKE_CUPTI_THREAD_MS", 0));
	pthread_mutex_lock(&mu);
	const char *busy = getenv("FAKE_CUPTI_BUSY_FILE");
	if (busy && *busy)
		close(open(busy, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	sleep_ms(env_long("FAKE_CUPTI_BUSY_MS", 300));
	deliver();
	pthread_mutex_unlock(&mu);
	return NULL;
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

static CUpti_CallbackFunc subscriber;
static void *subscriber_data;
static uint32_t callbacks_on;  /* bit per profiler callback below */

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber_, CUpti_CallbackFunc callback, void *userdata)
{
	const char *e = getenv("FAKE_CUPTI_SUBSCRIBE_ERROR");
	*subscriber_ = (CUpti_SubscriberHandle)1;
	if (e && *e)
		return (CUptiResult)atoi(e);
	subscriber = callback;
	subscriber_data = userdata;
	return CUPTI_SUCCESS;
}

/* the bit of a profiler start/stop callback, or -1 */
static int profiler_bit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000)
		return 0;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)
		return 1;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
		return 2;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
		return 3;
	return -1;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain,
					 CUpti_CallbackId cbid)
{
	int bit = profiler_bit(domain, cbid);
	if (!sub || bit < 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (enable)
		callbacks_on |= 1u << bit;
	else
		callbacks_on &= ~(1u << bit);
	return CUPTI_SUCCESS;
}

static void call_back(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
		      const char *name)
{
	int bit = profiler_bit(domain, cbid);
	if (!subscriber || bit < 0 || !(callbacks_on & 1u << bit))
		return;
	CUpti_CallbackData d = { .callbackSite = site, .functionName = name };
	subscriber(subscriber_data, domain, cbid, &d);
}

static int profiler_call(bool start)
{
	CUpti_CallbackId rt = start ? CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
				    : CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
	CUpti_CallbackId drv = start ? CUPTI_DRIVER_TRACE_CBID_cuProfilerStart : CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
	const char *rt_name = start ? "cudaProfilerStart" : "cudaProfilerStop";
	const char *drv_name = start ? "cuProfilerStart" : "cuProfilerStop";
	call_back(CUPTI_CB_DOMAIN_RUNTIME_API, rt, CUPTI_API_ENTER, rt_name);
	call_back(CUPTI_CB_DOMAIN_DRIVER_API, drv, CUPTI_API_ENTER, drv_name);
	call_back(CUPTI_CB_DOMAIN_DRIVER_API, drv, CUPTI_API_EXIT, drv_name);
	call_back(CUPTI_CB_DOMAIN_RUNTIME_API, rt, CUPTI_API_EXIT, rt_name);
	return 0;  /* cudaSuccess */
}

/* the CUDA runtime's (cuda_profiler_api.h), exported for the job */
int cudaProfilerStart(void);
int cudaProfilerStop(void);

int cudaProfilerStart(void)
{
	return profiler_call(true);
}

int cudaProfilerStop(void)
{
	return profiler_call(false);
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						    CUpti_BuffersCallbackCompleteFunc done)
{
	requested = req;
	completed = done;
	if (getenv("FAKE_CUPTI_THREAD_MS")) {
		pthread_t t;
		if (pthread_create(&t, NULL, buffer_thread, NULL) == 0)
			pthread_detach(t);
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc fn)
{
	stamp = fn;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if ((unsigned)kind >= 64)
		return CUPTI_ERROR_INVALID_KIND;
	enabled |= 1ULL << kind;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	*str = "fake CUPTI error";
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API)
		return CUPTI_ERROR_INVALID_PARAMETER;
	switch (cbid) {
	case 211: *name = "cudaLaunchKernel_v7000"; return CUPTI_SUCCESS;
	case 131: *name = "cudaStreamSynchronize_v3020"; return CUPTI_SUCCESS;
	case 165: *name = "cudaDeviceSynchronize_v3020"; return CUPTI_SUCCESS;
	default: return CUPTI_ERROR_INVALID_PARAMETER;
	}
}

/* records back to back, each padded to 8 bytes, the size told by the kind */
static size_t rec_size(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
	default: return 0;
	}
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
	size_t off = 0;
	if (*record) {
		off = (size_t)((uint8_t *)*record - buffer);
		off += (rec_size(*record) + 7) & ~(size_t)7;
	}
	if (off + sizeof(CUpti_Activity) > valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*record = (CUpti_Activity *)(void *)(buffer + off);
	return CUPTI_SUCCESS;
}

static size_t put(uint8_t *buf, size_t off, const void *rec, size_t size)
{
	memcpy(buf + off, rec, size);
	return off + ((size + 7) & ~(size_t)7);
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	if (torn_down) {
		fputs("fake CUPTI: flush after teardown\n", stderr);
		abort();
	}
	if (!requested || !completed || !stamp)
		return CUPTI_ERROR_NOT_INITIALIZED;
	if (env_long("FAKE_CUPTI_FLUSH_HANG", 0))
		for (;;)
			pause();
	pthread_mutex_lock(&mu);
	int r = deliver();
	pthread_mutex_unlock(&mu);
	return r == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

/* One buffer of the records above, stamped now; caller holds mu. */
static int deliver(void)
{
	uint8_t *buf = NULL;
	size_t size = 0, max = 0;
	requested(&buf, &size, &max);
	if (!buf)
		return -1;
	const char *k = getenv("FAKE_CUPTI_KERNELS");
	unsigned n = k && *k ? (unsigned)atoi(k) : 3;
	uint64_t t = stamp();
	size_t off = 0;
	for (unsigned i = 0; i < n && off + 1024 < size; i++) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = 211;
		a.start = t - 10000 + 2000 * i, a.end = a.start + 100;
		a.processId = (uint32_t)getpid();
		a.threadId = (uint32_t)syscall(SYS_gettid);
		a.correlationId = i + 1;
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_RUNTIME))
			off = put(buf, off, &a, sizeof(a));
		CUpti_ActivityKernel10 kr;
		memset(&kr, 0, sizeof(kr));
		kr.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		kr.start = t - 9000 + 2000 * i, kr.end = kr.start + 500;
		kr.deviceId = 0, kr.contextId = 1, kr.streamId = 7, kr.correlationId = i + 1;
		kr.gridX = 4 + (int)i, kr.gridY = 1, kr.gridZ = 1;
		kr.blockX = 128, kr.blockY = 1, kr.blockZ = 1;
		kr.name = kernel_name(i);
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
			off = put(buf, off, &kr, sizeof(kr));
		if (!env_long("FAKE_CUPTI_NCCL", 0))
			continue;
		kr.start += 250, kr.end = kr.start + 1000;
		kr.streamId = 8, kr.correlationId = 1000 + i;
		kr.name = "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
			off = put(buf, off, &kr, sizeof(kr));
	}
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 4096;
	m.start = t - 1000, m.end = t - 800;
	m.streamId = 9, m.contextId = 1, m.correlationId = n + 1;
	if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_MEMCPY))
		off = put(buf, off, &m, sizeof(m));
	/* two synchronising calls, each with its record */
	static const struct { uint32_t cbid, type, stream; int64_t a0, a1, s0, s1; } syncs[] = {
		{ 131, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 7, 4000, 2500, 3900, 2600 },
		{ 165, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, CUPTI_SYNCHRONIZATION_INVALID_VALUE,
		  2400, 1500, 2350, 1550 },
	};
	for (unsigned i = 0; i < 2; i++) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = syncs[i].cbid;
		a.start = t - syncs[i].a0, a.end = t - syncs[i].a1;
		a.processId = (uint32_t)getpid();
		a.threadId = (uint32_t)syscall(SYS_gettid);
		a.correlationId = n + 2 + i;
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_RUNTIME))
			off = put(buf, off, &a, sizeof(a));
		CUpti_ActivitySynchronization2 y;
		memset(&y, 0, sizeof(y));
		y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
		y.type = (CUpti_ActivitySynchronizationType)syncs[i].type;
		y.start = t - syncs[i].s0, y.end = t - syncs[i].s1;
		y.correlationId = n + 2 + i;
		y.contextId = 1;
		y.streamId = syncs[i].stream;
		y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		y.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
			off = put(buf, off, &y, sizeof(y));
	}
	/* kernels still running at this (forced) flush: no end time, the
	 * first no start time either */
	unsigned untimed = (unsigned)env_long("FAKE_CUPTI_UNTIMED", 0);
	for (unsigned i = 0; i < untimed && off + 1024 < size; i++) {
		CUpti_ActivityKernel10 kr;
		memset(&kr, 0, sizeof(kr));
		kr.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		kr.start = i ? t - 100 : 0, kr.end = 0;
		kr.deviceId = 0, kr.contextId = 1, kr.streamId = 7, kr.correlationId = n + 10 + i;
		kr.gridX = kr.gridY = kr.gridZ = 1;
		kr.blockX = kr.blockY = kr.blockZ = 1;
		kr.name = "_Z7runningv";
		if (enabled & (1ULL << CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
			off = put(buf, off, &kr, sizeof(kr));
	}
	completed(NULL, 0, buf, size, off);
	return 0;
}
