/* CUPTI activity records -> gpu_task / gpu_api (cupti-conv.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/cupti-conv.h"

static int take_kernel(const CUpti_ActivityKernel10 *k, struct gpu_task *t)
{
	memset(t, 0, sizeof(*t) - sizeof(t->name));
	t->kind = GPU_TASK_KERNEL;
	t->start = k->start;
	t->end = k->end;
	t->device = k->deviceId;
	t->context = k->contextId;
	t->stream = k->streamId;
	t->correlation = k->correlationId;
	t->grid[0] = k->gridX, t->grid[1] = k->gridY, t->grid[2] = k->gridZ;
	t->block[0] = k->blockX, t->block[1] = k->blockY, t->block[2] = k->blockZ;
	t->shared_mem = (uint32_t)k->staticSharedMemory + (uint32_t)k->dynamicSharedMemory;
	t->registers = k->registersPerThread;
	snprintf(t->name, sizeof(t->name), "%s", k->name ? k->name : "");
	if (!t->name[0] || k->staticSharedMemory < 0 || k->dynamicSharedMemory < 0)
		return -EBADMSG;
	return CUPTI_CONV_TASK;
}

/* CUPTI's "not applicable" stream and event is ours: copied as is */
_Static_assert(CUPTI_SYNCHRONIZATION_INVALID_VALUE == GPU_SYNC_NONE, "not-applicable values differ");
_Static_assert((int)CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE == (int)GPU_SYNC_CONTEXT &&
		       (int)CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT == (int)GPU_SYNC_STREAM_WAIT_EVENT,
	       "synchronisation types differ");

static int take_sync(const CUpti_ActivitySynchronization2 *y, struct gpu_sync *s)
{
	if (y->start == CUPTI_TIMESTAMP_UNKNOWN || y->end == CUPTI_TIMESTAMP_UNKNOWN)
		return -ENODATA;
	s->start = y->start, s->end = y->end;
	s->type = (uint32_t)y->type;
	s->context = y->contextId;
	s->stream = y->streamId;
	s->event = y->cudaEventId;
	s->correlation = y->correlationId;
	s->result = y->returnValue;
	if (s->end < s->start || s->type > GPU_SYNC_TYPE_MAX)
		return -EBADMSG;
	return CUPTI_CONV_SYNC;
}

int cupti_convert(const CUpti_Activity *rec, cupti_api_namer namer, struct cupti_out *ret)
{
	int r = CUPTI_CONV_SKIP;
	struct gpu_task *t = &ret->task;
	struct gpu_api *ret_api = &ret->api;

	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		r = take_kernel((const CUpti_ActivityKernel10 *)(const void *)rec, t);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		memset(t, 0, sizeof(*t) - sizeof(t->name));
		t->name[0] = '\0';
		t->kind = GPU_TASK_MEMCPY;
		t->start = m->start, t->end = m->end;
		t->device = m->deviceId, t->context = m->contextId, t->stream = m->streamId;
		t->correlation = m->correlationId;
		t->copy_kind = m->copyKind;
		t->bytes = m->bytes;
		r = CUPTI_CONV_TASK;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;
		memset(t, 0, sizeof(*t) - sizeof(t->name));
		t->name[0] = '\0';
		t->kind = GPU_TASK_MEMSET;
		t->start = m->start, t->end = m->end;
		t->device = m->deviceId, t->context = m->contextId, t->stream = m->streamId;
		t->correlation = m->correlationId;
		t->copy_kind = m->value;
		t->bytes = m->bytes;
		r = CUPTI_CONV_TASK;
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME: {
		const CUpti_ActivityAPI *a = (const void *)rec;
		const char *name = namer ? namer(a->cbid) : NULL;
		ret_api->start = a->start, ret_api->end = a->end;
		ret_api->tid = a->threadId;
		ret_api->correlation = a->correlationId;
		ret_api->cbid = a->cbid;
		ret_api->result = a->returnValue;
		if (name && *name)
			snprintf(ret_api->name, sizeof(ret_api->name), "%s", name);
		else
			snprintf(ret_api->name, sizeof(ret_api->name), "cudaApi#%u", (unsigned)a->cbid);
		if (a->start == CUPTI_TIMESTAMP_UNKNOWN || a->end == CUPTI_TIMESTAMP_UNKNOWN)
			return -ENODATA;
		return a->end < a->start ? -EBADMSG : CUPTI_CONV_API;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return take_sync((const CUpti_ActivitySynchronization2 *)(const void *)rec, &ret->sync);
	default:
		return CUPTI_CONV_SKIP;
	}
	if (r == CUPTI_CONV_TASK && (t->start == CUPTI_TIMESTAMP_UNKNOWN || t->end == CUPTI_TIMESTAMP_UNKNOWN))
		return -ENODATA;
	if (r == CUPTI_CONV_TASK && (t->end < t->start || t->device > 30))
		return -EBADMSG;
	if (r == CUPTI_CONV_TASK && t->kind == GPU_TASK_KERNEL)
		for (int i = 0; i < 3; i++)
			if (t->grid[i] < 1 || t->block[i] < 1)
				return -EBADMSG;
	return r;
}
