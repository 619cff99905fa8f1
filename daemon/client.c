/* Connections: one per peer that passed the check at accept (SO_PEERCRED
 * uid), with its own frame buffer, length-prefixed JSON decoded
 * incrementally from it, replies queued with back-pressure, and a close
 * that always runs once.
 *
 * A connection that breaks the protocol (bad frame, bad JSON, no hello in
 * time) gets one error frame and is closed; nothing it sends can affect
 * another connection.  What a peer can make us hold is bounded: one frame
 * buffer per connection, srv->max_pending connections without a hello,
 * max_clients clients and max_agents agents, CLIENT_MAX_QUEUED bytes of
 * unread replies (reading pauses beyond it).
 *
 * Idle connections cannot lock msprof out.  One without a hello is closed
 * after IPC_HELLO_TIMEOUT_MS.  While max_pending are waiting, another is
 * not accepted until one of them leaves (said hello, or closed) or the
 * oldest has had PENDING_GRACE_NS, when it is closed for the new one (a
 * peer that connects says hello at once).  A storm of connections (a job
 * starting hundreds of processes at once) so waits in the kernel's
 * backlog, each hello read in turn, rather than being turned away to ask
 * again, which kept msprofd accepting and refusing the same agents faster
 * than it read any hello.
 * A client past max_clients gets in by closing the client idle longest
 * that holds no session and no claim; only when every client holds one is
 * it refused.
 *
 * This file is the bottom of the daemon's request path: what a message
 * means, and what a closing connection ends, is decided above it and
 * reached through srv->hooks (server.c sets them). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "daemon/msprofd.h"

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

/* How long a connection without a hello is kept before a new one may
 * take its place. */
#define PENDING_GRACE_NS (1000ULL * NSEC_PER_MSEC)

static void on_accept_timer(uv_timer_t *t)
{
	struct server *srv = t->data;
	if (!srv->accept_held || srv->stopping || uv_is_closing((uv_handle_t *)&srv->listener))
		return;
	srv->accept_held = false;
	client_accept(srv, (uv_stream_t *)&srv->listener);
}

/* One of the connections without a hello leaves them (said hello, or
 * closes): the one held back comes in, from the loop's next turn rather
 * than from inside a close. */
static void pending_left(struct server *srv)
{
	if (srv->accept_held && !srv->stopping)
		uv_timer_start(&srv->accept_timer, on_accept_timer, 0, 0);
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
	srv->hooks->client_closing(c);
	TAILQ_REMOVE(&srv->clients, c, link);
	if (c->count == &srv->n_pending)
		pending_left(srv);
	(*c->count)--;
	uv_close((uv_handle_t *)&c->pipe, on_client_closed);
	uv_close((uv_handle_t *)&c->timer, on_client_closed);
	srv->hooks->load_changed(srv);
}

static void on_client_timer(uv_timer_t *t);

/* Stop reading and close once what is queued has been written, or after
 * CLIENT_DRAIN_TIMEOUT_MS if the peer does not read it. */
void client_drain(struct client *c)
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

void client_send_hello(struct client *c, uint64_t id)
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
		c->last_ns = mono_ns();
		c->srv->hooks->client_message(c, msg);
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

/* Write message e straight away if the socket takes it (a fresh socket
 * has room; a peer that sends nothing reads nothing either): for a
 * connection about to be closed. */
static void write_now(struct client *c, const cJSON *e)
{
	char *frame;
	size_t len;
	if (e && ipc_frame_encode(e, &frame, &len) == 0) {
		uv_buf_t b = uv_buf_init(frame, (unsigned)len);
		(void)uv_try_write((uv_stream_t *)&c->pipe, &b, 1);
		free(frame);
	}
}

/* Refuse a connection before it becomes a client: one error frame, then
 * close. */
static _printf_(3, 4) void reject(struct client *c, enum ipc_err code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_json_ cJSON *e = error_msg(0, code, fmt, ap);
	va_end(ap);
	write_now(c, e);
	uv_close((uv_handle_t *)&c->pipe, on_client_closed);
}

/* Close c now to make room for another: one error frame, logged. */
static _printf_(3, 4) void client_evict(struct client *c, enum ipc_err code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_json_ cJSON *e = error_msg(0, code, fmt, ap);
	va_end(ap);
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(e, "message");
	log_msg("closing client %u (pid %d): %s", c->serial, (int)c->pid,
		cJSON_IsString(text) ? text->valuestring : "?");
	write_now(c, e);
	client_close(c);
}

void client_count_as(struct client *c, unsigned *count)
{
	if (c->count == &c->srv->n_pending)
		pending_left(c->srv);
	(*c->count)--;
	c->count = count;
	(*count)++;
}

/* Is c a client (not an agent, not closing) that holds nothing: no
 * session, no claim?  Closing it loses nobody's data. */
static bool client_idle(const struct client *c)
{
	return c->state == CLIENT_READY && !c->agent && c->count == &c->srv->n_clients &&
	       c->n_sessions == 0 && c->n_claims == 0;
}

int client_admit(struct client *c)
{
	struct server *srv = c->srv;
	struct client *o, *victim = NULL;

	if (srv->n_clients < srv->max_clients) {
		client_count_as(c, &srv->n_clients);
		return 0;
	}
	TAILQ_FOREACH(o, &srv->clients, link)
		if (o != c && client_idle(o) && (!victim || o->last_ns < victim->last_ns))
			victim = o;
	if (!victim)
		return -EUSERS;
	client_evict(victim, IPC_E_LIMIT, "closed after %.1f s idle to make room for another client "
		     "(the limit is %u clients; MSPROFD_MAX_CLIENTS raises it)",
		     (double)(mono_ns() - victim->last_ns) / 1e9, srv->max_clients);
	client_count_as(c, &srv->n_clients);
	return 0;
}

void client_accept(struct server *srv, uv_stream_t *l)
{
	uv_os_fd_t fd;
	int r;

	/* Room among those without a hello.  None: the connection stays
	 * where libuv holds it, not taken, and libuv stops listening until
	 * it is (uv_accept); pending_left takes it when one of them leaves.
	 * The oldest of them, the first in accept order, has had the longest
	 * to say it: once it had PENDING_GRACE_NS it is closed for the new
	 * one (the timer comes back here then).  Without one in CLIENT_NEW
	 * (all are refusals being written) it is one of those that leaves. */
	if (srv->n_pending >= srv->max_pending) {
		struct client *o;
		TAILQ_FOREACH(o, &srv->clients, link)
			if (o->state == CLIENT_NEW)
				break;
		uint64_t age = o ? mono_ns() - o->last_ns : 0;
		if (!o || age < PENDING_GRACE_NS) {
			srv->accept_held = true;
			uint64_t wait = PENDING_GRACE_NS - age;
			uv_timer_start(&srv->accept_timer, on_accept_timer,
				       (wait + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC, 0);
			return;
		}
		client_evict(o, IPC_E_NO_HELLO, "no hello after %.1f s, closed to make room for a new "
			     "connection (%u without a hello)", (double)age / 1e9, srv->max_pending);
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
	c->buf = malloc(CLIENT_BUF_SIZE);
	if (!c->buf) {
		log_msg("refused a connection from pid %d: %s", (int)c->pid, strerror(ENOMEM));
		reject(c, IPC_E_IO, "out of memory");
		return;
	}

	c->serial = ++srv->next_client;
	c->state = CLIENT_NEW;
	c->last_ns = mono_ns();
	uv_timer_init(srv->loop, &c->timer);
	c->open_handles = 2;
	TAILQ_INSERT_TAIL(&srv->clients, c, link);
	c->count = &srv->n_pending;
	srv->n_pending++;
	srv->hooks->load_changed(srv);

	uv_timer_start(&c->timer, on_client_timer, IPC_HELLO_TIMEOUT_MS, 0);
	r = uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read);
	if (r < 0) {
		log_msg("cannot read from client %u: %s", c->serial, uv_strerror(r));
		client_close(c);
	}
}
