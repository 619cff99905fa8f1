/* One collection as the launcher sees it: a PROF dir and a daemon session.
 *
 *   session_connect   -> daemon reached (msprofd started if needed)
 *   session_create_dir-> PROF_x/ with info.json, sample.json
 *   session_start     -> start_info written, daemon sampling the pids
 *   session_poll      -> events while waiting (lost connection: one warning)
 *   session_stop      -> daemon stopped, end_info written
 *   session_export    -> msprof_*.db and mindstudio_profiler_output/
 *
 * Shared by the collecting modes (mode-launch.c, mode-hostsys.c); everything
 * the user hears is printed here or by the mode, never by the libraries. */
#pragma once

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"

struct ipc_client;

struct session {
	struct ipc_client *ipc;
	uint64_t next_id;
	int64_t sid;            /* the daemon's session id, -1 before start */
	bool lost;              /* the daemon connection dropped */
	bool ended;             /* the daemon ended the session by itself */
	char ended_reason[64];
	char *prof_dir;         /* absolute PROF_x path */
};

void session_init(struct session *s);
void session_release(struct session *s);

int session_connect(struct session *s);

/* Make PROF_x under output and write host/info.json (for target) and
 * host/sample.json (the options as given). */
int session_create_dir(struct session *s, const char *output, const struct msprof_opts *o, pid_t target,
		       const char *target_name, int rank_id, const char *app_name, const char *app_dir);

/* Write start_info and start sampling pids (the daemon follows children). */
int session_start(struct session *s, const struct msprof_opts *o, const pid_t *pids, unsigned n_pids);

/* The daemon socket, or -1 once the connection is gone. */
int session_fd(const struct session *s);

/* Read what the daemon sent (call when session_fd is readable). */
void session_poll(struct session *s);

/* Stop the daemon session (if any) and write end_info. */
int session_stop(struct session *s);

/* Undo session_create_dir after a failure before any data. */
void session_discard(struct session *s);

/* Block the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, and SIGCHLD when
 * with_chld) and return a signalfd for them, the previous mask in *ret_old.
 * Prints the error and returns -1 when the fd cannot be made; the mask is
 * already restored then. */
int signals_watch(bool with_chld, sigset_t *ret_old);

/* Export one PROF dir with msprof's console lines around it. */
int export_one(const char *prof_dir, enum out_type type);
