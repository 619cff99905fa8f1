/* CUPTI activity records -> the agent's device-task records (gputask.h).
 * Built only when the CUDA toolkit's CUPTI headers are found (meson option
 * -Dcupti); the layouts are those of the headers built against (CUDA 13:
 * CUpti_ActivityKernel10, Memcpy6, Memset4, API, Synchronization2), which
 * must match the
 * CUPTI library loaded at run time (the agent checks its version). */
#pragma once

#include <cupti_activity.h>

#include "collectors/gputask.h"

enum cupti_conv_result {
	CUPTI_CONV_SKIP = 0,   /* a kind not converted */
	CUPTI_CONV_TASK = 1,   /* ret->task filled */
	CUPTI_CONV_API = 2,    /* ret->api filled */
	CUPTI_CONV_SYNC = 3,   /* ret->sync filled */
};

/* What one record becomes (enum cupti_conv_result says which). */
struct cupti_out {
	struct gpu_task task;
	struct gpu_api api;
	struct gpu_sync sync;
};

/* Name of a runtime API callback id (cuptiGetCallbackName in the agent;
 * tests give their own); NULL or "" when unknown. */
typedef const char *(*cupti_api_namer)(uint32_t cbid);

/* Convert one record.  Returns enum cupti_conv_result; -ENODATA for a
 * task, call or wait without a start or end time (CUPTI_TIMESTAMP_UNKNOWN:
 * still running when a forced flush handed it over, or not timed); or
 * -EBADMSG for a record whose values are impossible (end before start, an
 * empty grid, a device id above 30, a synchronisation type CUPTI does not
 * define).  Either is counted by the caller, never written. */
int cupti_convert(const CUpti_Activity *rec, cupti_api_namer namer, struct cupti_out *ret);
