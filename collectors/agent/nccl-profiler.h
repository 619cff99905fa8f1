/* NCCL's profiler plugin ABI (NCCL_PROFILER_PLUGIN), the parts the agent
 * uses, declared here field by field as NCCL lays them out.  Not NVIDIA's
 * headers: these mirror, by reading them, the structs of NCCL's
 * ext-profiler/example/nccl/profiler_v{1..4}.h (NCCL 2.23.4 .. 2.27) and
 * plugins/profiler/example/nccl/profiler_v{5,6}.h (2.28, 2.29).
 *
 * NCCL dlopens the library NCCL_PROFILER_PLUGIN names and looks up
 * ncclProfiler_v6, _v5, _v4, _v3, _v2, _v1, newest first
 * (src/plugin/profiler.cc); which NCCL uses which:
 *   v1  2.23          func, datatype, algo, proto as enum codes (uint8_t)
 *   v2  2.24, 2.25    strings; coll.trafficBytes
 *   v3  2.26          trafficBytes gone; kernelCh and netPlugin events
 *   v4  2.27          init names the communicator (name, hash, nranks,
 *                     rank); commHash and name gone from coll and p2p
 *   v5  2.28          type widens to uint64_t; API events; init's
 *                     commId moves to the second argument
 *   v6  2.29          CE events; coll and p2p as in v5
 * Newer NCCLs keep loading the older symbols through shims, so a plugin
 * that exports them all gets the newest interface its NCCL has.
 *
 * Only the descriptor members up to the ones read are declared; the union
 * is padded to at least NCCL's size with a member as large as its largest,
 * which matters only for alignment (NCCL owns the memory). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef int nccl_result_t;          /* ncclResult_t: ncclSuccess 0 */
#define NCCL_SUCCESS 0

/* event types (profiler.h's enum; the bits of eActivationMask) */
#define NCCL_PROFILE_GROUP (1 << 0)
#define NCCL_PROFILE_COLL (1 << 1)
#define NCCL_PROFILE_P2P (1 << 2)

/* ncclDebugLogger_t: (level, flags, file, line, fmt, ...) */
typedef void (*nccl_logger_t)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

/* v1's enum codes (NCCL 2.23's nccl_common.h and nccl.h) */
/* ncclFunc_t */
#define NCCL_V1_FUNCS "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv", "Send", "Recv"
/* ncclDataType_t; ncclBfloat16 only where CUDA has bfloat16 */
#define NCCL_V1_TYPES "ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64", "ncclUint64", \
	"ncclFloat16", "ncclFloat32", "ncclFloat64", "ncclBfloat16"
/* NCCL_ALGO_* and NCCL_PROTO_* */
#define NCCL_V1_ALGOS "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"
#define NCCL_V1_PROTOS "LL", "LL128", "SIMPLE"

/* ncclProfilerEventDescr_v1_t */
struct nccl_descr_v1 {
	uint8_t type;
	void *parent;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t comm_hash;
			uint64_t seq;
			uint8_t func;
			const void *send_buff;
			void *recv_buff;
			size_t count;
			int root;
			uint8_t datatype;
			uint32_t op;
			size_t traffic_bytes;
			uint8_t n_max_channels;
			uint8_t n_warps;
			uint8_t algo;
			uint8_t proto;
			int is_collnet;
			int is_nvls;
		} coll;
		struct {
			const char *name;
			uint64_t comm_hash;
			uint8_t func;
			void *buff;
			uint8_t datatype;
			size_t count;
			int peer;
		} p2p;
		uint8_t pad_[128];
	};
};

/* ncclProfilerEventDescr_v2_t (v3 is the same without trafficBytes) */
struct nccl_descr_v2 {
	uint8_t type;
	void *parent;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t comm_hash;
			uint64_t seq;
			const char *func;
			const void *send_buff;
			void *recv_buff;
			size_t count;
			int root;
			const char *datatype;
			size_t traffic_bytes;
			uint8_t n_max_channels;
			uint8_t n_warps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t comm_hash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		uint8_t pad_[128];
	};
};

/* ncclProfilerEventDescr_v3_t */
struct nccl_descr_v3 {
	uint8_t type;
	void *parent;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t comm_hash;
			uint64_t seq;
			const char *func;
			const void *send_buff;
			void *recv_buff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t n_max_channels;
			uint8_t n_warps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t comm_hash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		uint8_t pad_[128];
	};
};

/* coll and p2p of v4, v5 and v6 (v5 and v6 add parentGroup after them) */
struct nccl_coll_v4 {
	uint64_t seq;
	const char *func;
	const void *send_buff;
	void *recv_buff;
	size_t count;
	int root;
	const char *datatype;
	uint8_t n_channels;
	uint8_t n_warps;
	const char *algo;
	const char *proto;
};
struct nccl_p2p_v4 {
	const char *func;
	void *buff;
	const char *datatype;
	size_t count;
	int peer;
	uint8_t n_channels;
};

/* ncclProfilerEventDescr_v4_t */
struct nccl_descr_v4 {
	uint8_t type;
	void *parent;
	int rank;
	union {
		struct nccl_coll_v4 coll;
		struct nccl_p2p_v4 p2p;
		uint8_t pad_[128];
	};
};

/* ncclProfilerEventDescr_v5_t and _v6_t: type is a uint64_t */
struct nccl_descr_v5 {
	uint64_t type;
	void *parent;
	int rank;
	union {
		struct nccl_coll_v4 coll;
		struct nccl_p2p_v4 p2p;
		uint8_t pad_[128];
	};
};

/* ncclProfiler_vN_t: name, init, startEvent, stopEvent, recordEventState,
 * finalize.  Only init and the descriptor differ between versions. */
typedef nccl_result_t (*nccl_init_v1_fn)(void **ctx, int *mask);
/* v4: (ctx, mask, commName, commHash, nNodes, nranks, rank, logfn) */
typedef nccl_result_t (*nccl_init_v4_fn)(void **ctx, int *mask, const char *name, uint64_t hash, int nnodes,
					 int nranks, int rank, nccl_logger_t log);
/* v5, v6: (ctx, commId, mask, commName, nNodes, nranks, rank, logfn) */
typedef nccl_result_t (*nccl_init_v5_fn)(void **ctx, uint64_t hash, int *mask, const char *name, int nnodes,
					 int nranks, int rank, nccl_logger_t log);
typedef nccl_result_t (*nccl_start_fn)(void *ctx, void **handle, void *descr);
typedef nccl_result_t (*nccl_stop_fn)(void *handle);
typedef nccl_result_t (*nccl_record_fn)(void *handle, int state, void *args);
typedef nccl_result_t (*nccl_finalize_fn)(void *ctx);

#define NCCL_PROFILER_STRUCT(init_t)            \
	struct {                                \
		const char *name;               \
		init_t init;                    \
		nccl_start_fn start_event;      \
		nccl_stop_fn stop_event;        \
		nccl_record_fn record_state;    \
		nccl_finalize_fn finalize;      \
	}
typedef NCCL_PROFILER_STRUCT(nccl_init_v1_fn) nccl_profiler_v1_t;
typedef NCCL_PROFILER_STRUCT(nccl_init_v4_fn) nccl_profiler_v4_t;
typedef NCCL_PROFILER_STRUCT(nccl_init_v5_fn) nccl_profiler_v5_t;
