/* Sessions: host sampling of one process tree into one PROF directory, and
 * the agents (libmsprof_agent.so) of that tree driven along with it.
 *
 * States and who moves them:
 *
 *   (request) --session_start, all fields valid--> RUNNING --end--> [STOPPING] --> ENDED --> freed
 *
 *   RUNNING  the sampler is open and one or two timers tick it: the sys
 *            timer at host_sys_freq runs the --host-sys samplers, the usage
 *            timer at host_sys_usage_freq the --host-sys-usage ones (with
 *            neither, the sys timer ticks at WATCH_FREQ only to follow the
 *            tree).  Every agent of the tree (the roots and, with
 *            follow_children, their descendants by the /proc ppid chain) got
 *            agent_start, at the start or when it said hello later; the
 *            session_started reply waits (stop_timer, at most
 *            IPC_AGENT_STOP_TIMEOUT_MS) until those of the start answered.
 *            Counted in srv->n_sessions and the owner's n_sessions.
 *   STOPPING after a session_stop request while agents were driven, or
 *            after an end (not the owner's going, not a shutdown) while
 *            the device worker finishes its files: the sampler is
 *            finished, every agent got agent_stop, and the reply waits
 *            until each answered agent_stopped, went away, or
 *            IPC_AGENT_STOP_TIMEOUT_MS passed (stop_timer), so the agents'
 *            files are complete when the launcher exports.  A stop request
 *            that finds a session ending on its own here gets the reply in
 *            place of session_ended.  Still counted.
 *   ENDED    session_finish() ran: the reply or event is sent, counts
 *            dropped, agents let go.  Only the timer handles are still
 *            closing; the last close callback frees it.
 *
 * Five things end a RUNNING session, each exactly once (session_end ignores
 * a session that is not RUNNING):
 *   - the owner's session_stop request        reason stop, answered with
 *                                             session_stopped and counts;
 *   - a tick finding the whole tree gone      target_exited  } the owner gets
 *   - a tick failing to write (disk full)     write_error    } a session_ended
 *   - daemon shutdown (signal, request, idle) daemon_shutdown} event;
 *   - the owning connection closing           client_gone, nobody to tell.
 * All of them send agent_stop to the session's agents; only the stop
 * request waits for the answers (nobody else needs the files complete at
 * once, and a target that exited took its agents with it).  A STOPPING
 * session finishes early when its owner closes (no reply then) or the
 * daemon shuts down (the reply names the agents that did not answer).
 * A session never outlives its owner's connection, so a crashed launcher
 * cannot leave a sampler running. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/device.h"
#include "collectors/host.h"
#include "daemon/msprofd.h"
#include "common/flight-recorder.h"
#include "common/proc-owner.h"
#include "collectors/raw.h"
#include "ipc/settings.h"

#define WATCH_FREQ 10                  /* Hz, a session that samples nothing */
#define AGE_MIN_SLICE (64 * 1024)      /* bytes, smallest slice under a storage limit */
#define RING_MAX_SLICE (8 << 20)       /* bytes, largest slice of a flight recorder's ring */
#define RING_AGE_MS 1000               /* a ring ages what is older than its span this often */
#define PID_MAX_LIMIT 4194304          /* the kernel's ceiling for pid_max */

/* How long session_started waits for the devices to open: nvmlInit takes
 * seconds on a driver without persistence mode, and the launcher gives up
 * on the reply after 10 s (launcher/collection.c START_TIMEOUT_MS). */
#define DEV_OPEN_TIMEOUT_MS 8000

#define TREE_DEPTH_MAX 1024           /* ppid steps from an agent up to a root */

/* What a session_stopped or session_ended lists: agents (about 170 bytes
 * each at most), agents turned away (about 90), session_started's pids;
 * beyond these they are counted, and together they fit IPC_MAX_MSG. */
#define SESSION_REPLY_AGENTS 128
#define SESSION_REPLY_REFUSED 384
#define SESSION_REPLY_PIDS 2048
#define SESSION_MAX_REFUSED SERVER_MAX_LIMIT  /* told apart by pid; past it counted only */

/* The raw files and the first tick wait for session_started, so that the
 * reply waits for no file system work; a reply that itself waits (agents
 * that are slow to answer, the devices' first open) holds them back at
 * most this long. */
#define FIRST_TICK_WAIT_MS 20
/* ... and once it is sent, wait this long (send_started) */
#define TICKS_AFTER_REPLY_MS 1

enum session_state { SESSION_RUNNING, SESSION_STOPPING, SESSION_ENDED };

/* One agent the session drove.  The agent pointer is cleared when the
 * agent answers agent_stopped, refuses, or goes away; the entry stays for
 * the reply.  The array grows up to srv->max_agents entries; past that,
 * entries of agents that exited mid-session are folded into n_exited.  A
 * reply lists the first SESSION_REPLY_AGENTS and counts the rest, so that
 * it stays below IPC_MAX_MSG with the largest limit. */
enum slot_state { SLOT_STARTING, SLOT_RECORDING, SLOT_STOPPING, SLOT_STOPPED, SLOT_ERROR };

struct slot {
	pid_t pid;
	struct agent *agent;
	enum slot_state state;
	uint64_t events, dropped, bytes;
	char error[128];
};

/* A process of the tree whose agent was turned away at the agent limit. */
struct refused {
	pid_t pid;
	char name[AGENT_NAME_MAX];
};

struct session {
	TAILQ_ENTRY(session) link;
	struct server *srv;
	struct client *owner;
	uint64_t id;
	enum session_state state;
	struct host_sampler *sampler;          /* made once session_started is sent */
	struct host_sampler_config sampler_cfg;/* for it; data_dir and ranks below */
	char *ranks;
	char *data_dir;

	uint32_t roots[HOST_MAX_ROOTS];        /* the tree, for finding its agents */
	unsigned n_roots;
	bool follow_children;
	bool drive_agents;                     /* "agent": true */
	cJSON *agent_start;                    /* the fields every agent_start carries */
	struct slot *slots;                    /* cap_slots entries, at most srv->max_agents */
	unsigned n_slots, cap_slots;
	uint64_t n_exited;                     /* agents that exited, folded out of slots */
	struct refused *refused;               /* turned away, each pid once */
	unsigned n_refused, cap_refused;
	uint64_t n_refused_more;               /* past SESSION_MAX_REFUSED: counted only */
	uint64_t req_ns;                       /* session_start received (CLOCK_MONOTONIC) */
	bool start_pending;                    /* session_started waits for agent_started */
	bool start_timed_out;                  /* ... and no longer for the agents */
	uint64_t start_reply_id;

	/* a stop request waiting for agents (STOPPING) */
	uint64_t reply_id;
	bool reply;
	enum session_reason why;
	struct host_sampler_stats st;
	bool finish_failed;
	char message[256];

	uv_timer_t sys_timer, usage_timer, stop_timer; /* stop_timer: the start's wait, then the stop's */
	uv_idle_t sys_idle, usage_idle;        /* a tick due at once (schedule) */
	unsigned open_handles;
	uint64_t sys_period_ns, usage_period_ns;
	uint64_t sys_next_ns, usage_next_ns;   /* absolute CLOCK_MONOTONIC deadlines */

	/* devices (collectors/device.h): a worker thread opens and samples
	 * them (at sys_hardware_mem_freq and sys_interconnection_freq) and
	 * wakes dev_async at each step; dev_timer bounds how long
	 * session_started waits for it to open (dev_opening).  dev is NULL
	 * when device collection was not asked for; dev_off says why there
	 * is none when it was. */
	struct dev_worker *dev;
	uv_async_t dev_async;
	uv_timer_t dev_timer;
	bool dev_opening;
	bool dev_wait_probe;                   /* dev_opening: for msprofd's probe, no worker yet */
	struct dev_worker_config dev_cfg;      /* for the worker started when the probe is done */
	char *dev_prof_dir;                    /* dev_cfg's prof_dir */
	bool ending;                           /* session_end runs: no tick is started */
	bool reprobe;                          /* probe the devices again once the reply is sent */
	bool sys_ticks, usage_ticks;           /* the timers to start once session_started is sent */
	enum dev_worker_phase dev_seen;        /* the last phase acted on */
	char dev_off[256];

	struct raw_quota *quota;               /* --storage-limit (NULL: none), for its counters */
	bool age_logged;
	/* --flight-recorder: quota is the ring's (raw_quota_set_ring), and
	 * ring_timer ages what is older than ring_span_ns once a second */
	uv_timer_t ring_timer;
	uint64_t ring_span_ns;                 /* 0: bounded in bytes only */
	bool ring;                             /* a flight recorder */
};

/* Reasons on the wire and in the raw files.  The raw format has no code for
 * a write error; the END record then most likely cannot be written anyway,
 * and "stop" is the closest truthful value. */
static const struct {
	const char *name;
	uint32_t raw;
	const char *message;
} reasons[] = {
	[SESSION_REASON_STOP] = { "stop", 0, "stopped on request" },
	[SESSION_REASON_TARGET_EXITED] = { "target_exited", 1, "all target processes have exited" },
	[SESSION_REASON_CLIENT_GONE] = { "client_gone", 2, "the client disconnected" },
	[SESSION_REASON_SHUTDOWN] = { "daemon_shutdown", 3, "msprofd is shutting down" },
	[SESSION_REASON_WRITE_ERROR] = { "write_error", 0, "cannot write raw data" },
};

/* msprof's --storage-limit rule (reference §2.5, transport/file_ageing.cpp):
 * the code halves the MB value and keeps a 20 MB reserve below it, so
 * --storage-limit=200MB lets the data grow to 80 MB.  Why it halves is not
 * documented; we copy the observed behaviour so the same option keeps the
 * same amount of data.  Small limits would go to zero or below, which would
 * delete everything: we never go below 1 MB. */
static uint64_t storage_limit_bytes(uint64_t limit_mb)
{
	const uint64_t mb = 1024 * 1024;
	uint64_t half = limit_mb / 2;
	uint64_t eff = half > 21 ? half - 20 : 1;
	return eff * mb;
}

static void on_session_closed(uv_handle_t *h)
{
	struct session *s = h->data;
	if (--s->open_handles == 0) {
		cJSON_Delete(s->agent_start);
		free(s->dev_prof_dir);
		free(s->ranks);
		free(s->slots);
		free(s->refused);
		free(s->data_dir);
		raw_quota_free(s->quota);
		free(s);
	}
}

/* "agents_refused":[{"pid","name"}, ...] (the first SESSION_REPLY_REFUSED)
 * and "agents_refused_count": all of them */
static bool add_refused(cJSON *m, const struct session *s)
{
	cJSON *list = cJSON_AddArrayToObject(m, "agents_refused");
	if (!list)
		return false;
	for (unsigned i = 0; i < s->n_refused && i < SESSION_REPLY_REFUSED; i++) {
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(list, e) || !cJSON_AddNumberToObject(e, "pid", s->refused[i].pid) ||
		    !cJSON_AddStringToObject(e, "name", s->refused[i].name))
			return false;
	}
	return cJSON_AddNumberToObject(m, "agents_refused_count", (double)(s->n_refused + s->n_refused_more));
}

/* "agents":[{"pid","events","dropped","bytes"} | {"pid","error"}, ...], the
 * first SESSION_REPLY_AGENTS; "agents_unlisted": the others */
static bool add_agents(cJSON *m, const struct session *s)
{
	cJSON *list = cJSON_AddArrayToObject(m, "agents");
	if (!list)
		return false;
	if (s->n_slots > SESSION_REPLY_AGENTS &&
	    !cJSON_AddNumberToObject(m, "agents_unlisted", s->n_slots - SESSION_REPLY_AGENTS))
		return false;
	for (unsigned i = 0; i < s->n_slots && i < SESSION_REPLY_AGENTS; i++) {
		const struct slot *sl = &s->slots[i];
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(list, e) || !cJSON_AddNumberToObject(e, "pid", sl->pid))
			return false;
		if (sl->state == SLOT_STOPPED) {
			if (!cJSON_AddNumberToObject(e, "events", (double)sl->events) ||
			    !cJSON_AddNumberToObject(e, "dropped", (double)sl->dropped) ||
			    !cJSON_AddNumberToObject(e, "bytes", (double)sl->bytes))
				return false;
		} else if (!cJSON_AddStringToObject(e, "error", sl->error[0] ? sl->error : "no answer")) {
			return false;
		}
	}
	return !s->n_exited || cJSON_AddNumberToObject(m, "agents_exited", (double)s->n_exited);
}

static cJSON *counts_msg(enum ipc_type type, uint64_t id, const struct session *s,
			 const struct host_sampler_stats *st, const char *reason, const char *message)
{
	cJSON *m = ipc_msg_new(type, id);
	if (m && (!cJSON_AddNumberToObject(m, "session", (double)s->id) ||
		  !cJSON_AddNumberToObject(m, "ticks", (double)st->ticks) ||
		  !cJSON_AddNumberToObject(m, "missed_ticks", (double)st->missed_ticks) ||
		  !cJSON_AddNumberToObject(m, "records", (double)st->records) ||
		  !cJSON_AddNumberToObject(m, "bytes", (double)st->bytes) ||
		  !cJSON_AddStringToObject(m, "reason", reason) ||
		  (message && !cJSON_AddStringToObject(m, "message", message)) ||
		  (s->n_slots && !add_agents(m, s)) ||
		  ((s->n_refused || s->n_refused_more) && !add_refused(m, s)))) {
		cJSON_Delete(m);
		m = NULL;
	}
	return m;
}

/* "sampled": [{"session", "live", "seen"}] for each running session of
 * owner: the processes of its tree sampled now and since it started. */
bool sessions_add_sampled(struct server *srv, const struct client *owner, cJSON *reply)
{
	cJSON *list = cJSON_AddArrayToObject(reply, "sampled");
	struct session *s;
	if (!list)
		return false;
	TAILQ_FOREACH(s, &srv->sessions, link) {
		if (s->owner != owner || !s->sampler)
			continue;
		struct host_sampler_stats st;
		host_sampler_get_stats(s->sampler, &st);
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(list, e) || !cJSON_AddNumberToObject(e, "session", (double)s->id) ||
		    !cJSON_AddNumberToObject(e, "live", st.live_pids) || !cJSON_AddNumberToObject(e, "seen", st.seen_pids))
			return false;
	}
	return true;
}

/* --- agents ------------------------------------------------------------------ */

static double ms_since(uint64_t t0)
{
	return (double)(mono_ns() - t0) / 1e6;
}

static struct slot *slot_of(struct session *s, const struct agent *a)
{
	for (unsigned i = 0; i < s->n_slots; i++)
		if (s->slots[i].agent == a)
			return &s->slots[i];
	return NULL;
}

/* A free entry: the array grows up to srv->max_agents entries; then those
 * of agents that exited are folded into n_exited.  NULL when memory is out,
 * or every entry still has a live agent, which the agent limit rules out. */
static struct slot *slot_new(struct session *s, struct agent *a)
{
	unsigned max = s->srv->max_agents;
	if (s->n_slots == s->cap_slots && s->cap_slots < max) {
		unsigned cap = s->cap_slots ? s->cap_slots * 2 : 16;
		cap = cap < max ? cap : max;
		struct slot *n = reallocarray(s->slots, cap, sizeof(*n));
		if (n) {
			s->slots = n;
			s->cap_slots = cap;
		}
	}
	if (s->n_slots == s->cap_slots) {
		unsigned k = 0;
		for (unsigned i = 0; i < s->n_slots; i++) {
			if (s->slots[i].agent || s->slots[i].state == SLOT_STOPPED)
				s->slots[k++] = s->slots[i];
			else
				s->n_exited++;
		}
		s->n_slots = k;
		if (k == s->cap_slots)
			return NULL;
	}
	struct slot *sl = &s->slots[s->n_slots++];
	*sl = (struct slot){ .pid = a->pid, .agent = a, .state = SLOT_STARTING };
	return sl;
}

/* The parent of pid from /proc/PID/stat (field 4, after the comm, which
 * may hold spaces and parentheses: parse from the last ')'). */
static int proc_ppid(uint32_t pid, uint32_t *ret)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	unsigned ppid;
	char state;
	if (!p || sscanf(p + 1, " %c %u", &state, &ppid) != 2)
		return -EIO;
	*ret = ppid;
	return 0;
}

/* Is pid one of the roots or, with follow_children, below one?  The
 * ppid chain from /proc works whether or not any sampler runs.  A process
 * whose parent died was re-parented: to the session's adopter (msprof's
 * launcher, a subreaper), below which every process is the job's, or to
 * init or another subreaper, where it is not found this way; the host
 * sampler would still follow it if it saw it before, but an agent there
 * must say hello while its parent lives to be driven. */
static bool tree_has(const struct session *s, uint32_t pid)
{
	for (unsigned depth = 0; depth < TREE_DEPTH_MAX && pid > 1; depth++) {
		for (unsigned i = 0; i < s->n_roots; i++)
			if (s->roots[i] == pid)
				return true;
		if (depth > 0 && s->follow_children && s->sampler_cfg.adopter == pid)
			return true;
		if (!s->follow_children || proc_ppid(pid, &pid) < 0)
			return false;
	}
	return false;
}

static void drive_agent(struct session *s, struct agent *a)
{
	if (!slot_new(s, a)) {
		log_msg("session %" PRIu64 ": cannot drive the agent of pid %d: %u agents already, or out of memory",
			s->id, a->pid, s->n_slots);
		return;
	}
	agent_send_start(a, s, s->id, s->agent_start);
}

void sessions_offer_agent(struct server *srv, struct agent *a)
{
	struct session *s;
	TAILQ_FOREACH(s, &srv->sessions, link) {
		if (a->session)
			return;
		if (s->state == SESSION_RUNNING && s->drive_agents && tree_has(s, (uint32_t)a->pid)) {
			log_msg("session %" PRIu64 ": agent of pid %d joined the tree", s->id, a->pid);
			drive_agent(s, a);
		}
	}
}

void sessions_agent_refused(struct server *srv, pid_t pid, const char *name)
{
	struct session *s;
	TAILQ_FOREACH(s, &srv->sessions, link) {
		if (s->state != SESSION_RUNNING || !s->drive_agents || !tree_has(s, (uint32_t)pid))
			continue;
		log_msg("session %" PRIu64 ": the agent of pid %d ('%s') of the tree was turned away: %u agents "
			"connected (MSPROFD_MAX_AGENTS)", s->id, (int)pid, name, srv->n_agents);
		bool known = false;
		for (unsigned i = 0; i < s->n_refused && !known; i++)
			known = s->refused[i].pid == pid;
		if (known)
			continue;   /* it tried again */
		if (s->n_refused == s->cap_refused && s->cap_refused < SESSION_MAX_REFUSED) {
			unsigned cap = s->cap_refused ? s->cap_refused * 2 : 16;
			struct refused *n = reallocarray(s->refused, cap, sizeof(*n));
			if (n) {
				s->refused = n;
				s->cap_refused = cap;
			}
		}
		if (s->n_refused == s->cap_refused) {
			s->n_refused_more++;
			continue;
		}
		struct refused *r = &s->refused[s->n_refused++];
		r->pid = pid;
		snprintf(r->name, sizeof(r->name), "%s", name);
	}
}

/* session_started, once every agent driven at the start answered (or went
 * away, or IPC_AGENT_STOP_TIMEOUT_MS passed): a client that hears it knows
 * those agents record, so what the application annotates from then on is
 * kept.  "agents" lists every agent sent agent_start. */
/* "devices":[{"id","name"}] and "device_backend", or "device_off":"why"
 * when device collection was asked for and found nothing */
static bool add_devices(cJSON *m, const struct session *s)
{
	if (s->dev_off[0])
		return cJSON_AddStringToObject(m, "device_off", s->dev_off) != NULL;
	const struct dev_sampler *ds = s->dev ? dev_worker_sampler(s->dev) : NULL;
	if (!ds)
		return true;
	cJSON *list = cJSON_AddArrayToObject(m, "devices");
	if (!list || !cJSON_AddStringToObject(m, "device_backend", dev_sampler_backend(ds)))
		return false;
	for (unsigned i = 0; i < dev_sampler_count(ds); i++) {
		const struct dev_info *d = dev_sampler_info(ds, i);
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(list, e) || !cJSON_AddNumberToObject(e, "id", d->index) ||
		    !cJSON_AddStringToObject(e, "name", d->name))
			return false;
	}
	return true;
}

static void on_tick(uv_timer_t *t);

static void session_end(struct session *s, enum session_reason why, int error, bool reply,
			uint64_t reply_id);
static void probe_start(struct server *srv);

/* The devices probed again, once the reply of a session that found none
 * is out (a thread to start, a library to look for). */
static void reprobe(struct session *s)
{
	if (s->reprobe) {
		s->reprobe = false;
		probe_start(s->srv);
	}
}

/* The sampler: 0, or <0 (said in the log) when it cannot start. */
static int sampler_start(struct session *s)
{
	int r = s->sampler ? 0 : host_sampler_new(&s->sampler_cfg, &s->sampler);
	if (r < 0)
		log_msg("session %" PRIu64 ": cannot start sampling into '%s': %s", s->id, s->data_dir, strerror(-r));
	return r;
}

/* The sampler and its first samples, once session_started is on its way:
 * creating a raw file per source and a first tick that walks the tree are
 * file system work (a few hundred µs per file on a journaled disk) that
 * the reply need not wait for.  The clocks of the raw headers are those of
 * the request.  A sampler that cannot start ends the session as a write
 * error would (its owner hears session_ended). */
static void start_ticks(struct session *s)
{
	reprobe(s);
	if (s->ending || s->state != SESSION_RUNNING)
		return;
	if (!s->sys_ticks && !s->usage_ticks)
		return;   /* started already (the reply came after FIRST_TICK_WAIT_MS) */
	uv_timer_stop(&s->sys_timer);
	int r = sampler_start(s);
	if (r < 0) {
		s->sys_ticks = s->usage_ticks = false;
		session_end(s, SESSION_REASON_WRITE_ERROR, r, false, 0);
		return;
	}
	if (s->sys_ticks)
		uv_timer_start(&s->sys_timer, on_tick, 0, 0);
	if (s->usage_ticks)
		uv_timer_start(&s->usage_timer, on_tick, 0, 0);
	s->sys_ticks = s->usage_ticks = false;
}

static void on_first_tick_wait(uv_timer_t *t)
{
	start_ticks(t->data);
}

static void send_started(struct session *s)
{
	if (!s->start_pending)
		return;
	s->start_pending = false;
	uv_timer_stop(&s->stop_timer);
	cJSON *reply = ipc_msg_new(IPC_T_SESSION_STARTED, s->start_reply_id);
	cJSON *pids = reply && cJSON_AddNumberToObject(reply, "session", (double)s->id) ?
		      cJSON_AddArrayToObject(reply, "agents") : NULL;
	for (unsigned i = 0; pids && i < s->n_slots && i < SESSION_REPLY_PIDS; i++)
		if (!cJSON_AddItemToArray(pids, cJSON_CreateNumber(s->slots[i].pid)))
			pids = NULL;
	if (pids && s->n_slots > SESSION_REPLY_PIDS &&
	    !cJSON_AddNumberToObject(reply, "agents_unlisted", s->n_slots - SESSION_REPLY_PIDS))
		pids = NULL;
	if (pids && !add_devices(reply, s))
		pids = NULL;
	if (!pids) {
		cJSON_Delete(reply);
		reply = NULL;
	}
	client_send(s->owner, reply);
	/* The client waits for this reply, and the sampler's setup (its
	 * files, the first walk of the tree, a device probe: about 1 ms of
	 * CPU) need not come first; but with the machine's other cores busy
	 * it would, as the client, just woken, does not take the core from
	 * msprofd (a sched_yield did not make it either).  So msprofd sleeps
	 * a moment first, and the client prints its reply meanwhile. */
	if (s->ending) {
		reprobe(s); /* a session that ended gets no sampler */
	} else if (s->sys_ticks || s->usage_ticks || s->reprobe) {
		uv_update_time(s->srv->loop); /* the wait from now, not from the loop's last look */
		uv_timer_start(&s->sys_timer, on_first_tick_wait, TICKS_AFTER_REPLY_MS, 0);
	}
}

/* session_started goes out once the agents of the start answered (or
 * IPC_AGENT_STOP_TIMEOUT_MS passed) and the devices are open (or off, or
 * DEV_OPEN_TIMEOUT_MS passed). */
static void start_settled(struct session *s)
{
	if (!s->start_pending || s->dev_opening)
		return;
	for (unsigned i = 0; i < s->n_slots && !s->start_timed_out; i++)
		if (s->slots[i].agent && s->slots[i].state == SLOT_STARTING)
			return;
	send_started(s);
}

static void on_start_timeout(uv_timer_t *t)
{
	struct session *s = t->data;
	for (unsigned i = 0; i < s->n_slots; i++)
		if (s->slots[i].agent && s->slots[i].state == SLOT_STARTING)
			log_msg("session %" PRIu64 ": agent of pid %d did not answer agent_start within %d ms",
				s->id, s->slots[i].pid, IPC_AGENT_STOP_TIMEOUT_MS);
	s->start_timed_out = true;
	start_settled(s);
}

void session_agent_started(struct session *s, struct agent *a)
{
	struct slot *sl = slot_of(s, a);
	if (!sl)
		return;
	sl->state = SLOT_RECORDING;
	/* The measure of how fast an agent switches on: from the moment the
	 * request reached us (for agents of the tree at the start) and our
	 * round trip to the agent. */
	start_settled(s);
	if (a->sent_ns - s->req_ns < NSEC_PER_SEC)
		log_msg("session %" PRIu64 ": agent of pid %d started %.3f ms after session_start arrived "
			"(round trip %.3f ms)", s->id, a->pid, ms_since(s->req_ns), ms_since(a->sent_ns));
	else
		log_msg("session %" PRIu64 ": agent of pid %d started (round trip %.3f ms)", s->id, a->pid,
			ms_since(a->sent_ns));
}

static void session_finish(struct session *s);

static bool agents_pending(const struct session *s)
{
	for (unsigned i = 0; i < s->n_slots; i++)
		if (s->slots[i].agent)
			return true;
	return false;
}

/* The device worker is sampling or finishing its files, or (borrowing
 * the probe's backend: nobody waits for it to open) making them. */
static bool dev_running(const struct session *s)
{
	struct dev_worker_state st;
	if (!s->dev)
		return false;
	dev_worker_get(s->dev, &st);
	return st.phase == DEV_WORKER_RUNNING || (st.phase == DEV_WORKER_OPENING && !s->dev_opening);
}

/* A STOPPING session finishes once nothing it waits for is left. */
static void stop_settled(struct session *s)
{
	if (s->state == SESSION_STOPPING && !agents_pending(s) && !dev_running(s))
		session_finish(s);
}

void session_agent_stopped(struct session *s, struct agent *a, const cJSON *msg, const char *error)
{
	struct slot *sl = slot_of(s, a);
	if (!sl)
		return;
	uint64_t events = 0, dropped = 0, bytes = 0;
	if (!error && (json_get_u64(msg, "events", 0, JSON_MAX_INT, false, 0, &events) < 0 ||
		       json_get_u64(msg, "dropped", 0, JSON_MAX_INT, false, 0, &dropped) < 0 ||
		       json_get_u64(msg, "bytes", 0, JSON_MAX_INT, false, 0, &bytes) < 0))
		error = "agent_stopped with counts that are not integers";
	sl->agent = NULL;
	if (error) {
		sl->state = SLOT_ERROR;
		snprintf(sl->error, sizeof(sl->error), "%s", error);
	} else {
		sl->state = SLOT_STOPPED;
		sl->events = events;
		sl->dropped = dropped;
		sl->bytes = bytes;
		log_msg("session %" PRIu64 ": agent of pid %d stopped %.3f ms after agent_stop: %" PRIu64
			" events, %" PRIu64 " dropped, %" PRIu64 " bytes", s->id, a->pid, ms_since(a->sent_ns),
			events, dropped, bytes);
		if (dropped)
			log_msg("session %" PRIu64 ": agent of pid %d dropped %" PRIu64 " events (buffers full)",
				s->id, a->pid, dropped);
	}
	start_settled(s);
	stop_settled(s);
}

void session_agent_gone(struct session *s, struct agent *a)
{
	struct slot *sl = slot_of(s, a);
	a->session = NULL;
	if (!sl)
		return;
	sl->agent = NULL;
	sl->state = SLOT_ERROR;
	snprintf(sl->error, sizeof(sl->error), "the process exited before the stop (its data ends there)");
	start_settled(s);
	stop_settled(s);
}

/* Let go of every agent still driven: those that did not answer keep the
 * reason in their entry. */
static void release_agents(struct session *s, const char *why)
{
	for (unsigned i = 0; i < s->n_slots; i++) {
		struct slot *sl = &s->slots[i];
		if (!sl->agent)
			continue;
		if (sl->agent->session == s)
			sl->agent->session = NULL;
		sl->agent = NULL;
		sl->state = SLOT_ERROR;
		snprintf(sl->error, sizeof(sl->error), "%s", why);
	}
}

static void on_stop_timeout(uv_timer_t *t)
{
	struct session *s = t->data;
	char why[128];
	for (unsigned i = 0; i < s->n_slots; i++)
		if (s->slots[i].agent)
			log_msg("session %" PRIu64 ": agent of pid %d did not answer agent_stop within %d ms",
				s->id, s->slots[i].pid, IPC_AGENT_STOP_TIMEOUT_MS);
	snprintf(why, sizeof(why), "no agent_stopped within %d ms (the process may be stopped or hung)",
		 IPC_AGENT_STOP_TIMEOUT_MS);
	release_agents(s, why);
	if (dev_running(s))
		log_msg("session %" PRIu64 ": device sampling did not stop within %d ms (a driver call "
			"blocks); it finishes its files when the call returns", s->id,
			IPC_AGENT_STOP_TIMEOUT_MS);
	session_finish(s);
}

/* Send the reply or event, drop the counts and close the handles: the end
 * of STOPPING, or of RUNNING when nothing needs to be waited for. */
static void session_finish(struct session *s)
{
	struct server *srv = s->srv;
	struct client *owner = s->owner;
	enum session_reason why = s->why;

	if (s->state == SESSION_ENDED)
		return;
	s->state = SESSION_ENDED;
	uv_timer_stop(&s->stop_timer);
	uv_timer_stop(&s->dev_timer);
	uv_timer_stop(&s->ring_timer);
	release_agents(s, "msprofd stopped waiting for it");

	/* The devices' counts and result when their worker is done; one
	 * still in a driver call is let go and finishes on its own (those
	 * who cannot wait -- a gone owner, a shutdown -- never waited). */
	if (s->dev) {
		struct dev_worker_state st;
		dev_worker_get(s->dev, &st);
		if (st.phase == DEV_WORKER_DONE) {
			s->st.records += st.records;
			s->st.bytes += st.bytes;
			if (st.error < 0 && why != SESSION_REASON_WRITE_ERROR) {
				why = s->why = SESSION_REASON_WRITE_ERROR;
				s->finish_failed = true;
				snprintf(s->message, sizeof(s->message), "cannot finish device data in '%s': %s",
					 s->data_dir, strerror(-st.error));
			}
		}
		s->dev = dev_worker_release(s->dev);
	}
	log_msg("session %" PRIu64 " ended: %s: %" PRIu64 " ticks (%" PRIu64 " missed), %" PRIu64 " records, %" PRIu64
		" bytes", s->id, s->message, s->st.ticks, s->st.missed_ticks, s->st.records, s->st.bytes);
	if (s->quota) {
		struct raw_quota_stats q;
		raw_quota_stats(s->quota, &q);
		if (q.ring)
			log_msg("session %" PRIu64 ": flight recorder of %" PRIu64 " bytes in '%s': at most %" PRIu64
				" bytes held, %" PRIu64 " oldest slice(s) (%" PRIu64 " bytes) overwritten, %" PRIu64
				" write(s) refused", s->id, q.limit_bytes, s->data_dir, q.peak_bytes, q.aged_files,
				q.aged_bytes, q.refused_records);
		else
		log_msg("session %" PRIu64 ": storage limit of %" PRIu64 " bytes in '%s': at most %" PRIu64
			" bytes held, %" PRIu64 " oldest slice(s) (%" PRIu64 " bytes) deleted, %" PRIu64
			" write(s) (%" PRIu64 " bytes) refused", s->id, q.limit_bytes, s->data_dir, q.peak_bytes,
			q.aged_files, q.aged_bytes, q.refused_records, q.refused_bytes);
	}

	TAILQ_REMOVE(&srv->sessions, s, link);
	srv->n_sessions--;
	owner->n_sessions--;
	s->owner = NULL;

	if (s->reply)
		client_send(owner, counts_msg(IPC_T_SESSION_STOPPED, s->reply_id, s, &s->st,
					      reasons[why].name, s->finish_failed ? s->message : NULL));
	else if (why != SESSION_REASON_CLIENT_GONE)
		client_send(owner, counts_msg(IPC_T_SESSION_ENDED, 0, s, &s->st, reasons[why].name,
					      s->message));

	uv_close((uv_handle_t *)&s->sys_timer, on_session_closed);
	uv_close((uv_handle_t *)&s->usage_timer, on_session_closed);
	uv_close((uv_handle_t *)&s->sys_idle, on_session_closed);
	uv_close((uv_handle_t *)&s->usage_idle, on_session_closed);
	uv_close((uv_handle_t *)&s->stop_timer, on_session_closed);
	uv_close((uv_handle_t *)&s->dev_timer, on_session_closed);
	uv_close((uv_handle_t *)&s->dev_async, on_session_closed);
	uv_close((uv_handle_t *)&s->ring_timer, on_session_closed);
	srv->hooks->load_changed(srv);
}

/* --flight-recorder with a span: what is older goes (one try at the
 * ring's lock: another writer ageing it now is as good). */
static void on_ring_age(uv_timer_t *t)
{
	struct session *s = t->data;
	uint64_t now = real_ns();
	if (s->quota && now > s->ring_span_ns)
		(void)raw_quota_age_before(s->quota, now - s->ring_span_ns);
}

/* End a running session (see the states above).  error: the -errno that
 * caused write_error.  reply: answer a stop request (reply_id) with
 * session_stopped, after the agents answered; otherwise a connected owner
 * gets a session_ended event at once. */
static void session_end(struct session *s, enum session_reason why, int error, bool reply,
			uint64_t reply_id)
{
	if (s->state != SESSION_RUNNING)
		return;
	/* ended in the moment between session_started and the sampler's
	 * start (send_started): the sampler and its first samples now, as
	 * they would have come (the raw files are made by a tick); a failure
	 * is a stop's answer (write_error), and said in the log otherwise */
	if (!s->start_pending && (s->sys_ticks || s->usage_ticks || s->reprobe)) {
		bool sys = s->sys_ticks, usage = s->usage_ticks;
		s->sys_ticks = s->usage_ticks = false;
		reprobe(s);
		int r = sys || usage ? sampler_start(s) : 0;
		if (r == 0 && sys)
			r = host_sampler_tick(s->sampler, HOST_TICK_SYS);
		if (r >= 0 && usage)
			r = host_sampler_tick(s->sampler, HOST_TICK_USAGE);
		if (r < 0 && s->sampler)
			log_msg("session %" PRIu64 ": cannot take its first samples: %s", s->id, strerror(-r));
		if (r < 0 && why == SESSION_REASON_STOP) {
			why = SESSION_REASON_WRITE_ERROR;
			error = r;
		}
	}
	s->ending = true;
	uv_timer_stop(&s->sys_timer);
	uv_timer_stop(&s->usage_timer);
	uv_idle_stop(&s->sys_idle);
	uv_idle_stop(&s->usage_idle);
	/* The devices finish on their thread (stop returns at once); below,
	 * the session waits for them like for the agents. */
	if (s->dev)
		dev_worker_stop(s->dev, reasons[why].raw);
	if (s->dev_opening) {
		s->dev_opening = s->dev_wait_probe = false;
		uv_timer_stop(&s->dev_timer);
		snprintf(s->dev_off, sizeof(s->dev_off), "the session ended before the devices were open");
	}
	/* ended while its agents were starting: the owner hears of the
	 * session before of its end */
	if (why == SESSION_REASON_CLIENT_GONE)
		s->start_pending = false;
	send_started(s);

	/* no sampler: ended before session_started was sent */
	int r = s->sampler ? host_sampler_finish(s->sampler, reasons[why].raw) : 0;
	if (s->sampler)
		host_sampler_get_stats(s->sampler, &s->st);
	s->sampler = host_sampler_free(s->sampler);
	if (why == SESSION_REASON_WRITE_ERROR) {
		snprintf(s->message, sizeof(s->message), "cannot write raw data in '%s': %s", s->data_dir,
			 strerror(-error));
	} else if (r < 0) {
		/* Finishing failed: the data up to here is readable, the END
		 * record may be missing.  Say so rather than report success. */
		why = SESSION_REASON_WRITE_ERROR;
		s->finish_failed = true;
		snprintf(s->message, sizeof(s->message), "cannot finish raw data in '%s': %s", s->data_dir,
			 strerror(-r));
	} else {
		snprintf(s->message, sizeof(s->message), "%s", reasons[why].message);
	}
	s->why = why;
	s->reply = reply;
	s->reply_id = reply_id;

	bool waiting = false;
	for (unsigned i = 0; i < s->n_slots; i++) {
		struct slot *sl = &s->slots[i];
		if (!sl->agent || (sl->state != SLOT_STARTING && sl->state != SLOT_RECORDING))
			continue;
		agent_send_stop(sl->agent, s->id);
		sl->state = SLOT_STOPPING;
		waiting = true;
	}
	/* Without a stop request nobody waits for the agents: they finish
	 * their files on their own.  The device files are the daemon's and
	 * complete before the owner hears of the end, unless the owner is
	 * gone or the daemon is going down (the worker then finishes them
	 * on its own, and msprofd waits for it before it exits). */
	if (!reply)
		release_agents(s, "not waited for: the session ended without a stop request");
	bool dev_wait = why != SESSION_REASON_CLIENT_GONE && why != SESSION_REASON_SHUTDOWN && dev_running(s);
	if ((reply && waiting) || dev_wait) {
		s->state = SESSION_STOPPING;
		uv_update_time(s->srv->loop);
		uv_timer_start(&s->stop_timer, on_stop_timeout, IPC_AGENT_STOP_TIMEOUT_MS, 0);
		return;
	}
	session_finish(s);
}

void sessions_end(struct server *srv, struct client *owner, enum session_reason why)
{
	struct session *s, *next;

	for (s = TAILQ_FIRST(&srv->sessions); s; s = next) {
		next = TAILQ_NEXT(s, link);
		if (owner && s->owner != owner)
			continue;
		if (s->state == SESSION_RUNNING) {
			session_end(s, why, 0, false, 0);
		} else if (s->state == SESSION_STOPPING) {
			/* a stop waiting for agents: its owner is gone (no
			 * reply then), or the daemon is going down (reply now) */
			if (why == SESSION_REASON_CLIENT_GONE)
				s->reply = false;
			release_agents(s, why == SESSION_REASON_SHUTDOWN ? "msprofd is shutting down" :
					  "the client disconnected");
			session_finish(s);
		}
	}
}

/* --- ticking ------------------------------------------------------------ */

static void on_tick(uv_timer_t *t);
static void on_tick_now(uv_idle_t *idle);

/* Arm the timer for the next deadline on a fixed grid (no drift).  libuv
 * timers have millisecond resolution, so the delay is rounded to the nearest
 * millisecond; the mean rate stays exact because deadlines are absolute.
 * When the next deadline is a whole period or more in the past (the tick
 * ran long, msprofd was stopped or starved), the deadlines up to the last
 * one due are missed: they are counted (host_sampler_missed) rather than
 * fired as a burst of samples a few microseconds apart, and the last one
 * due is taken at once, so the grid stays where it was. */
static void schedule(struct session *s, uv_timer_t *t, uint64_t *next, uint64_t period)
{
	uint64_t now = mono_ns();

	*next += period;
	if (*next + period <= now) {
		uint64_t missed = (now - *next) / period;
		*next += missed * period;
		host_sampler_missed(s->sampler, t == &s->sys_timer ? HOST_TICK_SYS : HOST_TICK_USAGE, missed);
	}
	uint64_t delay_ms = *next > now ? (*next - now + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC : 0;
	/* Due now: from an idle handle, which runs once the loop has looked
	 * at the sockets, never as a timer of 0 ms, which libuv runs again in
	 * the same pass over its timers: ticks slower than their period (a
	 * loaded machine, 1000 Hz) then never let a client be answered. */
	if (delay_ms == 0) {
		uv_idle_start(t == &s->sys_timer ? &s->sys_idle : &s->usage_idle, on_tick_now);
		return;
	}
	uv_update_time(s->srv->loop);
	uv_timer_start(t, on_tick, delay_ms, 0);
}

/* Ageing is done by whichever writer needs the room (raw_quota_reserve);
 * the session only says once that it began, the counts come at the end. */
static void session_age_note(struct session *s)
{
	struct raw_quota_stats q;

	if (!s->quota || s->age_logged)
		return;
	raw_quota_stats(s->quota, &q);
	if (!q.aged_files && !q.refused_records)
		return;
	s->age_logged = true;
	log_msg("session %" PRIu64 ": storage limit of %" PRIu64 " bytes reached in '%s', "
		"deleting the oldest slices", s->id, q.limit_bytes, s->data_dir);
}

static void on_tick(uv_timer_t *t)
{
	struct session *s = t->data;
	bool sys = t == &s->sys_timer;

	int r = host_sampler_tick(s->sampler, sys ? HOST_TICK_SYS : HOST_TICK_USAGE);
	if (r < 0) {
		session_end(s, SESSION_REASON_WRITE_ERROR, r, false, 0);
		return;
	}
	if (r == 0) {
		session_end(s, SESSION_REASON_TARGET_EXITED, 0, false, 0);
		return;
	}
	session_age_note(s);
	if (sys)
		schedule(s, t, &s->sys_next_ns, s->sys_period_ns);
	else
		schedule(s, t, &s->usage_next_ns, s->usage_period_ns);
}

static void on_tick_now(uv_idle_t *idle)
{
	struct session *s = idle->data;
	uv_idle_stop(idle);
	on_tick(idle == &s->sys_idle ? &s->sys_timer : &s->usage_timer);
}

/* --- devices ------------------------------------------------------------ */

/* From the device worker's thread. */
static void dev_notify(void *arg)
{
	(void)uv_async_send(arg);
}

/* The device worker moved (sends coalesce: act on where it is now). */
static void on_dev_async(uv_async_t *a)
{
	struct session *s = a->data;
	struct dev_worker_state st;

	if (!s->dev)
		return;
	dev_worker_get(s->dev, &st);
	if (st.phase == s->dev_seen)
		return;
	s->dev_seen = st.phase;
	if (st.phase != DEV_WORKER_OPENING && s->dev_opening) {
		s->dev_opening = false;
		uv_timer_stop(&s->dev_timer);
		const struct dev_sampler *ds = dev_worker_sampler(s->dev);
		if (st.phase == DEV_WORKER_OFF || !ds) {
			snprintf(s->dev_off, sizeof(s->dev_off), "%s", st.why[0] ? st.why : "no device");
			log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		} else {
			log_msg("session %" PRIu64 ": %u device(s) through %s, open %.3f ms after session_start "
				"arrived", s->id, dev_sampler_count(ds), dev_sampler_backend(ds), ms_since(s->req_ns));
		}
		start_settled(s);
	} else if (st.phase == DEV_WORKER_OFF) {
		/* a borrowing worker that could not make its files: the reply
		 * named the devices, the session goes on with host data */
		log_msg("session %" PRIu64 ": device collection is off: %s", s->id, st.why[0] ? st.why : "no device");
		stop_settled(s);
	}
	if (st.phase != DEV_WORKER_DONE)
		return;
	/* Done by itself (not stopped): a device file could not be written. */
	if (s->state == SESSION_RUNNING && !st.stopped)
		session_end(s, SESSION_REASON_WRITE_ERROR, st.error < 0 ? st.error : -EIO, false, 0);
	else
		stop_settled(s);
}

static void on_dev_open_timeout(uv_timer_t *t)
{
	struct session *s = t->data;
	if (!s->dev_opening)
		return;
	s->dev_opening = false;
	snprintf(s->dev_off, sizeof(s->dev_off), "the %s did not open within %d s",
		 "device driver", DEV_OPEN_TIMEOUT_MS / 1000);
	log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
	/* it makes no device_<N> once stopped while opening (a probe still
	 * running serves the next sessions when it is done) */
	if (!s->dev_wait_probe)
		dev_worker_stop(s->dev, reasons[SESSION_REASON_STOP].raw);
	s->dev_wait_probe = false;
	start_settled(s);
}

/* Start the session's worker: with msprofd's probe (which found devices)
 * it borrows the open backend, otherwise it opens its own and
 * session_started waits for it (at most DEV_OPEN_TIMEOUT_MS). */
static void dev_start_worker(struct session *s, struct dev_probe *probe)
{
	s->dev_cfg.probe = probe;
	int r = s->dev_prof_dir ? dev_worker_new(&s->dev_cfg, &s->dev) : -ENOMEM;
	if (r < 0) {
		snprintf(s->dev_off, sizeof(s->dev_off), "cannot start the device thread: %s", strerror(-r));
		log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		return;
	}
	if (probe) {
		const struct dev_sampler *ds = dev_probe_sampler(probe);
		log_msg("session %" PRIu64 ": %u device(s) through %s (found at msprofd's start, %.3f ms after "
			"session_start arrived)", s->id, dev_sampler_count(ds), dev_sampler_backend(ds),
			ms_since(s->req_ns));
		return;
	}
	s->dev_opening = true;
	uv_update_time(s->srv->loop);
	uv_timer_start(&s->dev_timer, on_dev_open_timeout, DEV_OPEN_TIMEOUT_MS, 0);
}

static void probe_start(struct server *srv);

/* Devices for a new session, from where msprofd's probe is:
 *   FOUND    a worker that borrows the backend; the reply lists the
 *            devices at once, the worker makes their files meanwhile;
 *   NONE     off at once, with the probe's why; the probe is started
 *            again, off the reply, so that a driver installed since is
 *            found from the next session on;
 *   RUNNING  (msprofd just started) the reply waits for it, at most
 *            DEV_OPEN_TIMEOUT_MS from its start. */
static void dev_begin(struct session *s)
{
	struct server *srv = s->srv;
	if (!srv->dev_probe) {
		dev_start_worker(s, NULL);
		return;
	}
	char why[sizeof(s->dev_off)];
	switch (dev_probe_get(srv->dev_probe, why, sizeof(why))) {
	case DEV_PROBE_FOUND:
		dev_start_worker(s, srv->dev_probe);
		return;
	case DEV_PROBE_NONE:
		snprintf(s->dev_off, sizeof(s->dev_off), "%s", why);
		log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		s->reprobe = true;   /* after the reply: a thread to start, a library to look for */
		return;
	case DEV_PROBE_RUNNING:
		break;
	}
	if (srv->probe_none[0]) {
		/* probing again after finding none: that answer stands until
		 * this probe is done, rather than a wait on the reply */
		snprintf(s->dev_off, sizeof(s->dev_off), "%s", srv->probe_none);
		log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		return;
	}
	uint64_t waited = mono_ns() - dev_probe_started_ns(srv->dev_probe);
	if (waited >= (uint64_t)DEV_OPEN_TIMEOUT_MS * NSEC_PER_MSEC) {
		snprintf(s->dev_off, sizeof(s->dev_off), "the device driver has not opened for %d s",
			 (int)(waited / NSEC_PER_SEC));
		log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		return;
	}
	s->dev_opening = s->dev_wait_probe = true;
	uv_update_time(srv->loop);
	uv_timer_start(&s->dev_timer, on_dev_open_timeout,
		       DEV_OPEN_TIMEOUT_MS - waited / NSEC_PER_MSEC, 0);
}

/* From the probe's thread. */
static void probe_notify(void *arg)
{
	(void)uv_async_send(arg);
}

/* A probe is done: the sessions waiting for it go on. */
static void on_probe_async(uv_async_t *a)
{
	struct server *srv = a->data;
	char why[256];
	if (!srv->dev_probe)
		return;
	enum dev_probe_phase phase = dev_probe_get(srv->dev_probe, why, sizeof(why));
	if (phase == DEV_PROBE_RUNNING)
		return;
	if (phase == DEV_PROBE_FOUND) {
		const struct dev_sampler *ds = dev_probe_sampler(srv->dev_probe);
		log_msg("devices: %u through %s, found in %.3f ms", dev_sampler_count(ds), dev_sampler_backend(ds),
			ms_since(dev_probe_started_ns(srv->dev_probe)));
	} else {
		log_msg("devices: none (%s), probed in %.3f ms", why, ms_since(dev_probe_started_ns(srv->dev_probe)));
	}
	snprintf(srv->probe_none, sizeof(srv->probe_none), "%s", phase == DEV_PROBE_NONE ? why : "");
	struct session *s;
	TAILQ_FOREACH(s, &srv->sessions, link) {
		if (!s->dev_opening || !s->dev_wait_probe)
			continue;
		s->dev_opening = s->dev_wait_probe = false;
		uv_timer_stop(&s->dev_timer);
		if (phase == DEV_PROBE_FOUND) {
			dev_start_worker(s, srv->dev_probe);
		} else {
			snprintf(s->dev_off, sizeof(s->dev_off), "%s", why);
			log_msg("session %" PRIu64 ": device collection is off: %s", s->id, s->dev_off);
		}
		start_settled(s);
	}
}

/* (Re)probe unless one runs or found devices: msprofd's start, and each
 * session that wants devices while the last probe found none. */
static void probe_start(struct server *srv)
{
	if (!srv->probe_async_open || srv->stopping)
		return;
	if (srv->dev_probe && dev_probe_get(srv->dev_probe, NULL, 0) != DEV_PROBE_NONE)
		return;
	srv->dev_probe = dev_probe_release(srv->dev_probe);
	int r = dev_probe_new(probe_notify, &srv->probe_async, &srv->dev_probe);
	if (r < 0)
		log_msg("cannot start the device probe: %s; each session opens the devices itself",
			strerror(-r));
}

void sessions_init(struct server *srv)
{
	if (uv_async_init(srv->loop, &srv->probe_async, on_probe_async) < 0)
		return;
	srv->probe_async.data = srv;
	srv->probe_async_open = true;
	probe_start(srv);
}

void sessions_close(struct server *srv)
{
	/* a probe still in a driver call finishes and frees itself */
	srv->dev_probe = dev_probe_release(srv->dev_probe);
	if (srv->probe_async_open)
		uv_close((uv_handle_t *)&srv->probe_async, NULL);
	srv->probe_async_open = false;
}

/* --- requests ----------------------------------------------------------- */


/* A directory that exists and belongs to uid. */
static int check_dir(const char *path, uid_t uid, char *why, size_t why_len)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		int r = -errno;
		snprintf(why, why_len, "cannot use '%s': %s", path, strerror(-r));
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "'%s' is not a directory", path);
		return -ENOTDIR;
	}
	if (st.st_uid != uid) {
		snprintf(why, why_len, "'%s' belongs to uid %u, not to uid %u", path,
			 (unsigned)st.st_uid, (unsigned)uid);
		return -EPERM;
	}
	return 0;
}

/* The agent fields of session_start, beyond the settings: "agent" (drive
 * the tree's agents, default true), and the rules between settings that
 * the agents apply: the domain filters one at a time and only with
 * msproftx, as msprof has them; step_range only with msproftx;
 * osrt only with agents to record it.  *ret_start: what every agent_start
 * of the session carries. */
static int parse_agent(const cJSON *msg, const char *prof_dir, const struct settings *set, bool *ret_drive,
		       cJSON **ret_start, char *why, size_t why_len)
{
	const char *inc = set->s[SET_MSTX_DOMAIN_INCLUDE], *exc = set->s[SET_MSTX_DOMAIN_EXCLUDE];
	const char *steps = set->s[SET_STEP_RANGE];
	bool tx = set->u[SET_MSPROFTX], drive;

	if (json_get_bool(msg, "agent", false, true, &drive) < 0) {
		snprintf(why, why_len, "'agent' and 'msproftx' must be true or false");
		return -EINVAL;
	}
	inc = inc ? inc : "";
	exc = exc ? exc : "";
	if (*inc && *exc) {
		snprintf(why, why_len, "'mstx_domain_include' and 'mstx_domain_exclude' cannot be used at the same time");
		return -EINVAL;
	}
	if ((*inc || *exc) && !tx) {
		snprintf(why, why_len, "'mstx_domain_include' and 'mstx_domain_exclude' need 'msproftx': true");
		return -EINVAL;
	}
	/* --step-range (ipc/selectors.h): checked with the settings, applied
	 * by the agents to annotations; --ranks applies to everything (the
	 * agents and the host sampler) */
	if (steps && *steps && !tx) {
		snprintf(why, why_len, "'step_range' needs 'msproftx': true");
		return -EINVAL;
	}
	/* --host-sys=osrt: the agents record OS runtime calls (their osrt build) */
	if (set->u[SET_OSRT] && !drive) {
		snprintf(why, why_len, "'osrt' needs 'agent': true (the agents record the calls)");
		return -EINVAL;
	}
	cJSON *m = cJSON_CreateObject();
	if (!m || !cJSON_AddStringToObject(m, "prof_dir", prof_dir) || settings_to_agent(set, m) < 0) {
		cJSON_Delete(m);
		return -ENOMEM;
	}
	*ret_drive = drive;
	*ret_start = m;
	return 0;
}

/* Device collection from the settings: "device" (describe the devices:
 * device_<N>/ with info.json.<N>), "sys_hardware_mem" and
 * "sys_interconnection" (sample them; each implies "device") with their
 * frequencies. */
struct dev_req {
	bool want, mem, pcie;
	uint64_t mem_freq, pcie_freq;
};

static struct dev_req dev_req_of(const struct settings *set)
{
	struct dev_req d = {
		.mem = set->u[SET_SYS_HARDWARE_MEM], .pcie = set->u[SET_SYS_INTERCONNECTION],
		.mem_freq = set->u[SET_SYS_HARDWARE_MEM_FREQ], .pcie_freq = set->u[SET_SYS_INTERCONNECTION_FREQ],
	};
	d.want = set->u[SET_DEVICE] || d.mem || d.pcie;
	return d;
}

/* Fill cfg and the settings from a session_start request.  Every field is
 * checked (the settings by their rows, ipc/settings.c); the first problem
 * goes to why (for a bad_request error).  data_dir is malloc'd into
 * *ret_data_dir, the agents' settings into *ret_agent_start. */
static int parse_start(const cJSON *msg, uid_t peer, pid_t peer_pid, struct host_sampler_config *cfg,
		       struct settings *ret_set,
		       bool *ret_drive, cJSON **ret_agent_start, char **ret_data_dir, char *why, size_t why_len)
{
	const char *prof_dir;
	struct settings set;
	bool follow;
	int r;

	if (json_get_str(msg, "prof_dir", true, NULL, &prof_dir) < 0) {
		snprintf(why, why_len, "'prof_dir' must be a string");
		return -EINVAL;
	}
	if (prof_dir[0] != '/' || strlen(prof_dir) > 3900) {
		snprintf(why, why_len, "'prof_dir' must be an absolute path of at most 3900 bytes");
		return -EINVAL;
	}
	r = check_dir(prof_dir, peer, why, why_len);
	if (r < 0)
		return r;
	_cleanup_free_ char *data_dir = NULL;
	if (asprintf(&data_dir, "%s/host/data", prof_dir) < 0) {
		data_dir = NULL;
		return -ENOMEM;
	}
	r = check_dir(data_dir, peer, why, why_len);
	if (r < 0)
		return r;

	const cJSON *pids = cJSON_GetObjectItemCaseSensitive(msg, "pids");
	int n = cJSON_GetArraySize(pids);
	if (!cJSON_IsArray(pids) || n < 1 || n > HOST_MAX_ROOTS) {
		snprintf(why, why_len, "'pids' must be an array of 1 to %d pids", HOST_MAX_ROOTS);
		return -EINVAL;
	}
	cfg->n_roots = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, pids) {
		uint64_t pid;
		if (json_value_u64(item, 1, PID_MAX_LIMIT, &pid) < 0) {
			snprintf(why, why_len, "'pids' must hold integers in 1..%d", PID_MAX_LIMIT);
			return -EINVAL;
		}
		for (unsigned i = 0; i < cfg->n_roots; i++)
			if (cfg->roots[i] == pid) {
				snprintf(why, why_len, "pid %" PRIu64 " is given twice", pid);
				return -EINVAL;
			}
		r = proc_check_owner(pid, peer, why, why_len);
		if (r < 0)
			return r;
		cfg->roots[cfg->n_roots++] = (uint32_t)pid;
	}

	if (json_get_bool(msg, "follow_children", false, true, &follow) < 0) {
		snprintf(why, why_len, "'follow_children' must be true or false");
		return -EINVAL;
	}
	/* the client is a subreaper above the roots (msprof's launcher): the
	 * orphans it adopts are the job's daemonized processes */
	bool adopted;
	if (json_get_bool(msg, "follow_adopted", false, false, &adopted) < 0) {
		snprintf(why, why_len, "'follow_adopted' must be true or false");
		return -EINVAL;
	}
	cfg->adopter = adopted && peer_pid > 0 ? (uint32_t)peer_pid : 0;
	r = settings_from_ipc(msg, &set, why, why_len);
	if (r < 0)
		return r;
	cfg->sys_flags = (unsigned)set.u[SET_HOST_SYS];
	cfg->usage_flags = (unsigned)set.u[SET_HOST_SYS_USAGE];

	r = parse_agent(msg, prof_dir, &set, ret_drive, ret_agent_start, why, why_len);
	if (r < 0)
		return r;

	cfg->follow_children = follow;
	*ret_set = set;
	*ret_data_dir = TAKE_PTR(data_dir);
	return 0;
}

void session_request_start(struct client *c, const cJSON *msg, uint64_t id)
{
	struct server *srv = c->srv;
	struct host_sampler_config cfg = { 0 };
	struct settings set;
	_cleanup_free_ char *data_dir = NULL;
	_cleanup_json_ cJSON *agent_start = NULL;
	bool drive = true;
	char why[512];
	int r;

	uint64_t req_ns = mono_ns();
	if (srv->n_sessions >= IPC_MAX_SESSIONS) {
		client_send_error(c, id, IPC_E_LIMIT, "too many sessions (%d)", IPC_MAX_SESSIONS);
		return;
	}
	if (c->n_sessions >= IPC_MAX_SESSIONS_PER_CLIENT) {
		client_send_error(c, id, IPC_E_LIMIT, "too many sessions on this connection (%d)",
				  IPC_MAX_SESSIONS_PER_CLIENT);
		return;
	}
	r = parse_start(msg, c->uid, c->pid, &cfg, &set, &drive, &agent_start, &data_dir, why, sizeof(why));
	if (r == -ENOMEM) {
		client_send_error(c, id, IPC_E_IO, "out of memory");
		return;
	}
	if (r < 0) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "%s", why);
		return;
	}
	uint64_t sys_freq = set.u[SET_HOST_SYS_FREQ], usage_freq = set.u[SET_HOST_SYS_USAGE_FREQ];
	uint64_t limit_mb = set.u[SET_STORAGE_LIMIT];
	struct dev_req dreq = dev_req_of(&set);
	/* msprof: one interactive user per process */
	for (unsigned i = 0; i < cfg.n_roots; i++) {
		struct client *o = claim_owner(srv, c, cfg.roots[i]);
		if (o) {
			client_send_error(c, id, IPC_E_BUSY, "process %u is driven by another client (pid %d): %s",
					  cfg.roots[i], (int)o->pid, CLAIM_BUSY_MESSAGE);
			return;
		}
	}

	struct session *s = calloc(1, sizeof(*s));
	if (!s) {
		client_send_error(c, id, IPC_E_IO, "out of memory");
		return;
	}
	/* Ageing deletes whole slices but never the newest of a source, so
	 * with 64 MB slices a limit of tens of MB could not hold.  Under a
	 * limit, slices are a sixteenth of it: the newest slice of each of
	 * the six sources then takes at most 6/16 of the budget. */
	if (limit_mb) {
		uint64_t slice = storage_limit_bytes(limit_mb) / 16;
		cfg.slice_bytes = slice < AGE_MIN_SLICE ? AGE_MIN_SLICE :
				  slice > RAW_DEFAULT_SLICE_BYTES ? RAW_DEFAULT_SLICE_BYTES : slice;
	}
	/* The limit holds at every write of every writer of the dir, ours
	 * and the agents': they all join this file (raw_writer_open_stem). */
	struct raw_quota *quota = NULL;
	if (limit_mb && (r = raw_quota_create(data_dir, storage_limit_bytes(limit_mb), cfg.slice_bytes,
					      &quota)) < 0) {
		free(s);
		client_send_error(c, id, IPC_E_IO, "cannot set up the storage limit in '%s': %s", data_dir,
				  strerror(-r));
		return;
	}
	/* --flight-recorder: the dir is a ring under the same machinery,
	 * its slices small enough that ageing frees it in steps of about a
	 * sixty-fourth, and begun anew each eighth of the span so that what
	 * is older than the span can go */
	const char *fr = set.s[SET_FLIGHT_RECORDER];
	struct flight_spec fs;
	if (fr && *fr && !limit_mb && flight_spec_parse(fr, &fs) == 0) {
		uint64_t ring = fs.ring_mb << 20, slice = ring / 64;
		cfg.slice_bytes = slice < AGE_MIN_SLICE ? AGE_MIN_SLICE : slice > RING_MAX_SLICE ? RING_MAX_SLICE : slice;
		s->ring_span_ns = fs.span_s * NSEC_PER_SEC;
		if ((r = raw_quota_create(data_dir, ring, cfg.slice_bytes, &quota)) < 0 ||
		    (r = raw_quota_set_ring(quota, s->ring_span_ns / 8)) < 0) {
			raw_quota_free(quota);
			free(s);
			client_send_error(c, id, IPC_E_IO, "cannot set up the flight recorder's ring in '%s': %s",
					  data_dir, strerror(-r));
			return;
		}
	} else if (fr && *fr) {
		free(s);
		client_send_error(c, id, IPC_E_BAD_REQUEST, "'flight_recorder' cannot be used with 'storage_limit_mb'");
		return;
	}
	/* Both clocks back to back: every raw header gets the same pair. */
	cfg.mono0_ns = mono_ns();
	cfg.real0_ns = real_ns();
	/* --ranks limits the sampling too */
	if (set.s[SET_RANKS] && !(s->ranks = strdup(set.s[SET_RANKS]))) {
		raw_quota_free(quota);
		free(s);
		client_send_error(c, id, IPC_E_IO, "out of memory");
		return;
	}

	s->srv = srv;
	s->owner = c;
	s->id = ++srv->next_session;
	s->state = SESSION_RUNNING;
	s->data_dir = TAKE_PTR(data_dir);
	s->sampler_cfg = cfg;
	s->sampler_cfg.data_dir = s->data_dir;
	s->sampler_cfg.ranks = s->ranks;
	s->quota = quota;
	s->ring = fr && *fr;
	s->req_ns = req_ns;
	memcpy(s->roots, cfg.roots, cfg.n_roots * sizeof(cfg.roots[0]));
	s->n_roots = cfg.n_roots;
	s->follow_children = cfg.follow_children;
	s->drive_agents = drive;
	s->agent_start = TAKE_PTR(agent_start);
	/* A session with nothing to sample still follows its tree, so that it
	 * ends (and tells its owner) when the target exits: the sys timer
	 * then ticks with no sampler enabled, which only refreshes the tree. */
	bool watch_only = !cfg.sys_flags && !cfg.usage_flags;
	s->sys_period_ns = NSEC_PER_SEC / (watch_only ? WATCH_FREQ : sys_freq);
	s->usage_period_ns = NSEC_PER_SEC / usage_freq;
	uv_timer_init(srv->loop, &s->sys_timer);
	uv_timer_init(srv->loop, &s->usage_timer);
	uv_idle_init(srv->loop, &s->sys_idle);
	uv_idle_init(srv->loop, &s->usage_idle);
	uv_timer_init(srv->loop, &s->stop_timer);
	uv_timer_init(srv->loop, &s->dev_timer);
	uv_timer_init(srv->loop, &s->ring_timer);
	uv_async_init(srv->loop, &s->dev_async, on_dev_async);
	s->sys_timer.data = s->usage_timer.data = s->stop_timer.data = s;
	s->sys_idle.data = s->usage_idle.data = s;
	s->dev_timer.data = s->dev_async.data = s->ring_timer.data = s;
	s->open_handles = 8;
	if (s->ring_span_ns)
		uv_timer_start(&s->ring_timer, on_ring_age, RING_AGE_MS, RING_AGE_MS);
	TAILQ_INSERT_TAIL(&srv->sessions, s, link);
	srv->n_sessions++;
	c->n_sessions++;

	/* The agents of the tree: agent_start now, first, so that they
	 * switch on as soon as possible and their round trip (the most of
	 * what session_started waits for) runs while the rest is set up;
	 * their answers are read once this returns to the loop. */
	struct client *o;
	TAILQ_FOREACH(o, &srv->clients, link)
		if (drive && o->agent && o->state == CLIENT_READY && !o->agent->session &&
		    tree_has(s, (uint32_t)o->agent->pid))
			drive_agent(s, o->agent);

	/* The first sample as soon as session_started is sent (start_ticks):
	 * it is the baseline later deltas need. */
	s->sys_next_ns = s->usage_next_ns = cfg.mono0_ns;
	s->sys_ticks = cfg.sys_flags || watch_only;
	s->usage_ticks = cfg.usage_flags;
	uv_timer_start(&s->sys_timer, on_first_tick_wait, FIRST_TICK_WAIT_MS, 0);

	/* Devices: sampled by a worker thread (NVML's calls block).  None
	 * found is not an error: the session goes on with host data and its
	 * owner hears why (device_off). */
	if (dreq.want) {
		s->dev_prof_dir = strndup(s->data_dir, strlen(s->data_dir) - strlen("/host/data"));
		s->dev_cfg = (struct dev_worker_config){
			.sampler = { .prof_dir = s->dev_prof_dir, .app_pid = cfg.roots[0], .mono0_ns = cfg.mono0_ns,
				     .real0_ns = cfg.real0_ns, .slice_bytes = cfg.slice_bytes },
			.mem_period_ns = dreq.mem ? NSEC_PER_SEC / dreq.mem_freq : 0,
			.pcie_period_ns = dreq.pcie ? NSEC_PER_SEC / dreq.pcie_freq : 0,
			.notify = dev_notify,
			.arg = &s->dev_async,
		};
		log_msg("session %" PRIu64 ": devices wanted, hardware-mem %s at %" PRIu64
			" Hz, interconnection %s at %" PRIu64 " Hz", s->id, dreq.mem ? "on" : "off",
			dreq.mem_freq, dreq.pcie ? "on" : "off", dreq.pcie_freq);
		dev_begin(s);
	}

	char sys[64], usage[32];
	settings_list_str(SET_HOST_SYS, cfg.sys_flags, true, sys, sizeof(sys));
	settings_list_str(SET_HOST_SYS_USAGE, cfg.usage_flags, true, usage, sizeof(usage));
	char what[160] = "nothing sampled, following the tree";
	int n = 0;
	if (cfg.sys_flags)
		n = snprintf(what, sizeof(what), "host_sys '%.40s' at %" PRIu64 " Hz", sys, sys_freq);
	if (cfg.usage_flags && n >= 0 && (size_t)n < sizeof(what))
		snprintf(what + n, sizeof(what) - (size_t)n, "%shost_sys_usage '%.20s' at %" PRIu64 " Hz",
			 n ? ", " : "", usage, usage_freq);
	log_msg("session %" PRIu64 " started for pid %d: %u target pid(s) from %u, %s, storage "
		"limit %" PRIu64 " MB, into '%s'", s->id, (int)c->pid, cfg.n_roots,
		(unsigned)cfg.roots[0], what, limit_mb, s->data_dir);

	s->start_reply_id = id;
	s->start_pending = true;
	if (s->n_slots) {
		log_msg("session %" PRIu64 ": agent_start sent to %u agent(s)", s->id, s->n_slots);
		uv_update_time(srv->loop);
		uv_timer_start(&s->stop_timer, on_start_timeout, IPC_AGENT_STOP_TIMEOUT_MS, 0);
		return;
	}
	start_settled(s);
}

/* The running flight-recorder session whose tree holds pid. */
static struct session *ring_session_of(struct server *srv, pid_t pid)
{
	struct session *s;
	TAILQ_FOREACH(s, &srv->sessions, link)
		if (s->state == SESSION_RUNNING && s->ring && tree_has(s, (uint32_t)pid))
			return s;
	return NULL;
}

/* dump_asked to the owner of ring session s. */
static void ask_dump(struct session *s, pid_t pid, pid_t by, const char *trigger, const char *detail)
{
	cJSON *ev = ipc_msg_new(IPC_T_DUMP_ASKED, 0);
	if (ev && (!cJSON_AddNumberToObject(ev, "session", (double)s->id) || !cJSON_AddNumberToObject(ev, "pid", pid) ||
		   !cJSON_AddNumberToObject(ev, "by", by) || !cJSON_AddStringToObject(ev, "trigger", trigger) ||
		   (detail && !cJSON_AddStringToObject(ev, "detail", detail)))) {
		cJSON_Delete(ev);
		ev = NULL;
	}
	log_msg("session %" PRIu64 ": dump asked (%s) for pid %d%s%s", s->id, trigger, (int)pid, detail ? ": " : "",
		detail ? detail : "");
	client_send(s->owner, ev);
}

struct session *sessions_ask_dump(struct server *srv, pid_t pid, pid_t by, const char *trigger, const char *detail)
{
	struct session *s = ring_session_of(srv, pid);
	if (s)
		ask_dump(s, pid, by, trigger, detail);
	return s;
}

bool sessions_agent_dump(struct server *srv, struct session *s, pid_t pid, const char *trigger, const char *detail)
{
	if (s && s->state == SESSION_RUNNING && s->ring)
		return ask_dump(s, pid, pid, trigger, detail), true;
	return sessions_ask_dump(srv, pid, pid, trigger, detail) != NULL;
}

void session_request_dump(struct client *c, const cJSON *msg, uint64_t id)
{
	uint64_t pid;
	if (json_get_u64(msg, "pid", 1, INT32_MAX, true, 0, &pid) < 0) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "'pid' must be a process id");
		return;
	}
	struct session *s = sessions_ask_dump(c->srv, (pid_t)pid, 0, "command", NULL);
	if (!s) {
		client_send_error(c, id, IPC_E_NOT_FOUND, "no flight recorder of this user covers process %" PRIu64
				  " (msprof --flight-recorder must be profiling it or its ancestor)", pid);
		return;
	}
	cJSON *r = ipc_msg_new(IPC_T_DUMP, id);
	if (r && (!cJSON_AddNumberToObject(r, "session", (double)s->id) ||
		  !cJSON_AddNumberToObject(r, "owner", s->owner->pid))) {
		cJSON_Delete(r);
		r = NULL;
	}
	client_send(c, r);
}

void session_request_stop(struct client *c, const cJSON *msg, uint64_t id)
{
	uint64_t sid;
	struct session *s;

	if (json_get_u64(msg, "session", 1, JSON_MAX_INT, true, 0, &sid) < 0) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "'session' must be a positive integer");
		return;
	}
	TAILQ_FOREACH(s, &c->srv->sessions, link)
		if (s->id == sid && s->owner == c)
			break;
	if (!s) {
		client_send_error(c, id, IPC_E_NOT_FOUND, "no session %" PRIu64 " on this connection", sid);
		return;
	}
	/* Ending on its own (its tree exited) and waiting for its device
	 * files: the owner's stop, sent before it could hear of that, is
	 * answered once the files are complete, in place of session_ended. */
	if (s->state == SESSION_STOPPING && !s->reply) {
		s->reply = true;
		s->reply_id = id;
		return;
	}
	if (s->state != SESSION_RUNNING) {
		client_send_error(c, id, IPC_E_BUSY, "session %" PRIu64 " is stopping already", sid);
		return;
	}
	session_end(s, SESSION_REASON_STOP, 0, true, id);
}
