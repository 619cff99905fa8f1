/* What the fail-fast unit tests share: a check that stops the test at the
 * first failure (file:line and the expression on stderr), a scratch
 * directory tree removed with rm_rf, and the fuzz tests' random numbers. */
#pragma once

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define CHECK(x)                                                                         \
	do {                                                                             \
		if (!(x)) {                                                              \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x); \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static inline int rm_cb_(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static inline void rm_rf(const char *p)
{
	nftw(p, rm_cb_, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh, empty directory parent/name; malloc'd path. */
static inline char *unittest_subdir(const char *parent, const char *name)
{
	char *p;
	CHECK(asprintf(&p, "%s/%s", parent, name) > 0);
	rm_rf(p);
	CHECK(mkdir(p, 0755) == 0);
	return p;
}

/* xorshift64 from a fixed seed: a fuzz test feeds the same inputs every
 * run, so a failure it finds is found again. */
static inline uint64_t rnd(void)
{
	static uint64_t rng = 88172645463325252ULL;
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
