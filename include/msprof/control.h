/* msprof's capture control: a job starts and stops its own collection.
 *
 *   #include <msprof/control.h>      (link -lms_tools_ext, pkg-config msprof-mstx)
 *   msprofStart();   ... the part to profile ...   msprofStop();
 *
 * Under msprof in dynamic mode (the prompt, MSPROF_CONFIG, or an attach),
 * msprofStart opens a window, as the prompt's "start" does, and
 * msprofStop closes and exports it, each window its own PROF directory.
 * Both return at once: 0 when the request went to msprof (the window
 * follows within milliseconds), a negative errno when no msprof session is
 * reachable (-ENOTCONN: the job runs without msprof, or its agent is not
 * connected; -ENOTSUP: the agent records on its own, MSPROF_AGENT_OUTPUT),
 * and the job goes on either way.
 *
 *   msprofSchedule("wait=1,warmup=1,active=3,repeat=2");
 *
 * arms msprof's --schedule for this process from now on (the same keys:
 * skip_first, wait, warmup, active, repeat, start_step, deadline): its
 * steps (mstxStep, ranges named "step N" or "ProfilerStep#N") then open
 * and close the windows, each cycle's active steps one PROF directory.  0
 * when armed and msprof reachable, -EINVAL for a spec msprof does not
 * take, and the errors above; "" disarms it. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

int msprofStart(void);
int msprofStop(void);
int msprofSchedule(const char *spec);

#ifdef __cplusplus
}
#endif
