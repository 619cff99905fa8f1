/* Parse: every slice of every host source in PROF/host/data -> rows of the
 * database (schema in tables.c, meaning in SCHEMA.md).
 *
 * Sources are read one after the other, each slice in index order, each
 * record as the reader hands it over (whole records only; damage and torn
 * tails are skipped and counted by the reader).  Interval metrics are the
 * difference between two consecutive samples of the same source, stamped,
 * as msprof does, with the start of the interval.  Only the previous sample
 * is kept, so memory follows the number of live threads and processes, not
 * the length of the run.
 *
 * How each number is made, and the msprof code it follows, is in SCHEMA.md
 * ("Semantics"). */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/prof.h"
#include "export/reader.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "collectors/raw.h"
#include "common/util.h"

#define MBPS_TO_BYTES 125000.0 /* msprof Constant.MBPS_TO_BYTES: Mbit/s -> B/s */

enum {
	ST_CPU_USAGE,
	ST_CPU_AVG,
	ST_HOST_MEM,
	ST_HOST_DISK,
	ST_HOST_NET,
	ST_NETIF,
	ST_SYS_CPU,
	ST_SYS_MEM,
	ST_PROC_INFO,
	ST_PROC_EXIT,
	ST_TICKS,
	ST_THREAD_INFO,
	ST_DISK_DEV,
	ST_SYSTEM_MEM,
	ST_PPID,
	_ST_MAX,
};

static const char *const st_sql[_ST_MAX] = {
	[ST_CPU_USAGE] = "INSERT INTO CPU_USAGE VALUES (?, ?, ?)",
	[ST_CPU_AVG] = "INSERT INTO CPU_USAGE_AVG VALUES (?, ?)",
	[ST_HOST_MEM] = "INSERT INTO HOST_MEM_USAGE VALUES (?, ?)",
	[ST_HOST_DISK] = "INSERT INTO HOST_DISK_USAGE VALUES (?, ?, ?, ?)",
	[ST_HOST_NET] = "INSERT INTO HOST_NETWORK_USAGE VALUES (?, ?, ?)",
	[ST_NETIF] = "INSERT INTO NETWORK_INTERFACE_USAGE VALUES (?, ?, ?, ?, ?)",
	[ST_SYS_CPU] = "INSERT INTO SYS_CPU VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[ST_SYS_MEM] = "INSERT INTO SYS_MEM VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* one row per process incarnation (pid, start time); PROC_INFO comes
	 * again after an exec and from several sources */
	[ST_PROC_INFO] = "INSERT INTO PROCESS_INFO (pid, ppid, startTicks, name, isTarget, firstSeenNs) "
			 "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pid, startTicks) DO UPDATE SET "
			 "name = excluded.name, ppid = excluded.ppid, "
			 "isTarget = max(isTarget, excluded.isTarget), "
			 "firstSeenNs = min(firstSeenNs, excluded.firstSeenNs)",
	[ST_PROC_EXIT] = "UPDATE PROCESS_INFO SET exitNs = ? WHERE pid = ? AND exitNs IS NULL",
	[ST_TICKS] = "INSERT INTO SAMPLER_TICKS VALUES (?, ?, ?)",
	[ST_THREAD_INFO] = "INSERT INTO TARGET_THREAD_INFO VALUES (?, ?, ?, ?)",
	[ST_DISK_DEV] = "INSERT INTO HOST_DISK_DEVICE_USAGE VALUES (?, ?, ?, ?, ?)",
	[ST_SYSTEM_MEM] = "INSERT INTO HOST_SYSTEM_MEM VALUES (?, ?, ?, ?)",
	[ST_PPID] = "SELECT ppid FROM PROCESS_INFO WHERE pid = ? ORDER BY firstSeenNs DESC LIMIT 1",
};

/* The tables of a row per process (or thread) per sample, inserted in
 * batches (exp_batch): nothing reads them while the parse runs. */
enum {
	RB_THREAD,
	RB_TARGET_MEM,
	RB_PROC_MEM,
	RB_TARGET_DISK,
	RB_PROC_CPU,
	_RB_MAX,
};

static const struct { const char *table, *types; } rb_tables[_RB_MAX] = {
	[RB_THREAD] = { "TARGET_THREAD_CPU_USAGE", "iiiid" },
	[RB_TARGET_MEM] = { "TARGET_PROCESS_MEM", "iiiii" },
	[RB_PROC_MEM] = { "PROCESS_MEM_USAGE", "iiiii" },
	[RB_TARGET_DISK] = { "TARGET_PROCESS_DISK_USAGE", "iiddd" },
	[RB_PROC_CPU] = { "PROCESS_CPU_USAGE", "iid" },
};

/* Decoded sample entries kept between two samples. */
/* read: when the entry's counters were read, ns after the sample's ts
 * (raw.h read_ns; 0 in older files) */
struct thr { uint32_t pid, tid; uint64_t ticks, runtime_ns; int32_t cpu; uint32_t read; };
struct pio { uint32_t pid; uint32_t read; uint64_t rd, wr, blk; };
/* threads: at most this many CPUs at once (0: not known, older files);
 * carry: ticks counted in an interval beyond what the process could run
 * in it, taken into the next (pcpu_interval) */
struct pcpu { uint32_t pid; uint32_t read; uint64_t ticks; uint32_t threads; double carry; };
struct ndev { char name[16]; uint64_t rx, tx; };
struct dstat { char name[32]; uint64_t rd, wr, busy_ms; };

/* A record type's entries, and what is done with a sample of them once
 * it is complete (complete_series). */
struct parse;
struct series_kind {
	size_t esize;
	int (*cmp)(const void *, const void *); /* sorted by it when complete; NULL: as sampled */
	uint8_t seen;                           /* SEEN_* its pids are marked with; 0: none */
	int (*interval)(struct parse *p);       /* rows of the interval since the previous sample */
};

/* The previous and the current sample of one record type.  The sampler
 * splits a large sample into several records with the same ts, and writes
 * none for an empty one, so a sample is complete only when a record with
 * another ts arrives or the source ends. */
struct series {
	const struct series_kind *kind;
	void *prev, *cur;
	size_t nprev, ncur, capprev, capcur;
	uint64_t prev_ts, cur_ts;
	bool have_prev, have_cur;
};

/* pid -> start time (ticks since boot) of the processes a source has
 * described and not yet seen exit: tells a process born during the session
 * (all its counters belong to the session) from one that was merely not
 * sampled before.  Entries leave on RAW_PROC_EXIT, so the map follows the
 * live processes, not the length of the run. */
struct pidmap {
	uint32_t *pid; /* 0: free slot */
	uint64_t *start;
	uint8_t *seen; /* SEEN_* of the series that already had the pid */
	size_t cap, used;
};

enum { SEEN_THR = 1, SEEN_IO = 2, SEEN_PCPU = 4 };

#define PIDMAP_MAX (1U << 22)

struct parse {
	/* the source being read: its last record (a session ends with
	 * RAW_SESSION_END in its newest slice), and its records whose time is
	 * far outside the session (exp_time_far), left out */
	uint16_t last_type;
	int64_t last_t;
	uint64_t far;

	struct exp *e;
	const struct raw_header *h;
	struct raw_header hdr;  /* of the file being read; kept for pending samples */
	bool have_hdr;
	sqlite3_stmt *st[_ST_MAX];
	struct exp_batch rb[_RB_MAX];
	struct series thr, io, pcpu, net, dsk;
	enum raw_source src;    /* the source being read */
	/* the busiest disk's busy time over the last disk interval, for the
	 * tree's interval that it stands beside (io_interval) */
	bool have_busy;
	uint64_t busy_start, busy_end;
	double busy_pct;
	/* I/O of children that exited, which their parent's /proc/PID/io
	 * takes in when it reaps them (see io_interval) */
	struct reaped { uint32_t ppid; uint64_t ts, rd, wr; } reaped[64];
	size_t n_reaped;
	struct { bool have; uint64_t ts, resident; } mem; /* tree total of a RAW_PROC_MEM sample */
	double *cpu_busy;  /* ns busy per CPU in the current interval */
	uint8_t *cpu_seen;
	size_t ncpu;
	struct pidmap born;
	uint64_t malformed;
	/* the current source's last RAW_SAMPLER_TICKS */
	bool have_ticks;
	uint64_t ticks_taken, ticks_missed;
	char missed_note[256];   /* "host_cpu 12 of 5000, ..." */
};

#define MAX_CPUS 8192 /* per-CPU accumulators; a larger index is damage */

static void series_init(struct series *s, const struct series_kind *kind) { *s = (struct series){ .kind = kind }; }

static void series_release(struct series *s)
{
	free(s->prev);
	free(s->cur);
	series_init(s, s->kind);
}

static int series_reserve(struct series *s, size_t n)
{
	if (n <= s->capcur)
		return 0;
	size_t cap = s->capcur ? s->capcur : 64;
	while (cap < n)
		cap *= 2;
	void *p = realloc(s->cur, cap * s->kind->esize);
	if (!p)
		return -ENOMEM;
	s->cur = p;
	s->capcur = cap;
	return 0;
}

/* The current sample becomes the previous one. */
static void series_shift(struct series *s)
{
	void *p = s->prev;
	size_t c = s->capprev;
	s->prev = s->cur;
	s->capprev = s->capcur;
	s->nprev = s->ncur;
	s->cur = p;
	s->capcur = c;
	s->ncur = 0;
	s->prev_ts = s->cur_ts;
	s->have_prev = true;
	s->have_cur = false;
}

static size_t pm_slot(const struct pidmap *m, uint32_t pid)
{
	size_t i = (pid * 2654435761U) & (m->cap - 1);
	while (m->pid[i] && m->pid[i] != pid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int pm_put(struct pidmap *m, uint32_t pid, uint64_t start)
{
	if (!pid)
		return 0;
	if ((m->used + 1) * 2 > m->cap) {
		if (m->used >= PIDMAP_MAX)
			return 0; /* full: those processes just count from their first sample */
		struct pidmap n = { .cap = m->cap ? m->cap * 2 : 256 };
		n.pid = calloc(n.cap, sizeof *n.pid);
		n.start = calloc(n.cap, sizeof *n.start);
		n.seen = calloc(n.cap, sizeof *n.seen);
		if (!n.pid || !n.start || !n.seen) {
			free(n.pid);
			free(n.start);
			free(n.seen);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->pid[i]) {
				size_t j = pm_slot(&n, m->pid[i]);
				n.pid[j] = m->pid[i];
				n.start[j] = m->start[i];
				n.seen[j] = m->seen[i];
				n.used++;
			}
		free(m->pid);
		free(m->start);
		free(m->seen);
		*m = n;
	}
	size_t i = pm_slot(m, pid);
	if (!m->pid[i]) {
		m->used++;
		m->seen[i] = 0;
	} else if (m->start[i] != start)
		m->seen[i] = 0; /* the pid was reused */
	m->pid[i] = pid;
	m->start[i] = start;
	return 0;
}

static bool pm_get(const struct pidmap *m, uint32_t pid, uint64_t *ret_start, uint8_t *ret_seen)
{
	if (!m->cap || !pid)
		return false;
	size_t i = pm_slot(m, pid);
	if (!m->pid[i])
		return false;
	*ret_start = m->start[i];
	*ret_seen = m->seen[i];
	return true;
}

static void pm_mark(struct pidmap *m, uint32_t pid, uint8_t bit)
{
	if (!m->cap || !pid)
		return;
	size_t i = pm_slot(m, pid);
	if (m->pid[i])
		m->seen[i] |= bit;
}

/* Remove with backward shift, keeping every probe chain unbroken. */
static void pm_del(struct pidmap *m, uint32_t pid)
{
	if (!m->cap || !pid)
		return;
	size_t i = pm_slot(m, pid);
	if (!m->pid[i])
		return;
	m->pid[i] = 0;
	m->used--;
	for (size_t j = (i + 1) & (m->cap - 1); m->pid[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = (m->pid[j] * 2654435761U) & (m->cap - 1);
		/* move j back into the hole unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->pid[i] = m->pid[j];
			m->start[i] = m->start[j];
			m->seen[i] = m->seen[j];
			m->pid[j] = 0;
			i = j;
		}
	}
}

static void pm_release(struct pidmap *m)
{
	free(m->pid);
	free(m->start);
	free(m->seen);
	*m = (struct pidmap){ 0 };
}

/* Sort only when the sampler did not already write in key order. */
static void sort_if_needed(void *base, size_t n, size_t esize, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp((char *)base + (i - 1) * esize, (char *)base + i * esize) > 0) {
			qsort_safe(base, n, esize, cmp);
			return;
		}
}

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_pid(const void *a, const void *b)
{
	/* struct pio and struct pcpu both start with the pid */
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* u32 count of entries of esize bytes that must fit in what is left. */
static bool take_count(struct raw_cur *c, size_t esize, uint32_t *ret)
{
	uint32_t n = raw_cur_u32(c);
	if (c->err || (uint64_t)n * esize > c->left)
		return false;
	*ret = n;
	return true;
}

static double clk_tck(const struct parse *p)
{
	return p->h->clk_tck ? (double)p->h->clk_tck : 100.0;
}

static int step(struct parse *p, int idx) { return exp_step_done(p->e, p->st[idx], st_sql[idx]); }

/* A process that a series has not had in any sample yet and whose start
 * time lies after the session began was born during it: its counters count
 * from zero (short-lived children would otherwise never show their CPU or
 * I/O).  Only its first appearance: one that drops out of a sample and
 * comes back is not counted twice.  The start time is in ticks since boot,
 * which only drifts from the monotonic clock across a suspend. */
static bool born_in_session(const struct parse *p, uint32_t pid, uint8_t series)
{
	uint64_t start;
	uint8_t seen;
	if (!pm_get(&p->born, pid, &start, &seen) || (seen & series))
		return false;
	return (double)start * 1e9 / clk_tck(p) >= (double)p->h->mono0_ns;
}

/* The share of a process's counters that falls in the interval of s: a
 * process born during the session and first seen now (born_in_session)
 * counted from its start, which may lie before the previous sample (the
 * tree's rescan finds a new process some ticks after it starts), so its
 * counters cover more than the interval.  They are taken as spread evenly
 * over its life: dividing all of them by the interval made a new process's
 * rates overshoot (a 2-CPU machine's worker at 300%, a writer's MiB/s
 * above what it wrote). */
static double born_share(const struct parse *p, const struct series *s, uint32_t pid)
{
	uint64_t start;
	uint8_t seen;
	if (!pm_get(&p->born, pid, &start, &seen))
		return 1;
	double born = (double)start * 1e9 / clk_tck(p), cur = (double)s->cur_ts, prev = (double)s->prev_ts;
	if (born >= prev || cur <= born)
		return 1;
	return (cur - prev) / (cur - born);
}

/* The ns an entry's counters span since the previous sample's entry of
 * the same thing: from its read to this one's (the sampler stamps each),
 * not the samples' interval, which a read delayed in one sample and not in
 * the other would make wrong (a thread above 100 %, a process writing
 * faster than it wrote).  The samples' interval where the reads say
 * nothing better (older files, a first entry). */
static double entry_ns(const struct series *s, uint32_t prev_read, uint32_t cur_read)
{
	double dt = (double)(s->cur_ts + cur_read) - (double)(s->prev_ts + prev_read);
	return dt > 0 ? dt : (double)(s->cur_ts - s->prev_ts);
}

/* After a sample is taken in: its pids are no longer new to the series. */
static void mark_seen(struct parse *p, const void *entries, size_t n, size_t esize, uint8_t series)
{
	if (!p->born.used)
		return;
	uint32_t last = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t pid = *(const uint32_t *)((const char *)entries + i * esize);
		if (pid != last)
			pm_mark(&p->born, pid, series);
		last = pid;
	}
}

/* Entries in one sample: the samplers write at most HOST_MAX_THREADS
 * threads or one entry per pid (pid_max <= 4194304); more is damage, and
 * must not make us allocate without end. */
#define SERIES_MAX (1U << 22)

/* The current sample of s is complete: put in key order, the interval
 * from the previous sample written, its pids no longer new, and it
 * becomes the previous sample. */
static int complete_series(struct parse *p, struct series *s)
{
	const struct series_kind *k = s->kind;
	int r = 0;
	if (k->cmp)
		sort_if_needed(s->cur, s->ncur, k->esize, k->cmp);
	if (s->have_prev && s->cur_ts > s->prev_ts)
		r = k->interval(p);
	if (k->seen)
		mark_seen(p, s->cur, s->ncur, k->esize, k->seen);
	series_shift(s);
	return r;
}

/* A record's part of the current sample of s at ts: its u32 count of
 * entries (rec_size bytes each in the record) read from c, and room made
 * for them at *ret; a new ts first completes the sample before.  1: the
 * record is malformed (a count beyond it, or too many entries). */
static int series_part(struct parse *p, struct series *s, struct raw_cur *c, uint64_t ts, size_t rec_size,
		       uint32_t *ret_n, void **ret)
{
	uint32_t n;
	if (!take_count(c, rec_size, &n))
		return 1;
	if (s->have_cur && ts != s->cur_ts) {
		int r = complete_series(p, s);
		if (r < 0)
			return r;
	}
	if (!s->have_cur) {
		s->ncur = 0;
		s->cur_ts = ts;
		s->have_cur = true;
	}
	if (s->ncur + n > SERIES_MAX)
		return 1;
	int r = series_reserve(s, s->ncur + n);
	if (r < 0)
		return r;
	*ret_n = n;
	/* a sample of no entries (a machine without disks) before any
	 * other: nothing allocated, nothing to write */
	*ret = s->cur ? (char *)s->cur + s->ncur * s->kind->esize : NULL;
	return 0;
}

/* The entries series_part made room for, decoded from c, join the
 * sample (1: the record was short). */
static int series_took(struct series *s, const struct raw_cur *c, uint32_t n)
{
	if (c->err)
		return 1;
	s->ncur += n;
	return 0;
}

/* --- CPU of the profiled tree (RAW_THREAD_CPU) -------------------------------
 * Per thread: busy time over the interval from schedstat's runtime when both
 * samples have it (ns resolution), else from utime+stime ticks; capped at the
 * interval (msprof: min(process_jiffies, delta_jiffies)).  Per CPU: the sum
 * of the busy time of the threads last seen on it; a CPU over 100% is
 * dropped as msprof does ("error caused by cpu switching").  Avg: all busy
 * time over interval x online CPUs. */
static int ensure_cpu(struct parse *p, size_t cpu)
{
	if (cpu < p->ncpu)
		return 0;
	size_t nn = cpu + 1;
	double *bz = realloc(p->cpu_busy, nn * sizeof *bz);
	if (!bz)
		return -ENOMEM;
	p->cpu_busy = bz;
	uint8_t *sn = realloc(p->cpu_seen, nn);
	if (!sn)
		return -ENOMEM;
	p->cpu_seen = sn;
	memset(sn + p->ncpu, 0, nn - p->ncpu);
	p->ncpu = nn;
	return 0;
}

static int cpu_interval(struct parse *p)
{
	struct series *s = &p->thr;
	double dt = (double)(s->cur_ts - s->prev_ts);
	int64_t start = raw_unix_ns(p->h, s->prev_ts);
	const struct thr *a = s->prev, *b = s->cur;
	double total = 0;
	int r;

	if (p->ncpu)
		memset(p->cpu_seen, 0, p->ncpu);
	for (size_t i = 0, j = 0; j < s->ncur; j++) {
		const struct thr *n = &b[j], *o;
		if (!exp_own_process(p->e, n->pid))
			continue; /* another rank's (its own PROF dir has it) */
		while (i < s->nprev && cmp_thr(&a[i], n) < 0)
			i++;
		double busy, span = dt;
		if (i < s->nprev && cmp_thr(&a[i], n) == 0) {
			o = &a[i++];
			span = entry_ns(s, o->read, n->read);
			if (o->runtime_ns && n->runtime_ns && n->runtime_ns >= o->runtime_ns)
				busy = (double)(n->runtime_ns - o->runtime_ns);
			else if (n->ticks >= o->ticks)
				busy = (double)(n->ticks - o->ticks) * 1e9 / clk_tck(p);
			else
				continue; /* tid reused */
		} else if (born_in_session(p, n->pid, SEEN_THR))
			busy = (n->runtime_ns ? (double)n->runtime_ns : (double)n->ticks * 1e9 / clk_tck(p)) *
			       born_share(p, s, n->pid);
		else
			continue; /* first seen now: nothing to compare with */
		/* its share of the time its counters span, as busy time of
		 * the samples' interval: at most all of it */
		busy = fmin(busy / span, 1.0) * dt;
		total += busy;

		const union exp_value v[] = { { .i = start }, { .i = n->pid }, { .i = n->tid }, { .i = n->cpu },
					      { .d = exp_round(busy * 100.0 / dt, 6) } };
		if ((r = exp_batch_put(&p->rb[RB_THREAD], v)) < 0)
			return r;

		if (n->cpu < 0 || n->cpu >= MAX_CPUS)
			continue;
		size_t cpu = (size_t)n->cpu;
		if ((r = ensure_cpu(p, cpu)) < 0)
			return r;
		if (!p->cpu_seen[cpu]) {
			p->cpu_seen[cpu] = 1;
			p->cpu_busy[cpu] = 0;
		}
		p->cpu_busy[cpu] += busy;
	}

	for (size_t cpu = 0; cpu < p->ncpu; cpu++) {
		if (!p->cpu_seen[cpu])
			continue;
		double u = exp_round(p->cpu_busy[cpu] * 100.0 / dt, 6);
		if (u > 100)
			continue;
		sqlite3_stmt *st = p->st[ST_CPU_USAGE];
		sqlite3_bind_int64(st, 1, start);
		sqlite3_bind_int64(st, 2, (int64_t)cpu);
		sqlite3_bind_double(st, 3, u);
		if ((r = step(p, ST_CPU_USAGE)) < 0)
			return r;
	}
	/* at most every CPU busy: threads read a little apart can add up
	 * past it by that misalignment (aggregate.c bounds a process so) */
	sqlite3_stmt *st = p->st[ST_CPU_AVG];
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_double(st, 2, exp_round(fmin(total * 100.0 / (dt * p->e->cpu_nums), 100.0), 6));
	return step(p, ST_CPU_AVG);
}

static int on_thread_cpu(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t n;
	void *at;
	int r = series_part(p, &p->thr, c, ts, 40, &n, &at);
	if (r != 0)
		return r;
	struct thr *t = at;
	for (uint32_t i = 0; i < n; i++) {
		t[i].pid = raw_cur_u32(c);
		t[i].tid = raw_cur_u32(c);
		uint64_t ut = raw_cur_u64(c), stt = raw_cur_u64(c);
		t[i].ticks = ut + stt;
		t[i].runtime_ns = raw_cur_u64(c);
		t[i].cpu = (int32_t)raw_cur_u32(c);
		t[i].read = raw_cur_u32(c);
	}
	return series_took(&p->thr, c, n);
}

/* --- memory (RAW_PROC_MEM tree, RAW_PROC_MEM_ALL all processes) -------------
 * HOST_MEM_USAGE: resident pages of the tree at the sample, in percent of
 * memoryTotal (msprof: resident * 4 KiB / mem_total * 100; we use the
 * writer's page size instead of assuming 4 KiB).  Stamped with the sample's
 * own time; msprof shifts each value to the sample before. */
static int complete_mem(struct parse *p)
{
	if (!p->mem.have)
		return 0;
	p->mem.have = false;
	if (!p->e->mem_total_kb)
		return 0;
	double page_kb = (double)(p->h->page_size ? p->h->page_size : 4096) / 1024.0;
	sqlite3_stmt *st = p->st[ST_HOST_MEM];
	sqlite3_bind_int64(st, 1, raw_unix_ns(p->h, p->mem.ts));
	sqlite3_bind_double(st, 2,
			    exp_round((double)p->mem.resident * page_kb * 100.0 / (double)p->e->mem_total_kb, 6));
	return step(p, ST_HOST_MEM);
}

static int on_proc_mem(struct parse *p, struct raw_cur *c, uint64_t ts, bool all)
{
	uint32_t n;
	int r;
	if (!take_count(c, 32, &n))
		return 1;
	if (!all && p->mem.have && p->mem.ts != ts && (r = complete_mem(p)) < 0)
		return r;
	int64_t t = raw_unix_ns(p->h, ts);
	uint64_t resident = 0;
	struct exp_batch *b = &p->rb[all ? RB_PROC_MEM : RB_TARGET_MEM];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pid = raw_cur_u32(c);
		(void)raw_cur_u32(c);
		uint64_t size = raw_cur_u64(c), res = raw_cur_u64(c), shared = raw_cur_u64(c);
		if (c->err)
			return 1;
		if (!all && !exp_own_process(p->e, pid))
			continue;
		const union exp_value v[] = { { .i = t }, { .i = pid }, { .i = (int64_t)size }, { .i = (int64_t)res },
					      { .i = (int64_t)shared } };
		if ((r = exp_batch_put(b, v)) < 0)
			return r;
		resident += res;
	}
	if (!all) {
		if (!p->mem.have) {
			p->mem.have = true;
			p->mem.ts = ts;
			p->mem.resident = 0;
		}
		p->mem.resident += resident;
	}
	return 0;
}

/* A parent's /proc/PID/io counts the I/O of the children it reaped (the
 * kernel adds a dead child's counters to its parent's at wait()), so a
 * child's bytes would count twice in the tree: once as the child's, once
 * as the parent's jump after the exit.  What a child had done at its last
 * sample is owed by its parent and taken off the parent's next increases
 * (within a second: a parent that reaps later, or never, keeps its own). */
static void reaped_take(struct parse *p, uint32_t pid, uint64_t ts, uint64_t *rd, uint64_t *wr)
{
	for (size_t i = 0; i < p->n_reaped;) {
		struct reaped *c = &p->reaped[i];
		if (c->ppid == pid) {
			uint64_t a = c->rd < *rd ? c->rd : *rd, b = c->wr < *wr ? c->wr : *wr;
			*rd -= a;
			*wr -= b;
			c->rd -= a;
			c->wr -= b;
		}
		if ((c->rd == 0 && c->wr == 0) || ts - c->ts > NSEC_PER_SEC)
			*c = p->reaped[--p->n_reaped];
		else
			i++;
	}
}

static int ppid_row(sqlite3_stmt *st, void *ctx)
{
	*(uint32_t *)ctx = (uint32_t)sqlite3_column_int64(st, 0);
	return 1;
}

/* pid exits at ts: its I/O at its last sample is owed by its parent. */
static int reaped_note(struct parse *p, uint32_t pid, uint64_t ts)
{
	const struct series *s = &p->io;
	const struct pio key = { .pid = pid }, *o = NULL;
	if (s->have_prev)
		o = bsearch_safe(&key, s->prev, s->nprev, sizeof key, cmp_pid);
	if (!o || (o->rd == 0 && o->wr == 0) || p->n_reaped >= ARRAY_SIZE(p->reaped))
		return 0;
	uint32_t ppid = 0;
	sqlite3_bind_int64(p->st[ST_PPID], 1, pid);
	int r = exp_stmt_each(p->e, p->st[ST_PPID], st_sql[ST_PPID], ppid_row, &ppid);
	if (r < 0)
		return r;
	if (ppid)
		p->reaped[p->n_reaped++] = (struct reaped){ ppid, ts, o->rd, o->wr };
	return 0;
}

/* --- disk (RAW_PROC_IO) --------------------------------------------------------
 * Rates from read_bytes/write_bytes (what reached the storage layer, as
 * iotop's DISK READ/WRITE that msprof parses), in B/s as msprof's
 * HOST_DISK_USAGE holds them; usage: time the tree's processes spent blocked
 * on I/O (delayacct blkio ticks) in percent of the interval, summed over
 * the tree and capped at 100 (iotop's IO> column, per process in msprof). */
static int io_interval(struct parse *p)
{
	struct series *s = &p->io;
	double dt_s = (double)(s->cur_ts - s->prev_ts) / 1e9;
	int64_t start = raw_unix_ns(p->h, s->prev_ts);
	const struct pio *a = s->prev, *b = s->cur;
	double rd = 0, wr = 0, blk = 0;
	int r;

	for (size_t i = 0, j = 0; j < s->ncur; j++) {
		const struct pio *n = &b[j], *o;
		const struct pio zero = { .pid = n->pid };
		if (!exp_own_process(p->e, n->pid))
			continue;
		while (i < s->nprev && a[i].pid < n->pid)
			i++;
		if (i < s->nprev && a[i].pid == n->pid)
			o = &a[i++];
		else if (born_in_session(p, n->pid, SEEN_IO))
			o = &zero;
		else
			continue;
		if (n->rd < o->rd || n->wr < o->wr || n->blk < o->blk)
			continue; /* pid reused */
		double span_s = o == &zero ? dt_s : entry_ns(s, o->read, n->read) / 1e9;
		uint64_t drd = n->rd - o->rd, dwr = n->wr - o->wr;
		double blk_ticks = (double)(n->blk - o->blk);
		double share = o == &zero ? born_share(p, s, n->pid) : 1;
		if (share < 1) {
			drd = (uint64_t)((double)drd * share);
			dwr = (uint64_t)((double)dwr * share);
			blk_ticks *= share;
		}
		reaped_take(p, n->pid, s->cur_ts, &drd, &dwr);
		double prd = (double)drd / span_s, pwr = (double)dwr / span_s;
		/* blocked time as a share of the span, in seconds of the interval */
		double pblk = fmin(blk_ticks / clk_tck(p) / span_s, 1.0) * dt_s;
		rd += prd;
		wr += pwr;
		blk += pblk;
		const union exp_value v[] = { { .i = start }, { .i = n->pid }, { .d = exp_round(prd, 3) },
					      { .d = exp_round(pwr, 3) },
					      { .d = exp_round(fmin(pblk / dt_s * 100.0, 100.0), 6) } };
		if ((r = exp_batch_put(&p->rb[RB_TARGET_DISK], v)) < 0)
			return r;
	}
	double usage = fmin(blk / dt_s * 100.0, 100.0);
	/* the disks' last interval, if this one lies in it or in the next
	 * as long (msprofd reads the machine's disks at about 50 Hz, the
	 * tree's I/O at --host-sys-freq: their intervals are then paired with
	 * the disks' last, at most one disk interval late) */
	if (p->have_busy && (double)s->prev_ts + dt_s * 1e9 / 2 >= (double)p->busy_start &&
	    s->prev_ts < p->busy_end + (p->busy_end - p->busy_start))
		usage = fmax(usage, p->busy_pct);
	sqlite3_stmt *st = p->st[ST_HOST_DISK];
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_double(st, 2, exp_round(rd, 3));
	sqlite3_bind_double(st, 3, exp_round(wr, 3));
	sqlite3_bind_double(st, 4, exp_round(usage, 6));
	return step(p, ST_HOST_DISK);
}

static int on_proc_io(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t n;
	void *at;
	int r = series_part(p, &p->io, c, ts, 56, &n, &at);
	if (r != 0)
		return r;
	struct pio *v = at;
	for (uint32_t i = 0; i < n; i++) {
		v[i].pid = raw_cur_u32(c);
		v[i].read = raw_cur_u32(c);
		(void)raw_cur_u64(c); /* rchar */
		(void)raw_cur_u64(c); /* wchar */
		v[i].rd = raw_cur_u64(c);
		v[i].wr = raw_cur_u64(c);
		(void)raw_cur_u64(c); /* cancelled_write_bytes */
		v[i].blk = raw_cur_u64(c);
	}
	return series_took(&p->io, c, n);
}

/* --- the machine's disks (RAW_DISK_STATS) ------------------------------------
 * Per whole disk: read and write B/s (sectors are 512 B whatever the
 * device's block size) and busy time in percent of the interval (io_ticks,
 * iostat's %util).  The busiest disk's busy time is the host's disk usage
 * beside the tree's blocked time: that one needs delay accounting
 * (kernel.task_delayacct, off by default since Linux 5.14) and stays 0
 * without it. */
static int disk_interval(struct parse *p)
{
	struct series *s = &p->dsk;
	double dt_s = (double)(s->cur_ts - s->prev_ts) / 1e9;
	int64_t start = raw_unix_ns(p->h, s->prev_ts);
	const struct dstat *a = s->prev, *b = s->cur;
	double busiest = 0;
	int r;
	for (size_t j = 0; j < s->ncur; j++) {
		const struct dstat *n = &b[j], *o = NULL;
		for (size_t i = 0; i < s->nprev && !o; i++)
			if (streq(a[i].name, n->name))
				o = &a[i];
		if (!o || n->rd < o->rd || n->wr < o->wr || n->busy_ms < o->busy_ms)
			continue; /* new device, or counters reset */
		double busy = fmin((double)(n->busy_ms - o->busy_ms) / 1e3 / dt_s * 100.0, 100.0);
		busiest = fmax(busiest, busy);
		int64_t name_id;
		if ((r = exp_intern_id(p->e, n->name, &name_id)) < 0)
			return r;
		sqlite3_stmt *st = p->st[ST_DISK_DEV];
		sqlite3_bind_int64(st, 1, start);
		sqlite3_bind_int64(st, 2, name_id);
		sqlite3_bind_double(st, 3, exp_round((double)(n->rd - o->rd) * 512.0 / dt_s, 3));
		sqlite3_bind_double(st, 4, exp_round((double)(n->wr - o->wr) * 512.0 / dt_s, 3));
		sqlite3_bind_double(st, 5, exp_round(busy, 6));
		if ((r = step(p, ST_DISK_DEV)) < 0)
			return r;
	}
	p->have_busy = true;
	p->busy_start = s->prev_ts;
	p->busy_end = s->cur_ts;
	p->busy_pct = busiest;
	return 0;
}

static int on_disk_stats(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t n;
	void *at;
	int r = series_part(p, &p->dsk, c, ts, 64, &n, &at);
	if (r != 0)
		return r;
	struct dstat *v = at;
	for (uint32_t i = 0; i < n; i++) {
		raw_cur_str(c, v[i].name, sizeof v[i].name);
		v[i].rd = raw_cur_u64(c);
		v[i].wr = raw_cur_u64(c);
		v[i].busy_ms = raw_cur_u64(c);
		(void)raw_cur_u64(c);
	}
	return series_took(&p->dsk, c, n);
}

/* --- network (RAW_NET_DEV) -----------------------------------------------------
 * speed: rx+tx bytes of every interface per second (B/s, as msprof's
 * HOST_NETWORK_USAGE).  usage: bytes of the interfaces whose rated speed
 * info.json knows, over the sum of those speeds.  Interfaces of unknown
 * speed (lo, most virtual devices) count in speed but not in usage; msprof
 * drops them altogether.  Every byte sent over the loopback is received on
 * it too: lo's traffic is its tx alone, or a 150 MB/s send would read as
 * 300 MB/s (the kernel names the loopback "lo" in every namespace). */
static const struct exp_netcard *netcard(const struct exp *e, const char *name)
{
	for (unsigned i = 0; i < e->n_netcards; i++)
		if (streq(e->netcards[i].name, name))
			return &e->netcards[i];
	return NULL;
}

static int net_interval(struct parse *p)
{
	struct series *s = &p->net;
	double dt_s = (double)(s->cur_ts - s->prev_ts) / 1e9;
	int64_t start = raw_unix_ns(p->h, s->prev_ts);
	const struct ndev *a = s->prev, *b = s->cur;
	double all = 0, known = 0, capacity = 0;
	bool any = false;
	int r;

	for (size_t j = 0; j < s->ncur; j++) {
		const struct ndev *n = &b[j], *o = NULL;
		for (size_t i = 0; i < s->nprev && !o; i++)
			if (streq(a[i].name, n->name))
				o = &a[i];
		if (!o || n->rx < o->rx || n->tx < o->tx)
			continue; /* new interface or counters reset */
		double rx = (double)(n->rx - o->rx) / dt_s, tx = (double)(n->tx - o->tx) / dt_s;
		const struct exp_netcard *nc = netcard(p->e, n->name);
		bool rated = nc && nc->speed_mbps > 0;
		any = true;
		all += streq(n->name, "lo") ? tx : rx + tx;
		if (rated) {
			known += rx + tx;
			capacity += (double)nc->speed_mbps * MBPS_TO_BYTES;
		}
		int64_t name_id;
		if ((r = exp_intern_id(p->e, n->name, &name_id)) < 0)
			return r;
		sqlite3_stmt *st = p->st[ST_NETIF];
		sqlite3_bind_int64(st, 1, start);
		sqlite3_bind_int64(st, 2, name_id);
		sqlite3_bind_double(st, 3, exp_round(rx, 3));
		sqlite3_bind_double(st, 4, exp_round(tx, 3));
		if (rated)
			sqlite3_bind_int64(st, 5, (int64_t)((double)nc->speed_mbps * MBPS_TO_BYTES));
		else
			sqlite3_bind_null(st, 5);
		if ((r = step(p, ST_NETIF)) < 0)
			return r;
	}
	if (!any)
		return 0;
	sqlite3_stmt *st = p->st[ST_HOST_NET];
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_double(st, 2, capacity > 0 ? exp_round(known * 100.0 / capacity, 6) : 0.0);
	sqlite3_bind_double(st, 3, exp_round(all, 3));
	return step(p, ST_HOST_NET);
}

static int on_net_dev(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t n;
	void *at;
	int r = series_part(p, &p->net, c, ts, 80, &n, &at);
	if (r != 0)
		return r;
	struct ndev *v = at;
	for (uint32_t i = 0; i < n; i++) {
		raw_cur_str(c, v[i].name, sizeof v[i].name);
		v[i].rx = raw_cur_u64(c);
		for (int k = 0; k < 3; k++)
			(void)raw_cur_u64(c); /* rx packets, errs, drop */
		v[i].tx = raw_cur_u64(c);
		for (int k = 0; k < 3; k++)
			(void)raw_cur_u64(c);
	}
	return series_took(&p->net, c, n);
}

/* --- all processes' CPU (RAW_PROC_CPU[_THREADS], --host-sys-usage=cpu) ----------
 * Per process and interval: utime+stime ticks over the ticks all online
 * CPUs had (msprof: process jiffies / the "cpu" line's jiffies), so 100
 * means every CPU busy.  The kernel counts CPU time a whole tick at a
 * time: read 50 times a second, a process that runs a thread of 100 Hz
 * ticks gets 1, 2 or 3 of them per interval, and 3 would read as more
 * than its one thread can run.  The ticks beyond what its threads (at
 * most the CPUs) could run in the time its counters span are carried into
 * its next interval: each figure within reach, their sum the ticks. */
static int pcpu_interval(struct parse *p)
{
	struct series *s = &p->pcpu;
	double avail = (double)(s->cur_ts - s->prev_ts) / 1e9 * clk_tck(p) * p->e->cpu_nums;
	int64_t start = raw_unix_ns(p->h, s->prev_ts);
	const struct pcpu *a = s->prev;
	struct pcpu *b = s->cur;
	for (size_t i = 0, j = 0; j < s->ncur; j++) {
		struct pcpu *n = &b[j];
		const struct pcpu *o;
		const struct pcpu zero = { .pid = n->pid };
		while (i < s->nprev && a[i].pid < n->pid)
			i++;
		if (i < s->nprev && a[i].pid == n->pid)
			o = &a[i++];
		else if (born_in_session(p, n->pid, SEEN_PCPU))
			o = &zero;
		else
			continue;
		if (n->ticks < o->ticks)
			continue;
		double ticks = (double)(n->ticks - o->ticks) * (o == &zero ? born_share(p, s, n->pid) : 1) + o->carry;
		double span = o == &zero ? avail / p->e->cpu_nums : entry_ns(s, o->read, n->read) / 1e9 * clk_tck(p);
		uint32_t threads = n->threads > o->threads ? n->threads : o->threads;
		double most = span * (threads && threads < p->e->cpu_nums ? threads : p->e->cpu_nums);
		n->carry = ticks > most ? ticks - most : 0;
		ticks -= n->carry;
		const union exp_value v[] = { { .i = start }, { .i = n->pid },
					      { .d = exp_round(fmin(ticks * 100.0 / (span * p->e->cpu_nums), 100.0), 6) } };
		int r = exp_batch_put(&p->rb[RB_PROC_CPU], v);
		if (r < 0)
			return r;
	}
	return 0;
}

/* RAW_PROC_CPU (threads: 0, not known) or RAW_PROC_CPU_THREADS */
static int on_proc_cpu(struct parse *p, struct raw_cur *c, uint64_t ts, bool threads)
{
	uint32_t n;
	void *at;
	int r = series_part(p, &p->pcpu, c, ts, threads ? 32 : 24, &n, &at);
	if (r != 0)
		return r;
	struct pcpu *v = at;
	for (uint32_t i = 0; i < n; i++) {
		v[i] = (struct pcpu){ .pid = raw_cur_u32(c) };
		v[i].read = raw_cur_u32(c);
		uint64_t ut = raw_cur_u64(c), stt = raw_cur_u64(c);
		v[i].ticks = ut + stt;
		if (threads) {
			v[i].threads = raw_cur_u32(c);
			(void)raw_cur_u32(c);
		}
	}
	return series_took(&p->pcpu, c, n);
}

/* Complete the pending samples older than ts: a record with a later time
 * means no more parts of them can follow. */
static int complete_before(struct parse *p, uint64_t ts)
{
	/* the disks before the tree's io: io_interval takes their busy time */
	struct series *const series[] = { &p->thr, &p->dsk, &p->io, &p->net, &p->pcpu };
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(series) && r == 0; i++)
		if (series[i]->have_cur && series[i]->cur_ts < ts)
			r = complete_series(p, series[i]);
	if (r == 0 && p->mem.have && p->mem.ts < ts)
		r = complete_mem(p);
	return r;
}

/* Complete every pending sample (end of a source, or a gap in its slices). */
static int complete_all(struct parse *p) { return complete_before(p, UINT64_MAX); }

static void forget_all(struct parse *p)
{
	series_release(&p->thr);
	series_release(&p->io);
	series_release(&p->pcpu);
	series_release(&p->net);
	series_release(&p->dsk);
	p->have_busy = false;
	p->n_reaped = 0;
	p->mem.have = false;
	pm_release(&p->born);
}

/* --- system CPU and memory: stored as sampled ------------------------------- */

static int on_sys_cpu(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t n;
	if (!take_count(c, 72, &n))
		return 1;
	int64_t t = raw_unix_ns(p->h, ts);
	for (uint32_t i = 0; i < n; i++) {
		int32_t cpu = (int32_t)raw_cur_u32(c);
		(void)raw_cur_u32(c);
		uint64_t v[8];
		for (int k = 0; k < 8; k++)
			v[k] = raw_cur_u64(c);
		if (c->err)
			return 1;
		sqlite3_stmt *st = p->st[ST_SYS_CPU];
		sqlite3_bind_int64(st, 1, t);
		sqlite3_bind_int64(st, 2, cpu);
		for (int k = 0; k < 8; k++)
			sqlite3_bind_int64(st, 3 + k, (int64_t)v[k]);
		int r = step(p, ST_SYS_CPU);
		if (r < 0)
			return r;
	}
	return 0;
}

/* In host_mem (--host-sys=mem): the machine's total, available and used
 * (total - available, what the kernel could not hand out without
 * reclaiming) memory; in host_usage_mem: SYS_MEM as msprof has it. */
static int on_sys_mem(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint64_t v[9];
	for (int k = 0; k < 9; k++)
		v[k] = raw_cur_u64(c);
	if (c->err)
		return 1;
	if (p->src == RAW_SOURCE_HOST_MEM) {
		uint64_t avail = c->left >= 8 ? raw_cur_u64(c) : 0;
		if (!avail) /* an older kernel: free + buffers + cache */
			avail = v[1] + v[2] + v[3];
		sqlite3_stmt *st = p->st[ST_SYSTEM_MEM];
		sqlite3_bind_int64(st, 1, raw_unix_ns(p->h, ts));
		sqlite3_bind_int64(st, 2, (int64_t)v[0]);
		sqlite3_bind_int64(st, 3, (int64_t)avail);
		sqlite3_bind_int64(st, 4, (int64_t)(v[0] > avail ? v[0] - avail : 0));
		return step(p, ST_SYSTEM_MEM);
	}
	sqlite3_stmt *st = p->st[ST_SYS_MEM];
	sqlite3_bind_int64(st, 1, raw_unix_ns(p->h, ts));
	for (int k = 0; k < 9; k++)
		sqlite3_bind_int64(st, 2 + k, (int64_t)v[k]);
	return step(p, ST_SYS_MEM);
}

/* --- processes ---------------------------------------------------------------- */

static int on_proc_info(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t pid = raw_cur_u32(c), ppid = raw_cur_u32(c);
	uint64_t start = raw_cur_u64(c);
	char comm[16]; /* the 16-byte field; the reader keeps 15 chars + NUL */
	raw_cur_str(c, comm, sizeof comm);
	uint32_t target = raw_cur_u32(c);
	if (c->err)
		return 1;
	int64_t name;
	int r = exp_intern_id(p->e, comm, &name);
	if (r < 0 || (r = pm_put(&p->born, pid, start)) < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_PROC_INFO];
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, ppid);
	sqlite3_bind_int64(st, 3, (int64_t)start);
	sqlite3_bind_int64(st, 4, name);
	/* a rank's dir shares the host samples: its own processes are its targets */
	sqlite3_bind_int(st, 5, target && exp_own_process(p->e, pid) ? 1 : 0);
	sqlite3_bind_int64(st, 6, raw_unix_ns(p->h, ts));
	return step(p, ST_PROC_INFO);
}

/* A thread's name as the sampler saw it: a row each time (first seen, a
 * rename, each new slice); the newest is the thread's. */
static int on_thread_info(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t pid = raw_cur_u32(c), tid = raw_cur_u32(c);
	char comm[16];
	raw_cur_str(c, comm, sizeof comm);
	if (c->err)
		return 1;
	if (!exp_own_process(p->e, pid))
		return 0;
	int64_t name;
	int r = exp_intern_id(p->e, comm, &name);
	if (r < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_THREAD_INFO];
	sqlite3_bind_int64(st, 1, raw_unix_ns(p->h, ts));
	sqlite3_bind_int64(st, 2, pid);
	sqlite3_bind_int64(st, 3, tid);
	sqlite3_bind_int64(st, 4, name);
	return step(p, ST_THREAD_INFO);
}

static int on_proc_exit(struct parse *p, struct raw_cur *c, uint64_t ts)
{
	uint32_t pid = raw_cur_u32(c);
	if (c->err)
		return 1;
	/* samples from before the exit may still be pending; they need the
	 * start time about to be forgotten */
	int r = complete_before(p, ts);
	if (r == 0 && p->src == RAW_SOURCE_HOST_DISK)
		r = reaped_note(p, pid, ts);
	if (r < 0)
		return r;
	pm_del(&p->born, pid);
	sqlite3_stmt *st = p->st[ST_PROC_EXIT];
	sqlite3_bind_int64(st, 1, raw_unix_ns(p->h, ts));
	sqlite3_bind_int64(st, 2, pid);
	return step(p, ST_PROC_EXIT);
}

/* Cumulative: the last one of a source is its count. */
static int on_ticks(struct parse *p, struct raw_cur *c)
{
	uint64_t taken = raw_cur_u64(c), missed = raw_cur_u64(c);
	if (c->err)
		return 1;
	p->have_ticks = true;
	p->ticks_taken = taken;
	p->ticks_missed = missed;
	return 0;
}

/* The source's SAMPLER_TICKS row, and its part of the report's note. */
static int source_ticks(struct parse *p, enum raw_source src)
{
	if (!p->have_ticks)
		return 0;
	p->have_ticks = false;
	char name[RAW_STEM_MAX];
	snprintf(name, sizeof name, "%s", raw_source_stem(src));
	char *dot = strchr(name, '.');
	if (dot)
		*dot = 0;
	if (p->ticks_missed) {
		size_t n = strlen(p->missed_note);
		snprintf(p->missed_note + n, sizeof p->missed_note - n, "%s%s %" PRIu64 " of %" PRIu64,
			 n ? ", " : "", name, p->ticks_missed, p->ticks_taken + p->ticks_missed);
	}
	sqlite3_stmt *st = p->st[ST_TICKS];
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (int64_t)p->ticks_taken);
	sqlite3_bind_int64(st, 3, (int64_t)p->ticks_missed);
	return step(p, ST_TICKS);
}

/* Returns <0 fatal, 0 taken, 1 malformed payload. */
static int on_record(struct parse *p, const struct raw_record *rec)
{
	struct raw_cur c = { .p = rec->payload, .left = rec->len };
	uint64_t ts = raw_cur_u64(&c);
	if (c.err)
		return 1;
	int64_t t = raw_unix_ns(p->h, ts);
	if (exp_time_far(p->e, t)) {
		p->far++;
		return 0;
	}
	exp_note_time(p->e, t);
	p->last_type = rec->type;
	p->last_t = t;

	switch (rec->type) {
	case RAW_PROC_INFO: return on_proc_info(p, &c, ts);
	case RAW_PROC_EXIT: return on_proc_exit(p, &c, ts);
	case RAW_THREAD_CPU: return on_thread_cpu(p, &c, ts);
	case RAW_PROC_MEM: return on_proc_mem(p, &c, ts, false);
	case RAW_PROC_IO: return on_proc_io(p, &c, ts);
	case RAW_NET_DEV: return on_net_dev(p, &c, ts);
	case RAW_SYS_CPU: return on_sys_cpu(p, &c, ts);
	case RAW_SYS_MEM: return on_sys_mem(p, &c, ts);
	case RAW_PROC_CPU: return on_proc_cpu(p, &c, ts, false);
	case RAW_PROC_CPU_THREADS: return on_proc_cpu(p, &c, ts, true);
	case RAW_PROC_MEM_ALL: return on_proc_mem(p, &c, ts, true);
	case RAW_SAMPLER_TICKS: return on_ticks(p, &c);
	case RAW_THREAD_INFO: return on_thread_info(p, &c, ts);
	case RAW_DISK_STATS: return on_disk_stats(p, &c, ts);
	default: return 0; /* RAW_SESSION_END, or a newer writer's record */
	}
}

static int on_record_cb(void *ctx, const struct raw_record *rec)
{
	return on_record(ctx, rec);
}

static int parse_file(struct parse *p, const char *path)
{
	struct raw_reader *rd = NULL;
	int r = exp_reader_open(p->e, path, &rd);
	if (r <= 0)
		return r;
	const struct raw_header *h = raw_reader_header(rd);
	/* a missing slice (aged out, lost) breaks the chain of samples: pair
	 * nothing across it */
	if (p->have_hdr && h->slice != p->hdr.slice + 1) {
		r = complete_all(p);
		forget_all(p);
		if (r < 0) {
			raw_reader_free(rd);
			return r;
		}
	}
	p->hdr = *h;
	p->h = &p->hdr;
	if (h->page_size)
		p->e->page_size = h->page_size;
	p->have_hdr = true;
	return exp_reader_drain(p->e, path, rd, on_record_cb, p, &p->malformed);
}

static const struct series_kind thr_kind = { sizeof(struct thr), cmp_thr, SEEN_THR, cpu_interval };
static const struct series_kind io_kind = { sizeof(struct pio), cmp_pid, SEEN_IO, io_interval };
static const struct series_kind pcpu_kind = { sizeof(struct pcpu), cmp_pid, SEEN_PCPU, pcpu_interval };
static const struct series_kind net_kind = { sizeof(struct ndev), NULL, 0, net_interval };
static const struct series_kind dsk_kind = { sizeof(struct dstat), NULL, 0, disk_interval };

static const enum raw_source sources[] = {
	RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK,
	RAW_SOURCE_HOST_NET, RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM,
};

static int exp_parse(struct exp *e)
{
	struct parse p = { .e = e };
	char dir[PATH_MAX];
	int r = 0;

	if ((size_t)snprintf(dir, sizeof dir, "%s/host/data", e->prof_dir) >= sizeof dir)
		return -ENAMETOOLONG;
	for (int i = 0; i < _ST_MAX && r == 0; i++)
		r = exp_prepare(e, st_sql[i], &p.st[i]);
	for (int i = 0; i < _RB_MAX && r == 0; i++)
		r = exp_batch_init(e, &p.rb[i], rb_tables[i].table, rb_tables[i].types);
	series_init(&p.thr, &thr_kind);
	series_init(&p.io, &io_kind);
	series_init(&p.pcpu, &pcpu_kind);
	series_init(&p.net, &net_kind);
	series_init(&p.dsk, &dsk_kind);

	for (size_t s = 0; s < ARRAY_SIZE(sources) && r == 0; s++) {
		char **paths = NULL;
		int n = raw_list_slices(dir, sources[s], &paths);
		if (n < 0) {
			if (n != -ENOENT) {
				exp_fail(e, "cannot list '%s': %s", dir, strerror(-n));
				r = n;
			}
			continue;
		}
		p.last_type = 0;
		p.src = sources[s];
		for (char **pp = paths; r == 0 && pp && *pp; pp++) {
			uint64_t far = p.far;
			r = parse_file(&p, *pp);
			if (p.far > far)
				exp_note(e, "raw file '%s': %" PRIu64 " record(s) with a time far outside the session "
					    "(before 1970, after 2262, or more than a day from its start or end) left out",
					 *pp, p.far - far);
		}
		/* a flight recorder's dump ends at its trigger, recording on */
		if (r == 0 && n > 0 && p.last_type && p.last_type != RAW_SESSION_END && !e->flight.on)
			exp_note(e, "host sampling: '%s' ends without its session-end record (msprofd was killed, or "
				    "its raw files cut short): its samples after %.3f s into the session are missing",
				 raw_source_stem(sources[s]),
				 e->start_ns ? (double)(p.last_t - (int64_t)e->start_ns) / 1e9 : 0.0);
		raw_paths_free(paths);
		/* samples of one source never pair with another's */
		if (r == 0)
			r = complete_all(&p);
		if (r == 0)
			r = source_ticks(&p, sources[s]);
		p.have_ticks = false;
		forget_all(&p);
		p.have_hdr = false;
	}

	for (int i = 0; i < _RB_MAX && r == 0; i++)
		r = exp_batch_drain(&p.rb[i]);
	if (r == 0 && p.missed_note[0])
		exp_note(e, "host sampling: tick(s) missed, msprofd could not keep to the rate (the intervals "
			     "around them are longer): %s", p.missed_note);
	e->rep->bad_records += p.malformed + p.far;
	forget_all(&p);
	free(p.cpu_busy);
	free(p.cpu_seen);
	for (int i = 0; i < _ST_MAX; i++)
		sqlite3_finalize(p.st[i]);
	for (int i = 0; i < _RB_MAX; i++)
		exp_batch_release(&p.rb[i]);
	return r;
}

static const char *const tables[] = { "PROCESS_INFO", "SAMPLER_TICKS", NULL };

/* The host samples' raw files, decoded in one pass with the pairing
 * state the sources share (processes, threads, intervals): the rows of
 * the cpu, mem, disk and network domains and PROCESS_INFO. */
const struct exp_domain exp_domain_host = {
	.name = "host samples",
	.tables = tables,
	.parse = exp_parse,
};
