/* Write MB megabytes to DIR/diskwrite.<pid> in 1 MiB chunks, fsync, hold for
 * HOLD_MS, remove the file, and print what /proc/self/io says was written to
 * storage.   test-diskwrite DIR MB HOLD_MS   prints "write_bytes=<n>" */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

static uint64_t io_field(const char *key)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/io", "re");
	char line[256];
	uint64_t v = 0;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 10);
	return v;
}

int main(int argc, char **argv)
{
	uint64_t mb, hold;
	if (argc < 4 || parse_u64(argv[2], 1, 65536, &mb) < 0 || parse_u64(argv[3], 0, 3600000, &hold) < 0) {
		fprintf(stderr, "usage: test-diskwrite DIR MB HOLD_MS\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/diskwrite.%d", argv[1], (int)getpid());
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	static char chunk[1 << 20];
	for (size_t i = 0; i < sizeof chunk; i++)
		chunk[i] = (char)(i * 31 + 7);
	for (uint64_t i = 0; i < mb; i++) {
		chunk[0] = (char)i; /* defeat any dedup */
		if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) {
			perror("write");
			return 1;
		}
	}
	if (fsync(fd) < 0) {
		perror("fsync");
		return 1;
	}
	struct timespec ts = { .tv_sec = (time_t)(hold / 1000), .tv_nsec = (long)(hold % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	printf("write_bytes=%llu\n", (unsigned long long)io_field("write_bytes"));
	unlink(path);
	return fflush(stdout) == 0 ? 0 : 1;
}
