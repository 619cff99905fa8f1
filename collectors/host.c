/* Host samplers: /proc for the profiled process tree and for the machine.
 *
 * Targets.  Every process of the tree has its /proc/PID/stat kept open and
 * read with pread at offset 0 on every tick: that is how exits (read fails,
 * or a zombie with no threads left), exec (comm changes) and the blkio ticks
 * are seen.  The fd pins the struct pid, so a recycled pid number never
 * passes for the process we were following.  Threads (for --host-sys=cpu)
 * keep their task/TID/stat and schedstat open too.  The tree is rescanned
 * at most every TREE_RESCAN_NS: new threads from /proc/PID/task, new children
 * from /proc/PID/task/TID/children (of the processes that ran since the last
 * rescan and those above them: mark_rescan), or, where the kernel lacks that file
 * (CONFIG_PROC_CHILDREN=n), from the ppid of every process we have not
 * looked at before.
 *
 * Skipping what has not run.  A thread whose schedstat (run time and
 * number of times on a CPU) has not moved since the last tick, and that was
 * asleep or stopped at its last full read, has not run since: its utime,
 * stime and run time are what they were (the kernel derives the first two
 * from the third), so its entry is repeated without reading its stat.  A
 * process none of whose threads ran keeps its /proc/PID/io counters too
 * (only its own threads account I/O), and its stat is read only every
 * IDLE_REFRESH_NS (for a ppid changed by reparenting: the one thing that
 * changes while nothing runs; an exit, an exec, a new thread all run).
 * A process is first asked for the run time of all its threads at once
 * (clock_gettime on its CPU clock: no file, half a schedstat read), and its
 * threads are not read at all when it has not moved.
 *
 * Memory of a process that did not move is read again every
 * SLOW_REFRESH_NS (50 Hz, the rate msprof samples it at) and repeated in
 * between: reclaim, khugepaged or a process sharing the mm change statm
 * while the owner sleeps, which its clock cannot see.  Its I/O counters
 * only its own threads move, so they are read again every IDLE_REFRESH_NS
 * only, as its stat: a thread woken a moment ago may have done I/O before
 * its run time shows it, but the kernel adds a running thread's time at
 * each of its scheduler ticks (1-10 ms, CONFIG_HZ) and at each switch, so
 * the next tick after that sees the clock move and reads them.  Above
 * 50 Hz, memory is therefore exact in every tick for a process seen
 * running and at most 20 ms old otherwise, I/O at most a scheduler tick
 * late (man msprof, --host-sys-freq).  The recorded processor of
 * a thread that did not run is the one it last ran on.  nohz_full CPUs
 * account run time lazily, so there the per-process test is off;
 * MSPROF_TEST_HOST_FULL_READ=1 turns all skipping off (the benchmark's
 * baseline).
 *
 * All processes (--host-sys-usage).  /proc is listed for new pids at most
 * every RESCAN_NS; every known process is read on each usage tick through
 * kept stat/statm fds, and a read that fails is its exit.
 *
 * Kept descriptors are bounded by a budget of half of RLIMIT_NOFILE (the
 * all-process sampler may use half of that); past it, files are opened for
 * each read instead: twice the cost, same data.  The daemon should raise its
 * soft limit to the hard one at start. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "collectors/host.h"
#include "common/rankenv.h"
#include "common/util.h"

/* The tree is looked at for new children and threads at least every 20 ms
 * (every tick at the default 50 Hz), so a short-lived worker is seen; /proc
 * as a whole, for --host-sys-usage, every 100 ms. */
#define TREE_RESCAN_NS (20 * NSEC_PER_MSEC)
/* Records are buffered per source and written every FLUSH_NS: one write a
 * source per 100 ms instead of one per tick.  A daemon killed hard loses at
 * most that much; a stopped or finished session loses nothing. */
#define FLUSH_NS (100 * NSEC_PER_MSEC)
#define WRITE_BUFFER (256 * 1024)
#define RESCAN_NS (100 * NSEC_PER_MSEC)
/* A process that has not run is still read at this interval (see above). */
#define IDLE_REFRESH_NS NSEC_PER_SEC
/* Its memory and I/O counters at this one: msprof's host sampling rate. */
#define SLOW_REFRESH_NS (20 * NSEC_PER_MSEC)
/* A machine-wide file read at most at that rate is read again once three
 * quarters of it have passed: ticks at 50 Hz, a little late or early, then
 * read it at each, not every other. */
#define SLOW_DUE_NS (SLOW_REFRESH_NS - SLOW_REFRESH_NS / 4)
#define MAX_ENTRIES 16384            /* entries per record, keeps payloads < RAW_MAX_PAYLOAD */
#define STAT_BUF 2048                /* /proc/PID/stat is < 1 KiB; fields past 52 are ignored */
#define SMALL_BUF 512                /* statm, schedstat, io, children chunk */
#define SYSFILE_MAX (4U << 20)       /* /proc/stat, meminfo, net/dev */
#define N_SRC (RAW_SOURCE_USAGE_MEM + 1)

static const enum raw_source proc_sys_sources[] = {
	RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK,
};
static const enum raw_source usage_sources[] = {
	RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM,
};

/* --- pid -> index map (open addressing, linear probing) ------------------ */

struct pidmap {
	uint32_t *keys; /* 0: empty (pid 0 is never a /proc entry) */
	uint32_t *vals;
	uint32_t cap, n;
};

static inline uint32_t pm_slot(const struct pidmap *m, uint32_t k)
{
	return (k * 0x9e3779b1U) >> 7 & (m->cap - 1);
}

static bool pm_get(const struct pidmap *m, uint32_t k, uint32_t *ret)
{
	if (m->cap == 0 || k == 0)
		return false;
	for (uint32_t i = pm_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) {
			if (ret)
				*ret = m->vals[i];
			return true;
		}
		if (m->keys[i] == 0)
			return false;
	}
}

static int pm_put(struct pidmap *m, uint32_t k, uint32_t v);

static int pm_grow(struct pidmap *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	struct pidmap nm = { .cap = cap };
	nm.keys = calloc(cap, sizeof(uint32_t));
	nm.vals = calloc(cap, sizeof(uint32_t));
	if (!nm.keys || !nm.vals) {
		free(nm.keys);
		free(nm.vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			(void)pm_put(&nm, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = nm;
	return 0;
}

static int pm_put(struct pidmap *m, uint32_t k, uint32_t v)
{
	if (k == 0)
		return -EINVAL;
	if ((m->n + 1) * 2 > m->cap) {
		int r = pm_grow(m);
		if (r < 0)
			return r;
	}
	for (uint32_t i = pm_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) {
			m->vals[i] = v;
			return 0;
		}
		if (m->keys[i] == 0) {
			m->keys[i] = k;
			m->vals[i] = v;
			m->n++;
			return 0;
		}
	}
}

/* Backward-shift deletion keeps probe chains whole without tombstones. */
static void pm_del(struct pidmap *m, uint32_t k)
{
	if (m->cap == 0 || k == 0)
		return;
	uint32_t mask = m->cap - 1, i = pm_slot(m, k);
	while (m->keys[i] != k) {
		if (m->keys[i] == 0)
			return;
		i = (i + 1) & mask;
	}
	for (uint32_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		uint32_t home = pm_slot(m, m->keys[j]);
		/* move j into the hole at i unless its home lies in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->n--;
}

static void pm_release(struct pidmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct pidmap){ 0 };
}

/* --- /proc text parsing -------------------------------------------------- */

/* Numbers saturate instead of overflowing; the kernel never writes more
 * than 20 digits, but the text is still treated as untrusted. */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool scan_u64(const char **pp, const char *end, uint64_t *ret)
{
	const char *p = skip_blank(*pp, end);
	uint64_t v = 0;
	const char *start = p;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
		p++;
	}
	if (p == start)
		return false;
	*pp = p;
	*ret = v;
	return true;
}

static bool scan_i64(const char **pp, const char *end, int64_t *ret)
{
	const char *p = skip_blank(*pp, end);
	bool neg = p < end && *p == '-';
	if (neg)
		p++;
	uint64_t u;
	if (!scan_u64(&p, end, &u))
		return false;
	if (u > INT64_MAX)
		u = INT64_MAX;
	*pp = p;
	*ret = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

static inline uint32_t sat_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

struct pstat {
	char comm[16];
	char state;
	uint32_t ppid;
	uint32_t num_threads;
	uint64_t utime, stime, starttime, blkio;
	int32_t processor;
};

/* /proc/PID/stat or /proc/PID/task/TID/stat.  comm may hold spaces and
 * parentheses, so it ends at the LAST ')'. */
static int parse_stat(const char *buf, size_t len, struct pstat *ret)
{
	const char *end = buf + len;
	const char *lp = memchr(buf, '(', len);
	const char *rp = memrchr(buf, ')', len);
	if (!lp || !rp || rp < lp)
		return -EBADMSG;

	struct pstat st = { 0 };
	size_t cl = (size_t)(rp - lp - 1);
	if (cl > sizeof(st.comm) - 1)
		cl = sizeof(st.comm) - 1;
	memcpy(st.comm, lp + 1, cl);

	const char *p = rp + 1;
	unsigned field = 3;
	for (; field <= 42; field++) {
		p = skip_blank(p, end);
		if (p >= end || *p == '\n')
			break;
		const char *t = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		const char *q = t;
		uint64_t u = 0;
		int64_t s = 0;
		switch (field) {
		case 3:
			st.state = *t;
			break;
		case 4:
			if (scan_u64(&q, p, &u))
				st.ppid = sat_u32(u);
			break;
		case 14:
			(void)scan_u64(&q, p, &st.utime);
			break;
		case 15:
			(void)scan_u64(&q, p, &st.stime);
			break;
		case 20:
			if (scan_u64(&q, p, &u))
				st.num_threads = sat_u32(u);
			break;
		case 22:
			(void)scan_u64(&q, p, &st.starttime);
			break;
		case 39:
			if (scan_i64(&q, p, &s))
				st.processor = s < INT32_MIN ? INT32_MIN : s > INT32_MAX ? INT32_MAX : (int32_t)s;
			break;
		case 42:
			(void)scan_u64(&q, p, &st.blkio);
			break;
		default:
			break;
		}
	}
	if (field <= 22)
		return -EBADMSG; /* no starttime: not a stat line */
	*ret = st;
	return 0;
}

/* Up to max space-separated numbers from the start of buf (statm, schedstat). */
static unsigned parse_nums(const char *buf, size_t len, uint64_t *out, unsigned max)
{
	const char *p = buf, *end = buf + len;
	unsigned n = 0;
	while (n < max && scan_u64(&p, end, &out[n]))
		n++;
	return n;
}

/* The value of "key:" lines (/proc/PID/io, /proc/meminfo). */
struct kv {
	const char *key;
	uint64_t *val;
};

static void parse_kv(const char *buf, size_t len, const struct kv *kv, size_t n_kv)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		if (colon) {
			size_t kl = (size_t)(colon - p);
			for (size_t i = 0; i < n_kv; i++)
				if (strlen(kv[i].key) == kl && memcmp(kv[i].key, p, kl) == 0) {
					const char *q = colon + 1;
					(void)scan_u64(&q, eol, kv[i].val);
					break;
				}
		}
		p = eol + 1;
	}
}

/* --- sampler state ------------------------------------------------------- */

struct thr {
	uint32_t tid;
	int stat_fd, sched_fd; /* -1: opened for each read (over fd budget) */
	int child_fd;          /* task/TID/children, kept once read (-1: not yet, or over budget) */
	bool gone;
	bool have_last;        /* last_*: its entry of the last tick, from a full read */
	bool named;            /* comm: its name as last written (RAW_THREAD_INFO) */
	char comm[16];
	char last_state;       /* stat's state at the last full read */
	int32_t last_cpu;
	uint64_t last_ut, last_st, last_run, last_pcount;
};

struct proc {
	uint32_t pid, ppid;
	int32_t rank;             /* from its environment (common/rankenv.h), else its parent's; -1 none */
	int32_t local_rank;       /* the same; -1 unknown */
	bool skip;                /* not of a --ranks rank: followed, never sampled */
	bool root;                /* one of cfg->roots: its parent is not followed */
	uint8_t env_retries;      /* no rank of its own yet: read its environment again (set_rank) */
	uint64_t starttime, blkio;
	char comm[16];
	int stat_fd, statm_fd, io_fd;
	bool io_denied;
	bool leader_valid;        /* leader: read by this tick's cpu sampler */
	struct pstat leader;
	uint32_t num_threads;     /* from this tick's stat */
	clockid_t cpu_clock;      /* its CPU clock (clock_getcpuclockid); valid if have_clock */
	bool have_clock;
	char state;               /* the leader's, from the last stat read */
	/* skipping (see the top): ran is whether it may have run since the
	 * last tick (true unless shown otherwise this tick); grp_ns its
	 * threads' run time as its CPU clock said */
	bool ran;
	uint64_t rescan;          /* = s->rescan_gen: the next rescan looks at it (mark_rescan) */
	bool grp_valid;
	uint64_t grp_ns;
	uint64_t stat_ns;         /* its stat last read (refresh_targets) */
	bool io_valid;            /* io_last: its /proc/PID/io at the last read */
	uint64_t io_last[5];
	uint64_t io_ns;           /* when io_last was read */
	bool mem_valid;           /* mem_last: its statm at the last read */
	uint64_t mem_last[3];
	uint64_t mem_ns;          /* when mem_last was read */
	DIR *task_dir;
	struct thr *thr;
	size_t n_thr, cap_thr;
};

struct uproc {
	uint32_t pid, ppid;
	uint64_t starttime;
	char comm[16];
	bool is_target;
	int stat_fd, statm_fd;    /* kept, or -1 */
};

struct host_sampler {
	bool follow;
	uint32_t adopter;         /* cfg->adopter */
	DIR *adopter_task;        /* its /proc/PID/task, once opened */
	uint32_t self;            /* our pid: an adopter may have adopted us too */
	bool skip_idle;           /* skip what has not run (off: MSPROF_TEST_HOST_FULL_READ) */
	bool grp_clock;           /* the per-process CPU clock test (off on nohz_full) */
	uint64_t rescan_gen;      /* the next rescan's marks (mark_rescan) */
	bool rescan_all;          /* the next rescan looks at every process (mark_rescan) */
	/* ticks taken and deadlines missed, per kind (index 0 sys, 1 usage),
	 * and what RAW_SAMPLER_TICKS last said */
	uint64_t taken[2], missed[2], taken_written[2], missed_written[2];
	char *ranks;              /* --ranks, NULL: every process */
	char *env_buf;            /* a process's environment, read by environ_rank */
	unsigned sys_flags, usage_flags;
	long clk_tck;

	int proc_fd;
	DIR *proc_dir;            /* /proc walked by usage ticks and the ppid fallback */
	int netdev_fd, pstat_fd, meminfo_fd, diskstats_fd;
	uint64_t sysmem_ns;       /* /proc/meminfo last read for --host-sys=mem */
	uint64_t sysdisk_ns, sysnet_ns; /* /proc/diskstats, /proc/net/dev last read */
	struct disk_name { char name[32]; bool whole; } disks[64]; /* diskstats names looked up */
	size_t n_disks;

	struct raw_writer *w[N_SRC];
	uint32_t w_slice[N_SRC];  /* slice whose process descriptions were written */
	uint64_t bytes_closed;

	struct proc **procs;
	size_t n_procs, cap_procs;
	struct pidmap pmap;       /* pid -> index in procs */
	size_t n_threads;
	uint64_t last_scan_ns;
	uint64_t last_flush_ns;
	bool children_file;       /* /proc/PID/task/TID/children usable */
	struct pidmap nondesc;    /* fallback: pids seen and found outside the tree */

	struct uproc *u;
	size_t n_u, cap_u;
	struct pidmap umap;       /* pid -> index in u */
	uint64_t last_uscan_ns;

	int fd_budget, fds_kept, ufds_kept;

	struct raw_buf rb[2], ib; /* two records built side by side, plus one-offs */
	char *sbuf;
	size_t scap;
	uint32_t *tids;
	size_t cap_tids;
	struct thr *thr_tmp;
	size_t cap_thr_tmp;

	struct host_sampler_stats st;
	int err;                  /* first write error: sticky */
	bool finished;
};

static inline void put32_at(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void set_err(struct host_sampler *s, int r)
{
	if (r < 0 && s->err == 0)
		s->err = r;
}

static void emit(struct host_sampler *s, enum raw_source src, uint16_t type, const struct raw_buf *b)
{
	if (!s->w[src])
		return;
	if (b->err) {
		set_err(s, b->err);
		return;
	}
	int r = raw_writer_append(s->w[src], type, b->data, (uint32_t)b->len);
	if (r == -EDQUOT)
		return; /* refused under --storage-limit: counted in the dir's quota */
	if (r < 0) {
		set_err(s, r);
		return;
	}
	s->st.records++;
}

/* A record of "ts, n x {...}" entries, split into several records with the
 * same ts when it would grow past MAX_ENTRIES. */
struct rec {
	struct host_sampler *s;
	struct raw_buf *b;
	enum raw_source src;
	uint16_t type;
	uint64_t ts;
	uint32_t n;
};

static void rec_begin(struct rec *r, struct host_sampler *s, struct raw_buf *b, enum raw_source src,
		      uint16_t type, uint64_t ts)
{
	*r = (struct rec){ .s = s, .b = b, .src = src, .type = type, .ts = ts };
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, 0);
}

static void rec_flush(struct rec *r)
{
	if (r->n == 0)
		return;
	if (!r->b->err)
		put32_at(r->b->data + 8, r->n);
	emit(r->s, r->src, r->type, r->b);
	rec_begin(r, r->s, r->b, r->src, r->type, r->ts);
}

static void rec_entry(struct rec *r)
{
	if (r->n == MAX_ENTRIES)
		rec_flush(r);
	r->n++;
}

/* One entry's fields, appended at once: a tick writes an entry per process
 * and per thread, and a call per field cost as much as the reads it saved. */
struct ent {
	uint8_t b[64];
	unsigned n;
};

static inline void ent_u32(struct ent *e, uint32_t v)
{
	put32_at(e->b + e->n, v);
	e->n += 4;
}

static inline void ent_u64(struct ent *e, uint64_t v)
{
	put32_at(e->b + e->n, (uint32_t)v);
	put32_at(e->b + e->n + 4, (uint32_t)(v >> 32));
	e->n += 8;
}

static void rec_put(struct rec *r, const struct ent *e)
{
	rec_entry(r);
	raw_buf_bytes(r->b, e->b, e->n);
}

/* --- reading /proc -------------------------------------------------------- */

static ssize_t read_at0(int fd, char *buf, size_t cap)
{
	ssize_t n;
	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return n;
}

/* "<id>/<leaf>" without snprintf: this runs for every file of a tick. */
#define REL_MAX 48
static const char *rel_path(char out[REL_MAX], uint32_t id, const char *leaf)
{
	char digits[10];
	int n = 0;
	do
		digits[n++] = (char)('0' + id % 10);
	while ((id /= 10) > 0);
	size_t o = 0;
	while (n > 0)
		out[o++] = digits[--n];
	out[o++] = '/';
	size_t l = strnlen(leaf, REL_MAX - 1 - o);
	memcpy(out + o, leaf, l);
	out[o + l] = 0;
	return out;
}

/* Read a kept file, or open dir_fd/<id>/<leaf> for this read when fd < 0. */
static ssize_t read_file(int fd, int dir_fd, uint32_t id, const char *leaf, char *buf, size_t cap)
{
	if (fd >= 0)
		return read_at0(fd, buf, cap);
	char rel[REL_MAX];
	_cleanup_close_ int f = openat(dir_fd, rel_path(rel, id, leaf), O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	return read_at0(f, buf, cap);
}

/* Open dir_fd/<id>/<leaf> to keep, within the fd budget: *ret_fd = -1 (not
 * an error) past it.  The all-process sampler has a share of its own so that
 * a busy machine cannot starve the profiled tree. */
static int keep_open(struct host_sampler *s, int dir_fd, uint32_t id, const char *leaf, bool usage, int *ret_fd)
{
	*ret_fd = -1;
	if (s->fds_kept >= s->fd_budget || (usage && s->ufds_kept >= s->fd_budget / 2))
		return 0;
	char rel[REL_MAX];
	int fd = openat(dir_fd, rel_path(rel, id, leaf), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			return 0;
		return -errno;
	}
	s->fds_kept++;
	s->ufds_kept += usage;
	*ret_fd = fd;
	return 0;
}

static void close_kept(struct host_sampler *s, int *fd, bool usage)
{
	if (*fd >= 0) {
		close(*fd);
		s->fds_kept--;
		s->ufds_kept -= usage;
	}
	*fd = -1;
}

/* A whole /proc system file into s->sbuf.  seq_file reads return all they
 * have when the buffer is big enough, so a short read is the end.  Running
 * out of memory is the sampler's error (set_err); a failed read only skips
 * this tick's sample of that file. */
static ssize_t read_sysfile(struct host_sampler *s, int fd)
{
	size_t len = 0;
	for (;;) {
		if (s->scap - len < 4096) {
			if (s->scap >= SYSFILE_MAX)
				break;
			size_t nc = s->scap ? s->scap * 2 : 16384;
			char *nb = realloc(s->sbuf, nc);
			if (!nb) {
				set_err(s, -ENOMEM);
				return -ENOMEM;
			}
			s->sbuf = nb;
			s->scap = nc;
		}
		size_t want = s->scap - 1 - len;
		ssize_t n = pread(fd, s->sbuf + len, want, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	s->sbuf[len] = 0;
	return (ssize_t)len;
}

/* A process's rank, read from the environment its launcher gave it
 * (/proc/PID/environ, as the agent reads its own: common/rankenv.h), so that
 * a job's ranks are known without an agent (attached, or nothing but host
 * sampling asked for).  -1: none, or the environment cannot be read.  False
 * when the environment read empty: a process caught inside an exec, after
 * its new comm is set and before its new environment is (the kernel sets
 * mm->env_end last); the caller reads it again. */
static bool environ_rank(struct host_sampler *s, struct proc *p)
{
	enum { ENV_MAX = 256 * 1024 };
	p->rank = p->local_rank = -1;
	if (!s->env_buf && !(s->env_buf = malloc(ENV_MAX)))
		return true;
	struct rank_env re;
	ssize_t n = rank_env_of_pid(p->pid, s->env_buf, ENV_MAX, &re);
	if (n == 0)
		return false;
	if (n < 0)
		return true; /* gone, or not ours to read */
	p->rank = re.rank;
	p->local_rank = re.local_rank;
	return true;
}

/* Its own rank, else its parent's; a process of no --ranks rank is
 * followed but not sampled. */
static void set_rank(struct host_sampler *s, struct proc *p)
{
	/* read again on the next refreshes while it says no rank: a process
	 * seen between its fork and its exec shows its parent's environment,
	 * and an exec that keeps the comm (bash running bash) is not seen */
	p->env_retries = environ_rank(s, p) && p->rank >= 0 ? 0 : 10;
	uint32_t parent;
	if (p->rank < 0 && pm_get(&s->pmap, p->ppid, &parent)) {
		p->rank = s->procs[parent]->rank;
		p->local_rank = s->procs[parent]->local_rank;
	}
	p->skip = !rank_env_listed(s->ranks, p->rank);
}

/* --- records --------------------------------------------------------------- */

static void emit_info(struct host_sampler *s, enum raw_source src, uint64_t ts, uint32_t pid,
		      uint32_t ppid, uint64_t starttime, const char *comm, bool is_target, int32_t rank,
		      int32_t local_rank)
{
	if (!s->w[src])
		return;
	struct raw_buf *b = &s->ib;
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, pid);
	raw_buf_u32(b, ppid);
	raw_buf_u64(b, starttime);
	raw_buf_str(b, comm, 16);
	raw_buf_u32(b, is_target ? 1 : 0);
	raw_buf_u32(b, (uint32_t)rank);
	raw_buf_u32(b, (uint32_t)local_rank);
	emit(s, src, RAW_PROC_INFO, b);
}

static void emit_exit(struct host_sampler *s, enum raw_source src, uint64_t ts, uint32_t pid)
{
	if (!s->w[src])
		return;
	struct raw_buf *b = &s->ib;
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, pid);
	emit(s, src, RAW_PROC_EXIT, b);
}

/* A thread's name, when it is first read and whenever its stat shows
 * another (pthread_setname_np): its comm comes with the stat the cpu
 * sampler reads anyway, so naming costs no read of its own. */
static void emit_thread_info(struct host_sampler *s, uint64_t ts, uint32_t pid, const struct thr *t)
{
	struct raw_buf *b = &s->ib;
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, pid);
	raw_buf_u32(b, t->tid);
	raw_buf_str(b, t->comm, 16);
	emit(s, RAW_SOURCE_HOST_CPU, RAW_THREAD_INFO, b);
}

static void emit_target_info(struct host_sampler *s, const struct proc *p, uint64_t ts)
{
	if (p->skip)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(proc_sys_sources); i++)
		emit_info(s, proc_sys_sources[i], ts, p->pid, p->ppid, p->starttime, p->comm, true, p->rank, p->local_rank);
}

/* --- targets --------------------------------------------------------------- */

static void thr_close(struct host_sampler *s, struct thr *t)
{
	close_kept(s, &t->stat_fd, false);
	close_kept(s, &t->sched_fd, false);
	close_kept(s, &t->child_fd, false);
}

static void proc_free(struct host_sampler *s, struct proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_thr; i++)
		thr_close(s, &p->thr[i]);
	s->n_threads -= p->n_thr;
	free(p->thr);
	close_kept(s, &p->stat_fd, false);
	close_kept(s, &p->statm_fd, false);
	close_kept(s, &p->io_fd, false);
	if (p->task_dir) {
		closedir(p->task_dir);
		s->fds_kept--;
	}
	free(p);
}

static bool stat_is_dead(const struct pstat *st)
{
	/* a zombie leader with live threads is still running */
	return (st->state == 'Z' || st->state == 'X') && st->num_threads <= 1;
}

/* /proc/PID/task: thread files are opened relative to it, so it is kept
 * whatever the budget says. */
static void open_task_dir(struct host_sampler *s, struct proc *p)
{
	char rel[REL_MAX];
	int dfd = openat(s->proc_fd, rel_path(rel, p->pid, "task"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	p->task_dir = fdopendir(dfd);
	if (!p->task_dir)
		close(dfd);
	else
		s->fds_kept++;
}

/* p ran since the last rescan: it and every process above it in the tree
 * are looked at by the next one.  One that did not made no thread and no
 * child since (both take a clone) and lost no thread (an exit runs); the
 * one way to gain children it did not make is an orphan of a process
 * below it (orphans go to the nearest subreaper above them), and that
 * process ran, or made the orphan's parent, since (or was seen dead in
 * a list of children: add_children_of; its orphans are found by the
 * next rescan when they went to a process this one has passed).  A tree
 * of sleeping processes costs no listing of threads and no read of their
 * children.  Marks are a generation each rescan, so that those made while
 * one runs are the next one's. */
static void mark_rescan(struct host_sampler *s, struct proc *p)
{
	/* the walk stops at a process marked before: those above it are too
	 * (and a cycle of stale ppids ends) */
	while (p && p->rescan != s->rescan_gen) {
		p->rescan = s->rescan_gen;
		uint32_t up;
		if (pm_get(&s->pmap, p->ppid, &up)) {
			p = s->procs[up];
			continue;
		}
		/* Above the tree: a root's parent, or the adopter (looked at
		 * each rescan).  Else p's ppid is out of date: the parent it
		 * had exited, and p went to a subreaper of the tree or out of
		 * it, and p's stat (read every IDLE_REFRESH_NS while nothing
		 * of it runs) has not said so yet: every process is looked at,
		 * and p's stat read at the next tick. */
		if (!p->root && p->ppid != s->adopter) {
			s->rescan_all = true;
			p->stat_ns = 0;
		}
		p = NULL;
	}
}

/* Start following pid.  0 when it cannot be followed (gone, over the
 * limit); -errno only for our own failures. */
static int add_target(struct host_sampler *s, uint32_t pid, uint64_t ts)
{
	if (pid == 0 || pid == s->self || pid == s->adopter || pm_get(&s->pmap, pid, NULL))
		return 0;
	if (s->n_procs >= HOST_MAX_PIDS)
		return 0;
	if (GROW_ARRAY(s->procs, s->cap_procs, s->n_procs, 16) < 0)
		return -ENOMEM;

	struct proc *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	p->stat_fd = p->statm_fd = p->io_fd = -1;

	int r = keep_open(s, s->proc_fd, pid, "stat", false, &p->stat_fd);
	char buf[STAT_BUF];
	ssize_t n = r < 0 ? r : read_file(p->stat_fd, s->proc_fd, pid, "stat", buf, sizeof(buf));
	struct pstat st;
	if (n <= 0 || parse_stat(buf, (size_t)n, &st) < 0 || stat_is_dead(&st)) {
		proc_free(s, p);
		return 0;
	}
	p->ppid = st.ppid;
	p->starttime = st.starttime;
	p->blkio = st.blkio;
	p->state = st.state;
	p->num_threads = st.num_threads;
	p->stat_ns = ts;
	p->ran = true;
	p->have_clock = s->grp_clock && clock_getcpuclockid((pid_t)pid, &p->cpu_clock) == 0;
	memcpy(p->comm, st.comm, sizeof(p->comm));
	set_rank(s, p);

	if ((s->sys_flags & HOST_SYS_CPU) || s->follow)
		open_task_dir(s, p);
	if (s->sys_flags & HOST_SYS_MEM)
		(void)keep_open(s, s->proc_fd, pid, "statm", false, &p->statm_fd);
	if (s->sys_flags & HOST_SYS_DISK) {
		if (keep_open(s, s->proc_fd, pid, "io", false, &p->io_fd) == -EACCES)
			p->io_denied = true; /* needs ptrace access: another user's process */
	}

	r = pm_put(&s->pmap, pid, (uint32_t)s->n_procs);
	if (r < 0) {
		proc_free(s, p);
		return r;
	}
	s->procs[s->n_procs++] = p;
	mark_rescan(s, p); /* a scan running now visits it too */
	s->st.seen_pids++;
	emit_target_info(s, p, ts);
	return 1;
}

static void remove_target(struct host_sampler *s, size_t i, uint64_t ts)
{
	struct proc *p = s->procs[i];
	mark_rescan(s, p); /* its orphans went up the tree */
	for (size_t k = 0; k < ARRAY_SIZE(proc_sys_sources); k++)
		emit_exit(s, proc_sys_sources[k], ts, p->pid);
	pm_del(&s->pmap, p->pid);
	s->procs[i] = s->procs[--s->n_procs];
	if (i < s->n_procs)
		(void)pm_put(&s->pmap, s->procs[i]->pid, (uint32_t)i); /* key exists: cannot fail */
	proc_free(s, p);
}

/* Every target's stat: exits, exec (comm), blkio ticks.  When the cpu
 * sampler has just read the main thread's task/PID/stat, that is used: it
 * holds the same state, comm, ppid, num_threads, starttime and field 42 as
 * /proc/PID/stat (only utime/stime differ), and saves a read per process. */
static void refresh_targets(struct host_sampler *s, uint64_t ts)
{
	char buf[STAT_BUF];
	for (size_t i = 0; i < s->n_procs;) {
		struct proc *p = s->procs[i];
		struct pstat st;
		bool ok;
		if (p->leader_valid) {
			st = p->leader;
			p->leader_valid = false;
			ok = true;
		} else if (!p->ran && ts - p->stat_ns < IDLE_REFRESH_NS) {
			i++; /* nothing of it ran: nothing to see (the top) */
			continue;
		} else {
			s->st.tree_reads++;
			ssize_t n = read_file(p->stat_fd, s->proc_fd, p->pid, "stat", buf, sizeof(buf));
			ok = n > 0 && parse_stat(buf, (size_t)n, &st) == 0;
		}
		if (!ok || stat_is_dead(&st) || (p->stat_fd < 0 && st.starttime != p->starttime)) {
			remove_target(s, i, ts);
			continue;
		}
		p->ppid = st.ppid;
		p->blkio = st.blkio;
		p->num_threads = st.num_threads;
		p->state = st.state;
		p->stat_ns = ts;
		if (p->ran) /* this tick's, the cpu sampler's say included; after the ppid is current */
			mark_rescan(s, p);
		if (memcmp(p->comm, st.comm, sizeof(p->comm)) != 0) {
			/* an exec: its environment is the new program's (a
			 * launcher forks, then execs the rank with RANK set) */
			memcpy(p->comm, st.comm, sizeof(p->comm));
			set_rank(s, p);
			emit_target_info(s, p, ts);
		} else if (p->env_retries) {
			/* no rank of its own yet (set_rank): read it again, and
			 * describe it again once it has one */
			uint8_t left = p->env_retries - 1;
			set_rank(s, p);
			if (!p->env_retries)
				emit_target_info(s, p, ts);
			else
				p->env_retries = left;
		}
		i++;
	}
}

static int tid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Numeric entries of a directory into s->tids; returns the count. */
static ssize_t list_numeric(struct host_sampler *s, DIR *d)
{
	size_t n = 0;
	rewinddir(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t v;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || parse_u64(de->d_name, 1, UINT32_MAX, &v) < 0)
			continue;
		if (GROW_ARRAY(s->tids, s->cap_tids, n, 256) < 0)
			return -ENOMEM;
		s->tids[n++] = (uint32_t)v;
	}
	return (ssize_t)n;
}

static void thr_open(struct host_sampler *s, struct proc *p, struct thr *t, uint32_t tid)
{
	int dfd = dirfd(p->task_dir);
	*t = (struct thr){ .tid = tid, .stat_fd = -1, .sched_fd = -1, .child_fd = -1 };
	(void)keep_open(s, dfd, tid, "stat", false, &t->stat_fd);
	(void)keep_open(s, dfd, tid, "schedstat", false, &t->sched_fd);
}

/* Bring p's thread list in line with the sorted tids (merge of two sorted
 * lists: kept fds stay, gone threads close, new ones open). */
static int merge_threads(struct host_sampler *s, struct proc *p, const uint32_t *tids, size_t n)
{
	if (n > s->cap_thr_tmp) {
		struct thr *nt = realloc(s->thr_tmp, n * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		s->thr_tmp = nt;
		s->cap_thr_tmp = n;
	}
	struct thr *out = s->thr_tmp;
	size_t i = 0, j = 0, k = 0;
	while (i < p->n_thr || j < n) {
		if (j == n || (i < p->n_thr && p->thr[i].tid < tids[j])) {
			thr_close(s, &p->thr[i++]);
			s->n_threads--;
		} else if (i == p->n_thr || p->thr[i].tid > tids[j]) {
			if (s->n_threads < HOST_MAX_THREADS) {
				thr_open(s, p, &out[k++], tids[j]);
				s->n_threads++;
			}
			j++;
		} else {
			struct thr *t = &p->thr[i++];
			if (t->gone) { /* died and the tid came back: a new thread */
				thr_close(s, t);
				thr_open(s, p, t, tids[j]);
			}
			out[k++] = *t;
			j++;
		}
	}
	/* swap the arrays so both buffers are reused */
	s->thr_tmp = p->thr;
	size_t c = s->cap_thr_tmp;
	s->cap_thr_tmp = p->cap_thr;
	p->thr = out;
	p->cap_thr = c;
	p->n_thr = k;
	return 0;
}

/* The children of thread tid (its task dir task_dfd) of owner (NULL: the
 * adopter) become targets: listed in /proc/PID/task/TID/children ("pid
 * pid ... "), read through *kept when the thread has a slot for it (opened
 * on first use and kept: a rescan is then one pread), else opened for this
 * read. */
static int add_children_of(struct host_sampler *s, struct proc *owner, int task_dfd, uint32_t tid, int *kept,
			   uint64_t ts)
{
	char rel[REL_MAX];
	_cleanup_close_ int own = -1;
	int r = kept && *kept < 0 ? keep_open(s, task_dfd, tid, "children", false, kept) : 0;
	if (r < 0) {
		if (r != -ENOENT) /* not a thread that exited */
			mark_rescan(s, owner);
		return 0;
	}
	int fd = kept ? *kept : -1;
	if (fd < 0)
		fd = own = openat(task_dfd, rel_path(rel, tid, "children"), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT) /* not a thread that exited: EMFILE, ENOMEM */
			mark_rescan(s, owner);
		return 0;
	}
	char buf[SMALL_BUF];
	size_t have = 0;
	off_t off = 0;
	for (bool eof = false; !eof;) {
		ssize_t n = pread(fd, buf + have, sizeof(buf) - have, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		eof = n == 0;
		have += (size_t)n;
		off += n;
		const char *q = buf, *end = buf + have;
		while (q < end) {
			if (*q < '0' || *q > '9') {
				q++;
				continue;
			}
			const char *t = q;
			uint64_t v;
			(void)scan_u64(&q, end, &v);
			if (q == end && !eof) {
				q = t; /* may go on in the next read */
				break;
			}
			if (v > 0 && v <= UINT32_MAX) {
				r = add_target(s, (uint32_t)v, ts);
				if (r < 0)
					return r;
				/* not followed: dead already (its orphans went
				 * up the tree, maybe past where this rescan has
				 * looked), or over the limit */
				if (!pm_get(&s->pmap, (uint32_t)v, NULL) && v != s->self && v != s->adopter)
					mark_rescan(s, owner);
			}
		}
		have = (size_t)(end - q);
		memmove(buf, q, have);
		if (have == sizeof(buf))
			return 0; /* a "pid" longer than the buffer: not a pid list */
	}
	return 0;
}

/* Without CONFIG_PROC_CHILDREN: read the ppid of every process not seen
 * before.  Pids already found outside the tree are remembered while they
 * exist, so a steady system costs one readdir of /proc per rescan. */
static int fallback_scan(struct host_sampler *s, uint64_t ts)
{
	ssize_t n = list_numeric(s, s->proc_dir);
	if (n < 0)
		return (int)n;

	struct pidmap seen = { 0 };
	/* candidates: (pid, ppid) pairs, resolved to a fixpoint so that a
	 * grandchild listed before its parent is still found */
	uint32_t *cand = NULL;
	size_t n_cand = 0;
	int r = 0;
	char buf[STAT_BUF];
	for (ssize_t i = 0; i < n && r == 0; i++) {
		uint32_t pid = s->tids[i];
		if (pm_get(&s->pmap, pid, NULL))
			continue;
		if (pm_get(&s->nondesc, pid, NULL)) {
			r = pm_put(&seen, pid, 0);
			continue;
		}
		ssize_t m = read_file(-1, s->proc_fd, pid, "stat", buf, sizeof(buf));
		struct pstat st;
		if (m <= 0 || parse_stat(buf, (size_t)m, &st) < 0)
			continue;
		if (n_cand % 64 == 0) {
			uint32_t *nc = realloc(cand, (n_cand + 64) * 2 * sizeof(*nc));
			if (!nc) {
				r = -ENOMEM;
				break;
			}
			cand = nc;
		}
		cand[2 * n_cand] = pid;
		cand[2 * n_cand + 1] = st.ppid;
		n_cand++;
	}
	for (bool changed = true; changed && r == 0;) {
		changed = false;
		for (size_t i = 0; i < n_cand && r == 0; i++) {
			uint32_t ppid = cand[2 * i + 1];
			if (cand[2 * i] == 0 || !(pm_get(&s->pmap, ppid, NULL) || (s->adopter && ppid == s->adopter)))
				continue;
			int a = add_target(s, cand[2 * i], ts);
			cand[2 * i] = 0;
			if (a > 0)
				changed = true;
			r = a < 0 ? a : 0;
		}
	}
	for (size_t i = 0; i < n_cand && r == 0; i++)
		if (cand[2 * i] != 0 && !pm_get(&s->pmap, cand[2 * i], NULL))
			r = pm_put(&seen, cand[2 * i], 0);
	free(cand);
	if (r < 0) {
		pm_release(&seen);
		return r;
	}
	pm_release(&s->nondesc);
	s->nondesc = seen;
	return 0;
}

/* The adopter's children: an orphan of the tree (its parent exited, as in
 * a daemon's double fork) is reparented to the nearest subreaper, and so
 * stays followed however short its parent's life was.  Its other children
 * are the roots (known) and processes it started for itself, which it does
 * not do while a session samples its job. */
static int scan_adopter(struct host_sampler *s, uint64_t ts)
{
	if (!s->adopter_task) {
		char rel[REL_MAX];
		int dfd = openat(s->proc_fd, rel_path(rel, s->adopter, "task"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return 0; /* gone: its orphans go to the next reaper up */
		if (!(s->adopter_task = fdopendir(dfd))) {
			close(dfd);
			return 0;
		}
	}
	ssize_t n = list_numeric(s, s->adopter_task);
	if (n < 0)
		return (int)n;
	/* add_target lists no directory, so s->tids stays as it is */
	for (ssize_t k = 0; k < n; k++) {
		int r = add_children_of(s, NULL, dirfd(s->adopter_task), s->tids[k], NULL, ts);
		if (r < 0)
			return r;
	}
	return 0;
}

/* threads_read: this tick's cpu sampler read every known thread (their
 * gone flags are current). */
static int scan_tree(struct host_sampler *s, bool threads_read, uint64_t ts)
{
	bool want_thr = s->sys_flags & HOST_SYS_CPU;
	bool want_children = s->follow && s->children_file;
	int r;

	if (s->follow && !s->children_file) {
		r = fallback_scan(s, ts);
		if (r < 0)
			return r;
	}
	if (want_children && s->adopter && (r = scan_adopter(s, ts)) < 0)
		return r;
	if (!want_thr && !want_children)
		return 0;
	/* marked for this one, or during it (targets added while this runs
	 * are appended and visited too) */
	uint64_t gen = s->rescan_gen++;
	bool all = s->rescan_all || !s->skip_idle;
	s->rescan_all = false;
	for (size_t i = 0; i < s->n_procs; i++) {
		struct proc *p = s->procs[i];
		if (p->rescan < gen && !all) { /* see mark_rescan */
			s->st.rescan_skipped++;
			continue;
		}
		if (!p->task_dir)
			open_task_dir(s, p); /* failed before (EMFILE): try again */
		if (!p->task_dir) {
			mark_rescan(s, p); /* and at the next rescan */
			continue;
		}
		/* The thread list needs no listing when this tick read every
		 * known thread and the process counts no others: then there
		 * are none (a thread that starts after the count shows in the
		 * next one).  That saves three syscalls a process a rescan. */
		bool stable = threads_read && p->n_thr > 0 && p->n_thr == p->num_threads;
		for (size_t k = 0; stable && k < p->n_thr; k++)
			stable = !p->thr[k].gone;
		ssize_t n = 0;
		if (!stable) {
			n = list_numeric(s, p->task_dir);
			if (n < 0)
				return (int)n;
			qsort_safe(s->tids, (size_t)n, sizeof(*s->tids), tid_cmp);
			if (want_thr) {
				r = merge_threads(s, p, s->tids, (size_t)n);
				if (r < 0)
					return r;
			}
		}
		if (!want_children)
			continue;
		/* add_target neither lists directories nor moves *p; both lists
		 * are sorted, so a listed tid finds its kept fd in one pass */
		if (stable) {
			for (size_t k = 0; k < p->n_thr; k++)
				if ((r = add_children_of(s, p, dirfd(p->task_dir), p->thr[k].tid, &p->thr[k].child_fd,
							 ts)) < 0)
					return r;
			continue;
		}
		for (ssize_t k = 0, t = 0; k < n; k++) {
			while (want_thr && (size_t)t < p->n_thr && p->thr[t].tid < s->tids[k])
				t++;
			bool have = want_thr && (size_t)t < p->n_thr && p->thr[t].tid == s->tids[k];
			if ((r = add_children_of(s, p, dirfd(p->task_dir), s->tids[k], have ? &p->thr[t].child_fd : NULL,
						 ts)) < 0)
				return r;
		}
	}
	return 0;
}

/* --- host-sys sources ------------------------------------------------------- */

/* Asleep or stopped at its last read: whatever it does next starts with
 * running (a thread seen running may be running still, its counters moving
 * between the scheduler's updates; one in D may be waking from I/O). */
static bool asleep(char state)
{
	return state == 'S' || state == 'T' || state == 't';
}

/* Every thread of p asleep at its last read, so that p's CPU clock standing
 * still means none has run since.  Without the cpu sampler only the leader's
 * state is known: a single-threaded process's. */
static bool quiet(const struct host_sampler *s, const struct proc *p)
{
	if (!(s->sys_flags & HOST_SYS_CPU))
		return p->num_threads == 1 && asleep(p->state);
	if (p->n_thr == 0)
		return false;
	for (size_t k = 0; k < p->n_thr; k++) {
		const struct thr *t = &p->thr[k];
		if (!t->gone && (!t->have_last || !asleep(t->last_state)))
			return false;
	}
	return true;
}

/* Start of a tick: which processes may have run since the last one (p->ran;
 * the cpu sampler narrows it down per thread). */
static void probe_targets(struct host_sampler *s)
{
	bool clock = s->skip_idle && s->grp_clock;
	for (size_t i = 0; i < s->n_procs; i++) {
		struct proc *p = s->procs[i];
		p->ran = true;
		if (!clock || !p->have_clock)
			continue;
		struct timespec t;
		s->st.tree_reads++;
		if (clock_gettime(p->cpu_clock, &t) != 0) {
			p->grp_valid = false; /* gone: the reads find out */
			continue;
		}
		uint64_t g = (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
		/* a pid reused since holds another process's clock: its time
		 * differs, and a coincidence is caught by IDLE_REFRESH_NS */
		p->ran = !(p->grp_valid && g == p->grp_ns && quiet(s, p));
		p->grp_ns = g;
		p->grp_valid = true;
	}
}

/* When an entry's counters were read, after the record's ts (raw.h: the
 * entry's read offset), so that a rate is taken over the interval its
 * counters span rather than the ticks' (a read delayed within one tick and
 * not the next made a thread's or a process's rate overshoot). */
static uint32_t read_offset(const struct rec *r)
{
	uint64_t now = mono_ns();
	return now > r->ts ? (uint32_t)(now - r->ts > UINT32_MAX ? UINT32_MAX : now - r->ts) : 0;
}

static void thread_entry(struct rec *r, uint32_t pid, const struct thr *t, uint32_t off)
{
	struct ent e = { .n = 0 };
	ent_u32(&e, pid);
	ent_u32(&e, t->tid);
	ent_u64(&e, t->last_ut);
	ent_u64(&e, t->last_st);
	ent_u64(&e, t->last_run);
	ent_u32(&e, (uint32_t)t->last_cpu);
	ent_u32(&e, off);
	rec_put(r, &e);
}

/* One entry per live thread: read in full where it ran (schedstat moved, or
 * not asleep at its last read), repeated where it did not. */
static void sample_thread_cpu(struct host_sampler *s)
{
	struct rec r;
	char buf[STAT_BUF], sbuf[SMALL_BUF];
	uint32_t off_last = 0; /* the read offset of the record's last read */
	rec_begin(&r, s, &s->rb[0], RAW_SOURCE_HOST_CPU, RAW_THREAD_CPU, mono_ns());
	for (size_t i = 0; i < s->n_procs; i++) {
		struct proc *p = s->procs[i];
		if (!p->task_dir || p->skip)
			continue;
		int dfd = dirfd(p->task_dir);
		bool moved = false;
		/* every thread of it known and read: only then does none having
		 * moved say it did not run */
		bool all_read = p->n_thr >= p->num_threads;
		for (size_t k = 0; k < p->n_thr; k++) {
			struct thr *t = &p->thr[k];
			if (t->gone) {
				all_read = false;
				continue;
			}
			/* a thread that did not run: its counters hold now, as
			 * they did at the record's last read (no clock read
			 * for each such entry: most of a big tree's are these) */
			if (t->have_last && !p->ran) {
				thread_entry(&r, p->pid, t, off_last);
				continue;
			}
			uint64_t ss[3] = { 0 };
			s->st.tree_reads++;
			ssize_t n = read_file(t->sched_fd, dfd, t->tid, "schedstat", sbuf, sizeof(sbuf));
			uint32_t off = off_last = read_offset(&r);
			unsigned nss = n > 0 ? parse_nums(sbuf, (size_t)n, ss, 3) : 0;
			if (s->skip_idle && nss == 3 && t->have_last && asleep(t->last_state) &&
			    ss[0] == t->last_run && ss[2] == t->last_pcount) {
				thread_entry(&r, p->pid, t, off);
				continue;
			}
			moved = true;
			s->st.tree_reads++;
			n = read_file(t->stat_fd, dfd, t->tid, "stat", buf, sizeof(buf));
			struct pstat st;
			if (n <= 0 || parse_stat(buf, (size_t)n, &st) < 0) {
				all_read = false;
				t->gone = true;
				t->have_last = false;
				thr_close(s, t);
				continue;
			}
			if (t->tid == p->pid) {
				p->leader = st;
				p->leader_valid = true;
			}
			t->have_last = true;
			t->last_state = st.state;
			t->last_ut = st.utime;
			t->last_st = st.stime;
			t->last_run = ss[0];
			t->last_pcount = nss == 3 ? ss[2] : 0;
			t->last_cpu = st.processor;
			if (!t->named || strncmp(t->comm, st.comm, sizeof(t->comm)) != 0) {
				memcpy(t->comm, st.comm, sizeof(t->comm));
				t->named = true;
				emit_thread_info(s, r.ts, p->pid, t);
			}
			thread_entry(&r, p->pid, t, off);
		}
		/* what the io sampler and refresh_targets go by this tick */
		if (s->skip_idle && p->ran && p->n_thr > 0 && all_read)
			p->ran = moved;
	}
	rec_flush(&r);
}

/* Memory or I/O counters last read at *at may be repeated at ts: nothing
 * of p ran and they are younger than refresh_ns (see the top). */
static bool slow_repeat(const struct host_sampler *s, const struct proc *p, bool valid, uint64_t at, uint64_t ts,
			uint64_t refresh_ns)
{
	return s->skip_idle && !p->ran && valid && ts - at < refresh_ns;
}

/* When a counter read at ts counts as read: the first read of a process is
 * dated back by a share of refresh_ns of its own, so that a tree found at
 * once is not read again all in one tick refresh_ns later. */
static uint64_t slow_read_at(const struct proc *p, bool valid, uint64_t ts, uint64_t refresh_ns)
{
	return valid ? ts : ts - (p->pid * 2654435761u) % refresh_ns;
}

static void sample_proc_mem(struct host_sampler *s)
{
	struct rec r;
	char buf[SMALL_BUF];
	uint64_t ts = mono_ns();
	rec_begin(&r, s, &s->rb[0], RAW_SOURCE_HOST_MEM, RAW_PROC_MEM, ts);
	for (size_t i = 0; i < s->n_procs; i++) {
		struct proc *p = s->procs[i];
		if (p->skip)
			continue;
		if (!slow_repeat(s, p, p->mem_valid, p->mem_ns, ts, SLOW_REFRESH_NS)) {
			s->st.tree_reads++;
			ssize_t n = read_file(p->statm_fd, s->proc_fd, p->pid, "statm", buf, sizeof(buf));
			uint64_t v[3] = { 0 };
			if (n <= 0 || parse_nums(buf, (size_t)n, v, 3) < 3) {
				p->mem_valid = false;
				continue;
			}
			p->mem_ns = slow_read_at(p, p->mem_valid, ts, SLOW_REFRESH_NS);
			memcpy(p->mem_last, v, sizeof(v));
			p->mem_valid = true;
		}
		struct ent e = { .n = 0 };
		ent_u32(&e, p->pid);
		ent_u32(&e, 0);
		for (size_t k = 0; k < ARRAY_SIZE(p->mem_last); k++)
			ent_u64(&e, p->mem_last[k]);
		rec_put(&r, &e);
	}
	rec_flush(&r);
}

static void sample_proc_io(struct host_sampler *s)
{
	struct rec r;
	char buf[SMALL_BUF];
	uint64_t ts = mono_ns();
	uint32_t off = 0; /* the read offset of the record's last read (held counters: as of it) */
	rec_begin(&r, s, &s->rb[0], RAW_SOURCE_HOST_DISK, RAW_PROC_IO, ts);
	for (size_t i = 0; i < s->n_procs; i++) {
		struct proc *p = s->procs[i];
		if (p->io_denied || p->skip)
			continue;
		/* only its own threads account I/O: none ran, none did any
		 * (the counters it repeats hold now; see the top) */
		if (!slow_repeat(s, p, p->io_valid, p->io_ns, ts, IDLE_REFRESH_NS)) {
			s->st.tree_reads++;
			ssize_t n = read_file(p->io_fd, s->proc_fd, p->pid, "io", buf, sizeof(buf));
			if (n <= 0) {
				p->io_valid = false;
				continue;
			}
			uint64_t v[5] = { 0 };
			const struct kv kv[] = {
				{ "rchar", &v[0] }, { "wchar", &v[1] }, { "read_bytes", &v[2] },
				{ "write_bytes", &v[3] }, { "cancelled_write_bytes", &v[4] },
			};
			parse_kv(buf, (size_t)n, kv, ARRAY_SIZE(kv));
			memcpy(p->io_last, v, sizeof(v));
			p->io_ns = slow_read_at(p, p->io_valid, ts, IDLE_REFRESH_NS);
			p->io_valid = true;
			off = read_offset(&r);
		}
		struct ent e = { .n = 0 };
		ent_u32(&e, p->pid);
		ent_u32(&e, off);
		for (size_t k = 0; k < ARRAY_SIZE(p->io_last); k++)
			ent_u64(&e, p->io_last[k]);
		ent_u64(&e, p->blkio);
		rec_put(&r, &e);
	}
	rec_flush(&r);
}

/* /proc/diskstats: whole disks only (a partition's I/O is its disk's
 * too, and would count twice), told apart by /sys/block/NAME, looked up
 * once per name; devices that never did I/O (unused loop and ram devices)
 * are left out.  The machine's disks, not the tree's: the usage in percent
 * is the busiest disk's busy time (io_ticks, iostat's %util), which the
 * kernel keeps whatever kernel.task_delayacct says. */
static bool whole_disk(struct host_sampler *s, const char *name)
{
	for (size_t i = 0; i < s->n_disks; i++)
		if (streq(s->disks[i].name, name))
			return s->disks[i].whole;
	if (s->n_disks >= ARRAY_SIZE(s->disks))
		return false;
	char path[64];
	snprintf(path, sizeof path, "/sys/block/%s", name);
	struct disk_name *d = &s->disks[s->n_disks++];
	snprintf(d->name, sizeof d->name, "%s", name);
	d->whole = access(path, F_OK) == 0;
	return d->whole;
}

/* A machine-wide /proc file (diskstats, net/dev, stat) as one record:
 * read once, each line [p, eol) handed to line() with its number to add
 * its entries to r; line() returns false to stop before the end. */
typedef bool sys_line_fn(struct host_sampler *s, struct rec *r, unsigned line, const char *p, const char *eol);

static void sample_sys_lines(struct host_sampler *s, int fd, struct raw_buf *b, enum raw_source src, uint16_t type,
			     sys_line_fn *line)
{
	/* the counters are those of the read: stamped with its midpoint */
	uint64_t t0 = mono_ns();
	ssize_t len = read_sysfile(s, fd);
	if (len < 0)
		return;
	uint64_t ts = t0 + (mono_ns() - t0) / 2;
	struct rec r;
	rec_begin(&r, s, b, src, type, ts);
	const char *p = s->sbuf, *end = s->sbuf + len;
	for (unsigned n = 0; p < end; n++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (!line(s, &r, n, p, eol))
			break;
		p = eol + 1;
	}
	rec_flush(&r);
}

static bool diskstats_line(struct host_sampler *s, struct rec *r, unsigned line, const char *p, const char *eol)
{
	(void)line;
	/* major minor name reads merged sectors ms writes merged sectors ms inflight io_ticks */
	uint64_t v[12] = { 0 };
	const char *q = p;
	bool ok = scan_u64(&q, eol, &v[0]) && scan_u64(&q, eol, &v[1]);
	q = ok ? skip_blank(q, eol) : eol;
	const char *name = q;
	while (q < eol && *q != ' ')
		q++;
	size_t nl = (size_t)(q - name);
	unsigned n = 0;
	while (n < 10 && scan_u64(&q, eol, &v[n]))
		n++;
	char dev[32];
	if (ok && n == 10 && nl > 0 && nl < sizeof dev && (v[0] | v[4] | v[9])) {
		memcpy(dev, name, nl);
		dev[nl] = 0;
		if (whole_disk(s, dev)) {
			rec_entry(r);
			raw_buf_str(r->b, dev, 32);
			raw_buf_u64(r->b, v[2]); /* sectors read */
			raw_buf_u64(r->b, v[6]); /* sectors written */
			raw_buf_u64(r->b, v[9]); /* io_ticks, ms */
			raw_buf_u64(r->b, 0);
		}
	}
	return true;
}

static bool net_dev_line(struct host_sampler *s, struct rec *r, unsigned line, const char *p, const char *eol)
{
	(void)s;
	const char *colon = memchr(p, ':', (size_t)(eol - p));
	if (line < 2 || !colon)
		return true;
	const char *name = skip_blank(p, colon);
	uint64_t v[16] = { 0 };
	const char *q = colon + 1;
	unsigned n = 0;
	while (n < 16 && scan_u64(&q, eol, &v[n]))
		n++;
	if (n >= 12) {
		char ifname[16] = { 0 };
		size_t nl = (size_t)(colon - name);
		memcpy(ifname, name, nl < sizeof(ifname) - 1 ? nl : sizeof(ifname) - 1);
		rec_entry(r);
		raw_buf_str(r->b, ifname, 16);
		raw_buf_u64(r->b, v[0]);
		raw_buf_u64(r->b, v[1]);
		raw_buf_u64(r->b, v[2]);
		raw_buf_u64(r->b, v[3]);
		raw_buf_u64(r->b, v[8]);
		raw_buf_u64(r->b, v[9]);
		raw_buf_u64(r->b, v[10]);
		raw_buf_u64(r->b, v[11]);
	}
	return true;
}

static void sample_diskstats(struct host_sampler *s)
{
	sample_sys_lines(s, s->diskstats_fd, &s->rb[1], RAW_SOURCE_HOST_DISK, RAW_DISK_STATS, diskstats_line);
}

static void sample_net_dev(struct host_sampler *s)
{
	sample_sys_lines(s, s->netdev_fd, &s->rb[0], RAW_SOURCE_HOST_NET, RAW_NET_DEV, net_dev_line);
}

/* --- host-sys-usage sources ------------------------------------------------- */

/* The "cpu" and "cpuN" lines, which come first. */
static bool stat_cpu_line(struct host_sampler *s, struct rec *r, unsigned line, const char *p, const char *eol)
{
	(void)s;
	(void)line;
	if (eol - p < 3 || memcmp(p, "cpu", 3) != 0)
		return false;
	const char *q = p + 3;
	int64_t cpu = -1;
	if (q < eol && *q >= '0' && *q <= '9') {
		uint64_t c;
		(void)scan_u64(&q, eol, &c);
		cpu = c > INT32_MAX ? INT32_MAX : (int64_t)c;
	}
	uint64_t v[8] = { 0 };
	unsigned n = 0;
	while (n < 8 && scan_u64(&q, eol, &v[n]))
		n++;
	if (n >= 4) {
		rec_entry(r);
		raw_buf_u32(r->b, (uint32_t)(int32_t)cpu);
		raw_buf_u32(r->b, 0);
		for (unsigned k = 0; k < 8; k++)
			raw_buf_u64(r->b, v[k]);
	}
	return true;
}

static void sample_sys_cpu(struct host_sampler *s)
{
	sample_sys_lines(s, s->pstat_fd, &s->rb[0], RAW_SOURCE_USAGE_CPU, RAW_SYS_CPU, stat_cpu_line);
}

static void sample_sys_mem(struct host_sampler *s, enum raw_source src)
{
	uint64_t ts = mono_ns();
	ssize_t len = read_sysfile(s, s->meminfo_fd);
	if (len < 0)
		return;
	uint64_t v[10] = { 0 };
	const struct kv kv[] = {
		{ "MemTotal", &v[0] }, { "MemFree", &v[1] }, { "Buffers", &v[2] },
		{ "Cached", &v[3] }, { "Shmem", &v[4] }, { "CommitLimit", &v[5] },
		{ "Committed_AS", &v[6] }, { "HugePages_Total", &v[7] }, { "HugePages_Free", &v[8] },
		{ "MemAvailable", &v[9] },
	};
	parse_kv(s->sbuf, (size_t)len, kv, ARRAY_SIZE(kv));
	struct raw_buf *b = &s->ib;
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		raw_buf_u64(b, v[i]);
	emit(s, src, RAW_SYS_MEM, b);
}

static void usage_info(struct host_sampler *s, const struct uproc *u, uint64_t ts)
{
	for (size_t k = 0; k < ARRAY_SIZE(usage_sources); k++)
		emit_info(s, usage_sources[k], ts, u->pid, u->ppid, u->starttime, u->comm, u->is_target, -1, -1);
}

static void usage_exit(struct host_sampler *s, uint32_t pid, uint64_t ts)
{
	for (size_t k = 0; k < ARRAY_SIZE(usage_sources); k++)
		emit_exit(s, usage_sources[k], ts, pid);
}

static void uproc_add(struct host_sampler *s, uint32_t pid, uint64_t ts)
{
	if (s->n_u >= HOST_MAX_THREADS)
		return;
	if (GROW_ARRAY(s->u, s->cap_u, s->n_u, 256) < 0) {
		set_err(s, -ENOMEM);
		return;
	}
	struct uproc u = { .pid = pid, .stat_fd = -1, .statm_fd = -1 };
	if (s->usage_flags & HOST_USAGE_CPU)
		(void)keep_open(s, s->proc_fd, pid, "stat", true, &u.stat_fd);
	if (s->usage_flags & HOST_USAGE_MEM)
		(void)keep_open(s, s->proc_fd, pid, "statm", true, &u.statm_fd);

	char buf[STAT_BUF];
	struct pstat st;
	ssize_t n = read_file(u.stat_fd, s->proc_fd, pid, "stat", buf, sizeof(buf));
	if (n <= 0 || parse_stat(buf, (size_t)n, &st) < 0 || pm_put(&s->umap, pid, (uint32_t)s->n_u) < 0) {
		close_kept(s, &u.stat_fd, true);
		close_kept(s, &u.statm_fd, true);
		return;
	}
	u.ppid = st.ppid;
	u.starttime = st.starttime;
	memcpy(u.comm, st.comm, sizeof(u.comm));
	u.is_target = pm_get(&s->pmap, pid, NULL);
	s->u[s->n_u++] = u;
	usage_info(s, &u, ts);
}

static void uproc_remove(struct host_sampler *s, size_t i, uint64_t ts)
{
	struct uproc *u = &s->u[i];
	usage_exit(s, u->pid, ts);
	pm_del(&s->umap, u->pid);
	close_kept(s, &u->stat_fd, true);
	close_kept(s, &u->statm_fd, true);
	s->u[i] = s->u[--s->n_u];
	if (i < s->n_u)
		(void)pm_put(&s->umap, s->u[i].pid, (uint32_t)i); /* key exists: cannot fail */
}

/* Every process: new pids are looked for at most every RESCAN_NS, known
 * ones are read every tick through their kept fds; a read that fails is an
 * exit (a kept fd never reads a recycled pid). */
static void sample_all_procs(struct host_sampler *s)
{
	bool cpu = s->usage_flags & HOST_USAGE_CPU, mem = s->usage_flags & HOST_USAGE_MEM;
	uint64_t ts = mono_ns();
	if (s->last_uscan_ns == 0 || ts - s->last_uscan_ns >= RESCAN_NS) {
		s->last_uscan_ns = ts;
		ssize_t n = list_numeric(s, s->proc_dir);
		if (n < 0) {
			set_err(s, (int)n);
			return;
		}
		for (ssize_t i = 0; i < n; i++)
			if (!pm_get(&s->umap, s->tids[i], NULL))
				uproc_add(s, s->tids[i], ts);
	}

	struct rec rc, rm;
	rec_begin(&rc, s, &s->rb[0], RAW_SOURCE_USAGE_CPU, RAW_PROC_CPU_THREADS, ts);
	rec_begin(&rm, s, &s->rb[1], RAW_SOURCE_USAGE_MEM, RAW_PROC_MEM_ALL, ts);
	char buf[STAT_BUF];
	for (size_t i = 0; i < s->n_u;) {
		struct uproc *u = &s->u[i];
		bool changed = false;
		if (cpu) {
			struct pstat st;
			ssize_t n = read_file(u->stat_fd, s->proc_fd, u->pid, "stat", buf, sizeof(buf));
			if (n <= 0 || parse_stat(buf, (size_t)n, &st) < 0 ||
			    (u->stat_fd < 0 && st.starttime != u->starttime)) {
				uproc_remove(s, i, ts);
				continue;
			}
			if (memcmp(u->comm, st.comm, sizeof(u->comm)) != 0) {
				memcpy(u->comm, st.comm, sizeof(u->comm));
				changed = true;
			}
			u->ppid = st.ppid;
			rec_entry(&rc);
			raw_buf_u32(rc.b, u->pid);
			raw_buf_u32(rc.b, read_offset(&rc));
			raw_buf_u64(rc.b, st.utime);
			raw_buf_u64(rc.b, st.stime);
			raw_buf_u32(rc.b, st.num_threads);
			raw_buf_u32(rc.b, 0);
		}
		if (mem) {
			ssize_t n = read_file(u->statm_fd, s->proc_fd, u->pid, "statm", buf, sizeof(buf));
			uint64_t v[3] = { 0 };
			if (n > 0 && parse_nums(buf, (size_t)n, v, 3) == 3) {
				rec_entry(&rm);
				raw_buf_u32(rm.b, u->pid);
				raw_buf_u32(rm.b, 0);
				raw_buf_u64(rm.b, v[0]);
				raw_buf_u64(rm.b, v[1]);
				raw_buf_u64(rm.b, v[2]);
			} else if (!cpu) {
				uproc_remove(s, i, ts);
				continue;
			}
		}
		/* once a target, always: a zombie reaped late is no longer
		 * followed but was part of the tree */
		if (!u->is_target && pm_get(&s->pmap, u->pid, NULL)) {
			u->is_target = true;
			changed = true;
		}
		if (changed)
			usage_info(s, u, ts);
		i++;
	}
	rec_flush(&rc);
	rec_flush(&rm);
}

/* Slices stand alone: a new slice gets the process descriptions again. */
static void reannounce(struct host_sampler *s, uint64_t ts)
{
	for (size_t k = 0; k < ARRAY_SIZE(proc_sys_sources); k++) {
		enum raw_source src = proc_sys_sources[k];
		if (!s->w[src] || raw_writer_slice(s->w[src]) == s->w_slice[src])
			continue;
		s->w_slice[src] = raw_writer_slice(s->w[src]);
		for (size_t i = 0; i < s->n_procs; i++) {
			const struct proc *p = s->procs[i];
			if (p->skip)
				continue;
			emit_info(s, src, ts, p->pid, p->ppid, p->starttime, p->comm, true, p->rank, p->local_rank);
			for (size_t j = 0; src == RAW_SOURCE_HOST_CPU && j < p->n_thr; j++)
				if (p->thr[j].named && !p->thr[j].gone)
					emit_thread_info(s, ts, p->pid, &p->thr[j]);
		}
	}
	for (size_t k = 0; k < ARRAY_SIZE(usage_sources); k++) {
		enum raw_source src = usage_sources[k];
		if (!s->w[src] || raw_writer_slice(s->w[src]) == s->w_slice[src])
			continue;
		s->w_slice[src] = raw_writer_slice(s->w[src]);
		for (size_t i = 0; i < s->n_u; i++) {
			const struct uproc *u = &s->u[i];
			emit_info(s, src, ts, u->pid, u->ppid, u->starttime, u->comm, u->is_target, -1, -1);
		}
	}
}

/* RAW_SAMPLER_TICKS into each source of a kind, when its counts moved since
 * the last one (always at the end): cumulative, so the newest slice has
 * them whatever ageing deleted. */
static void write_ticks(struct host_sampler *s, uint64_t ts, bool last)
{
	static const enum raw_source kind_sources[2][4] = {
		{ RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK, RAW_SOURCE_HOST_NET },
		{ RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM },
	};
	for (int k = 0; k < 2; k++) {
		if (!last && s->taken[k] == s->taken_written[k] && s->missed[k] == s->missed_written[k])
			continue;
		struct raw_buf *b = &s->ib;
		raw_buf_reset(b);
		raw_buf_u64(b, ts);
		raw_buf_u64(b, s->taken[k]);
		raw_buf_u64(b, s->missed[k]);
		for (size_t i = 0; i < ARRAY_SIZE(kind_sources[k]) && kind_sources[k][i]; i++)
			emit(s, kind_sources[k][i], RAW_SAMPLER_TICKS, b);
		s->taken_written[k] = s->taken[k];
		s->missed_written[k] = s->missed[k];
	}
}

/* nohz_full CPUs update a running thread's run time only now and then
 * (see the top). */
static bool have_nohz_full(void)
{
	_cleanup_close_ int fd = open("/sys/devices/system/cpu/nohz_full", O_RDONLY | O_CLOEXEC);
	char buf[64];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] >= '0' && buf[i] <= '9')
			return true;
	return false;
}

/* --- public ------------------------------------------------------------------ */

static int open_sys_file(const char *path, int *ret_fd)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/* Half of the descriptors still free under RLIMIT_NOFILE: the rest stays
 * for the daemon's sockets, other sessions and on-demand reads. */
static int fd_budget(void)
{
	struct rlimit rl;
	rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	if (lim == RLIM_INFINITY || lim > (1U << 20))
		lim = 1U << 20;
	rlim_t used = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			used += de->d_name[0] != '.';
		closedir(d);
	}
	return used < lim ? (int)((lim - used) / 2) : 0;
}

static bool have_children_file(int proc_fd)
{
	const char *e = getenv("MSPROF_TEST_NO_PROC_CHILDREN"); /* tests cover the fallback */
	if (e && *e && strcmp(e, "0") != 0)
		return false;
	char rel[64];
	snprintf(rel, sizeof(rel), "self/task/%d/children", (int)getpid());
	return faccessat(proc_fd, rel, R_OK, 0) == 0;
}

int host_sampler_new(const struct host_sampler_config *cfg, struct host_sampler **ret)
{
	if (!cfg || !ret || !cfg->data_dir || cfg->n_roots > HOST_MAX_ROOTS)
		return -EINVAL;
	if (cfg->sys_flags & ~(unsigned)HOST_SYS_SAMPLED)
		return -EINVAL;
	if (cfg->usage_flags & ~(unsigned)(HOST_USAGE_CPU | HOST_USAGE_MEM))
		return -EINVAL;
	for (unsigned i = 0; i < cfg->n_roots; i++)
		if (cfg->roots[i] == 0)
			return -EINVAL;

	struct host_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->proc_fd = s->netdev_fd = s->pstat_fd = s->meminfo_fd = s->diskstats_fd = -1;
	s->follow = cfg->follow_children;
	s->adopter = cfg->adopter;
	s->self = (uint32_t)getpid();
	if (cfg->ranks && *cfg->ranks && !(s->ranks = strdup(cfg->ranks))) {
		free(s);
		return -ENOMEM;
	}
	s->sys_flags = cfg->sys_flags;
	s->usage_flags = cfg->usage_flags;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	const char *full = getenv("MSPROF_TEST_HOST_FULL_READ"); /* the benchmark's baseline */
	s->skip_idle = !(full && *full && strcmp(full, "0") != 0);
	s->grp_clock = !have_nohz_full();
	s->rescan_gen = 1; /* a new target's 0 is no mark */

	int r;
	s->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->proc_fd < 0) {
		r = -errno;
		goto fail;
	}
	int dfd = fcntl(s->proc_fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0 || !(s->proc_dir = fdopendir(dfd))) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		goto fail;
	}
	s->children_file = have_children_file(s->proc_fd);

	if (cfg->sys_flags & HOST_SYS_NETWORK && (r = open_sys_file("/proc/net/dev", &s->netdev_fd)) < 0)
		goto fail;
	if (cfg->usage_flags & HOST_USAGE_CPU && (r = open_sys_file("/proc/stat", &s->pstat_fd)) < 0)
		goto fail;
	if (cfg->usage_flags & HOST_USAGE_MEM && (r = open_sys_file("/proc/meminfo", &s->meminfo_fd)) < 0)
		goto fail;
	/* system memory and disks beside the tree's: a kernel without the
	 * file leaves only those tracks out */
	if (cfg->sys_flags & HOST_SYS_MEM && s->meminfo_fd < 0)
		(void)open_sys_file("/proc/meminfo", &s->meminfo_fd);
	if (cfg->sys_flags & HOST_SYS_DISK)
		(void)open_sys_file("/proc/diskstats", &s->diskstats_fd);

	uint64_t mono0 = cfg->mono0_ns, real0 = cfg->real0_ns;
	if (mono0 == 0 && real0 == 0) {
		mono0 = mono_ns();
		real0 = real_ns();
	}
	static const struct { unsigned sys, usage; enum raw_source src; } srcs[] = {
		{ HOST_SYS_CPU, 0, RAW_SOURCE_HOST_CPU },
		{ HOST_SYS_MEM, 0, RAW_SOURCE_HOST_MEM },
		{ HOST_SYS_DISK, 0, RAW_SOURCE_HOST_DISK },
		{ HOST_SYS_NETWORK, 0, RAW_SOURCE_HOST_NET },
		{ 0, HOST_USAGE_CPU, RAW_SOURCE_USAGE_CPU },
		{ 0, HOST_USAGE_MEM, RAW_SOURCE_USAGE_MEM },
	};
	for (size_t i = 0; i < ARRAY_SIZE(srcs); i++) {
		if (!(cfg->sys_flags & srcs[i].sys) && !(cfg->usage_flags & srcs[i].usage))
			continue;
		r = raw_writer_open(cfg->data_dir, srcs[i].src, mono0, real0, cfg->slice_bytes, &s->w[srcs[i].src]);
		if (r < 0)
			goto fail;
		r = raw_writer_set_buffer(s->w[srcs[i].src], WRITE_BUFFER);
		if (r < 0)
			goto fail;
		s->w_slice[srcs[i].src] = raw_writer_slice(s->w[srcs[i].src]);
	}

	s->fd_budget = fd_budget();

	uint64_t ts = mono_ns();
	for (unsigned i = 0; i < cfg->n_roots; i++) {
		r = add_target(s, cfg->roots[i], ts);
		if (r < 0)
			goto fail;
		uint32_t at;
		if (pm_get(&s->pmap, cfg->roots[i], &at))
			s->procs[at]->root = true;
	}
	if (s->err) {
		r = s->err;
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	host_sampler_free(s);
	return r;
}

int host_sampler_tick(struct host_sampler *s, unsigned kinds)
{
	if (!s)
		return -EINVAL;
	if (s->finished)
		return -EBADF;
	if (s->err)
		return s->err;

	uint64_t now = mono_ns();
	reannounce(s, now);
	probe_targets(s);
	/* threads first: their read of each main thread stands in for the
	 * process's stat in refresh_targets */
	bool threads_read = (kinds & HOST_TICK_SYS) && (s->sys_flags & HOST_SYS_CPU);
	if (threads_read)
		sample_thread_cpu(s);
	if (s->n_procs > 0) {
		uint64_t ts = mono_ns(); /* records stay in time order in each file */
		refresh_targets(s, ts);
		if (s->last_scan_ns == 0 || now - s->last_scan_ns >= TREE_RESCAN_NS) {
			s->last_scan_ns = now;
			int r = scan_tree(s, threads_read, ts);
			if (r < 0)
				set_err(s, r);
		}
	}
	if (kinds & HOST_TICK_SYS) {
		if (s->sys_flags & HOST_SYS_MEM)
			sample_proc_mem(s);
		/* the machine's used and available memory beside the tree's,
		 * at most at the rate statm is read when nothing runs */
		if (s->sys_flags & HOST_SYS_MEM && s->meminfo_fd >= 0 && now - s->sysmem_ns >= SLOW_DUE_NS) {
			s->sysmem_ns = now;
			sample_sys_mem(s, RAW_SOURCE_HOST_MEM);
		}
		/* The machine's disk and network counters at about 50 Hz at
		 * most, as its memory: they are the machine's, not the tree's;
		 * they cost more to read than a process's files (diskstats
		 * lists every block device); and a disk's busy time counts in
		 * ms, so that a 1 ms interval would read 0% or 100%.  The
		 * disks before the tree's io, so that the export has the
		 * disks' last interval when the tree's is complete. */
		if (s->sys_flags & HOST_SYS_DISK && s->diskstats_fd >= 0 && now - s->sysdisk_ns >= SLOW_DUE_NS) {
			s->sysdisk_ns = now;
			sample_diskstats(s);
		}
		if (s->sys_flags & HOST_SYS_DISK)
			sample_proc_io(s);
		if (s->sys_flags & HOST_SYS_NETWORK && now - s->sysnet_ns >= SLOW_DUE_NS) {
			s->sysnet_ns = now;
			sample_net_dev(s);
		}
	}
	if (kinds & HOST_TICK_USAGE) {
		if (s->usage_flags & HOST_USAGE_CPU)
			sample_sys_cpu(s);
		if (s->usage_flags & HOST_USAGE_MEM)
			sample_sys_mem(s, RAW_SOURCE_USAGE_MEM);
		if (s->usage_flags)
			sample_all_procs(s);
	}
	s->st.ticks++;
	if (kinds & HOST_TICK_SYS)
		s->taken[0]++;
	if (kinds & HOST_TICK_USAGE)
		s->taken[1]++;
	if (now - s->last_flush_ns >= FLUSH_NS) {
		s->last_flush_ns = now;
		write_ticks(s, mono_ns(), false); /* after this tick's records */
		for (size_t i = 0; i < N_SRC; i++) {
			int r = s->w[i] ? raw_writer_flush(s->w[i]) : 0;
			if (r < 0)
				set_err(s, r);
		}
	}
	if (s->err)
		return s->err;
	return (int)s->n_procs;
}

void host_sampler_missed(struct host_sampler *s, enum host_tick_kind kind, uint64_t n)
{
	/* a session that samples nothing ticks only to follow its tree */
	if (s && kind == HOST_TICK_SYS && s->sys_flags)
		s->missed[0] += n;
	else if (s && kind == HOST_TICK_USAGE && s->usage_flags)
		s->missed[1] += n;
}

void host_sampler_get_stats(const struct host_sampler *s, struct host_sampler_stats *ret)
{
	struct host_sampler_stats st = s->st;
	st.missed_ticks = s->missed[0] + s->missed[1];
	st.bytes = s->bytes_closed;
	for (size_t i = 0; i < N_SRC; i++)
		st.bytes += raw_writer_bytes(s->w[i]);
	st.live_pids = (unsigned)s->n_procs;
	*ret = st;
}

int host_sampler_finish(struct host_sampler *s, uint32_t reason)
{
	if (!s)
		return -EINVAL;
	if (s->finished)
		return 0;
	s->finished = true;
	int ret = 0;
	uint64_t ts = mono_ns();
	int err0 = s->err;
	write_ticks(s, ts, true);
	if (!err0 && s->err)
		ret = s->err;
	for (size_t i = 0; i < N_SRC; i++) {
		if (!s->w[i])
			continue;
		struct raw_buf *b = &s->ib;
		raw_buf_reset(b);
		raw_buf_u64(b, ts);
		raw_buf_u32(b, reason);
		int r = b->err ? b->err : raw_writer_append(s->w[i], RAW_SESSION_END, b->data, (uint32_t)b->len);
		if (r >= 0)
			s->st.records++;
		if (r >= 0)
			r = raw_writer_flush(s->w[i]);
		if (r < 0 && ret == 0)
			ret = r;
		s->bytes_closed += raw_writer_bytes(s->w[i]);
		s->w[i] = raw_writer_free(s->w[i]);
	}
	return ret;
}

struct host_sampler *host_sampler_free(struct host_sampler *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < N_SRC; i++)
		s->w[i] = raw_writer_free(s->w[i]);
	for (size_t i = 0; i < s->n_procs; i++)
		proc_free(s, s->procs[i]);
	free(s->procs);
	free(s->ranks);
	free(s->env_buf);
	pm_release(&s->pmap);
	pm_release(&s->nondesc);
	pm_release(&s->umap);
	for (size_t i = 0; i < s->n_u; i++) {
		close_kept(s, &s->u[i].stat_fd, true);
		close_kept(s, &s->u[i].statm_fd, true);
	}
	free(s->u);
	if (s->proc_dir)
		closedir(s->proc_dir);
	if (s->adopter_task)
		closedir(s->adopter_task);
	if (s->proc_fd >= 0)
		close(s->proc_fd);
	if (s->netdev_fd >= 0)
		close(s->netdev_fd);
	if (s->pstat_fd >= 0)
		close(s->pstat_fd);
	if (s->meminfo_fd >= 0)
		close(s->meminfo_fd);
	if (s->diskstats_fd >= 0)
		close(s->diskstats_fd);
	raw_buf_release(&s->rb[0]);
	raw_buf_release(&s->rb[1]);
	raw_buf_release(&s->ib);
	free(s->sbuf);
	free(s->tids);
	free(s->thr_tmp);
	free(s);
	return NULL;
}
