/* bench-steploop STEPS WORK_US [MARKS]: a training loop's stand-in for
 * bench-steploop.sh.  Each step is a range "step N" (mstx) holding WORK_US
 * us of arithmetic in 20 slices, a mark after each slice (MARKS / 20 after
 * each with MARKS: a busy rank, bench-dump.sh), 20 small writes to
 * /dev/null and a 1 ms sleep: CPU, annotations and OS runtime calls, as a
 * step of a real job has them.  Prints each step's time in ns, one a line,
 * from the process's own CLOCK_MONOTONIC, after the loop (no output inside
 * it); with MARKS, "start end" pairs: its CLOCK_REALTIME start and its
 * time. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile double sink;

/* about us microseconds of arithmetic */
static void work(unsigned us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000u;
	double x = 1.0;
	while (now_ns() < end)
		for (int i = 0; i < 200; i++)
			x = x * 1.0000001 + 0.5;
	sink = x;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bench-steploop STEPS WORK_US [MARKS]\n");
		return 2;
	}
	int steps = atoi(argv[1]);
	unsigned work_us = (unsigned)atoi(argv[2]);
	unsigned per_slice = argc == 4 ? (unsigned)atoi(argv[3]) / 20 : 1;
	uint64_t *t = calloc(steps > 0 ? (size_t)steps : 1, sizeof *t);
	uint64_t *at = calloc(steps > 0 ? (size_t)steps : 1, sizeof *at);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!t || !at || null < 0 || steps <= 0)
		return 2;
	char buf[256] = { 0 }, msg[32];
	for (int s = 0; s < steps; s++) {
		uint64_t t0 = now_ns();
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		at[s] = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
		snprintf(msg, sizeof msg, "step %d", s);
		mstxRangeId r = mstxRangeStartA(msg, NULL);
		for (int k = 0; k < 20; k++) {
			work(work_us / 20);
			for (unsigned m = 0; m < (per_slice ? per_slice : 1); m++)
				mstxMarkA("slice", NULL);
			if (write(null, buf, sizeof buf) < 0)
				return 3;
		}
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
		mstxRangeEnd(r);
		t[s] = now_ns() - t0;
	}
	for (int s = 0; s < steps; s++)
		if (argc == 4)
			printf("%llu %llu\n", (unsigned long long)at[s], (unsigned long long)t[s]);
		else
			printf("%llu\n", (unsigned long long)t[s]);
	return 0;
}
