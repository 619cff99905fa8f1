/* The agents' files (domain-agents.c). */
#pragma once

/* The agents' causes of dropped events (domain-agents.c), in the order of
 * AGENT_COUNTERS's dropped* columns: "<n> dropped <text>". */
#define EXP_DROP_CAUSES 5
extern const char *const exp_drop_cause_text[EXP_DROP_CAUSES];

#include <stddef.h>
#include <stdint.h>

struct exp;

/* The name thread tid of pid (-1: of any process) has in AGENT_THREAD, the
 * newest its agent reported (a Python thread's threading name, NVTX's
 * nvtxNameOsThread, else its comm), into buf; "" when it has none. */
void exp_agent_thread_name(struct exp *e, int64_t pid, int64_t tid, char *buf, size_t size);
