/* Summary tables as CSV or JSON, split at e->csv_limit rows
 * (table-writer.h).  A table holds one row in memory; the name a file
 * gets (plain or _slice_N) is decided at the end, once the number of
 * pieces is known. */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/sql.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "common/util.h"

/* --- summary tables ------------------------------------------------------- */

static int table_begin_file(struct exp_table *w)
{
	char name[NAME_MAX + 1];
	/* the final name is set at commit; this one only makes the temp name */
	exp_piece_name(name, sizeof name, export_csv_stem(w->t, w->json), true, w->slice, w->e->ts,
		   w->json ? ".json" : ".csv");
	int r = exp_out_open(&w->o, w->dir, name);
	if (r < 0) {
		exp_fail(w->e, "cannot create '%s/%s': %s", w->dir, name, strerror(-r));
		return r;
	}
	w->in_file = 0;
	if (w->json) {
		fputc('[', w->o.f);
	} else {
		for (size_t i = 0; i < EXPORT_CSV_MAX_COLUMNS && w->t->columns[i]; i++) {
			if (i)
				fputc(',', w->o.f);
			fputs(w->t->columns[i], w->o.f);
		}
		fputc('\n', w->o.f);
	}
	return 0;
}

/* Finish the current file under its final name. */
static int table_end_file(struct exp_table *w, bool sliced)
{
	if (w->json)
		fputs(w->in_file ? "\n]\n" : "]\n", w->o.f);
	char name[NAME_MAX + 1];
	exp_piece_name(name, sizeof name, export_csv_stem(w->t, w->json), sliced, w->slice, w->e->ts,
		   w->json ? ".json" : ".csv");
	exp_out_rename(&w->o, w->dir, name);
	return exp_out_commit(w->e, &w->o);
}

int exp_table_open(struct exp *e, struct exp_table *w, const char *dir, enum export_csv id)
{
	*w = (struct exp_table){ .e = e, .dir = dir, .t = &export_csv_tables[id], .json = e->summary_json };
	if (!w->json)
		return table_begin_file(w);
	w->line = open_memstream(&w->line_buf, &w->line_size);
	if (!w->line)
		return -errno;
	int r = table_begin_file(w);
	if (r < 0)
		exp_memstream_drop(&w->line, &w->line_buf);
	return r;
}

FILE *exp_table_row(struct exp_table *w)
{
	if (w->err)
		return w->json ? w->line : w->o.f;
	if (w->in_file == (w->e->csv_limit ? w->e->csv_limit : EXPORT_CSV_LIMIT)) {
		/* one row more than a file holds: every piece is a slice */
		int r = table_end_file(w, true);
		w->slice++;
		if (r == 0)
			r = table_begin_file(w);
		if (r < 0) {
			w->err = r;
			return w->json ? w->line : NULL;
		}
	}
	if (!w->json)
		return w->o.f;
	rewind(w->line);
	return w->line;
}

/* A number as CSV holds it, written as a JSON number: decimal digits with
 * an optional sign, fraction and exponent; "nan", "inf", hex and a leading
 * '+' or '0' before digits stay strings. */
static bool json_number(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i == n || !isdigit((unsigned char)s[i]))
		return false;
	if (s[i] == '0' && i + 1 < n && isdigit((unsigned char)s[i + 1]))
		return false;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '.') {
		if (++i == n || !isdigit((unsigned char)s[i]))
			return false;
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || !isdigit((unsigned char)s[i]))
			return false;
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
	}
	return i == n;
}

/* One CSV line (RFC 4180 quoting) as a JSON object keyed by the header, as
 * msprof's create_json writes a summary: numbers as numbers, the rest as
 * strings; the "\t" kept after times for spreadsheets is dropped. */
static void json_row(struct exp_table *w, const char *p, size_t len)
{
	FILE *f = w->o.f;
	const char *end = p + len;
	char *field = w->field;
	fputs(w->in_file ? ",\n{" : "\n{", f);
	for (size_t col = 0; p <= end; col++) {
		size_t n = 0;
		bool quoted = p < end && *p == '"';
		if (quoted) {
			p++;
			while (p < end) {
				if (*p == '"' && p + 1 < end && p[1] == '"') {
					p += 2;
					if (n < sizeof w->field)
						field[n++] = '"';
				} else if (*p == '"') {
					p++;
					break;
				} else {
					if (n < sizeof w->field)
						field[n++] = *p;
					p++;
				}
			}
		}
		const char *start = p;
		while (p < end && *p != ',')
			p++;
		if (!quoted) {
			size_t k = (size_t)(p - start);
			if (k > sizeof w->field)
				k = sizeof w->field;
			memcpy(field, start, k);
			n = k;
		}
		if (col < EXPORT_CSV_MAX_COLUMNS && w->t->columns[col]) {
			if (col)
				fputc(',', f);
			fputc('"', f);
			exp_json_str(f, w->t->columns[col], strlen(w->t->columns[col]));
			fputs("\":", f);
			bool tab = n && field[n - 1] == '\t';
			if (tab)
				n--;
			if (!quoted && !tab && json_number(field, n)) {
				fwrite(field, 1, n, f);
			} else {
				fputc('"', f);
				exp_json_str(f, field, n);
				fputc('"', f);
			}
		}
		p++; /* past the comma, or past end: done */
	}
	fputc('}', f);
}

int exp_table_row_end(struct exp_table *w)
{
	if (w->err)
		return w->err;
	if (w->json) {
		if (fflush(w->line) != 0)
			return w->err = -ENOMEM;
		long len = ftell(w->line);
		size_t n = len > 0 ? (size_t)len : 0;
		while (n && (w->line_buf[n - 1] == '\n' || w->line_buf[n - 1] == '\r'))
			n--;
		json_row(w, w->line_buf, n);
	}
	w->in_file++;
	if (++w->rows % 1000000 == 0)
		exp_progress(w->e, "summary", w->rows, 0);
	return 0;
}

int exp_table_put(struct exp_table *w, struct exp_buf *b)
{
	if (b->err)
		return b->err;
	FILE *f = exp_table_row(w);
	if (!f) {
		b->len = 0;
		return w->err;
	}
	exp_buf_flush_to(b, f);
	return exp_table_row_end(w);
}

int exp_table_lines(struct exp_table *w, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		/* a line ends at a newline outside quotes */
		const char *q = p;
		bool in_quotes = false;
		while (q < end && (in_quotes || *q != '\n')) {
			if (*q == '"')
				in_quotes = !in_quotes;
			q++;
		}
		FILE *f = exp_table_row(w);
		if (!f)
			return w->err;
		fwrite(p, 1, (size_t)(q - p), f);
		fputc('\n', f);
		int r = exp_table_row_end(w);
		if (r < 0)
			return r;
		p = q + 1;
	}
	return 0;
}

static void table_release(struct exp_table *w) { exp_memstream_drop(&w->line, &w->line_buf); }

int exp_table_commit(struct exp_table *w)
{
	int r = w->err;
	if (r == 0)
		r = table_end_file(w, w->slice > 0);
	else
		exp_out_abort(&w->o);
	table_release(w);
	if (r == 0)
	{
		exp_remove_stale(w->dir, export_csv_stem(w->t, w->json), w->json ? ".json" : ".csv", w->e->ts,
				 w->slice + 1);
		/* the summary of the other format is older too (never a
		 * timeline: json_type keeps the two apart) */
		exp_remove_stale(w->dir, export_csv_stem(w->t, !w->json), w->json ? ".csv" : ".json", w->e->ts, 0);
	}
	return r;
}

void exp_table_abort(struct exp_table *w)
{
	exp_out_abort(&w->o);
	table_release(w);
}

int exp_table_end(struct exp_table *w, int r)
{
	if (r < 0) {
		exp_table_abort(w);
		return r;
	}
	return exp_table_commit(w);
}

struct table_query {
	struct exp *e;
	struct exp_table w;
	const char *dir;
	enum export_csv id;
	bool open;
	void (*row)(FILE *f, sqlite3_stmt *st, void *arg);
	void *arg;
};

/* As the statement's bind step: the file is opened once the query is
 * known to be valid, so a bad one leaves no file behind. */
static int table_query_open(sqlite3_stmt *st, void *ctx)
{
	(void)st;
	struct table_query *q = ctx;
	int r = exp_table_open(q->e, &q->w, q->dir, q->id);
	q->open = r == 0;
	return r;
}

static int table_query_row(sqlite3_stmt *st, void *ctx)
{
	struct table_query *q = ctx;
	FILE *f = exp_table_row(&q->w);
	if (!f)
		return q->w.err < 0 ? q->w.err : 1;
	q->row(f, st, q->arg);
	return exp_table_row_end(&q->w);
}

int exp_table_query(struct exp *e, const char *dir, enum export_csv id, const char *sql,
		    void (*row)(FILE *f, sqlite3_stmt *st, void *arg), void *arg)
{
	struct table_query q = { .e = e, .dir = dir, .id = id, .row = row, .arg = arg };
	int r = exp_each(e, sql, table_query_open, table_query_row, &q);
	if (!q.open)
		return r;
	if (r >= 0 && q.w.err)
		r = q.w.err;
	return exp_table_end(&q.w, r);
}

int exp_table_write(struct exp *e, const char *dir, enum export_csv id,
		    int (*write)(struct exp *e, FILE *f))
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	if (!m)
		return -errno;
	int r = write(e, m);
	if (fclose(m) != 0 && r == 0)
		r = -ENOMEM;
	struct exp_table w;
	if (r == 0)
		r = exp_table_open(e, &w, dir, id);
	if (r == 0)
		r = exp_table_end(&w, exp_table_lines(&w, buf, size));
	free(buf);
	return r;
}
