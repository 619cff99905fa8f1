/* Framing: a 4-byte big-endian length, then that many bytes of JSON holding
 * one object.  The decoder works on whatever a stream has delivered so far,
 * so both the blocking client and the daemon's libuv reader use it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "common/util.h"

int ipc_frame_encode(const cJSON *msg, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *json = cJSON_PrintUnformatted(msg);
	if (!json)
		return -ENOMEM;
	size_t n = strlen(json);
	if (n > IPC_MAX_MSG)
		return -EMSGSIZE;

	char *buf = malloc(4 + n);
	if (!buf)
		return -ENOMEM;
	buf[0] = (char)(n >> 24);
	buf[1] = (char)(n >> 16);
	buf[2] = (char)(n >> 8);
	buf[3] = (char)n;
	memcpy(buf + 4, json, n);
	*ret = buf;
	*ret_len = 4 + n;
	return 0;
}

static uint32_t be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

int ipc_frame_decode(const char *buf, size_t len, size_t *ret_used, cJSON **ret_msg)
{
	if (len < 4) {
		*ret_used = 0;
		return 0;
	}
	/* The length is judged before the payload arrives, so a peer cannot make
	 * us buffer more than IPC_MAX_MSG by announcing a large frame. */
	uint32_t n = be32(buf);
	if (n > IPC_MAX_MSG)
		return -EMSGSIZE;
	if (n == 0)
		return -EBADMSG;
	if (len - 4 < n) {
		*ret_used = 0;
		return 0;
	}

	/* JSON never holds a raw NUL; refusing it keeps cJSON (which works on C
	 * strings) from silently ignoring whatever follows one. */
	const char *payload = buf + 4;
	if (memchr(payload, '\0', n))
		return -EBADMSG;
	_cleanup_free_ char *copy = malloc((size_t)n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, payload, n);
	copy[n] = '\0';

	/* require_null_terminated: trailing bytes after the object are damage. */
	cJSON *msg = cJSON_ParseWithOpts(copy, NULL, 1);
	if (!msg)
		return -EBADMSG;
	if (!cJSON_IsObject(msg)) {
		cJSON_Delete(msg);
		return -EBADMSG;
	}
	*ret_used = 4 + (size_t)n;
	*ret_msg = msg;
	return 1;
}

int ipc_msg_check(const cJSON *msg, enum ipc_type *ret_type, uint64_t *ret_id)
{
	uint64_t v, id;

	/* The version first: a future protocol may change everything else. */
	if (json_get_u64(msg, "v", 0, UINT32_MAX, true, 0, &v) < 0 || v != IPC_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
	if (!cJSON_IsString(type) || !type->valuestring)
		return -EBADMSG;
	if (json_get_u64(msg, "id", 0, JSON_MAX_INT, false, 0, &id) < 0)
		return -EBADMSG;

	*ret_type = ipc_type_from_name(type->valuestring);
	*ret_id = id;
	return 0;
}

cJSON *ipc_msg_new(enum ipc_type type, uint64_t id)
{
	const char *name = ipc_type_name(type);
	if (!name)
		return NULL;
	_cleanup_json_ cJSON *m = cJSON_CreateObject();
	if (!m ||
	    !cJSON_AddNumberToObject(m, "v", IPC_PROTO_VERSION) ||
	    !cJSON_AddStringToObject(m, "type", name) ||
	    !cJSON_AddNumberToObject(m, "id", (double)id))
		return NULL;
	return TAKE_PTR(m);
}

enum ipc_err ipc_msg_err(const cJSON *msg)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(msg, "code");
	return cJSON_IsString(code) ? ipc_err_from_name(code->valuestring) : IPC_E_UNKNOWN;
}

cJSON *ipc_error_new(uint64_t id, enum ipc_err code, const char *message)
{
	const char *name = ipc_err_name(code);
	_cleanup_json_ cJSON *m = name ? ipc_msg_new(IPC_T_ERROR, id) : NULL;
	if (!m || !cJSON_AddStringToObject(m, "code", name) ||
	    !cJSON_AddStringToObject(m, "message", message ? message : ipc_err_meaning(code)))
		return NULL;
	return TAKE_PTR(m);
}
