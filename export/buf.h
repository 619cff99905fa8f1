/* A growing byte buffer and the text the export writes through it: JSON
 * strings, CSV fields, numbers and times as msprof's files hold them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Write s[0..len) as the inside of a JSON string (escaped, valid UTF-8). */
void exp_json_str(FILE *f, const char *s, size_t len);
/* A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
void exp_csv_field(FILE *f, const char *s, size_t len);
/* A growing byte buffer the hottest writers format a row or an event in,
 * then hand to its file in one fwrite: per byte cheaper than stdio calls.
 * An allocation failure leaves err set and drops what does not fit. */
struct exp_buf {
	char *p;
	size_t len, cap;
	int err;
};
bool exp_buf_grow(struct exp_buf *b, size_t more);
void exp_buf_release(struct exp_buf *b);
static inline bool exp_buf_room(struct exp_buf *b, size_t more)
{
	return b->cap - b->len >= more || exp_buf_grow(b, more);
}
static inline void exp_buf_put(struct exp_buf *b, const char *s, size_t n)
{
	if (exp_buf_room(b, n)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}
/* A string literal, its length known at compile time. */
#define exp_buf_lit(b, s) exp_buf_put((b), "" s, sizeof(s) - 1)
static inline void exp_buf_putc(struct exp_buf *b, char c)
{
	if (exp_buf_room(b, 1))
		b->p[b->len++] = c;
}
static inline void exp_buf_puts(struct exp_buf *b, const char *s)
{
	exp_buf_put(b, s, strlen(s));
}
void exp_buf_u64(struct exp_buf *b, uint64_t v);
void exp_buf_i64(struct exp_buf *b, int64_t v);
/* exp_format_ts and exp_format_dur_us into the buffer. */
void exp_buf_ts(struct exp_buf *b, int64_t ns);
void exp_buf_dur_us(struct exp_buf *b, int64_t ns);
/* exp_json_str and exp_csv_field into the buffer. */
void exp_buf_json_str(struct exp_buf *b, const char *s, size_t len);
void exp_buf_csv_field(struct exp_buf *b, const char *s, size_t len);
/* The opening of a complete ("X") timeline event up to its args' "{":
 * {"name":"<name>","pid":P,"tid":T,"ts":"<start>","dur":<end - start>,"ph":"X","args":{
 * the caller adds the args and "}}" (inline: once per event of the mstx
 * and OS runtime layers). */
static inline void exp_buf_x_event(struct exp_buf *b, const char *name, size_t len, unsigned pid, uint64_t tid,
				   int64_t start, int64_t end)
{
	exp_buf_lit(b, "{\"name\":\"");
	exp_buf_json_str(b, name, len);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, pid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_u64(b, tid);
	exp_buf_lit(b, ",\"ts\":\"");
	exp_buf_ts(b, start);
	exp_buf_lit(b, "\",\"dur\":");
	exp_buf_dur_us(b, end - start);
	exp_buf_lit(b, ",\"ph\":\"X\",\"args\":{");
}
/* The buffer to f in one write; emptied. */
static inline void exp_buf_flush_to(struct exp_buf *b, FILE *f)
{
	fwrite(b->p, 1, b->len, f);
	b->len = 0;
}

/* Percent values are kept with msprof's precision: 6 decimals
 * (NumberConstant.USAGE_PLACES). */
double exp_round(double v, int decimals);

/* "1700000000123456.789": ns as µs with exactly three decimals. */
void exp_format_ts(int64_t ns, char buf[32]);
/* A duration in ns as µs the way exp_format_num(ns / 1000.0, 3) writes it
 * ("3000.0", "84999.211"), without floating point. */
void exp_format_dur_us(int64_t ns, char buf[32]);
/* Decimal digits of v, NUL-terminated; returns their count. */
size_t exp_fmt_u64(char *buf, uint64_t v);
/* A float as Python's repr() prints it after round(v, decimals), which is
 * what msprof's summaries hold: "12.5", "100.0", "0.0"; decimals < 0: not
 * rounded (repr of the value itself). */
void exp_format_num(double v, int decimals, char *buf, size_t size);
