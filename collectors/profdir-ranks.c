/* One PROF dir per rank of a distributed job (profdir.h, DESIGN "Distributed
 * jobs"), made from the session's PROF dir once collection has stopped.
 *
 * Who is a rank: a process whose agent wrote its rank (RAW_AGENT_PROCESS),
 * or whose rank the host sampler read from its environment (RAW_PROC_INFO;
 * both through common/rankenv.h), or one the caller knows (the launched app,
 * an attached process whose environment it read).  Every other
 * process of the job belongs to the nearest ancestor that has a rank (a data
 * loader worker belongs to its rank), found through the ppids of the agent
 * records and of the host samplers' RAW_PROC_INFO; a process with no ranked
 * ancestor (the torchrun or mpirun parent) stays in the session's dir, which
 * becomes the host-level dir (rank_id -1).
 *
 * A rank's dir, beside the session's: PROF_{rank+1}_{session start}_{the
 * rank's pid}{8 letters}; the letters hash a random nonce with the rest, and
 * the dir is made with mkdir (never reused), so ranks of several hosts
 * writing into one shared output dir never collide.  It gets:
 *   host/data/agent_<pid>.*      its processes' agent files (moved)
 *   host/data/host_*.*           the host samplers' files (hard links, or
 *                                copies where links fail): the machine's
 *                                data is every rank's; the export keeps the
 *                                per-process rows of the dir's "processes"
 *   host/start_info, end_info, sample.json   (links or copies)
 *   host/info.json               the session's, with this rank's pid,
 *                                pid_name, rank_id, devices and "processes"
 *   device_<N>/                  the devices its processes ran tasks on
 *                                (moved when one rank uses the device,
 *                                linked into each when several do), with
 *                                info.json.<N> carrying the rank
 *   host/info.json.<N>           for a rank without a device: what cluster
 *                                tools require of a rank dir (rank_id in an
 *                                info.json.<N> in a sub-dir); N is its local
 *                                rank (0 when unknown)
 * The session's dir keeps the other processes and devices, and gets
 * host/info.json.0 (rank_id -1) for the same reason. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"

#define DIR_MODE 0750
#define MAX_DEVICES 64
#define MAX_PROCS (1U << 20)

struct proc {
	uint32_t pid, ppid;
	int32_t own_rank;   /* from its environment; -1 none */
	int32_t local_rank;
	int32_t env_device;
	int32_t rank;       /* resolved: its own, or its nearest ranked ancestor's */
	bool agent;
	uint64_t devices;   /* bit N: ran tasks on device N */
	char name[64];
};

struct split {
	const char *prof_dir;
	char *data;         /* prof_dir/host/data */
	struct proc *p;
	size_t n, cap;
};

static struct proc *find(struct split *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			return &s->p[i];
	return NULL;
}

static struct proc *get(struct split *s, uint32_t pid)
{
	struct proc *p = find(s, pid);
	if (p)
		return p;
	if (s->n >= MAX_PROCS || GROW_ARRAY(s->p, s->cap, s->n, 64) < 0)
		return NULL;
	p = &s->p[s->n++];
	*p = (struct proc){ .pid = pid, .own_rank = -1, .local_rank = -1, .env_device = -1, .rank = -1 };
	return p;
}

static void take_lstr(struct raw_cur *c, char *out, size_t cap)
{
	uint32_t n = raw_cur_u32(c);
	if (c->err || n > c->left) {
		c->err = -EBADMSG;
		out[0] = 0;
		return;
	}
	size_t k = n < cap - 1 ? n : cap - 1;
	memcpy(out, c->p, k);
	out[k] = 0;
	c->p += n;
	c->left -= n;
}

static int32_t opt_i32(struct raw_cur *c)
{
	if (c->left < 4)
		return -1;
	return (int32_t)raw_cur_u32(c);
}

/* One agent's files: its process record and the devices of its tasks. */
static int read_agent(struct split *s, uint32_t pid)
{
	char stem[RAW_STEM_MAX];
	raw_agent_stem((pid_t)pid, stem);
	char **paths = NULL;
	int n = raw_list_stem_slices(s->data, stem, &paths);
	if (n <= 0) {
		raw_paths_free(paths);
		return n;
	}
	struct proc *p = get(s, pid);
	int r = p ? 0 : -ENOMEM;
	for (int i = 0; r == 0 && i < n; i++) {
		struct raw_reader *rd = NULL;
		if (raw_reader_open(paths[i], &rd) < 0)
			continue; /* the export names a file it cannot read */
		struct raw_record rec;
		while (raw_reader_next(rd, &rec) > 0) {
			struct raw_cur c = { rec.payload, rec.len, 0 };
			if (rec.type == RAW_AGENT_PROCESS && !p->agent) {
				(void)raw_cur_u64(&c);
				uint32_t rpid = raw_cur_u32(&c), ppid = raw_cur_u32(&c);
				int32_t rank = (int32_t)raw_cur_u32(&c);
				(void)raw_cur_u32(&c);
				char cmd[8];
				take_lstr(&c, p->name, sizeof p->name);
				take_lstr(&c, cmd, sizeof cmd);
				if (c.err || rpid != pid)
					continue;
				p->agent = true;
				p->ppid = ppid;
				p->own_rank = rank;
				p->local_rank = opt_i32(&c);
				(void)opt_i32(&c); /* world size */
				(void)opt_i32(&c); /* local world size */
				(void)opt_i32(&c); /* node rank */
				p->env_device = opt_i32(&c);
			} else if (rec.type == RAW_AGENT_GPU_TASK) {
				(void)raw_cur_u64(&c);
				(void)raw_cur_u64(&c);
				(void)raw_cur_u32(&c);
				uint32_t dev = raw_cur_u32(&c);
				if (!c.err && dev < MAX_DEVICES)
					p->devices |= 1ULL << dev;
			}
		}
		raw_reader_free(rd);
	}
	raw_paths_free(paths);
	return r;
}

/* The host samplers' process records: the ppids of processes without an
 * agent file. */
static int read_host_procs(struct split *s)
{
	static const enum raw_source srcs[] = { RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK,
						RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM };
	for (size_t k = 0; k < ARRAY_SIZE(srcs); k++) {
		char **paths = NULL;
		int n = raw_list_slices(s->data, srcs[k], &paths);
		for (int i = 0; i < n; i++) {
			struct raw_reader *rd = NULL;
			if (raw_reader_open(paths[i], &rd) < 0)
				continue;
			struct raw_record rec;
			while (raw_reader_next(rd, &rec) > 0) {
				if (rec.type != RAW_PROC_INFO)
					continue;
				struct raw_cur c = { rec.payload, rec.len, 0 };
				(void)raw_cur_u64(&c);
				uint32_t pid = raw_cur_u32(&c), ppid = raw_cur_u32(&c);
				(void)raw_cur_u64(&c);
				char comm[16];
				raw_cur_str(&c, comm, sizeof comm);
				uint32_t target = raw_cur_u32(&c);
				int32_t rank = opt_i32(&c), local = opt_i32(&c);
				if (c.err || !target)
					continue;
				struct proc *p = get(s, pid);
				if (!p) {
					raw_reader_free(rd);
					raw_paths_free(paths);
					return -ENOMEM;
				}
				if (p->own_rank < 0) {
					p->own_rank = rank;
					p->local_rank = local;
				}
				if (!p->agent) {
					p->ppid = ppid;
					if (!p->name[0])
						snprintf(p->name, sizeof p->name, "%s", comm);
				}
			}
			raw_reader_free(rd);
		}
		raw_paths_free(paths); /* also the empty list of n == 0 */
	}
	return 0;
}

static int32_t resolve(struct split *s, struct proc *p)
{
	struct proc *q = p;
	for (unsigned depth = 0; q && depth < 256; depth++) {
		if (q->own_rank >= 0)
			return q->own_rank;
		if (q->ppid == q->pid)
			break;
		q = find(s, q->ppid);
	}
	return -1;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* link src to dst, or copy it where a link cannot be made */
static int link_or_copy(const char *src, const char *dst)
{
	if (link(src, dst) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	_cleanup_close_ int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	_cleanup_close_ int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (out < 0)
		return -errno;
	char buf[65536];
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += w;
		}
	}
}

static int place(const char *src_dir, const char *dst_dir, const char *name, bool move)
{
	_cleanup_free_ char *a = path_join(src_dir, name), *b = path_join(dst_dir, name);
	if (!a || !b)
		return -ENOMEM;
	if (move)
		return rename(a, b) < 0 ? -errno : 0;
	return link_or_copy(a, b);
}

/* Every entry of src_dir that is a regular file and passes keep, placed
 * into dst_dir. */
static int place_files(const char *src_dir, const char *dst_dir, bool move, bool (*keep)(const char *name, void *ctx),
		       void *ctx)
{
	DIR *d = opendir(src_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (keep && !keep(de->d_name, ctx)))
			continue;
		_cleanup_free_ char *path = path_join(src_dir, de->d_name);
		struct stat st;
		if (!path)
			r = -ENOMEM;
		else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			r = place(src_dir, dst_dir, de->d_name, move);
	}
	closedir(d);
	return r;
}

static bool host_sample_file(const char *name, void *ctx)
{
	(void)ctx;
	return startswith(name, "host_");
}

struct rank_files { const struct split *s; int32_t rank; };

static bool rank_agent_file(const char *name, void *ctx)
{
	const struct rank_files *rf = ctx;
	unsigned pid;
	char dot;
	if (sscanf(name, "agent_%u%c", &pid, &dot) != 2 || dot != '.')
		return false;
	for (size_t i = 0; i < rf->s->n; i++)
		if (rf->s->p[i].pid == pid)
			return rf->s->p[i].rank == rf->rank;
	return false;
}

static int mkdirs(const char *base, const char *sub)
{
	_cleanup_free_ char *p = path_join(base, sub);
	if (!p)
		return -ENOMEM;
	return mkdir(p, DIR_MODE) < 0 && errno != EEXIST ? -errno : 0;
}

/* dir/device_<d>, malloc'd */
static char *device_path(const char *dir, unsigned d)
{
	char sub[32];
	snprintf(sub, sizeof sub, "device_%u", d);
	return path_join(dir, sub);
}

/* The rank's dir: a new name beside the session's, made with mkdir. */
static int make_rank_dir(const char *prof_dir, int32_t rank, pid_t pid, uint64_t start_ns, char **ret)
{
	_cleanup_free_ char *parent = strdup(prof_dir);
	if (!parent)
		return -ENOMEM;
	char *slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	for (unsigned tries = 0; tries < 100; tries++) {
		char name[PROFDIR_NAME_MAX];
		int r = profdir_make_name((unsigned)rank, start_ns, pid, name);
		if (r < 0)
			return r;
		char *path = path_join(parent[0] ? parent : "/", name);
		if (!path)
			return -ENOMEM;
		if (mkdir(path, DIR_MODE) == 0) {
			if ((r = mkdirs(path, "host")) < 0 || (r = mkdirs(path, "host/data")) < 0) {
				free(path);
				return r;
			}
			*ret = path;
			return 0;
		}
		r = -errno;
		free(path);
		if (r != -EEXIST)
			return r;
	}
	return -EEXIST;
}

static int64_t start_ns_of(const char *prof_dir)
{
	_cleanup_free_ char *path = path_join(prof_dir, "host/start_info");
	_cleanup_json_ cJSON *j = NULL;
	if (!path || profdir_read_json(path, &j) < 0)
		return (int64_t)real_ns();
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "collectionTimeBegin");
	uint64_t us;
	if (cJSON_IsString(v) && parse_u64(v->valuestring, 0, UINT64_MAX / 1000, &us) == 0)
		return (int64_t)(us * 1000);
	return (int64_t)real_ns();
}

static int set_str(cJSON *j, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(j, key);
	return cJSON_AddStringToObject(j, key, v) ? 0 : -ENOMEM;
}

static int set_num(cJSON *j, const char *key, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(j, key);
	return cJSON_AddNumberToObject(j, key, v) ? 0 : -ENOMEM;
}

/* host/info.json of a dir: the session's, with the dir's rank, main process,
 * processes (unless procs is false) and devices.  Written also as
 * host/info.json.<host_n> when host_n >= 0 (a dir without a device dir),
 * with the one DeviceInfo entry msprof-analyze's advisor requires of every
 * info.json.<N> (it logs an error without ai_core_num): the host has no
 * AI cores, so 0. */
static int write_info(const struct split *s, const char *dir, int32_t rank, const struct proc *main, uint64_t devices,
		      int host_n, bool procs)
{
	_cleanup_free_ char *src = path_join(s->prof_dir, "host/info.json"), *host = path_join(dir, "host");
	_cleanup_json_ cJSON *j = NULL;
	if (!src || !host)
		return -ENOMEM;
	int r = profdir_read_json(src, &j);
	if (r < 0)
		return r;
	char num[32], devs[MAX_DEVICES * 3 + 1] = "";
	if (main) {
		snprintf(num, sizeof num, "%u", main->pid);
		if ((r = set_str(j, "pid", num)) < 0 || (r = set_str(j, "pid_name", main->name)) < 0)
			return r;
	}
	for (unsigned d = 0; d < MAX_DEVICES; d++)
		if (devices >> d & 1)
			snprintf(devs + strlen(devs), sizeof devs - strlen(devs), "%s%u", devs[0] ? "," : "", d);
	if ((r = set_num(j, "rank_id", rank)) < 0 || (devices && (r = set_str(j, "devices", devs)) < 0))
		return r;
	if (procs) {
		cJSON_DeleteItemFromObjectCaseSensitive(j, "processes");
		cJSON *arr = cJSON_AddArrayToObject(j, "processes");
		if (!arr)
			return -ENOMEM;
		for (size_t i = 0; i < s->n; i++) {
			if (s->p[i].rank != rank)
				continue;
			cJSON *v = cJSON_CreateNumber(s->p[i].pid);
			if (!v || !cJSON_AddItemToArray(arr, v)) {
				cJSON_Delete(v);
				return -ENOMEM;
			}
		}
	}
	if ((r = profdir_write_json(host, "info.json", j)) < 0 || host_n < 0)
		return r;
	cJSON_DeleteItemFromObjectCaseSensitive(j, "DeviceInfo");
	cJSON *arr = cJSON_AddArrayToObject(j, "DeviceInfo"), *e = cJSON_CreateObject();
	if (!arr || !e || !cJSON_AddItemToArray(arr, e)) {
		cJSON_Delete(e);
		return -ENOMEM;
	}
	if (!cJSON_AddNumberToObject(e, "id", host_n) || !cJSON_AddNumberToObject(e, "ai_core_num", 0) ||
	    !cJSON_AddStringToObject(e, "aic_frequency", "0"))
		return -ENOMEM;
	char name[32];
	snprintf(name, sizeof name, "info.json.%d", host_n);
	return profdir_write_json(host, name, j);
}

/* dir/device_<d>/info.json.<d> with the rank and its main pid. */
static int rank_device_info(const char *dir, unsigned d, int32_t rank, const struct proc *main)
{
	char sub[32], name[32];
	snprintf(sub, sizeof sub, "device_%u", d);
	snprintf(name, sizeof name, "info.json.%u", d);
	_cleanup_free_ char *dst = path_join(dir, sub);
	_cleanup_free_ char *info = dst ? path_join(dst, name) : NULL;
	_cleanup_json_ cJSON *j = NULL;
	if (!info)
		return -ENOMEM;
	if (profdir_read_json(info, &j) < 0)
		return 0;
	char num[32];
	snprintf(num, sizeof num, "%u", main ? main->pid : 0);
	int r;
	if ((r = set_num(j, "rank_id", rank)) < 0 || (main && (r = set_str(j, "pid", num)) < 0))
		return r;
	/* a linked file is shared with the session's: replace, never write through */
	(void)unlink(info);
	return profdir_write_json(dst, name, j);
}

/* device_<d> of the session into dir: moved when move, else linked; its
 * info.json.<d> rewritten with the rank and main pid. */
static int place_device(const struct split *s, const char *dir, unsigned d, int32_t rank, const struct proc *main,
			bool move)
{
	char sub[32];
	snprintf(sub, sizeof sub, "device_%u", d);
	_cleanup_free_ char *src = path_join(s->prof_dir, sub), *dst = path_join(dir, sub);
	if (!src || !dst)
		return -ENOMEM;
	struct stat st;
	if (stat(src, &st) < 0)
		return 0; /* tasks on a device nobody sampled: no dir */
	int r;
	if (move) {
		if (rename(src, dst) < 0)
			return -errno;
	} else {
		_cleanup_free_ char *sd = path_join(src, "data"), *dd = path_join(dst, "data");
		if (!sd || !dd)
			return -ENOMEM;
		if ((r = mkdirs(dir, sub)) < 0 || (r = mkdirs(dst, "data")) < 0 ||
		    (r = place_files(src, dst, false, NULL, NULL)) < 0 || (r = place_files(sd, dd, false, NULL, NULL)) < 0)
			return r;
	}
	return rank_device_info(dir, d, rank, main);
}

/* Unlink the files of dir that keep passes (all when keep is NULL). */
static void unlink_matching(const char *dir, bool (*keep)(const char *name, void *ctx))
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && (!keep || keep(de->d_name, NULL)))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

static void unlink_files(const char *dir)
{
	unlink_matching(dir, NULL);
}

/* device_<d> and its data/, every rank that ran on it having its own links */
static void remove_device_dir(const char *path)
{
	_cleanup_free_ char *data = path_join(path, "data");
	if (!data)
		return;
	unlink_files(data);
	(void)rmdir(data);
	unlink_files(path);
	(void)rmdir(path);
}

/* Whether dir has the device_<N>/ of one of devices (it has their info.json.N). */
static bool has_device_dir(const char *dir, uint64_t devices)
{
	for (unsigned d = 0; d < MAX_DEVICES; d++) {
		if (!(devices >> d & 1))
			continue;
		_cleanup_free_ char *p = device_path(dir, d);
		struct stat st;
		if (p && stat(p, &st) == 0)
			return true;
	}
	return false;
}

/* A rank's main process (ranked by its own environment, its parent not of
 * the rank: a worker inherits RANK), its devices, and the N of the
 * host/info.json.<N> it gets when it has no device dir: its local rank. */
static struct proc *rank_facts(struct split *s, int32_t rank, uint64_t *ret_devices, int *ret_host_n)
{
	struct proc *main = NULL;
	uint64_t devices = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->p[i];
		if (p->rank != rank)
			continue;
		devices |= p->devices;
		struct proc *parent = find(s, p->ppid);
		bool top = p->own_rank == rank && (!parent || parent->rank != rank);
		if (top && (!main || p->pid < main->pid))
			main = p;
	}
	if (!main)
		for (size_t i = 0; i < s->n; i++)
			if (s->p[i].rank == rank && (!main || s->p[i].pid < main->pid))
				main = &s->p[i];
	if (!devices && main->env_device >= 0 && main->env_device < MAX_DEVICES &&
	    has_device_dir(s->prof_dir, 1ULL << main->env_device))
		devices = 1ULL << main->env_device;
	*ret_devices = devices;
	*ret_host_n = main->local_rank >= 0 && main->local_rank < 100 ? main->local_rank : 0;
	return main;
}


/* The job is one rank and nothing else: the session's dir is its dir. */
static int in_place(struct split *s, int32_t rank)
{
	uint64_t devices;
	int host_n, r = 0;
	struct proc *main = rank_facts(s, rank, &devices, &host_n);
	for (unsigned d = 0; r >= 0 && d < MAX_DEVICES; d++)
		if (devices >> d & 1)
			r = rank_device_info(s->prof_dir, d, rank, main);
	if (has_device_dir(s->prof_dir, devices))
		host_n = -1;
	return r < 0 ? r : write_info(s, s->prof_dir, rank, main, devices, host_n, false);
}

static int split_one(struct split *s, int32_t rank, int64_t start_ns, uint64_t shared_devices,
		     struct profdir_rank *ret)
{
	uint64_t devices;
	int host_n;
	struct proc *main = rank_facts(s, rank, &devices, &host_n);

	char *dir = NULL;
	int r = make_rank_dir(s->prof_dir, rank, (pid_t)main->pid, (uint64_t)start_ns, &dir);
	if (r < 0)
		return r;
	_cleanup_free_ char *src_host = path_join(s->prof_dir, "host"), *dst_host = path_join(dir, "host"),
			    *dst_data = path_join(dir, "host/data");
	struct rank_files rf = { s, rank };
	static const char *const metas[] = { "start_info", "end_info", "sample.json" };
	if (!src_host || !dst_host || !dst_data)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(metas); i++) {
		r = place(src_host, dst_host, metas[i], false);
		if (r == -ENOENT)
			r = 0;
	}
	if (r >= 0)
		r = place_files(s->data, dst_data, true, rank_agent_file, &rf);
	if (r >= 0)
		r = place_files(s->data, dst_data, false, host_sample_file, NULL);
	for (unsigned d = 0; r >= 0 && d < MAX_DEVICES; d++)
		if (devices >> d & 1)
			r = place_device(s, dir, d, rank, main, !(shared_devices >> d & 1));
	if (r >= 0)
		r = write_info(s, dir, rank, main, devices, has_device_dir(dir, devices) ? -1 : host_n, true);
	if (r < 0) {
		free(dir);
		return r;
	}
	*ret = (struct profdir_rank){ .rank = rank, .pid = (pid_t)main->pid, .path = dir, .devices = devices };
	return 0;
}

void profdir_ranks_free(struct profdir_rank *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].path);
	free(v);
}

int profdir_split_ranks(const char *prof_dir, const struct profdir_known_rank *known, size_t n_known,
			struct profdir_rank **ret, size_t *ret_n)
{
	if (!prof_dir || !ret || !ret_n)
		return -EINVAL;
	struct split s = { .prof_dir = prof_dir };
	struct profdir_rank *out = NULL;
	size_t n_out = 0;
	int32_t *ranks = NULL;
	int r;
	if (!(s.data = path_join(prof_dir, "host/data"))) {
		r = -ENOMEM;
		goto done;
	}
	uint32_t *pids = NULL;
	size_t n_pids = 0;
	r = raw_list_agent_pids(s.data, &pids, &n_pids);
	if (r < 0)
		goto done;
	for (size_t i = 0; r >= 0 && i < n_pids; i++)
		r = read_agent(&s, pids[i]);
	free(pids);
	if (r >= 0)
		r = read_host_procs(&s);
	for (size_t i = 0; r >= 0 && i < n_known; i++) {
		struct proc *p = get(&s, (uint32_t)known[i].pid);
		if (!p)
			r = -ENOMEM;
		else if (p->own_rank < 0)
			p->own_rank = known[i].rank;
	}
	if (r < 0)
		goto done;

	size_t n_ranks = 0;
	ranks = calloc(s.n ? s.n : 1, sizeof(*ranks));
	if (!ranks) {
		r = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < s.n; i++) {
		s.p[i].rank = resolve(&s, &s.p[i]);
		if (s.p[i].rank >= 0)
			ranks[n_ranks++] = s.p[i].rank;
	}
	qsort(ranks, n_ranks, sizeof(*ranks), cmp_i32);
	size_t u = 0;
	for (size_t i = 0; i < n_ranks; i++)
		if (u == 0 || ranks[u - 1] != ranks[i])
			ranks[u++] = ranks[i];
	n_ranks = u;
	if (n_ranks == 0) {
		/* no rank: still the info.json.<N> cluster tools need of a dir */
		r = has_device_dir(prof_dir, UINT64_MAX) ? 0 : write_info(&s, prof_dir, -1, NULL, 0, 0, false);
		goto done;
	}
	size_t unranked = 0;
	for (size_t i = 0; i < s.n; i++)
		unranked += s.p[i].rank < 0;
	if (n_ranks == 1 && unranked == 0) {
		/* the job is one rank: its dir is the session's */
		r = in_place(&s, ranks[0]);
		goto done;
	}

	/* a device several ranks ran on is linked into each of them */
	uint64_t seen = 0, shared = 0;
	for (size_t k = 0; k < n_ranks; k++) {
		uint64_t m = 0;
		for (size_t i = 0; i < s.n; i++)
			if (s.p[i].rank == ranks[k])
				m |= s.p[i].devices;
		shared |= seen & m;
		seen |= m;
	}
	out = calloc(n_ranks, sizeof(*out));
	if (!out) {
		r = -ENOMEM;
		goto done;
	}
	int64_t start_ns = start_ns_of(prof_dir);
	for (size_t k = 0; k < n_ranks; k++) {
		r = split_one(&s, ranks[k], start_ns, shared, &out[n_out]);
		if (r < 0)
			goto done;
		n_out++;
	}
	/* the session's dir keeps what belongs to no rank: drop the devices
	 * linked into several ranks from it too (one device per PROF dir) */
	for (unsigned d = 0; d < MAX_DEVICES; d++) {
		if (!(shared >> d & 1))
			continue;
		_cleanup_free_ char *p = device_path(prof_dir, d);
		if (p)
			remove_device_dir(p);
	}
	if (unranked == 0) {
		/* every process went to its rank, with the machine's data: the
		 * session's dir keeps only what no rank took (devices nobody ran
		 * on), and the caller removes it when that is nothing */
		unlink_matching(s.data, NULL);
	}
	r = write_info(&s, prof_dir, -1, NULL, 0, has_device_dir(prof_dir, UINT64_MAX) ? -1 : 0, true);
done:
	if (r < 0) {
		profdir_ranks_free(out, n_out);
		out = NULL;
		n_out = 0;
	}
	free(ranks);
	free(s.p);
	free(s.data);
	if (r >= 0) {
		*ret = out;
		*ret_n = n_out;
	}
	return r < 0 ? r : (int)n_out;
}
