/* The PROF dir split of a distributed job (collectors/profdir-ranks.c) on
 * generated jobs of many processes: 4 ranks under a launcher, every other
 * process a worker of one of them, one RAW_PROC_INFO each in host_cpu.data.
 * Baseline, in the same run: reading those records back with the raw reader
 * (what the split must do at least).  Prints the times and their ratio for
 * 10k, 100k and 1M processes (BENCH_SPLIT_MAX caps the largest). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/util.h"

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* parent/PROF_x with host/info.json and n processes' records; 0 or -errno */
static int make_job(const char *prof, unsigned n)
{
	char data[2048], info[2048];
	snprintf(data, sizeof data, "%s/host/data", prof);
	snprintf(info, sizeof info, "%s/host", prof);
	if (mkdir(prof, 0750) < 0 || mkdir(info, 0750) < 0 || mkdir(data, 0750) < 0)
		return -errno;
	int r = profdir_write_text(info, "info.json", "{\"pid\":\"999\",\"rank_id\":-1,\"hostUid\":\"bench\"}");
	struct raw_writer *w;
	if (r < 0 || (r = raw_writer_open(data, RAW_SOURCE_HOST_CPU, 1, 1700000000000000000ULL, 1ULL << 40, &w)) < 0)
		return r;
	struct raw_buf b = { 0 };
	for (unsigned i = 0; r >= 0 && i <= n; i++) {
		uint32_t pid = 1000 + i, ppid = 1000 + (i % 4) + 1;
		int32_t rank = -1;
		if (i == 0) {
			pid = 999;
			ppid = 1;
		} else if (i <= 4) {
			ppid = 999;
			rank = (int32_t)i - 1;
		}
		raw_buf_reset(&b);
		raw_buf_u64(&b, 10 + i);
		raw_buf_u32(&b, pid);
		raw_buf_u32(&b, ppid);
		raw_buf_u64(&b, 5);
		raw_buf_str(&b, "worker", 16);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, (uint32_t)rank);
		raw_buf_u32(&b, (uint32_t)-1);
		r = raw_writer_append(w, RAW_PROC_INFO, b.data, (uint32_t)b.len);
	}
	raw_buf_release(&b);
	raw_writer_free(w);
	return r < 0 ? r : 0;
}

static double read_back(const char *prof, uint64_t *ret_records)
{
	char data[2048];
	snprintf(data, sizeof data, "%s/host/data", prof);
	char **paths = NULL;
	double t0 = now_s();
	int n = raw_list_slices(data, RAW_SOURCE_HOST_CPU, &paths);
	uint64_t k = 0;
	for (int i = 0; i < n; i++) {
		struct raw_reader *rd;
		if (raw_reader_open(paths[i], &rd) < 0)
			continue;
		struct raw_record rec;
		while (raw_reader_next(rd, &rec) > 0)
			k++;
		raw_reader_free(rd);
	}
	raw_paths_free(paths);
	*ret_records = k;
	return now_s() - t0;
}

int main(void)
{
	const char *cap = getenv("BENCH_SPLIT_MAX");
	unsigned max = cap && *cap ? (unsigned)strtoul(cap, NULL, 10) : 1000000;
	char tmpl[] = "/tmp/msprof-bench-split.XXXXXX";
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	printf("%9s %8s %10s %10s %7s\n", "processes", "ranks", "read_s", "split_s", "ratio");
	int rc = 0;
	for (unsigned n = 10000; n <= max; n *= 10) {
		char prof[1024];
		snprintf(prof, sizeof prof, "%s/PROF_%u", tmpl, n);
		int r = make_job(prof, n);
		if (r < 0) {
			fprintf(stderr, "cannot make a job of %u processes: %s\n", n, strerror(-r));
			rc = 1;
			break;
		}
		uint64_t records;
		double read_s = read_back(prof, &records);
		struct profdir_rank *v = NULL;
		size_t nv = 0;
		double t0 = now_s();
		r = profdir_split_ranks(prof, NULL, 0, &v, &nv);
		double split_s = now_s() - t0;
		profdir_ranks_free(v, nv);
		if (r != 4 || records != n + 1) {
			fprintf(stderr, "split of %u processes: %d ranks (want 4), %llu records read\n", n, r,
				(unsigned long long)records);
			rc = 1;
		}
		printf("%9u %8d %10.3f %10.3f %7.1f\n", n, r, read_s, split_s, read_s > 0 ? split_s / read_s : 0);
		fflush(stdout);
	}
	(void)nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
