/* --schedule: which training steps a collection keeps, with
 * torch.profiler.schedule's meaning.  The job's steps are counted from 0
 * as they start (k); the first skip_first are skipped, then cycles of wait
 * steps (nothing), warmup steps (the collectors run, nothing is kept) and
 * active steps (kept), repeat cycles in all (0: until the job ends).
 * start_step=N (torch_npu's dynamic-profiling key; ours on the command
 * line) counts by the steps' own numbers instead: step N is k = 0, and a
 * step numbered below N is nothing, so every rank of a job opens its window
 * at the same step however late it started or was armed.  deadline=D
 * (seconds, ours) is the launcher's: a window still open D s after it
 * opened is closed, and a process that asked for none D s after it was
 * armed is named.
 * Read by the launcher (the option), msprofd (which passes it to the
 * agents of the processes it is given for), the agent (which opens and
 * closes the windows at the steps) and the tests. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct step_schedule {
	uint64_t skip_first, wait, warmup, active, repeat;
	bool by_id;                /* start_step given */
	uint64_t start_step;
	uint64_t deadline_s;       /* 0: none */
};

enum step_phase { STEP_SKIP, STEP_WAIT, STEP_WARMUP, STEP_ACTIVE, STEP_DONE };

#define STEP_SCHEDULE_SPEC_MAX 255       /* bytes of a spec as msprofd and the agent keep it */
#define STEP_SCHEDULE_MAX 1000000000ULL  /* any one number but start_step (a step id: INT64_MAX / 2) */

/* "skip_first=S,wait=W,warmup=U,active=A,repeat=R[,start_step=N]
 * [,deadline=D]", any subset in any order, each once; active defaults to 1
 * and must not be 0, the others default to 0 (start_step: none).  -EINVAL
 * for anything else. */
static inline int step_schedule_parse(const char *s, struct step_schedule *ret)
{
	static const char *const keys[] = { "skip_first", "wait", "warmup", "active", "repeat", "start_step",
					    "deadline" };
	enum { NKEYS = sizeof keys / sizeof keys[0] };
	uint64_t v[NKEYS] = { 0, 0, 0, 1, 0, 0, 0 };
	unsigned seen = 0;
	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		size_t n = strcspn(s, "=,");
		unsigned k = 0;
		while (k < NKEYS && !(strlen(keys[k]) == n && strncmp(s, keys[k], n) == 0))
			k++;
		if (k == NKEYS || s[n] != '=' || seen & 1u << k || s[n + 1] < '0' || s[n + 1] > '9')
			return -EINVAL;
		char *end;
		errno = 0;
		unsigned long long x = strtoull(s + n + 1, &end, 10);
		if (errno || (x > STEP_SCHEDULE_MAX && k != 5) || x > (unsigned long long)INT64_MAX / 2 ||
		    (*end && *end != ','))
			return -EINVAL;
		v[k] = x;
		seen |= 1u << k;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -EINVAL;  /* a trailing comma */
	}
	if (v[3] == 0)
		return -EINVAL;
	*ret = (struct step_schedule){ v[0], v[1], v[2], v[3], v[4], (seen & 1u << 5) != 0, v[5], v[6] };
	return 0;
}

/* Step k's phase; for warmup and active, *ret_first is the index of the
 * first active step of its cycle. */
static inline enum step_phase step_schedule_phase(const struct step_schedule *sc, uint64_t k, uint64_t *ret_first)
{
	if (k < sc->skip_first)
		return STEP_SKIP;
	uint64_t j = k - sc->skip_first, cycle = sc->wait + sc->warmup + sc->active;
	uint64_t c = j / cycle, p = j % cycle;
	if (sc->repeat && c >= sc->repeat)
		return STEP_DONE;
	if (p < sc->wait)
		return STEP_WAIT;
	*ret_first = k - p + sc->wait + sc->warmup;
	return p < sc->wait + sc->warmup ? STEP_WARMUP : STEP_ACTIVE;
}
