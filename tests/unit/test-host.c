/* Host samplers against ground truth measured in the same test: real child
 * processes burn CPU, touch memory, write to disk, fork, exec; a real
 * host_sampler samples them into a temp dir; the raw files are read back and
 * compared with what wait4/getrusage and the kernel report.  No check here
 * depends on how long anything took. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/host.h"
#include "collectors/raw.h"
#include "common/util.h"
#include "tests/unit/unittest.h"


/* |a - b| <= tol * b, with the numbers shown on failure */
#define CHECK_NEAR(a, b, tol)                                                                  \
	do {                                                                                   \
		double a_ = (double)(a), b_ = (double)(b);                                     \
		if (!(a_ >= b_ * (1 - (tol)) && a_ <= b_ * (1 + (tol)))) {                     \
			fprintf(stderr, "%s:%d: %s = %.0f not within %.0f%% of %s = %.0f\n", __FILE__, \
				__LINE__, #a, a_, (tol) * 100, #b, b_);                        \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

static char tmpdir[] = "/tmp/test-host-XXXXXX";
static long page_size, clk_tck;

static char *subdir(const char *name)
{
	return unittest_subdir(tmpdir, name);
}

/* --- reading back ------------------------------------------------------- */

/* Every record of one source, all slices in order; fn sees each decoded
 * through a cursor positioned after ts. */
struct rec_view {
	uint16_t type;
	uint64_t ts;
	int slice;
	struct raw_cur c;
};

static int for_each_record(const char *dir, enum raw_source src, void (*fn)(struct rec_view *, void *),
			   void *ud)
{
	char **paths;
	int n = raw_list_slices(dir, src, &paths);
	CHECK(n >= 0);
	int total = 0;
	for (int s = 0; s < n; s++) {
		struct raw_reader *r;
		CHECK(raw_reader_open(paths[s], &r) == 0);
		CHECK(raw_reader_header(r)->source == (uint32_t)src);
		struct raw_record rec;
		int e;
		while ((e = raw_reader_next(r, &rec)) > 0) {
			struct rec_view v = { .type = rec.type, .slice = s };
			v.c = (struct raw_cur){ rec.payload, rec.len, 0 };
			v.ts = raw_cur_u64(&v.c);
			CHECK(v.c.err == 0);
			fn(&v, ud);
			total++;
		}
		CHECK(e == 0);
		const struct raw_reader_stats *st = raw_reader_stats(r);
		CHECK(st->bad_records == 0 && st->torn_bytes == 0 && st->skipped_bytes == 0);
		raw_reader_free(r);
	}
	raw_paths_free(paths);
	return total;
}

/* What a parser would keep for one pid. */
struct pid_view {
	uint32_t pid;
	/* PROC_INFO */
	int n_info;
	struct raw_proc_info info[8];
	bool exited;
	/* THREAD_CPU: the last values of each thread, summed */
	uint32_t tids[64];
	uint64_t last_run[64], last_ticks[64];
	int n_tids;
	int cpu_samples;
	/* PROC_MEM(_ALL) */
	uint64_t first_res, peak_res;
	int mem_samples;
	/* PROC_IO */
	uint64_t first_wb, last_wb, first_wchar, last_wchar;
	int io_samples;
	/* PROC_CPU */
	uint64_t last_proc_ticks;
	int proc_cpu_samples;
	/* checks on ts */
	uint64_t last_ts;
};

static void info_decode(struct raw_cur *c, uint64_t ts, struct raw_proc_info *p)
{
	p->ts = ts;
	p->pid = raw_cur_u32(c);
	p->ppid = raw_cur_u32(c);
	p->starttime = raw_cur_u64(c);
	raw_cur_str(c, p->comm, sizeof(p->comm));
	p->is_target = raw_cur_u32(c);
	/* rank and local rank (raw.h): the test runs outside any job */
	int32_t rank = (int32_t)raw_cur_u32(c), local = (int32_t)raw_cur_u32(c);
	CHECK(c->err == 0 && c->left == 0);
	CHECK(getenv("RANK") || (rank == -1 && local == -1) || !p->is_target);
}

static void pid_view_cb(struct rec_view *v, void *ud)
{
	struct pid_view *pv = ud;
	CHECK(v->ts >= pv->last_ts || v->type == RAW_SESSION_END);
	pv->last_ts = v->ts;
	struct raw_cur *c = &v->c;
	switch (v->type) {
	case RAW_PROC_INFO: {
		struct raw_proc_info p;
		info_decode(c, v->ts, &p);
		if (p.pid == pv->pid && pv->n_info < 8)
			pv->info[pv->n_info++] = p;
		break;
	}
	case RAW_PROC_EXIT:
		if (raw_cur_u32(c) == pv->pid)
			pv->exited = true;
		CHECK(c->err == 0 && c->left == 0);
		break;
	case RAW_THREAD_CPU: {
		uint32_t n = raw_cur_u32(c);
		bool seen = false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t pid = raw_cur_u32(c), tid = raw_cur_u32(c);
			uint64_t ut = raw_cur_u64(c), st = raw_cur_u64(c), run = raw_cur_u64(c);
			int32_t cpu = (int32_t)raw_cur_u32(c);
			CHECK(raw_cur_u32(c) < 1000000000); /* read_ns: within the tick */
			CHECK(cpu >= 0 && cpu < 4096);
			if (pid != pv->pid)
				continue;
			seen = true;
			int k = 0;
			while (k < pv->n_tids && pv->tids[k] != tid)
				k++;
			if (k == pv->n_tids && k < 64)
				pv->tids[pv->n_tids++] = tid;
			if (k < 64) {
				CHECK(run >= pv->last_run[k]); /* cumulative */
				pv->last_run[k] = run;
				pv->last_ticks[k] = ut + st;
			}
		}
		pv->cpu_samples += seen;
		CHECK(c->err == 0 && c->left == 0);
		break;
	}
	case RAW_PROC_MEM:
	case RAW_PROC_MEM_ALL: {
		uint32_t n = raw_cur_u32(c);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t pid = raw_cur_u32(c);
			CHECK(raw_cur_u32(c) == 0);
			uint64_t size = raw_cur_u64(c), res = raw_cur_u64(c), shared = raw_cur_u64(c);
			CHECK(res <= size && shared <= res);
			if (pid != pv->pid)
				continue;
			if (pv->mem_samples++ == 0)
				pv->first_res = res;
			if (res > pv->peak_res)
				pv->peak_res = res;
		}
		CHECK(c->err == 0 && c->left == 0);
		break;
	}
	case RAW_PROC_IO: {
		uint32_t n = raw_cur_u32(c);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t pid = raw_cur_u32(c);
			CHECK(raw_cur_u32(c) < 1000000000); /* read_ns */
			uint64_t rchar = raw_cur_u64(c), wchar = raw_cur_u64(c);
			uint64_t rb = raw_cur_u64(c), wb = raw_cur_u64(c), cwb = raw_cur_u64(c), blk = raw_cur_u64(c);
			(void)rchar, (void)rb, (void)cwb, (void)blk;
			if (pid != pv->pid)
				continue;
			if (pv->io_samples++ == 0) {
				pv->first_wb = wb;
				pv->first_wchar = wchar;
			}
			pv->last_wb = wb;
			pv->last_wchar = wchar;
		}
		CHECK(c->err == 0 && c->left == 0);
		break;
	}
	case RAW_PROC_CPU_THREADS: {
		uint32_t n = raw_cur_u32(c);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t pid = raw_cur_u32(c);
			CHECK(raw_cur_u32(c) < 1000000000); /* read_ns */
			uint64_t ut = raw_cur_u64(c), st = raw_cur_u64(c);
			CHECK(raw_cur_u32(c) >= 1); /* num_threads */
			CHECK(raw_cur_u32(c) == 0);
			if (pid == pv->pid) {
				pv->last_proc_ticks = ut + st;
				pv->proc_cpu_samples++;
			}
		}
		CHECK(c->err == 0 && c->left == 0);
		break;
	}
	default:
		break;
	}
}

static struct pid_view view_pid(const char *dir, enum raw_source src, uint32_t pid)
{
	struct pid_view pv = { .pid = pid };
	for_each_record(dir, src, pid_view_cb, &pv);
	return pv;
}

static uint64_t sum_run(const struct pid_view *pv)
{
	uint64_t s = 0;
	for (int k = 0; k < pv->n_tids; k++)
		s += pv->last_run[k];
	return s;
}

static uint64_t sum_ticks(const struct pid_view *pv)
{
	uint64_t s = 0;
	for (int k = 0; k < pv->n_tids; k++)
		s += pv->last_ticks[k];
	return s;
}

/* --- children and the sampling loop -------------------------------------- */

/* Messages between the test and its children: fixed size, one write each. */
struct msg {
	char tag;       /* R ready, D done, G go (to child), X exit (to child), C grandchild report */
	int32_t pid;
	int64_t cpu_us;
};

struct child {
	pid_t pid;
	int rd, wr;     /* parent side: read from child, write to child */
};

static void send_msg(int fd, char tag, int32_t pid, int64_t cpu_us)
{
	struct msg m;
	memset(&m, 0, sizeof(m)); /* padding too: it goes through a pipe */
	m.tag = tag;
	m.pid = pid;
	m.cpu_us = cpu_us;
	CHECK(write(fd, &m, sizeof(m)) == (ssize_t)sizeof(m));
}

static struct msg recv_msg(int fd)
{
	struct msg m;
	CHECK(read(fd, &m, sizeof(m)) == (ssize_t)sizeof(m));
	return m;
}

static volatile uint64_t burn_sink;

static void burn_cpu_ns(uint64_t ns)
{
	uint64_t start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	while (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start < ns)
		for (int i = 0; i < 10000; i++)
			burn_sink += (uint64_t)i * i;
}

static struct child spawn(void (*fn)(int rd, int wr))
{
	int up[2], down[2];
	CHECK(pipe(up) == 0 && pipe(down) == 0);
	fflush(stdout); /* or the child's exit prints it twice */
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		fn(down[0], up[1]);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	return (struct child){ .pid = pid, .rd = up[0], .wr = down[1] };
}

/* Tick at ~100 Hz until the tree is gone.  Each message from the child is
 * answered after a tick has seen the state it announces. */
typedef void (*on_msg_fn)(struct child *ch, const struct msg *m, void *ud);

static struct rusage run_sampled(struct host_sampler *s, struct child *ch, unsigned kinds, on_msg_fn on_msg,
				 void *ud)
{
	for (;;) {
		int live = host_sampler_tick(s, kinds);
		CHECK(live >= 0);
		if (live == 0)
			break;
		struct pollfd p = { .fd = ch->rd, .events = POLLIN };
		int n = poll(&p, 1, 10);
		if (n > 0 && (p.revents & POLLIN)) {
			struct msg m;
			ssize_t r = read(ch->rd, &m, sizeof(m));
			if (r == (ssize_t)sizeof(m)) {
				CHECK(host_sampler_tick(s, kinds) >= 0);
				if (on_msg)
					on_msg(ch, &m, ud);
				else if (m.tag == 'R')
					send_msg(ch->wr, 'G', 0, 0);
				else if (m.tag == 'D')
					send_msg(ch->wr, 'X', 0, 0);
			}
		} else if (n > 0) {
			/* pipe closed: the child is exiting; keep ticking */
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	struct rusage ru;
	int status;
	CHECK(wait4(ch->pid, &status, 0, &ru) == ch->pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(ch->rd);
	close(ch->wr);
	return ru;
}

static uint64_t ru_cpu_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * NSEC_PER_SEC +
	       ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * NSEC_PER_USEC;
}

static struct host_sampler *new_sampler(const char *dir, pid_t root, unsigned sys, unsigned usage,
					uint64_t slice_bytes)
{
	struct host_sampler_config cfg = {
		.data_dir = dir,
		.n_roots = root > 0 ? 1 : 0,
		.roots = { (uint32_t)root },
		.follow_children = true,
		.sys_flags = sys,
		.usage_flags = usage,
		.mono0_ns = mono_ns(),
		.real0_ns = real_ns(),
		.slice_bytes = slice_bytes,
	};
	struct host_sampler *s;
	int r = host_sampler_new(&cfg, &s);
	if (r < 0)
		fprintf(stderr, "host_sampler_new: %s\n", strerror(-r));
	CHECK(r == 0);
	return s;
}

static void finish(struct host_sampler *s, const char *dir)
{
	struct host_sampler_stats st;
	CHECK(host_sampler_finish(s, 1) == 0);
	host_sampler_get_stats(s, &st);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == -EBADF);
	host_sampler_free(s);

	/* bytes counted == bytes on disk */
	uint64_t on_disk = 0;
	for (int src = RAW_SOURCE_HOST_CPU; src <= RAW_SOURCE_USAGE_MEM; src++) {
		char **paths;
		CHECK(raw_list_slices(dir, src, &paths) >= 0);
		for (char **p = paths; *p; p++) {
			struct stat sb;
			CHECK(stat(*p, &sb) == 0);
			on_disk += (uint64_t)sb.st_size;
		}
		raw_paths_free(paths);
	}
	CHECK(st.bytes == on_disk);
	CHECK(st.ticks > 0 && st.records > 0);
}

/* --- tests --------------------------------------------------------------- */

static void test_bad_config(void)
{
	char *dir = subdir("badcfg");
	struct host_sampler_config cfg = { .data_dir = dir, .sys_flags = 1U << 7 };
	struct host_sampler *s;
	CHECK(host_sampler_new(&cfg, &s) == -EINVAL);
	cfg = (struct host_sampler_config){ .data_dir = dir, .usage_flags = 1U << 3 };
	CHECK(host_sampler_new(&cfg, &s) == -EINVAL);
	cfg = (struct host_sampler_config){ .data_dir = dir, .n_roots = HOST_MAX_ROOTS + 1 };
	CHECK(host_sampler_new(&cfg, &s) == -EINVAL);
	cfg = (struct host_sampler_config){ .data_dir = "/nonexistent", .sys_flags = HOST_SYS_CPU };
	CHECK(host_sampler_new(&cfg, &s) == -ENOENT);
	/* a root that does not exist: nothing alive */
	cfg = (struct host_sampler_config){ .data_dir = dir, .n_roots = 1, .roots = { 0x3ffffff0 },
					    .sys_flags = HOST_SYS_CPU };
	CHECK(host_sampler_new(&cfg, &s) == 0);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 0);
	host_sampler_free(s);
	CHECK(host_sampler_free(NULL) == NULL);
	free(dir);
}

/* A child with a hostile name burns 1 s of CPU. */
static void child_burn(int rd, int wr)
{
	prctl(PR_SET_NAME, "a) b (c", 0, 0, 0);
	burn_cpu_ns(NSEC_PER_SEC);
}

static void test_cpu(void)
{
	char *dir = subdir("cpu");
	struct child ch = spawn(child_burn);
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_CPU | HOST_SYS_MEM | HOST_SYS_DISK, 0, 0);
	struct rusage ru = run_sampled(s, &ch, HOST_TICK_SYS, NULL, NULL);
	finish(s, dir);

	uint64_t truth = ru_cpu_ns(&ru);
	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_CPU, (uint32_t)ch.pid);
	printf("cpu: child %d: rusage %.3f s, sampled runtime %.3f s, ticks %.3f s, %d samples\n", ch.pid,
	       (double)truth / 1e9, (double)sum_run(&pv) / 1e9, (double)sum_ticks(&pv) / (double)clk_tck,
	       pv.cpu_samples);
	CHECK(truth >= NSEC_PER_SEC);
	CHECK(pv.cpu_samples > 10);
	CHECK(pv.n_tids == 1 && pv.tids[0] == (uint32_t)ch.pid);
	CHECK_NEAR(sum_run(&pv), truth, 0.10);
	CHECK_NEAR((double)sum_ticks(&pv) * 1e9 / (double)clk_tck, truth, 0.10);

	/* described once (comm with spaces and parentheses survives), exit seen */
	CHECK(pv.n_info >= 1);
	CHECK(pv.info[0].ppid == (uint32_t)getpid() && pv.info[0].is_target == 1);
	CHECK(streq(pv.info[pv.n_info - 1].comm, "a) b (c"));
	CHECK(pv.info[0].starttime > 0);
	CHECK(pv.exited);
	/* the other per-process sources describe the process too */
	struct pid_view pm = view_pid(dir, RAW_SOURCE_HOST_MEM, (uint32_t)ch.pid);
	CHECK(pm.n_info >= 1 && pm.exited && pm.mem_samples > 10);
	free(dir);
}

/* n_burners threads started after sampling begins burn 300 ms each. */
static int n_burners = 3;

static void *thread_burn(void *arg)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < 300 * NSEC_PER_MSEC)
		for (int i = 0; i < 10000; i++)
			burn_sink += (uint64_t)i * i;
	return arg;
}

static void child_threads(int rd, int wr)
{
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	pthread_t t[16];
	for (int i = 0; i < n_burners; i++)
		CHECK(pthread_create(&t[i], NULL, thread_burn, NULL) == 0);
	for (int i = 0; i < n_burners; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
}

/* With few descriptors to spare, files past the budget are opened for each
 * read: same numbers. */
static void test_threads(bool low_fds)
{
	struct rlimit old;
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	n_burners = low_fds ? 8 : 3;
	char *dir = subdir(low_fds ? "threads-lowfd" : "threads");
	struct child ch = spawn(child_threads);
	if (low_fds) {
		/* about 20 fds in use: a budget of ~14 keeps the process
		 * files, the main thread and a few usage pids, not the rest */
		struct rlimit low = { 48, old.rlim_max };
		CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	}
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_CPU | HOST_SYS_MEM | HOST_SYS_DISK,
					     low_fds ? HOST_USAGE_CPU | HOST_USAGE_MEM : 0, 0);
	struct rusage ru = run_sampled(s, &ch, HOST_TICK_SYS | HOST_TICK_USAGE, NULL, NULL);
	CHECK(host_sampler_tick(s, HOST_TICK_USAGE) == 0); /* reaped now: its exit */
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	finish(s, dir);
	uint64_t truth = ru_cpu_ns(&ru);
	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_CPU, (uint32_t)ch.pid);
	printf("threads%s: %d threads seen, rusage %.3f s, sampled %.3f s\n", low_fds ? " (48 fds)" : "",
	       pv.n_tids, (double)truth / 1e9, (double)sum_run(&pv) / 1e9);
	CHECK(pv.n_tids == n_burners + 1);
	if (low_fds) {
		struct pid_view pu = view_pid(dir, RAW_SOURCE_USAGE_CPU, (uint32_t)ch.pid);
		CHECK(pu.exited && pu.proc_cpu_samples > 10);
		CHECK_NEAR((double)pu.last_proc_ticks * 1e9 / (double)clk_tck, truth, 0.10);
		struct pid_view pm = view_pid(dir, RAW_SOURCE_HOST_MEM, (uint32_t)ch.pid);
		CHECK(pm.mem_samples > 10);
	}
	/* each thread's last sample can miss up to one tick of its run */
	CHECK_NEAR(sum_run(&pv), truth, 0.10);
	free(dir);
}

/* Touch 64 MiB, hold it until told. */
#define MEM_BYTES (64ULL << 20)

static void child_mem(int rd, int wr)
{
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	volatile uint8_t *p = malloc(MEM_BYTES);
	CHECK(p);
	for (size_t i = 0; i < MEM_BYTES; i += 4096)
		p[i] = (uint8_t)i;
	send_msg(wr, 'D', 0, 0);
	CHECK(recv_msg(rd).tag == 'X');
	free((void *)p);
}

static void test_mem(void)
{
	char *dir = subdir("mem");
	struct child ch = spawn(child_mem);
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_MEM, 0, 0);
	run_sampled(s, &ch, HOST_TICK_SYS, NULL, NULL);
	finish(s, dir);

	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_MEM, (uint32_t)ch.pid);
	uint64_t base = pv.first_res * (uint64_t)page_size, peak = pv.peak_res * (uint64_t)page_size;
	printf("mem: baseline %.1f MiB, peak %.1f MiB, touched %.1f MiB, %d samples\n", base / 1048576.0,
	       peak / 1048576.0, MEM_BYTES / 1048576.0, pv.mem_samples);
	CHECK(pv.mem_samples >= 2);
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "vgpreload")) {
		/* valgrind's shadow memory is resident in the child too */
		printf("mem: under valgrind: only peak >= touched is checked\n");
		CHECK(peak - base >= MEM_BYTES);
	} else {
#ifdef __SANITIZE_ADDRESS__
		/* ASan's shadow of the allocation (an eighth of it) may be
		 * resident as well, depending on how its allocator poisons it */
		printf("mem: under ASan: touched plus up to its shadow\n");
		CHECK(peak - base >= MEM_BYTES * 9 / 10 && peak - base <= (MEM_BYTES + MEM_BYTES / 8) * 11 / 10);
#else
		CHECK_NEAR(peak - base, MEM_BYTES, 0.10);
#endif
	}
	free(dir);
}

/* Memory that changes while its process sleeps: a second process sharing
 * the child's mm (clone CLONE_VM, not a thread) touches 64 MiB and says so
 * while the child sleeps in read.  The child never runs, so the sampler
 * repeats its statm between reads; every record taken SLOW_REFRESH_MS
 * after the toucher finished (the bound man msprof states for
 * --host-sys-freq) must hold the new memory. */
#define SLOW_REFRESH_MS 20
static int shared_wr;

static int toucher(void *arg)
{
	(void)arg;
	/* raw calls only: this process shares the child's memory but not
	 * its thread (no libc state of its own) */
	uint8_t *p = (uint8_t *)syscall(SYS_mmap, NULL, MEM_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		syscall(SYS_exit, 1);
	for (size_t i = 0; i < MEM_BYTES; i += 4096)
		p[i] = 1;
	struct msg m;
	memset(&m, 0, sizeof(m));
	m.tag = 'D';
	syscall(SYS_write, shared_wr, &m, sizeof(m));
	syscall(SYS_exit, 0);
	return 0;
}

static void child_mem_shared(int rd, int wr)
{
	static uint8_t stack[64 * 1024] __attribute__((aligned(16)));
	shared_wr = wr;
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	pid_t t = clone(toucher, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	CHECK(t > 0);
	CHECK(recv_msg(rd).tag == 'X'); /* asleep here while t touches */
	CHECK(waitpid(t, NULL, 0) == t);
}

struct shared_view {
	uint32_t pid;
	uint64_t done_ns, exit_ns, base_res; /* exit_ns: told to exit (its mm goes) */
	int samples, after, after_ok;
};

static void shared_cb(struct rec_view *v, void *ud)
{
	struct shared_view *sv = ud;
	if (v->type != RAW_PROC_MEM)
		return;
	uint32_t n = raw_cur_u32(&v->c);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pid = raw_cur_u32(&v->c);
		(void)raw_cur_u32(&v->c);
		(void)raw_cur_u64(&v->c);
		uint64_t res = raw_cur_u64(&v->c) * (uint64_t)page_size;
		(void)raw_cur_u64(&v->c);
		if (pid != sv->pid)
			continue;
		if (sv->samples++ == 0)
			sv->base_res = res;
		if (v->ts >= sv->done_ns + SLOW_REFRESH_MS * NSEC_PER_MSEC && v->ts < sv->exit_ns) {
			sv->after++;
			sv->after_ok += res >= sv->base_res + MEM_BYTES * 9 / 10;
		}
	}
}

static void test_mem_shared(void)
{
	char *dir = subdir("mem-shared");
	struct child ch = spawn(child_mem_shared);
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_MEM, 0, 0);
	CHECK(recv_msg(ch.rd).tag == 'R');
	/* at 1000 Hz: ticks long enough apart for the child to be asleep */
	for (int i = 0; i < 30; i++, usleep(1000))
		CHECK(host_sampler_tick(s, HOST_TICK_SYS) > 0);
	send_msg(ch.wr, 'G', 0, 0);
	uint64_t done = 0;
	for (;;) {
		CHECK(host_sampler_tick(s, HOST_TICK_SYS) > 0);
		struct pollfd p = { .fd = ch.rd, .events = POLLIN };
		if (poll(&p, 1, 1) > 0) {
			CHECK(recv_msg(ch.rd).tag == 'D');
			done = mono_ns();
			break;
		}
	}
	while (mono_ns() - done < 3 * SLOW_REFRESH_MS * NSEC_PER_MSEC) {
		CHECK(host_sampler_tick(s, HOST_TICK_SYS) > 0);
		usleep(1000);
	}
	struct host_sampler_stats st;
	host_sampler_get_stats(s, &st);
	uint64_t exit_ns = mono_ns();
	send_msg(ch.wr, 'X', 0, 0);
	run_sampled(s, &ch, HOST_TICK_SYS, NULL, NULL);
	finish(s, dir);

	struct shared_view sv = { .pid = (uint32_t)ch.pid, .done_ns = done, .exit_ns = exit_ns };
	for_each_record(dir, RAW_SOURCE_HOST_MEM, shared_cb, &sv);
	printf("mem-shared: %d of %d samples %d ms after another process touched the child's memory hold it; "
	       "%llu reads in %llu ticks\n", sv.after_ok, sv.after, SLOW_REFRESH_MS,
	       (unsigned long long)st.tree_reads, (unsigned long long)st.ticks);
	CHECK(sv.after > 0 && sv.after_ok == sv.after);
	free(dir);
}

/* Write and fsync 32 MiB in dir. */
#define DISK_BYTES (32ULL << 20)
static const char *disk_dir;

static void child_disk(int rd, int wr)
{
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	char path[4096];
	snprintf(path, sizeof(path), "%s/diskwrite.%d", disk_dir, (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	static uint8_t chunk[1 << 20];
	memset(chunk, 0x5a, sizeof(chunk));
	for (size_t done = 0; done < DISK_BYTES; done += sizeof(chunk))
		CHECK(write(fd, chunk, sizeof(chunk)) == (ssize_t)sizeof(chunk));
	CHECK(fsync(fd) == 0);
	close(fd);
	unlink(path);
	send_msg(wr, 'D', 0, 0);
	CHECK(recv_msg(rd).tag == 'X');
}

static void test_disk(void)
{
	/* page-cache writes reach write_bytes only on a real block device */
	static const char *const candidates[] = { ".", "/var/tmp" };
	char *dir = subdir("disk");
	disk_dir = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(candidates) && !disk_dir; i++) {
		struct statfs sf;
		if (statfs(candidates[i], &sf) == 0 && sf.f_type != 0x01021994 /* TMPFS_MAGIC */ &&
		    access(candidates[i], W_OK) == 0)
			disk_dir = candidates[i];
	}
	if (!disk_dir) {
		printf("disk: skipped: only tmpfs is writable here\n");
		free(dir);
		return;
	}
	struct child ch = spawn(child_disk);
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_DISK, 0, 0);
	run_sampled(s, &ch, HOST_TICK_SYS, NULL, NULL);
	finish(s, dir);

	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_DISK, (uint32_t)ch.pid);
	uint64_t wb = pv.last_wb - pv.first_wb, wc = pv.last_wchar - pv.first_wchar;
	printf("disk: in '%s': write_bytes +%.1f MiB, wchar +%.1f MiB, written %.1f MiB, %d samples\n", disk_dir,
	       wb / 1048576.0, wc / 1048576.0, DISK_BYTES / 1048576.0, pv.io_samples);
	CHECK(pv.io_samples >= 2);
	CHECK(wc >= DISK_BYTES);
	CHECK_NEAR(wb, DISK_BYTES, 0.10);
	free(dir);
}

/* The child forks a grandchild later; the grandchild burns 400 ms. */
static void child_forks(int rd, int wr)
{
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	pid_t g = fork();
	CHECK(g >= 0);
	if (g == 0) {
		prctl(PR_SET_NAME, "grandchild", 0, 0, 0);
		burn_cpu_ns(400 * NSEC_PER_MSEC);
		_exit(0);
	}
	int status;
	CHECK(waitpid(g, &status, 0) == g);
	struct rusage ru;
	CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0);
	send_msg(wr, 'C', g, (int64_t)(ru_cpu_ns(&ru) / NSEC_PER_USEC));
	CHECK(recv_msg(rd).tag == 'X');
}

struct gc_report {
	int32_t pid;
	int64_t cpu_us;
};

static void on_gc_msg(struct child *ch, const struct msg *m, void *ud)
{
	struct gc_report *rep = ud;
	if (m->tag == 'R')
		send_msg(ch->wr, 'G', 0, 0);
	else if (m->tag == 'C') {
		rep->pid = m->pid;
		rep->cpu_us = m->cpu_us;
		send_msg(ch->wr, 'X', 0, 0);
	}
}

/* A child running fn, sampled into dir (cpu) until it ends: what it
 * reported ('C', on_gc_msg), the sampler's stats, the child's pid
 * (ret_pid may be NULL). */
static struct gc_report sample_reporter(const char *dir, void (*fn)(int rd, int wr), struct host_sampler_stats *st,
					pid_t *ret_pid)
{
	struct child ch = spawn(fn);
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_CPU, 0, 0);
	struct gc_report rep = { 0 };
	run_sampled(s, &ch, HOST_TICK_SYS, on_gc_msg, &rep);
	host_sampler_get_stats(s, st);
	finish(s, dir);
	if (ret_pid)
		*ret_pid = ch.pid;
	return rep;
}

static void test_grandchild(bool fallback)
{
	if (fallback)
		setenv("MSPROF_TEST_NO_PROC_CHILDREN", "1", 1);
	else
		unsetenv("MSPROF_TEST_NO_PROC_CHILDREN");
	char *dir = subdir(fallback ? "grandchild-fallback" : "grandchild");
	struct host_sampler_stats st;
	pid_t child;
	struct gc_report rep = sample_reporter(dir, child_forks, &st, &child);
	CHECK(st.seen_pids == 2 && st.live_pids == 0);
	unsetenv("MSPROF_TEST_NO_PROC_CHILDREN");

	CHECK(rep.pid > 0);
	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_CPU, (uint32_t)rep.pid);
	uint64_t truth = (uint64_t)rep.cpu_us * NSEC_PER_USEC;
	printf("grandchild%s: pid %d: rusage %.3f s, sampled %.3f s, %d samples\n", fallback ? " (ppid scan)" : "",
	       rep.pid, (double)truth / 1e9, (double)sum_run(&pv) / 1e9, pv.cpu_samples);
	CHECK(pv.n_info >= 1);
	CHECK(pv.info[0].ppid == (uint32_t)child && pv.info[0].is_target == 1);
	CHECK(streq(pv.info[pv.n_info - 1].comm, "grandchild"));
	CHECK(pv.exited);
	CHECK(pv.cpu_samples >= 3);
	CHECK_NEAR(sum_run(&pv), truth, 0.10);
	free(dir);
}

/* Fork a process that forks G and exits at once: G, an orphan, burns
 * 300 ms of CPU and reports its run time ('C') on wr.  The maker's pid. */
static pid_t fork_orphan_maker(int wr)
{
	pid_t c = fork();
	CHECK(c >= 0);
	if (c > 0)
		return c;
	pid_t g = fork();
	CHECK(g >= 0);
	if (g == 0) {
		prctl(PR_SET_NAME, "orphan", 0, 0, 0);
		burn_cpu_ns(300 * NSEC_PER_MSEC);
		struct rusage ru;
		CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
		send_msg(wr, 'C', getpid(), (int64_t)(ru_cpu_ns(&ru) / NSEC_PER_USEC));
	}
	_exit(0);
}

/* An orphan of a process that never ran goes to an ancestor that never
 * ran either: the top of the tree is a subreaper asleep in a read, with a
 * child B that sleeps through a few rescans (the whole tree asleep: they
 * skip it), then forks C, which forks G and exits at once.  G goes to the
 * top (the nearest subreaper) and burns CPU while B and the top sleep on:
 * it is followed, with all its run time, because B ran (the rescan looks
 * above every process that ran). */
static void child_subreaper(int rd, int wr)
{
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	pid_t b = fork();
	CHECK(b >= 0);
	if (b == 0) {
		usleep(150 * 1000);
		(void)fork_orphan_maker(wr);
		for (;;)
			pause(); /* C stays a zombie: B never runs again */
	}
	CHECK(recv_msg(rd).tag == 'X');
	CHECK(kill(b, SIGKILL) == 0);
	/* B, the orphan and C (a zombie of B's), ours now */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* The same with a parent that is out of date: below the sleeping
 * subreaper, M makes Y and exits, and Y goes to the top while its last
 * read stat still names M (a process that does not run has its stat read
 * once a second).  Y's child S exits after 300 ms; Y wakes, forks D, which
 * forks G and exits at once: G goes to the top.  The walk up from S stops
 * at Y, whose parent is no process of the tree: every process is looked
 * at, and G is followed. */
static void child_stale_parent(int rd, int wr)
{
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	int yp[2];
	CHECK(pipe(yp) == 0);
	pid_t m = fork();
	CHECK(m >= 0);
	if (m == 0) {
		pid_t y = fork();
		CHECK(y >= 0);
		if (y == 0) {
			pid_t sl = fork();
			CHECK(sl >= 0);
			if (sl == 0) {
				usleep(300 * 1000);
				_exit(0);
			}
			CHECK(waitpid(sl, NULL, 0) == sl);
			pid_t d = fork_orphan_maker(wr);
			CHECK(waitpid(d, NULL, 0) == d);
			for (;;)
				pause();
		}
		CHECK(write(yp[1], &y, sizeof y) == (ssize_t)sizeof y);
		usleep(100 * 1000);
		_exit(0);
	}
	pid_t y;
	CHECK(read(yp[0], &y, sizeof y) == (ssize_t)sizeof y);
	CHECK(waitpid(m, NULL, 0) == m);
	CHECK(recv_msg(rd).tag == 'X');
	CHECK(kill(y, SIGKILL) == 0);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

static void test_orphan(const char *name, void (*fn)(int rd, int wr))
{
	char *dir = subdir(name);
	struct host_sampler_stats st;
	struct gc_report rep = sample_reporter(dir, fn, &st, NULL);
	CHECK(rep.pid > 0);
	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_CPU, (uint32_t)rep.pid);
	uint64_t truth = (uint64_t)rep.cpu_us * NSEC_PER_USEC;
	printf("%s: orphan %d: rusage %.3f s, sampled %.3f s, %d samples, ppid %u; %" PRIu64 " processes not "
	       "looked at by rescans\n", name, rep.pid, (double)truth / 1e9, (double)sum_run(&pv) / 1e9,
	       pv.cpu_samples, pv.n_info ? pv.info[0].ppid : 0, st.rescan_skipped);
	/* the sleeping ones were passed over, or the test shows nothing */
	CHECK(st.rescan_skipped > 0);
	CHECK(pv.n_info >= 1);
	CHECK(streq(pv.info[pv.n_info - 1].comm, "orphan"));
	CHECK(pv.cpu_samples >= 3);
	CHECK_NEAR(sum_run(&pv), truth, 0.10);
	free(dir);
}

/* exec changes comm: described again */
static void child_exec(int rd, int wr)
{
	prctl(PR_SET_NAME, "before-exec", 0, 0, 0);
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	close(rd);
	close(wr);
	execl("/bin/sleep", "sleep", "0.3", (char *)NULL);
	_exit(1);
}

static void test_exec(void)
{
	char *dir = subdir("exec");
	struct child ch = spawn(child_exec);
	CHECK(recv_msg(ch.rd).tag == 'R'); /* named before the sampler looks */
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_CPU, 0, 0);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 1);
	send_msg(ch.wr, 'G', 0, 0);
	run_sampled(s, &ch, HOST_TICK_SYS, NULL, NULL);
	finish(s, dir);
	struct pid_view pv = view_pid(dir, RAW_SOURCE_HOST_CPU, (uint32_t)ch.pid);
	CHECK(pv.n_info == 2);
	CHECK(streq(pv.info[0].comm, "before-exec") && streq(pv.info[1].comm, "sleep"));
	CHECK(pv.info[0].starttime == pv.info[1].starttime);
	free(dir);
}

/* Loopback traffic shows in lo's counters; every interface is listed. */
struct net_view {
	int samples;
	uint64_t first_rx, last_rx, first_txp, last_txp;
	char names[64][16];
	int n_names;
};

static void net_cb(struct rec_view *v, void *ud)
{
	struct net_view *nv = ud;
	if (v->type != RAW_NET_DEV)
		return;
	uint32_t n = raw_cur_u32(&v->c);
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		raw_cur_str(&v->c, name, sizeof(name));
		uint64_t f[8];
		for (int k = 0; k < 8; k++)
			f[k] = raw_cur_u64(&v->c);
		if (nv->samples == 0 && nv->n_names < 64)
			strcpy(nv->names[nv->n_names++], name);
		if (streq(name, "lo")) {
			if (nv->samples == 0) {
				nv->first_rx = f[0];
				nv->first_txp = f[5];
			}
			nv->last_rx = f[0];
			nv->last_txp = f[5];
		}
	}
	CHECK(v->c.err == 0 && v->c.left == 0);
	nv->samples++;
}

static void test_network(void)
{
	char *dir = subdir("net");
	struct host_sampler *s = new_sampler(dir, 0, HOST_SYS_NETWORK, 0, 0);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 0);

	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(rx >= 0 && tx >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	CHECK(bind(rx, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(getsockname(rx, (struct sockaddr *)&a, &al) == 0);
	enum { N = 500, SZ = 1000 };
	char buf[SZ] = { 0 };
	for (int i = 0; i < N; i++) {
		CHECK(sendto(tx, buf, SZ, 0, (struct sockaddr *)&a, sizeof(a)) == SZ);
		CHECK(recv(rx, buf, SZ, 0) == SZ);
	}
	close(rx);
	close(tx);
	/* the machine's network counters are read at about 50 Hz at most */
	(void)nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000000L }, NULL);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 0);
	finish(s, dir);

	struct net_view nv = { 0 };
	for_each_record(dir, RAW_SOURCE_HOST_NET, net_cb, &nv);
	printf("net: lo rx +%llu bytes, tx +%llu packets for %d x %d bytes sent; %d interfaces\n",
	       (unsigned long long)(nv.last_rx - nv.first_rx), (unsigned long long)(nv.last_txp - nv.first_txp), N,
	       SZ, nv.n_names);
	CHECK(nv.samples == 2);
	CHECK(nv.last_rx - nv.first_rx >= (uint64_t)N * SZ);
	CHECK(nv.last_txp - nv.first_txp >= N);
	struct if_nameindex *ifs = if_nameindex();
	CHECK(ifs);
	int n_ifs = 0;
	for (struct if_nameindex *i = ifs; i->if_index; i++, n_ifs++) {
		bool found = false;
		for (int k = 0; k < nv.n_names; k++)
			found = found || streq(nv.names[k], i->if_name);
		CHECK(found);
	}
	if_freenameindex(ifs);
	CHECK(n_ifs == nv.n_names);
	free(dir);
}

/* The usage sampler: whole machine plus every process. */
struct usage_view {
	int sys_cpu_samples, n_cpu_lines;
	bool have_aggregate;
	uint64_t first_total, last_total;
	int sys_mem_samples;
	uint64_t mem_total;
	bool self_info, child_info, init_info;
	uint32_t self_target, child_target;
	pid_t self, child;
};

static void usage_cb(struct rec_view *v, void *ud)
{
	struct usage_view *u = ud;
	struct raw_cur *c = &v->c;
	if (v->type == RAW_SYS_CPU) {
		uint32_t n = raw_cur_u32(c);
		int lines = 0;
		for (uint32_t i = 0; i < n; i++) {
			int32_t cpu = (int32_t)raw_cur_u32(c);
			CHECK(raw_cur_u32(c) == 0);
			uint64_t total = 0;
			for (int k = 0; k < 8; k++)
				total += raw_cur_u64(c);
			if (cpu == -1) {
				u->have_aggregate = true;
				if (u->sys_cpu_samples == 0)
					u->first_total = total;
				u->last_total = total;
			} else
				CHECK(cpu == lines - 1);
			lines++;
		}
		u->n_cpu_lines = lines;
		u->sys_cpu_samples++;
		CHECK(c->err == 0 && c->left == 0);
	} else if (v->type == RAW_SYS_MEM) {
		u->mem_total = raw_cur_u64(c);
		for (int k = 0; k < 8; k++)
			(void)raw_cur_u64(c);
		uint64_t avail = raw_cur_u64(c); /* MemAvailable, since Linux 3.14 */
		CHECK(avail > 0 && avail <= u->mem_total);
		CHECK(c->err == 0 && c->left == 0);
		u->sys_mem_samples++;
	} else if (v->type == RAW_PROC_INFO) {
		struct raw_proc_info p;
		info_decode(c, v->ts, &p);
		if (p.pid == (uint32_t)u->self) {
			u->self_info = true;
			u->self_target = p.is_target;
		}
		if (p.pid == (uint32_t)u->child) {
			u->child_info = true;
			u->child_target = p.is_target;
		}
		if (p.pid == 1)
			u->init_info = true;
	}
}

static void test_usage(void)
{
	char *dir = subdir("usage");
	struct child ch = spawn(child_burn);
	struct host_sampler *s = new_sampler(dir, ch.pid, 0, HOST_USAGE_CPU | HOST_USAGE_MEM, 0);
	struct rusage ru = run_sampled(s, &ch, HOST_TICK_USAGE, NULL, NULL);
	/* one more usage tick: the child is gone from /proc now */
	CHECK(host_sampler_tick(s, HOST_TICK_USAGE) == 0);
	finish(s, dir);

	struct usage_view u = { .self = getpid(), .child = ch.pid };
	for_each_record(dir, RAW_SOURCE_USAGE_CPU, usage_cb, &u);
	for_each_record(dir, RAW_SOURCE_USAGE_MEM, usage_cb, &u);
	struct sysinfo si;
	CHECK(sysinfo(&si) == 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK(u.sys_cpu_samples > 10 && u.have_aggregate);
	CHECK(u.n_cpu_lines == ncpu + 1);
	CHECK(u.last_total > u.first_total);
	CHECK(u.sys_mem_samples == u.sys_cpu_samples);
	CHECK(u.mem_total == (uint64_t)si.totalram * si.mem_unit / 1024);
	CHECK(u.self_info && u.self_target == 0);
	CHECK(u.child_info && u.child_target == 1);
	CHECK(u.init_info);

	struct pid_view pc = view_pid(dir, RAW_SOURCE_USAGE_CPU, (uint32_t)ch.pid);
	uint64_t truth = ru_cpu_ns(&ru);
	double sampled = (double)pc.last_proc_ticks * 1e9 / (double)clk_tck;
	printf("usage: child cpu rusage %.3f s, sampled %.3f s; %d cpu lines; MemTotal %llu kB\n",
	       (double)truth / 1e9, sampled / 1e9, u.n_cpu_lines, (unsigned long long)u.mem_total);
	CHECK(pc.exited);
	CHECK_NEAR(sampled, truth, 0.10);
	struct pid_view pm = view_pid(dir, RAW_SOURCE_USAGE_MEM, (uint32_t)getpid());
	CHECK(pm.mem_samples == u.sys_mem_samples && pm.peak_res > 0);
	free(dir);
}

/* Small slices: every slice describes the processes it samples. */
struct slice_view {
	int n_slices;
	bool info_in[1024];
	bool data_in[1024];
	uint32_t pid;
	bool end_last;
};

static void slice_cb(struct rec_view *v, void *ud)
{
	struct slice_view *sv = ud;
	if (v->slice >= 1024)
		return;
	if (v->slice + 1 > sv->n_slices)
		sv->n_slices = v->slice + 1;
	sv->end_last = v->type == RAW_SESSION_END;
	if (v->type == RAW_PROC_INFO) {
		struct raw_proc_info p;
		info_decode(&v->c, v->ts, &p);
		if (p.pid == sv->pid)
			sv->info_in[v->slice] = true;
	}
	if (v->type == RAW_THREAD_CPU)
		sv->data_in[v->slice] = true;
}

static void child_sleep(int rd, int wr)
{
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'G');
	CHECK(recv_msg(rd).tag == 'X');
}

static void test_slices(void)
{
	char *dir = subdir("slices");
	struct child ch = spawn(child_sleep);
	CHECK(recv_msg(ch.rd).tag == 'R');
	struct host_sampler *s = new_sampler(dir, ch.pid, HOST_SYS_CPU, 0, 1024);
	for (int i = 0; i < 200; i++)
		CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 1);
	send_msg(ch.wr, 'G', 0, 0);
	send_msg(ch.wr, 'X', 0, 0);
	int status;
	CHECK(waitpid(ch.pid, &status, 0) == ch.pid);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 0);
	finish(s, dir);
	close(ch.rd);
	close(ch.wr);

	struct slice_view sv = { .pid = (uint32_t)ch.pid };
	for_each_record(dir, RAW_SOURCE_HOST_CPU, slice_cb, &sv);
	printf("slices: %d slices of <= 1 KiB\n", sv.n_slices);
	CHECK(sv.n_slices > 5);
	for (int i = 0; i < sv.n_slices && i < 1024; i++)
		CHECK(!sv.data_in[i] || sv.info_in[i] || i == 0);
	CHECK(sv.end_last);
	free(dir);
}


/* --- skipping what has not run ------------------------------------------------
 * A child with a sleeping main thread, a sleeping thread and one working a
 * little (1 ms of CPU and a write to /dev/null every 5 ms).  Around every
 * tick the test reads each thread's stat and schedstat and the process's io
 * itself: the sampler's entry must lie between the two reads (equal to them
 * where the thread slept through), whether it read the files or repeated
 * what it had, and skipping must read fewer files than reading everything. */

#define SKIP_TICKS 150
#define SKIP_THREADS 3

struct truth { uint64_t ut, st, run; };
struct skip_tick {
	uint64_t t0, t1;
	struct truth before[SKIP_THREADS], after[SKIP_THREADS];
	uint64_t wchar0, wchar1;
};
struct skip_view {
	const struct skip_tick *ticks;
	const uint32_t *tids;
	uint32_t pid;
	int entries, matched, io_matched;
};

static void *thr_sleep(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *thr_duty(void *arg)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	for (;;) {
		uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < NSEC_PER_MSEC)
			for (int i = 0; i < 1000; i++)
				burn_sink += (uint64_t)i * i;
		CHECK(write(fd, "x", 1) == 1);
		usleep(4000);
	}
	return NULL;
}

static void child_skip(int rd, int wr)
{
	pthread_t a, b;
	CHECK(pthread_create(&a, NULL, thr_sleep, NULL) == 0);
	CHECK(pthread_create(&b, NULL, thr_duty, NULL) == 0);
	send_msg(wr, 'R', 0, 0);
	CHECK(recv_msg(rd).tag == 'X');
	_exit(0);
}

static uint64_t field_u64(const char *p, int field)
{
	const char *q = strrchr(p, ')');
	CHECK(q);
	for (int f = 2; f < field; f++) {
		q = strchr(q + 1, ' ');
		CHECK(q);
	}
	return strtoull(q + 1, NULL, 10);
}

static void read_truth(pid_t pid, const uint32_t *tids, struct truth *t, uint64_t *wchar)
{
	char path[96], buf[2048];
	for (int k = 0; k < SKIP_THREADS; k++) {
		snprintf(path, sizeof path, "/proc/%d/task/%u/stat", (int)pid, tids[k]);
		int fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		ssize_t n = read(fd, buf, sizeof buf - 1);
		CHECK(n > 0);
		buf[n] = 0;
		close(fd);
		t[k].ut = field_u64(buf, 14);
		t[k].st = field_u64(buf, 15);
		snprintf(path, sizeof path, "/proc/%d/task/%u/schedstat", (int)pid, tids[k]);
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		n = read(fd, buf, sizeof buf - 1);
		CHECK(n > 0);
		buf[n] = 0;
		close(fd);
		t[k].run = strtoull(buf, NULL, 10);
	}
	snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	CHECK(n > 0);
	buf[n] = 0;
	close(fd);
	const char *w = strstr(buf, "wchar:");
	CHECK(w);
	*wchar = strtoull(w + 6, NULL, 10);
}

static const struct skip_tick *tick_of(const struct skip_view *v, uint64_t ts)
{
	for (int i = 0; i < SKIP_TICKS; i++)
		if (ts >= v->ticks[i].t0 && ts <= v->ticks[i].t1)
			return &v->ticks[i];
	return NULL;
}

static void skip_cb(struct rec_view *v, void *ud)
{
	struct skip_view *sv = ud;
	struct raw_cur *c = &v->c;
	if (v->type != RAW_THREAD_CPU && v->type != RAW_PROC_IO)
		return;
	const struct skip_tick *t = tick_of(sv, v->ts);
	CHECK(t);
	uint32_t n = raw_cur_u32(c);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pid = raw_cur_u32(c);
		if (v->type == RAW_PROC_IO) {
			(void)raw_cur_u32(c);
			(void)raw_cur_u64(c);
			uint64_t wchar = raw_cur_u64(c);
			for (int k = 0; k < 4; k++)
				(void)raw_cur_u64(c);
			if (pid != sv->pid)
				continue;
			CHECK(t->wchar0 <= wchar && wchar <= t->wchar1);
			sv->io_matched++;
			continue;
		}
		uint32_t tid = raw_cur_u32(c);
		uint64_t ut = raw_cur_u64(c), st = raw_cur_u64(c), run = raw_cur_u64(c);
		(void)raw_cur_u32(c);
		(void)raw_cur_u32(c);
		if (pid != sv->pid)
			continue;
		sv->entries++;
		for (int k = 0; k < SKIP_THREADS; k++) {
			if (sv->tids[k] != tid)
				continue;
			const struct truth *a = &t->before[k], *b = &t->after[k];
			if (!(a->ut <= ut && ut <= b->ut && a->st <= st && st <= b->st && a->run <= run && run <= b->run)) {
				fprintf(stderr, "tid %u: recorded ut %llu st %llu run %llu, truth before %llu %llu %llu after %llu %llu %llu\n",
					tid, (unsigned long long)ut, (unsigned long long)st, (unsigned long long)run,
					(unsigned long long)a->ut, (unsigned long long)a->st, (unsigned long long)a->run,
					(unsigned long long)b->ut, (unsigned long long)b->st, (unsigned long long)b->run);
				exit(1);
			}
			sv->matched++;
		}
	}
	CHECK(c->err == 0 && c->left == 0);
}

/* Returns the tree's reads per tick. */
static double skip_run(const char *name, unsigned sys, bool full)
{
	char *dir = subdir(name);
	if (full)
		setenv("MSPROF_TEST_HOST_FULL_READ", "1", 1);
	struct child ch = spawn(child_skip);
	CHECK(recv_msg(ch.rd).tag == 'R');
	uint32_t tids[SKIP_THREADS];
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)ch.pid);
	DIR *d = opendir(path);
	CHECK(d);
	int nt = 0;
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.' && nt < SKIP_THREADS)
			tids[nt++] = (uint32_t)strtoul(de->d_name, NULL, 10);
	closedir(d);
	CHECK(nt == SKIP_THREADS);

	struct host_sampler *s = new_sampler(dir, ch.pid, sys, 0, 0);
	unsetenv("MSPROF_TEST_HOST_FULL_READ");
	struct skip_tick *ticks = calloc(SKIP_TICKS, sizeof(*ticks));
	CHECK(ticks);
	for (int i = 0; i < SKIP_TICKS; i++) {
		struct skip_tick *t = &ticks[i];
		read_truth(ch.pid, tids, t->before, &t->wchar0);
		t->t0 = mono_ns();
		CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 1);
		t->t1 = mono_ns();
		read_truth(ch.pid, tids, t->after, &t->wchar1);
		usleep(1000);
	}
	struct host_sampler_stats st;
	host_sampler_get_stats(s, &st);
	send_msg(ch.wr, 'X', 0, 0);
	int status;
	CHECK(waitpid(ch.pid, &status, 0) == ch.pid);
	CHECK(host_sampler_tick(s, HOST_TICK_SYS) == 0);
	finish(s, dir);
	close(ch.rd);
	close(ch.wr);

	struct skip_view sv = { .ticks = ticks, .tids = tids, .pid = (uint32_t)ch.pid };
	for_each_record(dir, RAW_SOURCE_HOST_CPU, skip_cb, &sv);
	if (sys & HOST_SYS_DISK)
		for_each_record(dir, RAW_SOURCE_HOST_DISK, skip_cb, &sv);
	/* every thread in (nearly) every tick, each bracketed by the truth */
	CHECK(sv.matched == sv.entries && sv.matched >= SKIP_THREADS * (SKIP_TICKS - 2));
	CHECK(!(sys & HOST_SYS_DISK) || sv.io_matched >= SKIP_TICKS - 2);
	double per_tick = (double)st.tree_reads / SKIP_TICKS;
	printf("skip %-14s: %d thread entries, %d io entries within the truth; %.2f reads a tick\n", name,
	       sv.matched, sv.io_matched, per_tick);
	free(ticks);
	free(dir);
	return per_tick;
}

static void test_skip(void)
{
	double full = skip_run("skip-full", HOST_SYS_CPU | HOST_SYS_DISK, true);
	double disk = skip_run("skip-disk", HOST_SYS_CPU | HOST_SYS_DISK, false);
	double cpu = skip_run("skip-cpu", HOST_SYS_CPU, false);
	/* full: 3 schedstat + 3 stat + the process's stat... ; skipping: the
	 * sleeping threads' stat and most of the io reads go */
	CHECK(disk < full);
	CHECK(cpu < full);
}

int main(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	clk_tck = sysconf(_SC_CLK_TCK);
	signal(SIGPIPE, SIG_IGN);
	CHECK(mkdtemp(tmpdir));
	test_bad_config();
	test_cpu();
	test_threads(false);
	test_threads(true);
	test_mem();
	test_mem_shared();
	test_disk();
	test_grandchild(false);
	test_grandchild(true);
	test_orphan("subreaper", child_subreaper);
	test_orphan("stale-parent", child_stale_parent);
	test_exec();
	test_network();
	test_usage();
	test_slices();
	test_skip();
	rm_rf(tmpdir);
	printf("ok\n");
	return 0;
}
