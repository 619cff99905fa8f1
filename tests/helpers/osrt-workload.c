/* OS runtime calls with their ground truth (tests/integration/launch-osrt.sh):
 * every call the program makes through a wrapped libc function is timed
 * here with CLOCK_MONOTONIC around it and written to OUT.<pid>:
 *
 *   clock <mono ns> <real ns>              read back to back, to place the
 *                                          monotonic times on Unix time
 *   call <pid> <tid> <name> <t0> <t1>      one call (t0, t1: monotonic ns)
 *
 * The main thread sleeps (nanosleep, usleep, poll with no fd), waits for a
 * mutex another thread holds, for a condition another thread signals, for
 * a pipe another thread writes to, writes a file and fsyncs it, and makes
 * 200 fast one-byte reads; errno and return values of failing calls are
 * checked (exit 3 when one is not the real call's).  The helper threads
 * spin, without wrapped calls, until it is time to release the main one.
 * Then a forked child sleeps and exits, and another one execs
 * `osrt-workload exec OUT`, which sleeps twice.
 *
 * `loop STOPFILE` sleeps 2 ms at a time until STOPFILE exists (a process
 * to attach to).
 *
 *   test-osrt-workload OUT | exec OUT | loop STOPFILE */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define WAIT_NS (4 * NSEC_PER_MSEC)
#define MAX_CALLS 1024

struct call { unsigned tid; const char *name; uint64_t t0, t1; };
static struct call calls[MAX_CALLS];
static atomic_uint n_calls;

static uint64_t mono(void) { return clock_ns(CLOCK_MONOTONIC); }
static unsigned tid(void) { return (unsigned)syscall(SYS_gettid); }

static void note(const char *name, uint64_t t0, uint64_t t1)
{
	unsigned i = atomic_fetch_add(&n_calls, 1);
	if (i >= MAX_CALLS)
		atomic_store(&n_calls, MAX_CALLS); /* loop mode keeps none */
	else
		calls[i] = (struct call){ tid(), name, t0, t1 };
}

#define TIMED(name, expr)                                   \
	do {                                                \
		uint64_t t0_ = mono();                      \
		expr;                                       \
		note(name, t0_, mono());                    \
	} while (0)

#define EXPECT(cond)                                                                     \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "osrt-workload: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			exit(3);                                                         \
		}                                                                        \
	} while (0)

static void spin(uint64_t ns)
{
	uint64_t end = mono() + ns;
	while (mono() < end)
		;
}

static void save(const char *out)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s.%d", out, (int)getpid());
	FILE *f = fopen(path, "w");
	EXPECT(f);
	struct timespec m, r;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	fprintf(f, "clock %llu %llu\n", (unsigned long long)m.tv_sec * NSEC_PER_SEC + (unsigned long long)m.tv_nsec,
		(unsigned long long)r.tv_sec * NSEC_PER_SEC + (unsigned long long)r.tv_nsec);
	unsigned n = atomic_load(&n_calls);
	EXPECT(n < MAX_CALLS);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "call %d %u %s %llu %llu\n", (int)getpid(), calls[i].tid, calls[i].name,
			(unsigned long long)calls[i].t0, (unsigned long long)calls[i].t1);
	EXPECT(fclose(f) == 0);
}

static void sleeps(int n)
{
	for (int i = 0; i < n; i++) {
		struct timespec ts = { 0, 2 * NSEC_PER_MSEC };
		int r;
		TIMED("nanosleep", r = nanosleep(&ts, NULL));
		EXPECT(r == 0);
	}
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_int stage;
static bool signalled;
static int pfd[2];

/* Holds mu for WAIT_NS, then signals the condition, then writes to the
 * pipe, WAIT_NS apart; the main thread waits on each in turn.  Its own
 * lock, unlock and write calls are timed too. */
static void *helper(void *arg)
{
	(void)arg;
	int r;
	TIMED("pthread_mutex_lock", r = pthread_mutex_lock(&mu));
	EXPECT(r == 0);
	atomic_store(&stage, 1);
	spin(WAIT_NS);
	pthread_mutex_unlock(&mu);
	while (atomic_load(&stage) != 2)
		;
	spin(WAIT_NS);
	TIMED("pthread_mutex_lock", r = pthread_mutex_lock(&mu));
	EXPECT(r == 0);
	signalled = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	spin(WAIT_NS);
	ssize_t w;
	TIMED("write", w = write(pfd[1], "x", 1));
	EXPECT(w == 1);
	return NULL;
}

static int run(const char *out, const char *self)
{
	int r;
	ssize_t w;
	char buf[64 << 10];
	memset(buf, 'o', sizeof(buf));

	sleeps(3);
	TIMED("usleep", r = usleep(2000));
	EXPECT(r == 0);
	TIMED("poll", r = poll(NULL, 0, 3));
	EXPECT(r == 0);

	/* errno and return values are the real calls' */
	errno = 0;
	TIMED("read", w = read(-1, buf, 1));
	EXPECT(w == -1 && errno == EBADF);
	struct timespec bad = { 0, 2000000000L };
	errno = 0;
	TIMED("nanosleep", r = nanosleep(&bad, NULL));
	EXPECT(r == -1 && errno == EINVAL);

	EXPECT(pipe(pfd) == 0);
	pthread_t th;
	EXPECT(pthread_create(&th, NULL, helper, NULL) == 0);
	while (atomic_load(&stage) != 1)
		;
	TIMED("pthread_mutex_lock", r = pthread_mutex_lock(&mu));  /* waits for the helper */
	EXPECT(r == 0);
	atomic_store(&stage, 2);
	while (!signalled)
		TIMED("pthread_cond_wait", r = pthread_cond_wait(&cv, &mu));
	EXPECT(r == 0);
	pthread_mutex_unlock(&mu);
	TIMED("read", w = read(pfd[0], buf, 1));                    /* waits for the helper */
	EXPECT(w == 1 && buf[0] == 'x');
	TIMED("pthread_join", r = pthread_join(th, NULL));
	EXPECT(r == 0);

	char path[4096];
	snprintf(path, sizeof(path), "%s.data", out);
	int fd;
	TIMED("open", fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600));
	EXPECT(fd >= 0);
	for (int i = 0; i < 4; i++) {
		TIMED("write", w = write(fd, buf, sizeof(buf)));
		EXPECT(w == (ssize_t)sizeof(buf));
	}
	TIMED("fsync", r = fsync(fd));
	EXPECT(r == 0);
	close(fd);
	unlink(path);

	int z;
	TIMED("open", z = open("/dev/zero", O_RDONLY));
	EXPECT(z >= 0);
	for (int i = 0; i < 200; i++) {
		TIMED("read", w = read(z, buf, 1));
		EXPECT(w == 1);
	}
	close(z);

	/* a forked child: its own calls, its own pid */
	fflush(NULL);
	pid_t c = fork();
	EXPECT(c >= 0);
	if (c == 0) {
		atomic_store(&n_calls, 0);
		sleeps(2);
		save(out);
		exit(0); /* not _exit: the agent writes its last calls at exit */
	}
	int st;
	EXPECT(waitpid(c, &st, 0) == c);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* and one that execs: the agent comes with LD_PRELOAD */
	c = fork();
	EXPECT(c >= 0);
	if (c == 0) {
		execl(self, self, "exec", out, (char *)NULL);
		_exit(127);
	}
	EXPECT(waitpid(c, &st, 0) == c);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	save(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return run(argv[1], argv[0]);
	if (argc == 3 && strcmp(argv[1], "loop") == 0) {
		while (access(argv[2], F_OK) < 0)
			sleeps(1);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "exec") == 0) {
		sleeps(2);
		save(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: test-osrt-workload OUT | exec OUT\n");
	return 2;
}
