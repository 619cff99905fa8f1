/* msprof --analyze's communication rules over COMMUNICATION_OP (written by
 * domain-comm.c): PROF_x/analyze/communication.json and
 * communication_matrix.json (text), or communication_analyzer.db (db), in
 * the shapes msprof-analyze's cluster analysis reads (NOTES.md §1).
 *
 * What our sources tell: each operation's span, group, type and, for
 * torch_npu's mstx messages, its element count, data type and P2P peers;
 * not the HCCL tasks inside it.  Where the operation is an mstx range whose
 * process made socket calls inside it (gloo or MPI on CPU, recorded by
 * --host-sys=osrt: COMMUNICATION_HOST_TASK, domain-comm-host.c), its span splits
 * as msprof splits an HCCL operation's over its tasks: transit time the
 * union of the transfers, wait time the union of the waits outside them,
 * synchronisation time the wait before the first transfer, idle time the
 * rest.  Otherwise its whole span counts as transit time (wait,
 * synchronisation and idle time 0).  Its bytes (count x
 * the data type's size, when both are known) go to SDMA, the copy engine
 * msprof files on-node transfers under, and its matrix holds the rank's
 * self link (LOCAL: how cluster tools map the group's local ranks to
 * global ones) and, for P2P, the link between its ranks. */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "common/cjson-cleanup.h"
#include "export/db.h"
#include "export/domain-comm.h"
#include "export/export.h"
#include "export/query.h"
#include "collectors/profdir.h"
#include "common/util.h"

#define MB (1024.0 * 1024.0)

static const char *const transports[] = { "RDMA", "HCCS", "PCIE", "SDMA", "SIO" };
#define SDMA 3

struct aop {
	char *name, *group;
	int64_t start, end, bytes, src, dst; /* bytes -1: unknown */
	int64_t op;                          /* opId */
	struct exp_comm_times t;             /* the split of its span */
};

struct aops {
	struct aop *v;
	size_t n, cap;
};

static char *text_col(sqlite3_stmt *st, int c)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	return strdup(s ? s : "");
}

static int op_row(sqlite3_stmt *st, void *ctx)
{
	struct aops *a = ctx;
	struct aop *v = grow_array(a->v, &a->cap, a->n, sizeof *v, 64);
	if (!v)
		return -ENOMEM;
	a->v = v;
	struct aop *o = &v[a->n];
	*o = (struct aop){ .start = sqlite3_column_int64(st, 2), .end = sqlite3_column_int64(st, 3), .bytes = -1,
			   .src = -1, .dst = -1 };
	if (!(o->name = text_col(st, 0)) || !(o->group = text_col(st, 1)))
		return free(o->name), -ENOMEM;
	a->n++;
	int size = exp_comm_data_type_size((int)sqlite3_column_int64(st, 5));
	if (sqlite3_column_type(st, 4) != SQLITE_NULL && size > 0 && sqlite3_column_int64(st, 4) >= 0)
		o->bytes = sqlite3_column_int64(st, 4) * size;
	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		o->src = sqlite3_column_int64(st, 6);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		o->dst = sqlite3_column_int64(st, 7);
	o->op = sqlite3_column_int64(st, 8);
	int64_t d = o->end - o->start;
	o->t = (struct exp_comm_times){ .elapse = d, .transit = d };
	return 0;
}

/* --- the host calls inside the operations -------------------------------------------- */

struct host_span {
	int64_t op;
	struct exp_comm_span s;
};

struct host_spans {
	struct host_span *v;
	size_t n, cap;
};

static int host_row(sqlite3_stmt *st, void *ctx)
{
	struct host_spans *h = ctx;
	struct host_span *v = grow_array(h->v, &h->cap, h->n, sizeof *v, 64);
	if (!v)
		return -ENOMEM;
	h->v = v;
	const char *kind = (const char *)sqlite3_column_text(st, 3);
	v[h->n++] = (struct host_span){ sqlite3_column_int64(st, 0),
					{ sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
					  kind && streq(kind, "transfer") ? EXP_COMM_HOST_TRANSFER :
					  kind && streq(kind, "wait")     ? EXP_COMM_HOST_WAIT :
									    EXP_COMM_HOST_NONE } };
	return 0;
}

static int by_op(const void *a, const void *b)
{
	const struct aop *x = *(const struct aop *const *)a, *y = *(const struct aop *const *)b;
	return (x->op > y->op) - (x->op < y->op);
}

/* Each operation with calls in COMMUNICATION_HOST_TASK (rows in opId
 * order) gets their split of its span; the others keep theirs. */
static int host_times(sqlite3 *db, struct aops *a, int *ret_rc)
{
	static const char sql[] = "SELECT h.opId, h.startNs, h.endNs, k.value FROM COMMUNICATION_HOST_TASK h "
				  "JOIN STRING_IDS k ON k.id = h.taskType ORDER BY h.opId, h.startNs";
	if (db_each(db, "SELECT 1 FROM sqlite_master WHERE name = 'COMMUNICATION_HOST_TASK'", NULL, db_row_stop,
		    NULL) <= 0)
		return 0;
	struct host_spans h = { 0 };
	int r = db_each_rc(db, sql, NULL, host_row, &h, ret_rc);
	_cleanup_free_ struct aop **by = r >= 0 && h.n ? calloc(a->n, sizeof *by) : NULL;
	if (r >= 0 && h.n && !by)
		r = -ENOMEM;
	if (r >= 0 && by) {
		for (size_t i = 0; i < a->n; i++)
			by[i] = &a->v[i];
		qsort_safe(by, a->n, sizeof *by, by_op);
	}
	size_t k = 0;
	_cleanup_free_ struct exp_comm_span *spans = NULL;
	for (size_t i = 0; r >= 0 && by && i < a->n; i++) {
		struct aop *o = by[i];
		while (k < h.n && h.v[k].op < o->op)
			k++;
		size_t n = 0, cap = 0;
		for (; k < h.n && h.v[k].op == o->op; k++) {
			struct exp_comm_span *v = grow_array(spans, &cap, n, sizeof *v, 16);
			if (!v) {
				r = -ENOMEM;
				break;
			}
			spans = v;
			spans[n++] = h.v[k].s;
		}
		if (r >= 0 && n)
			r = exp_comm_host_times(o->start, o->end, spans, n, &o->t);
		free(spans);
		spans = NULL;
	}
	free(h.v);
	return r < 0 ? r : 0;
}

static void aops_free(struct aops *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].name), free(a->v[i].group);
	free(a->v);
}

static double ms(int64_t ns)
{
	return round((double)ns / 1e6 * 1e4) / 1e4;
}

static double r4(double v)
{
	return round(v * 1e4) / 1e4;
}

/* The rank of this PROF dir: host/info.json's rank_id, else the lowest
 * rank of its processes, else 0. */
static int64_t prof_rank(const char *prof_dir, sqlite3 *db)
{
	char path[PATH_MAX];
	_cleanup_json_ cJSON *j = NULL;
	int64_t rank = -1;
	if ((size_t)snprintf(path, sizeof path, "%s/host/info.json", prof_dir) < sizeof path &&
	    profdir_read_json(path, &j) == 0) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "rank_id");
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= INT32_MAX)
			rank = (int64_t)v->valuedouble;
	}
	if (rank < 0)
		(void)db_each(db, "SELECT MIN(rank) FROM AGENT_PROCESS WHERE rank >= 0", NULL, db_row_i64, &rank);
	return rank < 0 ? 0 : rank;
}

/* --- communication.json -------------------------------------------------------------- */

/* One operation's (or the total's) two blocks. */
struct totals {
	int64_t first_start, bytes, bytes_time;
	struct exp_comm_times t;
	unsigned n_sized;
	bool any;
};

/* a / (a + b) to 4 decimals, 0 when both are 0: msprof-analyze's
 * compute_time_ratio (msprof_analyze/cluster_analyse/analysis/
 * communication_analysis.py; torch_npu's profiler/analysis/prof_view/
 * _communication_parser.py alike): Wait Time Ratio = wait / (wait +
 * transit), Synchronization Time Ratio = sync / (sync + transit) */
static double ratio(int64_t a, int64_t b)
{
	return a + b > 0 ? r4((double)a / (double)(a + b)) : 0;
}

static cJSON *time_info(int64_t start, const struct exp_comm_times *x)
{
	cJSON *t = cJSON_CreateObject();
	if (!t)
		return NULL;
	bool ok = cJSON_AddNumberToObject(t, "Start Timestamp(us)", round((double)start / 1e3 * 1e3) / 1e3) &&
		  cJSON_AddNumberToObject(t, "Elapse Time(ms)", ms(x->elapse)) &&
		  cJSON_AddNumberToObject(t, "Transit Time(ms)", ms(x->transit)) &&
		  cJSON_AddNumberToObject(t, "Wait Time(ms)", ms(x->wait)) &&
		  cJSON_AddNumberToObject(t, "Synchronization Time(ms)", ms(x->sync)) &&
		  cJSON_AddNumberToObject(t, "Idle Time(ms)", ms(x->idle)) &&
		  cJSON_AddNumberToObject(t, "Wait Time Ratio", ratio(x->wait, x->transit)) &&
		  cJSON_AddNumberToObject(t, "Synchronization Time Ratio", ratio(x->sync, x->transit));
	return ok ? t : (cJSON_Delete(t), NULL);
}

/* bytes over time (ns) on SDMA, with one size bucket of n transfers;
 * bytes < 0: nothing known, every transport empty */
static cJSON *bandwidth_info(int64_t bytes, int64_t time, unsigned n)
{
	cJSON *b = cJSON_CreateObject();
	if (!b)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(transports); i++) {
		bool here = i == SDMA && bytes > 0;
		double size = here ? r4((double)bytes / MB) : 0, t = here ? ms(time) : 0;
		cJSON *k = cJSON_AddObjectToObject(b, transports[i]);
		cJSON *dist = k ? cJSON_CreateObject() : NULL;
		if (!dist || !cJSON_AddNumberToObject(k, "Transit Size(MB)", size) ||
		    !cJSON_AddNumberToObject(k, "Transit Time(ms)", t) ||
		    !cJSON_AddNumberToObject(k, "Bandwidth(GB/s)", t > 0 ? r4(size / t) : 0) ||
		    !cJSON_AddNumberToObject(k, "Large Packet Ratio", 0)) {
			cJSON_Delete(dist);
			cJSON_Delete(b);
			return NULL;
		}
		cJSON_AddItemToObject(k, "Size Distribution", dist);
		if (here && n) {
			char key[64];
			snprintf(key, sizeof key, "%g", r4((double)bytes / MB / n));
			cJSON *pair = cJSON_CreateArray();
			if (!pair || !cJSON_AddItemToArray(pair, cJSON_CreateNumber(n)) ||
			    !cJSON_AddItemToArray(pair, cJSON_CreateNumber(t)) ||
			    !cJSON_AddItemToObject(dist, key, pair)) {
				cJSON_Delete(b);
				return NULL;
			}
		}
	}
	return b;
}

static cJSON *op_entry(int64_t start, const struct exp_comm_times *x, int64_t bytes, int64_t time, unsigned n)
{
	cJSON *o = cJSON_CreateObject(), *t = time_info(start, x), *b = bandwidth_info(bytes, time, n);
	if (!o || !t || !b) {
		cJSON_Delete(o), cJSON_Delete(t), cJSON_Delete(b);
		return NULL;
	}
	cJSON_AddItemToObject(o, "Communication Time Info", t);
	cJSON_AddItemToObject(o, "Communication Bandwidth Info", b);
	return o;
}

/* Operation names are unique in their group (domain-comm.c numbers them),
 * but a range's message may spell a name given to another operation: the
 * second is kept under "<name>@<group>#<its opId>", not dropped. */
static void unique_key(const cJSON *j, char *key, size_t size, size_t i)
{
	if (cJSON_GetObjectItemCaseSensitive(j, key)) {
		size_t n = strlen(key);
		snprintf(key + n, size - n, "#%zu", i);
	}
}

static int comm_json(const struct aops *a, cJSON **ret)
{
	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	struct totals tot = { 0 };
	if (!j)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const struct aop *o = &a->v[i];
		char key[1024];
		snprintf(key, sizeof key, "%s@%s", o->name, o->group);
		cJSON *e = op_entry(o->start, &o->t, o->bytes, o->t.transit, 1);
		if (!e)
			return -ENOMEM;
		unique_key(j, key, sizeof key, i);
		cJSON_AddItemToObject(j, key, e);
		if (!tot.any)
			tot.first_start = o->start, tot.any = true;
		tot.t.elapse += o->t.elapse, tot.t.transit += o->t.transit, tot.t.wait += o->t.wait;
		tot.t.sync += o->t.sync, tot.t.idle += o->t.idle;
		if (o->bytes > 0)
			tot.bytes += o->bytes, tot.bytes_time += o->t.transit, tot.n_sized++;
	}
	/* msprof's "Total Op Info": every operation summed (compare and the
	 * advisor read it) */
	cJSON *t = op_entry(tot.first_start, &tot.t, tot.n_sized ? tot.bytes : -1, tot.bytes_time, tot.n_sized);
	if (!t)
		return -ENOMEM;
	cJSON_AddItemToObject(j, "Total Op Info", t);
	*ret = TAKE_PTR(j);
	return 0;
}

/* --- communication_matrix.json ------------------------------------------------------- */

static cJSON *matrix_link(const char *type, int64_t bytes, int64_t time, const char *op)
{
	double size = bytes > 0 ? r4((double)bytes / MB) : 0, t = ms(time);
	cJSON *l = cJSON_CreateObject();
	if (!l || !cJSON_AddStringToObject(l, "Transport Type", type) ||
	    !cJSON_AddNumberToObject(l, "Transit Size(MB)", size) || !cJSON_AddNumberToObject(l, "Transit Time(ms)", t) ||
	    !cJSON_AddNumberToObject(l, "Bandwidth(GB/s)", t > 0 ? r4(size / t) : 0) ||
	    !cJSON_AddStringToObject(l, "Op Name", op))
		return cJSON_Delete(l), NULL;
	return l;
}

static int matrix_json(const struct aops *a, int64_t rank, cJSON **ret)
{
	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const struct aop *o = &a->v[i];
		char key[1024], lk[64];
		snprintf(key, sizeof key, "%s@%s", o->name, o->group);
		cJSON *links = cJSON_CreateObject(), *self;
		int64_t d = o->t.transit;
		snprintf(lk, sizeof lk, "%" PRId64 "-%" PRId64, rank, rank);
		if (!links || !(self = matrix_link("LOCAL", o->bytes, d, o->name)) || !cJSON_AddItemToObject(links, lk, self))
			return cJSON_Delete(links), -ENOMEM;
		if (o->src >= 0 && o->dst >= 0 && o->src != o->dst) {
			cJSON *p2p = matrix_link("HCCS", o->bytes, d, o->name);
			snprintf(lk, sizeof lk, "%" PRId64 "-%" PRId64, o->src, o->dst);
			if (!p2p || !cJSON_AddItemToObject(links, lk, p2p))
				return cJSON_Delete(p2p), cJSON_Delete(links), -ENOMEM;
		}
		unique_key(j, key, sizeof key, i);
		cJSON_AddItemToObject(j, key, links);
	}
	*ret = TAKE_PTR(j);
	return 0;
}

/* --- communication_analyzer.db ------------------------------------------------------- */

static int sql_fail(sqlite3 *db, int rc, struct export_report *rep)
{
	snprintf(rep->error, sizeof rep->error, "cannot write communication_analyzer.db: %s",
		 db ? sqlite3_errmsg(db) : "out of memory");
	return db_errno(rc);
}

/* Bind the values (NAN: NULL; text where texts[i]) and step. */
static int insert(sqlite3_stmt *st, const char *const *texts, const double *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (texts[i])
			sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
		else if (isnan(v[i]))
			sqlite3_bind_null(st, i + 1);
		else
			sqlite3_bind_double(st, i + 1, v[i]);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

static int analyzer_db(const struct aops *a, int64_t rank, const char *path, struct export_report *rep)
{
	static const char schema[] =
		"PRAGMA journal_mode = OFF; BEGIN; "
		"CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, "
		"elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, "
		"idle_time NUMERIC, synchronization_time_ratio NUMERIC, wait_time_ratio NUMERIC); "
		"CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type TEXT, "
		"transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, "
		"package_size NUMERIC, count NUMERIC, total_duration NUMERIC); "
		"CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT, "
		"transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC)";
	sqlite3 *db = NULL;
	sqlite3_stmt *ti = NULL, *bw = NULL, *mx = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, schema, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO CommAnalyzerTime VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &ti, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO CommAnalyzerBandwidth VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &bw,
					NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO CommAnalyzerMatrix VALUES (?,?,?,?,?,?,?,?)", -1, &mx, NULL);
	for (size_t i = 0; i < a->n && rc == SQLITE_OK; i++) {
		const struct aop *o = &a->v[i];
		double el = ms(o->t.transit);
		const char *tt[10] = { o->name, o->group };
		double tv[10] = { 0, 0, round((double)o->start / 1e3 * 1e3) / 1e3, ms(o->t.elapse), el, ms(o->t.wait),
				  ms(o->t.sync), ms(o->t.idle), ratio(o->t.sync, o->t.transit),
				  ratio(o->t.wait, o->t.transit) };
		if ((rc = insert(ti, tt, tv, 10)) != SQLITE_OK)
			break;
		for (size_t k = 0; k < ARRAY_SIZE(transports) && rc == SQLITE_OK; k++) {
			bool here = k == SDMA && o->bytes > 0;
			double size = here ? r4((double)o->bytes / MB) : 0, t = here ? el : 0;
			const char *bt[10] = { o->name, o->group, transports[k] };
			double bv[10] = { 0, 0, 0, size, t, t > 0 ? r4(size / t) : 0, 0, here ? size : NAN,
					  here ? 1 : NAN, here ? t : NAN };
			rc = insert(bw, bt, bv, 10);
		}
		char self[24], src[24], dst[24];
		snprintf(self, sizeof self, "%" PRId64, rank);
		double size = o->bytes > 0 ? r4((double)o->bytes / MB) : 0;
		const char *mt[8] = { o->name, o->group, self, self, "LOCAL" };
		double mv[8] = { 0, 0, 0, 0, 0, size, el, el > 0 ? r4(size / el) : 0 };
		if (rc == SQLITE_OK)
			rc = insert(mx, mt, mv, 8);
		if (rc == SQLITE_OK && o->src >= 0 && o->dst >= 0 && o->src != o->dst) {
			snprintf(src, sizeof src, "%" PRId64, o->src);
			snprintf(dst, sizeof dst, "%" PRId64, o->dst);
			const char *pt[8] = { o->name, o->group, src, dst, "HCCS" };
			rc = insert(mx, pt, mv, 8);
		}
	}
	sqlite3_finalize(ti);
	sqlite3_finalize(bw);
	sqlite3_finalize(mx);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	int r = rc == SQLITE_OK ? 0 : sql_fail(db, rc, rep);
	if (sqlite3_close(db) != SQLITE_OK && r == 0)
		r = -EIO;
	return r;
}

/* --- the command ----------------------------------------------------------------------- */

int export_analyze_comm(const char *prof_dir, unsigned what, unsigned *ret_ops, struct export_report *rep)
{
	static const char sql[] =
		"SELECT n.value, g.value, o.startNs, o.endNs, o.count, o.dataType, x.srcRank, x.dstRank, o.opId "
		"FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName JOIN STRING_IDS g ON g.id = o.groupName "
		"LEFT JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId ORDER BY o.startNs, o.opId";
	sqlite3 *db = NULL;
	int r = exp_open_current(prof_dir, &db, rep);
	if (r < 0)
		return r;
	struct aops a = { 0 };
	int rc = SQLITE_OK;
	/* an older database has no COMMUNICATION_OP_SOURCE: no P2P links */
	bool has_src = db_each(db, "SELECT 1 FROM sqlite_master WHERE name = 'COMMUNICATION_OP_SOURCE'", NULL,
			       db_row_stop, NULL) > 0;
	bool has_op = db_each(db, "SELECT 1 FROM sqlite_master WHERE name = 'COMMUNICATION_OP'", NULL, db_row_stop,
			      NULL) > 0;
	if (has_op)
		r = db_each_rc(db, has_src ? sql :
				   "SELECT n.value, g.value, o.startNs, o.endNs, o.count, o.dataType, NULL, NULL, o.opId "
				   "FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName "
				   "JOIN STRING_IDS g ON g.id = o.groupName ORDER BY o.startNs, o.opId",
			       NULL, op_row, &a, &rc);
	if (r >= 0 && a.n)
		r = host_times(db, &a, &rc);
	if (r < 0 && rc != SQLITE_OK)
		snprintf(rep->error, sizeof rep->error, "cannot read '%.400s': %s", rep->db_path,
			 sqlite3_errmsg(db));
	int64_t rank = prof_rank(prof_dir, db);
	sqlite3_close(db);
	if (r < 0 || a.n == 0) {
		aops_free(&a);
		if (r >= 0)
			*ret_ops = 0;
		return r < 0 ? r : 0;
	}
	_cleanup_free_ char *dir = path_join(prof_dir, "analyze");
	r = dir ? 0 : -ENOMEM;
	if (r == 0 && mkdir(dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(rep->error, sizeof rep->error, "cannot create '%.400s': %s", dir, strerror(errno));
	}
	if (r == 0 && (what & EXPORT_ANALYZE_DB)) {
		_cleanup_free_ char *path = NULL, *tmp = NULL;
		if (asprintf(&path, "%s/communication_analyzer.db", dir) < 0 ||
		    asprintf(&tmp, "%s/.communication_analyzer.db.tmp", dir) < 0)
			r = -ENOMEM;
		if (r == 0) {
			unlink(tmp);
			r = analyzer_db(&a, rank, tmp, rep);
		}
		if (r == 0 && rename(tmp, path) < 0)
			r = -errno;
		if (r < 0 && tmp)
			unlink(tmp);
	}
	if (r == 0) {
		cJSON *j = NULL;
		if ((what & EXPORT_ANALYZE_COMMUNICATION) && (r = comm_json(&a, &j)) == 0) {
			r = profdir_write_json(dir, "communication.json", j);
			cJSON_Delete(j);
		}
		if (r == 0 && (what & EXPORT_ANALYZE_MATRIX) && (r = matrix_json(&a, rank, &j)) == 0) {
			r = profdir_write_json(dir, "communication_matrix.json", j);
			cJSON_Delete(j);
		}
	}
	if (r < 0 && !rep->error[0])
		snprintf(rep->error, sizeof rep->error, "cannot write '%.400s/analyze': %s", prof_dir,
			 strerror(-r));
	if (r == 0)
		*ret_ops = a.n > UINT_MAX ? UINT_MAX : (unsigned)a.n;
	aops_free(&a);
	return r;
}
