/* osrt overhead: syscall-heavy loops timed in-process; bench-osrt.sh runs
 * them without the agent, with the plain agent, and with the osrt agent
 * idle and recording, and prints the ratios.
 *
 *   bench-osrt byte N    N read(2)s of 1 byte from /dev/zero: the worst
 *                        case, a call that does nearly nothing in the
 *                        kernel, so the wrapper's cost is all there is
 *   bench-osrt block N   N pread(2)s of 64 KiB blocks of a 16 MiB file in
 *                        the page cache: how data loaders and checkpoint
 *                        readers read, a few microseconds a call
 *
 * With BENCH_OSRT_THREAD=1 the loop runs next to an idle thread, as it
 * does next to the agent's thread: in a process with more than one thread
 * the kernel takes a reference on the file at every read (fdget), which
 * costs a single-threaded program tens of ns a call whatever the thread
 * does; this baseline tells that apart from the wrappers' own cost.
 *
 * Prints the best ns per call of 5 rounds. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (64 << 10)
#define FILE_BYTES (16 << 20)

static unsigned long long mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static int byte_loop(long n)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return -1;
	char c;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return -1;
	return close(fd);
}

static int in_fd = -1;
static char block[BLOCK];

static int block_setup(void)
{
	char path[] = "/tmp/bench-osrt.XXXXXX";
	in_fd = mkstemp(path);
	if (in_fd < 0)
		return -1;
	unlink(path);
	memset(block, 'x', sizeof(block));
	for (int i = 0; i < FILE_BYTES / BLOCK; i++)
		if (write(in_fd, block, BLOCK) != BLOCK)
			return -1;
	return 0;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int block_loop(long n)
{
	for (long i = 0; i < n; i++) {
		off_t off = (off_t)(i % (FILE_BYTES / BLOCK)) * BLOCK;
		if (pread(in_fd, block, BLOCK, off) != BLOCK)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "byte") != 0 && strcmp(argv[1], "block") != 0)) {
		fprintf(stderr, "usage: bench-osrt byte|block N\n");
		return 2;
	}
	long n = atol(argv[2]);
	int blocks = strcmp(argv[1], "block") == 0;
	if (n <= 0 || (blocks && block_setup() < 0))
		return 1;
	const char *th = getenv("BENCH_OSRT_THREAD");
	pthread_t t;
	if (th && strcmp(th, "1") == 0 && pthread_create(&t, NULL, idle_thread, NULL) != 0)
		return 1;
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		unsigned long long t0 = mono();
		if ((blocks ? block_loop(n) : byte_loop(n)) < 0)
			return 1;
		double per = (double)(mono() - t0) / (double)n;
		if (per < best)
			best = per;
	}
	printf("%.1f\n", best);
	return 0;
}
