/* The byte buffer and the text written through it (buf.h). */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/buf.h"
#include "common/util.h"


bool exp_buf_grow(struct exp_buf *b, size_t more)
{
	if (b->err)
		return false;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void exp_buf_release(struct exp_buf *b)
{
	free(b->p);
	*b = (struct exp_buf){ 0 };
}

void exp_buf_u64(struct exp_buf *b, uint64_t v)
{
	if (exp_buf_room(b, 24))
		b->len += exp_fmt_u64(b->p + b->len, v);
}

void exp_buf_i64(struct exp_buf *b, int64_t v)
{
	if (v < 0) {
		exp_buf_putc(b, '-');
		exp_buf_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		exp_buf_u64(b, (uint64_t)v);
	}
}

/* Bytes of the UTF-8 sequence at p (1 for ASCII; no overlongs, no
 * surrogates, at most U+10FFFF), 0 where none starts. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = *p;
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	bool ok = n && c <= 0xf4 && (size_t)(end - p) >= n;
	for (size_t i = 1; ok && i < n; i++)
		ok = (p[i] & 0xc0) == 0x80;
	if (ok && n == 3)
		ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
	if (ok && n == 4)
		ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
	return ok ? n : 0;
}

/* Whether s is plain text for a CSV field as it is: valid UTF-8, no
 * comma, quote or line break. */
static bool csv_plain(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		if (*p == ',' || *p == '"' || *p == '\n' || *p == '\r')
			return false;
		size_t n = utf8_len(p, end);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or line
 * break; bytes that are not UTF-8 become U+FFFD, as in the JSON (readers
 * decode the files as UTF-8). */
void exp_buf_csv_field(struct exp_buf *b, const char *s, size_t len)
{
	if (len == 0) /* also a NULL column */
		return;
	if (csv_plain(s, len)) {
		exp_buf_put(b, s, len);
		return;
	}
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	bool quote = memchr(s, ',', len) || memchr(s, '"', len) || memchr(s, '\n', len) || memchr(s, '\r', len);
	if (quote)
		exp_buf_putc(b, '"');
	while (p < end) {
		size_t n = utf8_len(p, end);
		if (!n) {
			exp_buf_lit(b, "\xef\xbf\xbd");
			p++;
			continue;
		}
		if (*p == '"')
			exp_buf_putc(b, '"');
		exp_buf_put(b, (const char *)p, n);
		p += n;
	}
	if (quote)
		exp_buf_putc(b, '"');
}

/* JSON string contents: quotes, backslashes and control characters
 * escaped; bytes that are not UTF-8 (an application's message may hold
 * anything) become U+FFFD, so the file stays valid JSON. */
void exp_buf_json_str(struct exp_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		/* the common case, a run of plain ASCII, in one copy */
		const unsigned char *q = p;
		while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			exp_buf_put(b, (const char *)p, (size_t)(q - p));
			p = q;
			continue;
		}
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			exp_buf_putc(b, '\\');
			exp_buf_putc(b, (char)c);
			p++;
		} else if (c < 0x20) {
			static const char esc[] = { ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't' };
			char u[8];
			if (c < sizeof esc && esc[c])
				snprintf(u, sizeof u, "\\%c", esc[c]);
			else
				snprintf(u, sizeof u, "\\u%04x", c);
			exp_buf_puts(b, u);
			p++;
		} else {
			size_t n = utf8_len(p, end);
			if (n) {
				exp_buf_put(b, (const char *)p, n);
				p += n;
			} else {
				exp_buf_lit(b, "\xef\xbf\xbd");
				p++;
			}
		}
	}
}

/* The FILE writers: through a buffer of their own, as the buffer writers
 * format (one implementation of the escaping). */
static void through_buf(FILE *f, void (*put)(struct exp_buf *b, const char *s, size_t len), const char *s,
			size_t len)
{
	struct exp_buf b = { 0 };
	put(&b, s, len);
	exp_buf_flush_to(&b, f);
	exp_buf_release(&b);
}

void exp_csv_field(FILE *f, const char *s, size_t len)
{
	if (csv_plain(s, len)) {
		fwrite(s, 1, len, f);
		return;
	}
	through_buf(f, exp_buf_csv_field, s, len);
}

void exp_json_str(FILE *f, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
		i++;
	if (i == len) {
		fwrite(s, 1, len, f);
		return;
	}
	through_buf(f, exp_buf_json_str, s, len);
}


/* --- numbers --------------------------------------------------------------- */

double exp_round(double v, int decimals)
{
	if (!isfinite(v))
		return 0;
	double m = pow(10, decimals);
	double r = round(v * m) / m;
	return r == 0 ? 0 : r; /* no "-0.0" */
}

static size_t digits_u64(uint64_t v)
{
	for (size_t n = 0;; n += 4, v /= 10000) {
		if (v < 10)
			return n + 1;
		if (v < 100)
			return n + 2;
		if (v < 1000)
			return n + 3;
		if (v < 10000)
			return n + 4;
	}
}

size_t exp_fmt_u64(char *buf, uint64_t v)
{
	/* two digits per division (times are 16-19 digits long), straight
	 * into buf from its last digit */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	size_t n = digits_u64(v);
	char *p = buf + n;
	*p = '\0';
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return n;
}

/* integer digits, '.', three decimals: the writers' hottest formatting */
static size_t fmt_ns_us(int64_t ns, char buf[32])
{
	size_t n = exp_fmt_u64(buf, (uint64_t)ns / 1000);
	unsigned frac = (unsigned)((uint64_t)ns % 1000);
	buf[n++] = '.';
	buf[n++] = (char)('0' + frac / 100);
	buf[n++] = (char)('0' + frac / 10 % 10);
	buf[n++] = (char)('0' + frac % 10);
	buf[n] = '\0';
	return n;
}

void exp_format_ts(int64_t ns, char buf[32])
{
	fmt_ns_us(ns < 0 ? 0 : ns, buf);
}

static size_t fmt_dur_us(int64_t ns, char buf[32])
{
	if (ns < 0) {
		exp_format_num((double)ns / 1000.0, 3, buf, 32);
		return strlen(buf);
	}
	size_t n = fmt_ns_us(ns, buf);
	while (buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return n;
}

void exp_format_dur_us(int64_t ns, char buf[32])
{
	fmt_dur_us(ns, buf);
}

void exp_buf_ts(struct exp_buf *b, int64_t ns)
{
	if (exp_buf_room(b, 32))
		b->len += fmt_ns_us(ns < 0 ? 0 : ns, b->p + b->len);
}

void exp_buf_dur_us(struct exp_buf *b, int64_t ns)
{
	if (exp_buf_room(b, 32))
		b->len += fmt_dur_us(ns, b->p + b->len);
}

void exp_format_num(double v, int decimals, char *buf, size_t size)
{
	if (decimals < 0) {
		/* repr(): the fewest digits that read back as the same double,
		 * positional for exponents -4..15, else exponent form */
		if (!isfinite(v) || v == 0)
			v = 0;
		char e[40];
		int prec = 1;
		for (; prec < 17; prec++) {
			snprintf(e, sizeof e, "%.*e", prec - 1, v);
			if (strtod(e, NULL) == v)
				break;
		}
		snprintf(e, sizeof e, "%.*e", prec - 1, v);
		int exp10 = atoi(strchr(e, 'e') + 1);
		if (exp10 >= -4 && exp10 < 16) {
			int dec = prec - 1 - exp10;
			snprintf(buf, size, "%.*f", dec > 0 ? dec : 0, v);
			if (dec <= 0 && strlen(buf) + 2 < size)
				strcat(buf, ".0");
		} else
			snprintf(buf, size, "%s", e);
		return;
	}
	v = exp_round(v, decimals);
	int n = snprintf(buf, size, "%.*f", decimals, v);
	if (n <= 0 || (size_t)n >= size || decimals == 0)
		return;
	char *dot = strchr(buf, '.');
	if (!dot)
		return;
	char *end = buf + n - 1;
	while (end > dot + 1 && *end == '0')
		*end-- = '\0';
}
