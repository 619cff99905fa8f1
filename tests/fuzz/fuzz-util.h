/* What the fuzz targets of tests/fuzz share: a scratch directory in memory
 * for the files an input becomes, and writing them. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A new directory under /dev/shm (else /tmp), removed at exit by nobody:
 * the runs of one process reuse it, and a fuzzer that stops leaves one
 * small directory behind. */
static inline const char *fuzz_scratch(const char *name)
{
	static char dir[128];
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/msprof-%s.XXXXXX", base, name);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "cannot create a scratch directory '%s': %s\n", dir, strerror(errno));
		abort();
	}
	return dir;
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
