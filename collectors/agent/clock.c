/* The agent's event clock and its mapping to CLOCK_MONOTONIC (clock.h).
 *
 * The pairs: one at load, then one at every drain, as a window opens, and
 * at every wake of the agent thread between windows (agent_clock_sync).  A
 * tick is mapped by linear interpolation between the two pairs around it,
 * and that mapping does not change while both pairs are among the recent
 * ones: an event drained late (stamped before a drain's pair, committed
 * after the drain read the heads) is mapped on the same segment as its
 * neighbours drained earlier, so that the events of a thread stay in
 * order and a range never ends before it starts (a pair thinned away as
 * it leaves the recent ring merges two segments: a tick mapped long ago
 * would now map a few ns apart).  A jump of one clock against the other
 * (a suspend, a reset TSC) is a break (agent_clock_pair): the segment
 * across it is mapped at the rate before it, and rates are measured from
 * it on.  The last CLOCK_RECENT pairs are all kept; an older
 * one stays (in a second ring of CLOCK_OLD) when it is CLOCK_KEEP_NS past
 * the previous one kept, so that an event still in a queue from long ago
 * (one buffered before its window opened, or behind a slow disk) is mapped
 * between pairs a moment apart, and one older than them all with the
 * oldest segment's rate.  Each pair carries the rate of the segment that
 * ends at it, in 32.32 fixed point (ns per tick): a mapping is a
 * subtraction, a 64x64->128 multiply and a shift, and consecutive events
 * of a thread find their segment at the cursor left by the one before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <dlfcn.h>

#include "collectors/agent/clock.h"

__extension__ typedef unsigned __int128 u128;

#define CLOCK_RECENT 1024
#define CLOCK_OLD 256
#define CLOCK_KEEP_NS 100000000ULL /* 100 ms */
#define CLOCK_TRIES 5
#define RATE_ONE (1ULL << 32)

bool g_clock_tsc;
agent_clock_fn g_clock_vdso = clock_gettime;

struct pair {
	uint64_t tick, ns;
	uint64_t rate; /* ns per tick, 32.32, of the segment ending here (0: none) */
	bool brk;      /* that segment spans a break: mapped at the rate before it */
};

/* pair number s (0: the load pair) is g_recent[s % CLOCK_RECENT] while
 * s >= g_n - CLOCK_RECENT */
static struct pair g_recent[CLOCK_RECENT];
static uint64_t g_n;
static struct pair g_old[CLOCK_OLD]; /* older, thinned, oldest at g_old_first */
static unsigned g_old_first, g_old_n;
static uint64_t g_rate_far = RATE_ONE;
static uint64_t g_base;        /* the first pair after the last break */
static unsigned long g_breaks; /* agent_clock_pair: breaks seen */
struct agent_clock_seg g_clock_seg;
static bool g_init;

/* The kernel's vDSO clock_gettime, called directly: the C library's
 * wrapper around it costs a tenth of a recorded call.  The C library's
 * where there is no vDSO to ask. */
static void vdso_find(void)
{
#if defined(__x86_64__)
	static const char sym[] = "__vdso_clock_gettime";
#elif defined(__aarch64__)
	static const char sym[] = "__kernel_clock_gettime";
#else
	static const char sym[] = "";
#endif
	void *vdso = *sym ? dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD) : NULL;
	agent_clock_fn f = NULL;
	if (vdso)
		*(void **)&f = dlsym(vdso, sym); /* POSIX: the object pointer is the function */
	struct timespec a, b;
	/* only a clock that works and agrees with the C library's */
	if (f && f(CLOCK_MONOTONIC, &a) == 0 && clock_gettime(CLOCK_MONOTONIC, &b) == 0 &&
	    (b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec)) && b.tv_sec - a.tv_sec < 2)
		g_clock_vdso = f;
}

/* Whether CLOCK_MONOTONIC counts an invariant TSC: the kernel chose it as
 * its clocksource (it checked it is stable and in step across CPUs) and
 * the CPU says it runs at a constant rate in every state. */
static bool tsc_usable(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	if (!(d & (1U << 8))) /* invariant TSC */
		return false;
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f)
		return false;
	char cs[32] = "";
	bool ok = fgets(cs, sizeof cs, f) && strcmp(cs, "tsc\n") == 0;
	fclose(f);
	return ok;
#else
	return false;
#endif
}

static uint64_t mono(void)
{
	struct timespec ts;
	g_clock_vdso(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A pair read as tightly as the machine allows: the counter between two
 * clock reads, ordered, the closest of a few tries. */
static struct pair pair_read(void)
{
	struct pair best = { 0 };
	uint64_t span = UINT64_MAX;
	for (int i = 0; i < CLOCK_TRIES; i++) {
		uint64_t a = mono();
#if defined(__x86_64__)
		_mm_lfence();
		uint64_t t = __rdtsc();
		_mm_lfence();
#else
		uint64_t t = 0;
#endif
		uint64_t b = mono();
		if (b - a < span) {
			span = b - a;
			best.tick = t;
			best.ns = a + (b - a) / 2;
		}
	}
	return best;
}

static uint64_t rate_of(const struct pair *from, const struct pair *to)
{
	if (to->tick <= from->tick || to->ns <= from->ns)
		return RATE_ONE; /* never taken: pairs go forward in both */
	return (uint64_t)(((u128)(to->ns - from->ns) << 32) / (to->tick - from->tick));
}

static uint64_t recent_lo(void)
{
	return g_n > CLOCK_RECENT ? g_n - CLOCK_RECENT : 0;
}

static struct pair *recent(uint64_t s)
{
	return &g_recent[s % CLOCK_RECENT];
}

static struct pair *old(unsigned i)
{
	return &g_old[(g_old_first + i) % CLOCK_OLD];
}

/* A pair leaving the recent ring: kept among the old ones when it is far
 * enough from the last kept, its rate then over the segment from that one. */
static void retire(const struct pair *p)
{
	if (g_old_n) {
		struct pair *l = old(g_old_n - 1);
		if (p->ns - l->ns < CLOCK_KEEP_NS && !p->brk)
			return;
		struct pair q = *p;
		if (!q.brk)
			q.rate = rate_of(l, p);
		if (g_old_n == CLOCK_OLD) {
			g_old_first = (g_old_first + 1) % CLOCK_OLD;
			g_old_n--;
		}
		*old(g_old_n++) = q;
	} else {
		g_old[g_old_first] = *p;
		g_old_n = 1;
	}
}

/* The first pair of the history the rates over it start from. */
static uint64_t history_lo(void)
{
	uint64_t lo = recent_lo();
	return g_base > lo ? g_base : lo;
}

static void append(struct pair p)
{
	if (g_n >= CLOCK_RECENT)
		retire(recent(g_n - CLOCK_RECENT));
	if (!p.brk)
		p.rate = g_n ? rate_of(recent(g_n - 1), &p) : 0;
	*recent(g_n++) = p;
	/* past the newest pair (and before every pair): the rate over the
	 * recent ones since the last break, once they span a millisecond */
	const struct pair *lo = recent(history_lo());
	if (g_n > 1 && lo != &g_recent[(g_n - 1) % CLOCK_RECENT] &&
	    (p.ns - lo->ns >= 1000000ULL || g_rate_far == RATE_ONE))
		g_rate_far = rate_of(lo, &p);
	g_clock_seg.len = 0; /* the segments may have moved */
}

void agent_clock_init(void)
{
	if (g_init)
		return;
	g_init = true;
	vdso_find();
	const char *env = getenv("MSPROF_AGENT_CLOCK");
	g_clock_tsc = !(env && strcmp(env, "monotonic") == 0) && tsc_usable();
	if (g_clock_tsc)
		append(pair_read());
}

static uint64_t ticks_ns(uint64_t ticks, uint64_t rate)
{
	return (uint64_t)(((u128)ticks * rate) >> 32);
}

static void warn_break(const char *how)
{
	if (g_breaks++ == 0)
		fprintf(stderr, "msprof agent: the CPU's time-stamp counter %s against CLOCK_MONOTONIC (a suspend, "
			"or the kernel changing its clock): the times of events made around it may be misplaced "
			"(MSPROF_AGENT_CLOCK=monotonic avoids it)\n", how);
}

/* A pair: appended, or a break.  Pairs within a millisecond of the last in
 * both clocks are within the reads' spread and the CPUs' counter skew:
 * taken when both went forward, else left out.  Past that, the TSC went
 * back (firmware resets it on resume from suspend): the history starts
 * again from this pair; or the segment's rate is more than 1% off the
 * rate so far, taken over 10 ms since the last break (the TSC kept
 * counting while CLOCK_MONOTONIC stood still in a suspend, or ran at
 * another rate): the pair is appended as a break, its segment mapped at
 * the rate before it, up to the pair's own time, and the rates after it
 * measured from it. */
void agent_clock_pair(uint64_t tick, uint64_t ns)
{
	if (!g_clock_tsc)
		return;
	const struct pair *l = recent(g_n - 1);
	uint64_t dn = ns > l->ns ? ns - l->ns : 0;
	uint64_t dt = tick > l->tick ? ticks_ns(tick - l->tick, g_rate_far) : ticks_ns(l->tick - tick, g_rate_far);
	if (dn < 1000000ULL && dt < 1000000ULL) {
		if (tick > l->tick && ns > l->ns)
			append((struct pair){ .tick = tick, .ns = ns });
		return;
	}
	if (tick <= l->tick || ns <= l->ns) {
		warn_break("went back");
		uint64_t far = g_rate_far;
		g_n = g_base = 0;
		g_old_n = g_old_first = 0;
		append((struct pair){ .tick = tick, .ns = ns });
		g_rate_far = far;
		return;
	}
	bool known = g_n > 1 && l->ns - recent(history_lo())->ns >= 10000000ULL;
	if (known && (dn > dt + dt / 100 || dn < dt - dt / 100)) {
		warn_break(dn < dt ? "ran on while CLOCK_MONOTONIC stood still" : "changed its rate");
		uint64_t far = g_rate_far;
		append((struct pair){ .tick = tick, .ns = ns, .rate = far, .brk = true });
		g_base = g_n - 1;
		g_rate_far = far;
		return;
	}
	append((struct pair){ .tick = tick, .ns = ns });
}

void agent_clock_sync(void)
{
	if (!g_clock_tsc)
		return;
	struct pair p = pair_read();
	agent_clock_pair(p.tick, p.ns);
}

/* A rate for what lies outside every segment and for the osrt threshold:
 * over the recent pairs from the oldest to the newest (the longer the
 * span, the less the reads' own spread counts), measured over at least a
 * millisecond (a window that opens within a moment of the load waits for
 * it, once a process). */
static uint64_t rate_any(void)
{
	if (recent(g_n - 1)->ns - recent(history_lo())->ns < 1000000ULL) {
		if (g_breaks)
			return g_rate_far; /* the rate before the break, until one is measured after it */
		while (mono() - recent(history_lo())->ns < 1000000ULL)
			;
		agent_clock_sync();
	}
	if (g_n < 2)
		return RATE_ONE; /* a clock that did not move: never seen */
	return rate_of(recent(history_lo()), recent(g_n - 1));
}

static uint64_t map(const struct pair *from, uint64_t rate, uint64_t ticks)
{
	if (ticks >= from->tick)
		return from->ns + (uint64_t)(((u128)(ticks - from->tick) * rate) >> 32);
	uint64_t back = (uint64_t)(((u128)(from->tick - ticks) * rate) >> 32);
	return back < from->ns ? from->ns - back : 0;
}

/* ticks in the segment from `from` to `to` at `rate`, the segment kept for
 * the next mappings; a segment that spans a break is mapped at the rate
 * before it, up to its end's time, and not kept */
static uint64_t seg_map(const struct pair *from, const struct pair *to, uint64_t rate, uint64_t ticks)
{
	if (to->brk) {
		uint64_t v = map(from, to->rate, ticks);
		return v < to->ns ? v : to->ns;
	}
	g_clock_seg = (struct agent_clock_seg){ .t0 = from->tick, .len = to->tick - from->tick, .ns0 = from->ns,
						 .rate = rate };
	return map(from, rate, ticks);
}

uint64_t agent_clock_ns_slow(uint64_t ticks)
{
	if (!g_clock_tsc)
		return ticks;
	const struct pair *newest = recent(g_n - 1);
	if (ticks >= newest->tick) {
		g_clock_seg = (struct agent_clock_seg){ .t0 = newest->tick, .len = UINT64_MAX - newest->tick,
							 .ns0 = newest->ns, .rate = g_rate_far };
		return map(newest, g_rate_far, ticks);
	}
	uint64_t lo = recent_lo();
	if (recent(lo)->tick <= ticks) {
		/* the first pair past ticks is in (a, b] */
		uint64_t a = lo, b = g_n - 1;
		while (b - a > 1) {
			uint64_t m = a + (b - a) / 2;
			if (recent(m)->tick <= ticks)
				a = m;
			else
				b = m;
		}
		return seg_map(recent(a), recent(b), recent(b)->rate, ticks);
	}
	/* before the recent pairs: the old ones, then the oldest's rate */
	const struct pair *first = recent(lo);
	if (!g_old_n)
		return map(first, g_rate_far, ticks);
	const struct pair *l = old(g_old_n - 1);
	if (ticks >= l->tick)
		return seg_map(l, first, first->brk ? first->rate : rate_of(l, first), ticks);
	for (unsigned i = g_old_n - 1; i > 0; i--) {
		if (ticks >= old(i - 1)->tick)
			return seg_map(old(i - 1), old(i), old(i)->rate, ticks);
	}
	/* older than every pair kept: the rate over all of them, the longest
	 * span there is (since a break: the rate before it) */
	return map(old(0), g_breaks ? g_rate_far : rate_of(old(0), newest), ticks);
}

uint64_t agent_clock_ticks(uint64_t ns)
{
	if (!g_clock_tsc)
		return ns;
	uint64_t rate = rate_any();
	u128 t = ((u128)ns << 32) / (rate ? rate : 1);
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}
