/* Unit tests for export/: a PROF dir is built by hand (info.json,
 * sample.json, start_info, end_info) with raw slices written by the real raw
 * writer holding known synthetic samples, exported, and every number is
 * checked in the database (sqlite3 API), the CSVs (parsed) and the timeline
 * (parsed with cJSON).  Then damage: a torn last slice and a flipped byte;
 * type db; replacement of older outputs; a dir without data.
 *
 * The expected numbers assume CLK_TCK 100 and 4 KiB pages (the raw writer
 * records the machine's own); elsewhere the test is skipped. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "export/export.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "collectors/raw.h"
#include "export/tables.h"
#include "common/util.h"
#include "tests/unit/unittest-count.h"

#define CHECK_STR(a, b)                                                                                     \
	do {                                                                                                \
		const char *_a = (a), *_b = (b);                                                            \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                                    \
			fprintf(stderr, "%s:%d: '%s' != '%s' (%s)\n", __FILE__, __LINE__, _a ? _a : "(null)", \
				_b ? _b : "(null)", #a);                                                    \
			failures++;                                                                 \
		}                                                                                           \
	} while (0)

#define CHECK_NUM(a, b)                                                                                \
	do {                                                                                           \
		double _a = (a), _b = (b);                                                             \
		if (fabs(_a - _b) > 1e-9 * fmax(1.0, fabs(_b))) {                                       \
			fprintf(stderr, "%s:%d: %.9g != %.9g (%s)\n", __FILE__, __LINE__, _a, _b, #a); \
			failures++;                                                            \
		}                                                                              \
	} while (0)

/* --- the synthetic session ------------------------------------------------------ */

#define N 11                       /* samples per source: N - 1 intervals */
#define MONO0 1000000000000ULL     /* CLOCK_MONOTONIC at start */
#define REAL0 1700000000123456789ULL
#define STEP (100 * NSEC_PER_MSEC) /* 10 Hz */
#define APP 4242U
#define BEGIN_US 1700000000100000ULL
#define END_US 1700000001300000ULL
#define APP_NAME "my,\"app\""       /* CSV quoting */

static uint64_t ts_of(unsigned k) { return MONO0 + k * STEP; }
static int64_t unix_of(unsigned k) { return (int64_t)(REAL0 + k * STEP); }

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	if (fclose(f) != 0)
		exit(2);
}

/* path_join that never returns NULL: a test without memory stops. */
static char *xpath_join(const char *a, const char *b)
{
	char *p = path_join(a, b);
	if (!p)
		exit(2);
	return p;
}

static bool exists(const char *dir, const char *name)
{
	_cleanup_free_ char *p = xpath_join(dir, name);
	struct stat st;
	return stat(p, &st) == 0;
}

static uint64_t n_records; /* whole records written, all sources */

static void emit(struct raw_writer *w, uint16_t type, struct raw_buf *b)
{
	CHECK(b->err == 0);
	if (raw_writer_append(w, type, b->data, (uint32_t)b->len) < 0) {
		fprintf(stderr, "raw_writer_append failed\n");
		exit(2);
	}
	n_records++;
}

static struct raw_writer *writer(const char *data, enum raw_source s, uint64_t slice_bytes)
{
	struct raw_writer *w = NULL;
	if (raw_writer_open(data, s, MONO0, REAL0, slice_bytes, &w) < 0) {
		fprintf(stderr, "raw_writer_open failed\n");
		exit(2);
	}
	return w;
}

static void proc_info_at(struct raw_writer *w, struct raw_buf *b, uint64_t ts, uint32_t pid, const char *comm,
			 bool target, uint64_t start_ticks)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, pid);
	raw_buf_u32(b, 1);
	raw_buf_u64(b, start_ticks);
	raw_buf_str(b, comm, 16);
	raw_buf_u32(b, target);
	emit(w, RAW_PROC_INFO, b);
}

/* Processes that started long before the session (at boot + 123 s). */
static void proc_info(struct raw_writer *w, struct raw_buf *b, uint32_t pid, const char *comm, bool target)
{
	proc_info_at(w, b, ts_of(0), pid, comm, target, 12345 + pid);
}

/* The end of every source's file: the sampler's tick counts (N taken, none
 * missed), SESSION_END, then the writer closed. */
static void writer_close(struct raw_writer *w, struct raw_buf *b)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts_of(N - 1) + 50 * NSEC_PER_MSEC);
	raw_buf_u64(b, N);
	raw_buf_u64(b, 0);
	emit(w, RAW_SAMPLER_TICKS, b);
	raw_buf_reset(b);
	raw_buf_u64(b, ts_of(N - 1) + 50 * NSEC_PER_MSEC);
	raw_buf_u32(b, 1);
	emit(w, RAW_SESSION_END, b);
	raw_buf_release(b);
	raw_writer_free(w);
}

/* A new record of sample k: its timestamp first. */
static void sample_begin(struct raw_buf *b, unsigned k)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts_of(k));
}

/* Threads of the app: tid APP on CPU 0 runs 50% of wall time (schedstat),
 * tid APP+1 on CPU 1 50% counted in ticks only (runtime 0), tid APP+2 on
 * CPU 0 25% (schedstat).  Sample 3 is split over two records, as the
 * sampler does for big samples.  Small slices: the series crosses slices. */
static void thread_entry(struct raw_buf *b, uint32_t tid, uint64_t ticks, uint64_t runtime, uint32_t cpu)
{
	raw_buf_u32(b, APP);
	raw_buf_u32(b, tid);
	raw_buf_u64(b, ticks); /* utime */
	raw_buf_u64(b, 0);     /* stime */
	raw_buf_u64(b, runtime);
	raw_buf_u32(b, cpu);
	raw_buf_u32(b, 0);
}

static void write_host_cpu(const char *data)
{
	struct raw_writer *w = writer(data, RAW_SOURCE_HOST_CPU, 600);
	struct raw_buf b = { 0 };
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		/* names: APP+1 is "loader" at first, renamed "worker" at sample 5 */
		for (uint32_t t = 0; t < 3 && (k == 0 || k == 5); t++) {
			sample_begin(&b, k);
			raw_buf_u32(&b, APP);
			raw_buf_u32(&b, APP + t);
			raw_buf_str(&b, t == 0 ? APP_NAME : t == 2 ? "writer" : k ? "worker" : "loader", 16);
			emit(w, RAW_THREAD_INFO, &b);
		}
		sample_begin(&b, k);
		raw_buf_u32(&b, k == 3 ? 2 : 3);
		/* a live thread's runtime is never 0: 0 means "no schedstat" */
		thread_entry(&b, APP, 0, NSEC_PER_SEC + k * 50 * NSEC_PER_MSEC, 0);
		thread_entry(&b, APP + 1, k * 5, 0, 1);
		if (k == 3) {
			emit(w, RAW_THREAD_CPU, &b);
			sample_begin(&b, k);
			raw_buf_u32(&b, 1);
		}
		thread_entry(&b, APP + 2, 0, NSEC_PER_SEC + k * 25 * NSEC_PER_MSEC, 0);
		emit(w, RAW_THREAD_CPU, &b);
	}
	writer_close(w, &b);
}

/* Resident pages of the tree: 1050 + 100 k (two processes). */
static void write_host_mem(const char *data)
{
	struct raw_writer *w = writer(data, RAW_SOURCE_HOST_MEM, 0);
	struct raw_buf b = { 0 };
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		raw_buf_u32(&b, 2);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 5000);
		raw_buf_u64(&b, 1000 + 100 * k);
		raw_buf_u64(&b, 10);
		raw_buf_u32(&b, APP + 10);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 100);
		raw_buf_u64(&b, 50);
		raw_buf_u64(&b, 0);
		emit(w, RAW_PROC_MEM, &b);
	}
	/* the machine: 1000000 kB, 400000 + k kB available (after the tree's
	 * records, whose offsets test_damage counts on: they pair with
	 * nothing, so their place in the file does not matter) */
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		const uint64_t v[10] = { 1000000, 300000, 1000, 2000, 300, 4000, 5000, 0, 0, 400000 + k };
		for (int i = 0; i < 10; i++)
			raw_buf_u64(&b, v[i]);
		emit(w, RAW_SYS_MEM, &b);
	}
	writer_close(w, &b);
}

/* read_bytes +102400 per interval (1000 KB/s), write_bytes +20480 i in
 * interval i (200 i KB/s), 2 blkio ticks per interval (20%).  A child born
 * during the session (start 1000.45 s on the monotonic clock) shows up in
 * sample 5 only, having written 10240 bytes, and exits before sample 6:
 * its bytes land in interval 4 although no sample saw it before. */
#define CHILD (APP + 20)
/* A second child, born before sample 7, missing from sample 8 (a failed
 * read) and back in 9 and 10: counted from zero once, not again in 9. */
#define CHILD2 (APP + 21)
/* A third, born at 1000.25 s, 1.5 intervals before sample 4, and first seen
 * in sample 5 having written 25600 bytes: of its 0.25 s of life, 0.1 s is
 * interval 4, so 10240 of its bytes (102400 B/s, not 256000). */
#define CHILD3 (APP + 22)
static void write_host_disk(const char *data)
{
	struct raw_writer *w = writer(data, RAW_SOURCE_HOST_DISK, 0);
	struct raw_buf b = { 0 };
	uint64_t wr = 0;
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		wr += (uint64_t)k * 20480;
		if (k == 5) {
			proc_info_at(w, &b, ts_of(k), CHILD, "child", true, 100045);
			proc_info_at(w, &b, ts_of(k), CHILD3, "child3", true, 100025);
		}
		if (k == 7)
			proc_info_at(w, &b, ts_of(k), CHILD2, "child2", true, 100065);
		if (k == 6) {
			sample_begin(&b, k);
			raw_buf_u32(&b, CHILD);
			emit(w, RAW_PROC_EXIT, &b);
		}
		/* the machine's disk vda: 400 sectors read per interval
		 * (2048000 B/s), busy 50 ms of each 100; sda never moves */
		sample_begin(&b, k);
		raw_buf_u32(&b, 2);
		raw_buf_str(&b, "vda", 32);
		raw_buf_u64(&b, k * 400ULL);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, k * 50ULL);
		raw_buf_u64(&b, 0);
		raw_buf_str(&b, "sda", 32);
		for (int i = 0; i < 4; i++)
			raw_buf_u64(&b, 7);
		emit(w, RAW_DISK_STATS, &b);
		sample_begin(&b, k);
		raw_buf_u32(&b, k == 5 ? 3 : k == 7 || k >= 9 ? 2 : 1);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 7);               /* rchar */
		raw_buf_u64(&b, 9);               /* wchar */
		raw_buf_u64(&b, k * 102400ULL);   /* read_bytes */
		raw_buf_u64(&b, wr);              /* write_bytes */
		raw_buf_u64(&b, 0);               /* cancelled */
		raw_buf_u64(&b, k * 2ULL);        /* blkio ticks */
		if (k == 5) {
			raw_buf_u32(&b, CHILD);
			raw_buf_u32(&b, 0);
			for (int i = 0; i < 3; i++)
				raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 10240);
			raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 0);
		}
		if (k == 5) {
			raw_buf_u32(&b, CHILD3);
			raw_buf_u32(&b, 0);
			for (int i = 0; i < 3; i++)
				raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 25600);
			raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 0);
		}
		if (k == 7 || k >= 9) {
			raw_buf_u32(&b, CHILD2);
			raw_buf_u32(&b, 0);
			for (int i = 0; i < 3; i++)
				raw_buf_u64(&b, 0);
			raw_buf_u64(&b, k == 7 ? 4096 : 8192);
			raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 0);
		}
		emit(w, RAW_PROC_IO, &b);
	}
	writer_close(w, &b);
}

/* eth0 (1000 Mbit/s) receives 125000 B/s; lo (speed unknown) 10000 B/s
 * each way. */
static void net_entry(struct raw_buf *b, const char *name, uint64_t rx, uint64_t tx)
{
	raw_buf_str(b, name, 16);
	raw_buf_u64(b, rx);
	raw_buf_u64(b, 1);
	raw_buf_u64(b, 0);
	raw_buf_u64(b, 0);
	raw_buf_u64(b, tx);
	raw_buf_u64(b, 1);
	raw_buf_u64(b, 0);
	raw_buf_u64(b, 0);
}

static void write_host_net(const char *data)
{
	struct raw_writer *w = writer(data, RAW_SOURCE_HOST_NET, 0);
	struct raw_buf b = { 0 };
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		raw_buf_u32(&b, 2);
		net_entry(&b, "lo", k * 1000ULL, k * 1000ULL);
		net_entry(&b, "eth0", k * 12500ULL, 0);
		emit(w, RAW_NET_DEV, &b);
	}
	writer_close(w, &b);
}

/* /proc/stat per interval: cpu0 user 6 system 2 idle 2; cpu1 user 1
 * system 1 idle 7 iowait 1; "cpu" the sum.  Per process: the app 5 ticks
 * (25% of 2 CPUs), init 1 tick (5%). */
static void sys_cpu_entry(struct raw_buf *b, int32_t cpu, unsigned k, const uint64_t per[8])
{
	raw_buf_u32(b, (uint32_t)cpu);
	raw_buf_u32(b, 0);
	for (int i = 0; i < 8; i++)
		raw_buf_u64(b, 1000 + k * per[i]);
}

static void write_usage_cpu(const char *data)
{
	static const uint64_t c0[8] = { 6, 0, 2, 2, 0, 0, 0, 0 }, c1[8] = { 1, 0, 1, 7, 1, 0, 0, 0 };
	uint64_t all[8];
	for (int i = 0; i < 8; i++)
		all[i] = c0[i] + c1[i];
	struct raw_writer *w = writer(data, RAW_SOURCE_USAGE_CPU, 0);
	struct raw_buf b = { 0 };
	proc_info(w, &b, 1, "init", false);
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		raw_buf_u32(&b, 3);
		sys_cpu_entry(&b, -1, k, all);
		sys_cpu_entry(&b, 0, k, c0);
		sys_cpu_entry(&b, 1, k, c1);
		emit(w, RAW_SYS_CPU, &b);

		sample_begin(&b, k);
		raw_buf_u32(&b, 2);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, k);
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 3ULL * k);
		raw_buf_u64(&b, 2ULL * k);
		emit(w, RAW_PROC_CPU, &b);
	}
	writer_close(w, &b);
}

static void write_usage_mem(const char *data)
{
	struct raw_writer *w = writer(data, RAW_SOURCE_USAGE_MEM, 0);
	struct raw_buf b = { 0 };
	proc_info(w, &b, 1, "init", false);
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		const uint64_t v[9] = { 1000000, 500000 + 10 * k, 1000, 2000, 300, 4000, 5000 + k, 0, 0 };
		for (int i = 0; i < 9; i++)
			raw_buf_u64(&b, v[i]);
		emit(w, RAW_SYS_MEM, &b);

		sample_begin(&b, k);
		raw_buf_u32(&b, 2);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 100);
		raw_buf_u64(&b, 50);
		raw_buf_u64(&b, 40);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 5000);
		raw_buf_u64(&b, 1000 + k);
		raw_buf_u64(&b, 10);
		emit(w, RAW_PROC_MEM_ALL, &b);
	}
	writer_close(w, &b);
}

/* A PROF dir's host/ files, and host/data made for the caller's raw files. */
static char *make_prof_dirs(const char *parent, const char *name, bool end_info, const char *sample)
{
	char *prof = xpath_join(parent, name);
	_cleanup_free_ char *host = xpath_join(prof, "host");
	_cleanup_free_ char *data = xpath_join(host, "data");
	if (mkdir(prof, 0755) < 0 || mkdir(host, 0755) < 0 || mkdir(data, 0755) < 0) {
		perror(prof);
		exit(2);
	}
	char *p;
	p = xpath_join(host, "info.json");
	write_text(p, "{\"jobInfo\":\"NA\",\"hostname\":\"testhost\",\"hostUid\":\"0123abcd\",\"pid\":\"4242\","
		      "\"pid_name\":\"app\",\"rank_id\":-1,\"devices\":\"\",\"DeviceInfo\":[],"
		      "\"cpuNums\":2,\"sysClockFreq\":100,\"memoryTotal\":1000000,\"netCardNums\":2,"
		      "\"netCard\":[{\"netCardName\":\"lo\",\"speed\":-1},{\"netCardName\":\"eth0\",\"speed\":1000}]}");
	free(p);
	p = xpath_join(host, "sample.json");
	write_text(p, sample);
	free(p);
	p = xpath_join(host, "start_info");
	write_text(p, "{\"collectionDateBegin\":\"2023-11-14 22:13:20.100000\",\"collectionTimeBegin\":\"1700000000100000\","
		      "\"clockMonotonicRaw\":\"1000000000000\"}");
	free(p);
	if (end_info) {
		p = xpath_join(host, "end_info");
		write_text(p, "{\"collectionDateEnd\":\"2023-11-14 22:13:21.300000\",\"collectionTimeEnd\":\"1700000001300000\","
			      "\"clockMonotonicRaw\":\"1001200000000\"}");
		free(p);
	}
	return prof;
}

static char *make_prof(const char *parent, const char *name, bool end_info, const char *sample)
{
	char *prof = make_prof_dirs(parent, name, end_info, sample);
	_cleanup_free_ char *data = xpath_join(prof, "host/data");
	write_host_cpu(data);
	write_host_mem(data);
	write_host_disk(data);
	write_host_net(data);
	write_usage_cpu(data);
	write_usage_mem(data);
	return prof;
}

#define SAMPLE_ALL "{\"host_sys\":\"cpu,mem,disk,network\",\"host_sys_freq\":10,\"host_sys_usage\":\"cpu,mem\"," \
		   "\"host_sys_usage_freq\":10}"

/* --- reading the results --------------------------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

/* The single file in dir named prefix + 14 digits + suffix, or NULL. */
static char *find_file(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	unsigned n = 0;
	struct dirent *de;
	size_t lp = strlen(prefix), ls = strlen(suffix);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l != lp + 14 + ls || strncmp(de->d_name, prefix, lp) != 0 || strcmp(de->d_name + lp + 14, suffix))
			continue;
		bool digits = true;
		for (size_t i = 0; i < 14; i++)
			digits = digits && de->d_name[lp + i] >= '0' && de->d_name[lp + i] <= '9';
		if (!digits)
			continue;
		n++;
		free(found);
		found = xpath_join(dir, de->d_name);
	}
	closedir(d);
	if (n != 1) {
		free(found);
		return NULL;
	}
	return found;
}

/* Parse one CSV line into fields (quotes, doubled quotes). */
static unsigned csv_split(const char *line, char fields[][128], unsigned max)
{
	unsigned n = 0;
	const char *p = line;
	for (;;) {
		char *out = fields[n];
		size_t len = 0;
		if (*p == '"') {
			p++;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++;
				if (len < 127)
					out[len++] = *p;
				p++;
			}
			if (*p == '"')
				p++;
		} else
			while (*p && *p != ',' && *p != '\n')
				if (len < 127)
					out[len++] = *p++;
		out[len] = 0;
		n++;
		if (*p != ',' || n == max)
			break;
		p++;
	}
	return n;
}

/* Check a summary CSV: header from the table, every row's field count and
 * Device_id, and the rows as text. */
static void check_csv(const char *outdir, enum export_csv id, const char *const *rows, unsigned nrows)
{
	const struct export_csv_table *t = &export_csv_tables[id];
	char prefix[64];
	snprintf(prefix, sizeof prefix, "%s_", t->type);
	_cleanup_free_ char *path = find_file(outdir, prefix, ".csv");
	CHECK(path);
	if (!path) {
		fprintf(stderr, "  no single %s*.csv\n", prefix);
		return;
	}
	_cleanup_free_ char *text = read_all(path);
	CHECK(text);
	if (!text)
		return;
	char fields[EXPORT_CSV_MAX_COLUMNS][128];
	size_t ncol = export_csv_ncolumns(t);
	unsigned line = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
		unsigned nf = csv_split(l, fields, EXPORT_CSV_MAX_COLUMNS);
		if (nf != ncol) {
			fprintf(stderr, "%s line %u: %u fields, want %zu: %s\n", path, line, nf, ncol, l);
			failures++;
			continue;
		}
		if (line == 0) {
			for (size_t i = 0; i < ncol; i++)
				CHECK_STR(fields[i], t->columns[i]);
			continue;
		}
		CHECK_STR(fields[0], "host");
		if (line <= nrows)
			CHECK_STR(l, rows[line - 1]);
	}
	if (line != nrows + 1) {
		fprintf(stderr, "%s: %u rows, want %u\n", path, line ? line - 1 : 0, nrows);
		failures++;
	}
}

static double sql_num(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	double v = NAN;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	else
		fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return v;
}

static char *sql_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *v = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* Column names of a table, comma separated. */
static char *columns(sqlite3 *db, const char *table)
{
	char sql[128], *out = calloc(1, 1024);
	snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (out[0])
				strcat(out, ",");
			strncat(out, (const char *)sqlite3_column_text(st, 1), 1000 - strlen(out));
		}
	sqlite3_finalize(st);
	return out;
}

/* --- the checks -------------------------------------------------------------------- */

static void check_db(const char *db_path, bool damaged)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);

	/* msprof's tables: names and column order of reference §5 */
	static const char *const want[][2] = {
		{ "STRING_IDS", "id,value" },
		{ "META_DATA", "name,value" },
		{ "SESSION_TIME_INFO", "startTimeNs,endTimeNs" },
		{ "HOST_INFO", "hostUid,hostName" },
		{ "CPU_USAGE", "timestampNs,cpuId,usage" },
		{ "HOST_MEM_USAGE", "timestampNs,usage" },
		{ "HOST_DISK_USAGE", "timestampNs,readRate,writeRate,usage" },
		{ "HOST_NETWORK_USAGE", "timestampNs,usage,speed" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		_cleanup_free_ char *c = columns(db, want[i][0]);
		CHECK_STR(c, want[i][1]);
	}
	/* ours: as tables.c declares them (SCHEMA.md documents them); this
	 * session has no agent data (test-export-agent.c has), so no STEP,
	 * STEP_TRACE_TIME or OSRT_API either */
	for (size_t i = 0; i < export_db_tables_n; i++) {
		const char *name = export_db_tables[i].name;
		if (startswith(name, "AGENT_") || streq(name, "MSTX_EVENTS") || streq(name, "STEP") ||
		    streq(name, "STEP_TRACE_TIME") || streq(name, "OSRT_API"))
			continue;
		/* nor device data (test-export-gpu.c, tests/integration/device-nvml.sh) */
		static const char *const device_tables[] = {
			"NPU_INFO", "NPU_MEM", "AICORE_FREQ", "GPU_INFO", "GPU_SAMPLE", "GPU_PCIE", "GPU_PROCESS_MEM",
			"TASK", "COMPUTE_TASK_INFO", "MEMCPY_INFO", "CANN_API", "ENUM_API_TYPE",
			"ENUM_MEMCPY_OPERATION", "GPU_TASK", "GPU_API", "GPU_TASK_RANGE", "GPU_SYNC",
			"COMMUNICATION_OP_SOURCE", "NCCL_PROFILER_OP", "COMMUNICATION_HOST_TASK", /* comm-osrt.sh */
			"COMMUNICATION_GROUP", /* torch-ddp.sh */
		};
		bool device = false;
		for (size_t k = 0; k < ARRAY_SIZE(device_tables); k++)
			device = device || streq(name, device_tables[k]);
		if (device)
			continue;
		_cleanup_free_ char *c = columns(db, name);
		CHECK(c[0]);
	}

	_cleanup_free_ char *ver = sql_text(db, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'");
	CHECK_STR(ver, "1.2.0");
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM META_DATA WHERE name LIKE 'SCHEMA_VERSION%'"), 4);
	_cleanup_free_ char *host = sql_text(db, "SELECT hostName FROM HOST_INFO");
	CHECK_STR(host, "testhost");
	_cleanup_free_ char *uid = sql_text(db, "SELECT hostUid FROM HOST_INFO");
	CHECK_STR(uid, "0123abcd");
	CHECK_NUM(sql_num(db, "SELECT startTimeNs FROM SESSION_TIME_INFO"), BEGIN_US * 1000.0);
	/* without end_info: the last record (a SESSION_END 50 ms after the
	 * last sample; the host_cpu one is torn off) */
	CHECK_NUM(sql_num(db, "SELECT endTimeNs FROM SESSION_TIME_INFO"),
		  damaged ? (double)unix_of(N - 1) + 50e6 : END_US * 1000.0);

	/* CPU: 10 intervals, CPU 0 = 50% + 25%, CPU 1 = 50% (ticks), Avg 62.5 */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM CPU_USAGE"), 2 * (N - 1));
	CHECK_NUM(sql_num(db, "SELECT MIN(usage) FROM CPU_USAGE WHERE cpuId = 0"), 75);
	CHECK_NUM(sql_num(db, "SELECT MAX(usage) FROM CPU_USAGE WHERE cpuId = 0"), 75);
	CHECK_NUM(sql_num(db, "SELECT MIN(usage) FROM CPU_USAGE WHERE cpuId = 1"), 50);
	CHECK_NUM(sql_num(db, "SELECT MAX(usage) FROM CPU_USAGE WHERE cpuId = 1"), 50);
	CHECK_NUM(sql_num(db, "SELECT MIN(timestampNs) FROM CPU_USAGE"), (double)unix_of(0));
	CHECK_NUM(sql_num(db, "SELECT MAX(timestampNs) FROM CPU_USAGE"), (double)unix_of(N - 2));
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM CPU_USAGE_AVG WHERE usage = 62.5"), N - 1);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM TARGET_THREAD_CPU_USAGE"), 3 * (N - 1));
	CHECK_NUM(sql_num(db, "SELECT usage FROM TARGET_THREAD_CPU_USAGE WHERE tid = 4244 LIMIT 1"), 25);

	/* memory: (1050 + 100 k) pages of 4 KiB over 1000000 kB; sample 5 damaged */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM HOST_MEM_USAGE"), damaged ? N - 1 : N);
	CHECK_NUM(sql_num(db, "SELECT usage FROM HOST_MEM_USAGE ORDER BY timestampNs LIMIT 1"), 0.42);
	CHECK_NUM(sql_num(db, "SELECT MAX(usage) FROM HOST_MEM_USAGE"), 0.82);
	CHECK_NUM(sql_num(db, "SELECT timestampNs FROM HOST_MEM_USAGE ORDER BY timestampNs LIMIT 1"),
		  (double)unix_of(0));

	/* disk: B/s as msprof stores them */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM HOST_DISK_USAGE"), N - 1);
	CHECK_NUM(sql_num(db, "SELECT MIN(readRate) FROM HOST_DISK_USAGE"), 1024000);
	CHECK_NUM(sql_num(db, "SELECT MAX(readRate) FROM HOST_DISK_USAGE"), 1024000);
	CHECK_NUM(sql_num(db, "SELECT writeRate FROM HOST_DISK_USAGE ORDER BY timestampNs LIMIT 1"), 204800);
	CHECK_NUM(sql_num(db, "SELECT MAX(writeRate) FROM HOST_DISK_USAGE"), 2048000);
	/* the busiest disk's 50% over the tree's 20% blocked */
	CHECK_NUM(sql_num(db, "SELECT MIN(usage) FROM HOST_DISK_USAGE"), 50);
	CHECK_NUM(sql_num(db, "SELECT MAX(usage) FROM HOST_DISK_USAGE"), 50);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM HOST_DISK_DEVICE_USAGE d JOIN STRING_IDS s ON s.id = d.name "
			      "WHERE s.value = 'vda' AND d.readRate = 2048000 AND d.usage = 50"), N - 1);
	CHECK_NUM(sql_num(db, "SELECT MAX(readRate + writeRate + usage) FROM HOST_DISK_DEVICE_USAGE d "
			      "JOIN STRING_IDS s ON s.id = d.name WHERE s.value = 'sda'"), 0);
	/* thread names: the newest */
	_cleanup_free_ char *tname = sql_text(db, "SELECT s.value FROM TARGET_THREAD_INFO t JOIN STRING_IDS s "
						  "ON s.id = t.name WHERE t.tid = 4243 ORDER BY t.timestampNs DESC LIMIT 1");
	CHECK_STR(tname, "worker");
	/* the machine's memory, kB */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM HOST_SYSTEM_MEM"), N);
	CHECK_NUM(sql_num(db, "SELECT memUsed FROM HOST_SYSTEM_MEM ORDER BY timestampNs LIMIT 1"), 600000);
	CHECK_NUM(sql_num(db, "SELECT MAX(memAvailable) FROM HOST_SYSTEM_MEM"), 400000 + N - 1);
	/* the child born in interval 4, seen once */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4262"), 1);
	CHECK_NUM(sql_num(db, "SELECT writeRate FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4262"), 102400);
	CHECK_NUM(sql_num(db, "SELECT timestampNs FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4262"), (double)unix_of(4));
	/* the child born 1.5 intervals before sample 4: its share of interval 4 */
	CHECK_NUM(sql_num(db, "SELECT writeRate FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4264"), 102400);
	CHECK_NUM(sql_num(db, "SELECT writeRate FROM HOST_DISK_USAGE ORDER BY timestampNs LIMIT 1 OFFSET 4"),
		  5 * 204800 + 102400 + 102400);
	CHECK_NUM(sql_num(db, "SELECT exitNs FROM PROCESS_INFO WHERE pid = 4262"), (double)unix_of(6));
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4263"), 2);
	CHECK_NUM(sql_num(db, "SELECT writeRate FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4263 ORDER BY timestampNs"),
		  40960);
	CHECK_NUM(sql_num(db, "SELECT timestampNs FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4263 ORDER BY timestampNs "
			      "LIMIT 1 OFFSET 1"), (double)unix_of(9));
	CHECK_NUM(sql_num(db, "SELECT MAX(writeRate) FROM TARGET_PROCESS_DISK_USAGE WHERE pid = 4263 AND "
			      "timestampNs > 0 AND timestampNs >= (SELECT MAX(timestampNs) FROM HOST_DISK_USAGE)"), 0);

	/* network: eth0 125000 B/s of 125000000; lo's 10000 B/s (sent and
	 * received: once) only in speed */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM HOST_NETWORK_USAGE"), N - 1);
	CHECK_NUM(sql_num(db, "SELECT MIN(usage) FROM HOST_NETWORK_USAGE"), 0.1);
	CHECK_NUM(sql_num(db, "SELECT MAX(speed) FROM HOST_NETWORK_USAGE"), 135000);
	CHECK_NUM(sql_num(db, "SELECT MIN(speed) FROM HOST_NETWORK_USAGE"), 135000);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM NETWORK_INTERFACE_USAGE n JOIN STRING_IDS s ON s.id = n.name "
			      "WHERE s.value = 'lo' AND n.speed IS NULL AND n.rxRate = 10000"), N - 1);

	/* processes and whole-host samples */
	_cleanup_free_ char *name = sql_text(db, "SELECT s.value FROM PROCESS_INFO p JOIN STRING_IDS s ON s.id = p.name "
						 "WHERE p.pid = 4242");
	CHECK_STR(name, APP_NAME);
	CHECK_NUM(sql_num(db, "SELECT isTarget FROM PROCESS_INFO WHERE pid = 4242"), 1);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM PROCESS_INFO"), 5); /* the app, 3 children, pid 1 */
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM PROCESS_INFO WHERE exitNs IS NOT NULL"), 1);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM SYS_CPU"), 3 * N);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM SYS_MEM"), N);
	CHECK_NUM(sql_num(db, "SELECT AVG(usage) FROM PROCESS_CPU_USAGE WHERE pid = 4242"), 25);
	CHECK_NUM(sql_num(db, "SELECT AVG(usage) FROM PROCESS_CPU_USAGE WHERE pid = 1"), 5);
	CHECK_NUM(sql_num(db, "SELECT COUNT(*) FROM PROCESS_MEM_USAGE"), 2 * N);
	sqlite3_close(db);
}

static void check_summaries(const char *out)
{
	static const char *const host_cpu[] = { "host,2,2,2" };
	check_csv(out, CSV_HOST_CPU_USAGE, host_cpu, 1);
	/* peak 0.82% of 1000000 kB; recommend 0.82 / 0.8 (98th percentile of 11) */
	static const char *const host_mem[] = { "host,1000000,8200.0,10250.0" };
	check_csv(out, CSV_HOST_MEM_USAGE, host_mem, 1);
	static const char *const host_disk[] = { "host,1000.0,1250.0,2000.0,2500.0" };
	check_csv(out, CSV_HOST_DISK_USAGE, host_disk, 1);
	/* 1000 Mbit/s = 122070.3125 KB/s; 135000 B/s = 131.8359375 KB/s */
	static const char *const host_net[] = { "host,122070.3125,131.8359375,164.794921875" };
	check_csv(out, CSV_HOST_NETWORK_USAGE, host_net, 1);
	static const char *const cpu[] = {
		"host,cpu0,60.0,20.0,0.0,0.0,0.0,20.0",
		"host,cpu1,10.0,10.0,10.0,0.0,0.0,70.0",
		"host,Avg,35.0,15.0,5.0,0.0,0.0,45.0",
	};
	check_csv(out, CSV_CPU_USAGE, cpu, 3);
	static const char *const sys_mem[] = { "host,1000000,500050,1000,2000,300,4000,5005,0,0" };
	check_csv(out, CSV_SYS_MEM, sys_mem, 1);
	static const char *const pcpu[] = { "host,4242,\"my,\"\"app\"\"\",25.0", "host,1,init,5.0" };
	check_csv(out, CSV_PROCESS_CPU_USAGE, pcpu, 2);
	static const char *const pmem[] = { "host,4242,\"my,\"\"app\"\"\",5000,1005,10", "host,1,init,100,50,40" };
	check_csv(out, CSV_PROCESS_MEM, pmem, 2);
}

static bool ts_format_ok(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;
	if (!dot || dot == s || strlen(dot) != 4)
		return false;
	for (const char *p = s; *p; p++)
		if (p != dot && (*p < '0' || *p > '9'))
			return false;
	return true;
}

static void check_keys(const cJSON *ev, const char *const *keys)
{
	const cJSON *c = ev->child;
	for (; *keys; keys++, c = c ? c->next : NULL)
		CHECK_STR(c ? c->string : NULL, *keys);
	CHECK(c == NULL);
}

static void check_timeline(const char *out)
{
	_cleanup_free_ char *path = find_file(out, "msprof_", ".json");
	CHECK(path);
	if (!path)
		return;
	_cleanup_free_ char *text = read_all(path);
	cJSON *j = cJSON_Parse(text);
	CHECK(cJSON_IsArray(j));
	if (!cJSON_IsArray(j)) {
		cJSON_Delete(j);
		return;
	}

	static const char *const counter_keys[] = { "name", "pid", "tid", "ts", "ph", "args", NULL };
	static const char *const meta_keys[] = { "name", "pid", "tid", "ph", "args", NULL };
	unsigned counters[_TRACK_MAX] = { 0 }, meta[_TRACK_MAX] = { 0 }, cpu0 = 0, cpu1 = 0, avg = 0;
	unsigned extra[8] = { 0 };
	const cJSON *ev;
	bool first = true;
	cJSON_ArrayForEach(ev, j) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
		const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "ph"));
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
		CHECK(name && ph && cJSON_IsNumber(pid) && cJSON_IsObject(args));
		if (!name || !ph || !cJSON_IsNumber(pid))
			continue;
		unsigned p = (unsigned)pid->valuedouble;
		CHECK((p & 31) == EXPORT_HOST_DEVICE_ID);
		CHECK(p >> 10 == APP);
		const struct export_track_info *k = NULL;
		for (size_t i = 0; i < _TRACK_MAX; i++)
			if (((p >> 5) & 31) == export_tracks[i].sort_index)
				k = &export_tracks[i];
		CHECK(k);
		if (!k)
			continue;
		if (streq(ph, "C")) {
			check_keys(ev, counter_keys);
			const char *ts = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "ts"));
			CHECK(ts_format_ok(ts));
			if (first) {
				CHECK_STR(ts, "1700000000123456.789");
				first = false;
			}
			/* the byte rates and sizes beside a layer's own counter, MB = 2^20 B */
			const cJSON *a1 = args->child;
			double v1 = cJSON_GetNumberValue(a1), v2 = a1 ? cJSON_GetNumberValue(a1->next) : 0;
			const char *k1 = a1 ? a1->string : "";
			if (k->id == TRACK_DISK_USAGE && streq(name, "Disk Rate")) {
				extra[0] += streq(k1, "Read(MB/s)") && v1 == 0.976563;
				continue;
			} else if (k->id == TRACK_DISK_USAGE && streq(name, "Disk vda")) {
				extra[1] += v1 == 1.953125 && v2 == 0;
				continue;
			} else if (k->id == TRACK_DISK_USAGE && strstr(name, " (pid ")) {
				/* the app's; the two children's at their intervals */
				extra[2] += streq(name, APP_NAME " (pid 4242)") && v1 == 0.976563;
				continue;
			} else if (k->id == TRACK_NETWORK_USAGE && streq(name, "Network Rate")) {
				extra[3] += streq(k1, "Speed(MB/s)") && v1 == 0.128746;
				continue;
			} else if (k->id == TRACK_NETWORK_USAGE && strncmp(name, "Interface ", 10) == 0) {
				extra[4] += streq(name, "Interface lo") && v1 == 0.009537 && v2 == 0.009537;
				continue;
			} else if (k->id == TRACK_MEMORY_USAGE && streq(name, "System Memory")) {
				extra[5] += streq(k1, "Used(MB)") && v1 <= 585.9375 && v1 > 585.9;
				continue;
			} else if (k->id == TRACK_MEMORY_USAGE && strstr(name, " (pid ")) {
				extra[6] += streq(k1, "RSS(MB)") && v1 > 0;
				continue;
			} else if (k->id == TRACK_THREAD_CPU) {
				/* 4242 50%, 4243 ticks only, 4244 25%; named, 4243 by its newest */
				extra[7] += (streq(name, APP_NAME " (4242)") && v1 == 50) || streq(name, "worker (4243)") ||
					    (streq(name, "writer (4244)") && v1 == 25);
				CHECK(!streq(name, "loader (4243)"));
				counters[k->id]++;
				continue;
			}
			CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(args, "Usage(%)")));
			double v = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(args, "Usage(%)"));
			counters[k->id]++;
			if (k->id == TRACK_CPU_USAGE) {
				if (streq(name, "CPU 0") && v == 75)
					cpu0++;
				else if (streq(name, "CPU 1") && v == 50)
					cpu1++;
				else if (streq(name, "CPU Avg") && v == 62.5)
					avg++;
				else {
					fprintf(stderr, "unexpected CPU counter %s %g\n", name, v);
					failures++;
				}
			} else
				CHECK_STR(name, k->process_name);
		} else if (streq(ph, "M")) {
			check_keys(ev, meta_keys);
			CHECK(counters[k->id] > 0); /* metadata after the layer's data */
			meta[k->id]++;
			if (streq(name, "process_name") && k->id == TRACK_THREAD_CPU)
				CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "name")),
					  "Thread CPU: " APP_NAME " (pid 4242)");
			else if (streq(name, "process_name"))
				CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "name")),
					  k->process_name);
			else if (streq(name, "process_labels"))
				CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "labels")), "CPU");
			else if (streq(name, "process_sort_index"))
				CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(args, "sort_index")) ==
				      k->sort_index);
			else {
				fprintf(stderr, "unexpected metadata %s\n", name);
				failures++;
			}
		} else {
			fprintf(stderr, "unexpected ph %s\n", ph);
			failures++;
		}
	}
	CHECK(cpu0 == N - 1 && cpu1 == N - 1 && avg == N - 1);
	CHECK(counters[TRACK_CPU_USAGE] == 3 * (N - 1));
	CHECK(counters[TRACK_MEMORY_USAGE] == N);
	CHECK(counters[TRACK_NETWORK_USAGE] == N - 1);
	CHECK(counters[TRACK_DISK_USAGE] == N - 1);
	CHECK(counters[TRACK_THREAD_CPU] == 3 * (N - 1));
	for (size_t i = 0; i < ARRAY_SIZE(extra); i++)
		if (extra[i] != (i == 5 ? N : i == 6 ? 2 * N : i == 7 ? 3 * (N - 1) : N - 1)) {
			fprintf(stderr, "rate/size counter %zu: %u\n", i, extra[i]);
			failures++;
		}
	/* the host layers; MsprofTx and the device layers have no data here */
	for (size_t i = 0; i < _TRACK_MAX; i++)
		CHECK(meta[i] == (i == TRACK_MSPROFTX || i == TRACK_OS_RUNTIME_API ||
				  (i >= TRACK_NPU_MEM && i != TRACK_THREAD_CPU) ? 0 : 3));
	/* the pid packing and the sort indices of reference §4 */
	CHECK(export_format_pid(APP, 9, 31) == ((APP << 10) | (9 << 5) | 31));
	CHECK(export_track_find("CPU Usage")->sort_index == 9);
	CHECK(export_track_find("Memory Usage")->sort_index == 10);
	CHECK(export_track_find("Network Usage")->sort_index == 11);
	CHECK(export_track_find("Disk Usage")->sort_index == 12);
	cJSON_Delete(j);
}

/* README.txt lists exactly the deliverables in the dir (report.html is
 * none: msprof has no such file). */
static void check_readme(const char *out, unsigned want_files)
{
	_cleanup_free_ char *path = xpath_join(out, "README.txt");
	_cleanup_free_ char *text = read_all(path);
	CHECK(text);
	if (!text)
		return;
	CHECK(startswith(text, "Timeline file description:\n"));
	CHECK(strstr(text, "\nSummary file description:\n"));
	unsigned listed = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *dot = strchr(l, '.'), *colon = strchr(l, ':');
		if (!dot || !colon || dot > colon || l[0] < '1' || l[0] > '9')
			continue;
		*colon = 0;
		char *file = dot + 1; /* "msprof.json", "host_cpu_usage.csv" */
		char *ext = strrchr(file, '.');
		CHECK(ext);
		if (!ext)
			continue;
		*ext = 0;
		char prefix[128];
		snprintf(prefix, sizeof prefix, "%s_", file);
		_cleanup_free_ char *f = find_file(out, prefix, streq(ext + 1, "json") ? ".json" : ".csv");
		if (!f) {
			fprintf(stderr, "README lists %s.%s, not in %s\n", file, ext + 1, out);
			failures++;
		}
		listed++;
	}
	CHECK(listed == want_files);
	unsigned present = 0;
	DIR *d = opendir(out);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && !streq(de->d_name, "README.txt") && !streq(de->d_name, EXPORT_REPORT_FILE))
			present++;
	if (d)
		closedir(d);
	CHECK(present == want_files);
}

static char *outdir(const char *prof) { return xpath_join(prof, "mindstudio_profiler_output"); }

static void test_text(const char *tmp)
{
	_cleanup_free_ char *prof = make_prof(tmp, "PROF_000001_20231114221320100_00004242ABCDEFGH", true, SAMPLE_ALL);
	uint64_t written = n_records;
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_TEXT };
	int r = export_prof_dir(prof, &opt, &rep);
	CHECK(r == 0);
	if (r < 0)
		fprintf(stderr, "export: %s: %s\n", strerror(-r), rep.message);
	CHECK(rep.records == written);
	CHECK(rep.bad_records == 0);
	CHECK(rep.torn_bytes == 0);
	CHECK(rep.raw_files > 6); /* host_cpu is split into several slices */
	CHECK_STR(rep.message, "");
	CHECK(rep.files_written == 9);

	_cleanup_free_ char *db = find_file(prof, "msprof_", ".db");
	CHECK(db);
	{
		/* one row per source with the counts of its last RAW_SAMPLER_TICKS */
		sqlite3 *tdb;
		CHECK(sqlite3_open_v2(db, &tdb, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
		CHECK(sql_num(tdb, "SELECT COUNT(*) FROM SAMPLER_TICKS") >= 6);
		char q[128];
		snprintf(q, sizeof q, "SELECT COUNT(*) FROM SAMPLER_TICKS WHERE taken != %d OR missed != 0", N);
		CHECK_NUM(sql_num(tdb, q), 0);
		CHECK_NUM(sql_num(tdb, "SELECT COUNT(*) FROM SAMPLER_TICKS WHERE source = 'host_cpu'"), 1);
		sqlite3_close(tdb);
	}
	CHECK(db && streq(db, rep.db_path));
	if (db)
		check_db(db, false);
	_cleanup_free_ char *out = outdir(prof);
	CHECK_STR(rep.output_dir, out);
	check_summaries(out);
	check_timeline(out);
	check_readme(out, 9);

	/* again, over older files: only the newest of each kind stays */
	_cleanup_free_ char *old_db = xpath_join(prof, "msprof_20000101000000.db");
	_cleanup_free_ char *old_csv = xpath_join(out, "host_cpu_usage_20000101000000.csv");
	_cleanup_free_ char *old_json = xpath_join(out, "msprof_20000101000000.json");
	_cleanup_free_ char *other = xpath_join(out, "msprof_tx_20000101000000.json");
	write_text(old_db, "old");
	write_text(old_csv, "old");
	write_text(old_json, "old");
	write_text(other, "[]");
	r = export_prof_dir(prof, &opt, &rep);
	CHECK(r == 0);
	CHECK(access(old_db, F_OK) < 0 && access(old_csv, F_OK) < 0 && access(old_json, F_OK) < 0);
	CHECK(access(other, F_OK) == 0); /* not ours to remove */
	unlink(other);
	_cleanup_free_ char *db2 = find_file(prof, "msprof_", ".db");
	CHECK(db2);
	check_summaries(out);
	check_readme(out, 9);
}

/* Flip one byte inside the payload of the record that starts at offset. */
static void flip_byte(const char *path, long offset)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	unsigned char c = 0;
	CHECK(fd >= 0 && pread(fd, &c, 1, offset) == 1);
	c ^= 0x5a;
	CHECK(pwrite(fd, &c, 1, offset) == 1);
	close(fd);
}

static void test_damage(const char *tmp)
{
	n_records = 0;
	_cleanup_free_ char *prof = make_prof(tmp, "PROF_000002_20231114221320100_00004242ABCDEFGH", false, SAMPLE_ALL);
	_cleanup_free_ char *data = xpath_join(prof, "host/data");

	/* the newest host_cpu slice loses the end of its last record */
	char **paths = NULL;
	int n = raw_list_slices(data, RAW_SOURCE_HOST_CPU, &paths);
	CHECK(n > 1);
	if (n > 1) {
		struct stat st;
		CHECK(stat(paths[n - 1], &st) == 0);
		CHECK(truncate(paths[n - 1], st.st_size - 5) == 0);
	}
	raw_paths_free(paths);
	/* the 6th RAW_PROC_MEM record (64-byte header, 16 + 44 bytes each) gets
	 * a damaged payload byte */
	paths = NULL;
	n = raw_list_slices(data, RAW_SOURCE_HOST_MEM, &paths);
	CHECK(n == 1);
	if (n == 1)
		flip_byte(paths[0], RAW_HEADER_SIZE + 5 * (RAW_FRAME_SIZE + 44) + RAW_FRAME_SIZE + 20);
	raw_paths_free(paths);

	struct export_report rep;
	struct export_options opt = { .type = EXPORT_TEXT };
	int r = export_prof_dir(prof, &opt, &rep);
	CHECK(r == 0);
	CHECK(rep.bad_records == 1);
	CHECK(rep.torn_bytes == RAW_FRAME_SIZE + 12 - 5);
	CHECK(rep.records == n_records - 2);
	CHECK(rep.message[0]);
	_cleanup_free_ char *db = find_file(prof, "msprof_", ".db");
	CHECK(db);
	if (db)
		check_db(db, true);
	_cleanup_free_ char *out = outdir(prof);
	_cleanup_free_ char *json = find_file(out, "msprof_", ".json");
	CHECK(json);
}

static void test_db_only(const char *tmp)
{
	_cleanup_free_ char *prof = make_prof(tmp, "PROF_000003_20231114221320100_00004242ABCDEFGH", true, SAMPLE_ALL);
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	_cleanup_free_ char *db = find_file(prof, "msprof_", ".db");
	CHECK(db);
	CHECK(!exists(prof, "mindstudio_profiler_output"));
	CHECK_STR(rep.output_dir, "");
	CHECK(rep.files_written == 0);
	/* no temporary file is left behind */
	DIR *d = opendir(prof);
	struct dirent *de;
	while (d && (de = readdir(d)))
		CHECK(!startswith(de->d_name, ".msprof_"));
	if (d)
		closedir(d);
}

/* sample.json asked only --host-sys=cpu: only that summary is written. */
static void test_asked(const char *tmp)
{
	_cleanup_free_ char *prof = make_prof(tmp, "PROF_000004_20231114221320100_00004242ABCDEFGH", true,
					      "{\"host_sys\":\"cpu\",\"host_sys_freq\":10}");
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	_cleanup_free_ char *out = outdir(prof);
	static const char *const host_cpu[] = { "host,2,2,2" };
	check_csv(out, CSV_HOST_CPU_USAGE, host_cpu, 1);
	CHECK(rep.files_written == 2); /* the timeline and host_cpu_usage */
	check_readme(out, 2);
}

static void test_missing(const char *tmp)
{
	_cleanup_free_ char *empty = xpath_join(tmp, "PROF_000005_20231114221320100_00004242ABCDEFGH");
	CHECK(mkdir(empty, 0755) == 0);
	struct export_report rep;
	CHECK(export_prof_dir(empty, NULL, &rep) == -ENOENT);
	CHECK(strstr(rep.error, "host"));
	_cleanup_free_ char *host = xpath_join(empty, "host");
	CHECK(mkdir(host, 0755) == 0);
	CHECK(export_prof_dir(empty, NULL, &rep) == -ENOENT);
	CHECK(strstr(rep.error, "no raw data"));
}

/* Run sql on the database at path (NULL result). */
static void sql_run(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
	if (err)
		fprintf(stderr, "%s: %s\n", sql, err);
	sqlite3_free(err);
	sqlite3_close(db);
}

static double sql_num_at(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	double v = NAN;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		v = sql_num(db, sql);
	sqlite3_close(db);
	return v;
}

/* The host_cpu_usage CSV of out (a summary read from CPU_USAGE), or NULL. */
static char *cpu_csv(const char *out)
{
	_cleanup_free_ char *path = find_file(out, "host_cpu_usage_", ".csv");
	return path ? read_all(path) : NULL;
}

/* Rates over the time the counters span.  A thread 50 % busy all along,
 * its reads 60 ms late in every other sample: the intervals its counters
 * span are 40 and 160 ms, and each is 50 %, not 20 and 80 % of the
 * samples' 100 ms.  A one-thread process whose ticks come in lumps (12, 8,
 * 12, ... per 100 ms of 10 ticks) never reads above its one CPU (50 % of
 * the host's two): the tick beyond it is carried into the next interval. */
static void test_read_offsets(const char *tmp)
{
	_cleanup_free_ char *prof = make_prof_dirs(tmp, "PROF_000009_20231114221320100_00004242ABCDEFGH", true,
						   "{\"host_sys\":\"cpu\",\"host_sys_freq\":10,"
						   "\"host_sys_usage\":\"cpu\",\"host_sys_usage_freq\":10}");
	_cleanup_free_ char *data = xpath_join(prof, "host/data");
	struct raw_writer *w = writer(data, RAW_SOURCE_HOST_CPU, 0);
	struct raw_buf b = { 0 };
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		uint32_t off = k % 2 ? 0 : 60 * NSEC_PER_MSEC;
		sample_begin(&b, k);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, APP);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, NSEC_PER_SEC + (k * STEP + off) / 2); /* runtime: half of the time */
		raw_buf_u32(&b, 0);
		raw_buf_u32(&b, off);
		emit(w, RAW_THREAD_CPU, &b);
	}
	writer_close(w, &b);
	w = writer(data, RAW_SOURCE_USAGE_CPU, 0);
	proc_info(w, &b, APP, APP_NAME, true);
	for (unsigned k = 0; k < N; k++) {
		sample_begin(&b, k);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, APP);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 10 * k + (k % 2) * 2); /* 0, 12, 20, 32, ...: 12 and 8 a step */
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, 0);
		emit(w, RAW_PROC_CPU_THREADS, &b);
	}
	writer_close(w, &b);
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	_cleanup_free_ char *db = find_file(prof, "msprof_", ".db");
	CHECK(sql_num_at(db, "SELECT COUNT(*) FROM TARGET_THREAD_CPU_USAGE") == N - 1);
	CHECK(sql_num_at(db, "SELECT MIN(usage) FROM TARGET_THREAD_CPU_USAGE") > 49.999);
	CHECK(sql_num_at(db, "SELECT MAX(usage) FROM TARGET_THREAD_CPU_USAGE") < 50.001);
	CHECK(sql_num_at(db, "SELECT COUNT(*) FROM PROCESS_CPU_USAGE WHERE pid = 4242") == N - 1);
	CHECK(sql_num_at(db, "SELECT MIN(usage) FROM PROCESS_CPU_USAGE WHERE pid = 4242") > 49.999);
	CHECK(sql_num_at(db, "SELECT MAX(usage) FROM PROCESS_CPU_USAGE WHERE pid = 4242") < 50.001);
}

/* A database of another layout (user_version) is rebuilt from the raw
 * files, and its outputs are those of a fresh export; without raw files
 * it is kept and exported as it is. */
static void test_layout(const char *tmp)
{
	_cleanup_free_ char *prof = make_prof(tmp, "PROF_000006_20231114221320100_00004242ABCDEFGH", true, SAMPLE_ALL);
	_cleanup_free_ char *out = outdir(prof);
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_TEXT };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(!rep.reused);
	_cleanup_free_ char *db = find_file(prof, "msprof_", ".db");
	_cleanup_free_ char *fresh = cpu_csv(out);
	CHECK(db && fresh && strchr(fresh, '\n') != strrchr(fresh, '\n')); /* a header and rows */
	if (!db || !fresh)
		return;
	double layout = sql_num_at(db, "PRAGMA user_version");
	CHECK(layout != 0);
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(rep.reused); /* the current one is reused */

	/* an older layout: another user_version, a table and an index missing */
	char sql[256];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %.0f; DROP TABLE CPU_USAGE; DROP INDEX StringIdsValueIndex",
		 layout + 1);
	sql_run(db, sql);
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(!rep.reused);
	_cleanup_free_ char *db2 = find_file(prof, "msprof_", ".db");
	CHECK(db2);
	if (!db2)
		return;
	CHECK(sql_num_at(db2, "PRAGMA user_version") == layout);
	CHECK(sql_num_at(db2, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('CPU_USAGE', 'StringIdsValueIndex')") == 2);
	_cleanup_free_ char *rebuilt = cpu_csv(out);
	CHECK(rebuilt && streq(rebuilt, fresh));

	/* no raw data: the database is all there is */
	_cleanup_free_ char *data = xpath_join(prof, "host/data");
	char **paths = NULL;
	int n = raw_list_slices(data, RAW_SOURCE_HOST_CPU, &paths);
	for (int i = 0; i < n; i++)
		CHECK(unlink(paths[i]) == 0);
	raw_paths_free(paths);
	static const enum raw_source others[] = { RAW_SOURCE_HOST_MEM, RAW_SOURCE_HOST_DISK, RAW_SOURCE_HOST_NET,
						  RAW_SOURCE_USAGE_CPU, RAW_SOURCE_USAGE_MEM };
	for (size_t s = 0; s < ARRAY_SIZE(others); s++) {
		paths = NULL;
		n = raw_list_slices(data, others[s], &paths);
		for (int i = 0; i < n; i++)
			CHECK(unlink(paths[i]) == 0);
		raw_paths_free(paths);
	}
	snprintf(sql, sizeof sql, "PRAGMA user_version = %.0f", layout + 1);
	sql_run(db2, sql);
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(rep.reused);
	CHECK(strstr(rep.message, "no raw data to rebuild it from"));
	_cleanup_free_ char *db3 = find_file(prof, "msprof_", ".db");
	CHECK(db3 && streq(db3, db2));
	CHECK(sql_num_at(db2, "PRAGMA user_version") == layout + 1);
	_cleanup_free_ char *kept = cpu_csv(out);
	CHECK(kept && streq(kept, fresh));
	/* a parse has nothing to parse */
	opt.parse_only = true;
	CHECK(export_prof_dir(prof, &opt, &rep) == -ENOENT);
	CHECK(strstr(rep.error, "no raw data"));
}

/* The tables themselves: headers of reference §3. */
static void test_tables(void)
{
	const struct export_csv_table *t = export_csv_table_find("host_disk_usage");
	CHECK(t && export_csv_ncolumns(t) == 5);
	CHECK(t && streq(t->columns[0], "Device_id"));
	for (size_t i = 0; i < _CSV_MAX; i++) {
		CHECK(export_csv_tables[i].id == i);
		CHECK(streq(export_csv_tables[i].columns[0], "Device_id"));
	}
	CHECK(export_db_table_find("CPU_USAGE") && export_db_table_find("CPU_USAGE")->msprof);
	CHECK(export_db_table_find("PROCESS_INFO") && !export_db_table_find("PROCESS_INFO")->msprof);
}

static int rm_rf(const char *path)
{
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", path) < 0)
		return -1;
	int r = system(cmd);
	free(cmd);
	return r;
}

static int sum_row(sqlite3_stmt *st, void *ctx)
{
	int64_t v = sqlite3_column_int64(st, 0);
	*(int64_t *)ctx += v;
	return v == 3 ? 1 : v == 4 ? -EPIPE : 0;
}

static int bind_limit(sqlite3_stmt *st, void *ctx)
{
	sqlite3_bind_int64(st, 1, *(int64_t *)ctx);
	*(int64_t *)ctx = 0;
	return 0;
}

/* db_each: rows counted, a callback stops (>0) or fails (<0, passed
 * through), SQLite's failures mapped to -errno with their code. */
static void test_db_each(void)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(db_each(db, "CREATE TABLE t (v INTEGER)", NULL, NULL, NULL) == 0);
	CHECK(db_each(db, "INSERT INTO t VALUES (1), (2), (3), (4)", NULL, NULL, NULL) == 0);
	int64_t sum = 2;
	CHECK(db_each(db, "SELECT v FROM t WHERE v <= ? ORDER BY rowid", bind_limit, sum_row, &sum) == 2);
	CHECK(sum == 3);
	sum = 0;
	CHECK(db_each(db, "SELECT v FROM t WHERE v >= 3 ORDER BY rowid", NULL, sum_row, &sum) == 1);
	CHECK(sum == 3);
	sum = 0;
	CHECK(db_each(db, "SELECT v FROM t WHERE v = 4", NULL, sum_row, &sum) == -EPIPE);
	int64_t one = 0;
	CHECK(db_each(db, "SELECT count(*) FROM t", NULL, db_row_i64, &one) == 1 && one == 4);
	CHECK(db_each(db, "SELECT 1 FROM t WHERE v = ?", db_bind_text1, db_row_stop, "5") == 0);
	int rc = SQLITE_OK;
	CHECK(db_each_rc(db, "SELECT nothing FROM nowhere", NULL, db_row_stop, NULL, &rc) == -EIO && rc == SQLITE_ERROR);
	rc = SQLITE_OK;
	CHECK(db_each_rc(db, "INSERT INTO t VALUES (1)", NULL, NULL, NULL, &rc) == 0 && rc == SQLITE_OK);
	CHECK(db_errno(SQLITE_FULL) == -ENOSPC && db_errno(SQLITE_NOMEM) == -ENOMEM);
	sqlite3_close(db);
}

/* exp_batch: rows put in random runs, with repeated values (bound once
 * and kept), NULLs and doubles, drained at random points and read back by
 * rowid between (as the mstx parse updates a row written open): the
 * table holds every row, in order, with its value and type. */
struct brow { int64_t a, b; double d; };

static int check_brow(sqlite3_stmt *st, void *ctx)
{
	const struct brow *want = ctx;
	int64_t i = sqlite3_column_int64(st, 0) - 1;
	const struct brow *w = &want[i];
	CHECK(sqlite3_column_int64(st, 1) == w->a);
	if (w->b == EXP_NULL)
		CHECK(sqlite3_column_type(st, 2) == SQLITE_NULL);
	else
		CHECK(sqlite3_column_type(st, 2) == SQLITE_INTEGER && sqlite3_column_int64(st, 2) == w->b);
	CHECK(sqlite3_column_type(st, 3) == SQLITE_FLOAT && sqlite3_column_double(st, 3) == w->d);
	return 0;
}

static void test_batch(void)
{
	struct export_report rep = { 0 };
	struct exp e = { .rep = &rep };
	CHECK(sqlite3_open(":memory:", &e.db) == SQLITE_OK);
	CHECK(exp_exec(&e, "CREATE TABLE t (a INTEGER, b INTEGER, d REAL)") == 0);
	struct exp_batch b;
	CHECK(exp_batch_init(&e, &b, "t", "iix") == -EINVAL);
	CHECK(exp_batch_init(&e, &b, "a_table_whose_name_is_longer_than_the_room_for_it", "i") == -ENAMETOOLONG);
	CHECK(exp_batch_init(&e, &b, "t", "iid") == 0);
	enum { ROWS = 5000 };
	static struct brow want[ROWS];
	srand(7);
	size_t n = 0;
	while (n < ROWS) {
		/* a run of rows; the thread-like column repeats within it */
		size_t run = 1 + (size_t)rand() % 40;
		int64_t same = rand() % 3;
		for (size_t k = 0; k < run && n < ROWS; k++, n++) {
			want[n] = (struct brow){ .a = rand() % 4 ? same : (int64_t)n,
						 .b = rand() % 5 ? (int64_t)(rand() % 7) - 3 : EXP_NULL,
						 .d = rand() % 2 ? 0.5 : (double)n / 3.0 };
			const union exp_value v[] = { { .i = want[n].a }, { .i = want[n].b }, { .d = want[n].d } };
			CHECK(exp_batch_put(&b, v) == 0);
		}
		if (rand() % 4 == 0) {
			CHECK(exp_batch_drain(&b) == 0);
			int64_t rows = 0;
			CHECK(exp_each(&e, "SELECT count(*) FROM t", NULL, db_row_i64, &rows) == 1);
			CHECK(rows == (int64_t)n);
			/* the last row by its rowid, as the mstx parse reads a
			 * row written open */
			char sql[64];
			snprintf(sql, sizeof sql, "SELECT rowid, a, b, d FROM t WHERE rowid = %zu", n);
			CHECK(exp_each(&e, sql, NULL, check_brow, want) == 1);
		}
	}
	CHECK(exp_batch_drain(&b) == 0);
	exp_batch_release(&b);
	int64_t rows = 0;
	CHECK(exp_each(&e, "SELECT count(*) FROM t", NULL, db_row_i64, &rows) == 1 && rows == ROWS);
	CHECK(exp_each(&e, "SELECT rowid, a, b, d FROM t ORDER BY rowid", NULL, check_brow, want) == ROWS);
	CHECK(!rep.error[0]);
	sqlite3_close(e.db);
}

/* The data domains describe the whole export: every table of the schema
 * and every summary file has one domain (the fixed tables are stages.c's),
 * every domain's table is in the schema, and no agent record type has two
 * decoders. */
/* Numbers as the writers format them, against printf: every digit count,
 * its bounds, and a million random values. */
static void test_numbers(void)
{
	char got[32], want[32];
	uint64_t p = 1;
	for (int d = 0; d < 20; d++, p *= 10)
		for (int k = -1; k <= 1; k++) {
			uint64_t v = p + (uint64_t)k;
			size_t n = exp_fmt_u64(got, v);
			snprintf(want, sizeof want, "%" PRIu64, v);
			CHECK(n == strlen(want) && streq(got, want));
		}
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = x >> (x & 63);
		size_t n = exp_fmt_u64(got, v);
		snprintf(want, sizeof want, "%" PRIu64, v);
		CHECK(n == strlen(want) && streq(got, want));
		exp_format_ts((int64_t)(v >> 1), got);
		snprintf(want, sizeof want, "%" PRIu64 ".%03u", (v >> 1) / 1000, (unsigned)((v >> 1) % 1000));
		CHECK(streq(got, want));
	}
	CHECK(exp_fmt_u64(got, UINT64_MAX) == 20 && streq(got, "18446744073709551615"));
}

static void test_domains(void)
{
	static const char *const fixed[] = { "STRING_IDS", "META_DATA", "SESSION_TIME_INFO" };
	for (size_t t = 0; t < export_db_tables_n; t++) {
		const char *name = export_db_tables[t].name;
		unsigned owners = 0;
		for (size_t k = 0; k < ARRAY_SIZE(fixed); k++)
			owners += streq(fixed[k], name);
		for (size_t i = 0; i < exp_domains_n; i++)
			for (const char *const *n = exp_domains[i]->tables; n && *n; n++)
				owners += streq(*n, name);
		if (owners != 1)
			fprintf(stderr, "table %s: %u domains\n", name, owners);
		CHECK(owners == 1);
	}
	for (size_t i = 0; i < exp_domains_n; i++)
		for (const char *const *n = exp_domains[i]->tables; n && *n; n++)
			CHECK(export_db_table_find(*n) != NULL);
	for (size_t c = 0; c < _CSV_MAX; c++) {
		unsigned owners = 0;
		for (size_t i = 0; i < exp_domains_n; i++) {
			for (const enum export_csv *k = exp_domains[i]->csvs; k && *k != _CSV_MAX; k++)
				owners += *k == c;
			for (size_t k = 0; k < exp_domains[i]->n_host_summaries; k++)
				owners += exp_domains[i]->host_summaries[k].csv == c;
		}
		if (owners != 1)
			fprintf(stderr, "summary %s: %u domains\n", export_csv_tables[c].type, owners);
		CHECK(owners == 1);
	}
	unsigned decoders[EXP_AGENT_RECORD_TYPES] = { 0 };
	for (size_t i = 0; i < exp_domains_n; i++)
		for (const struct exp_agent_record *a = exp_domains[i]->agent_records; a && a->take; a++) {
			CHECK(a->type < EXP_AGENT_RECORD_TYPES);
			if (a->type < EXP_AGENT_RECORD_TYPES)
				CHECK(++decoders[a->type] == 1);
		}
}

/* A message is the application's bytes: in the CSVs and the JSON, what is
 * not UTF-8 becomes U+FFFD, so that readers decoding them as UTF-8 take
 * every file; quoting as RFC 4180 asks. */
static void test_text_fields(void)
{
	static const struct {
		const char *in, *csv, *json;
	} cases[] = {
		{ "plain", "plain", "plain" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "bad\xff\xfe end \xc3", "bad\xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd",
		  "bad\xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd" },
		{ "a,\"b\"\xe2\x82", "\"a,\"\"b\"\"\xef\xbf\xbd\xef\xbf\xbd\"", "a,\\\"b\\\"\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80 surrogate, \xc0\xaf overlong", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate, \xef\xbf\xbd\xef\xbf\xbd overlong\"",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate, \xef\xbf\xbd\xef\xbf\xbd overlong" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct exp_buf b = { 0 };
		exp_buf_csv_field(&b, cases[i].in, strlen(cases[i].in));
		CHECK(b.len == strlen(cases[i].csv) && memcmp(b.p, cases[i].csv, b.len) == 0);
		b.len = 0;
		exp_buf_json_str(&b, cases[i].in, strlen(cases[i].in));
		CHECK(b.len == strlen(cases[i].json) && memcmp(b.p, cases[i].json, b.len) == 0);
		exp_buf_release(&b);
		/* the FILE writer as the buffer one */
		char *out = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&out, &n);
		exp_csv_field(f, cases[i].in, strlen(cases[i].in));
		fclose(f);
		CHECK(n == strlen(cases[i].csv) && memcmp(out, cases[i].csv, n) == 0);
		free(out);
	}
}

int main(void)
{
	if (sysconf(_SC_CLK_TCK) != 100 || sysconf(_SC_PAGESIZE) != 4096) {
		printf("SKIP: expected numbers assume CLK_TCK 100 and 4 KiB pages\n");
		return 77;
	}
	char tmp[] = "/tmp/test-export.XXXXXX";
	if (!mkdtemp(tmp))
		return 2;
	test_text_fields();
	test_tables();
	test_domains();
	test_db_each();
	test_batch();
	test_numbers();
	test_text(tmp);
	test_damage(tmp);
	test_db_only(tmp);
	test_asked(tmp);
	test_read_offsets(tmp);
	test_missing(tmp);
	test_layout(tmp);
	if (failures) {
		fprintf(stderr, "%d check(s) failed; work dir kept: %s\n", failures, tmp);
		return 1;
	}
	rm_rf(tmp);
	printf("ok\n");
	return 0;
}
