/* test-figures: a job whose CPU and disk figures a test knows exactly
 * (tests/integration/figures.sh).
 *
 *   test-figures DIR BUSY_MS BURSTS MB GAP_MS
 *
 * A thread pinned to CPU 0 burns BUSY_MS ms of its own CPU time, then the
 * main thread writes BURSTS bursts of MB MiB (1 MiB write(2)s, fdatasync
 * after each burst) into DIR/figures.<pid>, GAP_MS apart, and removes the
 * file.  It prints what it did, in CLOCK_REALTIME ns (the clock of
 * msprof's rows):
 *
 *   busy TID START END CPU_NS      the thread: its span and its CPU time
 *   chunk START END BYTES         each write(2) of a burst
 *   burst START END BYTES         each burst, fdatasync included
 *   total CPU_NS WRITE_BYTES      the process's getrusage time and what
 *                                 /proc/self/io says reached storage */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/helpers/workload.h"

static uint64_t busy_ms;

static void *busy(void *arg)
{
	(void)arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	(void)sched_setaffinity(0, sizeof set, &set);
	uint64_t t0 = real_ns();
	volatile uint64_t x = 0;
	(void)x; /* only written: the work volatile keeps */
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < busy_ms * NSEC_PER_MSEC)
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i * 2654435761u;
	printf("busy %ld %llu %llu %llu\n", (long)syscall(SYS_gettid), (unsigned long long)t0,
	       (unsigned long long)real_ns(), (unsigned long long)clock_ns(CLOCK_THREAD_CPUTIME_ID));
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t bursts, mb, gap;
	if (argc != 6 || parse_u64(argv[2], 1, 600000, &busy_ms) < 0 || parse_u64(argv[3], 1, 1000, &bursts) < 0 ||
	    parse_u64(argv[4], 1, 4096, &mb) < 0 || parse_u64(argv[5], 0, 60000, &gap) < 0) {
		fprintf(stderr, "usage: test-figures DIR BUSY_MS BURSTS MB GAP_MS\n");
		return 2;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, busy, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	char path[4096];
	snprintf(path, sizeof path, "%s/figures.%d", argv[1], (int)getpid());
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	static char chunk[1 << 20];
	for (size_t i = 0; i < sizeof chunk; i++)
		chunk[i] = (char)(i * 31 + 7);
	for (uint64_t b = 0; b < bursts; b++) {
		uint64_t b0 = real_ns();
		for (uint64_t i = 0; i < mb; i++) {
			chunk[0] = (char)(b * mb + i); /* defeat any dedup */
			uint64_t c0 = real_ns();
			if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) {
				perror("write");
				return 1;
			}
			printf("chunk %llu %llu %zu\n", (unsigned long long)c0, (unsigned long long)real_ns(), sizeof chunk);
		}
		if (fdatasync(fd) < 0) {
			perror("fdatasync");
			return 1;
		}
		printf("burst %llu %llu %llu\n", (unsigned long long)b0, (unsigned long long)real_ns(),
		       (unsigned long long)(mb << 20));
		sleep_ms(gap);
	}
	unlink(path);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
		       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	printf("total %llu %llu\n", (unsigned long long)cpu, (unsigned long long)proc_self_u64("io", "write_bytes"));
	return fflush(stdout) == 0 ? 0 : 1;
}
