/* msprofd internals shared by the files of daemon/: the server (socket,
 * clients, dispatch), sessions and the log.  One libuv loop runs it all. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <uv.h>

#include "ipc.h"
#include "json.h"
#include "util.h"

/* --- log.c -------------------------------------------------------------- */

/* Log to stderr ("msprofd: ...") until log_open() switches to a file with
 * timestamps.  The file is capped: past LOG_MAX_BYTES it is renamed to
 * <log>.old and started afresh, so a peer that provokes log lines cannot fill
 * the runtime directory (often a small tmpfs). */
#define LOG_MAX_BYTES (1024 * 1024)
int log_open(const char *path);
/* Also copy lines to fd (the terminal of a starting daemon) until
 * log_echo(-1); the fd is not closed here. */
void log_echo(int fd);
_printf_(1, 2) void log_msg(const char *fmt, ...);

/* --- server.c ----------------------------------------------------------- */

struct session;
struct client;

TAILQ_HEAD(client_list, client);
TAILQ_HEAD(session_list, session);

struct server {
	uv_loop_t *loop;
	uv_pipe_t listener;
	uv_signal_t signals[3];
	uv_timer_t idle_timer;
	unsigned idle_timeout_s;        /* 0: never exit when idle */
	uid_t uid;                      /* ours; peers must match */
	char *sock_path, *pid_path;
	dev_t sock_dev;                 /* the socket we bound, so we never */
	ino_t sock_ino;                 /* unlink a successor's */
	uint64_t start_ns;
	bool stopping;

	struct client_list clients;
	unsigned n_clients;             /* connections past the uid check */
	unsigned next_client;           /* serial for log lines */

	struct session_list sessions;
	unsigned n_sessions;
	uint64_t next_session;
};

enum client_state {
	CLIENT_NEW,        /* accepted, waiting for hello */
	CLIENT_READY,      /* said hello; requests are served */
	CLIENT_DRAINING,   /* no more reading; closes when writes are done */
	CLIENT_CLOSED,     /* handles closing; freed in the last close callback */
};

struct client {
	TAILQ_ENTRY(client) link;
	struct server *srv;
	uv_pipe_t pipe;
	uv_timer_t timer;               /* hello deadline, then drain deadline */
	unsigned open_handles;
	unsigned serial;
	enum client_state state;
	pid_t pid;
	uid_t uid;
	bool throttled;                 /* reading paused: replies not read */
	unsigned pending_writes;
	unsigned n_sessions;
	size_t len;
	char *buf;                      /* CLIENT_BUF_SIZE: a whole frame fits */
};
#define CLIENT_BUF_SIZE (4 + IPC_MAX_MSG)

struct server_config {
	const char *sock_path;
	const char *pid_path;
	unsigned idle_timeout_s;
};

/* Bind and listen (under umask 077), install signal handlers and the idle
 * timer.  Logs what failed. */
int server_new(uv_loop_t *loop, const struct server_config *cfg, struct server **ret);
/* Finish every session, stop listening, drain and close every client; the
 * loop then runs out of handles and uv_run returns.  Idempotent. */
void server_shutdown(struct server *srv, const char *why);
/* Remove the socket and pid file if they are still ours. */
void server_remove_files(struct server *srv);
struct server *server_free(struct server *srv);
/* (Re)arm or stop the idle timer after clients or sessions changed. */
void server_update_idle(struct server *srv);

/* Send a message (consumed) to a client; dropped if it is closing. */
void client_send(struct client *c, cJSON *msg);
/* Send an error reply; the connection stays open. */
_printf_(4, 5) void client_send_error(struct client *c, uint64_t id, const char *code,
				      const char *fmt, ...);

/* --- session.c ---------------------------------------------------------- */

enum session_reason {
	SESSION_REASON_STOP,            /* session_stop request */
	SESSION_REASON_TARGET_EXITED,   /* the whole process tree is gone */
	SESSION_REASON_CLIENT_GONE,     /* the owning connection closed */
	SESSION_REASON_SHUTDOWN,        /* SIGTERM, SIGINT, shutdown, idle */
	SESSION_REASON_WRITE_ERROR,     /* a raw file could not be written */
};

void session_request_start(struct client *c, const cJSON *msg, uint64_t id);
void session_request_stop(struct client *c, const cJSON *msg, uint64_t id);
/* End every session of owner (or all when owner is NULL). */
void sessions_end(struct server *srv, struct client *owner, enum session_reason why);
