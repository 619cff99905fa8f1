#include "launcher/flight.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"
#include "ipc/ipc.h"
#include "launcher/child.h"
#include "launcher/console.h"

/* A dump waits this long after its trigger, so that what was recorded up
 * to it is in the ring: the agents write their queues every 50 ms, msprofd
 * its samples every 100 ms. */
#define FLIGHT_SETTLE_MS 200

static bool on_tmpfs(const char *dir)
{
	struct statfs st;
	return statfs(dir, &st) == 0 && (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC);
}

static int ring_base(char *buf, size_t size)
{
	const char *env = getenv("MSPROF_RING_DIR");
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return 0;
	}
	if (on_tmpfs("/dev/shm") && access("/dev/shm", W_OK | X_OK) == 0) {
		snprintf(buf, size, "/dev/shm");
		return 0;
	}
	char *path = NULL;
	const char *why = NULL;
	int r = ipc_runtime_dir(&path, &why);
	if (r >= 0)
		snprintf(buf, size, "%s", path);
	free(path);
	return r < 0 ? r : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw);

/* Rings in base left by an msprof that died (SIGKILL, a crash) before it
 * removed its own: each names its msprof in RING_OWNER. */
#define RING_OWNER "msprof.pid"
static void remove_stale(const char *base)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "msprof-ring-%u-", (unsigned)getuid());
	DIR *d = opendir(base);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		char path[PATH_MAX + NAME_MAX + 2], owner[sizeof path + 16];
		snprintf(path, sizeof path, "%s/%s", base, de->d_name);
		snprintf(owner, sizeof owner, "%s/" RING_OWNER, path);
		FILE *fp = fopen(owner, "re");
		long pid = 0;
		bool read_ok = fp && fscanf(fp, "%ld", &pid) == 1 && pid > 0;
		if (fp)
			fclose(fp);
		if (!read_ok || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0)
			console_info("Removed the flight recorder ring '%s' that msprof (pid %ld) left when it died.", path, pid);
	}
	if (d)
		closedir(d);
}

int flight_open(struct flight *f, const struct msprof_opts *o)
{
	*f = (struct flight){ 0 };
	const char *spec = opts_s(o, SET_FLIGHT_RECORDER), *on = opts_s(o, SET_DUMP_ON);
	if (!spec)
		return 0;
	if (flight_spec_parse(spec, &f->spec) < 0 || dump_on_parse(on ? on : FLIGHT_DUMP_ON_DEFAULT, &f->on) < 0)
		return -EINVAL; /* the parser checked them */
	f->limit_bytes = opts_u(o, SET_STORAGE_LIMIT) << 20;
	char base[PATH_MAX - 64], path[PATH_MAX];
	int r = ring_base(base, sizeof base);
	if (r < 0) {
		console_error("cannot find a directory in memory for the flight recorder's ring: %s", strerror(-r));
		return r;
	}
	snprintf(path, sizeof path, "%s/msprof-ring-%u-XXXXXX", base, (unsigned)getuid());
	if (!mkdtemp(path)) {
		r = -errno;
		console_error("cannot make the flight recorder's ring in '%s': %s", base, strerror(-r));
		return r;
	}
	char data[PATH_MAX + 16];
	snprintf(data, sizeof data, "%s/host", path);
	if (mkdir(data, 0700) < 0 || (strcat(data, "/data"), mkdir(data, 0700) < 0)) {
		r = -errno;
		console_error("cannot make the flight recorder's ring in '%s': %s", path, strerror(-r));
		(void)rmdir(path);
		return r;
	}
	if (!on_tmpfs(path))
		console_warn("the flight recorder's ring '%s' is not in memory (tmpfs): it is written to disk", path);
	char owner[PATH_MAX + 16];
	snprintf(owner, sizeof owner, "%s/" RING_OWNER, path);
	FILE *fp = fopen(owner, "we");
	if (fp) {
		fprintf(fp, "%d\n", (int)getpid());
		fclose(fp);
	}
	remove_stale(base);
	f->ring = strdup(path);
	f->start_real_ns = real_ns();
	char host[256] = "host";
	(void)gethostname(host, sizeof host - 1);
	host[strcspn(host, "./")] = '\0';
	const char *rb = strrchr(path, '/');
	if (!f->ring || asprintf(&f->me, FLIGHT_PEER_PREFIX "%s.%s.", host, rb ? rb + 1 : path) < 0) {
		f->me = NULL;
		return -ENOMEM;
	}
	char span[32] = "no bound in time";
	if (f->spec.span_s)
		snprintf(span, sizeof span, "the last %" PRIu64 " s", f->spec.span_s);
	console_info("Flight recorder on: %s, at most %" PRIu64 " MB on this host, in '%s'; dumps on %s.", span,
		     f->spec.ring_mb, f->ring, on ? on : FLIGHT_DUMP_ON_DEFAULT);
	return 0;
}

/* info.json's "flight_recorder": the trigger, the span the dump covers,
 * and what the ring had overwritten by then, by kind. */
static cJSON *dump_info(const struct flight *f, const struct dump_ask *a, uint64_t now_real, uint64_t from_real,
			const struct raw_quota_stats *q, uint64_t files, uint64_t bytes)
{
	/* ns as text: a JSON number (a double) would round them */
	char from[24], to[24];
	snprintf(from, sizeof from, "%" PRIu64, from_real);
	snprintf(to, sizeof to, "%" PRIu64, now_real);
	cJSON *j = cJSON_CreateObject();
	cJSON *ow = j ? cJSON_CreateObject() : NULL;
	if (!ow || !cJSON_AddStringToObject(j, "trigger", a->trigger) ||
	    (a->detail[0] && !cJSON_AddStringToObject(j, "detail", a->detail)) ||
	    (a->by && !cJSON_AddNumberToObject(j, "by_pid", a->by)) ||
	    !cJSON_AddNumberToObject(j, "span_s", (double)f->spec.span_s) ||
	    !cJSON_AddNumberToObject(j, "ring_mb", (double)f->spec.ring_mb) ||
	    !cJSON_AddStringToObject(j, "start_ns", from) || !cJSON_AddStringToObject(j, "end_ns", to) ||
	    !cJSON_AddNumberToObject(j, "files", (double)files) || !cJSON_AddNumberToObject(j, "bytes", (double)bytes) ||
	    !cJSON_AddNumberToObject(j, "overwritten_slices", (double)q->aged_files) ||
	    !cJSON_AddNumberToObject(j, "overwritten_bytes", (double)q->aged_bytes) ||
	    !cJSON_AddNumberToObject(j, "refused_writes", (double)q->refused_records) ||
	    !cJSON_AddItemToObject(j, "overwritten", ow)) {
		cJSON_Delete(ow);
		cJSON_Delete(j);
		return NULL;
	}
	for (unsigned i = 0; i < q->n_aged_types; i++) {
		char key[16];
		snprintf(key, sizeof key, "%u", q->aged_types[i].type);
		if (!cJSON_AddNumberToObject(ow, key, (double)q->aged_types[i].records)) {
			cJSON_Delete(j);
			return NULL;
		}
	}
	return j;
}

/* A ring's data dirs as of one moment (raw_dump_take), host and each
 * device_N, to be written into a dump's PROF dir. */
#define RING_SUBS 65
struct ring_take {
	struct raw_dump *d[RING_SUBS];
	char sub[RING_SUBS][16];     /* "host", "device_N" */
	unsigned n;
	bool in_place;               /* one of them could not be linked */
};

static void ring_take_release(struct ring_take *t)
{
	for (unsigned i = 0; i < t->n; i++)
		t->d[i] = raw_dump_free(t->d[i]);
	t->n = 0;
}

static int ring_take(const char *ring, struct ring_take *t)
{
	*t = (struct ring_take){ 0 };
	for (int dev = -1; dev < RING_SUBS - 1; dev++) {
		char src[PATH_MAX];
		if (dev < 0)
			snprintf(t->sub[t->n], sizeof t->sub[t->n], "host");
		else
			snprintf(t->sub[t->n], sizeof t->sub[t->n], "device_%d", dev);
		snprintf(src, sizeof src, "%s/%s/data", ring, t->sub[t->n]);
		if (dev >= 0 && access(src, F_OK) < 0)
			continue;
		int r = raw_dump_take(src, &t->d[t->n]);
		if (r < 0) {
			ring_take_release(t);
			return r;
		}
		t->in_place |= raw_dump_in_place(t->d[t->n]);
		t->n++;
	}
	return 0;
}

/* What t took into dump/<sub>/data. */
static int ring_write(struct ring_take *t, const char *dump, uint64_t mono, uint64_t real, uint64_t *files,
		      uint64_t *bytes)
{
	for (unsigned i = 0; i < t->n; i++) {
		char dst[PATH_MAX];
		snprintf(dst, sizeof dst, "%s/%s", dump, t->sub[i]);
		if (mkdir(dst, 0750) < 0 && errno != EEXIST)
			return -errno;
		strcat(dst, "/data");
		if (mkdir(dst, 0750) < 0 && errno != EEXIST)
			return -errno;
		uint64_t nf = 0, nb = 0;
		int r = raw_dump_write(t->d[i], dst, mono, real, &nf, &nb);
		*files += nf;
		*bytes += nb;
		if (r < 0)
			return r;
	}
	return 0;
}

static uint64_t tree_bytes_sum;

/* raw data only: the files under a data/ dir (host/data, device_N/data) */
static int tree_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_F && strstr(path, "/data/"))
		tree_bytes_sum += (uint64_t)st->st_size;
	return 0;
}

/* The raw data of a dump's dirs, as --storage-limit counts a collection's. */
static uint64_t dump_bytes(char **dirs)
{
	tree_bytes_sum = 0;
	for (size_t i = 0; dirs && dirs[i]; i++)
		(void)nftw(dirs[i], tree_add, 16, FTW_PHYS);
	return tree_bytes_sum;
}


/* --storage-limit: the oldest dumps go until the new one, as big as the
 * ring holds now, fits beside the others (their exports finished first). */
static void make_room(struct flight *f, uint64_t need)
{
	uint64_t total = 0;
	for (size_t i = 0; i < f->n_dumps; i++)
		total += f->deleted[i] ? 0 : dump_bytes(f->dump_dirs[i]);
	for (size_t i = 0; i < f->n_dumps && total + need > f->limit_bytes; i++) {
		if (f->deleted[i])
			continue;
		for (size_t j = 0; j < f->n_jobs; j++)
			for (size_t k = 0; f->dump_dirs[i] && f->dump_dirs[i][k]; k++)
				if (f->jobs[j].fd >= 0 && f->jobs[j].prof_dir && !strcmp(f->jobs[j].prof_dir, f->dump_dirs[i][k]))
					(void)export_finish(&f->jobs[j]);
		uint64_t b = dump_bytes(f->dump_dirs[i]);
		for (size_t k = 0; f->dump_dirs[i] && f->dump_dirs[i][k]; k++)
			(void)nftw(f->dump_dirs[i][k], rm_one, 16, FTW_DEPTH | FTW_PHYS);
		f->deleted[i] = true;
		total = total > b ? total - b : 0;
		console_warn("flight recorder: dump %zu (%s, %.1f MB) deleted to keep the dumps within --storage-limit "
			     "(%" PRIu64 " MB)", i + 1, f->trigger[i], b / 1048576.0, f->limit_bytes >> 20);
	}
}

/* A dump of ours: the job's other recorders are asked for theirs
 * (written aside and renamed, so that none reads half of it). */
static void ask_peers(struct flight *f, const struct flight_job *job, const struct dump_ask *a)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	if (!f->out_dir && !(f->out_dir = strdup(job->output)))
		return;
	snprintf(path, sizeof path, "%s/%s%u.json", job->output, f->me, ++f->n_asked);
	snprintf(tmp, sizeof tmp, "%s/%s%u.tmp", job->output, f->me, f->n_asked);
	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	if (!j || !cJSON_AddStringToObject(j, "trigger", a->trigger) || !cJSON_AddStringToObject(j, "detail", a->detail) ||
	    !cJSON_AddNumberToObject(j, "pid", job->pid))
		return;
	char *text = cJSON_PrintUnformatted(j);
	FILE *fp = text ? fopen(tmp, "we") : NULL;
	bool ok = fp && fputs(text, fp) >= 0;
	if (fp && fclose(fp) != 0)
		ok = false;
	free(text);
	if (!ok || rename(tmp, path) < 0) {
		(void)unlink(tmp);
		console_warn("flight recorder: cannot ask the job's other recorders for their dumps in '%s'", job->output);
		return;
	}
	f->asked_ns = mono_ns();
}

static bool peer_seen(struct flight *f, const char *name)
{
	for (size_t i = 0; i < f->n_peers_seen; i++)
		if (streq(f->peers_seen[i], name))
			return true;
	return false;
}

void flight_peers(struct flight *f, const struct flight_job *job)
{
	uint64_t now = mono_ns();
	if (!f->ring || now < f->peers_next_ns)
		return;
	f->peers_next_ns = now + FLIGHT_PEER_MS * NSEC_PER_MSEC;
	DIR *d = opendir(job->output);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (strncmp(n, FLIGHT_PEER_PREFIX, strlen(FLIGHT_PEER_PREFIX)) || strncmp(n, f->me, strlen(f->me)) == 0 ||
		    len < 5 || strcmp(n + len - 5, ".json") || peer_seen(f, n))
			continue;
		char **v = realloc(f->peers_seen, (f->n_peers_seen + 1) * sizeof *v);
		if (!v)
			break;
		f->peers_seen = v;
		if (!(v[f->n_peers_seen] = strdup(n)))
			break;
		f->n_peers_seen++;
		/* one from before this recorder began is not for it */
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", job->output, n);
		if (stat(path, &st) < 0)
			continue;
		uint64_t at = (uint64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + (uint64_t)st.st_mtim.tv_nsec;
		uint64_t same = FLIGHT_PEER_SAME_S * NSEC_PER_SEC;
		if (at < f->start_real_ns ||
		    (f->last_dump_real_ns && at + same > f->last_dump_real_ns && at < f->last_dump_real_ns + same))
			continue;
		_cleanup_json_ cJSON *j = NULL;
		if (profdir_read_json(path, &j) < 0 || !cJSON_IsObject(j))
			continue;
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "trigger");
		const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "detail");
		if (!cJSON_IsString(t) || strlen(t->valuestring) >= sizeof ((struct dump_ask *)0)->trigger)
			continue;
		struct dump_ask a = { .from_peer = true };
		snprintf(a.trigger, sizeof a.trigger, "%s", t->valuestring);
		/* "<host>.<ring>." of the name: who asked */
		snprintf(a.detail, sizeof a.detail, "asked by the recorder %.*s%s%s",
			 (int)(len - strlen(FLIGHT_PEER_PREFIX) - 5), n + strlen(FLIGHT_PEER_PREFIX),
			 cJSON_IsString(dt) && dt->valuestring[0] ? ": " : "", cJSON_IsString(dt) ? dt->valuestring : "");
		(void)flight_dump(f, job, &a);
	}
	closedir(d);
}

int flight_dump(struct flight *f, const struct flight_job *job, const struct dump_ask *a)
{
	if (!f->ring)
		return 1;
	static const char *const kinds[] = { "slow-step", "hang", "exit" };
	int k = -1;
	for (int i = 0; i < 3; i++)
		if (strcmp(a->trigger, kinds[i]) == 0)
			k = i;
	uint64_t t0 = mono_ns();
	if (k >= 0 && f->last_auto_ns[k] && t0 - f->last_auto_ns[k] < FLIGHT_AUTO_COOLDOWN_S * NSEC_PER_SEC) {
		f->skipped++;
		return 1;
	}
	if (f->n_dumps == FLIGHT_MAX_DUMPS) {
		f->skipped++;
		console_warn("flight recorder: %d dumps written already; this one (%s) is not", FLIGHT_MAX_DUMPS,
			     a->trigger);
		return 1;
	}
	if (k >= 0)
		f->last_auto_ns[k] = t0;
	f->last_dump_real_ns = real_ns();
	if (!a->from_peer)
		ask_peers(f, job, a);
	(void)nanosleep(&(struct timespec){ .tv_nsec = FLIGHT_SETTLE_MS * NSEC_PER_MSEC }, NULL);
	if (f->limit_bytes) {
		char data[PATH_MAX];
		snprintf(data, sizeof data, "%s/host/data", f->ring);
		struct raw_quota_stats q = { 0 };
		(void)raw_quota_read(data, &q);
		make_room(f, q.used_bytes);
	}

	char *dir = NULL;
	int r = collection_new_dir(job->output, job->opts, job->pid, job->name, job->rank, job->name, job->dir, &dir);
	if (r < 0) {
		console_error("flight recorder: cannot make the dump's PROF dir in '%s': %s", job->output, strerror(-r));
		return r;
	}
	/* the clocks of now: every slice's times convert as of the dump */
	uint64_t mono = mono_ns(), real = real_ns(), monoraw = clock_ns(CLOCK_MONOTONIC_RAW);
	uint64_t files = 0, bytes = 0, c0 = mono;
	char data[PATH_MAX];
	snprintf(data, sizeof data, "%s/host/data", f->ring);
	struct ring_take take;
	struct raw_quota_stats q = { 0 };
	r = ring_take(f->ring, &take);
	/* the overwritten counts as of the take: what ages while it is
	 * copied is in the dump.  A dir copied in place loses it: then they
	 * are read after the copy, so that it is counted. */
	(void)raw_quota_read(data, &q);
	if (r == 0)
		r = ring_write(&take, dir, mono, real, &files, &bytes);
	if (take.in_place)
		(void)raw_quota_read(data, &q);
	ring_take_release(&take);
	uint64_t t1 = mono_ns();
	uint64_t from = f->start_real_ns;
	if (f->spec.span_s && real - f->spec.span_s * NSEC_PER_SEC > from)
		from = real - f->spec.span_s * NSEC_PER_SEC;
	int e = 0;
	/* "trigger" at the top too: what scripts look for (issue's interface) */
	if (r == 0)
		r = profdir_update_info(dir, "flight_recorder", dump_info(f, a, real, from, &q, files, bytes));
	if (r == 0)
		r = profdir_update_info(dir, "trigger", cJSON_CreateString(a->trigger));
	if (r == 0)
		r = profdir_write_time_info(dir, 1, from, monoraw - (real - from));
	if (r == 0)
		r = profdir_write_time_info(dir, 0, real, monoraw);
	if (r < 0) {
		console_error("flight recorder: cannot write the dump into '%s': %s", dir, strerror(-r));
		free(dir);
		return r;
	}
	console_info("Flight recorder: dump (%s%s%s) of %" PRIu64 " file(s), %.1f MB written in %.0f ms: %s",
		     a->trigger, a->detail[0] ? ": " : "", a->detail, files, bytes / 1048576.0, (t1 - c0) / 1e6, dir);
	/* its ranks, each exported in the background */
	struct profdir_known_rank known = { job->pid, job->rank };
	char **dirs = collection_rank_dirs(dir, &known, job->rank >= 0, NULL);
	for (size_t i = 0; dirs && dirs[i]; i++) {
		if (f->n_jobs == sizeof f->jobs / sizeof f->jobs[0] ||
		    export_spawn(dirs[i], job->opts->type, false, &f->jobs[f->n_jobs]) < 0) {
			console_warn("flight recorder: '%s' is not exported now; msprof --export=on --output=%s does it",
				     dirs[i], dirs[i]);
			e++;
			continue;
		}
		f->n_jobs++;
	}
	snprintf(f->trigger[f->n_dumps], sizeof f->trigger[0], "%s", a->trigger);
	f->dump_dirs[f->n_dumps] = dirs;
	f->dumps[f->n_dumps++] = dir;
	return e ? -EIO : 0;
}

bool flight_trouble(struct flight *f)
{
	if (f->in_trouble)
		return false;
	f->in_trouble = true;
	uint64_t now = mono_ns();
	if (f->resumed_ns && now - f->resumed_ns < FLIGHT_RETRY_STEADY_S * NSEC_PER_SEC)
		return false; /* the new session did not last: the same trouble, its next try as it was */
	f->trouble_ns = f->retry_ns = now;
	f->back_said = false;
	return true;
}

/* " of process PID", or "" for 0 (launch mode's one recorder) */
static void whose(char *buf, size_t size, pid_t pid)
{
	buf[0] = '\0';
	if (pid > 0)
		snprintf(buf, size, " of process %d", (int)pid);
}

void flight_trouble_say(const struct collection *s, pid_t pid)
{
	char who[32];
	whose(who, sizeof who, pid);
	if (s->lost || !s->ended || streq(s->ended_reason, "daemon_shutdown"))
		console_warn("The flight recorder%s lost msprofd; it records again when a new one answers.", who);
	else
		console_warn("msprofd ended the flight recorder's session%s (%s): %s; a new one is tried each "
			     "second, then less often while this goes on.", who, s->ended_reason, s->ended_message);
}

bool flight_retry_due(struct flight *f)
{
	(void)flight_trouble(f);
	uint64_t now = mono_ns();
	if (now < f->retry_ns)
		return false;
	if (now - f->trouble_ns < FLIGHT_RETRY_FAST_S * NSEC_PER_SEC)
		f->retry_wait_ns = NSEC_PER_SEC;
	else if ((f->retry_wait_ns = f->retry_wait_ns ? 2 * f->retry_wait_ns : 2 * NSEC_PER_SEC) >
		 FLIGHT_RETRY_MAX_S * NSEC_PER_SEC)
		f->retry_wait_ns = FLIGHT_RETRY_MAX_S * NSEC_PER_SEC;
	f->retry_ns = now + f->retry_wait_ns;
	return true;
}

void flight_retry_resumed(struct flight *f)
{
	f->in_trouble = false;
	f->resumed_ns = mono_ns();
}

bool flight_back(struct flight *f)
{
	if (f->in_trouble || f->back_said || !f->resumed_ns ||
	    mono_ns() - f->resumed_ns < FLIGHT_RETRY_STEADY_S * NSEC_PER_SEC)
		return false;
	f->back_said = true;
	return true;
}

void flight_back_say(pid_t pid)
{
	char who[32];
	whose(who, sizeof who, pid);
	console_info("Flight recorder%s: recording into the ring goes on; its new session has run for %d s.", who,
		     FLIGHT_RETRY_STEADY_S);
}

int flight_start_session(struct flight *f, struct collection *s, const struct flight_job *job)
{
	struct msprof_opts ring_opts = *job->opts;
	ring_opts.set.u[SET_STORAGE_LIMIT] = 0;
	pid_t pids[1] = { job->pid };
	free(s->prof_dir);
	if (!(s->prof_dir = strdup(f->ring)))
		return -ENOMEM;
	return collection_start(s, &ring_opts, pids, 1);
}

void flight_job_ended(struct flight *f, struct collection *s, const struct flight_job *job, bool have_status,
		      int status)
{
	bool bad = have_status && !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	int fd = collection_fd(s);
	struct dump_ask a;
	if (f->on.exit && (!have_status || bad) && fd >= 0 && !s->dump_pending)
		(void)poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, FLIGHT_LATE_ASK_MS);
	collection_poll(s);
	if (collection_take_dump(s, &a))
		(void)flight_dump(f, job, &a);
	if (!f->on.exit || !bad)
		return;
	/* unless a process's exit dumped it already (the same failure) */
	char how[128];
	child_describe(status, how, sizeof how);
	a = (struct dump_ask){ .trigger = "exit" };
	snprintf(a.detail, sizeof a.detail, "the job (pid %d) %s", (int)job->pid, how);
	(void)flight_dump(f, job, &a);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int flight_close(struct flight *f)
{
	int failed = 0;
	if (!f->ring)
		return 0;
	for (size_t i = 0; i < f->n_jobs; i++)
		if (f->jobs[i].fd >= 0)
			failed += export_finish(&f->jobs[i]) < 0;
	if (nftw(f->ring, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		console_warn("cannot remove the flight recorder's ring '%s': %s", f->ring, strerror(errno));
	if (f->n_dumps == 0)
		console_info("Flight recorder: no dump was asked for, nothing written.");
	for (size_t i = 0; i < f->n_dumps; i++) {
		if (!f->deleted[i])
			console_info("Flight recorder dump %zu (%s): %s", i + 1, f->trigger[i], f->dumps[i]);
		free(f->dumps[i]);
		strv_free(f->dump_dirs[i]);
	}
	if (f->skipped)
		console_info("Flight recorder: %" PRIu64 " trigger(s) within %d s of a dump of their kind were not "
			     "dumped again.", f->skipped, FLIGHT_AUTO_COOLDOWN_S);
	/* the others look once a second: a request stays long enough to be
	 * seen by each, however soon after it the run ends */
	uint64_t keep = 2 * FLIGHT_PEER_MS * NSEC_PER_MSEC, now = mono_ns();
	if (f->asked_ns && now - f->asked_ns < keep)
		(void)nanosleep(&(struct timespec){ .tv_sec = (time_t)((keep - (now - f->asked_ns)) / NSEC_PER_SEC),
						    .tv_nsec = (long)((keep - (now - f->asked_ns)) % NSEC_PER_SEC) },
				NULL);
	for (unsigned i = 1; i <= f->n_asked && f->me; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s%u.json", f->out_dir ? f->out_dir : ".", f->me, i);
		(void)unlink(path);
	}
	for (size_t i = 0; i < f->n_peers_seen; i++)
		free(f->peers_seen[i]);
	free(f->peers_seen);
	free(f->me);
	free(f->out_dir);
	free(f->ring);
	*f = (struct flight){ 0 };
	return failed;
}
