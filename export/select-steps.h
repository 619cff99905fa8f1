/* The chosen steps of an export (select-steps.c). */
#pragma once

#include <stdint.h>

struct exp;

/* --model-id/--iteration-id (select-steps.c): TEMP views in front of the data
 * tables that hold only what lies inside the chosen steps. */
int exp_select_steps(struct exp *e, uint64_t model_id, uint64_t first, unsigned count);

/* --step-range=A-B as the collection recorded it (sample.json): the same
 * views over steps A to B-1, so that every kind of data, not only the
 * annotations the agent gated, lies in the window; said in the report.
 * Without any of those steps (the job marked none, or never reached A)
 * everything collected is exported, and that is said. */
int exp_select_step_range(struct exp *e, const char *range);
/* The same while the database is built (stages.c): the rows outside
 * steps A to B-1 are deleted, and the session's span is the steps', so
 * that the window's database holds the window alone; said in the report. */
int exp_trim_step_range(struct exp *e, const char *range);
