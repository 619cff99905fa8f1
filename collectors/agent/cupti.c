/* Device tasks from CUPTI inside the profiled process.
 *
 * The CUDA driver calls InitializeInjection() while cuInit runs when
 * CUDA_INJECTION64_PATH names this library (msprof sets it).  We load
 * libcupti with dlopen (MSPROF_CUPTI_LIBRARY, else libcupti.so and its
 * versioned names), subscribe, make CUPTI stamp records with
 * CLOCK_MONOTONIC (the raw files' clock), and enable CONCURRENT_KERNEL,
 * MEMCPY, MEMSET, RUNTIME and SYNCHRONIZATION at once: enabling
 * concurrent-kernel tracing mid-run instruments every loaded module and
 * stalls the job for seconds, so it is on from the start and the window
 * only decides what is kept.  Every kind is kept in a window whatever
 * msprof's switches (the agent is not told them): the export writes what
 * --task-time and --runtime-api ask for.  A session that began before
 * cuInit and asked nothing else of the agent gets its window when CUPTI
 * comes up: CUPTI wakes the agent thread, which asks agent_cupti_came_up.
 *
 * CUPTI hands completed buffers to its own thread (on_buffer_completed):
 * each record is converted (cupti-conv.c), encoded, and queued under a
 * mutex; the agent thread moves the queue into the raw file at every
 * drain (agent_cupti_drain).  Records of tasks that started outside a
 * window are dropped.  window_stop flushes CUPTI first, so the tasks of
 * the window are in its file.  The queue is bounded (CUPTI_QUEUE_MAX):
 * beyond it records are dropped and counted with the window's drops.
 *
 * Flushes run on a thread of their own, so that a CUPTI that never
 * answers costs a window's stop at most FLUSH_STOP_MS and the exit at most
 * FLUSH_EXIT_MS (then CUPTI is never called again).  At exit the last
 * flush comes from an atexit handler registered once CUPTI is up, i.e.
 * before CUPTI's own teardown handlers run (cupti_at_exit).
 *
 * Only one CUPTI subscriber may exist per process (nsys, Kineto, ncu...):
 * when another holds it we say so once on stderr and step aside; mstx,
 * NVTX and everything else go on. */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "collectors/agent/agent.h"
#include "collectors/cupti-conv.h"

#define CUPTI_BUF_SIZE (4U << 20)        /* bytes per activity buffer */
#define CUPTI_QUEUE_MAX (256U << 20)     /* bytes of encoded records waiting */
#define FLUSH_STOP_MS 5000               /* a window's stop waits this long for CUPTI's flush */
#define FLUSH_EXIT_MS 2000               /* the process's exit, this long */

/* A flush runs on a thread of its own so that its caller can give up on it:
 * a forced flush waits for CUPTI's buffer thread, and a CUPTI that never
 * answers must not keep a window from stopping or the process from
 * exiting.  busy: a flush thread runs (also one given up on). */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool busy, cv_ready;
} F = { .mu = PTHREAD_MUTEX_INITIALIZER };

static struct {
	void *lib;
	_Atomic bool on;
	_Atomic bool came_up;               /* since the agent thread last asked */
	_Atomic uint64_t window_start;      /* CLOCK_MONOTONIC ns; 0: no window */
	pthread_mutex_t mu;
	uint8_t *q;                          /* {u16 type, u32 len, payload}... */
	size_t q_len, q_cap;
	_Atomic uint64_t dropped, untimed, bad;   /* struct cupti_lost */
	CUpti_SubscriberHandle sub;
	_Atomic bool subscribed;             /* sub is ours */
	void (*_Atomic profiler_api)(bool start);  /* agent_cupti_on_profiler_api */
	__typeof__(cuptiActivityFlushAll) *flush_all;
	__typeof__(cuptiActivityGetNextRecord) *next_record;
	__typeof__(cuptiGetCallbackName) *callback_name;
} C = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void say(const char *fmt, const char *a)
{
	fprintf(stderr, "msprof agent: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
}

static uint64_t mono_stamp(void)
{
	return mono_ns();
}

static void on_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* CUPTI wants 8-byte alignment */
	void *p = NULL;
	if (posix_memalign(&p, 8, CUPTI_BUF_SIZE) != 0)
		p = NULL;
	*buffer = p;
	*size = p ? CUPTI_BUF_SIZE : 0;
	*max_records = 0;
}

static const char *api_name(uint32_t cbid)
{
	const char *name = NULL;
	if (C.callback_name && C.callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) != CUPTI_SUCCESS)
		name = NULL;
	return name;
}

/* Queue one encoded record; false when the queue is full. */
static bool enqueue(uint16_t type, const struct raw_buf *b)
{
	size_t need = 6 + b->len;
	pthread_mutex_lock(&C.mu);
	if (C.q_len + need > C.q_cap) {
		size_t cap = C.q_cap ? C.q_cap : 1U << 20;
		while (cap < C.q_len + need && cap <= CUPTI_QUEUE_MAX)
			cap *= 2;
		uint8_t *q = cap <= CUPTI_QUEUE_MAX ? realloc(C.q, cap) : NULL;
		if (!q) {
			pthread_mutex_unlock(&C.mu);
			return false;
		}
		C.q = q;
		C.q_cap = cap;
	}
	uint32_t len = (uint32_t)b->len;
	memcpy(C.q + C.q_len, &type, 2);
	memcpy(C.q + C.q_len + 2, &len, 4);
	memcpy(C.q + C.q_len + 6, b->data, b->len);
	C.q_len += need;
	pthread_mutex_unlock(&C.mu);
	return true;
}

static void on_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	/* on the heap: a thread-local copy (8 KB) would not fit the static
	 * TLS of a library loaded with dlopen; the callback may run on CUPTI's
	 * thread and on a flushing one at once */
	struct cupti_out *cv = malloc(sizeof(*cv));
	struct raw_buf b = { 0 };
	CUpti_Activity *rec = NULL;
	uint64_t start = atomic_load(&C.window_start);

	if (!cv) {
		atomic_fetch_add(&C.dropped, 1);
		free(buffer);
		return;
	}
	while (C.next_record && C.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
		int r = cupti_convert(rec, api_name, cv);
		if (r < 0) {
			/* of the window, as far as can be told */
			if (start)
				atomic_fetch_add(r == -ENODATA ? &C.untimed : &C.bad, 1);
			continue;
		}
		if (r == CUPTI_CONV_SKIP || !start)
			continue;
		uint64_t t0 = r == CUPTI_CONV_TASK ? cv->task.start : r == CUPTI_CONV_API ? cv->api.start : cv->sync.start;
		if (t0 < start)
			continue;  /* before the window */
		int e;
		uint16_t type;
		if (r == CUPTI_CONV_TASK)
			e = gpu_encode_task(&b, &cv->task), type = RAW_AGENT_GPU_TASK;
		else if (r == CUPTI_CONV_API)
			e = gpu_encode_api(&b, &cv->api), type = RAW_AGENT_GPU_API;
		else
			e = gpu_encode_sync(&b, &cv->sync), type = RAW_AGENT_GPU_SYNC;
		if (e < 0 || !enqueue(type, &b))
			atomic_fetch_add(&C.dropped, 1);
	}
	raw_buf_release(&b);
	free(cv);
	free(buffer);
}

#define SYM(var, name) (*(void **)&(var) = dlsym(C.lib, name))

/* The subscription claims CUPTI, and activity records carry the data.
 * Callbacks come only for the job's cudaProfilerStart/Stop (runtime) and
 * cuProfilerStart/Stop (driver, also called under the runtime's), enabled
 * for --capture-range=cudaProfilerApi: each asks at its entry, so a stop's
 * own call is outside the window. */
static void on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	(void)userdata;
	const CUpti_CallbackData *cb = data;
	if (!cb || cb->callbackSite != CUPTI_API_ENTER)
		return;
	bool rt = domain == CUPTI_CB_DOMAIN_RUNTIME_API, drv = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	bool start = (rt && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
		     (drv && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
	bool stop = (rt && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
		    (drv && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	void (*fn)(bool) = atomic_load(&C.profiler_api);
	if ((start || stop) && fn)
		fn(start);
}

/* --capture-range=cudaProfilerApi: the four callbacks on; false (said)
 * when CUPTI refuses one. */
static bool follow_profiler_api(void)
{
	__typeof__(cuptiEnableCallback) *enable_cb;
	SYM(enable_cb, "cuptiEnableCallback");
	static const struct { CUpti_CallbackDomain domain; CUpti_CallbackId cbid; } cbs[] = {
		{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 },
		{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart },
		{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cbs); i++)
		if (!enable_cb || enable_cb(1, C.sub, cbs[i].domain, cbs[i].cbid) != CUPTI_SUCCESS) {
			say("%s", "CUPTI refuses the cudaProfilerStart/cudaProfilerStop callbacks: "
				  "--capture-range=cudaProfilerApi opens no window");
			return false;
		}
	return true;
}

/* The CUPTI library, looked for where the job's own CUDA is: CUPTI must be
 * the toolkit's that the job runs, and two copies in one process would
 * both hook the driver.  In order: MSPROF_CUPTI_LIBRARY; a libcupti the
 * process has loaded already (PyTorch loads its own with Kineto); the one
 * beside the loaded libcudart (a toolkit's lib dir, or pip's
 * nvidia/cu13/lib; nvidia/cuda_cupti/lib beside nvidia/cuda_runtime/lib);
 * the loader's search path; $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
 * Each name is the one of the CUDA major we were built for first. */
#if CUDA_VERSION >= 13000 && CUDA_VERSION < 14000
#define CUDA_MAJOR 13
#elif CUDA_VERSION >= 12000 && CUDA_VERSION < 13000
#define CUDA_MAJOR 12
#elif CUDA_VERSION >= 14000 && CUDA_VERSION < 15000
#define CUDA_MAJOR 14
#else
#error "CUPTI headers of an unknown CUDA major version"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#define CUPTI_MAJOR_NAME "libcupti.so." STR(CUDA_MAJOR)

struct lib_find {
	const char *prefix;     /* basename prefix looked for */
	char path[PATH_MAX];    /* the first loaded object's path, or "" */
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct lib_find *f = arg;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	if (!base || strncmp(base + 1, f->prefix, strlen(f->prefix)) != 0)
		return 0;
	snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
	return 1;
}

static const char *const cupti_names[] = { CUPTI_MAJOR_NAME, "libcupti.so" };

/* Each CUPTI name in dir + sub, or on the loader's path (dir NULL). */
static void *open_in(const char *dir, const char *sub, char *tried, size_t tried_len)
{
	char path[PATH_MAX];
	for (size_t i = 0; i < ARRAY_SIZE(cupti_names); i++) {
		const char *name = cupti_names[i];
		if (dir) {
			if (snprintf(path, sizeof path, "%s%s/%s", dir, sub, name) >= (int)sizeof path ||
			    access(path, F_OK) != 0)
				continue;
			name = path;
		}
		void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
		/* a file there but unusable (another architecture, say): keep
		 * the reason for the message if nothing else loads */
		const char *e = dlerror();
		if (dir)
			snprintf(tried, tried_len, "%s", e ? e : path);
	}
	return NULL;
}

static void *load_cupti(char *why, size_t why_len)
{
	const char *env = getenv("MSPROF_CUPTI_LIBRARY");
	if (env && *env) {
		void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			const char *e = dlerror();
			snprintf(why, why_len, "MSPROF_CUPTI_LIBRARY: %s", e ? e : env);
		}
		return h;
	}
	why[0] = '\0';
	void *h;
	struct lib_find f = { .prefix = "libcupti.so" };
	if (dl_iterate_phdr(find_loaded, &f) && f.path[0] &&
	    (h = dlopen(f.path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)))
		return h;
	f = (struct lib_find){ .prefix = "libcudart.so" };
	if (dl_iterate_phdr(find_loaded, &f) && f.path[0]) {
		*strrchr(f.path, '/') = '\0';
		if ((h = open_in(f.path, "", why, why_len)) ||
		    (h = open_in(f.path, "/../../cuda_cupti/lib", why, why_len)))
			return h;
	}
	if ((h = open_in(NULL, NULL, why, why_len)))
		return h;
	const char *roots[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	static const char *const subs[] = { "/lib64", "/lib", "/extras/CUPTI/lib64" };
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++)
		for (size_t j = 0; roots[i] && *roots[i] && j < ARRAY_SIZE(subs); j++) {
			if ((h = open_in(roots[i], subs[j], why, why_len)))
				return h;
		}
	if (!why[0])
		snprintf(why, why_len, "no %s beside the job's libcudart, on the loader's path or under "
			 "$CUDA_HOME, $CUDA_PATH or /usr/local/cuda", CUPTI_MAJOR_NAME);
	return NULL;
}

static int cupti_start(void)
{
	__typeof__(cuptiSubscribe) *subscribe;
	__typeof__(cuptiActivityRegisterCallbacks) *register_callbacks;
	__typeof__(cuptiActivityRegisterTimestampCallback) *register_ts;
	__typeof__(cuptiActivityEnable) *enable;
	__typeof__(cuptiGetVersion) *get_version;
	__typeof__(cuptiGetResultString) *result_string;

	char why[PATH_MAX + 128];
	C.lib = load_cupti(why, sizeof why);
	if (!C.lib) {
		say("cannot load CUPTI (%s): device tasks are not recorded; set MSPROF_CUPTI_LIBRARY to the "
		    "libcupti.so of the job's CUDA", why);
		return -ENOENT;
	}
	SYM(subscribe, "cuptiSubscribe");
	SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
	SYM(register_ts, "cuptiActivityRegisterTimestampCallback");
	SYM(enable, "cuptiActivityEnable");
	SYM(get_version, "cuptiGetVersion");
	SYM(result_string, "cuptiGetResultString");
	SYM(C.flush_all, "cuptiActivityFlushAll");
	SYM(C.next_record, "cuptiActivityGetNextRecord");
	SYM(C.callback_name, "cuptiGetCallbackName");
	if (!subscribe || !register_callbacks || !enable || !get_version || !C.flush_all || !C.next_record) {
		say("%s", "the CUPTI library lacks the activity API: device tasks are not recorded");
		return -ENOENT;
	}
	/* the record layouts are those of the headers we were built with */
	uint32_t v = 0;
	if (get_version(&v) != CUPTI_SUCCESS || v < CUPTI_API_VERSION) {
		char old[128];
		snprintf(old, sizeof old, "CUPTI API version %u is older than %u, the one this agent was built for",
			 (unsigned)v, (unsigned)CUPTI_API_VERSION);
		say("%s: device tasks are not recorded", old);
		return -EPROTO;
	}
	CUptiResult r = subscribe(&C.sub, (CUpti_CallbackFunc)on_callback, NULL);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		say("%s", "another CUPTI user (nsys, Kineto, ncu...) is active in this process: device tasks are "
			  "not recorded, everything else is");
		return -EBUSY;
	}
	const char *msg = NULL;
	if (r != CUPTI_SUCCESS) {
		if (result_string)
			result_string(r, &msg);
		say("cuptiSubscribe failed (%s): device tasks are not recorded", msg ? msg : "unknown error");
		return -EIO;
	}
	atomic_store(&C.subscribed, true);
	if (atomic_load(&C.profiler_api))
		(void)follow_profiler_api();
	/* CLOCK_MONOTONIC stamps: without this (WSL refuses it) the stamps
	 * would be CLOCK_REALTIME and the records would land elsewhere */
	if (!register_ts || register_ts(mono_stamp) != CUPTI_SUCCESS) {
		say("%s", "CUPTI refuses our clock: device tasks are not recorded");
		return -ENOTSUP;
	}
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
						    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION };
	if (register_callbacks(on_buffer_requested, on_buffer_completed) != CUPTI_SUCCESS) {
		say("%s", "cuptiActivityRegisterCallbacks failed: device tasks are not recorded");
		return -EIO;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (enable(kinds[i]) != CUPTI_SUCCESS) {
			say("%s", "cuptiActivityEnable failed: device tasks are not recorded");
			return -EIO;
		}
	C.on = true;
	return 0;
}

static void *flush_main(void *arg)
{
	(void)arg;
	agent_osrt_self(false);
	C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&F.mu);
	F.busy = false;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
	return NULL;
}

/* CUPTI's records handed over (on_buffer_completed) within ms, after a
 * flush already under way; -ETIMEDOUT when CUPTI did not answer in time.
 * Runs under no lock of ours that the buffer callback takes. */
static int flush_within(unsigned ms)
{
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L)
		dl.tv_sec++, dl.tv_nsec -= 1000000000L;
	int r = 0;
	pthread_mutex_lock(&F.mu);
	if (!F.cv_ready) {
		pthread_condattr_t a;
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&F.cv, &a);
		pthread_condattr_destroy(&a);
		F.cv_ready = true;
	}
	while (F.busy && r == 0)
		r = pthread_cond_timedwait(&F.cv, &F.mu, &dl);
	if (F.busy) {
		pthread_mutex_unlock(&F.mu);
		return -ETIMEDOUT;
	}
	F.busy = true;
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	bool spawned = pthread_create(&t, &attr, flush_main, NULL) == 0;
	pthread_attr_destroy(&attr);
	if (!spawned) {
		/* no thread to spare: flush here, without a limit */
		F.busy = false;
		pthread_mutex_unlock(&F.mu);
		C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		return 0;
	}
	r = 0;
	while (F.busy && r == 0)
		r = pthread_cond_timedwait(&F.cv, &F.mu, &dl);
	bool stuck = F.busy;
	pthread_mutex_unlock(&F.mu);
	return stuck ? -ETIMEDOUT : 0;
}

/* CUPTI did not answer a flush: it is never called again, and what it
 * still holds is lost (said once). */
static void give_up(unsigned ms)
{
	if (atomic_exchange(&C.on, false)) {
		char why[96];
		snprintf(why, sizeof why, "%u ms", ms);
		say("CUPTI did not hand over its buffers within %s: the last device records are lost", why);
	}
}

/* At exit, before CUPTI's own teardown: registered once CUPTI is up, so
 * it runs before the handlers libcupti registered while loading (its
 * static destructors) and before any library's destructor, the agent's
 * included.  It flushes once; from then on CUPTI is never called (the
 * agent's destructor only drains the queue into the file), so no call
 * reaches a CUPTI that has torn down.  Exit may come from any thread,
 * also while CUPTI's thread completes a buffer: the flush waits for it,
 * at most FLUSH_EXIT_MS. */
static void cupti_at_exit(void)
{
	if (atomic_load(&C.on) && flush_within(FLUSH_EXIT_MS) < 0)
		give_up(FLUSH_EXIT_MS);
	atomic_store(&C.on, false);
}

/* A failed start keeps the library loaded: CUPTI may run threads of its
 * own by then. */
static void init_once(void)
{
	int r = cupti_start();
	if (r < 0 && atomic_load(&C.profiler_api))
		say("%s", "without CUPTI, cudaProfilerStart/cudaProfilerStop are not seen: "
			  "--capture-range=cudaProfilerApi opens no window");
	if (r == 0) {
		if (atexit(cupti_at_exit) != 0)
			say("%s", "cannot register the exit flush: device records of the last moments may be lost");
		/* a flag the agent thread takes, not a call up into it: cuInit
		 * may even come before the agent's constructor (another
		 * library's), and the thread looks at its first wake-up */
		atomic_store(&C.came_up, true);
		agent_wake();
	}
}

AGENT_EXPORT int InitializeInjection(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init_once);
	return 1;  /* the driver goes on whatever happened here */
}

bool agent_cupti_active(void)
{
	return atomic_load(&C.on);
}

bool agent_cupti_came_up(void)
{
	return atomic_exchange(&C.came_up, false);
}

void agent_cupti_window(uint64_t start_ns)
{
	atomic_store(&C.window_start, start_ns);
}



/* Either order: the agent's constructor usually comes first, but cuInit
 * may come before it (another library's constructor).  Enabling a
 * callback twice is no harm. */
void agent_cupti_on_profiler_api(void (*fn)(bool start))
{
	atomic_store(&C.profiler_api, fn);
	if (atomic_load(&C.subscribed))
		(void)follow_profiler_api();
}

void agent_cupti_flush(void)
{
	if (atomic_load(&C.on) && flush_within(FLUSH_STOP_MS) < 0)
		give_up(FLUSH_STOP_MS);
}

bool agent_cupti_pending(void)
{
	pthread_mutex_lock(&C.mu);
	bool any = C.q_len > 0;
	pthread_mutex_unlock(&C.mu);
	/* a window whose records were all lost still gets its file, to say so */
	return any || atomic_load(&C.dropped) || atomic_load(&C.untimed) || atomic_load(&C.bad);
}

unsigned long agent_cupti_drain(int (*emit)(uint16_t type, const uint8_t *p, uint32_t len), struct cupti_lost *ret)
{
	pthread_mutex_lock(&C.mu);
	uint8_t *q = C.q;
	size_t len = C.q_len;
	C.q = NULL;
	C.q_len = C.q_cap = 0;
	pthread_mutex_unlock(&C.mu);
	unsigned long n = 0;
	for (size_t off = 0; off + 6 <= len;) {
		uint16_t type;
		uint32_t l;
		memcpy(&type, q + off, 2);
		memcpy(&l, q + off + 2, 4);
		if (emit(type, q + off + 6, l) == 0)
			n++;
		off += 6 + l;
	}
	free(q);
	ret->lost += atomic_exchange(&C.dropped, 0);
	ret->untimed += atomic_exchange(&C.untimed, 0);
	ret->bad += atomic_exchange(&C.bad, 0);
	return n;
}
