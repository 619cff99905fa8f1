/* The device tasks domain (domain-tasks.c, domain-tasks-output.c). */
#pragma once

#include <stdbool.h>

struct exp;
struct exp_tl;

/* Device tasks (domain-tasks.c): an agent's RAW_AGENT_GPU_TASK / _GPU_API
 * record into GPU_TASK / GPU_API (0 taken, 1 malformed, <0 fatal); then
 * TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API from them; the CSVs and
 * the timeline layers (domain-tasks-output.c). */
void exp_gpu_free(struct exp *e);
int exp_build_gpu_tasks(struct exp *e);
/* The indexes the device task outputs read in (domain-tasks-output.c). */
int exp_index_gpu_tasks(struct exp *e);
int exp_write_gpu_summaries(struct exp *e, const char *dir);
bool exp_have_gpu_layers(struct exp *e);
int exp_write_gpu_layers(struct exp *e, struct exp_tl *tl, struct exp_tl *own);
extern const char *const exp_memcpy_operations[8];
