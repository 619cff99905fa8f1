/* Burn one core for a given number of milliseconds of CPU time, then print
 * the CPU time it actually used (getrusage) so tests compare against ground
 * truth measured by the kernel for this very process.
 *   test-burn MS [THREADS]   prints "cpu_ns=<n> wall_ns=<n>" */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "common/util.h"

static uint64_t burn_ms;

static uint64_t thread_cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static void *burn(void *arg)
{
	volatile uint64_t x = 0;
	(void)x; /* only written: the work volatile keeps */
	while (thread_cpu_ns() < burn_ms * NSEC_PER_MSEC)
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i * 2654435761u;
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t threads = 1;
	if (argc < 2 || parse_u64(argv[1], 1, 3600000, &burn_ms) < 0 ||
	    (argc > 2 && parse_u64(argv[2], 1, 64, &threads) < 0)) {
		fprintf(stderr, "usage: test-burn MS [THREADS]\n");
		return 2;
	}
	uint64_t t0 = mono_ns();
	pthread_t tid[64];
	for (uint64_t i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, burn, NULL);
	burn(NULL);
	for (uint64_t i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
		       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NSEC_PER_USEC;
	printf("cpu_ns=%llu wall_ns=%llu\n", (unsigned long long)cpu, (unsigned long long)(mono_ns() - t0));
	return fflush(stdout) == 0 ? 0 : 1;
}
