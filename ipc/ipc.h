/* Framing, the per-user runtime directory, and a blocking client for the
 * launcher.  The daemon side of framing (incremental decode from a libuv read
 * stream) uses ipc_frame_decode on its own buffer. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/proto.h"

struct cJSON;

/* --- framing ------------------------------------------------------------ */

/* Encode msg as a frame; *ret is malloc'd (4-byte length + JSON).
 * -EMSGSIZE if the JSON exceeds IPC_MAX_MSG. */
int ipc_frame_encode(const struct cJSON *msg, char **ret, size_t *ret_len);

/* Try to decode one frame from buf[0..len).  Returns 0 and sets *ret_used=0
 * when more bytes are needed; 1 with *ret_used bytes consumed and *ret_msg a
 * parsed object on success; -EMSGSIZE (length over IPC_MAX_MSG), -EBADMSG
 * (not a JSON object) on damage. */
int ipc_frame_decode(const char *buf, size_t len, size_t *ret_used, struct cJSON **ret_msg);

/* Check the common fields: "v" == IPC_PROTO_VERSION (else -EPROTONOSUPPORT),
 * "type" a string (else -EBADMSG), "id" a non-negative integer if present. */
int ipc_msg_check(const struct cJSON *msg, enum ipc_type *ret_type, uint64_t *ret_id);

/* New message object {"v":1,"type":name,"id":id}. */
struct cJSON *ipc_msg_new(enum ipc_type type, uint64_t id);

/* New error {"v":1,"type":"error","id":id,"code":…,"message":…}; a NULL
 * message is the code's meaning.  NULL for IPC_E_UNKNOWN. */
struct cJSON *ipc_error_new(uint64_t id, enum ipc_err code, const char *message);
/* The code of an error reply or of a refusal (msg's "code"). */
enum ipc_err ipc_msg_err(const struct cJSON *msg);

/* --- runtime directory -------------------------------------------------- */

/* $MSPROF_RUNTIME_DIR, else $XDG_RUNTIME_DIR/msprof, else /tmp/msprof-<uid>.
 * Creates it 0700 if missing, then checks with lstat that it is a directory
 * (not a symlink) owned by us with no group/other permission bits; -EPERM
 * with a reason in ret_why (static string) otherwise. ret_path malloc'd. */
int ipc_runtime_dir(char **ret_path, const char **ret_why);
/* The same path without creating or checking it, for error messages
 * ("cannot use runtime directory '%s': %s").  -EINVAL with ret_why when
 * MSPROF_RUNTIME_DIR is not absolute. */
int ipc_runtime_dir_path(char **ret_path, const char **ret_why);
/* <runtime>/msprofd.sock and <runtime>/msprofd.sock.lock (malloc'd). */
int ipc_socket_path(const char *runtime_dir, char **ret_sock, char **ret_lock);

/* The peer's credentials through SO_PEERCRED. */
int ipc_peer_cred(int fd, pid_t *ret_pid, uid_t *ret_uid);

/* --- blocking client (launcher) ------------------------------------------ */

struct ipc_client;

/* Connect to the daemon for this user, starting it under the lock if it is
 * not running: flock(<sock>.lock), connect again, else unlink a stale
 * socket and spawn `msprofd --ready-fd=N` (daemon_path) and wait for its
 * "ready" line on the pipe.  Sends hello and checks the reply.
 * ret_err gets a malloc'd human message on failure. */
int ipc_client_connect(const char *daemon_path, struct ipc_client **ret, char **ret_err);

/* Send a request and wait up to timeout_ms for the reply with the same id;
 * unsolicited events that arrive first are queued for ipc_client_poll_event.
 * An "error" reply returns -EREMOTEIO with *ret_reply set to it. */
int ipc_client_call(struct ipc_client *c, struct cJSON *req, int timeout_ms, struct cJSON **ret_reply);

/* The socket fd, for poll() in the launcher's wait loop. */
int ipc_client_fd(const struct ipc_client *c);

/* Read what is available without blocking; returns 1 and an event, 0 when
 * nothing is pending, -ECONNRESET when the daemon went away. */
int ipc_client_poll_event(struct ipc_client *c, struct cJSON **ret_event);

struct ipc_client *ipc_client_free(struct ipc_client *c);
