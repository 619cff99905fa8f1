/* msprofd internals shared by the files of daemon/.  One libuv loop runs it
 * all.  The files, each calling only those below it:
 *
 *   main.c     the runtime dir, the loop
 *   cmdline.c  the options: one table read by the parser and --help
 *   server.c   the listener, signals, idle exit, request dispatch, shutdown;
 *              it fills in server_hooks, through which the files below
 *              tell it and each other what happened
 *   session.c  sessions: host sampling of a process tree, its agents driven
 *   agents.c   the registry of agents, our requests to them, claims
 *   client.c   connections: accept checks, framing, replies, close
 *   log.c      the log
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <uv.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "common/util.h"

/* --- cmdline.c ---------------------------------------------------------- */

struct daemon_options {
	bool foreground;
	int ready_fd;             /* -1: none */
	unsigned idle_timeout_s;
	unsigned max_clients, max_agents;
};

/* One option of msprofd: the parser (getopt_long's), --help and the test
 * of the man page (tests/unit/test-option-docs.c) read the table. */
struct daemon_opt {
	const char *name;         /* "idle-timeout" */
	char short_name;          /* 'f'; 0: none */
	const char *arg;          /* the value's name in --help: "SEC"; NULL: takes none */
	const char *help;         /* lines after the first (after '\n') are indented */
	/* 0: go on; 1: done, exit with success (--help); <0: a usage error,
	 * told on stderr */
	int (*check)(struct daemon_options *o, const char *value);
};

extern const struct daemon_opt daemon_opts[];
extern const unsigned daemon_opts_count;

/* The options from argv and the environment: 1 to run, 0 to exit with
 * success (--help, --version), -EINVAL for a usage error (told on stderr). */
int daemon_parse_options(int argc, char **argv, struct daemon_options *o);
void daemon_print_help(FILE *f);

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

struct server;
struct session;
struct client;
struct agent;

/* What the lower files tell the ones above them, set by server.c: a lower
 * file never calls up by name. */
struct server_hooks {
	/* client.c: a decoded message (the caller frees it), a connection closing */
	void (*client_message)(struct client *c, const cJSON *msg);
	void (*client_closing)(struct client *c);
	/* agents.c, about the session driving an agent (session.c) */
	void (*agent_offered)(struct server *srv, struct agent *a);
	void (*agent_started)(struct session *s, struct agent *a);
	void (*agent_stopped)(struct session *s, struct agent *a, const cJSON *msg, const char *error);
	void (*agent_gone)(struct session *s, struct agent *a);
	/* agents.c: an agent was turned away (the agent limit): the sessions
	 * whose tree holds it name it to their owners */
	void (*agent_refused)(struct server *srv, pid_t pid, const char *name);
	/* agents.c: an agent saw a --dump-on trigger: the flight recorder
	 * covering it is asked to dump (sessions_ask_dump); false when none is */
	bool (*agent_dump)(struct server *srv, struct session *s, pid_t pid, const char *trigger, const char *detail);
	/* any: the number of clients, sessions or agents changed (idle exit) */
	void (*load_changed)(struct server *srv);
};

TAILQ_HEAD(client_list, client);
TAILQ_HEAD(session_list, session);

struct server {
	uv_loop_t *loop;
	const struct server_hooks *hooks;
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

	/* Connections past the uid check, in accept order, each counted in
	 * one of n_pending (no hello yet), n_clients (said hello as a client)
	 * and n_agents (said hello as an agent), each with its limit. */
	struct client_list clients;
	unsigned n_pending, max_pending;
	/* max_pending wait for their hello: the next connection is left
	 * where libuv holds it (not taken with uv_accept, which pauses the
	 * listener; the kernel's backlog holds the ones behind it) until one
	 * of them leaves or the oldest had its grace (client.c) */
	bool accept_held;
	uv_timer_t accept_timer;
	unsigned n_clients, max_clients;
	unsigned next_client;           /* serial for log lines */

	struct session_list sessions;
	unsigned n_sessions;
	uint64_t next_session;

	unsigned n_agents, max_agents;
	uint64_t next_agent_req;        /* ids of our requests to agents */

	/* The devices, probed once at start (session.c, collectors/device.h):
	 * NULL when the probe thread could not start (each session then opens
	 * its own).  probe_async wakes the loop when a probe is done. */
	struct dev_probe *dev_probe;
	uv_async_t probe_async;
	bool probe_async_open;
	char probe_none[256];           /* why the last probe that finished found none ("": none did) */
};

#define CLIENT_MAX_CLAIMS 64            /* HOST_MAX_ROOTS: what one session_start names */

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
	unsigned *count;                /* srv->n_pending, n_clients or n_agents */
	uint64_t last_ns;               /* its last message (CLOCK_MONOTONIC) */
	pid_t pid;
	uid_t uid;
	bool throttled;                 /* reading paused: replies not read */
	unsigned pending_writes;
	unsigned n_sessions;
	struct agent *agent;            /* the hello said "client":"agent" */
	uint32_t claims[CLIENT_MAX_CLAIMS]; /* pids this connection drives */
	unsigned n_claims;
	char schedule[256];             /* the claims' --schedule (agent_schedule), "" none */
	size_t len;
	char *buf;                      /* CLIENT_BUF_SIZE: a whole frame fits */
};
#define CLIENT_BUF_SIZE (4 + IPC_MAX_MSG)

/* What a peer can make the daemon hold, and the defaults msprofd's
 * --max-clients and --max-agents (or MSPROFD_MAX_CLIENTS, MSPROFD_MAX_AGENTS)
 * change.  Connections without a hello yet may number both together; past
 * that a new one waits to be accepted until one of them leaves, or the
 * oldest of them, after a grace, is closed for it; past
 * IPC_HELLO_TIMEOUT_MS any is. */
#define SERVER_MAX_CLIENTS_DEFAULT IPC_MAX_CLIENTS
#define SERVER_MAX_AGENTS_DEFAULT IPC_MAX_AGENTS
#define SERVER_MAX_LIMIT 65536          /* either limit, at most */

struct server_config {
	const char *sock_path;
	const char *pid_path;
	unsigned idle_timeout_s;
	unsigned max_clients, max_agents;
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

/* --- client.c ----------------------------------------------------------- */

/* Take a connection from the listener -- or, while max_pending connections
 * wait for their hello, leave it waiting (srv->accept_held) --: check the
 * peer's uid (a refusal gets one error frame), then read it. */
void client_accept(struct server *srv, uv_stream_t *listener);
/* Count c in *count (srv->n_clients, n_agents) from now on, instead of
 * where it was. */
void client_count_as(struct client *c, unsigned *count);
/* A hello as a client: 0 when c may stay a client -- under the limit, or
 * the client idle longest that holds no session and no claim was closed
 * to make room -- or -EUSERS when every client holds one. */
int client_admit(struct client *c);
/* Send a message (consumed) to a client; dropped if it is closing. */
void client_send(struct client *c, cJSON *msg);
/* A protocol violation or refusal: one error frame, logged, then the
 * connection drains and closes. */
_printf_(4, 5) void client_fail(struct client *c, uint64_t id, enum ipc_err code, const char *fmt, ...);
/* The reply to hello. */
void client_send_hello(struct client *c, uint64_t id);
/* Send an error reply; the connection stays open. */
_printf_(4, 5) void client_send_error(struct client *c, uint64_t id, enum ipc_err code,
				      const char *fmt, ...);

/* Stop reading and close once the queued replies are written. */
void client_drain(struct client *c);


/* --- agents.c ----------------------------------------------------------- */

/* An agent (libmsprof_agent.so inside a profiled process): one connection
 * that said hello with "client":"agent" and the pid SO_PEERCRED gave.  It
 * is driven by at most one session at a time (session != NULL); the daemon
 * sends it agent_start / agent_stop with ids of its own and matches the
 * replies by id, so a late reply to an older request is ignored. */
enum agent_state {
	AGENT_IDLE,        /* connected, recording nothing */
	AGENT_STARTING,    /* agent_start sent, no agent_started yet */
	AGENT_RECORDING,   /* agent_started received */
	AGENT_STOPPING,    /* agent_stop sent, no agent_stopped yet */
};

#define AGENT_NAME_MAX 64
#define AGENT_FEATURES_MAX 128

struct agent {
	struct client *c;
	pid_t pid, ppid;
	int64_t rank;                   /* -1: none */
	char name[AGENT_NAME_MAX];
	char features[AGENT_FEATURES_MAX];
	enum agent_state state;
	struct session *session;        /* driving it now, or NULL */
	uint64_t session_id;            /* that session's id, while session is set */
	uint64_t pending_id;            /* our request awaiting its reply, 0: none */
	uint64_t sent_ns;               /* when that request was sent (CLOCK_MONOTONIC) */
	uint64_t hello_ns;
};

/* A hello with "client":"agent" on a new connection: check it, register
 * the agent and offer it to the running sessions.  Replies (hello or a
 * refusal that closes the connection). */
void agent_hello(struct client *c, const cJSON *msg, uint64_t id);
/* A message from an agent connection that is not hello: its replies to
 * our requests (agent_started, agent_stopped, error) are taken, session
 * requests refused with "denied". */
void agent_handle(struct client *c, enum ipc_type type, const cJSON *msg, uint64_t id);
/* The agent's connection is closing. */
void agent_gone(struct client *c);
/* Send agent_start (the settings of session s, whose id is session_id) or
 * agent_stop; the agent moves to STARTING / STOPPING with the request's id
 * pending. */
void agent_send_start(struct agent *a, struct session *s, uint64_t session_id, const cJSON *start);
void agent_send_stop(struct agent *a, uint64_t session_id);

/* Requests: the "agents" list and "claim". */
void agents_request_list(struct client *c, const cJSON *msg, uint64_t id);
void claim_request(struct client *c, const cJSON *msg, uint64_t id);
/* c goes: the agents its schedule armed are disarmed. */
void claims_end(struct client *c);
/* The live connection other than self that claimed pid, or NULL. */
struct client *claim_owner(struct server *srv, const struct client *self, uint32_t pid);
/* msprof's words for a process driven by another interactive client. */
#define CLAIM_BUSY_MESSAGE "recv parmas timeout, server has been connected to another client."

/* --- session.c ---------------------------------------------------------- */

enum session_reason {
	SESSION_REASON_STOP,            /* session_stop request */
	SESSION_REASON_TARGET_EXITED,   /* the whole process tree is gone */
	SESSION_REASON_CLIENT_GONE,     /* the owning connection closed */
	SESSION_REASON_SHUTDOWN,        /* SIGTERM, SIGINT, shutdown, idle */
	SESSION_REASON_WRITE_ERROR,     /* a raw file could not be written */
};

/* Probe the devices on a thread (server_new), and let go of the probe and
 * its handle (shutdown). */
void sessions_init(struct server *srv);
void sessions_close(struct server *srv);
void session_request_start(struct client *c, const cJSON *msg, uint64_t id);
void session_request_stop(struct client *c, const cJSON *msg, uint64_t id);
/* dump {"pid":P}: the flight recorder covering P is asked to dump
 * (dump_asked to its owner, trigger "command"); the reply names it. */
void session_request_dump(struct client *c, const cJSON *msg, uint64_t id);
/* A dump asked for pid (by: the asking agent's pid, 0: a command): the
 * running flight-recorder session whose tree holds pid sends dump_asked to
 * its owner.  That session, or NULL when none covers pid. */
struct session *sessions_ask_dump(struct server *srv, pid_t pid, pid_t by, const char *trigger, const char *detail);
/* The agent's trigger (server_hooks.agent_dump): the session driving it
 * (s, when one does; its process may be gone from /proc already, as it
 * exits), else the one whose tree holds pid. */
bool sessions_agent_dump(struct server *srv, struct session *s, pid_t pid, const char *trigger, const char *detail);
/* End every session of owner (or all when owner is NULL). */
void sessions_end(struct server *srv, struct client *owner, enum session_reason why);
/* A new agent said hello: a running session whose tree holds it (and that
 * drives agents) sends it agent_start. */
void sessions_offer_agent(struct server *srv, struct agent *a);
/* An agent was turned away at the agent limit: the running sessions whose
 * tree holds pid name it in their reply (agents_refused). */
void sessions_agent_refused(struct server *srv, pid_t pid, const char *name);
/* The status reply's "sampled": the processes each running session of
 * owner samples (live now, seen since it started). */
bool sessions_add_sampled(struct server *srv, const struct client *owner, cJSON *reply);
/* What an agent answered (or that it went away) for session s. */
void session_agent_started(struct session *s, struct agent *a);
void session_agent_stopped(struct session *s, struct agent *a, const cJSON *msg, const char *error);
void session_agent_gone(struct session *s, struct agent *a);
