/* Small helpers every folder uses: cleanup attributes, ownership transfer,
 * clocks, strict number parsing, growing arrays and string vectors.
 * Header-only so that the agent (which must not pull in anything heavy) can
 * use it too. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) { int e = errno; close(*fd); errno = e; } }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership on: returns the pointer and clears the variable so the
 * cleanup attribute on it does nothing. */
#define TAKE_PTR(p) __extension__({ __typeof__(p) _tp = (p); (p) = NULL; _tp; })
#define TAKE_FD(fd) __extension__({ int _tf = (fd); (fd) = -EBADF; _tf; })

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
static inline uint64_t real_ns(void) { return clock_ns(CLOCK_REALTIME); }

/* Only decimal digits, at least one. */
static inline bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A JSON number (a double) as the integer type it is read into, its
 * fraction cut: false when that type cannot hold it (a cast would be
 * undefined), NaN included. */
static inline bool double_to_u64(double d, uint64_t *ret)
{
	if (!(d >= 0 && d < 18446744073709551616.0))
		return false;
	*ret = (uint64_t)d;
	return true;
}

static inline bool double_to_i64(double d, int64_t *ret)
{
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return false;
	*ret = (int64_t)d;
	return true;
}

/* Parse a whole decimal string into [min, max]; -EINVAL for anything that
 * is not only digits (no sign, no spaces, no suffix), -ERANGE outside. */
static inline int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	if (!s || !*s)
		return -EINVAL;
	uint64_t v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* dir + "/" + name, malloc'd (NULL when out of memory); no slash is added
 * after a dir that ends in one, nor after an empty dir (a PATH entry that
 * means the current directory). */
static inline char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a > 0 && dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

/* Room for element n of arr (cap elements allocated, n <= cap), doubling
 * from first: arr itself, the grown array (cap updated), or NULL with arr
 * and cap as they were. */
static inline void *grow_array(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return arr;
	size_t nc = *cap ? *cap * 2 : first;
	void *p = realloc(arr, nc * size);
	if (p)
		*cap = nc;
	return p;
}
/* 0, or -ENOMEM with arr and cap as they were; arr is an lvalue (named
 * twice). */
#define GROW_ARRAY(arr, cap, n, first)                                               \
	__extension__({                                                              \
		void *_ga = grow_array((arr), &(cap), (n), sizeof(*(arr)), (first)); \
		if (_ga)                                                             \
			(arr) = _ga;                                                 \
		_ga ? 0 : -ENOMEM;                                                   \
	})

/* qsort and bsearch for arrays that may be empty: the C library declares
 * their base non-NULL even when n is 0, and an empty array here is often a
 * NULL pointer. */
static inline void qsort_safe(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
static inline void *bsearch_safe(const void *key, const void *base, size_t n, size_t size,
				 int (*cmp)(const void *, const void *))
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

/* Free a NULL-terminated vector of malloc'd strings and the vector; accepts
 * NULL. */
static inline void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Copy src into dst (cap bytes, NUL-terminated) with every control
 * character (below 0x20, and 0x7f) written as \xNN, so that a string from
 * a peer cannot start a line of its own or drive a terminal where it is
 * logged.  Cut at a whole character (escape included); returns the length. */
static inline size_t str_escape_ctl(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	if (cap == 0)
		return 0;
	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		bool ctl = *p < 0x20 || *p == 0x7f;
		if (n + (ctl ? 4 : 1) >= cap)
			break;
		if (ctl) {
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[*p >> 4];
			dst[n++] = hex[*p & 15];
		} else {
			dst[n++] = (char)*p;
		}
	}
	dst[n] = 0;
	return n;
}
