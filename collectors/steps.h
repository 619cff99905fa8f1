/* The training-step convention, shared by the agent (--step-range) and the
 * export (STEP, step_trace): an annotation whose whole message is
 * "step N" (case-insensitive, one space) or torch's "ProfilerStep#N", N a
 * decimal non-negative integer below 2^63, names step N.  A range with such
 * a message spans the step; a mark with it in the domain MSTX_STEP_DOMAIN
 * (mstxStep, at the top of a loop) starts the step and ends the previous
 * one; a mark with it in STEP_END_DOMAIN (mstxStepEnd, at the bottom)
 * ends the step, which began where the process's previous step ended. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#define STEP_DOMAIN "msprof.step"   /* = MSTX_STEP_DOMAIN of ms_tools_ext.h */
#define STEP_END_DOMAIN "msprof.step.end"   /* = MSTX_STEP_END_DOMAIN */

/* true and *ret_step when the n-byte message names a step. */
static inline bool step_parse(const char *s, size_t n, uint64_t *ret_step)
{
	size_t p;
	if (n > 5 && strncasecmp(s, "step ", 5) == 0)
		p = 5;
	else if (n > 13 && strncasecmp(s, "ProfilerStep#", 13) == 0)
		p = 13;
	else
		return false;
	uint64_t v = 0;
	if (n - p > 19)   /* longer than INT64_MAX's digits */
		return false;
	for (; p < n; p++) {
		if (s[p] < '0' || s[p] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[p] - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return false;
	*ret_step = v;
	return true;
}
