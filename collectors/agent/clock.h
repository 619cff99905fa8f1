/* The agent's event clock.  Every event's time (a mark's, a range's ends,
 * an osrt call's and a communication operation's start and end) is read
 * with agent_clock_now on the calling thread and turned into CLOCK_MONOTONIC
 * nanoseconds by the writer (agent_clock_ns) before it goes into the raw
 * file, which holds nanoseconds only (raw.h).
 *
 * Where the kernel's own CLOCK_MONOTONIC counts the CPU's time-stamp
 * counter (clocksource "tsc", x86-64) and the CPU says it is invariant
 * (CPUID 0x80000007), the event clock is that
 * counter read directly: one rdtsc (about 13 ns here) instead of the
 * vDSO's clock_gettime (about 34 ns: an ordered read of the same counter,
 * the kernel's sequence lock and the scaling), which was most of what an
 * annotation cost.  The writer pairs the counter with clock_gettime at
 * every drain and maps each tick by linear interpolation between the pairs
 * around it, the same piecewise-linear mapping the kernel applies: exact
 * to the reads' spread (tens of ns) while the kernel's NTP-adjusted rate
 * is steady; a change of that rate between two pairs moves a time by up to
 * the segment's length times the change over 4 (6 us for a 500 ppm step
 * within a 50 ms drain interval).
 * Elsewhere, or with MSPROF_AGENT_CLOCK=monotonic, the event clock is
 * clock_gettime(CLOCK_MONOTONIC) through the vDSO and the mapping is the
 * identity. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Set once at load (agent_clock_init), before any event is recorded. */
extern bool g_clock_tsc;
typedef int (*agent_clock_fn)(clockid_t, struct timespec *);
extern agent_clock_fn g_clock_vdso;

/* Now, in event-clock units (any thread, async-signal-safe). */
static inline uint64_t agent_clock_now(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(g_clock_tsc, 1))
		return __rdtsc();
#endif
	struct timespec ts;
	g_clock_vdso(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* At load: which clock (MSPROF_AGENT_CLOCK, the clocksource, the CPU), and
 * the first pair.  Idempotent. */
void agent_clock_init(void);
/* The agent thread, under g_win_mu: a new pair of (counter,
 * CLOCK_MONOTONIC).  Each drain takes one after it read the queues' heads,
 * so that every event it then drains was stamped before the pair; a window
 * takes one as it opens, and the agent thread one at every wake (at least
 * each second) between windows, so that no segment spans a long gap. */
void agent_clock_sync(void);
/* A pair read elsewhere: agent_clock_sync's, or a test's (the TSC in
 * ticks, CLOCK_MONOTONIC in ns); a jump of one clock against the other is
 * taken as a break (clock.c), said once on stderr.  Under g_win_mu. */
void agent_clock_pair(uint64_t tick, uint64_t ns);
/* The writer, under g_win_mu: an event-clock value in CLOCK_MONOTONIC ns.
 * Inline for the segment of the last mapping (the next event of a thread
 * is almost always in it: a subtraction, a compare, a multiply), else
 * found among the pairs. */
struct agent_clock_seg {
	uint64_t t0, len, ns0, rate; /* ticks [t0, t0 + len) map to ns0 + (t - t0) * rate / 2^32 */
};
extern struct agent_clock_seg g_clock_seg;
uint64_t agent_clock_ns_slow(uint64_t ticks);
static inline uint64_t agent_clock_ns(uint64_t ticks)
{
	uint64_t d = ticks - g_clock_seg.t0;
	if (__builtin_expect(d < g_clock_seg.len, 1)) {
		__extension__ unsigned __int128 x = (unsigned __int128)d * g_clock_seg.rate;
		return g_clock_seg.ns0 + (uint64_t)(x >> 32);
	}
	return agent_clock_ns_slow(ticks);
}
/* Event-clock units in a duration of ns (the osrt threshold), under
 * g_win_mu. */
uint64_t agent_clock_ticks(uint64_t ns);

