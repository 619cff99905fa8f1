/* NCCL's profiler plugin through the export: an agent file written with the
 * real raw writer holds RAW_AGENT_COMM_OP records (as collectors/agent/nccl.c
 * encodes them), NCCL kernels and the runtime calls that launched them.
 * A kernel launched inside a plugin operation's host span, same process and
 * type, is that operation (the plugin's facts, the kernel's times and task);
 * the other kernels and operations stay apart; of a group's operations that
 * share one launch the earliest takes the kernel.  COMMUNICATION_OP, its
 * SOURCE, NCCL_PROFILER_OP and COMMUNICATION_TASK_INFO must say so, with
 * names numbered per group and type in start order; a malformed record is
 * counted, not taken. */
#include <inttypes.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "export/export.h"
#include "collectors/gputask.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define US NSEC_PER_USEC
#define TID 5000U

static char tmp[] = "/tmp/test-export-ncclplugin.XXXXXX";
static struct raw_writer *w;
static struct raw_buf b;

static void emit(uint16_t type)
{
	CHECK(b.err == 0 && raw_writer_append(w, type, b.data, (uint32_t)b.len) == 0);
}

/* The scenario: plugin operations and kernels, times in µs after MONO0. */
struct pop {
	const char *func, *dtype, *algo, *proto;
	uint64_t s, e, count;
	int kernel;          /* the kernel it must take (index into kernels), -1 none */
};
struct kern {
	const char *name, *type; /* the kernel, and msprof's type of it */
	uint64_t launch, s, e;
};
static const struct kern kernels[] = {
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "hcom_allReduce_", 1050, 2000, 2500 },
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "hcom_allReduce_", 4000, 4100, 4300 },   /* no plugin op */
	{ "ncclDevKernel_AllGather_RING_LL", "hcom_allGather_", 5050, 5200, 5400 },          /* type differs */
	{ "ncclDevKernel_AllReduce_Sum_bf16_TREE_LL128", "hcom_allReduce_", 6100, 6500, 6900 }, /* a group's */
};
static const struct pop pops[] = {
	{ "AllReduce", "ncclFloat32", "RING", "LL", 1000, 1100, 1024, 0 },
	{ "AllGather", "ncclInt8", "RING", "SIMPLE", 3000, 3100, 64, -1 },
	{ "AllReduce", "ncclFloat32", "RING", "LL", 5000, 5100, 8, -1 },
	{ "AllReduce", "ncclBfloat16", "TREE", "LL128", 6000, 6200, 100, 3 },
	{ "AllReduce", "ncclBfloat16", "TREE", "LL128", 6010, 6190, 200, -1 },
};

static void comm_op(const struct pop *p, uint64_t seq)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + p->s * US);
	raw_buf_u32(&b, TID), raw_buf_u32(&b, 1), raw_buf_u64(&b, MONO0 + p->e * US);
	raw_buf_u64(&b, 0xfeedULL), raw_buf_u32(&b, 1), raw_buf_u32(&b, 4);
	raw_buf_u64(&b, p->count), raw_buf_u64(&b, 0), raw_buf_u32(&b, 0), raw_buf_u32(&b, 2);
	raw_buf_u64(&b, seq), raw_buf_u32(&b, 6), raw_buf_u32(&b, 0);
	raw_buf_lstr(&b, p->func, RAW_AGENT_MAX_STR + 1), raw_buf_lstr(&b, p->dtype, RAW_AGENT_MAX_STR + 1);
	raw_buf_lstr(&b, p->algo, RAW_AGENT_MAX_STR + 1), raw_buf_lstr(&b, p->proto, RAW_AGENT_MAX_STR + 1);
	raw_buf_lstr(&b, "world", RAW_AGENT_MAX_STR + 1);
	emit(RAW_AGENT_COMM_OP);
}

/* One row of the expected COMMUNICATION_OP, before ordering and numbering. */
struct want {
	uint64_t s, e;
	const char *type, *group, *source;
	long long count, task;   /* -1: NULL */
};

static int want_cmp(const void *x, const void *y)
{
	const struct want *a = x, *c = y;
	return (a->s > c->s) - (a->s < c->s);
}

static const char *dtype_enum(const char *nccl)
{
	return streq(nccl, "ncclFloat32") ? "FP32" : streq(nccl, "ncclInt8") ? "INT8" : "BFP16";
}

int main(void)
{
	CHECK(mkdtemp(tmp));
	char *prof, *host;
	CHECK(asprintf(&prof, "%s/PROF_000001_20231114221320000_00005000ABCDEFGH", tmp) > 0);
	w = agent_prof_open(prof, 20000, MONO0, REAL0, &b, &host);
	free(host);
	for (size_t i = 0; i < ARRAY_SIZE(kernels); i++) {
		struct gpu_api a = { .start = MONO0 + kernels[i].launch * US, .end = MONO0 + (kernels[i].launch + 5) * US,
				     .tid = TID, .correlation = (uint32_t)i + 1, .cbid = 211 };
		snprintf(a.name, sizeof a.name, "cudaLaunchKernel");
		CHECK(gpu_encode_api(&b, &a) == 0);
		emit(RAW_AGENT_GPU_API);
		struct gpu_task t = { .kind = GPU_TASK_KERNEL, .start = MONO0 + kernels[i].s * US,
				      .end = MONO0 + kernels[i].e * US, .stream = 7, .context = 1,
				      .correlation = (uint32_t)i + 1, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
		snprintf(t.name, sizeof t.name, "%s", kernels[i].name);
		CHECK(gpu_encode_task(&b, &t) == 0);
		emit(RAW_AGENT_GPU_TASK);
	}
	for (size_t i = 0; i < ARRAY_SIZE(pops); i++)
		comm_op(&pops[i], i);
	/* malformed: a kind that is neither collective nor P2P */
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + 100 * US), raw_buf_u32(&b, TID), raw_buf_u32(&b, 9);
	raw_buf_u64(&b, MONO0 + 200 * US);
	emit(RAW_AGENT_COMM_OP);
	raw_writer_free(w);
	raw_buf_release(&b);

	/* ground truth from the scenario: each plugin op (the kernel's times
	 * when it takes one), each kernel no op took */
	struct want want[ARRAY_SIZE(pops) + ARRAY_SIZE(kernels)];
	size_t n = 0;
	bool taken[ARRAY_SIZE(kernels)] = { false };
	for (size_t i = 0; i < ARRAY_SIZE(pops); i++) {
		const struct pop *p = &pops[i];
		const char *type = streq(p->func, "AllReduce") ? "hcom_allReduce_" : "hcom_allGather_";
		if (p->kernel >= 0) {
			const struct kern *k = &kernels[p->kernel];
			taken[p->kernel] = true;
			want[n++] = (struct want){ k->s, k->e, type, "world", "plugin", (long long)p->count,
						   p->kernel + 1 };
		} else {
			want[n++] = (struct want){ p->s, p->e, type, "world", "plugin", (long long)p->count, -1 };
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(kernels); i++)
		if (!taken[i])
			want[n++] = (struct want){ kernels[i].s, kernels[i].e, kernels[i].type, "nccl_world_group", "nccl",
						   -1, (long long)i + 1 };
	qsort(want, n, sizeof *want, want_cmp);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	for (size_t i = 0; i < n; i++) {
		unsigned num = 0;
		for (size_t j = 0; j < i; j++)
			num += streq(want[j].type, want[i].type) && streq(want[j].group, want[i].group);
		fprintf(m, "%s_%u_0_1|%" PRIu64 "|%" PRIu64 "|%s|%s|", want[i].type, num, (uint64_t)(REAL0 + want[i].s * US),
			(uint64_t)(REAL0 + want[i].e * US), want[i].group, want[i].source);
		want[i].count < 0 ? fputs("NULL|", m) : fprintf(m, "%lld|", want[i].count);
		want[i].task < 0 ? fputs("NULL\n", m) : fprintf(m, "%lld\n", want[i].task);
	}
	fclose(m);

	struct export_report rep;
	sqlite3 *db;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(rep.bad_records == 1);
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	check_text("COMMUNICATION_OP",
		   rows(db, "SELECT n.value, o.startNs, o.endNs, g.value, x.source, o.count, x.globalTaskId "
			    "FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName JOIN STRING_IDS g ON "
			    "g.id = o.groupName JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId ORDER BY o.startNs"),
		   text);
	/* the plugin's facts on its operations: data type, algorithm, rank count */
	free(text);
	m = open_memstream(&text, &len);
	uint64_t last = 0;
	for (size_t k = 0; k < ARRAY_SIZE(pops); k++) { /* by count, which differs between them */
		const struct pop *p = NULL;
		for (size_t i = 0; i < ARRAY_SIZE(pops); i++)
			if (pops[i].count > last && (!p || pops[i].count < p->count))
				p = &pops[i];
		fprintf(m, "%" PRIu64 "|%s|%s-%s|4\n", p->count, dtype_enum(p->dtype), p->algo, p->proto);
		last = p->count;
	}
	fclose(m);
	check_text("plugin operations' facts",
		   rows(db, "SELECT o.count, d.name, a.value, o.rankSize FROM COMMUNICATION_OP o JOIN "
			    "COMMUNICATION_OP_SOURCE x ON x.opId = o.opId JOIN ENUM_HCCL_DATA_TYPE d ON d.id = o.dataType "
			    "JOIN STRING_IDS a ON a.id = o.algType WHERE x.source = 'plugin' ORDER BY o.count"),
		   text);
	/* NCCL_PROFILER_OP keeps every record as reported (host times) */
	free(text);
	m = open_memstream(&text, &len);
	for (size_t i = 0; i < ARRAY_SIZE(pops); i++)
		fprintf(m, "%" PRIu64 "|%" PRIu64 "|%s|%s|%" PRIu64 "|000000000000feed|world|1|4|6\n",
			(uint64_t)(REAL0 + pops[i].s * US), (uint64_t)(REAL0 + pops[i].e * US), pops[i].func, pops[i].dtype, pops[i].count);
	fclose(m);
	check_text("NCCL_PROFILER_OP",
		   rows(db, "SELECT p.startNs, p.endNs, f.value, d.value, p.count, p.commHash, n.value, p.rank, "
			    "p.nRanks, p.version FROM NCCL_PROFILER_OP p JOIN STRING_IDS f ON f.id = p.func JOIN "
			    "STRING_IDS d ON d.id = p.dataType JOIN STRING_IDS n ON n.id = p.commName ORDER BY p.seq"),
		   text);
	/* every kernel is a communication task, of its operation */
	check_text("COMMUNICATION_TASK_INFO",
		   rows(db, "SELECT count(*), count(DISTINCT c.opId), sum(c.globalTaskId = x.globalTaskId) FROM "
			    "COMMUNICATION_TASK_INFO c JOIN COMMUNICATION_OP_SOURCE x ON x.opId = c.opId"),
		   "4|4|4\n");
	sqlite3_close(db);
	free(text);
	rm_rf(tmp);
	free(prof);
	return 0;
}
