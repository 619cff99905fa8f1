/* NCCL's profiler plugin (NCCL >= 2.23): the launcher sets
 * NCCL_PROFILER_PLUGIN to the agent's path, NCCL dlopens it (the agent is
 * already loaded: the same copy) and takes the newest ncclProfiler_vN it
 * finds.  Each collective and point-to-point operation NCCL enqueues
 * becomes one RAW_AGENT_COMM_OP record: its function, count, data type,
 * root or peer, algorithm, protocol, channels and communicator (hash,
 * name, rank, rank count where the interface version gives them).
 *
 *   init        per communicator: a context from a fixed table (the
 *               interface's facts about it), the activation mask (group,
 *               collective and P2P events; NCCL 2.23 starts collective
 *               events only inside a group event that has a handle)
 *   startEvent  idle: one relaxed load, handle NULL.  Recording: an open
 *               event from a fixed pool (full: dropped, counted), the
 *               descriptor's facts copied (NCCL's strings are its own)
 *   stopEvent   the event into the thread's queue (agent_comm_op), the
 *               slot back to the pool
 *   recordEventState  nothing (collective and P2P events have no states)
 *   finalize    the context back to its table
 *
 * Every call returns ncclSuccess: an error would make NCCL drop the plugin
 * or fail the job's call.  Handles and contexts are checked to be ours (in
 * the pool, aligned) before use, so a stray pointer is ignored, not
 * followed.  The descriptor itself is NCCL's and trusted, NULL aside.
 *
 * Timing: NCCL starts a collective's event when it builds the launch plan
 * and stops it once the kernel is enqueued, so start..end is the host side
 * of the operation; the export prefers its NCCL kernel's device times
 * where it finds the kernel (SCHEMA.md, "Communication"). */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "collectors/agent/agent.h"
#include "collectors/agent/nccl-profiler.h"

#define NCCL_COMMS 1024        /* communicators with a context at once */
#define NCCL_OPEN 1024         /* events started and not stopped at once */
#define NCCL_NAME_MAX 128      /* a communicator's name (cut) */

struct nccl_comm {
	_Atomic uint32_t used;
	int version;
	uint64_t hash;
	int rank, nranks;
	char name[NCCL_NAME_MAX];
};

/* An operation between its start and its stop. */
struct nccl_open {
	_Atomic uint32_t used;
	uint16_t kind;             /* 1 collective, 2 p2p */
	uint16_t version;
	uint64_t start, hash, count, seq;
	int32_t rank, nranks, peer;
	uint32_t channels;
	char func[32], dtype[32], algo[32], proto[16];
	char name[NCCL_NAME_MAX];
};

static struct nccl_comm g_comms[NCCL_COMMS];
static struct nccl_open g_open[NCCL_OPEN];
static _Atomic uint32_t g_open_next;
/* The handle of a group event: NCCL needs one to start the events inside
 * it (2.23), we record nothing of it. */
static const char g_group_handle = 0;

static inline uint64_t nccl_now(void)
{
	return agent_clock_now(); /* mapped to ns by the writer, as every event's */
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* An index into a table when p is one of its entries, else -1. */
static long entry_of(const void *p, const void *base, size_t size, size_t n)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	if (a < b || a >= b + size * n || (a - b) % size)
		return -1;
	return (long)((a - b) / size);
}

static struct nccl_comm *comm_of(void *ctx)
{
	long i = entry_of(ctx, g_comms, sizeof *g_comms, NCCL_COMMS);
	return i >= 0 && atomic_load_explicit(&g_comms[i].used, memory_order_acquire) ? &g_comms[i] : NULL;
}

/* --- init and finalize -------------------------------------------------------------- */

static nccl_result_t comm_init(void **ctx, int *mask, int version, const char *name, uint64_t hash, int nranks,
			       int rank)
{
	if (ctx)
		*ctx = NULL;
	if (mask)
		*mask = NCCL_PROFILE_GROUP | NCCL_PROFILE_COLL | NCCL_PROFILE_P2P;
	agent_comm_plugin_up();
	if (!ctx)
		return NCCL_SUCCESS;
	for (size_t i = 0; i < NCCL_COMMS; i++) {
		uint32_t free_ = 0;
		if (atomic_load_explicit(&g_comms[i].used, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&g_comms[i].used, &free_, 2))
			continue;
		struct nccl_comm *c = &g_comms[i];
		c->version = version;
		c->hash = hash;
		c->nranks = nranks;
		c->rank = rank;
		copy_str(c->name, sizeof c->name, name);
		atomic_store_explicit(&c->used, 1, memory_order_release);
		*ctx = c;
		break;
	}
	/* no context left: the events still come, without the communicator's
	 * name and size */
	return NCCL_SUCCESS;
}

static nccl_result_t init_v1(void **ctx, int *mask)
{
	return comm_init(ctx, mask, 1, NULL, 0, -1, -1);
}

static nccl_result_t init_v2(void **ctx, int *mask)
{
	return comm_init(ctx, mask, 2, NULL, 0, -1, -1);
}

static nccl_result_t init_v3(void **ctx, int *mask)
{
	return comm_init(ctx, mask, 3, NULL, 0, -1, -1);
}

static nccl_result_t init_v4(void **ctx, int *mask, const char *name, uint64_t hash, int nnodes, int nranks,
			     int rank, nccl_logger_t log)
{
	(void)nnodes, (void)log;
	return comm_init(ctx, mask, 4, name, hash, nranks, rank);
}

static nccl_result_t init_v5(void **ctx, uint64_t hash, int *mask, const char *name, int nnodes, int nranks,
			     int rank, nccl_logger_t log)
{
	(void)nnodes, (void)log;
	return comm_init(ctx, mask, 5, name, hash, nranks, rank);
}

static nccl_result_t init_v6(void **ctx, uint64_t hash, int *mask, const char *name, int nnodes, int nranks,
			     int rank, nccl_logger_t log)
{
	(void)nnodes, (void)log;
	return comm_init(ctx, mask, 6, name, hash, nranks, rank);
}

static nccl_result_t finalize(void *ctx)
{
	struct nccl_comm *c = comm_of(ctx);
	if (c)
		atomic_store_explicit(&c->used, 0, memory_order_release);
	return NCCL_SUCCESS;
}

static nccl_result_t record_state(void *handle, int state, void *args)
{
	(void)handle, (void)state, (void)args;
	return NCCL_SUCCESS;
}

/* --- events ------------------------------------------------------------------------ */

/* A free open event, or NULL (counted: its operation is lost). */
static struct nccl_open *open_take(void)
{
	uint32_t start = atomic_fetch_add_explicit(&g_open_next, 1, memory_order_relaxed);
	for (uint32_t k = 0; k < NCCL_OPEN; k++) {
		struct nccl_open *o = &g_open[(start + k) % NCCL_OPEN];
		uint32_t free_ = 0;
		if (!atomic_load_explicit(&o->used, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&o->used, &free_, 1))
			return o;
	}
	agent_dropped();
	return NULL;
}

/* What every version's descriptor says, normalised. */
struct nccl_facts {
	uint16_t kind;
	int rank;
	uint64_t hash, count, seq;
	int peer;
	unsigned channels;
	const char *func, *dtype, *algo, *proto, *name;
};

static void start_event(void *ctx, void **handle, int version, const struct nccl_facts *f)
{
	/* NCCL always names the function: without one (or with a v1 code we
	 * do not know) the descriptor is not NCCL's */
	if (!f->func || !f->func[0])
		return;
	struct nccl_open *o = open_take();
	if (!o)
		return;
	const struct nccl_comm *c = comm_of(ctx);
	o->start = nccl_now();
	o->kind = f->kind;
	o->version = (uint16_t)version;
	o->hash = c && version >= 4 ? c->hash : f->hash;
	o->rank = c && c->rank >= 0 ? c->rank : f->rank;
	o->nranks = c ? c->nranks : -1;
	o->count = f->count;
	o->seq = f->seq;
	o->peer = f->peer;
	o->channels = f->channels;
	copy_str(o->func, sizeof o->func, f->func);
	copy_str(o->dtype, sizeof o->dtype, f->dtype);
	copy_str(o->algo, sizeof o->algo, f->algo);
	copy_str(o->proto, sizeof o->proto, f->proto);
	copy_str(o->name, sizeof o->name, c && version >= 4 ? c->name : f->name);
	*handle = o;
}

/* The common head of every start: whether to go on reading the
 * descriptor (a group event gets its handle here). */
static bool start_head(void **handle, const void *descr, uint64_t type)
{
	if (!handle)
		return false;
	*handle = NULL;
	if (agent_idle() || !descr)
		return false;
	if (type == NCCL_PROFILE_GROUP) {
		*handle = (void *)&g_group_handle;
		return false;
	}
	return type == NCCL_PROFILE_COLL || type == NCCL_PROFILE_P2P;
}

static const char *code_name(unsigned code, const char *const *names, size_t n)
{
	return code < n ? names[code] : "";
}

static nccl_result_t start_v1(void *ctx, void **handle, void *descr)
{
	static const char *const funcs[] = { NCCL_V1_FUNCS }, *const types[] = { NCCL_V1_TYPES },
				 *const algos[] = { NCCL_V1_ALGOS }, *const protos[] = { NCCL_V1_PROTOS };
	const struct nccl_descr_v1 *d = descr;
	if (!start_head(handle, descr, d ? d->type : 0))
		return NCCL_SUCCESS;
	struct nccl_facts f = { .rank = d->rank };
	if (d->type == NCCL_PROFILE_COLL) {
		f.kind = 1, f.hash = d->coll.comm_hash, f.count = d->coll.count, f.seq = d->coll.seq;
		f.peer = d->coll.root, f.channels = d->coll.n_max_channels, f.name = d->coll.name;
		f.func = code_name(d->coll.func, funcs, ARRAY_SIZE(funcs));
		f.dtype = code_name(d->coll.datatype, types, ARRAY_SIZE(types));
		f.algo = code_name(d->coll.algo, algos, ARRAY_SIZE(algos));
		f.proto = code_name(d->coll.proto, protos, ARRAY_SIZE(protos));
	} else {
		f.kind = 2, f.hash = d->p2p.comm_hash, f.count = d->p2p.count, f.peer = d->p2p.peer;
		f.name = d->p2p.name;
		f.func = code_name(d->p2p.func, funcs, ARRAY_SIZE(funcs));
		f.dtype = code_name(d->p2p.datatype, types, ARRAY_SIZE(types));
	}
	start_event(ctx, handle, 1, &f);
	return NCCL_SUCCESS;
}

/* v2 and v3 differ in coll.trafficBytes only: one body over both layouts */
#define START_V23(fn, descr_t, ver)                                                                           \
	static nccl_result_t fn(void *ctx, void **handle, void *descr)                                        \
	{                                                                                                     \
		const descr_t *d = descr;                                                                     \
		if (!start_head(handle, descr, d ? d->type : 0))                                              \
			return NCCL_SUCCESS;                                                                  \
		struct nccl_facts f = { .rank = d->rank };                                                    \
		if (d->type == NCCL_PROFILE_COLL) {                                                           \
			f.kind = 1, f.hash = d->coll.comm_hash, f.count = d->coll.count, f.seq = d->coll.seq; \
			f.peer = d->coll.root, f.channels = d->coll.n_max_channels, f.name = d->coll.name;    \
			f.func = d->coll.func, f.dtype = d->coll.datatype, f.algo = d->coll.algo;             \
			f.proto = d->coll.proto;                                                              \
		} else {                                                                                      \
			f.kind = 2, f.hash = d->p2p.comm_hash, f.count = d->p2p.count, f.peer = d->p2p.peer;  \
			f.name = d->p2p.name, f.func = d->p2p.func, f.dtype = d->p2p.datatype;                \
		}                                                                                             \
		start_event(ctx, handle, ver, &f);                                                            \
		return NCCL_SUCCESS;                                                                          \
	}
START_V23(start_v2, struct nccl_descr_v2, 2)
START_V23(start_v3, struct nccl_descr_v3, 3)

/* v4, v5 and v6 share coll and p2p; the type's width differs */
static void facts_v4(int type, int rank, const struct nccl_coll_v4 *coll, const struct nccl_p2p_v4 *p2p,
		     struct nccl_facts *f)
{
	*f = (struct nccl_facts){ .rank = rank };
	if (type == NCCL_PROFILE_COLL) {
		f->kind = 1, f->count = coll->count, f->seq = coll->seq, f->peer = coll->root;
		f->channels = coll->n_channels, f->func = coll->func, f->dtype = coll->datatype;
		f->algo = coll->algo, f->proto = coll->proto;
	} else {
		f->kind = 2, f->count = p2p->count, f->peer = p2p->peer, f->channels = p2p->n_channels;
		f->func = p2p->func, f->dtype = p2p->datatype;
	}
}

static nccl_result_t start_v4(void *ctx, void **handle, void *descr)
{
	const struct nccl_descr_v4 *d = descr;
	if (!start_head(handle, descr, d ? d->type : 0))
		return NCCL_SUCCESS;
	struct nccl_facts f;
	facts_v4(d->type, d->rank, &d->coll, &d->p2p, &f);
	start_event(ctx, handle, 4, &f);
	return NCCL_SUCCESS;
}

static nccl_result_t start_v5(void *ctx, void **handle, void *descr)
{
	const struct nccl_descr_v5 *d = descr;
	if (!start_head(handle, descr, d ? d->type : 0))
		return NCCL_SUCCESS;
	struct nccl_facts f;
	facts_v4((int)d->type, d->rank, &d->coll, &d->p2p, &f);
	/* v6 is v5 for these events; the version recorded is the context's */
	const struct nccl_comm *c = comm_of(ctx);
	start_event(ctx, handle, c ? c->version : 5, &f);
	return NCCL_SUCCESS;
}

/* --- stop: the record ---------------------------------------------------------------- */

struct le_buf {
	uint8_t b[RAW_AGENT_MAX_STR];
	uint32_t n;
};

static void le_put(struct le_buf *w, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void le_str(struct le_buf *w, const char *s)
{
	size_t n = strlen(s);
	le_put(w, n, 4);
	memcpy(w->b + w->n, s, n);
	w->n += (uint32_t)n;
}

/* Bytes of one element of NCCL's type names (0: not known). */
static unsigned type_size(const char *t)
{
	static const struct {
		const char *name;
		unsigned size;
	} sizes[] = {
		{ "ncclInt8", 1 },    { "ncclUint8", 1 },       { "ncclInt32", 4 },       { "ncclUint32", 4 },
		{ "ncclInt64", 8 },   { "ncclUint64", 8 },      { "ncclFloat16", 2 },     { "ncclFloat32", 4 },
		{ "ncclFloat64", 8 }, { "ncclBfloat16", 2 },    { "ncclFloat8e4m3", 1 }, { "ncclFloat8e5m2", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		if (strcmp(t, sizes[i].name) == 0)
			return sizes[i].size;
	return 0;
}

static nccl_result_t stop_event(void *handle)
{
	long i = entry_of(handle, g_open, sizeof *g_open, NCCL_OPEN);
	if (i < 0 || !atomic_load_explicit(&g_open[i].used, memory_order_acquire))
		return NCCL_SUCCESS; /* a group's, one started while idle, or not ours */
	struct nccl_open *o = &g_open[i];
	if (!agent_idle()) {
		uint64_t end = nccl_now();
		unsigned size = type_size(o->dtype);
		uint64_t bytes = size && o->count <= UINT64_MAX / size ? o->count * size : 0;
		/* the strings are cut to their fields: the whole fits in 1024 */
		struct le_buf w;
		w.n = 0;
		le_put(&w, o->hash, 8);
		le_put(&w, (uint32_t)o->rank, 4);
		le_put(&w, (uint32_t)o->nranks, 4);
		le_put(&w, o->count, 8);
		le_put(&w, bytes, 8);
		le_put(&w, (uint32_t)o->peer, 4);
		le_put(&w, o->channels, 4);
		le_put(&w, o->seq, 8);
		le_put(&w, o->version, 4);
		le_put(&w, 0, 4);
		le_str(&w, o->func);
		le_str(&w, o->dtype);
		le_str(&w, o->algo);
		le_str(&w, o->proto);
		le_str(&w, o->name);
		agent_comm_op(o->kind, o->start, end < o->start ? o->start : end, w.b, w.n);
	}
	atomic_store_explicit(&o->used, 0, memory_order_release);
	return NCCL_SUCCESS;
}

/* --- the symbols NCCL looks up ------------------------------------------------------- */

#define PLUGIN_NAME "msprof"

AGENT_EXPORT const nccl_profiler_v1_t ncclProfiler_v1 = {
	PLUGIN_NAME, init_v1, start_v1, stop_event, record_state, finalize,
};
AGENT_EXPORT const nccl_profiler_v1_t ncclProfiler_v2 = {
	PLUGIN_NAME, init_v2, start_v2, stop_event, record_state, finalize,
};
AGENT_EXPORT const nccl_profiler_v1_t ncclProfiler_v3 = {
	PLUGIN_NAME, init_v3, start_v3, stop_event, record_state, finalize,
};
AGENT_EXPORT const nccl_profiler_v4_t ncclProfiler_v4 = {
	PLUGIN_NAME, init_v4, start_v4, stop_event, record_state, finalize,
};
AGENT_EXPORT const nccl_profiler_v5_t ncclProfiler_v5 = {
	PLUGIN_NAME, init_v5, start_v5, stop_event, record_state, finalize,
};
AGENT_EXPORT const nccl_profiler_v5_t ncclProfiler_v6 = {
	PLUGIN_NAME, init_v6, start_v5, stop_event, record_state, finalize,
};
