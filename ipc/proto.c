/* Message type names and error codes: the tables both directions use. */
#include <errno.h>
#include <string.h>

#include "ipc/proto.h"
#include "common/util.h"

static const struct {
	enum ipc_type type;
	const char *name;
} ipc_types[] = {
	{ IPC_T_HELLO, "hello" },
	{ IPC_T_STATUS, "status" },
	{ IPC_T_SHUTDOWN, "shutdown" },
	{ IPC_T_AGENTS, "agents" },
	{ IPC_T_CLAIM, "claim" },
	{ IPC_T_CLAIMED, "claimed" },
	{ IPC_T_CAPTURE, "capture" },
	{ IPC_T_DUMP, "dump" },
	{ IPC_T_SESSION_START, "session_start" },
	{ IPC_T_SESSION_STARTED, "session_started" },
	{ IPC_T_SESSION_STOP, "session_stop" },
	{ IPC_T_SESSION_STOPPED, "session_stopped" },
	{ IPC_T_SESSION_ENDED, "session_ended" },
	{ IPC_T_CAPTURE_ASKED, "capture_asked" },
	{ IPC_T_DUMP_ASKED, "dump_asked" },
	{ IPC_T_AGENT_START, "agent_start" },
	{ IPC_T_AGENT_STARTED, "agent_started" },
	{ IPC_T_AGENT_STOP, "agent_stop" },
	{ IPC_T_AGENT_STOPPED, "agent_stopped" },
	{ IPC_T_AGENT_SCHEDULE, "agent_schedule" },
	{ IPC_T_ERROR, "error" },
};

const char *ipc_type_name(enum ipc_type t)
{
	for (size_t i = 0; i < ARRAY_SIZE(ipc_types); i++)
		if (ipc_types[i].type == t)
			return ipc_types[i].name;
	return NULL;
}

enum ipc_type ipc_type_from_name(const char *name)
{
	if (!name)
		return IPC_T_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(ipc_types); i++)
		if (streq(ipc_types[i].name, name))
			return ipc_types[i].type;
	return IPC_T_UNKNOWN;
}

static const struct {
	const char *name;
	const char *meaning;
	int error;
} ipc_errs[_IPC_E_MAX] = {
	[IPC_E_UNKNOWN] = { NULL, "unknown error", -EIO },
	[IPC_E_BAD_FRAME] = { "bad_frame", "the frame could not be read", -EBADMSG },
	[IPC_E_TOO_BIG] = { "too_big", "the frame is too big", -EMSGSIZE },
	[IPC_E_BAD_JSON] = { "bad_json", "the frame is not a JSON object", -EBADMSG },
	[IPC_E_NO_HELLO] = { "no_hello", "the connection did not start with hello", -EPROTO },
	[IPC_E_VERSION] = { "version", "the protocol version is not supported", -EPROTONOSUPPORT },
	[IPC_E_UNKNOWN_TYPE] = { "unknown_type", "the request type is not served", -EOPNOTSUPP },
	[IPC_E_BAD_REQUEST] = { "bad_request", "the request is invalid", -EINVAL },
	[IPC_E_LIMIT] = { "limit", "a limit was reached", -EAGAIN },
	[IPC_E_NOT_FOUND] = { "not_found", "no such session or process", -ESRCH },
	[IPC_E_IO] = { "io", "the peer failed", -EIO },
	[IPC_E_BUSY] = { "busy", "driven by another client", -EBUSY },
	[IPC_E_DENIED] = { "denied", "permission denied", -EPERM },
};

const char *ipc_err_name(enum ipc_err e)
{
	return (unsigned)e < _IPC_E_MAX ? ipc_errs[e].name : NULL;
}

enum ipc_err ipc_err_from_name(const char *name)
{
	for (unsigned i = 1; name && i < _IPC_E_MAX; i++)
		if (streq(ipc_errs[i].name, name))
			return (enum ipc_err)i;
	return IPC_E_UNKNOWN;
}

const char *ipc_err_meaning(enum ipc_err e)
{
	return ipc_errs[(unsigned)e < _IPC_E_MAX ? e : IPC_E_UNKNOWN].meaning;
}

int ipc_err_errno(enum ipc_err e)
{
	return ipc_errs[(unsigned)e < _IPC_E_MAX ? e : IPC_E_UNKNOWN].error;
}
