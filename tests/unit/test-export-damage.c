/* Damage at every byte of a raw file: an agent file set of two slices (a
 * process record and 12 marks in the first, the same process and 12 more
 * marks in the second) is exported once whole, then once per bit flipped
 * at every byte offset of the first slice, one at a time (two processes
 * share the offsets, each damaging a copy of the set).  Each export
 * must succeed; every MSTX_EVENTS row it gives must be one of the whole
 * export's, unchanged (no shifted time, no rewritten message); at most
 * the one damaged record is missing (a damaged header loses none: its
 * clocks come from the other slice); and the damage is counted in the
 * report and named there with the file and its offset.
 *
 * Then records that check but say nothing true: marks at the far ends of
 * time (u64 max, two days after the session) and one whose message runs
 * past its record; they are left out, counted and named with their file,
 * and the file set, which ends without the agent's final record, is said
 * to be cut short. */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "export/export.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define MARKS 12

static char tmp[] = "/tmp/test-export-damage.XXXXXX";

static void process(struct raw_writer *w, struct raw_buf *b)
{
	raw_buf_reset(b);
	raw_buf_u64(b, MONO0);
	raw_buf_u32(b, 5000), raw_buf_u32(b, 1), raw_buf_u32(b, (uint32_t)-1), raw_buf_u32(b, 0);
	raw_buf_u32(b, 3), raw_buf_bytes(b, "app", 3), raw_buf_u32(b, 3), raw_buf_bytes(b, "app", 3);
	CHECK(b->err == 0 && raw_writer_append_here(w, RAW_AGENT_PROCESS, b->data, (uint32_t)b->len) == 0);
}

static void mark(struct raw_writer *w, struct raw_buf *b, unsigned i)
{
	char msg[16];
	snprintf(msg, sizeof msg, "mark %u", i);
	raw_buf_reset(b);
	raw_buf_u64(b, MONO0 + (i + 1) * NSEC_PER_MSEC);
	raw_buf_u32(b, 5000), raw_buf_u32(b, 0);        /* tid, marker */
	raw_buf_u64(b, 0), raw_buf_u64(b, 0);           /* domain, category */
	raw_buf_u32(b, 0), raw_buf_u32(b, 0);           /* color, reserved */
	raw_buf_u32(b, (uint32_t)strlen(msg)), raw_buf_bytes(b, msg, strlen(msg));
	CHECK(b->err == 0 && raw_writer_append(w, RAW_AGENT_MARK, b->data, (uint32_t)b->len) == 0);
}

static char *read_file(const char *path, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	char *p = malloc((size_t)st.st_size);
	CHECK(p && read(fd, p, (size_t)st.st_size) == st.st_size);
	close(fd);
	*ret_len = (size_t)st.st_size;
	return p;
}

static void put_file(const char *path, const char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	CHECK(fd >= 0 && write(fd, p, len) == (ssize_t)len);
	close(fd);
}

/* The marks an export gave, one "start|end|message" line each. */
static char *marks(const char *db_path)
{
	sqlite3 *db;
	CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *r = rows(db, "SELECT m.startNs, m.endNs, s.value FROM MSTX_EVENTS m JOIN STRING_IDS s "
			   "ON s.id = m.message ORDER BY m.startNs");
	sqlite3_close(db);
	return r;
}

static unsigned count_lines(const char *s)
{
	unsigned n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every line of got is a line of want. */
static bool lines_in(const char *got, const char *want)
{
	for (const char *p = got; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = (size_t)(nl - p) + 1;
		bool found = false;
		for (const char *q = want; *q && !found;) {
			const char *ql = strchr(q, '\n');
			found = (size_t)(ql - q) + 1 == n && memcmp(p, q, n) == 0;
			q = ql + 1;
		}
		if (!found)
			return false;
		p = nl + 1;
	}
	return true;
}

static void test_nonsense(void)
{
	char prof[PATH_MAX];
	snprintf(prof, sizeof prof, "%s/PROF_000002_20231114221320100_00004242ABCDEFGH", tmp);
	struct raw_buf b = { 0 };
	char *host;
	/* start_info at 1700000000000000 µs: REAL0 */
	struct raw_writer *w = agent_prof_open(prof, 100000, MONO0, REAL0, &b, &host);
	for (unsigned i = 0; i < 3; i++)
		mark(w, &b, i);
	uint64_t far[] = { UINT64_MAX, MONO0 + 2 * 86400 * NSEC_PER_SEC };
	for (size_t i = 0; i < ARRAY_SIZE(far); i++) {
		raw_buf_reset(&b);
		raw_buf_u64(&b, far[i]);
		raw_buf_u32(&b, 5000), raw_buf_u32(&b, 0), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0), raw_buf_u32(&b, 0), raw_buf_u32(&b, 3), raw_buf_bytes(&b, "far", 3);
		CHECK(raw_writer_append(w, RAW_AGENT_MARK, b.data, (uint32_t)b.len) == 0);
	}
	/* a message of 50 bytes in a record that holds 3 */
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + 5 * NSEC_PER_MSEC);
	raw_buf_u32(&b, 5000), raw_buf_u32(&b, 0), raw_buf_u64(&b, 0), raw_buf_u64(&b, 0);
	raw_buf_u32(&b, 0), raw_buf_u32(&b, 0), raw_buf_u32(&b, 50), raw_buf_bytes(&b, "bad", 3);
	CHECK(raw_writer_append(w, RAW_AGENT_MARK, b.data, (uint32_t)b.len) == 0);
	raw_writer_free(w);
	/* a host source whose sampler stopped without its session-end record */
	char data[PATH_MAX + 8];
	snprintf(data, sizeof data, "%s/data", host);
	CHECK(raw_writer_open(data, RAW_SOURCE_HOST_CPU, MONO0, REAL0, 0, &w) == 0);
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + 7 * NSEC_PER_MSEC), raw_buf_u64(&b, 7), raw_buf_u64(&b, 0);
	CHECK(raw_writer_append(w, RAW_SAMPLER_TICKS, b.data, (uint32_t)b.len) == 0);
	raw_writer_free(w);
	raw_buf_release(&b);

	struct export_options opt = { .type = EXPORT_DB, .parse_only = true };
	struct export_report rep;
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	char *got = marks(rep.db_path);
	printf("nonsense: %s\n", rep.message);
	CHECK(strstr(rep.message, "host sampling: 'host_cpu.data' ends without its session-end record (msprofd was "
				  "killed, or its raw files cut short): its samples after 0.007 s into the session are "
				  "missing"));
	CHECK(count_lines(got) == 3);
	CHECK(strstr(rep.message, "agent_5000.data.slice_0': 2 record(s) with a time far outside the session"));
	CHECK(strstr(rep.message, "agent_5000.data.slice_0': 1 record(s) with a malformed payload skipped"));
	CHECK(strstr(rep.message, "process 5000 ended without its final record"));
	CHECK(rep.bad_records == 3 && rep.agents_unfinished == 1);
	free(got);
	free(host);
}

/* The file set under parent: a PROF dir of the agent file's two slices;
 * its first slice's path in slice0 (PATH_MAX + 64 bytes). */
static void make_set(const char *parent, char *prof, char *slice0)
{
	snprintf(prof, PATH_MAX, "%s/PROF_000001_20231114221320100_00004242ABCDEFGH", parent);
	struct raw_buf b = { 0 };
	char *host;
	struct raw_writer *w = agent_prof_open(prof, 100000, MONO0, REAL0, &b, &host);
	for (unsigned i = 0; i < MARKS; i++)
		mark(w, &b, i);
	CHECK(raw_writer_rotate(w) == 0);
	process(w, &b);
	for (unsigned i = MARKS; i < 2 * MARKS; i++)
		mark(w, &b, i);
	raw_writer_free(w);
	raw_buf_release(&b);
	snprintf(slice0, PATH_MAX + 64, "%s/data/agent_5000.data.slice_0", host);
	free(host);
}

struct tally {
	unsigned lost_none, lost_one, bad;
};

/* nftw has no argument for its callback: the tree copied, from and to. */
static const char *copy_from, *copy_to;

static int copy_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	char dst[2 * PATH_MAX];
	snprintf(dst, sizeof dst, "%s%s", copy_to, p + strlen(copy_from));
	if (flag == FTW_D) {
		CHECK(mkdir(dst, 0755) == 0);
	} else {
		CHECK(flag == FTW_F);
		size_t len;
		char *data = read_file(p, &len);
		int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 0777);
		CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
		close(fd);
		free(data);
	}
	return 0;
}

/* Damage at offsets first, first + step, ... of the first slice, one at a
 * time, in a copy of the file set's raw files (prof/host) under dir. */
static struct tally damage(const char *from, const char *dir, const char *whole, size_t first, size_t step)
{
	char prof[PATH_MAX + 64], slice0[PATH_MAX + 128], host[PATH_MAX + 72];
	snprintf(prof, sizeof prof, "%s/PROF_000001_20231114221320100_00004242ABCDEFGH", dir);
	CHECK(mkdir(dir, 0755) == 0 && mkdir(prof, 0755) == 0);
	snprintf(host, sizeof host, "%s/host", prof);
	char src[PATH_MAX + 8];
	snprintf(src, sizeof src, "%s/host", from);
	copy_from = src, copy_to = host;
	CHECK(nftw(src, copy_cb, 16, FTW_PHYS) == 0);
	snprintf(slice0, sizeof slice0, "%s/data/agent_5000.data.slice_0", host);
	size_t len;
	char *mine = read_file(slice0, &len);
	struct export_options opt = { .type = EXPORT_DB, .parse_only = true };
	struct export_report rep;
	struct tally t = { 0 };
	for (size_t off = first; off < len; off += step) {
		mine[off] ^= (char)(1U << (off % 8));
		put_file(slice0, mine, len);
		mine[off] ^= (char)(1U << (off % 8));
		int r = export_prof_dir(prof, &opt, &rep);
		if (r < 0) {
			fprintf(stderr, "offset %zu: export failed: %s\n", off, export_report_error(&rep, r));
			t.bad++;
			continue;
		}
		char *got = marks(rep.db_path);
		unsigned n = count_lines(got);
		/* a length made longer in the last frame is a torn tail: the
		 * same bytes as a writer killed inside its last write */
		bool ok = lines_in(got, whole) && n + 1 >= 2 * MARKS &&
			  ((rep.bad_records >= 1 && strstr(rep.message, "agent_5000.data.slice_0' is damaged at offset")) ||
			   (rep.torn_bytes > 0 &&
			    strstr(rep.message, "agent_5000.data.slice_0' ends with an incomplete record at offset")));
		if (!ok) {
			fprintf(stderr, "offset %zu: %u of %u marks, %" PRIu64 " bad record(s), report '%s'\n%s", off, n,
				2 * MARKS, rep.bad_records, rep.message, got);
			t.bad++;
		}
		if (n == 2 * MARKS)
			t.lost_none++;
		else
			t.lost_one++;
		free(got);
	}
	free(mine);
	return t;
}

/* The offsets are independent exports (about 15 ms each, 35 under ASan):
 * JOBS processes take every JOBS-th one, each in a copy of the file set. */
#define JOBS 2

int main(void)
{
	CHECK(mkdtemp(tmp));
	char prof[PATH_MAX], slice0[PATH_MAX + 64];
	make_set(tmp, prof, slice0);

	struct export_options opt = { .type = EXPORT_DB, .parse_only = true };
	struct export_report rep;
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(rep.bad_records == 0);
	char *whole = marks(rep.db_path);
	CHECK(count_lines(whole) == 2 * MARKS);

	struct stat st;
	CHECK(stat(slice0, &st) == 0);
	size_t len = (size_t)st.st_size;
	/* the sanitized build's run (scripts/dev.sh): every fourth offset */
	const char *reduced = getenv("MSPROF_TEST_REDUCED");
	size_t stride = reduced && *reduced ? 4 : 1, n_offsets = (len + stride - 1) / stride;
	int fds[JOBS][2];
	pid_t pids[JOBS];
	fflush(stdout);
	fflush(stderr);
	for (size_t j = 0; j < JOBS; j++) {
		CHECK(pipe(fds[j]) == 0);
		pids[j] = fork();
		CHECK(pids[j] >= 0);
		if (pids[j] == 0) {
			close(fds[j][0]);
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s/job%zu", tmp, j);
			struct tally t = damage(prof, dir, whole, j * stride, JOBS * stride);
			CHECK(write(fds[j][1], &t, sizeof t) == (ssize_t)sizeof t);
			free(whole);
			exit(0);
		}
		close(fds[j][1]);
	}
	struct tally all = { 0 };
	for (size_t j = 0; j < JOBS; j++) {
		struct tally t;
		int status;
		CHECK(read(fds[j][0], &t, sizeof t) == (ssize_t)sizeof t);
		close(fds[j][0]);
		CHECK(waitpid(pids[j], &status, 0) == pids[j] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
		all.lost_none += t.lost_none, all.lost_one += t.lost_one, all.bad += t.bad;
	}
	CHECK(all.bad == 0);
	printf("%zu byte offsets of a %zu-byte slice damaged one at a time (%d processes): %u lost no mark, "
	       "%u lost one, %u wrong\n", n_offsets, len, JOBS, all.lost_none, all.lost_one, all.bad);
	CHECK(all.lost_none + all.lost_one == n_offsets);
	free(whole);
	test_nonsense();
	rm_rf(tmp);
	printf("ok\n");
	return 0;
}
