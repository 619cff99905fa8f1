/* Message type names: the one table both directions use. */
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
	{ IPC_T_SESSION_START, "session_start" },
	{ IPC_T_SESSION_STARTED, "session_started" },
	{ IPC_T_SESSION_STOP, "session_stop" },
	{ IPC_T_SESSION_STOPPED, "session_stopped" },
	{ IPC_T_SESSION_ENDED, "session_ended" },
	{ IPC_T_AGENT_START, "agent_start" },
	{ IPC_T_AGENT_STARTED, "agent_started" },
	{ IPC_T_AGENT_STOP, "agent_stop" },
	{ IPC_T_AGENT_STOPPED, "agent_stopped" },
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
