/* Data tables of the export (see tables.h).  SCHEMA.md documents the
 * database tables in prose; keep the two in step. */

#include <stdlib.h>
#include <string.h>

#include "export/tables.h"
#include "common/util.h"

/* Tables msprof's readers know use msprof's column names, order and types
 * (msprof_db.cpp: NUMERIC for the host usage tables).  "always" tables
 * exist even when empty: msprof's own check for a complete database looks
 * for STRING_IDS.  Units: times Unix ns; rates B/s; percentages 0-100.
 *
 * Our own tables (SCHEMA.md has the details and the msprof code behind
 * each number):
 *   PROCESS_INFO              one row per process incarnation (pid,
 *                             startTicks = start in ticks since boot);
 *                             name -> STRING_IDS; isTarget 1 for the
 *                             profiled tree; firstSeenNs, exitNs (NULL:
 *                             alive at the end)
 *   SAMPLER_TICKS             per host source: msprofd's ticks taken and
 *                             deadlines missed (RAW_SAMPLER_TICKS)
 *   CPU_USAGE_AVG             msprof's "Avg" CPU row, % of all CPUs
 *   TARGET_THREAD_CPU_USAGE   per thread of the tree, % of one CPU over the
 *                             interval starting at timestampNs
 *   TARGET_PROCESS_MEM        per process of the tree, statm pages
 *   TARGET_PROCESS_DISK_USAGE per process of the tree, read/write B/s and %
 *                             of the interval blocked on I/O
 *   NETWORK_INTERFACE_USAGE   per interface (name -> STRING_IDS), rx/tx B/s,
 *                             rated speed B/s or NULL when unknown
 *   TARGET_THREAD_INFO        a thread's name (comm -> STRING_IDS) as seen
 *                             at timestampNs; the newest row is its name
 *   HOST_DISK_DEVICE_USAGE    per whole disk of the machine (name ->
 *                             STRING_IDS), read/write B/s, % busy
 *   HOST_SYSTEM_MEM           the machine's memory at each --host-sys=mem
 *                             sample (at most 50 Hz), kB
 *   SYS_CPU                   /proc/stat as sampled, cumulative USER_HZ
 *                             ticks; cpuId -1 = the aggregate line
 *   SYS_MEM                   /proc/meminfo as sampled, kB (huge: pages)
 *   PROCESS_CPU_USAGE         every process, % of all CPUs per interval
 *   PROCESS_MEM_USAGE         every process, statm pages at the sample
 *   AGENT_PROCESS             each process with agent data: pid, ppid, rank,
 *                             name -> STRING_IDS, cmdline, first and last
 *                             record time
 *   AGENT_THREAD              its threads: name -> STRING_IDS
 *   AGENT_CATEGORY            category names (NVTX): domainId and name ->
 *                             STRING_IDS
 *   AGENT_COUNTERS            per process: what the agent counted (events,
 *                             dropped, badCalls, truncated) and what the
 *                             export found (openAtEnd, endWithoutStart,
 *                             matchOverflow, filtered), then the device
 *                             records it did not write (gpuLost,
 *                             gpuUntimed, gpuBad)
 *   GPU_INFO                  per device: model name, uuid, PCI bus id,
 *                             driver version, memory (bytes), maximum SM and
 *                             memory clocks (MHz), CUDA cores and SMs
 *                             (NULL: unknown)
 *   GPU_SAMPLE                per device and --sys-hardware-mem sample:
 *                             utilisation (%), memory used, free, reserved
 *                             (bytes), SM and memory clocks (MHz), power
 *                             (mW), temperature (C); NULL: not readable
 *   GPU_PCIE                  per device and --sys-interconnection sample:
 *                             PCIe tx/rx B/s
 *   GPU_PROCESS_MEM           per device and sample: every process holding
 *                             device memory (pid, bytes)
 *   STEP_TRACE_TIME           the overlap analysis per device (NULL:
 *                             host-only) and step: torch_npu's
 *                             step_trace_time columns, durations in ns
 *   COMMUNICATION_OP_SOURCE   per COMMUNICATION_OP row: where it came from
 *   COMMUNICATION_GROUP       a process group's global ranks, as its
 *                             operations' messages name them
 *                             (nccl: its kernel's task; mstx: its range's
 *                             thread), stream, P2P ranks, the kernel name or
 *                             range message -> STRING_IDS (plugin: the
 *                             thread that reported it, and the task of the
 *                             kernel that gave its device times)
 *   COMMUNICATION_HOST_TASK   per operation of an mstx range and OS
 *                             runtime call of its process overlapping it
 *                             that moves data (taskType 'transfer': read,
 *                             write, send, recv...) or waits ('wait':
 *                             poll, epoll_wait, cond waits...): the call
 *                             (name -> STRING_IDS), its thread and span
 *                             (not clipped), the op's P2P ranks
 *   NCCL_PROFILER_OP          per operation NCCL reported to its profiler
 *                             plugin (the agent): host start and end,
 *                             thread, kind (1 collective, 2 P2P), func,
 *                             NCCL's data type name, count, bytes, peer
 *                             (root), algorithm, protocol, channels, NCCL's
 *                             sequence number, communicator hash (16 hex
 *                             digits), name, rank and size, the plugin
 *                             interface's version */
const struct export_db_table export_db_tables[] = {
	{ "STRING_IDS", "id INTEGER PRIMARY KEY, value TEXT", true, true },
	{ "META_DATA", "name TEXT, value TEXT", true, true },
	{ "SESSION_TIME_INFO", "startTimeNs INTEGER, endTimeNs INTEGER", true, true },
	{ "HOST_INFO", "hostUid TEXT, hostName TEXT", true, true },
	/* cluster tools CROSS JOIN it with a rank's data: always a row */
	{ "RANK_DEVICE_MAP", "rankId INTEGER, deviceId INTEGER", true, true },
	{ "CPU_USAGE", "timestampNs NUMERIC, cpuId NUMERIC, usage NUMERIC", true, false },
	{ "HOST_MEM_USAGE", "timestampNs NUMERIC, usage NUMERIC", true, false },
	{ "HOST_DISK_USAGE", "timestampNs NUMERIC, readRate NUMERIC, writeRate NUMERIC, usage NUMERIC",
	  true, false },
	{ "HOST_NETWORK_USAGE", "timestampNs NUMERIC, usage NUMERIC, speed NUMERIC", true, false },
	{ "MSTX_EVENTS",
	  "startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER, "
	  "message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER, connectionId INTEGER",
	  true, false },
	{ "OSRT_API", "name INTEGER, globalTid INTEGER, startNs INTEGER, endNs INTEGER", true, false },
	/* msprof writes its ENUM tables whatever was collected */
	{ "ENUM_MSTX_EVENT_TYPE", "id INTEGER PRIMARY KEY, name TEXT", true, true },
	/* ours */
	{ "PROCESS_INFO",
	  "pid INTEGER, ppid INTEGER, startTicks INTEGER, name INTEGER, isTarget INTEGER, "
	  "firstSeenNs INTEGER, exitNs INTEGER",
	  false, true /* the summaries look names up in it */ },
	{ "SAMPLER_TICKS", "source TEXT, taken INTEGER, missed INTEGER", false, false },
	{ "CPU_USAGE_AVG", "timestampNs INTEGER, usage REAL", false, false },
	{ "TARGET_THREAD_CPU_USAGE",
	  "timestampNs INTEGER, pid INTEGER, tid INTEGER, cpuId INTEGER, usage REAL", false, false },
	{ "TARGET_PROCESS_MEM",
	  "timestampNs INTEGER, pid INTEGER, sizePages INTEGER, residentPages INTEGER, sharedPages INTEGER",
	  false, false },
	{ "TARGET_PROCESS_DISK_USAGE",
	  "timestampNs INTEGER, pid INTEGER, readRate REAL, writeRate REAL, usage REAL", false, false },
	{ "NETWORK_INTERFACE_USAGE",
	  "timestampNs INTEGER, name INTEGER, rxRate REAL, txRate REAL, speed INTEGER", false, false },
	{ "TARGET_THREAD_INFO", "timestampNs INTEGER, pid INTEGER, tid INTEGER, name INTEGER", false, false },
	{ "HOST_DISK_DEVICE_USAGE",
	  "timestampNs INTEGER, name INTEGER, readRate REAL, writeRate REAL, usage REAL", false, false },
	{ "HOST_SYSTEM_MEM", "timestampNs INTEGER, memTotal INTEGER, memAvailable INTEGER, memUsed INTEGER",
	  false, false },
	{ "SYS_CPU",
	  "timestampNs INTEGER, cpuId INTEGER, user INTEGER, nice INTEGER, system INTEGER, idle INTEGER, "
	  "iowait INTEGER, irq INTEGER, softirq INTEGER, steal INTEGER",
	  false, false },
	{ "SYS_MEM",
	  "timestampNs INTEGER, memTotal INTEGER, memFree INTEGER, buffers INTEGER, cached INTEGER, "
	  "shmem INTEGER, commitLimit INTEGER, committedAs INTEGER, hugePagesTotal INTEGER, "
	  "hugePagesFree INTEGER",
	  false, false },
	{ "PROCESS_CPU_USAGE", "timestampNs INTEGER, pid INTEGER, usage REAL", false, false },
	{ "PROCESS_MEM_USAGE",
	  "timestampNs INTEGER, pid INTEGER, sizePages INTEGER, residentPages INTEGER, sharedPages INTEGER",
	  false, false },
	{ "AGENT_PROCESS",
	  "pid INTEGER, ppid INTEGER, rank INTEGER, name INTEGER, cmdline TEXT, startNs INTEGER, endNs INTEGER",
	  false, false },
	{ "AGENT_THREAD", "pid INTEGER, tid INTEGER, name INTEGER", false, false },
	{ "AGENT_CATEGORY", "pid INTEGER, domainId INTEGER, category INTEGER, name INTEGER", false, false },
	{ "AGENT_COUNTERS",
	  "pid INTEGER, events INTEGER, dropped INTEGER, badCalls INTEGER, truncated INTEGER, "
	  "openAtEnd INTEGER, endWithoutStart INTEGER, matchOverflow INTEGER, filtered INTEGER, "
	  "gpuLost INTEGER, gpuUntimed INTEGER, gpuBad INTEGER, droppedFull INTEGER, droppedNested INTEGER, "
	  "droppedNoBuffer INTEGER, droppedUnopened INTEGER, droppedUnwritten INTEGER",
	  false, false },
	{ "STEP", "stepId INTEGER, startNs INTEGER, endNs INTEGER, pid INTEGER, tid INTEGER", false, false },
	/* overlap analysis (export/domain-overlap.c): durations in ns */
	{ "STEP_TRACE_TIME",
	  "deviceId INTEGER, step INTEGER, pid INTEGER, startNs INTEGER, endNs INTEGER, computing INTEGER, "
	  "communicationNotOverlapped INTEGER, overlapped INTEGER, communication INTEGER, free INTEGER, "
	  "stage INTEGER, bubble INTEGER, communicationNotOverlappedExcludeReceive INTEGER, preparing INTEGER",
	  false, false },
	/* devices (export/domain-device.c) */
	{ "NPU_INFO", "id INTEGER PRIMARY KEY, name TEXT", true, false },
	{ "NPU_MEM", "type INTEGER, ddr INTEGER, hbm INTEGER, timestampNs INTEGER, deviceId INTEGER", true, false },
	{ "AICORE_FREQ", "deviceId INTEGER, timestampNs INTEGER, freq INTEGER", true, false },
	{ "GPU_INFO",
	  "deviceId INTEGER PRIMARY KEY, name TEXT, uuid TEXT, busId TEXT, driverVersion TEXT, memTotal INTEGER, "
	  "maxSmClock INTEGER, maxMemClock INTEGER, cores INTEGER, smCount INTEGER",
	  false, false },
	{ "GPU_SAMPLE",
	  "deviceId INTEGER, timestampNs INTEGER, gpuUtil INTEGER, memUtil INTEGER, memUsed INTEGER, "
	  "memFree INTEGER, memReserved INTEGER, smClock INTEGER, memClock INTEGER, power INTEGER, "
	  "temperature INTEGER",
	  false, false },
	{ "GPU_PCIE", "deviceId INTEGER, timestampNs INTEGER, txRate INTEGER, rxRate INTEGER", false, false },
	{ "GPU_PROCESS_MEM", "deviceId INTEGER, timestampNs INTEGER, pid INTEGER, used INTEGER", false, false },
	/* device tasks (export/domain-tasks.c) */
	/* TASK and COMPUTE_TASK_INFO always: msprof-analyze's cluster reads
	 * them from every rank's database, and fails on a missing one */
	{ "TASK",
	  "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
	  "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER",
	  true, true },
	{ "COMPUTE_TASK_INFO",
	  "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER, mixBlockNum INTEGER, taskType INTEGER, "
	  "opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, "
	  "outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER, opState INTEGER, hf32Eligible INTEGER, "
	  "gridDim TEXT, blockDim TEXT",
	  true, true },
	{ "MEMCPY_INFO", "globalTaskId INTEGER, size INTEGER, memcpyOperation INTEGER", true, false },
	{ "CANN_API",
	  "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, "
	  "name INTEGER",
	  true, false },
	{ "ENUM_API_TYPE", "id INTEGER PRIMARY KEY, name TEXT", true, false },
	{ "ENUM_MEMCPY_OPERATION", "id INTEGER PRIMARY KEY, name TEXT", true, false },
	{ "GPU_TASK",
	  "pid INTEGER, startNs INTEGER, endNs INTEGER, kind INTEGER, deviceId INTEGER, contextId INTEGER, "
	  "streamId INTEGER, correlationId INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, "
	  "blockY INTEGER, blockZ INTEGER, sharedMem INTEGER, registers INTEGER, copyKind INTEGER, bytes INTEGER, "
	  "name TEXT",
	  false, false },
	{ "GPU_API",
	  "pid INTEGER, tid INTEGER, startNs INTEGER, endNs INTEGER, correlationId INTEGER, cbid INTEGER, "
	  "result INTEGER, name TEXT",
	  false, false },
	{ "GPU_TASK_RANGE", "globalTaskId INTEGER PRIMARY KEY, message INTEGER", false, false },
	/* communication (export/domain-comm.c); the two msprof tables always,
	 * as TASK */
	{ "COMMUNICATION_OP",
	  "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, "
	  "opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, "
	  "opType INTEGER, deviceId INTEGER, rankSize INTEGER",
	  true, true },
	{ "COMMUNICATION_TASK_INFO",
	  "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, groupName INTEGER, notifyId INTEGER, "
	  "rdmaType INTEGER, srcRank INTEGER, dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
	  "linkType INTEGER, opId INTEGER, isMaster INTEGER, bandwidth NUMERIC",
	  true, true },
	{ "ENUM_HCCL_DATA_TYPE", "id INTEGER PRIMARY KEY, name TEXT", true, true },
	{ "COMMUNICATION_OP_SOURCE",
	  "opId INTEGER PRIMARY KEY, source TEXT, globalTaskId INTEGER, globalTid INTEGER, streamId INTEGER, "
	  "srcRank INTEGER, dstRank INTEGER, message INTEGER",
	  false, true }, /* always: the Communication layer joins it to COMMUNICATION_OP */
	{ "COMMUNICATION_GROUP", "groupName INTEGER, ranks TEXT", false, false },
	{ "COMMUNICATION_HOST_TASK",
	  "opId INTEGER, name INTEGER, taskType INTEGER, globalTid INTEGER, startNs INTEGER, endNs INTEGER, "
	  "srcRank INTEGER, dstRank INTEGER",
	  false, false },
	{ "NCCL_PROFILER_OP",
	  "startNs INTEGER, endNs INTEGER, globalTid INTEGER, kind INTEGER, func INTEGER, dataType INTEGER, "
	  "count INTEGER, bytes INTEGER, peer INTEGER, algo INTEGER, proto INTEGER, channels INTEGER, seq INTEGER, "
	  "commHash TEXT, commName INTEGER, rank INTEGER, nRanks INTEGER, version INTEGER",
	  false, false },
	{ "GPU_SYNC",
	  "pid INTEGER, startNs INTEGER, endNs INTEGER, type INTEGER, contextId INTEGER, streamId INTEGER, "
	  "eventId INTEGER, correlationId INTEGER, result INTEGER, tid INTEGER, connectionId INTEGER",
	  false, false },
};
const size_t export_db_tables_n = ARRAY_SIZE(export_db_tables);

/* msprof_cluster_{ts}.db of `msprof export cluster` (cluster.c), not a
 * rank's database.  slot: a rank's place in rank order (the ranks' names
 * and process groups follow it); times Unix ns after the clock shift.
 *   CLUSTER_RANK  every rank dir given: rankId (-1: none), label ("Rank
 *                 3", "Pid 1234"), host, PROF dir, status ("merged" or
 *                 why it was skipped), shiftNs added to its times, its
 *                 timeline events and step rows
 *   CLUSTER_STEP  per step id and rank: its span, its communication
 *                 (COMMUNICATION_OP time inside the step), waitNs (the
 *                 step's slowest time minus its own) and the slots of the
 *                 step's slowest and fastest rank */
const struct export_db_table export_cluster_db_tables[] = {
	{ "CLUSTER_RANK", "slot INTEGER, rankId INTEGER, label TEXT, hostUid TEXT, hostName TEXT, profDir TEXT, "
			  "status TEXT, shiftNs INTEGER, hostOffsetNs INTEGER, hostOffsetErrorNs INTEGER, "
			  "hostOffsetOps INTEGER, events INTEGER, steps INTEGER", false, true },
	{ "CLUSTER_STEP", "stepId INTEGER, slot INTEGER, startNs INTEGER, endNs INTEGER, communicationNs INTEGER, "
			  "waitNs INTEGER, slowestSlot INTEGER, fastestSlot INTEGER", false, true },
};
const size_t export_cluster_db_tables_n = ARRAY_SIZE(export_cluster_db_tables);

const struct export_db_table *export_db_table_find(const char *name)
{
	for (size_t i = 0; i < export_db_tables_n; i++)
		if (streq(export_db_tables[i].name, name))
			return &export_db_tables[i];
	return NULL;
}

/* Headers as in reference §3.  The descriptions are ours; readers never
 * parse README.txt, only people read it. */
const struct export_csv_table export_csv_tables[_CSV_MAX] = {
	[CSV_HOST_CPU_USAGE] = { CSV_HOST_CPU_USAGE, "host_cpu_usage",
		{ "Device_id", "Total Cpu Numbers", "Occupied Cpu Numbers", "Recommend Cpu Numbers" },
		"CPUs used by the profiled process tree.\n"
		"\tTotal Cpu Numbers: online CPUs of the host.\n"
		"\tOccupied Cpu Numbers: CPUs the tree's threads ran on.\n"
		"\tRecommend Cpu Numbers: CPUs with a usage above zero at some sample.\n" },
	[CSV_HOST_MEM_USAGE] = { CSV_HOST_MEM_USAGE, "host_mem_usage",
		{ "Device_id", "Total Memory(KB)", "Peak Used Memory(KB)", "Recommend Memory(KB)" },
		"Resident memory of the profiled process tree (KB).\n"
		"\tRecommend Memory: the 98th percentile of the samples divided by 0.8.\n" },
	[CSV_HOST_DISK_USAGE] = { CSV_HOST_DISK_USAGE, "host_disk_usage",
		{ "Device_id", "Peak Disk Read(KB/s)", "Recommend Disk Read(KB/s)", "Peak Disk Write(KB/s)",
		  "Recommend Disk Write(KB/s)" },
		"Storage reads and writes of the profiled process tree (KB/s).\n"
		"\tRecommend: the 98th percentile of the samples divided by 0.8.\n" },
	[CSV_HOST_NETWORK_USAGE] = { CSV_HOST_NETWORK_USAGE, "host_network_usage",
		{ "Device_id", "Netcard Speed(KB/s)", "Peak Used Speed(KB/s)", "Recommend Speed(KB/s)" },
		"Network traffic of the host (KB/s).\n"
		"\tNetcard Speed: sum of the rated speeds of the network cards with a known speed.\n"
		"\tRecommend Speed: the 98th percentile of the samples divided by 0.8.\n" },
	[CSV_CPU_USAGE] = { CSV_CPU_USAGE, "cpu_usage",
		{ "Device_id", "Cpu Type", "User(%)", "Sys(%)", "IoWait(%)", "Irq(%)", "Soft(%)", "Idle(%)" },
		"System CPU time on the host over the run, per CPU and in total (Avg), "
		"from /proc/stat.\n" },
	[CSV_SYS_MEM] = { CSV_SYS_MEM, "sys_mem",
		{ "Device_id", "Memory Total(kB)", "Memory Free(kB)", "Buffers(kB)", "Cached(kB)",
		  "Share Memory(kB)", "Commit Limit(kB)", "Committed AS(kB)", "Huge Pages Total(pages)",
		  "Huge Pages Free(pages)" },
		"System memory of the host, mean of the samples, from /proc/meminfo.\n" },
	[CSV_PROCESS_CPU_USAGE] = { CSV_PROCESS_CPU_USAGE, "process_cpu_usage",
		{ "Device_id", "PID", "Name", "CPU(%)" },
		"CPU usage of every process on the host, mean over the run, in percent of all CPUs.\n" },
	[CSV_PROCESS_MEM] = { CSV_PROCESS_MEM, "process_mem",
		{ "Device_id", "PID", "Name", "Size(pages)", "Resident(pages)", "Shared(pages)" },
		"Memory of every process on the host, mean of the samples, from /proc/PID/statm.\n" },
	[CSV_MSPROF_TX] = { CSV_MSPROF_TX, "msprof_tx",
		{ "Device_id", "pid", "tid", "category", "event_type", "payload_type", "payload_value",
		  "Start_time(us)", "End_time(us)", "message_type", "message", "domain",
		  "Device Start_time(us)", "Device End_time(us)" },
		"mstx (msproftx) marks and ranges of the annotated processes, by start time.\n"
		"\tevent_type: marker, push/pop, start/end or marker_ex; a mark has its end at its start.\n"
		"\tcategory, payload_type, payload_value, message_type: N/A for mstx events, as msprof writes them.\n"
		"\tDevice Start_time/End_time: N/A, no device side for host-only events.\n",
		/* msprof_tx_{ts}.json is the mstx timeline; no reader's pattern
		 * (msprof_\d..., msprof_slice_...) takes this name for a timeline */
		"msprof_tx_summary" },
	[CSV_NPU_MEM] = { CSV_NPU_MEM, "npu_mem",
		{ "Device_id", "event", "ddr(KB)", "hbm(KB)", "memory(KB)", "timestamp(us)" },
		"Device memory over time, per device (--sys-hardware-mem).\n"
		"\tevent: device (all memory used on the device) or app (memory held by the profiled processes).\n"
		"\tddr(KB): 0 on GPUs; hbm(KB): the GPU's memory (HBM or GDDR); memory(KB): their sum.\n" },
	[CSV_OP_SUMMARY] = { CSV_OP_SUMMARY, "op_summary",
		{ "Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "OP State", "Task Type",
		  "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)", "Block Num", "Mix Block Num",
		  "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
		  "Output Data Types", "Output Formats", "Context ID" },
		"GPU kernels, by start time (--task-time).\n"
		"\tTask ID: the CUDA correlation id; Op Name: the demangled kernel name; OP Type: its qualified name.\n"
		"\tBlock Num: blocks in the grid; Mix Block Num: threads per block.\n"
		"\tTask Wait Time: the gap since the previous task on the same stream ended.\n"
		"\tOP State: static, a CUDA kernel's launch shape is fixed.\n"
		"\tModel ID 4294967295 and N/A columns: no such thing for a CUDA kernel.\n" },
	[CSV_OP_STATISTIC] = { CSV_OP_STATISTIC, "op_statistic",
		{ "Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)",
		  "Max Time(us)", "Ratio(%)" },
		"GPU kernels grouped by OP Type, by total time; Core Type is CUDA.\n" },
	[CSV_TASK_TIME] = { CSV_TASK_TIME, "task_time",
		{ "Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)", "task_start(us)",
		  "task_stop(us)" },
		"Every GPU task (kernels, memory copies and sets), by start time.\n" },
	[CSV_API_STATISTIC] = { CSV_API_STATISTIC, "api_statistic",
		{ "Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)", "Variance" },
		"CUDA runtime API calls grouped by name (Level Runtime), by total time; Variance in us^2.\n" },
	[CSV_COMMUNICATION_STATISTIC] = { CSV_COMMUNICATION_STATISTIC, "communication_statistic",
		{ "Device_id", "OP Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)",
		  "Ratio(%)" },
		"Communication operations (NCCL kernels, mstx ranges of the domain communication) grouped by "
		"device and OP Type (hcom_allReduce_...), by total time.\n"
		"\tRatio(%): share of the device's communication time.\n" },
	[CSV_STEP_TRACE] = { CSV_STEP_TRACE, "step_trace",
		{ "Device_id", "Iteration ID", "FP Start(us)", "BP End(us)", "Iteration End(us)",
		  "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)",
		  "Model ID" },
		"Training steps marked with mstx/NVTX (\"step N\", \"ProfilerStep#N\" ranges, mstxStep), by start time.\n"
		"\tFP/BP, Iteration Refresh, Data Aug Bound: N/A, no device side for host-only steps.\n"
		"\tModel ID: 4294967295, msprof's id for step mode.\n" },
	[CSV_OS_RUNTIME_STATISTIC] = { CSV_OS_RUNTIME_STATISTIC, "os_runtime_statistic",
		{ "Device_id", "Process ID", "Thread ID", "Name", "Time(%)", "Time(us)", "Count", "Avg(us)",
		  "Max(us)", "Min(us)" },
		"OS runtime calls of the application (--host-sys=osrt: locks, condition waits, sleeps, file and "
		"socket I/O, poll, fsync, mmap...) that took at least --osrt-threshold, per process, thread and call, "
		"longest total first.\n"
		"\tTime(%): share of this row in the total time of all recorded calls.\n"
		"\tTime(us): total duration of the calls; Count: number of calls.\n"
		"\tAvg, Max, Min: average, longest and shortest call (us).\n" },
	/* torch_npu's step_trace_time.csv columns; not under that name, which
	 * torch_npu (^step_trace_) and MindSpore (step_trace_*.csv) would take
	 * for msprof's step_trace (domain-overlap.c) */
	[CSV_OVERLAP_ANALYSIS] = { CSV_OVERLAP_ANALYSIS, "overlap_analysis",
		{ "Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication",
		  "Free", "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing" },
		"Per step (STEP_TRACE_TIME): how the time of the device, or of the annotated host ranges, was spent (us), "
		"as the Overlap Analysis layer of the timeline shows it.\n"
		"\tComputing: kernels (host-only: annotated ranges that are neither steps nor communication).\n"
		"\tCommunication: NCCL kernels and communication operations (host-only: ranges in the mstx domain "
		"communication); Overlapped: the part of it during computing, Communication(Not Overlapped) the rest.\n"
		"\tFree: neither; Bubble: hcom_receive* operations; Stage: step time minus Bubble.\n"
		"\tPreparing: from the step's start to its first computing or communication.\n"
		"\tStep empty: no steps were marked, the row covers the whole collection.\n" },
};

const struct export_csv_table *export_csv_table_find(const char *type)
{
	for (size_t i = 0; i < _CSV_MAX; i++)
		if (streq(export_csv_tables[i].type, type))
			return &export_csv_tables[i];
	return NULL;
}

size_t export_csv_ncolumns(const struct export_csv_table *t)
{
	size_t n = 0;
	while (n < EXPORT_CSV_MAX_COLUMNS && t->columns[n])
		n++;
	return n;
}

/* Process names and sort indices: msprof's meta_data_event.h (§4). */
const struct export_track_info export_tracks[_TRACK_MAX] = {
	[TRACK_CPU_USAGE] = { TRACK_CPU_USAGE, "CPU Usage", 9, "CPU", "cpu_usage" },
	[TRACK_MEMORY_USAGE] = { TRACK_MEMORY_USAGE, "Memory Usage", 10, "CPU", "memory_usage" },
	[TRACK_NETWORK_USAGE] = { TRACK_NETWORK_USAGE, "Network Usage", 11, "CPU", "network_usage" },
	[TRACK_DISK_USAGE] = { TRACK_DISK_USAGE, "Disk Usage", 12, "CPU", "disk_usage" },
	[TRACK_MSPROFTX] = { TRACK_MSPROFTX, "MsprofTx", 6, "CPU", "msproftx" },
	[TRACK_OS_RUNTIME_API] = { TRACK_OS_RUNTIME_API, "OS Runtime API", 13, "CPU", "os_runtime_api" },
	[TRACK_NPU_MEM] = { TRACK_NPU_MEM, "NPU MEM", 17, "NPU", "npu_mem" },
	[TRACK_AI_CORE_FREQ] = { TRACK_AI_CORE_FREQ, "AI Core Freq", 15, "NPU", "freq" },
	[TRACK_PCIE] = { TRACK_PCIE, "PCIe", 23, "NPU", "pcie" },
	/* ours; 25 is msprof's Stars Soc Info, an Ascend-only layer */
	[TRACK_GPU_USAGE] = { TRACK_GPU_USAGE, "GPU Usage", 25, "NPU", NULL },
	[TRACK_ASCEND_HW] = { TRACK_ASCEND_HW, "Ascend Hardware", 14, "NPU", "ascend" },
	[TRACK_CANN] = { TRACK_CANN, "CANN", 7, "CPU", "cann" },
	/* labelled NPU even for host-only profiles: torch_npu's step time
	 * parser maps every pid with these events through its NPU label */
	[TRACK_OVERLAP] = { TRACK_OVERLAP, "Overlap Analysis", 31, "NPU", "overlap_analyse" },
	[TRACK_COMMUNICATION] = { TRACK_COMMUNICATION, "Communication", 16, "NPU", "communication" },
	/* ours, one process per profiled process, named after it (domain-cpu.c);
	 * 8 is msprof's DPU, an Ascend-only layer; with CPU Usage in --reports */
	[TRACK_THREAD_CPU] = { TRACK_THREAD_CPU, "Thread CPU", 8, "CPU", "cpu_usage" },
};

/* msprof's MSTX_EVENT_TYPE_TABLE */
const char *const export_mstx_event_types[4] = { "marker", "push/pop", "start/end", "marker_ex" };

const struct export_track_info *export_track_find(const char *process_name)
{
	for (size_t i = 0; i < _TRACK_MAX; i++)
		if (streq(export_tracks[i].process_name, process_name))
			return &export_tracks[i];
	return NULL;
}
