/* One collection as the launcher sees it: a PROF dir and a daemon session
 * (daemon/session.c is the daemon's side of it).
 *
 *   collection_connect    -> daemon reached (msprofd started if needed)
 *   collection_claim      -> (dynamic mode) the processes are ours to drive
 *   collection_create_dir -> PROF_x/ with info.json, sample.json
 *   collection_start      -> start_info written, daemon sampling the pids
 *   collection_poll       -> events while waiting (lost connection: one warning)
 *   collection_stop       -> daemon stopped, end_info written
 *   export_one            -> the small files made durable (profdir_sync),
 *                            msprof_*.db and mindstudio_profiler_output/
 *
 * Dynamic mode keeps the disk off its replies: the PROF dir is made ahead
 * (collection_prepare_dir), start_info and end_info are written after the
 * reply (defer_start_info, defer_end_info), and nothing is fsynced until
 * the export child syncs the dir before it reads it.
 *
 * Dynamic mode keeps one struct collection (one connection, holding the claim)
 * per profiled process and runs one collection ("window") after another on
 * it: collection_take_dir ends a window and hands its PROF dir on, to be
 * exported in the background (export_spawn).
 *
 * Shared by the collecting modes (mode-launch.c, mode-hostsys.c,
 * mode-dynamic.c); everything the user hears is printed here or by the mode,
 * never by the libraries. */
#pragma once

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/options.h"

struct ipc_client;

#define COLLECTION_CAPTURES 16

struct collection {
	struct ipc_client *ipc;
	uint64_t next_id;
	int64_t sid;            /* the daemon's session id, -1 before start */
	bool lost;              /* the daemon connection dropped */
	bool ended;             /* the daemon ended the session by itself */
	bool agents;            /* the job's agents record: their windows end with msprofd too */
	bool quiet;             /* collection_poll and collection_stop leave the telling to the caller */
	bool retry_quiet;       /* a recorder retrying: failing to reach msprofd or to start a
				 * session is not said (the recorder said its trouble) */
	char ended_reason[64];
	char ended_message[160]; /* msprofd's words for it */
	uint64_t ticks, missed_ticks; /* the daemon's counts at the session's end */
	uint64_t n_refused;     /* processes of the tree whose agent msprofd turned away */
	struct cJSON *refused;  /* the first of them, [{"pid","name"}], or NULL */
	char *prof_dir;         /* absolute PROF_x path */
	pid_t dir_pid;          /* pid in the PROF dir's name; 0: msprof's own */
	char *spare;            /* the next PROF dir, made ahead (collection_prepare_dir) */
	bool defer_start_info;  /* collection_start leaves start_info to collection_write_start_info */
	uint64_t start_rns, start_monoraw_ns; /* the window's start, while its start_info is unwritten */
	bool defer_end_info;    /* collection_stop leaves end_info to collection_write_end_info */
	bool follow_adopted;    /* we are the job's subreaper: msprofd follows the orphans we adopt */
	uint64_t end_rns, end_monoraw_ns;     /* its end, while its end_info is unwritten */
	/* processes of the claimed tree asked for windows (msprofStart,
	 * msprofStop, --capture-range, --schedule), in order, since the caller
	 * last took them (collection_take_capture); past COLLECTION_CAPTURES
	 * the newest are dropped, and counted */
	struct capture_ask {
		bool start;
		pid_t by;
		char steps[48];  /* --schedule's window "A-B", or "" */
	} capture[COLLECTION_CAPTURES];
	unsigned n_capture;
	uint64_t capture_dropped;
	/* --flight-recorder: the dump asked for last (dump_asked), until the
	 * caller takes it (collection_take_dump); asks while one waits are
	 * the same trouble, and only counted */
	struct dump_ask {
		char trigger[16];   /* "command", "slow-step", "hang", "exit" */
		char detail[208];
		pid_t by;           /* the process whose agent saw it, 0: a command */
		bool from_peer;     /* another recorder of the job asked (launcher/flight.h) */
	} dump;
	bool dump_pending;
	uint64_t dumps_merged;
};

void collection_init(struct collection *s);
/* The dump asked for and not taken: true and *ret, or false. */
bool collection_take_dump(struct collection *s, struct dump_ask *ret);
/* msprof --dump --pid=P: the flight recorder covering pid is asked to dump;
 * 0 and its msprof's pid, or -errno with msprofd's words in why. */
int collection_ask_dump(struct collection *s, pid_t pid, pid_t *ret_owner, char *why, size_t why_len);
/* A PROF dir under output for a dump (as collection_create_dir makes the
 * collection's own): *ret_path. */
int collection_new_dir(const char *output, const struct msprof_opts *o, pid_t target, const char *target_name,
		       int rank_id, const char *app_name, const char *app_dir, char **ret_path);
/* The oldest request not taken: true and *ret, or false. */
bool collection_take_capture(struct collection *s, struct capture_ask *ret);
void collection_release(struct collection *s);

int collection_connect(struct collection *s);

/* Make PROF_x under output and write host/info.json (for target) and
 * host/sample.json (the options as given). */
/* The PROF dir made ahead is removed: the next window's options differ
 * from those its files were written with. */
void collection_forget_spare(struct collection *s);
int collection_create_dir(struct collection *s, const char *output, const struct msprof_opts *o, pid_t target,
		       const char *target_name, int rank_id, const char *app_name, const char *app_dir);

/* Make the next PROF dir ahead, with the files collection_create_dir
 * writes, under a hidden name (profdir_create_spare): the next
 * collection_create_dir with the same arguments renames it into place.
 * Quiet: when it cannot, collection_create_dir does the work and says
 * what fails.  An unused one goes with collection_release. */
void collection_prepare_dir(struct collection *s, const char *output, const struct msprof_opts *o, pid_t target,
			    const char *target_name, int rank_id, const char *app_name, const char *app_dir);

/* Write start_info and start sampling pids (the daemon follows children),
 * driving the agents of the tree with the --msproftx options.  With
 * defer_start_info, start_info (its clocks read before the request) is
 * left to collection_write_start_info, for after the reply to a dynamic
 * start: one file less on the path the user waits on. */
int collection_start(struct collection *s, const struct msprof_opts *o, const pid_t *pids, unsigned n_pids);
int collection_write_start_info(struct collection *s);

/* Claim pid for this connection (proto.h "claim"), its tree's agents
 * armed with schedule (--schedule's spec) unless NULL: 0 when claimed;
 * -EBUSY (another msprof drives it), -ESRCH, -EPERM with the daemon's
 * words in why; -EOPNOTSUPP when msprofd has no claims; other -errno when
 * msprofd did not answer.  Prints nothing. */
int collection_claim(struct collection *s, pid_t pid, const char *schedule, char *why, size_t why_len);

/* The processes whose agent is connected to msprofd (proto.h "agents"). */
struct agent_info {
	pid_t pid, ppid;
	int rank;
	bool recording;
	bool osrt;          /* the osrt build: "osrt" in its features */
	char name[32];
};
/* *ret is malloc'd; -EOPNOTSUPP when msprofd has no "agents".  Prints
 * nothing. */
int collection_agents(struct collection *s, struct agent_info **ret, size_t *ret_n);

/* The processes of this collection's tree msprofd samples now and has
 * sampled since it started; -ENOENT when it has no running session,
 * -EOPNOTSUPP from an msprofd that does not say. */
int collection_sampled(struct collection *s, unsigned *ret_live, unsigned *ret_seen);
/* Wait until msprofd has sampled the tree once (its first tick, the
 * baseline of every later delta: msprofd takes it a moment after its
 * reply to the start), at most timeout_ms; a launched application released
 * after it has all it does inside the samples' intervals. */
void collection_wait_first_sample(struct collection *s, unsigned timeout_ms);

/* --host-sys=osrt on processes msprof did not start (--pid, --host-sys-pid):
 * their calls are recorded only if they loaded the osrt build of the agent
 * themselves.  Warns, with what to do, for each pid without one. */
void collection_check_osrt(struct collection *s, const pid_t *pids, unsigned n);

/* End the window: the PROF dir (malloc'd, NULL if none) is the caller's,
 * the session can start the next one on the same connection. */
char *collection_take_dir(struct collection *s);

/* The daemon socket, or -1 once the connection is gone. */
int collection_fd(const struct collection *s);

/* Read what the daemon sent (call when collection_fd is readable). */
void collection_poll(struct collection *s);

/* Stop the daemon session (if any) and write end_info (with
 * defer_end_info: read its clocks, for collection_write_end_info). */
int collection_stop(struct collection *s);
int collection_write_end_info(struct collection *s);

/* Undo collection_create_dir after a failure before any data. */
void collection_discard(struct collection *s);

/* Block the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, and SIGCHLD when
 * with_chld) and return a signalfd for them, the previous mask in *ret_old.
 * Prints the error and returns -1 when the fd cannot be made; the mask is
 * already restored then. */
int signals_watch(bool with_chld, sigset_t *ret_old);
/* Undo signals_watch: close *fd if it is open (then -1) and restore the
 * mask old. */
void signals_unwatch(int *fd, const sigset_t *old);

/* msprof's free-space check of output, skipped when --storage-limit is
 * given: 0, or -ENOSPC after printing why. */
int collection_check_space(const struct msprof_opts *o, const char *output);

/* The common start of the modes that run one collection (mode-launch.c,
 * mode-hostsys.c): msprof's "Start profiling...." line, the free-space
 * check, then signals_watch.  The signalfd, or -1 after printing why (the
 * signal mask is as it was then). */
int collection_begin(const struct msprof_opts *o, const char *output, bool with_chld, sigset_t *ret_old);

/* The PROF dirs of a stopped collection, NULL-terminated (strv_free): one
 * per rank of the job (collectors/profdir-ranks.c; known: processes whose
 * rank the caller read), each named on the console, then prof_dir itself
 * unless the ranks took everything but its small files (it is removed).
 * Without ranks, prof_dir alone (and a warning when --ranks, ranks, was
 * given).  NULL when out of memory. */
struct profdir_known_rank;
char **collection_rank_dirs(const char *prof_dir, const struct profdir_known_rank *known, size_t n_known,
			  const char *ranks);

/* Export one PROF dir with msprof's console lines around it, and the
 * text summary (export_report.summary) after them unless summary is false. */
int export_one(const char *prof_dir, enum out_type type, bool summary);

/* Once every rank of a job is exported (n > 1): each rank's report.html
 * written again, so that its rank table holds the ranks exported after it
 * (a page reads its siblings' databases as they are when it is written).
 * ok[i]: dirs[i] was exported.  0, or the last error (said). */
int export_rank_reports(char *const *dirs, const bool *ok, size_t n);

/* Export in a child process, so that the prompt is not blocked: prints
 * msprof's "Start export data in" line now; export_finish prints the
 * "Export all data in ... done." line (or the error) once *ret_fd is
 * readable (the child has finished), and reaps the child. */
struct export_job {
	pid_t pid;
	int fd;                 /* the child's report; -1 once finished */
	char *prof_dir;
};
int export_spawn(const char *prof_dir, enum out_type type, bool summary, struct export_job *ret);
/* 0 when the export succeeded, -errno otherwise; job is released. */
int export_finish(struct export_job *job);
