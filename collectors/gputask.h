/* Device tasks and the API calls that launch them, as the agent records
 * them in its raw file (RAW_SOURCE_AGENT; raw.h has the payloads): GPU
 * kernels, memory copies and sets, and CUDA runtime API calls, linked by
 * the correlation id CUDA gives each launch.  This codec has no CUDA
 * dependency: the export reads these records on any machine.  The
 * conversion from CUPTI's activity records (cupti-conv.h) is built only
 * with the CUDA toolkit's headers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collectors/raw.h"

#define GPU_NAME_MAX 4096          /* kernel and API names, bytes (longer: cut) */

/* A kernel of NCCL, i.e. communication rather than computation: its name
 * starts with ncclDevKernel_ (NCCL >= 2.19) or ncclKernel_ (older), as
 * demangled ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)") or mangled
 * ("_Z38ncclDevKernel_AllReduce_..."; the export demangles only where the
 * C++ runtime is found).  The one test of it: the overlap analysis
 * (export/domain-overlap.c) and the communication domain both call it. */
static inline bool gpu_kernel_is_comm(const char *name, size_t len)
{
	size_t p = 0;
	if (len > 2 && name[0] == '_' && name[1] == 'Z') {
		for (p = 2; p < len && name[p] >= '0' && name[p] <= '9'; p++)
			;
		if (p == 2)
			return false;
	}
	return (len - p >= 14 && memcmp(name + p, "ncclDevKernel_", 14) == 0) ||
	       (len - p >= 11 && memcmp(name + p, "ncclKernel_", 11) == 0);
}

enum gpu_task_kind { GPU_TASK_KERNEL = 1, GPU_TASK_MEMCPY = 2, GPU_TASK_MEMSET = 3 };

/* Copy directions, CUPTI's CUpti_ActivityMemcpyKind values (0..10; others
 * are kept and shown as "other"). */
enum gpu_copy_kind {
	GPU_COPY_UNKNOWN = 0, GPU_COPY_HTOD = 1, GPU_COPY_DTOH = 2, GPU_COPY_HTOA = 3, GPU_COPY_ATOH = 4,
	GPU_COPY_ATOA = 5, GPU_COPY_ATOD = 6, GPU_COPY_DTOA = 7, GPU_COPY_DTOD = 8, GPU_COPY_HTOH = 9,
	GPU_COPY_PTOP = 10,
};

struct gpu_task {
	uint32_t kind;               /* enum gpu_task_kind */
	uint64_t start, end;         /* CLOCK_MONOTONIC ns (the agent makes CUPTI use it) */
	uint32_t device, context, stream, correlation;
	int32_t grid[3], block[3];   /* kernels */
	uint32_t shared_mem;         /* kernels: static + dynamic shared memory, bytes */
	uint32_t registers;          /* kernels: per thread */
	uint32_t copy_kind;          /* memcpy: enum gpu_copy_kind; memset: the value */
	uint64_t bytes;              /* memcpy, memset */
	char name[GPU_NAME_MAX];     /* kernels: the (mangled) function name */
};

struct gpu_api {
	uint64_t start, end;
	uint32_t tid, correlation;
	uint32_t cbid;               /* CUPTI callback id */
	uint32_t result;             /* the call's return value */
	char name[GPU_NAME_MAX];     /* "cudaLaunchKernel" */
};

/* Synchronisation kinds, CUPTI's CUpti_ActivitySynchronizationType values. */
enum gpu_sync_type {
	GPU_SYNC_UNKNOWN = 0, GPU_SYNC_EVENT = 1, GPU_SYNC_STREAM_WAIT_EVENT = 2, GPU_SYNC_STREAM = 3,
	GPU_SYNC_CONTEXT = 4,
};
#define GPU_SYNC_TYPE_MAX GPU_SYNC_CONTEXT
#define GPU_SYNC_NONE 0xffffffffU  /* stream or event that does not apply */

/* A host thread blocked on the device inside a runtime call
 * (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize,
 * cudaStreamWaitEvent); the call is the GPU_API record with the same
 * correlation id, which also gives the thread. */
struct gpu_sync {
	uint64_t start, end;
	uint32_t type;               /* enum gpu_sync_type */
	uint32_t context;
	uint32_t stream, event;      /* GPU_SYNC_NONE: not applicable */
	uint32_t correlation;
	uint32_t result;             /* the wait's CUresult */
};

/* Name of a synchronisation type ("Stream Synchronize"); "Unknown" for
 * values outside enum gpu_sync_type. */
const char *gpu_sync_name(uint32_t type);

/* Payloads of RAW_AGENT_GPU_TASK, RAW_AGENT_GPU_API and RAW_AGENT_GPU_SYNC (raw.h).  Names
 * longer than GPU_NAME_MAX - 1 are cut; decoders refuse a payload that is
 * short, long, or holds an impossible value. */
int gpu_encode_task(struct raw_buf *b, const struct gpu_task *t);
int gpu_decode_task(const uint8_t *p, size_t len, struct gpu_task *ret);
int gpu_encode_api(struct raw_buf *b, const struct gpu_api *a);
int gpu_decode_api(const uint8_t *p, size_t len, struct gpu_api *ret);
int gpu_encode_sync(struct raw_buf *b, const struct gpu_sync *s);
int gpu_decode_sync(const uint8_t *p, size_t len, struct gpu_sync *ret);
