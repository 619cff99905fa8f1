/* The communication domain: NCCL kernel names and torch_npu's mstx messages
 * parsed (every spelling the sources use, and broken ones that must not
 * crash), then an agent file written with the real raw writer holding NCCL
 * kernels among other kernels and mstx ranges of the domain
 * "communication": the export must give one COMMUNICATION_OP row per
 * operation with the kernel's or the range's times, COMMUNICATION_TASK_INFO
 * for the kernels, communication_statistic, the Communication layer, and
 * analyze's communication.json, communication_matrix.json and
 * communication_analyzer.db. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "export/domain-comm.h"
#include "export/export.h"
#include "collectors/gputask.h"
#include "collectors/raw.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000000000000ULL
#define US NSEC_PER_USEC
#define DOMAIN_COMM 77 /* the agent's id of the domain "communication" */

#define CHECK_STR(a, b)                                                                                 \
	do {                                                                                            \
		const char *_a = (a), *_b = (b);                                                        \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                                \
			fprintf(stderr, "%s:%d: '%s' != '%s' (%s)\n", __FILE__, __LINE__, _a ? _a : "(null)", \
				_b ? _b : "(null)", #a);                                                \
			exit(1);                                                                        \
		}                                                                                       \
	} while (0)
#define CHECK_NUM(a, b)                                                                                 \
	do {                                                                                            \
		long long _a = (long long)(a), _b = (long long)(b);                                     \
		if (_a != _b) {                                                                         \
			fprintf(stderr, "%s:%d: %lld != %lld (%s)\n", __FILE__, __LINE__, _a, _b, #a);     \
			exit(1);                                                                        \
		}                                                                                       \
	} while (0)

static char tmp[] = "/tmp/test-export-comm.XXXXXX";
static struct raw_writer *w;
static struct raw_buf b;

static void emit(uint16_t type)
{
	CHECK(b.err == 0 && raw_writer_append(w, type, b.data, (uint32_t)b.len) == 0);
}

/* --- the parsers ---------------------------------------------------------------- */

static const struct {
	const char *name;
	const char *collective, *algorithm, *protocol, *reduction;
	int data_type;
} kernels[] = {
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "AllReduce", "RING", "LL", "Sum", 4 },
	{ "ncclKernel_AllReduce_RING_LL_Sum_float", "AllReduce", "RING", "LL", "Sum", 4 },
	{ "_Z39ncclKernel_AllGather_RING_LL_Sum_int8_t24ncclDevKernelArgsStorageILm4096EE", "AllGather", "RING",
	  "LL", "Sum", 0 },
	{ "ncclDevKernel_SendRecv", "SendRecv", "", "", "", EXP_COMM_DTYPE_NA },
	{ "ncclDevKernel_AllGather_RING_LL", "AllGather", "RING", "LL", "", EXP_COMM_DTYPE_NA },
	{ "ncclDevKernel_ReduceScatter_Sum_bf16_COLLNET_DIRECT_SIMPLE", "ReduceScatter", "COLLNET_DIRECT",
	  "SIMPLE", "Sum", 11 },
	{ "ncclDevKernel_AllReduce_Sum_u64_NVLS_TREE_LL128(ncclDevKernelArgsStorage<4096ul>)", "AllReduce",
	  "NVLS_TREE", "LL128", "Sum", 6 },
	{ "ncclKernel_Broadcast_RING_SIMPLE_Sum_int8_t", "Broadcast", "RING", "SIMPLE", "Sum", 0 },
	{ "ncclDevKernel_Reduce_Max_f16_RING_LL", "Reduce", "RING", "LL", "Max", 3 },
	{ "ncclDevKernel_AllReduce_Sum_f64_PAT_SIMPLE", "AllReduce", "PAT", "SIMPLE", "Sum", 10 },
};

static void check_nccl_names(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernels); i++) {
		struct exp_comm_nccl k;
		CHECK(exp_comm_parse_nccl(kernels[i].name, &k) == 1);
		CHECK_STR(k.collective, kernels[i].collective);
		CHECK_STR(k.algorithm, kernels[i].algorithm);
		CHECK_STR(k.protocol, kernels[i].protocol);
		CHECK_STR(k.reduction, kernels[i].reduction);
		CHECK_NUM(k.data_type, kernels[i].data_type);
	}
	struct exp_comm_nccl k;
	static const char *const not_nccl[] = { "_Z6kernelv", "void fill<float>(int)", "", "nccl", "ncclDevKernel_" };
	for (size_t i = 0; i < ARRAY_SIZE(not_nccl); i++)
		CHECK(exp_comm_parse_nccl(not_nccl[i], &k) == 0);
	/* NCCL's and HCCL's names of one collective are one msprof type */
	CHECK_STR(exp_comm_op_type("AllReduce"), "hcom_allReduce_");
	CHECK_STR(exp_comm_op_type("HcclAllreduce"), "hcom_allReduce_");
	CHECK_STR(exp_comm_op_type("SendRecv"), "hcom_batchSendRecv_");
	CHECK_STR(exp_comm_op_type("HcclRecv"), "hcom_receive_");
	CHECK_STR(exp_comm_op_type("HcclSend"), "hcom_send_");
	CHECK_STR(exp_comm_op_type("HcclAlltoAll"), "hcom_alltoall_");
	CHECK(exp_comm_op_type("Generic") == NULL);
}

static void check_dicts(void)
{
	struct exp_comm_dict d;
	/* torch_npu's: quotes escaped with backslashes */
	CHECK(exp_comm_parse_dict("{\\\"opName\\\": \\\"HcclAllreduce\\\",\\\"groupName\\\": \\\"group_a\\\","
				  "\\\"dataType\\\": \\\"fp32\\\",\\\"count\\\": \\\"1048576\\\",\\\"streamId\\\": \\\"3\\\"}",
				  &d) == 1);
	CHECK_STR(d.op_name, "HcclAllreduce");
	CHECK_STR(d.group, "group_a");
	CHECK_NUM(d.data_type, 4);
	CHECK_NUM(d.count, 1048576);
	CHECK_NUM(d.stream, 3);
	CHECK_NUM(d.src, -1);
	/* plain quotes, numbers unquoted, P2P ranks, spaces */
	CHECK(exp_comm_parse_dict(" { \"opName\" : \"HcclSend\" , \"groupName\":\"pp\", \"dataType\":\"bf16\", "
				  "\"count\": 16, \"srcRank\": 0, \"destRank\": 1 } ", &d) == 1);
	CHECK_STR(d.op_name, "HcclSend");
	CHECK_NUM(d.data_type, 11);
	CHECK_NUM(d.count, 16);
	CHECK_NUM(d.src, 0);
	CHECK_NUM(d.dst, 1);
	/* single quotes; an unknown data type; keys it does not know */
	CHECK(exp_comm_parse_dict("{'opName': 'HcclBroadcast', 'dataType': 'fp4', 'x': 'y'}", &d) == 1);
	CHECK_NUM(d.data_type, EXP_COMM_DTYPE_INVALID);
	CHECK_STR(d.group, "");
	/* not such a dict: 0, never a crash */
	static const char *const bad[] = {
		"allreduce", "", "{", "}", "{}", "{\"opName\"}", "{\"opName\": }", "{\"opName\": \"x\"",
		"{\"opName\": \"x\" \"groupName\": \"g\"}", "{\\\"opName\\\": \\\"unterminated}", "{\"groupName\": \"g\"}",
		"{:}", "{,}", "{\"a\":\"b\",}", "{\"opName\": \"x\",,}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(exp_comm_parse_dict(bad[i], &d) == 0);
	/* a long value is cut, not overrun */
	char big[4096];
	snprintf(big, sizeof big, "{\"opName\": \"HcclAllreduce\", \"groupName\": \"%0*d\"}", 3000, 7);
	CHECK(exp_comm_parse_dict(big, &d) == 1);
	CHECK(strlen(d.group) == sizeof d.group - 1);
}

/* Random bytes and mutilated good messages: any answer, never a crash or
 * an overrun (valgrind and ASan builds watch the latter). */
static void fuzz_parsers(void)
{
	static const char *const seeds[] = {
		"{\\\"opName\\\": \\\"HcclAllreduce\\\",\\\"groupName\\\": \\\"g\\\",\\\"count\\\": \\\"8\\\"}",
		"{'opName': 'HcclSend', 'srcRank': 0, 'destRank': 1}",
		"_Z39ncclKernel_AllGather_RING_LL_Sum_int8_t24ncclDevKernelArgsStorageILm4096EE",
		"ncclDevKernel_ReduceScatter_Sum_bf16_COLLNET_DIRECT_SIMPLE",
	};
	static const char alphabet[] = "{}:,'\"\\ _abcNTt0123456789";
	char buf[512];
	struct exp_comm_dict d;
	struct exp_comm_nccl k;
	for (int i = 0; i < 20000; i++) {
		size_t n = rnd() % (sizeof buf - 1);
		if (i % 2) { /* a seed with bytes replaced, cut anywhere */
			const char *seed = seeds[rnd() % ARRAY_SIZE(seeds)];
			n = strlen(seed) < n ? strlen(seed) : n;
			memcpy(buf, seed, n);
			for (int j = (int)(rnd() % 4); j > 0 && n; j--)
				buf[rnd() % n] = alphabet[rnd() % (sizeof alphabet - 1)];
		} else {
			for (size_t j = 0; j < n; j++)
				buf[j] = (char)(rnd() % 255 + 1);
		}
		buf[n] = '\0';
		if (exp_comm_parse_dict(buf, &d) == 1)
			CHECK(d.op_name[0] && strlen(d.op_name) < sizeof d.op_name && strlen(d.group) < sizeof d.group);
		if (exp_comm_parse_nccl(buf, &k) == 1)
			CHECK(strlen(k.collective) < sizeof k.collective && strlen(k.algorithm) < sizeof k.algorithm);
	}
}

/* --- a PROF dir ------------------------------------------------------------------- */

static void put_kernel(const char *name, uint64_t us0, uint64_t us1, uint32_t corr)
{
	struct gpu_task t = { .kind = GPU_TASK_KERNEL, .start = MONO0 + us0 * US, .end = MONO0 + us1 * US,
			      .device = 0, .context = 1, .stream = 9, .correlation = corr, .grid = { 1, 1, 1 },
			      .block = { 64, 1, 1 } };
	snprintf(t.name, sizeof t.name, "%s", name);
	CHECK(gpu_encode_task(&b, &t) == 0);
	emit(RAW_AGENT_GPU_TASK);
}

static void domain(uint64_t id, const char *name)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0);
	raw_buf_u64(&b, id);
	raw_buf_u32(&b, (uint32_t)strlen(name)), raw_buf_bytes(&b, name, strlen(name));
	emit(RAW_AGENT_DOMAIN);
}

/* a start/end range (type 2) or a mark (type 0) in the domain */
static void range(uint32_t type, uint64_t us0, uint64_t us1, uint64_t id, uint64_t dom, const char *msg)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us0 * US);
	if (type == 0) {
		raw_buf_u32(&b, 5000), raw_buf_u32(&b, 0), raw_buf_u64(&b, dom), raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0), raw_buf_u32(&b, 0);
		raw_buf_u32(&b, (uint32_t)strlen(msg)), raw_buf_bytes(&b, msg, strlen(msg));
		emit(RAW_AGENT_MARK);
		return;
	}
	raw_buf_u32(&b, 5000), raw_buf_u32(&b, 2), raw_buf_u64(&b, id), raw_buf_u64(&b, dom), raw_buf_u64(&b, 0);
	raw_buf_u32(&b, 0), raw_buf_u32(&b, 0);
	raw_buf_u32(&b, (uint32_t)strlen(msg)), raw_buf_bytes(&b, msg, strlen(msg));
	emit(RAW_AGENT_RANGE_START);
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us1 * US);
	raw_buf_u32(&b, 5000), raw_buf_u32(&b, 2), raw_buf_u64(&b, id), raw_buf_u64(&b, dom);
	emit(RAW_AGENT_RANGE_END);
}

/* What the test wrote, the ground truth of the checks: each operation in
 * start order with the name, type, group and data type the export must
 * give it. */
struct want_op {
	uint64_t us0, us1;
	const char *type, *group, *dtype;
	int64_t count, src, dst; /* -1: none */
	const char *source, *name; /* name NULL: "<type>_<n>_0_1", n its number in group and type */
	int64_t bytes;             /* -1: unknown */
};

static const char *const nccl_names[] = {
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
	"_Z39ncclKernel_AllGather_RING_LL_Sum_int8_t24ncclDevKernelArgsStorageILm4096EE",
	"ncclDevKernel_SendRecv",
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
};
static const char *const msgs[] = {
	"{\\\"opName\\\": \\\"HcclAllreduce\\\",\\\"groupName\\\": \\\"tp_group\\\",\\\"dataType\\\": \\\"fp32\\\","
	"\\\"count\\\": \\\"1048576\\\",\\\"streamId\\\": \\\"3\\\"}",
	"{\"opName\": \"HcclSend\", \"groupName\": \"pp_group\", \"dataType\": \"bf16\", \"count\": \"4096\", "
	"\"srcRank\": \"0\", \"destRank\": \"1\"}",
	"barrier before save",
	"{\"opName\": \"HcclAllreduce\", \"groupName\": \"tp_group\", \"dataType\": \"fp16\", \"count\": 8",
};
static struct want_op want[] = {
	/* kernels: µs 1000.. (with a compute kernel between), then ranges */
	{ 1000, 1400, "hcom_allReduce_", EXP_COMM_NCCL_GROUP, "FP32", -1, -1, -1, "nccl", NULL, -1 },
	{ 2000, 2100, "hcom_allGather_", EXP_COMM_NCCL_GROUP, "INT8", -1, -1, -1, "nccl", NULL, -1 },
	{ 3000, 3050, "hcom_batchSendRecv_", EXP_COMM_NCCL_GROUP, "N/A", -1, -1, -1, "nccl", NULL, -1 },
	{ 4000, 4600, "hcom_allReduce_", EXP_COMM_NCCL_GROUP, "FP32", -1, -1, -1, "nccl", NULL, -1 },
	{ 5000, 5300, "hcom_allReduce_", "tp_group", "FP32", 1048576, -1, -1, "mstx", NULL, 1048576 * 4 },
	{ 6000, 6010, "hcom_send_", "pp_group", "BFP16", 4096, 0, 1, "mstx", NULL, 4096 * 2 },
	{ 7000, 7500, "barrier before save", "N/A", "N/A", -1, -1, -1, "mstx", "barrier before save", -1 },
	/* broken dict (no closing brace): named by its message */
	{ 8000, 8020, NULL, "N/A", "N/A", -1, -1, -1, "mstx", NULL, -1 },
};

static char *make_prof(void)
{
	char *prof, *host;
	CHECK(asprintf(&prof, "%s/PROF_000001_20231114221320000_00005000ABCDEFGH", tmp) > 0);
	w = agent_prof_open(prof, 20000, MONO0, REAL0, &b, &host);
	write_text(host, "info.json", "{\"hostname\":\"h\",\"hostUid\":\"u\",\"pid\":\"5000\",\"cpuNums\":2,"
		   "\"memoryTotal\":1000,\"rank_id\":3}");
	free(host);
	for (size_t i = 0; i < 4; i++)
		put_kernel(nccl_names[i], want[i].us0, want[i].us1, (uint32_t)i + 1);
	put_kernel("_Z6kernelv", 1500, 1900, 9); /* computation: no operation */
	domain(DOMAIN_COMM, "communication");
	domain(DOMAIN_COMM + 1, "other");
	for (size_t i = 0; i < 4; i++)
		range(2, want[4 + i].us0, want[4 + i].us1, 100 + i, DOMAIN_COMM, msgs[i]);
	range(2, 9000, 9100, 200, DOMAIN_COMM + 1, msgs[0]); /* another domain: not an operation */
	range(0, 9500, 9500, 0, DOMAIN_COMM, "a mark"); /* a mark: counted, not an operation */
	want[7].name = msgs[3];
	raw_writer_free(w);
	raw_buf_release(&b);
	return prof;
}

/* The name the export must give want[i]. */
static void want_name(size_t i, char *buf, size_t size)
{
	if (want[i].name) {
		snprintf(buf, size, "%s", want[i].name);
		return;
	}
	unsigned n = 0;
	for (size_t j = 0; j < i; j++)
		n += want[j].type && streq(want[j].type, want[i].type) && streq(want[j].group, want[i].group);
	snprintf(buf, size, "%s_%u_0_1", want[i].type, n);
}

static void check_db(const char *db_path)
{
	sqlite3 *db;
	CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		char name[512];
		want_name(i, name, sizeof name);
		fprintf(m, "%s|%" PRIu64 "|%" PRIu64 "|%s|%zu|%s|%s|%s|", name, (uint64_t)(REAL0 + want[i].us0 * US),
			(uint64_t)(REAL0 + want[i].us1 * US), want[i].group, i, want[i].dtype, want[i].type ? want[i].type : name,
			want[i].source);
		if (want[i].count >= 0)
			fprintf(m, "%" PRId64, want[i].count);
		else
			fputs("NULL", m);
		fputc('\n', m);
	}
	fclose(m);
	check_text("COMMUNICATION_OP",
		   rows(db, "SELECT n.value, o.startNs, o.endNs, g.value, o.opId, d.name, t.value, x.source, "
			    "coalesce(o.count, 'NULL') FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName "
			    "JOIN STRING_IDS g ON g.id = o.groupName JOIN ENUM_HCCL_DATA_TYPE d ON d.id = o.dataType "
			    "JOIN STRING_IDS t ON t.id = o.opType JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId "
			    "ORDER BY o.opId"),
		   text);
	free(text);
	/* each kernel's operation has the kernel's task and times, read from TASK */
	check_text("ops = their kernels' tasks",
		   rows(db, "SELECT count(*), sum(t.startNs = o.startNs AND t.endNs = o.endNs AND "
			    "c.opId = o.opId AND c.groupName = o.groupName) FROM COMMUNICATION_TASK_INFO c "
			    "JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN COMMUNICATION_OP o ON o.opId = c.opId"),
		   "4|4\n");
	/* communication kernels are not computation: COMPUTE_TASK_INFO holds
	 * the one other kernel alone, as msprof keeps HCCL tasks out of it */
	check_text("COMPUTE_TASK_INFO", rows(db, "SELECT count(*), sum(globalTaskId IN (SELECT globalTaskId FROM "
						 "COMMUNICATION_TASK_INFO)) FROM COMPUTE_TASK_INFO"), "1|0\n");
	check_text("algorithms", rows(db, "SELECT a.value FROM COMMUNICATION_OP o JOIN STRING_IDS a ON a.id = "
					 "o.algType WHERE o.opId < 4 ORDER BY o.opId"),
		   "RING-LL\nRING-LL\nN/A\nRING-LL\n");
	sqlite3_close(db);
}

/* communication_statistic: per type, count and times from want */
static void check_statistic(const char *out)
{
	char *path = find_file(out, "communication_statistic_", ".csv");
	char *got = slurp(path);
	free(path);
	uint64_t all = 0;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		all += want[i].us1 - want[i].us0;
	/* every type's line is there with its count, total, min, max */
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		char name[512];
		want_name(i, name, sizeof name);
		const char *type = want[i].type ? want[i].type : name;
		uint64_t n = 0, total = 0, min = UINT64_MAX, max = 0;
		for (size_t j = 0; j < ARRAY_SIZE(want); j++) {
			char nj[512];
			want_name(j, nj, sizeof nj);
			if (!streq(want[j].type ? want[j].type : nj, type))
				continue;
			uint64_t d = want[j].us1 - want[j].us0;
			n++, total += d, min = d < min ? d : min, max = d > max ? d : max;
		}
		char line[2048], ratio[32];
		snprintf(ratio, sizeof ratio, "%.3f", 100.0 * (double)total / (double)all);
		/* Python's repr drops trailing zeros but one */
		size_t k = strlen(ratio);
		while (k > 2 && ratio[k - 1] == '0' && ratio[k - 2] != '.')
			ratio[--k] = '\0';
		/* the type as a CSV field: quoted, quotes doubled, when it
		 * holds a comma or a quote */
		char field[1100];
		size_t f = 0;
		bool quote = strpbrk(type, ",\"") != NULL;
		if (quote)
			field[f++] = '"';
		for (const char *p = type; *p && f + 3 < sizeof field; p++) {
			if (*p == '"')
				field[f++] = '"';
			field[f++] = *p;
		}
		if (quote)
			field[f++] = '"';
		field[f] = '\0';
		snprintf(line, sizeof line, "\n0,%s,%" PRIu64 ",%" PRIu64 ".000,%" PRIu64 ".000,%.3f,%" PRIu64 ".000,%s\n",
			 field, n, total, min, (double)total / (double)n, max, ratio);
		if (!strstr(got, line)) {
			fprintf(stderr, "communication_statistic lacks %s--- got:\n%s", line, got);
			CHECK(!"line missing");
		}
	}
	CHECK(startswith(got, "Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"));
	free(got);
}

/* The Communication layer: every operation an X event named and timed as
 * in want, on the thread of its group, in a process named Communication
 * with sort index 16 and label NPU 0. */
static void check_layer(const char *out)
{
	char *path = find_file(out, "msprof_", ".json");
	char *text = slurp(path);
	free(path);
	cJSON *tl = cJSON_Parse(text);
	CHECK(cJSON_IsArray(tl));
	free(text);
	unsigned pid = 0, found = 0;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, tl) {
		const cJSON *name = cJSON_GetObjectItem(ev, "name"), *args = cJSON_GetObjectItem(ev, "args");
		if (streq(name->valuestring, "process_name") &&
		    streq(cJSON_GetObjectItem(args, "name")->valuestring, "Communication"))
			pid = (unsigned)cJSON_GetObjectItem(ev, "pid")->valuedouble;
	}
	CHECK(pid != 0);
	cJSON_ArrayForEach(ev, tl) {
		if ((unsigned)cJSON_GetObjectItem(ev, "pid")->valuedouble != pid)
			continue;
		const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring, *name = cJSON_GetObjectItem(ev, "name")->valuestring;
		const cJSON *args = cJSON_GetObjectItem(ev, "args");
		if (streq(ph, "M")) {
			if (streq(name, "process_labels"))
				CHECK_STR(cJSON_GetObjectItem(args, "labels")->valuestring, "NPU 0");
			if (streq(name, "process_sort_index"))
				CHECK_NUM(cJSON_GetObjectItem(args, "sort_index")->valuedouble, 16);
			continue;
		}
		/* names repeat across groups: the operation of that name and start */
		size_t i;
		char wn[512] = "", ts[64] = "";
		for (i = 0; i < ARRAY_SIZE(want); i++) {
			want_name(i, wn, sizeof wn);
			snprintf(ts, sizeof ts, "%" PRIu64 ".000", (uint64_t)(REAL0 / US + want[i].us0));
			if (streq(wn, name) && streq(cJSON_GetObjectItem(ev, "ts")->valuestring, ts))
				break;
		}
		CHECK(i < ARRAY_SIZE(want));
		CHECK(cJSON_GetObjectItem(ev, "dur")->valuedouble == (double)(want[i].us1 - want[i].us0));
		CHECK_STR(cJSON_GetObjectItem(args, "data_type")->valuestring, want[i].dtype);
		/* the thread is its group's */
		char tname[256];
		snprintf(tname, sizeof tname, "Group %s Communication", want[i].group);
		bool named = false;
		const cJSON *m;
		cJSON_ArrayForEach(m, tl) {
			if (streq(cJSON_GetObjectItem(m, "name")->valuestring, "thread_name") &&
			    cJSON_GetObjectItem(m, "pid")->valuedouble == pid &&
			    cJSON_GetObjectItem(m, "tid")->valuedouble == cJSON_GetObjectItem(ev, "tid")->valuedouble)
				named = streq(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "args"), "name")->valuestring, tname);
		}
		CHECK(named);
		found++;
	}
	CHECK_NUM(found, ARRAY_SIZE(want));
	cJSON_Delete(tl);
}

static cJSON *read_json(const char *prof, const char *name)
{
	char *p;
	CHECK(asprintf(&p, "%s/analyze/%s", prof, name) > 0);
	char *text = slurp(p);
	free(p);
	cJSON *j = cJSON_Parse(text);
	free(text);
	CHECK(cJSON_IsObject(j));
	return j;
}

static double num_at(const cJSON *o, const char *k1, const char *k2, const char *k3)
{
	const cJSON *v = cJSON_GetObjectItem(o, k1);
	v = k2 ? cJSON_GetObjectItem(v, k2) : v;
	v = k3 ? cJSON_GetObjectItem(v, k3) : v;
	CHECK(cJSON_IsNumber(v));
	return v->valuedouble;
}

static bool near(double x, double y)
{
	return x - y < 1e-3 && y - x < 1e-3;
}

/* analyze's three files against want, this PROF dir being rank 3 */
static void check_analyze(const char *prof)
{
	unsigned ops = 0;
	struct export_report rep;
	CHECK(export_analyze_comm(prof, EXPORT_ANALYZE_COMMUNICATION | EXPORT_ANALYZE_MATRIX, &ops, &rep) == 0);
	CHECK_NUM(ops, ARRAY_SIZE(want));
	cJSON *comm = read_json(prof, "communication.json"), *mx = read_json(prof, "communication_matrix.json");
	CHECK_NUM(cJSON_GetArraySize(comm), ARRAY_SIZE(want) + 1);
	CHECK(cJSON_GetObjectItem(comm, "Total Op Info"));
	double total_ms = 0;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		char name[512], key[1024];
		want_name(i, name, sizeof name);
		snprintf(key, sizeof key, "%s@%s", name, want[i].group);
		const cJSON *op = cJSON_GetObjectItem(comm, key);
		CHECK(op != NULL);
		double el = (double)(want[i].us1 - want[i].us0) / 1000.0;
		total_ms += el;
		CHECK(near(num_at(op, "Communication Time Info", "Elapse Time(ms)", NULL), el));
		CHECK(near(num_at(op, "Communication Time Info", "Start Timestamp(us)", NULL),
			   (double)(REAL0 / US + want[i].us0)));
		const cJSON *sdma = cJSON_GetObjectItem(cJSON_GetObjectItem(op, "Communication Bandwidth Info"), "SDMA");
		double mb = want[i].bytes > 0 ? (double)want[i].bytes / 1048576.0 : 0;
		CHECK(near(num_at(sdma, "Transit Size(MB)", NULL, NULL), mb));
		/* the matrix: the self link 3-3 LOCAL, and the P2P link */
		const cJSON *links = cJSON_GetObjectItem(mx, key);
		CHECK(links != NULL);
		CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(links, "3-3"), "Transport Type")->valuestring, "LOCAL");
		CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(links, "3-3"), "Op Name")->valuestring, name);
		if (want[i].src >= 0) {
			char lk[64];
			snprintf(lk, sizeof lk, "%" PRId64 "-%" PRId64, want[i].src, want[i].dst);
			CHECK(near(num_at(links, lk, "Transit Size(MB)", NULL), mb));
		}
		CHECK_NUM(cJSON_GetArraySize(links), want[i].src >= 0 ? 2 : 1);
	}
	CHECK(near(num_at(comm, "Total Op Info", "Communication Time Info", "Elapse Time(ms)"), total_ms));
	cJSON_Delete(comm);
	cJSON_Delete(mx);

	/* --type=db: the same in communication_analyzer.db */
	CHECK(export_analyze_comm(prof, EXPORT_ANALYZE_DB, &ops, &rep) == 0);
	char *path;
	CHECK(asprintf(&path, "%s/analyze/communication_analyzer.db", prof) > 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	free(path);
	char *text = NULL, *mtext = NULL;
	size_t len = 0, mlen = 0;
	FILE *m = open_memstream(&text, &len), *mm = open_memstream(&mtext, &mlen);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		char name[512];
		want_name(i, name, sizeof name);
		fprintf(m, "%s|%s|%.4f\n", name, want[i].group, (double)(want[i].us1 - want[i].us0) / 1000.0);
		fprintf(mm, "%s|3|3|LOCAL\n", name);
		if (want[i].src >= 0)
			fprintf(mm, "%s|%" PRId64 "|%" PRId64 "|HCCS\n", name, want[i].src, want[i].dst);
	}
	fclose(m);
	fclose(mm);
	check_text("CommAnalyzerTime", rows(db, "SELECT hccl_op_name, group_name, printf('%.4f', elapse_time) "
						"FROM CommAnalyzerTime ORDER BY start_timestamp"), text);
	check_text("CommAnalyzerMatrix", rows(db, "SELECT hccl_op_name, src_rank, dst_rank, transport_type "
						  "FROM CommAnalyzerMatrix ORDER BY rowid"), mtext);
	check_text("CommAnalyzerBandwidth rows", rows(db, "SELECT count(*) FROM CommAnalyzerBandwidth"), "40\n");
	free(text);
	free(mtext);
	sqlite3_close(db);
}

/* No communication: the tables are there, empty; analyze writes nothing */
static void check_empty(void)
{
	char *prof, *host;
	CHECK(asprintf(&prof, "%s/PROF_000002_20231114221320000_00005000ABCDEFGH", tmp) > 0);
	w = agent_prof_open(prof, 20000, MONO0, REAL0, &b, &host);
	free(host);
	put_kernel("_Z6kernelv", 1500, 1900, 9);
	raw_writer_free(w);
	raw_buf_release(&b);
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	check_text("empty tables", rows(db, "SELECT (SELECT count(*) FROM COMMUNICATION_OP) || ',' || "
					    "(SELECT count(*) FROM COMMUNICATION_TASK_INFO)"), "0,0\n");
	sqlite3_close(db);
	char *out, *an;
	CHECK(asprintf(&out, "%s/mindstudio_profiler_output", prof) > 0 && asprintf(&an, "%s/analyze", prof) > 0);
	CHECK(find_file(out, "communication_statistic_", NULL) == NULL);
	unsigned ops = 7;
	CHECK(export_analyze_comm(prof, EXPORT_ANALYZE_COMMUNICATION | EXPORT_ANALYZE_MATRIX, &ops, &rep) == 0);
	CHECK_NUM(ops, 0);
	struct stat st;
	CHECK(stat(an, &st) < 0);
	free(out), free(an), free(prof);
}

/* mstx.torch's range around an NCCL call (backend nccl) is left out where
 * NCCL's own kernel of the process was recorded; a gloo range stays; and
 * without NCCL's records a process's NCCL ranges are its operations. */
static int64_t comm_ops(const char *name, bool kernel, const char *note)
{
	char *prof, *host;
	CHECK(asprintf(&prof, "%s/%s", tmp, name) > 0);
	w = agent_prof_open(prof, 20000, MONO0, REAL0, &b, &host);
	free(host);
	if (kernel)
		put_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000, 1400, 1);
	domain(DOMAIN_COMM, "communication");
	range(2, 900, 1500, 100, DOMAIN_COMM, "{\"opName\": \"HcclAllreduce\", \"groupName\": \"0\", "
						 "\"dataType\": \"fp32\", \"count\": \"256\", \"backend\": \"nccl\"}");
	range(2, 2000, 2100, 101, DOMAIN_COMM, "{\"opName\": \"HcclAllreduce\", \"groupName\": \"1\", "
						  "\"dataType\": \"fp32\", \"count\": \"8\", \"backend\": \"gloo\"}");
	raw_writer_free(w);
	raw_buf_release(&b);
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	CHECK(note ? strstr(rep.message, note) != NULL : strstr(rep.message, "around NCCL") == NULL);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM COMMUNICATION_OP", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	int64_t n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(prof);
	return n;
}

static void check_nccl_once(void)
{
	CHECK_NUM(comm_ops("PROF_000003_20231114221320000_00005000ABCDEFGH", true,
			   "communication: 1 range(s) of the mstx domain 'communication' around NCCL operations are "
			   "left out"), 2);
	CHECK_NUM(comm_ops("PROF_000004_20231114221320000_00005000ABCDEFGH", false, NULL), 2);
}

int main(void)
{
	check_nccl_names();
	check_dicts();
	fuzz_parsers();
	CHECK(mkdtemp(tmp));
	char *prof = make_prof();
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	/* the range that is not a dict, the broken one and the mark are told */
	CHECK(strstr(rep.message, "communication: 2 range(s) of the mstx domain 'communication' have a message that "
				  "is not a dict"));
	CHECK(strstr(rep.message, "communication: 1 mark(s) of the mstx domain 'communication' are not operations"));
	check_db(rep.db_path);
	char *out;
	CHECK(asprintf(&out, "%s/mindstudio_profiler_output", prof) > 0);
	check_statistic(out);
	/* the device task outputs still name the communication kernels */
	char *tt = find_file(out, "task_time_", ".csv"), *text = slurp(tt);
	CHECK(strstr(text, "\n0,ncclDevKernel_AllReduce_Sum_f32_RING_LL,KERNEL,9,1,") &&
	      strstr(text, "\n0,ncclDevKernel_SendRecv,KERNEL,9,3,"));
	free(tt), free(text);
	check_layer(out);
	check_analyze(prof);
	check_empty();
	check_nccl_once();
	free(out);
	free(prof);
	rm_rf(tmp);
	return 0;
}
