#include "session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "collectors/profdir.h"
#include "console.h"
#include "export/export.h"
#include "ipc/ipc.h"
#include "util.h"

#define START_TIMEOUT_MS 10000
/* the daemon closes its raw files before it answers */
#define STOP_TIMEOUT_MS 30000

static void cjson_deletep(cJSON **p)
{
	cJSON_Delete(*p);
}
#define _cleanup_cjson_ _cleanup_(cjson_deletep)

void session_init(struct session *s)
{
	*s = (struct session){ .sid = -1, .next_id = 1 };
}

void session_release(struct session *s)
{
	ipc_client_free(s->ipc);
	free(s->prof_dir);
	session_init(s);
}

int session_connect(struct session *s)
{
	char *err = NULL;
	int r = ipc_client_connect(NULL, &s->ipc, &err);
	if (r < 0) {
		console_error("cannot connect to msprofd: %s", err ? err : strerror(-r));
		free(err);
		return r;
	}
	return 0;
}

static const char *type_name(enum out_type t)
{
	return t == OUT_DB ? "db" : "text";
}

int session_create_dir(struct session *s, const char *output, const struct msprof_opts *o, pid_t target,
		       const char *target_name, int rank_id, const char *app_name, const char *app_dir)
{
	_cleanup_cjson_ cJSON *sample = NULL;
	int r = profdir_create(output, getpid(), &s->prof_dir);
	if (r < 0) {
		console_error("cannot create a PROF directory in '%s': %s", output, strerror(-r));
		return r;
	}

	struct host_facts *facts = calloc(1, sizeof(*facts));
	if (!facts) {
		r = -ENOMEM;
		goto fail;
	}
	r = host_facts_read(facts);
	if (r >= 0)
		r = profdir_write_info(s->prof_dir, facts, target, target_name, rank_id);
	free(facts);
	if (r < 0)
		goto fail;

	sample = cJSON_CreateObject();
	if (!sample ||
	    !cJSON_AddStringToObject(sample, "result_dir", output) ||
	    !cJSON_AddStringToObject(sample, "host_sys", o->host_sys_list) ||
	    !cJSON_AddNumberToObject(sample, "host_sys_freq", o->host_sys_freq) ||
	    !cJSON_AddStringToObject(sample, "host_sys_usage", o->host_usage_list) ||
	    !cJSON_AddNumberToObject(sample, "host_sys_usage_freq", o->host_usage_freq) ||
	    !cJSON_AddStringToObject(sample, "storageLimit", o->storage_limit ? o->storage_limit : "") ||
	    !cJSON_AddStringToObject(sample, "app", app_name ? app_name : "") ||
	    !cJSON_AddStringToObject(sample, "app_dir", app_dir ? app_dir : "") ||
	    !cJSON_AddStringToObject(sample, "type", type_name(o->type))) {
		r = -ENOMEM;
		goto fail;
	}
	r = profdir_write_sample(s->prof_dir, sample);
	if (r < 0)
		goto fail;
	return 0;

fail:
	console_error("cannot write the files of '%s': %s", s->prof_dir, strerror(-r));
	session_discard(s);
	return r;
}

/* Send req and wait for its reply; prints the daemon's error. */
static int call(struct session *s, cJSON *req, int timeout_ms, const char *what, cJSON **ret_reply)
{
	cJSON *reply = NULL;
	int r = ipc_client_call(s->ipc, req, timeout_ms, &reply);
	if (r == -EREMOTEIO) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(reply, "message");
		console_error("msprofd refused to %s: %s", what, cJSON_IsString(m) ? m->valuestring : "unknown error");
		cJSON_Delete(reply);
		return r;
	}
	if (r < 0) {
		console_error("cannot %s: msprofd did not answer: %s", what, strerror(-r));
		return r;
	}
	*ret_reply = reply;
	return 0;
}

int session_start(struct session *s, const struct msprof_opts *o, const pid_t *pids, unsigned n_pids)
{
	int r = profdir_write_time_info(s->prof_dir, 1, 0, 0);
	if (r < 0) {
		console_error("cannot write the start_info of '%s': %s", s->prof_dir, strerror(-r));
		return r;
	}

	_cleanup_cjson_ cJSON *req = ipc_msg_new(IPC_T_SESSION_START, s->next_id++);
	cJSON *arr = req ? cJSON_AddArrayToObject(req, "pids") : NULL;
	if (!arr)
		return -ENOMEM;
	for (unsigned i = 0; i < n_pids; i++)
		if (!cJSON_AddItemToArray(arr, cJSON_CreateNumber(pids[i])))
			return -ENOMEM;
	if (!cJSON_AddStringToObject(req, "prof_dir", s->prof_dir) ||
	    !cJSON_AddBoolToObject(req, "follow_children", true) ||
	    !cJSON_AddStringToObject(req, "host_sys", o->host_sys_list) ||
	    !cJSON_AddNumberToObject(req, "host_sys_freq", o->host_sys_freq) ||
	    !cJSON_AddStringToObject(req, "host_sys_usage", o->host_usage_list) ||
	    !cJSON_AddNumberToObject(req, "host_sys_usage_freq", o->host_usage_freq) ||
	    !cJSON_AddNumberToObject(req, "storage_limit_mb", (double)o->storage_limit_mb))
		return -ENOMEM;

	_cleanup_cjson_ cJSON *reply = NULL;
	r = call(s, req, START_TIMEOUT_MS, "start the session", &reply);
	if (r < 0)
		return r;
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(reply, "session");
	if (!cJSON_IsNumber(sid) || sid->valuedouble < 0) {
		console_error("cannot start the session: msprofd sent a reply without a session id");
		return -EBADMSG;
	}
	s->sid = (int64_t)sid->valuedouble;
	return 0;
}

int session_fd(const struct session *s)
{
	return s->ipc && !s->lost ? ipc_client_fd(s->ipc) : -1;
}

static void on_event(struct session *s, const cJSON *ev)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
	if (!cJSON_IsString(type) || ipc_type_from_name(type->valuestring) != IPC_T_SESSION_ENDED)
		return;
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(ev, "session");
	if (!cJSON_IsNumber(sid) || (int64_t)sid->valuedouble != s->sid)
		return;
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ev, "message");
	s->ended = true;
	snprintf(s->ended_reason, sizeof(s->ended_reason), "%s", cJSON_IsString(reason) ? reason->valuestring : "");
	/* the profiled tree exiting is the normal end; anything else the user
	 * must know about, once */
	if (!streq(s->ended_reason, "target_exited"))
		console_warn("msprofd ended the session (%s): %s; host data collection stopped, "
			     "the application keeps running", s->ended_reason,
			     cJSON_IsString(msg) ? msg->valuestring : "no reason given");
}

void session_poll(struct session *s)
{
	while (s->ipc && !s->lost) {
		cJSON *ev = NULL;
		int r = ipc_client_poll_event(s->ipc, &ev);
		if (r == 0)
			return;
		if (r < 0) {
			s->lost = true;
			if (!s->ended)
				console_warn("lost the connection to msprofd (%s): host data collection stopped, "
					     "the application keeps running", strerror(-r));
			return;
		}
		on_event(s, ev);
		cJSON_Delete(ev);
	}
}

int session_stop(struct session *s)
{
	int r = 0;
	if (s->sid >= 0 && !s->lost && !s->ended) {
		_cleanup_cjson_ cJSON *req = ipc_msg_new(IPC_T_SESSION_STOP, s->next_id++);
		if (!req || !cJSON_AddNumberToObject(req, "session", (double)s->sid))
			return -ENOMEM;
		_cleanup_cjson_ cJSON *reply = NULL;
		r = call(s, req, STOP_TIMEOUT_MS, "stop the session", &reply);
	}
	s->sid = -1;
	int e = profdir_write_time_info(s->prof_dir, 0, 0, 0);
	if (e < 0)
		console_error("cannot write the end_info of '%s': %s", s->prof_dir, strerror(-e));
	return r < 0 ? r : e;
}

void session_discard(struct session *s)
{
	if (s->sid >= 0 && !s->lost) {
		_cleanup_cjson_ cJSON *req = ipc_msg_new(IPC_T_SESSION_STOP, s->next_id++);
		cJSON *reply = NULL;
		if (req && cJSON_AddNumberToObject(req, "session", (double)s->sid) &&
		    ipc_client_call(s->ipc, req, STOP_TIMEOUT_MS, &reply) >= 0)
			cJSON_Delete(reply);
		s->sid = -1;
	}
	if (s->prof_dir) {
		int r = profdir_remove_empty(s->prof_dir);
		if (r < 0)
			console_warn("cannot remove '%s': %s", s->prof_dir, strerror(-r));
		free(s->prof_dir);
		s->prof_dir = NULL;
	}
}

int export_one(const char *prof_dir, enum out_type type)
{
	char *copy = strdup(prof_dir);
	if (!copy)
		return -ENOMEM;
	const char *name = basename(copy);
	struct export_options opt = { .type = type == OUT_DB ? EXPORT_DB : EXPORT_TEXT };
	struct export_report *rep = calloc(1, sizeof(*rep));
	if (!rep) {
		free(copy);
		return -ENOMEM;
	}

	/* msprof's RunningMode::StartExportTask lines */
	console_info("Start export data in %s.", name);
	int r = export_prof_dir(prof_dir, &opt, rep);
	if (r < 0) {
		console_error("cannot export '%s': %s", name, rep->message[0] ? rep->message : strerror(-r));
	} else {
		if (rep->message[0])
			console_warn("%s", rep->message);
		console_info("Export all data in %s done.", name);
	}
	free(rep);
	free(copy);
	return r;
}

int signals_watch(bool with_chld, sigset_t *ret_old)
{
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	if (with_chld)
		sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, ret_old);
	int fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		console_error("cannot watch signals: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, ret_old, NULL);
		return -1;
	}
	return fd;
}
