/* What the fuzz targets of tests/fuzz share: a scratch directory in memory
 * for the files an input becomes, and writing them. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_scratch_dir[128];

static inline int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	(void)(flag == FTW_DP ? rmdir(path) : unlink(path));
	return 0; /* on with the rest */
}

static inline void fuzz_scratch_remove(void)
{
	(void)nftw(fuzz_scratch_dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A new directory under /dev/shm (else /tmp) for the files the inputs
 * become, the runs of one process reusing it; removed when the process
 * exits (a crash leaves it, beside the input libFuzzer writes). */
static inline const char *fuzz_scratch(const char *name)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fuzz_scratch_dir, sizeof fuzz_scratch_dir, "%s/msprof-%s.XXXXXX", base, name);
	if (!mkdtemp(fuzz_scratch_dir)) {
		fprintf(stderr, "cannot create a scratch directory '%s': %s\n", fuzz_scratch_dir, strerror(errno));
		abort();
	}
	atexit(fuzz_scratch_remove);
	return fuzz_scratch_dir;
}

/* dir/rel made (its parent directories too), or abort: the target cannot run. */
static inline void fuzz_mkdir(const char *dir, const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		(void)mkdir(p, 0700);
		*s = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "cannot create '%s': %s\n", p, strerror(errno));
		abort();
	}
}

/* dir/rel holds exactly the n bytes of data. */
static inline void fuzz_write(const char *dir, const char *rel, const void *data, size_t n)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (n && write(fd, data, n) != (ssize_t)n)) {
		fprintf(stderr, "cannot write '%s': %s\n", p, strerror(errno));
		abort();
	}
	close(fd);
}

static inline void fuzz_unlink(const char *dir, const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	(void)unlink(p);
}

/* The next part of an input cut by NUL bytes: its start and length, the
 * rest after it (the last part runs to the end). */
static inline const char *fuzz_part(const char **in, size_t *left, size_t *ret_len)
{
	const char *p = *in;
	const char *z = memchr(p, '\0', *left);
	size_t n = z ? (size_t)(z - p) : *left;
	*ret_len = n;
	*in = z ? z + 1 : p + n;
	*left -= z ? n + 1 : n;
	return p;
}
