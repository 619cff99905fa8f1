/* Files of the export: its outputs, written under a temporary name and
 * renamed when complete, and the files it looks for in a PROF dir
 * (files.h). */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/device.h"
#include "export/exp.h"
#include "export/files.h"
#include "common/util.h"

/* --- output files ---------------------------------------------------------- */

#define OUT_BUF_SIZE (256 * 1024)

/* A stream on fd that keeps the first error a write(2) gave and reports it
 * when closed: stdio keeps only an error flag, and by the time the file is
 * closed errno holds whatever came since, so a full disk read as EIO. */
struct wfile {
	int fd;
	int err;
};

static ssize_t wfile_write(void *cookie, const char *buf, size_t n)
{
	struct wfile *w = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(w->fd, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!w->err)
				w->err = k < 0 ? errno : EIO;
			return 0; /* stdio's sign of an error */
		}
		done += (size_t)k;
	}
	return (ssize_t)n;
}

static int wfile_seek(void *cookie, off64_t *off, int whence)
{
	struct wfile *w = cookie;
	off_t at = lseek(w->fd, (off_t)*off, whence);
	if (at < 0)
		return -1;
	*off = at;
	return 0;
}

static int wfile_close(void *cookie)
{
	struct wfile *w = cookie;
	int err = w->err;
	if (close(w->fd) < 0 && !err)
		err = errno;
	free(w);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

FILE *exp_fdopen_w(int fd)
{
	struct wfile *w = malloc(sizeof *w);
	if (!w)
		return NULL;
	*w = (struct wfile){ .fd = fd };
	FILE *f = fopencookie(w, "w", (cookie_io_functions_t){ .write = wfile_write, .seek = wfile_seek,
								.close = wfile_close });
	if (!f)
		free(w);
	return f;
}

int exp_fclose(FILE *f)
{
	int r = 0;
	if (fflush(f) != 0)
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = errno ? -errno : -EIO;
	return r;
}

int exp_out_open(struct exp_out *o, const char *dir, const char *name)
{
	*o = (struct exp_out){ 0 };
	if ((size_t)snprintf(o->path, sizeof o->path, "%s/%s", dir, name) >= sizeof o->path ||
	    (size_t)snprintf(o->tmp, sizeof o->tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof o->tmp ||
	    strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(o->name, name);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* msprof writes its deliverables 0640 (FILE_AUTHORITY) */
	(void)fchmod(fd, 0640);
	o->f = exp_fdopen_w(fd);
	if (!o->f) {
		int r = -errno;
		close(fd);
		unlink(o->tmp);
		return r;
	}
	/* one thread writes a file: no stdio locking per call */
	__fsetlocking(o->f, FSETLOCKING_BYCALLER);
	o->vbuf = malloc(OUT_BUF_SIZE);
	if (o->vbuf)
		setvbuf(o->f, o->vbuf, _IOFBF, OUT_BUF_SIZE);
	return 0;
}

void exp_out_abort(struct exp_out *o)
{
	if (o->f) {
		fclose(o->f);
		unlink(o->tmp);
	}
	free(o->vbuf);
	*o = (struct exp_out){ 0 };
}

int exp_out_commit(struct exp *e, struct exp_out *o)
{
	int r = exp_fclose(o->f);
	o->f = NULL;
	free(o->vbuf);
	o->vbuf = NULL;
	if (r == 0 && rename(o->tmp, o->path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(o->tmp);
		exp_fail(e, "cannot write '%s': %s", o->path, strerror(-r));
		return r;
	}
	exp_note_written(e, o->name);
	return 0;
}

void exp_note_written(struct exp *e, const char *name)
{
	struct exp *to = e->parent ? e->parent : e;
	exp_lock(e);
	if (to->n_written < EXPORT_MAX_FILES)
		snprintf(to->written[to->n_written++], sizeof to->written[0], "%s", name);
	exp_unlock(e);
}

void exp_out_rename(struct exp_out *o, const char *dir, const char *name)
{
	snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	snprintf(o->name, sizeof o->name, "%s", name);
}

unsigned exp_list_devices(const char *prof_dir, bool *ret)
{
	DIR *d = opendir(prof_dir);
	unsigned n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t id;
		if (!startswith(de->d_name, "device_") || parse_u64(de->d_name + 7, 0, DEV_MAX_DEVICES - 1, &id) < 0)
			continue;
		if (!ret[id])
			n++;
		ret[id] = true;
	}
	closedir(d);
	return n;
}

bool exp_newest_db(const char *prof_dir, char *path, size_t size)
{
	DIR *d = opendir(prof_dir);
	if (!d)
		return false;
	char best[NAME_MAX + 1] = "";
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len != 7 + EXPORT_TS_LEN + 3 || !startswith(n, "msprof_") || strcmp(n + len - 3, ".db") != 0)
			continue;
		bool digits = true;
		for (size_t i = 0; i < EXPORT_TS_LEN; i++)
			digits = digits && isdigit((unsigned char)n[7 + i]);
		if (digits && strcmp(n, best) > 0)
			snprintf(best, sizeof best, "%s", n);
	}
	closedir(d);
	return best[0] && (size_t)snprintf(path, size, "%s/%s", prof_dir, best) < size;
}

/* --- pieces of the outputs ------------------------------------------------ */

/* An in-memory stream (a table's row, a timeline's metadata) and its
 * buffer, closed and freed if open. */
void exp_memstream_drop(FILE **f, char **buf)
{
	if (*f)
		fclose(*f);
	free(*buf);
	*f = NULL;
	*buf = NULL;
}

/* "{stem}_{ts}{suffix}" or "{stem}_slice_{n}_{ts}{suffix}" */
void exp_piece_name(char *buf, size_t size, const char *stem, bool sliced, unsigned n, const char *ts,
		       const char *suffix)
{
	if (sliced)
		snprintf(buf, size, "%s_slice_%u_%s%s", stem, n, ts, suffix);
	else
		snprintf(buf, size, "%s_%s%s", stem, ts, suffix);
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

void exp_remove_stale(const char *dir, const char *stem, const char *suffix, const char *ts, unsigned pieces)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t ls = strlen(stem), lx = strlen(suffix);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len < ls + 1 + EXPORT_TS_LEN + lx || strncmp(n, stem, ls) != 0 || n[ls] != '_' ||
		    strcmp(n + len - lx, suffix) != 0)
			continue;
		const char *stamp = n + len - lx - EXPORT_TS_LEN, *mid = n + ls + 1;
		if (!digits(stamp, EXPORT_TS_LEN))
			continue;
		bool ours = strncmp(stamp, ts, EXPORT_TS_LEN) == 0;
		if (mid == stamp) {
			/* plain: ours only when this export wrote one piece */
			if (ours && pieces == 1)
				continue;
		} else {
			/* only "slice_<n>_" may stand between stem and stamp */
			if (!startswith(mid, "slice_") || stamp - 1 <= mid + 6 || stamp[-1] != '_' ||
			    !digits(mid + 6, (size_t)(stamp - 1 - (mid + 6))))
				continue;
			if (ours && pieces > 1 && strtoul(mid + 6, NULL, 10) < pieces)
				continue;
		}
		(void)unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}
