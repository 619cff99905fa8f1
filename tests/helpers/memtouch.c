/* Allocate and touch MB megabytes, hold them for HOLD_MS, then print the
 * peak resident set the kernel recorded (VmHWM) for comparison.
 *   test-memtouch MB HOLD_MS   prints "touched_kb=<n> vmhwm_kb=<n>" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/util.h"
#include "tests/helpers/workload.h"

int main(int argc, char **argv)
{
	uint64_t mb, hold;
	if (argc < 3 || parse_u64(argv[1], 1, 65536, &mb) < 0 || parse_u64(argv[2], 0, 3600000, &hold) < 0) {
		fprintf(stderr, "usage: test-memtouch MB HOLD_MS\n");
		return 2;
	}
	size_t len = (size_t)mb << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (unsigned char)i | 1;
	sleep_ms(hold);
	printf("touched_kb=%llu vmhwm_kb=%llu\n", (unsigned long long)(len >> 10),
	       (unsigned long long)proc_self_u64("status", "VmHWM"));
	munmap(p, len);
	return fflush(stdout) == 0 ? 0 : 1;
}
