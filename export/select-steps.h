/* The chosen steps of an export (select-steps.c). */
#pragma once

#include <stdint.h>

struct exp;

/* --model-id/--iteration-id (select-steps.c): TEMP views in front of the data
 * tables that hold only what lies inside the chosen steps. */
int exp_select_steps(struct exp *e, uint64_t model_id, uint64_t first, unsigned count);
