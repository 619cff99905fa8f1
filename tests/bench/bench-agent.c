/* bench-agent: what an annotation costs the program, and what the agent
 * loses under bursts, measured in one run (issue 14's agent goals).
 *
 * Cost.  The driver runs itself as a worker, a child process per run, under
 * these setups, round after round (so a slow spell of the machine hits them
 * all alike), and keeps each figure's best run:
 *   none        no tool: libms_tools_ext and the NVTX loader find none
 *   mintool     bench-mintool.so, a minimal recording tool (one clock read
 *               and a 24-byte store per call), as MSTX_INJECTION_PATH and
 *               NVTX_INJECTION64_PATH
 *   idle        the agent as msprof injects it (LD_PRELOAD and both
 *               injection paths), no daemon, not recording
 *   wait-sched  idle, waiting for a --schedule window (MSPROF_SCHEDULE): every
 *               range start and push is looked at for a step
 *   wait-range  idle, waiting for a --capture-range window
 *               (MSPROF_CAPTURE_RANGE=mstx:train): every range start and push
 *               is compared with the range's name
 *   recording   the same, recording (standalone mode) with the default
 *               settings, warmed first (the queue's blocks have gone round
 *               to the writer and back) and then given more so that the
 *               writer is emptying it beside the timed loops: the cost of
 *               recording, not of first touching new memory
 *   rec-inject  the agent only as MSTX_INJECTION_PATH and
 *               NVTX_INJECTION64_PATH, the mintool's call path exactly
 *   rec-cgt     recording as above with MSPROF_AGENT_CLOCK=monotonic: the
 *               agent's event clock is clock_gettime, the mintool's clock
 *               (by default it reads the TSC where the kernel's clock counts
 *               it: collectors/agent/clock.h)
 * through the call path a program uses: mstxMarkA, mstxRangeStartA +
 * mstxRangeEnd (libms_tools_ext), and nvtxRangePushA + nvtxRangePop through
 * NVTX v3's function-pointer slots (the loader below does what NVIDIA's
 * header-only nvToolsExt.h does).  A run's figure is the median over chunks
 * of the calling thread's CPU time per call: on a shared 2-core machine,
 * wall time also counts the time others ran in our place.  A recording run
 * that dropped one of its timed calls fails the benchmark: its figure
 * would not be the cost of recording.
 *
 * Loss, with default settings, each counted from the raw file read back
 * (recorded) and the agent's counters (dropped), each checking recorded +
 * dropped = emitted: a 1.1M-event NVTX burst from one thread, 10M events
 * from one thread at full speed, 16 threads in bursts of 20k mstx ranges
 * (3.2M ranges in 2 s), and 8 threads x 1M marks.
 *
 * Prints tables and issue 14's `goal:` lines; exits non-zero on a silent
 * loss or a failed worker, never on time.  BENCH_SHORT=1: small sizes.
 *
 *   bench-agent AGENT_SO MINTOOL_SO      (meson test --benchmark) */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/agent/nvtx-abi.h"
#include "collectors/raw.h"
#include "mstx/ms_tools_ext.h"
#include "tests/agent/agent-read.h"

/* Sizes: full (issue 14's) and BENCH_SHORT.  Set once in main and passed
 * to the workers through the environment. */
struct sizes {
	long calls;         /* calls per cost loop */
	long heavy;         /* iterations of the annotation-heavy loop */
	int runs;           /* runs per setup (best of) */
	long burst;         /* events of the one-thread NVTX burst */
	long stream;        /* events of one thread at full speed */
	long mt_ranges;     /* ranges per burst of each of the 16 threads */
	int mt_bursts;      /* bursts per thread */
	long mt_period_ms;  /* one burst per thread each period */
	long marks8;        /* marks per thread of the 8-thread run */
	int rec_kb;         /* the recording runs' warm-up: KiB of marks */
};

static const struct sizes full = { 200000, 100000, 5, 1100000, 10000000, 20000, 10, 200, 1000000, 8192 };
static const struct sizes brief = { 50000, 20000, 2, 110000, 1000000, 2000, 2, 100, 100000, 2048 };

/* Each timed loop runs in chunks and keeps their median: a chunk that
 * shared its core with something else says little of the call */
#define CHUNKS 10

#define MT_THREADS 16
#define THREADS8 8

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: the cost loops are timed with it, so that a
 * chunk during which the machine (2 cores, shared) ran something else in
 * our place does not count that time as the calls' */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- NVTX v3's loader ------------------------------------------------------
 * What nvToolsExt.h compiles into a program: one function-pointer slot per
 * call, a CALLBACKS export table whose GetModuleFunctionTable hands the
 * tool an array of pointers to the slots, and inline functions that load a
 * slot and call through it (no tool: NULL, the call does nothing).  NVTX
 * makes the first call do this through an init stub; the worker calls
 * nv_init before its loops, which is the same. */
#define NV_CORE_SIZE (NV_CBID_CORE_NameOsThreadW + 1)

static nv_function_pointer nv_slot[NV_CORE_SIZE];
static nv_function_pointer *nv_core_table[NV_CORE_SIZE + 1];

typedef int (*nv_push_a_fn)(const char *);
typedef int (*nv_pop_fn)(void);
typedef void (*nv_mark_a_fn)(const char *);

static int nv_get_module(int module, nv_function_table *out, unsigned int *size)
{
	if (module != NV_CB_MODULE_CORE || !out || !size)
		return 0;
	*out = nv_core_table;
	*size = NV_CORE_SIZE;
	return 1;
}

static void nv_set_version(uint32_t v)
{
	(void)v;
}

static const struct nv_etbl_callbacks nv_callbacks = { sizeof(nv_callbacks), nv_get_module };
static const struct nv_etbl_version_info nv_version = { sizeof(nv_version), 3, 0, nv_set_version };

static const void *get_export_table(uint32_t id)
{
	return id == NV_ETID_CALLBACKS ? (const void *)&nv_callbacks
	       : id == NV_ETID_VERSIONINFO ? (const void *)&nv_version
					     : NULL;
}

static void nv_init(void)
{
	for (size_t i = 1; i < NV_CORE_SIZE; i++)
		nv_core_table[i] = &nv_slot[i];
	const char *path = getenv("NVTX_INJECTION64_PATH");
	void *h = path && *path ? dlopen(path, RTLD_LAZY) : NULL;
	void *sym = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
	int (*init)(nv_get_export_table) = NULL;
	memcpy(&init, &sym, sizeof(init));
	if (!init || !init(get_export_table))
		memset(nv_slot, 0, sizeof(nv_slot));
}

static inline int nvtxRangePushA(const char *msg)
{
	nv_push_a_fn f = (nv_push_a_fn)nv_slot[NV_CBID_CORE_RangePushA];
	return f ? f(msg) : NV_NO_PUSH_POP_TRACKING;
}

static inline int nvtxRangePop(void)
{
	nv_pop_fn f = (nv_pop_fn)nv_slot[NV_CBID_CORE_RangePop];
	return f ? f() : NV_NO_PUSH_POP_TRACKING;
}

static inline void nvtxMarkA(const char *msg)
{
	nv_mark_a_fn f = (nv_mark_a_fn)nv_slot[NV_CBID_CORE_MarkA];
	if (f)
		f(msg);
}

/* --- workers ------------------------------------------------------------- */

static struct sizes sz;
static volatile float sink;

/* a loop body with a little real work, as an annotated training step
 * would have far more */
static float work(float *v, int n)
{
	float s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * v[i];
	return s;
}

/* Bytes the agent has written under dir/host/data so far. */
static long long written(const char *dir)
{
	char data[4200];
	snprintf(data, sizeof(data), "%s/host/data", dir);
	DIR *d = opendir(data);
	if (!d)
		return 0;
	long long sum = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)))
		if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
			sum += st.st_size;
	closedir(d);
	return sum;
}

/* Until the agent's files stop growing (its writer has emptied the queue),
 * 10 s at most: a writer still busy shows up as drops in the timed loops,
 * which the driver reports. */
static void wait_writer(const char *dir)
{
	struct timespec tick = { 0, 50 * 1000000 };
	long long last = -1;
	int still = 0;
	/* the writer drains every AGENT_DRAIN_MS (50): four quiet ticks */
	for (int i = 0; i < 200 && dir && still < 4; i++) {
		nanosleep(&tick, NULL);
		long long now_bytes = written(dir);
		still = now_bytes == last && now_bytes > 0 ? still + 1 : 0;
		last = now_bytes;
	}
}

static int loop_mark(long n)
{
	for (long i = 0; i < n; i++)
		mstxMarkA("bench mark", NULL);
	return 0;
}

static int loop_range(long pairs)
{
	for (long i = 0; i < pairs; i++)
		mstxRangeEnd(mstxRangeStartA("bench range", NULL));
	return 0;
}

/* the levels summed, so that the calls' results are used */
static int loop_push(long pairs)
{
	int lvl = 0;
	for (long i = 0; i < pairs; i++) {
		lvl += nvtxRangePushA("bench push");
		lvl += nvtxRangePop();
	}
	return lvl;
}

/* Events a calls worker records besides its warm-up marks. */
static uint64_t calls_events(void)
{
	long n = sz.calls / CHUNKS;
	return (uint64_t)(sz.calls / 10 + sz.calls / 20 * 4 + (n + n / 2 * 4) * CHUNKS + sz.heavy * 3);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Per-call cost: ns per call of mark, range (start or end) and push/pop
 * (push or pop), and the annotated/plain time of the annotation-heavy loop. */
static int calls_worker(void)
{
	nv_init();
	mstxMarkA("warm-up", NULL); /* finds the tool */
	/* A recording run first writes several blocks' worth, so that the
	 * queue's blocks have gone to the writer and come back (the timed
	 * loops find them in use, as in a long run), then lets the writer
	 * empty it */
	long warm = getenv("BENCH_WARM_MARKS") ? atol(getenv("BENCH_WARM_MARKS")) : 0;
	if (warm > 0) {
		for (long i = 0; i < warm; i++)
			mstxMarkA("warm-up", NULL);
		wait_writer(getenv("MSPROF_AGENT_OUTPUT"));
		/* Then half as much again: the writer wakes and is still
		 * emptying it while the timed loops run, as it is whenever a
		 * program annotates faster than it writes.  The figure is the
		 * cost of a call with the writer busy beside it (what the
		 * producer and the writer share is in it). */
		for (long i = 0; i < warm / 2; i++)
			mstxMarkA("warm-up", NULL);
	}

	/* each loop once untimed first: the code paths, the thread's state
	 * in the tool and the branch predictors are warm for every setup */
	int lvl = loop_mark(sz.calls / 10) + loop_range(sz.calls / 20) + loop_push(sz.calls / 20);

	/* Per loop, the median of its chunks; and how many chunks ran while
	 * the agent's files grew (its writer busy beside the calls, as the
	 * half-filled queue means to have it) */
	const char *out = getenv("MSPROF_AGENT_OUTPUT");
	double t[3];
	int busy = 0;
	long n = sz.calls / CHUNKS;
	for (int k = 0; k < 3; k++) {
		double v[CHUNKS];
		for (int c = 0; c < CHUNKS; c++) {
			long long b0 = out ? written(out) : 0;
			double t0 = cpu_now();
			lvl += k == 0 ? loop_mark(n) : k == 1 ? loop_range(n / 2) : loop_push(n / 2);
			v[c] = (cpu_now() - t0) / (double)(k == 0 ? n : n / 2 * 2) * 1e9;
			busy += out && written(out) > b0;
		}
		t[k] = median(v, CHUNKS);
	}

	/* the barrier keeps the compiler from computing work() once; plain
	 * and annotated loops alternate, best of 3 each */
	float v[128], s = (float)lvl;
	for (int i = 0; i < 128; i++)
		v[i] = (float)i * 0.5f;
	double t_plain = 1e30, t_annot = 1e30;
	for (int round = 0; round < 3; round++) {
		double t0 = cpu_now();
		for (long i = 0; i < sz.heavy; i++) {
			__asm__ volatile("" : : "r"(v) : "memory");
			s += work(v, 128);
		}
		t_plain = fmin(t_plain, cpu_now() - t0);
		t0 = cpu_now();
		for (long i = 0; i < sz.heavy; i++) {
			mstxMarkA("step", NULL);
			__asm__ volatile("" : : "r"(v) : "memory");
			s += work(v, 128);
		}
		t_annot = fmin(t_annot, cpu_now() - t0);
	}
	sink = s;
	printf("%.3f %.3f %.3f %.3f %.4f %.2f %d\n", t[0], t[1], t[2], 100.0 * busy / (3 * CHUNKS), t_annot / t_plain,
	       t_plain / (double)sz.heavy * 1e9, (int)getpid());
	return 0;
}

/* One thread, NVTX ranges and marks as fast as it can: push, mark, pop,
 * mark; `events` of them. */
static long nvtx_run(long events, long *ret_pushes)
{
	long n = 0;
	*ret_pushes = events / 4;
	for (; n + 4 <= events; n += 4) {
		nvtxRangePushA("burst range");
		nvtxMarkA("burst mark");
		nvtxRangePop();
		nvtxMarkA("burst mark");
	}
	for (; n < events; n++)
		nvtxMarkA("burst mark");
	return n;
}

static int burst_worker(long events)
{
	nv_init();
	double t0 = now();
	long pushes;
	long n = nvtx_run(events, &pushes);
	printf("%d %ld %ld %.4f\n", (int)getpid(), n, pushes, now() - t0);
	return 0;
}

static pthread_barrier_t mt_start;
static struct timespec mt_t0;

/* One of 16 threads: a burst of mt_ranges mstx ranges at each period's
 * start. */
static void *mt_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&mt_start);
	for (int b = 0; b < sz.mt_bursts; b++) {
		long ns = mt_t0.tv_nsec + (long)b * sz.mt_period_ms * 1000000L;
		struct timespec at = { mt_t0.tv_sec + ns / 1000000000L, ns % 1000000000L };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		for (long i = 0; i < sz.mt_ranges; i++)
			mstxRangeEnd(mstxRangeStartA("mt range", NULL));
	}
	return NULL;
}

static int mt_worker(void)
{
	pthread_t th[MT_THREADS];
	pthread_barrier_init(&mt_start, NULL, MT_THREADS + 1);
	for (int i = 0; i < MT_THREADS; i++)
		if (pthread_create(&th[i], NULL, mt_thread, NULL) != 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &mt_t0);
	double t0 = now();
	pthread_barrier_wait(&mt_start);
	for (int i = 0; i < MT_THREADS; i++)
		pthread_join(th[i], NULL);
	long events = (long)MT_THREADS * sz.mt_bursts * sz.mt_ranges * 2;
	printf("%d %ld 0 %.4f\n", (int)getpid(), events, now() - t0);
	return 0;
}

static void *spin8(void *arg)
{
	(void)arg;
	for (long i = 0; i < sz.marks8; i++)
		mstxMarkA("thread mark", NULL);
	return NULL;
}

static int threads8_worker(void)
{
	pthread_t th[THREADS8];
	double t0 = now();
	for (int i = 0; i < THREADS8; i++)
		if (pthread_create(&th[i], NULL, spin8, NULL) != 0)
			return 1;
	for (int i = 0; i < THREADS8; i++)
		pthread_join(th[i], NULL);
	printf("%d %ld 0 %.4f\n", (int)getpid(), (long)THREADS8 * sz.marks8, now() - t0);
	return 0;
}

/* --- the driver ------------------------------------------------------------ */

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static uint64_t tree_total;

static int tree_add(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)p, (void)f;
	if (flag == FTW_F)
		tree_total += (uint64_t)st->st_size;
	return 0;
}

/* bytes of the files under dir */
static uint64_t tree_bytes(const char *dir)
{
	tree_total = 0;
	nftw(dir, tree_add, 16, FTW_PHYS);
	return tree_total;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run ourselves as `mode` with the environment given; its one line in out. */
static int run_worker(const char *self, const char *mode, char *const env[], char *out, size_t size)
{
	int fd[2];
	if (pipe(fd) < 0)
		return -errno;
	pid_t p = fork();
	if (p < 0)
		return -errno;
	if (p == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execle(self, self, mode, (char *)NULL, env);
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t r;
	while (n < size - 1 && (r = read(fd[0], out + n, size - 1 - n)) > 0)
		n += (size_t)r;
	close(fd[0]);
	int st;
	waitpid(p, &st, 0);
	out[n] = 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0 ? 0 : -EIO;
}

/* What a recording run left: events in the file, the agent's counters. */
struct tally {
	uint64_t recorded, events, dropped;
	uint64_t warm; /* of recorded: the calls worker's warm-up marks */
	uint64_t damage;
	char problem[256];
};

static int read_back(const char *out_dir, int pid, struct tally *ret)
{
	char data[4200];
	snprintf(data, sizeof(data), "%s/host/data", out_dir);
	struct ar_file f;
	int e = ar_load(data, (uint32_t)pid, &f);
	if (e < 0)
		return e;
	struct tally t = { .events = f.events, .dropped = f.dropped, .damage = f.damage };
	for (size_t i = 0; i < f.n_ev; i++)
		t.recorded += f.ev[i].rec == RAW_AGENT_MARK || f.ev[i].rec == RAW_AGENT_RANGE_START ||
			      f.ev[i].rec == RAW_AGENT_RANGE_END;
	for (size_t i = 0; i < f.n_ev; i++)
		t.warm += f.ev[i].rec == RAW_AGENT_MARK && f.ev[i].msg && strcmp(f.ev[i].msg, "warm-up") == 0;
	snprintf(t.problem, sizeof(t.problem), "%s", f.problem);
	ar_free(&f);
	*ret = t;
	return 0;
}

static char *xasprintf(const char *fmt, const char *a, const char *b)
{
	char *s;
	if (asprintf(&s, fmt, a, b) < 0)
		abort();
	return s;
}

/* "1.1M", "110k", "20k" */
static const char *count_str(long n, char *buf, size_t size)
{
	if (n >= 1000000 && n % 100000 == 0)
		snprintf(buf, size, "%g M", (double)n / 1e6);
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(buf, size, "%ldk", n / 1000);
	else
		snprintf(buf, size, "%ld", n);
	/* "1.1 M" reads oddly next to the "1.1M" */
	char *sp = strchr(buf, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
	return buf;
}

/* One figure of the cost table, "-" where no chunk measured it. */
static void cell(double v, double per)
{
	if (v < 1e30)
		printf(" %9.2f", v / per);
	else
		printf(" %9s", "-");
}

enum { S_NONE, S_MINTOOL, S_IDLE, S_WAIT_SCHED, S_WAIT_RANGE, S_REC, S_REC_INJ, S_REC_CGT, N_SETUPS };

struct setup {
	const char *name;
	char **env;
	bool recording;
	double c[3]; /* mark, range, push: ns per call, best run */
	double loop, busy;
};

int main(int argc, char **argv)
{
	const char *short_env = getenv("BENCH_SHORT");
	bool is_short = short_env && *short_env && strcmp(short_env, "0") != 0;
	sz = is_short ? brief : full;

	if (argc == 2 && strcmp(argv[1], "calls") == 0)
		return calls_worker();
	if (argc == 2 && strcmp(argv[1], "burst") == 0)
		return burst_worker(sz.burst);
	if (argc == 2 && strcmp(argv[1], "stream") == 0)
		return burst_worker(sz.stream);
	if (argc == 2 && strcmp(argv[1], "threads16") == 0)
		return mt_worker();
	if (argc == 2 && strcmp(argv[1], "threads8") == 0)
		return threads8_worker();
	if (argc != 3) {
		fprintf(stderr, "usage: bench-agent AGENT_SO MINTOOL_SO\n");
		return 2;
	}
	const char *agent = argv[1], *mintool = argv[2];
	if (access(agent, R_OK) < 0 || access(mintool, R_OK) < 0) {
		fprintf(stderr, "bench-agent: cannot read '%s' or '%s'\n", agent, mintool);
		return 2;
	}
	char tmp[] = "/tmp/bench-agent.XXXXXX";
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "bench-agent: cannot make a directory under /tmp: %s\n", strerror(errno));
		return 1;
	}
	char out_dir[4200];
	snprintf(out_dir, sizeof(out_dir), "%s/rec", tmp);

	char *path = xasprintf("PATH=%s%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin", "");
	char *rt = xasprintf("MSPROF_RUNTIME_DIR=%s/%s", tmp, "no-daemon");
	char *shortv = xasprintf("BENCH_SHORT=%s%s", is_short ? "1" : "0", "");
	char *preload = xasprintf("LD_PRELOAD=%s%s", agent, "");
	char *mstx_agent = xasprintf("MSTX_INJECTION_PATH=%s%s", agent, "");
	char *nvtx_agent = xasprintf("NVTX_INJECTION64_PATH=%s%s", agent, "");
	char *mstx_min = xasprintf("MSTX_INJECTION_PATH=%s%s", mintool, "");
	char *nvtx_min = xasprintf("NVTX_INJECTION64_PATH=%s%s", mintool, "");
	char *output = xasprintf("MSPROF_AGENT_OUTPUT=%s%s", out_dir, "");
	char warm[64];
	/* the warm-up's marks ("warm-up": 16 bytes and 7 of message each)
	 * fill the default 1 MiB block sz.rec_kb / 1024 times */
	snprintf(warm, sizeof(warm), "BENCH_WARM_MARKS=%ld", (long)sz.rec_kb * 1024 / 23);

	char *env_none[] = { path, rt, shortv, NULL };
	char *env_min[] = { path, rt, shortv, mstx_min, nvtx_min, NULL };
	char *env_idle[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, NULL };
	char sched[] = "MSPROF_SCHEDULE=skip_first=1000000,active=1", range[] = "MSPROF_CAPTURE_RANGE=mstx:train";
	char *env_wait_sched[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, sched, NULL };
	char *env_wait_range[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, range, NULL };
	char *env_rec[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, output, warm, NULL };
	char *env_rec_inj[] = { path, rt, shortv, mstx_agent, nvtx_agent, output, warm, NULL };
	char cgt[] = "MSPROF_AGENT_CLOCK=monotonic";
	char *env_rec_cgt[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, output, warm, cgt, NULL };
	/* default settings: no MSPROF_AGENT_BUFFER_KB */
	char *env_default[] = { path, rt, shortv, preload, mstx_agent, nvtx_agent, output, NULL };

	struct setup st[N_SETUPS] = {
		[S_NONE] = { .name = "none", .env = env_none },
		[S_MINTOOL] = { .name = "mintool", .env = env_min },
		[S_IDLE] = { .name = "idle", .env = env_idle },
		[S_WAIT_SCHED] = { .name = "wait-sched", .env = env_wait_sched },
		[S_WAIT_RANGE] = { .name = "wait-range", .env = env_wait_range },
		[S_REC] = { .name = "recording", .env = env_rec, .recording = true },
		[S_REC_INJ] = { .name = "rec-inject", .env = env_rec_inj, .recording = true },
		[S_REC_CGT] = { .name = "rec-cgt", .env = env_rec_cgt, .recording = true },
	};
	for (int s = 0; s < N_SETUPS; s++) {
		for (int k = 0; k < 3; k++)
			st[s].c[k] = 1e30;
		st[s].loop = 1e30;
	}

	int fails = 0;
	double iter_ns = 0;
	for (int run = 0; run < sz.runs; run++) {
		for (int s = 0; s < N_SETUPS; s++) {
			char line[512];
			double c[3], l, busy;
			int pid;
			rm_tree(out_dir);
			if (run_worker(argv[0], "calls", st[s].env, line, sizeof(line)) < 0 ||
			    sscanf(line, "%lf %lf %lf %lf %lf %lf %d", &c[0], &c[1], &c[2], &busy, &l, &iter_ns, &pid) != 7) {
				fprintf(stderr, "bench-agent: the %s worker failed\n", st[s].name);
				return 1;
			}
			if (st[s].recording) {
				struct tally t;
				int e = read_back(out_dir, pid, &t);
				if (e < 0) {
					fprintf(stderr, "bench-agent: cannot read the %s run's file: %s\n", st[s].name,
						strerror(-e));
					return 1;
				}
				/* every call of the timed loops recorded, or the run
				 * paid for dropping, not recording (the warm-up may
				 * drop: it only fills the queue) */
				uint64_t timed = calls_events();
				if (t.recorded - t.warm != timed) {
					fprintf(stderr, "bench-agent: the %s run recorded %llu of its %llu timed calls: "
						"its figures are not the cost of recording\n", st[s].name,
						(unsigned long long)(t.recorded - t.warm), (unsigned long long)timed);
					fails++;
				}
			}
			for (int k = 0; k < 3; k++)
				st[s].c[k] = fmin(st[s].c[k], c[k]);
			st[s].loop = fmin(st[s].loop, l);
			st[s].busy += busy / sz.runs;
		}
	}

	printf("# ns of the calling thread's CPU time per call: the median of %d chunks of %ld calls, best of %d runs\n"
	       "# (range: start or end; push/pop: push or pop)\n",
	       CHUNKS, sz.calls / CHUNKS, sz.runs);
	printf("# writer busy: the chunks during which the agent's files grew, its writer emptying the queue beside "
	       "the calls\n");
	printf("# loop ratio: annotated/plain CPU time of a loop with one mark per %.0f ns of work\n", iter_ns);
	printf("%-11s %9s %9s %9s %9s %9s %9s %10s %8s\n", "setup", "mark", "range", "push/pop", "mark x", "range x",
	       "push x", "loop ratio", "writer");
	printf("%-11s %9s %9s %9s %9s %9s %9s %10s %8s\n", "", "ns", "ns", "ns", "mintool", "mintool", "mintool", "",
	       "busy");
	const double *base = st[S_MINTOOL].c;
	for (int s = 0; s < N_SETUPS; s++) {
		printf("%-11s", st[s].name);
		for (int j = 0; j < 3; j++)
			cell(st[s].c[j], 1);
		for (int j = 0; j < 3; j++)
			cell(st[s].c[j], base[j]);
		printf(" %10.4f", st[s].loop);
		if (st[s].recording)
			printf(" %7.0f%%", st[s].busy);
		printf("\n");
	}
	double clk[CHUNKS];
	for (int c = 0; c < CHUNKS; c++) {
		struct timespec ts;
		double c0 = cpu_now();
		for (int i = 0; i < 100000; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		clk[c] = (cpu_now() - c0) * 1e4;
	}
	printf("clock_gettime(CLOCK_MONOTONIC) alone: %.2f ns (part of every recorded call)\n", median(clk, CHUNKS));
	printf("(recording: the agent preloaded as msprof runs it, mstx calls reach it directly; rec-inject: "
	       "through the injection paths only, as the mintool; rec-cgt: recording with clock_gettime as the "
	       "agent's event clock, MSPROF_AGENT_CLOCK=monotonic)\n");
	char cs[32] = "";
	FILE *csf = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (csf) {
		if (!fgets(cs, sizeof cs, csf))
			cs[0] = 0;
		fclose(csf);
		cs[strcspn(cs, "\n")] = 0;
	}
	printf("the kernel's clocksource: %s (the agent's event clock is the TSC where it is 'tsc' on x86-64, "
	       "clock_gettime elsewhere)\n",
	       cs[0] ? cs : "unknown");

	static const char *const goal_name[3] = { "mstx mark", "mstx range", "NVTX push/pop" };
	static const char *const goal_max[3] = { "1.2", "1.2", "1.10" };
	static const int goal_order[3] = { 2, 0, 1 };
	for (int g = 0; g < 3; g++) {
		int k = goal_order[g];
		double v = st[S_REC].c[k];
		printf("goal: %s, agent ÷ minimal tool | %.1f ns | %.1f ns | %.2f× | ≤ %s×\n", goal_name[k], v, base[k],
		       v / base[k], goal_max[k]);
	}
	/* issue 28: a process waiting for its window pays the idle price */
	for (int w = S_WAIT_SCHED; w <= S_WAIT_RANGE; w++)
		for (int k = 0; k < 3; k++)
			printf("waiting: %s, %s − idle | %.1f ns | %.1f ns | %+.1f ns\n", goal_name[k], st[w].name,
			       st[w].c[k], st[S_IDLE].c[k], st[w].c[k] - st[S_IDLE].c[k]);
	fflush(stdout);

	/* Loss under bursts, default settings */
	static const struct {
		const char *mode, *what;
	} loss[] = {
		{ "burst", "one thread, NVTX burst (push, mark, pop, mark)" },
		{ "stream", "one thread at full speed (NVTX push, mark, pop, mark)" },
		{ "threads16", "16 threads, bursts of mstx ranges" },
		{ "threads8", "8 threads, mstx marks at full speed" },
	};
	struct tally res[4];
	long emitted[4];
	double writer_secs = 0, stream_secs = 0;
	uint64_t writer_bytes = 0;
	printf("\n# loss under load, default settings: recorded = events in the file, dropped = the agent's "
	       "counters\n");
	printf("%-56s %10s %10s %10s %8s %8s  %s\n", "run", "emitted", "recorded", "dropped", "drop %", "secs",
	       "check");
	for (size_t i = 0; i < 4; i++) {
		char line[512];
		int pid;
		long pushes;
		double secs;
		rm_tree(out_dir);
		double w0 = now();
		int rw = run_worker(argv[0], loss[i].mode, env_default, line, sizeof(line));
		if (i == 1) {
			/* the process ends once its writer has written everything */
			writer_secs = now() - w0;
			writer_bytes = tree_bytes(out_dir);
		}
		if (rw < 0 ||
		    sscanf(line, "%d %ld %ld %lf", &pid, &emitted[i], &pushes, &secs) != 4) {
			fprintf(stderr, "bench-agent: the %s worker failed\n", loss[i].mode);
			return 1;
		}
		int e = read_back(out_dir, pid, &res[i]);
		if (e < 0) {
			fprintf(stderr, "bench-agent: cannot read the %s run's file: %s\n", loss[i].mode, strerror(-e));
			return 1;
		}
		const struct tally *t = &res[i];
		/* What neither the file nor the counters hold: a silent loss
		 * (the pop of a dropped push is counted with it, as a range's
		 * end is with its start) */
		long long missing = (long long)emitted[i] - (long long)(t->recorded + t->dropped);
		bool whole = missing == 0;
		bool agrees = t->events == t->recorded && !t->damage;
		if (!whole || !agrees)
			fails++;
		char check[160];
		if (!agrees)
			snprintf(check, sizeof(check), "BAD FILE: the agent's event count and the file disagree");
		else if (whole)
			snprintf(check, sizeof(check), "recorded + dropped = emitted");
		else
			snprintf(check, sizeof(check), "SILENT LOSS: %lld events neither recorded nor counted", missing);
		if (i == 1)
			stream_secs = secs;
		printf("%-56s %10ld %10llu %10llu %7.2f%% %8.3f  %s\n", loss[i].what, emitted[i],
		       (unsigned long long)t->recorded, (unsigned long long)t->dropped,
		       100.0 * (double)t->dropped / (double)emitted[i], secs, check);
		if (!agrees)
			fprintf(stderr, "bench-agent: %s: agent counted %llu events, file holds %llu, damage %llu%s%s\n",
				loss[i].mode, (unsigned long long)t->events, (unsigned long long)t->recorded,
				(unsigned long long)t->damage, t->problem[0] ? ": " : "", t->problem);
		fflush(stdout);
	}
	rm_tree(tmp);

	char n0[32], n1[32], n2[32], n3[32];
	printf("goal: events recorded of a 1.1M-event burst (NVTX ranges and marks, one thread), default settings | "
	       "%.1f%% | emitted %s | | 100%%\n",
	       100.0 * (double)res[0].recorded / (double)emitted[0], count_str(emitted[0], n0, sizeof(n0)));
	printf("goal: one thread at full speed, 10M events, default settings | %llu dropped | emitted %s | | 0 "
	       "dropped\n",
	       (unsigned long long)res[1].dropped, count_str(emitted[1], n1, sizeof(n1)));
	/* the writer: the one-thread run's events and file bytes over the time
	 * from the start of the process to its end, which waits for the
	 * writer (the start-up is in it: the figure is a floor) */
	printf("writer: %s events, %.1f MB in %.3f s from the process's start to its end: %.1f M events/s, "
	       "%.0f MB/s (the program emitted them in %.3f s)\n",
	       count_str(emitted[1], n1, sizeof(n1)), (double)writer_bytes / 1e6, writer_secs,
	       (double)res[1].recorded / writer_secs / 1e6, (double)writer_bytes / writer_secs / 1e6, stream_secs);
	printf("goal: 16 threads in bursts of 20k ranges, 3.2M in 2 s | %.2f%% dropped%s | emitted %s "
	       "(%d x %s ranges) | | ≤ 1%% dropped, recorded + dropped = emitted\n",
	       100.0 * (double)res[2].dropped / (double)emitted[2],
	       res[2].recorded + res[2].dropped == (uint64_t)emitted[2] ? "" : " (SILENT LOSS)",
	       count_str(emitted[2], n2, sizeof(n2)), MT_THREADS * sz.mt_bursts, count_str(sz.mt_ranges, n3, sizeof(n3)));
	if (is_short)
		printf("(BENCH_SHORT: small sizes; the goals are for the full sizes)\n");
	free(path), free(rt), free(shortv), free(preload), free(mstx_agent), free(nvtx_agent), free(mstx_min);
	free(nvtx_min), free(output);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return fails ? 1 : 0;
}
