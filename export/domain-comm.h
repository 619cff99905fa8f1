/* The communication domain's parsers and names (domain-comm.c), shared
 * with the analyze command's writer (analyze-comm.c) and the unit tests. */
#pragma once

#include <stdint.h>

/* ENUM_HCCL_DATA_TYPE ids for "no data type" and "not one we know". */
#define EXP_COMM_DTYPE_NA 65534
#define EXP_COMM_DTYPE_INVALID 65535
/* The mstx domain whose ranges are communication operations (torch_npu's
 * markers, mstx.torch's). */
#define EXP_COMM_MSTX_DOMAIN "communication"
/* The group of NCCL's kernels, which do not name their communicator. */
#define EXP_COMM_NCCL_GROUP "nccl_world_group"

/* What an NCCL kernel's name says; "" or EXP_COMM_DTYPE_NA where it says
 * nothing (ncclDevKernel_SendRecv). */
struct exp_comm_nccl {
	char collective[64];  /* "AllReduce" */
	char reduction[16];   /* "Sum" */
	char algorithm[32];   /* "RING", "TREE", "COLLNET_DIRECT", "NVLS", "PAT"... */
	char protocol[16];    /* "LL", "LL128", "SIMPLE" */
	int data_type;        /* ENUM_HCCL_DATA_TYPE */
};
/* 1 and *ret when name (mangled or not) is an NCCL kernel's, else 0. */
int exp_comm_parse_nccl(const char *name, struct exp_comm_nccl *ret);

/* torch_npu's mstx message of a communication operation; -1 where absent. */
struct exp_comm_dict {
	char op_name[128];
	char group[128];
	char algorithm[48];
	char backend[16];     /* mstx.torch's "backend" ("nccl", "gloo"...), "" absent */
	char ranks[256];      /* mstx.torch's "groupRanks" ("0-3,8", "0-1016:8"), "" absent */
	int data_type;        /* EXP_COMM_DTYPE_NA when absent */
	int64_t count, stream, src, dst, rank_size;
};
/* 1 and *ret when msg is a flat dict with an opName (quotes plain,
 * single or backslash-escaped; numbers quoted or not), else 0. */
int exp_comm_parse_dict(const char *msg, struct exp_comm_dict *ret);

/* msprof's opType ("hcom_allReduce_") of a collective as NCCL or HCCL
 * names it ("AllReduce", "HcclAllreduce", "allreduce"), NULL if unknown. */
const char *exp_comm_op_type(const char *collective);
/* ENUM_HCCL_DATA_TYPE id of a type name (f32, float, fp32, bf16...),
 * EXP_COMM_DTYPE_INVALID if unknown; its name; its size in bytes (0:
 * unknown). */
int exp_comm_data_type(const char *name);
const char *exp_comm_data_type_name(int id);
int exp_comm_data_type_size(int id);

/* --- host communication tasks (domain-comm-host.c) -------------------------------------- */

/* What an OS runtime call (collectors/osrt-api.h's name) is inside a
 * communication operation of gloo or MPI on CPU: data moved on a socket
 * or pipe, a wait for a peer, or neither. */
enum { EXP_COMM_HOST_NONE, EXP_COMM_HOST_TRANSFER, EXP_COMM_HOST_WAIT };
int exp_comm_host_kind(const char *call);
/* "transfer", "wait" (COMMUNICATION_HOST_TASK.taskType), NULL for none. */
const char *exp_comm_host_kind_name(int kind);

/* One call inside an operation: its span and kind. */
struct exp_comm_span {
	int64_t start, end;
	int kind;
};
/* An operation's split of its span, ns (msprof's communication.json):
 * transit the union of its transfers, wait the union of its waits outside
 * them, sync the part of wait before the first transfer starts (all of it
 * without one), idle the rest. */
struct exp_comm_times {
	int64_t elapse, transit, wait, sync, idle;
};
/* *ret for the operation [start, end) and the calls v[0..n) (clipped to
 * it, in any order); 0 or -ENOMEM. */
int exp_comm_host_times(int64_t start, int64_t end, const struct exp_comm_span *v, size_t n,
			struct exp_comm_times *ret);

struct exp;
/* COMMUNICATION_HOST_TASK: for every operation of an mstx range (source
 * 'mstx' in COMMUNICATION_OP_SOURCE, both written), the transfers and
 * waits among OSRT_API's calls of its process that overlap it. */
int exp_comm_host_build(struct exp *e);
