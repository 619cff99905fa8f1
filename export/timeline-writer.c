/* The timeline split by size, each piece a complete JSON array carrying
 * every metadata event (timeline-writer.h).  It holds the metadata events
 * (one per process and thread, never per event) in memory; the name a
 * piece gets (plain or _slice_N) is decided at the end, once the number
 * of pieces is known. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/device.h"
#include "export/buf.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

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
	exp_piece_name(name, sizeof name, t->stem, true, t->n_pieces, t->e->ts, ".json");
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
		exp_memstream_drop(&t->meta, &t->meta_buf);
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
	exp_memstream_drop(&t->meta, &t->meta_buf);
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

bool exp_tl_device_valid(int64_t dev)
{
	return dev >= 0 && dev < DEV_MAX_DEVICES - 1;
}

void exp_tl_devices_enter(struct exp_tl_devices *w, int64_t dev)
{
	if (dev == w->dev)
		return;
	exp_tl_devices_end(w);
	w->dev = dev;
	w->pid = export_format_pid(w->app_pid, w->k->sort_index, (unsigned)dev);
}

void exp_tl_devices_end(struct exp_tl_devices *w)
{
	if (w->dev >= 0)
		exp_tl_device_process(w->t, w->pid, w->k, w->dev, w->n_devs++ == 0);
}

void exp_tl_thread(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind)
{
	exp_tl_thread_named(t, pid, tid, kind, NULL);
}

void exp_tl_thread_named(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind, const char *name)
{
	if (name && *name) {
		struct exp_buf b = { 0 };
		exp_buf_json_str(&b, name, strlen(name));
		fprintf(exp_tl_meta(t),
			"{\"name\":\"thread_name\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"M\",\"args\":{\"name\":\"%.*s (%"
			PRId64 ")\"}}", pid, tid, (int)b.len, b.p ? b.p : "", tid);
		exp_buf_release(&b);
	} else {
		fprintf(exp_tl_meta(t),
			"{\"name\":\"thread_name\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"M\",\"args\":{\"name\":\"%s %" PRId64
			"\"}}", pid, tid, kind, tid);
	}
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
		exp_piece_name(name, sizeof name, t->stem, sliced, i, t->e->ts, ".json");
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
	exp_memstream_drop(&t->meta, &t->meta_buf);
	unsigned pieces = t->n_pieces;
	tl_free(t);
	if (r == 0)
		exp_remove_stale(t->dir, t->stem, ".json", t->e->ts, pieces);
	return r;
}
