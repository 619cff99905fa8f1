/* The IPC frames and messages, as both ends read them: the input is a byte
 * stream from a socket, cut into frames as msprofd cuts a client's
 * (ipc_frame_decode), each message checked (ipc_msg_check, the error code,
 * session_start's settings: settings_from_ipc), encoded again and decoded
 * again to the same JSON; and each frame's JSON read as the agent reads
 * msprofd's (collectors/agent/ajson.c).
 *
 * With FUZZ_SEEDS=DIR in the environment it writes its seed corpus
 * there instead, made with the encoders msprof, msprofd and the agent
 * use, and exits (tests/fuzz/fuzz-smoke.sh). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collectors/agent/ajson.h"
#include "ipc/ipc.h"
#include "ipc/settings.h"
#include "tests/fuzz/fuzz-util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void seed(const char *dir, const char *name, cJSON *msg)
{
	char *frame;
	size_t len;
	if (!msg || ipc_frame_encode(msg, &frame, &len) < 0)
		abort();
	fuzz_write(dir, name, frame, len);
	free(frame);
	cJSON_Delete(msg);
}

static void write_seeds(const char *dir)
{
	cJSON *m = ipc_msg_new(IPC_T_HELLO, 1);
	cJSON_AddStringToObject(m, "version", "0.1.0");
	cJSON_AddBoolToObject(m, "ok", 1);
	seed(dir, "hello", m);
	struct settings s;
	settings_init(&s);
	m = ipc_msg_new(IPC_T_SESSION_START, 2);
	cJSON_AddStringToObject(m, "prof_dir", "/tmp/PROF_000001");
	if (settings_to_ipc(&s, m) < 0)
		abort();
	seed(dir, "session_start-defaults", m);
	char err[256];
	static const struct { enum setting_id id; const char *v; } set[] = {
		{ SET_HOST_SYS, "cpu,mem,disk,network,osrt" }, { SET_HOST_SYS_FREQ, "1000" },
		{ SET_HOST_SYS_USAGE, "cpu,mem" }, { SET_MSPROFTX, "on" }, { SET_STORAGE_LIMIT, "300MB" },
		{ SET_FLIGHT_RECORDER, "60s,512MB" }, { SET_DUMP_ON, "slow-step:5,hang:300s,exit" },
	};
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
		if (settings_parse_cli(&s, set[i].id, set[i].v, err, sizeof err) < 0) {
			fprintf(stderr, "fuzz-ipc: seed setting '%s': %s\n", set[i].v, err);
			abort();
		}
	m = ipc_msg_new(IPC_T_SESSION_START, 3);
	cJSON_AddStringToObject(m, "prof_dir", "/tmp/PROF_000002");
	cJSON *pids = cJSON_AddArrayToObject(m, "pids");
	cJSON_AddItemToArray(pids, cJSON_CreateNumber(4242));
	if (settings_to_ipc(&s, m) < 0)
		abort();
	seed(dir, "session_start-all", m);
	m = ipc_msg_new(IPC_T_AGENT_START, 7);
	cJSON_AddNumberToObject(m, "session", 3);
	cJSON_AddStringToObject(m, "prof_dir", "/tmp/PROF_000002");
	if (settings_to_agent(&s, m) < 0)
		abort();
	seed(dir, "agent_start", m);
	seed(dir, "error", ipc_error_new(9, IPC_E_BAD_REQUEST, "no \"prof_dir\" \u00fc"));
	m = ipc_msg_new(IPC_T_DUMP, 11);
	cJSON_AddStringToObject(m, "trigger", "command");
	seed(dir, "dump", m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *seeds = getenv("FUZZ_SEEDS");
	if (seeds && *seeds) {
		write_seeds(seeds);
		exit(0);
	}
	return 0;
}

/* The frame's JSON as the agent reads msprofd's messages. */
static void agent_reads(const char *json, size_t len)
{
	static char strbuf[IPC_MAX_MSG + 1];
	struct ajson_obj o;
	if (ajson_parse(json, len, strbuf, sizeof strbuf, &o) < 0)
		return;
	const char *str;
	int64_t i;
	bool b;
	(void)ajson_get_str(&o, "type", &str);
	(void)ajson_get_int(&o, "v", &i);
	(void)ajson_get_int(&o, "id", &i);
	(void)ajson_get_bool(&o, "msproftx", &b);
	for (size_t k = 0; k < o.n; k++)
		(void)ajson_get(&o, o.m[k].key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	size_t left = size;
	for (;;) {
		size_t used = 0;
		cJSON *msg = NULL;
		int r = ipc_frame_decode(p, left, &used, &msg);
		if (r <= 0 || used == 0 || used > left)
			break; /* more bytes needed, or damage: msprofd drops the peer */
		agent_reads(p + 4, used - 4);
		enum ipc_type type;
		uint64_t id;
		if (ipc_msg_check(msg, &type, &id) == 0) {
			(void)ipc_msg_err(msg);
			if (type == IPC_T_SESSION_START) {
				struct settings s;
				char why[256];
				if (settings_from_ipc(msg, &s, why, sizeof why) == 0) {
					/* what a session takes, sent on to its agents */
					cJSON *a = ipc_msg_new(IPC_T_AGENT_START, id);
					if (a && settings_to_agent(&s, a) < 0)
						abort();
					cJSON_Delete(a);
				}
			}
		}
		/* encoded again, it decodes to the same message */
		char *frame, *before = cJSON_PrintUnformatted(msg);
		size_t len, used2;
		if (before && ipc_frame_encode(msg, &frame, &len) == 0) {
			cJSON *again = NULL;
			if (ipc_frame_decode(frame, len, &used2, &again) != 1 || used2 != len) {
				fprintf(stderr, "fuzz-ipc: a message encoded does not decode: %s\n", before);
				abort();
			}
			char *after = cJSON_PrintUnformatted(again);
			if (!after || strcmp(before, after) != 0) {
				fprintf(stderr, "fuzz-ipc: a message changed through a frame: %s -> %s\n", before,
					after ? after : "(none)");
				abort();
			}
			free(after);
			cJSON_Delete(again);
			free(frame);
		}
		free(before);
		cJSON_Delete(msg);
		p += used;
		left -= used;
	}
	return 0;
}
