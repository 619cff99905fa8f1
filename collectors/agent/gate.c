/* --step-range and --ranks in the agent (agent_start's "step_range" and
 * "ranks").
 *
 * Ranks: a process whose rank (agent_rank(), read when agent_start comes)
 * is not listed answers agent_start and records nothing, as with
 * msproftx false.  A process without a rank (-1) is never listed.
 *
 * Step range A-B: the step markers themselves (collectors/steps.h) decide.
 * The process's current step is the last step started by a "step N" range
 * or push, or by mstxStep, or the one after the step mstxStepEnd ended;
 * ending that range (or popping that push) leaves it outside any step.  Step markers are always recorded, so that STEP and
 * step_trace show every step's timing; every other annotation is recorded
 * only while the current step is in [A, B).  The current step is one per
 * process (threads annotating inside a step belong to it), kept with
 * relaxed atomics: an annotation racing a step boundary on another thread
 * may land on either side, as it would in time. */
#include <stdlib.h>
#include <string.h>

#include "collectors/agent/agent.h"
#include "collectors/steps.h"
#include "common/rankenv.h"

_Atomic int g_gate_on;                 /* a step range is set (agent.h) */
static _Atomic int64_t g_lo, g_hi;     /* [A, B), set while idle (a window's start; relaxed) */
static _Atomic int64_t g_cur = -1;     /* current step, -1 outside */
static _Atomic uint64_t g_cur_range;   /* the start/end range that opened it, 0 none */
static _Atomic uint64_t g_cur_push;    /* (slot+1) << 40 | domain << 8 | level+1 of its push, 0 none */
/* Domain ids named STEP_DOMAIN and STEP_END_DOMAIN, as core.c names them
 * (agent_gate_domain_named): bits here rather than a look into core.c's
 * table, which is above us. */
static _Atomic uint64_t g_step_domains[AGENT_MAX_DOMAINS / 64], g_step_end_domains[AGENT_MAX_DOMAINS / 64];
/* the domain "communication" (torch_npu's, and mstx.torch's collectives) */
static _Atomic uint64_t g_comm_domains[AGENT_MAX_DOMAINS / 64];

void agent_gate_domain_named(uint32_t id, const char *name)
{
	if (id >= AGENT_MAX_DOMAINS || !name)
		return;
	if (strcmp(name, STEP_DOMAIN) == 0)
		atomic_fetch_or_explicit(&g_step_domains[id / 64], 1ULL << (id % 64), memory_order_relaxed);
	else if (strcmp(name, STEP_END_DOMAIN) == 0)
		atomic_fetch_or_explicit(&g_step_end_domains[id / 64], 1ULL << (id % 64), memory_order_relaxed);
	else if (strcmp(name, "communication") == 0)
		atomic_fetch_or_explicit(&g_comm_domains[id / 64], 1ULL << (id % 64), memory_order_relaxed);
}

static bool in_bits(_Atomic uint64_t *bits, uint32_t id)
{
	return id < AGENT_MAX_DOMAINS && atomic_load_explicit(&bits[id / 64], memory_order_relaxed) >> (id % 64) & 1;
}

bool agent_gate_is_comm(uint32_t domain)
{
	return in_bits(g_comm_domains, domain);
}

int agent_gate_parse_range(const char *s, int64_t *ret_lo, int64_t *ret_hi)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long a = strtoull(s, &end, 10);
	if (errno || *end != '-' || end[1] < '0' || end[1] > '9' || a > INT64_MAX)
		return -EINVAL;
	unsigned long long b = strtoull(end + 1, &end, 10);
	if (errno || *end || b > INT64_MAX || b <= a)
		return -EINVAL;
	*ret_lo = (int64_t)a;
	*ret_hi = (int64_t)b;
	return 0;
}

bool agent_gate_rank_listed(const char *ranks, int rank)
{
	return rank_env_listed(ranks, rank);
}

void agent_gate_set(bool on, int64_t lo, int64_t hi)
{
	atomic_store_explicit(&g_lo, lo, memory_order_relaxed);
	atomic_store_explicit(&g_hi, hi, memory_order_relaxed);
	atomic_store(&g_cur, -1);
	atomic_store(&g_cur_range, 0);
	atomic_store(&g_cur_push, 0);
	atomic_store_explicit(&g_gate_on, on, memory_order_release);
}

static inline bool in_range(void)
{
	int64_t c = atomic_load_explicit(&g_cur, memory_order_relaxed);
	return c >= atomic_load_explicit(&g_lo, memory_order_relaxed) &&
	       c < atomic_load_explicit(&g_hi, memory_order_relaxed);
}

static bool step_of(const char *msg, long len, uint64_t *ret)
{
	if (!msg)
		return false;
	size_t n = len < 0 ? strnlen(msg, 64) : (size_t)len;
	return n < 64 && step_parse(msg, n, ret);
}

bool agent_gate_mark(uint32_t domain, const char *msg, long len)
{
	if (!atomic_load_explicit(&g_gate_on, memory_order_relaxed))
		return true;
	uint64_t step;
	bool ends = false;
	if (step_of(msg, len, &step) &&
	    (in_bits(g_step_domains, domain) || (ends = in_bits(g_step_end_domains, domain)))) {
		/* step N ends: the process is in step N + 1 (INT64_MAX: past any range) */
		int64_t cur = ends ? (step < (uint64_t)INT64_MAX ? (int64_t)step + 1 : INT64_MAX) : (int64_t)step;
		atomic_store_explicit(&g_cur, cur, memory_order_relaxed);
		atomic_store_explicit(&g_cur_range, 0, memory_order_relaxed);
		atomic_store_explicit(&g_cur_push, 0, memory_order_relaxed);
		return true;
	}
	return in_range();
}

int agent_gate_start(const char *msg, long len)
{
	if (!atomic_load_explicit(&g_gate_on, memory_order_relaxed))
		return 1;
	uint64_t step;
	if (step_of(msg, len, &step)) {
		atomic_store_explicit(&g_cur, (int64_t)step, memory_order_relaxed);
		return 2;
	}
	return in_range();
}

void agent_gate_started_range(uint64_t id)
{
	atomic_store_explicit(&g_cur_range, id, memory_order_relaxed);
	atomic_store_explicit(&g_cur_push, 0, memory_order_relaxed);
}

void agent_gate_pushed(uint32_t slot, uint32_t domain, uint32_t level)
{
	atomic_store_explicit(&g_cur_push, ((uint64_t)slot + 1) << 40 | (uint64_t)domain << 8 | (level + 1U),
			      memory_order_relaxed);
	atomic_store_explicit(&g_cur_range, 0, memory_order_relaxed);
}

void agent_gate_ended_range(uint64_t id)
{
	if (id && atomic_load_explicit(&g_gate_on, memory_order_relaxed) &&
	    atomic_load_explicit(&g_cur_range, memory_order_relaxed) == id) {
		atomic_store_explicit(&g_cur, -1, memory_order_relaxed);
		atomic_store_explicit(&g_cur_range, 0, memory_order_relaxed);
	}
}

void agent_gate_popped(uint32_t slot, uint32_t domain, uint32_t level)
{
	uint64_t key = ((uint64_t)slot + 1) << 40 | (uint64_t)domain << 8 | (level + 1U);
	if (atomic_load_explicit(&g_gate_on, memory_order_relaxed) &&
	    atomic_load_explicit(&g_cur_push, memory_order_relaxed) == key) {
		atomic_store_explicit(&g_cur, -1, memory_order_relaxed);
		atomic_store_explicit(&g_cur_push, 0, memory_order_relaxed);
	}
}
