/* --capture-range: a named range of the job opens a window as it starts
 * and closes it as it ends (MSPROF_CAPTURE_RANGE "mstx:NAME" or
 * "nvtx:NAME", MSPROF_CAPTURE_RANGE_END "stop" or "repeat:N", set by msprof
 * for the application it launches in dynamic mode), or the job's
 * cudaProfilerStart/cudaProfilerStop do ("cudaProfilerApi": cupti.c sees
 * them through CUPTI's callbacks and calls profiler_call back).  The
 * request goes as msprofStart/msprofStop's does (agent_capture_ask), so a
 * range seen while no window records still opens one; the range itself is
 * recorded only once its window is open.  One capture at a time: a second
 * range of the name that starts while one is open is an ordinary range.
 *
 * A start/end range is known at its end by its id: the one its start
 * returned, or CAPTURE_ID when the start came while idle (the id then says
 * nothing was recorded).  An NVTX push by its thread, domain and level.
 *
 * --schedule (MSPROF_SCHEDULE, common/step-schedule.h) asks for windows at
 * the job's steps, seen through the same look at every range start and
 * push ("step N", "ProfilerStep#N") and at mstxStep/mstxStepEnd, even
 * while nothing records.  Steps are counted as they begin; a window is
 * asked for at the first step of a cycle's warm-up, with its active steps
 * as "A-B" (the launcher's window keeps only those, as --step-range does),
 * or, without a warm-up, at the step before its first active one, so that
 * the window is open when that step begins (it opens a few ms after it is
 * asked; the first step of the job has no step before it).  It is closed
 * at the end of its last active step where the job says so (mstxStepEnd),
 * else as the next step begins, or when the job ends. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"
#include "collectors/steps.h"
#include "common/step-schedule.h"

bool g_capture_on;
static struct {
	int kind;                  /* AGENT_CAPTURE_MSTX, _NVTX, _CUDA */
	char name[256];
	size_t len;
	_Atomic uint64_t left;     /* captures still to take */
	_Atomic int open;          /* one is open */
	_Atomic uint64_t id;       /* its range id (start/end) */
	_Atomic uint64_t push;     /* its push: tid << 32 | domain << 16 | level + 1, 0 none */
} K;

static struct {
	pthread_mutex_t mu;        /* steps may begin on any thread */
	bool on;                   /* set at load */
	struct step_schedule sc;
	uint64_t k;                /* steps begun so far */
	int64_t cur;               /* the step begun last, -1 none */
	bool open;                 /* a window asked for and not closed */
	int64_t lo, hi;            /* its active steps: [lo, hi) */
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .cur = -1 };

static bool named(int kind, const char *msg, long len)
{
	if (kind != K.kind || !msg)
		return false;
	size_t n = len < 0 ? strnlen(msg, K.len + 1) : (size_t)len;
	return n == K.len && memcmp(msg, K.name, n) == 0;
}

/* Take a capture if one is left and none is open. */
static bool take(void)
{
	int closed = 0;
	if (atomic_load(&K.left) == 0 || !atomic_compare_exchange_strong(&K.open, &closed, 1))
		return false;
	(void)agent_capture_ask(true);
	return true;
}

static void give_back(void)
{
	uint64_t left = atomic_load(&K.left);
	if (left)
		atomic_store(&K.left, left - 1);
	(void)agent_capture_ask(false);
	atomic_store(&K.open, 0);
}

/* cudaProfilerStart opens a capture if one is left and none is open (a
 * second start, or the driver's cuProfilerStart under the runtime's, is
 * nothing); cudaProfilerStop closes the open one. */
static void profiler_call(bool start)
{
	int open = 1;
	if (start)
		(void)take();
	else if (atomic_compare_exchange_strong(&K.open, &open, 2))  /* one stop closes it */
		give_back();
}

/* Read once, as the agent loads: only its own variables (control.c's
 * constructor needs nothing of it, and capture.c calls down into it). */
__attribute__((constructor)) static void capture_load(void)
{
	const char *v = getenv("MSPROF_CAPTURE_RANGE"), *end = getenv("MSPROF_CAPTURE_RANGE_END");
	const char *sched = getenv("MSPROF_SCHEDULE");
	if (sched && step_schedule_parse(sched, &S.sc) == 0)
		S.on = g_capture_on = true;
	if (!v)
		return;
	int kind = 0;
	if (strncmp(v, "mstx:", 5) == 0)
		kind = AGENT_CAPTURE_MSTX;
	else if (strncmp(v, "nvtx:", 5) == 0)
		kind = AGENT_CAPTURE_NVTX;
	else if (strcmp(v, "cudaProfilerApi") == 0)
		kind = AGENT_CAPTURE_CUDA;
	else
		return;
	if (kind != AGENT_CAPTURE_CUDA) {
		K.len = strlen(v + 5);
		if (!K.len || K.len >= sizeof K.name)
			return;
		memcpy(K.name, v + 5, K.len + 1);
	}
	uint64_t n = 1;
	if (end && strncmp(end, "repeat:", 7) == 0 && parse_u64(end + 7, 1, 1000000, &n) < 0)
		n = 1;
	atomic_store(&K.left, n);
	K.kind = kind;
	if (kind == AGENT_CAPTURE_CUDA)
		agent_cupti_on_profiler_api(profiler_call);
	else
		g_capture_on = true;  /* the annotation hooks look for the range */
}

/* Step id begins (under S.mu). */
static void schedule_step_locked(uint64_t id)
{
	if (id > (uint64_t)INT64_MAX - STEP_SCHEDULE_MAX * 4 || (int64_t)id == S.cur)
		return;  /* the step begun already (mstxStepEnd, then mstxStep) */
	S.cur = (int64_t)id;
	uint64_t k = S.k++, first = 0, next_first = 0;
	enum step_phase ph = step_schedule_phase(&S.sc, k, &first);
	if (S.open && (int64_t)id >= S.hi) {
		S.open = false;
		(void)agent_capture_ask_steps(false, S.lo, S.hi);
	}
	bool ahead = (ph == STEP_SKIP || ph == STEP_WAIT) &&
		     step_schedule_phase(&S.sc, k + 1, &next_first) == STEP_ACTIVE;
	if (!S.open && (ph == STEP_WARMUP || ph == STEP_ACTIVE || ahead)) {
		int64_t lo = (int64_t)id + (int64_t)((ahead ? next_first : first) - k);
		S.open = true;
		S.lo = lo;
		S.hi = lo + (int64_t)S.sc.active;
		(void)agent_capture_ask_steps(true, lo, S.hi);
	}
}

static void schedule_message(const char *msg, long len)
{
	/* a waiting process pays this on every range: "step N" and
	 * "ProfilerStep#N" alone go further */
	if (!msg || !len || ((msg[0] | 0x20) != 's' && (msg[0] | 0x20) != 'p'))
		return;
	uint64_t step;
	size_t n = len < 0 ? strnlen(msg, 64) : (size_t)len;
	if (n && n < 64 && step_parse(msg, n, &step)) {
		pthread_mutex_lock(&S.mu);
		schedule_step_locked(step);
		pthread_mutex_unlock(&S.mu);
	}
}

void agent_capture_step_mark(bool end, uint64_t step)
{
	if (!S.on || step >= (uint64_t)INT64_MAX)
		return;
	pthread_mutex_lock(&S.mu);
	if (end && S.open && (int64_t)step + 1 >= S.hi) {
		S.open = false;
		(void)agent_capture_ask_steps(false, S.lo, S.hi);
	}
	/* mstxStepEnd(N): the process is in step N + 1 (steps.h) */
	schedule_step_locked(end ? step + 1 : step);
	pthread_mutex_unlock(&S.mu);
}

bool agent_capture_begin(int kind, const char *msg, long len)
{
	if (S.on)
		schedule_message(msg, len);
	return named(kind, msg, len) && take();
}

void agent_capture_began(uint64_t id)
{
	atomic_store(&K.id, id ? id : AGENT_CAPTURE_ID);
}

bool agent_capture_end(uint64_t id)
{
	if (!atomic_load(&K.open) || atomic_load(&K.id) != id || atomic_load(&K.push))
		return false;
	atomic_store(&K.id, 0);
	give_back();
	return true;
}

void agent_capture_push(int kind, const char *msg, long len, uint32_t domain, int level)
{
	if (S.on)
		schedule_message(msg, len);
	if (level < 0 || !named(kind, msg, len) || !take())
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	atomic_store(&K.push, tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff));
}

void agent_capture_pop(uint32_t domain, int level)
{
	uint64_t p = atomic_load(&K.push);
	if (!p || level < 0)
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	if (p != (tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff)))
		return;
	atomic_store(&K.push, 0);
	give_back();
}
