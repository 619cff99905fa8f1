/* Communication operations (collectives and point-to-point transfers
 * between ranks) -> msprof's COMMUNICATION_OP and COMMUNICATION_TASK_INFO,
 * the timeline's Communication layer and communication_statistic.
 *
 * Two sources, both read from tables other domains built (so this domain
 * comes after the device tasks and mstx in exp_domains):
 *   - NCCL's kernels among the device tasks (TASK joined with GPU_TASK for
 *     the raw name): "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
 *     "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_SendRecv"...
 *     name the collective, the algorithm, the protocol and the data type;
 *     one kernel is one operation (NCCL runs one kernel per collective on
 *     its communicator's stream).
 *   - NCCL's profiler plugin (the agent, NCCL_PROFILER_PLUGIN): one
 *     RAW_AGENT_COMM_OP record per operation, decoded here into
 *     NCCL_PROFILER_OP; it names the function, count, data type, algorithm,
 *     protocol and communicator (name or hash, rank count).  Where the
 *     operation's kernel is among the device tasks too (its launching call
 *     inside the operation's host span, same process and type), the two
 *     are one operation: the plugin's facts, the kernel's device times.
 *   - mstx ranges in the domain "communication", as torch_npu marks its
 *     HCCL operations: the message is a dict, its quotes often escaped,
 *     {\"opName\": \"HcclAllreduce\",\"groupName\": \"g\",\"dataType\":
 *     \"fp32\",\"count\": \"1048576\",\"streamId\": \"3\"} (+ srcRank,
 *     destRank for P2P).  A range whose message is not such a dict still
 *     is an operation, named by its message, and counted in the report.
 *   Inside the mstx ones, the socket calls and polls of their process
 *     (OSRT_API, gloo and MPI on CPU) -> COMMUNICATION_HOST_TASK
 *     (domain-comm-host.c), from which analyze splits their time.
 *
 * Operations are named as msprof names HCCL's ("hcom_allReduce__3_0_1":
 * the type, then the operation's number among those of its group and type),
 * because readers take the type from the name (NOTES.md §1); operations of
 * one group are numbered alike on every rank when the ranks run the same
 * sequence, which is what lets cluster tools match them across ranks. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>

#include "collectors/raw.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain-comm.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/reader.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

/* The entry, at the end: its hooks keep their state in its slot. */
extern const struct exp_domain exp_domain_comm;

/* --- names and enums ------------------------------------------------------------ */

/* msprof's HCCL operation types (its op names start with these). */
static const struct {
	const char *key;   /* the lower-case collective, as NCCL and HCCL spell it without "hccl"/"nccl" */
	const char *type;  /* msprof's opType */
} op_types[] = {
	{ "allreduce", "hcom_allReduce_" },
	{ "allgather", "hcom_allGather_" },
	{ "allgatherv", "hcom_allGather_" },
	{ "reducescatter", "hcom_reduceScatter_" },
	{ "reducescatterv", "hcom_reduceScatter_" },
	{ "broadcast", "hcom_broadcast_" },
	{ "reduce", "hcom_reduce_" },
	{ "send", "hcom_send_" },
	{ "recv", "hcom_receive_" },
	{ "receive", "hcom_receive_" },
	{ "sendrecv", "hcom_batchSendRecv_" },
	{ "batchsendrecv", "hcom_batchSendRecv_" },
	{ "alltoall", "hcom_alltoall_" },
	{ "alltoallv", "hcom_alltoallv_" },
	{ "alltoallvc", "hcom_alltoallvc_" },
	{ "scatter", "hcom_scatter_" },
	{ "gather", "hcom_gather_" },
	{ "barrier", "hcom_barrier_" },
};

const char *exp_comm_op_type(const char *collective)
{
	char low[64];
	size_t n = 0;
	for (const char *p = collective; *p && n + 1 < sizeof low; p++)
		if (*p != '_')
			low[n++] = (char)tolower((unsigned char)*p);
	low[n] = '\0';
	const char *k = low;
	if (startswith(k, "hccl") || startswith(k, "nccl") || startswith(k, "hcom"))
		k += 4;
	for (size_t i = 0; i < ARRAY_SIZE(op_types); i++)
		if (streq(k, op_types[i].key))
			return op_types[i].type;
	return NULL;
}

/* ENUM_HCCL_DATA_TYPE (reference §5) */
static const struct {
	int id;
	const char *name;
} hccl_data_types[] = {
	{ 0, "INT8" },    { 1, "INT16" },  { 2, "INT32" },  { 3, "FP16" },       { 4, "FP32" },
	{ 5, "INT64" },   { 6, "UINT64" }, { 7, "UINT8" },  { 8, "UINT16" },     { 9, "UINT32" },
	{ 10, "FP64" },   { 11, "BFP16" }, { 12, "INT128" }, { 255, "RESERVED" }, { 65534, "N/A" },
	{ 65535, "INVALID_TYPE" },
};

/* NCCL's kernel suffixes (f32, bf16...), its long names (float, int8_t,
 * __nv_bfloat16...) and torch_npu's (fp32, bf16, float32...). */
static const struct {
	const char *name;
	int id;
} data_type_names[] = {
	{ "i8", 0 },      { "int8", 0 },      { "int8_t", 0 },    { "char", 0 },      { "i16", 1 },
	{ "int16", 1 },   { "i32", 2 },       { "int32", 2 },     { "int32_t", 2 },   { "int", 2 },
	{ "f16", 3 },     { "fp16", 3 },      { "float16", 3 },   { "half", 3 },      { "f32", 4 },
	{ "fp32", 4 },    { "float32", 4 },   { "float", 4 },     { "i64", 5 },       { "int64", 5 },
	{ "int64_t", 5 }, { "u64", 6 },       { "uint64", 6 },    { "uint64_t", 6 },  { "u8", 7 },
	{ "uint8", 7 },   { "uint8_t", 7 },   { "u16", 8 },       { "uint16", 8 },    { "u32", 9 },
	{ "uint32", 9 },  { "uint32_t", 9 },  { "f64", 10 },      { "fp64", 10 },     { "float64", 10 },
	{ "double", 10 }, { "bf16", 11 },     { "bfp16", 11 },    { "bfloat16", 11 }, { "__nv_bfloat16", 11 },
	{ "int128", 12 },
};

int exp_comm_data_type(const char *name)
{
	char low[32];
	size_t n = 0;
	/* NCCL's enum names (the profiler plugin's): ncclFloat32 is float32 */
	if (strncmp(name, "nccl", 4) == 0 && name[4])
		name += 4;
	for (const char *p = name; *p && n + 1 < sizeof low; p++)
		low[n++] = (char)tolower((unsigned char)*p);
	low[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(data_type_names); i++)
		if (streq(low, data_type_names[i].name))
			return data_type_names[i].id;
	return EXP_COMM_DTYPE_INVALID;
}

const char *exp_comm_data_type_name(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(hccl_data_types); i++)
		if (hccl_data_types[i].id == id)
			return hccl_data_types[i].name;
	return "INVALID_TYPE";
}

int exp_comm_data_type_size(int id)
{
	static const int sizes[] = { 1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2, 16 };
	return id >= 0 && id < (int)ARRAY_SIZE(sizes) ? sizes[id] : 0;
}

/* --- NCCL kernel names ------------------------------------------------------------- */

static bool word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (streq(w, *list))
			return true;
	return false;
}

/* The identifier after "ncclDevKernel_" or "ncclKernel_" (of a mangled or
 * demangled name) split at '_': the collective first, then in any order
 * the reduction, the data type, the algorithm and the protocol.  Names
 * of two words (COLLNET_DIRECT, NVLS_TREE, int8_t, __nv_bfloat16) are put
 * back together. */
int exp_comm_parse_nccl(const char *name, struct exp_comm_nccl *ret)
{
	static const char *const algos[] = { "RING", "TREE", "COLLNET", "NVLS", "PAT", "COLLNETDIRECT",
					     "COLLNETCHAIN", "NVLSTREE", NULL };
	static const char *const protos[] = { "LL", "LL128", "SIMPLE", NULL };
	static const char *const redops[] = { "Sum", "Prod", "Min", "Max", "PreMulSum", "SumPostDiv", "Avg", NULL };
	const char *p = strstr(name, "ncclDevKernel_");
	size_t skip = 14;
	if (!p) {
		p = strstr(name, "ncclKernel_");
		skip = 11;
	}
	if (!p)
		return 0;
	p += skip;
	char id[256];
	size_t n = 0;
	while (n + 1 < sizeof id && (isalnum((unsigned char)p[n]) || p[n] == '_'))
		n++;
	memcpy(id, p, n);
	id[n] = '\0';
	struct exp_comm_nccl k = { .data_type = EXP_COMM_DTYPE_NA };
	char *save = NULL, *w = strtok_r(id, "_", &save), *prev = NULL;
	if (!w)
		return 0;
	snprintf(k.collective, sizeof k.collective, "%s", w);
	while ((w = strtok_r(NULL, "_", &save))) {
		char two[64];
		/* a word that completes the one before it */
		if (prev && (streq(w, "DIRECT") || streq(w, "CHAIN") || (streq(w, "TREE") && streq(prev, "NVLS")))) {
			snprintf(two, sizeof two, "%s%s", prev, w);
			snprintf(k.algorithm, sizeof k.algorithm, "%s",
				 streq(two, "COLLNETDIRECT") ? "COLLNET_DIRECT" :
				 streq(two, "COLLNETCHAIN") ? "COLLNET_CHAIN" : "NVLS_TREE");
			prev = NULL;
			continue;
		}
		if (streq(w, "t") && prev) { /* int8_t, uint64_t... */
			snprintf(two, sizeof two, "%s_t", prev);
			if (exp_comm_data_type(two) != EXP_COMM_DTYPE_INVALID)
				k.data_type = exp_comm_data_type(two);
			prev = NULL;
			continue;
		}
		if (word_in(w, algos))
			snprintf(k.algorithm, sizeof k.algorithm, "%s", w);
		else if (word_in(w, protos))
			snprintf(k.protocol, sizeof k.protocol, "%s", w);
		else if (word_in(w, redops))
			snprintf(k.reduction, sizeof k.reduction, "%s", w);
		else if (exp_comm_data_type(w) != EXP_COMM_DTYPE_INVALID)
			k.data_type = exp_comm_data_type(w);
		prev = w;
	}
	*ret = k;
	return 1;
}

/* --- torch_npu's message dict ---------------------------------------------------- */

/* A quote: ", ' or \" (the escaped form torch_npu writes). */
static size_t quote_at(const char *p)
{
	if (*p == '"' || *p == '\'')
		return 1;
	if (p[0] == '\\' && (p[1] == '"' || p[1] == '\''))
		return 2;
	return 0;
}

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* A key or value: quoted (any of the quotes above, closed by any of them)
 * or bare (up to , : or }); NULL when there is none. */
static const char *token(const char *p, char *buf, size_t size, const char *stops)
{
	size_t q = quote_at(p), n = 0;
	if (q) {
		p += q;
		while (*p && !quote_at(p)) {
			if (n + 1 < size)
				buf[n++] = *p;
			p++;
		}
		if (!*p)
			return NULL;
		p += quote_at(p);
	} else {
		while (*p && !strchr(stops, *p)) {
			if (n + 1 < size)
				buf[n++] = *p;
			p++;
		}
		while (n > 0 && isspace((unsigned char)buf[n - 1]))
			n--;
		if (n == 0)
			return NULL;
	}
	buf[n] = '\0';
	return p;
}

/* src into dst[size], cut to fit (a value longer than the field is cut,
 * as msprof cuts long names) */
static void set_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool num(const char *s, int64_t *ret)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *skip_ws(end) || errno)
		return false;
	*ret = v;
	return true;
}

int exp_comm_parse_dict(const char *msg, struct exp_comm_dict *ret)
{
	struct exp_comm_dict d = { .count = -1, .stream = -1, .src = -1, .dst = -1, .rank_size = -1,
				   .data_type = EXP_COMM_DTYPE_NA };
	const char *p = skip_ws(msg);
	if (*p != '{')
		return 0;
	p = skip_ws(p + 1);
	while (*p != '}') {
		char key[64], val[256];
		if (!(p = token(p, key, sizeof key, ":,}")))
			return 0;
		p = skip_ws(p);
		if (*p != ':')
			return 0;
		if (!(p = token(skip_ws(p + 1), val, sizeof val, ",}")))
			return 0;
		int64_t v;
		if (streq(key, "opName"))
			set_str(d.op_name, sizeof d.op_name, val);
		else if (streq(key, "groupName"))
			set_str(d.group, sizeof d.group, val);
		else if (streq(key, "dataType"))
			d.data_type = exp_comm_data_type(val);
		else if (streq(key, "algType"))
			set_str(d.algorithm, sizeof d.algorithm, val);
		else if (streq(key, "backend"))
			set_str(d.backend, sizeof d.backend, val);
		else if (streq(key, "groupRanks") && strspn(val, "0123456789,-:") == strlen(val))
			set_str(d.ranks, sizeof d.ranks, val);
		else if (streq(key, "count") && num(val, &v))
			d.count = v;
		else if (streq(key, "streamId") && num(val, &v))
			d.stream = v;
		else if (streq(key, "srcRank") && num(val, &v))
			d.src = v;
		else if ((streq(key, "destRank") || streq(key, "dstRank")) && num(val, &v))
			d.dst = v;
		else if (streq(key, "rankSize") && num(val, &v))
			d.rank_size = v;
		p = skip_ws(p);
		if (*p == ',')
			p = skip_ws(p + 1);
		else if (*p != '}')
			return 0;
	}
	if (!d.op_name[0])
		return 0;
	*ret = d;
	return 1;
}

/* --- building the tables ------------------------------------------------------------ */

/* One operation as read, before it is numbered and written. */
struct comm_op {
	int64_t start, end, conn, device, task, tid, count, stream, src, dst, rank_size;
	int64_t name_id;           /* the kernel's demangled name (COMPUTE_TASK_INFO), -1: none */
	int64_t pid, launch;       /* kernels: the launching call's process and start (-1: none) */
	int64_t plugin_row;        /* plugin: its NCCL_PROFILER_OP rowid, -1 none */
	int data_type;
	const char *type;          /* msprof's opType, NULL: unknown (named by `raw`) */
	char *raw;                 /* the kernel's name, or the range's message */
	char group[128];
	char algorithm[48];
	char ranks[256];           /* the group's global ranks (COMMUNICATION_GROUP), "" not known */
	bool nccl;                 /* a kernel (alone, or giving a plugin op its times) */
	bool plugin;               /* NCCL's profiler plugin reported it */
	bool merged;               /* a kernel whose plugin op took it: not written */
	bool nccl_range;           /* an mstx range of an operation on NCCL (mstx.torch's backend) */
};

struct comm_build {
	struct exp *e;
	struct comm_op *v;
	size_t n, cap;
	uint64_t not_dict, no_end, marks, matched, nccl_ranges;
};

static struct comm_op *new_op(struct comm_build *b, const char *raw)
{
	struct comm_op *v = grow_array(b->v, &b->cap, b->n, sizeof *v, 64);
	if (!v)
		return NULL;
	b->v = v;
	struct comm_op *o = &v[b->n];
	*o = (struct comm_op){ .task = -1, .tid = -1, .name_id = -1, .count = -1, .stream = -1, .src = -1, .dst = -1,
			       .rank_size = -1, .pid = -1, .launch = -1, .plugin_row = -1,
			       .data_type = EXP_COMM_DTYPE_NA };
	if (!(o->raw = strdup(raw ? raw : "")))
		return NULL;
	b->n++;
	return o;
}

static int nccl_row(sqlite3_stmt *st, void *ctx)
{
	struct comm_build *b = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 5);
	struct exp_comm_nccl k;
	if (!name || exp_comm_parse_nccl(name, &k) <= 0)
		return 0;
	struct comm_op *o = new_op(b, name);
	if (!o)
		return -ENOMEM;
	o->task = sqlite3_column_int64(st, 0);
	o->start = sqlite3_column_int64(st, 1);
	o->end = sqlite3_column_int64(st, 2);
	o->device = sqlite3_column_int64(st, 3);
	o->conn = sqlite3_column_int64(st, 4);
	o->stream = sqlite3_column_int64(st, 6);
	o->name_id = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
	o->pid = sqlite3_column_int64(st, 8);
	o->launch = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
	o->nccl = true;
	o->type = exp_comm_op_type(k.collective);
	o->data_type = k.data_type;
	/* NCCL's kernels do not name their communicator */
	snprintf(o->group, sizeof o->group, "%s", EXP_COMM_NCCL_GROUP);
	if (k.algorithm[0] && k.protocol[0])
		snprintf(o->algorithm, sizeof o->algorithm, "%s-%s", k.algorithm, k.protocol);
	else
		snprintf(o->algorithm, sizeof o->algorithm, "%s%s", k.algorithm, k.protocol);
	if (!o->type) { /* a collective this table does not know: its own word */
		free(o->raw);
		if (!(o->raw = strdup(k.collective)))
			return -ENOMEM;
	}
	return 0;
}

/* An operation NCCL reported to its profiler plugin (NCCL_PROFILER_OP). */
enum { P_ROW, P_START, P_END, P_TID, P_KIND, P_FUNC, P_DTYPE, P_COUNT, P_PEER, P_ALGO, P_PROTO, P_HASH, P_NAME,
       P_RANK, P_NRANKS };

static const char *col_text(sqlite3_stmt *st, int c)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	return v ? v : "";
}

static int plugin_row(sqlite3_stmt *st, void *ctx)
{
	struct comm_build *b = ctx;
	const char *func = col_text(st, P_FUNC), *algo = col_text(st, P_ALGO), *proto = col_text(st, P_PROTO);
	const char *name = col_text(st, P_NAME);
	struct comm_op *o = new_op(b, func[0] ? func : "N/A");
	if (!o)
		return -ENOMEM;
	o->plugin = true;
	o->plugin_row = sqlite3_column_int64(st, P_ROW);
	o->start = sqlite3_column_int64(st, P_START);
	o->end = sqlite3_column_int64(st, P_END);
	o->tid = sqlite3_column_int64(st, P_TID);
	o->pid = (int64_t)((uint64_t)o->tid >> 32);
	o->type = exp_comm_op_type(func);
	o->count = sqlite3_column_int64(st, P_COUNT);
	const char *dt = col_text(st, P_DTYPE);
	o->data_type = dt[0] ? exp_comm_data_type(dt) : EXP_COMM_DTYPE_NA;
	int64_t nranks = sqlite3_column_int64(st, P_NRANKS), rank = sqlite3_column_int64(st, P_RANK);
	int64_t peer = sqlite3_column_int64(st, P_PEER);
	o->rank_size = nranks > 0 ? nranks : -1;
	/* the communicator: its name where NCCL gave one, else its hash */
	if (name[0])
		snprintf(o->group, sizeof o->group, "%s", name);
	else
		snprintf(o->group, sizeof o->group, "nccl_%s", col_text(st, P_HASH));
	if (algo[0] && proto[0])
		snprintf(o->algorithm, sizeof o->algorithm, "%s-%s", algo, proto);
	else
		snprintf(o->algorithm, sizeof o->algorithm, "%s%s", algo, proto);
	if (sqlite3_column_int64(st, P_KIND) == 2 && peer >= 0 && rank >= 0) {
		bool recv = o->type && streq(o->type, "hcom_receive_");
		o->src = recv ? peer : rank;
		o->dst = recv ? rank : peer;
	}
	return 0;
}

static int by_pid_start(const void *a, const void *b)
{
	const struct comm_op *x = *(const struct comm_op *const *)a, *y = *(const struct comm_op *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->plugin_row > y->plugin_row) - (x->plugin_row < y->plugin_row);
}

static int by_pid_launch(const void *a, const void *b)
{
	const struct comm_op *x = *(const struct comm_op *const *)a, *y = *(const struct comm_op *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->launch != y->launch)
		return x->launch < y->launch ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* How far back from a launch the plugin ops whose span may hold it are
 * looked for: NCCL's events of one process last from plan to launch, so
 * few of them overlap one launch. */
#define MATCH_BACK 64

/* One operation where the plugin and a kernel both saw it: a kernel whose
 * launching call (same process) started inside a plugin op's host span,
 * of the same type, goes to the earliest such op not yet given one; the
 * op then has the kernel's device times, device, stream and task, the
 * kernel is not written apart.  A kernel NCCL launched for several
 * operations of a group (ncclGroupStart/End) gives its times to the
 * first; the others keep their host times. */
static int match_plugin(struct comm_build *b)
{
	size_t np = 0, nk = 0;
	for (size_t i = 0; i < b->n; i++) {
		np += b->v[i].plugin;
		nk += b->v[i].nccl && b->v[i].launch >= 0;
	}
	if (!np || !nk)
		return 0;
	_cleanup_free_ struct comm_op **p = calloc(np, sizeof *p), **k = calloc(nk, sizeof *k);
	if (!p || !k)
		return -ENOMEM;
	np = nk = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (b->v[i].plugin)
			p[np++] = &b->v[i];
		else if (b->v[i].nccl && b->v[i].launch >= 0)
			k[nk++] = &b->v[i];
	}
	qsort_safe(p, np, sizeof *p, by_pid_start);
	qsort_safe(k, nk, sizeof *k, by_pid_launch);
	size_t hi = 0; /* p[0..hi): ops of a lower pid, or started by the launch */
	for (size_t j = 0; j < nk; j++) {
		struct comm_op *kern = k[j];
		while (hi < np && (p[hi]->pid < kern->pid || (p[hi]->pid == kern->pid && p[hi]->start <= kern->launch)))
			hi++;
		struct comm_op *best = NULL;
		for (size_t x = hi, steps = 0; x > 0 && steps < MATCH_BACK; x--, steps++) {
			struct comm_op *o = p[x - 1];
			if (o->pid != kern->pid)
				break;
			if (o->nccl || o->end < kern->launch || o->type != kern->type ||
			    (!o->type && !streq(o->raw, kern->raw)))
				continue;
			best = o; /* walking back: the last found starts first */
		}
		if (!best)
			continue;
		best->nccl = true;
		best->start = kern->start, best->end = kern->end;
		best->device = kern->device, best->conn = kern->conn, best->stream = kern->stream;
		best->task = kern->task, best->name_id = kern->name_id;
		kern->merged = true;
		b->matched++;
	}
	return 0;
}

static int mstx_row(sqlite3_stmt *st, void *ctx)
{
	struct comm_build *b = ctx;
	int64_t type = sqlite3_column_int64(st, 4);
	if (type != 1 && type != 2) {
		b->marks++;
		return 0;
	}
	if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
		b->no_end++;
		return 0;
	}
	const char *msg = (const char *)sqlite3_column_text(st, 2);
	struct exp_comm_dict d;
	bool dict = msg && exp_comm_parse_dict(msg, &d) > 0;
	struct comm_op *o = new_op(b, msg);
	if (!o)
		return -ENOMEM;
	o->start = sqlite3_column_int64(st, 0);
	o->end = sqlite3_column_int64(st, 1);
	o->tid = sqlite3_column_int64(st, 3);
	o->conn = sqlite3_column_int64(st, 5);
	if (!dict) {
		b->not_dict++;
		snprintf(o->group, sizeof o->group, "N/A");
		return 0;
	}
	o->type = exp_comm_op_type(d.op_name);
	if (!o->type) {
		free(o->raw);
		if (!(o->raw = strdup(d.op_name)))
			return -ENOMEM;
	}
	snprintf(o->group, sizeof o->group, "%s", d.group[0] ? d.group : "N/A");
	snprintf(o->algorithm, sizeof o->algorithm, "%s", d.algorithm);
	o->data_type = d.data_type;
	o->count = d.count, o->stream = d.stream, o->src = d.src, o->dst = d.dst, o->rank_size = d.rank_size;
	o->nccl_range = strcasecmp(d.backend, "nccl") == 0;
	snprintf(o->ranks, sizeof o->ranks, "%s", d.ranks);
	o->pid = (int64_t)((uint64_t)o->tid >> 32);
	return 0;
}

/* An operation NCCL itself reported (its kernels through CUPTI, its
 * profiler plugin) is the operation: the mstx range mstx.torch opened
 * around the same call of a process whose NCCL operations were recorded
 * would count it twice, and is left out (counted for the report).  Where
 * NCCL reported nothing of the process (no device trace, an NCCL before
 * the plugin), the ranges are its operations. */
static void drop_nccl_ranges(struct comm_build *b)
{
	_cleanup_free_ int64_t *pids = NULL;
	size_t np = 0, cap = 0, w = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (!(b->v[i].nccl || b->v[i].plugin) || b->v[i].pid < 0)
			continue;
		bool have = false;
		for (size_t k = 0; k < np && !have; k++)
			have = pids[k] == b->v[i].pid;
		if (have)
			continue;
		int64_t *g = grow_array(pids, &cap, np, sizeof *pids, 8);
		if (!g)
			return; /* no memory: both kept, as before */
		pids = g;
		pids[np++] = b->v[i].pid;
	}
	for (size_t i = 0; i < b->n; i++) {
		bool drop = false;
		for (size_t k = 0; b->v[i].nccl_range && k < np && !drop; k++)
			drop = pids[k] == b->v[i].pid;
		if (drop) {
			free(b->v[i].raw);
			b->nccl_ranges++;
		} else {
			b->v[w++] = b->v[i];
		}
	}
	b->n = w;
}

static int op_cmp(const void *a, const void *b)
{
	const struct comm_op *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	/* the rest only decides between operations of one span, so that
	 * their numbers do not depend on qsort's order */
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Each operation's number among the earlier ones of its group and type
 * (of its name, for a type not known): the operations sorted by group,
 * type, then start order, counted along each run.  A job can have hundreds
 * of thousands of operations. */
struct op_key {
	const char *group, *key;
	bool known;
	size_t i;
};

static int key_cmp(const void *a, const void *b)
{
	const struct op_key *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	if (c == 0)
		c = (int)y->known - (int)x->known;
	if (c == 0)
		c = strcmp(x->key, y->key);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static bool same_key(const struct op_key *x, const struct op_key *y)
{
	return x->known == y->known && streq(x->group, y->group) && streq(x->key, y->key);
}

static int op_numbers(const struct comm_op *v, size_t n, unsigned **ret)
{
	struct op_key *k = calloc(n, sizeof *k);
	unsigned *num = calloc(n, sizeof *num);
	if (!k || !num) {
		free(k), free(num);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct op_key){ v[i].group, v[i].type ? v[i].type : v[i].raw, v[i].type != NULL, i };
	qsort_safe(k, n, sizeof *k, key_cmp);
	for (size_t j = 0; j < n; j++)
		num[k[j].i] = j && same_key(&k[j - 1], &k[j]) ? num[k[j - 1].i] + 1 : 0;
	free(k);
	*ret = num;
	return 0;
}

static int write_op(struct comm_build *b, sqlite3_stmt *op, sqlite3_stmt *task, sqlite3_stmt *src, size_t i,
		    unsigned number, int64_t kernel_type)
{
	struct exp *e = b->e;
	const struct comm_op *o = &b->v[i];
	char name[512];
	int64_t name_id, group_id, alg_id, type_id, raw_id;
	if (o->type)
		snprintf(name, sizeof name, "%s_%u_0_1", o->type, number);
	else if (number == 0)
		snprintf(name, sizeof name, "%s", o->raw);
	else /* names are unique in their group: analyze keys its files by them */
		snprintf(name, sizeof name, "%.480s_%u", o->raw, number);
	int r = exp_intern_id(e, name, &name_id);
	if (r == 0)
		r = exp_intern_id(e, o->group, &group_id);
	if (r == 0)
		r = exp_intern_id(e, o->algorithm[0] ? o->algorithm : "N/A", &alg_id);
	if (r == 0)
		r = exp_intern_id(e, o->type ? o->type : o->raw, &type_id);
	if (r == 0)
		r = exp_intern_id(e, o->raw, &raw_id);
	if (r < 0)
		return r;
	int c = 1;
	sqlite3_bind_int64(op, c++, name_id);
	sqlite3_bind_int64(op, c++, o->start);
	sqlite3_bind_int64(op, c++, o->end);
	sqlite3_bind_int64(op, c++, o->conn);
	sqlite3_bind_int64(op, c++, group_id);
	sqlite3_bind_int64(op, c++, (int64_t)i);
	sqlite3_bind_int64(op, c++, 0); /* relay */
	sqlite3_bind_int64(op, c++, 0); /* retry */
	sqlite3_bind_int64(op, c++, o->data_type);
	sqlite3_bind_int64(op, c++, alg_id);
	db_bind_i64_or_null(op, c++, o->count >= 0, o->count);
	sqlite3_bind_int64(op, c++, type_id);
	sqlite3_bind_int64(op, c++, o->device);
	db_bind_i64_or_null(op, c++, o->rank_size >= 0, o->rank_size);
	if ((r = exp_step_done(e, op, "COMMUNICATION_OP")) < 0)
		return r;
	c = 1;
	sqlite3_bind_int64(src, c++, (int64_t)i);
	sqlite3_bind_text(src, c++, o->plugin ? "plugin" : o->nccl ? "nccl" : "mstx", -1, SQLITE_STATIC);
	db_bind_i64_or_null(src, c++, o->task >= 0, o->task);
	db_bind_i64_or_null(src, c++, o->tid >= 0, o->tid);
	db_bind_i64_or_null(src, c++, o->stream >= 0, o->stream);
	db_bind_i64_or_null(src, c++, o->src >= 0, o->src);
	db_bind_i64_or_null(src, c++, o->dst >= 0, o->dst);
	sqlite3_bind_int64(src, c++, raw_id);
	if ((r = exp_step_done(e, src, "COMMUNICATION_OP_SOURCE")) < 0)
		return r;
	if (!o->nccl)
		return 0;
	/* the kernel is the operation's one task: what its name says, the
	 * rest unknown (NULL) */
	c = 1;
	sqlite3_bind_int64(task, c++, o->name_id >= 0 ? o->name_id : raw_id);
	sqlite3_bind_int64(task, c++, o->task);
	sqlite3_bind_int64(task, c++, kernel_type);
	sqlite3_bind_int64(task, c++, 0); /* planeId */
	sqlite3_bind_int64(task, c++, group_id);
	for (int k = 0; k < 6; k++) /* notifyId, rdmaType, srcRank, dstRank, transportType, size */
		sqlite3_bind_null(task, c++);
	sqlite3_bind_int64(task, c++, o->data_type);
	sqlite3_bind_null(task, c++); /* linkType */
	sqlite3_bind_int64(task, c++, (int64_t)i);
	sqlite3_bind_int64(task, c++, 1); /* isMaster */
	sqlite3_bind_null(task, c++);     /* bandwidth */
	return exp_step_done(e, task, "COMMUNICATION_TASK_INFO");
}

static int enum_rows(struct exp *e)
{
	sqlite3_stmt *st;
	int r = exp_prepare(e, "INSERT INTO ENUM_HCCL_DATA_TYPE VALUES (?, ?)", &st);
	for (size_t i = 0; i < ARRAY_SIZE(hccl_data_types) && r == 0; i++) {
		sqlite3_bind_int64(st, 1, hccl_data_types[i].id);
		sqlite3_bind_text(st, 2, hccl_data_types[i].name, -1, SQLITE_STATIC);
		r = exp_step_done(e, st, "ENUM_HCCL_DATA_TYPE");
	}
	sqlite3_finalize(st);
	return r;
}

static int build_comm(struct exp *e)
{
	/* NCCL kernels, the GPU_TASK name being CUPTI's (mangled or not) */
	static const char nccl_sql[] =
		"SELECT t.globalTaskId, t.startNs, t.endNs, t.deviceId, t.connectionId, g.name, t.streamId, c.name, "
		"g.pid, (SELECT min(a.startNs) FROM GPU_API a WHERE a.pid = g.pid AND a.correlationId = g.correlationId) "
		"FROM TASK t JOIN GPU_TASK g ON g.rowid = t.globalTaskId "
		"LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId WHERE g.kind = 1 AND "
		"(g.name LIKE '%ncclDevKernel%' OR g.name LIKE '%ncclKernel%')";
	/* NCCL's profiler plugin */
	static const char plugin_sql[] =
		"SELECT p.rowid, p.startNs, p.endNs, p.globalTid, p.kind, f.value, d.value, p.count, p.peer, a.value, "
		"r.value, p.commHash, n.value, p.rank, p.nRanks FROM NCCL_PROFILER_OP p "
		"LEFT JOIN STRING_IDS f ON f.id = p.func LEFT JOIN STRING_IDS d ON d.id = p.dataType "
		"LEFT JOIN STRING_IDS a ON a.id = p.algo LEFT JOIN STRING_IDS r ON r.id = p.proto "
		"LEFT JOIN STRING_IDS n ON n.id = p.commName";
	static const char mstx_sql[] =
		"SELECT m.startNs, m.endNs, s.value, m.globalTid, m.eventType, m.connectionId FROM MSTX_EVENTS m "
		"JOIN STRING_IDS d ON d.id = m.domainId LEFT JOIN STRING_IDS s ON s.id = m.message "
		"WHERE d.value = '" EXP_COMM_MSTX_DOMAIN "'";
	int r = enum_rows(e);
	struct comm_build b = { .e = e };
	if (r == 0 && exp_table_has_rows(e, "TASK") && exp_table_has_rows(e, "GPU_TASK"))
		r = exp_each(e, nccl_sql, NULL, nccl_row, &b);
	if (r >= 0 && exp_table_has_rows(e, "NCCL_PROFILER_OP"))
		r = exp_each(e, plugin_sql, NULL, plugin_row, &b);
	if (r >= 0)
		r = match_plugin(&b);
	if (r >= 0 && b.matched) { /* the kernels a plugin op took are not operations of their own */
		size_t w = 0;
		for (size_t i = 0; i < b.n; i++) {
			if (b.v[i].merged)
				free(b.v[i].raw);
			else
				b.v[w++] = b.v[i];
		}
		b.n = w;
	}
	if (r >= 0 && exp_table_has_rows(e, "MSTX_EVENTS"))
		r = exp_each(e, mstx_sql, NULL, mstx_row, &b);
	if (r >= 0)
		drop_nccl_ranges(&b);
	if (r >= 0 && b.n) {
		sqlite3_stmt *op = NULL, *task = NULL, *src = NULL, *grp = NULL;
		int64_t kernel_type = 0;
		qsort_safe(b.v, b.n, sizeof *b.v, op_cmp);
		r = exp_prepare(e, "INSERT INTO COMMUNICATION_OP VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &op);
		if (r == 0)
			r = exp_prepare(e, "INSERT INTO COMMUNICATION_TASK_INFO VALUES "
					   "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &task);
		if (r == 0)
			r = exp_prepare(e, "INSERT INTO COMMUNICATION_OP_SOURCE VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &src);
		if (r == 0)
			r = exp_intern_id(e, "KERNEL", &kernel_type);
		/* a group's ranks once, as its first operation that names them */
		if (r == 0)
			r = exp_exec(e, "CREATE UNIQUE INDEX IF NOT EXISTS CommGroupIndex ON COMMUNICATION_GROUP (groupName)");
		if (r == 0)
			r = exp_prepare(e, "INSERT OR IGNORE INTO COMMUNICATION_GROUP VALUES (?, ?)", &grp);
		_cleanup_free_ unsigned *numbers = NULL;
		if (r == 0)
			r = op_numbers(b.v, b.n, &numbers);
		for (size_t i = 0; i < b.n && r == 0; i++) {
			r = write_op(&b, op, task, src, i, numbers[i], kernel_type);
			int64_t group_id;
			if (r == 0 && b.v[i].ranks[0] && (r = exp_intern_id(e, b.v[i].group, &group_id)) == 0) {
				sqlite3_bind_int64(grp, 1, group_id);
				sqlite3_bind_text(grp, 2, b.v[i].ranks, -1, SQLITE_STATIC);
				r = exp_step_done(e, grp, "COMMUNICATION_GROUP");
			}
		}
		sqlite3_finalize(op);
		sqlite3_finalize(task);
		sqlite3_finalize(src);
		sqlite3_finalize(grp);
		/* msprof keeps communication tasks out of COMPUTE_TASK_INFO:
		 * cluster tools count its tasks as computation, the rest of TASK
		 * as communication or free (NOTES.md §1); the device task
		 * outputs name these from COMMUNICATION_TASK_INFO */
		if (r == 0 && exp_table_has_rows(e, "COMMUNICATION_TASK_INFO"))
			r = exp_exec(e, "CREATE INDEX CommTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId); "
					"DELETE FROM COMPUTE_TASK_INFO WHERE globalTaskId IN "
					"(SELECT globalTaskId FROM COMMUNICATION_TASK_INFO)");
		/* gloo's and MPI's socket calls inside the mstx operations
		 * (OSRT_API, built by the osrt domain before this one) */
		if (r == 0)
			r = exp_comm_host_build(e);
	}
	if (b.not_dict)
		exp_note(e, "communication: %" PRIu64 " range(s) of the mstx domain 'communication' have a message "
				"that is not a dict with an opName ({\"opName\": ..., \"groupName\": ...}): each is an "
				"operation named by its message", b.not_dict);
	if (b.marks)
		exp_note(e, "communication: %" PRIu64 " mark(s) of the mstx domain 'communication' are not "
				"operations (only ranges are) and are left out of COMMUNICATION_OP", b.marks);
	if (b.no_end)
		exp_note(e, "communication: %" PRIu64 " range(s) of the mstx domain 'communication' have no end "
				"and are left out", b.no_end);
	if (b.nccl_ranges)
		exp_note(e, "communication: %" PRIu64 " range(s) of the mstx domain 'communication' around NCCL "
				"operations are left out: NCCL's own records (kernels, profiler plugin) of the same "
				"processes are the operations", b.nccl_ranges);
	for (size_t i = 0; i < b.n; i++)
		free(b.v[i].raw);
	free(b.v);
	return r < 0 ? r : 0;
}

/* --- the Communication layer ------------------------------------------------------- */

static bool has_layers(struct exp *e)
{
	return exp_track_on(e, TRACK_COMMUNICATION) && exp_table_has_rows(e, "COMMUNICATION_OP");
}

enum { L_DEV, L_GROUP, L_NAME, L_START, L_END, L_CONN, L_DTYPE, L_ALG, L_COUNT, L_RELAY, L_RETRY, L_RANKS,
       L_SOURCE, L_SRC, L_DST, L_GROUP_NO };

struct layer_walk {
	struct exp *e;
	struct exp_tl *t;
	struct exp_buf b;
	int64_t dev, group_no;
	char group[256];
	unsigned pid;
	unsigned n_devs;   /* devices named so far: the second is "(device N)" */
};

static void opt_arg(struct exp_buf *b, const char *key, sqlite3_stmt *st, int col)
{
	exp_buf_puts(b, key);
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		exp_buf_lit(b, "\"N/A\"");
	else
		exp_buf_i64(b, sqlite3_column_int64(st, col));
}

/* The group's thread: msprof names a group's big-operation thread after it. */
static void group_thread(struct layer_walk *w)
{
	FILE *m = exp_tl_meta(w->t);
	fprintf(m, "{\"name\":\"thread_name\",\"pid\":%u,\"tid\":%" PRId64 ",\"ph\":\"M\",\"args\":{\"name\":\"Group ",
		w->pid, w->group_no);
	exp_json_str(m, w->group, strlen(w->group));
	fprintf(m, " Communication\"}}");
	fprintf(exp_tl_meta(w->t), "{\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%" PRId64
		   ",\"ph\":\"M\",\"args\":{\"sort_index\":%" PRId64 "}}",
		w->pid, w->group_no, w->group_no);
}

/* Named as every device layer is (unique names: MindSpore's parser raises
 * on a second "Communication"). */
static void device_process(struct layer_walk *w)
{
	exp_tl_device_process(w->t, w->pid, &export_tracks[TRACK_COMMUNICATION], w->dev, w->n_devs++ == 0);
}

static int layer_row(sqlite3_stmt *st, void *ctx)
{
	struct layer_walk *w = ctx;
	int64_t dev = sqlite3_column_int64(st, L_DEV), no = sqlite3_column_int64(st, L_GROUP_NO);
	if (dev < 0 || dev > 30)
		dev = 0;
	if (dev != w->dev || no != w->group_no) {
		if (w->group_no >= 0)
			group_thread(w);
		if (dev != w->dev && w->dev >= 0)
			device_process(w);
		w->dev = dev, w->group_no = no;
		const char *g = (const char *)sqlite3_column_text(st, L_GROUP);
		snprintf(w->group, sizeof w->group, "%s", g ? g : "");
		w->pid = export_format_pid(w->e->app_pid, export_tracks[TRACK_COMMUNICATION].sort_index, (unsigned)dev);
	}
	const char *name = (const char *)sqlite3_column_text(st, L_NAME);
	const char *alg = (const char *)sqlite3_column_text(st, L_ALG);
	const char *src = (const char *)sqlite3_column_text(st, L_SOURCE);
	struct exp_buf *b = &w->b;
	name = name ? name : "";
	exp_buf_x_event(b, name, strlen(name), w->pid, (uint64_t)no, sqlite3_column_int64(st, L_START),
			sqlite3_column_int64(st, L_END));
	exp_buf_lit(b, "\"connection_id\":");
	exp_buf_i64(b, sqlite3_column_int64(st, L_CONN));
	exp_buf_lit(b, ",\"model id\":4294967295,\"data_type\":\"");
	exp_buf_puts(b, exp_comm_data_type_name((int)sqlite3_column_int64(st, L_DTYPE)));
	exp_buf_lit(b, "\",\"alg_type\":\"");
	exp_buf_json_str(b, alg ? alg : "N/A", strlen(alg ? alg : "N/A"));
	exp_buf_putc(b, '"');
	opt_arg(b, ",\"count\":", st, L_COUNT);
	opt_arg(b, ",\"relay\":", st, L_RELAY);
	opt_arg(b, ",\"retry\":", st, L_RETRY);
	opt_arg(b, ",\"rank_size\":", st, L_RANKS);
	if (sqlite3_column_type(st, L_SRC) != SQLITE_NULL)
		opt_arg(b, ",\"src rank\":", st, L_SRC);
	if (sqlite3_column_type(st, L_DST) != SQLITE_NULL)
		opt_arg(b, ",\"dst rank\":", st, L_DST);
	exp_buf_lit(b, ",\"source\":\"");
	exp_buf_puts(b, src ? src : "");
	exp_buf_lit(b, "\"}}");
	if (b->err)
		return b->err;
	exp_buf_flush_to(b, exp_tl_event(w->t));
	return 0;
}

static int write_layer(struct exp *e, struct exp_tl *t, struct exp_tl *own)
{
	/* one thread per group, numbered by the groups' names */
	static const char sql[] =
		"WITH g AS (SELECT DISTINCT groupName AS id FROM COMMUNICATION_OP), "
		"gn AS (SELECT g.id, s.value AS name, row_number() OVER (ORDER BY s.value) AS no FROM g "
		"JOIN STRING_IDS s ON s.id = g.id) "
		"SELECT o.deviceId, gn.name, n.value, o.startNs, o.endNs, o.connectionId, o.dataType, a.value, o.count, "
		"o.relay, o.retry, o.rankSize, x.source, x.srcRank, x.dstRank, gn.no FROM COMMUNICATION_OP o "
		"JOIN gn ON gn.id = o.groupName JOIN STRING_IDS n ON n.id = o.opName "
		"LEFT JOIN STRING_IDS a ON a.id = o.algType LEFT JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId "
		"ORDER BY o.deviceId, gn.no, o.startNs, o.opId";
	if (!has_layers(e))
		return 0;
	struct layer_walk w = { .e = e, .t = t, .dev = -1, .group_no = -1 };
	int r = exp_each(e, sql, NULL, layer_row, &w);
	if (r >= 0 && w.group_no >= 0) {
		group_thread(&w);
		device_process(&w);
	}
	exp_buf_release(&w.b);
	return r < 0 ? r : 0;
}

/* --- communication_statistic ------------------------------------------------------- */

static void statistic_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	char b[32];
	int64_t n = sqlite3_column_int64(st, 2), total = sqlite3_column_int64(st, 3);
	int64_t all = sqlite3_column_int64(st, 6);
	fprintf(f, "%" PRId64 ",", (int64_t)sqlite3_column_int64(st, 0));
	const char *type = (const char *)sqlite3_column_text(st, 1);
	exp_csv_field(f, type ? type : "", type ? strlen(type) : 0);
	fprintf(f, ",%" PRId64 ",", n);
	exp_format_ts(total, b);
	fprintf(f, "%s,", b);
	exp_format_ts(sqlite3_column_int64(st, 4), b);
	fprintf(f, "%s,", b);
	exp_format_ts(n ? total / n : 0, b);
	fprintf(f, "%s,", b);
	exp_format_ts(sqlite3_column_int64(st, 5), b);
	fputs(b, f);
	exp_put_num(f, all ? 100.0 * (double)total / (double)all : 0, 3);
	fputc('\n', f);
}

static int write_summaries(struct exp *e, const char *dir)
{
	/* msprof's communication_statistic: per device and operation type, by
	 * total time; Ratio is the share of the device's communication time */
	static const char sql[] =
		"SELECT o.deviceId, s.value, count(*), sum(o.endNs - o.startNs), min(o.endNs - o.startNs), "
		"max(o.endNs - o.startNs), (SELECT sum(a.endNs - a.startNs) FROM COMMUNICATION_OP a "
		"WHERE a.deviceId = o.deviceId) FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.opType "
		"GROUP BY o.deviceId, o.opType ORDER BY o.deviceId, 4 DESC, 2";
	if (!exp_table_has_rows(e, "COMMUNICATION_OP")) {
		exp_remove_stale(dir, export_csv_tables[CSV_COMMUNICATION_STATISTIC].type,
				 e->summary_json ? ".json" : ".csv", e->ts, 0);
		return 0;
	}
	return exp_table_query(e, dir, CSV_COMMUNICATION_STATISTIC, sql, statistic_row, NULL);
}

/* --- NCCL's profiler plugin: RAW_AGENT_COMM_OP -> NCCL_PROFILER_OP -------------------- */

static const char plugin_insert_sql[] =
	"INSERT INTO NCCL_PROFILER_OP VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static int take_comm_op(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec,
			struct raw_cur *c, int64_t t)
{
	(void)rec;
	uint32_t tid = raw_cur_u32(c), kind = raw_cur_u32(c);
	uint64_t end = raw_cur_u64(c), hash = raw_cur_u64(c);
	int32_t rank = (int32_t)raw_cur_u32(c), nranks = (int32_t)raw_cur_u32(c);
	uint64_t count = raw_cur_u64(c), bytes = raw_cur_u64(c);
	int32_t peer = (int32_t)raw_cur_u32(c);
	uint32_t channels = raw_cur_u32(c);
	uint64_t seq = raw_cur_u64(c);
	uint32_t version = raw_cur_u32(c);
	(void)raw_cur_u32(c);
	_cleanup_free_ char *str = malloc(5 * (RAW_AGENT_MAX_STR + 1));
	if (!str)
		return -ENOMEM;
	char *func = str, *dtype = func + RAW_AGENT_MAX_STR + 1, *algo = dtype + RAW_AGENT_MAX_STR + 1;
	char *proto = algo + RAW_AGENT_MAX_STR + 1, *name = proto + RAW_AGENT_MAX_STR + 1;
	if (c->err || !exp_take_str(c, func) || !exp_take_str(c, dtype) || !exp_take_str(c, algo) ||
	    !exp_take_str(c, proto) || !exp_take_str(c, name) || end > INT64_MAX || count > INT64_MAX ||
	    bytes > INT64_MAX || (kind != 1 && kind != 2))
		return 1;
	int64_t end_ns = raw_unix_ns(ap->h, end);
	if (end_ns < t || exp_time_far(e, end_ns))
		return 1;
	int64_t ids[5];
	const char *strs[5] = { func, dtype, algo, proto, name };
	int r = 0;
	for (int i = 0; i < 5 && r == 0; i++)
		r = exp_intern_id(e, strs[i], &ids[i]);
	/* the domain's state: the INSERT, prepared on the first record */
	void **insert = exp_domain_state(e, &exp_domain_comm);
	if (r == 0 && !*insert) {
		sqlite3_stmt *prepared;
		r = exp_prepare(e, plugin_insert_sql, &prepared);
		*insert = r == 0 ? prepared : NULL;
	}
	if (r < 0)
		return r;
	exp_note_time(e, end_ns);
	char hex[17];
	snprintf(hex, sizeof hex, "%016" PRIx64, hash);
	sqlite3_stmt *st = *insert;
	int k = 1;
	sqlite3_bind_int64(st, k++, t);
	sqlite3_bind_int64(st, k++, end_ns);
	sqlite3_bind_int64(st, k++, (int64_t)(((uint64_t)ap->pid << 32) | tid));
	sqlite3_bind_int64(st, k++, kind);
	sqlite3_bind_int64(st, k++, ids[0]);
	sqlite3_bind_int64(st, k++, ids[1]);
	sqlite3_bind_int64(st, k++, (int64_t)count);
	sqlite3_bind_int64(st, k++, (int64_t)bytes);
	sqlite3_bind_int64(st, k++, peer);
	sqlite3_bind_int64(st, k++, ids[2]);
	sqlite3_bind_int64(st, k++, ids[3]);
	sqlite3_bind_int64(st, k++, channels);
	sqlite3_bind_int64(st, k++, (int64_t)(seq > INT64_MAX ? 0 : seq));
	sqlite3_bind_text(st, k++, hex, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, k++, ids[4]);
	sqlite3_bind_int64(st, k++, rank);
	sqlite3_bind_int64(st, k++, nranks);
	sqlite3_bind_int64(st, k++, version);
	return exp_step_done(e, st, plugin_insert_sql);
}

static void release(struct exp *e)
{
	void **insert = exp_domain_state(e, &exp_domain_comm);
	sqlite3_finalize(*insert);
	*insert = NULL;
}

static const struct exp_agent_record records[] = {
	{ RAW_AGENT_COMM_OP, take_comm_op },
	{ 0, NULL },
};

static const char *const tables[] = { "COMMUNICATION_OP", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP_SOURCE",
				      "COMMUNICATION_GROUP", "ENUM_HCCL_DATA_TYPE", "NCCL_PROFILER_OP",
				      "COMMUNICATION_HOST_TASK", NULL };
static const enum export_csv csvs[] = { CSV_COMMUNICATION_STATISTIC, _CSV_MAX };

/* Communication operations from NCCL kernels, NCCL's profiler plugin and
 * mstx ranges of the domain "communication": NCCL_PROFILER_OP (the
 * plugin's records, ours), COMMUNICATION_OP, COMMUNICATION_TASK_INFO (the
 * kernels), COMMUNICATION_OP_SOURCE (ours), ENUM_HCCL_DATA_TYPE; the
 * Communication layer; communication_statistic.  The analyze command's
 * files are made from the same tables (analyze-comm.c). */
const struct exp_domain exp_domain_comm = {
	.name = "communication",
	.tables = tables,
	.csvs = csvs,
	.agent_records = records,
	.build = build_comm,
	.release = release,
	.has_layers = has_layers,
	.layers = write_layer,
	.summaries = write_summaries,
};
