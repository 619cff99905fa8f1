/* Helpers shared by the export stages: error notes, SQLite calls mapped to
 * -errno, string interning, number formatting and atomic output files. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <sys/stat.h>

#include "collectors/device.h"
#include "export/internal.h"
#include "common/util.h"

/* Append one note to buf ("; " between), unless it is there already; a
 * note that does not fit leaves a mark that more were left out, once. */
static void note_append(char *buf, size_t size, const char *fmt, va_list ap)
{
	static const char more[] = "; (more problems left out)";
	char one[1024];
	vsnprintf(one, sizeof one, fmt, ap);
	size_t n = strlen(buf), k = strlen(one);
	if (strstr(buf, one) || strstr(buf, more))
		return;
	if (n + 2 + k + sizeof more > size) {
		if (n + sizeof more <= size)
			strcpy(buf + n, more);
		return;
	}
	if (n) {
		strcpy(buf + n, "; ");
		n += 2;
	}
	strcpy(buf + n, one);
}

void exp_note(struct exp *e, const char *fmt, ...)
{
	va_list ap;
	exp_lock(e);
	va_start(ap, fmt);
	note_append(e->rep->message, sizeof e->rep->message, fmt, ap);
	va_end(ap);
	exp_unlock(e);
}

void exp_fail(struct exp *e, const char *fmt, ...)
{
	va_list ap;
	exp_lock(e);
	va_start(ap, fmt);
	/* the first failure is the cause; later ones are its consequences
	 * (a statement left unfinished, a file not renamed): kept as notes */
	if (!e->rep->error[0])
		vsnprintf(e->rep->error, sizeof e->rep->error, fmt, ap);
	else
		note_append(e->rep->message, sizeof e->rep->message, fmt, ap);
	va_end(ap);
	exp_unlock(e);
}

void exp_report_settle(struct export_report *rep, int r)
{
	/* a failure noted on a path the export then recovered from is a
	 * note like the others */
	if (r >= 0 && rep->error[0]) {
		char copy[sizeof rep->error];
		strcpy(copy, rep->error);
		rep->error[0] = '\0';
		size_t n = strlen(rep->message);
		snprintf(rep->message + n, sizeof rep->message - n, "%s%s", n ? "; " : "", copy);
	}
}

/* --- byte buffers ---------------------------------------------------------- */

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

int exp_sql_fail(struct exp *e, int rc, const char *what)
{
	/* SQLite says "database or disk is full": the user needs the cause
	 * the system gave and the file */
	if (rc == SQLITE_FULL || (e->db && sqlite3_system_errno(e->db) == ENOSPC)) {
		const char *file = e->db ? sqlite3_db_filename(e->db, "main") : NULL;
		exp_fail(e, "cannot write database '%s': %s", file && *file ? file : "?", strerror(ENOSPC));
		return -ENOSPC;
	}
	exp_fail(e, "database error in %s: %s", what, e->db ? sqlite3_errmsg(e->db) : sqlite3_errstr(rc));
	return db_errno(rc);
}

int exp_each(struct exp *e, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx)
{
	int rc = SQLITE_OK;
	int r = db_each_rc(e->db, sql, bind, row, ctx, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, sql);
}

int exp_stmt_each(struct exp *e, sqlite3_stmt *st, const char *what, db_row_fn *row, void *ctx)
{
	int rc = SQLITE_OK;
	int r = db_stmt_each_rc(st, row, ctx, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, what);
}

int exp_exec(struct exp *e, const char *sql)
{
	int rc = sqlite3_exec(e->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : exp_sql_fail(e, rc, sql);
}

int exp_prepare(struct exp *e, const char *sql, sqlite3_stmt **ret)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(e->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return exp_sql_fail(e, rc, sql);
	*ret = st;
	return 0;
}

int exp_step_done(struct exp *e, sqlite3_stmt *st, const char *what)
{
	/* one execution, the inserts' hot path: stepped here, not through
	 * the row iterator */
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : exp_sql_fail(e, rc, what);
}

int exp_batch_init(struct exp *e, struct exp_batch *b, const char *table, const char *types)
{
	int cols = (int)strlen(types);
	*b = (struct exp_batch){ .e = e, .cols = cols }; /* released safely whatever comes */
	if (cols < 1 || cols > EXP_BATCH_COLS || strspn(types, "id") != (size_t)cols)
		return -EINVAL;
	memcpy(b->types, types, (size_t)cols);
	if ((size_t)snprintf(b->what, sizeof b->what, "INSERT INTO %s", table) >= sizeof b->what)
		return -ENAMETOOLONG; /* the SQL is made from it */
	/* "INSERT INTO T VALUES (?, ?), (?, ?), ...": the row's part, then
	 * as many as the statement carries */
	char row[4 * EXP_BATCH_COLS + 4], sql[sizeof row * EXP_BATCH_ROWS + 64];
	size_t n = 0;
	for (int i = 0; i < cols; i++)
		n += (size_t)snprintf(row + n, sizeof row - n, "%s?", i ? ", " : "(");
	snprintf(row + n, sizeof row - n, ")");
	n = (size_t)snprintf(sql, sizeof sql, "%s VALUES %s", b->what, row);
	int r = exp_prepare(e, sql, &b->one);
	for (int k = 1; k < EXP_BATCH_ROWS; k++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", row);
	if (r == 0)
		r = exp_prepare(e, sql, &b->many);
	if (r < 0)
		exp_batch_release(b);
	return r;
}

static void batch_bind(sqlite3_stmt *st, int i, char type, union exp_value v)
{
	if (type == 'd')
		sqlite3_bind_double(st, i, v.d);
	else if (v.i == EXP_NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v.i);
}

int exp_batch_put(struct exp_batch *b, const union exp_value *v)
{
	/* a statement keeps its values from one execution to the next: only
	 * those that changed are bound (a row's thread, domain and category
	 * seldom do; binding costs a tenth of an insert) */
	union exp_value *bound = b->bound + b->n * b->cols;
	for (int i = 0; i < b->cols; i++) {
		if (b->bound_ok && v[i].i == bound[i].i) /* the same bits */
			continue;
		batch_bind(b->many, b->n * b->cols + i + 1, b->types[i], v[i]);
		bound[i] = v[i];
	}
	if (++b->n < EXP_BATCH_ROWS)
		return 0;
	b->n = 0;
	b->bound_ok = true;
	return exp_step_done(b->e, b->many, b->what);
}

int exp_batch_drain(struct exp_batch *b)
{
	int r = 0;
	for (int k = 0; k < b->n && r == 0; k++) {
		for (int i = 0; i < b->cols; i++)
			batch_bind(b->one, i + 1, b->types[i], b->bound[k * b->cols + i]);
		r = exp_step_done(b->e, b->one, b->what);
	}
	/* many's parameters keep their values, which bound still mirrors */
	b->n = 0;
	return r;
}

void exp_batch_release(struct exp_batch *b)
{
	sqlite3_finalize(b->many);
	sqlite3_finalize(b->one);
	b->many = b->one = NULL;
	b->n = 0;
}

bool exp_table_has_rows(struct exp *e, const char *table)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 1", table);
	/* an error is no such table: dropped because empty */
	return db_each(e->db, sql, NULL, db_row_stop, NULL) > 0;
}

bool exp_table_has_index(struct exp *e, const char *index)
{
	return db_each(e->db, "SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND name = ?", db_bind_text1,
		       db_row_stop, (void *)index) > 0;
}

/* --- STRING_IDS ------------------------------------------------------------ */

/* A cache in front of STRING_IDS: open addressing on a power-of-two table.
 * Names are few, but mstx messages can be as many as the events ("step
 * 1234"), so the cache is bounded (INTERN_CACHE_MAX entries and
 * INTERN_CACHE_BYTES of strings): when full it is emptied and lookups that
 * miss it ask the database, through the unique index StringIdsValueIndex.
 * Until the first emptying the cache holds every string, and a miss means
 * a new string without asking. */
#define INTERN_CACHE_MAX (1U << 16)
#define INTERN_CACHE_BYTES (16U << 20)
#define INTERN_ID_MAX ((int64_t)1 << 40)

struct exp_intern {
	struct { char *s; int64_t id; } *slots;
	size_t cap, used, bytes;
	int64_t next_id;
	bool complete;          /* the cache holds every string so far */
	sqlite3_stmt *insert, *find;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void intern_clear(struct exp_intern *in)
{
	for (size_t i = 0; i < in->cap; i++) {
		free(in->slots[i].s);
		in->slots[i].s = NULL;
	}
	in->used = in->bytes = 0;
}

struct exp_intern *exp_intern_free(struct exp_intern *in)
{
	if (!in)
		return NULL;
	intern_clear(in);
	free(in->slots);
	sqlite3_finalize(in->insert);
	sqlite3_finalize(in->find);
	free(in);
	return NULL;
}

/* --- STRING_IDS by id ------------------------------------------------------------ */

#define STRINGS_SLOTS 4096 /* a power of two */

struct exp_strings {
	struct exp *e;
	sqlite3_stmt *st;
	struct {
		int64_t id;       /* -1: empty */
		char *s;
		size_t len;
	} slot[STRINGS_SLOTS];
};

int exp_strings_new(struct exp *e, struct exp_strings **ret)
{
	struct exp_strings *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->e = e;
	for (size_t i = 0; i < STRINGS_SLOTS; i++)
		c->slot[i].id = -1;
	int r = exp_prepare(e, "SELECT value FROM STRING_IDS WHERE id = ?", &c->st);
	if (r < 0) {
		free(c);
		return r;
	}
	*ret = c;
	return 0;
}

struct exp_strings *exp_strings_free(struct exp_strings *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < STRINGS_SLOTS; i++)
		free(c->slot[i].s);
	sqlite3_finalize(c->st);
	free(c);
	return NULL;
}

struct string_copy {
	char *s;
	size_t len;
};

static int string_copy_row(sqlite3_stmt *st, void *ctx)
{
	struct string_copy *c = ctx;
	const char *v = (const char *)sqlite3_column_text(st, 0);
	size_t n = v ? (size_t)sqlite3_column_bytes(st, 0) : 0;
	char *copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, v, n);
	copy[n] = '\0';
	c->s = copy;
	c->len = n;
	return 1;
}

int exp_strings_get(struct exp_strings *c, int64_t id, const char **ret, size_t *ret_len)
{
	size_t k = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ULL >> 52) & (STRINGS_SLOTS - 1);
	if (c->slot[k].id != id || id < 0) {
		sqlite3_bind_int64(c->st, 1, id);
		struct string_copy v = { NULL, 0 };
		int r = exp_stmt_each(c->e, c->st, "STRING_IDS", string_copy_row, &v);
		if (r <= 0)
			return r;
		free(c->slot[k].s);
		c->slot[k].s = v.s;
		c->slot[k].len = v.len;
		c->slot[k].id = id;
	}
	*ret = c->slot[k].s;
	*ret_len = c->slot[k].len;
	return 1;
}

const char *exp_strings_copy(struct exp_strings *c, int64_t id, char *buf, size_t size)
{
	const char *v;
	size_t len;
	if (exp_strings_get(c, id, &v, &len) > 0)
		snprintf(buf, size, "%.*s", (int)len, v);
	else
		buf[0] = '\0';
	return buf;
}

static int intern_grow(struct exp_intern *in)
{
	size_t ncap = in->cap ? in->cap * 2 : 256;
	__typeof__(in->slots) n = calloc(ncap, sizeof *n);
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < in->cap; i++) {
		if (!in->slots[i].s)
			continue;
		size_t j = fnv1a(in->slots[i].s) & (ncap - 1);
		while (n[j].s)
			j = (j + 1) & (ncap - 1);
		n[j] = in->slots[i];
	}
	free(in->slots);
	in->slots = n;
	in->cap = ncap;
	return 0;
}

/* The id of s in the database, 0 and *ret; 1 when it is not there. */
static int intern_find(struct exp *e, struct exp_intern *in, const char *s, int64_t *ret)
{
	int64_t id;
	sqlite3_bind_text(in->find, 1, s, -1, SQLITE_STATIC);
	int r = exp_stmt_each(e, in->find, "STRING_IDS lookup", db_row_i64, &id);
	if (r <= 0)
		return r < 0 ? r : 1;
	*ret = id;
	return 0;
}

int exp_intern_id(struct exp *e, const char *s, int64_t *ret)
{
	int r;
	if (!e->strings) {
		e->strings = calloc(1, sizeof *e->strings);
		if (!e->strings)
			return -ENOMEM;
		e->strings->complete = true;
		r = exp_prepare(e, "INSERT INTO STRING_IDS (id, value) VALUES (?, ?)", &e->strings->insert);
		if (r == 0)
			r = exp_prepare(e, "SELECT id FROM STRING_IDS WHERE value = ?", &e->strings->find);
		if (r < 0)
			return r;
	}
	struct exp_intern *in = e->strings;
	size_t len = strlen(s);
	if (in->used >= INTERN_CACHE_MAX || in->bytes + len > INTERN_CACHE_BYTES) {
		intern_clear(in);
		in->complete = false;
	}
	if ((in->used + 1) * 2 > in->cap) {
		r = intern_grow(in);
		if (r < 0)
			return r;
	}
	size_t j = fnv1a(s) & (in->cap - 1);
	for (; in->slots[j].s; j = (j + 1) & (in->cap - 1))
		if (streq(in->slots[j].s, s)) {
			*ret = in->slots[j].id;
			return 0;
		}
	char *copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	int64_t id = 0;
	r = in->complete ? 1 : intern_find(e, in, s, &id);
	if (r == 1) {
		if (in->next_id >= INTERN_ID_MAX) {
			free(copy);
			return -E2BIG;
		}
		id = in->next_id;
		sqlite3_bind_int64(in->insert, 1, id);
		sqlite3_bind_text(in->insert, 2, s, -1, SQLITE_STATIC);
		r = exp_step_done(e, in->insert, "STRING_IDS");
		if (r == 0)
			in->next_id++;
	}
	if (r < 0) {
		free(copy);
		return r;
	}
	in->slots[j].s = copy;
	in->slots[j].id = id;
	in->used++;
	in->bytes += len + 1;
	*ret = id;
	return 0;
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

/* --- output files ---------------------------------------------------------- */

#define OUT_BUF_SIZE (256 * 1024)

/* A stream on fd that keeps the first error a write(2) gave and reports it
 * when closed: stdio keeps only an error flag, and by the time the file is
 * closed errno holds whatever came since, so a full disk read as EIO. */
struct wfile {
	int fd;
	int err;
};

static ssize_t wfile_write(void *cookie, const char *buf, size_t n)
{
	struct wfile *w = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(w->fd, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!w->err)
				w->err = k < 0 ? errno : EIO;
			return 0; /* stdio's sign of an error */
		}
		done += (size_t)k;
	}
	return (ssize_t)n;
}

static int wfile_seek(void *cookie, off64_t *off, int whence)
{
	struct wfile *w = cookie;
	off_t at = lseek(w->fd, (off_t)*off, whence);
	if (at < 0)
		return -1;
	*off = at;
	return 0;
}

static int wfile_close(void *cookie)
{
	struct wfile *w = cookie;
	int err = w->err;
	if (close(w->fd) < 0 && !err)
		err = errno;
	free(w);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

FILE *exp_fdopen_w(int fd)
{
	struct wfile *w = malloc(sizeof *w);
	if (!w)
		return NULL;
	*w = (struct wfile){ .fd = fd };
	FILE *f = fopencookie(w, "w", (cookie_io_functions_t){ .write = wfile_write, .seek = wfile_seek,
								.close = wfile_close });
	if (!f)
		free(w);
	return f;
}

int exp_fclose(FILE *f)
{
	int r = 0;
	if (fflush(f) != 0)
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = errno ? -errno : -EIO;
	return r;
}

int exp_out_open(struct exp_out *o, const char *dir, const char *name)
{
	*o = (struct exp_out){ 0 };
	if ((size_t)snprintf(o->path, sizeof o->path, "%s/%s", dir, name) >= sizeof o->path ||
	    (size_t)snprintf(o->tmp, sizeof o->tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof o->tmp ||
	    strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(o->name, name);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* msprof writes its deliverables 0640 (FILE_AUTHORITY) */
	(void)fchmod(fd, 0640);
	o->f = exp_fdopen_w(fd);
	if (!o->f) {
		int r = -errno;
		close(fd);
		unlink(o->tmp);
		return r;
	}
	/* one thread writes a file: no stdio locking per call */
	__fsetlocking(o->f, FSETLOCKING_BYCALLER);
	o->vbuf = malloc(OUT_BUF_SIZE);
	if (o->vbuf)
		setvbuf(o->f, o->vbuf, _IOFBF, OUT_BUF_SIZE);
	return 0;
}

void exp_out_abort(struct exp_out *o)
{
	if (o->f) {
		fclose(o->f);
		unlink(o->tmp);
	}
	free(o->vbuf);
	*o = (struct exp_out){ 0 };
}

int exp_out_commit(struct exp *e, struct exp_out *o)
{
	int r = exp_fclose(o->f);
	o->f = NULL;
	free(o->vbuf);
	o->vbuf = NULL;
	if (r == 0 && rename(o->tmp, o->path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(o->tmp);
		exp_fail(e, "cannot write '%s': %s", o->path, strerror(-r));
		return r;
	}
	exp_note_written(e, o->name);
	return 0;
}

void exp_note_written(struct exp *e, const char *name)
{
	struct exp *to = e->parent ? e->parent : e;
	exp_lock(e);
	if (to->n_written < EXPORT_MAX_FILES)
		snprintf(to->written[to->n_written++], sizeof to->written[0], "%s", name);
	exp_unlock(e);
}

void exp_out_rename(struct exp_out *o, const char *dir, const char *name)
{
	snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	snprintf(o->name, sizeof o->name, "%s", name);
}

unsigned exp_list_devices(const char *prof_dir, bool *ret)
{
	DIR *d = opendir(prof_dir);
	unsigned n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t id;
		if (!startswith(de->d_name, "device_") || parse_u64(de->d_name + 7, 0, DEV_MAX_DEVICES - 1, &id) < 0)
			continue;
		if (!ret[id])
			n++;
		ret[id] = true;
	}
	closedir(d);
	return n;
}

bool exp_newest_db(const char *prof_dir, char *path, size_t size)
{
	DIR *d = opendir(prof_dir);
	if (!d)
		return false;
	char best[NAME_MAX + 1] = "";
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len != 7 + EXPORT_TS_LEN + 3 || !startswith(n, "msprof_") || strcmp(n + len - 3, ".db") != 0)
			continue;
		bool digits = true;
		for (size_t i = 0; i < EXPORT_TS_LEN; i++)
			digits = digits && isdigit((unsigned char)n[7 + i]);
		if (digits && strcmp(n, best) > 0)
			snprintf(best, sizeof best, "%s", n);
	}
	closedir(d);
	return best[0] && (size_t)snprintf(path, size, "%s/%s", prof_dir, best) < size;
}
