/* ms_tools_ext.h: the mstx annotation API of msprof (Ascend CANN), for any
 * Linux program.
 *
 * Link with libms_tools_ext (pkg-config msprof-mstx).  The library forwards
 * every call to the profiling tool when one is loaded (msprof's agent,
 * libmsprof_agent.so, injected by `msprof` through LD_PRELOAD or
 * MSTX_INJECTION_PATH) and does nothing otherwise, so annotated programs run
 * unchanged without a profiler.
 *
 *   mstxRangeId id = mstxRangeStartA("load batch", NULL);
 *   ...
 *   mstxRangeEnd(id);
 *
 * Messages must not be NULL; msprof keeps up to 1024 bytes of each (longer
 * ones are cut and counted).  `stream` names an accelerator stream for a
 * device-side marker; pass NULL for a host-only event (the only kind recorded
 * on machines without an Ascend device).  A range may end on another thread
 * than the one that started it.  Calls are thread-safe.
 *
 * Define MSTX_DISABLE before including this header to compile every call
 * away.  The injection protocol a tool implements is in mstx_injection.h. */
#ifndef MSTX_TOOLS_EXT
#define MSTX_TOOLS_EXT

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_SUCCESS 0
#define MSTX_FAIL 1

#define MSTX_TOOL_INVALID_ID 0x0
#define MSTX_TOOL_MSPROF_ID 0x1000
#define MSTX_TOOL_MSOPPROF_ID 0x1001
#define MSTX_TOOL_MSSANITIZER_ID 0x1002
#define MSTX_TOOL_MSLEAKS_ID 0x1003

typedef uint64_t mstxRangeId;
typedef void *aclrtStream;

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration_t;
typedef mstxDomainRegistration_t *mstxDomainHandle_t;

/* --- memory pools (recorded by memory tools; msprof ignores them) -------- */

struct mstxMemHeap_st;
typedef struct mstxMemHeap_st mstxMemHeap_t;
typedef mstxMemHeap_t *mstxMemHeapHandle_t;

struct mstxMemRegion_st;
typedef struct mstxMemRegion_st mstxMemRegion_t;
typedef mstxMemRegion_t *mstxMemRegionHandle_t;

typedef struct mstxMemVirtualRangeDesc_t {
	uint32_t deviceId;
	void const *ptr;
	uint64_t size;
} mstxMemVirtualRangeDesc_t;

typedef enum mstxMemHeapUsageType {
	MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR = 0,
} mstxMemHeapUsageType;

typedef enum mstxMemType {
	MSTX_MEM_TYPE_VIRTUAL_ADDRESS = 0,
} mstxMemType;

typedef struct mstxMemHeapDesc_t {
	mstxMemHeapUsageType usage;
	mstxMemType type;
	void const *typeSpecificDesc;
} mstxMemHeapDesc_t;

typedef struct mstxMemRegionsRegisterBatch_t {
	mstxMemHeapHandle_t heap;
	mstxMemType regionType;
	size_t regionCount;
	void const *regionDescArray;
	mstxMemRegionHandle_t *regionHandleArrayOut;
} mstxMemRegionsRegisterBatch_t;

typedef enum mstxMemRegionRefType {
	MSTX_MEM_REGION_REF_TYPE_POINTER = 0,
	MSTX_MEM_REGION_REF_TYPE_HANDLE
} mstxMemRegionRefType;

typedef struct mstxMemRegionRef_t {
	mstxMemRegionRefType refType;
	union {
		void const *pointer;
		mstxMemRegionHandle_t handle;
	};
} mstxMemRegionRef_t;

typedef struct mstxMemRegionsUnregisterBatch_t {
	size_t refCount;
	mstxMemRegionRef_t const *refArray;
} mstxMemRegionsUnregisterBatch_t;

#ifndef MSTX_DISABLE

/* An instant event. */
void mstxMarkA(const char *message, aclrtStream stream);
/* Start a range; returns its id for mstxRangeEnd, 0 when nothing records. */
mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
/* End a range, on any thread; 0 and unknown ids are ignored. */
void mstxRangeEnd(mstxRangeId id);

/* A named domain ("default" is the domain of the calls above); NULL on
 * failure.  Creating a name that exists returns the same handle. */
mstxDomainHandle_t mstxDomainCreateA(const char *name);
void mstxDomainDestroy(mstxDomainHandle_t domain);
void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

/* The tool that receives the calls: MSTX_TOOL_MSPROF_ID under msprof,
 * MSTX_TOOL_INVALID_ID when none is loaded. */
void mstxGetToolId(uint64_t *id);

/* msprof extension: step `step` starts now and the previous step of this
 * process ends here.  A mark "step <step>" in the reserved domain
 * "msprof.step" (MSTX_STEP_DOMAIN), so any mstx tool sees it; msprof's
 * export turns it into a STEP row and a step_trace line. */
#define MSTX_STEP_DOMAIN "msprof.step"
void mstxStep(uint64_t step);

/* msprof extension: step `step` ends now, and the next one begins (call it
 * at the bottom of a loop; mstxStep at the top).  The step began where the
 * process's previous step ended, the first at the process's first
 * annotation.  A mark "step <step>" in the reserved domain
 * "msprof.step.end" (MSTX_STEP_END_DOMAIN). */
#define MSTX_STEP_END_DOMAIN "msprof.step.end"
void mstxStepEnd(uint64_t step);

/* msprof extension: thread `tid` (its kernel id, gettid) of this process is
 * called `name` in the profile, as nvtxNameOsThreadA names it; a name longer
 * than the thread's comm is kept whole.  A no-op under a tool without it. */
void mstxNameOsThreadA(uint32_t tid, const char *name);

mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc);
void mstxMemHeapUnregister(mstxDomainHandle_t domain, mstxMemHeapHandle_t heap);
void mstxMemRegionsRegister(mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc);
void mstxMemRegionsUnregister(mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc);

#else /* MSTX_DISABLE: every call compiles to nothing */

static inline void mstxMarkA(const char *m, aclrtStream s) { (void)m, (void)s; }
static inline mstxRangeId mstxRangeStartA(const char *m, aclrtStream s) { (void)m, (void)s; return 0; }
static inline void mstxRangeEnd(mstxRangeId id) { (void)id; }
static inline mstxDomainHandle_t mstxDomainCreateA(const char *n) { (void)n; return (mstxDomainHandle_t)0; }
static inline void mstxDomainDestroy(mstxDomainHandle_t d) { (void)d; }
static inline void mstxDomainMarkA(mstxDomainHandle_t d, const char *m, aclrtStream s) { (void)d, (void)m, (void)s; }
static inline mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t d, const char *m, aclrtStream s)
{
	(void)d, (void)m, (void)s;
	return 0;
}
static inline void mstxDomainRangeEnd(mstxDomainHandle_t d, mstxRangeId id) { (void)d, (void)id; }
static inline void mstxGetToolId(uint64_t *id) { if (id) *id = MSTX_TOOL_INVALID_ID; }
static inline void mstxStep(uint64_t step) { (void)step; }
static inline void mstxStepEnd(uint64_t step) { (void)step; }
static inline void mstxNameOsThreadA(uint32_t tid, const char *name) { (void)tid, (void)name; }
static inline mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t d, mstxMemHeapDesc_t const *x)
{
	(void)d, (void)x;
	return (mstxMemHeapHandle_t)0;
}
static inline void mstxMemHeapUnregister(mstxDomainHandle_t d, mstxMemHeapHandle_t h) { (void)d, (void)h; }
static inline void mstxMemRegionsRegister(mstxDomainHandle_t d, mstxMemRegionsRegisterBatch_t const *x) { (void)d, (void)x; }
static inline void mstxMemRegionsUnregister(mstxDomainHandle_t d, mstxMemRegionsUnregisterBatch_t const *x) { (void)d, (void)x; }

#endif /* MSTX_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* MSTX_TOOLS_EXT */
