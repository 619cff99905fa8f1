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
#include "common/util.h"

#define TRUTHS 6000
#define SYNCS 2600
/* the pair reads' spread plus the rate's change over a thinned segment */
#define TOL_NS 2000

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
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		setenv("MSPROF_AGENT_CLOCK", "monotonic", 1);
		agent_clock_init();
		CHECK(!g_clock_tsc);
		for (int i = 0; i < 1000; i++) {
			uint64_t a = mono_ns(), t = agent_clock_now(), b = mono_ns();
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
	t.before = mono_ns();
#if defined(__x86_64__)
	_mm_lfence();
	t.tick = agent_clock_now();
	_mm_lfence();
#else
	t.tick = agent_clock_now();
#endif
	t.after = mono_ns();
	return t;
}

/* |got - want| <= tol */
static bool near(uint64_t got, uint64_t want, uint64_t tol)
{
	return got > want ? got - want <= tol : want - got <= tol;
}

/* Breaks, from pairs made up after the real ones (in a child: the
 * history is its own): a suspend (the TSC runs on for an hour while
 * CLOCK_MONOTONIC moves 1 ms), then the TSC reset to near zero.  Events on
 * either side of each land where they were made; the osrt threshold's
 * rate is the counter's; the jump is said once on stderr. */
static void check_breaks(const char *tmp)
{
	char errpath[4200];
	snprintf(errpath, sizeof errpath, "%s/breaks.err", tmp);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK(freopen(errpath, "w", stderr));
		agent_clock_sync();
		double f = (double)agent_clock_ticks(1000000000ULL) / 1e9; /* ticks per ns */
		uint64_t t = agent_clock_now(), n = mono_ns();
		agent_clock_pair(t, n);
#define AT(ms) ((uint64_t)((ms) * 1e6 * f))
		/* 20 ms on, then a suspend, then 50 ms steps */
		uint64_t t1 = t + AT(20), n1 = n + 20000000;
		agent_clock_pair(t1, n1);
		uint64_t ts = t1 + AT(3600e3), ns = n1 + 1000000;
		agent_clock_pair(ts, ns);
		for (int i = 1; i <= 4; i++)
			agent_clock_pair(ts + AT(50 * i), ns + 50000000ULL * i);
		CHECK(near(agent_clock_ns(t + AT(10)), n + 10000000, 1000));    /* before it */
		CHECK(near(agent_clock_ns(t1 + AT(0.5)), n1 + 500000, 1000));   /* just before it */
		CHECK(near(agent_clock_ns(ts + AT(25)), ns + 25000000, 1000));  /* after it */
		CHECK(agent_clock_ns(t1 + AT(0.5)) <= agent_clock_ns(ts));      /* in order */
		uint64_t thr = agent_clock_ticks(1000);
		CHECK(near(thr, AT(0.001), AT(0.001) / 100 + 1));
		/* the TSC reset to near zero, 50 ms after the last pair */
		uint64_t nb = ns + 250000000ULL, tb = AT(1);
		agent_clock_pair(tb, nb);
		agent_clock_pair(tb + AT(50), nb + 50000000);
		agent_clock_pair(tb + AT(100), nb + 100000000);
		CHECK(near(agent_clock_ns(tb + AT(75)), nb + 75000000, 1000));
		CHECK(near(agent_clock_ticks(1000), AT(0.001), AT(0.001) / 100 + 1));
#undef AT
		exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	FILE *e = fopen(errpath, "r");
	CHECK(e);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, e)) {
		CHECK(strstr(line, "msprof agent: the CPU's time-stamp counter ran on while CLOCK_MONOTONIC stood still"));
		n++;
	}
	fclose(e);
	CHECK(n == 1);
	printf("ok: a suspend (the TSC on for an hour, CLOCK_MONOTONIC 1 ms) and a reset TSC: times on both sides "
	       "where they were made, said once\n");
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
	uint64_t start = mono_ns();
	/* the osrt threshold right at load: a rate measured on demand */
	uint64_t ms_ticks = agent_clock_ticks(1000000);
	int syncs = 0;
	for (; syncs < SYNCS || mono_ns() - start < 1200000000ULL; syncs++) {
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
	uint64_t span = mono_ns() - start;
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

	char tmp[] = "/tmp/test-clock.XXXXXX";
	CHECK(mkdtemp(tmp));
	check_breaks(tmp);
	rm_rf(tmp);

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
