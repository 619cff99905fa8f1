/* Raw data files: the one binary format every collector writes (msprofd's
 * host and device samplers, and the in-process agent: mstx/NVTX, OS runtime
 * calls and device tasks) and the export's parser reads.
 *
 * A file is a fixed header followed by framed records:
 *
 *   raw_file_header (64 bytes)
 *   { raw_frame (16 bytes) | payload (len bytes) } ...
 *
 * All integers are little-endian, fixed width, written field by field by the
 * writer (never a struct dumped with memcpy of a padded layout), so files move
 * between machines.  Every frame starts with RAW_FRAME_SYNC and carries a
 * CRC-32C of its type, flags, length and payload (version 1 files: a CRC-32
 * of the payload alone, still read), and the header its own: a reader that meets a torn tail (the writer was
 * killed) or a damaged region stops there or resynchronises on the next sync
 * word, takes every whole record, and counts what it skipped.  It never
 * trusts a length: payloads above RAW_MAX_PAYLOAD are damage.
 *
 * Files are written as slices, `<name>.slice_<n>`, each with its own header so
 * each stands alone; ageing (--storage-limit) deletes whole old slices.
 *
 * Timestamps in records are CLOCK_MONOTONIC nanoseconds; the header records
 * CLOCK_MONOTONIC and CLOCK_REALTIME read back to back when the session
 * started, and the parser converts: unix_ns = ts - mono0 + real0. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define RAW_MAGIC "MSPRAW\r\n"          /* 8 bytes, no terminator stored */
#define RAW_VERSION 2                   /* 1: CRC-32 of payloads, no header checksum */
#define RAW_HEADER_SIZE 64
#define RAW_FRAME_SIZE 16
#define RAW_FRAME_SYNC 0x5846524dU      /* "MRFX" read as little-endian u32 */
#define RAW_MAX_PAYLOAD (1U << 20)
#define RAW_DEFAULT_SLICE_BYTES (64ULL << 20)

/* Header, on disk (offsets in bytes):
 *  0  magic[8]        RAW_MAGIC
 *  8  u32 version     RAW_VERSION
 * 12  u32 header_size RAW_HEADER_SIZE (readers skip what they do not know)
 * 16  u64 mono0_ns    CLOCK_MONOTONIC at session start
 * 24  u64 real0_ns    CLOCK_REALTIME at the same instant
 * 32  u32 source      enum raw_source
 * 36  u32 writer_pid
 * 40  u32 slice       slice index of this file
 * 44  u32 clk_tck     sysconf(_SC_CLK_TCK) of the writer
 * 48  u64 page_size   sysconf(_SC_PAGESIZE) of the writer
 * 56  u32 header_crc  CRC-32C of bytes 0..55 (version 1: zero, not checked)
 * 60  u32 reserved    zero
 *
 * Frame, on disk:
 *  0  u32 sync        RAW_FRAME_SYNC
 *  4  u16 type        enum raw_type
 *  6  u16 flags       zero today
 *  8  u32 len         payload bytes
 * 12  u32 crc         CRC-32C (Castagnoli, as iSCSI's and ext4's) of bytes
 *                     4..11 (type, flags, len) followed by the payload;
 *                     version 1: CRC-32 (IEEE, zlib's crc32) of the payload
 * (raw_frame_crc). */

struct raw_header {
	uint32_t version;
	uint64_t mono0_ns;
	uint64_t real0_ns;
	uint32_t source;
	uint32_t writer_pid;
	uint32_t slice;
	uint32_t clk_tck;
	uint64_t page_size;
};

enum raw_source {
	RAW_SOURCE_HOST_CPU = 1,     /* host_cpu.data       --host-sys=cpu      */
	RAW_SOURCE_HOST_MEM = 2,     /* host_mem.data       --host-sys=mem      */
	RAW_SOURCE_HOST_DISK = 3,    /* host_disk.data      --host-sys=disk     */
	RAW_SOURCE_HOST_NET = 4,     /* host_network.data   --host-sys=network  */
	RAW_SOURCE_USAGE_CPU = 5,    /* host_usage_cpu.data --host-sys-usage=cpu */
	RAW_SOURCE_USAGE_MEM = 6,    /* host_usage_mem.data --host-sys-usage=mem */
	/* The in-process agent: one file set per process and window,
	 * host/data/agent_<pid>.data.slice_<n> (raw_agent_stem). */
	RAW_SOURCE_AGENT = 100,
	/* Device samples from the daemon (collectors/device.h): one file set
	 * per device, device_<N>/data/device.data.slice_<n>. */
	RAW_SOURCE_DEVICE = 20,
};

/* Record types and their payloads.  Every payload begins with u64 ts
 * (CLOCK_MONOTONIC ns of the sample).  "n x {…}" is a u32 count followed by
 * that many fixed-size entries; strings are fixed-size, NUL-padded.
 *
 * RAW_PROC_INFO   ts, u32 pid, u32 ppid, u64 starttime (ticks since boot,
 *                 /proc/PID/stat field 22), char comm[16], u32 is_target
 *                 (1: part of the profiled tree, 0: seen by the all-process
 *                 usage sampler only), then (absent in older files) i32
 *                 rank, i32 local_rank: a target's, from its environment
 *                 (common/rankenv.h) or else its parent's, -1 none.  Written the first time a
 *                 pid is seen, and again if its comm changes (exec).
 * RAW_PROC_EXIT   ts, u32 pid.  Written when a sampled pid disappears.
 * RAW_THREAD_CPU  ts, n x {u32 pid, u32 tid, u64 utime_ticks, u64 stime_ticks,
 *                 u64 runtime_ns (schedstat field 1; 0 if unavailable),
 *                 i32 processor (stat field 39), u32 read_ns}
 *                 one entry per live thread of every target process; a
 *                 thread that has not run since the last sample has its
 *                 last entry again (processor: the CPU it last ran on).
 *                 read_ns (here, RAW_PROC_IO and RAW_PROC_CPU): when the
 *                 entry's counters were read (or found unchanged), in ns
 *                 after ts; a rate spans two entries' ts + read_ns (0 in
 *                 older files: the record's ts).
 * RAW_PROC_MEM    ts, n x {u32 pid, u32 reserved, u64 size_pages,
 *                 u64 resident_pages, u64 shared_pages}   (/proc/PID/statm)
 * RAW_PROC_IO     ts, n x {u32 pid, u32 read_ns, u64 rchar, u64 wchar,
 *                 u64 read_bytes, u64 write_bytes, u64 cancelled_write_bytes,
 *                 u64 blkio_ticks (stat field 42, delayacct)}  (/proc/PID/io)
 * RAW_NET_DEV     ts, n x {char ifname[16], u64 rx_bytes, u64 rx_packets,
 *                 u64 rx_errs, u64 rx_drop, u64 tx_bytes, u64 tx_packets,
 *                 u64 tx_errs, u64 tx_drop}                (/proc/net/dev)
 * RAW_SYS_CPU     ts, n x {i32 cpu (-1 = the aggregate "cpu" line),
 *                 u32 reserved, u64 user, nice, system, idle, iowait, irq,
 *                 softirq, steal}  (ticks, /proc/stat)
 * RAW_SYS_MEM     ts, u64 MemTotal, MemFree, Buffers, Cached, Shmem,
 *                 CommitLimit, Committed_AS (kB), HugePages_Total,
 *                 HugePages_Free (pages), then (absent in older files)
 *                 MemAvailable (kB)                    (/proc/meminfo)
 *                 In host_mem (--host-sys=mem) too, at most every 20 ms.
 * RAW_THREAD_INFO ts, u32 pid, u32 tid, char comm[16]: a target thread's
 *                 name, in host_cpu, when the thread is first read and
 *                 when its comm changes; again at the start of each slice.
 * RAW_DISK_STATS  ts, n x {char name[32], u64 sectors_read (512 B),
 *                 u64 sectors_written, u64 io_ticks_ms, u64 reserved}
 *                 the machine's whole disks (/proc/diskstats), in host_disk
 *                 before each RAW_PROC_IO sample.
 * RAW_PROC_CPU    ts, n x {u32 pid, u32 read_ns, u64 utime_ticks,
 *                 u64 stime_ticks}   all processes (--host-sys-usage=cpu);
 *                 files of this version write RAW_PROC_CPU_THREADS instead
 * RAW_PROC_CPU_THREADS ts, n x {u32 pid, u32 read_ns, u64 utime_ticks,
 *                 u64 stime_ticks, u32 num_threads (stat field 20),
 *                 u32 reserved}: the same with the process's threads, the
 *                 most CPU it can use at once
 * RAW_PROC_MEM_ALL ts, same entries as RAW_PROC_MEM, all processes
 * RAW_SAMPLER_TICKS ts, u64 taken, u64 missed: the sampler's ticks of the
 *                 timer that feeds this source (--host-sys-freq for the
 *                 host_* sources, --host-sys-usage-freq for host_usage_*)
 *                 taken since the session started, and the deadlines of
 *                 that timer that passed without a tick (msprofd busy,
 *                 stopped or starved for more than a period; its clock
 *                 keeps absolute deadlines, so taken + missed is the time
 *                 sampled x the frequency).  Cumulative: written when they
 *                 change, at most every 100 ms, and before RAW_SESSION_END.
 * RAW_SESSION_END ts, u32 reason (0 stop request, 1 target exited,
 *                 2 client gone, 3 daemon shutdown). Last record of a
 *                 session in each source's newest slice.
 *
 * Placement (host samplers, host.c): every source with per-process entries
 * (host_cpu, host_mem, host_disk, host_usage_cpu, host_usage_mem) carries
 * RAW_PROC_INFO and RAW_PROC_EXIT for its own pids, and repeats RAW_PROC_INFO
 * for the live pids at the start of each new slice, so a file or a slice
 * stands alone.  One sample of more than 16384 entries is split into several
 * records with the same ts. */
enum raw_type {
	RAW_PROC_INFO = 1,
	RAW_PROC_EXIT = 2,
	RAW_THREAD_CPU = 3,
	RAW_PROC_MEM = 4,
	RAW_PROC_IO = 5,
	RAW_NET_DEV = 6,
	RAW_SYS_CPU = 7,
	RAW_SYS_MEM = 8,
	RAW_PROC_CPU = 9,
	RAW_PROC_MEM_ALL = 10,
	RAW_SESSION_END = 11,
	RAW_SAMPLER_TICKS = 12,
	RAW_THREAD_INFO = 13,
	RAW_DISK_STATS = 14,
	RAW_PROC_CPU_THREADS = 15,
	/* Agent records (RAW_SOURCE_AGENT).  ts is CLOCK_MONOTONIC ns as
	 * everywhere; strings are u32 length + bytes (no NUL), at most
	 * RAW_AGENT_MAX_STR bytes (longer messages are cut and counted).
	 *
	 * RAW_AGENT_PROCESS  ts, u32 pid, u32 ppid, i32 rank (-1 none),
	 *                    u32 flags, str name (comm), str cmdline (args
	 *                    joined by spaces), then (absent in files of
	 *                    older agents: read as -1) i32 local_rank, i32
	 *                    world_size, i32 local_world_size, i32 node_rank,
	 *                    i32 device (common/rankenv.h; -1 unknown).
	 *                    First record of every slice.
	 *                    flags bit 0 (RAW_AGENT_WINDOW_START): this slice
	 *                    begins a window (the counters restart; a
	 *                    process that execs keeps its pid and continues
	 *                    the file set with a new window), 0: it continues
	 *                    the previous slice's window.
	 * RAW_AGENT_THREAD   ts, u32 tid, str name: a thread's name (its comm
	 *                    when first seen, or what NVTX/mstx named it).
	 * RAW_AGENT_DOMAIN   ts, u64 domain_id, str name: a domain created by
	 *                    mstxDomainCreateA / nvtxDomainCreateA; id 0 is
	 *                    the default domain ("default"), never written.
	 * RAW_AGENT_CATEGORY ts, u64 domain_id, u64 category, str name: a name
 *                    given to a category (nvtxNameCategoryA,
 *                    nvtxDomainNameCategoryA); the last one written wins.
 * RAW_AGENT_MARK     ts, u32 tid, u32 event_type (ENUM_MSTX_EVENT_TYPE:
	 *                    0 marker, 3 marker_ex), u64 domain_id,
	 *                    u64 category (0 none), u32 color (0 none),
	 *                    u32 reserved, str message.
	 * RAW_AGENT_RANGE_START  ts, u32 tid, u32 event_type (1 push/pop,
	 *                    2 start/end), u64 range_id (start/end: the id
	 *                    returned to the caller; push/pop: 0), u64 domain_id,
	 *                    u64 category, u32 color, u32 reserved, str message.
	 * RAW_AGENT_RANGE_END  ts, u32 tid, u32 event_type, u64 range_id
	 *                    (push/pop: 0, the innermost open push of that
	 *                    thread and domain ends), u64 domain_id.
	 * RAW_AGENT_COUNTERS ts, u64 events, u64 dropped (buffer full),
	 *                    u64 bad_calls (NULL message, unknown range id,
	 *                    pop without push, destroyed domain), u64 truncated
	 *                    (messages cut to RAW_AGENT_MAX_STR), then device
	 *                    records not written: u64 lost (queue full), u64
	 *                    untimed (no start or end time: still running at
	 *                    a forced flush), u64 bad (impossible values); a
	 *                    record without these three (older agents) has
	 *                    none; then (absent in older agents' records) the
	 *                    dropped events by cause, adding up to dropped:
	 *                    u64 full (the queues reached their cap), u64
	 *                    nested (a signal handler annotating inside an
	 *                    annotation), u64 noslot (a thread got no buffer),
	 *                    u64 unopened (NCCL operations with no room to be
	 *                    kept open), u64 write (the file could not be
	 *                    written); then (absent in older agents' records)
	 *                    u64 ended: 1 when the window was ended by the
	 *                    agent because msprofd was lost (RAW_AGENT_ENDED_
	 *                    LOST: nothing after this record's time was
	 *                    recorded), else 0; then (absent in older agents'
	 *                    records) u64 final: 1 in the window's last record,
	 *                    0 in a flush's (a file set whose last record is
	 *                    not a final one was cut short: the process was
	 *                    killed).  Cumulative for the window; written at
	 *                    every flush and last.
	 * RAW_AGENT_OSRT     ts (call start), u32 tid, u32 api (osrt-api.h),
	 *                    u64 end ns: an OS runtime call (--host-sys=osrt)
	 *                    that took at least the window's threshold.
	 * RAW_AGENT_COMM_OP  ts (start), u32 tid, u32 kind (1 collective, 2
	 *                    point-to-point), u64 end ns, u64 comm_hash, i32
	 *                    rank, i32 nranks (-1 unknown), u64 count
	 *                    (elements), u64 bytes (count x the type's size,
	 *                    0 unknown), i32 peer (p2p: the remote rank;
	 *                    collective: the root, -1 none), u32 channels, u64
	 *                    seq (NCCL's sequence number of the collective in
	 *                    its communicator, 0 none), u32 version (of NCCL's
	 *                    profiler interface), u32 reserved, str func
	 *                    ("AllReduce", "Send"...), str datatype
	 *                    ("ncclFloat32"), str algo ("RING"), str proto
	 *                    ("SIMPLE"), str comm_name ("" none): one operation
	 *                    NCCL reported to its profiler plugin
	 *                    (NCCL_PROFILER_PLUGIN = the agent,
	 *                    collectors/agent/nccl.c).  Start and end are its
	 *                    host-side span: NCCL starts the event when it
	 *                    enqueues the operation and stops it once the
	 *                    kernel is launched; tid is the thread that
	 *                    stopped it.
	 *
	 * Placement (agent, collectors/agent/window.c): every slice begins with
	 * RAW_AGENT_PROCESS, then the DOMAIN, CATEGORY and NVTX-named THREAD
	 * records known so far; a thread's RAW_AGENT_THREAD comes before its
	 * first event in each slice; a DOMAIN record comes before the first
	 * event of that domain.  Events of one thread are in call order;
	 * threads interleave in batches (sort by ts).  A range may end on
	 * another thread (RANGE_END tid is the ending thread), and then its
	 * END may come before its START in the file: match start/end ranges
	 * by range_id, push/pop ones by (tid, domain) nesting.  A START may
	 * have no END (still open at stop).  The last record of a window
	 * is RAW_AGENT_COUNTERS. */
	RAW_AGENT_PROCESS = 100,
	RAW_AGENT_THREAD = 101,
	RAW_AGENT_DOMAIN = 102,
	RAW_AGENT_CATEGORY = 103,
	RAW_AGENT_MARK = 110,
	RAW_AGENT_RANGE_START = 111,
	RAW_AGENT_RANGE_END = 112,
	RAW_AGENT_COUNTERS = 120,
	RAW_AGENT_OSRT = 130,
	RAW_AGENT_COMM_OP = 131,
	/* Device tasks (collectors/gputask.h encodes and decodes them; names
	 * are u32 length + bytes, under GPU_NAME_MAX):
	 * RAW_AGENT_GPU_TASK  u64 start, u64 end (CLOCK_MONOTONIC ns), u32 kind
	 *                     (1 kernel, 2 memcpy, 3 memset), u32 device, u32
	 *                     context, u32 stream, u32 correlation, i32 grid[3],
	 *                     i32 block[3], u32 shared_mem, u32 registers, u32
	 *                     copy_kind (memcpy: CUPTI's direction; memset: the
	 *                     value), u64 bytes, str name (kernels; "" else).
	 * RAW_AGENT_GPU_API   u64 start, u64 end, u32 tid, u32 correlation, u32
	 *                     cbid, u32 result, str name: a CUDA runtime call;
	 *                     the tasks it launched carry its correlation id.
	 * RAW_AGENT_GPU_SYNC  u64 start, u64 end, u32 type (1 event sync, 2
	 *                     stream wait event, 3 stream sync, 4 context
	 *                     sync, 0 unknown), u32 context, u32 stream, u32
	 *                     event, u32 correlation, u32 result: a host thread
	 *                     waiting for the device inside a runtime call (the
	 *                     call with that correlation id); stream and event
	 *                     0xffffffff where they do not apply. */
	/* RAW_AGENT_BATCH  (version 2) u32 tid, u32 reserved, then events of
	 *                    that thread back to back, each RAW_AGENT_EV_*
	 *                    (raw_agent_ev_size): u64 ts, u8 kind (bit 7:
	 *                    RAW_AGENT_EV_ATTR), u8 event_type (osrt: 0; comm:
	 *                    its kind), u16 n, u32 domain (osrt: the api),
	 *                    then u64 id where raw_agent_ev_has_id (range id of
	 *                    a start/end range, the end ns of an osrt call or
	 *                    a communication operation), then u32 category
	 *                    and u32 color where RAW_AGENT_EV_ATTR, then n
	 *                    bytes (the message, or COMM_OP's payload after
	 *                    its end).  The agent's events, a block's worth
	 *                    under one checksum: a third of the bytes of one
	 *                    frame each.  raw_reader_next hands them out one
	 *                    by one as the MARK, RANGE_START, RANGE_END, OSRT
	 *                    and COMM_OP records above, so that no reader
	 *                    sees a batch. */
	RAW_AGENT_BATCH = 150,
	RAW_AGENT_GPU_TASK = 140,
	RAW_AGENT_GPU_API = 141,
	RAW_AGENT_GPU_SYNC = 142,
	/* Device records (RAW_SOURCE_DEVICE, collectors/device.c encodes and
	 * decodes them).  Strings are u32 length + bytes, under DEV_NAME_MAX.
	 *
	 * RAW_DEV_INFO    ts, u32 index, u32 backend (1 NVML), u64 mem_total
	 *                 (bytes), u32 max_sm_clock, u32 max_mem_clock (MHz,
	 *                 0 unknown), u32 cores (0 unknown), u32 reserved,
	 *                 str name, str uuid, str bus_id, str driver.  First
	 *                 record of every slice.
	 * RAW_DEV_SAMPLE  ts, u32 index, u32 valid (enum dev_valid), u32
	 *                 util_gpu, u32 util_mem (%), u64 mem_used, u64
	 *                 mem_free, u64 mem_reserved (bytes), u32 sm_clock, u32
	 *                 mem_clock (MHz), u32 power (mW), u32 temperature (C),
	 *                 u32 pcie_tx, u32 pcie_rx (KB/s).  A value whose valid
	 *                 bit is clear is zero and means nothing.
	 * RAW_DEV_PROCS   ts, u32 index, n x {u32 pid, u32 reserved, u64 used
	 *                 (bytes of device memory)}: the processes holding
	 *                 memory on the device at the sample (every process
	 *                 the driver lists; the export picks the profiled
	 *                 ones).  Written with each DEV_TICK_MEM sample. */
	RAW_DEV_INFO = 200,
	RAW_DEV_SAMPLE = 201,
	RAW_DEV_PROCS = 202,
};

#define RAW_AGENT_MAX_STR 1024

/* The events of RAW_AGENT_BATCH (kinds) */
enum raw_agent_ev {
	RAW_AGENT_EV_MARK = 1,
	RAW_AGENT_EV_START = 2,
	RAW_AGENT_EV_END = 3,
	RAW_AGENT_EV_OSRT = 4,
	RAW_AGENT_EV_COMM = 5,
};
#define RAW_AGENT_EV_ATTR 0x80U   /* category and color follow */
#define RAW_AGENT_EV_HEAD 16U
#define RAW_AGENT_BATCH_HEAD 8U  /* tid, reserved */

/* Whether an event of this kind and event type carries a u64 id. */
static inline bool raw_agent_ev_has_id(unsigned kind, unsigned etype)
{
	kind &= ~RAW_AGENT_EV_ATTR;
	return kind == RAW_AGENT_EV_OSRT || kind == RAW_AGENT_EV_COMM ||
	       ((kind == RAW_AGENT_EV_START || kind == RAW_AGENT_EV_END) && etype == 2 /* start/end */);
}

/* Bytes of an event from its kind, event type and n. */
static inline uint32_t raw_agent_ev_size(unsigned kind, unsigned etype, unsigned n)
{
	return RAW_AGENT_EV_HEAD + (raw_agent_ev_has_id(kind, etype) ? 8U : 0U) +
	       ((kind & RAW_AGENT_EV_ATTR) ? 8U : 0U) + n;
}
#define RAW_AGENT_WINDOW_START 1U  /* RAW_AGENT_PROCESS flags */
#define RAW_AGENT_ENDED_LOST 1U    /* RAW_AGENT_COUNTERS ended: msprofd was lost */

/* Decoded entries (host byte order; what encoders take and decoders give). */
struct raw_proc_info { uint64_t ts; uint32_t pid, ppid; uint64_t starttime; char comm[16]; uint32_t is_target; };
struct raw_thread_cpu { uint32_t pid, tid; uint64_t utime, stime, runtime_ns; int32_t processor; };
struct raw_proc_mem { uint32_t pid; uint64_t size, resident, shared; };
struct raw_proc_io { uint32_t pid; uint64_t rchar, wchar, read_bytes, write_bytes, cancelled_write_bytes, blkio_ticks; };
struct raw_net_dev { char ifname[16]; uint64_t rx_bytes, rx_packets, rx_errs, rx_drop, tx_bytes, tx_packets, tx_errs, tx_drop; };
struct raw_sys_cpu { int32_t cpu; uint64_t user, nice, system, idle, iowait, irq, softirq, steal; };
struct raw_sys_mem { uint64_t ts, mem_total, mem_free, buffers, cached, shmem, commit_limit, committed_as, huge_total, huge_free; };
struct raw_proc_cpu { uint32_t pid; uint64_t utime, stime; };

/* Unix ns of a record's CLOCK_MONOTONIC stamp, with the clocks of its
 * file's header (the conversion every reader makes).  Any stamp and clocks
 * give a number: one past what an int64 holds (after 2262, or before 1677)
 * is INT64_MAX or INT64_MIN, for the reader to refuse. */
static inline int64_t raw_unix_ns(const struct raw_header *h, uint64_t ts)
{
	__extension__ __int128 v = (__int128)ts - (__int128)h->mono0_ns + (__int128)h->real0_ns;
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* What records of a type are, for a person: "mark(s)", "thread CPU
 * sample(s)"; "record(s) of type N" for a type it does not know. */
const char *raw_type_noun(uint32_t type);

/* File name stem for a source ("host_cpu.data"); NULL if unknown (and for
 * RAW_SOURCE_AGENT, whose files are named per process: raw_agent_stem). */
const char *raw_source_stem(enum raw_source s);

/* Longest stem, its terminator included; longer stems are refused. */
#define RAW_STEM_MAX 32
/* Every file of one process's agent: RAW_AGENT_PREFIX, its pid, then
 * ".data" (raw_agent_stem) or RAW_AGENT_LOST_SUFFIX. */
#define RAW_AGENT_PREFIX "agent_"
/* "agent_<pid>.data": the stem of one process's agent files. */
void raw_agent_stem(pid_t pid, char ret[RAW_STEM_MAX]);
/* Beside a process's files, "agent_<pid>.lost": what the process left
 * unwritten when it ended before its agent thread wrote its queues (the
 * thread did not get to them within the exit's wait), the bytes as decimal
 * text and a newline; the export names it. */
#define RAW_AGENT_LOST_SUFFIX ".lost"

/* --- writing ------------------------------------------------------------ */

/* A slice writer: appends whole frames with write(2) on an O_APPEND fd, so a
 * crash leaves at most one torn frame at the end.  Rotates to slice n+1 when
 * the current slice reaches slice_bytes. */
struct raw_writer;

int raw_writer_open(const char *dir, enum raw_source source, uint64_t mono0_ns,
		    uint64_t real0_ns, uint64_t slice_bytes, struct raw_writer **ret);
/* The same with the file name stem given (slices "<stem>.slice_<n>"), for
 * sources with one file set per process (RAW_SOURCE_AGENT: raw_agent_stem).
 * -EINVAL for an empty stem, one with '/', or one of RAW_STEM_MAX or more. */
int raw_writer_open_stem(const char *dir, const char *stem, enum raw_source source,
			 uint64_t mono0_ns, uint64_t real0_ns, uint64_t slice_bytes,
			 struct raw_writer **ret);
/* Append one record; payload is already encoded (little-endian). */
int raw_writer_append(struct raw_writer *w, uint16_t type, const void *payload, uint32_t len);
uint64_t raw_writer_bytes(const struct raw_writer *w);   /* all slices, headers included */
/* Keep up to cap bytes of whole frames in memory and write them with one
 * write(2) when the buffer fills, at slice rotation, on raw_writer_flush and
 * on free (cap 0: every frame is written at once, the default).  A crash
 * loses what is buffered, never leaves part of a frame.  Added so a sampler
 * writes each source about once per flush interval instead of every tick. */
int raw_writer_set_buffer(struct raw_writer *w, size_t cap);
int raw_writer_flush(struct raw_writer *w);
/* Whether a record of len payload bytes goes into the current slice (false:
 * the next append starts a new one), and starting the next slice now.
 * Added so a writer whose slices must each begin with a description of the
 * writer (RAW_AGENT_PROCESS) can write it first in every slice. */
bool raw_writer_fits(const struct raw_writer *w, uint32_t len);
int raw_writer_rotate(struct raw_writer *w);
/* Append into the current slice even past slice_bytes: for the records that
 * must share a slice with the description written first in it. */
int raw_writer_append_here(struct raw_writer *w, uint16_t type, const void *payload, uint32_t len);
/* Payload bytes a record may have to go into the current slice (0: none;
 * an empty slice takes any record).  Added for a writer that cuts its
 * batches to the slice (raw_writer_append2). */
uint64_t raw_writer_room(const struct raw_writer *w);
/* Append one record whose payload is a (na bytes) followed by b (nb
 * bytes) into the current slice, whatever its room (the caller cuts to
 * raw_writer_room).  Added so that the agent's writer hands a batch header
 * and its events straight from its buffers to the file. */
int raw_writer_append2(struct raw_writer *w, uint16_t type, const void *a, uint32_t na, const void *b,
		       uint32_t nb);
/* Index of the slice being written now (added: lets a sampler repeat its
 * process descriptions at the start of each new slice so slices stand alone). */
uint32_t raw_writer_slice(const struct raw_writer *w);
struct raw_writer *raw_writer_free(struct raw_writer *w); /* closes; accepts NULL */

/* Payload builder: a growable little-endian buffer for encoders. */
struct raw_buf { uint8_t *data; size_t len, cap; int err; };
void raw_buf_reset(struct raw_buf *b);
void raw_buf_release(struct raw_buf *b);
void raw_buf_u16(struct raw_buf *b, uint16_t v);
void raw_buf_u32(struct raw_buf *b, uint32_t v);
void raw_buf_u64(struct raw_buf *b, uint64_t v);
void raw_buf_bytes(struct raw_buf *b, const void *p, size_t n);
/* Fixed-size NUL-padded string field; truncates. */
void raw_buf_str(struct raw_buf *b, const char *s, size_t field);
/* A string as a u32 length and its bytes: at most max-1 of them, so that
 * raw_cur_lstr into a max-byte array reads it back. */
void raw_buf_lstr(struct raw_buf *b, const char *s, size_t max);

/* --- reading ------------------------------------------------------------ */

struct raw_reader_stats {
	uint64_t records;       /* whole records returned */
	uint64_t bad_records;   /* frames with a bad crc or impossible length */
	uint64_t skipped_bytes; /* bytes skipped while resynchronising */
	uint64_t torn_bytes;    /* an incomplete frame at the end of the file */
	uint64_t batches;       /* RAW_AGENT_BATCH frames (counted in records) */
	uint64_t batch_events;  /* the records handed out of them (not in records) */
	/* the first damage (a bad record), for a reader to name: its file
	 * offset and what was wrong; damage_what NULL: none */
	uint64_t damage_off;
	const char *damage_what;
	uint64_t torn_off;      /* where the incomplete frame at the end starts */
};

struct raw_record {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
	const uint8_t *payload; /* valid until the next raw_reader_next */
};

struct raw_reader;
/* -EPROTO: not a raw file (bad magic); -EPROTONOSUPPORT: newer version;
 * -EBADMSG: the header's checksum does not match (its clocks cannot be
 * trusted). */
int raw_reader_open(const char *path, struct raw_reader **ret);
/* With RAW_READER_DAMAGED_HEADER, a version 2 file whose header fails its
 * checksum is opened all the same (its frames have their own checksums):
 * raw_reader_header_damaged says so, and the caller gives it a header it
 * trusts (another slice's) with raw_reader_set_header before reading. */
#define RAW_READER_DAMAGED_HEADER 1U
int raw_reader_open_flags(const char *path, unsigned flags, struct raw_reader **ret);
bool raw_reader_header_damaged(const struct raw_reader *r);
void raw_reader_set_header(struct raw_reader *r, const struct raw_header *h);
const struct raw_header *raw_reader_header(const struct raw_reader *r);
/* 1 and *ret filled: a record; 0: end of file; <0: I/O error. */
int raw_reader_next(struct raw_reader *r, struct raw_record *ret);
const struct raw_reader_stats *raw_reader_stats(const struct raw_reader *r);
struct raw_reader *raw_reader_free(struct raw_reader *r);

/* Payload cursor for decoders: reads past the end set err and yield 0. */
struct raw_cur { const uint8_t *p; size_t left; int err; };
uint16_t raw_cur_u16(struct raw_cur *c);
uint32_t raw_cur_u32(struct raw_cur *c);
uint64_t raw_cur_u64(struct raw_cur *c);
void raw_cur_str(struct raw_cur *c, char *out, size_t field); /* NUL-terminates */
/* raw_buf_lstr's string into out[max], NUL-terminated; a length of max or
 * more, or a NUL among the bytes, is damage (err, out ""). */
void raw_cur_lstr(struct raw_cur *c, char *out, size_t max);

/* List the slices of one source in dir, ordered by slice index.  *ret_paths
 * is a NULL-terminated array of malloc'd absolute paths, freed with
 * raw_paths_free.  Returns the number of slices (>= 0), or -errno. */
int raw_list_slices(const char *dir, enum raw_source source, char ***ret_paths);
/* The same for the slices "<stem>.slice_<n>" of any stem. */
int raw_list_stem_slices(const char *dir, const char *stem, char ***ret_paths);
/* The pids that have agent files (agent_<pid>.data.slice_<n>) in dir, each
 * once, ascending.  *ret_pids is malloc'd (NULL when there are none), freed
 * with free(); returns the count or -errno. */
int raw_list_agent_pids(const char *dir, uint32_t **ret_pids, size_t *ret_n);
void raw_paths_free(char **paths);

/* --- ageing (--storage-limit) ------------------------------------------- */

/* Delete the oldest ageable slices in dir until the files there take at most
 * limit_bytes.  A slice is ageable unless its name contains one of msprof's
 * exempt substrings (info.json, start_info, end_info, unaging, ...) or it is
 * the newest slice of its source (still being written).  Returns the number
 * of files deleted, or -errno. */
int raw_age_dir(const char *dir, uint64_t limit_bytes, uint64_t *ret_freed_bytes);

/* A data dir under a storage limit holds RAW_QUOTA_FILE, made by msprofd
 * when the session starts and mapped by every process that writes there
 * (msprofd's samplers, each profiled process's agent): the bytes of the
 * dir's files, the limit, the slice size, and what ageing deleted and the
 * limit refused.  A raw_writer opened in such a dir joins it by itself: it
 * reserves each frame's bytes before buffering or writing it; a writer that
 * would pass the limit first deletes the oldest ageable slices (as
 * raw_age_dir chooses them) under an flock of the file, which the kernel
 * releases if that writer dies; if that frees too little (every slice left
 * is the newest of its source), or the lock is not had within 100 ms (its
 * holder is stopped), the frame is refused: -EDQUOT, counted.
 * So the files of the dir never take more than the limit at any instant,
 * the file's own page included.  A writer that dies with bytes reserved
 * but unwritten (at most its buffer) leaves the count that much high: the
 * dir then ages that much early, never late. */
#define RAW_QUOTA_FILE "storage_limit.quota"

/* What a ring (RAW_QUOTA_FILE with raw_quota_set_ring) counted of the
 * slices it aged, by record type as raw_reader_next hands records out
 * (a batch's events as RAW_AGENT_MARK ...; the records that describe a
 * writer, repeated in each slice, are not counted).  Past RAW_QUOTA_TYPES
 * kinds, the last entry (type 0) takes the rest. */
#define RAW_QUOTA_TYPES 32
struct raw_type_count { uint32_t type; uint64_t records; };

struct raw_quota_stats {
	uint64_t limit_bytes;
	uint64_t slice_bytes;     /* the slice size of every writer of the dir */
	uint64_t used_bytes;      /* now (reserved: on disk or about to be) */
	uint64_t peak_bytes;      /* the most used_bytes has been */
	uint64_t aged_files, aged_bytes;           /* old slices deleted */
	uint64_t refused_records, refused_bytes;   /* frames and slice headers refused */
	/* a ring (the flight recorder) */
	bool ring;
	uint64_t slice_ns;
	unsigned n_aged_types;
	struct raw_type_count aged_types[RAW_QUOTA_TYPES];
};

struct raw_quota;
/* Replaces any RAW_QUOTA_FILE in dir; what the dir holds already counts. */
int raw_quota_create(const char *dir, uint64_t limit_bytes, uint64_t slice_bytes, struct raw_quota **ret);
/* -ENOENT: dir has no limit; -EBADMSG: the file is not one of ours. */
int raw_quota_open(const char *dir, struct raw_quota **ret);
/* 0: bytes may be written; -EDQUOT: refused (counted), even after ageing. */
int raw_quota_reserve(struct raw_quota *q, uint64_t bytes);
/* Bytes reserved that did not reach the file (a failed write). */
void raw_quota_release(struct raw_quota *q, uint64_t bytes);
uint64_t raw_quota_slice_bytes(const struct raw_quota *q);
void raw_quota_stats(const struct raw_quota *q, struct raw_quota_stats *ret);
/* The counters of dir's RAW_QUOTA_FILE, read without mapping it (the
 * export's view): -ENOENT when the dir had no limit. */
int raw_quota_read(const char *dir, struct raw_quota_stats *ret);
struct raw_quota *raw_quota_free(struct raw_quota *q); /* accepts NULL */

/* The flight recorder's ring: a dir under a quota whose writers each start
 * a new slice every slice_ns, and whose aged slices have their records
 * counted by type.  Set by the quota's creator before any writer joins. */
int raw_quota_set_ring(struct raw_quota *q, uint64_t slice_ns);
uint64_t raw_quota_slice_ns(const struct raw_quota *q); /* 0: not a ring, or NULL */
/* Age every ageable slice last written before cutoff_real_ns
 * (CLOCK_REALTIME), counted as raw_quota_reserve's ageing is.  One try at
 * the lock: 0 when another writer holds it.  The files deleted, or -errno. */
int raw_quota_age_before(struct raw_quota *q, uint64_t cutoff_real_ns);
/* A dump of a ring, in two halves.  raw_dump_take: the files of src (the
 * quota file left out) as of now, hard-linked into a sibling dir
 * (SRC.dump-XXXXXX, removed by raw_dump_free), so that writers ageing src
 * meanwhile take nothing from the dump; where links cannot be made the
 * dump is in place (raw_dump_in_place) and raw_dump_write reads src
 * itself, a file aged meanwhile left out.  raw_dump_write copies them into
 * dst, which exists; a slice is cut to its whole frames (its writer may be
 * appending) and its header takes mono0_ns and real0_ns, the clocks read
 * at the dump, so that its times convert as of now however old the ring.
 * Each 0 or -errno. */
struct raw_dump;
int raw_dump_take(const char *src, struct raw_dump **ret);
bool raw_dump_in_place(const struct raw_dump *d);
int raw_dump_write(struct raw_dump *d, const char *dst, uint64_t mono0_ns, uint64_t real0_ns, uint64_t *ret_files,
		   uint64_t *ret_bytes);
struct raw_dump *raw_dump_free(struct raw_dump *d); /* accepts NULL */

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32(0, p, n)): version 1 frames. */
uint32_t raw_crc32(const void *p, size_t n);
/* CRC-32C (Castagnoli, reflected, as iSCSI's): with the CPU's instruction
 * (SSE4.2, ARMv8 CRC) where it has one, else tables; MSPROF_RAW_CRC_TABLE
 * in the environment forces the tables (tests compare the two).  _update
 * continues a checksum: update(crc32c(a), b) == crc32c(a followed by b). */
uint32_t raw_crc32c(const void *p, size_t n);
uint32_t raw_crc32c_update(uint32_t crc, const void *p, size_t n);
bool raw_crc32c_hardware(void);
/* The checksum of a version 2 frame whose header (sync, type, flags, len)
 * and payload are in place at frame. */
uint32_t raw_frame_crc(const uint8_t *frame);
