/* gen-raw: write a PROF dir of synthetic agent data with the real raw
 * writer, for the export tests and benchmarks that need sizes no workload
 * produces quickly.
 *
 *   gen-raw DIR EVENTS [STEPS] [SLICE_MB]
 *
 * DIR/host/{info.json,sample.json,start_info,end_info} and
 * DIR/host/data/agent_<GEN_PID>.data.slice_<n>: one process, one thread,
 * EVENTS mstx events in all.  STEPS push/pop ranges "step 1".."step STEPS"
 * (default 1) each hold an equal share of the remaining events as marks
 * "op_<i % 100>" one microsecond apart (the last step takes the
 * remainder), so step s holds exactly gen_marks_in(s) + 1 events.  Prints
 * one line per step: "step <s> <events> <startNs> <endNs>" (Unix ns), the
 * ground truth the tests compare the export with.
 *
 * Device tasks (the benchmark's 1M TASK rows) go here once the GPU
 * collector's raw task records exist: written into the same steps, from
 * a device source's writer next to this agent file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "raw.h"

#define GEN_PID 4242U
#define GEN_TID 4242U
#define MONO0 UINT64_C(1000000000000)
#define REAL0 UINT64_C(1700000000000000000)
#define US UINT64_C(1000)

static struct raw_writer *w;
static struct raw_buf b;

static void die(const char *what, int r)
{
	fprintf(stderr, "gen-raw: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static void emit(uint16_t type)
{
	if (b.err)
		die("encoding", b.err);
	int r = raw_writer_append(w, type, b.data, (uint32_t)b.len);
	if (r < 0)
		die("writing", r);
}

static void head(uint64_t us)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us * US);
}

static void str(const char *s)
{
	raw_buf_u32(&b, (uint32_t)strlen(s));
	raw_buf_bytes(&b, s, strlen(s));
}

static void text_file(const char *dir, const char *name, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "we");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(p, errno);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen-raw DIR EVENTS [STEPS] [SLICE_MB]\n");
		return 2;
	}
	const char *dir = argv[1];
	uint64_t events = strtoull(argv[2], NULL, 10);
	uint64_t steps = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
	uint64_t slice_mb = argc > 4 ? strtoull(argv[4], NULL, 10) : 64;
	if (steps == 0 || events < steps) {
		fprintf(stderr, "gen-raw: EVENTS must be at least STEPS (>= 1)\n");
		return 2;
	}
	char host[4096], data[4096];
	snprintf(host, sizeof host, "%s/host", dir);
	snprintf(data, sizeof data, "%s/host/data", dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || mkdir(host, 0755) < 0 || mkdir(data, 0755) < 0)
		die(dir, errno);
	text_file(host, "info.json", "{\"hostname\":\"genhost\",\"hostUid\":\"0\",\"pid\":\"4242\","
		  "\"pid_name\":\"gen\",\"rank_id\":-1,\"cpuNums\":2,\"memoryTotal\":1000000}");
	text_file(host, "sample.json", "{\"msproftx\":\"on\"}");
	text_file(host, "start_info", "{\"collectionTimeBegin\":\"1700000000000000\"}");

	char stem[RAW_STEM_MAX];
	raw_agent_stem(GEN_PID, stem);
	int r = raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, MONO0, REAL0, slice_mb << 20, &w);
	if (r < 0)
		die("opening the raw writer", r);
	if ((r = raw_writer_set_buffer(w, 1 << 20)) < 0)
		die("buffer", r);

	head(0);
	raw_buf_u32(&b, GEN_PID);
	raw_buf_u32(&b, 1);
	raw_buf_u32(&b, (uint32_t)-1);
	raw_buf_u32(&b, RAW_AGENT_WINDOW_START);
	str("gen");
	str("gen-raw");
	emit(RAW_AGENT_PROCESS);
	head(0);
	raw_buf_u32(&b, GEN_TID);
	str("gen");
	emit(RAW_AGENT_THREAD);

	uint64_t marks = events - steps, per = marks / steps, t = 1, i = 0;
	for (uint64_t s = 1; s <= steps; s++) {
		uint64_t k = s == steps ? marks - per * (steps - 1) : per, t0 = t;
		char msg[64];
		snprintf(msg, sizeof msg, "step %" PRIu64, s);
		head(t);
		raw_buf_u32(&b, GEN_TID);
		raw_buf_u32(&b, 1);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0);
		raw_buf_u32(&b, 0);
		str(msg);
		emit(RAW_AGENT_RANGE_START);
		for (uint64_t j = 0; j < k; j++, i++) {
			snprintf(msg, sizeof msg, "op_%" PRIu64, i % 100);
			head(++t);
			raw_buf_u32(&b, GEN_TID);
			raw_buf_u32(&b, 0);
			raw_buf_u64(&b, 0);
			raw_buf_u64(&b, 0);
			raw_buf_u32(&b, 0);
			raw_buf_u32(&b, 0);
			str(msg);
			emit(RAW_AGENT_MARK);
		}
		head(++t);
		raw_buf_u32(&b, GEN_TID);
		raw_buf_u32(&b, 1);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		emit(RAW_AGENT_RANGE_END);
		printf("step %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s, k + 1, REAL0 + t0 * US,
		       REAL0 + t * US);
		t++;
	}
	head(t);
	raw_buf_u64(&b, events);
	raw_buf_u64(&b, 0);
	raw_buf_u64(&b, 0);
	raw_buf_u64(&b, 0);
	emit(RAW_AGENT_COUNTERS);
	w = raw_writer_free(w);
	raw_buf_release(&b);

	char end[128];
	snprintf(end, sizeof end, "{\"collectionTimeEnd\":\"%" PRIu64 "\"}", (REAL0 + (t + 1) * US) / 1000);
	text_file(host, "end_info", end);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return 0;
}
