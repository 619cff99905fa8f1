/* Agents and claims: the registry of agent connections (libmsprof_agent.so
 * inside profiled processes), the daemon's requests to them, the "agents"
 * list and the claims of interactive clients.
 *
 * An agent says hello with "client":"agent" and its pid; the pid must be
 * the one SO_PEERCRED reported for the connection, so a process cannot
 * speak for another.  From then on the connection is that process's agent:
 * it may answer our requests and ask for status, nothing else (an agent
 * never starts, stops or claims sessions).  Agents do not count against
 * the client limit but against srv->max_agents; until its hello an agent is
 * an ordinary new connection.  An agent turned away at the limit is named
 * to the sessions whose tree holds it (agent_refused), so that the owner
 * can say whose annotations are missing.
 *
 * Requests to an agent carry ids from srv->next_agent_req; the agent echoes
 * them.  Only the reply to the one pending request counts: a late
 * agent_stopped for a session that already gave up on it, or anything with
 * an unknown id, is ignored.  One stream carries both directions in order,
 * so an agent_start sent right after an agent_stop reaches the agent after
 * it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/msprofd.h"
#include "common/proc-owner.h"
#include "common/step-schedule.h"
#include "ipc/selectors.h"

#define PID_MAX_LIMIT 4194304

/* A name from a peer: at most max - 1 bytes, no control characters (they
 * would reach log lines and terminals). */
static bool text_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	if (n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static struct client *claimant(struct server *srv, const struct client *self, const struct agent *a,
			       pid_t *ret_pid);
static void send_schedule(struct agent *a, const char *spec);

void agent_hello(struct client *c, const cJSON *msg, uint64_t id)
{
	struct server *srv = c->srv;
	const char *name = "", *features = "";
	uint64_t pid, ppid, rank1;

	if (json_get_u64(msg, "pid", 1, PID_MAX_LIMIT, true, 0, &pid) < 0 ||
	    json_get_u64(msg, "ppid", 0, PID_MAX_LIMIT, false, 0, &ppid) < 0) {
		client_fail(c, id, IPC_E_BAD_REQUEST, "an agent hello needs 'pid' (and 'ppid') as pids");
		return;
	}
	if ((pid_t)pid != c->pid) {
		client_fail(c, id, IPC_E_DENIED, "hello says pid %" PRIu64 " but the connection comes from pid %d",
			    pid, (int)c->pid);
		return;
	}
	/* rank: -1 (none) or a rank id; JSON numbers below 0 need a look of
	 * their own since json_get_u64 takes non-negative ones */
	const cJSON *rk = cJSON_GetObjectItemCaseSensitive(msg, "rank");
	rank1 = 0;
	if (rk && !(cJSON_IsNumber(rk) && rk->valuedouble == -1) &&
	    json_value_u64(rk, 0, INT32_MAX, &rank1) < 0) {
		client_fail(c, id, IPC_E_BAD_REQUEST, "'rank' must be -1 or a rank id in 0..%d", INT32_MAX);
		return;
	}
	int64_t rank = rk && cJSON_IsNumber(rk) && rk->valuedouble == -1 ? -1 : rk ? (int64_t)rank1 : -1;
	if (json_get_str(msg, "name", false, "", &name) < 0 || !text_ok(name, AGENT_NAME_MAX) ||
	    json_get_str(msg, "features", false, "", &features) < 0 || !text_ok(features, AGENT_FEATURES_MAX)) {
		client_fail(c, id, IPC_E_BAD_REQUEST, "'name' and 'features' must be strings of at most %d and %d "
			    "bytes without control characters", AGENT_NAME_MAX - 1, AGENT_FEATURES_MAX - 1);
		return;
	}
	if (srv->n_agents >= srv->max_agents) {
		srv->hooks->agent_refused(srv, (pid_t)pid, name);
		client_fail(c, id, IPC_E_LIMIT, "too many agents (%u); MSPROFD_MAX_AGENTS raises the limit",
			    srv->max_agents);
		return;
	}
	struct agent *a = calloc(1, sizeof(*a));
	if (!a) {
		client_fail(c, id, IPC_E_IO, "out of memory");
		return;
	}
	a->c = c;
	a->pid = (pid_t)pid;
	a->ppid = (pid_t)ppid;
	a->rank = rank;
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(a->features, sizeof(a->features), "%s", features);
	a->hello_ns = mono_ns();
	c->agent = a;
	client_count_as(c, &srv->n_agents);
	log_msg("agent of pid %d ('%s', rank %" PRId64 ", features '%s') connected", a->pid, a->name,
		a->rank, a->features);
	client_send_hello(c, id);
	/* a process of a tree claimed with a schedule: armed as it comes */
	struct client *owner = claimant(srv, c, a, NULL);
	if (owner && owner->schedule[0])
		send_schedule(a, owner->schedule);
	srv->hooks->agent_offered(srv, a);
	srv->hooks->load_changed(srv);
}

void agent_gone(struct client *c)
{
	struct agent *a = c->agent;
	if (!a)
		return;
	if (a->session)
		c->srv->hooks->agent_gone(a->session, a);
	log_msg("agent of pid %d disconnected", a->pid);
	c->agent = NULL;
	free(a);
}

static cJSON *agent_request(struct agent *a, enum ipc_type type, uint64_t session_id)
{
	struct server *srv = a->c->srv;
	uint64_t id = ++srv->next_agent_req;
	if (id > JSON_MAX_INT)
		id = srv->next_agent_req = 1;
	cJSON *m = ipc_msg_new(type, id);
	if (m && !cJSON_AddNumberToObject(m, "session", (double)session_id)) {
		cJSON_Delete(m);
		return NULL;
	}
	a->pending_id = id;
	a->sent_ns = mono_ns();
	return m;
}

void agent_send_start(struct agent *a, struct session *s, uint64_t session_id, const cJSON *start)
{
	cJSON *m = agent_request(a, IPC_T_AGENT_START, session_id);
	/* the settings every agent of the session gets, copied in */
	const cJSON *item;
	cJSON_ArrayForEach(item, start) {
		if (!m)
			break;
		cJSON *dup = cJSON_Duplicate(item, 1);
		if (!dup) {
			cJSON_Delete(m);
			m = NULL;
			break;
		}
		cJSON_AddItemToObject(m, item->string, dup);
	}
	a->state = AGENT_STARTING;
	a->session = s;
	a->session_id = session_id;
	client_send(a->c, m);
}

void agent_send_stop(struct agent *a, uint64_t sid)
{
	a->state = AGENT_STOPPING;
	client_send(a->c, agent_request(a, IPC_T_AGENT_STOP, sid));
}

/* The reply to our pending request, or NULL when it is not (late, or an
 * id we never used). */
static bool is_pending(const struct agent *a, uint64_t id)
{
	return id != 0 && id == a->pending_id;
}

static bool has_claim(const struct client *c, uint32_t pid);

/* The parent of pid (/proc/PID/stat field 4), 0 when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the comm may hold anything but this last one */
	int ppid = 0;
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

/* The client that claimed a's process or its nearest claimed ancestor (64
 * generations at most), and *ret_pid that pid; NULL when none.  Only
 * claimed is looked at when it is given (a closing client's own). */
static struct client *claimant_walk(struct server *srv, const struct client *self, const struct client *claimed,
				    const struct agent *a, pid_t *ret_pid)
{
	pid_t p = a->pid;
	for (int depth = 0; p > 1 && depth < 64; depth++) {
		struct client *owner = claimed ? (has_claim(claimed, (uint32_t)p) ? (struct client *)claimed : NULL)
					       : claim_owner(srv, self, (uint32_t)p);
		if (owner) {
			if (ret_pid)
				*ret_pid = p;
			return owner;
		}
		p = depth == 0 ? a->ppid : parent_of(p);
	}
	return NULL;
}

static struct client *claimant(struct server *srv, const struct client *self, const struct agent *a, pid_t *ret_pid)
{
	return claimant_walk(srv, self, NULL, a, ret_pid);
}

/* Arm (or with "" disarm) a's --schedule. */
static void send_schedule(struct agent *a, const char *spec)
{
	cJSON *m = ipc_msg_new(IPC_T_AGENT_SCHEDULE, 0);
	if (m && !cJSON_AddStringToObject(m, "schedule", spec)) {
		cJSON_Delete(m);
		m = NULL;
	}
	log_msg("agent of pid %d: %s '%s'", a->pid, *spec ? "schedule" : "schedule ended", spec);
	client_send(a->c, m);
}

/* The agents of c's claimed trees: spec (a new claim's schedule, or ""
 * as c goes). */
static void schedule_claimed(struct client *c, const char *spec)
{
	struct client *o;
	TAILQ_FOREACH(o, &c->srv->clients, link)
		if (o->agent && o->state == CLIENT_READY && claimant_walk(c->srv, o, c, o->agent, NULL))
			send_schedule(o->agent, spec);
}

void claims_end(struct client *c)
{
	if (c->schedule[0])
		schedule_claimed(c, "");
	c->schedule[0] = '\0';
}

/* An agent's msprofStart/msprofStop: to the client that claimed its
 * process or the nearest ancestor of it (dynamic mode claims the process it
 * drives; the job's children ask too), as capture_asked. */
static void capture(struct client *c, const struct agent *a, const cJSON *msg)
{
	bool start = false;
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(msg, "steps");
	const cJSON *dump = cJSON_GetObjectItemCaseSensitive(msg, "dump");
	int64_t lo, hi;
	if (dump) {
		/* the flight recorder's triggers seen inside the job */
		const char *detail = NULL;
		if (!cJSON_IsString(dump) || !ipc_dump_trigger_ok(dump->valuestring) ||
		    json_get_str(msg, "detail", false, NULL, &detail) < 0 || (detail && strlen(detail) > 200)) {
			log_msg("agent of pid %d: a dump request with a bad 'dump' or 'detail': ignored", a->pid);
			return;
		}
		if (!c->srv->hooks->agent_dump(c->srv, a->session, a->pid, dump->valuestring, detail))
			log_msg("agent of pid %d asked for a dump (%s): no flight recorder covers it", a->pid,
				dump->valuestring);
		return;
	}
	if (json_get_bool(msg, "start", true, false, &start) < 0) {
		log_msg("agent of pid %d: a capture request without 'start': ignored", a->pid);
		return;
	}
	if (steps && (!cJSON_IsString(steps) || ipc_parse_step_range(steps->valuestring, &lo, &hi) < 0)) {
		log_msg("agent of pid %d: a capture request whose 'steps' is not \"A-B\": ignored", a->pid);
		return;
	}
	pid_t p;
	struct client *owner = claimant(c->srv, c, a, &p);
	if (!owner) {
		log_msg("agent of pid %d asked to %s a collection: no interactive msprof drives it", a->pid,
			start ? "start" : "stop");
		return;
	}
	cJSON *ev = ipc_msg_new(IPC_T_CAPTURE_ASKED, 0);
	if (ev && (!cJSON_AddNumberToObject(ev, "pid", p) || !cJSON_AddNumberToObject(ev, "by", a->pid) ||
		   !cJSON_AddBoolToObject(ev, "start", start) ||
		   (steps && !cJSON_AddStringToObject(ev, "steps", steps->valuestring)))) {
		cJSON_Delete(ev);
		ev = NULL;
	}
	client_send(owner, ev);
}

void agent_handle(struct client *c, enum ipc_type type, const cJSON *msg, uint64_t id)
{
	struct agent *a = c->agent;
	const char *name = ipc_type_name(type);

	switch (type) {
	case IPC_T_AGENT_STARTED:
		if (!is_pending(a, id) || a->state != AGENT_STARTING)
			return;
		a->pending_id = 0;
		a->state = AGENT_RECORDING;
		if (a->session)
			c->srv->hooks->agent_started(a->session, a);
		return;
	case IPC_T_AGENT_STOPPED:
		if (!is_pending(a, id) || a->state != AGENT_STOPPING)
			return;
		a->pending_id = 0;
		a->state = AGENT_IDLE;
		if (a->session) {
			struct session *s = a->session;
			a->session = NULL;
			c->srv->hooks->agent_stopped(s, a, msg, NULL);
		}
		return;
	case IPC_T_ERROR: {
		/* The agent refused our request (cannot write into the PROF
		 * dir, ...): that session gets no data from it. */
		if (!is_pending(a, id))
			return;
		const char *text = "?";
		(void)json_get_str(msg, "message", false, "?", &text);
		char why[200];
		snprintf(why, sizeof(why), "the agent refused %s: %.150s",
			 a->state == AGENT_STARTING ? "to start" : "to stop", text);
		a->pending_id = 0;
		a->state = AGENT_IDLE;
		log_msg("agent of pid %d: %s", a->pid, why);
		if (a->session) {
			struct session *s = a->session;
			a->session = NULL;
			c->srv->hooks->agent_stopped(s, a, NULL, why);
		}
		return;
	}
	case IPC_T_CAPTURE:
		capture(c, a, msg);
		return;
	case IPC_T_STATUS:
	case IPC_T_HELLO:
		break; /* server.c answers these */
	default:
		client_send_error(c, id, IPC_E_DENIED, "an agent connection cannot send '%.64s'",
				  name ? name : "?");
		return;
	}
}

/* --- the agents list ------------------------------------------------------ */

/* "recording" from agent_start on, while a session drives it (proto.h has
 * two states; session_started is sent once the agent answered). */
static const char *state_name(const struct agent *a)
{
	return a->session ? "recording" : "idle";
}

void agents_request_list(struct client *c, const cJSON *msg, uint64_t id)
{
	struct client *o;
	cJSON *r = ipc_msg_new(IPC_T_AGENTS, id);
	cJSON *list = r ? cJSON_AddArrayToObject(r, "agents") : NULL;
	bool ok = list != NULL;

	/* Entries take about 100 bytes and at most 300: past what fits in
	 * IPC_MAX_MSG the others are counted ("unlisted"). */
	size_t size = 256;
	unsigned unlisted = 0;
	TAILQ_FOREACH(o, &c->srv->clients, link) {
		const struct agent *a = o->agent;
		if (!ok)
			break;
		if (!a || o->state != CLIENT_READY)
			continue;
		size += 128 + strlen(a->name) + strlen(a->features);
		if (size > IPC_MAX_MSG) {
			unlisted++;
			continue;
		}
		cJSON *e = cJSON_CreateObject();
		ok = e && cJSON_AddItemToArray(list, e) &&
		     cJSON_AddNumberToObject(e, "pid", a->pid) &&
		     cJSON_AddNumberToObject(e, "ppid", a->ppid) &&
		     cJSON_AddStringToObject(e, "name", a->name) &&
		     cJSON_AddNumberToObject(e, "rank", (double)a->rank) &&
		     cJSON_AddStringToObject(e, "state", state_name(a)) &&
		     cJSON_AddNumberToObject(e, "session", a->session ? (double)a->session_id : 0) &&
		     cJSON_AddStringToObject(e, "features", a->features);
	}
	if (ok && unlisted)
		ok = cJSON_AddNumberToObject(r, "unlisted", unlisted);
	if (!ok) {
		cJSON_Delete(r);
		client_send_error(c, id, IPC_E_IO, "out of memory");
		return;
	}
	client_send(c, r);
}

/* --- claims ----------------------------------------------------------------- */

static bool has_claim(const struct client *c, uint32_t pid)
{
	for (unsigned i = 0; i < c->n_claims; i++)
		if (c->claims[i] == pid)
			return true;
	return false;
}

struct client *claim_owner(struct server *srv, const struct client *self, uint32_t pid)
{
	struct client *o;
	TAILQ_FOREACH(o, &srv->clients, link)
		if (o != self && o->state != CLIENT_CLOSED && has_claim(o, pid))
			return o;
	return NULL;
}

static bool add_refusal(cJSON *refused, uint64_t pid, enum ipc_err code, const char *message)
{
	cJSON *e = cJSON_CreateObject();
	return e && cJSON_AddItemToArray(refused, e) && cJSON_AddNumberToObject(e, "pid", (double)pid) &&
	       cJSON_AddStringToObject(e, "code", ipc_err_name(code)) &&
	       cJSON_AddStringToObject(e, "message", message);
}

void claim_request(struct client *c, const cJSON *msg, uint64_t id)
{
	const cJSON *pids = cJSON_GetObjectItemCaseSensitive(msg, "pids"), *item;
	int n = cJSON_GetArraySize(pids);
	char why[256];

	if (!cJSON_IsArray(pids) || n < 1 || n > CLIENT_MAX_CLAIMS) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "'pids' must be an array of 1 to %d pids",
				  CLIENT_MAX_CLAIMS);
		return;
	}
	const char *spec = NULL;
	struct step_schedule sc;
	if (json_get_str(msg, "schedule", false, NULL, &spec) < 0 ||
	    (spec && (strlen(spec) >= sizeof c->schedule || step_schedule_parse(spec, &sc) < 0))) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "'schedule' must be --schedule's form, at most %zu bytes "
				  "(skip_first=S,wait=W,warmup=U,active=A,repeat=R,start_step=N,deadline=D)",
				  sizeof c->schedule - 1);
		return;
	}
	cJSON_ArrayForEach(item, pids) {
		uint64_t pid;
		if (json_value_u64(item, 1, PID_MAX_LIMIT, &pid) < 0) {
			client_send_error(c, id, IPC_E_BAD_REQUEST, "'pids' must hold integers in 1..%d",
					  PID_MAX_LIMIT);
			return;
		}
	}
	_cleanup_json_ cJSON *r = ipc_msg_new(IPC_T_CLAIMED, id);
	cJSON *got = r ? cJSON_AddArrayToObject(r, "pids") : NULL;
	cJSON *refused = r ? cJSON_AddArrayToObject(r, "refused") : NULL;
	bool ok = got && refused;

	cJSON_ArrayForEach(item, pids) {
		if (!ok)
			break;
		uint32_t pid = (uint32_t)item->valuedouble;
		struct client *owner;
		int k = proc_check_owner(pid, c->uid, why, sizeof(why));
		if (k < 0) {
			ok = add_refusal(refused, pid, k == -ESRCH ? IPC_E_NOT_FOUND : IPC_E_DENIED, why);
		} else if ((owner = claim_owner(c->srv, c, pid))) {
			log_msg("pid %d may not claim pid %u: claimed by pid %d", (int)c->pid, pid, (int)owner->pid);
			ok = add_refusal(refused, pid, IPC_E_BUSY, CLAIM_BUSY_MESSAGE);
		} else if (has_claim(c, pid)) {
			ok = cJSON_AddItemToArray(got, cJSON_CreateNumber(pid));
		} else if (c->n_claims >= CLIENT_MAX_CLAIMS) {
			snprintf(why, sizeof(why), "this connection holds %d claims already", CLIENT_MAX_CLAIMS);
			ok = add_refusal(refused, pid, IPC_E_DENIED, why);
		} else {
			c->claims[c->n_claims++] = pid;
			ok = cJSON_AddItemToArray(got, cJSON_CreateNumber(pid));
		}
	}
	if (!ok) {
		client_send_error(c, id, IPC_E_IO, "out of memory");
		return;
	}
	client_send(c, TAKE_PTR(r));
	/* the agents of the trees claimed so far follow the schedule */
	if (spec && strcmp(spec, c->schedule) != 0) {
		snprintf(c->schedule, sizeof c->schedule, "%s", spec);
		schedule_claimed(c, spec);
	}
}
