/* test-gloo-app OUT: communication on CPU as gloo or MPI does it, under
 * torch_npu-style mstx ranges of the domain "communication"
 * (tests/integration/comm-osrt.sh).  Two threads share a socketpair:
 *   op 0 (HcclAllreduce): the receiver polls (waits) while the sender
 *        sleeps DELAY, then the sender sends SIZE bytes in chunks, the
 *        receiver reads them and writes a one-byte ack the sender reads;
 *   op 1 (HcclRecv, P2P 0 -> 1): the same with a blocking recv and no
 *        poll, so the receive itself holds the wait;
 *   op 2 (HcclBroadcast): a spin, no OS call at all.
 * Every wrapped call made inside a range is timed (CLOCK_MONOTONIC) and
 * written to OUT at the end, with the ranges' inner bounds and a clock
 * pair: "clock MONO REAL", "op N START END", "call OP TID NAME T0 T1". */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

#define DELAY_NS 30000000LL
#define SIZE (1024 * 1024)
#define CHUNK (64 * 1024)
#define MAX_CALLS 1024
#define N_OPS 3

static const char *const msgs[N_OPS] = {
	"{\\\"opName\\\": \\\"HcclAllreduce\\\",\\\"groupName\\\": \\\"gloo_group\\\",\\\"dataType\\\": \\\"fp32\\\","
	"\\\"count\\\": \\\"262144\\\"}",
	"{\\\"opName\\\": \\\"HcclRecv\\\",\\\"groupName\\\": \\\"gloo_group\\\",\\\"dataType\\\": \\\"int8\\\","
	"\\\"count\\\": \\\"1048576\\\",\\\"srcRank\\\": \\\"0\\\",\\\"destRank\\\": \\\"1\\\"}",
	"{\\\"opName\\\": \\\"HcclBroadcast\\\",\\\"groupName\\\": \\\"gloo_group\\\",\\\"dataType\\\": \\\"fp32\\\","
	"\\\"count\\\": \\\"16\\\"}",
};

static struct call {
	int op;
	pid_t tid;
	const char *name;
	long long t0, t1;
} calls[MAX_CALLS];
static int n_calls;
static pthread_barrier_t bar;
static int fds[2];
static int cur_op;
static long long op_start[N_OPS], op_end[N_OPS];

static long long mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "test-gloo-app: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* Lock-free: pthread_mutex_lock is a wrapped call of its own. */
static void note(const char *name, long long t0, long long t1)
{
	int i = __atomic_fetch_add(&n_calls, 1, __ATOMIC_RELAXED);
	if (i < MAX_CALLS)
		calls[i] = (struct call){ cur_op, (pid_t)syscall(SYS_gettid), name, t0, t1 };
}

/* var = expr, the call timed */
#define TIMED(var, name, expr)                     \
	do {                                       \
		long long t0_ = mono();            \
		var = (expr);                      \
		note(name, t0_, mono());           \
	} while (0)

static void *receiver(void *arg)
{
	(void)arg;
	static char buf[CHUNK];
	for (int op = 0; op < 2; op++) {
		pthread_barrier_wait(&bar); /* the range has started */
		if (op == 0) {
			struct pollfd p = { .fd = fds[1], .events = POLLIN };
			int k;
			TIMED(k, "poll", poll(&p, 1, -1));
			if (k != 1)
				die("poll");
		}
		for (size_t got = 0; got < SIZE;) {
			ssize_t n;
			TIMED(n, "recv", recv(fds[1], buf, sizeof buf, 0));
			if (n <= 0)
				die("recv");
			got += (size_t)n;
		}
		ssize_t w;
		TIMED(w, "write", write(fds[1], "k", 1));
		if (w != 1)
			die("write");
		pthread_barrier_wait(&bar); /* the range has ended */
	}
	return NULL;
}

static void sender(void)
{
	static char buf[CHUNK];
	struct timespec delay = { 0, DELAY_NS };
	memset(buf, 'x', sizeof buf);
	int k;
	TIMED(k, "nanosleep", nanosleep(&delay, NULL));
	(void)k;
	for (size_t sent = 0; sent < SIZE;) {
		ssize_t n;
		TIMED(n, "send", send(fds[0], buf, sizeof buf, 0));
		if (n <= 0)
			die("send");
		sent += (size_t)n;
	}
	char ack;
	ssize_t n;
	TIMED(n, "read", read(fds[0], &ack, 1));
	if (n != 1)
		die("read");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-gloo-app OUT\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		die("socketpair");
	pthread_barrier_init(&bar, NULL, 2);
	pthread_t th;
	if (pthread_create(&th, NULL, receiver, NULL) != 0)
		die("pthread_create");
	mstxDomainHandle_t comm = mstxDomainCreateA("communication");
	for (int op = 0; op < N_OPS; op++) {
		cur_op = op;
		mstxRangeId id = mstxDomainRangeStartA(comm, msgs[op], NULL);
		op_start[op] = mono();
		if (op < 2) {
			pthread_barrier_wait(&bar);
			sender();
		} else {
			while (mono() - op_start[op] < 2000000LL) /* no OS call */
				;
		}
		op_end[op] = mono();
		mstxDomainRangeEnd(comm, id);
		if (op < 2)
			pthread_barrier_wait(&bar);
	}
	pthread_join(th, NULL);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	struct timespec m, r;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	fprintf(f, "clock %lld %lld\n", m.tv_sec * 1000000000LL + m.tv_nsec, r.tv_sec * 1000000000LL + r.tv_nsec);
	for (int op = 0; op < N_OPS; op++)
		fprintf(f, "op %d %lld %lld\n", op, op_start[op], op_end[op]);
	for (int i = 0; i < n_calls && i < MAX_CALLS; i++)
		fprintf(f, "call %d %d %s %lld %lld\n", calls[i].op, (int)calls[i].tid, calls[i].name, calls[i].t0,
			calls[i].t1);
	if (fclose(f) != 0)
		die(argv[1]);
	return 0;
}
