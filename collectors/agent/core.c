/* The hot path and the registries: thread slots and their queues of blocks, range ids,
 * push/pop levels, domains, registered strings and names.  See agent.h for
 * the design.  Everything the application thread does when recording is
 * in agent_mark, agent_range_start/end, agent_push/pop and the inline helpers
 * above them; everything else here is a slow path taken once per thread,
 * domain or name. */
#include <endian.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif
#include "collectors/agent/agent.h"
#include "common/rankenv.h"
#include "collectors/osrt-api.h"

_Atomic int g_state;
_Atomic uint8_t g_gen = 1;
struct athread *_Atomic g_threads[AGENT_MAX_THREADS];
_Atomic uint32_t g_n_threads;
pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
uint64_t g_block_bytes = (uint64_t)AGENT_BLOCK_DEFAULT_KB << 10;
uint64_t g_buf_cap = (uint64_t)AGENT_BUFFER_MAX_DEFAULT_MB << 20;
_Atomic uint64_t g_buf_bytes;
_Atomic uint64_t g_orphan_dropped, g_orphan_bad;

/* osrt settings of the open window: set by window.c, read by osrt.c's
 * wrappers (here, below both, so that neither reaches into the other). */
_Atomic int g_osrt_on;
uint64_t g_osrt_threshold_ticks = UINT64_MAX; /* window_start sets it, before g_osrt_on */

struct agent_domain g_domains[AGENT_MAX_DOMAINS];
_Atomic uint32_t g_n_domains;
struct agent_name g_categories[AGENT_MAX_NAMES];
_Atomic uint32_t g_n_categories;
struct agent_name g_thread_names[AGENT_MAX_NAMES];
_Atomic uint32_t g_n_thread_names;

/* Registered strings: chunks published once, entries published by count. */
#define STR_CHUNK 1024
struct reg_string {
	char *s;
	uint32_t len;
};
static struct reg_string *_Atomic g_str_chunks[AGENT_MAX_STRINGS / STR_CHUNK];
static _Atomic uint32_t g_n_strings;

/* The filter of the current window, as lists of names. */
static char *g_filter_include, *g_filter_exclude;

/* initial-exec: one TLS load, no __tls_get_addr, on the hot path; the
 * surplus static TLS glibc keeps covers a dlopen'ed agent too. */
static __thread struct athread *tl_self __attribute__((tls_model("initial-exec")));
/* Set while this thread takes its slot or first block (agent_thread_get):
 * a signal handler that annotates meanwhile gets neither. */
static __thread int tl_getting __attribute__((tls_model("initial-exec")));
/* Set while this thread holds g_reg_mu: a signal handler that annotates
 * inside our slow path must not try to take it again. */
static __thread int tl_in_reg __attribute__((tls_model("initial-exec")));
/* Whether this thread recorded its OS runtime calls before taking g_reg_mu. */
static __thread bool tl_reg_osrt __attribute__((tls_model("initial-exec")));
#ifndef MSPROF_AGENT_NO_OSRT
/* Set while the thread must not record its OS runtime calls: osrt.c's
 * wrappers test and set it, agent_osrt_self sets it for the agent's own
 * threads and handlers.  initial-exec as above (osrt.c declares it so too). */
__thread int tl_osrt_off __attribute__((tls_model("initial-exec")));
#endif
static pthread_key_t g_key;
/* What the file above (control.c) asked to be told (agent_core_set_ops). */
static const struct agent_core_ops *g_ops;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

#define HANDLE_TAG_DOMAIN 0x6d73ULL   /* "ms" in the top 16 bits */
#define HANDLE_TAG_STRING 0x6e76ULL   /* "nv" */

#define RID_GEN_SHIFT 56
#define RID_SLOT_SHIFT 40
#define RID_SEQ_MASK ((1ULL << RID_SLOT_SHIFT) - 1)

/* Owner-only counter bump: a plain load and store (no lock prefix); the
 * agent thread only reads. */
static inline void bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* g_reg_mu, unless this thread holds it already (then false: the caller
 * gives up, counted). */
static bool reg_lock(void)
{
	if (tl_in_reg)
		return false;
	tl_in_reg = 1;
	/* our own lock (and what we call holding it) is no call of the
	 * program's: recorded, it would also come back here for a slot and be
	 * counted as dropped */
	tl_reg_osrt = agent_osrt_self_swap(false);
	pthread_mutex_lock(&g_reg_mu);
	return true;
}

static void reg_unlock(void)
{
	pthread_mutex_unlock(&g_reg_mu);
	tl_in_reg = 0;
	agent_osrt_self_swap(tl_reg_osrt);
}

#ifndef MSPROF_AGENT_NO_OSRT
void agent_osrt_self(bool on)
{
	tl_osrt_off = !on;
}

bool agent_osrt_self_swap(bool on)
{
	bool old = !tl_osrt_off;
	tl_osrt_off = !on;
	return old;
}
#endif

void agent_core_set_ops(const struct agent_core_ops *ops)
{
	g_ops = ops;
}

/* A forked child's first call.  Out of line, as the direct call it
 * replaces was: the hot path that tests for it keeps its shape, and the
 * indirect call is made once per child. */
static __attribute__((noinline)) void after_fork(void)
{
	if (g_ops && g_ops->after_fork)
		g_ops->after_fork();
}

/* --- thread slots ------------------------------------------------------- */

static void key_destructor(void *p)
{
	(void)p;
	agent_thread_exit();
}

static void make_key(void)
{
	if (pthread_key_create(&g_key, key_destructor) != 0)
		g_key = (pthread_key_t)-1;
}

static void core_once(void)
{
	make_key();
	agent_clock_init();
}

void agent_core_init(void)
{
	pthread_once(&g_key_once, core_once);
	if (atomic_load_explicit(&g_domains[0].state, memory_order_acquire) != 0 || !reg_lock())
		return;
	if (atomic_load(&g_domains[0].state) == 0) {
		g_domains[0].name = strdup("default");
		agent_gate_domain_named(0, g_domains[0].name);
		atomic_store(&g_domains[0].enabled, 1);
		atomic_store(&g_domains[0].state, 1);
		atomic_store(&g_n_domains, 1);
	}
	reg_unlock();
}

static struct athread *slot_new(uint32_t idx)
{
	struct athread *t;
	if (posix_memalign((void **)&t, 64, sizeof(*t)) != 0)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->open = calloc(AGENT_OPEN_RANGES, sizeof(*t->open));
	if (!t->open) {
		free(t);
		return NULL;
	}
	t->slot = idx;
	return t;
}

/* A slot is free when its thread is gone and the agent thread has taken
 * every event out of its queue (the events carry their tid, but a slot must
 * not be handed on while its old counters are still being read). */
static bool slot_reusable(struct athread *t)
{
	return !atomic_load_explicit(&t->live, memory_order_acquire) &&
	       atomic_load_explicit(&t->tail, memory_order_acquire) ==
		       atomic_load_explicit(&t->head, memory_order_acquire);
}

static struct athread *slot_claim(void)
{
	struct athread *t = NULL;

	if (!reg_lock())
		return NULL;
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		struct athread *c = atomic_load_explicit(&g_threads[i], memory_order_relaxed);
		if (c && slot_reusable(c)) {
			t = c;
			break;
		}
	}
	if (!t && n < AGENT_MAX_THREADS) {
		t = slot_new(n);
		if (t) {
			atomic_store_explicit(&g_threads[n], t, memory_order_release);
			atomic_store_explicit(&g_n_threads, n + 1, memory_order_release);
		}
	}
	if (t) {
		/* a thread that ended inside an annotation (cancelled, or a
		 * longjmp out of a handler) left its mark: not this one's */
		atomic_store_explicit(&t->busy, 0, memory_order_relaxed);
		t->tid = (uint32_t)syscall(SYS_gettid);
		if (prctl(PR_GET_NAME, t->name) != 0)
			t->name[0] = 0;
		t->name[sizeof(t->name) - 1] = 0;
		if (t->depth)
			memset(t->depth, 0, t->depth_cap * sizeof(*t->depth));
		atomic_store_explicit(&t->live, 1, memory_order_release);
	}
	reg_unlock();
	return t;
}

/* --- blocks ------------------------------------------------------------- */

/* A block of g_block_bytes for t, its pages touched now: a page fault per
 * 4 KiB inside annotations would cost more than the annotations.  NULL past
 * the cap, unless t has fewer than two. */
static struct ablock *block_new(struct athread *t)
{
	bool force = atomic_load_explicit(&t->nblocks, memory_order_relaxed) < 2;
	uint64_t size = g_block_bytes;
	uint64_t bytes = sizeof(struct ablock) + size;
	/* past the cap, every event of every thread comes here: a read first,
	 * the locked add only when it may fit */
	if (!force && atomic_load_explicit(&g_buf_bytes, memory_order_relaxed) + bytes > g_buf_cap)
		return NULL;
	uint64_t now = atomic_fetch_add(&g_buf_bytes, bytes);
	if (!force && now + bytes > g_buf_cap) {
		atomic_fetch_sub(&g_buf_bytes, bytes);
		return NULL;
	}
	/* mmap, not malloc: the program's allocator is not entered from inside
	 * its own calls (a signal handler, a malloc hook), and the pages come
	 * populated in one call */
	bool osrt = agent_osrt_self_swap(false); /* our mmap is not the program's call */
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	agent_osrt_self_swap(osrt);
	if (m == MAP_FAILED) {
		atomic_fetch_sub(&g_buf_bytes, bytes);
		return NULL;
	}
#ifdef __SANITIZE_ADDRESS__
	/* A forked child's glibc unmaps the stacks of the parent's threads
	 * behind ASan's back; a block mapped at such an address would find
	 * their poisoned shadow (a false "stack" report): fresh memory is ours.
	 * Only then: the shadow written stays resident after the munmap (this
	 * libasan does not see it), an eighth of every block ever mapped. */
	if (__asan_region_is_poisoned(m, bytes))
		ASAN_UNPOISON_MEMORY_REGION(m, bytes);
#endif
	atomic_fetch_add_explicit(&t->nblocks, 1, memory_order_relaxed);
	struct ablock *b = m;
	atomic_init(&b->next, NULL);
	atomic_init(&b->sealed, ABLOCK_OPEN);
	b->size = (uint32_t)size;
	return b;
}

static void block_free(struct athread *t, struct ablock *b)
{
	atomic_fetch_sub_explicit(&t->nblocks, 1, memory_order_relaxed);
	uint64_t bytes = sizeof(struct ablock) + b->size;
	bool osrt = agent_osrt_self_swap(false);
	munmap(b, bytes);
	agent_osrt_self_swap(osrt);
	atomic_fetch_sub(&g_buf_bytes, bytes);
}

static void block_use(struct athread *t, struct ablock *b)
{
	t->wblk = b;
	t->wdata = b->data;
	t->wsize = b->size;
	t->wpos = 0;
}

static bool queue_start(struct athread *t)
{
	struct ablock *b = block_new(t);
	if (!b)
		return false;
	/* head and tail run on from where they are (a reused slot) */
	t->head_local = atomic_load_explicit(&t->head, memory_order_relaxed);
	block_use(t, b);
	atomic_store_explicit(&t->first, b, memory_order_release);
	return true;
}

void agent_block_retire(struct athread *t, struct ablock *b)
{
	/* every block is g_block_bytes: any takes any event */
	struct ablock *none = NULL;
	atomic_store_explicit(&b->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&b->sealed, ABLOCK_OPEN, memory_order_relaxed);
	if (!atomic_compare_exchange_strong_explicit(&t->spare, &none, b, memory_order_release, memory_order_relaxed))
		block_free(t, b);
}

void agent_spares_free(void)
{
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		struct ablock *b = t ? atomic_exchange_explicit(&t->spare, NULL, memory_order_acquire) : NULL;
		if (b)
			block_free(t, b);
	}
}

void agent_slot_reset(struct athread *t)
{
	/* one thread, no consumer: the queue restarts in the producer's block */
	struct ablock *b = t->wblk;
	if (b) {
		for (struct ablock *r = t->rblk ? t->rblk : atomic_load(&t->first); r && r != b;) {
			struct ablock *next = atomic_load(&r->next);
			block_free(t, r);
			r = next;
		}
		atomic_store(&b->next, NULL);
		atomic_store(&b->sealed, ABLOCK_OPEN);
		t->wpos = 0;
		atomic_store(&t->first, b);
	}
	t->rblk = b;
	t->rpos = 0;
	atomic_store(&t->head, t->head_local);
	atomic_store(&t->tail, t->head_local);
	/* the child's counts start here: a window that takes what the child
	 * buffered counts its drops from the fork on */
	t->seen_dropped = atomic_load(&t->n_dropped);
	t->seen_bad = atomic_load(&t->n_bad);
	t->seen_truncated = atomic_load(&t->n_truncated);
	t->seen_nested = atomic_load(&t->n_nested);
	t->seen_unopened = atomic_load(&t->n_unopened);
}

struct athread *agent_thread_get(bool with_queue)
{
	struct athread *t = tl_self;
	if (t && (!with_queue || t->wblk))
		return t;
	/* A signal handler annotating while this thread takes its slot or
	 * its first block would take a second slot, or start a queue the
	 * interrupted call then overwrites: it gets none (its event is
	 * counted as dropped by the caller). */
	if (tl_getting)
		return NULL;
	tl_getting = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (!t) {
		agent_core_init();
		t = slot_claim();
		if (t) {
			tl_self = t;
			if (g_key != (pthread_key_t)-1)
				pthread_setspecific(g_key, t);
		}
	}
	if (t && with_queue && !t->wblk && !queue_start(t))
		t = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	tl_getting = 0;
	return t;
}

struct athread *agent_thread_get_if_any(void)
{
	return tl_self;
}

void agent_thread_exit(void)
{
	struct athread *t = tl_self;
	if (!t)
		return;
	tl_self = NULL;
	/* the queue stays with the slot: the agent thread drains it */
	atomic_store_explicit(&t->live, 0, memory_order_release);
}

/* --- waking the agent thread -------------------------------------------- */

/* The eventfd the agent thread polls.  Here rather than with the agent
 * thread (control.c): block_next wakes it, and a call from the hot path
 * goes down, directly, never through a pointer. */
static int g_wake_fd = -1;
static _Atomic int g_wake_pending;

int agent_wake_open(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	g_wake_fd = fd;
	return 0;
}

void agent_wake_close(void)
{
	if (g_wake_fd >= 0)
		close(g_wake_fd);
	g_wake_fd = -1;
	atomic_store(&g_wake_pending, 0);
}

int agent_wake_fd(void)
{
	return g_wake_fd;
}

/* Out of line: it is called once a block. */
__attribute__((noinline)) void agent_wake(void)
{
	if (g_wake_fd < 0 || atomic_load_explicit(&g_wake_pending, memory_order_relaxed) ||
	    atomic_exchange(&g_wake_pending, 1))
		return;
	/* not through osrt's write: an application thread wakes the agent
	 * thread, and that write is ours, not the program's; a full eventfd
	 * is awake already */
	uint64_t one = 1;
	(void)syscall(SYS_write, g_wake_fd, &one, sizeof(one));
}

void agent_wake_always(void)
{
	uint64_t one = 1;
	(void)syscall(SYS_write, g_wake_fd, &one, sizeof(one)); /* not through osrt's write */
}

void agent_wake_clear(void)
{
	uint64_t v;
	if (read(g_wake_fd, &v, sizeof(v)) < 0) {
		/* nothing to read: another wake took it */
	}
	atomic_store(&g_wake_pending, 0);
}

/* --- the recording path ------------------------------------------------- */

/* Enter the recording path: the slot with its queue, marked busy, or NULL
 * (idle after all, no slot, or a nested call from a signal handler). */
static inline struct athread *rec_enter(void)
{
	if (_unlikely_(atomic_load_explicit(&g_state, memory_order_relaxed) == AGENT_CHILD))
		after_fork();
	struct athread *t = tl_self;
	if (_unlikely_(!t || !t->wblk)) {
		if (!agent_state_queues(atomic_load_explicit(&g_state, memory_order_relaxed)))
			return NULL;
		t = agent_thread_get(true);
		if (!t) {
			atomic_fetch_add(&g_orphan_dropped, 1);
			return NULL;
		}
	}
	if (_unlikely_(atomic_load_explicit(&t->busy, memory_order_relaxed))) {
		/* A signal handler annotating inside an annotation: dropped,
		 * counted apart with an atomic add (the interrupted call may be
		 * halfway through bumping n_dropped). */
		atomic_fetch_add(&t->n_nested, 1);
		return NULL;
	}
	atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
	/* Pairs with membarrier() in window_stop: the stopper sees busy, or
	 * we see the state it stored. */
	atomic_signal_fence(memory_order_seq_cst);
	if (_unlikely_(!agent_state_queues(atomic_load_explicit(&g_state, memory_order_relaxed)))) {
		atomic_store_explicit(&t->busy, 0, memory_order_relaxed);
		return NULL;
	}
	return t;
}

static inline void rec_leave(struct athread *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* An event's bytes are stored little-endian with plain (possibly
 * unaligned) stores: events follow one another without padding, as they
 * go into the file's batches. */
static inline void st64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* The thread's block is full: seal it and go on in the spare or a new
 * block; NULL when the cap is reached (the event is dropped). */
static __attribute__((noinline)) uint8_t *block_next(struct athread *t, uint32_t size)
{
	struct ablock *n = atomic_exchange_explicit(&t->spare, NULL, memory_order_acquire);
	if (!n && !(n = block_new(t)))
		return NULL;
	if (_unlikely_(size > n->size)) {
		agent_block_retire(t, n);
		return NULL;
	}
	struct ablock *b = t->wblk;
	atomic_store_explicit(&b->next, n, memory_order_relaxed);
	atomic_store_explicit(&b->sealed, t->wpos, memory_order_release);
	block_use(t, n);
	agent_wake(); /* a block to write */
	return n->data;
}

/* Room for an event of `size` bytes in the thread's block, or NULL (the
 * event is dropped: counted by the caller). */
static inline uint8_t *ev_reserve(struct athread *t, uint32_t size)
{
	if (_likely_(size <= t->wsize - t->wpos))
		return t->wdata + t->wpos;
	return block_next(t, size);
}

static inline void ev_commit(struct athread *t, uint32_t size)
{
	t->wpos += size;
	t->head_local += size;
	atomic_store_explicit(&t->head, t->head_local, memory_order_release);
}

/* An event's head (raw.h, RAW_AGENT_BATCH): ts, kind, event type, n,
 * domain; what follows it is the caller's. */
static inline uint8_t *ev_head(uint8_t *p, uint64_t ts, unsigned kind, unsigned etype, uint32_t n, uint32_t domain)
{
	st64(p, ts);
	st64(p + 8, kind | etype << 8 | n << 16 | (uint64_t)domain << 32);
	return p + RAW_AGENT_EV_HEAD;
}
/* strnlen inline, a word at a time: most messages are a few words, and
 * the call to the C library's costs as much as the scan.  The words read
 * are aligned, so none crosses into a page the string does not touch (as
 * the C library's own strlen does); the bytes read before the string or
 * after its end are never used, which ASan cannot know. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
__attribute__((no_sanitize_address)) static inline size_t msg_strnlen(const char *s, size_t max)
{
	typedef uint64_t __attribute__((may_alias)) word;
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uintptr_t a = (uintptr_t)s & ~(uintptr_t)7;
	unsigned skip = (unsigned)((uintptr_t)s & 7) * 8;
	/* the bytes before the string count as not NUL */
	uint64_t v = *(const word *)a | (skip ? (1ULL << skip) - 1 : 0);
	for (;;) {
		uint64_t z = (v - ones) & ~v & highs;
		if (z) {
			size_t n = a + ((unsigned)__builtin_ctzll(z) >> 3) - (uintptr_t)s;
			return n < max ? n : max;
		}
		a += 8;
		if (a - (uintptr_t)s >= max)
			return max;
		v = *(const word *)a;
	}
}
#else
static inline size_t msg_strnlen(const char *s, size_t max)
{
	return strnlen(s, max);
}
#endif

/* Message length, cut to RAW_AGENT_MAX_STR at a UTF-8 character boundary. */
static inline uint32_t msg_len(struct athread *t, const char *msg, long len)
{
	size_t n = len >= 0 ? (size_t)len : msg_strnlen(msg, RAW_AGENT_MAX_STR + 1);
	if (_unlikely_(n > RAW_AGENT_MAX_STR)) {
		n = RAW_AGENT_MAX_STR;
		while (n > 0 && ((unsigned char)msg[n] & 0xc0) == 0x80)
			n--;
		bump(&t->n_truncated);
	}
	return (uint32_t)n;
}

/* Longer messages: the C library's copy, out of line (inlined, a copy of
 * unknown length becomes `rep movsq`, whose start-up costs more than the
 * whole of a short copy). */
static __attribute__((noinline)) void msg_copy_long(uint8_t *d, const char *s, uint32_t n)
{
	memcpy(d, s, n);
}

/* A message into an event: the short ones (most) with two or four
 * overlapping word loads and stores, whatever their length. */
static inline void msg_copy(uint8_t *d, const char *s, uint32_t n)
{
	uint64_t a, b, c, e;
	if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n > 16 && n <= 32) {
		memcpy(&a, s, 8);
		memcpy(&b, s + 8, 8);
		memcpy(&c, s + n - 16, 8);
		memcpy(&e, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + 8, &b, 8);
		memcpy(d + n - 16, &c, 8);
		memcpy(d + n - 8, &e, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t x, y;
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n < 4) {
		for (uint32_t i = 0; i < n; i++)
			d[i] = (uint8_t)s[i];
	} else {
		msg_copy_long(d, s, n);
	}
}

static inline void dropped(struct athread *t)
{
	bump(&t->n_dropped);
}

/* One event into the thread's block (raw.h, RAW_AGENT_BATCH): ts, kind,
 * event type, a (the domain; an osrt call's api), the id where the kind
 * has one, the category and color where either is set, then n bytes of
 * message (or payload).  False when dropped (counted). */
static inline __attribute__((always_inline)) bool put_ev(struct athread *t, unsigned kind, unsigned etype,
							 uint64_t ts, uint32_t a, uint64_t id, uint32_t category,
							 uint32_t color, const void *msg, uint32_t n)
{
	if (category | color)
		kind |= RAW_AGENT_EV_ATTR;
	uint32_t size = raw_agent_ev_size(kind, etype, n);
	uint8_t *p = ev_reserve(t, size);
	if (_unlikely_(!p)) {
		dropped(t);
		return false;
	}
	p = ev_head(p, ts, kind, etype, n, a);
	if (raw_agent_ev_has_id(kind, etype)) {
		st64(p, id);
		p += 8;
	}
	if (kind & RAW_AGENT_EV_ATTR) {
		st64(p, category | (uint64_t)color << 32);
		p += 8;
	}
	msg_copy(p, msg, n);
	ev_commit(t, size);
	return true;
}

/* An annotation's way in: nothing while idle, else its time (taken
 * first, before the rest costs it anything) and the thread's record
 * (NULL: none to write into). */
static inline struct athread *rec_enter_at(uint64_t *ret_ts)
{
	if (agent_idle())
		return NULL;
	*ret_ts = agent_clock_now();
	return rec_enter();
}

static inline bool domain_enabled(uint32_t domain)
{
	return atomic_load_explicit(&g_domains[domain].enabled, memory_order_relaxed);
}

/* An annotation's domain is on: off, it is filtered out, and counted when
 * what filters it is --msproftx off (an osrt-only window). */
static inline bool annotation_enabled(uint32_t domain)
{
	if (domain_enabled(domain))
		return true;
	if (_unlikely_(g_unrecorded_on))
		agent_unrecorded_add();
	return false;
}

/* One more bad call (bad) or event lost before it reached a queue: the
 * thread's count, or the process's for a thread without a record.
 * Atomic: both are rare, and one may come from a signal handler while
 * this thread counts another. */
static void count_lost(bool bad)
{
	if (agent_idle())
		return;
	struct athread *t = agent_thread_get(false);
	if (t)
		atomic_fetch_add(bad ? &t->n_bad : &t->n_unopened, 1);
	else
		atomic_fetch_add(bad ? &g_orphan_bad : &g_orphan_dropped, 1);
}

void agent_bad_call(void)
{
	count_lost(true);
}

void agent_mark(uint32_t domain, uint16_t type, const char *msg, long len, uint32_t category, uint32_t color)
{
	uint64_t ts;
	struct athread *t = rec_enter_at(&ts);
	if (!t)
		return;
	if (annotation_enabled(domain) && (!agent_gate_on() || agent_gate_mark(domain, msg, len)))
		put_ev(t, RAW_AGENT_EV_MARK, type, ts, domain, 0, category, color, msg, msg_len(t, msg, len));
	rec_leave(t);
}

void agent_osrt(uint16_t api, uint64_t start_ns, uint64_t end_ns)
{
	struct athread *t = rec_enter();
	if (!t)
		return;
	put_ev(t, RAW_AGENT_EV_OSRT, 0, start_ns, api, end_ns, 0, 0, NULL, 0);
	rec_leave(t);
}

void agent_comm_op(uint16_t kind, uint64_t start_ns, uint64_t end_ns, const uint8_t *payload, uint32_t len)
{
	if (agent_idle() || len > RAW_AGENT_MAX_STR)
		return;
	struct athread *t = rec_enter();
	if (!t)
		return;
	put_ev(t, RAW_AGENT_EV_COMM, kind, start_ns, 0, end_ns, 0, 0, payload, len);
	rec_leave(t);
}

void agent_dropped(void)
{
	count_lost(false);
}

/* NCCL loaded us as its profiler plugin: like CUPTI coming up, a session
 * that found nothing to record in this agent gets a window now. */
static _Atomic bool g_comm_plugin, g_comm_plugin_new;

void agent_comm_plugin_up(void)
{
	if (atomic_exchange(&g_comm_plugin, true))
		return;
	atomic_store(&g_comm_plugin_new, true);
	int saved = errno;
	agent_wake_always();
	errno = saved;
}

bool agent_comm_plugin_active(void)
{
	return atomic_load(&g_comm_plugin);
}

bool agent_comm_plugin_came_up(void)
{
	return atomic_exchange(&g_comm_plugin_new, false);
}

uint64_t agent_range_start(uint32_t domain, const char *msg, long len, uint32_t category, uint32_t color)
{
	uint64_t ts;
	struct athread *t = rec_enter_at(&ts);
	if (!t)
		return 0;
	uint64_t id = 0;
	int gate = !annotation_enabled(domain) ? 0 : !agent_gate_on() ? 1 : agent_gate_start(msg, len);
	if (gate) {
		uint64_t seq = t->next_seq++ & RID_SEQ_MASK;
		uint64_t gen = atomic_load_explicit(&g_gen, memory_order_relaxed);
		id = gen << RID_GEN_SHIFT | (uint64_t)t->slot << RID_SLOT_SHIFT | seq;
		/* A start that cannot be recorded is remembered inverted, so
		 * that its end is dropped (and counted) too rather than
		 * reported as an unknown id. */
		bool ok = put_ev(t, RAW_AGENT_EV_START, EV_TYPE_STARTEND, ts, domain, id, category, color, msg,
				 msg_len(t, msg, len));
		atomic_store_explicit(&t->open[seq % AGENT_OPEN_RANGES], ok ? id : ~id, memory_order_release);
		if (gate == 2)
			agent_gate_started_range(id);
	}
	rec_leave(t);
	return id;
}

int agent_range_end(uint32_t domain, uint64_t id)
{
	uint64_t ts;
	struct athread *t = rec_enter_at(&ts);
	if (!t)
		return 0;
	int r = 0;
	uint64_t gen = id >> RID_GEN_SHIFT;
	uint32_t slot = (uint32_t)(id >> RID_SLOT_SHIFT) & 0xffff;
	if (agent_gate_on())
		agent_gate_ended_range(id);
	/* 0 (a start made while idle or filtered out) and ids of earlier
	 * windows are not errors; generation 0 was never handed out */
	if (id != 0 && gen == 0) {
		atomic_fetch_add(&t->n_bad, 1);
		r = -1;
	} else if (id != 0 && gen == atomic_load_explicit(&g_gen, memory_order_relaxed)) {
		struct athread *o = slot < atomic_load_explicit(&g_n_threads, memory_order_acquire)
					    ? atomic_load_explicit(&g_threads[slot], memory_order_acquire)
					    : NULL;
		_Atomic uint64_t *cell = o ? &o->open[(id & RID_SEQ_MASK) % AGENT_OPEN_RANGES] : NULL;
		uint64_t want = id, dropped = ~id;
		/* The owner ending its own range (the common case) needs no
		 * locked instruction: only a second end of the same id racing on
		 * another thread (a bug in the program) could then be taken
		 * twice. */
		if (o == t && atomic_load_explicit(cell, memory_order_relaxed) == id) {
			atomic_store_explicit(cell, 0, memory_order_relaxed);
			put_ev(t, RAW_AGENT_EV_END, EV_TYPE_STARTEND, ts, domain, id, 0, 0, NULL, 0);
		} else if (cell && atomic_compare_exchange_strong(cell, &want, 0)) {
			put_ev(t, RAW_AGENT_EV_END, EV_TYPE_STARTEND, ts, domain, id, 0, 0, NULL, 0);
		} else if (cell && atomic_compare_exchange_strong(cell, &dropped, 0)) {
			bump(&t->n_dropped); /* its start was dropped */
		} else {
			atomic_fetch_add(&t->n_bad, 1);
			r = -1;
		}
	}
	rec_leave(t);
	return r;
}

/* The push/pop state of this thread for a domain (grows the table). */
static struct dstack *dstack_of(struct athread *t, uint32_t domain)
{
	if (domain >= t->depth_cap) {
		uint32_t cap = t->depth_cap ? t->depth_cap : 8;
		while (cap <= domain)
			cap *= 2;
		struct dstack *d = realloc(t->depth, cap * sizeof(*d));
		if (!d)
			return NULL;
		memset(d + t->depth_cap, 0, (cap - t->depth_cap) * sizeof(*d));
		t->depth = d;
		t->depth_cap = cap;
	}
	return &t->depth[domain];
}

/* Push/pop levels are kept even while idle (NVTX returns them, and a pop
 * must know whether its push was recorded); this costs a slot per thread
 * that pushes, never a queue. */
int agent_push(uint32_t domain, const char *msg, long len, uint32_t category, uint32_t color)
{
	struct athread *t = tl_self;
	if (_unlikely_(!t) && !(t = agent_thread_get(false)))
		return -1;
	struct dstack *d = dstack_of(t, domain);
	if (!d)
		return -1;
	uint32_t level = d->depth++;
	uint16_t gen = 0;
	if (!agent_idle()) {
		uint64_t ts = agent_clock_now();
		uint16_t cur = atomic_load_explicit(&g_gen, memory_order_relaxed);
		struct athread *r = rec_enter();
		if (r) {
			int gate = !annotation_enabled(domain) ? 0 : !agent_gate_on() ? 1 : agent_gate_start(msg, len);
			if (gate == 2)
				agent_gate_pushed(t->slot, domain, level);
			if (gate)
				gen = put_ev(r, RAW_AGENT_EV_START, EV_TYPE_PUSHPOP, ts, domain, 0, category, color, msg,
					     msg_len(r, msg, len))
					      ? cur
					      : cur | DSTACK_DROPPED;
			rec_leave(r);
		} else if (!agent_idle()) {
			gen = cur | DSTACK_DROPPED; /* counted: no slot, or inside a signal handler */
		}
	} else if (_unlikely_(g_unrecorded_on)) {
		agent_unrecorded_add();
	}
	if (level < AGENT_DEPTH_GENS)
		d->gen[level] = gen;
	return (int)level;
}

int agent_pop(uint32_t domain)
{
	struct athread *t = tl_self;
	struct dstack *d = t && domain < t->depth_cap ? &t->depth[domain] : NULL;
	if (!d || d->depth == 0) {
		agent_bad_call();
		return -1;
	}
	uint32_t level = --d->depth;
	if (agent_gate_on())
		agent_gate_popped(t->slot, domain, level);
	if (!agent_idle()) {
		uint64_t ts = agent_clock_now();
		/* record the end only of a push this window recorded (deeper
		 * levels than we remember are taken as recorded); the end of one
		 * it dropped is dropped too, and counted */
		uint16_t cur = atomic_load_explicit(&g_gen, memory_order_relaxed);
		bool recorded = level >= AGENT_DEPTH_GENS || d->gen[level] == cur;
		struct athread *r = rec_enter();
		if (r) {
			if (recorded && domain_enabled(domain))
				put_ev(r, RAW_AGENT_EV_END, EV_TYPE_PUSHPOP, ts, domain, 0, 0, 0, NULL, 0);
			else if (level < AGENT_DEPTH_GENS && d->gen[level] == (cur | DSTACK_DROPPED))
				dropped(r);
			rec_leave(r);
		}
	}
	if (level < AGENT_DEPTH_GENS)
		d->gen[level] = 0;
	return (int)level;
}

/* --- domains ------------------------------------------------------------ */

void *agent_domain_handle(uint32_t id)
{
	return (void *)(uintptr_t)(HANDLE_TAG_DOMAIN << 48 | id);
}

int agent_domain_lookup(const void *handle, uint32_t *ret_id)
{
	uint64_t h = (uint64_t)(uintptr_t)handle;
	if (!handle) {
		*ret_id = 0;
		return 1;
	}
	if (h >> 48 != HANDLE_TAG_DOMAIN)
		return 0;
	uint64_t id = h & 0xffffffffffffULL;
	if (id >= atomic_load_explicit(&g_n_domains, memory_order_acquire) ||
	    atomic_load_explicit(&g_domains[id].state, memory_order_acquire) != 1)
		return 0;
	*ret_id = (uint32_t)id;
	return 1;
}

/* msprof's rule: a comma-separated list of names, "default" being the
 * domain of the calls without one. */
static bool name_in_list(const char *list, const char *name)
{
	if (!list)
		return false;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *end = e;
		while (end > p && end[-1] == ' ')
			end--;
		if ((size_t)(end - p) == n && n > 0 && memcmp(p, name, n) == 0)
			return true;
		p = e;
	}
	return false;
}

static bool filter_allows(const char *name)
{
	if (g_filter_include && *g_filter_include)
		return name_in_list(g_filter_include, name);
	return !name_in_list(g_filter_exclude, name);
}

void agent_filter_set(const char *include, const char *exclude)
{
	if (!reg_lock())
		return;
	free(g_filter_include);
	free(g_filter_exclude);
	g_filter_include = include && *include ? strdup(include) : NULL;
	g_filter_exclude = exclude && *exclude ? strdup(exclude) : NULL;
	uint32_t n = atomic_load(&g_n_domains);
	for (uint32_t i = 0; i < n; i++)
		if (g_domains[i].name)
			atomic_store(&g_domains[i].enabled, filter_allows(g_domains[i].name));
	reg_unlock();
}

void *agent_domain_create(const char *name)
{
	if (!name) {
		agent_bad_call();
		return NULL;
	}
	agent_core_init();
	size_t len = strnlen(name, RAW_AGENT_MAX_STR + 1);
	if (len > RAW_AGENT_MAX_STR || len == 0) {
		agent_bad_call();
		return NULL;
	}
	void *h = NULL;
	if (!reg_lock()) {
		agent_bad_call();
		return NULL;
	}
	uint32_t n = atomic_load(&g_n_domains);
	/* the same name gives the same live domain; "default" is domain 0 */
	for (uint32_t i = 0; i < n && !h; i++)
		if (atomic_load(&g_domains[i].state) == 1 && g_domains[i].name && streq(g_domains[i].name, name))
			h = agent_domain_handle(i);
	if (!h && n < AGENT_MAX_DOMAINS) {
		char *copy = strndup(name, len);
		if (copy) {
			g_domains[n].name = copy;
			agent_gate_domain_named(n, copy); /* before anyone can look it up */
			atomic_store(&g_domains[n].enabled, filter_allows(copy));
			atomic_store(&g_domains[n].state, 1);
			atomic_store_explicit(&g_n_domains, n + 1, memory_order_release);
			h = agent_domain_handle(n);
		}
	}
	reg_unlock();
	if (!h)
		agent_bad_call(); /* out of domains or memory */
	return h;
}

int agent_domain_destroy(const void *handle)
{
	uint32_t id;
	if (!handle || !agent_domain_lookup(handle, &id) || id == 0) {
		agent_bad_call(); /* the default domain cannot go */
		return -EINVAL;
	}
	atomic_store_explicit(&g_domains[id].state, 2, memory_order_release);
	return 0;
}

/* --- registered strings and names ---------------------------------------- */

void *agent_string_register(const char *s, size_t n)
{
	if (n > RAW_AGENT_MAX_STR + 1)
		n = RAW_AGENT_MAX_STR + 1; /* the cut is counted when it is used */
	char *copy = strndup(s, n);
	if (!copy)
		return NULL;
	void *h = NULL;
	if (!reg_lock()) {
		free(copy);
		return NULL;
	}
	uint32_t i = atomic_load(&g_n_strings);
	if (i < AGENT_MAX_STRINGS) {
		struct reg_string *chunk = atomic_load(&g_str_chunks[i / STR_CHUNK]);
		if (!chunk) {
			chunk = calloc(STR_CHUNK, sizeof(*chunk));
			atomic_store_explicit(&g_str_chunks[i / STR_CHUNK], chunk, memory_order_release);
		}
		if (chunk) {
			chunk[i % STR_CHUNK] = (struct reg_string){ copy, (uint32_t)strlen(copy) };
			atomic_store_explicit(&g_n_strings, i + 1, memory_order_release);
			h = (void *)(uintptr_t)(HANDLE_TAG_STRING << 48 | (i + 1));
			copy = NULL;
		}
	}
	reg_unlock();
	free(copy);
	return h;
}

const char *agent_string_lookup(const void *handle, uint32_t *ret_len)
{
	uint64_t h = (uint64_t)(uintptr_t)handle;
	if (h >> 48 != HANDLE_TAG_STRING)
		return NULL;
	uint64_t i = (h & 0xffffffffffffULL) - 1;
	if (i >= atomic_load_explicit(&g_n_strings, memory_order_acquire))
		return NULL;
	struct reg_string *chunk = atomic_load_explicit(&g_str_chunks[i / STR_CHUNK], memory_order_acquire);
	*ret_len = chunk[i % STR_CHUNK].len;
	return chunk[i % STR_CHUNK].s;
}

static void name_add(struct agent_name *tab, _Atomic uint32_t *count, uint32_t domain, uint32_t key,
		     const char *name, size_t n)
{
	if (n > RAW_AGENT_MAX_STR)
		n = RAW_AGENT_MAX_STR;
	char *copy = strndup(name, n);
	bool ok = false;
	if (!reg_lock()) {
		free(copy);
		agent_bad_call();
		return;
	}
	uint32_t i = atomic_load(count);
	/* naming the same thing the same way again changes nothing */
	for (uint32_t j = i; j-- > 0;) {
		if (tab[j].domain == domain && tab[j].key == key) {
			if (copy && streq(tab[j].name, copy)) {
				reg_unlock();
				free(copy);
				return;
			}
			break;
		}
	}
	if (copy && i < AGENT_MAX_NAMES) {
		tab[i] = (struct agent_name){ domain, key, copy };
		atomic_store_explicit(count, i + 1, memory_order_release);
		ok = true;
	}
	reg_unlock();
	if (!ok) {
		free(copy);
		agent_bad_call();
	}
}

void agent_name_category(uint32_t domain, uint32_t category, const char *name, size_t n)
{
	name_add(g_categories, &g_n_categories, domain, category, name, n);
}

void agent_name_thread(uint32_t tid, const char *name, size_t n)
{
	name_add(g_thread_names, &g_n_thread_names, 0, tid, name, n);
}

/* --- process facts -------------------------------------------------------- */

/* Read once, at load (agent_rank_init: before the program's threads, whose
 * setenv could race a getenv of ours) and kept; a forked child reads it
 * again at its first use (agent_rank_forget: it may set its own first; it
 * has one thread).  A process without a rank of its own takes its nearest
 * ancestor's (a data loader started without RANK is of its rank's job), as
 * msprofd's sampler and the PROF dir split do. */
static struct rank_env g_rank_env;
static _Atomic bool g_rank_env_set;

/* ppid of pid from /proc/PID/stat (0 unknown) */
static uint32_t parent_of(uint32_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%u/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	unsigned st = 0;
	char state;
	return p && sscanf(p + 1, " %c %u", &state, &st) == 2 ? st : 0;
}

static void ancestor_rank(struct rank_env *re)
{
	enum { ENV_MAX = 64 * 1024, LEVELS = 4 };
	char *buf = malloc(ENV_MAX);
	if (!buf)
		return;
	uint32_t pid = (uint32_t)getppid();
	for (int level = 0; level < LEVELS && pid > 1 && re->rank < 0; level++) {
		struct rank_env up;
		if (rank_env_of_pid(pid, buf, ENV_MAX, &up) > 0 && up.rank >= 0) {
			re->rank = up.rank;
			re->local_rank = up.local_rank;
		}
		pid = parent_of(pid);
	}
	free(buf);
}

void agent_rank_init(void)
{
	struct rank_env re;
	rank_env_read(rank_env_getenv, NULL, &re);
	if (re.rank < 0)
		ancestor_rank(&re);
	g_rank_env = re;
	atomic_store(&g_rank_env_set, true);
}

void agent_rank_forget(void)
{
	atomic_store(&g_rank_env_set, false);
}

void agent_rank_env(struct rank_env *ret)
{
	if (!atomic_load(&g_rank_env_set))
		agent_rank_init(); /* a call before our constructor */
	*ret = g_rank_env;
}

int agent_rank(void)
{
	struct rank_env re;
	agent_rank_env(&re);
	return re.rank;
}

static size_t read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return n;
}

/* Printable: the daemon refuses control characters in names. */
static void sanitize(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = s[i] == 0 ? ' ' : '?';
}

void agent_comm(char *buf, size_t size)
{
	size_t n = read_small("/proc/self/comm", buf, size);
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	sanitize(buf, n);
}

void agent_cmdline(char *buf, size_t size)
{
	size_t n = read_small("/proc/self/cmdline", buf, size);
	while (n > 0 && buf[n - 1] == 0)
		n--;
	buf[n] = 0;
	sanitize(buf, n); /* NUL separators become spaces */
}
