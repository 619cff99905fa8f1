/* Two named threads at different loads for MS milliseconds of wall time:
 * "hot" burns all the time, "warm" a quarter of it (5 ms busy in every
 * 20 ms); each then prints the CPU time its own clock counted.
 *   test-threads MS   prints "hot_tid=<n> hot_ns=<n> warm_tid=<n> warm_ns=<n>" */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/helpers/workload.h"

static uint64_t run_ms, end_ns;

struct load {
	const char *name;
	uint64_t busy_ns, period_ns; /* busy_ns of every period_ns */
	long tid;
	uint64_t cpu_ns;
};

static void *run(void *arg)
{
	struct load *l = arg;
	pthread_setname_np(pthread_self(), l->name);
	l->tid = syscall(SYS_gettid);
	volatile uint64_t x = 0;
	(void)x; /* only written: the work volatile keeps */
	while (mono_ns() < end_ns) {
		uint64_t t0 = mono_ns();
		while (mono_ns() - t0 < l->busy_ns)
			for (int i = 0; i < 1000; i++)
				x += (uint64_t)i * 2654435761u;
		if (l->period_ns > l->busy_ns)
			sleep_ms((l->period_ns - l->busy_ns) / NSEC_PER_MSEC);
	}
	l->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || parse_u64(argv[1], 1, 3600000, &run_ms) < 0) {
		fprintf(stderr, "usage: test-threads MS\n");
		return 2;
	}
	struct load hot = { "hot", 10 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC, 0, 0 };
	struct load warm = { "warm", 5 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC, 0, 0 };
	end_ns = mono_ns() + run_ms * NSEC_PER_MSEC;
	pthread_t a, b;
	pthread_create(&a, NULL, run, &hot);
	pthread_create(&b, NULL, run, &warm);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hot_tid=%ld hot_ns=%llu warm_tid=%ld warm_ns=%llu\n", hot.tid, (unsigned long long)hot.cpu_ns,
	       warm.tid, (unsigned long long)warm.cpu_ns);
	/* a last sample sees both gone after their time counted */
	sleep_ms(200);
	return fflush(stdout) == 0 ? 0 : 1;
}
