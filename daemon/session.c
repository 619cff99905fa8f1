/* Sessions: host sampling of one process tree into one PROF directory.
 *
 * States and who moves them:
 *
 *   (request) --session_start, all fields valid--> RUNNING --end--> ENDED --> freed
 *
 *   RUNNING  the sampler is open and one or two timers tick it: the sys
 *            timer at host_sys_freq runs the --host-sys samplers, the usage
 *            timer at host_sys_usage_freq the --host-sys-usage ones (with
 *            neither, the sys timer ticks at WATCH_FREQ only to follow the
 *            tree).  Counted in srv->n_sessions and the owner's n_sessions.
 *   ENDED    session_end() ran: timers stopped, RAW_SESSION_END written to
 *            every source, files closed, counts dropped.  Only the timer
 *            handles are still closing; the last close callback frees it.
 *
 * Five things end a RUNNING session, each exactly once (session_end ignores
 * an ENDED one):
 *   - the owner's session_stop request        reason stop, answered with
 *                                             session_stopped and counts;
 *   - a tick finding the whole tree gone      target_exited  } the owner gets
 *   - a tick failing to write (disk full)     write_error    } a session_ended
 *   - daemon shutdown (signal, request, idle) daemon_shutdown} event;
 *   - the owning connection closing           client_gone, nobody to tell.
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

#include "host.h"
#include "msprofd.h"
#include "raw.h"

#define HOST_SYS_FREQ_MAX 1000
#define HOST_SYS_FREQ_DEFAULT 50
#define HOST_USAGE_FREQ_MAX 50    /* msprof: --host-sys-usage-freq 1-50 */
#define HOST_USAGE_FREQ_DEFAULT 50
#define STORAGE_LIMIT_MB_MAX 4294967295ULL
#define AGE_INTERVAL_NS NSEC_PER_SEC   /* ageing is a directory scan: not every tick */
#define WATCH_FREQ 10                  /* Hz, a session that samples nothing */
#define AGE_MIN_SLICE (64 * 1024)      /* bytes, smallest slice under a storage limit */
#define PID_MAX_LIMIT 4194304          /* the kernel's ceiling for pid_max */

enum session_state { SESSION_RUNNING, SESSION_ENDED };

struct session {
	TAILQ_ENTRY(session) link;
	struct server *srv;
	struct client *owner;
	uint64_t id;
	enum session_state state;
	struct host_sampler *sampler;
	char *data_dir;

	uv_timer_t sys_timer, usage_timer;
	unsigned open_handles;
	uint64_t sys_period_ns, usage_period_ns;
	uint64_t sys_next_ns, usage_next_ns;   /* absolute CLOCK_MONOTONIC deadlines */

	uint64_t age_limit_bytes;              /* 0: no --storage-limit */
	uint64_t age_last_ns;
	bool age_logged;
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
		free(s->data_dir);
		free(s);
	}
}

static cJSON *counts_msg(enum ipc_type type, uint64_t id, const struct session *s,
			 const struct host_sampler_stats *st, const char *reason, const char *message)
{
	cJSON *m = ipc_msg_new(type, id);
	if (m && (!cJSON_AddNumberToObject(m, "session", (double)s->id) ||
		  !cJSON_AddNumberToObject(m, "ticks", (double)st->ticks) ||
		  !cJSON_AddNumberToObject(m, "records", (double)st->records) ||
		  !cJSON_AddNumberToObject(m, "bytes", (double)st->bytes) ||
		  !cJSON_AddStringToObject(m, "reason", reason) ||
		  (message && !cJSON_AddStringToObject(m, "message", message)))) {
		cJSON_Delete(m);
		m = NULL;
	}
	return m;
}

/* End a running session (see the states above).  error: the -errno that
 * caused write_error.  reply: answer a stop request (reply_id) with
 * session_stopped; otherwise a connected owner gets a session_ended event. */
static void session_end(struct session *s, enum session_reason why, int error, bool reply,
			uint64_t reply_id)
{
	struct server *srv = s->srv;
	struct client *owner = s->owner;
	struct host_sampler_stats st = { 0 };
	char message[256];

	if (s->state != SESSION_RUNNING)
		return;
	s->state = SESSION_ENDED;
	uv_timer_stop(&s->sys_timer);
	uv_timer_stop(&s->usage_timer);

	int r = host_sampler_finish(s->sampler, reasons[why].raw);
	host_sampler_get_stats(s->sampler, &st);
	s->sampler = host_sampler_free(s->sampler);
	if (why == SESSION_REASON_WRITE_ERROR) {
		snprintf(message, sizeof(message), "cannot write raw data in '%s': %s", s->data_dir,
			 strerror(-error));
	} else if (r < 0) {
		/* Finishing failed: the data up to here is readable, the END
		 * record may be missing.  Say so rather than report success. */
		why = SESSION_REASON_WRITE_ERROR;
		snprintf(message, sizeof(message), "cannot finish raw data in '%s': %s", s->data_dir,
			 strerror(-r));
	} else {
		snprintf(message, sizeof(message), "%s", reasons[why].message);
	}
	log_msg("session %" PRIu64 " ended: %s: %" PRIu64 " ticks, %" PRIu64 " records, %" PRIu64
		" bytes", s->id, message, st.ticks, st.records, st.bytes);

	TAILQ_REMOVE(&srv->sessions, s, link);
	srv->n_sessions--;
	owner->n_sessions--;
	s->owner = NULL;

	if (reply)
		client_send(owner, counts_msg(IPC_T_SESSION_STOPPED, reply_id, s, &st,
					      reasons[why].name, r < 0 ? message : NULL));
	else if (why != SESSION_REASON_CLIENT_GONE)
		client_send(owner, counts_msg(IPC_T_SESSION_ENDED, 0, s, &st, reasons[why].name,
					      message));

	uv_close((uv_handle_t *)&s->sys_timer, on_session_closed);
	uv_close((uv_handle_t *)&s->usage_timer, on_session_closed);
	server_update_idle(srv);
}

void sessions_end(struct server *srv, struct client *owner, enum session_reason why)
{
	struct session *s, *next;

	for (s = TAILQ_FIRST(&srv->sessions); s; s = next) {
		next = TAILQ_NEXT(s, link);
		if (!owner || s->owner == owner)
			session_end(s, why, 0, false, 0);
	}
}

/* --- ticking ------------------------------------------------------------ */

static void on_tick(uv_timer_t *t);

/* Arm the timer for the next deadline on a fixed grid (no drift).  libuv
 * timers have millisecond resolution, so the delay is rounded to the nearest
 * millisecond; the mean rate stays exact because deadlines are absolute.  A
 * tick that comes later than a whole period skips the missed deadlines
 * instead of firing a burst of samples a few microseconds apart. */
static void schedule(struct session *s, uv_timer_t *t, uint64_t *next, uint64_t period)
{
	uint64_t now = mono_ns();

	*next += period;
	if (*next + period <= now)
		*next = now + period;
	uint64_t delay_ms = *next > now ? (*next - now + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC : 0;
	uv_update_time(s->srv->loop);
	uv_timer_start(t, on_tick, delay_ms, 0);
}

static void session_age(struct session *s, uint64_t now)
{
	uint64_t freed = 0;

	if (!s->age_limit_bytes || now - s->age_last_ns < AGE_INTERVAL_NS)
		return;
	s->age_last_ns = now;
	int r = raw_age_dir(s->data_dir, s->age_limit_bytes, &freed);
	/* Once per session each: ageing runs every second and a persistent
	 * problem must not flood the log. */
	if (r < 0 && !s->age_logged) {
		s->age_logged = true;
		log_msg("session %" PRIu64 ": cannot age raw data in '%s': %s", s->id, s->data_dir,
			strerror(-r));
	} else if (r > 0 && !s->age_logged) {
		s->age_logged = true;
		log_msg("session %" PRIu64 ": storage limit of %" PRIu64 " bytes reached in '%s', "
			"deleting the oldest slices", s->id, s->age_limit_bytes, s->data_dir);
	}
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
	session_age(s, mono_ns());
	if (sys)
		schedule(s, t, &s->sys_next_ns, s->sys_period_ns);
	else
		schedule(s, t, &s->usage_next_ns, s->usage_period_ns);
}

/* --- requests ----------------------------------------------------------- */

/* A pid the peer may profile: it exists, has not exited (a zombie leader
 * whose other threads still run counts as running, as for the sampler), and
 * its real, effective and saved uids are the peer's (root may profile any). */
static int check_pid(uint64_t pid, uid_t peer, char *why, size_t why_len)
{
	char path[64], line[256], state = '?';
	unsigned uids[3] = { 0 }, threads = 1;
	int have_uid = 0;

	snprintf(path, sizeof(path), "/proc/%" PRIu64 "/status", pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, why_len, "process %" PRIu64 " does not exist", pid);
		return -ESRCH;
	}
	while (fgets(line, sizeof(line), f)) {
		if (startswith(line, "State:"))
			(void)sscanf(line + 6, " %c", &state);
		else if (startswith(line, "Uid:"))
			have_uid = sscanf(line + 4, "%u %u %u", &uids[0], &uids[1], &uids[2]);
		else if (startswith(line, "Threads:"))
			(void)sscanf(line + 8, "%u", &threads);
	}
	if ((state == 'Z' || state == 'X') && threads <= 1) {
		snprintf(why, why_len, "process %" PRIu64 " has exited", pid);
		return -ESRCH;
	}
	if (have_uid != 3) {
		snprintf(why, why_len, "cannot read the owner of process %" PRIu64, pid);
		return -EIO;
	}
	if (peer != 0 && (uids[0] != peer || uids[1] != peer || uids[2] != peer)) {
		snprintf(why, why_len, "process %" PRIu64 " belongs to uid %u, not to uid %u", pid,
			 uids[0] != peer ? uids[0] : uids[1] != peer ? uids[1] : uids[2],
			 (unsigned)peer);
		return -EPERM;
	}
	return 0;
}

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

/* Fill cfg from a session_start request.  Every field is checked; the
 * first problem goes to why (for a bad_request error).  data_dir is
 * malloc'd into *ret_data_dir. */
static int parse_start(const cJSON *msg, uid_t peer, struct host_sampler_config *cfg,
		       uint64_t *ret_sys_freq, uint64_t *ret_usage_freq, uint64_t *ret_limit_mb,
		       char **ret_data_dir, char *why, size_t why_len)
{
	const char *prof_dir, *sys = NULL, *usage = NULL, *bad;
	uint64_t sys_freq, usage_freq, limit_mb;
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
		r = check_pid(pid, peer, why, why_len);
		if (r < 0)
			return r;
		cfg->roots[cfg->n_roots++] = (uint32_t)pid;
	}

	if (json_get_bool(msg, "follow_children", false, true, &follow) < 0) {
		snprintf(why, why_len, "'follow_children' must be true or false");
		return -EINVAL;
	}
	if (json_get_str(msg, "host_sys", false, "", &sys) < 0 ||
	    json_get_str(msg, "host_sys_usage", false, "", &usage) < 0) {
		snprintf(why, why_len, "'host_sys' and 'host_sys_usage' must be strings");
		return -EINVAL;
	}
	cfg->sys_flags = cfg->usage_flags = 0;
	if (*sys && host_sys_parse(sys, &cfg->sys_flags, &bad) < 0) {
		snprintf(why, why_len, "'host_sys': unknown item '%.*s' (use cpu, mem, disk, network)",
			 (int)strcspn(bad, ","), bad);
		return -EINVAL;
	}
	if (*usage && host_usage_parse(usage, &cfg->usage_flags, &bad) < 0) {
		snprintf(why, why_len, "'host_sys_usage': unknown item '%.*s' (use cpu, mem)",
			 (int)strcspn(bad, ","), bad);
		return -EINVAL;
	}
	if (json_get_u64(msg, "host_sys_freq", 1, HOST_SYS_FREQ_MAX, false,
			 HOST_SYS_FREQ_DEFAULT, &sys_freq) < 0) {
		snprintf(why, why_len, "'host_sys_freq' must be an integer in 1..%d Hz", HOST_SYS_FREQ_MAX);
		return -EINVAL;
	}
	if (json_get_u64(msg, "host_sys_usage_freq", 1, HOST_USAGE_FREQ_MAX, false,
			 HOST_USAGE_FREQ_DEFAULT, &usage_freq) < 0) {
		snprintf(why, why_len, "'host_sys_usage_freq' must be an integer in 1..%d Hz",
			 HOST_USAGE_FREQ_MAX);
		return -EINVAL;
	}
	if (json_get_u64(msg, "storage_limit_mb", 0, STORAGE_LIMIT_MB_MAX, false, 0, &limit_mb) < 0) {
		snprintf(why, why_len, "'storage_limit_mb' must be an integer in 0..%llu",
			 STORAGE_LIMIT_MB_MAX);
		return -EINVAL;
	}

	cfg->follow_children = follow;
	*ret_sys_freq = sys_freq;
	*ret_usage_freq = usage_freq;
	*ret_limit_mb = limit_mb;
	*ret_data_dir = TAKE_PTR(data_dir);
	return 0;
}

void session_request_start(struct client *c, const cJSON *msg, uint64_t id)
{
	struct server *srv = c->srv;
	struct host_sampler_config cfg = { 0 };
	uint64_t sys_freq, usage_freq, limit_mb;
	_cleanup_free_ char *data_dir = NULL;
	char why[512];
	int r;

	if (srv->n_sessions >= IPC_MAX_SESSIONS) {
		client_send_error(c, id, "limit", "too many sessions (%d)", IPC_MAX_SESSIONS);
		return;
	}
	if (c->n_sessions >= IPC_MAX_SESSIONS_PER_CLIENT) {
		client_send_error(c, id, "limit", "too many sessions on this connection (%d)",
				  IPC_MAX_SESSIONS_PER_CLIENT);
		return;
	}
	r = parse_start(msg, c->uid, &cfg, &sys_freq, &usage_freq, &limit_mb, &data_dir, why,
			sizeof(why));
	if (r == -ENOMEM) {
		client_send_error(c, id, "io", "out of memory");
		return;
	}
	if (r < 0) {
		client_send_error(c, id, "bad_request", "%s", why);
		return;
	}

	struct session *s = calloc(1, sizeof(*s));
	if (!s) {
		client_send_error(c, id, "io", "out of memory");
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
	/* Both clocks back to back: every raw header gets the same pair. */
	cfg.mono0_ns = mono_ns();
	cfg.real0_ns = real_ns();
	cfg.data_dir = data_dir;
	r = host_sampler_new(&cfg, &s->sampler);
	if (r < 0) {
		log_msg("cannot start sampling into '%s' for pid %d: %s", data_dir, (int)c->pid,
			strerror(-r));
		client_send_error(c, id, "io", "cannot start sampling into '%s': %s", data_dir,
				  strerror(-r));
		free(s);
		return;
	}

	s->srv = srv;
	s->owner = c;
	s->id = ++srv->next_session;
	s->state = SESSION_RUNNING;
	s->data_dir = TAKE_PTR(data_dir);
	s->age_limit_bytes = limit_mb ? storage_limit_bytes(limit_mb) : 0;
	s->age_last_ns = cfg.mono0_ns;
	/* A session with nothing to sample still follows its tree, so that it
	 * ends (and tells its owner) when the target exits: the sys timer
	 * then ticks with no sampler enabled, which only refreshes the tree. */
	bool watch_only = !cfg.sys_flags && !cfg.usage_flags;
	s->sys_period_ns = NSEC_PER_SEC / (watch_only ? WATCH_FREQ : sys_freq);
	s->usage_period_ns = NSEC_PER_SEC / usage_freq;
	uv_timer_init(srv->loop, &s->sys_timer);
	uv_timer_init(srv->loop, &s->usage_timer);
	s->sys_timer.data = s->usage_timer.data = s;
	s->open_handles = 2;
	TAILQ_INSERT_TAIL(&srv->sessions, s, link);
	srv->n_sessions++;
	c->n_sessions++;

	/* The first sample at once: it is the baseline later deltas need. */
	s->sys_next_ns = s->usage_next_ns = cfg.mono0_ns;
	if (cfg.sys_flags || watch_only)
		uv_timer_start(&s->sys_timer, on_tick, 0, 0);
	if (cfg.usage_flags)
		uv_timer_start(&s->usage_timer, on_tick, 0, 0);

	const char *sys = "", *usage = "";
	(void)json_get_str(msg, "host_sys", false, "", &sys);   /* validated above */
	(void)json_get_str(msg, "host_sys_usage", false, "", &usage);
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

	cJSON *reply = ipc_msg_new(IPC_T_SESSION_STARTED, id);
	if (reply && !cJSON_AddNumberToObject(reply, "session", (double)s->id)) {
		cJSON_Delete(reply);
		reply = NULL;
	}
	client_send(c, reply);
}

void session_request_stop(struct client *c, const cJSON *msg, uint64_t id)
{
	uint64_t sid;
	struct session *s;

	if (json_get_u64(msg, "session", 1, JSON_MAX_INT, true, 0, &sid) < 0) {
		client_send_error(c, id, "bad_request", "'session' must be a positive integer");
		return;
	}
	TAILQ_FOREACH(s, &c->srv->sessions, link)
		if (s->id == sid && s->owner == c)
			break;
	if (!s) {
		client_send_error(c, id, "not_found", "no session %" PRIu64 " on this connection", sid);
		return;
	}
	session_end(s, SESSION_REASON_STOP, 0, true, id);
}
