/* Plays NCCL in front of its profiler plugin (tests/integration/comm-ncclplugin.sh,
 * tests/agent/agent-ncclplugin.sh): dlopens NCCL_PROFILER_PLUGIN as NCCL does,
 * takes the newest ncclProfiler_vN it exports (or the one asked for), and
 * reports a few operations of one communicator through it, writing each as
 * ground truth on stdout:
 *
 *   test-nccl-app run VERSION|0 COMM_NAME|- [NRANKS]
 *     RANK from the environment; prints "plugin <version> <name>", then per
 *     operation "op <kind> <func> <datatype> <count> <peer> <algo> <proto>
 *     <before_ns> <after_ns>" where before/after (CLOCK_MONOTONIC) enclose
 *     the plugin's startEvent and stopEvent.
 *   test-nccl-app abuse
 *     NULL and stray arguments to every call of every version, with and
 *     without a context; prints "abuse ok" when nothing crashed.
 *
 * The descriptors are built with the layouts in
 * collectors/agent/nccl-profiler.h, which mirror NCCL's. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/agent/nccl-profiler.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* what every version's plugin struct begins with */
typedef void (*any_init_fn)(void);
typedef NCCL_PROFILER_STRUCT(any_init_fn) any_profiler_t;

struct op {
	int kind;                    /* 1 coll, 2 p2p */
	const char *func, *dtype, *algo, *proto;
	uint8_t func1, dtype1, algo1, proto1; /* v1's codes of the same */
	size_t count;
	int peer;                    /* root or peer; -1: resolved per rank */
};

int main(int argc, char **argv)
{
	const char *path = getenv("NCCL_PROFILER_PLUGIN");
	if (!path || !*path) {
		fprintf(stderr, "test-nccl-app: NCCL_PROFILER_PLUGIN is not set\n");
		return 2;
	}
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "test-nccl-app: %s\n", dlerror());
		return 2;
	}
	if (argc >= 2 && strcmp(argv[1], "abuse") == 0) {
		for (int v = 1; v <= 6; v++) {
			char sym[32];
			snprintf(sym, sizeof sym, "ncclProfiler_v%d", v);
			any_profiler_t *p = dlsym(lib, sym);
			if (!p)
				return 3;
			void *ctx = (void *)0x1234, *h = (void *)0x5678;
			int mask = 0;
			/* init: NULL context and mask pointers, then a real one */
			if (v <= 3) {
				((nccl_init_v1_fn)p->init)(NULL, NULL);
				((nccl_init_v1_fn)p->init)(&ctx, &mask);
			} else if (v == 4) {
				((nccl_init_v4_fn)p->init)(NULL, NULL, NULL, 0, 0, 0, 0, NULL);
				((nccl_init_v4_fn)p->init)(&ctx, &mask, NULL, 7, 1, 2, 0, NULL);
			} else {
				((nccl_init_v5_fn)p->init)(NULL, 0, NULL, NULL, 0, 0, 0, NULL);
				((nccl_init_v5_fn)p->init)(&ctx, 7, &mask, NULL, 1, 2, 0, NULL);
			}
			/* NULL descriptor and handle pointer, stray contexts */
			p->start_event(ctx, NULL, NULL);
			p->start_event(ctx, &h, NULL);
			p->start_event((void *)0x10, &h, NULL);
			p->start_event(NULL, NULL, NULL);
			/* a collective with NULL strings, unknown codes, a huge count */
			struct nccl_descr_v5 d5 = { .type = NCCL_PROFILE_COLL, .rank = 0 };
			d5.coll.count = SIZE_MAX;
			struct nccl_descr_v4 d4 = { .type = NCCL_PROFILE_P2P, .rank = -5 };
			struct nccl_descr_v2 d2 = { .type = NCCL_PROFILE_COLL };
			struct nccl_descr_v1 d1 = { .type = NCCL_PROFILE_COLL };
			d1.coll.func = 200, d1.coll.datatype = 250, d1.coll.algo = 99, d1.coll.proto = 77;
			d1.coll.count = SIZE_MAX;
			void *descr = v == 1 ? (void *)&d1 : v <= 3 ? (void *)&d2 : v == 4 ? (void *)&d4 : (void *)&d5;
			h = NULL;
			p->start_event(ctx, &h, descr);
			p->record_state(h, 22, NULL);
			p->stop_event(h);
			/* an unknown event type (a CE collective of v6) */
			d5.type = 1 << 12;
			if (v >= 5) {
				p->start_event(ctx, &h, &d5);
				p->stop_event(h);
			}
			/* stray handles: never followed */
			p->stop_event(NULL);
			p->stop_event((void *)0x1);
			p->stop_event(&mask);
			p->stop_event((char *)h + 1);
			p->record_state(NULL, 0, NULL);
			p->finalize((void *)0x99);
			p->finalize(NULL);
			p->finalize(ctx);
			p->finalize(ctx); /* twice */
		}
		printf("abuse ok\n");
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: test-nccl-app run VERSION|0 COMM_NAME|- [NRANKS] | abuse\n");
		return 2;
	}
	int want = atoi(argv[2]);
	const char *comm_name = strcmp(argv[3], "-") == 0 ? NULL : argv[3];
	int nranks = argc > 4 ? atoi(argv[4]) : 2;
	const char *re = getenv("RANK");
	int rank = re ? atoi(re) : 0;
	/* NCCL's order: newest first */
	int version = 0;
	any_profiler_t *p = NULL;
	for (int v = 6; v >= 1 && !p; v--) {
		if (want && v != want)
			continue;
		char sym[32];
		snprintf(sym, sizeof sym, "ncclProfiler_v%d", v);
		if ((p = dlsym(lib, sym)))
			version = v;
	}
	if (!p) {
		fprintf(stderr, "test-nccl-app: no ncclProfiler_v%d\n", want);
		return 2;
	}
	uint64_t hash = 0x0123456789abcdefULL;
	void *ctx = NULL;
	int mask = 0, r;
	if (version <= 3)
		r = ((nccl_init_v1_fn)p->init)(&ctx, &mask);
	else if (version == 4)
		r = ((nccl_init_v4_fn)p->init)(&ctx, &mask, comm_name, hash, 1, nranks, rank, NULL);
	else
		r = ((nccl_init_v5_fn)p->init)(&ctx, hash, &mask, comm_name, 1, nranks, rank, NULL);
	if (r != NCCL_SUCCESS || !(mask & NCCL_PROFILE_COLL) || !(mask & NCCL_PROFILE_P2P) ||
	    !(mask & NCCL_PROFILE_GROUP)) {
		fprintf(stderr, "test-nccl-app: init gave %d, mask %#x\n", r, mask);
		return 1;
	}
	printf("plugin %d %s\n", version, p->name);
	/* the agent opens its window when it hears of the plugin (as when
	 * CUPTI comes up): give its thread time to */
	sleep_us(300000);
	int peer = rank ^ 1;
	const struct op ops[] = {
		{ 1, "AllReduce", "ncclFloat32", "RING", "LL", 4, 7, 1, 0, 1048576, 0 },
		{ 1, "AllGather", "ncclInt8", "RING", "SIMPLE", 2, 0, 1, 2, 4096, 0 },
		{ 1, "AllReduce", "ncclBfloat16", "TREE", "LL128", 4, 9, 0, 1, 333, 0 },
		{ 1, "Broadcast", "ncclInt64", "RING", "SIMPLE", 0, 4, 1, 2, 1000, 1 },
		{ 2, rank == 0 ? "Send" : "Recv", "ncclFloat16", NULL, NULL, rank == 0 ? 6 : 7, 6, 0, 0, 2048, peer },
		{ 2, rank == 0 ? "Recv" : "Send", "ncclUint8", NULL, NULL, rank == 0 ? 7 : 6, 1, 0, 0, 77, peer },
	};
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		const struct op *o = &ops[i];
		struct nccl_descr_v1 d1 = { .type = (uint8_t)(o->kind == 1 ? NCCL_PROFILE_COLL : NCCL_PROFILE_P2P),
					    .rank = rank };
		struct nccl_descr_v2 d2 = { .type = d1.type, .rank = rank };
		struct nccl_descr_v3 d3 = { .type = d1.type, .rank = rank };
		struct nccl_descr_v4 d4 = { .type = d1.type, .rank = rank };
		struct nccl_descr_v5 d5 = { .type = d1.type, .rank = rank };
		if (o->kind == 1) {
			d1.coll.name = comm_name, d1.coll.comm_hash = hash, d1.coll.seq = i, d1.coll.func = o->func1;
			d1.coll.count = o->count, d1.coll.root = o->peer, d1.coll.datatype = o->dtype1;
			d1.coll.n_max_channels = 2, d1.coll.algo = o->algo1, d1.coll.proto = o->proto1;
			d2.coll.name = comm_name, d2.coll.comm_hash = hash, d2.coll.seq = i, d2.coll.func = o->func;
			d2.coll.count = o->count, d2.coll.root = o->peer, d2.coll.datatype = o->dtype;
			d2.coll.n_max_channels = 2, d2.coll.algo = o->algo, d2.coll.proto = o->proto;
			d3.coll.name = comm_name, d3.coll.comm_hash = hash, d3.coll.seq = i, d3.coll.func = o->func;
			d3.coll.count = o->count, d3.coll.root = o->peer, d3.coll.datatype = o->dtype;
			d3.coll.n_max_channels = 2, d3.coll.algo = o->algo, d3.coll.proto = o->proto;
			struct nccl_coll_v4 c = { .seq = i, .func = o->func, .count = o->count, .root = o->peer,
						  .datatype = o->dtype, .n_channels = 2, .algo = o->algo,
						  .proto = o->proto };
			d4.coll = c, d5.coll = c;
		} else {
			d1.p2p.name = comm_name, d1.p2p.comm_hash = hash, d1.p2p.func = o->func1;
			d1.p2p.datatype = o->dtype1, d1.p2p.count = o->count, d1.p2p.peer = o->peer;
			d2.p2p.name = comm_name, d2.p2p.comm_hash = hash, d2.p2p.func = o->func;
			d2.p2p.datatype = o->dtype, d2.p2p.count = o->count, d2.p2p.peer = o->peer;
			d3.p2p.name = comm_name, d3.p2p.comm_hash = hash, d3.p2p.func = o->func;
			d3.p2p.datatype = o->dtype, d3.p2p.count = o->count, d3.p2p.peer = o->peer;
			struct nccl_p2p_v4 q = { .func = o->func, .datatype = o->dtype, .count = o->count,
						 .peer = o->peer, .n_channels = 1 };
			d4.p2p = q, d5.p2p = q;
		}
		void *descr = version == 1 ? (void *)&d1 : version == 2 ? (void *)&d2 : version == 3 ? (void *)&d3
			    : version == 4 ? (void *)&d4 : (void *)&d5;
		/* as NCCL 2.23: the operation inside a group event */
		struct nccl_descr_v5 g5 = { .type = NCCL_PROFILE_GROUP };
		struct nccl_descr_v4 g4 = { .type = NCCL_PROFILE_GROUP };
		struct nccl_descr_v1 g1 = { .type = NCCL_PROFILE_GROUP };
		void *gdescr = version >= 5 ? (void *)&g5 : version == 4 ? (void *)&g4 : (void *)&g1;
		void *group = NULL, *h = NULL;
		p->start_event(ctx, &group, gdescr);
		if (!group) {
			fprintf(stderr, "test-nccl-app: no group handle (is the agent recording?)\n");
			return 1;
		}
		uint64_t before = now_ns();
		p->start_event(ctx, &h, descr);
		sleep_us(2000 + 1000 * (long)i);
		p->stop_event(h);
		uint64_t after = now_ns();
		p->stop_event(group);
		printf("op %d %s %s %zu %d %s %s %llu %llu\n", o->kind, o->func, o->dtype, o->count, o->peer,
		       o->algo ? o->algo : "-", o->proto ? o->proto : "-", (unsigned long long)before,
		       (unsigned long long)after);
		sleep_us(1000);
	}
	p->finalize(ctx);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
