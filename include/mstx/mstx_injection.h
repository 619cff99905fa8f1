/* mstx_injection.h: how an mstx loader hands its calls to a tool.
 *
 * The loader (libms_tools_ext, or CANN's header-only ms_tools_ext.h) keeps
 * one function-pointer slot per API call.  On the first call it finds the
 * tool: `InitInjectionMstx` already loaded in the process (an LD_PRELOADed
 * tool; libms_tools_ext looks there first) or exported by the library named
 * by $MSTX_INJECTION_PATH (dlopen).  It calls
 *
 *   int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable);
 *
 * and the tool, for each module it implements, asks for that module's table
 * and writes its functions into the slots:
 *
 *   mstxFuncTable t; unsigned n;
 *   if (getFuncTable(MSTX_API_MODULE_CORE, &t, &n) == MSTX_SUCCESS
 *       && MSTX_API_CORE_MARK_A < n && t[MSTX_API_CORE_MARK_A])
 *           *t[MSTX_API_CORE_MARK_A] = (mstxFuncPointer)my_mark;
 *
 * A table is an array of pointers to the slots, indexed by the ids below;
 * entry 0 and the entry at index n are NULL, n being the module's *_SIZE.
 * getFuncTable and InitInjectionMstx return MSTX_SUCCESS (0) on success (the
 * opposite of NVTX's convention).  When the tool fails, every slot becomes
 * NULL and the API does nothing.  Slots the tool leaves alone do nothing. */
#ifndef MSTX_INJECTION_H
#define MSTX_INJECTION_H

#include "ms_tools_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mstxMarkAFunc)(const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxRangeStartAFunc)(const char *message, aclrtStream stream);
typedef void (*mstxRangeEndFunc)(mstxRangeId id);
typedef void (*mstxGetToolIdFunc)(uint64_t *id);
typedef mstxMemHeapHandle_t (*mstxMemHeapRegisterFunc)(mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc);
typedef void (*mstxMemHeapUnregisterFunc)(mstxDomainHandle_t domain, mstxMemHeapHandle_t heap);
typedef void (*mstxMemRegionsRegisterFunc)(mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc);
typedef void (*mstxMemRegionsUnregisterFunc)(mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc);
typedef mstxDomainHandle_t (*mstxDomainCreateAFunc)(const char *name);
typedef void (*mstxDomainDestroyFunc)(mstxDomainHandle_t domain);
typedef void (*mstxDomainMarkAFunc)(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxDomainRangeStartAFunc)(mstxDomainHandle_t domain, const char *message, aclrtStream stream);
typedef void (*mstxDomainRangeEndFunc)(mstxDomainHandle_t domain, mstxRangeId id);

typedef enum mstxFuncModule {
	MSTX_API_MODULE_INVALID = 0,
	MSTX_API_MODULE_CORE = 1,
	MSTX_API_MODULE_CORE_DOMAIN = 2,
	MSTX_API_MODULE_CORE_MEM = 3,
	MSTX_API_MODULE_SIZE,
	MSTX_API_MODULE_FORCE_INT = 0x7fffffff
} mstxFuncModule;

typedef enum mstxImplCoreFuncId {
	MSTX_API_CORE_INVALID = 0,
	MSTX_API_CORE_MARK_A = 1,
	MSTX_API_CORE_RANGE_START_A = 2,
	MSTX_API_CORE_RANGE_END = 3,
	MSTX_API_CORE_GET_TOOL_ID = 4,
	MSTX_API_CORE_SIZE,
	MSTX_API_CORE_FORCE_INT = 0x7fffffff
} mstxImplCoreFuncId;

typedef enum mstxImplCoreDomainFuncId {
	MSTX_API_CORE2_INVALID = 0,
	MSTX_API_CORE2_DOMAIN_CREATE_A = 1,
	MSTX_API_CORE2_DOMAIN_DESTROY = 2,
	MSTX_API_CORE2_DOMAIN_MARK_A = 3,
	MSTX_API_CORE2_DOMAIN_RANGE_START_A = 4,
	MSTX_API_CORE2_DOMAIN_RANGE_END = 5,
	MSTX_API_CORE2_SIZE,
	MSTX_API_CORE2_FORCE_INT = 0x7fffffff
} mstxImplCoreDomainFuncId;

typedef enum mstxImplCoreMemFuncId {
	MSTX_API_CORE_MEM_INVALID = 0,
	MSTX_API_CORE_MEMHEAP_REGISTER = 1,
	MSTX_API_CORE_MEMHEAP_UNREGISTER = 2,
	MSTX_API_CORE_MEM_REGIONS_REGISTER = 3,
	MSTX_API_CORE_MEM_REGIONS_UNREGISTER = 4,
	MSTX_API_CORE_MEM_SIZE,
	MSTX_API_CORE_MEM_FORCE_INT = 0x7fffffff
} mstxImplCoreMemFuncId;

typedef void (*mstxFuncPointer)(void);
typedef mstxFuncPointer **mstxFuncTable;

typedef int (*mstxGetModuleFuncTableFunc)(mstxFuncModule module, mstxFuncTable *outTable, unsigned int *outSize);
typedef int (*mstxInitInjectionFunc)(mstxGetModuleFuncTableFunc getFuncTable);

/* What a tool exports (libmsprof_agent.so does). */
int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable);

#ifdef __cplusplus
}
#endif

#endif /* MSTX_INJECTION_H */
