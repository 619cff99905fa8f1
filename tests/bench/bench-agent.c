/* bench-agent: what an annotation costs the program, measured in one run.
 *
 * The driver runs itself as a worker under three setups and prints a
 * table with ratios against the first:
 *   none       no agent: libms_tools_ext finds no tool, every call a no-op
 *   idle       the agent preloaded, no daemon, not recording
 *   recording  the agent preloaded, recording (standalone mode)
 * Each worker measures ns per call for mstxMarkA and for
 * mstxRangeStartA + mstxRangeEnd pairs, and the slowdown of an
 * annotation-heavy loop (a little work and one mark per iteration).  Then
 * 8 threads x 1M marks while recording with the default buffer: issued,
 * recorded (read back from the file), dropped; recorded + dropped must equal
 * issued (the run fails only on a silent loss, never on time).
 *
 *   bench-agent AGENT_SO      (meson test --benchmark) */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/agent/agent-read.h"
#include "mstx/ms_tools_ext.h"
#include "collectors/raw.h"

#define MARKS 1000000
#define PAIRS 500000
#define HEAVY 300000
#define THREADS 8
#define PER_THREAD 1000000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

static int worker(void)
{
	float v[128];
	for (int i = 0; i < 128; i++)
		v[i] = (float)i * 0.5f;
	mstxMarkA("warm-up", NULL); /* finds the tool */

	double t0 = now();
	for (int i = 0; i < MARKS; i++)
		mstxMarkA("bench mark", NULL);
	double t_mark = (now() - t0) / MARKS * 1e9;

	t0 = now();
	for (int i = 0; i < PAIRS; i++)
		mstxRangeEnd(mstxRangeStartA("bench range", NULL));
	double t_pair = (now() - t0) / PAIRS * 1e9;

	/* the barrier keeps the compiler from computing work() once; plain
	 * and annotated loops alternate, best of 3 each */
	float s = 0;
	double t_plain = 1e30, t_annot = 1e30;
	for (int round = 0; round < 3; round++) {
		t0 = now();
		for (int i = 0; i < HEAVY; i++) {
			__asm__ volatile("" : : "r"(v) : "memory");
			s += work(v, 128);
		}
		double t = now() - t0;
		t_plain = t < t_plain ? t : t_plain;
		t0 = now();
		for (int i = 0; i < HEAVY; i++) {
			mstxMarkA("step", NULL);
			__asm__ volatile("" : : "r"(v) : "memory");
			s += work(v, 128);
		}
		t = now() - t0;
		t_annot = t < t_annot ? t : t_annot;
	}
	sink = s;
	printf("%.2f %.2f %.4f %.2f\n", t_mark, t_pair / 2, t_annot / t_plain, t_plain / HEAVY * 1e9);
	return 0;
}

static void *spin(void *arg)
{
	(void)arg;
	for (int i = 0; i < PER_THREAD; i++)
		mstxMarkA("thread mark", NULL);
	return NULL;
}

static int threads_worker(void)
{
	pthread_t th[THREADS];
	double t0 = now();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, spin, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("%.3f %d\n", now() - t0, (int)getpid());
	return 0;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

/* Run ourselves as `mode` with the environment given; its one line in out. */
static int run_worker(const char *self, const char *mode, char *const env[], char *out, size_t size)
{
	int fd[2];
	if (pipe(fd) < 0)
		return -errno;
	pid_t p = fork();
	if (p == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execle(self, self, mode, (char *)NULL, env);
		_exit(127);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], out, size - 1);
	close(fd[0]);
	int st;
	waitpid(p, &st, 0);
	out[n > 0 ? n : 0] = 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0 ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "worker") == 0)
		return worker();
	if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return threads_worker();
	if (argc != 2) {
		fprintf(stderr, "usage: bench-agent AGENT_SO\n");
		return 2;
	}
	char tmp[] = "/tmp/bench-agent.XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	char preload[4096], out_env[4200], rt_env[4200], path_env[4200];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", argv[1]);
	snprintf(out_env, sizeof(out_env), "MSPROF_AGENT_OUTPUT=%s/rec", tmp);
	snprintf(rt_env, sizeof(rt_env), "MSPROF_RUNTIME_DIR=%s/no-daemon", tmp);
	snprintf(path_env, sizeof(path_env), "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	/* the recording run gets a buffer that holds the whole loop, so the
	 * figure is the cost of recording, not of dropping */
	char *const env_none[] = { path_env, rt_env, NULL };
	char *const env_idle[] = { path_env, rt_env, preload, NULL };
	char *const env_rec[] = { path_env, rt_env, preload, out_env, "MSPROF_AGENT_BUFFER_KB=262144", NULL };
	struct {
		const char *name;
		char *const *env;
		double mark, call, heavy;
	} rows[] = { { "none", env_none, 0, 0, 0 }, { "idle", env_idle, 0, 0, 0 }, { "recording", env_rec, 0, 0, 0 } };

	double iter_ns = 0;
	printf("# ns per annotation call (best of 3 runs); loop ratio = annotated/plain loop time\n");
	printf("%-10s %12s %12s %8s %8s %10s\n", "setup", "mark ns", "range ns/call", "x none", "x none", "loop ratio");
	for (size_t r = 0; r < 3; r++) {
		rows[r].mark = rows[r].call = rows[r].heavy = 1e30;
		for (int k = 0; k < 3; k++) {
			char line[256];
			double m, c, h;
			if (run_worker(argv[0], "worker", rows[r].env, line, sizeof(line)) < 0 ||
			    sscanf(line, "%lf %lf %lf %lf", &m, &c, &h, &iter_ns) != 4) {
				fprintf(stderr, "bench-agent: the %s worker failed\n", rows[r].name);
				return 1;
			}
			rows[r].mark = m < rows[r].mark ? m : rows[r].mark;
			rows[r].call = c < rows[r].call ? c : rows[r].call;
			rows[r].heavy = h < rows[r].heavy ? h : rows[r].heavy;
		}
		printf("%-10s %12.2f %12.2f %8.2f %8.2f %10.4f\n", rows[r].name, rows[r].mark, rows[r].call,
		       rows[r].mark / rows[0].mark, rows[r].call / rows[0].call, rows[r].heavy);
	}
	/* the floor of a recorded event: reading the clock */
	struct timespec ts;
	double c0 = now();
	for (int i = 0; i < 1000000; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("clock_gettime(CLOCK_MONOTONIC) alone: %.2f ns (part of every recorded call)\n", (now() - c0) * 1e3);
	printf("annotation-heavy loop: one mark per %.0f ns of work\n", iter_ns);
	printf("idle agent vs no agent on the annotation-heavy loop: %.4f\n", rows[1].heavy / rows[0].heavy);
	printf("recording vs no agent on the annotation-heavy loop: %.4f\n", rows[2].heavy / rows[0].heavy);

	/* 8 threads x 1M marks, default buffer */
	char *const env_thr[] = { path_env, rt_env, preload, out_env, NULL };
	char line[256], data[4300];
	double secs;
	int pid;
	nftw(tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(tmp, 0700);
	if (run_worker(argv[0], "threads", env_thr, line, sizeof(line)) < 0 || sscanf(line, "%lf %d", &secs, &pid) != 2) {
		fprintf(stderr, "bench-agent: the threads worker failed\n");
		return 1;
	}
	snprintf(data, sizeof(data), "%s/rec/host/data", tmp);
	struct ar_file f;
	int e = ar_load(data, (uint32_t)pid, &f);
	if (e < 0) {
		fprintf(stderr, "bench-agent: cannot read the threads run: %s\n", strerror(-e));
		return 1;
	}
	uint64_t issued = (uint64_t)THREADS * PER_THREAD;
	uint64_t recorded = 0;
	for (size_t i = 0; i < f.n_ev; i++)
		recorded += f.ev[i].rec == RAW_AGENT_MARK;
	printf("%d threads x %d marks recording: %.3f s (%.1f ns per mark per thread), issued %llu, recorded %llu, "
	       "dropped %llu: %s\n",
	       THREADS, PER_THREAD, secs, secs / PER_THREAD * 1e9, (unsigned long long)issued,
	       (unsigned long long)recorded, (unsigned long long)f.dropped,
	       recorded + f.dropped == issued && f.events == recorded ? "no silent loss" : "SILENT LOSS");
	bool ok = recorded + f.dropped == issued && f.events == recorded;
	ar_free(&f);
	nftw(tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	return ok ? 0 : 1;
}
