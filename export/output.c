/* Deliverable writers shared by every table and track: summary tables as
 * CSV or JSON split at EXPORT_CSV_LIMIT rows, and the timeline split by
 * size, each piece a complete JSON array carrying every metadata event.
 *
 * Both stream: a table holds one row, a timeline the metadata events (one
 * per process and thread, never per event).  Files are written under hidden
 * temporary names and get their final names only when complete, so the
 * name a file gets (plain or _slice_N) is decided at the end, once the
 * number of pieces is known. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio_ext.h>

#include "export/internal.h"
#include "common/util.h"

/* An in-memory stream (a table's row, a timeline's metadata) and its
 * buffer, closed and freed if open. */
static void memstream_drop(FILE **f, char **buf)
{
	if (*f)
		fclose(*f);
	free(*buf);
	*f = NULL;
	*buf = NULL;
}

/* "{stem}_{ts}{suffix}" or "{stem}_slice_{n}_{ts}{suffix}" */
static void piece_name(char *buf, size_t size, const char *stem, bool sliced, unsigned n, const char *ts,
		       const char *suffix)
{
	if (sliced)
		snprintf(buf, size, "%s_slice_%u_%s%s", stem, n, ts, suffix);
	else
		snprintf(buf, size, "%s_%s%s", stem, ts, suffix);
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

void exp_remove_stale(const char *dir, const char *stem, const char *suffix, const char *ts, unsigned pieces)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t ls = strlen(stem), lx = strlen(suffix);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len < ls + 1 + EXPORT_TS_LEN + lx || strncmp(n, stem, ls) != 0 || n[ls] != '_' ||
		    strcmp(n + len - lx, suffix) != 0)
			continue;
		const char *stamp = n + len - lx - EXPORT_TS_LEN, *mid = n + ls + 1;
		if (!digits(stamp, EXPORT_TS_LEN))
			continue;
		bool ours = strncmp(stamp, ts, EXPORT_TS_LEN) == 0;
		if (mid == stamp) {
			/* plain: ours only when this export wrote one piece */
			if (ours && pieces == 1)
				continue;
		} else {
			/* only "slice_<n>_" may stand between stem and stamp */
			if (!startswith(mid, "slice_") || stamp - 1 <= mid + 6 || stamp[-1] != '_' ||
			    !digits(mid + 6, (size_t)(stamp - 1 - (mid + 6))))
				continue;
			if (ours && pieces > 1 && strtoul(mid + 6, NULL, 10) < pieces)
				continue;
		}
		(void)unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

/* --- summary tables ------------------------------------------------------- */

static int table_begin_file(struct exp_table *w)
{
	char name[NAME_MAX + 1];
	/* the final name is set at commit; this one only makes the temp name */
	piece_name(name, sizeof name, export_csv_stem(w->t, w->json), true, w->slice, w->e->ts,
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
	piece_name(name, sizeof name, export_csv_stem(w->t, w->json), sliced, w->slice, w->e->ts,
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
		memstream_drop(&w->line, &w->line_buf);
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

static void table_release(struct exp_table *w) { memstream_drop(&w->line, &w->line_buf); }

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

/* --- timeline ----------------------------------------------------------- */

/* How often (events) the size of the current piece is looked at. */
#define TL_CHECK_EVERY 4096

static int tl_begin_piece(struct exp_tl *t)
{
	if (t->n_pieces == EXPORT_MAX_TL_PIECES) {
		exp_note(t->e, "the timeline is larger than %u pieces of %" PRIu64 " bytes; the rest is left out",
			 EXPORT_MAX_TL_PIECES, t->limit);
		return -EFBIG;
	}
	char name[NAME_MAX + 1];
	char **tmp = realloc(t->tmp, (t->n_pieces + 1) * sizeof *tmp);
	if (tmp)
		t->tmp = tmp;
	uint64_t *events = realloc(t->events, (t->n_pieces + 1) * sizeof *events);
	if (events)
		t->events = events;
	if (!tmp || !events)
		return -ENOMEM;
	piece_name(name, sizeof name, t->stem, true, t->n_pieces, t->e->ts, ".json");
	int r = exp_out_open(&t->o, t->dir, name);
	if (r < 0) {
		exp_fail(t->e, "cannot create '%s/%s': %s", t->dir, name, strerror(-r));
		return r;
	}
	if (!(t->tmp[t->n_pieces] = strdup(t->o.tmp))) {
		exp_out_abort(&t->o);
		return -ENOMEM;
	}
	t->n_pieces++;
	t->events_in_piece = 0;
	fputc('[', t->o.f);
	return 0;
}

/* Close a piece without its metadata and trailer; they are appended at
 * the end, when every metadata event is known. */
static int tl_park_piece(struct exp_tl *t)
{
	int r = exp_fclose(t->o.f);
	t->o.f = NULL;
	free(t->o.vbuf);
	t->o.vbuf = NULL;
	t->events[t->n_pieces - 1] = t->events_in_piece;
	if (r < 0)
		exp_fail(t->e, "cannot write the timeline '%s' in '%s': %s", t->stem, t->dir, strerror(-r));
	return r;
}

int exp_tl_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem)
{
	*t = (struct exp_tl){ .e = e, .dir = dir, .stem = stem, .limit = e->tl_slice_bytes };
	t->meta = open_memstream(&t->meta_buf, &t->meta_size);
	if (!t->meta)
		return -errno;
	int r = tl_begin_piece(t);
	if (r < 0)
		memstream_drop(&t->meta, &t->meta_buf);
	return r;
}

FILE *exp_tl_event(struct exp_tl *t)
{
	if (t->err)
		return t->o.f ? t->o.f : t->meta; /* writes go nowhere that matters */
	if (t->spool) {
		/* events hold no newline: strings are escaped (exp_buf_json_str) */
		if (t->n_events++)
			fputc('\n', t->o.f);
		return t->o.f;
	}
	if (t->limit && t->events_in_piece && ++t->since_check >= TL_CHECK_EVERY) {
		t->since_check = 0;
		off_t at = ftello(t->o.f);
		if (at >= 0 && (uint64_t)at >= t->limit) {
			int r = tl_park_piece(t);
			if (r == 0)
				r = tl_begin_piece(t);
			if (r < 0) {
				t->err = r;
				return t->meta;
			}
		}
	}
	fputs(t->events_in_piece ? ",\n" : "\n", t->o.f);
	t->events_in_piece++;
	if (++t->n_events % 1000000 == 0)
		exp_progress(t->e, "timeline", t->n_events, 0);
	return t->o.f;
}

FILE *exp_tl_meta(struct exp_tl *t)
{
	fputs(t->n_meta ? ",\n" : "\n", t->meta);
	t->n_meta++;
	return t->meta;
}

static void tl_free(struct exp_tl *t)
{
	for (unsigned i = 0; i < t->n_pieces; i++)
		free(t->tmp[i]);
	free(t->tmp);
	free(t->events);
	t->tmp = NULL;
	t->events = NULL;
	t->n_pieces = 0;
}

void exp_tl_abort(struct exp_tl *t)
{
	if (t->o.f)
		exp_out_abort(&t->o);
	for (unsigned i = 0; i < t->n_pieces; i++)
		(void)unlink(t->tmp[i]);
	tl_free(t);
	memstream_drop(&t->meta, &t->meta_buf);
}

int exp_tl_spool_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem)
{
	*t = (struct exp_tl){ .e = e, .dir = dir, .stem = stem, .spool = true };
	char name[NAME_MAX + 1];
	snprintf(name, sizeof name, "%s.layer", stem);
	int r = exp_out_open(&t->o, dir, name);
	if (r < 0) {
		exp_fail(e, "cannot create a file in '%s': %s", dir, strerror(-r));
		return r;
	}
	t->meta = open_memstream(&t->meta_buf, &t->meta_size);
	if (!t->meta) {
		r = -errno;
		exp_out_abort(&t->o);
	}
	return r;
}

/* The spool's metadata events through map into t: one a line (", " and
 * line breaks between them, exp_tl_meta). */
static int meta_map(struct exp_tl *t, struct exp_tl *s, exp_tl_map_fn *map, void *ctx, struct exp_buf *b)
{
	const char *p = s->meta_buf, *end = s->meta_buf + s->meta_size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		size_t len = (size_t)(stop - p);
		if (len && p[len - 1] == ',')
			len--;
		if (len) {
			int r = map(ctx, p, len, b);
			if (r < 0)
				return r;
			if (b->err)
				return b->err;
			if (b->len)
				fwrite(b->p, 1, b->len, exp_tl_meta(t));
			b->len = 0;
		}
		p = stop + (nl != NULL);
	}
	return 0;
}

int exp_tl_append_map(struct exp_tl *t, struct exp_tl *spool, exp_tl_map_fn *map, void *ctx)
{
	struct exp_tl *s = spool;
	struct exp_buf b = { 0 };
	int r = s->err;
	if (r == 0 && s->n_events)
		fputc('\n', s->o.f);
	if (r == 0 && (fflush(s->o.f) != 0 || ferror(s->o.f)))
		r = -EIO;
	if (r == 0 && fflush(s->meta) != 0)
		r = -ENOMEM;
	FILE *in = NULL;
	if (r == 0 && !(in = fopen(s->o.tmp, "re")))
		r = -errno;
	if (in) {
		__fsetlocking(in, FSETLOCKING_BYCALLER);
		setvbuf(in, NULL, _IOFBF, 1 << 20);
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		uint64_t got = 0;
		while (r == 0 && (n = getline(&line, &cap, in)) > 0) {
			got++;
			if (!map) {
				fwrite(line, 1, (size_t)n - 1, exp_tl_event(t));
				continue;
			}
			r = map(ctx, line, (size_t)n - 1, &b);
			if (r == 0 && b.err)
				r = b.err;
			if (r == 0 && b.len)
				exp_buf_flush_to(&b, exp_tl_event(t));
			b.len = 0;
		}
		if (r == 0 && (ferror(in) || got != s->n_events))
			r = -EIO;
		free(line);
		fclose(in);
	}
	if (r == 0 && s->n_meta && map) {
		r = meta_map(t, s, map, ctx, &b);
	} else if (r == 0 && s->n_meta) {
		fputs(t->n_meta ? "," : "", t->meta);
		fwrite(s->meta_buf, 1, s->meta_size, t->meta);
		t->n_meta += s->n_meta;
	}
	if (r < 0 && r != s->err && r != b.err)
		exp_fail(t->e, "cannot read back '%s': %s", s->o.tmp, strerror(-r));
	exp_buf_release(&b);
	exp_tl_abort(s);
	return r;
}

int exp_tl_append(struct exp_tl *t, struct exp_tl *spool)
{
	return exp_tl_append_map(t, spool, NULL, NULL);
}

void exp_tl_process(struct exp_tl *t, unsigned pid, const char *name, const char *label, unsigned sort)
{
	/* a name may hold a process's comm, which may hold anything */
	FILE *f = exp_tl_meta(t);
	fprintf(f, "{\"name\":\"process_name\",\"pid\":%u,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"", pid);
	exp_json_str(f, name, strlen(name));
	fputs("\"}}", f);
	fprintf(exp_tl_meta(t),
		"{\"name\":\"process_labels\",\"pid\":%u,\"tid\":0,\"ph\":\"M\",\"args\":{\"labels\":\"%s\"}}", pid,
		label);
	fprintf(exp_tl_meta(t),
		"{\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,\"ph\":\"M\",\"args\":{\"sort_index\":%u}}",
		pid, sort);
}

void exp_tl_device_process(struct exp_tl *t, unsigned pid, const struct export_track_info *k, int64_t dev,
			   bool first)
{
	char label[32], name[128];
	snprintf(label, sizeof label, "NPU %" PRId64, dev);
	if (first)
		snprintf(name, sizeof name, "%s", k->process_name);
	else
		snprintf(name, sizeof name, "%s (device %" PRId64 ")", k->process_name, dev);
	exp_tl_process(t, pid, name, label, k->sort_index);
}

void exp_tl_thread(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind)
{
	fprintf(exp_tl_meta(t),
		"{\"name\":\"thread_name\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"M\",\"args\":{\"name\":\"%s %" PRId64
		"\"}}", pid, tid, kind, tid);
	fprintf(exp_tl_meta(t),
		"{\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"M\",\"args\":{\"sort_index\":%"
		PRId64 "}}", pid, tid, tid);
}

int exp_tl_commit(struct exp_tl *t)
{
	int r = t->err;
	if (r == 0)
		r = tl_park_piece(t);
	if (r == 0 && fflush(t->meta) != 0)
		r = -ENOMEM;
	bool sliced = t->n_pieces > 1;
	for (unsigned i = 0; r == 0 && i < t->n_pieces; i++) {
		int fd = open(t->tmp[i], O_WRONLY | O_APPEND | O_CLOEXEC);
		FILE *f = fd >= 0 ? exp_fdopen_w(fd) : NULL;
		if (!f) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		/* every piece carries all metadata, as msprof's slices do, so
		 * each opens on its own with its process and thread names */
		if (t->meta_size)
			fputs(t->events[i] ? "," : "", f);
		fwrite(t->meta_buf, 1, t->meta_size, f);
		fputs("\n]\n", f);
		r = exp_fclose(f);
		char name[NAME_MAX + 1], path[PATH_MAX];
		piece_name(name, sizeof name, t->stem, sliced, i, t->e->ts, ".json");
		snprintf(path, sizeof path, "%s/%s", t->dir, name);
		if (r == 0 && rename(t->tmp[i], path) < 0)
			r = -errno;
		if (r == 0) {
			t->tmp[i][0] = '\0';
			exp_note_written(t->e, name);
		} else {
			exp_fail(t->e, "cannot write '%s': %s", path, strerror(-r));
		}
	}
	if (r < 0) {
		if (t->o.f)
			exp_out_abort(&t->o);
		for (unsigned i = 0; i < t->n_pieces; i++)
			if (t->tmp[i][0])
				(void)unlink(t->tmp[i]);
	}
	memstream_drop(&t->meta, &t->meta_buf);
	unsigned pieces = t->n_pieces;
	tl_free(t);
	if (r == 0)
		exp_remove_stale(t->dir, t->stem, ".json", t->e->ts, pieces);
	return r;
}
