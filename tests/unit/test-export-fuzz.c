/* The export fed well-framed nonsense for a bounded time: agent files whose
 * records have valid checksums but random fields (timestamps anywhere from
 * 0 to 2^64-1, before 1970 and past 2262 once converted, lengths and counts
 * that do not fit, unknown types), beside random host records.  Every
 * export must finish, with a message when it fails; the sanitized build
 * (ASan, UBSan with halt_on_error) runs it too, where undefined behaviour
 * on such values stops it.  MSPROF_FUZZ_SECONDS sets the time (default 4). */
#include <sys/stat.h>
#include <time.h>

#include "export/export.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

static char tmp[] = "/tmp/test-export-fuzz.XXXXXX";

/* A timestamp: mostly near the session, sometimes at the edges of u64. */
static uint64_t any_ts(uint64_t mono0)
{
	switch (rnd() % 8) {
	case 0: return 0;
	case 1: return UINT64_MAX - rnd() % 1000;
	case 2: return (uint64_t)INT64_MAX + rnd() % 3 - 1;
	case 3: return rnd();
	case 4: return mono0 - rnd() % 1000000;
	default: return mono0 + rnd() % 1000000000;
	}
}

static uint32_t any_u32(void)
{
	switch (rnd() % 4) {
	case 0: return (uint32_t)rnd();
	case 1: return UINT32_MAX - (uint32_t)(rnd() % 3);
	default: return (uint32_t)(rnd() % 8);
	}
}

static void any_str(struct raw_buf *b)
{
	unsigned n = rnd() % 6 == 0 ? (unsigned)any_u32() : (unsigned)(rnd() % 12);
	raw_buf_u32(b, n);
	static const char chars[] = "step 1 ab\n\"\xff\x01";
	for (unsigned i = 0; i < n && i < 64; i++)
		raw_buf_bytes(b, &chars[rnd() % (sizeof chars - 1)], 1);
}

/* One agent record: a known type with random fields in its layout, or
 * random bytes under a known or unknown type. */
static void agent_record(struct raw_writer *w, struct raw_buf *b, uint64_t mono0)
{
	static const uint16_t types[] = {
		RAW_AGENT_THREAD, RAW_AGENT_DOMAIN, RAW_AGENT_CATEGORY, RAW_AGENT_MARK, RAW_AGENT_RANGE_START,
		RAW_AGENT_RANGE_END, RAW_AGENT_COUNTERS, RAW_AGENT_OSRT, RAW_AGENT_COMM_OP, RAW_AGENT_GPU_TASK,
		RAW_AGENT_GPU_API, RAW_AGENT_GPU_SYNC, RAW_AGENT_PROCESS, 999,
	};
	uint16_t type = types[rnd() % ARRAY_SIZE(types)];
	raw_buf_reset(b);
	raw_buf_u64(b, any_ts(mono0));
	unsigned fields = 2 + rnd() % 14;
	for (unsigned i = 0; i < fields; i++) {
		switch (rnd() % 5) {
		case 0: raw_buf_u64(b, any_ts(mono0)); break;
		case 1: any_str(b); break;
		case 2: raw_buf_u64(b, rnd() % 4); break;
		default: raw_buf_u32(b, any_u32()); break;
		}
	}
	if (rnd() % 10 == 0)
		b->len = rnd() % (b->len + 1);
	CHECK(b->err == 0);
	(void)raw_writer_append(w, type, b->data, (uint32_t)b->len);
}

/* Host records of random bytes, each type of the host sources. */
static void host_file(const char *data, enum raw_source src, uint64_t mono0, uint64_t real0, struct raw_buf *b)
{
	struct raw_writer *w;
	CHECK(raw_writer_open(data, src, mono0, real0, 0, &w) == 0);
	unsigned n = rnd() % 20;
	for (unsigned i = 0; i < n; i++) {
		raw_buf_reset(b);
		raw_buf_u64(b, any_ts(mono0));
		unsigned words = rnd() % 40;
		if (rnd() % 2)
			raw_buf_u32(b, (uint32_t)(rnd() % 3));  /* a small entry count */
		for (unsigned k = 0; k < words; k++)
			raw_buf_u64(b, rnd() % 3 ? rnd() % 100000 : rnd());
		(void)raw_writer_append(w, (uint16_t)(1 + rnd() % 12), b->data, (uint32_t)b->len);
	}
	raw_writer_free(w);
}

int main(void)
{
	CHECK(mkdtemp(tmp));
	const char *env = getenv("MSPROF_FUZZ_SECONDS");
	double seconds = env && *env ? atof(env) : 4;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned runs = 0, failed = 0;
	struct raw_buf b = { 0 };
	do {
		char prof[PATH_MAX];
		snprintf(prof, sizeof prof, "%s/PROF_%06u_20231114221320100_00004242ABCDEFGH", tmp, runs);
		uint64_t mono0 = rnd() % 4 ? 1000000000000ULL : any_ts(1000000000000ULL);
		uint64_t real0 = rnd() % 4 ? 1700000000000000000ULL : rnd();
		char *host;
		struct raw_writer *w = agent_prof_open(prof, 100000, mono0, real0, &b, &host);
		unsigned n = rnd() % 200;
		for (unsigned i = 0; i < n; i++)
			agent_record(w, &b, mono0);
		raw_writer_free(w);
		char data[PATH_MAX + 8];
		snprintf(data, sizeof data, "%s/data", host);
		if (rnd() % 2)
			host_file(data, RAW_SOURCE_HOST_CPU, mono0, real0, &b);
		if (rnd() % 2)
			host_file(data, RAW_SOURCE_USAGE_MEM, mono0, real0, &b);
		struct export_report rep;
		int r = export_prof_dir(prof, NULL, &rep);
		if (r < 0) {
			/* a failure says why */
			CHECK(export_report_error(&rep, r)[0]);
			if (getenv("MSPROF_FUZZ_VERBOSE"))
				fprintf(stderr, "export failed: %s\n", export_report_error(&rep, r));
			failed++;
		}
		rm_rf(prof);
		free(host);
		runs++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	raw_buf_release(&b);
	printf("%u exports of random records in %.0f s, %u failed with a message\n", runs, seconds, failed);
	rm_rf(tmp);
	printf("ok\n");
	return 0;
}
