/* libmsprof_agent internals: what the hot path, the writer, the control
 * thread and the API front ends (mstx.c, nvtx.c) share.  Nothing here is
 * exported from the shared library (agent.map lists what is).
 *
 * Threads and buffers
 * -------------------
 * Every application thread that annotates while a window records gets a
 * slot (struct athread): a single-producer single-consumer queue of blocks
 * it alone writes, the agent thread alone drains.  Events are written
 * straight into the blocks as they go into the file (raw.h,
 * RAW_AGENT_BATCH: 16 bytes and the message for a mark or a push, 16 for
 * a pop), so that the writer hands whole spans to the file, a batch under
 * one checksum.  An annotation call is
 *
 *   idle:      one relaxed load of g_state, compare, return
 *   recording: a read of the event clock (clock.h: the TSC, or the vDSO's
 *              clock_gettime), plain stores of the frame into the
 *              thread's block, a release-store of the head
 *
 * and never takes a lock, makes a syscall or waits.  A full block is
 * sealed and the thread goes on in its spare (a drained block the agent
 * thread handed back) or a new one: the queue grows under a burst up to
 * g_buf_cap bytes a process (MSPROF_AGENT_BUFFER_MAX_MB), and only past it
 * is an event dropped, and counted.  Drained blocks beyond one spare a
 * thread are freed as they are drained, so the queue shrinks back once the
 * burst is written.  The agent thread ("msprof-agent") drains every queue
 * each AGENT_DRAIN_MS, and at once when a block fills, into the raw file
 * (raw.h, RAW_AGENT_*), talks to the daemon and starts/stops windows.  A
 * thread that exits leaves its queue to be drained; its slot is reused
 * once the queue is empty.
 *
 * The producer's fields and the consumer's are on separate cache lines,
 * and the agent thread reads a producer's head once per drain, never per
 * event: the program's thread does not wait for a line the writer holds.
 *
 * Stopping a window must not lose an event that was past the g_state check
 * when the state flipped: each call marks its slot busy around the
 * recording path, and the stopper flips g_state, issues membarrier(2)
 * (so every running thread has seen the flip or had its busy mark seen),
 * waits for the busy marks to clear, then drains for the last time.
 *
 * Range ids are (generation:8 | slot:16 | sequence:40); a slot keeps a table
 * of its open ranges (by sequence modulo AGENT_OPEN_RANGES) so that any
 * thread can end a range with one compare-and-swap, and an id that was never
 * handed out (or already ended) is told apart from one of an earlier window
 * (generation differs: ignored) without a lock.
 *
 * Layers
 * ------
 * Calls go down only; no file calls into a file above it:
 *
 *   mstx.c nvtx.c osrt.c   the program's calls (annotations, libc,
 *   nccl.c                 NCCL's profiler plugin calls)
 *   exitflush.c            exec and _exit: agent_flush_now
 *   control.c              load, fork, exit; the agent thread and the daemon
 *   selfenable.c           MSPROF_OPTIONS / MSPROF_CONFIG: msprof started at load
 *   window.c               the recording window and the writer
 *   cupti.c                CUPTI and its queue of device records
 *   core.c                 state, slots and queues, registries, the wake-up,
 *                          the osrt switches
 *   gate.c  ajson.c        step range and ranks; the messages' JSON
 *   clock.c                the event clock and its mapping to ns
 *
 * A front end calls core.c (exitflush.c: control.c) and nothing calls it;
 * control.c calls every layer below it, window.c calls cupti.c and core.c,
 * core.c calls gate.c on the hot path.  A lower file that must tell an
 * upper one something does it without calling up:
 *   - a block full, CUPTI up, a flush asked for: core.c's eventfd
 *     (agent_wake, a direct call from the hot path), and the agent thread
 *     looks (answer_flush, agent_cupti_came_up);
 *   - a forked child's first call: struct agent_core_ops, which control.c
 *     gives core.c at load (rare events only: the per-event path calls
 *     nothing through a pointer);
 *   - state read by several layers (g_state, g_osrt_on, tl_osrt_off) lives
 *     in core.c, the lowest of them; core.c tells gate.c each domain's
 *     name as it makes it (agent_gate_domain_named).
 * The libc calls osrt.c wraps are also the agent's own (its locks, reads
 * and writes bind to the wrappers in the osrt build): not calls into osrt.c
 * by intent; the agent's threads and slow paths set tl_osrt_off so that
 * they are not recorded as the program's. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collectors/agent/clock.h"
#include "collectors/raw.h"
#include "common/util.h"

#define AGENT_EXPORT __attribute__((visibility("default")))

#define AGENT_MAX_THREADS 16384        /* slots; ids hold 16 bits of slot */
#define AGENT_MAX_DOMAINS 4096         /* live and destroyed, per process */
#define AGENT_MAX_STRINGS 65536        /* NVTX registered strings */
#define AGENT_MAX_NAMES 4096           /* category and thread names */
#define AGENT_OPEN_RANGES 1024         /* start/end ranges open at once per thread */
#define AGENT_DEPTH_GENS 64            /* push levels whose window is remembered */
#define AGENT_DRAIN_MS 50
#define AGENT_EXIT_FLUSH_MS 1000       /* the most exec/_exit waits for the flush */
#define AGENT_BLOCK_DEFAULT_KB 1024    /* block size; MSPROF_AGENT_BUFFER_KB overrides */
/* The most a process's blocks take, all threads together: what a burst of
 * 1M events of one thread takes with messages up to 64 bytes (a push with
 * one, 68 + 64 bytes, and a pop, 48), and more; MSPROF_AGENT_BUFFER_MAX_MB
 * overrides.  Every thread gets two blocks whatever the cap. */
#define AGENT_BUFFER_MAX_DEFAULT_MB 128
/* what the hello says this build records: osrt only with osrt.c */
#ifdef MSPROF_AGENT_NO_OSRT
#define AGENT_FEATURES "mstx,nvtx"
#else
#define AGENT_FEATURES "mstx,nvtx,osrt"
#endif

/* g_state.  A forked child of a recording process buffers from its first
 * call until its registration says whether a window covers it: its
 * threads' events wait in their queues (under the same cap), and the
 * window that opens takes them; none, and they are forgotten (they were
 * outside every window). */
enum {
	AGENT_IDLE = 0,
	AGENT_RECORDING = 1,
	AGENT_CHILD = 2,      /* forked: the first call sets the child up */
	AGENT_BUFFERING = 3,  /* forked child registering: events are queued */
};
/* The states in which an annotation goes into its thread's queue. */
#define AGENT_QUEUES 1
static inline bool agent_state_queues(int state)
{
	return state & AGENT_QUEUES;
}

/* ENUM_MSTX_EVENT_TYPE, the event_type of RAW_AGENT_MARK/RANGE_* */
#define EV_TYPE_MARKER 0
#define EV_TYPE_PUSHPOP 1
#define EV_TYPE_STARTEND 2
#define EV_TYPE_MARKER_EX 3

/* A block of a thread's queue: events one after another from data[0]; an
 * event never straddles two blocks. */
#define ABLOCK_OPEN UINT32_MAX
struct ablock {
	_Atomic(struct ablock *) next;  /* set before sealed */
	_Atomic uint32_t sealed;        /* ABLOCK_OPEN while written; then the bytes used */
	uint32_t size;                  /* bytes of data */
	_Alignas(64) uint8_t data[];
};

/* Per-domain push/pop state of one thread. */
#define DSTACK_DROPPED 0x100
struct dstack {
	uint32_t depth;
	/* window generation that recorded a level (0 none), with
	 * DSTACK_DROPPED: that dropped it (its pop is counted as dropped) */
	uint16_t gen[AGENT_DEPTH_GENS];
};

struct athread {
	/* producer side: written by the owning thread only */
	struct ablock *wblk;       /* the block being written; NULL: none yet */
	uint8_t *wdata;
	uint32_t wpos, wsize;
	uint64_t head_local;
	_Atomic uint64_t head;     /* bytes of frames committed, all blocks */
	_Atomic uint32_t busy;
	uint32_t tid;
	uint32_t slot;
	uint64_t next_seq;
	_Atomic uint64_t *open;    /* AGENT_OPEN_RANGES; ended by any thread (CAS) */
	struct dstack *depth;      /* indexed by domain id */
	uint32_t depth_cap;
	char name[16];             /* the thread's comm when it took the slot */
	/* counters, cumulative over the slot's life; owner-written (events
	 * are counted by the writer, as written) */
	_Atomic uint64_t n_dropped, n_bad, n_truncated;
	_Atomic uint64_t n_nested;  /* dropped: a signal handler inside a call */
	_Atomic uint64_t n_unopened; /* dropped: no room to keep an operation open (nccl.c) */
	_Atomic int live;          /* 1 while a thread owns the slot */
	/* the first block, for the consumer to start from (set once) */
	_Atomic(struct ablock *) first;
	/* blocks the slot holds: the first two are its own whatever the cap,
	 * so that a thread whose block is full always goes on once the agent
	 * thread has written the other */
	_Atomic uint32_t nblocks;

	/* handed from the consumer to the producer: a drained block */
	_Alignas(64) _Atomic(struct ablock *) spare;

	/* consumer side (agent thread), on its own cache line */
	_Alignas(64) _Atomic uint64_t tail;
	struct ablock *rblk;
	uint32_t rpos;
	uint64_t seen_dropped, seen_bad, seen_truncated, seen_nested, seen_unopened;
};

/* --- core.c: state, slots, registries, the recording primitives ---------- */

extern _Atomic int g_state;
extern _Atomic uint8_t g_gen;          /* window generation, 1..255 */
extern struct athread *_Atomic g_threads[AGENT_MAX_THREADS];
extern _Atomic uint32_t g_n_threads;
extern pthread_mutex_t g_reg_mu;       /* slots, domains, names, filter */
extern uint64_t g_block_bytes;         /* block size: MSPROF_AGENT_BUFFER_KB */
extern uint64_t g_buf_cap;            /* all blocks of the process: MSPROF_AGENT_BUFFER_MAX_MB */
extern _Atomic uint64_t g_buf_bytes;  /* the blocks allocated now */
/* events lost by threads that could not get a slot or a block */
extern _Atomic uint64_t g_orphan_dropped, g_orphan_bad;

struct agent_domain {
	_Atomic int state;        /* 0 unused, 1 live, 2 destroyed */
	_Atomic int enabled;      /* passes the window's include/exclude filter */
	char *name;
};
extern struct agent_domain g_domains[AGENT_MAX_DOMAINS];
extern _Atomic uint32_t g_n_domains;   /* id 0 is "default", always live */

/* Category names (domain, id) and thread names (tid) as the program set
 * them; append-only, the writer emits the ones it has not written yet. */
struct agent_name {
	uint32_t domain;   /* categories */
	uint32_t key;      /* category id or tid */
	char *name;
};
extern struct agent_name g_categories[AGENT_MAX_NAMES];
extern _Atomic uint32_t g_n_categories;
extern struct agent_name g_thread_names[AGENT_MAX_NAMES];
extern _Atomic uint32_t g_n_thread_names;

void agent_core_init(void);
/* What core.c tells the file above it (control.c sets them at load, before
 * any fork).  Rare events only: the per-event path calls nothing through
 * a pointer. */
struct agent_core_ops {
	/* the first call in a forked child (g_state AGENT_CHILD): set it up */
	void (*after_fork)(void);
};
void agent_core_set_ops(const struct agent_core_ops *ops);
/* The calling thread's slot, taking one if needed; with_queue: also its queue
 * (only while recording).  NULL when none can be had. */
struct athread *agent_thread_get(bool with_queue);
/* Detach the calling thread (thread exit). */
void agent_thread_exit(void);
/* The calling thread's slot if it has one (async-signal-safe). */
struct athread *agent_thread_get_if_any(void);
/* A drained block back from the agent thread: kept as the slot's spare,
 * or freed. */
void agent_block_retire(struct athread *t, struct ablock *b);
/* Free every slot's spare (the agent thread, between windows: the queues
 * shrink to one block a thread). */
void agent_spares_free(void);
/* In a forked child (one thread, no agent thread yet): forget what the
 * slot's queue holds. */
void agent_slot_reset(struct athread *t);

/* Domains: handles are tagged integers, never dereferenced. */
void *agent_domain_handle(uint32_t id);
/* 1 and *ret_id for a live domain (NULL: the default one), 0 for a
 * destroyed or unknown handle (a bad call). */
int agent_domain_lookup(const void *handle, uint32_t *ret_id);
void *agent_domain_create(const char *name);
int agent_domain_destroy(const void *handle);
/* Window filter: comma-separated names; "default" is domain 0. */
void agent_filter_set(const char *include, const char *exclude);

/* Registered strings (NVTX). */
void *agent_string_register(const char *s, size_t n);
const char *agent_string_lookup(const void *handle, uint32_t *ret_len);

void agent_name_category(uint32_t domain, uint32_t category, const char *name, size_t n);
void agent_name_thread(uint32_t tid, const char *name, size_t n);

/* Waking the agent thread: an eventfd it polls (-1 until agent_wake_open).
 * agent_wake_close is async-signal-safe (a fork child's handler). */
int agent_wake_open(void);
void agent_wake_close(void);
int agent_wake_fd(void);
/* Wake it early (a block is full); once until it clears the wake. */
void agent_wake(void);
/* Wake it whatever is pending: async-signal-safe, the raw syscall (not
 * through osrt's write) and errno clobbered (agent_flush_now keeps it). */
void agent_wake_always(void);
/* The agent thread woke on the eventfd: empty it and allow the next wake. */
void agent_wake_clear(void);

/* The recording primitives behind every API.  msg may be NULL only for
 * an END; len < 0: NUL-terminated.  Calls made while idle return at once. */
void agent_mark(uint32_t domain, uint16_t type, const char *msg, long len, uint32_t category, uint32_t color);
uint64_t agent_range_start(uint32_t domain, const char *msg, long len, uint32_t category, uint32_t color);
/* 0: ended or ignored, -1: unknown id (counted as a bad call). */
int agent_range_end(uint32_t domain, uint64_t id);
/* Level of the pushed range (0-based); pop: level of the popped one, -1
 * when nothing was pushed. */
int agent_push(uint32_t domain, const char *msg, long len, uint32_t category, uint32_t color);
int agent_pop(uint32_t domain);
/* A bad call (NULL message, destroyed domain...): counted while recording. */
void agent_bad_call(void);
/* An OS runtime call of the calling thread (osrt.c, while g_osrt_on). */
void agent_osrt(uint16_t api, uint64_t start, uint64_t end); /* event-clock units (clock.h) */

/* A communication operation NCCL's profiler plugin interface reported
 * (nccl.c): payload is RAW_AGENT_COMM_OP's after its end time, already
 * little-endian, at most RAW_AGENT_MAX_STR bytes.  Idle: nothing. */
void agent_comm_op(uint16_t kind, uint64_t start, uint64_t end, const uint8_t *payload, uint32_t len);
/* An event lost before it reached a queue (no room to keep it open):
 * counted as such (dropped_unopened) while recording. */
void agent_dropped(void);
/* NCCL initialised us as its profiler plugin (once: wakes the agent
 * thread); whether it did; whether it did since the agent thread last
 * asked (then a session left idle gets a window, as for CUPTI). */
void agent_comm_plugin_up(void);
bool agent_comm_plugin_active(void);
bool agent_comm_plugin_came_up(void);

/* --- cupti.c (cupti-none.c without the CUDA headers): device tasks -------- */

/* The CUDA driver's entry point for CUDA_INJECTION64_PATH. */
AGENT_EXPORT int InitializeInjection(void);
/* CUPTI records for us: a session's window then opens for device tasks
 * even when it asks for nothing else of the agent. */
bool agent_cupti_active(void);
/* Whether CUPTI came up since the last call (it wakes the agent thread,
 * which then opens a window for a session that had found nothing to record
 * in this agent). */
bool agent_cupti_came_up(void);
/* The window began at start_ns (CLOCK_MONOTONIC), or ended (0): records of
 * tasks that started outside a window are dropped. */
void agent_cupti_window(uint64_t start_ns);
/* Hand every buffered CUPTI record over now (window_stop, still recording). */
void agent_cupti_flush(void);
/* Records wait in the queue, or records not written wait to be counted. */
bool agent_cupti_pending(void);
/* Device records of a window not written, by cause. */
struct cupti_lost {
	uint64_t lost;     /* the queue was full (or no memory) */
	uint64_t untimed;  /* no start or end time: still running at a forced flush */
	uint64_t bad;      /* impossible values */
};
/* Move the queued device-task records into the raw file through emit;
 * returns how many were written, and adds to *ret those not written since
 * the last drain. */
unsigned long agent_cupti_drain(int (*emit)(uint16_t type, const uint8_t *p, uint32_t len), struct cupti_lost *ret);
/* --capture-range=cudaProfilerApi (capture.c, at load): fn(true) at each
 * cudaProfilerStart or cuProfilerStart of the job, fn(false) at each stop,
 * once CUPTI is up (said when it cannot be). */
void agent_cupti_on_profiler_api(void (*fn)(bool start));

/* --- osrt.c: the interposed libc calls ------------------------------------ */

/* core.c holds what osrt.c's wrappers read, and the per-thread switch. */
extern _Atomic int g_osrt_on;          /* set by window_start, cleared first by window_stop */
extern uint64_t g_osrt_threshold_ticks; /* in event-clock units (clock.h) */
/* The calling thread records its own calls (false: never, as the agent
 * thread, the load and exit handlers). */
#ifdef MSPROF_AGENT_NO_OSRT
/* Built without osrt.c: no interposed calls, so no thread of ours needs
 * telling apart from the program's. */
static inline void agent_osrt_self(bool on) { (void)on; }
static inline bool agent_osrt_self_swap(bool on) { return on; }
#else
/* nonzero: the thread's calls are not recorded (osrt.c's wrappers) */
extern __thread int tl_osrt_off __attribute__((tls_model("initial-exec")));
void agent_osrt_self(bool on);
/* The same, returning the previous setting (to put it back). */
bool agent_osrt_self_swap(bool on);
#endif

static inline bool agent_idle(void)
{
	return atomic_load_explicit(&g_state, memory_order_relaxed) == AGENT_IDLE;
}

/* s, then v in decimal, after buf[0..len), within cap bytes (one kept for
 * a terminator); the new length.  Async-signal-safe, unlike snprintf. */
static inline size_t agent_put_str(char *buf, size_t len, size_t cap, const char *s)
{
	while (*s && len + 1 < cap)
		buf[len++] = *s++;
	return len;
}

static inline size_t agent_put_u64(char *buf, size_t len, size_t cap, uint64_t v)
{
	char num[24];
	size_t k = 0;
	do
		num[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < sizeof num);
	while (k && len + 1 < cap)
		buf[len++] = num[--k];
	return len;
}

/* --- capture.c: --capture-range ------------------------------------------- */

enum { AGENT_CAPTURE_MSTX = 1, AGENT_CAPTURE_NVTX = 2, AGENT_CAPTURE_CUDA = 3 };
/* The id a range start returns when it opened a capture while idle: its
 * end closes the capture and records nothing. */
#define AGENT_CAPTURE_ID UINT64_MAX
extern _Atomic bool g_capture_on;    /* MSPROF_CAPTURE_RANGE names a range, or a --schedule is
					armed (at load, or by msprofd later) */
/* Whether the annotation hooks look at ranges for a capture (relaxed: a
 * range racing the arming may be missed, as one made a moment before). */
static inline bool agent_capture_on(void)
{
	return atomic_load_explicit(&g_capture_on, memory_order_relaxed);
}

/* Ask msprof for a window to start or stop (msprofStart/msprofStop): 0,
 * or -ENOTCONN / -ENOTSUP (control.c). */
int agent_capture_ask(bool start);
/* The same for a --schedule window of steps [lo, hi). */
int agent_capture_ask_steps(bool start, int64_t lo, int64_t hi);
/* --dump-on (common/flight-recorder.h), from agent_start: arm(spec) ("":
 * off), and tick(now) on the agent thread at each of its wakes (capture.c's,
 * at load). */
void agent_control_on_watch(void (*arm)(const char *spec), void (*tick)(uint64_t now_ns));
/* A trigger of --dump-on seen in this process: the agent thread drains the
 * queues into the ring and asks msprofd for a dump.  0, -EBUSY (one is
 * waiting to be sent), -ENOTCONN, -ENOTSUP. */
int agent_dump_ask(const char *trigger, const char *detail);
/* msprofd's agent_schedule reaches fn (capture.c's, at load: a hook, so
 * that calls go down). */
void agent_control_on_schedule(void (*fn)(const char *spec));
/* A range start of that kind and message: true when it opens a capture;
 * then agent_capture_began(the id it returns, 0 when not recorded). */
bool agent_capture_begin(int kind, const char *msg, long len);
void agent_capture_began(uint64_t id);
/* A range end: true when it closed the capture (id was its range's). */
bool agent_capture_end(uint64_t id);
/* An NVTX push (level: agent_push's return) and pop (agent_pop's). */
void agent_capture_push(int kind, const char *msg, long len, uint32_t domain, int level);
void agent_capture_pop(uint32_t domain, int level);
/* --dump-on's hang, for collectives: a range of the domain
 * "communication" began (its id, from agent_range_start) ... and a range
 * ended (agent_capture_end looks too). */
void agent_capture_comm_began(uint32_t domain, uint64_t id, const char *msg);
/* mstxStep(step) (end false) or mstxStepEnd(step), for --schedule. */
void agent_capture_step_mark(bool end, uint64_t step);

/* --- unrecorded.c: annotations made while --msproftx is off --------------- */

/* MSPROF_AGENT_UNRECORDED names a folder (the launcher's, with --msproftx
 * off): the annotation calls the agent does not record are counted, and
 * the process writes its count into <folder>/<pid> as it ends, for the
 * launcher's end-of-run line.  Set once, at load. */
extern bool g_unrecorded_on;
void agent_unrecorded_add(void);
/* The count so far into the folder (async-signal-safe; exec, _exit and the
 * destructor call it; a later call rewrites the file). */
void agent_unrecorded_write(void);
/* A forked child starts its own count. */
void agent_unrecorded_forget(void);
/* With MSPROF_AGENT_UNRECORDED only (no session to register with: the
 * agent was preloaded to count). */
bool agent_unrecorded_only(void);
void agent_unrecorded_init(void);

/* agent_idle() for a mark or a range start of the API: counted while the
 * agent counts what it does not record. */
static inline bool agent_idle_annotation(void)
{
	if (!agent_idle())
		return false;
	if (__builtin_expect(g_unrecorded_on, 0))
		agent_unrecorded_add();
	return true;
}

/* --- gate.c: --step-range and --ranks ------------------------------------ */

/* A step range is set: while not, every annotation passes and the calls
 * below are not made (the hot path tests it inline). */
extern _Atomic int g_gate_on;
static inline bool agent_gate_on(void)
{
	return atomic_load_explicit(&g_gate_on, memory_order_relaxed);
}
/* "A-B", A < B, both decimal: -EINVAL otherwise. */
int agent_gate_parse_range(const char *s, int64_t *ret_lo, int64_t *ret_hi);
/* Whether rank is in the comma-separated list ("" or NULL: every rank). */
bool agent_gate_rank_listed(const char *ranks, int rank);
/* A domain got its name (core.c, before the id is handed out): the step
 * markers' domain is told by it. */
void agent_gate_domain_named(uint32_t id, const char *name);
/* Whether a domain is "communication" (collectives as mstx ranges). */
bool agent_gate_is_comm(uint32_t domain);
/* Set or clear the step range (the agent thread, before a window starts). */
void agent_gate_set(bool on, int64_t lo, int64_t hi);
/* Whether an annotation passes: marks true/false; starts and pushes 0
 * (filtered), 1 (record) or 2 (record: it starts a step). */
bool agent_gate_mark(uint32_t domain, const char *msg, long len);
int agent_gate_start(const char *msg, long len);
void agent_gate_started_range(uint64_t id);
void agent_gate_ended_range(uint64_t id);
void agent_gate_pushed(uint32_t slot, uint32_t domain, uint32_t level);
void agent_gate_popped(uint32_t slot, uint32_t domain, uint32_t level);

/* --- window.c: the writer side -------------------------------------------- */

struct window_opts {
	const char *prof_dir;      /* PROF_… dir: files go to <prof_dir>/host/data */
	const char *include, *exclude;
	uint64_t session;
	bool osrt;                 /* record OS runtime calls (osrt.c) */
	bool no_mstx;              /* osrt only: no annotations */
	uint64_t osrt_threshold_ns;
};

struct window_result {
	uint64_t events, dropped, bad, truncated, bytes;
	/* dropped, by cause: the queues reached MSPROF_AGENT_BUFFER_MAX_MB (or
	 * no memory), a signal handler annotated inside an annotation, a
	 * thread got no slot, an operation found no room to be kept open
	 * until its end (NCCL's), the file could not be written */
	uint64_t dropped_full, dropped_nested, dropped_noslot, dropped_unopened, dropped_write;
};

extern pthread_mutex_t g_win_mu;   /* the window: held by start, stop, drain */

/* Open agent_<pid>.data in <prof_dir>/host/data and start recording.
 * -EBUSY when a window is open. Caller holds g_win_mu. */
/* Register for expedited membarrier once, ahead of any window: the first
 * registration can take tens of ms, which would otherwise delay the first
 * window's start (called with g_win_mu held, from the agent thread). */
void window_prepare(void);
int window_start(const struct window_opts *o);
/* Stop recording, drain, write the counters, close.  -ENOENT when no
 * window is open.  Caller holds g_win_mu. */
int window_stop(struct window_result *ret);
/* The same, ended by the agent because msprofd was lost: the last counters
 * say so (RAW_AGENT_ENDED_LOST), for the export to tell. */
int window_stop_lost(void);
/* Drain every queue into the file (agent thread, every AGENT_DRAIN_MS). */
void window_drain(void);
/* The same, with the counters, at once (agent thread, for agent_flush_now). */
void window_flush(void);
bool window_active(void);
uint64_t window_session(void);
/* Totals over the life of the process, for the message at exit (events
 * and bytes: not kept). */
void window_totals(struct window_result *ret);
/* After fork, in the child: forget the parent's window without writing. */
void window_forget_after_fork(void);
/* A forked child's buffering ended with no window for it: back to idle,
 * and what its queues hold is forgotten.  Caller holds g_win_mu. */
void window_discard_buffered(void);
/* The data dir of the current (or last) window, "" before the first: read
 * without a lock (async-signal-safe), it changes only when a window starts. */
const char *window_dir(void);

/* --- control.c: the agent thread --------------------------------------- */

int agent_thread_start(void);
/* The process image is about to end (exec, _exit: exitflush.c): have the
 * agent thread write what the queues hold, and wait for it at most
 * AGENT_EXIT_FLUSH_MS.  Async-signal-safe; keeps errno.  Does nothing while
 * idle, in a forked child that never annotated, in a vfork child, and once
 * the exit handler has run. */
void agent_flush_now(void);

/* --- selfenable.c: MSPROF_OPTIONS / MSPROF_CONFIG without msprof -------- */

/* At load: start msprof to profile this process when the environment asks
 * for it and no session covers the process yet.  How long the program
 * should then wait for its window, in ms; 0 when it should not. */
uint64_t agent_self_enable(void);

/* --- process facts ------------------------------------------------------ */
int agent_rank(void);        /* common/rankenv.h's rank; -1 */
struct rank_env;
void agent_rank_env(struct rank_env *ret);
void agent_rank_init(void);  /* at load: the rank is read once (core.c) */
void agent_rank_forget(void); /* in a forked child: read again at first use */
void agent_comm(char *buf, size_t size);
void agent_cmdline(char *buf, size_t size);
