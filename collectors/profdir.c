/* The PROF_* directory: name, tree, and the small JSON files in host/. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "config.h"
#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"

#define JSON_MAX (1U << 20)
#define DIR_MODE 0750
#define FILE_MODE 0640


static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* --- name ------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int profdir_make_name(unsigned index, uint64_t rns, pid_t pid, char ret[PROFDIR_NAME_MAX])
{
	if (!ret || pid < 0)
		return -EINVAL;

	time_t sec = (time_t)(rns / NSEC_PER_SEC);
	unsigned ms = (unsigned)(rns % NSEC_PER_SEC / NSEC_PER_MSEC);
	struct tm tm;
	if (!localtime_r(&sec, &tm))
		return -EINVAL;
	char when[32];
	if (strftime(when, sizeof(when), "%Y%m%d%H%M%S", &tm) != 14)
		return -EINVAL;

	uint64_t nonce = 0;
	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		nonce = mono_ns() ^ ((uint64_t)getpid() << 32);
	uint64_t h = mix64(mix64(mix64((uint64_t)index) ^ rns) ^ (uint64_t)pid) ^ mix64(nonce);
	char tail[9];
	for (int i = 0; i < 8; i++) {
		tail[i] = (char)('A' + h % 18); /* A-R, as msprof */
		h /= 18;
	}
	tail[8] = 0;

	/* msprof numbers its directories (index % 999999) + 1 */
	int n = snprintf(ret, PROFDIR_NAME_MAX, "PROF_%06u_%s%03u_%08d%s", index % 999999 + 1, when, ms,
			 (int)pid, tail);
	if (n < 0 || n >= PROFDIR_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* --- tree -------------------------------------------------------------------- */

static atomic_uint profdir_counter;

/* The directory name just made under pfd (whose path is abs) gets host/data
 * and *ret_path its path; on failure it is removed again. */
static int populate(int pfd, const char *abs, const char *name, char **ret_path)
{
	int r = 0;
	_cleanup_close_ int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		goto undo;
	}
	if (mkdirat(dfd, "host", DIR_MODE) < 0) {
		r = -errno;
		goto undo;
	}
	if (mkdirat(dfd, "host/data", DIR_MODE) < 0) {
		r = -errno;
		(void)unlinkat(dfd, "host", AT_REMOVEDIR);
		goto undo;
	}
	char *path = path_join(abs, name);
	if (!path) {
		r = -ENOMEM;
		(void)unlinkat(dfd, "host/data", AT_REMOVEDIR);
		(void)unlinkat(dfd, "host", AT_REMOVEDIR);
		goto undo;
	}
	*ret_path = path;
	return 0;
undo:
	(void)unlinkat(pfd, name, AT_REMOVEDIR);
	return r;
}

/* A new directory under parent, named by next_name (try counts from 0;
 * a name taken is followed by the next, up to tries names), then given
 * its host/data. */
typedef int profdir_name_fn(unsigned try, const void *ctx, char name[PROFDIR_NAME_MAX]);

static int create_fresh(const char *parent, unsigned tries, profdir_name_fn *next_name, const void *ctx,
			char **ret_path)
{
	if (!parent || !ret_path)
		return -EINVAL;

	_cleanup_free_ char *abs = realpath(parent, NULL);
	if (!abs)
		return -errno;
	_cleanup_close_ int pfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;

	char name[PROFDIR_NAME_MAX];
	int r = -EEXIST;
	for (unsigned i = 0; i < tries && r == -EEXIST; i++) {
		r = next_name(i, ctx, name);
		if (r < 0)
			return r;
		/* mkdir never follows or reuses what is there, symlink included */
		r = mkdirat(pfd, name, DIR_MODE) == 0 ? 0 : -errno;
	}
	if (r < 0)
		return r;
	return populate(pfd, abs, name, ret_path);
}

static int session_name(unsigned try, const void *ctx, char name[PROFDIR_NAME_MAX])
{
	(void)try;
	unsigned index = atomic_fetch_add(&profdir_counter, 1);
	return profdir_make_name(index, real_ns(), *(const pid_t *)ctx, name);
}

int profdir_create(const char *parent, pid_t pid, char **ret_path)
{
	return create_fresh(parent, 1000, session_name, &pid, ret_path);
}

static int spare_name(unsigned try, const void *ctx, char name[PROFDIR_NAME_MAX])
{
	(void)ctx;
	uint64_t nonce = 0;
	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		nonce = mix64(mono_ns() ^ ((uint64_t)getpid() << 32) ^ try);
	snprintf(name, PROFDIR_NAME_MAX, "%s%016llx", PROFDIR_SPARE_PREFIX, (unsigned long long)nonce);
	return 0;
}

int profdir_create_spare(const char *parent, char **ret_path)
{
	return create_fresh(parent, 100, spare_name, NULL, ret_path);
}

int profdir_claim_spare(const char *spare, pid_t pid, char **ret_path)
{
	if (!spare || !ret_path)
		return -EINVAL;
	_cleanup_free_ char *parent = strdup(spare);
	char *slash = parent ? strrchr(parent, '/') : NULL;
	if (!slash)
		return parent ? -EINVAL : -ENOMEM;
	*(slash == parent ? slash + 1 : slash) = '\0';
	_cleanup_close_ int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	char name[PROFDIR_NAME_MAX];
	int r = -EEXIST;
	for (unsigned tries = 0; tries < 1000 && r == -EEXIST; tries++) {
		unsigned index = atomic_fetch_add(&profdir_counter, 1);
		r = profdir_make_name(index, real_ns(), pid, name);
		if (r < 0)
			return r;
		/* never onto what is there: RENAME_NOREPLACE, or where the file
		 * system lacks it (EINVAL), an empty dir of ours made first */
		if (renameat2(AT_FDCWD, spare, pfd, name, RENAME_NOREPLACE) == 0) {
			r = 0;
		} else if (errno == EINVAL) {
			r = mkdirat(pfd, name, DIR_MODE) == 0 ? 0 : -errno;
			if (r == 0 && renameat(AT_FDCWD, spare, pfd, name) < 0) {
				r = -errno;
				(void)unlinkat(pfd, name, AT_REMOVEDIR);
			}
		} else {
			r = -errno;
		}
	}
	if (r < 0)
		return r;
	char *path = path_join(parent, name);
	if (!path)
		return -ENOMEM;   /* it is there, under a name we cannot tell: rare enough */
	*ret_path = path;
	return 0;
}

/* Files profdir_remove_empty may delete: what a session writes before any
 * data, and raw slices that hold a header and nothing else. */
static const char *const host_meta[] = { "info.json", "start_info", "end_info", "sample.json" };

static bool is_meta(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(host_meta); i++)
		if (streq(name, host_meta[i]))
			return true;
	return startswith(name, "info.json."); /* host/info.json.<N> (profdir-ranks.c) */
}

/* Walk dir; with do_delete false only check that every entry may go. */
static int sweep(int dfd, bool data_dir, bool do_delete)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		int r = -errno;
		close(fd);
		return r;
	}
	rewinddir(d); /* the dup shares its offset with dfd and earlier walks */
	struct dirent *de;
	while ((de = readdir(d))) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (!data_dir && streq(de->d_name, "data"))
			continue;
		struct stat st;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		bool ok = S_ISREG(st.st_mode) &&
			  (data_dir ? strstr(de->d_name, ".slice_") && st.st_size <= RAW_HEADER_SIZE
				    : is_meta(de->d_name));
		if (!ok)
			return -ENOTEMPTY;
		if (do_delete && unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT)
			return -errno;
	}
	return 0;
}

int profdir_remove_empty(const char *path)
{
	if (!path)
		return -EINVAL;
	_cleanup_close_ int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;

	/* Only host/ may be there.  Check everything before deleting anything. */
	_cleanup_closedir_ DIR *d = NULL;
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && !streq(de->d_name, "host"))
			return -ENOTEMPTY;

	_cleanup_close_ int hfd = openat(dfd, "host", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int datafd = -EBADF;
	if (hfd >= 0) {
		datafd = openat(hfd, "data", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (datafd < 0 && errno != ENOENT)
			return -errno;
	} else if (errno != ENOENT)
		return -errno;

	int r;
	if (datafd >= 0 && (r = sweep(datafd, true, false)) < 0)
		return r;
	if (hfd >= 0 && (r = sweep(hfd, false, false)) < 0)
		return r;
	if (datafd >= 0 && (r = sweep(datafd, true, true)) < 0)
		return r;
	if (hfd >= 0) {
		if ((r = sweep(hfd, false, true)) < 0)
			return r;
		if (datafd >= 0 && unlinkat(hfd, "data", AT_REMOVEDIR) < 0)
			return -errno;
		if (unlinkat(dfd, "host", AT_REMOVEDIR) < 0)
			return -errno;
	}
	if (rmdir(path) < 0)
		return -errno;
	return 0;
}

/* --- small file helpers ------------------------------------------------------ */

/* Up to n bytes of fd into buf, fewer only at the end of the file. */
static ssize_t read_upto(int fd, char *buf, size_t n)
{
	size_t len = 0;
	while (len < n) {
		ssize_t k = read(fd, buf + len, n - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	return (ssize_t)len;
}

/* Read a small text file (first line only when first_line) into buf. */
static int read_small(const char *path, char *buf, size_t cap, bool first_line)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t len = read_upto(fd, buf, cap - 1);
	if (len < 0)
		return (int)len;
	buf[len] = 0;
	if (first_line)
		buf[strcspn(buf, "\n")] = 0;
	return (int)len;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = 0;
	while (n + 1 < cap && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* "key<spaces>: value" from a text buffer like /proc/cpuinfo; trims. */
static bool find_field(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) != 0)
			continue;
		const char *q = p + kl;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		size_t n = strcspn(q, "\n");
		while (n > 0 && (q[n - 1] == ' ' || q[n - 1] == '\t'))
			n--;
		if (n >= cap)
			n = cap - 1;
		memcpy(out, q, n);
		out[n] = 0;
		return true;
	}
	return false;
}

/* KEY=value or KEY="value" (os-release); quotes dropped. */
static bool find_field_eq(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) != 0 || p[kl] != '=')
			continue;
		const char *q = p + kl + 1;
		size_t n = strcspn(q, "\n");
		if (n >= 2 && (q[0] == '"' || q[0] == '\'') && q[n - 1] == q[0]) {
			q++;
			n -= 2;
		}
		if (n >= cap)
			n = cap - 1;
		memcpy(out, q, n);
		out[n] = 0;
		return n > 0;
	}
	return false;
}

int host_facts_read(struct host_facts *ret)
{
	if (!ret)
		return -EINVAL;
	struct host_facts f = { 0 };
	struct utsname u;
	bool have_uts = uname(&u) == 0;

	if (gethostname(f.hostname, sizeof(f.hostname) - 1) < 0 && have_uts)
		copy_str(f.hostname, sizeof(f.hostname), u.nodename);
	f.hostname[sizeof(f.hostname) - 1] = 0;

	/* MSPROF_HOST_UID: hosts that share a machine-id (containers of one
	 * image) still need distinct ids, or cluster tools merge their ranks */
	char line[256];
	const char *uid = getenv("MSPROF_HOST_UID");
	if (uid && *uid)
		copy_str(f.host_uid, sizeof(f.host_uid), uid);
	else if (read_small("/etc/machine-id", line, sizeof(line), true) > 0 ||
		 read_small("/var/lib/dbus/machine-id", line, sizeof(line), true) > 0)
		copy_str(f.host_uid, sizeof(f.host_uid), line);

	if (have_uts)
		copy_str(f.hwtype, sizeof(f.hwtype), u.machine);

	/* OS: the distribution's name, else the kernel's */
	_cleanup_free_ char *osr = malloc(8192);
	if (!osr)
		return -ENOMEM;
	char pretty[128];
	if (read_small("/etc/os-release", osr, 8192, false) > 0 && find_field_eq(osr, "PRETTY_NAME", pretty, sizeof(pretty)))
		copy_str(f.os, sizeof(f.os), pretty);
	else if (have_uts)
	{
		char os[sizeof(u.sysname) + sizeof(u.release) + 1];
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
		copy_str(f.os, sizeof(f.os), os);
	}

	/* /proc/cpuinfo: the first CPU's model name and MHz (x86); ARM kernels
	 * print neither, so fall back to cpufreq and the architecture */
	_cleanup_free_ char *ci = malloc(65536);
	if (!ci)
		return -ENOMEM;
	if (read_small("/proc/cpuinfo", ci, 65536, false) > 0) {
		char v[128];
		if (find_field(ci, "model name", v, sizeof(v)) || find_field(ci, "Model", v, sizeof(v)) ||
		    find_field(ci, "Hardware", v, sizeof(v)))
			copy_str(f.cpu_name, sizeof(f.cpu_name), v);
		if (find_field(ci, "cpu MHz", v, sizeof(v)))
			f.cpu_mhz = strtod(v, NULL);
	}
	if (f.cpu_mhz <= 0 &&
	    read_small("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", line, sizeof(line), true) > 0) {
		uint64_t khz;
		if (parse_u64(line, 1, UINT32_MAX, &khz) == 0)
			f.cpu_mhz = (double)khz / 1000.0;
	}
	if (!f.cpu_name[0])
		copy_str(f.cpu_name, sizeof(f.cpu_name), f.hwtype);

	long n = sysconf(_SC_NPROCESSORS_ONLN);
	f.cpu_nums = n > 0 ? (unsigned)n : 1;
	n = sysconf(_SC_CLK_TCK);
	f.clk_tck = n > 0 ? (unsigned long)n : 100;

	if (read_small("/proc/meminfo", ci, 65536, false) > 0) {
		char v[64];
		if (find_field(ci, "MemTotal", v, sizeof(v))) {
			v[strcspn(v, " ")] = 0;
			uint64_t kb;
			if (parse_u64(v, 0, UINT64_MAX, &kb) == 0)
				f.mem_total_kb = kb;
		}
	}

	_cleanup_closedir_ DIR *d = opendir("/sys/class/net");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && f.n_netcards < ARRAY_SIZE(f.netcards)) {
			if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(f.netcards[0].name))
				continue;
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "/sys/class/net/%s/speed", de->d_name);
			int64_t speed = -1;
			/* reading speed fails (EINVAL) for a link that is down */
			if (read_small(path, line, sizeof(line), true) > 0) {
				uint64_t v;
				if (parse_u64(line, 0, INT32_MAX, &v) == 0)
					speed = (int64_t)v;
			}
			copy_str(f.netcards[f.n_netcards].name, sizeof(f.netcards[0].name), de->d_name);
			f.netcards[f.n_netcards].speed_mbps = speed;
			f.n_netcards++;
		}
	}
	*ret = f;
	return 0;
}

/* --- JSON files -------------------------------------------------------------- */

/* Write atomically: a temporary in the same directory, renamed into place;
 * with sync, fsynced before the rename.  Without, the file is whole or
 * absent after a crash of ours, but not yet on disk after a crash of the
 * machine: profdir_sync makes it so later, off the path that waits. */
static int write_text(const char *dir, const char *name, const char *text, bool sync)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	char tmp[NAME_MAX + 1];
	int n = snprintf(tmp, sizeof(tmp), ".%s.tmp.%d", name, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	(void)unlinkat(dfd, tmp, 0);
	_cleanup_close_ int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FILE_MODE);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text), done = 0;
	int r = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		done += (size_t)w;
	}
	if (r == 0 && sync && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

int profdir_write_text(const char *dir, const char *name, const char *text)
{
	return write_text(dir, name, text, true);
}

static int write_json(const char *dir, const char *name, const cJSON *j, bool sync)
{
	_cleanup_free_ char *text = cJSON_PrintUnformatted(j);
	if (!text)
		return -ENOMEM;
	return write_text(dir, name, text, sync);
}

int profdir_write_json(const char *dir, const char *name, const cJSON *j)
{
	return write_json(dir, name, j, true);
}

int profdir_write_json_lazy(const char *dir, const char *name, const cJSON *j)
{
	return write_json(dir, name, j, false);
}

/* fsync path (a file or a directory); ENOENT is not an error (a dir
 * without that file). */
static int sync_at(int dfd, const char *name, bool dir)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	return fsync(fd) < 0 ? -errno : 0;
}

/* Every regular file directly in dir (not its data/), then dir itself. */
static int sync_files(int pfd, const char *sub)
{
	_cleanup_close_ int dfd = openat(pfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		struct stat st;
		if (de->d_type == DT_UNKNOWN && (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
						 !S_ISREG(st.st_mode)))
			continue;
		int e = sync_at(dfd, de->d_name, false);
		if (e < 0 && r == 0)
			r = e;
	}
	/* the renames that put them in place */
	if (fsync(dfd) < 0 && r == 0)
		r = -errno;
	return r;
}

int profdir_sync(const char *prof_dir)
{
	if (!prof_dir)
		return -EINVAL;
	_cleanup_close_ int pfd = open(prof_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	int r = sync_files(pfd, "host");
	int fd = fcntl(pfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return r < 0 ? r : -errno;
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return r < 0 ? r : -errno;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!startswith(de->d_name, "device_"))
			continue;
		int e = sync_files(pfd, de->d_name);
		if (e < 0 && r == 0)
			r = e;
	}
	/* host/ and device_<N>/ themselves, and the PROF dir in its parent */
	if (fsync(pfd) < 0 && r == 0)
		r = -errno;
	_cleanup_free_ char *parent = strdup(prof_dir);
	char *slash = parent ? strrchr(parent, '/') : NULL;
	if (slash) {
		*(slash == parent ? slash + 1 : slash) = '\0';
		_cleanup_close_ int ppfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if ((ppfd < 0 || fsync(ppfd) < 0) && r == 0)
			r = -errno;
	}
	return r;
}

/* name in prof_dir's host/ */
static int write_host_json(const char *prof_dir, const char *name, const cJSON *j)
{
	_cleanup_free_ char *host = path_join(prof_dir, "host");
	if (!host)
		return -ENOMEM;
	return profdir_write_json_lazy(host, name, j);
}

/* cJSON_Add*ToObject return NULL only when out of memory */
#define J(x)                          \
	do {                          \
		if (!(x))             \
			return -ENOMEM; \
	} while (0)

int profdir_write_info(const char *prof_dir, const struct host_facts *f, pid_t pid,
		       const char *pid_name, int rank_id)
{
	if (!prof_dir || !f)
		return -EINVAL;
	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	char num[64];

	J(cJSON_AddStringToObject(j, "jobInfo", "NA"));
	J(cJSON_AddStringToObject(j, "hostname", f->hostname));
	J(cJSON_AddStringToObject(j, "hostUid", f->host_uid));
	snprintf(num, sizeof(num), "%d", (int)pid);
	J(cJSON_AddStringToObject(j, "pid", num));
	J(cJSON_AddStringToObject(j, "pid_name", pid_name ? pid_name : ""));
	J(cJSON_AddNumberToObject(j, "rank_id", rank_id));
	J(cJSON_AddStringToObject(j, "devices", ""));
	J(cJSON_AddArrayToObject(j, "DeviceInfo"));

	cJSON *cpus = cJSON_AddArrayToObject(j, "CPU");
	J(cpus);
	cJSON *c = cJSON_CreateObject();
	J(c);
	cJSON_AddItemToArray(cpus, c);
	J(cJSON_AddNumberToObject(c, "Id", 0));
	J(cJSON_AddStringToObject(c, "Name", f->cpu_name));
	J(cJSON_AddStringToObject(c, "Type", f->hwtype));
	/* MHz without trailing zeros: "2900", "2899.998" */
	snprintf(num, sizeof(num), "%.3f", f->cpu_mhz > 0 ? f->cpu_mhz : 0.0);
	char *dot = strchr(num, '.');
	if (dot) {
		char *e = num + strlen(num) - 1;
		while (e > dot && *e == '0')
			*e-- = 0;
		if (e == dot)
			*e = 0;
	}
	J(cJSON_AddStringToObject(c, "Frequency", num));
	snprintf(num, sizeof(num), "%u", f->cpu_nums);
	J(cJSON_AddStringToObject(c, "Logical_CPU_Count", num));

	J(cJSON_AddNumberToObject(j, "cpuNums", f->cpu_nums));
	J(cJSON_AddNumberToObject(j, "sysClockFreq", (double)f->clk_tck));
	J(cJSON_AddNumberToObject(j, "memoryTotal", (double)f->mem_total_kb));
	J(cJSON_AddNumberToObject(j, "netCardNums", f->n_netcards));
	cJSON *cards = cJSON_AddArrayToObject(j, "netCard");
	J(cards);
	for (unsigned i = 0; i < f->n_netcards && i < ARRAY_SIZE(f->netcards); i++) {
		cJSON *nc = cJSON_CreateObject();
		J(nc);
		cJSON_AddItemToArray(cards, nc);
		J(cJSON_AddStringToObject(nc, "netCardName", f->netcards[i].name));
		J(cJSON_AddNumberToObject(nc, "speed", (double)f->netcards[i].speed_mbps));
	}
	J(cJSON_AddStringToObject(j, "platform_version", "0"));
	J(cJSON_AddStringToObject(j, "version", "1.0"));
	J(cJSON_AddNumberToObject(j, "drvVersion", 0));
	J(cJSON_AddStringToObject(j, "OS", f->os));
	J(cJSON_AddStringToObject(j, "hwtype", f->hwtype));
	J(cJSON_AddStringToObject(j, "msprof_version", MSPROF_VERSION));
	return write_host_json(prof_dir, "info.json", j);
}

int profdir_update_info(const char *prof_dir, const char *key, cJSON *value)
{
	_cleanup_json_ cJSON *v = value, *j = NULL;
	_cleanup_free_ char *path = NULL;
	if (!prof_dir || !key || !v)
		return -EINVAL;
	if (asprintf(&path, "%s/host/info.json", prof_dir) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	int r = profdir_read_json(path, &j);
	if (r < 0)
		return r;
	if (!cJSON_IsObject(j))
		return -EBADMSG;
	cJSON_DeleteItemFromObjectCaseSensitive(j, key);
	if (!cJSON_AddItemToObject(j, key, v))
		return -ENOMEM;
	v = NULL;
	return write_host_json(prof_dir, "info.json", j);
}

int profdir_write_sample(const char *prof_dir, const struct cJSON *options)
{
	if (!prof_dir || !options)
		return -EINVAL;
	return write_host_json(prof_dir, "sample.json", options);
}

int profdir_write_time_file(const char *dir, const char *name, int begin, uint64_t rns, uint64_t monoraw_ns)
{
	if (rns == 0) {
		rns = real_ns();
		monoraw_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	}
	time_t sec = (time_t)(rns / NSEC_PER_SEC);
	struct tm tm;
	if (!localtime_r(&sec, &tm))
		return -EINVAL;
	char date[64], when[32], num[32];
	if (strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return -EINVAL;
	snprintf(date, sizeof(date), "%s.%06u", when, (unsigned)(rns % NSEC_PER_SEC / NSEC_PER_USEC));

	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	J(cJSON_AddStringToObject(j, begin ? "collectionDateBegin" : "collectionDateEnd", date));
	snprintf(num, sizeof(num), "%llu", (unsigned long long)(rns / NSEC_PER_USEC));
	J(cJSON_AddStringToObject(j, begin ? "collectionTimeBegin" : "collectionTimeEnd", num));
	snprintf(num, sizeof(num), "%llu", (unsigned long long)monoraw_ns);
	J(cJSON_AddStringToObject(j, "clockMonotonicRaw", num));
	return profdir_write_json_lazy(dir, name, j);
}

int profdir_write_time_info(const char *prof_dir, int begin, uint64_t rns, uint64_t monoraw_ns)
{
	if (!prof_dir)
		return -EINVAL;
	_cleanup_free_ char *host = path_join(prof_dir, "host");
	if (!host)
		return -ENOMEM;
	return profdir_write_time_file(host, begin ? "start_info" : "end_info", begin, rns, monoraw_ns);
}

int profdir_read_json(const char *path, struct cJSON **ret)
{
	if (!path || !ret)
		return -EINVAL;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > (off_t)JSON_MAX)
		return -EFBIG;
	/* the size may change under us: read at most JSON_MAX + 1 and check */
	_cleanup_free_ char *buf = malloc(JSON_MAX + 2);
	if (!buf)
		return -ENOMEM;
	ssize_t len = read_upto(fd, buf, JSON_MAX + 1);
	if (len < 0)
		return (int)len;
	if (len > JSON_MAX)
		return -EFBIG;
	buf[len] = 0;
	cJSON *j = cJSON_ParseWithLength(buf, len);
	if (!j)
		return -EBADMSG;
	*ret = j;
	return 0;
}
