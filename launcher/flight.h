/* --flight-recorder in launch mode (common/flight-recorder.h): the
 * collection records into a ring, a directory in memory (tmpfs) shaped as a
 * PROF dir, that msprofd bounds (raw_quota_set_ring: the size at every
 * write, the span once a second); a dump copies what it holds into a new
 * PROF dir under --output, with its clocks read afresh, names the trigger
 * in host/info.json, and has it exported in the background while recording
 * goes on. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/flight-recorder.h"
#include "launcher/collection.h"

#define FLIGHT_MAX_DUMPS 64            /* dumps kept track of in one run */
/* A trigger dumps at most once in this long (a run of slow steps is one
 * trouble; a process's exit and then the job's, one failure); `dump` and
 * --dump always do. */
#define FLIGHT_AUTO_COOLDOWN_S 60

struct flight {
	char *ring;                        /* the ring dir; NULL: off */
	struct flight_spec spec;
	struct dump_on on;
	uint64_t start_real_ns;            /* the recorder began */
	uint64_t last_auto_ns[3];          /* CLOCK_MONOTONIC of the last dump of slow-step, hang, exit */
	uint64_t skipped;                  /* automatic triggers within the cooldown */
	struct export_job jobs[FLIGHT_MAX_DUMPS * 2];
	size_t n_jobs;
	char *dumps[FLIGHT_MAX_DUMPS];     /* the dumps' PROF dirs (before the split by rank) */
	char **dump_dirs[FLIGHT_MAX_DUMPS]; /* each dump's PROF dirs after the split */
	bool deleted[FLIGHT_MAX_DUMPS];    /* by --storage-limit */
	char trigger[FLIGHT_MAX_DUMPS][16];
	size_t n_dumps;
	uint64_t limit_bytes;              /* --storage-limit: what the dumps may take; 0 none */
	/* the other recorders of the job (other hosts, other processes of a
	 * prompt) writing into the same --output: their requests seen */
	char *me;                          /* ".msprof-flight.<host>.<ring>." */
	char *out_dir;                     /* where its requests are */
	char **peers_seen;
	size_t n_peers_seen;
	unsigned n_asked;                  /* requests written */
	uint64_t asked_ns;                 /* CLOCK_MONOTONIC of the last */
	uint64_t peers_next_ns;            /* the next look (CLOCK_MONOTONIC) */
	uint64_t last_dump_real_ns;        /* CLOCK_REALTIME of our last dump's trigger */
	/* its session lost (msprofd went, or ended it): flight_trouble */
	bool in_trouble, back_said;
	uint64_t trouble_ns, retry_ns, retry_wait_ns, resumed_ns; /* CLOCK_MONOTONIC */
};

/* The job a dump describes, as launch mode knows it. */
struct flight_job {
	const char *output;
	const struct msprof_opts *opts;
	pid_t pid;
	const char *name, *dir;
	int rank;
};

/* The ring for o (o's --flight-recorder and --dump-on), made on tmpfs:
 * MSPROF_RING_DIR, else /dev/shm, else the runtime dir. */
int flight_open(struct flight *f, const struct msprof_opts *o);
/* Write a dump of what the ring holds now for trigger a (its cooldown
 * applied to the triggers seen inside the job); 0, 1 when skipped, or
 * -errno (said). */
int flight_dump(struct flight *f, const struct flight_job *job, const struct dump_ask *a);
/* The collection s of job into f's ring (its prof_dir the ring's; the
 * session without --storage-limit, which bounds the dumps): 0 or -errno
 * (said by collection_start). */
int flight_start_session(struct flight *f, struct collection *s, const struct flight_job *job);
/* A recorder whose session went (msprofd killed or restarted, or it ended
 * the session: a write error) is in trouble until a new session lasts
 * FLIGHT_RETRY_STEADY_S; one that ends sooner continues the trouble.
 * flight_trouble: called at each look while the session is gone, true at
 * the first of a trouble, for the caller to say it.
 * flight_retry_due: whether to try a new session now: each second for the
 * first FLIGHT_RETRY_FAST_S of the trouble (a new msprofd may take a few),
 * then twice as long each time up to FLIGHT_RETRY_MAX_S, so that a fault
 * that stays (a full disk) is tried a few times an hour.
 * flight_retry_resumed: a new session began.  flight_back: true once a
 * trouble, when its new session has lasted, for the caller to say so. */
#define FLIGHT_RETRY_STEADY_S 3
#define FLIGHT_RETRY_FAST_S 10
#define FLIGHT_RETRY_MAX_S 300
bool flight_trouble(struct flight *f);
bool flight_retry_due(struct flight *f);
void flight_retry_resumed(struct flight *f);
bool flight_back(struct flight *f);
/* The words for a trouble and for its end, of the recorder of process pid
 * (0: launch mode's one recorder). */
void flight_trouble_say(const struct collection *s, pid_t pid);
void flight_back_say(pid_t pid);
/* The job's end: a dump its process asked for as it ended (it comes through
 * msprofd, and may come a moment after the end: waited for up to
 * FLIGHT_LATE_ASK_MS), then --dump-on's exit for the job's own status
 * (have_status: it is known) when it ended badly. */
#define FLIGHT_LATE_ASK_MS 500
void flight_job_ended(struct flight *f, struct collection *s, const struct flight_job *job, bool have_status,
		      int status);

/* Every recorder of a job that writes into one --output (the hosts of a
 * job on a shared file system, the processes of one prompt) dumps when
 * any of them does: a dump not asked for by another leaves a request file
 * there (FLIGHT_PEER_PREFIX...), and each recorder looks for the others'
 * once a second (flight_peers: due, then dumps as asked; job as for
 * flight_dump).  How long the caller may wait before the next look. */
#define FLIGHT_PEER_PREFIX ".msprof-flight."
#define FLIGHT_PEER_MS 1000
/* A request within this long of a dump of ours is the same trouble. */
#define FLIGHT_PEER_SAME_S 3
void flight_peers(struct flight *f, const struct flight_job *job);

/* The exports of the dumps finished, the ring removed, and the dumps
 * named; 0, or the number of dumps whose export failed. */
int flight_close(struct flight *f);
