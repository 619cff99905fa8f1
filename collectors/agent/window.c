/* The writer side of the agent: a window is one start..stop of recording
 * into one agent_<pid>.data file set.  Only the agent thread drains; start,
 * stop and drain run under g_win_mu (the agent thread, the exit handler and
 * a forked child's first call are the only callers).  See raw.h for the
 * records and their placement. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"
#include "common/rankenv.h"

#define WRITE_BUFFER (256U << 10)
#define STOP_WAIT_NS (200 * NSEC_PER_MSEC)

pthread_mutex_t g_win_mu = PTHREAD_MUTEX_INITIALIZER;

/* tids with a THREAD record in the current slice */
struct tidset {
	uint32_t *v;
	size_t cap, n;
};


static struct {
	bool active;
	struct raw_writer *w;
	uint64_t session;
	char dir[PATH_MAX];
	uint64_t slice_bytes;
	struct raw_buf buf;
	struct tidset tids;
	/* registry entries already in this slice */
	uint32_t domains, categories, names;
	/* this window */
	uint64_t events, dropped, bad, truncated, write_lost;
	/* dropped, by cause (their sum) */
	uint64_t dropped_full, dropped_nested, dropped_noslot, dropped_unopened;
	struct cupti_lost gpu;     /* device records not written */
	uint64_t seen_orphan_dropped, seen_orphan_bad;
	int write_err;
	bool warned_write;
	bool refused, warned_refused; /* the dir's storage limit refused a write */
	bool in_preamble;
	bool first_slice;          /* the next PROCESS record begins the window */
	/* the file is made when there is something to put in it */
	uint64_t mono0, real0;
	bool open_failed;
	uint64_t ended;            /* RAW_AGENT_COUNTERS' ended */
} W;

/* lifetime totals, for the message at exit */
static struct window_result T;
static int g_membarrier = -1; /* 1 expedited, 0 not available */

/* --- tid set ---------------------------------------------------------------- */

static bool tidset_has(const struct tidset *s, uint32_t tid)
{
	if (!s->cap)
		return false;
	for (size_t i = (tid * 2654435761U) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == tid)
			return true;
		if (s->v[i] == 0)
			return false;
	}
}

static bool tidset_add(struct tidset *s, uint32_t tid)
{
	if (tid == 0 || tidset_has(s, tid))
		return true;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint32_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return false;
		for (size_t i = 0; i < s->cap; i++) {
			uint32_t x = s->v[i];
			if (!x)
				continue;
			size_t j = (x * 2654435761U) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = x;
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	size_t i = (tid * 2654435761U) & (s->cap - 1);
	while (s->v[i])
		i = (i + 1) & (s->cap - 1);
	s->v[i] = tid;
	s->n++;
	return true;
}

static void tidset_clear(struct tidset *s)
{
	if (s->v)
		memset(s->v, 0, s->cap * sizeof(*s->v));
	s->n = 0;
}

/* --- records ---------------------------------------------------------------- */

static void buf_strn(struct raw_buf *b, const char *s, size_t n)
{
	if (n > RAW_AGENT_MAX_STR)
		n = RAW_AGENT_MAX_STR;
	raw_buf_u32(b, (uint32_t)n);
	raw_buf_bytes(b, s, n);
}

static void buf_str(struct raw_buf *b, const char *s)
{
	buf_strn(b, s ? s : "", s ? strlen(s) : 0);
}

static void write_preamble(void);

/* A write that failed: an error of the file, or a refusal of the storage
 * limit (-EDQUOT, raw_quota_reserve), which is no error: the records are
 * counted as lost, the quota counts the bytes, and later writes may fit
 * once other writers' slices have aged. */
static void write_failed(int r)
{
	if (r == -EDQUOT)
		W.refused = true;
	else if (r < 0 && !W.write_err)
		W.write_err = r;
}

/* Append the record in W.buf; a new slice first gets the preamble, and
 * the preamble and that record stay in it even if they overfill it (a
 * slice always begins with PROCESS). */
static int emit(uint16_t type)
{
	if (W.buf.err)
		return W.buf.err;
	int r;
	bool here = W.in_preamble;
	if (!here && !raw_writer_fits(W.w, (uint32_t)W.buf.len)) {
		/* keep the record aside while the preamble uses the buffer */
		struct raw_buf rec = W.buf;
		W.buf = (struct raw_buf){ 0 };
		r = raw_writer_rotate(W.w);
		if (r == 0)
			write_preamble();
		raw_buf_release(&W.buf);
		W.buf = rec;
		if (r < 0) {
			write_failed(r);
			return r;
		}
		here = true;
	}
	r = here ? raw_writer_append_here(W.w, type, W.buf.data, (uint32_t)W.buf.len)
		 : raw_writer_append(W.w, type, W.buf.data, (uint32_t)W.buf.len);
	write_failed(r);
	return r;
}

static void rec_begin(uint64_t ts)
{
	raw_buf_reset(&W.buf);
	raw_buf_u64(&W.buf, ts);
}

static void write_process(void)
{
	char comm[64], cmd[RAW_AGENT_MAX_STR + 1];
	agent_comm(comm, sizeof(comm));
	agent_cmdline(cmd, sizeof(cmd));
	rec_begin(mono_ns());
	raw_buf_u32(&W.buf, (uint32_t)getpid());
	raw_buf_u32(&W.buf, (uint32_t)getppid());
	raw_buf_u32(&W.buf, (uint32_t)agent_rank());
	raw_buf_u32(&W.buf, W.first_slice ? RAW_AGENT_WINDOW_START : 0);
	W.first_slice = false;
	buf_str(&W.buf, comm);
	buf_str(&W.buf, cmd);
	struct rank_env re;
	agent_rank_env(&re);
	raw_buf_u32(&W.buf, (uint32_t)re.local_rank);
	raw_buf_u32(&W.buf, (uint32_t)re.world_size);
	raw_buf_u32(&W.buf, (uint32_t)re.local_world_size);
	raw_buf_u32(&W.buf, (uint32_t)re.node_rank);
	raw_buf_u32(&W.buf, (uint32_t)re.device);
	emit(RAW_AGENT_PROCESS);
}

static void write_thread(uint32_t tid, const char *name)
{
	rec_begin(mono_ns());
	raw_buf_u32(&W.buf, tid);
	buf_str(&W.buf, name);
	if (emit(RAW_AGENT_THREAD) == 0)
		tidset_add(&W.tids, tid);
}

/* Registry entries (domains, category and thread names) not yet in this
 * slice; all of them after a rotation. */
static void write_registry(void)
{
	uint32_t n = atomic_load_explicit(&g_n_domains, memory_order_acquire);
	for (; W.domains < n; W.domains++) {
		if (W.domains == 0)
			continue; /* "default" is implied */
		rec_begin(mono_ns());
		raw_buf_u64(&W.buf, W.domains);
		buf_str(&W.buf, g_domains[W.domains].name);
		emit(RAW_AGENT_DOMAIN);
	}
	n = atomic_load_explicit(&g_n_categories, memory_order_acquire);
	for (; W.categories < n; W.categories++) {
		const struct agent_name *c = &g_categories[W.categories];
		rec_begin(mono_ns());
		raw_buf_u64(&W.buf, c->domain);
		raw_buf_u64(&W.buf, c->key);
		buf_str(&W.buf, c->name);
		emit(RAW_AGENT_CATEGORY);
	}
	n = atomic_load_explicit(&g_n_thread_names, memory_order_acquire);
	for (; W.names < n; W.names++)
		write_thread(g_thread_names[W.names].key, g_thread_names[W.names].name);
}

static void write_preamble(void)
{
	W.domains = W.categories = W.names = 0;
	tidset_clear(&W.tids);
	W.in_preamble = true;
	write_process();
	write_registry();
	W.in_preamble = false;
}

static void write_counters(bool last)
{
	rec_begin(mono_ns());
	raw_buf_u64(&W.buf, W.events);
	raw_buf_u64(&W.buf, W.dropped + W.write_lost);
	raw_buf_u64(&W.buf, W.bad);
	raw_buf_u64(&W.buf, W.truncated);
	raw_buf_u64(&W.buf, W.gpu.lost);
	raw_buf_u64(&W.buf, W.gpu.untimed);
	raw_buf_u64(&W.buf, W.gpu.bad);
	raw_buf_u64(&W.buf, W.dropped_full);
	raw_buf_u64(&W.buf, W.dropped_nested);
	raw_buf_u64(&W.buf, W.dropped_noslot);
	raw_buf_u64(&W.buf, W.dropped_unopened);
	raw_buf_u64(&W.buf, W.write_lost);
	raw_buf_u64(&W.buf, W.ended);
	raw_buf_u64(&W.buf, last ? 1 : 0); /* the window's final record */
	emit(RAW_AGENT_COUNTERS);
}

/* This slice names the thread before its first event: its THREAD record,
 * written through emit (a new slice gets the preamble first). */
static int slice_names_thread(uint32_t tid, const char *name)
{
	if (tidset_has(&W.tids, tid))
		return 0;
	write_thread(tid, name);
	return W.buf.err ? W.buf.err : (tidset_has(&W.tids, tid) ? 0 : -EIO);
}

/* Events [p, p + n), `events` of them, as one batch of a thread's (unless
 * r already says the file is not being written): counted as written or as
 * lost.  Returns r, or the batch's failure. */
static int put_batch(int r, uint32_t tid, const uint8_t *p, uint32_t n, uint64_t events)
{
	if (r == 0 && n > 0) {
		uint8_t head[RAW_AGENT_BATCH_HEAD] = { 0 };
		uint32_t le = htole32(tid);
		memcpy(head, &le, 4);
		r = raw_writer_append2(W.w, RAW_AGENT_BATCH, head, sizeof head, p, n);
	}
	if (r == 0)
		W.events += events;
	else
		W.write_lost += events;
	return r;
}

/* An event's times from event-clock units to CLOCK_MONOTONIC ns, in place
 * (the producer is done with it): its start, and the end an osrt call or a
 * communication operation carries in its id. */
static void event_times(uint8_t *e, unsigned k)
{
	uint64_t v;
	memcpy(&v, e, 8);
	v = htole64(agent_clock_ns(le64toh(v)));
	memcpy(e, &v, 8);
	if (k == RAW_AGENT_EV_OSRT || k == RAW_AGENT_EV_COMM) {
		memcpy(&v, e + RAW_AGENT_EV_HEAD, 8);
		v = htole64(agent_clock_ns(le64toh(v)));
		memcpy(e + RAW_AGENT_EV_HEAD, &v, 8);
	}
}

/* Events [p, p + n) of one thread's block into the file as batches (raw.h,
 * RAW_AGENT_BATCH), cut where a batch reaches RAW_MAX_PAYLOAD or the
 * slice's end; a new slice gets the preamble and the thread's name first.
 * Their times are mapped to ns on the way (event_times).
 * write false: counted as lost (no file).  An event that is not one of
 * ours ends the span: the rest of it is counted as one lost event. */
static void put_span(uint8_t *p, uint32_t n, uint32_t tid, const char *name, bool write)
{
	uint32_t off = 0, start = 0;
	uint64_t events = 0;
	int r = write ? slice_names_thread(tid, name) : -EIO;
	uint64_t room = r == 0 ? raw_writer_room(W.w) : UINT64_MAX;
	const uint64_t most = RAW_MAX_PAYLOAD - RAW_AGENT_BATCH_HEAD;
	while (off + RAW_AGENT_EV_HEAD <= n) {
		uint8_t *e = p + off;
		unsigned kind = e[8], k = kind & ~RAW_AGENT_EV_ATTR;
		uint16_t n16;
		memcpy(&n16, e + 10, 2);
		uint32_t size = raw_agent_ev_size(kind, e[9], le16toh(n16));
		/* our own producer wrote it; still, never walk off the block */
		if (k < RAW_AGENT_EV_MARK || k > RAW_AGENT_EV_COMM || size > n - off)
			break;
		if (g_clock_tsc)
			event_times(e, k);
		uint64_t batch = off + size - start;
		if (r == 0 && (batch > most || batch + RAW_AGENT_BATCH_HEAD > room)) {
			r = put_batch(r, tid, p + start, off - start, events);
			events = 0;
			start = off;
			/* the slice is full: a new one */
			if (r == 0 && batch + RAW_AGENT_BATCH_HEAD > room && (r = raw_writer_rotate(W.w)) == 0) {
				write_preamble();
				r = slice_names_thread(tid, name);
			}
			room = r == 0 ? raw_writer_room(W.w) : UINT64_MAX;
		}
		off += size;
		events++;
	}
	r = put_batch(r, tid, p + start, off - start, events);
	if (write)
		write_failed(r);
	if (off < n)
		W.write_lost++;
}

/* Take what is in a slot's queue up to `head`: write it (write false:
 * count it as lost; forget: neither, what a new window leaves behind). */
static void drain_slot(struct athread *t, uint64_t head, bool write, bool forget)
{
	uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
	struct ablock *b = t->rblk;
	if (!b && !(b = t->rblk = atomic_load_explicit(&t->first, memory_order_acquire)))
		return;
	/* read once for the batch: the producer's line is not read per event */
	uint32_t tid = t->tid;
	char name[sizeof t->name];
	memcpy(name, t->name, sizeof name);
	uint32_t pos = t->rpos;
	for (;;) {
		uint32_t sealed = atomic_load_explicit(&b->sealed, memory_order_acquire);
		uint64_t limit = sealed != ABLOCK_OPEN ? sealed : b->size;
		uint64_t end = pos + (head - tail < limit - pos ? head - tail : limit - pos);
		if (end > pos) {
			if (!forget)
				put_span(b->data + pos, (uint32_t)(end - pos), tid, name, write);
			tail += end - pos;
			pos = (uint32_t)end;
			atomic_store_explicit(&t->tail, tail, memory_order_release);
		}
		if (sealed == ABLOCK_OPEN || pos < sealed)
			break;
		/* a sealed block taken whole: on to the next, this one back */
		struct ablock *next = atomic_load_explicit(&b->next, memory_order_acquire);
		if (!next)
			break;
		agent_block_retire(t, b);
		b = next;
		pos = 0;
	}
	t->rblk = b;
	t->rpos = pos;
}

/* Fold the per-slot counters into the window's. */
static void collect_counters(void)
{
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		if (!t)
			continue;
		uint64_t d = atomic_load_explicit(&t->n_dropped, memory_order_relaxed);
		uint64_t b = atomic_load_explicit(&t->n_bad, memory_order_relaxed);
		uint64_t c = atomic_load_explicit(&t->n_truncated, memory_order_relaxed);
		uint64_t x = atomic_load_explicit(&t->n_nested, memory_order_relaxed);
		W.dropped += d - t->seen_dropped + (x - t->seen_nested);
		W.dropped_full += d - t->seen_dropped;
		W.dropped_nested += x - t->seen_nested;
		uint64_t o = atomic_load_explicit(&t->n_unopened, memory_order_relaxed);
		W.dropped += o - t->seen_unopened;
		W.dropped_unopened += o - t->seen_unopened;
		t->seen_unopened = o;
		t->seen_nested = x;
		W.bad += b - t->seen_bad;
		W.truncated += c - t->seen_truncated;
		t->seen_dropped = d;
		t->seen_bad = b;
		t->seen_truncated = c;
	}
	uint64_t od = atomic_load(&g_orphan_dropped), ob = atomic_load(&g_orphan_bad);
	W.dropped += od - W.seen_orphan_dropped;
	W.dropped_noslot += od - W.seen_orphan_dropped;
	W.bad += ob - W.seen_orphan_bad;
	W.seen_orphan_dropped = od;
	W.seen_orphan_bad = ob;
}

static uint64_t heads[AGENT_MAX_THREADS];

static void warn_write(void)
{
	if (W.write_err && !W.warned_write) {
		W.warned_write = true;
		fprintf(stderr, "msprof agent: cannot write into '%s': %s\n", W.dir, strerror(-W.write_err));
	}
	if (W.refused && !W.warned_refused) {
		W.warned_refused = true;
		fprintf(stderr, "msprof agent: the storage limit of '%s' is reached and no older data is left to "
			"delete: events are dropped and counted\n", W.dir);
	}
}

/* The window's file, made at the first drain with something to write, so
 * that a process that never annotates (a shell, a helper the program runs)
 * leaves no file.  PROCESS, the registry and the live threads first. */
static void file_open(void)
{
	char stem[RAW_STEM_MAX];
	raw_agent_stem(getpid(), stem);
	struct raw_writer *w;
	int r = raw_writer_open_stem(W.dir, stem, RAW_SOURCE_AGENT, W.mono0, W.real0, W.slice_bytes, &w);
	if (r < 0) {
		W.open_failed = true;
		W.write_err = r;
		return;
	}
	(void)raw_writer_set_buffer(w, WRITE_BUFFER);
	W.w = w;
	W.first_slice = true;
	write_preamble();
	uint32_t nt = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	for (uint32_t i = 0; i < nt; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		if (t && atomic_load(&t->live) && !tidset_has(&W.tids, t->tid))
			write_thread(t->tid, t->name);
	}
}

/* A device-task record from the CUPTI queue (cupti.c) into the file. */
static int emit_gpu(uint16_t type, const uint8_t *p, uint32_t len)
{
	raw_buf_reset(&W.buf);
	raw_buf_bytes(&W.buf, p, len);
	int r = emit(type);
	if (r == 0)
		W.events++;
	return r;
}

static void drain(bool last)
{
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	/* Heads first, registry second: every domain an event names was
	 * registered before the event was written, so it is in the registry
	 * we read after the head. */
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		heads[i] = t ? atomic_load_explicit(&t->head, memory_order_acquire) : 0;
	}
	/* every event below the heads was stamped before this pair */
	agent_clock_sync();
	if (!W.w) {
		bool pending = false;
		for (uint32_t i = 0; i < n && !pending; i++) {
			struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
			pending = t && heads[i] != atomic_load_explicit(&t->tail, memory_order_relaxed);
		}
		pending = pending || agent_cupti_pending();
		collect_counters();
		if (!pending && !W.dropped && !W.bad && !W.truncated && !W.write_lost)
			return; /* nothing yet: no file */
		if (!W.open_failed)
			file_open();
		if (!W.w) {
			for (uint32_t i = 0; i < n; i++) {
				struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
				if (t)
					drain_slot(t, heads[i], false, false); /* counted as lost */
			}
			warn_write();
			return;
		}
	}
	uint64_t before = W.events;
	write_registry();
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		if (t)
			drain_slot(t, heads[i], true, false);
	}
	struct cupti_lost gpu = W.gpu;
	(void)agent_cupti_drain(emit_gpu, &W.gpu);
	uint64_t old_d = W.dropped, old_b = W.bad, old_t = W.truncated;
	collect_counters();
	if (last || W.events != before || W.dropped != old_d || W.bad != old_b || W.truncated != old_t ||
	    memcmp(&gpu, &W.gpu, sizeof gpu) != 0)
		write_counters(last);
	write_failed(raw_writer_flush(W.w));
	warn_write();
}

void window_drain(void)
{
	if (W.active)
		drain(false);
}

void window_flush(void)
{
	if (W.active)
		drain(true);
}

bool window_active(void)
{
	return W.active;
}

uint64_t window_session(void)
{
	return W.session;
}

/* mkdir -p, 0750 for what we create */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int r = mkdir(path, 0750);
		*p = '/';
		if (r < 0 && errno != EEXIST)
			return -errno;
	}
	if (mkdir(path, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static void membarrier_init(void)
{
	if (g_membarrier >= 0)
		return;
	g_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void window_prepare(void)
{
	membarrier_init();
}

const char *window_dir(void)
{
	return W.dir;
}

int window_start(const struct window_opts *o)
{
	if (W.active)
		return -EBUSY;
	if (!o->prof_dir || !*o->prof_dir)
		return -EINVAL;
	membarrier_init();

	char dir[PATH_MAX];
	int n = snprintf(dir, sizeof(dir), "%s/host/data", o->prof_dir);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	int r = mkdirs(dir);
	if (r < 0)
		return r;

	/* the file comes later (file_open): find out now whether it can */
	if (access(dir, W_OK | X_OK) < 0)
		return -errno;

	const char *sb = getenv("MSPROF_AGENT_SLICE_BYTES");
	uint64_t slice = 0;
	if (sb && parse_u64(sb, 512, UINT64_MAX, &slice) < 0)
		slice = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_REALTIME, &b);

	/* a forked child's first window takes what it buffered while it
	 * registered (AGENT_BUFFERING), with its range ids and counts */
	bool buffered = atomic_load(&g_state) == AGENT_BUFFERING;
	uint64_t orphan_dropped = W.seen_orphan_dropped, orphan_bad = W.seen_orphan_bad;
	struct raw_buf keep = W.buf;
	struct tidset tids = W.tids;
	W = (__typeof__(W)){ 0 };
	W.buf = keep;
	W.tids = tids;
	tidset_clear(&W.tids);
	W.mono0 = (uint64_t)a.tv_sec * NSEC_PER_SEC + (uint64_t)a.tv_nsec;
	W.real0 = (uint64_t)b.tv_sec * NSEC_PER_SEC + (uint64_t)b.tv_nsec;
	W.slice_bytes = slice;
	W.session = o->session;
	snprintf(W.dir, sizeof(W.dir), "%s", dir);

	/* an osrt-only window: "," names no domain, so no annotation passes */
	agent_filter_set(o->no_mstx ? "," : o->include, o->exclude);
	if (buffered) {
		W.seen_orphan_dropped = orphan_dropped;
		W.seen_orphan_bad = orphan_bad;
	} else {
		uint8_t gen = atomic_load(&g_gen) + 1;
		atomic_store(&g_gen, gen ? gen : 1);
		/* What a slot did before this window is not ours: forget its
		 * old events (there are none unless a stop gave up waiting)
		 * and take its counters from here. */
		uint32_t nt = atomic_load_explicit(&g_n_threads, memory_order_acquire);
		for (uint32_t i = 0; i < nt; i++) {
			struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
			if (!t)
				continue;
			drain_slot(t, atomic_load_explicit(&t->head, memory_order_acquire), false, true);
			t->seen_dropped = atomic_load(&t->n_dropped);
			t->seen_bad = atomic_load(&t->n_bad);
			t->seen_truncated = atomic_load(&t->n_truncated);
			t->seen_nested = atomic_load(&t->n_nested);
			t->seen_unopened = atomic_load(&t->n_unopened);
		}
		W.seen_orphan_dropped = atomic_load(&g_orphan_dropped);
		W.seen_orphan_bad = atomic_load(&g_orphan_bad);
	}

	W.active = true;
	agent_clock_sync(); /* the window's first events are mapped from here */
	g_osrt_threshold_ticks = agent_clock_ticks(o->osrt_threshold_ns);
	agent_cupti_window(mono_ns());
	atomic_store(&g_state, AGENT_RECORDING);
	atomic_store(&g_osrt_on, o->osrt);
	return 0;
}

/* After g_state went idle, wait until no thread is inside a recording call. */
static void quiesce(void)
{
	if (g_membarrier == 1)
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	else
		atomic_thread_fence(memory_order_seq_cst); /* best effort without membarrier */
	uint64_t deadline = mono_ns() + STOP_WAIT_NS;
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		while (t && atomic_load_explicit(&t->busy, memory_order_acquire) && mono_ns() < deadline)
			sched_yield();
	}
}

int window_stop(struct window_result *ret)
{
	if (!W.active)
		return -ENOENT;
	atomic_store(&g_osrt_on, 0);
	/* CUPTI's buffers first, while the window still takes them */
	agent_cupti_flush();
	agent_cupti_window(0);
	atomic_store(&g_state, AGENT_IDLE);
	quiesce();
	drain(true);
	int r = W.w ? raw_writer_flush(W.w) : 0;
	struct window_result res = {
		.events = W.events,
		.dropped = W.dropped + W.write_lost,
		.dropped_full = W.dropped_full,
		.dropped_nested = W.dropped_nested,
		.dropped_noslot = W.dropped_noslot,
		.dropped_unopened = W.dropped_unopened,
		.dropped_write = W.write_lost,
		.bad = W.bad,
		.truncated = W.truncated,
		.bytes = raw_writer_bytes(W.w),
	};
	W.w = raw_writer_free(W.w);
	W.active = false;
	agent_spares_free(); /* the queues shrink to one block a thread */
	T.dropped += res.dropped;
	T.dropped_full += res.dropped_full;
	T.dropped_nested += res.dropped_nested;
	T.dropped_noslot += res.dropped_noslot;
	T.dropped_unopened += res.dropped_unopened;
	T.dropped_write += res.dropped_write;
	T.bad += res.bad;
	T.truncated += res.truncated;
	if (ret)
		*ret = res;
	return r < 0 ? r : W.write_err;
}

int window_stop_lost(void)
{
	if (!W.active)
		return -ENOENT;
	W.ended = RAW_AGENT_ENDED_LOST;
	return window_stop(NULL);
}

void window_totals(struct window_result *ret)
{
	*ret = T;
}

void window_forget_after_fork(void)
{
	/* The parent's writer had flushed everything before fork (the drain
	 * flushes under g_win_mu, which fork held): freeing it writes nothing. */
	W.w = raw_writer_free(W.w);
	W.active = false;
	T = (struct window_result){ 0 };
	/* what the child buffers is counted from here (agent_slot_reset
	 * does the same for the slots) */
	W.seen_orphan_dropped = atomic_load(&g_orphan_dropped);
	W.seen_orphan_bad = atomic_load(&g_orphan_bad);
}

void window_discard_buffered(void)
{
	int expect = AGENT_BUFFERING;
	if (W.active || !atomic_compare_exchange_strong(&g_state, &expect, AGENT_IDLE))
		return;
	quiesce();
	uint32_t n = atomic_load_explicit(&g_n_threads, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load_explicit(&g_threads[i], memory_order_acquire);
		if (t)
			drain_slot(t, atomic_load_explicit(&t->head, memory_order_acquire), false, true);
	}
	agent_spares_free();
}
