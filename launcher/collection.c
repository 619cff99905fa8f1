#include "launcher/collection.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/app.h"
#include "collectors/profdir.h"
#include "launcher/console.h"
#include "export/export.h"
#include "launcher/progress.h"
#include "ipc/ipc.h"
#include "ipc/selectors.h"
#include "common/cjson-cleanup.h"
#include "common/selfenable.h"
#include "common/util.h"

#define START_TIMEOUT_MS 10000
/* the daemon closes its raw files before it answers */
#define STOP_TIMEOUT_MS 30000
#define CONTROL_TIMEOUT_MS 10000  /* claim, agents */


void collection_init(struct collection *s)
{
	*s = (struct collection){ .sid = -1, .next_id = 1 };
}

void collection_release(struct collection *s)
{
	ipc_client_free(s->ipc);
	cJSON_Delete(s->refused);
	free(s->prof_dir);
	if (s->spare)
		(void)profdir_remove_empty(s->spare);
	free(s->spare);
	collection_init(s);
}

int collection_connect(struct collection *s)
{
	char *err = NULL;
	int r = ipc_client_connect(NULL, &s->ipc, &err);
	if (r < 0) {
		if (!s->retry_quiet)
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

/* host/info.json (for target) and host/sample.json (the options as given)
 * in the PROF dir dir. */
static int write_files(const char *dir, const char *output, const struct msprof_opts *o, pid_t target,
		       const char *target_name, int rank_id, const char *app_name, const char *app_dir)
{
	_cleanup_json_ cJSON *sample = NULL;
	int r;

	/* The machine's facts, read once per run: /proc/cpuinfo and
	 * /sys/class/net take milliseconds, and each window of a dynamic
	 * run would otherwise read them again. */
	static struct host_facts *facts;
	if (!facts) {
		struct host_facts *f = calloc(1, sizeof(*f));
		r = f ? host_facts_read(f) : -ENOMEM;
		if (r < 0) {
			free(f);
			return r;
		}
		facts = f;
	}
	r = profdir_write_info(dir, facts, target, target_name, rank_id);
	if (r < 0)
		return r;

	/* the settings as their rows name them, around the job's keys, in
	 * msprof's order */
	sample = cJSON_CreateObject();
	if (!sample ||
	    !cJSON_AddStringToObject(sample, "result_dir", output) ||
	    settings_to_sample(&o->set, 0, SET_SAMPLE_SPLIT, sample) < 0 ||
	    !cJSON_AddStringToObject(sample, "app", app_name ? app_name : "") ||
	    !cJSON_AddStringToObject(sample, "app_dir", app_dir ? app_dir : "") ||
	    !cJSON_AddStringToObject(sample, "type", type_name(o->type)) ||
	    !cJSON_AddStringToObject(sample, "dynamic", o->dynamic ? "on" : "off") ||
	    !cJSON_AddStringToObject(sample, "pid", o->pid_arg ? o->pid_arg : "") ||
	    !cJSON_AddNumberToObject(sample, "delay", o->delay_s) ||
	    !cJSON_AddNumberToObject(sample, "duration", o->duration_s) ||
	    settings_to_sample(&o->set, SET_SAMPLE_SPLIT, _SET_MAX, sample) < 0)
		return -ENOMEM;
	r = profdir_write_sample(dir, sample);
	/* MSPROF_CONFIG's metadata (msprof self-enable), kept as torch_npu
	 * keeps it: a JSON object, else nothing */
	const char *meta = getenv(METADATA_VAR);
	_cleanup_json_ cJSON *mj = r >= 0 && meta ? cJSON_Parse(meta) : NULL;
	if (cJSON_IsObject(mj))
		r = profdir_write_json(dir, "profiler_metadata.json", mj);
	return r;
}

void collection_prepare_dir(struct collection *s, const char *output, const struct msprof_opts *o, pid_t target,
			    const char *target_name, int rank_id, const char *app_name, const char *app_dir)
{
	if (s->spare)
		return;
	char *spare = NULL;
	if (profdir_create_spare(output, &spare) < 0)
		return;   /* the start makes its dir itself, and says what fails */
	if (write_files(spare, output, o, target, target_name, rank_id, app_name, app_dir) < 0) {
		(void)profdir_remove_empty(spare);
		free(spare);
		return;
	}
	s->spare = spare;
}

void collection_forget_spare(struct collection *s)
{
	if (!s->spare)
		return;
	(void)profdir_remove_empty(s->spare);
	free(TAKE_PTR(s->spare));
}

int collection_create_dir(struct collection *s, const char *output, const struct msprof_opts *o, pid_t target,
		       const char *target_name, int rank_id, const char *app_name, const char *app_dir)
{
	int r;
	if (s->spare) {
		/* made ahead for this target with these options: one rename */
		r = profdir_claim_spare(s->spare, s->dir_pid > 0 ? s->dir_pid : getpid(), &s->prof_dir);
		if (r == 0) {
			free(TAKE_PTR(s->spare));
			return 0;
		}
		(void)profdir_remove_empty(s->spare);
		free(TAKE_PTR(s->spare));
	}
	r = profdir_create(output, s->dir_pid > 0 ? s->dir_pid : getpid(), &s->prof_dir);
	if (r < 0) {
		console_error("cannot create a PROF directory in '%s': %s", output, strerror(-r));
		return r;
	}
	r = write_files(s->prof_dir, output, o, target, target_name, rank_id, app_name, app_dir);
	if (r < 0) {
		console_error("cannot write the files of '%s': %s", s->prof_dir, strerror(-r));
		collection_discard(s);
		return r;
	}
	return 0;
}

/* Whether the comma-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, word, n) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int64_t json_int(const cJSON *obj, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	int64_t n;
	return cJSON_IsNumber(v) && double_to_i64(v->valuedouble, &n) ? n : dflt;
}

/* Send req and wait for its reply; prints the daemon's error. */
static int call(struct collection *s, cJSON *req, int timeout_ms, const char *what, cJSON **ret_reply)
{
	cJSON *reply = NULL;
	if (!s->ipc)
		return -ENOTCONN;
	int r = ipc_client_call(s->ipc, req, timeout_ms, &reply);
	if (r == -EREMOTEIO && ipc_msg_err(reply) == IPC_E_NOT_FOUND) {
		/* The session ended on the daemon's side before we asked: its
		 * session_ended came before this reply (one connection, in
		 * order) and is queued; take it.  Not an error, unless the
		 * daemon never said so. */
		cJSON_Delete(reply);
		collection_poll(s);
		if (s->quiet || s->ended)
			return -ENOENT;
		console_error("msprofd refused to %s: no such session", what);
		return -EREMOTEIO;
	}
	if (r == -EREMOTEIO) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(reply, "message");
		if (!s->retry_quiet)
			console_error("msprofd refused to %s: %s", what,
				      cJSON_IsString(m) ? m->valuestring : "unknown error");
		cJSON_Delete(reply);
		return r;
	}
	if (r < 0) {
		if (!s->retry_quiet)
			console_error("cannot %s: msprofd did not answer: %s", what, strerror(-r));
		return r;
	}
	*ret_reply = reply;
	return 0;
}

/* One line, once per run, on what the devices give: the names of those
 * sampled, or why device collection is off (host profiling goes on). */
static void report_devices(const cJSON *reply)
{
	static bool said;
	const char *off = json_str(reply, "device_off");
	const cJSON *devs = cJSON_GetObjectItemCaseSensitive(reply, "devices"), *d;
	if (said || (!off && !cJSON_IsArray(devs)))
		return;
	said = true;
	if (off) {
		console_info("Device collection is off: %s; host profiling goes on.", off);
		return;
	}
	char names[512] = "";
	size_t used = 0;
	unsigned n = 0;
	cJSON_ArrayForEach(d, devs) {
		const char *name = json_str(d, "name");
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%d: %s", n ? ", " : "",
						 (int)json_int(d, "id", -1), name ? name : "?");
		n++;
	}
	const char *backend = json_str(reply, "device_backend");
	console_info("Device collection on %u device(s) through %s (%s).", n, backend ? backend : "?", names);
}

int collection_write_start_info(struct collection *s)
{
	if (!s->start_rns || !s->prof_dir)
		return 0;
	int r = profdir_write_time_info(s->prof_dir, 1, s->start_rns, s->start_monoraw_ns);
	if (r < 0 && !s->retry_quiet)
		console_error("cannot write the start_info of '%s': %s", s->prof_dir, strerror(-r));
	else if (r == 0)
		s->start_rns = 0;
	return r;
}

int collection_start(struct collection *s, const struct msprof_opts *o, const pid_t *pids, unsigned n_pids)
{
	/* the window begins before the request; its start_info may be
	 * written after the reply (defer_start_info) */
	s->start_rns = real_ns();
	s->start_monoraw_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	int r = s->defer_start_info ? 0 : collection_write_start_info(s);
	if (r < 0)
		return r;

	_cleanup_json_ cJSON *req = ipc_msg_new(IPC_T_SESSION_START, s->next_id++);
	cJSON *arr = req ? cJSON_AddArrayToObject(req, "pids") : NULL;
	if (!arr)
		return -ENOMEM;
	for (unsigned i = 0; i < n_pids; i++)
		if (!cJSON_AddItemToArray(arr, cJSON_CreateNumber(pids[i])))
			return -ENOMEM;
	if (!cJSON_AddStringToObject(req, "prof_dir", s->prof_dir) ||
	    !cJSON_AddBoolToObject(req, "follow_children", true) ||
	    (s->follow_adopted && !cJSON_AddBoolToObject(req, "follow_adopted", true)) ||
	    !cJSON_AddBoolToObject(req, "agent", true) ||
	    settings_to_ipc(&o->set, req) < 0)
		return -ENOMEM;

	_cleanup_json_ cJSON *reply = NULL;
	r = call(s, req, START_TIMEOUT_MS, "start the session", &reply);
	if (r < 0)
		return r;
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(reply, "session");
	if (!cJSON_IsNumber(sid) || sid->valuedouble < 0 || !double_to_i64(sid->valuedouble, &s->sid)) {
		console_error("cannot start the session: msprofd sent a reply without a session id");
		return -EBADMSG;
	}
	report_devices(reply);
	s->ended = false;
	s->ended_reason[0] = s->ended_message[0] = '\0';
	return 0;
}

int collection_fd(const struct collection *s)
{
	return s->ipc && !s->lost ? ipc_client_fd(s->ipc) : -1;
}

/* The sampler's counts in session_stopped or session_ended. */
static void take_counts(struct collection *s, const cJSON *m)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "ticks");
	const cJSON *mt = cJSON_GetObjectItemCaseSensitive(m, "missed_ticks");
	if (cJSON_IsNumber(t))
		(void)double_to_u64(t->valuedouble, &s->ticks);
	if (cJSON_IsNumber(mt))
		(void)double_to_u64(mt->valuedouble, &s->missed_ticks);
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(m, "agents_refused_count");
	const cJSON *rl = cJSON_GetObjectItemCaseSensitive(m, "agents_refused");
	if (cJSON_IsNumber(rc) && rc->valuedouble >= 1 && double_to_u64(rc->valuedouble, &s->n_refused)) {
		cJSON_Delete(s->refused);
		s->refused = cJSON_IsArray(rl) ? cJSON_Duplicate(rl, 1) : NULL;
	}
}

/* Processes of the job whose agent msprofd turned away (its agent limit):
 * their annotations are missing.  Each is named here, in info.json
 * ("agentsRefused", which the export's report reads) and in msprofd's log
 * (past what a reply lists). */
static void report_refused(struct collection *s)
{
	const cJSON *e;
	uint64_t listed = 0;
	char *names = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&names, &len);

	cJSON_ArrayForEach(e, s->refused) {
		const char *name = json_str(e, "name");
		if (f)
			fprintf(f, "%s%d (%s)", listed ? ", " : "", (int)json_int(e, "pid", -1), name ? name : "?");
		listed++;
	}
	if (f && s->n_refused > listed)
		fprintf(f, "%s%" PRIu64 " more (msprofd's log names them)", listed ? ", and " : "",
			s->n_refused - listed);
	if (f)
		fclose(f);
	console_warn("msprofd turned away %" PRIu64 " process(es) of the job at its agent limit (MSPROFD_MAX_AGENTS "
		     "raises it): their annotations are not recorded: %s", s->n_refused, names ? names : "?");
	free(names);

	cJSON *list = s->refused ? TAKE_PTR(s->refused) : cJSON_CreateArray();
	cJSON *info = cJSON_CreateObject();
	if (!info || !list || !cJSON_AddNumberToObject(info, "count", (double)s->n_refused) ||
	    !cJSON_AddItemToObject(info, "processes", list)) {
		cJSON_Delete(list);
		cJSON_Delete(info);
		info = NULL;
	}
	int r = !s->prof_dir ? 0 : info ? profdir_update_info(s->prof_dir, "agentsRefused", info) : -ENOMEM;
	if (r < 0)
		console_error("cannot name the processes turned away in '%s/host/info.json': %s", s->prof_dir,
			      strerror(-r));
	s->n_refused = 0;
}

bool collection_take_capture(struct collection *s, struct capture_ask *ret)
{
	if (!s->n_capture)
		return false;
	*ret = s->capture[0];
	memmove(&s->capture[0], &s->capture[1], --s->n_capture * sizeof s->capture[0]);
	return true;
}

bool collection_take_dump(struct collection *s, struct dump_ask *ret)
{
	if (!s->dump_pending)
		return false;
	*ret = s->dump;
	s->dump_pending = false;
	return true;
}

int collection_new_dir(const char *output, const struct msprof_opts *o, pid_t target, const char *target_name,
		       int rank_id, const char *app_name, const char *app_dir, char **ret_path)
{
	char *dir = NULL;
	int r = profdir_create(output, getpid(), &dir);
	if (r < 0)
		return r;
	r = write_files(dir, output, o, target, target_name, rank_id, app_name, app_dir);
	if (r < 0) {
		(void)profdir_remove_empty(dir);
		free(dir);
		return r;
	}
	*ret_path = dir;
	return 0;
}

static void on_event(struct collection *s, const cJSON *ev)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
	enum ipc_type t = cJSON_IsString(type) ? ipc_type_from_name(type->valuestring) : IPC_T_UNKNOWN;
	if (t == IPC_T_DUMP_ASKED) {
		const char *trigger = json_str(ev, "trigger"), *detail = json_str(ev, "detail");
		if (!trigger || json_int(ev, "session", -1) != s->sid)
			return;
		if (s->dump_pending) {
			s->dumps_merged++;
			return;
		}
		snprintf(s->dump.trigger, sizeof s->dump.trigger, "%s", trigger);
		snprintf(s->dump.detail, sizeof s->dump.detail, "%s", detail ? detail : "");
		s->dump.by = (pid_t)json_int(ev, "by", 0);
		s->dump_pending = true;
		return;
	}
	if (t == IPC_T_CAPTURE_ASKED) {
		const cJSON *start = cJSON_GetObjectItemCaseSensitive(ev, "start");
		const cJSON *steps = cJSON_GetObjectItemCaseSensitive(ev, "steps");
		int64_t lo, hi;
		if (!cJSON_IsBool(start) ||
		    (steps && (!cJSON_IsString(steps) || ipc_parse_step_range(steps->valuestring, &lo, &hi) < 0)))
			return;
		if (s->n_capture == COLLECTION_CAPTURES) {
			s->capture_dropped++;
			return;
		}
		struct capture_ask *a = &s->capture[s->n_capture++];
		a->start = cJSON_IsTrue(start);
		a->by = (pid_t)json_int(ev, "by", 0);
		snprintf(a->steps, sizeof a->steps, "%s", steps ? steps->valuestring : "");
		return;
	}
	if (t != IPC_T_SESSION_ENDED)
		return;
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(ev, "session");
	if (!cJSON_IsNumber(sid) || (int64_t)sid->valuedouble != s->sid)
		return;
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ev, "message");
	s->ended = true;
	take_counts(s, ev);
	snprintf(s->ended_reason, sizeof(s->ended_reason), "%s", cJSON_IsString(reason) ? reason->valuestring : "");
	snprintf(s->ended_message, sizeof(s->ended_message), "%s",
		 cJSON_IsString(msg) ? msg->valuestring : "no reason given");
	/* the profiled tree exiting is the normal end; anything else the user
	 * must know about, once */
	if (!s->quiet && !streq(s->ended_reason, "target_exited"))
		console_warn("msprofd ended the session (%s): %s; host data collection stopped, "
			     "the application keeps running", s->ended_reason, s->ended_message);
}

void collection_poll(struct collection *s)
{
	while (s->ipc && !s->lost) {
		cJSON *ev = NULL;
		int r = ipc_client_poll_event(s->ipc, &ev);
		if (r == 0)
			return;
		if (r < 0) {
			s->lost = true;
			if (!s->ended && !s->quiet)
				console_warn("lost the connection to msprofd (%s): host data collection%s stopped, "
					     "the application keeps running", strerror(-r),
					     s->agents ? " and the annotation recording of its processes" : "");
			return;
		}
		on_event(s, ev);
		cJSON_Delete(ev);
	}
}

int collection_stop(struct collection *s)
{
	int r = 0;
	/* a session_ended that came meanwhile makes the stop moot */
	if (s->sid >= 0)
		collection_poll(s);
	if (s->sid >= 0 && !s->lost && !s->ended) {
		_cleanup_json_ cJSON *req = ipc_msg_new(IPC_T_SESSION_STOP, s->next_id++);
		if (!req || !cJSON_AddNumberToObject(req, "session", (double)s->sid))
			return -ENOMEM;
		_cleanup_json_ cJSON *reply = NULL;
		r = call(s, req, STOP_TIMEOUT_MS, "stop the session", &reply);
		if (r == -ENOENT)
			r = 0;
		if (r >= 0 && reply)
			take_counts(s, reply);
	}
	/* the time the host samples do not cover: the export's report has it
	 * per source (SAMPLER_TICKS) */
	if (s->sid >= 0 && s->n_refused)
		report_refused(s);
	if (s->sid >= 0 && s->missed_ticks && !s->quiet)
		console_warn("host sampling missed %" PRIu64 " of %" PRIu64 " tick(s): msprofd could not keep to "
			     "the sampling rate (a lower --host-sys-freq or --host-sys-usage-freq helps)",
			     s->missed_ticks, s->ticks + s->missed_ticks);
	s->sid = -1;
	s->end_rns = real_ns();
	s->end_monoraw_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	int e = s->defer_end_info ? 0 : collection_write_end_info(s);
	return r < 0 ? r : e;
}

int collection_write_end_info(struct collection *s)
{
	if (!s->end_rns || !s->prof_dir)
		return 0;
	int r = profdir_write_time_info(s->prof_dir, 0, s->end_rns, s->end_monoraw_ns);
	if (r < 0)
		console_error("cannot write the end_info of '%s': %s", s->prof_dir, strerror(-r));
	else
		s->end_rns = 0;
	return r;
}

char *collection_take_dir(struct collection *s)
{
	s->sid = -1;
	s->ended = false;
	s->ended_reason[0] = s->ended_message[0] = '\0';
	s->ticks = s->missed_ticks = 0;
	return TAKE_PTR(s->prof_dir);
}

/* A control request (req not consumed); *ret_reply on success. */
static int control(struct collection *s, cJSON *req, cJSON **ret_reply)
{
	cJSON *reply = NULL;
	if (!s->ipc || s->lost)
		return -ENOTCONN;
	if (!req)
		return -ENOMEM;
	int r = ipc_client_call(s->ipc, req, CONTROL_TIMEOUT_MS, &reply);
	if (r == -EREMOTEIO) {
		r = ipc_msg_err(reply) == IPC_E_UNKNOWN_TYPE ? -EOPNOTSUPP : -EPROTO;
		cJSON_Delete(reply);
		return r;
	}
	if (r < 0) {
		if (r == -ECONNRESET)
			s->lost = true;
		return r;
	}
	*ret_reply = reply;
	return 0;
}

int collection_sampled(struct collection *s, unsigned *ret_live, unsigned *ret_seen)
{
	_cleanup_json_ cJSON *reply = NULL;
	cJSON *req = ipc_msg_new(IPC_T_STATUS, s->next_id++);
	int r = control(s, req, &reply);
	cJSON_Delete(req);
	if (r < 0)
		return r;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(reply, "sampled"), *e;
	cJSON_ArrayForEach(e, list) {
		int64_t live = json_int(e, "live", -1), seen = json_int(e, "seen", -1);
		if (s->sid < 0 || json_int(e, "session", -1) != s->sid || live < 0 || seen < live || seen > UINT32_MAX)
			continue;
		*ret_live = (unsigned)live;
		*ret_seen = (unsigned)seen;
		return 0;
	}
	return -ENOENT;
}

void collection_wait_first_sample(struct collection *s, unsigned timeout_ms)
{
	uint64_t end = mono_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	unsigned live, seen;
	for (;;) {
		int r = collection_sampled(s, &live, &seen);
		if ((r == 0 && seen > 0) || (r < 0 && r != -ENOENT) || mono_ns() >= end)
			return; /* an msprofd that does not say: no wait */
		(void)nanosleep(&(struct timespec){ .tv_nsec = NSEC_PER_MSEC }, NULL);
	}
}

int collection_claim(struct collection *s, pid_t pid, const char *schedule, char *why, size_t why_len)
{
	_cleanup_json_ cJSON *reply = NULL;
	cJSON *req = ipc_msg_new(IPC_T_CLAIM, s->next_id++);
	cJSON *arr = req ? cJSON_AddArrayToObject(req, "pids") : NULL;
	if (!arr || !cJSON_AddItemToArray(arr, cJSON_CreateNumber(pid)) ||
	    (schedule && !cJSON_AddStringToObject(req, "schedule", schedule))) {
		cJSON_Delete(req);
		return -ENOMEM;
	}
	int r = control(s, req, &reply);
	cJSON_Delete(req);
	if (r < 0) {
		snprintf(why, why_len, "%s", strerror(-r));
		return r;
	}
	const cJSON *refused = cJSON_GetObjectItemCaseSensitive(reply, "refused"), *item;
	cJSON_ArrayForEach(item, refused) {
		if (json_int(item, "pid", -1) != pid)
			continue;
		const char *code = json_str(item, "code"), *msg = json_str(item, "message");
		snprintf(why, why_len, "%s", msg ? msg : code ? code : "refused");
		/* busy -EBUSY, not_found -ESRCH, denied -EPERM, else -EIO */
		return ipc_err_errno(ipc_msg_err(item));
	}
	return 0;
}

int collection_agents(struct collection *s, struct agent_info **ret, size_t *ret_n)
{
	_cleanup_json_ cJSON *reply = NULL;
	cJSON *req = ipc_msg_new(IPC_T_AGENTS, s->next_id++);
	int r = control(s, req, &reply);
	cJSON_Delete(req);
	if (r < 0)
		return r;
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(reply, "agents"), *a;
	int n = cJSON_IsArray(agents) ? cJSON_GetArraySize(agents) : 0;
	struct agent_info *v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t k = 0;
	cJSON_ArrayForEach(a, agents) {
		int64_t pid = json_int(a, "pid", -1);
		if (pid <= 0 || pid > INT32_MAX || k >= (size_t)n)
			continue;
		const char *name = json_str(a, "name"), *state = json_str(a, "state");
		const char *features = json_str(a, "features");
		v[k].pid = (pid_t)pid;
		v[k].ppid = (pid_t)json_int(a, "ppid", 0);
		v[k].rank = (int)json_int(a, "rank", -1);
		v[k].recording = state && streq(state, "recording");
		v[k].osrt = features && has_word(features, "osrt");
		snprintf(v[k].name, sizeof(v[k].name), "%s", name ? name : "");
		k++;
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

void collection_check_osrt(struct collection *s, const pid_t *pids, unsigned n)
{
	struct agent_info *a = NULL;
	size_t na = 0;
	if (collection_agents(s, &a, &na) < 0)
		return; /* an old msprofd: nothing to tell */
	struct diag d = { 0 };
	_cleanup_free_ char *lib = NULL;
	(void)agent_find_osrt(&lib, &d);
	for (unsigned i = 0; i < n; i++) {
		bool osrt = false;
		for (size_t k = 0; k < na; k++)
			osrt = osrt || (a[k].pid == pids[i] && a[k].osrt);
		if (!osrt)
			console_warn("--host-sys=osrt: process %d was not started with the msprof osrt agent, its OS "
				     "runtime calls will not be collected; to collect them, start it under msprof "
				     "--host-sys=osrt, or start it with LD_PRELOAD=%s and profile it again",
				     (int)pids[i], lib ? lib : AGENT_OSRT_NAME);
	}
	free(a);
}

void collection_discard(struct collection *s)
{
	if (s->sid >= 0 && !s->lost) {
		_cleanup_json_ cJSON *req = ipc_msg_new(IPC_T_SESSION_STOP, s->next_id++);
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

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char **collection_rank_dirs(const char *prof_dir, const struct profdir_known_rank *known, size_t n_known,
			  const char *ranks)
{
	struct profdir_rank *v = NULL;
	size_t n = 0;
	int r = profdir_split_ranks(prof_dir, known, n_known, &v, &n);
	if (r < 0)
		console_warn("cannot give each rank its own PROF dir in '%s': %s; all ranks stay in it",
			     prof_dir, strerror(-r));
	else if (r == 0 && ranks && *ranks)
		console_warn("--ranks=%s: no process of the job was of these ranks (a process's rank is read from "
			     "RANK_ID, RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or LOCAL_RANK in its "
			     "environment), so none was profiled", ranks);
	char **dirs = calloc(n + 2, sizeof(*dirs));
	if (!dirs) {
		profdir_ranks_free(v, n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		console_info("Rank %d (pid %d): %s", (int)v[i].rank, (int)v[i].pid, base(v[i].path));
		dirs[i] = TAKE_PTR(v[i].path);
	}
	profdir_ranks_free(v, n);
	/* the host-level dir: the processes of no rank and the machine's data,
	 * unless the ranks took it all (it is gone, renamed as the one rank's,
	 * or holds nothing but its small files) */
	struct stat st;
	if (r <= 0 || (lstat(prof_dir, &st) == 0 && profdir_remove_empty(prof_dir) < 0)) {
		dirs[n] = strdup(prof_dir);
		if (r > 0 && dirs[n])
			console_info("Processes of no rank: %s", base(prof_dir));
	}
	return dirs;
}

/* The text summary as a block of plain lines between msprof's. */
static void print_summary(const char *text)
{
	if (!text[0])
		return;
	fputs(text, stdout);
	fflush(stdout);
}

/* The end of a run analyzes what it exported, as --analyze=on would
 * (analyze/, where there is communication): the PROF dir is then what
 * msprof-analyze's cluster reads, in either form, with no second step. */
static int analyze_comm(const char *prof_dir, enum out_type type, unsigned *ret_ops, char *why, size_t why_len)
{
	struct export_report *rep = calloc(1, sizeof(*rep));
	if (!rep) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	unsigned what = EXPORT_ANALYZE_DB |
			(type == OUT_DB ? 0 : EXPORT_ANALYZE_COMMUNICATION | EXPORT_ANALYZE_MATRIX);
	int r = export_analyze_comm(prof_dir, what, ret_ops, rep);
	if (r < 0)
		snprintf(why, why_len, "%.500s", export_report_error(rep, r));
	free(rep);
	return r;
}

static void analyze_after_export(const char *prof_dir, const char *name, enum out_type type)
{
	unsigned ops = 0;
	char why[512];
	if (analyze_comm(prof_dir, type, &ops, why, sizeof why) < 0)
		console_warn("cannot analyze the communication of '%s': %s (msprof --analyze=on --output=%s tries "
			     "again)", name, why, prof_dir);
	else if (ops)
		console_info("Analyze all data in %s done (%u communication operation(s)).", name, ops);
}

int export_one(const char *prof_dir, enum out_type type, bool summary)
{
	char *copy = strdup(prof_dir);
	if (!copy)
		return -ENOMEM;
	const char *name = basename(copy);
	struct export_options opt = { .type = type == OUT_DB ? EXPORT_DB : EXPORT_TEXT,
				      .what = summary ? EXPORT_ALL | EXPORT_TEXT_SUMMARY : 0 };
	struct export_report *rep = calloc(1, sizeof(*rep));
	if (!rep) {
		free(copy);
		return -ENOMEM;
	}

	/* msprof's RunningMode::StartExportTask lines */
	console_info("Start export data in %s.", name);
	int sr = profdir_sync(prof_dir);
	if (sr < 0)
		console_warn("cannot make the files of '%s' durable: %s", name, strerror(-sr));
	struct progress p;
	progress_begin(&p, name, &opt);
	int r = export_prof_dir(prof_dir, &opt, rep);
	progress_end(&p, &opt);
	if (r < 0) {
		console_error("cannot export '%s': %s", name, export_report_error(rep, r));
		if (rep->error[0] && rep->message[0])
			console_warn("%s", rep->message);
		console_error("The raw data is kept in %s; once the cause is fixed, export it again with: "
			      "msprof --export=on --output=%s", prof_dir, prof_dir);
	} else {
		if (rep->message[0])
			console_warn("%s", rep->message);
		console_info("Export all data in %s done.", name);
		print_summary(rep->summary);
		analyze_after_export(prof_dir, name, type);
	}
	free(rep);
	free(copy);
	return r;
}

int export_rank_reports(char *const *dirs, const bool *ok, size_t n)
{
	int ret = 0;
	struct export_options opt = { .type = EXPORT_TEXT, .what = EXPORT_REPORT };
	for (size_t i = 0; n > 1 && i < n; i++) {
		if (!ok[i])
			continue;
		struct export_report *rep = calloc(1, sizeof(*rep));
		if (!rep)
			return -ENOMEM;
		int r = export_prof_dir(dirs[i], &opt, rep);
		if (r < 0) {
			console_warn("cannot write the report of '%s' again with every rank: %s", dirs[i],
				     export_report_error(rep, r));
			ret = r;
		}
		free(rep);
	}
	return ret;
}

/* What an export child reports: one write, under PIPE_BUF, so atomic. */
struct export_msg {
	int32_t r;
	char message[sizeof(((struct export_report *)0)->message)];
	char error[sizeof(((struct export_report *)0)->error)];
};
_Static_assert(sizeof(struct export_msg) <= PIPE_BUF, "an export message is one atomic write");

int export_spawn(const char *prof_dir, enum out_type type, bool summary, struct export_job *ret)
{
	int p[2];
	char *copy = strdup(prof_dir), *dir = strdup(prof_dir);
	if (!copy || !dir) {
		free(copy);
		free(dir);
		return -ENOMEM;
	}
	console_info("Start export data in %s.", basename(copy));
	free(copy);
	if (pipe2(p, O_CLOEXEC) < 0) {
		int e = errno;
		free(dir);
		return -e;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		free(dir);
		return -e;
	}
	if (pid == 0) {
		/* Its own process group: a Ctrl-C at the prompt must not cut a
		 * finished window's export short.  No stdin, and none of the
		 * launcher's descriptors (daemon sockets hold claims). */
		setpgid(0, 0);
		signal(SIGINT, SIG_IGN);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		int w = fcntl(p[1], F_DUPFD, 3);
		if (w < 0 || (w > 3 && dup2(w, 3) < 0))
			_exit(1);
		close_range(4, ~0U, 0);
		struct export_msg msg = { 0 };
		struct export_options opt = { .type = type == OUT_DB ? EXPORT_DB : EXPORT_TEXT,
					      .what = summary ? EXPORT_ALL | EXPORT_TEXT_SUMMARY : 0 };
		struct export_report *rep = calloc(1, sizeof(*rep));
		/* What the collection wrote unsynced (profdir.h) is made durable
		 * here, before the export reads it and the window is reported
		 * complete: off the prompt, whose start and stop replies must
		 * not wait for a disk flush. */
		int sr = profdir_sync(dir);
		msg.r = rep ? export_prof_dir(dir, &opt, rep) : -ENOMEM;
		/* analyze/ as at the end of a launch, said in the message when
		 * it fails */
		unsigned ops = 0;
		char why[512];
		if (msg.r >= 0 && rep && !rep->message[0] && analyze_comm(dir, type, &ops, why, sizeof why) < 0)
			snprintf(rep->message, sizeof rep->message, "cannot analyze the communication of '%.300s': %s",
				 dir, why);
		if (rep) {
			snprintf(msg.message, sizeof(msg.message), "%s", rep->message);
			snprintf(msg.error, sizeof(msg.error), "%s", rep->error);
		}
		size_t used = strlen(msg.message);
		if (sr < 0 && msg.r >= 0)
			snprintf(msg.message + used, sizeof(msg.message) - used, "%scannot make the files of '%s' "
				 "durable: %s", used ? "; " : "", dir, strerror(-sr));
		if (write(3, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(1);
		/* the summary after the message: the parent reads it to EOF */
		size_t len = rep ? strlen(rep->summary) : 0;
		_exit(len && write(3, rep->summary, len) != (ssize_t)len ? 1 : 0);
	}
	close(p[1]);
	*ret = (struct export_job){ .pid = pid, .fd = p[0], .prof_dir = dir };
	return 0;
}

int export_finish(struct export_job *job)
{
	struct export_msg msg = { .r = -EIO };
	ssize_t n;
	do
		n = read(job->fd, &msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	char summary[sizeof(((struct export_report *)0)->summary)];
	size_t used = 0;
	while (n == (ssize_t)sizeof(msg) && used < sizeof(summary) - 1) {
		ssize_t k = read(job->fd, summary + used, sizeof(summary) - 1 - used);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		used += (size_t)k;
	}
	summary[used] = '\0';
	close(job->fd);
	job->fd = -1;
	int status = 0;
	while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR)
		;
	msg.message[sizeof(msg.message) - 1] = '\0';
	msg.error[sizeof(msg.error) - 1] = '\0';
	char *copy = strdup(job->prof_dir);
	const char *name = copy ? basename(copy) : job->prof_dir;
	int r = msg.r;
	if (n != (ssize_t)sizeof(msg)) {
		r = -EIO;
		if (WIFSIGNALED(status))
			console_error("cannot export '%s': the export process died of signal %d", name, WTERMSIG(status));
		else
			console_error("cannot export '%s': the export process failed", name);
	} else if (r < 0) {
		console_error("cannot export '%s': %s", name,
			      msg.error[0] ? msg.error : msg.message[0] ? msg.message : strerror(-r));
		if (msg.error[0] && msg.message[0])
			console_warn("%s", msg.message);
	} else {
		if (msg.message[0])
			console_warn("%s", msg.message);
		console_info("Export all data in %s done.", name);
		print_summary(summary);
	}
	free(copy);
	free(job->prof_dir);
	job->prof_dir = NULL;
	job->pid = -1;
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

void signals_unwatch(int *fd, const sigset_t *old)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	sigprocmask(SIG_SETMASK, old, NULL);
}

int collection_check_space(const struct msprof_opts *o, const char *output)
{
	struct diag d = { 0 };
	if (!opts_u(o, SET_STORAGE_LIMIT) && output_check_space(output, &d) < 0) {
		console_diag(&d);
		return -ENOSPC;
	}
	return 0;
}

int collection_begin(const struct msprof_opts *o, const char *output, bool with_chld, sigset_t *ret_old)
{
	console_info("Start profiling....");
	if (collection_check_space(o, output) < 0)
		return -1;
	return signals_watch(with_chld, ret_old);
}

int collection_ask_dump(struct collection *s, pid_t pid, pid_t *ret_owner, char *why, size_t why_len)
{
	_cleanup_json_ cJSON *reply = NULL;
	cJSON *req = ipc_msg_new(IPC_T_DUMP, s->next_id++);
	if (req && !cJSON_AddNumberToObject(req, "pid", pid)) {
		cJSON_Delete(req);
		req = NULL;
	}
	int r = control(s, req, &reply);
	cJSON_Delete(req);
	if (r == -EPROTO || r == -EOPNOTSUPP) {
		snprintf(why, why_len, "%s", r == -EOPNOTSUPP ? "this msprofd has no flight recorder (use msprof and "
			 "msprofd from the same release)" : "no flight recorder of this user covers it (msprof "
			 "--flight-recorder must be profiling it or an ancestor of it)");
		return r;
	}
	if (r < 0) {
		snprintf(why, why_len, "msprofd did not answer: %s", strerror(-r));
		return r;
	}
	*ret_owner = (pid_t)json_int(reply, "owner", 0);
	return 0;
}
