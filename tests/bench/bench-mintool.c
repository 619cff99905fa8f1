/* bench-mintool: the "minimal recording tool" of issue 14, the floor the
 * agent's annotation cost is measured against.  A real tool, loaded the way
 * ours is: mstx through InitInjectionMstx (MSTX_INJECTION_PATH, the table
 * protocol of include/mstx/mstx_injection.h) and NVTX v3 through
 * InitializeInjectionNvtx2 (NVTX_INJECTION64_PATH, the export-table and
 * callback protocol of collectors/agent/nvtx-abi.h).
 *
 * Each recorded call reads CLOCK_MONOTONIC once and stores 24 bytes
 * (timestamp, message pointer or range id, kind and thread id) into this
 * thread's buffer, which wraps: nothing is ever written out, so this is
 * what recording costs before any of the work a real profiler must do
 * (message copies, a writer, files).  Push and pop keep a level counter,
 * since NVTX returns it.  libc only, like the agent. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collectors/agent/nvtx-abi.h"
#include "mstx/mstx_injection.h"

#define EXPORT __attribute__((visibility("default")))

/* 64k records (1.5 MiB) per thread: big enough to stay out of the way of
 * the caller's cache use being the figure, small enough to wrap */
#define RECS (1u << 16)

enum { K_MARK = 1, K_START, K_END, K_PUSH, K_POP };

struct rec {
	uint64_t ts;
	uint64_t what; /* message pointer, or range id */
	uint32_t kind, tid;
};
_Static_assert(sizeof(struct rec) == 24, "24-byte records");

struct tbuf {
	uint32_t pos, tid;
	int level;
	uint64_t next_id;
	struct rec r[RECS];
};

/* initial-exec, as the agent's own thread pointer: one %fs load */
static __thread struct tbuf *tl_buf __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) struct tbuf *tbuf_new(void)
{
	struct tbuf *b = calloc(1, sizeof(*b));
	if (!b)
		abort(); /* a benchmark's tool: there is no one to report to */
	/* touch every page now: the timed calls must not pay the first
	 * touch of a fresh buffer (volatile: calloc's zeroes are known) */
	for (size_t i = 0; i < sizeof(*b); i += 4096)
		((volatile char *)b)[i] = 0;
	b->tid = (uint32_t)gettid();
	b->next_id = (uint64_t)b->tid << 32;
	tl_buf = b;
	return b;
}

static inline struct tbuf *self(void)
{
	struct tbuf *b = tl_buf;
	return __builtin_expect(b != NULL, 1) ? b : tbuf_new();
}

static inline void put(struct tbuf *b, uint32_t kind, uint64_t what)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct rec *r = &b->r[b->pos++ & (RECS - 1)];
	r->ts = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->what = what;
	r->kind = kind;
	r->tid = b->tid;
}

/* --- the recorded calls -------------------------------------------------- */

static void mark(const char *msg)
{
	put(self(), K_MARK, (uint64_t)(uintptr_t)msg);
}

static uint64_t range_start(const char *msg)
{
	struct tbuf *b = self();
	uint64_t id = ++b->next_id;
	put(b, K_START, (uint64_t)(uintptr_t)msg);
	return id;
}

static void range_end(uint64_t id)
{
	put(self(), K_END, id);
}

static int push(const char *msg)
{
	struct tbuf *b = self();
	put(b, K_PUSH, (uint64_t)(uintptr_t)msg);
	return b->level++;
}

static int pop(void)
{
	struct tbuf *b = self();
	if (b->level == 0)
		return -1;
	put(b, K_POP, 0);
	return --b->level;
}

/* --- mstx ---------------------------------------------------------------- */

static void mstx_mark(const char *msg, aclrtStream stream)
{
	(void)stream;
	mark(msg);
}

static mstxRangeId mstx_range_start(const char *msg, aclrtStream stream)
{
	(void)stream;
	return range_start(msg);
}

static void mstx_range_end(mstxRangeId id)
{
	range_end(id);
}

/* MSTX_SUCCESS when the loader gave us the core table */
EXPORT int InitInjectionMstx(mstxGetModuleFuncTableFunc get)
{
	mstxFuncTable t = NULL;
	unsigned n = 0;
	if (!get || get(MSTX_API_MODULE_CORE, &t, &n) != MSTX_SUCCESS || !t)
		return MSTX_FAIL;
	if (MSTX_API_CORE_MARK_A < n && t[MSTX_API_CORE_MARK_A])
		*t[MSTX_API_CORE_MARK_A] = (mstxFuncPointer)mstx_mark;
	if (MSTX_API_CORE_RANGE_START_A < n && t[MSTX_API_CORE_RANGE_START_A])
		*t[MSTX_API_CORE_RANGE_START_A] = (mstxFuncPointer)mstx_range_start;
	if (MSTX_API_CORE_RANGE_END < n && t[MSTX_API_CORE_RANGE_END])
		*t[MSTX_API_CORE_RANGE_END] = (mstxFuncPointer)mstx_range_end;
	return MSTX_SUCCESS;
}

/* --- NVTX ---------------------------------------------------------------- */

static void nv_mark_a(const char *msg)
{
	mark(msg);
}

static uint64_t nv_range_start_a(const char *msg)
{
	return range_start(msg);
}

static void nv_range_end(uint64_t id)
{
	range_end(id);
}

static int nv_push_a(const char *msg)
{
	return push(msg);
}

static int nv_pop(void)
{
	return pop();
}

static void set(nv_function_table t, unsigned n, unsigned id, nv_function_pointer f)
{
	if (id < n && t[id])
		*t[id] = f;
}

/* non-zero on success (NVTX's convention) */
EXPORT int InitializeInjectionNvtx2(nv_get_export_table get)
{
	const struct nv_etbl_callbacks *cbs = get ? get(NV_ETID_CALLBACKS) : NULL;
	if (!cbs || cbs->struct_size < sizeof(*cbs) || !cbs->GetModuleFunctionTable)
		return 0;
	const struct nv_etbl_version_info *vi = get(NV_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof(*vi) && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(NV_TOOL_VERSION);
	nv_function_table t = NULL;
	unsigned n = 0;
	if (!cbs->GetModuleFunctionTable(NV_CB_MODULE_CORE, &t, &n) || !t)
		return 0;
	set(t, n, NV_CBID_CORE_MarkA, (nv_function_pointer)nv_mark_a);
	set(t, n, NV_CBID_CORE_RangeStartA, (nv_function_pointer)nv_range_start_a);
	set(t, n, NV_CBID_CORE_RangeEnd, (nv_function_pointer)nv_range_end);
	set(t, n, NV_CBID_CORE_RangePushA, (nv_function_pointer)nv_push_a);
	set(t, n, NV_CBID_CORE_RangePop, (nv_function_pointer)nv_pop);
	return 1;
}
