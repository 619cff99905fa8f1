/* The collection selectors of --step-range and --ranks, checked the same
 * way by the launcher (its messages) and the daemon (session_start). */
#pragma once

#include <stdint.h>

#include "common/rankenv.h"

#define IPC_RANKS_MAX 1024      /* ranks in a --ranks list */
#define IPC_RANK_MAX RANK_ENV_RANK_MAX /* highest rank accepted */

/* "A-B": decimal, 0 <= A < B <= INT64_MAX (A inclusive, B exclusive).
 * -EINVAL when malformed, -ERANGE when B <= A or out of range. */
int ipc_parse_step_range(const char *s, int64_t *ret_lo, int64_t *ret_hi);
/* "0,2,...": decimal ranks 0..IPC_RANK_MAX, comma-separated, no blanks,
 * at most IPC_RANKS_MAX.  -EINVAL when malformed, -ERANGE out of range,
 * -E2BIG too many. */
int ipc_parse_ranks(const char *s);
