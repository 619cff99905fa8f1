/* The raw files a parser reads (host samples, agents, devices): opened and
 * drained record by record, with what the reader skipped noted in the
 * report and the parse's progress advanced.  Below every parser, so that
 * none calls into another's file for it. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "export/exp.h"
#include "export/reader.h"
#include "collectors/raw.h"
#include "common/util.h"

/* Add a finished file's reader counts to the report, noting damage. */
static void reader_done(struct exp *e, const char *path, const struct raw_reader *rd)
{
	const struct raw_reader_stats *s = raw_reader_stats(rd);
	e->rep->records += s->records;
	e->rep->bad_records += s->bad_records;
	e->rep->torn_bytes += s->torn_bytes;
	if (s->bad_records || s->skipped_bytes)
		exp_note(e, "raw file '%s' is damaged at offset %" PRIu64 " (%s): %" PRIu64 " record(s), %" PRIu64
			    " byte(s) skipped", path, s->damage_off, s->damage_what ? s->damage_what : "bytes between frames",
			 s->bad_records, s->skipped_bytes);
	else if (s->torn_bytes)
		exp_note(e, "raw file '%s' ends with an incomplete record at offset %" PRIu64 " (%" PRIu64
			    " byte(s) ignored)", path, s->torn_off, s->torn_bytes);
}

/* A header to read a file by whose own header is damaged: another slice of
 * its file set (the same writer: every field but the slice index is the
 * same), else any raw file beside it (the same machine's clocks: the
 * conversion needs only the difference of the two, the same for every
 * writer but for the clock's adjustment in between).  0 and *ret, with the
 * donor's name, or -ENOENT. */
static int donor_header(const char *path, struct raw_header *ret, char *donor, size_t size)
{
	_cleanup_free_ char *copy = strdup(path), *copy2 = strdup(path);
	if (!copy || !copy2)
		return -ENOMEM;
	const char *dir = dirname(copy), *base = basename(copy2);
	const char *cut = strstr(base, ".slice_");
	if (!cut)
		return -ENOENT;
	size_t stem_len = (size_t)(cut - base);
	uint64_t slice = 0;
	(void)parse_u64(cut + strlen(".slice_"), 0, UINT32_MAX, &slice);

	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	int found = 0;  /* 2: a slice of the same set, 1: another file */
	struct dirent *de;
	while (found < 2 && (de = readdir(d))) {
		if (streq(de->d_name, base) || !strstr(de->d_name, ".slice_"))
			continue;
		bool same = strncmp(de->d_name, base, stem_len + strlen(".slice_")) == 0;
		if (found && !same)
			continue;
		char p[PATH_MAX];
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= sizeof p)
			continue;
		struct raw_reader *rd;
		if (raw_reader_open(p, &rd) < 0)
			continue;
		struct raw_header h = *raw_reader_header(rd);
		raw_reader_free(rd);
		if (!same) {
			/* what the clocks cannot say: the source and writer from
			 * the name */
			uint32_t pid;
			char stem[RAW_STEM_MAX];
			snprintf(stem, sizeof stem, "%.*s", (int)stem_len, base);
			if (sscanf(stem, RAW_AGENT_PREFIX "%" SCNu32 ".data", &pid) == 1) {
				h.source = RAW_SOURCE_AGENT;
				h.writer_pid = pid;
			} else {
				static const enum raw_source srcs[] = {
					RAW_SOURCE_HOST_CPU, RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK, RAW_SOURCE_HOST_NET,
					RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM, RAW_SOURCE_DEVICE,
				};
				h.source = 0;
				for (size_t i = 0; i < ARRAY_SIZE(srcs); i++)
					if (streq(raw_source_stem(srcs[i]), stem))
						h.source = srcs[i];
				if (!h.source)
					continue;
			}
		}
		h.slice = (uint32_t)slice;
		*ret = h;
		snprintf(donor, size, "%s", de->d_name);
		found = same ? 2 : 1;
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

int exp_reader_open(struct exp *e, const char *path, struct raw_reader **ret)
{
	int r = raw_reader_open(path, ret);
	struct raw_header h;
	char donor[NAME_MAX + 1];
	if (r == -EBADMSG && donor_header(path, &h, donor, sizeof donor) == 0 &&
	    raw_reader_open_flags(path, RAW_READER_DAMAGED_HEADER, ret) == 0) {
		/* the frames check on their own: only the header is lost */
		raw_reader_set_header(*ret, &h);
		exp_note(e, "raw file '%s' is damaged at offset 0 (header checksum mismatch): 1 record(s) skipped; "
			    "its clocks are taken from '%s'", path, donor);
		e->rep->bad_records++;
		e->rep->raw_files++;
		return 1;
	}
	if (r < 0) {
		exp_note(e, "cannot read raw file '%s': %s", path,
			 r == -EPROTO ? "not a raw data file" :
			 r == -EPROTONOSUPPORT ? "written by a newer version" :
			 r == -EBADMSG ? "its header is damaged (checksum mismatch) and no other slice beside it "
					 "gives its clocks: its records are left out" :
			 strerror(-r));
		if (r == -EBADMSG)
			e->rep->bad_records++;
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
	uint64_t bad = 0;
	int r;
	while ((r = raw_reader_next(rd, &rec)) > 0) {
		int k = take(ctx, &rec);
		if (k < 0) {
			r = k;
			fatal = true;
			break;
		}
		if (k > 0)
			bad++;
	}
	*malformed += bad;
	if (bad)
		exp_note(e, "raw file '%s': %" PRIu64 " record(s) with a malformed payload skipped", path, bad);
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
