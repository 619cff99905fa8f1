/* libms_tools_ext: the mstx API for programs that link it (pkg-config
 * msprof-mstx).  Every call goes through a function-pointer slot.  The
 * first call looks for a tool, once: InitInjectionMstx already in the
 * process (an LD_PRELOADed libmsprof_agent.so — though then the program's
 * calls reach the agent's own exported functions and never come here), else
 * the library named by $MSTX_INJECTION_PATH.  The tool fills the slots
 * through the table protocol of mstx_injection.h, the same one CANN's
 * header-only loader speaks, so any mstx tool works.  Without a tool every
 * slot is NULL and a call is a load and a compare. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/control.h"
#include "mstx/mstx_injection.h"

#define EXPORT __attribute__((visibility("default")))

/* Slots, with a table per module: entry i points at slot i; entry 0 and
 * the last (index *_SIZE) are NULL, as in CANN's loader. */
static struct {
	mstxMarkAFunc mark;
	mstxRangeStartAFunc range_start;
	mstxRangeEndFunc range_end;
	mstxGetToolIdFunc get_tool_id;
	mstxDomainCreateAFunc domain_create;
	mstxDomainDestroyFunc domain_destroy;
	mstxDomainMarkAFunc domain_mark;
	mstxDomainRangeStartAFunc domain_range_start;
	mstxDomainRangeEndFunc domain_range_end;
	mstxMemHeapRegisterFunc heap_register;
	mstxMemHeapUnregisterFunc heap_unregister;
	mstxMemRegionsRegisterFunc regions_register;
	mstxMemRegionsUnregisterFunc regions_unregister;
} S;

static mstxFuncPointer *tab_core[MSTX_API_CORE_SIZE + 1] = {
	NULL,
	(mstxFuncPointer *)&S.mark,
	(mstxFuncPointer *)&S.range_start,
	(mstxFuncPointer *)&S.range_end,
	(mstxFuncPointer *)&S.get_tool_id,
	NULL,
};
static mstxFuncPointer *tab_domain[MSTX_API_CORE2_SIZE + 1] = {
	NULL,
	(mstxFuncPointer *)&S.domain_create,
	(mstxFuncPointer *)&S.domain_destroy,
	(mstxFuncPointer *)&S.domain_mark,
	(mstxFuncPointer *)&S.domain_range_start,
	(mstxFuncPointer *)&S.domain_range_end,
	NULL,
};
static mstxFuncPointer *tab_mem[MSTX_API_CORE_MEM_SIZE + 1] = {
	NULL,
	(mstxFuncPointer *)&S.heap_register,
	(mstxFuncPointer *)&S.heap_unregister,
	(mstxFuncPointer *)&S.regions_register,
	(mstxFuncPointer *)&S.regions_unregister,
	NULL,
};

static int get_table(mstxFuncModule module, mstxFuncTable *out_table, unsigned int *out_size)
{
	mstxFuncTable t;
	unsigned n;
	switch (module) {
	case MSTX_API_MODULE_CORE:
		t = tab_core;
		n = MSTX_API_CORE_SIZE;
		break;
	case MSTX_API_MODULE_CORE_DOMAIN:
		t = tab_domain;
		n = MSTX_API_CORE2_SIZE;
		break;
	case MSTX_API_MODULE_CORE_MEM:
		t = tab_mem;
		n = MSTX_API_CORE_MEM_SIZE;
		break;
	default:
		return MSTX_FAIL;
	}
	if (!out_table || !out_size)
		return MSTX_FAIL;
	*out_table = t;
	*out_size = n;
	return MSTX_SUCCESS;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic int ready;

/* dlsym's object pointer as the function it is (POSIX guarantees this;
 * ISO C has no cast for it). */
static mstxInitInjectionFunc init_of(void *sym)
{
	mstxInitInjectionFunc f;
	memcpy(&f, &sym, sizeof(f));
	return f;
}

/* msprof's extension mstxNameOsThreadA, where the tool has it: looked up
 * in the tool's own library (dladdr of its init), never our own. */
typedef void (*name_thread_func)(uint32_t tid, const char *name);
static name_thread_func name_thread;
/* msprof's msprofStart/msprofStop (msprof/control.h), the same way */
typedef int (*capture_func)(void);
static capture_func capture_start, capture_stop;
typedef int (*schedule_func)(const char *spec);
static schedule_func capture_schedule;

/* sym of the tool's library h, unless it is ours (self) */
static void *tool_sym(void *h, const char *sym, void *self)
{
	void *f = h ? dlsym(h, sym) : NULL;
	return f != self ? f : NULL;
}

static void find_name_thread(mstxInitInjectionFunc init)
{
	Dl_info info;
	void *sym;
	memcpy(&sym, &init, sizeof(sym));
	if (!dladdr(sym, &info) || !info.dli_fname)
		return;
	void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	void (*self)(uint32_t, const char *) = mstxNameOsThreadA;
	int (*self_start)(void) = msprofStart, (*self_stop)(void) = msprofStop;
	void *self_sym, *f;
	memcpy(&self_sym, &self, sizeof(self_sym));
	if ((f = tool_sym(h, "mstxNameOsThreadA", self_sym)))
		memcpy(&name_thread, &f, sizeof(name_thread));
	memcpy(&self_sym, &self_start, sizeof(self_sym));
	if ((f = tool_sym(h, "msprofStart", self_sym)))
		memcpy(&capture_start, &f, sizeof(capture_start));
	memcpy(&self_sym, &self_stop, sizeof(self_sym));
	if ((f = tool_sym(h, "msprofStop", self_sym)))
		memcpy(&capture_stop, &f, sizeof(capture_stop));
	int (*self_schedule)(const char *) = msprofSchedule;
	memcpy(&self_sym, &self_schedule, sizeof(self_sym));
	if ((f = tool_sym(h, "msprofSchedule", self_sym)))
		memcpy(&capture_schedule, &f, sizeof(capture_schedule));
	if (h)
		dlclose(h);
}

static void load(void)
{
	mstxInitInjectionFunc init = init_of(dlsym(RTLD_DEFAULT, "InitInjectionMstx"));
	if (!init) {
		const char *path = getenv("MSTX_INJECTION_PATH");
		void *h = path && *path ? dlopen(path, RTLD_LAZY | RTLD_LOCAL) : NULL;
		if (h)
			init = init_of(dlsym(h, "InitInjectionMstx"));
	}
	if (!init || init(get_table) != MSTX_SUCCESS) {
		/* a tool that fails leaves nothing half-filled behind */
		for (size_t i = 1; i < MSTX_API_CORE_SIZE; i++)
			*tab_core[i] = NULL;
		for (size_t i = 1; i < MSTX_API_CORE2_SIZE; i++)
			*tab_domain[i] = NULL;
		for (size_t i = 1; i < MSTX_API_CORE_MEM_SIZE; i++)
			*tab_mem[i] = NULL;
	} else {
		find_name_thread(init);
	}
	atomic_store_explicit(&ready, 1, memory_order_release);
}

/* The slot once the tool is known (first call: find it). */
#define SLOT(f)                                                                          \
	(atomic_load_explicit(&ready, memory_order_acquire) ? S.f                         \
							     : (pthread_once(&once, load), S.f))

EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
	mstxMarkAFunc f = SLOT(mark);
	if (f)
		f(message, stream);
}

EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	mstxRangeStartAFunc f = SLOT(range_start);
	return f ? f(message, stream) : 0;
}

EXPORT void mstxRangeEnd(mstxRangeId id)
{
	mstxRangeEndFunc f = SLOT(range_end);
	if (f)
		f(id);
}

EXPORT void mstxGetToolId(uint64_t *id)
{
	if (!id)
		return;
	mstxGetToolIdFunc f = SLOT(get_tool_id);
	if (f)
		f(id);
	else
		*id = MSTX_TOOL_INVALID_ID;
}

EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	mstxDomainCreateAFunc f = SLOT(domain_create);
	return f ? f(name) : NULL;
}

EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	mstxDomainDestroyFunc f = SLOT(domain_destroy);
	if (f)
		f(domain);
}

EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	mstxDomainMarkAFunc f = SLOT(domain_mark);
	if (f)
		f(domain, message, stream);
}

EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	mstxDomainRangeStartAFunc f = SLOT(domain_range_start);
	return f ? f(domain, message, stream) : 0;
}

EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	mstxDomainRangeEndFunc f = SLOT(domain_range_end);
	if (f)
		f(domain, id);
}

/* A mark "step N" in one of the reserved step domains, through the
 * ordinary slots, so it needs nothing new from the tool; the domain is
 * created once (a race creates it twice: same handle). */
static void step_mark(_Atomic(mstxDomainHandle_t) *dom, const char *name, uint64_t step)
{
	mstxDomainMarkAFunc f = SLOT(domain_mark);
	if (!f)
		return;
	mstxDomainHandle_t d = atomic_load_explicit(dom, memory_order_acquire);
	if (!d) {
		d = mstxDomainCreateA(name);
		if (!d)
			return;
		atomic_store_explicit(dom, d, memory_order_release);
	}
	char msg[32];
	snprintf(msg, sizeof msg, "step %" PRIu64, step);
	f(d, msg, NULL);
}

EXPORT void mstxStep(uint64_t step)
{
	static _Atomic(mstxDomainHandle_t) dom;
	step_mark(&dom, MSTX_STEP_DOMAIN, step);
}

EXPORT void mstxStepEnd(uint64_t step)
{
	static _Atomic(mstxDomainHandle_t) dom;
	step_mark(&dom, MSTX_STEP_END_DOMAIN, step);
}

EXPORT int msprofStart(void)
{
	if (!atomic_load_explicit(&ready, memory_order_acquire))
		pthread_once(&once, load);
	return capture_start ? capture_start() : -ENOTCONN;
}

EXPORT int msprofStop(void)
{
	if (!atomic_load_explicit(&ready, memory_order_acquire))
		pthread_once(&once, load);
	return capture_stop ? capture_stop() : -ENOTCONN;
}

EXPORT int msprofSchedule(const char *spec)
{
	if (!atomic_load_explicit(&ready, memory_order_acquire))
		pthread_once(&once, load);
	return capture_schedule ? capture_schedule(spec) : -ENOTCONN;
}

EXPORT void mstxNameOsThreadA(uint32_t tid, const char *name)
{
	if (!atomic_load_explicit(&ready, memory_order_acquire))
		pthread_once(&once, load);
	if (name_thread && name)
		name_thread(tid, name);
}

EXPORT mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc)
{
	mstxMemHeapRegisterFunc f = SLOT(heap_register);
	return f ? f(domain, desc) : NULL;
}

EXPORT void mstxMemHeapUnregister(mstxDomainHandle_t domain, mstxMemHeapHandle_t heap)
{
	mstxMemHeapUnregisterFunc f = SLOT(heap_unregister);
	if (f)
		f(domain, heap);
}

EXPORT void mstxMemRegionsRegister(mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc)
{
	mstxMemRegionsRegisterFunc f = SLOT(regions_register);
	if (f)
		f(domain, desc);
}

EXPORT void mstxMemRegionsUnregister(mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc)
{
	mstxMemRegionsUnregisterFunc f = SLOT(regions_unregister);
	if (f)
		f(domain, desc);
}
