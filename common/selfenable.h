/* What the agent and `msprof self-enable` (collectors/agent/selfenable.c,
 * launcher/mode-self.c) agree on: the variables and msprof's answer. */
#pragma once

/* In the environment of a process tree that a session covers already
 * (launch modes, or an ancestor that self-enabled): its root's pid. */
#define SELF_ROOT_VAR "MSPROF_SELF_ROOT"
/* Set by msprof self-enable for the msprof it starts: the JSON object of
 * MSPROF_CONFIG's "metadata" (torch_npu's key), which each PROF dir of its
 * windows holds as profiler_metadata.json. */
#define METADATA_VAR "MSPROF_METADATA"

/* msprof self-enable's exit status, its answer to the agent: 0, detached
 * and a window is starting, or the agent is about to be armed for a window
 * at its steps (the job waits for it, boundedly); SELF_NO_WINDOW,
 * detached and following MSPROF_CONFIG, which asks for no window now (the
 * job does not wait); anything else, msprof said why on stderr and the job
 * runs unprofiled. */
#define SELF_NO_WINDOW 10
