/* A tiny, bounded JSON reader and writer for the agent's control messages
 * (ipc/proto.h): flat objects of strings, integers, booleans and null.  The
 * agent links no JSON library (it lives inside other people's programs);
 * this is all it needs.
 *
 * The reader takes one object; nested arrays and objects are validated and
 * skipped (AJ_NESTED), at most AJSON_MAX_DEPTH deep.  It never reads past
 * `len`, never allocates: decoded strings go to the caller's buffer, which
 * needs at most len + 1 bytes.  Everything from a socket is untrusted. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AJSON_MAX_DEPTH 32
#define AJSON_MAX_MEMBERS 64

enum ajson_type { AJ_NULL, AJ_BOOL, AJ_NUMBER, AJ_STRING, AJ_NESTED };

struct ajson_member {
	const char *key;       /* NUL-terminated, in the string buffer */
	enum ajson_type type;
	bool b;
	bool is_int;           /* AJ_NUMBER: an integer that fits int64 */
	int64_t i;
	const char *s;         /* AJ_STRING: NUL-terminated (no NUL inside) */
	size_t len;
};

struct ajson_obj {
	struct ajson_member m[AJSON_MAX_MEMBERS];
	size_t n;
};

/* Parse the object in in[0..len) (whitespace around it allowed, nothing
 * else).  -EBADMSG: not JSON, not an object, a NUL in a string, a
 * duplicated key, too deep; -E2BIG: more than AJSON_MAX_MEMBERS members;
 * -ENOBUFS: strbuf smaller than len + 1. */
int ajson_parse(const char *in, size_t len, char *strbuf, size_t strbuf_len, struct ajson_obj *ret);

const struct ajson_member *ajson_get(const struct ajson_obj *o, const char *key);
/* Typed lookups: -ENOENT when absent, -EINVAL for another type. */
int ajson_get_str(const struct ajson_obj *o, const char *key, const char **ret);
int ajson_get_int(const struct ajson_obj *o, const char *key, int64_t *ret);
int ajson_get_bool(const struct ajson_obj *o, const char *key, bool *ret);

/* Writer into a fixed buffer; any overflow makes ajw_end fail. */
struct ajw {
	char *buf;
	size_t cap, len;
	bool overflow;
	bool first;
};

void ajw_begin(struct ajw *w, char *buf, size_t cap);
void ajw_str(struct ajw *w, const char *key, const char *val);
void ajw_int(struct ajw *w, const char *key, int64_t val);
void ajw_uint(struct ajw *w, const char *key, uint64_t val);
void ajw_bool(struct ajw *w, const char *key, bool val);
/* Close the object; the length (buf is NUL-terminated) or -ENOSPC. */
long ajw_end(struct ajw *w);
