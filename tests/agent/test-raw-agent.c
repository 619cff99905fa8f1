/* The raw file additions for per-process agent files: the stem, a writer
 * opened on a stem, slice listing by stem and the agent pid listing. */
#include <fcntl.h>
#include <sys/stat.h>

#include "collectors/raw.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

static char tmpdir[] = "/tmp/test-raw-agent.XXXXXX";

static void touch(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	close(fd);
}

static void test_stem(void)
{
	char s[RAW_STEM_MAX];
	raw_agent_stem(1234, s);
	CHECK(streq(s, "agent_1234.data"));
	raw_agent_stem((pid_t)2147483647, s);
	CHECK(streq(s, "agent_2147483647.data"));
	CHECK(raw_source_stem(RAW_SOURCE_AGENT) == NULL);
}

static void test_writer_stem(void)
{
	_cleanup_free_ char *dir = unittest_subdir(tmpdir, "w");
	struct raw_writer *w = NULL;

	CHECK(raw_writer_open_stem(dir, "", RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(raw_writer_open_stem(dir, "a/b", RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(raw_writer_open_stem(dir, "..", RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(raw_writer_open_stem(dir, "0123456789012345678901234567890123", RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(raw_writer_open_stem(dir, NULL, RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(w == NULL);

	char stem[RAW_STEM_MAX];
	raw_agent_stem(77, stem);
	/* small slices: three records of 100 bytes rotate */
	CHECK(raw_writer_open_stem(dir, stem, RAW_SOURCE_AGENT, 111, 222, 200, &w) == 0);
	uint8_t payload[100] = { 1, 2, 3 };
	for (int i = 0; i < 3; i++)
		CHECK(raw_writer_append(w, RAW_AGENT_MARK, payload, sizeof(payload)) == 0);
	CHECK(raw_writer_slice(w) == 2);
	w = raw_writer_free(w);

	char **paths = NULL;
	CHECK(raw_list_stem_slices(dir, stem, &paths) == 3);
	for (int i = 0; i < 3; i++) {
		char want[64];
		snprintf(want, sizeof(want), "/agent_77.data.slice_%d", i);
		CHECK(strstr(paths[i], want) && streq(strstr(paths[i], want), want));
		struct raw_reader *r = NULL;
		CHECK(raw_reader_open(paths[i], &r) == 0);
		const struct raw_header *h = raw_reader_header(r);
		CHECK(h->source == RAW_SOURCE_AGENT && h->slice == (uint32_t)i);
		CHECK(h->mono0_ns == 111 && h->real0_ns == 222 && h->writer_pid == (uint32_t)getpid());
		struct raw_record rec;
		CHECK(raw_reader_next(r, &rec) == 1 && rec.type == RAW_AGENT_MARK && rec.len == 100);
		CHECK(raw_reader_next(r, &rec) == 0);
		raw_reader_free(r);
	}
	CHECK(paths[3] == NULL);
	raw_paths_free(paths);

	/* a second writer on the same stem continues after the last slice */
	CHECK(raw_writer_open_stem(dir, stem, RAW_SOURCE_AGENT, 1, 2, 0, &w) == 0);
	CHECK(raw_writer_slice(w) == 3);
	w = raw_writer_free(w);

	/* other stems are not listed under this one, nor this one under them */
	CHECK(raw_list_stem_slices(dir, "agent_7.data", &paths) == 0 && paths[0] == NULL);
	raw_paths_free(paths);
	CHECK(raw_list_stem_slices(dir, "a/b", &paths) == -EINVAL);

	/* the existing per-source API is unchanged */
	CHECK(raw_writer_open(dir, RAW_SOURCE_AGENT, 1, 2, 0, &w) == -EINVAL);
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == 0);
	w = raw_writer_free(w);
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_CPU, &paths) == 1);
	raw_paths_free(paths);
}

/* fits / rotate / append_here: what lets each slice begin with PROCESS */
static void test_slice_control(void)
{
	_cleanup_free_ char *dir = unittest_subdir(tmpdir, "s");
	struct raw_writer *w = NULL;
	uint8_t p[200] = { 0 };

	CHECK(raw_writer_open_stem(dir, "agent_5.data", RAW_SOURCE_AGENT, 1, 2, 300, &w) == 0);
	CHECK(raw_writer_fits(w, 1000)); /* an empty slice takes anything */
	CHECK(raw_writer_append(w, RAW_AGENT_PROCESS, p, 100) == 0);
	CHECK(raw_writer_fits(w, 100) && !raw_writer_fits(w, 150));
	/* append_here overfills the slice instead of rotating */
	CHECK(raw_writer_append_here(w, RAW_AGENT_MARK, p, 200) == 0);
	CHECK(raw_writer_slice(w) == 0 && !raw_writer_fits(w, 0));
	CHECK(raw_writer_rotate(w) == 0 && raw_writer_slice(w) == 1);
	CHECK(raw_writer_append(w, RAW_AGENT_PROCESS, p, 10) == 0);
	CHECK(raw_writer_slice(w) == 1);
	CHECK(raw_writer_bytes(w) == 64 + 116 + 216 + 64 + 26);
	w = raw_writer_free(w);
	CHECK(raw_writer_fits(NULL, 0) == false);
	CHECK(raw_writer_rotate(NULL) == -EBADF);

	char **paths;
	CHECK(raw_list_stem_slices(dir, "agent_5.data", &paths) == 2);
	struct raw_reader *r;
	struct raw_record rec;
	CHECK(raw_reader_open(paths[0], &r) == 0);
	CHECK(raw_reader_next(r, &rec) == 1 && rec.type == RAW_AGENT_PROCESS);
	CHECK(raw_reader_next(r, &rec) == 1 && rec.type == RAW_AGENT_MARK && rec.len == 200);
	CHECK(raw_reader_next(r, &rec) == 0);
	raw_reader_free(r);
	raw_paths_free(paths);
}

static void test_agent_pids(void)
{
	_cleanup_free_ char *dir = unittest_subdir(tmpdir, "p");
	uint32_t *pids = (uint32_t *)1;
	size_t n = 99;

	CHECK(raw_list_agent_pids(dir, &pids, &n) == 0 && n == 0 && pids == NULL);

	const char *names[] = {
		"agent_300.data.slice_0", "agent_300.data.slice_1", "agent_12.data.slice_0",
		"agent_4294967295.data.slice_7", "agent_5.data.slice_0",
		/* not agent files */
		"agent_.data.slice_0", "agent_012.data.slice_0", "agent_0.data.slice_0",
		"agent_4294967296.data.slice_0", "agent_9x.data.slice_0", "agent_9.dat.slice_0",
		"agent_9.data", "agent_9.data.slice_", "agent_9.data.slice_x",
		"agent_9.data.extra.slice_0", "xagent_9.data.slice_0", "host_cpu.data.slice_0",
		"agent_-1.data.slice_0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		touch(dir, names[i]);

	CHECK(raw_list_agent_pids(dir, &pids, &n) == 4);
	CHECK(n == 4);
	CHECK(pids[0] == 5 && pids[1] == 12 && pids[2] == 300 && pids[3] == 4294967295U);
	free(pids);

	CHECK(raw_list_agent_pids("/nonexistent/dir", &pids, &n) == -ENOENT);
	CHECK(raw_list_agent_pids(NULL, &pids, &n) == -EINVAL);
}

/* Batches: each kind of event, with and without attributes, read back as
 * the records they stand for, byte for byte; an event that does not fit
 * its batch ends it as one bad record and the frames after it survive. */
static size_t ev(uint8_t *p, unsigned kind, unsigned etype, uint64_t ts, uint32_t a, uint64_t id, uint32_t cat,
		 uint32_t color, const char *msg, uint32_t n)
{
	if (cat | color)
		kind |= RAW_AGENT_EV_ATTR;
	uint8_t *q = p;
	memcpy(q, &ts, 8);
	q[8] = (uint8_t)kind;
	q[9] = (uint8_t)etype;
	uint16_t n16 = (uint16_t)n;
	memcpy(q + 10, &n16, 2);
	memcpy(q + 12, &a, 4);
	q += RAW_AGENT_EV_HEAD;
	if (raw_agent_ev_has_id(kind, etype)) {
		memcpy(q, &id, 8);
		q += 8;
	}
	if (kind & RAW_AGENT_EV_ATTR) {
		memcpy(q, &cat, 4);
		memcpy(q + 4, &color, 4);
		q += 8;
	}
	memcpy(q, msg, n);
	CHECK((size_t)(q + n - p) == raw_agent_ev_size(kind, etype, n));
	return (size_t)(q + n - p);
}

/* the record a batch event stands for, encoded as raw.h documents it */
static size_t want_rec(struct raw_buf *b, uint16_t type, uint64_t ts, uint32_t tid, uint32_t etype, uint64_t id,
		       uint64_t domain, uint32_t cat, uint32_t color, const char *msg, uint32_t n)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, tid);
	raw_buf_u32(b, etype);
	if (type == RAW_AGENT_RANGE_START || type == RAW_AGENT_RANGE_END || type == RAW_AGENT_OSRT ||
	    type == RAW_AGENT_COMM_OP)
		raw_buf_u64(b, id);
	if (type == RAW_AGENT_MARK || type == RAW_AGENT_RANGE_START || type == RAW_AGENT_RANGE_END)
		raw_buf_u64(b, domain);
	if (type == RAW_AGENT_MARK || type == RAW_AGENT_RANGE_START) {
		raw_buf_u64(b, cat);
		raw_buf_u32(b, color);
		raw_buf_u32(b, 0);
		raw_buf_u32(b, n);
	}
	raw_buf_bytes(b, msg, n);
	return b->len;
}

static void test_batch(void)
{
	_cleanup_free_ char *dir = unittest_subdir(tmpdir, "batch");
	struct raw_writer *w = NULL;
	CHECK(raw_writer_open_stem(dir, "agent_7.data", RAW_SOURCE_AGENT, 1, 2, 0, &w) == 0);
	static uint8_t evs[4096];
	size_t n = 0;
	n += ev(evs + n, RAW_AGENT_EV_MARK, 0, 100, 3, 0, 0, 0, "mark", 4);
	n += ev(evs + n, RAW_AGENT_EV_MARK, 3, 101, 0, 0, 7, 0xff00ff00, "ex", 2);
	n += ev(evs + n, RAW_AGENT_EV_START, 1, 102, 0, 0, 0, 0, "push", 4);
	n += ev(evs + n, RAW_AGENT_EV_END, 1, 103, 0, 0, 0, 0, "", 0);
	n += ev(evs + n, RAW_AGENT_EV_START, 2, 104, 5, 0x0100000000000009ULL, 2, 0, "range", 5);
	n += ev(evs + n, RAW_AGENT_EV_END, 2, 105, 5, 0x0100000000000009ULL, 0, 0, "", 0);
	n += ev(evs + n, RAW_AGENT_EV_OSRT, 0, 106, 12, 206, 0, 0, "", 0);
	n += ev(evs + n, RAW_AGENT_EV_COMM, 1, 107, 0, 207, 0, 0, "\x01\x02\x03", 3);
	uint8_t head[RAW_AGENT_BATCH_HEAD] = { 42, 0, 0, 0 };
	CHECK(raw_writer_append2(w, RAW_AGENT_BATCH, head, sizeof head, evs, (uint32_t)n) == 0);
	/* a batch whose second event claims more bytes than are left */
	size_t m = ev(evs, RAW_AGENT_EV_MARK, 0, 200, 0, 0, 0, 0, "ok", 2);
	size_t m2 = ev(evs + m, RAW_AGENT_EV_MARK, 0, 201, 0, 0, 0, 0, "cut", 3);
	evs[m + 10] = 200; /* n: 200 bytes, 3 there */
	CHECK(raw_writer_append2(w, RAW_AGENT_BATCH, head, sizeof head, evs, (uint32_t)(m + m2)) == 0);
	CHECK(raw_writer_append(w, RAW_AGENT_COUNTERS, "12345678", 8) == 0);
	raw_writer_free(w);

	char path[512];
	snprintf(path, sizeof path, "%s/agent_7.data.slice_0", dir);
	struct raw_reader *r;
	CHECK(raw_reader_open(path, &r) == 0);
	struct raw_buf b = { 0 };
	struct raw_record rec;
	int k = 0;
	while (raw_reader_next(r, &rec) > 0) {
		size_t len = 0;
		switch (k) {
		case 0: len = want_rec(&b, RAW_AGENT_MARK, 100, 42, 0, 0, 3, 0, 0, "mark", 4); break;
		case 1: len = want_rec(&b, RAW_AGENT_MARK, 101, 42, 3, 0, 0, 7, 0xff00ff00, "ex", 2); break;
		case 2: len = want_rec(&b, RAW_AGENT_RANGE_START, 102, 42, 1, 0, 0, 0, 0, "push", 4); break;
		case 3: len = want_rec(&b, RAW_AGENT_RANGE_END, 103, 42, 1, 0, 0, 0, 0, "", 0); break;
		case 4: len = want_rec(&b, RAW_AGENT_RANGE_START, 104, 42, 2, 0x0100000000000009ULL, 5, 2, 0, "range", 5); break;
		case 5: len = want_rec(&b, RAW_AGENT_RANGE_END, 105, 42, 2, 0x0100000000000009ULL, 5, 0, 0, "", 0); break;
		case 6: len = want_rec(&b, RAW_AGENT_OSRT, 106, 42, 12, 206, 0, 0, 0, "", 0); break;
		case 7: len = want_rec(&b, RAW_AGENT_COMM_OP, 107, 42, 1, 207, 0, 0, 0, "\x01\x02\x03", 3); break;
		case 8: len = want_rec(&b, RAW_AGENT_MARK, 200, 42, 0, 0, 0, 0, 0, "ok", 2); break;
		case 9: CHECK(rec.type == RAW_AGENT_COUNTERS && rec.len == 8); break;
		default: CHECK(!"a record too many"); break;
		}
		if (k < 9) {
			static const uint16_t types[] = { RAW_AGENT_MARK, RAW_AGENT_MARK, RAW_AGENT_RANGE_START,
							  RAW_AGENT_RANGE_END, RAW_AGENT_RANGE_START, RAW_AGENT_RANGE_END,
							  RAW_AGENT_OSRT, RAW_AGENT_COMM_OP, RAW_AGENT_MARK };
			CHECK(rec.type == types[k] && rec.len == len && memcmp(rec.payload, b.data, len) == 0);
		}
		k++;
	}
	CHECK(k == 10);
	const struct raw_reader_stats *st = raw_reader_stats(r);
	CHECK(st->batches == 2 && st->batch_events == 9 && st->bad_records == 1 && st->records == 3);
	raw_reader_free(r);
	raw_buf_release(&b);
}

int main(void)
{
	umask(022);
	CHECK(mkdtemp(tmpdir));
	test_stem();
	test_writer_stem();
	test_slice_control();
	test_agent_pids();
	test_batch();
	rm_rf(tmpdir);
	printf("ok\n");
	return 0;
}
