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
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"
#include "collectors/steps.h"
#include "common/flight-recorder.h"
#include "common/step-schedule.h"

_Atomic bool g_capture_on;
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
	_Atomic bool on;           /* armed: at load, or by msprofd (agent_capture_schedule) */
	char spec[256];            /* what armed it */
	struct step_schedule sc;
	uint64_t k;                /* steps begun so far */
	int64_t cur;               /* the step begun last, -1 none */
	bool open;                 /* a window asked for and not closed */
	int64_t lo, hi;            /* its active steps: [lo, hi) */
	/* the range or push that began its last step: its end closes it */
	_Atomic uint64_t end_id, end_push;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .cur = -1 };
/* --dump-on's slow-step and hang (common/flight-recorder.h): the steps of
 * this process timed from one step's beginning to the next's, under S.mu
 * (steps begin on any thread); the agent thread reads last_ns. */
static struct {
	_Atomic bool on;
	_Atomic bool exit;         /* a non-zero exit status dumps */
	uint64_t slow_x10;         /* 0: off */
	uint64_t hang_ns;          /* 0: off */
	_Atomic uint64_t last_ns;  /* CLOCK_MONOTONIC when the last step began, 0 none */
	_Atomic int64_t last_id;
	uint64_t d[FLIGHT_SLOW_WINDOW]; /* the last steps' durations, ns */
	unsigned n, next;
	uint64_t seen;             /* steps timed */
	uint64_t hang_asked;       /* last_ns of the step a hang was asked for */
	bool on_exit;              /* exit_watch registered */
} WT;

/* --dump-on's hang for collectives: the ranges of the domain
 * "communication" open now (torch_npu's and mstx.torch's collectives, one
 * a rank at a time mostly), with when they began; the agent thread looks
 * for one open hang_ns.  Past COMM_OPEN at once, the others are not
 * watched (their steps still are). */
#define COMM_OPEN 64
static struct {
	_Atomic uint32_t n;                  /* entries in use: 0, and range ends look no further */
	struct {
		_Atomic uint64_t id;         /* 0 free */
		_Atomic uint64_t start_ns;
		uint64_t asked;              /* start_ns a hang was asked for */
		char msg[48];
	} e[COMM_OPEN];
} CO;

/* agent_capture_begin said the range is the schedule's (this thread's
 * agent_capture_began is its id) */
static __thread bool t_sched_id;

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

/* Arm --schedule with spec (common/step-schedule.h; "" or a bad one
 * disarms): at load from MSPROF_SCHEDULE, or msprofd's agent_schedule
 * (control.c).  The same spec again changes nothing; another starts
 * counting afresh, a window it had asked for closed. */
static void arm_schedule(const char *spec)
{
	struct step_schedule sc;
	bool ok = spec && *spec && strlen(spec) < sizeof S.spec && step_schedule_parse(spec, &sc) == 0;
	pthread_mutex_lock(&S.mu);
	if (ok && atomic_load(&S.on) && strcmp(spec, S.spec) == 0) {
		pthread_mutex_unlock(&S.mu);
		return;  /* armed with it already (at load, and by msprofd) */
	}
	if (S.open) {
		S.open = false;
		(void)agent_capture_ask_steps(false, S.lo, S.hi);
	}
	S.k = 0;
	S.cur = -1;
	if (ok) {
		S.sc = sc;
		memcpy(S.spec, spec, strlen(spec) + 1);
		/* the hooks look from now on (a flag read without ordering: a
		 * range racing the arming may be missed, as one a moment before) */
		atomic_store_explicit(&g_capture_on, true, memory_order_relaxed);
	} else {
		S.spec[0] = '\0';
	}
	atomic_store(&S.on, ok);
	pthread_mutex_unlock(&S.mu);
}

static void arm_watch(const char *spec);
static void watch_tick(uint64_t now);
static void exit_watch(int status, void *arg);
static void (*_Atomic next_exit)(int);  /* libc's, looked up at load */
static pid_t (*_Atomic next_wait4)(pid_t, int *, int, struct rusage *);
static int (*_Atomic next_waitid)(idtype_t, id_t, siginfo_t *, int);

/* Read once, as the agent loads: only its own variables, and the hooks
 * registered with control.c and cupti.c.  Before the other constructors
 * (priority 101): control.c's waits for msprofd's first messages (launch
 * and self-enabled modes), an agent_schedule among them. */
__attribute__((constructor(101))) static void capture_load(void)
{
	const char *v = getenv("MSPROF_CAPTURE_RANGE"), *end = getenv("MSPROF_CAPTURE_RANGE_END");
	const char *sched = getenv("MSPROF_SCHEDULE");
	agent_control_on_schedule(arm_schedule);
	agent_control_on_watch(arm_watch, watch_tick);
	void *sym = dlsym(RTLD_NEXT, "exit"), (*f)(int);
	memcpy(&f, &sym, sizeof f);
	atomic_store(&next_exit, f);
	pid_t (*w4)(pid_t, int *, int, struct rusage *);
	int (*wid)(idtype_t, id_t, siginfo_t *, int);
	sym = dlsym(RTLD_NEXT, "wait4");
	memcpy(&w4, &sym, sizeof w4);
	atomic_store(&next_wait4, w4);
	sym = dlsym(RTLD_NEXT, "waitid");
	memcpy(&wid, &sym, sizeof wid);
	atomic_store(&next_waitid, wid);
	if (sched)
		arm_schedule(sched);
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
		atomic_store_explicit(&g_capture_on, true, memory_order_relaxed);  /* the hooks look for the range */
}

/* The schedule's window closes (under S.mu): the end of its last step. */
static void schedule_close_locked(void)
{
	if (S.open) {
		S.open = false;
		(void)agent_capture_ask_steps(false, S.lo, S.hi);
	}
}

/* Step id begins (under S.mu): true when it is the last step of the open
 * window, whose end then closes it. */
static bool schedule_step_locked(uint64_t id)
{
	if (id > (uint64_t)INT64_MAX - STEP_SCHEDULE_MAX * 4 || (int64_t)id == S.cur)
		return false;  /* the step begun already (mstxStepEnd, then mstxStep) */
	S.cur = (int64_t)id;
	uint64_t k = S.k++, first = 0, next_first = 0;
	/* start_step: the steps' own numbers count */
	if (S.sc.by_id) {
		if (id < S.sc.start_step) {
			if (id + 1 < S.sc.start_step || S.sc.warmup)
				return false;
			k = UINT64_MAX;  /* the step before start_step: only "ahead" applies, lo = id + 1 */
		} else {
			k = id - S.sc.start_step;
		}
	}
	enum step_phase ph = k == UINT64_MAX ? STEP_SKIP : step_schedule_phase(&S.sc, k, &first);
	if (S.open && (int64_t)id >= S.hi)
		schedule_close_locked();
	bool ahead = (ph == STEP_SKIP || ph == STEP_WAIT) &&
		     step_schedule_phase(&S.sc, k == UINT64_MAX ? 0 : k + 1, &next_first) == STEP_ACTIVE;
	if (!S.open && (ph == STEP_WARMUP || ph == STEP_ACTIVE || ahead)) {
		int64_t lo = k == UINT64_MAX ? (int64_t)id + 1 : (int64_t)id + (int64_t)((ahead ? next_first : first) - k);
		S.open = true;
		S.lo = lo;
		S.hi = lo + (int64_t)S.sc.active;
		(void)agent_capture_ask_steps(true, lo, S.hi);
	}
	return S.open && (int64_t)id == S.hi - 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Step id begins (under S.mu): the previous one's time is judged against
 * the median of the steps before it (slow-step), then kept. */
static void watch_step_locked(uint64_t id)
{
	if (!atomic_load_explicit(&WT.on, memory_order_relaxed))
		return;
	if (!WT.on_exit && atomic_load(&WT.exit))
		WT.on_exit = on_exit(exit_watch, NULL) == 0;
	uint64_t now = mono_ns(), last = atomic_load(&WT.last_ns);
	int64_t prev = atomic_load(&WT.last_id);
	if (last && prev == (int64_t)id)
		return; /* begun already (mstxStepEnd, then mstxStep) */
	if (last && now > last) {
		uint64_t dur = now - last;
		if (WT.slow_x10 && WT.seen >= FLIGHT_SLOW_MIN_STEPS && WT.n) {
			uint64_t v[FLIGHT_SLOW_WINDOW];
			memcpy(v, WT.d, WT.n * sizeof v[0]);
			qsort(v, WT.n, sizeof v[0], cmp_u64);
			uint64_t med = v[WT.n / 2];
			if (med && dur * 10 > med * WT.slow_x10) {
				char detail[200];
				snprintf(detail, sizeof detail,
					 "step %lld took %.1f ms, %.1fx the median %.1f ms of the %u steps before it",
					 (long long)prev, dur / 1e6, (double)dur / (double)med, med / 1e6, WT.n);
				(void)agent_dump_ask("slow-step", detail);
			}
		}
		WT.d[WT.next] = dur;
		WT.next = (WT.next + 1) % FLIGHT_SLOW_WINDOW;
		if (WT.n < FLIGHT_SLOW_WINDOW)
			WT.n++;
		WT.seen++;
	}
	atomic_store(&WT.last_id, (int64_t)id);
	atomic_store(&WT.last_ns, now);
}

/* --dump-on from agent_start ("" or none: off); the steps already timed
 * are kept when it does not change. */
static void arm_watch(const char *spec)
{
	struct dump_on d = { 0 };
	bool ok = spec && *spec && dump_on_parse(spec, &d) == 0 && (d.slow_x10 || d.hang_s || d.exit);
	pthread_mutex_lock(&S.mu);
	WT.slow_x10 = ok ? d.slow_x10 : 0;
	WT.hang_ns = ok ? d.hang_s * NSEC_PER_SEC : 0;
	atomic_store(&WT.exit, ok && d.exit);
	if (ok && (d.slow_x10 || d.hang_s))
		atomic_store_explicit(&g_capture_on, true, memory_order_relaxed);
	atomic_store(&WT.on, ok);
	pthread_mutex_unlock(&S.mu);
}

/* --dump-on's exit: the process ends with a non-zero status.  exit(3)
 * itself is wrapped (exitflush.c: agent_capture_exit); a return from main
 * is seen by an on_exit(3) handler (which hands the status over, atexit's
 * would not) registered at the process's first step: exit handlers run
 * in the reverse order of their registration, and one registered at load
 * would run after the loader's, which end the agent (its destructor).
 * The ask is sent and what the queues hold written into the ring before
 * the process goes on ending (agent_flush_now: bounded).  A process killed
 * by a signal runs no handler: the job's end says it (the launcher). */
static void exit_watch(int status, void *arg)
{
	static _Atomic bool asked;
	(void)arg;
	if (status == 0 || !atomic_load(&WT.exit) || atomic_exchange(&asked, true))
		return;
	char comm[64], detail[200];
	agent_comm(comm, sizeof comm);
	snprintf(detail, sizeof detail, "process %d (%s) exits with status %d", (int)getpid(), comm, status);
	if (agent_dump_ask("exit", detail) == 0)
		agent_flush_now();
}

/* exit(3) itself (agent.map exports it): a non-zero status is asked for
 * before the exit handlers run, then libc's exit.  Here, not in
 * exitflush.c: this file is in the shared builds alone, and a unit test
 * that links the folder's library keeps libc's exit. */
AGENT_EXPORT void exit(int status)
{
	exit_watch(status, NULL);
	void (*f)(int) = atomic_load(&next_exit);
	if (!f) {
		void *sym = dlsym(RTLD_NEXT, "exit");
		memcpy(&f, &sym, sizeof f);
	}
	if (f)
		f(status);
	for (;;)
		(void)syscall(SYS_exit_group, status);
}

void agent_capture_comm_began(uint32_t domain, uint64_t id, const char *msg)
{
	if (!id || !WT.hang_ns || !atomic_load_explicit(&WT.on, memory_order_relaxed) || !agent_gate_is_comm(domain))
		return;
	for (unsigned i = 0; i < COMM_OPEN; i++) {
		uint64_t free_ = 0;
		if (atomic_load_explicit(&CO.e[i].id, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&CO.e[i].id, &free_, UINT64_MAX))
			continue;
		snprintf(CO.e[i].msg, sizeof CO.e[i].msg, "%s", msg ? msg : "");
		atomic_store(&CO.e[i].start_ns, mono_ns());
		atomic_store(&CO.e[i].id, id); /* published: the agent thread reads it */
		atomic_fetch_add(&CO.n, 1);
		return;
	}
}

static void comm_ended(uint64_t id)
{
	if (!id || !atomic_load_explicit(&CO.n, memory_order_relaxed))
		return;
	for (unsigned i = 0; i < COMM_OPEN; i++) {
		uint64_t want = id;
		if (atomic_load_explicit(&CO.e[i].id, memory_order_relaxed) == id &&
		    atomic_compare_exchange_strong(&CO.e[i].id, &want, 0)) {
			atomic_fetch_sub(&CO.n, 1);
			return;
		}
	}
}

/* The agent thread: a collective open hang_ns is a hang, asked for once. */
static void comm_watch(uint64_t now)
{
	for (unsigned i = 0; i < COMM_OPEN && atomic_load_explicit(&CO.n, memory_order_relaxed); i++) {
		uint64_t id = atomic_load(&CO.e[i].id), start = atomic_load(&CO.e[i].start_ns);
		if (!id || id == UINT64_MAX || !start || now < start || now - start < WT.hang_ns ||
		    CO.e[i].asked == start)
			continue;
		CO.e[i].asked = start;
		char detail[200];
		snprintf(detail, sizeof detail, "the collective '%.48s' (a range of the domain communication) has been "
			 "open for %.0f s", CO.e[i].msg, (now - start) / 1e9);
		(void)agent_dump_ask("hang", detail);
		return;
	}
}

/* --dump-on's exit, seen from the parent: a child of this process reaped
 * after a signal ended it (a rank killed while its launcher, torchrun, a
 * script, goes on: no handler runs in the rank itself).  wait, waitpid,
 * wait3, wait4 and waitid are wrapped here (the shared builds only, as
 * exit): they are called from SIGCHLD handlers, so the child goes into one
 * atomic word and the agent thread's tick asks for the dump.  What a parent
 * sends to end its children (SIGTERM, SIGINT, SIGHUP) and SIGPIPE are no
 * trouble of the child's own. */
static _Atomic uint64_t child_died;  /* pid << 32 | signal; 0 none */

static void child_reaped(pid_t pid, bool signaled, int sig)
{
	uint64_t none = 0;
	if (pid <= 0 || !signaled || !atomic_load_explicit(&WT.exit, memory_order_relaxed) || sig == SIGTERM ||
	    sig == SIGINT || sig == SIGHUP || sig == SIGPIPE)
		return;
	if (atomic_compare_exchange_strong(&child_died, &none, (uint64_t)(uint32_t)pid << 32 | (uint32_t)sig))
		agent_wake_always();
}

static pid_t wait4_next(pid_t pid, int *status, int options, struct rusage *ru)
{
	pid_t (*f)(pid_t, int *, int, struct rusage *) = atomic_load(&next_wait4);
	pid_t r = f ? f(pid, status, options, ru) : (pid_t)syscall(SYS_wait4, pid, status, options, ru);
	if (r > 0 && status)
		child_reaped(r, WIFSIGNALED(*status), WIFSIGNALED(*status) ? WTERMSIG(*status) : 0);
	return r;
}

/* each needs the status: a caller that passes none gets ours */
AGENT_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;
	return wait4_next(pid, status ? status : &st, options, ru);
}

AGENT_EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	int st = 0;
	return wait4_next(-1, status ? status : &st, options, ru);
}

AGENT_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	int st = 0;
	return wait4_next(pid, status ? status : &st, options, NULL);
}

AGENT_EXPORT pid_t wait(int *status)
{
	int st = 0;
	return wait4_next(-1, status ? status : &st, 0, NULL);
}

AGENT_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int (*f)(idtype_t, id_t, siginfo_t *, int) = atomic_load(&next_waitid);
	int r = f ? f(idtype, id, info, options) : (int)syscall(SYS_waitid, idtype, id, info, options, NULL);
	if (r == 0 && info && info->si_pid > 0 && (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED))
		child_reaped(info->si_pid, true, info->si_status);
	return r;
}

/* The agent thread's look at the clock: a step begun hang_ns ago with no
 * next one is a hang, asked for once per step; a child killed by a signal
 * is an exit. */
static void watch_tick(uint64_t now)
{
	uint64_t died = atomic_exchange(&child_died, 0);
	if (died) {
		char comm[64], detail[200];
		int sig = (int)(uint32_t)died;
		agent_comm(comm, sizeof comm);
		snprintf(detail, sizeof detail, "process %u, a child of %d (%s), was killed by signal %d (%s)",
			 (unsigned)(died >> 32), (int)getpid(), comm, sig, strsignal(sig));
		(void)agent_dump_ask("exit", detail);
	}
	if (WT.hang_ns && atomic_load_explicit(&WT.on, memory_order_relaxed))
		comm_watch(now);
	uint64_t last = atomic_load(&WT.last_ns);
	if (!atomic_load_explicit(&WT.on, memory_order_relaxed) || !WT.hang_ns || !last || now < last ||
	    now - last < WT.hang_ns || WT.hang_asked == last)
		return;
	WT.hang_asked = last;
	char detail[200];
	snprintf(detail, sizeof detail, "step %lld has gone on for %.0f s with no next step",
		 (long long)atomic_load(&WT.last_id), (now - last) / 1e9);
	(void)agent_dump_ask("hang", detail);
}

/* A range or push of this message begins: true when it begins the open
 * window's last step. */
static bool schedule_message(const char *msg, long len)
{
	/* a waiting process pays this on every range: "step N" and
	 * "ProfilerStep#N" alone go further */
	if (!msg || !len || ((msg[0] | 0x20) != 's' && (msg[0] | 0x20) != 'p'))
		return false;
	uint64_t step;
	size_t n = len < 0 ? strnlen(msg, 64) : (size_t)len;
	bool last = false;
	if (n && n < 64 && step_parse(msg, n, &step)) {
		pthread_mutex_lock(&S.mu);
		watch_step_locked(step);
		if (atomic_load_explicit(&S.on, memory_order_relaxed))
			last = schedule_step_locked(step);
		pthread_mutex_unlock(&S.mu);
	}
	return last;
}

void agent_capture_step_mark(bool end, uint64_t step)
{
	if (step >= (uint64_t)INT64_MAX)
		return;
	if (!atomic_load_explicit(&S.on, memory_order_relaxed)) {
		if (atomic_load_explicit(&WT.on, memory_order_relaxed)) {
			pthread_mutex_lock(&S.mu);
			watch_step_locked(end ? step + 1 : step);
			pthread_mutex_unlock(&S.mu);
		}
		return;
	}
	pthread_mutex_lock(&S.mu);
	watch_step_locked(end ? step + 1 : step);
	if (end && S.open && (int64_t)step + 1 >= S.hi)
		schedule_close_locked();
	/* mstxStepEnd(N): the process is in step N + 1 (steps.h) */
	(void)schedule_step_locked(end ? step + 1 : step);
	pthread_mutex_unlock(&S.mu);
}

bool agent_capture_begin(int kind, const char *msg, long len)
{
	if ((atomic_load_explicit(&S.on, memory_order_relaxed) || atomic_load_explicit(&WT.on, memory_order_relaxed)) &&
	    schedule_message(msg, len)) {
		atomic_store(&S.end_id, 0);
		t_sched_id = true;
		return true;
	}
	return named(kind, msg, len) && take();
}

void agent_capture_began(uint64_t id)
{
	if (t_sched_id) {
		t_sched_id = false;
		atomic_store(&S.end_id, id ? id : AGENT_CAPTURE_ID);
		return;
	}
	atomic_store(&K.id, id ? id : AGENT_CAPTURE_ID);
}

bool agent_capture_end(uint64_t id)
{
	comm_ended(id);
	uint64_t e = atomic_load(&S.end_id);
	if (e && e == id && atomic_compare_exchange_strong(&S.end_id, &e, 0)) {
		pthread_mutex_lock(&S.mu);
		schedule_close_locked();
		pthread_mutex_unlock(&S.mu);
		return id == AGENT_CAPTURE_ID;  /* begun while idle: nothing of it to end */
	}
	if (!atomic_load(&K.open) || atomic_load(&K.id) != id || atomic_load(&K.push))
		return false;
	atomic_store(&K.id, 0);
	give_back();
	return true;
}

void agent_capture_push(int kind, const char *msg, long len, uint32_t domain, int level)
{
	if ((atomic_load_explicit(&S.on, memory_order_relaxed) || atomic_load_explicit(&WT.on, memory_order_relaxed)) &&
	    schedule_message(msg, len) && level >= 0) {
		uint64_t tid = (uint64_t)syscall(SYS_gettid);
		atomic_store(&S.end_push, tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff));
		return;
	}
	if (level < 0 || !named(kind, msg, len) || !take())
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	atomic_store(&K.push, tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff));
}

void agent_capture_pop(uint32_t domain, int level)
{
	uint64_t e = atomic_load(&S.end_push);
	if (e && level >= 0) {
		uint64_t tid = (uint64_t)syscall(SYS_gettid);
		uint64_t key = tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff);
		if (e == key && atomic_compare_exchange_strong(&S.end_push, &e, 0)) {
			pthread_mutex_lock(&S.mu);
			schedule_close_locked();
			pthread_mutex_unlock(&S.mu);
			return;
		}
	}
	uint64_t p = atomic_load(&K.push);
	if (!p || level < 0)
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	if (p != (tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff)))
		return;
	atomic_store(&K.push, 0);
	give_back();
}
