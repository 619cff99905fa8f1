/* The export's data tables: database schema, summary CSV headers and
 * timeline tracks.  One table each, used by the writers and by the tests
 * (tests/unit/test-export.c, the format scripts check files against them), so
 * a header or a sort index is changed in exactly one place.
 *
 * Sources: reference/msprof-formats.md §3 (CSV headers), §4 (process names
 * and sort indices of the timeline), §5 (database columns); msprof's
 * analysis/csrc/application/database/msprof_db.cpp for column types. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* --- database ------------------------------------------------------------ */

struct export_db_table {
	const char *name;
	const char *columns; /* column definitions, in order, as in CREATE TABLE */
	bool msprof;         /* a table msprof's readers know (§5); else our own */
	bool always;         /* kept even when empty (readers test for it) */
};

extern const struct export_db_table export_db_tables[];
extern const size_t export_db_tables_n;
const struct export_db_table *export_db_table_find(const char *name);
/* The tables of msprof_cluster_{ts}.db (msprof export cluster). */
extern const struct export_db_table export_cluster_db_tables[];
extern const size_t export_cluster_db_tables_n;

/* META_DATA rows: msprof's schema version this database follows. */
#define EXPORT_SCHEMA_VERSION_MAJOR "1"
#define EXPORT_SCHEMA_VERSION_MINOR "2"
#define EXPORT_SCHEMA_VERSION_MICRO "0"

/* The layout of the databases this build writes: bumped with every change
 * to their indexes, to which tables are derived or to how a table is
 * filled.  PRAGMA user_version holds it, mixed with the tables' columns
 * (SCHEMA.md, "Layout version"); a database of another layout is rebuilt
 * from the raw files next to it. */
#define EXPORT_DB_LAYOUT 7

/* --- summary CSVs -------------------------------------------------------- */

enum export_csv {
	CSV_HOST_CPU_USAGE,
	CSV_HOST_MEM_USAGE,
	CSV_HOST_DISK_USAGE,
	CSV_HOST_NETWORK_USAGE,
	CSV_CPU_USAGE,
	CSV_SYS_MEM,
	CSV_PROCESS_CPU_USAGE,
	CSV_PROCESS_MEM,
	CSV_MSPROF_TX,
	CSV_STEP_TRACE,
	CSV_OS_RUNTIME_STATISTIC,
	CSV_NPU_MEM,
	CSV_OP_SUMMARY,
	CSV_OP_STATISTIC,
	CSV_TASK_TIME,
	CSV_API_STATISTIC,
	CSV_OVERLAP_ANALYSIS,
	CSV_COMMUNICATION_STATISTIC,
	_CSV_MAX,
};

#define EXPORT_CSV_MAX_COLUMNS 24

struct export_csv_table {
	enum export_csv id;
	const char *type;                              /* file stem: {type}_{ts}.csv */
	const char *columns[EXPORT_CSV_MAX_COLUMNS];   /* NULL-terminated, Device_id first */
	const char *description;                       /* README.txt */
	/* file stem as JSON (--summary-format=json) where type would take
	 * a timeline's name (msprof_tx_{ts}.json is the mstx timeline's);
	 * NULL: type */
	const char *json_type;
};
/* The stem of t's files in the format asked for. */
static inline const char *export_csv_stem(const struct export_csv_table *t, bool json)
{
	return json && t->json_type ? t->json_type : t->type;
}

extern const struct export_csv_table export_csv_tables[_CSV_MAX];
const struct export_csv_table *export_csv_table_find(const char *type);
size_t export_csv_ncolumns(const struct export_csv_table *t);

/* --- timeline ------------------------------------------------------------ */

enum export_track {
	TRACK_CPU_USAGE,
	TRACK_MEMORY_USAGE,
	TRACK_NETWORK_USAGE,
	TRACK_DISK_USAGE,
	TRACK_MSPROFTX,    /* one per process with agent data, named after it (unique: domain-mstx.c) */
	TRACK_OS_RUNTIME_API, /* one, a thread per tid of the processes with OS runtime calls */
	/* device layers: one process per device, label "NPU <id>" (§9), the
	 * names unique (exp_tl_device_process) */
	TRACK_NPU_MEM,
	TRACK_AI_CORE_FREQ,
	TRACK_PCIE,
	TRACK_GPU_USAGE,   /* ours */
	TRACK_ASCEND_HW,   /* device tasks, one thread per stream */
	TRACK_CANN,        /* host: the API calls that launched them, per thread */
	TRACK_OVERLAP,     /* Overlap Analysis: one per device, or one "NPU" for host-only data */
	TRACK_COMMUNICATION, /* per device: its communication operations, a thread per group */
	TRACK_THREAD_CPU,  /* ours: one per process of the tree, a counter per thread (domain-cpu.c) */
	_TRACK_MAX,
};

struct export_track_info {
	enum export_track id;
	const char *process_name; /* process_name metadata */
	unsigned sort_index;      /* process_sort_index, and bits 5..9 of the pid */
	const char *label;        /* process_labels: "CPU" for host layers, "NPU" + " <id>" for devices */
	/* its key in --reports' "json_process" (msprof's
	 * reports_sample_config.json); NULL: always written */
	const char *report;
};

extern const struct export_track_info export_tracks[_TRACK_MAX];
const struct export_track_info *export_track_find(const char *process_name);

/* msprof_tx: one layer per process, msprof's "PID Name/MsprofTx" layer
 * renamed to the process name; ranges that cannot nest on their thread go
 * to extra tracks with tid + lane * EXPORT_LANE_TID_STEP (tids are below
 * 2^22 on Linux, so these never meet a real thread). */
#define EXPORT_LANE_TID_STEP 4194304U
#define EXPORT_MAX_LANES 8

/* ENUM_MSTX_EVENT_TYPE (reference §5): ids 0..3. */
extern const char *const export_mstx_event_types[4];
/* msprof's MSTX_EVENTS values for what host-only mstx events do not have:
 * rangeId and category UINT32_MAX (msprof_tx_host_data.h defaults), and
 * connectionId DEFAULT_CONNECTION_ID_MSTX ("no device side to link to"). */
#define EXPORT_MSTX_NONE 4294967295LL
#define EXPORT_MSTX_NO_CONNECTION 4000000000LL

/* Host layers use device field 31 (msprof's HOST_PID). */
#define EXPORT_HOST_DEVICE_ID 31U
/* (pid << 10) | (sort_index << 5) | device, in 32 bits as msprof does. */
static inline unsigned export_format_pid(unsigned pid, unsigned sort_index, unsigned device)
{
	return (pid << 10) | (sort_index << 5) | device;
}

#define EXPORT_TIMELINE_DESCRIPTION \
	"Timeline report: counter tracks of the profiled process tree's CPU, memory, " \
	"network and disk usage on the host (process names CPU Usage, Memory Usage, " \
	"Network Usage, Disk Usage), in percent and, beside them, in MB/s (disk read and write, per disk " \
	"and per process; network rx and tx, per interface) and MB (memory: the processes' RSS, the " \
	"host's used and available); each process's CPU per thread, named after the thread, in a " \
	"process 'Thread CPU: <name> (pid N)'; with --host-sys=osrt, an OS Runtime API " \
	"layer with the OS runtime calls (at least --osrt-threshold long) of every process per thread; " \
	"with --msproftx, one layer per " \
	"annotated process (named after it, with its pid where two share a name) with its mstx marks " \
	"and ranges per thread; " \
	"an Overlap Analysis layer per GPU (or one for the annotated ranges of a host-only profile) with " \
	"the time spent computing, communicating, communicating outside computing, and free.\n"
#define EXPORT_TX_TIMELINE_DESCRIPTION \
	"Timeline report of the mstx (msproftx) data alone: one layer per annotated " \
	"process, its marks (zero duration) and ranges on the thread that started them.\n"
