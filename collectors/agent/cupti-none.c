/* The agent built without the CUDA toolkit's headers: no CUPTI.  The
 * driver may still call InitializeInjection (CUDA_INJECTION64_PATH): say
 * once that device tasks are not recorded. */
#include <stdio.h>

#include "collectors/agent/agent.h"

AGENT_EXPORT int InitializeInjection(void)
{
	static _Atomic int said;
	if (!atomic_exchange(&said, 1))
		fputs("msprof agent: built without CUPTI (no CUDA toolkit headers at build time): device tasks are "
		      "not recorded\n", stderr);
	return 1;
}

/* --capture-range=cudaProfilerApi: never seen here */
void agent_cupti_on_profiler_api(void (*fn)(bool start))
{
	(void)fn;
	fputs("msprof agent: built without CUPTI (no CUDA toolkit headers at build time): "
	      "--capture-range=cudaProfilerApi opens no window\n", stderr);
}

bool agent_cupti_active(void) { return false; }
bool agent_cupti_came_up(void) { return false; }
void agent_cupti_window(uint64_t start_ns) { (void)start_ns; }
void agent_cupti_flush(void) {}
bool agent_cupti_pending(void) { return false; }

unsigned long agent_cupti_drain(int (*emit)(uint16_t type, const uint8_t *p, uint32_t len), struct cupti_lost *ret)
{
	(void)emit;
	(void)ret;
	return 0;
}
