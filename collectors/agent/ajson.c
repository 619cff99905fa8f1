/* Tiny JSON: see ajson.h.  A recursive-descent parser over a bounded input,
 * with an explicit depth limit; strings are decoded (escapes, \u with
 * surrogate pairs, to UTF-8) into the caller's buffer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/agent/ajson.h"

struct pz {
	const char *p, *end;
	char *out, *out_end;
	int depth;
};

static void ws(struct pz *z)
{
	while (z->p < z->end && (*z->p == ' ' || *z->p == '\t' || *z->p == '\n' || *z->p == '\r'))
		z->p++;
}

static int hex4(struct pz *z, unsigned *ret)
{
	if (z->end - z->p < 4)
		return -EBADMSG;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = z->p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EBADMSG;
	}
	z->p += 4;
	*ret = v;
	return 0;
}

static int put(struct pz *z, char c)
{
	if (!z->out)
		return 0; /* skipping */
	if (z->out >= z->out_end)
		return -ENOBUFS;
	*z->out++ = c;
	return 0;
}

static int put_utf8(struct pz *z, unsigned cp)
{
	int r = 0;
	if (cp < 0x80) {
		r |= put(z, (char)cp);
	} else if (cp < 0x800) {
		r |= put(z, (char)(0xc0 | cp >> 6));
		r |= put(z, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		r |= put(z, (char)(0xe0 | cp >> 12));
		r |= put(z, (char)(0x80 | ((cp >> 6) & 0x3f)));
		r |= put(z, (char)(0x80 | (cp & 0x3f)));
	} else {
		r |= put(z, (char)(0xf0 | cp >> 18));
		r |= put(z, (char)(0x80 | ((cp >> 12) & 0x3f)));
		r |= put(z, (char)(0x80 | ((cp >> 6) & 0x3f)));
		r |= put(z, (char)(0x80 | (cp & 0x3f)));
	}
	return r ? -ENOBUFS : 0;
}

/* A string at z->p (on the quote); decoded to z->out when it is set. */
static int string(struct pz *z, size_t *ret_len)
{
	char *start = z->out;
	z->p++;
	for (;;) {
		if (z->p >= z->end)
			return -EBADMSG;
		unsigned char c = (unsigned char)*z->p++;
		if (c == '"')
			break;
		if (c < 0x20)
			return -EBADMSG; /* control characters must be escaped */
		if (c != '\\') {
			if (put(z, (char)c) < 0)
				return -ENOBUFS;
			continue;
		}
		if (z->p >= z->end)
			return -EBADMSG;
		char e = *z->p++;
		int r = 0;
		switch (e) {
		case '"': r = put(z, '"'); break;
		case '\\': r = put(z, '\\'); break;
		case '/': r = put(z, '/'); break;
		case 'b': r = put(z, '\b'); break;
		case 'f': r = put(z, '\f'); break;
		case 'n': r = put(z, '\n'); break;
		case 'r': r = put(z, '\r'); break;
		case 't': r = put(z, '\t'); break;
		case 'u': {
			unsigned cp, lo;
			if (hex4(z, &cp) < 0)
				return -EBADMSG;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (z->end - z->p < 2 || z->p[0] != '\\' || z->p[1] != 'u')
					return -EBADMSG;
				z->p += 2;
				if (hex4(z, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
					return -EBADMSG;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return -EBADMSG; /* a lone low surrogate */
			}
			if (cp == 0)
				return -EBADMSG; /* no NUL inside our strings */
			r = put_utf8(z, cp);
			break;
		}
		default:
			return -EBADMSG;
		}
		if (r < 0)
			return r;
	}
	if (z->out) {
		if (put(z, 0) < 0)
			return -ENOBUFS;
		*ret_len = (size_t)(z->out - start) - 1;
	}
	return 0;
}

/* A number per RFC 8259; integers that fit int64 get their value. */
static int number(struct pz *z, struct ajson_member *m)
{
	bool neg = false, integer = true, overflow = false;
	uint64_t v = 0;
	if (z->p < z->end && *z->p == '-') {
		neg = true;
		z->p++;
	}
	if (z->p >= z->end)
		return -EBADMSG;
	if (*z->p == '0') {
		z->p++;
	} else if (*z->p >= '1' && *z->p <= '9') {
		while (z->p < z->end && *z->p >= '0' && *z->p <= '9') {
			unsigned d = (unsigned)(*z->p++ - '0');
			if (v > (UINT64_MAX - d) / 10)
				overflow = true;
			else
				v = v * 10 + d;
		}
	} else {
		return -EBADMSG;
	}
	if (z->p < z->end && *z->p == '.') {
		integer = false;
		z->p++;
		if (z->p >= z->end || *z->p < '0' || *z->p > '9')
			return -EBADMSG;
		while (z->p < z->end && *z->p >= '0' && *z->p <= '9')
			z->p++;
	}
	if (z->p < z->end && (*z->p == 'e' || *z->p == 'E')) {
		integer = false;
		z->p++;
		if (z->p < z->end && (*z->p == '+' || *z->p == '-'))
			z->p++;
		if (z->p >= z->end || *z->p < '0' || *z->p > '9')
			return -EBADMSG;
		while (z->p < z->end && *z->p >= '0' && *z->p <= '9')
			z->p++;
	}
	if (m) {
		m->type = AJ_NUMBER;
		m->is_int = integer && !overflow && (neg ? v <= (uint64_t)INT64_MAX + 1 : v <= INT64_MAX);
		if (m->is_int)
			m->i = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	return 0;
}

static int literal(struct pz *z, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(z->end - z->p) < n || memcmp(z->p, word, n) != 0)
		return -EBADMSG;
	z->p += n;
	return 0;
}

static int value(struct pz *z, struct ajson_member *m);

/* An array or object at z->p, validated and skipped (nothing decoded). */
static int nested(struct pz *z)
{
	char open = *z->p, close = open == '[' ? ']' : '}';
	if (++z->depth > AJSON_MAX_DEPTH)
		return -EBADMSG;
	char *save = z->out;
	z->out = NULL;
	z->p++;
	ws(z);
	int r = 0;
	if (z->p < z->end && *z->p == close) {
		z->p++;
		goto out;
	}
	for (;;) {
		ws(z);
		if (open == '{') {
			size_t dummy;
			if (z->p >= z->end || *z->p != '"' || (r = string(z, &dummy)) < 0) {
				r = r < 0 ? r : -EBADMSG;
				goto out;
			}
			ws(z);
			if (z->p >= z->end || *z->p != ':') {
				r = -EBADMSG;
				goto out;
			}
			z->p++;
			ws(z);
		}
		if ((r = value(z, NULL)) < 0)
			goto out;
		ws(z);
		if (z->p < z->end && *z->p == ',') {
			z->p++;
			continue;
		}
		if (z->p < z->end && *z->p == close) {
			z->p++;
			break;
		}
		r = -EBADMSG;
		goto out;
	}
out:
	z->out = save;
	z->depth--;
	return r;
}

static int value(struct pz *z, struct ajson_member *m)
{
	if (z->p >= z->end)
		return -EBADMSG;
	switch (*z->p) {
	case '"': {
		size_t len = 0;
		char *start = z->out;
		int r = string(z, &len);
		if (r < 0)
			return r;
		if (m) {
			m->type = AJ_STRING;
			m->s = start;
			m->len = len;
		}
		return 0;
	}
	case '{':
	case '[': {
		int r = nested(z);
		if (r == 0 && m)
			m->type = AJ_NESTED;
		return r;
	}
	case 't':
	case 'f': {
		bool b = *z->p == 't';
		int r = literal(z, b ? "true" : "false");
		if (r == 0 && m) {
			m->type = AJ_BOOL;
			m->b = b;
		}
		return r;
	}
	case 'n': {
		int r = literal(z, "null");
		if (r == 0 && m)
			m->type = AJ_NULL;
		return r;
	}
	default:
		return number(z, m);
	}
}

int ajson_parse(const char *in, size_t len, char *strbuf, size_t strbuf_len, struct ajson_obj *ret)
{
	if (!in || !strbuf || !ret)
		return -EINVAL;
	if (strbuf_len < len + 1)
		return -ENOBUFS;
	struct pz z = { .p = in, .end = in + len, .out = strbuf, .out_end = strbuf + strbuf_len };
	struct ajson_obj *o = ret;
	o->n = 0;
	ws(&z);
	if (z.p >= z.end || *z.p != '{')
		return -EBADMSG;
	z.p++;
	z.depth = 1;
	ws(&z);
	if (z.p < z.end && *z.p == '}') {
		z.p++;
	} else {
		for (;;) {
			ws(&z);
			if (z.p >= z.end || *z.p != '"')
				return -EBADMSG;
			if (o->n >= AJSON_MAX_MEMBERS)
				return -E2BIG;
			struct ajson_member *m = &o->m[o->n];
			*m = (struct ajson_member){ 0 };
			size_t klen;
			char *key = z.out;
			int r = string(&z, &klen);
			if (r < 0)
				return r;
			m->key = key;
			for (size_t i = 0; i < o->n; i++)
				if (strcmp(o->m[i].key, key) == 0)
					return -EBADMSG;
			ws(&z);
			if (z.p >= z.end || *z.p != ':')
				return -EBADMSG;
			z.p++;
			ws(&z);
			if ((r = value(&z, m)) < 0)
				return r;
			o->n++;
			ws(&z);
			if (z.p < z.end && *z.p == ',') {
				z.p++;
				continue;
			}
			if (z.p < z.end && *z.p == '}') {
				z.p++;
				break;
			}
			return -EBADMSG;
		}
	}
	ws(&z);
	if (z.p != z.end)
		return -EBADMSG;
	return 0;
}

const struct ajson_member *ajson_get(const struct ajson_obj *o, const char *key)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->m[i].key, key) == 0)
			return &o->m[i];
	return NULL;
}

int ajson_get_str(const struct ajson_obj *o, const char *key, const char **ret)
{
	const struct ajson_member *m = ajson_get(o, key);
	if (!m)
		return -ENOENT;
	if (m->type != AJ_STRING)
		return -EINVAL;
	*ret = m->s;
	return 0;
}

int ajson_get_int(const struct ajson_obj *o, const char *key, int64_t *ret)
{
	const struct ajson_member *m = ajson_get(o, key);
	if (!m)
		return -ENOENT;
	if (m->type != AJ_NUMBER || !m->is_int)
		return -EINVAL;
	*ret = m->i;
	return 0;
}

int ajson_get_bool(const struct ajson_obj *o, const char *key, bool *ret)
{
	const struct ajson_member *m = ajson_get(o, key);
	if (!m)
		return -ENOENT;
	if (m->type != AJ_BOOL)
		return -EINVAL;
	*ret = m->b;
	return 0;
}

/* --- writer --------------------------------------------------------------- */

static void w_raw(struct ajw *w, const char *s, size_t n)
{
	if (w->overflow || n >= w->cap - w->len) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

static void w_string(struct ajw *w, const char *s)
{
	w_raw(w, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			w_raw(w, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			w_raw(w, esc, 6);
		} else {
			w_raw(w, (const char *)p, 1);
		}
	}
	w_raw(w, "\"", 1);
}

static void w_key(struct ajw *w, const char *key)
{
	if (!w->first)
		w_raw(w, ",", 1);
	w->first = false;
	w_string(w, key);
	w_raw(w, ":", 1);
}

void ajw_begin(struct ajw *w, char *buf, size_t cap)
{
	*w = (struct ajw){ .buf = buf, .cap = cap, .first = true, .overflow = cap < 2 };
	if (cap)
		buf[0] = 0;
	w_raw(w, "{", 1);
}

void ajw_str(struct ajw *w, const char *key, const char *val)
{
	w_key(w, key);
	w_string(w, val ? val : "");
}

void ajw_int(struct ajw *w, const char *key, int64_t val)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%lld", (long long)val);
	w_key(w, key);
	w_raw(w, num, (size_t)n);
}

void ajw_uint(struct ajw *w, const char *key, uint64_t val)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%llu", (unsigned long long)val);
	w_key(w, key);
	w_raw(w, num, (size_t)n);
}

void ajw_bool(struct ajw *w, const char *key, bool val)
{
	w_key(w, key);
	w_raw(w, val ? "true" : "false", val ? 4 : 5);
}

long ajw_end(struct ajw *w)
{
	w_raw(w, "}", 1);
	return w->overflow ? -ENOSPC : (long)w->len;
}
