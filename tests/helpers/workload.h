/* What the small workload helpers (test-diskwrite, test-memtouch) share:
 * holding what they did for a while, and reading back what the kernel
 * counted for them. */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"

/* The number after "key:" on its line of /proc/self/<file> (status, io);
 * 0 when there is no such line. */
static inline uint64_t proc_self_u64(const char *file, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/%s", file);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	uint64_t v = 0;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 10);
	return v;
}

static inline void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}
