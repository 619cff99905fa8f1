/* Dynamic mode's replies, timed from the client's side (issue 14, item 5):
 * a real `msprof --dynamic=on sleep ...` prompt driven through pipes, as a
 * script or a user types into it.  Each round sends `help`, `start` and
 * `stop`, each timed from the write of the line to the read that holds its
 * reply; after a stop the round waits for that window's export to finish,
 * so no export child runs under the next round's figures.  `help` is the
 * baseline: the same prompt, the same pipes, a reply that asks nothing of
 * msprofd or the disk.
 *
 *   bench-dynamic MSPROF [ROUNDS]     (MSPROFD_PATH names msprofd)
 *
 * BENCH_SHORT=1: a few rounds (CI checks it completes).  Prints the median
 * and p90 of each, and one goal line for start and one for stop. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 60
#define ROUNDS_SHORT 5
#define WAIT_MS 60000          /* for any one reply: a broken run, not a slow one */

static char out[1 << 20];
static size_t out_len, out_pos; /* what msprof printed; where the next search starts */
static int out_fd = -1, in_fd = -1;
static pid_t msprof_pid;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-dynamic: %s\n--- msprof printed:\n%.*s\n", what, (int)out_len, out);
	if (msprof_pid > 0)
		kill(msprof_pid, SIGKILL);
	exit(1);
}

/* Read until `marker` appears after out_pos; out_pos moves past it. */
static void wait_for(const char *marker)
{
	double until = now_ms() + WAIT_MS;
	for (;;) {
		out[out_len] = '\0';
		char *hit = strstr(out + out_pos, marker);
		if (hit) {
			out_pos = (size_t)(hit - out) + strlen(marker);
			return;
		}
		if (out_len >= sizeof(out) - 1) {
			/* keep what is past out_pos: the run is long, its output is not */
			memmove(out, out + out_pos, out_len - out_pos);
			out_len -= out_pos;
			out_pos = 0;
		}
		struct pollfd p = { .fd = out_fd, .events = POLLIN };
		int left = (int)(until - now_ms());
		if (left <= 0 || poll(&p, 1, left) <= 0) {
			char msg[160];
			snprintf(msg, sizeof(msg), "no '%s' within %d ms", marker, WAIT_MS);
			die(msg);
		}
		ssize_t n = read(out_fd, out + out_len, sizeof(out) - 1 - out_len);
		if (n <= 0)
			die("msprof closed its output");
		out_len += (size_t)n;
	}
}

/* Send a line, wait for its reply; the milliseconds in between. */
static double timed(const char *line, const char *reply)
{
	size_t n = strlen(line);
	double t0 = now_ms();
	if (write(in_fd, line, n) != (ssize_t)n)
		die("cannot write to msprof");
	wait_for(reply);
	double ms = now_ms() - t0;
	wait_for("(msprof) ");
	return ms;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v. */
static double pct(double *v, unsigned n, double p)
{
	qsort(v, n, sizeof(*v), cmp);
	unsigned i = (unsigned)(p * (n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-dynamic MSPROF [ROUNDS]\n");
		return 2;
	}
	const char *s = getenv("BENCH_SHORT");
	unsigned rounds = s && *s && strcmp(s, "0") ? ROUNDS_SHORT : ROUNDS;
	if (argc > 2)
		rounds = (unsigned)strtoul(argv[2], NULL, 10);
	if (rounds < 1)
		rounds = 1;

	char run[] = "/tmp/bench-dynamic-run.XXXXXX", outdir[] = "/tmp/bench-dynamic-out.XXXXXX";
	if (!mkdtemp(run) || !mkdtemp(outdir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("MSPROF_RUNTIME_DIR", run, 1);

	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		perror("pipe");
		return 1;
	}
	char output[sizeof(outdir) + 16];
	snprintf(output, sizeof(output), "--output=%s", outdir);
	msprof_pid = fork();
	if (msprof_pid < 0) {
		perror("fork");
		return 1;
	}
	if (msprof_pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		dup2(from[1], 2);
		execl(argv[1], argv[1], "--dynamic=on", output, "sleep", "100000", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	in_fd = to[1];
	out_fd = from[0];
	signal(SIGPIPE, SIG_IGN);

	double *st = calloc(rounds, sizeof(double)), *sp = calloc(rounds, sizeof(double)),
	       *hp = calloc(rounds, sizeof(double));
	if (!st || !sp || !hp)
		return 1;
	wait_for("(msprof) ");
	for (unsigned i = 0; i < rounds; i++) {
		hp[i] = timed("help\n", "Show this usage.\n");
		st[i] = timed("start\n", "dynamic profiling start success......\n");
		/* a window of some samples: the stop then has data to close */
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000000L }, NULL);
		sp[i] = timed("stop\n", "dynamic profiling stop success......\n");
		wait_for("done.");   /* the window's export, before the next round */
	}

	/* quit; the app is ours to end (launch mode waits for it) */
	if (write(in_fd, "quit\n", 5) != 5)
		die("cannot write quit");
	wait_for("quit success");
	char path[128], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)msprof_pid, (int)msprof_pid);
	FILE *f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f) && atoi(buf) > 0)
		kill(atoi(buf), SIGTERM);
	if (f)
		fclose(f);
	int status;
	while (waitpid(msprof_pid, &status, 0) < 0 && errno == EINTR)
		;
	msprof_pid = 0;

	double s50 = pct(st, rounds, 0.5), s90 = pct(st, rounds, 0.9);
	double p50 = pct(sp, rounds, 0.5), p90 = pct(sp, rounds, 0.9);
	double h50 = pct(hp, rounds, 0.5), h90 = pct(hp, rounds, 0.9);
	printf("dynamic prompt, %u rounds of help, start, stop (launch mode, sleep, default options)%s\n", rounds,
	       rounds == ROUNDS_SHORT && s && *s && strcmp(s, "0") ? " (BENCH_SHORT: a few rounds)" : "");
	printf("%-8s %10s %10s %10s\n", "reply", "median ms", "p90 ms", "÷ help");
	printf("%-8s %10.3f %10.3f %10s\n", "help", h50, h90, "1.00×");
	printf("%-8s %10.3f %10.3f %9.2f×\n", "start", s50, s90, s50 / h50);
	printf("%-8s %10.3f %10.3f %9.2f×\n", "stop", p50, p90, p50 / h50);
	printf("goal: dynamic start reply ÷ help round trip, median | %.3f ms | %.3f ms (help) | %.2f× | ≤ 1 ms\n",
	       s50, h50, s50 / h50);
	printf("goal: dynamic stop reply ÷ help round trip, median | %.3f ms | %.3f ms (help) | %.2f× | ≤ 1 ms\n",
	       p50, h50, p50 / h50);

	/* the run's msprofd and the windows' PROF dirs go with it */
	snprintf(path, sizeof(path), "%s/msprofd.pid", run);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f) && atoi(buf) > 0)
		kill(atoi(buf), SIGTERM);
	if (f)
		fclose(f);
	char cmd[sizeof(run) + sizeof(outdir) + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", run, outdir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench-dynamic: cannot remove %s and %s\n", run, outdir);
	free(st);
	free(sp);
	free(hp);
	/* msprof exits with the app's status (ended by us): only a crash of
	 * msprof itself is a failure */
	return WIFSIGNALED(status) ? 1 : 0;
}
