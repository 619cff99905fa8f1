/* One PROF dir per rank of a distributed job (profdir.h, DESIGN "Distributed
 * jobs"), made from the session's PROF dir once collection has stopped.
 *
 * Who is a rank: a process whose agent wrote its rank (RAW_AGENT_PROCESS; the
 * last record with one wins: a forked child that recorded before its exec
 * has its parent's), or whose rank the host sampler read from its
 * environment (RAW_PROC_INFO; both through common/rankenv.h), or one the
 * caller knows (the launched app, an attached process whose environment it
 * read).  Every other process of the job belongs to the nearest ancestor that
 * has a rank (a data loader worker belongs to its rank), found through the
 * ppids of those records; a process with no ranked ancestor (the torchrun or
 * mpirun parent) stays in the session's dir, the host-level dir (rank_id -1).
 *
 * A rank's dir, beside the session's: PROF_{rank+1}_{session start}_{the
 * rank's pid}{8 letters}; the letters hash a random nonce with the rest, and
 * the dir is made with mkdir (never reused), so ranks of several hosts
 * writing into one shared output dir never collide.  It gets:
 *   host/data/agent_<pid>.*      its processes' agent files
 *   host/data/host_*.*           the host samplers' files: the machine's data
 *                                is every rank's; the export keeps the
 *                                per-process rows of the dir's "processes"
 *   host/start_info, end_info, sample.json
 *   host/info.json               the session's, with this rank's pid,
 *                                pid_name, rank_id, devices and "processes"
 *   device_<N>/                  the devices its processes ran tasks on (or
 *                                its DEVICE_ID), with info.json.<N> carrying
 *                                the rank
 *   host/info.json.<N>           for a rank without a device dir: what
 *                                cluster tools require of a rank dir (rank_id
 *                                in an info.json.<N> in a sub-dir); N is its
 *                                local rank (0 when unknown or above 99)
 * The session's dir keeps the other processes and devices, and gets
 * host/info.json.0 (rank_id -1) for the same reason.  A job of one rank and
 * nothing else has the session's dir renamed as the rank's.
 *
 * Nothing is lost half-way: every rank's dir is first made of hard links (or
 * copies where links fail) and its own small files; only when all of them
 * are complete are the originals taken out of the session's dir.  On a
 * failure the new dirs are removed and the session's dir is as it was.
 * Files are hard links of one inode, so a late write of an agent that missed
 * the stop still reaches the rank's copy. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
#include "common/rankenv.h"
#include "common/util.h"

#define DIR_MODE 0750
#define MAX_DEVICES 64
#define MAX_RECORDS (1U << 22) /* process records taken in (several per process) */

struct proc {
	uint32_t pid, ppid;
	int32_t own_rank;   /* from its environment; -1 none */
	int32_t local_rank;
	int32_t env_device;
	int32_t rank;       /* resolved: its own, or its nearest ranked ancestor's */
	uint8_t prio;       /* records: 0 agent, 1 host sampler, 2 known (merge order) */
	uint8_t state;      /* resolve(): 0 not yet, 1 in progress, 2 done */
	bool agent;
	uint64_t devices;   /* bit N: ran tasks on device N */
	uint64_t seq;       /* records: the order they were read in */
	char name[64];
};

struct rank_dir {
	int32_t rank;
	struct proc *main;
	uint64_t devices;   /* tasks', or its DEVICE_ID's when it has a dir */
	int host_n;         /* its host/info.json.<N>: its local rank, else 0 */
	char *path;
};

struct split {
	const char *prof_dir;
	char *data;         /* prof_dir/host/data */
	struct proc *p;     /* records while reading; then one per pid, by pid */
	size_t n, cap;
	uint64_t seq;
	struct rank_dir *r; /* by rank */
	size_t n_r;
};

static int cmp_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->prio != y->prio)
		return x->prio - y->prio;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static struct proc *find(const struct split *s, uint32_t pid)
{
	struct proc key = { .pid = pid };
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->p[mid].pid < key.pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->p[lo].pid == pid ? &s->p[lo] : NULL;
}

/* A new record (merged with the pid's others by merge()). */
static struct proc *add(struct split *s, uint32_t pid, uint8_t prio)
{
	if (s->n >= MAX_RECORDS)
		return NULL;
	if (GROW_ARRAY(s->p, s->cap, s->n, 256) < 0)
		return NULL;
	struct proc *p = &s->p[s->n++];
	*p = (struct proc){ .pid = pid, .own_rank = -1, .local_rank = -1, .env_device = -1, .rank = -1,
			    .prio = prio, .seq = s->seq++ };
	return p;
}

/* One entry per pid: the agent's facts first, then the host sampler's, then
 * the caller's.  Within one source a later record with a rank wins (an exec
 * that set RANK comes after the fork that showed the parent's), the first
 * ppid stays (a worker outliving its rank is reparented to init later), and
 * the last name is the program's. */
static void merge(struct split *s)
{
	qsort_safe(s->p, s->n, sizeof(*s->p), cmp_pid);
	size_t out = 0;
	for (size_t i = 0; i < s->n;) {
		struct proc m = s->p[i];
		size_t j = i + 1;
		for (; j < s->n && s->p[j].pid == m.pid; j++) {
			const struct proc *q = &s->p[j];
			m.devices |= q->devices;
			m.agent = m.agent || q->agent;
			if (!m.ppid)
				m.ppid = q->ppid;
			if (q->prio == m.prio) {
				if (q->own_rank >= 0) {
					m.own_rank = q->own_rank;
					m.local_rank = q->local_rank;
					if (q->env_device >= 0)
						m.env_device = q->env_device;
				}
				if (q->name[0])
					memcpy(m.name, q->name, sizeof m.name);
				continue;
			}
			if (!m.name[0])
				memcpy(m.name, q->name, sizeof m.name);
			if (m.own_rank < 0 && q->own_rank >= 0) {
				m.own_rank = q->own_rank;
				m.local_rank = q->local_rank;
			}
		}
		s->p[out++] = m;
		i = j;
	}
	s->n = out;
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

/* A rank as read from an untrusted file: out of range is none. */
static int32_t sane_rank(int32_t r)
{
	return r >= 0 && r <= RANK_ENV_RANK_MAX ? r : -1;
}

/* One agent's files: its process records and the devices of its tasks. */
static int read_agent(struct split *s, uint32_t pid)
{
	char stem[RAW_STEM_MAX];
	raw_agent_stem((pid_t)pid, stem);
	char **paths = NULL;
	int n = raw_list_stem_slices(s->data, stem, &paths);
	int r = 0;
	uint64_t devices = 0;
	for (int i = 0; r == 0 && i < n; i++) {
		struct raw_reader *rd = NULL;
		if (raw_reader_open(paths[i], &rd) < 0)
			continue; /* the export names a file it cannot read */
		struct raw_record rec;
		while (r == 0 && raw_reader_next(rd, &rec) > 0) {
			struct raw_cur c = { rec.payload, rec.len, 0 };
			if (rec.type == RAW_AGENT_PROCESS) {
				(void)raw_cur_u64(&c);
				uint32_t rpid = raw_cur_u32(&c), ppid = raw_cur_u32(&c);
				int32_t rank = (int32_t)raw_cur_u32(&c);
				(void)raw_cur_u32(&c);
				char name[64], cmd[8];
				take_lstr(&c, name, sizeof name);
				take_lstr(&c, cmd, sizeof cmd);
				if (c.err || rpid != pid)
					continue;
				struct proc *p = add(s, pid, 0);
				if (!p) {
					r = -E2BIG;
					break;
				}
				p->agent = true;
				p->ppid = ppid;
				p->own_rank = sane_rank(rank);
				p->local_rank = opt_i32(&c);
				(void)opt_i32(&c); /* world size */
				(void)opt_i32(&c); /* local world size */
				(void)opt_i32(&c); /* node rank */
				p->env_device = opt_i32(&c);
				memcpy(p->name, name, sizeof name);
			} else if (rec.type == RAW_AGENT_GPU_TASK) {
				(void)raw_cur_u64(&c);
				(void)raw_cur_u64(&c);
				(void)raw_cur_u32(&c);
				uint32_t dev = raw_cur_u32(&c);
				if (!c.err && dev < MAX_DEVICES)
					devices |= 1ULL << dev;
			}
		}
		raw_reader_free(rd);
	}
	raw_paths_free(paths);
	if (r == 0 && devices) {
		struct proc *p = add(s, pid, 0);
		if (!p)
			return -E2BIG;
		p->devices = devices; /* merged into the pid's agent entry (no rank, no name) */
	}
	return r;
}

/* The host samplers' process records: ppids of processes without an agent
 * file, and ranks read from environments. */
static int read_host_procs(struct split *s)
{
	static const enum raw_source srcs[] = { RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK,
						RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM };
	int r = 0;
	for (size_t k = 0; r == 0 && k < ARRAY_SIZE(srcs); k++) {
		char **paths = NULL;
		int n = raw_list_slices(s->data, srcs[k], &paths);
		for (int i = 0; r == 0 && i < n; i++) {
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
				struct proc *p = add(s, pid, 1);
				if (!p) {
					r = -E2BIG;
					break;
				}
				p->ppid = ppid;
				p->own_rank = sane_rank(rank);
				p->local_rank = local;
				snprintf(p->name, sizeof p->name, "%s", comm);
			}
			raw_reader_free(rd);
		}
		raw_paths_free(paths); /* also the empty list of n == 0 */
	}
	return r;
}

/* Its own rank, else its parent's, each process once. */
static int32_t resolve(struct split *s, struct proc *p, unsigned depth)
{
	if (p->state == 2)
		return p->rank;
	if (p->state == 1 || depth > 4096)
		return -1; /* a loop of ppids, or a chain too deep to trust */
	p->state = 1;
	int32_t rank = p->own_rank;
	if (rank < 0 && p->ppid != p->pid) {
		struct proc *parent = find(s, p->ppid);
		if (parent)
			rank = resolve(s, parent, depth + 1);
	}
	p->rank = rank;
	p->state = 2;
	return rank;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The split's dir of a rank (s->r is sorted by rank); NULL: none. */
static struct rank_dir *split_rank_dir(struct split *s, int32_t rank)
{
	size_t lo = 0, hi = s->n_r;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->r[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n_r && s->r[lo].rank == rank ? &s->r[lo] : NULL;
}

/* dir/device_<d>, malloc'd */
static char *device_path(const char *dir, unsigned d)
{
	char sub[32];
	snprintf(sub, sizeof sub, "device_%u", d);
	return path_join(dir, sub);
}

/* The devices of mask that have a device_<N>/ (a real dir) in dir. */
static uint64_t device_dirs(const char *dir, uint64_t mask)
{
	uint64_t have = 0;
	for (unsigned d = 0; d < MAX_DEVICES; d++) {
		if (!(mask >> d & 1))
			continue;
		_cleanup_free_ char *p = device_path(dir, d);
		struct stat st;
		if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			have |= 1ULL << d;
	}
	return have;
}

/* The ranks, their main process (ranked by its own environment, its parent
 * not of the rank: a worker inherits RANK; else its lowest pid), devices and
 * host_n, in one pass over the processes. */
static int collect_ranks(struct split *s)
{
	int32_t *ranks = malloc((s->n ? s->n : 1) * sizeof(*ranks));
	if (!ranks)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (resolve(s, &s->p[i], 0) >= 0)
			ranks[n++] = s->p[i].rank;
	qsort_safe(ranks, n, sizeof(*ranks), cmp_i32);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || ranks[u - 1] != ranks[i])
			ranks[u++] = ranks[i];
	s->r = calloc(u ? u : 1, sizeof(*s->r));
	if (!s->r) {
		free(ranks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u; i++)
		s->r[i].rank = ranks[i];
	s->n_r = u;
	free(ranks);

	bool *top = calloc(u ? u : 1, sizeof(*top));
	if (!top)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->p[i];
		struct rank_dir *rd = p->rank >= 0 ? split_rank_dir(s, p->rank) : NULL;
		if (!rd)
			continue;
		rd->devices |= p->devices;
		struct proc *parent = find(s, p->ppid);
		bool is_top = p->own_rank == p->rank && (!parent || parent->rank != p->rank);
		size_t k = (size_t)(rd - s->r);
		/* pids ascend: the first top process, else the first one */
		if (!rd->main || (is_top && !top[k])) {
			rd->main = p;
			top[k] = is_top;
		}
	}
	free(top);
	for (size_t k = 0; k < u; k++) {
		struct rank_dir *rd = &s->r[k];
		int32_t dev = rd->main->env_device;
		if (!rd->devices && dev >= 0 && dev < MAX_DEVICES)
			rd->devices = device_dirs(s->prof_dir, 1ULL << dev);
		int32_t local = rd->main->local_rank;
		rd->host_n = local >= 0 && local < 100 ? local : 0;
	}
	return 0;
}

/* link src to dst, or copy it where a link cannot be made */
static int link_or_copy(const char *src, const char *dst)
{
	if (link(src, dst) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	_cleanup_close_ int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
			return fsync(out) < 0 ? -errno : 0;
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

typedef bool file_filter(const char *name, void *ctx);

/* Every regular file of src_dir that keep passes (all when NULL): linked
 * into dst_dir (link), or unlinked from src_dir (!link). */
static int each_file(const char *src_dir, const char *dst_dir, bool do_link, file_filter *keep, void *ctx)
{
	DIR *d = opendir(src_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (keep && !keep(de->d_name, ctx)))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!do_link) {
			(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		_cleanup_free_ char *a = path_join(src_dir, de->d_name), *b = path_join(dst_dir, de->d_name);
		r = a && b ? link_or_copy(a, b) : -ENOMEM;
	}
	closedir(d);
	return r;
}

static bool host_sample_file(const char *name, void *ctx)
{
	(void)ctx;
	return startswith(name, "host_");
}

static bool meta_file(const char *name, void *ctx)
{
	(void)ctx;
	return streq(name, "start_info") || streq(name, "end_info") || streq(name, "sample.json");
}

struct agent_files { struct split *s; int32_t rank; };

/* agent_<pid>.* of a process of the rank (rank -1: of any rank) */
static bool rank_agent_file(const char *name, void *ctx)
{
	const struct agent_files *af = ctx;
	unsigned pid;
	char dot;
	if (sscanf(name, RAW_AGENT_PREFIX "%u%c", &pid, &dot) != 2 || dot != '.')
		return false;
	const struct proc *p = find(af->s, pid);
	return p && p->rank >= 0 && (af->rank < 0 || p->rank == af->rank);
}

static int mkdirs(const char *base, const char *sub)
{
	_cleanup_free_ char *p = path_join(base, sub);
	if (!p)
		return -ENOMEM;
	return mkdir(p, DIR_MODE) < 0 && errno != EEXIST ? -errno : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path); /* a symlink itself, never what it points at */
	return 0;
}

/* Remove a tree without following symlinks. */
static void remove_tree(const char *path)
{
	(void)nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* rename from to a name nobody has: renameat2's RENAME_NOREPLACE, or where
 * the file system has none (NFS, FUSE: EINVAL), an empty dir made with
 * mkdir (which fails on a name in use) and renamed over. */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (mkdir(to, DIR_MODE) < 0)
		return -1;
	if (rename(from, to) == 0)
		return 0;
	int e = errno;
	(void)rmdir(to);
	errno = e;
	return -1;
}

/* A new dir name beside the session's (PROF_{rank+1}_{start}_{pid}...),
 * made with mkdir; or, when rename_from is given, that dir renamed to it. */
static int make_rank_dir(const char *prof_dir, int32_t rank, pid_t pid, uint64_t start_ns, const char *rename_from,
			 char **ret)
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
		if (rename_from ? rename_noreplace(rename_from, path) == 0 : mkdir(path, DIR_MODE) == 0) {
			if (!rename_from && ((r = mkdirs(path, "host")) < 0 || (r = mkdirs(path, "host/data")) < 0)) {
				remove_tree(path);
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

/* host/info.json of a dir: the session's (info, read once), with the dir's
 * rank, main process, processes (unless procs is false) and devices.
 * Written also as host/info.json.<host_n> when host_n >= 0 (a dir without a
 * device dir), with the one DeviceInfo entry msprof-analyze's advisor
 * requires of every info.json.<N> (it logs an error without ai_core_num):
 * the host has no AI cores, so 0.  Files are replaced (written aside and
 * renamed), never written through a link. */
static int write_info(const struct split *s, const cJSON *info, const char *dir, int32_t rank,
		      const struct proc *main, uint64_t devices, int host_n, bool procs)
{
	_cleanup_free_ char *host = path_join(dir, "host");
	_cleanup_json_ cJSON *j = cJSON_Duplicate(info, true);
	if (!host || !j)
		return -ENOMEM;
	int r;
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
	char name[32];
	snprintf(name, sizeof name, "info.json.%u", d);
	_cleanup_free_ char *dst = device_path(dir, d);
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
	return profdir_write_json(dst, name, j);
}

/* device_<d> of the session linked into dir, its info.json.<d> the rank's. */
static int link_device(const struct split *s, const char *dir, unsigned d, const struct rank_dir *rd)
{
	_cleanup_free_ char *src = device_path(s->prof_dir, d), *dst = device_path(dir, d);
	if (!src || !dst)
		return -ENOMEM;
	_cleanup_free_ char *sd = path_join(src, "data"), *dd = path_join(dst, "data");
	if (!sd || !dd)
		return -ENOMEM;
	int r;
	if (mkdir(dst, DIR_MODE) < 0 || mkdir(dd, DIR_MODE) < 0)
		return -errno;
	if ((r = each_file(src, dst, true, NULL, NULL)) < 0 || (r = each_file(sd, dd, true, NULL, NULL)) < 0)
		return r;
	return rank_device_info(dir, d, rd->rank, rd->main);
}

/* Phase one for a rank: its dir, complete, of links and its own files. */
static int build_rank(struct split *s, const cJSON *info, struct rank_dir *rd, int64_t start_ns)
{
	int r = make_rank_dir(s->prof_dir, rd->rank, (pid_t)rd->main->pid, (uint64_t)start_ns, NULL, &rd->path);
	if (r < 0)
		return r;
	_cleanup_free_ char *src_host = path_join(s->prof_dir, "host"), *dst_host = path_join(rd->path, "host"),
			    *dst_data = path_join(rd->path, "host/data");
	struct agent_files af = { s, rd->rank };
	if (!src_host || !dst_host || !dst_data)
		return -ENOMEM;
	if ((r = each_file(src_host, dst_host, true, meta_file, NULL)) < 0 ||
	    (r = each_file(s->data, dst_data, true, rank_agent_file, &af)) < 0 ||
	    (r = each_file(s->data, dst_data, true, host_sample_file, NULL)) < 0)
		return r;
	uint64_t have = device_dirs(s->prof_dir, rd->devices);
	for (unsigned d = 0; d < MAX_DEVICES; d++)
		if ((have >> d & 1) && (r = link_device(s, rd->path, d, rd)) < 0)
			return r;
	return write_info(s, info, rd->path, rd->rank, rd->main, rd->devices, have ? -1 : rd->host_n, true);
}

/* The job is one rank and nothing else: the session's dir, renamed as the
 * rank's, is its dir. */
static int one_rank(struct split *s, const cJSON *info, struct rank_dir *rd, int64_t start_ns)
{
	uint64_t have = device_dirs(s->prof_dir, rd->devices);
	int r = 0;
	for (unsigned d = 0; r >= 0 && d < MAX_DEVICES; d++)
		if (have >> d & 1)
			r = rank_device_info(s->prof_dir, d, rd->rank, rd->main);
	if (r >= 0)
		r = write_info(s, info, s->prof_dir, rd->rank, rd->main, rd->devices, have ? -1 : rd->host_n, false);
	if (r >= 0)
		r = make_rank_dir(s->prof_dir, rd->rank, (pid_t)rd->main->pid, (uint64_t)start_ns, s->prof_dir,
				  &rd->path);
	return r;
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
	_cleanup_json_ cJSON *info = NULL;
	_cleanup_free_ char *info_path = path_join(prof_dir, "host/info.json");
	int r;
	if (!info_path || !(s.data = path_join(prof_dir, "host/data"))) {
		r = -ENOMEM;
		goto done;
	}
	if ((r = profdir_read_json(info_path, &info)) < 0)
		goto done;
	uint32_t *pids = NULL;
	size_t n_pids = 0;
	if ((r = raw_list_agent_pids(s.data, &pids, &n_pids)) < 0)
		goto done;
	for (size_t i = 0; r >= 0 && i < n_pids; i++)
		r = read_agent(&s, pids[i]);
	free(pids);
	if (r >= 0)
		r = read_host_procs(&s);
	for (size_t i = 0; r >= 0 && i < n_known; i++) {
		struct proc *p = add(&s, (uint32_t)known[i].pid, 2);
		if (!p)
			r = -E2BIG;
		else
			p->own_rank = sane_rank(known[i].rank);
	}
	if (r < 0)
		goto done;
	merge(&s);
	if ((r = collect_ranks(&s)) < 0)
		goto done;
	if (s.n_r == 0) {
		/* no rank: still the info.json.<N> cluster tools need of a dir */
		r = device_dirs(prof_dir, UINT64_MAX) ? 0 : write_info(&s, info, prof_dir, -1, NULL, 0, 0, false);
		goto done;
	}
	size_t unranked = 0;
	for (size_t i = 0; i < s.n; i++)
		unranked += s.p[i].rank < 0;
	int64_t start_ns = start_ns_of(prof_dir);
	out = calloc(s.n_r, sizeof(*out));
	if (!out) {
		r = -ENOMEM;
		goto done;
	}
	if (s.n_r == 1 && unranked == 0) {
		r = one_rank(&s, info, &s.r[0], start_ns);
	} else {
		/* phase one: every rank's dir complete; on a failure none is left */
		for (size_t k = 0; r >= 0 && k < s.n_r; k++)
			r = build_rank(&s, info, &s.r[k], start_ns);
		if (r < 0) {
			for (size_t k = 0; k < s.n_r; k++)
				if (s.r[k].path)
					remove_tree(s.r[k].path);
			goto done;
		}
		/* phase two: the session's dir gives up what the ranks took,
		 * and only that (a file no rank took, such as an agent file
		 * whose records cannot be read, stays).  A device of a rank
		 * goes; so does the machine's data when no process of no rank
		 * is left (the caller then removes the dir if nothing else is) */
		struct agent_files af = { &s, -1 };
		(void)each_file(s.data, NULL, false, rank_agent_file, &af);
		uint64_t taken = 0;
		for (size_t k = 0; k < s.n_r; k++)
			taken |= device_dirs(prof_dir, s.r[k].devices);
		for (unsigned d = 0; d < MAX_DEVICES; d++) {
			_cleanup_free_ char *p = (taken >> d & 1) ? device_path(prof_dir, d) : NULL;
			if (p)
				remove_tree(p);
		}
		if (unranked == 0)
			(void)each_file(s.data, NULL, false, host_sample_file, NULL);
		r = write_info(&s, info, prof_dir, -1, NULL, 0, device_dirs(prof_dir, UINT64_MAX) ? -1 : 0, true);
		if (r < 0)
			r = 0; /* the ranks are complete: the host-level dir keeps the session's info.json */
	}
	if (r >= 0)
		for (size_t k = 0; k < s.n_r; k++)
			out[k] = (struct profdir_rank){ .rank = s.r[k].rank, .pid = (pid_t)s.r[k].main->pid,
							.path = TAKE_PTR(s.r[k].path), .devices = s.r[k].devices };
done:
	for (size_t k = 0; k < s.n_r; k++)
		free(s.r[k].path);
	free(s.r);
	free(s.p);
	free(s.data);
	if (r < 0) {
		free(out);
		return r;
	}
	*ret = out;
	*ret_n = out ? s.n_r : 0;
	return out ? (int)s.n_r : 0;
}
