/* A full file system, for msprofd (LD_PRELOAD): while the file named by
 * MSPROF_TEST_FULL exists, every write to a raw data dir (a path with
 * "/host/data/") fails with ENOSPC.  tests/integration/flight-recorder.sh. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static bool full(int fd)
{
	const char *flag = getenv("MSPROF_TEST_FULL");
	if (!flag || access(flag, F_OK) < 0)
		return false;
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	return strstr(path, "/host/data/") != NULL;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "writev");
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, n);
}

ssize_t write(int fd, const void *p, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "write");
	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, p, n);
}
