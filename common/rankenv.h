/* A process's place in a distributed job, from the environment its
 * launcher gave it: torchrun / torch.distributed, Open MPI, MPICH and other
 * PMI launchers, Slurm, and MindSpore/Ascend (msprof's own RANK_ID).  One
 * table, read by the agent (its rank goes into its raw files and decides
 * --ranks), the launcher (info.json of the app it spawns, the processes it
 * attaches to) and the tests.  Header only, libc only: the agent links it.
 *
 * Each field takes the first variable of its list that is set and not
 * empty: a number, or, set to anything else (RANK=abc), no value at all: the
 * search for that field stops there rather than look further.  LOCAL_RANK
 * alone, as a rank, repeats on every node: multi-node launchers set RANK.
 * RANK_ID comes first as msprof reads it; LOCAL_RANK stands in for the rank
 * last, for launchers that give nothing else (a single-node job). */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define RANK_ENV_RANK_MAX 1000000 /* the highest rank taken (--ranks, raw files) */

struct rank_env {
	int32_t rank;             /* -1: not a rank */
	int32_t local_rank;       /* on this host; -1 unknown */
	int32_t world_size;       /* -1 unknown */
	int32_t local_world_size; /* -1 unknown */
	int32_t node_rank;        /* torchrun's GROUP_RANK; -1 unknown */
	int32_t device;           /* DEVICE_ID (MindSpore/Ascend); -1 unknown */
};

#define RANK_ENV_RANK_VARS "RANK_ID", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK"
#define RANK_ENV_LOCAL_VARS "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"
#define RANK_ENV_WORLD_VARS "WORLD_SIZE", "RANK_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"
#define RANK_ENV_LOCAL_WORLD_VARS "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"
#define RANK_ENV_NODE_VARS "GROUP_RANK", "SLURM_NODEID"
#define RANK_ENV_DEVICE_VARS "DEVICE_ID"

/* The value of name in the caller's environment, or NULL. */
typedef const char *rank_env_get_fn(void *ctx, const char *name);

static inline int32_t rank_env_first(rank_env_get_fn *get, void *ctx, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *v = get(ctx, names[i]);
		if (!v || !*v)
			continue;
		char *end;
		errno = 0;
		unsigned long long x = strtoull(v, &end, 10);
		if (*v < '0' || *v > '9' || errno || *end || x > RANK_ENV_RANK_MAX)
			return -1;
		return (int32_t)x;
	}
	return -1;
}

static inline void rank_env_read(rank_env_get_fn *get, void *ctx, struct rank_env *ret)
{
	static const char *const rank[] = { RANK_ENV_RANK_VARS }, *const local[] = { RANK_ENV_LOCAL_VARS },
				 *const world[] = { RANK_ENV_WORLD_VARS }, *const lworld[] = { RANK_ENV_LOCAL_WORLD_VARS },
				 *const node[] = { RANK_ENV_NODE_VARS }, *const dev[] = { RANK_ENV_DEVICE_VARS };
#define RANK_ENV_N(a) (sizeof(a) / sizeof((a)[0]))
	*ret = (struct rank_env){
		.rank = rank_env_first(get, ctx, rank, RANK_ENV_N(rank)),
		.local_rank = rank_env_first(get, ctx, local, RANK_ENV_N(local)),
		.world_size = rank_env_first(get, ctx, world, RANK_ENV_N(world)),
		.local_world_size = rank_env_first(get, ctx, lworld, RANK_ENV_N(lworld)),
		.node_rank = rank_env_first(get, ctx, node, RANK_ENV_N(node)),
		.device = rank_env_first(get, ctx, dev, RANK_ENV_N(dev)),
	};
#undef RANK_ENV_N
}

/* A getter over an environment block ("A=1\0B=2\0", as /proc/PID/environ
 * holds it; ctx: a struct rank_env_block). */
struct rank_env_block {
	const char *p;
	size_t n;
};

static inline const char *rank_env_block_get(void *ctx, const char *name)
{
	const struct rank_env_block *e = ctx;
	size_t l = strlen(name);
	for (size_t i = 0; i < e->n;) {
		const char *item = e->p + i;
		size_t len = strnlen(item, e->n - i);
		if (len > l && item[l] == '=' && memcmp(item, name, l) == 0)
			return item + l + 1;
		i += len + 1;
	}
	return NULL;
}

/* The place of process pid, from /proc/PID/environ read into buf (cap
 * bytes; a longer environment is cut): the bytes read, 0 when it reads
 * empty (a process inside its exec: the kernel sets the new environment
 * last), -errno when it cannot be read; *ret is its place when > 0, no
 * place (every field -1) otherwise. */
static inline ssize_t rank_env_of_pid(uint32_t pid, char *buf, size_t cap, struct rank_env *ret)
{
	*ret = (struct rank_env){ -1, -1, -1, -1, -1, -1 };
	char path[32];
	snprintf(path, sizeof path, "/proc/%u/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = read(fd, buf, cap);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	if (n > 0)
		rank_env_read(rank_env_block_get, &(struct rank_env_block){ buf, (size_t)n }, ret);
	return n;
}

/* A getter over this process's environment (getenv). */
static inline const char *rank_env_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* Whether rank is in ranks ("0,2,5", as --ranks gives it; NULL or "" lists
 * every process).  A process without a rank (-1) is never listed. */
static inline bool rank_env_listed(const char *ranks, int32_t rank)
{
	if (!ranks || !*ranks)
		return true;
	if (rank < 0)
		return false;
	for (const char *p = ranks; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			return false;
		if (v == rank)
			return true;
		if (*end && *end != ',')
			return false;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}
