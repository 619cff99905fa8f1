/* osrt overhead on a syscall-heavy loop: 1M one-byte reads of /dev/zero,
 * timed in-process; bench-osrt.sh runs it without the agent, with the
 * agent idle and with osrt recording, and prints the ratios.  Prints the
 * best ns per read of 5 rounds. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned long long mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0 || n <= 0)
		return 1;
	char c;
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		unsigned long long t0 = mono();
		for (long i = 0; i < n; i++)
			if (read(fd, &c, 1) != 1)
				return 1;
		double per = (double)(mono() - t0) / (double)n;
		if (per < best)
			best = per;
	}
	printf("%.1f\n", best);
	return close(fd) == 0 ? 0 : 1;
}
