/* The server: the listening Unix socket, the signals and the idle timer,
 * one table dispatching requests, and shutdown.  It is the top of the
 * daemon: it calls down into sessions (session.c), agents (agents.c) and
 * connections (client.c), and wires their upward news through one table of
 * hooks (server_hooks), so no lower file calls up into a higher one.
 *
 * A message with a wrong protocol version, or a request before hello, gets
 * one error frame and the connection is closed (client_fail); the framing
 * and the limits on what a peer can make us hold are client.c's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "daemon/msprofd.h"

/* --- requests ----------------------------------------------------------- */

static void req_hello(struct client *c, const cJSON *msg, uint64_t id)
{
	const char *who = "";
	bool agent = json_get_str(msg, "client", false, "", &who) == 0 && streq(who, "agent");

	/* A second hello is answered the same way: harmless, and it lets a
	 * client that connected through a library ask for the daemon's pid.
	 * Only the first one can make the connection an agent's. */
	if (c->state == CLIENT_NEW) {
		c->state = CLIENT_READY;
		uv_timer_stop(&c->timer);
		if (agent) {
			agent_hello(c, msg, id);
			return;
		}
		if (client_admit(c) < 0) {
			client_fail(c, id, IPC_E_LIMIT, "too many clients (%u), each with a session or claim; "
				    "MSPROFD_MAX_CLIENTS raises the limit", c->srv->max_clients);
			return;
		}
	} else if (agent && !c->agent) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "a connection becomes an agent's with its first hello only");
		return;
	}
	client_send_hello(c, id);
}

static void req_status(struct client *c, const cJSON *msg, uint64_t id)
{
	struct server *srv = c->srv;
	cJSON *r = ipc_msg_new(IPC_T_STATUS, id);
	if (r && (!cJSON_AddNumberToObject(r, "sessions", srv->n_sessions) ||
		  !cJSON_AddNumberToObject(r, "clients", srv->n_clients) ||
		  !cJSON_AddNumberToObject(r, "agents", srv->n_agents) ||
		  !cJSON_AddNumberToObject(r, "pending", srv->n_pending) ||
		  !cJSON_AddNumberToObject(r, "uptime_s",
					   (double)((mono_ns() - srv->start_ns) / NSEC_PER_SEC)) ||
		  !sessions_add_sampled(srv, c, r))) {
		cJSON_Delete(r);
		r = NULL;
	}
	client_send(c, r);
}

static void req_shutdown(struct client *c, const cJSON *msg, uint64_t id)
{
	char why[64];
	cJSON *r = ipc_msg_new(IPC_T_SHUTDOWN, id);
	if (r && !cJSON_AddBoolToObject(r, "ok", 1)) {
		cJSON_Delete(r);
		r = NULL;
	}
	client_send(c, r);
	/* The reply is flushed by the drain that shutdown starts. */
	snprintf(why, sizeof(why), "shutdown requested by pid %d", (int)c->pid);
	server_shutdown(c->srv, why);
}

static const struct request_handler {
	enum ipc_type type;
	void (*handle)(struct client *c, const cJSON *msg, uint64_t id);
} request_handlers[] = {
	{ IPC_T_HELLO, req_hello },
	{ IPC_T_STATUS, req_status },
	{ IPC_T_SHUTDOWN, req_shutdown },
	{ IPC_T_SESSION_START, session_request_start },
	{ IPC_T_SESSION_STOP, session_request_stop },
	{ IPC_T_AGENTS, agents_request_list },
	{ IPC_T_CLAIM, claim_request },
	{ IPC_T_DUMP, session_request_dump },
};

static void client_handle(struct client *c, const cJSON *msg)
{
	enum ipc_type type;
	uint64_t id = 0;

	int r = ipc_msg_check(msg, &type, &id);
	if (r == -EPROTONOSUPPORT) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "v");
		char theirs[32] = "missing";
		if (cJSON_IsNumber(v))
			snprintf(theirs, sizeof(theirs), "%g", v->valuedouble);
		else if (v)
			snprintf(theirs, sizeof(theirs), "not a number");
		/* Best effort: echo the id so the client can match the reply. */
		(void)json_get_u64(msg, "id", 0, JSON_MAX_INT, false, 0, &id);
		client_fail(c, id, IPC_E_VERSION,
			    "protocol version %s is not supported: msprofd %s speaks version %d; "
			    "use msprof and msprofd from the same release",
			    theirs, MSPROF_VERSION, IPC_PROTO_VERSION);
		return;
	}
	if (r < 0) {
		client_fail(c, 0, IPC_E_BAD_REQUEST, "a message needs a string 'type' and a non-negative integer 'id'");
		return;
	}
	const char *name = cJSON_GetObjectItemCaseSensitive(msg, "type")->valuestring;
	if (c->state == CLIENT_NEW && type != IPC_T_HELLO) {
		client_fail(c, id, IPC_E_NO_HELLO, "the first message must be 'hello', not '%.64s'", name);
		return;
	}
	/* An agent's connection answers our requests and may ask for status;
	 * it never drives sessions (agents.c). */
	if (c->agent && type != IPC_T_HELLO && type != IPC_T_STATUS) {
		agent_handle(c, type, msg, id);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(request_handlers); i++)
		if (request_handlers[i].type == type) {
			request_handlers[i].handle(c, msg, id);
			return;
		}
	/* Known replies and events are not requests either.  The connection
	 * stays open: a newer client may probe for what we support. */
	client_send_error(c, id, IPC_E_UNKNOWN_TYPE, "unknown request type '%.64s'", name);
}

/* --- the server --------------------------------------------------------- */

/* A connection is closing: the sessions it owns end (their files are
 * closed readable) and its agent, if it was one, goes. */
static void on_client_closing(struct client *c)
{
	sessions_end(c->srv, c, SESSION_REASON_CLIENT_GONE);
	claims_end(c);
	agent_gone(c);
}

static const struct server_hooks hooks = {
	.client_message = client_handle,
	.client_closing = on_client_closing,
	.agent_offered = sessions_offer_agent,
	.agent_started = session_agent_started,
	.agent_dump = sessions_agent_dump,
	.agent_stopped = session_agent_stopped,
	.agent_gone = session_agent_gone,
	.agent_refused = sessions_agent_refused,
	.load_changed = server_update_idle,
};

static void on_connection(uv_stream_t *l, int status)
{
	if (status < 0) {
		log_msg("cannot accept a connection: %s", uv_strerror(status));
		return;
	}
	client_accept(l->data, l);
}

static void on_signal(uv_signal_t *h, int signum)
{
	char why[64];
	snprintf(why, sizeof(why), "received SIG%s", sigabbrev_np(signum));
	server_shutdown(h->data, why);
}

static void on_idle(uv_timer_t *t)
{
	struct server *srv = t->data;
	char why[64];
	snprintf(why, sizeof(why), "idle for %u s", srv->idle_timeout_s);
	server_shutdown(srv, why);
}

void server_update_idle(struct server *srv)
{
	if (srv->stopping || srv->idle_timeout_s == 0)
		return;
	/* Agents keep us: they are what an attach (msprof --pid) finds. */
	if (srv->n_pending == 0 && srv->n_clients == 0 && srv->n_sessions == 0 && srv->n_agents == 0) {
		if (!uv_is_active((uv_handle_t *)&srv->idle_timer))
			uv_timer_start(&srv->idle_timer, on_idle, (uint64_t)srv->idle_timeout_s * 1000, 0);
	} else {
		uv_timer_stop(&srv->idle_timer);
	}
}

void server_remove_files(struct server *srv)
{
	struct stat st;
	char buf[32];

	/* The pid file first: once the socket stops answering, a client may
	 * start a successor, whose files we must not remove. */
	if (srv->pid_path) {
		_cleanup_close_ int fd = open(srv->pid_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (n > 0) {
			buf[n] = '\0';
			if (strtol(buf, NULL, 10) == (long)getpid())
				unlink(srv->pid_path);
		}
		free(srv->pid_path);
		srv->pid_path = NULL;
	}
	if (srv->sock_path) {
		if (lstat(srv->sock_path, &st) == 0 && st.st_dev == srv->sock_dev &&
		    st.st_ino == srv->sock_ino)
			unlink(srv->sock_path);
		free(srv->sock_path);
		srv->sock_path = NULL;
	}
}

static void server_close_handles(struct server *srv)
{
	if (!uv_is_closing((uv_handle_t *)&srv->listener))
		uv_close((uv_handle_t *)&srv->listener, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(srv->signals); i++)
		if (!uv_is_closing((uv_handle_t *)&srv->signals[i]))
			uv_close((uv_handle_t *)&srv->signals[i], NULL);
	if (!uv_is_closing((uv_handle_t *)&srv->idle_timer))
		uv_close((uv_handle_t *)&srv->idle_timer, NULL);
	if (!uv_is_closing((uv_handle_t *)&srv->accept_timer))
		uv_close((uv_handle_t *)&srv->accept_timer, NULL);
	sessions_close(srv);
}

void server_shutdown(struct server *srv, const char *why)
{
	struct client *c, *next;

	if (srv->stopping)
		return;
	srv->stopping = true;
	log_msg("%s: finishing %u session(s), exiting", why, srv->n_sessions);

	/* Sessions first and synchronously: their files get RAW_SESSION_END
	 * and their owners a session_ended event before anything closes. */
	sessions_end(srv, NULL, SESSION_REASON_SHUTDOWN);
	server_remove_files(srv);
	for (c = TAILQ_FIRST(&srv->clients); c; c = next) {
		next = TAILQ_NEXT(c, link);
		client_drain(c);
	}
	/* The embedded handles need no close callback: srv is freed after
	 * uv_run returns, when every callback has run. */
	server_close_handles(srv);
}

int server_new(uv_loop_t *loop, const struct server_config *cfg, struct server **ret)
{
	static const int signums[] = { SIGTERM, SIGINT, SIGHUP };
	struct stat st;
	int r;

	_Static_assert(ARRAY_SIZE(signums) == ARRAY_SIZE(((struct server *)NULL)->signals),
		       "one handle per signal");
	struct server *srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->loop = loop;
	srv->hooks = &hooks;
	srv->uid = geteuid();
	srv->idle_timeout_s = cfg->idle_timeout_s;
	srv->max_clients = cfg->max_clients ? cfg->max_clients : SERVER_MAX_CLIENTS_DEFAULT;
	srv->max_agents = cfg->max_agents ? cfg->max_agents : SERVER_MAX_AGENTS_DEFAULT;
	srv->max_pending = srv->max_clients + srv->max_agents;
	srv->start_ns = mono_ns();
	TAILQ_INIT(&srv->clients);
	TAILQ_INIT(&srv->sessions);
	srv->sock_path = strdup(cfg->sock_path);
	srv->pid_path = strdup(cfg->pid_path);

	uv_pipe_init(loop, &srv->listener, 0);
	srv->listener.data = srv;
	for (size_t i = 0; i < ARRAY_SIZE(srv->signals); i++) {
		uv_signal_init(loop, &srv->signals[i]);
		srv->signals[i].data = srv;
	}
	uv_timer_init(loop, &srv->idle_timer);
	srv->idle_timer.data = srv;
	uv_timer_init(loop, &srv->accept_timer);
	srv->accept_timer.data = srv;
	/* the devices, found while nobody waits: a session_start then answers
	 * without a driver call (sessions_init) */
	sessions_init(srv);
	if (!srv->sock_path || !srv->pid_path) {
		r = -ENOMEM;
		log_msg("cannot start: %s", strerror(-r));
		goto fail;
	}

	/* umask 077 while binding: the socket is never reachable by others,
	 * even for the instant before a chmod could have run. */
	mode_t old = umask(077);
	r = uv_pipe_bind(&srv->listener, cfg->sock_path);
	umask(old);
	if (r < 0) {
		log_msg("cannot bind '%s': %s", cfg->sock_path, uv_strerror(r));
		goto fail;
	}
	if (lstat(cfg->sock_path, &st) == 0) {
		srv->sock_dev = st.st_dev;
		srv->sock_ino = st.st_ino;
	}
	r = uv_listen((uv_stream_t *)&srv->listener, 128, on_connection);
	if (r < 0) {
		log_msg("cannot listen on '%s': %s", cfg->sock_path, uv_strerror(r));
		goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(signums); i++) {
		r = uv_signal_start(&srv->signals[i], on_signal, signums[i]);
		if (r < 0) {
			log_msg("cannot handle SIG%s: %s", sigabbrev_np(signums[i]), uv_strerror(r));
			goto fail;
		}
	}
	server_update_idle(srv);
	*ret = srv;
	return 0;

fail:
	/* Only remove the socket if we bound it. */
	if (!srv->sock_ino) {
		free(srv->sock_path);
		srv->sock_path = NULL;
	}
	free(srv->pid_path);
	srv->pid_path = NULL;
	server_remove_files(srv);
	server_close_handles(srv);
	uv_run(loop, UV_RUN_DEFAULT);
	server_free(srv);
	return r;
}

struct server *server_free(struct server *srv)
{
	if (!srv)
		return NULL;
	server_remove_files(srv);
	free(srv);
	return NULL;
}
