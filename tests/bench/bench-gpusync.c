/* What CUDA synchronisation records cost the export: an agent file of N
 * kernel launches (runtime call + kernel) is exported alone (the baseline)
 * and with N synchronising calls more (runtime call + synchronisation
 * record, which the export joins to its call for GPU_SYNC and the
 * timeline's Sync@ slices).  Prints both times, the time per record of
 * each, and their ratio; never fails on time.  N: argv[1], default 200000. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "export/export.h"
#include "collectors/gputask.h"
#include "collectors/raw.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define PID 5000U

static struct raw_buf b;

static int emit(struct raw_writer *w, uint16_t type)
{
	return b.err ? b.err : raw_writer_append(w, type, b.data, (uint32_t)b.len);
}

static int put(const char *dir, const char *name, const char *text)
{
	char path[8400];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	int r = fputs(text, f) < 0 ? -EIO : 0;
	return fclose(f) == 0 ? r : -EIO;
}

/* A PROF dir under tmp holding n launches and, with syncs, n waits. */
static int make_prof(const char *tmp, const char *name, unsigned n, bool syncs, char *prof, size_t size)
{
	char host[4200], data[4300];
	snprintf(prof, size, "%s/%s", tmp, name);
	snprintf(host, sizeof host, "%s/host", prof);
	snprintf(data, sizeof data, "%s/data", host);
	if (mkdir(prof, 0755) < 0 || mkdir(host, 0755) < 0 || mkdir(data, 0755) < 0)
		return -errno;
	int r = put(host, "info.json", "{\"hostname\":\"h\",\"hostUid\":\"u\",\"pid\":\"5000\",\"cpuNums\":2,"
					"\"memoryTotal\":1000}");
	if (r < 0)
		return r;
	char stem[RAW_STEM_MAX];
	raw_agent_stem(PID, stem);
	struct raw_writer *w;
	if ((r = raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, MONO0, REAL0, 0, &w)) < 0)
		return r;
	static struct gpu_task t;
	static struct gpu_api a;
	uint32_t corr = 1;
	for (unsigned i = 0; i < n && r == 0; i++) {
		uint64_t t0 = MONO0 + (uint64_t)i * 10000;
		a = (struct gpu_api){ .start = t0, .end = t0 + 1000, .tid = PID + i % 4, .correlation = corr, .cbid = 211 };
		snprintf(a.name, sizeof a.name, "cudaLaunchKernel");
		r = gpu_encode_api(&b, &a);
		if (r == 0)
			r = emit(w, RAW_AGENT_GPU_API);
		t = (struct gpu_task){ .kind = GPU_TASK_KERNEL, .start = t0 + 2000, .end = t0 + 4000, .stream = 7,
				       .correlation = corr++, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
		snprintf(t.name, sizeof t.name, "_Z6kernelv");
		if (r == 0)
			r = gpu_encode_task(&b, &t);
		if (r == 0)
			r = emit(w, RAW_AGENT_GPU_TASK);
		if (!syncs || r < 0)
			continue;
		a = (struct gpu_api){ .start = t0 + 5000, .end = t0 + 9000, .tid = PID + i % 4, .correlation = corr,
				      .cbid = 131 };
		snprintf(a.name, sizeof a.name, "cudaStreamSynchronize");
		r = gpu_encode_api(&b, &a);
		if (r == 0)
			r = emit(w, RAW_AGENT_GPU_API);
		struct gpu_sync y = { .start = t0 + 5100, .end = t0 + 8900, .type = GPU_SYNC_STREAM, .context = 1,
				      .stream = 7, .event = GPU_SYNC_NONE, .correlation = corr++ };
		if (r == 0)
			r = gpu_encode_sync(&b, &y);
		if (r == 0)
			r = emit(w, RAW_AGENT_GPU_SYNC);
	}
	raw_writer_free(w);
	return r;
}

static double export_s(const char *prof)
{
	struct timespec a, z;
	struct export_report rep;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int r = export_prof_dir(prof, NULL, &rep);
	clock_gettime(CLOCK_MONOTONIC, &z);
	if (r < 0) {
		fprintf(stderr, "bench-gpusync: export of '%s' failed: %s\n", prof, strerror(-r));
		exit(1);
	}
	return (double)(z.tv_sec - a.tv_sec) + (double)(z.tv_nsec - a.tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200000;
	char tmp[] = "/tmp/bench-gpusync.XXXXXX", base[128], with[128];
	if (!mkdtemp(tmp) || make_prof(tmp, "PROF_000001_20231114221320000_00005000ABCDEFGH", n, false, base,
				       sizeof base) < 0 ||
	    make_prof(tmp, "PROF_000002_20231114221320000_00005000ABCDEFGH", n, true, with, sizeof with) < 0) {
		fprintf(stderr, "bench-gpusync: cannot write the PROF dirs under '%s'\n", tmp);
		return 1;
	}
	double t0 = export_s(base), t1 = export_s(with);
	printf("launches only:            %u launches, %u records, export %.3f s (%.2f us/record)\n", n, 2 * n, t0,
	       t0 * 1e6 / (2.0 * n));
	printf("launches + stream syncs:  %u launches + %u syncs, %u records, export %.3f s (%.2f us/record)\n", n, n,
	       4 * n, t1, t1 * 1e6 / (4.0 * n));
	printf("ratio with/without syncs: %.2f (records: 2.00); sync records cost %.2f us each\n", t1 / t0,
	       (t1 - t0) * 1e6 / (2.0 * n));
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : 1;
}
