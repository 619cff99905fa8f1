/* --capture-range: a named range of the job opens a window as it starts
 * and closes it as it ends (MSPROF_CAPTURE_RANGE "mstx:NAME" or
 * "nvtx:NAME", MSPROF_CAPTURE_RANGE_END "stop" or "repeat:N", set by msprof
 * for the application it launches in dynamic mode), or the job's
 * cudaProfilerStart/cudaProfilerStop do ("cudaProfilerApi": cupti.c sees
 * them through CUPTI's callbacks and calls profiler_call back).  The
 * request goes as msprofStart/msprofStop's does (agent_capture_ask), so a
 * range seen while no window records still opens one; the range itself is
 * recorded only once its window is open.  One capture at a time: a second
 * range of the name that starts while one is open is an ordinary range.
 *
 * A start/end range is known at its end by its id: the one its start
 * returned, or CAPTURE_ID when the start came while idle (the id then says
 * nothing was recorded).  An NVTX push by its thread, domain and level. */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"

bool g_capture_on;
static struct {
	int kind;                  /* AGENT_CAPTURE_MSTX, _NVTX, _CUDA */
	char name[256];
	size_t len;
	_Atomic uint64_t left;     /* captures still to take */
	_Atomic int open;          /* one is open */
	_Atomic uint64_t id;       /* its range id (start/end) */
	_Atomic uint64_t push;     /* its push: tid << 32 | domain << 16 | level + 1, 0 none */
} K;

static bool named(int kind, const char *msg, long len)
{
	if (kind != K.kind || !msg)
		return false;
	size_t n = len < 0 ? strnlen(msg, K.len + 1) : (size_t)len;
	return n == K.len && memcmp(msg, K.name, n) == 0;
}

/* Take a capture if one is left and none is open. */
static bool take(void)
{
	int closed = 0;
	if (atomic_load(&K.left) == 0 || !atomic_compare_exchange_strong(&K.open, &closed, 1))
		return false;
	(void)agent_capture_ask(true);
	return true;
}

static void give_back(void)
{
	uint64_t left = atomic_load(&K.left);
	if (left)
		atomic_store(&K.left, left - 1);
	(void)agent_capture_ask(false);
	atomic_store(&K.open, 0);
}

/* cudaProfilerStart opens a capture if one is left and none is open (a
 * second start, or the driver's cuProfilerStart under the runtime's, is
 * nothing); cudaProfilerStop closes the open one. */
static void profiler_call(bool start)
{
	int open = 1;
	if (start)
		(void)take();
	else if (atomic_compare_exchange_strong(&K.open, &open, 2))  /* one stop closes it */
		give_back();
}

/* Read once, as the agent loads: only its own variables (control.c's
 * constructor needs nothing of it, and capture.c calls down into it). */
__attribute__((constructor)) static void capture_load(void)
{
	const char *v = getenv("MSPROF_CAPTURE_RANGE"), *end = getenv("MSPROF_CAPTURE_RANGE_END");
	if (!v)
		return;
	int kind = 0;
	if (strncmp(v, "mstx:", 5) == 0)
		kind = AGENT_CAPTURE_MSTX;
	else if (strncmp(v, "nvtx:", 5) == 0)
		kind = AGENT_CAPTURE_NVTX;
	else if (strcmp(v, "cudaProfilerApi") == 0)
		kind = AGENT_CAPTURE_CUDA;
	else
		return;
	if (kind != AGENT_CAPTURE_CUDA) {
		K.len = strlen(v + 5);
		if (!K.len || K.len >= sizeof K.name)
			return;
		memcpy(K.name, v + 5, K.len + 1);
	}
	uint64_t n = 1;
	if (end && strncmp(end, "repeat:", 7) == 0 && parse_u64(end + 7, 1, 1000000, &n) < 0)
		n = 1;
	atomic_store(&K.left, n);
	K.kind = kind;
	if (kind == AGENT_CAPTURE_CUDA)
		agent_cupti_on_profiler_api(profiler_call);
	else
		g_capture_on = true;  /* the annotation hooks look for the range */
}

bool agent_capture_begin(int kind, const char *msg, long len)
{
	return named(kind, msg, len) && take();
}

void agent_capture_began(uint64_t id)
{
	atomic_store(&K.id, id ? id : AGENT_CAPTURE_ID);
}

bool agent_capture_end(uint64_t id)
{
	if (!atomic_load(&K.open) || atomic_load(&K.id) != id || atomic_load(&K.push))
		return false;
	atomic_store(&K.id, 0);
	give_back();
	return true;
}

void agent_capture_push(int kind, const char *msg, long len, uint32_t domain, int level)
{
	if (level < 0 || !named(kind, msg, len) || !take())
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	atomic_store(&K.push, tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff));
}

void agent_capture_pop(uint32_t domain, int level)
{
	uint64_t p = atomic_load(&K.push);
	if (!p || level < 0)
		return;
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	if (p != (tid << 32 | (uint64_t)(domain & 0xffff) << 16 | (uint64_t)((level + 1) & 0xffff)))
		return;
	atomic_store(&K.push, 0);
	give_back();
}
