/* The agents' files (domain-agents.c). */
#pragma once

/* The agents' causes of dropped events (domain-agents.c), in the order of
 * AGENT_COUNTERS's dropped* columns: "<n> dropped <text>". */
#define EXP_DROP_CAUSES 5
extern const char *const exp_drop_cause_text[EXP_DROP_CAUSES];
