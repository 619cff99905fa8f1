/* The msprof <-> msprofd protocol: one header holds the version, the message
 * types and the limits.
 *
 * Transport: a SOCK_STREAM Unix socket in the per-user runtime directory
 * (runtime.h).  Each message is a frame: a 4-byte big-endian length, then
 * that many bytes of UTF-8 JSON, a single object:
 *
 *   {"v":1, "type":"<name>", "id":N, ...}
 *
 * `id` is chosen by the sender of a request and echoed in its reply.  The
 * first message on a connection must be "hello" and carry "v"; anything else
 * first, a different "v", a frame over IPC_MAX_MSG, or bytes that are not a
 * JSON object get an "error" reply (when the length was readable) and the
 * connection is closed.  Every byte from a socket is untrusted.
 *
 * Requests (client -> daemon) and their replies:
 *   hello          {"client":"msprof","pid":N}
 *                  -> hello {"ok":true,"daemon_pid":N,"version":"x.y.z"}
 *   session_start  {"prof_dir":"/abs/PROF_…", "pids":[N,…] (1..HOST_MAX_ROOTS),
 *                   "follow_children":true, and the settings under their rows'
 *                   IPC keys (settings.h; the table has their types and ranges):
 *                   "host_sys":"cpu,mem,disk,network",
 *                   "host_sys_freq":Hz (1..1000), "host_sys_usage":"cpu,mem",
 *                   "host_sys_usage_freq":Hz (1..50), "storage_limit_mb":N (0: none),
 *                   "device":false (describe the devices: device_N/), "sys_hardware_mem":false
 *                   (sample them, implies device), "sys_hardware_mem_freq":Hz (1..100, 50),
 *                   "sys_interconnection":false (PCIe, implies device),
 *                   "sys_interconnection_freq":Hz (1..50, 50)}
 *                  -> session_started {"session":S} and, when device data was asked
 *                   for, "devices":[{"id","name"}] with "device_backend":"nvml", or
 *                   "device_off":"<why>" (no driver, no device: the session goes on);
 *                   the reply waits for the devices to open (at most 8 s, then
 *                   "device_off"), and session_stop or the session's end waits
 *                   for their files (at most IPC_AGENT_STOP_TIMEOUT_MS)
 *   session_stop   {"session":S} -> session_stopped {"session":S,"ticks":N,
 *                   "missed_ticks":N (deadlines of the sampling timers that
 *                   passed untaken), "records":N,"bytes":N,"reason":"stop"}
 *   status         {} -> status {"sessions":N,"clients":N,"agents":N,"pending":N
 *                   (connections without a hello yet),"uptime_s":N,
 *                   "sampled":[{"session":S,"live":N,"seen":N}] (the
 *                   asker's running sessions: processes of the tree
 *                   sampled now, and since the session started)}
 *   shutdown       {} -> shutdown {"ok":true}, then the daemon exits
 *   dump           {"pid":P} -> dump {"session":S,"owner":pid of its msprof}:
 *                   the running --flight-recorder session whose tree holds P
 *                   is asked to dump (dump_asked to its owner); not_found when
 *                   none is
 * Events (daemon -> client, unsolicited, id 0):
 *   session_ended  {"session":S,"reason":"target_exited"|"write_error"|…,
 *                   "message":"…", and the counts of session_stopped}
 *                   (a session that ended on its own)
 *   capture_asked {"pid":P,"by":A,"start":B[,"steps":"A-B"]} (a process
 *                   of the tree of pid P, which this client claimed, asked
 *                   through its agent A for a window to start or stop:
 *                   msprofStart/msprofStop, --capture-range; "steps": the
 *                   --schedule window of steps A to B-1 it starts or stops)
 *   dump_asked    {"session":S,"pid":P,"by":A,"trigger":"command"|"slow-step"|
 *                   "hang"|"exit"[,"detail":"..."]} (the flight recorder of
 *                   session S, which this client started, is asked to dump:
 *                   by `msprof --dump --pid=P` (by 0), or by the agent of pid A
 *                   of its tree, which saw a trigger of --dump-on)
 * Errors: error {"id":N,"code":"<word>","message":"<text for a human>"}
 *   codes: enum ipc_err below (bad_frame, too_big, bad_json, no_hello,
 *   version, unknown_type, bad_request, limit, not_found, io, busy, denied).
 *
 * A session belongs to the connection that started it: when that
 * connection closes (the launcher died), the session is stopped and its files
 * are closed, so what was written stays readable.
 *
 * Agents (collectors/agent, libmsprof_agent.so inside a profiled process).
 * An agent connects like any client; its hello says
 *   {"client":"agent","pid":N,"ppid":N,"name":"<comm>","rank":N (-1 none),
 *    "features":"mstx,nvtx" ("mstx,nvtx,osrt" from the osrt build)}
 * and the daemon checks "pid" against SO_PEERCRED (a mismatch is refused).
 * From then on the connection is that process's agent: it stays open, idle,
 * for the life of the process; the daemon never lets an agent start
 * sessions.  The daemon drives it with requests of its own (ids chosen by
 * the daemon; the agent echoes them):
 *   agent_start  {"session":S,"prof_dir":"/abs/PROF_…","msproftx":true,
 *                 "mstx_domain_include":"a,b","mstx_domain_exclude":"",
 *                 "osrt":false,"osrt_threshold_ns":1000}
 *                -> agent_started {"session":S,"osrt":B (whether OS runtime
 *                   calls are recorded: only the osrt build of the agent,
 *                   libmsprof_agent_osrt.so, wraps them)}
 *   agent_stop   {"session":S}
 *                -> agent_stopped {"session":S,"events":N,"dropped":N,"bytes":N}
 *   agent_schedule {"schedule":"<--schedule's spec>"|""} (id 0, no reply):
 *                arm the agent's --schedule (common/step-schedule.h), or
 *                disarm it with ""; sent to each agent of the tree of a pid
 *                claimed with "schedule", as it says hello too, and "" when
 *                that claim ends
 * and the agent asks, with no reply (the job's msprofStart/msprofStop):
 *   capture      {"dump":"slow-step"|"hang"|"exit"[,"detail":"..."]}: a
 *                 trigger of --dump-on seen by the agent (its process's
 *                 session is asked to dump: dump_asked), or
 *   capture      {"start":B[,"steps":"A-B"]} -> to the
 *                 client that claimed the agent's
 *                 process or an ancestor of it, capture_asked; the daemon
 *                 logs one that no client claimed
 * A session_start whose tree (its pids and their descendants) holds agents
 * sends agent_start to each of them, and to any agent of that tree that
 * says hello while the session runs; session_started then carries
 * "agents":[pid,…].  session_stop sends agent_stop to each and waits for
 * agent_stopped (at most IPC_AGENT_STOP_TIMEOUT_MS) before it replies, so
 * the agents' files are complete when the launcher exports; its reply
 * carries "agents":[{"pid","events","dropped","bytes"} or {"pid","error"}]
 * (the first 128; "agents_unlisted" counts the others).  An agent of the
 * tree turned away at msprofd's agent limit is named in session_stopped
 * and session_ended: "agents_refused":[{"pid","name"}] (the first 384) and
 * "agents_refused_count":N (all).
 * session_started is sent once the agents driven at the start have
 * answered (at most IPC_AGENT_STOP_TIMEOUT_MS), so its receiver knows they
 * record; status also carries "agents" (connected agents); a stop reply may
 * carry "agents_exited" (a count) instead of listing agents whose process
 * is gone.
 * session_start takes, besides the fields above, "agent":true|false
 * (default true: drive the agents of the tree) and the agent_start fields
 * "msproftx", "mstx_domain_include", "mstx_domain_exclude", and (need
 * msproftx; sent on only when set) "step_range":"A-B" (record annotations
 * only inside steps A..B-1, the step markers always) and "ranks":"0,2"
 * (agents of other ranks, or of none, record nothing); ipc/selectors.h says
 * what is valid.  "osrt":true (--host-sys=osrt; needs "agent") has the
 * agents record OS runtime calls that took at least "osrt_threshold_ns"
 * (0..1000000000, default 1000; common/host-sys.h), with or without
 * msproftx.
 *
 * Attach and dynamic mode:
 *   agents       {} -> agents {"agents":[{"pid","ppid","name","rank",
 *                "state":"idle"|"recording","session":S|0,"features"}]}  every agent
 *                of this user now connected (how `msprof` lists what can be
 *                attached with agent data); past what fits in one frame,
 *                "unlisted":N counts the others
 *   claim        {"pids":[N,…][,"schedule":"<spec>"]} -> claimed {"pids":[…],
 *                "refused":[{"pid","code":"busy"|"not_found"|"denied","message"}]}
 *                "schedule" (at most 255 bytes, a valid spec) arms the
 *                agents of the claimed trees (agent_schedule), the windows
 *                then asked for through capture
 *                An interactive client claims the processes it drives; a
 *                pid claimed by another live connection is "busy" (msprof:
 *                one interactive user per process).  Claims end when the
 *                connection closes.  session_start on a pid claimed by
 *                another connection fails with code "busy". */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define IPC_PROTO_VERSION 1
#define IPC_MAX_MSG (64U * 1024U)     /* bytes of JSON in one frame */
#define IPC_MAX_CLIENTS 64            /* client connections served at once (default) */
#define IPC_MAX_SESSIONS 32           /* sessions alive at once, all clients */
#define IPC_MAX_SESSIONS_PER_CLIENT 8
#define IPC_HELLO_TIMEOUT_MS 5000     /* a connection must say hello by then */
#define IPC_MAX_AGENTS 1024           /* agent connections, on top of the clients (default) */
#define IPC_AGENT_STOP_TIMEOUT_MS 2000 /* session_stop waits this long for agents */

/* Message types in numbered ranges: 1-99 handshake and control,
 * 100-199 sessions, 200-299 events, 300-399 daemon -> agent, 900-999 errors. */
enum ipc_type {
	IPC_T_UNKNOWN = 0,
	IPC_T_HELLO = 1,
	IPC_T_STATUS = 2,
	IPC_T_SHUTDOWN = 3,
	IPC_T_AGENTS = 4,
	IPC_T_CLAIM = 5,
	IPC_T_CLAIMED = 6,
	IPC_T_CAPTURE = 7,
	IPC_T_DUMP = 8,
	IPC_T_SESSION_START = 100,
	IPC_T_SESSION_STARTED = 101,
	IPC_T_SESSION_STOP = 102,
	IPC_T_SESSION_STOPPED = 103,
	IPC_T_SESSION_ENDED = 200,
	IPC_T_CAPTURE_ASKED = 201,
	IPC_T_DUMP_ASKED = 202,
	IPC_T_AGENT_START = 300,
	IPC_T_AGENT_STARTED = 301,
	IPC_T_AGENT_STOP = 302,
	IPC_T_AGENT_STOPPED = 303,
	IPC_T_AGENT_SCHEDULE = 304,
	IPC_T_ERROR = 900,
};

/* The triggers of a dump an agent may name (common/flight-recorder.h). */
static inline bool ipc_dump_trigger_ok(const char *t)
{
	return t && (!strcmp(t, "slow-step") || !strcmp(t, "hang") || !strcmp(t, "exit"));
}

/* "hello" <-> IPC_T_HELLO; NULL / IPC_T_UNKNOWN when not in the table. */
const char *ipc_type_name(enum ipc_type t);
enum ipc_type ipc_type_from_name(const char *name);

/* The codes of an error reply, and of claimed's "refused" entries: one
 * table (proto.c) holds the word on the wire, what it means, and the errno
 * a client maps it to.  Compare codes as this enum, never as strings. */
enum ipc_err {
	IPC_E_UNKNOWN = 0,   /* missing, or a word this side does not know */
	IPC_E_BAD_FRAME,     /* the frame could not be read (empty) */
	IPC_E_TOO_BIG,       /* the frame exceeds IPC_MAX_MSG */
	IPC_E_BAD_JSON,      /* the frame is not a JSON object */
	IPC_E_NO_HELLO,      /* the first message was not hello, or none came */
	IPC_E_VERSION,       /* "v" is not IPC_PROTO_VERSION */
	IPC_E_UNKNOWN_TYPE,  /* a request type the peer does not serve */
	IPC_E_BAD_REQUEST,   /* a field is missing or invalid */
	IPC_E_LIMIT,         /* too many clients, agents or sessions */
	IPC_E_NOT_FOUND,     /* no such session or process */
	IPC_E_IO,            /* the peer failed (memory, files) */
	IPC_E_BUSY,          /* driven by another client, or stopping already */
	IPC_E_DENIED,        /* not this user's, or not for this connection */
	_IPC_E_MAX
};

/* "busy" for IPC_E_BUSY; NULL for IPC_E_UNKNOWN. */
const char *ipc_err_name(enum ipc_err e);
/* IPC_E_UNKNOWN for NULL or a word not in the table. */
enum ipc_err ipc_err_from_name(const char *name);
/* What the code means, for a reply that carries no message. */
const char *ipc_err_meaning(enum ipc_err e);
/* -EBUSY for IPC_E_BUSY, ...; -EIO for IPC_E_UNKNOWN. */
int ipc_err_errno(enum ipc_err e);
