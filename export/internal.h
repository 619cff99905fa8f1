/* Shared state of one export run: parse (parse.c), timeline (timeline.c),
 * summaries (summary.c), orchestration (export.c).  Not installed. */
#pragma once

#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "tables.h"

#define EXPORT_OUTPUT_DIR "mindstudio_profiler_output"
#define EXPORT_TS_LEN 14 /* YYYYMMDDhhmmss */
#define EXPORT_MAX_NETCARDS 64
#define EXPORT_MAX_FILES 64 /* names kept for README.txt; CSV slices beyond are not listed twice */

/* Samples asked for, from host/sample.json (host_sys, host_sys_usage). */
enum {
	ASK_CPU = 1 << 0,
	ASK_MEM = 1 << 1,
	ASK_DISK = 1 << 2,
	ASK_NETWORK = 1 << 3,
};

struct exp_netcard {
	char name[32];
	int64_t speed_mbps; /* -1: unknown (lo, virtual devices) */
};

struct exp_intern;

struct exp {
	const char *prof_dir;
	struct export_report *rep;
	sqlite3 *db;
	char ts[EXPORT_TS_LEN + 1]; /* local time of this export, for file names */

	/* host/info.json */
	bool have_info;
	uint32_t app_pid;
	unsigned cpu_nums;
	uint64_t mem_total_kb;
	char hostname[256];
	char host_uid[128];
	struct exp_netcard netcards[EXPORT_MAX_NETCARDS];
	unsigned n_netcards;

	/* host/sample.json; without it every source found is exported */
	bool have_sample;
	unsigned ask_sys;   /* --host-sys */
	unsigned ask_usage; /* --host-sys-usage */
	char mstx_include[1025]; /* --mstx-domain-include, "" none */
	char mstx_exclude[1025];

	/* host/start_info, host/end_info, and the records themselves */
	uint64_t start_ns, end_ns;  /* 0: not given */
	int64_t first_ns, last_ns;  /* first and last record time (unix ns) */
	bool have_records;

	struct exp_intern *strings;
	struct exp_gpu *gpu;        /* gputask.c: statements of GPU_TASK, GPU_API */

	/* files written to the output dir, for README.txt */
	char written[EXPORT_MAX_FILES][NAME_MAX + 1];
	unsigned n_written;
};

/* Widen the session's time span to include t (Unix ns of a record). */
static inline void exp_note_time(struct exp *e, int64_t t)
{
	if (!e->have_records || t < e->first_ns)
		e->first_ns = t;
	if (!e->have_records || t > e->last_ns)
		e->last_ns = t;
	e->have_records = true;
}

/* Record the first problem worth telling the user (report.message). */
void exp_note(struct exp *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add to report.message ("; " between), for problems every one of which
 * the user must hear of (dropped events). */
void exp_note_add(struct exp *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write s[0..len) as the inside of a JSON string (escaped, valid UTF-8). */
void exp_json_str(FILE *f, const char *s, size_t len);
/* Map a SQLite result code to -errno once, noting sqlite3_errmsg. */
int exp_sql_fail(struct exp *e, int rc, const char *what);
int exp_exec(struct exp *e, const char *sql);
int exp_prepare(struct exp *e, const char *sql, sqlite3_stmt **ret);
/* Step an INSERT/UPDATE to completion and reset it for the next row. */
int exp_step_done(struct exp *e, sqlite3_stmt *st, const char *what);

/* STRING_IDS: the id of s, inserting it on first use. */
int exp_intern_id(struct exp *e, const char *s, int64_t *ret);
struct exp_intern *exp_intern_free(struct exp_intern *in);

/* Percent values are kept with msprof's precision: 6 decimals
 * (NumberConstant.USAGE_PLACES). */
double exp_round(double v, int decimals);

/* "1700000000123456.789": ns as µs with exactly three decimals. */
void exp_format_ts(int64_t ns, char buf[32]);
/* A float as Python's repr() prints it after round(v, decimals), which is
 * what msprof's summaries hold: "12.5", "100.0", "0.0"; decimals < 0: not
 * rounded (repr of the value itself). */
void exp_format_num(double v, int decimals, char *buf, size_t size);

/* Output files: written under a hidden temporary name in the same dir and
 * renamed when complete, so a reader never sees half a file. */
struct exp_out {
	FILE *f;
	char *vbuf;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
	char name[NAME_MAX + 1];
};
int exp_out_open(struct exp_out *o, const char *dir, const char *name);
int exp_out_commit(struct exp *e, struct exp_out *o);
void exp_out_abort(struct exp_out *o);
/* Remove older "{stem}_{14 digits}{suffix}" files in dir except keep. */
void exp_remove_older(const char *dir, const char *stem, const char *suffix, const char *keep);

int exp_parse(struct exp *e);
/* The agents' files in dir (host/data): MSTX_EVENTS and AGENT_* (agent.c). */
int exp_parse_agents(struct exp *e, const char *dir);
struct raw_reader;
struct raw_record;
/* Open a raw file for a parser: 1 and *ret, or 0 when it is unusable
 * (noted in the report, the export goes on), or <0 (out of memory). */
int exp_reader_open(struct exp *e, const char *path, struct raw_reader **ret);
/* Feed every whole record to take (<0 fatal, 0 taken, 1 malformed,
 * counted in *malformed), note read errors and damage in the report, and
 * free the reader.  Returns <0 only when take failed fatally. */
int exp_reader_drain(struct exp *e, const char *path, struct raw_reader *rd,
		     int (*take)(void *ctx, const struct raw_record *rec), void *ctx, uint64_t *malformed);
/* mindstudio_profiler_output/msprof_tx_{ts}.json and .csv (mstx.c). */
int exp_write_tx_layer(struct exp *e, FILE *f, bool *first);
int exp_write_tx_timeline(struct exp *e, const char *dir);
int exp_write_tx_summary(struct exp *e, const char *dir);
/* STEP from the step annotations in MSTX_EVENTS (steps.c) */
int exp_build_steps(struct exp *e);
int exp_write_step_trace(struct exp *e, const char *dir);
int exp_write_timeline(struct exp *e, const char *dir);
/* Devices (device.c): device_<N>/data -> GPU_* and NPU_INFO, NPU_MEM,
 * AICORE_FREQ; npu_mem_{ts}.csv; the device counter layers. */
int exp_parse_devices(struct exp *e);
/* Device tasks (gputask.c): an agent's RAW_AGENT_GPU_TASK / _GPU_API
 * record into GPU_TASK / GPU_API (0 taken, 1 malformed, <0 fatal); then
 * TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API from them; the CSVs and
 * the timeline layers. */
struct raw_header;
int exp_gpu_record(struct exp *e, const struct raw_header *h, uint32_t pid, const struct raw_record *rec);
void exp_gpu_free(struct exp *e);
int exp_build_gpu_tasks(struct exp *e);
int exp_write_gpu_summaries(struct exp *e, const char *dir);
bool exp_have_gpu_layers(struct exp *e);
int exp_write_gpu_layers(struct exp *e, FILE *f, bool *first);
extern const char *const exp_memcpy_operations[8];
int exp_write_npu_mem(struct exp *e, const char *dir);
bool exp_have_device_layers(struct exp *e);
int exp_write_device_layers(struct exp *e, FILE *f, bool *first);
int exp_write_summaries(struct exp *e, const char *dir);
bool exp_table_has_rows(struct exp *e, const char *table);
