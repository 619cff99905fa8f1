/* Write MB megabytes to DIR/diskwrite.<pid> in 1 MiB chunks, fsync, hold for
 * HOLD_MS, remove the file, and print what /proc/self/io says was written to
 * storage.   test-diskwrite DIR MB HOLD_MS   prints "write_bytes=<n>" */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/helpers/workload.h"

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
	sleep_ms(hold);
	printf("write_bytes=%llu\n", (unsigned long long)proc_self_u64("io", "write_bytes"));
	unlink(path);
	return fflush(stdout) == 0 ? 0 : 1;
}
