/* The agent's event clock (collectors/agent/clock.c) against the truth:
 * the counter read between two clock_gettime(CLOCK_MONOTONIC) calls, taken
 * among the writer's pairs at random spacings (back to back, and up to a
 * few milliseconds apart) for over a second, so that the ring of recent
 * pairs wraps and older pairs are thinned.  Every truth maps inside its
 * two clock reads, within TOL_NS; the mapping is monotonic; a tick maps to
 * the same ns before and after later pairs; the osrt threshold's ticks
 * span the ns asked.  MSPROF_AGENT_CLOCK=monotonic (in a child) makes the
 * event clock clock_gettime itself.  Skips (77) where the kernel's clock
 * is not the TSC: the mapping is then the identity, checked in the child. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "tests/unit/unittest.h"
#include "collectors/agent/clock.h"

#define TRUTHS 6000
#define SYNCS 2600
/* the pair reads' spread plus the rate's change over a thinned segment */
#define TOL_NS 2000

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct truth {
	uint64_t tick, before, after;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* MSPROF_AGENT_CLOCK=monotonic: the vDSO clock, the identity mapping */
static void check_monotonic_child(void)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		setenv("MSPROF_AGENT_CLOCK", "monotonic", 1);
		agent_clock_init();
		CHECK(!g_clock_tsc);
		for (int i = 0; i < 1000; i++) {
			uint64_t a = mono(), t = agent_clock_now(), b = mono();
			CHECK(a <= t && t <= b);
			agent_clock_sync();
			CHECK(agent_clock_ns(t) == t);
		}
		CHECK(agent_clock_ticks(12345) == 12345);
		exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("ok: MSPROF_AGENT_CLOCK=monotonic: clock_gettime, mapped as is\n");
}

static struct truth read_truth(void)
{
	struct truth t;
	t.before = mono();
#if defined(__x86_64__)
	_mm_lfence();
	t.tick = agent_clock_now();
	_mm_lfence();
#else
	t.tick = agent_clock_now();
#endif
	t.after = mono();
	return t;
}

int main(void)
{
	check_monotonic_child();
	agent_clock_init();
	if (!g_clock_tsc) {
		printf("SKIP: the kernel's clocksource is not an invariant TSC here: the agent's event clock is "
		       "clock_gettime (checked above)\n");
		return 77;
	}

	static struct truth truth[TRUTHS];
	int nt = 0;
	uint64_t start = mono();
	/* the osrt threshold right at load: a rate measured on demand */
	uint64_t ms_ticks = agent_clock_ticks(1000000);
	int syncs = 0;
	for (; syncs < SYNCS || mono() - start < 1200000000ULL; syncs++) {
		/* a truth or two between pairs, the pairs back to back or up to
		 * 2 ms apart */
		for (int k = rnd() % 3; k > 0 && nt < TRUTHS; k--)
			truth[nt++] = read_truth();
		unsigned r = rnd() % 8;
		if (r >= 5) {
			struct timespec ts = { 0, (long)(rnd() % 2000000) };
			nanosleep(&ts, NULL);
		}
		agent_clock_sync();
	}
	uint64_t span = mono() - start;
	CHECK(span > 1000000000ULL); /* the thinned pairs cover a second */

	/* every truth inside its reads; the errors' spread */
	uint64_t *err = calloc(nt, sizeof(*err));
	CHECK(err);
	int bad = 0;
	for (int i = 0; i < nt; i++) {
		uint64_t ns = agent_clock_ns(truth[i].tick);
		uint64_t e = ns < truth[i].before ? truth[i].before - ns : ns > truth[i].after ? ns - truth[i].after : 0;
		err[i] = e;
		if (e > TOL_NS && bad++ < 5)
			fprintf(stderr, "truth %d: tick %llu mapped to %llu, read between %llu and %llu\n", i,
				(unsigned long long)truth[i].tick, (unsigned long long)ns,
				(unsigned long long)truth[i].before, (unsigned long long)truth[i].after);
	}
	qsort(err, nt, sizeof(*err), cmp_u64);
	printf("%d truths over %.2f s and %d pairs: outside their clock reads by 0 ns (median %llu ns), "
	       "%llu ns at the 99th percentile, %llu ns at most (tolerance %d ns)\n",
	       nt, span / 1e9, syncs, (unsigned long long)err[nt / 2], (unsigned long long)err[nt * 99 / 100],
	       (unsigned long long)err[nt - 1], TOL_NS);
	CHECK(bad == 0);
	free(err);

	/* monotonic over ticks in order, across every segment */
	uint64_t prev = 0;
	for (int i = 0; i < nt; i++) {
		uint64_t ns = agent_clock_ns(truth[i].tick);
		CHECK(ns >= prev);
		prev = ns;
		/* and between two truths, at a few points */
		if (i + 1 < nt)
			for (uint64_t t = truth[i].tick; t < truth[i + 1].tick; t += (truth[i + 1].tick - truth[i].tick) / 4 + 1) {
				uint64_t m = agent_clock_ns(t);
				CHECK(m >= prev);
				prev = m;
			}
	}
	printf("ok: the mapping never goes back\n");

	/* a tick of the recent pairs maps the same once newer pairs came */
	struct truth late = read_truth();
	agent_clock_sync();
	uint64_t first = agent_clock_ns(late.tick);
	for (int s = 0; s < 100; s++)
		agent_clock_sync();
	CHECK(agent_clock_ns(late.tick) == first);
	printf("ok: a drained tick maps the same after 100 newer pairs\n");

	/* the threshold: ticks of 1 ms against the counter's own rate */
	uint64_t rate_ticks = agent_clock_ticks(1000000);
	double per_ms = (double)(truth[nt - 1].tick - truth[0].tick) /
			((truth[nt - 1].before + truth[nt - 1].after) / 2.0 - (truth[0].before + truth[0].after) / 2.0) *
			1e6;
	printf("ticks in 1 ms: %llu at load, %llu now, %.0f from the truths\n", (unsigned long long)ms_ticks,
	       (unsigned long long)rate_ticks, per_ms);
	CHECK(rate_ticks > per_ms * 0.999 && rate_ticks < per_ms * 1.001);
	CHECK(ms_ticks > per_ms * 0.99 && ms_ticks < per_ms * 1.01);
	return 0;
}
