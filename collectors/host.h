/* Host samplers: read /proc for a profiled process tree and for the machine,
 * and append records (raw.h) to one raw writer per source.
 *
 * No event loop here: the daemon owns timers and calls host_sampler_tick().
 * Per-pid files are kept open and read with pread at offset 0 (half the cost
 * of open+read+close); /proc/PID/task/TID/children finds new descendants. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "collectors/raw.h"
#include "common/host-sys.h"

#define HOST_MAX_ROOTS 64
#define HOST_MAX_PIDS 4096     /* processes followed in one tree */
#define HOST_MAX_THREADS 65536 /* threads sampled per tick, all processes */

struct host_sampler_config {
	const char *data_dir;        /* PROF_x/host/data, must exist */
	uint32_t roots[HOST_MAX_ROOTS];
	unsigned n_roots;
	bool follow_children;        /* add descendants that appear later */
	uint32_t adopter;            /* 0, or a subreaper above the roots (PR_SET_CHILD_SUBREAPER,
					msprof's launcher): with follow_children, the processes it
					adopts (orphans of the tree: a double fork and setsid) are
					followed; it is not sampled itself */
	unsigned sys_flags;          /* enum host_sys_flags, HOST_SYS_SAMPLED alone */
	unsigned usage_flags;        /* enum host_usage_flags */
	uint64_t mono0_ns, real0_ns; /* session clocks, written to every header */
	uint64_t slice_bytes;        /* 0: RAW_DEFAULT_SLICE_BYTES */
	const char *ranks;           /* --ranks: sample only processes of these ranks
					(their own, or their parent's); NULL: all */
};

struct host_sampler_stats {
	uint64_t ticks;
	uint64_t missed_ticks;       /* deadlines that passed untaken (host_sampler_missed) */
	uint64_t tree_reads;         /* the tree's /proc files read and CPU clocks asked by ticks */
	uint64_t rescan_skipped;     /* processes a rescan did not look at: nothing of them ran */
	uint64_t records;
	uint64_t bytes;              /* raw bytes written, all sources */
	unsigned live_pids;          /* target processes alive now */
	unsigned seen_pids;          /* target processes ever seen */
};

struct host_sampler;

int host_sampler_new(const struct host_sampler_config *cfg, struct host_sampler **ret);

/* Which samplers a tick runs: the daemon runs --host-sys samplers at
 * --host-sys-freq and usage samplers at --host-sys-usage-freq on separate
 * timers. */
enum host_tick_kind { HOST_TICK_SYS = 1, HOST_TICK_USAGE = 2 };

/* Take one sample of the given kinds now.  Returns the number of target
 * processes still alive (0: the whole tree has exited), or -errno when a
 * write failed (disk full): the session should stop. */
int host_sampler_tick(struct host_sampler *s, unsigned kinds);

/* n deadlines of this kind passed without a tick (the daemon was busy or
 * stopped for longer than a period): counted, and written with the ticks
 * taken into every source of that kind (RAW_SAMPLER_TICKS). */
void host_sampler_missed(struct host_sampler *s, enum host_tick_kind kind, uint64_t n);

void host_sampler_get_stats(const struct host_sampler *s, struct host_sampler_stats *ret);

/* Write RAW_SESSION_END to every open source and close the files. */
int host_sampler_finish(struct host_sampler *s, uint32_t reason);
struct host_sampler *host_sampler_free(struct host_sampler *s);
