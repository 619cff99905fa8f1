/* The mstx API (reference §6) in the agent: the functions themselves,
 * exported so that a program linked against libms_tools_ext, or calling
 * them from any library, reaches the agent directly when it is preloaded;
 * and InitInjectionMstx, which fills a loader's function tables (CANN's
 * header-only loader and our libms_tools_ext both use it) with the same
 * functions.  `stream` (a device stream) is not used: events are host
 * events.  An idle call costs the g_state check and nothing else. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collectors/agent/agent.h"
#include "mstx/mstx_injection.h"

static void mark(const char *message, aclrtStream stream)
{
	(void)stream;
	if (agent_idle_annotation())
		return;
	if (!message) {
		agent_bad_call();
		return;
	}
	agent_mark(0, EV_TYPE_MARKER, message, -1, 0, 0);
}

/* A range start, with --capture-range's look at its message first: a
 * start that opens a capture returns an id its end is known by. */
static mstxRangeId capture_started(bool cap, mstxRangeId id)
{
	if (cap)
		agent_capture_began(id);
	return id ? id : cap ? AGENT_CAPTURE_ID : 0;
}

static mstxRangeId range_start(const char *message, aclrtStream stream)
{
	(void)stream;
	bool cap = agent_capture_on() && agent_capture_begin(AGENT_CAPTURE_MSTX, message, -1);
	if (agent_idle_annotation())
		return capture_started(cap, 0);
	if (!message) {
		agent_bad_call();
		return 0;
	}
	return capture_started(cap, agent_range_start(0, message, -1, 0, 0));
}

static void range_end(mstxRangeId id)
{
	if (agent_capture_on() && agent_capture_end(id) && id == AGENT_CAPTURE_ID)
		return;
	if (agent_idle())
		return;
	agent_range_end(0, id);
}

static void get_tool_id(uint64_t *id)
{
	if (id)
		*id = MSTX_TOOL_MSPROF_ID;
}

static mstxDomainHandle_t domain_create(const char *name)
{
	return agent_domain_create(name);
}

static void domain_destroy(mstxDomainHandle_t domain)
{
	agent_domain_destroy(domain);
}

static void domain_mark(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	(void)stream;
	if (agent_idle_annotation())
		return;
	uint32_t d;
	if (!message || !agent_domain_lookup(domain, &d)) {
		agent_bad_call();
		return;
	}
	agent_mark(d, EV_TYPE_MARKER, message, -1, 0, 0);
}

static mstxRangeId domain_range_start(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	(void)stream;
	bool cap = agent_capture_on() && agent_capture_begin(AGENT_CAPTURE_MSTX, message, -1);
	if (agent_idle_annotation())
		return capture_started(cap, 0);
	uint32_t d;
	if (!message || !agent_domain_lookup(domain, &d)) {
		agent_bad_call();
		return 0;
	}
	mstxRangeId id = agent_range_start(d, message, -1, 0, 0);
	if (agent_capture_on())
		agent_capture_comm_began(d, id, message);
	return capture_started(cap, id);
}

static void domain_range_end(mstxDomainHandle_t domain, mstxRangeId id)
{
	if (agent_capture_on() && agent_capture_end(id) && id == AGENT_CAPTURE_ID)
		return;
	if (agent_idle())
		return;
	uint32_t d;
	if (!agent_domain_lookup(domain, &d)) {
		agent_bad_call();
		return;
	}
	agent_range_end(d, id);
}

/* --- exported API ----------------------------------------------------------- */

AGENT_EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
	mark(message, stream);
}

AGENT_EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	return range_start(message, stream);
}

AGENT_EXPORT void mstxRangeEnd(mstxRangeId id)
{
	range_end(id);
}

AGENT_EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	return domain_create(name);
}

AGENT_EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	domain_destroy(domain);
}

AGENT_EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	domain_mark(domain, message, stream);
}

AGENT_EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	return domain_range_start(domain, message, stream);
}

AGENT_EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	domain_range_end(domain, id);
}

AGENT_EXPORT void mstxGetToolId(uint64_t *id)
{
	get_tool_id(id);
}

/* --- injection ---------------------------------------------------------------- */

/* Write fn into slot `idx` of a loader's table when the loader has it. */
static void fill(mstxFuncTable table, unsigned size, unsigned idx, mstxFuncPointer fn)
{
	if (idx < size && table[idx])
		*table[idx] = fn;
}

AGENT_EXPORT int InitInjectionMstx(mstxGetModuleFuncTableFunc get_table)
{
	mstxFuncTable t = NULL;
	unsigned n = 0;
	if (!get_table)
		return MSTX_FAIL;
	if (get_table(MSTX_API_MODULE_CORE, &t, &n) != MSTX_SUCCESS || !t)
		return MSTX_FAIL;
	fill(t, n, MSTX_API_CORE_MARK_A, (mstxFuncPointer)mark);
	fill(t, n, MSTX_API_CORE_RANGE_START_A, (mstxFuncPointer)range_start);
	fill(t, n, MSTX_API_CORE_RANGE_END, (mstxFuncPointer)range_end);
	fill(t, n, MSTX_API_CORE_GET_TOOL_ID, (mstxFuncPointer)get_tool_id);
	/* an old loader without domains still gets the core calls */
	if (get_table(MSTX_API_MODULE_CORE_DOMAIN, &t, &n) == MSTX_SUCCESS && t) {
		fill(t, n, MSTX_API_CORE2_DOMAIN_CREATE_A, (mstxFuncPointer)domain_create);
		fill(t, n, MSTX_API_CORE2_DOMAIN_DESTROY, (mstxFuncPointer)domain_destroy);
		fill(t, n, MSTX_API_CORE2_DOMAIN_MARK_A, (mstxFuncPointer)domain_mark);
		fill(t, n, MSTX_API_CORE2_DOMAIN_RANGE_START_A, (mstxFuncPointer)domain_range_start);
		fill(t, n, MSTX_API_CORE2_DOMAIN_RANGE_END, (mstxFuncPointer)domain_range_end);
	}
	/* CORE_MEM: memory pools are not profiled by msprof; left as no-ops */
	return MSTX_SUCCESS;
}

/* msprof extension (ms_tools_ext.h): the name of thread tid of this
 * process, as NVTX's nvtxNameOsThreadA gives it (the export's thread
 * names), at any time: the names are kept across windows. */
AGENT_EXPORT void mstxNameOsThreadA(uint32_t tid, const char *name)
{
	if (!name) {
		agent_bad_call();
		return;
	}
	agent_name_thread(tid, name, strnlen(name, RAW_AGENT_MAX_STR));
}

/* msprof extensions (ms_tools_ext.h): a mark "step N" in the reserved
 * domain MSTX_STEP_DOMAIN (mstxStep) or MSTX_STEP_END_DOMAIN (mstxStepEnd).
 * The domain is created on the first call; idle calls cost the usual load
 * and compare. */
static void step_mark(_Atomic(mstxDomainHandle_t) *dom, const char *name, uint64_t step)
{
	if (agent_capture_on())
		agent_capture_step_mark(strcmp(name, MSTX_STEP_END_DOMAIN) == 0, step);
	if (agent_idle_annotation())
		return;
	mstxDomainHandle_t d = atomic_load_explicit(dom, memory_order_acquire);
	if (!d) {
		if (!(d = agent_domain_create(name)))
			return;
		atomic_store_explicit(dom, d, memory_order_release);
	}
	char msg[32];
	snprintf(msg, sizeof msg, "step %" PRIu64, step);
	domain_mark(d, msg, NULL);
}

AGENT_EXPORT void mstxStep(uint64_t step)
{
	static _Atomic(mstxDomainHandle_t) dom;
	step_mark(&dom, MSTX_STEP_DOMAIN, step);
}

AGENT_EXPORT void mstxStepEnd(uint64_t step)
{
	static _Atomic(mstxDomainHandle_t) dom;
	step_mark(&dom, MSTX_STEP_END_DOMAIN, step);
}
