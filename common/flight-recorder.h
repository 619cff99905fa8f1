/* --flight-recorder and --dump-on: the flight recorder keeps the last
 * span_s seconds or ring_mb megabytes of what every collector of a job
 * records (whichever bound is reached first) in a ring in memory, and
 * writes them out as a PROF dir when something goes wrong (a dump).
 *
 *   --flight-recorder=60s | =512MB | =60s,512MB   (s, m, h; MB, GB)
 *   --dump-on=slow-step:K,hang:Ts,exit            (any subset, or "none")
 *
 * slow-step:K  a step of a process took more than K times the median of
 *              its last steps (K 1.1 .. 1000, one decimal)
 * hang:T       a step of a process has been going on for T seconds
 *              (s, m, h) with no next one
 * exit         the job, or one of its processes, ended with a non-zero
 *              status or by a signal
 * Read by the launcher (the options), msprofd (which checks what it is
 * sent and sets up the ring) and the agent (which watches the steps). */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLIGHT_SPEC_MAX 64                    /* bytes of either spec */
#define FLIGHT_SPAN_MIN_S 1
#define FLIGHT_SPAN_MAX_S (30ULL * 24 * 3600) /* 30 days */
#define FLIGHT_RING_MIN_MB 16
#define FLIGHT_RING_MAX_MB (1024ULL * 1024)   /* 1 TB */
/* With only a span given: the most the ring holds on the host. */
#define FLIGHT_RING_DEFAULT_MB 256
/* --dump-on when --flight-recorder is given without it. */
#define FLIGHT_DUMP_ON_DEFAULT "exit,slow-step:5,hang:300s"
#define FLIGHT_SLOW_MIN_X10 11                 /* K = 1.1 */
#define FLIGHT_SLOW_MAX_X10 10000              /* K = 1000 */
#define FLIGHT_HANG_MAX_S (7ULL * 24 * 3600)
/* A process's slow steps are judged once it has this many steps behind it
 * (the first steps of a job are its slowest: compilation, warm-up). */
#define FLIGHT_SLOW_MIN_STEPS 8
/* ... against the median of its last FLIGHT_SLOW_WINDOW steps. */
#define FLIGHT_SLOW_WINDOW 64

struct flight_spec {
	uint64_t span_s;   /* 0: no bound in time */
	uint64_t ring_mb;  /* the bound in memory, FLIGHT_RING_DEFAULT_MB when only a span is given */
};

struct dump_on {
	bool exit;
	uint64_t slow_x10; /* K times ten; 0: off */
	uint64_t hang_s;   /* 0: off */
};

/* "<N><unit>", the number decimal without sign; the unit's factor. */
static inline int flight_number(const char *s, size_t n, const char *const *units, const uint64_t *factors,
				uint64_t *ret)
{
	size_t d = 0;
	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d == 0 || d > 12)
		return -EINVAL;
	uint64_t v = 0;
	for (size_t i = 0; i < d; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	for (unsigned u = 0; units[u]; u++)
		if (strlen(units[u]) == n - d && strncmp(s + d, units[u], n - d) == 0) {
			*ret = v * factors[u];
			return 0;
		}
	return -EINVAL;
}

/* A duration "<N>s", "<N>m" or "<N>h" in seconds. */
static inline int flight_seconds(const char *s, size_t n, uint64_t *ret)
{
	static const char *const units[] = { "s", "m", "h", NULL };
	static const uint64_t f[] = { 1, 60, 3600 };
	return flight_number(s, n, units, f, ret);
}

/* --flight-recorder's value: -EINVAL for anything but a span and/or a
 * size, each once, in range. */
static inline int flight_spec_parse(const char *s, struct flight_spec *ret)
{
	static const char *const units[] = { "MB", "GB", NULL };
	static const uint64_t f[] = { 1, 1024 };
	struct flight_spec v = { 0 };
	bool have_mb = false;
	if (!s || !*s || strlen(s) > FLIGHT_SPEC_MAX)
		return -EINVAL;
	while (*s) {
		size_t n = strcspn(s, ",");
		uint64_t x;
		if (n > 2 && (s[n - 1] == 'B')) {
			if (have_mb || flight_number(s, n, units, f, &x) < 0 || x < FLIGHT_RING_MIN_MB ||
			    x > FLIGHT_RING_MAX_MB)
				return -EINVAL;
			v.ring_mb = x;
			have_mb = true;
		} else {
			if (v.span_s || flight_seconds(s, n, &x) < 0 || x < FLIGHT_SPAN_MIN_S || x > FLIGHT_SPAN_MAX_S)
				return -EINVAL;
			v.span_s = x;
		}
		s += n;
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	if (!have_mb)
		v.ring_mb = FLIGHT_RING_DEFAULT_MB;
	*ret = v;
	return 0;
}

/* --dump-on's value ("none": every trigger off): -EINVAL for anything
 * else, or a trigger twice. */
static inline int dump_on_parse(const char *s, struct dump_on *ret)
{
	struct dump_on v = { 0 };
	unsigned seen = 0;
	if (!s || !*s || strlen(s) > FLIGHT_SPEC_MAX)
		return -EINVAL;
	if (strcmp(s, "none") == 0) {
		*ret = v;
		return 0;
	}
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 4 && strncmp(s, "exit", 4) == 0 && !(seen & 1)) {
			v.exit = true;
			seen |= 1;
		} else if (n > 10 && strncmp(s, "slow-step:", 10) == 0 && !(seen & 2)) {
			/* K or K.D */
			const char *p = s + 10, *e = s + n;
			uint64_t x = 0;
			unsigned digits = 0, frac = 0;
			bool dot = false;
			for (; p < e; p++) {
				if (*p == '.' && !dot && digits) {
					dot = true;
				} else if (*p >= '0' && *p <= '9' && digits < 6 && frac < 1) {
					x = x * 10 + (uint64_t)(*p - '0');
					digits++;
					frac += dot;
				} else {
					return -EINVAL;
				}
			}
			if (!digits || (dot && !frac))
				return -EINVAL;
			if (!dot)
				x *= 10;
			if (x < FLIGHT_SLOW_MIN_X10 || x > FLIGHT_SLOW_MAX_X10)
				return -EINVAL;
			v.slow_x10 = x;
			seen |= 2;
		} else if (n > 5 && strncmp(s, "hang:", 5) == 0 && !(seen & 4)) {
			uint64_t x;
			if (flight_seconds(s + 5, n - 5, &x) < 0 || x < 1 || x > FLIGHT_HANG_MAX_S)
				return -EINVAL;
			v.hang_s = x;
			seen |= 4;
		} else {
			return -EINVAL;
		}
		s += n;
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	*ret = v;
	return 0;
}
