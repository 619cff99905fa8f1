/* gloo and MPI on CPU: the OS runtime calls inside the communication
 * operations torch_npu-style mstx ranges mark -> COMMUNICATION_HOST_TASK,
 * and the split of an operation's time that analyze-comm.c writes.
 *
 * gloo's and Open MPI's TCP transports move data on non-blocking sockets
 * from progress threads (gloo's device loop, MPI's libevent) and wait for
 * their peers in epoll_wait/poll; the thread that called the collective
 * waits on a condition variable.  So every thread of the operation's
 * process counts, transfers are the socket and pipe calls, and waits the
 * polls and condition waits.  File I/O at an offset (pread, pwrite),
 * sleeps and mutexes are neither: another thread's lock is no peer.  The
 * calls recorded are those at least --osrt-threshold long, so a transfer
 * shorter than it is missing from the split (it falls in idle time).
 *
 * msprof builds COMMUNICATION_TASK_INFO from HCCL's device tasks, one row
 * per TASK (readers join the two on globalTaskId for the times); a host
 * call has no TASK row, and making one would count it as device time in
 * the cluster tools.  Hence a table of ours. */
#include <errno.h>
#include <stdlib.h>
#include <sqlite3.h>

#include "collectors/osrt-api.h"
#include "export/db.h"
#include "export/domain-comm.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "common/util.h"

static const struct {
	enum osrt_api api;
	int kind;
} host_kinds[] = {
	{ OSRT_read, EXP_COMM_HOST_TRANSFER },     { OSRT_write, EXP_COMM_HOST_TRANSFER },
	{ OSRT_readv, EXP_COMM_HOST_TRANSFER },    { OSRT_writev, EXP_COMM_HOST_TRANSFER },
	{ OSRT_send, EXP_COMM_HOST_TRANSFER },     { OSRT_recv, EXP_COMM_HOST_TRANSFER },
	{ OSRT_sendto, EXP_COMM_HOST_TRANSFER },   { OSRT_recvfrom, EXP_COMM_HOST_TRANSFER },
	{ OSRT_poll, EXP_COMM_HOST_WAIT },         { OSRT_ppoll, EXP_COMM_HOST_WAIT },
	{ OSRT_select, EXP_COMM_HOST_WAIT },       { OSRT_epoll_wait, EXP_COMM_HOST_WAIT },
	{ OSRT_pthread_cond_wait, EXP_COMM_HOST_WAIT }, { OSRT_pthread_cond_timedwait, EXP_COMM_HOST_WAIT },
	{ OSRT_recvmsg, EXP_COMM_HOST_TRANSFER },  { OSRT_sendmsg, EXP_COMM_HOST_TRANSFER },
	{ OSRT_epoll_pwait, EXP_COMM_HOST_WAIT },  { OSRT_pselect, EXP_COMM_HOST_WAIT },
	{ OSRT_pthread_cond_clockwait, EXP_COMM_HOST_WAIT },
};

int exp_comm_host_kind(const char *call)
{
	for (size_t i = 0; i < ARRAY_SIZE(host_kinds); i++)
		if (streq(call, osrt_api_name(host_kinds[i].api)))
			return host_kinds[i].kind;
	return EXP_COMM_HOST_NONE;
}

const char *exp_comm_host_kind_name(int kind)
{
	return kind == EXP_COMM_HOST_TRANSFER ? "transfer" : kind == EXP_COMM_HOST_WAIT ? "wait" : NULL;
}

/* --- the split of an operation's time ------------------------------------------------ */

struct edge {
	int64_t at;
	int kind, delta; /* +1 a span opens, -1 it closes */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/* One sweep over the spans' ends: between two ends, time is transit where
 * a transfer is open, else wait where a wait is, else idle; the first
 * transfer's start is an end, so no piece straddles it. */
int exp_comm_host_times(int64_t start, int64_t end, const struct exp_comm_span *v, size_t n,
			struct exp_comm_times *ret)
{
	struct exp_comm_times t = { .elapse = end > start ? end - start : 0 };
	_cleanup_free_ struct edge *e = n ? calloc(2 * n, sizeof *e) : NULL;
	if (n && !e)
		return -ENOMEM;
	size_t m = 0;
	int64_t first = end; /* the first transfer's start */
	for (size_t i = 0; i < n; i++) {
		int64_t s = v[i].start > start ? v[i].start : start, f = v[i].end < end ? v[i].end : end;
		if (s >= f || (v[i].kind != EXP_COMM_HOST_TRANSFER && v[i].kind != EXP_COMM_HOST_WAIT))
			continue;
		if (v[i].kind == EXP_COMM_HOST_TRANSFER && s < first)
			first = s;
		e[m++] = (struct edge){ s, v[i].kind, 1 };
		e[m++] = (struct edge){ f, v[i].kind, -1 };
	}
	qsort_safe(e, m, sizeof *e, edge_cmp);
	int open[3] = { 0 };
	for (size_t i = 0; i < m; i++) {
		if (i > 0 && e[i].at > e[i - 1].at) {
			int64_t len = e[i].at - e[i - 1].at;
			if (open[EXP_COMM_HOST_TRANSFER])
				t.transit += len;
			else if (open[EXP_COMM_HOST_WAIT]) {
				t.wait += len;
				if (e[i].at <= first)
					t.sync += len;
			}
		}
		open[e[i].kind] += e[i].delta;
	}
	t.idle = t.elapse - t.transit - t.wait;
	*ret = t;
	return 0;
}

/* --- COMMUNICATION_HOST_TASK ---------------------------------------------------------- */

struct host_op {
	int64_t op, start, end, pid, src, dst;
};

struct host_build {
	struct exp *e;
	struct host_op *ops;
	size_t n, cap;
	size_t next, *active, n_active; /* the sweep: ops[next..) not yet started */
	int64_t pid;                     /* of the calls walked, -1 none yet */
	int64_t kind_ids[3];             /* STRING_IDS of the kinds' names */
	sqlite3_stmt *ins;
};

static int op_row(sqlite3_stmt *st, void *ctx)
{
	struct host_build *b = ctx;
	struct host_op *v = grow_array(b->ops, &b->cap, b->n, sizeof *v, 64);
	if (!v)
		return -ENOMEM;
	b->ops = v;
	v[b->n++] = (struct host_op){
		.op = sqlite3_column_int64(st, 0), .start = sqlite3_column_int64(st, 1),
		.end = sqlite3_column_int64(st, 2), .pid = sqlite3_column_int64(st, 3),
		.src = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4),
		.dst = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5),
	};
	return 0;
}

/* A call, in (process, start) order: every operation of its process that
 * overlaps it.  The operations that started before the call ends are
 * active until one ends before a call starts: the calls after it start
 * later still. */
static int call_row(sqlite3_stmt *st, void *ctx)
{
	struct host_build *b = ctx;
	int64_t tid = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
	int64_t end = sqlite3_column_int64(st, 2), name = sqlite3_column_int64(st, 3);
	const char *call = (const char *)sqlite3_column_text(st, 4);
	int64_t pid = (int64_t)((uint64_t)tid >> 32);
	int kind = exp_comm_host_kind(call ? call : "");
	if (kind == EXP_COMM_HOST_NONE)
		return 0;
	if (pid != b->pid) {
		b->pid = pid;
		b->n_active = 0;
		while (b->next < b->n && b->ops[b->next].pid < pid)
			b->next++;
	}
	size_t w = 0;
	for (size_t i = 0; i < b->n_active; i++) /* drop the operations over before this call */
		if (b->ops[b->active[i]].end > start)
			b->active[w++] = b->active[i];
	b->n_active = w;
	while (b->next < b->n && b->ops[b->next].pid == pid && b->ops[b->next].start < end)
		b->active[b->n_active++] = b->next++;
	for (size_t i = 0; i < b->n_active; i++) {
		const struct host_op *o = &b->ops[b->active[i]];
		if (!(o->start < end && o->end > start))
			continue;
		sqlite3_stmt *ins = b->ins;
		int c = 1;
		sqlite3_bind_int64(ins, c++, o->op);
		sqlite3_bind_int64(ins, c++, name);
		sqlite3_bind_int64(ins, c++, b->kind_ids[kind]);
		sqlite3_bind_int64(ins, c++, tid);
		sqlite3_bind_int64(ins, c++, start);
		sqlite3_bind_int64(ins, c++, end);
		db_bind_i64_or_null(ins, c++, o->src >= 0, o->src);
		db_bind_i64_or_null(ins, c++, o->dst >= 0, o->dst);
		int r = exp_step_done(b->e, ins, "COMMUNICATION_HOST_TASK");
		if (r < 0)
			return r;
	}
	return 0;
}

int exp_comm_host_build(struct exp *e)
{
	static const char ops_sql[] =
		"SELECT o.opId, o.startNs, o.endNs, x.globalTid >> 32, x.srcRank, x.dstRank FROM COMMUNICATION_OP o "
		"JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId WHERE x.source = 'mstx' AND x.globalTid IS NOT NULL "
		"ORDER BY 4, 2, 1";
	static const char calls_sql[] =
		"SELECT a.globalTid, a.startNs, a.endNs, a.name, s.value FROM OSRT_API a JOIN STRING_IDS s "
		"ON s.id = a.name ORDER BY a.globalTid >> 32, a.startNs, a.rowid";
	if (!exp_table_has_rows(e, "OSRT_API") || !exp_table_has_rows(e, "COMMUNICATION_OP"))
		return 0;
	struct host_build b = { .e = e, .pid = -1 };
	int r = exp_each(e, ops_sql, NULL, op_row, &b);
	if (r >= 0 && b.n && !(b.active = calloc(b.n, sizeof *b.active)))
		r = -ENOMEM;
	for (int k = EXP_COMM_HOST_TRANSFER; k <= EXP_COMM_HOST_WAIT && r >= 0 && b.n; k++)
		r = exp_intern_id(e, exp_comm_host_kind_name(k), &b.kind_ids[k]);
	if (r >= 0 && b.n)
		r = exp_prepare(e, "INSERT INTO COMMUNICATION_HOST_TASK VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &b.ins);
	if (r >= 0 && b.n)
		r = exp_each(e, calls_sql, NULL, call_row, &b);
	sqlite3_finalize(b.ins);
	if (r >= 0 && exp_table_has_rows(e, "COMMUNICATION_HOST_TASK"))
		r = exp_exec(e, "CREATE INDEX CommHostTaskIndex ON COMMUNICATION_HOST_TASK (opId, startNs)");
	free(b.active);
	free(b.ops);
	return r < 0 ? r : 0;
}
