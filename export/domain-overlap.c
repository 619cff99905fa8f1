/* Overlap analysis: how the time of each device (or, without device tasks,
 * of the annotated host ranges) was spent, as msprof's "Overlap Analysis"
 * layer (reference §4, sort index 31) and per step as torch_npu's
 * step_trace_time (STEP_TRACE_TIME, overlap_analysis_{ts}.csv).
 *
 * Sources, per owner (a device, or the host when no kernel was recorded):
 *   with device tasks: computing = the kernels of TASK (COMPUTE_TASK_INFO)
 *     that are not NCCL's (gpu_kernel_is_comm); communication = NCCL's
 *     kernels and the device's COMMUNICATION_OP rows (when that table
 *     exists);
 *   host-only: communication = mstx ranges (push/pop, start/end) in the
 *     domain "communication" and every COMMUNICATION_OP row; computing =
 *     every other range that is not a step ("step N", "ProfilerStep#N",
 *     the domain msprof.step).
 * A communication operation or range whose name starts hcom_receive, or
 * says recv or receive, is a receive (Bubble; is_receive).
 *
 * The layer's threads are unions of intervals, merged so that no two
 * events of a thread overlap: Computing, Communication,
 * Communication(Not Overlapped) = communication minus computing, Free =
 * the window minus both.  The window is the steps (STEP) when there are
 * any, cut at every step boundary so that each event lies in one step
 * (the readers add an event's whole dur to the step its start is in);
 * else the collection (SESSION_TIME_INFO, widened to the intervals). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/gputask.h"
#include "collectors/steps.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain-mstx.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

#define COMM_DOMAIN "communication" /* torch_npu's mstx domain of its HCCL markers */
#define RECEIVE_PREFIX "hcom_receive"

struct iv {
	int64_t s, e;
};

struct ivs {
	struct iv *v;
	size_t n, cap;
};

static int ivs_add(struct ivs *a, int64_t s, int64_t e)
{
	if (e <= s)
		return 0;
	if (GROW_ARRAY(a->v, a->cap, a->n, 64) < 0)
		return -ENOMEM;
	a->v[a->n++] = (struct iv){ s, e };
	return 0;
}

/* ivs_add for a set that is merged before use: an interval that starts
 * inside the last one (the rows come in start order, nested ranges inside
 * their parents) widens it instead of taking a place. */
static int ivs_add_joined(struct ivs *a, int64_t s, int64_t e)
{
	if (e <= s)
		return 0;
	struct iv *l = a->n ? &a->v[a->n - 1] : NULL;
	if (l && s >= l->s && s <= l->e) {
		if (e > l->e)
			l->e = e;
		return 0;
	}
	return ivs_add(a, s, e);
}

static void ivs_release(struct ivs *a)
{
	free(a->v);
	*a = (struct ivs){ 0 };
}

static int iv_cmp(const void *x, const void *y)
{
	const struct iv *a = x, *b = y;
	return a->s < b->s ? -1 : a->s > b->s ? 1 : (a->e > b->e) - (a->e < b->e);
}

/* Sorted, overlapping and touching intervals joined: the union. */
static void ivs_merge(struct ivs *a)
{
	if (a->n < 2)
		return;
	/* loaded in start order, they are mostly sorted already */
	for (size_t i = 1; i < a->n; i++)
		if (iv_cmp(&a->v[i - 1], &a->v[i]) > 0) {
			qsort_safe(a->v, a->n, sizeof *a->v, iv_cmp);
			break;
		}
	size_t k = 0;
	for (size_t i = 1; i < a->n; i++) {
		if (a->v[i].s <= a->v[k].e) {
			if (a->v[i].e > a->v[k].e)
				a->v[k].e = a->v[i].e;
		} else {
			a->v[++k] = a->v[i];
		}
	}
	a->n = k + 1;
}

/* a and b (both merged) -> out: a ∩ b, or a minus b when minus.  Pieces
 * of a that touch stay apart (the window's step boundaries). */
static int ivs_combine(const struct ivs *a, const struct ivs *b, bool minus, struct ivs *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		int64_t at = s;
		for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
			int64_t bs = b->v[k].s > s ? b->v[k].s : s, be = b->v[k].e < e ? b->v[k].e : e;
			int r = minus ? ivs_add(out, at, bs) : ivs_add(out, bs, be);
			if (r < 0)
				return r;
			at = be;
		}
		if (minus && ivs_add(out, at, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* a ∪ b (both merged), merged, in one pass over both. */
static int ivs_union(const struct ivs *a, const struct ivs *b, struct ivs *out)
{
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		const struct iv *x = j == b->n || (i < a->n && iv_cmp(&a->v[i], &b->v[j]) <= 0) ? &a->v[i++] : &b->v[j++];
		if (ivs_add_joined(out, x->s, x->e) < 0)
			return -ENOMEM;
	}
	ivs_merge(out);
	return 0;
}

/* The time of a (merged) inside [s, e), and where the first of it there
 * begins (e when none). */
static int64_t ivs_within(const struct ivs *a, int64_t s, int64_t e, int64_t *ret_first)
{
	size_t lo = 0, hi = a->n;
	while (lo < hi) { /* the first interval ending after s */
		size_t mid = lo + (hi - lo) / 2;
		if (a->v[mid].e <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t sum = 0, first = e;
	for (size_t i = lo; i < a->n && a->v[i].s < e; i++) {
		int64_t bs = a->v[i].s > s ? a->v[i].s : s, be = a->v[i].e < e ? a->v[i].e : e;
		if (bs < first)
			first = bs;
		sum += be - bs;
	}
	if (ret_first)
		*ret_first = first;
	return sum;
}

/* One device's (or the host's) intervals, merged once loaded. */
struct owner {
	int64_t dev; /* -1: the host */
	struct ivs comp, comm, recv;
};

struct overlap {
	struct owner *o;
	size_t n, cap;
	bool device;        /* owners are devices */
	int64_t span_s, span_e; /* the collection, widened to the intervals */
	struct exp_strings *strings; /* while the ranges are read */
};

static void overlap_release(struct overlap *ov)
{
	for (size_t i = 0; i < ov->n; i++) {
		ivs_release(&ov->o[i].comp);
		ivs_release(&ov->o[i].comm);
		ivs_release(&ov->o[i].recv);
	}
	free(ov->o);
	*ov = (struct overlap){ 0 };
}

static struct owner *owner_of(struct overlap *ov, int64_t dev)
{
	for (size_t i = 0; i < ov->n; i++)
		if (ov->o[i].dev == dev)
			return &ov->o[i];
	if (GROW_ARRAY(ov->o, ov->cap, ov->n, 4) < 0)
		return NULL;
	ov->o[ov->n] = (struct owner){ .dev = dev };
	return &ov->o[ov->n++];
}

/* A receive by its name: msprof's HCCL op names (hcom_receive__...), and
 * any name that says recv or receive (torch_npu's mstx messages carry
 * "opName": "HcclRecv").  An mstx range named hcom_receive* is on a layer
 * labelled CPU, which torch_npu's step time parser cannot take (it sums
 * hcom_receive* events by their process's NPU label): the second form is
 * the one to annotate with. */
static bool is_receive(const char *name)
{
	/* a send-and-receive (NCCL's SendRecv, hcom_batchSendRecv) sends too */
	if (!name || strcasestr(name, "sendrecv"))
		return false;
	return strncmp(name, RECEIVE_PREFIX, sizeof RECEIVE_PREFIX - 1) == 0 || strcasestr(name, "recv") ||
	       strcasestr(name, "receive");
}

static int add_comm(struct owner *o, int64_t s, int64_t e, const char *name)
{
	int r = ivs_add_joined(&o->comm, s, e);
	if (r == 0 && is_receive(name))
		r = ivs_add_joined(&o->recv, s, e);
	return r;
}

static int device_row(sqlite3_stmt *st, void *ctx)
{
	return owner_of(ctx, sqlite3_column_int64(st, 0)) ? 0 : -ENOMEM;
}

/* deviceId, startNs, endNs, name of a kernel */
static int kernel_row(sqlite3_stmt *st, void *ctx)
{
	struct overlap *ov = ctx;
	struct owner *o = owner_of(ov, sqlite3_column_int64(st, 0));
	if (!o)
		return -ENOMEM;
	int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
	const char *name = (const char *)sqlite3_column_text(st, 3);
	/* an NCCL kernel is no receive: SendRecv kernels send too */
	if (name && gpu_kernel_is_comm(name, (size_t)sqlite3_column_bytes(st, 3)))
		return add_comm(o, s, e, NULL);
	return ivs_add_joined(&o->comp, s, e);
}

/* deviceId, startNs, endNs, opName of a communication operation: the
 * host-only owner's, or its device's (a device without kernels gets an
 * owner of its own; no device: the first device's) */
static int comm_op_row(sqlite3_stmt *st, void *ctx)
{
	struct overlap *ov = ctx;
	struct owner *o;
	if (!ov->device)
		o = owner_of(ov, -1);
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		o = &ov->o[0];
	else
		o = owner_of(ov, sqlite3_column_int64(st, 0));
	if (!o)
		return -ENOMEM;
	return add_comm(o, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			(const char *)sqlite3_column_text(st, 3));
}

/* The string of a STRING_IDS id, NULL when STRING_IDS has none. */
static int range_string(struct overlap *ov, int64_t id, const char **ret, size_t *ret_len)
{
	int r = exp_strings_get(ov->strings, id, ret, ret_len);
	if (r == 0)
		*ret = NULL, *ret_len = 0;
	return r < 0 ? r : 0;
}

/* A range [s, e) with its message and domain (STRING_IDS ids): its
 * strings come from a cache, not a join per row */
static int range_add(struct overlap *ov, int64_t s, int64_t e, int64_t msg_id, int64_t dom_id)
{
	if (e <= s)
		return 0;
	struct owner *o = owner_of(ov, -1);
	if (!o)
		return -ENOMEM;
	const char *msg, *dom;
	size_t n_msg, n_dom;
	int r = range_string(ov, dom_id, &dom, &n_dom);
	if (r < 0)
		return r;
	if (dom && streq(dom, COMM_DOMAIN)) {
		/* the cache's copy lives until its slot is taken: look the
		 * message up last */
		if ((r = range_string(ov, msg_id, &msg, &n_msg)) < 0)
			return r;
		return add_comm(o, s, e, msg);
	}
	if (dom && streq(dom, STEP_DOMAIN))
		return 0;
	if ((r = range_string(ov, msg_id, &msg, &n_msg)) < 0)
		return r;
	uint64_t step;
	if (msg && step_parse(msg, n_msg, &step))
		return 0;
	return ivs_add_joined(&o->comp, s, e);
}

/* startNs, endNs, message, domain of a range */
static int range_row(sqlite3_stmt *st, void *ctx)
{
	return range_add(ctx, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			 sqlite3_column_int64(st, 3));
}

/* The host's computing and communication from the mstx ranges: those the
 * parse listed when this is its build (reading a million rows back costs a
 * tenth of the parse), else the table's (or the chosen steps' view). */
static int load_ranges(struct exp *e, struct overlap *ov)
{
	const struct exp_mstx_range *v;
	size_t n;
	int r = exp_strings_new(e, &ov->strings);
	if (r == 0 && exp_mstx_ranges(e, &v, &n) > 0) {
		for (size_t i = 0; i < n && r >= 0; i++)
			r = range_add(ov, v[i].start, v[i].end, v[i].msg, v[i].dom);
	} else if (r == 0) {
		r = exp_each(e,
			     "SELECT startNs, endNs, message, domainId FROM MSTX_EVENTS "
			     "WHERE eventType IN (1, 2) AND endNs > startNs",
			     NULL, range_row, ov);
	}
	ov->strings = exp_strings_free(ov->strings);
	return r;
}

static bool table_exists(struct exp *e, const char *name)
{
	return db_each(e->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?",
		       db_bind_text1, db_row_stop, (void *)name) > 0;
}

static int span_row(sqlite3_stmt *st, void *ctx)
{
	struct overlap *ov = ctx;
	if (sqlite3_column_type(st, 0) != SQLITE_NULL && sqlite3_column_int64(st, 1) > sqlite3_column_int64(st, 0)) {
		ov->span_s = sqlite3_column_int64(st, 0);
		ov->span_e = sqlite3_column_int64(st, 1);
	}
	return 0;
}

/* Every owner's intervals, merged; no owner when there is nothing to
 * analyse.  Read through e->db: the tables, or the views of the chosen
 * steps (select-steps.c). */
static int overlap_load(struct exp *e, struct overlap *ov)
{
	*ov = (struct overlap){ 0 };
	int r = 0;
	/* The devices that ran kernels, from the main tables: with
	 * --iteration-id the views may hold none, and the layer is still the
	 * devices' (all Free) */
	if (exp_table_has_rows(e, "main.TASK") && exp_table_has_rows(e, "main.COMPUTE_TASK_INFO")) {
		r = exp_each(e,
			     "SELECT DISTINCT t.deviceId FROM main.TASK t "
			     "JOIN main.COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId ORDER BY 1",
			     NULL, device_row, ov);
		ov->device = ov->n > 0;
	}
	if (r >= 0 && ov->device && exp_table_has_rows(e, "TASK"))
		r = exp_each(e,
			     "SELECT t.deviceId, t.startNs, t.endNs, s.value FROM TASK t "
			     "JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
			     "LEFT JOIN STRING_IDS s ON s.id = c.name",
			     NULL, kernel_row, ov);
	if (r >= 0 && !ov->device && exp_table_has_rows(e, "MSTX_EVENTS"))
		r = load_ranges(e, ov);
	/* the communication domain's table, where it was built */
	if (r >= 0 && table_exists(e, "COMMUNICATION_OP"))
		r = exp_each(e,
			     "SELECT o.deviceId, o.startNs, o.endNs, s.value FROM COMMUNICATION_OP o "
			     "LEFT JOIN STRING_IDS s ON s.id = o.opName",
			     NULL, comm_op_row, ov);
	if (r >= 0)
		r = exp_each(e, "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO LIMIT 1", NULL, span_row, ov);
	if (r < 0) {
		overlap_release(ov);
		return r;
	}
	for (size_t i = 0; i < ov->n; i++) {
		struct owner *o = &ov->o[i];
		ivs_merge(&o->comp);
		ivs_merge(&o->comm);
		ivs_merge(&o->recv);
		const struct ivs *l[] = { &o->comp, &o->comm };
		for (size_t k = 0; k < 2; k++) {
			if (!l[k]->n)
				continue;
			if (ov->span_e <= ov->span_s || l[k]->v[0].s < ov->span_s)
				ov->span_s = l[k]->v[0].s;
			if (l[k]->v[l[k]->n - 1].e > ov->span_e)
				ov->span_e = l[k]->v[l[k]->n - 1].e;
		}
	}
	return 0;
}

/* --- the window: the steps, or the collection ------------------------------------ */

struct step_row {
	int64_t step, pid, s, e;
};

struct steps {
	struct step_row *v;
	size_t n, cap;
};

static int step_row(sqlite3_stmt *st, void *ctx)
{
	struct steps *w = ctx;
	if (GROW_ARRAY(w->v, w->cap, w->n, 16) < 0)
		return -ENOMEM;
	w->v[w->n++] = (struct step_row){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					  sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3) };
	return 0;
}

static int load_steps(struct exp *e, struct steps *w)
{
	*w = (struct steps){ 0 };
	if (!exp_table_has_rows(e, "STEP"))
		return 0;
	int r = exp_each(e, "SELECT stepId, pid, startNs, endNs FROM STEP ORDER BY startNs, pid, stepId", NULL,
			 step_row, w);
	return r < 0 ? r : 0;
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The union of the steps cut at every step's start and end, or the
 * collection when there is no step. */
static int window(const struct overlap *ov, const struct steps *w, struct ivs *ret)
{
	if (!w->n)
		return ivs_add(ret, ov->span_s, ov->span_e);
	struct ivs u = { 0 };
	_cleanup_free_ int64_t *cut = malloc(2 * w->n * sizeof *cut);
	int r = cut ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < w->n; i++) {
		r = ivs_add(&u, w->v[i].s, w->v[i].e);
		cut[2 * i] = w->v[i].s;
		cut[2 * i + 1] = w->v[i].e;
	}
	if (r == 0) {
		ivs_merge(&u);
		qsort_safe(cut, 2 * w->n, sizeof *cut, i64_cmp);
		size_t c = 0;
		for (size_t i = 0; r == 0 && i < u.n; i++) {
			int64_t at = u.v[i].s;
			for (; c < 2 * w->n && cut[c] <= at; c++)
				;
			for (; r == 0 && c < 2 * w->n && cut[c] < u.v[i].e; c++) {
				r = ivs_add(ret, at, cut[c]);
				at = cut[c];
			}
			if (r == 0)
				r = ivs_add(ret, at, u.v[i].e);
		}
	}
	ivs_release(&u);
	return r;
}

/* --- STEP_TRACE_TIME --------------------------------------------------------------- */

/* One owner's derived sets: busy = computing ∪ communication, pure =
 * communication − computing, pure_send = pure − receives. */
struct derived {
	struct ivs busy, pure, pure_send;
};

static int derive(const struct owner *o, struct derived *d)
{
	*d = (struct derived){ 0 };
	int r = ivs_union(&o->comp, &o->comm, &d->busy);
	if (r == 0)
		r = ivs_combine(&o->comm, &o->comp, true, &d->pure);
	if (r == 0)
		r = ivs_combine(&d->pure, &o->recv, true, &d->pure_send);
	return r;
}

static void derived_release(struct derived *d)
{
	ivs_release(&d->busy);
	ivs_release(&d->pure);
	ivs_release(&d->pure_send);
}

static int insert_step(struct exp *e, sqlite3_stmt *ins, const struct owner *o, const struct derived *d,
		       const struct step_row *sr, bool have_step)
{
	int64_t s = sr->s, end = sr->e, first;
	int64_t comp = ivs_within(&o->comp, s, end, NULL), comm = ivs_within(&o->comm, s, end, NULL);
	int64_t pure = ivs_within(&d->pure, s, end, NULL), busy = ivs_within(&d->busy, s, end, &first);
	int64_t bubble = ivs_within(&o->recv, s, end, NULL);
	int64_t v[] = { comp, pure, comm - pure, comm, (end - s) - busy, (end - s) - bubble, bubble,
			ivs_within(&d->pure_send, s, end, NULL), busy ? first - s : 0 };
	int c = 1;
	db_bind_i64_or_null(ins, c++, o->dev >= 0, o->dev);
	if (have_step) {
		sqlite3_bind_int64(ins, c++, sr->step);
		sqlite3_bind_int64(ins, c++, sr->pid);
	} else {
		sqlite3_bind_null(ins, c++);
		sqlite3_bind_null(ins, c++);
	}
	sqlite3_bind_int64(ins, c++, s);
	sqlite3_bind_int64(ins, c++, end);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		sqlite3_bind_int64(ins, c++, v[i]);
	return exp_step_done(e, ins, "STEP_TRACE_TIME");
}

/* STEP_TRACE_TIME: per owner, a row per step, or one for the whole
 * collection when no step was marked. */
static int build_step_trace_time(struct exp *e)
{
	struct overlap ov;
	int r = overlap_load(e, &ov);
	if (r < 0 || ov.n == 0) {
		overlap_release(&ov);
		return r;
	}
	struct steps w;
	sqlite3_stmt *ins = NULL;
	r = load_steps(e, &w);
	if (r == 0)
		r = exp_prepare(e, "INSERT INTO STEP_TRACE_TIME VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &ins);
	struct step_row whole = { 0, 0, ov.span_s, ov.span_e };
	for (size_t i = 0; r == 0 && i < ov.n; i++) {
		struct derived d;
		r = derive(&ov.o[i], &d);
		if (r == 0 && !w.n)
			r = insert_step(e, ins, &ov.o[i], &d, &whole, false);
		for (size_t k = 0; r == 0 && k < w.n; k++)
			r = insert_step(e, ins, &ov.o[i], &d, &w.v[k], true);
		derived_release(&d);
	}
	sqlite3_finalize(ins);
	free(w.v);
	overlap_release(&ov);
	return r;
}

/* --- the timeline layer ------------------------------------------------------------ */

static const char *const thread_names[] = { "Computing", "Communication", "Communication(Not Overlapped)",
					    "Free" };

static unsigned layer_pid(const struct exp *e, const struct owner *o)
{
	return export_format_pid(e->app_pid, export_tracks[TRACK_OVERLAP].sort_index,
				 o->dev >= 0 ? (unsigned)o->dev & 31U : EXPORT_HOST_DEVICE_ID);
}

static void put_events(struct exp_tl *tl, struct exp_buf *b, unsigned pid, unsigned tid, const struct ivs *a)
{
	const char *name = thread_names[tid];
	for (size_t i = 0; i < a->n; i++) {
		exp_buf_x_event(b, name, strlen(name), pid, tid, a->v[i].s, a->v[i].e);
		exp_buf_lit(b, "}}");
		if (b->err)
			return;
		exp_buf_flush_to(b, exp_tl_event(tl));
	}
}

/* o's process: "Overlap Analysis" for the first owner (readers look for
 * that name), then unique names (MindSpore's parser raises on a second
 * process of one name): "(device N)", or "(host)" for the host's. */
static int write_owner(struct exp *e, struct exp_tl *tl, const struct owner *o, const struct ivs *win, bool first)
{
	struct derived d;
	struct ivs l[4] = { 0 };
	struct exp_buf b = { 0 };
	/* Computing, Communication, Communication(Not Overlapped) inside the
	 * window; Free = the window minus both */
	int r = derive(o, &d);
	if (r == 0)
		r = ivs_combine(&o->comp, win, false, &l[0]);
	if (r == 0)
		r = ivs_combine(&o->comm, win, false, &l[1]);
	if (r == 0)
		r = ivs_combine(&d.pure, win, false, &l[2]);
	if (r == 0)
		r = ivs_combine(win, &d.busy, true, &l[3]);
	unsigned pid = layer_pid(e, o);
	for (unsigned t = 0; r == 0 && t < ARRAY_SIZE(l); t++) {
		put_events(tl, &b, pid, t, &l[t]);
		r = b.err;
	}
	if (r == 0) {
		char label[32] = "NPU";
		if (o->dev >= 0)
			snprintf(label, sizeof label, "NPU %" PRId64, o->dev);
		const struct export_track_info *k = &export_tracks[TRACK_OVERLAP];
		char name[64];
		if (first)
			snprintf(name, sizeof name, "%s", k->process_name);
		else if (o->dev >= 0)
			snprintf(name, sizeof name, "%s (device %" PRId64 ")", k->process_name, o->dev);
		else
			snprintf(name, sizeof name, "%s (host)", k->process_name);
		exp_tl_process(tl, pid, name, label, k->sort_index);
		for (unsigned t = 0; t < ARRAY_SIZE(thread_names); t++) {
			fprintf(exp_tl_meta(tl),
				"{\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"ph\":\"M\",\"args\":{\"name\":\"%s\"}}",
				pid, t, thread_names[t]);
			fprintf(exp_tl_meta(tl),
				"{\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%u,\"ph\":\"M\",\"args\":"
				"{\"sort_index\":%u}}", pid, t, t);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(l); i++)
		ivs_release(&l[i]);
	derived_release(&d);
	exp_buf_release(&b);
	return r;
}

static bool has_overlap_layer(struct exp *e)
{
	return exp_track_on(e, TRACK_OVERLAP) && exp_table_has_rows(e, "STEP_TRACE_TIME");
}

static int write_overlap_layer(struct exp *e, struct exp_tl *tl, struct exp_tl *own)
{
	if (!has_overlap_layer(e))
		return 0;
	struct overlap ov;
	struct steps w;
	struct ivs win = { 0 };
	int r = overlap_load(e, &ov);
	if (r == 0)
		r = load_steps(e, &w);
	else
		w = (struct steps){ 0 };
	if (r == 0 && ov.n)
		r = window(&ov, &w, &win);
	for (size_t i = 0; r == 0 && i < ov.n; i++)
		r = write_owner(e, tl, &ov.o[i], &win, i == 0);
	ivs_release(&win);
	free(w.v);
	overlap_release(&ov);
	return r;
}

/* --- overlap_analysis_{ts}.csv ------------------------------------------------------ */

static void put_us(FILE *f, sqlite3_stmt *st, int col)
{
	char b[32];
	exp_format_dur_us(sqlite3_column_int64(st, col), b);
	fputc(',', f);
	fputs(b, f);
}

static void overlap_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		fputs("host", f);
	else
		fprintf(f, "%" PRId64, (int64_t)sqlite3_column_int64(st, 0));
	fputc(',', f);
	if (sqlite3_column_type(st, 1) != SQLITE_NULL)
		fprintf(f, "%" PRId64, (int64_t)sqlite3_column_int64(st, 1));
	for (int c = 2; c < 11; c++)
		put_us(f, st, c);
	fputc('\n', f);
}

static int write_overlap_summary(struct exp *e, const char *dir)
{
	static const char sql[] =
		"SELECT deviceId, step, computing, communicationNotOverlapped, overlapped, communication, free, stage, "
		"bubble, communicationNotOverlappedExcludeReceive, preparing FROM STEP_TRACE_TIME "
		"ORDER BY deviceId, startNs, pid, step";
	if (!exp_table_has_rows(e, "STEP_TRACE_TIME"))
		return 0;
	return exp_table_query(e, dir, CSV_OVERLAP_ANALYSIS, sql, overlap_row, NULL);
}

static const char *const tables[] = { "STEP_TRACE_TIME", NULL };
static const enum export_csv csvs[] = { CSV_OVERLAP_ANALYSIS, _CSV_MAX };

/* Overlap analysis: STEP_TRACE_TIME from the device tasks (or annotated
 * ranges), the steps and the communication operations; its timeline layer
 * and overlap_analysis_{ts}.csv. */
const struct exp_domain exp_domain_overlap = {
	.name = "overlap",
	.tables = tables,
	.csvs = csvs,
	.build = build_step_trace_time,
	.has_layers = has_overlap_layer,
	.layers = write_overlap_layer,
	.summaries = write_overlap_summary,
};
