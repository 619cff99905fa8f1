/* Parse and export: raw slices in PROF_x/host/data -> PROF_x/msprof_{ts}.db
 * (SQLite, schema of reference §5) -> PROF_x/mindstudio_profiler_output/
 * (timeline JSON, summary CSVs, README.txt; reference §2.3, §2.4, §3, §4).
 *
 * The database is the single store the writers read.  Library code: it never
 * prints; what a user should hear comes back in struct export_report. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum export_type { EXPORT_TEXT = 0, EXPORT_DB = 1 };

/* What a text export writes (msprof.py's export timeline / summary).
 * Every text export also writes EXPORT_REPORT_FILE; EXPORT_REPORT alone
 * writes only that (msprof export report). */
enum {
	EXPORT_TIMELINE = 1 << 0,
	EXPORT_SUMMARY = 1 << 1,
	EXPORT_REPORT = 1 << 2,
	EXPORT_ALL = EXPORT_TIMELINE | EXPORT_SUMMARY,
	/* the text summary of the run into export_report.summary (summary.c);
	 * alone, or with type db, it writes no file */
	EXPORT_TEXT_SUMMARY = 1 << 3,
};

/* The HTML report in mindstudio_profiler_output/: one self-contained page
 * (export/report.c). */
#define EXPORT_REPORT_FILE "report.html"

#define EXPORT_STEP_MODEL_ID 4294967295ULL /* msprof's model id for step mode */
#define EXPORT_TL_SLICE_BYTES (200ULL << 20) /* timeline pieces: msprof's 200 MB budget */

/* Progress of a long export: the stage ("parse": raw bytes read of total;
 * "timeline", "summary": events or rows written, total 0).  Called from
 * the exporting thread, at most every 64 MB or 1M events. */
typedef void (*export_progress_fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);

struct export_options {
	enum export_type type;   /* text: db + json + csv; db: only the db */
	bool parse_only;         /* --parse=on: build the database, always anew */
	unsigned what;           /* EXPORT_* outputs of a text export; 0: all */
	bool summary_json;       /* --summary-format=json */
	bool clear;              /* --clear=on: remove the intermediate sqlite/ dirs */
	bool select;             /* --model-id/--iteration-id given */
	uint64_t model_id;
	uint64_t iteration_id;
	unsigned iteration_count;  /* steps from iteration_id on, 0 or 1: one */
	bool reports;            /* --reports given: only tracks in `tracks` */
	uint64_t tracks;         /* bit per timeline track (export_reports_parse) */
	uint64_t tl_slice_bytes; /* timeline piece size; 0: EXPORT_TL_SLICE_BYTES */
	export_progress_fn on_progress;
	void *progress_ctx;
};

struct export_report {
	char db_path[4096];      /* the msprof_{ts}.db written */
	char output_dir[4096];   /* mindstudio_profiler_output, "" for type db */
	unsigned files_written;  /* deliverables in output_dir (README.txt and report.html not counted) */
	uint64_t records;        /* raw records parsed */
	uint64_t bad_records;    /* damaged frames and malformed payloads skipped */
	uint64_t torn_bytes;     /* incomplete tails */
	unsigned raw_files;      /* raw slices read */
	uint64_t mstx_dropped;   /* mstx events the agents dropped (buffers full) */
	unsigned agents_unfinished; /* processes whose agent files end without their final record (killed) */
	bool reused;             /* db_path was parsed before and is current */
	char message[2048];      /* the problems worth telling the user, "; "-separated, or "" */
	char error[1024];        /* what made the export fail (return < 0), or "" */
	char summary[6144];      /* with EXPORT_TEXT_SUMMARY: the run at a glance, lines ending in '\n', or "" */
};

/* The text of a failed export's error: report.error, else its notes, else
 * what r says. */
static inline const char *export_report_error(const struct export_report *rep, int r)
{
	return rep->error[0] ? rep->error : rep->message[0] ? rep->message : strerror(-r);
}

/* Returns 0, -ENOENT when prof_dir has no host/ data to export (message
 * says what is missing), or -errno.  opt NULL means type text.  *ret is
 * filled in every case, so a failure comes with its message and whatever
 * counts were gathered. */
int export_prof_dir(const char *prof_dir, const struct export_options *opt, struct export_report *ret);

/* --reports: msprof's reports_sample_config.json text ({"json_process":
 * {"cpu_usage": true, ...}}) -> the tracks to write.  A track is written
 * when its key is true; keys this build has no track for are ignored.
 * -EINVAL with a message in err when the text is not such an object. */
int export_reports_parse(const char *json, uint64_t *ret_tracks, char *err, size_t err_size);

/* What msprof --query=on shows for one PROF dir (reference §1.5). */
struct export_query {
	char db_path[4096];
	int64_t start_ns;        /* collection start, Unix ns; 0 unknown */
	uint64_t n_steps;        /* distinct step numbers */
	int64_t top[5];          /* the longest steps, longest first */
	unsigned n_top;
	int64_t rank;            /* -1: none */
};

/* Query prof_dir, parsing its raw data first when it has no current
 * database.  0, or -errno with rep->message saying why. */
int export_query_prof_dir(const char *prof_dir, struct export_query *ret, struct export_report *rep);

/* msprof.py query --data-type's views of a PROF dir (reading its current
 * database, parsed first when needed).  A process's id is its rank, or its
 * pid when it was started without one (msprof uses the device id then). */
struct export_query_id {
	int64_t pid;
	int64_t rank;            /* -1: none */
};
struct export_query_step {
	int64_t id;              /* rank, or pid */
	int64_t pid;
	int64_t step;
	int64_t start_ns, end_ns;
};
/* The processes with agent data, by pid.  *ret to free(). */
int export_query_ids(const char *prof_dir, struct export_query_id **ret, size_t *ret_n, struct export_report *rep);
/* The STEP rows, by id, step and start.  *ret to free(). */
int export_query_steps(const char *prof_dir, struct export_query_step **ret, size_t *ret_n, struct export_report *rep);

/* msprof.py query --data-type 8 for the process of id (rank, or pid):
 * msprof's host_{sys_cpu,sys_mem,pid_mem}_usage_<suffix>.json written into
 * out_dir from the --host-sys-usage data of prof_dir, bits of *ret_written
 * for those written (none: no such data).  -ENOENT when id is no process
 * of prof_dir.  host_pid_cpu_usage needs user and system time apart, which
 * PROCESS_CPU_USAGE does not keep: never written. */
enum {
	EXPORT_HOST_USAGE_SYS_CPU = 1 << 0,
	EXPORT_HOST_USAGE_SYS_MEM = 1 << 1,
	EXPORT_HOST_USAGE_PID_MEM = 1 << 2,
};
int export_query_host_usage(const char *prof_dir, int64_t id, const char *out_dir, const char *suffix,
			    unsigned *ret_written, struct export_report *rep);

/* msprof export cluster (cluster.c): the ranks of a distributed job, one
 * PROF dir each, merged into out_dir (created): msprof_cluster_{ts}.json
 * (every rank's timeline layers, each rank's processes named and sorted
 * by its rank), cluster_step_trace_{ts}.csv (each step of each rank, with
 * the step's slowest and fastest rank, communication and wait),
 * cluster_ranks_{ts}.csv (every rank dir, merged or skipped and why) and
 * msprof_cluster_{ts}.db (the same two tables).  Each rank's db_path is
 * its current msprof_*.db (export_prof_dir with type db); a rank whose
 * files cannot be read is skipped, named in the report.  Rows are
 * streamed from the databases: memory grows with the ranks, not the
 * trace.  0 (also when ranks were skipped), or -errno with message set. */
struct export_cluster_rank {
	const char *prof_dir;
	const char *db_path;     /* NULL: the rank is listed as skipped, with why */
	const char *why;         /* why there is no database (db_path NULL) */
};
struct export_cluster_report {
	char output_dir[4096];
	char timeline[256], steps_csv[256], ranks_csv[256], db[256]; /* names in output_dir, "" none */
	unsigned ranks;          /* merged */
	unsigned skipped;        /* given but left out */
	unsigned hosts;          /* distinct hosts among the merged */
	unsigned shifted;        /* ranks whose clock was shifted (cluster.c, "clocks") */
	unsigned hosts_aligned;  /* hosts whose clock offset was estimated from collectives */
	uint64_t events;         /* timeline events, metadata events not counted */
	uint64_t steps;          /* distinct step ids */
	uint64_t step_rows;      /* (step, rank) rows */
	char message[2048];      /* the ranks skipped and why, and other notes, "; "-separated */
};
int export_cluster(const char *out_dir, const struct export_cluster_rank *ranks, size_t n,
		   struct export_cluster_report *ret);

/* msprof --analyze's communication rules (analyze-comm.c; the flags
 * combine): from the
 * COMMUNICATION_OP rows of prof_dir's current database (parsed first when
 * needed), analyze/communication.json and/or communication_matrix.json,
 * or with EXPORT_ANALYZE_DB (--type=db) analyze/communication_analyzer.db.
 * 0 and the number of operations in *ret_ops (0: none, nothing written),
 * or -errno with rep->message saying why. */
enum {
	EXPORT_ANALYZE_COMMUNICATION = 1 << 0,
	EXPORT_ANALYZE_MATRIX = 1 << 1,
	EXPORT_ANALYZE_DB = 1 << 2,
};
int export_analyze_comm(const char *prof_dir, unsigned what, unsigned *ret_ops, struct export_report *rep);
