/* The socket server: one listening Unix socket, connections checked with
 * SO_PEERCRED, length-prefixed JSON decoded incrementally from each
 * connection's own buffer, and one table dispatching requests.
 *
 * A connection that breaks the protocol (bad frame, bad JSON, wrong version,
 * no hello) gets one error frame and is closed; nothing it sends can affect
 * another connection.  What a peer can make us hold is bounded: one frame
 * buffer per connection, IPC_MAX_CLIENTS connections, CLIENT_MAX_QUEUED bytes
 * of unread replies (reading pauses beyond it), and the session limits. */
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
#include "msprofd.h"

#define CLIENT_MAX_QUEUED (256U * 1024U)  /* unread reply bytes per client */
#define CLIENT_DRAIN_TIMEOUT_MS 1000      /* to flush a last frame */

static void client_close(struct client *c);

/* --- writing ------------------------------------------------------------ */

struct write_req {
	uv_write_t req;
	struct client *c;
	char *frame;
};

static void client_read_resume(struct client *c);

static void on_write(uv_write_t *req, int status)
{
	struct write_req *w = (struct write_req *)req;
	struct client *c = w->c;

	free(w->frame);
	free(w);
	c->pending_writes--;
	if (c->state == CLIENT_CLOSED)
		return; /* cancelled by uv_close; the close callback frees c */
	if (status < 0) {
		/* The peer went away; its read side reports EOF as well. */
		client_close(c);
		return;
	}
	if (c->state == CLIENT_DRAINING && c->pending_writes == 0)
		client_close(c);
	else if (c->throttled &&
		 uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) < CLIENT_MAX_QUEUED / 2)
		client_read_resume(c);
}

void client_send(struct client *c, cJSON *msg)
{
	_cleanup_json_ cJSON *m = msg;
	char *frame;
	size_t len;

	if (c->state == CLIENT_CLOSED || !m)
		return;
	int r = ipc_frame_encode(m, &frame, &len);
	if (r < 0) {
		log_msg("cannot encode a reply for client %u: %s", c->serial, strerror(-r));
		return;
	}
	struct write_req *w = malloc(sizeof(*w));
	if (!w) {
		free(frame);
		return;
	}
	w->c = c;
	w->frame = frame;
	uv_buf_t b = uv_buf_init(frame, (unsigned)len);
	r = uv_write(&w->req, (uv_stream_t *)&c->pipe, &b, 1, on_write);
	if (r < 0) {
		/* The callback never runs: free here.  Not closing here keeps
		 * callers (session_end inside a list walk) simple; a dead
		 * stream is reported to on_read, which closes. */
		log_msg("cannot write to client %u: %s", c->serial, uv_strerror(r));
		free(frame);
		free(w);
		return;
	}
	c->pending_writes++;
}

static cJSON *error_msg(uint64_t id, enum ipc_err code, const char *fmt, va_list ap)
{
	char text[512];
	vsnprintf(text, sizeof(text), fmt, ap);
	return ipc_error_new(id, code, text);
}

void client_send_error(struct client *c, uint64_t id, enum ipc_err code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cJSON *e = error_msg(id, code, fmt, ap);
	va_end(ap);
	client_send(c, e);
}

/* --- connection lifetime ------------------------------------------------ */

static void on_client_closed(uv_handle_t *h)
{
	struct client *c = h->data;
	if (--c->open_handles == 0) {
		free(c->buf);
		free(c);
	}
}

/* Close now: end the sessions it owns (their files are closed readable),
 * close both handles, and let the daemon go idle. */
static void client_close(struct client *c)
{
	struct server *srv = c->srv;

	if (c->state == CLIENT_CLOSED)
		return;
	c->state = CLIENT_CLOSED;
	sessions_end(srv, c, SESSION_REASON_CLIENT_GONE);
	agent_gone(c);
	TAILQ_REMOVE(&srv->clients, c, link);
	srv->n_clients--;
	uv_close((uv_handle_t *)&c->pipe, on_client_closed);
	uv_close((uv_handle_t *)&c->timer, on_client_closed);
	server_update_idle(srv);
}

static void on_client_timer(uv_timer_t *t);

/* Stop reading and close once what is queued has been written, or after
 * CLIENT_DRAIN_TIMEOUT_MS if the peer does not read it. */
static void client_drain(struct client *c)
{
	if (c->state == CLIENT_DRAINING || c->state == CLIENT_CLOSED)
		return;
	c->state = CLIENT_DRAINING;
	uv_read_stop((uv_stream_t *)&c->pipe);
	if (c->pending_writes == 0) {
		client_close(c);
		return;
	}
	uv_timer_start(&c->timer, on_client_timer, CLIENT_DRAIN_TIMEOUT_MS, 0);
}

/* A protocol violation: tell the peer why, log it once, close. */
void client_fail(struct client *c, uint64_t id, enum ipc_err code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cJSON *e = error_msg(id, code, fmt, ap);
	va_end(ap);
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(e, "message");
	log_msg("closing client %u (pid %d): %s: %s", c->serial, (int)c->pid, ipc_err_name(code),
		cJSON_IsString(text) ? text->valuestring : "?");
	client_send(c, e);
	client_drain(c);
}

static void on_client_timer(uv_timer_t *t)
{
	struct client *c = t->data;

	if (c->state == CLIENT_NEW)
		client_fail(c, 0, IPC_E_NO_HELLO, "no hello within %d ms", IPC_HELLO_TIMEOUT_MS);
	else if (c->state == CLIENT_DRAINING)
		client_close(c);
}

/* --- requests ----------------------------------------------------------- */

void server_hello_reply(struct client *c, uint64_t id)
{
	cJSON *r = ipc_msg_new(IPC_T_HELLO, id);
	if (r && (!cJSON_AddBoolToObject(r, "ok", 1) ||
		  !cJSON_AddNumberToObject(r, "daemon_pid", getpid()) ||
		  !cJSON_AddStringToObject(r, "version", MSPROF_VERSION))) {
		cJSON_Delete(r);
		r = NULL;
	}
	client_send(c, r);
}

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
	} else if (agent && !c->agent) {
		client_send_error(c, id, IPC_E_BAD_REQUEST, "a connection becomes an agent's with its first hello only");
		return;
	}
	server_hello_reply(c, id);
}

static void req_status(struct client *c, const cJSON *msg, uint64_t id)
{
	struct server *srv = c->srv;
	cJSON *r = ipc_msg_new(IPC_T_STATUS, id);
	if (r && (!cJSON_AddNumberToObject(r, "sessions", srv->n_sessions) ||
		  !cJSON_AddNumberToObject(r, "clients", srv->n_clients) ||
		  !cJSON_AddNumberToObject(r, "agents", srv->n_agents) ||
		  !cJSON_AddNumberToObject(r, "uptime_s",
					   (double)((mono_ns() - srv->start_ns) / NSEC_PER_SEC)))) {
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
	 * it never drives sessions (agent.c). */
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

/* Decode and handle every whole frame in the buffer. */
static void client_process(struct client *c)
{
	while ((c->state == CLIENT_NEW || c->state == CLIENT_READY) && !c->throttled) {
		size_t used = 0;
		cJSON *msg = NULL;
		int r = ipc_frame_decode(c->buf, c->len, &used, &msg);
		if (r == 0)
			return;
		if (r == -EMSGSIZE) {
			uint32_t n = (uint32_t)(unsigned char)c->buf[0] << 24 |
				     (uint32_t)(unsigned char)c->buf[1] << 16 |
				     (uint32_t)(unsigned char)c->buf[2] << 8 | (unsigned char)c->buf[3];
			client_fail(c, 0, IPC_E_TOO_BIG, "frame of %u bytes exceeds the limit of %u bytes",
				    n, IPC_MAX_MSG);
			return;
		}
		if (r == -EBADMSG) {
			if (!c->buf[0] && !c->buf[1] && !c->buf[2] && !c->buf[3])
				client_fail(c, 0, IPC_E_BAD_FRAME, "empty frame");
			else
				client_fail(c, 0, IPC_E_BAD_JSON, "frame is not a JSON object");
			return;
		}
		if (r < 0) {
			client_fail(c, 0, IPC_E_IO, "cannot decode frame: %s", strerror(-r));
			return;
		}
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		client_handle(c, msg);
		cJSON_Delete(msg);

		/* A peer that sends requests but does not read the replies
		 * stops being read until it does. */
		if (c->state != CLIENT_CLOSED &&
		    uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) > CLIENT_MAX_QUEUED) {
			c->throttled = true;
			uv_read_stop((uv_stream_t *)&c->pipe);
		}
	}
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct client *c = h->data;
	*buf = uv_buf_init(c->buf + c->len, (unsigned)(CLIENT_BUF_SIZE - c->len));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct client *c = s->data;

	if (n == UV_EOF || n == UV_ECONNRESET) {
		client_close(c);
		return;
	}
	if (n < 0) {
		log_msg("cannot read from client %u (pid %d): %s", c->serial, (int)c->pid,
			uv_strerror((int)n));
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	client_process(c);
}

static void client_read_resume(struct client *c)
{
	c->throttled = false;
	client_process(c);
	/* The frames already buffered may have filled the queue again: stay
	 * paused then, or the buffer fills while nothing is processed and
	 * the next read finds no room. */
	if ((c->state != CLIENT_NEW && c->state != CLIENT_READY) || c->throttled)
		return;
	int r = uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read);
	if (r < 0)
		client_close(c);
}

/* --- accepting ---------------------------------------------------------- */

/* Refuse a connection before it becomes a client: one error frame written
 * straight away (a fresh socket has room for it), then close. */
static _printf_(3, 4) void reject(struct client *c, enum ipc_err code, const char *fmt, ...)
{
	va_list ap;
	char *frame;
	size_t len;

	va_start(ap, fmt);
	_cleanup_json_ cJSON *e = error_msg(0, code, fmt, ap);
	va_end(ap);
	if (e && ipc_frame_encode(e, &frame, &len) == 0) {
		uv_buf_t b = uv_buf_init(frame, (unsigned)len);
		(void)uv_try_write((uv_stream_t *)&c->pipe, &b, 1);
		free(frame);
	}
	uv_close((uv_handle_t *)&c->pipe, on_client_closed);
}

static void on_connection(uv_stream_t *l, int status)
{
	struct server *srv = l->data;
	uv_os_fd_t fd;
	int r;

	if (status < 0) {
		log_msg("cannot accept a connection: %s", uv_strerror(status));
		return;
	}
	/* Until it passes the checks a connection is only this small struct
	 * with one handle; the frame buffer comes later. */
	struct client *c = calloc(1, sizeof(*c));
	if (!c) {
		log_msg("cannot accept a connection: %s", strerror(ENOMEM));
		return;
	}
	c->srv = srv;
	c->state = CLIENT_CLOSED;
	c->pipe.data = c;
	c->timer.data = c;
	c->open_handles = 1;
	uv_pipe_init(srv->loop, &c->pipe, 0);
	r = uv_accept(l, (uv_stream_t *)&c->pipe);
	if (r < 0) {
		log_msg("cannot accept a connection: %s", uv_strerror(r));
		uv_close((uv_handle_t *)&c->pipe, on_client_closed);
		return;
	}

	r = uv_fileno((uv_handle_t *)&c->pipe, &fd);
	if (r == 0)
		r = ipc_peer_cred(fd, &c->pid, &c->uid);
	if (r < 0) {
		log_msg("refused a connection: cannot read peer credentials: %s", strerror(-r));
		reject(c, IPC_E_BAD_REQUEST, "cannot read peer credentials");
		return;
	}
	/* The runtime directory should keep others out; this holds even when
	 * it does not (root made it, or someone loosened its mode). */
	if (c->uid != srv->uid) {
		log_msg("refused a connection from uid %u (pid %d): only uid %u may use this msprofd",
			(unsigned)c->uid, (int)c->pid, (unsigned)srv->uid);
		reject(c, IPC_E_DENIED, "uid %u may not use the msprofd of uid %u",
		       (unsigned)c->uid, (unsigned)srv->uid);
		return;
	}
	if (srv->n_clients >= IPC_MAX_CLIENTS) {
		log_msg("refused a connection from pid %d: %u clients connected", (int)c->pid,
			srv->n_clients);
		reject(c, IPC_E_LIMIT, "too many clients (%u)", IPC_MAX_CLIENTS);
		return;
	}
	c->buf = malloc(CLIENT_BUF_SIZE);
	if (!c->buf) {
		log_msg("refused a connection from pid %d: %s", (int)c->pid, strerror(ENOMEM));
		reject(c, IPC_E_IO, "out of memory");
		return;
	}

	c->serial = ++srv->next_client;
	c->state = CLIENT_NEW;
	uv_timer_init(srv->loop, &c->timer);
	c->open_handles = 2;
	TAILQ_INSERT_TAIL(&srv->clients, c, link);
	srv->n_clients++;
	server_update_idle(srv);

	uv_timer_start(&c->timer, on_client_timer, IPC_HELLO_TIMEOUT_MS, 0);
	r = uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read);
	if (r < 0) {
		log_msg("cannot read from client %u: %s", c->serial, uv_strerror(r));
		client_close(c);
	}
}

/* --- the server --------------------------------------------------------- */

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
	if (srv->n_clients == 0 && srv->n_sessions == 0 && srv->n_agents == 0) {
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
	srv->uid = geteuid();
	srv->idle_timeout_s = cfg->idle_timeout_s;
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
