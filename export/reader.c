/* The raw files a parser reads (host samples, agents, devices): opened and
 * drained record by record, with what the reader skipped noted in the
 * report and the parse's progress advanced.  Below every parser, so that
 * none calls into another's file for it. */
#include <errno.h>
#include <sys/stat.h>

#include "export/internal.h"
#include "collectors/raw.h"

/* Add a finished file's reader counts to the report, noting damage. */
static void reader_done(struct exp *e, const char *path, const struct raw_reader *rd)
{
	const struct raw_reader_stats *s = raw_reader_stats(rd);
	e->rep->records += s->records;
	e->rep->bad_records += s->bad_records;
	e->rep->torn_bytes += s->torn_bytes;
	if (s->bad_records || s->skipped_bytes)
		exp_note(e, "raw file '%s' is damaged: %" PRIu64 " record(s), %" PRIu64 " byte(s) skipped", path,
			 s->bad_records, s->skipped_bytes);
	else if (s->torn_bytes)
		exp_note(e, "raw file '%s' ends with an incomplete record (%" PRIu64 " byte(s) ignored)", path,
			 s->torn_bytes);
}

int exp_reader_open(struct exp *e, const char *path, struct raw_reader **ret)
{
	int r = raw_reader_open(path, ret);
	if (r < 0) {
		exp_note(e, "cannot read raw file '%s': %s", path,
			 r == -EPROTO ? "not a raw data file" :
			 r == -EPROTONOSUPPORT ? "written by a newer version" :
			 r == -EBADMSG ? "its header is damaged (checksum mismatch): its clocks cannot be trusted" :
			 strerror(-r));
		/* a file we cannot use is damage, not a reason to stop the export */
		return r == -ENOMEM ? r : 0;
	}
	e->rep->raw_files++;
	return 1;
}

int exp_reader_drain(struct exp *e, const char *path, struct raw_reader *rd,
		     int (*take)(void *ctx, const struct raw_record *rec), void *ctx, uint64_t *malformed)
{
	struct raw_record rec;
	bool fatal = false;
	int r;
	while ((r = raw_reader_next(rd, &rec)) > 0) {
		int k = take(ctx, &rec);
		if (k < 0) {
			r = k;
			fatal = true;
			break;
		}
		if (k > 0)
			(*malformed)++;
	}
	if (r < 0 && !fatal) {
		/* an I/O error loses this file's tail, not the export */
		exp_note(e, "error reading raw file '%s': %s", path, strerror(-r));
		r = 0;
	}
	reader_done(e, path, rd);
	raw_reader_free(rd);
	struct stat st;
	if (stat(path, &st) == 0)
		e->raw_done += (uint64_t)st.st_size;
	exp_progress(e, "parse", e->raw_done, e->raw_bytes);
	return r;
}

bool exp_take_str(struct raw_cur *c, char *buf)
{
	uint32_t n = raw_cur_u32(c);
	if (c->err || n > RAW_AGENT_MAX_STR || n > c->left) {
		c->err = 1;
		return false;
	}
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	c->left -= n;
	return true;
}
