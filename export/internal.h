/* Shared state of one export run: the data domains (domain-*.c and the
 * parsers parse-*.c, listed in domains.c), the stages that walk them
 * (export.c, timeline.c) and the helpers below them.  Not installed. */
#pragma once

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/host-sys.h"
#include "export/db.h"
#include "export/export.h"
#include "export/tables.h"
#include "ipc/settings.h"

#define EXPORT_OUTPUT_DIR "mindstudio_profiler_output"
#define EXPORT_TS_LEN 14 /* YYYYMMDDhhmmss */
#define EXPORT_MAX_NETCARDS 64
#define EXPORT_MAX_FILES 64 /* names kept for README.txt; CSV slices beyond are not listed twice */
/* Rows per summary file, as msprof (FileSliceHelper.CSV_LIMIT).  For tests,
 * MSPROF_EXPORT_CSV_LIMIT (1 to this; empty: unset) sets a smaller one,
 * read once as the export starts (export.c run); anything else fails it. */
#define EXPORT_CSV_LIMIT 1000000
#define EXPORT_MAX_TL_PIECES 1024

struct exp_netcard {
	char name[32];
	int64_t speed_mbps; /* -1: unknown (lo, virtual devices) */
};

struct exp_intern;

/* Whether pid is one of the PROF dir's processes (export.c). */
struct exp;
bool exp_own_process(const struct exp *e, uint32_t pid);

/* Rows of one table inserted EXP_BATCH_ROWS to a statement: an INSERT's
 * execution costs about as much whether it carries one row or a few, so a
 * 16-row one takes less than half the time of 16 single-row ones
 * (tests/bench/bench-parse.sh prints both floors).  Rows go in in the
 * order they are put, each taking the next rowid; whatever reads or
 * updates the table drains the batch first. */
#define EXP_BATCH_ROWS 16
#define EXP_BATCH_COLS 10
/* An integer put as SQL NULL.  No column the parse writes holds it: times
 * are checked (exp_time_far), ids and pids are 32-bit or positive; only a
 * damaged raw file's range id or size could, and is then NULL. */
#define EXP_NULL INT64_MIN
union exp_value {
	int64_t i;
	double d;
};
struct exp_batch {
	struct exp *e;
	sqlite3_stmt *many, *one;   /* EXP_BATCH_ROWS rows; one row */
	char what[48];              /* "INSERT INTO <table>", for errors */
	char types[EXP_BATCH_COLS + 1]; /* a letter a column: 'i' integer, 'd' double */
	int cols, n;                /* n: rows bound to many, not inserted */
	bool bound_ok;
	union exp_value bound[EXP_BATCH_ROWS * EXP_BATCH_COLS]; /* many's parameters */
};

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
	uint32_t page_size;  /* of the host samples' writer (raw header); 0: not parsed now (4096) */
	char hostname[256];
	char host_uid[128];
	/* "processes": the pids this PROF dir holds (a rank's dir,
	 * collectors/profdir-ranks.c), sorted; per-process host samples of
	 * other processes are not its targets.  NULL: every sampled one. */
	uint32_t *procs;
	size_t n_procs;
	int64_t rank_id;            /* info.json rank_id; -1: none (also without info.json) */
	struct exp_netcard netcards[EXPORT_MAX_NETCARDS];
	unsigned n_netcards;

	/* host/sample.json; without it every source found is exported */
	bool have_sample;
	struct settings sample;  /* its settings by their rows, values and given bits only (.s is not kept) */
	bool system_only;        /* sample.json "app" empty: collected without an application */
	char mstx_include[1025]; /* --mstx-domain-include, "" none */
	char mstx_exclude[1025];

	/* host/start_info, host/end_info, and the records themselves */
	uint64_t start_ns, end_ns;  /* 0: not given */
	uint64_t start_mono_ns;     /* start_info clockMonotonicRaw, read with start_ns; 0: not given */
	int64_t first_ns, last_ns;  /* first and last record time (unix ns) */
	bool have_records;

	struct exp_intern *strings;
	struct exp_gpu *gpu;        /* domain-tasks.c: statements of GPU_TASK, GPU_API */
	struct exp_batch osrt_rows; /* domain-osrt.c: OSRT_API, while parsing (many: prepared) */
	sqlite3_stmt *nccl_insert;  /* domain-comm.c: NCCL_PROFILER_OP, while parsing */
	struct exp_mstx *mstx;      /* parse-mstx.c: range matching, while parsing */

	/* what this export writes (export_options) */
	bool summary_json;          /* summaries as .json */
	uint64_t tl_slice_bytes;    /* timeline pieces, 0: one file */
	uint64_t csv_limit;         /* rows per summary file, 0: EXPORT_CSV_LIMIT */
	uint64_t tracks;            /* bit per enum export_track: written */
	bool selected;              /* only the chosen steps (select-steps.c) */
	export_progress_fn progress;
	void *progress_ctx;
	uint64_t raw_bytes, raw_done; /* parse progress */

	/* files written to the output dir, for README.txt */
	char written[EXPORT_MAX_FILES][NAME_MAX + 1];
	unsigned n_written;

	/* The timeline is written by a thread of its own, on a copy of this
	 * struct with its own connection (export.c): the report, the progress
	 * callback and the list of written files are shared, under lock;
	 * parent is the struct whose list the copy's files go to. */
	pthread_mutex_t *lock;
	struct exp *parent;
	struct exp_tx_ahead *tx_ahead; /* the timeline's thread only */
	/* MSTX_EVENTS rows from the reader's thread (exp_tx_read): the
	 * timeline's thread takes the mstx layers' from tx_layer_feed, the
	 * summaries' thread the msprof_tx summary's from tx_csv_feed */
	struct exp_tx_feed *tx_layer_feed, *tx_csv_feed;
	/* report.html's range sums, made by that reader as it reads
	 * (aggregate.h); write_outputs owns them */
	struct exp_agg_range_sums *tx_range_sums;
};

static inline void exp_lock(struct exp *e)
{
	if (e->lock)
		pthread_mutex_lock(e->lock);
}

static inline void exp_unlock(struct exp *e)
{
	if (e->lock)
		pthread_mutex_unlock(e->lock);
}

/* Whether t (Unix ns of a record) is far outside the session: before 1970,
 * past what an int64 holds (raw_unix_ns saturates there), or more than a
 * day before its start or after its end where start_info and end_info give
 * them.  Such a record is left out and counted: its time is damage, and it
 * would stretch the timeline over centuries. */
#define EXP_TIME_MARGIN_NS (86400LL * 1000000000LL)
static inline bool exp_time_far(const struct exp *e, int64_t t)
{
	uint64_t u = (uint64_t)t;
	if (t <= 0 || t == INT64_MAX)
		return true;
	if (e->start_ns > (uint64_t)EXP_TIME_MARGIN_NS && u < e->start_ns - (uint64_t)EXP_TIME_MARGIN_NS)
		return true;
	return e->end_ns && e->end_ns < (uint64_t)INT64_MAX - (uint64_t)EXP_TIME_MARGIN_NS &&
	       u > e->end_ns + (uint64_t)EXP_TIME_MARGIN_NS;
}

/* Widen the session's time span to include t (Unix ns of a record). */
static inline void exp_note_time(struct exp *e, int64_t t)
{
	if (!e->have_records || t < e->first_ns)
		e->first_ns = t;
	if (!e->have_records || t > e->last_ns)
		e->last_ns = t;
	e->have_records = true;
}

static inline void exp_progress(struct exp *e, const char *stage, uint64_t done, uint64_t total)
{
	if (e->progress) {
		exp_lock(e);
		e->progress(e->progress_ctx, stage, done, total);
		exp_unlock(e);
	}
}

/* Add a problem worth telling the user to report.message ("; " between;
 * the same note twice is kept once). */
void exp_note(struct exp *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The failure that stops the export, as report.error (the first one: what
 * follows it is a consequence, kept as a note). */
void exp_fail(struct exp *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At the end of an export: a failure noted on a path the export recovered
 * from (r >= 0) moves to the notes. */
void exp_report_settle(struct export_report *rep, int r);
/* Write s[0..len) as the inside of a JSON string (escaped, valid UTF-8). */
void exp_json_str(FILE *f, const char *s, size_t len);
/* A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
void exp_csv_field(FILE *f, const char *s, size_t len);
/* A growing byte buffer the hottest writers format a row or an event in,
 * then hand to its file in one fwrite: per byte cheaper than stdio calls.
 * An allocation failure leaves err set and drops what does not fit. */
struct exp_buf {
	char *p;
	size_t len, cap;
	int err;
};
bool exp_buf_grow(struct exp_buf *b, size_t more);
void exp_buf_release(struct exp_buf *b);
static inline bool exp_buf_room(struct exp_buf *b, size_t more)
{
	return b->cap - b->len >= more || exp_buf_grow(b, more);
}
static inline void exp_buf_put(struct exp_buf *b, const char *s, size_t n)
{
	if (exp_buf_room(b, n)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}
/* A string literal, its length known at compile time. */
#define exp_buf_lit(b, s) exp_buf_put((b), "" s, sizeof(s) - 1)
static inline void exp_buf_putc(struct exp_buf *b, char c)
{
	if (exp_buf_room(b, 1))
		b->p[b->len++] = c;
}
static inline void exp_buf_puts(struct exp_buf *b, const char *s)
{
	exp_buf_put(b, s, strlen(s));
}
void exp_buf_u64(struct exp_buf *b, uint64_t v);
void exp_buf_i64(struct exp_buf *b, int64_t v);
/* exp_format_ts and exp_format_dur_us into the buffer. */
void exp_buf_ts(struct exp_buf *b, int64_t ns);
void exp_buf_dur_us(struct exp_buf *b, int64_t ns);
/* exp_json_str and exp_csv_field into the buffer. */
void exp_buf_json_str(struct exp_buf *b, const char *s, size_t len);
void exp_buf_csv_field(struct exp_buf *b, const char *s, size_t len);
/* The opening of a complete ("X") timeline event up to its args' "{":
 * {"name":"<name>","pid":P,"tid":T,"ts":"<start>","dur":<end - start>,"ph":"X","args":{
 * the caller adds the args and "}}" (inline: once per event of the mstx
 * and OS runtime layers). */
static inline void exp_buf_x_event(struct exp_buf *b, const char *name, size_t len, unsigned pid, uint64_t tid,
				   int64_t start, int64_t end)
{
	exp_buf_lit(b, "{\"name\":\"");
	exp_buf_json_str(b, name, len);
	exp_buf_lit(b, "\",\"pid\":");
	exp_buf_u64(b, pid);
	exp_buf_lit(b, ",\"tid\":");
	exp_buf_u64(b, tid);
	exp_buf_lit(b, ",\"ts\":\"");
	exp_buf_ts(b, start);
	exp_buf_lit(b, "\",\"dur\":");
	exp_buf_dur_us(b, end - start);
	exp_buf_lit(b, ",\"ph\":\"X\",\"args\":{");
}
/* The buffer to f in one write; emptied. */
static inline void exp_buf_flush_to(struct exp_buf *b, FILE *f)
{
	fwrite(b->p, 1, b->len, f);
	b->len = 0;
}
/* Map a SQLite result code to -errno once, noting sqlite3_errmsg. */
int exp_sql_fail(struct exp *e, int rc, const char *what);
int exp_exec(struct exp *e, const char *sql);
/* db_each and db_stmt_each_rc on e->db, a SQLite failure noted as
 * exp_sql_fail does (what names the statement reused); >= 0: rows seen. */
int exp_each(struct exp *e, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx);
int exp_stmt_each(struct exp *e, sqlite3_stmt *st, const char *what, db_row_fn *row, void *ctx);
/* db_step on e->db: 1 a row, 0 done, <0 noted (inline: the merges step
 * a row at a time). */
static inline int exp_step(struct exp *e, sqlite3_stmt *st, const char *what)
{
	int rc = SQLITE_OK;
	int r = db_step(st, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, what);
}
int exp_prepare(struct exp *e, const char *sql, sqlite3_stmt **ret);
/* Step an INSERT/UPDATE to completion and reset it for the next row. */
int exp_step_done(struct exp *e, sqlite3_stmt *st, const char *what);

/* struct exp_batch (above struct exp), made with types: the columns'
 * ("iiid": three integers, a double). */
int exp_batch_init(struct exp *e, struct exp_batch *b, const char *table, const char *types);
/* One row, a value a column: bound, inserted with the next EXP_BATCH_ROWS - 1. */
int exp_batch_put(struct exp_batch *b, const union exp_value *v);
/* The rows put so far into the table. */
int exp_batch_drain(struct exp_batch *b);
/* Rows not drained are left out. */
void exp_batch_release(struct exp_batch *b);

/* STRING_IDS: the id of s, inserting it on first use. */
int exp_intern_id(struct exp *e, const char *s, int64_t *ret);
struct exp_intern *exp_intern_free(struct exp_intern *in);
/* STRING_IDS values by id for the writers of the large tables, in place of
 * two joins per row: the ones last asked for stay in a direct-mapped cache
 * (the sort of such a query also carries two integers instead of two
 * strings per row). */
struct exp_strings;
int exp_strings_new(struct exp *e, struct exp_strings **ret);
struct exp_strings *exp_strings_free(struct exp_strings *c);
/* 1 with the string (NULL value: ""), 0 when STRING_IDS has no such id (an
 * inner join would leave the row out), <0 on a database error.  The
 * string stays valid until the next call on c: a row's two strings come
 * from two caches. */
int exp_strings_get(struct exp_strings *c, int64_t id, const char **ret, size_t *ret_len);
/* The string of id into buf, cut to size ("" when there is none or on an
 * error); returns buf. */
const char *exp_strings_copy(struct exp_strings *c, int64_t id, char *buf, size_t size);

/* Percent values are kept with msprof's precision: 6 decimals
 * (NumberConstant.USAGE_PLACES). */
double exp_round(double v, int decimals);

/* "1700000000123456.789": ns as µs with exactly three decimals. */
void exp_format_ts(int64_t ns, char buf[32]);
/* A duration in ns as µs the way exp_format_num(ns / 1000.0, 3) writes it
 * ("3000.0", "84999.211"), without floating point. */
void exp_format_dur_us(int64_t ns, char buf[32]);
/* Decimal digits of v, NUL-terminated; returns their count. */
size_t exp_fmt_u64(char *buf, uint64_t v);
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
/* A write stream on fd (taken) whose exp_fclose returns the first write
 * error as the system gave it (-ENOSPC on a full disk), 0 when all was
 * written; the output files are written through these. */
FILE *exp_fdopen_w(int fd);
int exp_fclose(FILE *f);
int exp_out_commit(struct exp *e, struct exp_out *o);
/* Give the file another final name in dir before it is committed. */
void exp_out_rename(struct exp_out *o, const char *dir, const char *name);
/* Remember a deliverable for README.txt. */
void exp_note_written(struct exp *e, const char *name);
/* Remove this type's files other than the `pieces` this export wrote
 * (plain when 1, slice_0.. otherwise): "{stem}_{ts}{suffix}" and
 * "{stem}_slice_{n}_{ts}{suffix}" of older exports, and of an export in
 * the same second that was split differently. */
void exp_remove_stale(const char *dir, const char *stem, const char *suffix, const char *ts, unsigned pieces);

/* A summary table (output.c): CSV, or JSON when e->summary_json, split
 * into {type}_slice_{n}_{ts} pieces of e->csv_limit rows when it holds
 * more, else one {type}_{ts} file.  A row is one CSV line written to the
 * FILE exp_table_row returns and ended with exp_table_row_end. */
struct exp_table {
	struct exp *e;
	const char *dir;
	const struct export_csv_table *t;
	bool json;
	struct exp_out o;
	unsigned slice;
	uint64_t in_file, rows;
	int err;
	FILE *line;          /* JSON: the row as CSV, converted at its end */
	char *line_buf;
	size_t line_size;
	char field[4096];
};
int exp_table_open(struct exp *e, struct exp_table *w, const char *dir, enum export_csv id);
FILE *exp_table_row(struct exp_table *w);
int exp_table_row_end(struct exp_table *w);
/* The row formatted in b (one CSV line, newline included) as the table's
 * next row; b is emptied.  b's error, or the table's, is returned. */
int exp_table_put(struct exp_table *w, struct exp_buf *b);
/* Rows from CSV text (lines, quoted fields may hold line breaks). */
int exp_table_lines(struct exp_table *w, const char *buf, size_t len);
int exp_table_commit(struct exp_table *w);
void exp_table_abort(struct exp_table *w);
/* After an error r < 0, exp_table_abort and r; else exp_table_commit. */
int exp_table_end(struct exp_table *w, int r);
/* Table id from the rows of sql, each written by row() as one CSV line
 * (newline included); arg is row()'s.  The caller checks that there are
 * rows: a table with none is a file with the header alone. */
int exp_table_query(struct exp *e, const char *dir, enum export_csv id, const char *sql,
		    void (*row)(FILE *f, sqlite3_stmt *st, void *arg), void *arg);
/* A whole small table from a writer of CSV lines (no header). */
int exp_table_write(struct exp *e, const char *dir, enum export_csv id, int (*write)(struct exp *e, FILE *f));

/* The timeline (output.c): events through exp_tl_event (one JSON object
 * each, no separator), metadata events through exp_tl_meta.  Split in
 * pieces of about e->tl_slice_bytes, each a JSON array with every
 * metadata event appended. */
struct exp_tl {
	struct exp *e;
	const char *dir, *stem;
	uint64_t limit;
	struct exp_out o;
	unsigned n_pieces;
	char **tmp;                 /* temporary name of each piece */
	uint64_t *events;           /* events in each piece */
	uint64_t events_in_piece, n_events, n_meta;
	unsigned since_check;
	FILE *meta;
	char *meta_buf;
	size_t meta_size;
	int err;
	bool spool;                 /* a layer written ahead: see exp_tl_spool_open */
};
int exp_tl_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem);
FILE *exp_tl_event(struct exp_tl *t);
FILE *exp_tl_meta(struct exp_tl *t);
/* A process's process_name, process_labels and process_sort_index, and a
 * thread's thread_name ("<kind> <tid>") and thread_sort_index (the tid). */
void exp_tl_process(struct exp_tl *t, unsigned pid, const char *name, const char *label, unsigned sort);
void exp_tl_thread(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind);
/* exp_tl_process for device dev's process of layer k, labelled "NPU <dev>"
 * (reference §9).  Process names must be unique in a file (MindSpore's
 * parser rejects a repeat, readers/NOTES.md §5), yet readers find a layer
 * by its exact name ("Ascend Hardware"): the first device of the layer
 * (first) keeps the name, every other one is "<name> (device <dev>)". */
void exp_tl_device_process(struct exp_tl *t, unsigned pid, const struct export_track_info *k, int64_t dev,
			   bool first);
int exp_tl_commit(struct exp_tl *t);
void exp_tl_abort(struct exp_tl *t);
/* A layer written ahead, by another thread, into a file of its own (one
 * event per line, never sliced) and a metadata buffer of its own; then
 * exp_tl_append puts both into t as if the layer had been written there,
 * pieces sliced where they would have been, and discards the spool (as
 * exp_tl_abort does when it is not appended). */
int exp_tl_spool_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem);
int exp_tl_append(struct exp_tl *t, struct exp_tl *spool);
/* exp_tl_append with every event and metadata event of the spool (one
 * JSON object, no separator) handed to map, which writes what goes into t
 * in its place into out (empty: nothing); <0 from map stops with that
 * error.  For the cluster timeline (cluster.c), which renames processes. */
typedef int exp_tl_map_fn(void *ctx, const char *ev, size_t len, struct exp_buf *out);
int exp_tl_append_map(struct exp_tl *t, struct exp_tl *spool, exp_tl_map_fn *map, void *ctx);

/* The mstx layers written ahead by the summaries' thread (export.c) while
 * the timeline's thread writes the layers before them: done and r under
 * lock, signalled through cond; the timeline's thread appends spool and
 * commits tx_out (msprof_tx_{ts}.json, when with_tx) after its own file,
 * and sets taken. */
struct exp_tx_ahead {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, with_tx, taken;
	int r;
	struct exp_tl spool, tx_out;
};
static inline bool exp_track_on(const struct exp *e, unsigned track)
{
	return (e->tracks >> track) & 1;
}
void exp_out_abort(struct exp_out *o);

/* A data domain of the export (STYLE.md, "Domains as entries"): how its
 * raw data becomes rows, the tables it derives, its layers of the timeline
 * and its summary files, described once.  The stages walk exp_domains in
 * its order: build_db runs every parse, then every build, then every
 * release (export.c); exp_write_timeline every layers hook (timeline.c);
 * write_summaries every summaries hook (export.c).  The order is the
 * timeline's order of layers and the parse's order of tables (STRING_IDS
 * ids are handed out as strings are met).  Any hook may be NULL. */
struct raw_header;
struct raw_record;
struct raw_cur;
/* The agent process whose files parse-agent.c is reading, as the domains'
 * decoders and hooks see it. */
struct exp_agent_process {
	uint32_t pid;
	const struct raw_header *h;           /* the clocks of the file being read */
	/* counts of the mstx domain's, in the process's AGENT_COUNTERS row */
	uint64_t end_without_start, overflow, filtered, open_at_end;
};
/* A decoder of one type of the agents' records: parse-agent.c reads the
 * agents' files and hands each record of a type a domain names to its
 * decoder, with c past the record's time and t that time in Unix ns
 * (0 taken, 1 malformed, <0 fatal). */
struct exp_agent_record {
	uint16_t type;                        /* RAW_AGENT_*, below EXP_AGENT_RECORD_TYPES */
	int (*take)(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		    int64_t t);
};
#define EXP_AGENT_RECORD_TYPES 256
/* A domain's part in reading the agents' files (parse-agent.c calls the
 * hooks of every domain that has them, in list order): before the first
 * file and after the last (end_all: only when all were read), as a
 * process's files begin and end (end: when they were read, before its
 * AGENT_COUNTERS row is written; forget: always), and its notes for the
 * report, after the agents' own and before the malformed records'. */
struct exp_agent_ops {
	int (*begin_all)(struct exp *e);
	int (*begin)(struct exp *e, struct exp_agent_process *ap);
	int (*end)(struct exp *e, struct exp_agent_process *ap);
	void (*forget)(struct exp *e);
	int (*end_all)(struct exp *e);
	void (*report)(struct exp *e);
};
/* The mstx domain's (parse-mstx.c). */
extern const struct exp_agent_ops exp_mstx_agent_ops;
extern const struct exp_agent_record exp_mstx_records[];
void exp_mstx_release(struct exp *e);
/* An MSTX_EVENTS row whose whole message names a step (collectors/steps.h). */
struct exp_mstx_step_row {
	int64_t pid, start, rowid;  /* pid: globalTid >> 32 */
};
/* The step rows the parse wrote, in the steps' order (process, start,
 * rowid), for the builds: 1, the list and its length; 0 when not known (no
 * agent file was parsed in this run, or more rows than the parse keeps):
 * the table has them. */
int exp_mstx_step_rows(struct exp *e, const struct exp_mstx_step_row **ret, size_t *ret_n);
/* A range of MSTX_EVENTS (eventType 1 or 2) as the parse ended it. */
struct exp_mstx_range {
	int64_t start, end, msg, dom;   /* msg, dom: STRING_IDS ids */
};
/* Every range the parse wrote, in no order, for the builds: 1, the list
 * and its length; 0 when not known (no agent file was parsed in this run,
 * or more ranges than the parse keeps): the table has them. */
int exp_mstx_ranges(struct exp *e, const struct exp_mstx_range **ret, size_t *ret_n);
/* A string field of an agent record: u32 length + bytes, at most
 * RAW_AGENT_MAX_STR, copied NUL-terminated into buf (RAW_AGENT_MAX_STR + 1
 * bytes); an embedded NUL ends it.  false: malformed (reader.c). */
bool exp_take_str(struct raw_cur *c, char *buf);

struct exp_domain {
	const char *name;
	const struct exp_agent_record *agent_records; /* its decoders of agent records, to take NULL */
	const struct exp_agent_ops *agent_ops;        /* its part around the agents' files */
	/* the database tables it writes (NULL-terminated; their columns are
	 * in export_db_tables, whose order is the database's) and the summary
	 * files its hook writes (_CSV_MAX-terminated; host_summaries name
	 * theirs): every one has one domain */
	const char *const *tables;
	const enum export_csv *csvs;
	int (*parse)(struct exp *e);          /* raw files -> its tables */
	int (*build)(struct exp *e);          /* tables made from what every domain parsed */
	void (*release)(struct exp *e);       /* after the builds, whether or not they failed */
	/* a host counter layer and one-row summaries, as data (the stages
	 * write them before the hooks below) */
	const struct exp_counter_layer *counter_layer;
	const struct exp_host_summary *host_summaries;
	size_t n_host_summaries;
	bool (*has_layers)(struct exp *e);    /* a layer to write: the timeline file exists */
	int (*layers)(struct exp *e, struct exp_tl *tl);
	int (*summaries)(struct exp *e, const char *dir);
};
extern const struct exp_domain *const exp_domains[];
extern const size_t exp_domains_n;
extern const struct exp_domain exp_domain_host, exp_domain_cpu, exp_domain_mem, exp_domain_network,
	exp_domain_disk, exp_domain_agents, exp_domain_osrt, exp_domain_device, exp_domain_tasks, exp_domain_mstx,
	exp_domain_steps, exp_domain_rank, exp_domain_comm, exp_domain_overlap;

/* A host counter layer (host-counters.c): "SELECT ts, [id,] value" rows as
 * counters named prefix (+ id), and a second query's under prefix2 (CPU
 * Avg); each written when its table has rows, then the process metadata. */
struct exp_counter_track;
struct exp_counter_layer {
	enum export_track track;
	const char *table;     /* present when this table has rows */
	const char *sql;
	bool with_id;
	const char *prefix;
	const char *sql2;
	const char *prefix2;
	const char *table2;
	/* more counters in the same process, each written when its table
	 * has rows: "SELECT ts, name, v1[, v2]" rows as counters named
	 * name with args {arg1: v1 * scale, arg2: v2 * scale} */
	const struct exp_counter_track *more;
	size_t n_more;
};
struct exp_counter_track {
	const char *table;
	const char *sql;
	const char *arg1, *arg2; /* arg2 NULL: one value */
	double scale;            /* B/s -> MB/s, kB -> MB, ... */
};
/* A counter event named name (JSON-escaped here) with one or two args. */
void exp_tl_counter2(struct exp_tl *out, unsigned pid, int64_t ts_ns, const char *name, const char *arg1,
		     double v1, const char *arg2, double v2);
bool exp_counter_layer_has(struct exp *e, const struct exp_counter_layer *l);
int exp_write_counter_layer(struct exp *e, struct exp_tl *tl, const struct exp_counter_layer *l);

/* A one-row summary of host samples (host-summary.c): written when its switch
 * of sample.json was given and its table has rows (else older files of
 * its type are removed). */
struct exp_host_summary {
	enum export_csv csv;
	bool usage;          /* --host-sys-usage (else --host-sys) */
	unsigned ask;        /* the item of that switch */
	const char *table;   /* written only when this table has rows */
	int (*write)(struct exp *e, FILE *f);
};
int exp_write_host_summaries(struct exp *e, const char *dir, const struct exp_host_summary *s, size_t n);
/* msprof HostProfDataBase.get_recommend_value over col of table. */
int exp_peak_recommend(struct exp *e, const char *table, const char *col, double *ret_peak, double *ret_rec);
/* ",<v>" as exp_format_num writes it. */
void exp_put_num(FILE *f, double v, int decimals);
/* "host,<pid>,<name>" of a per-process row (columns 0 and 1). */
void exp_put_process(FILE *f, sqlite3_stmt *st);
/* The name of a pid u.pid: the newest PROCESS_INFO row's (a pid may be reused). */
#define EXP_NAME_OF_PID                                                                 \
	"COALESCE((SELECT s.value FROM PROCESS_INFO i JOIN STRING_IDS s ON s.id = i.name " \
	"WHERE i.pid = u.pid ORDER BY i.firstSeenNs DESC LIMIT 1), '')"

/* The raw files of a parser (reader.c). */
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
/* The mstx layers (domain-mstx.c) into tl, and the same events into tl2 too
 * unless NULL (msprof_{ts}.json and msprof_tx_{ts}.json in one pass). */
int exp_write_tx_layer(struct exp *e, struct exp_tl *tl, struct exp_tl *tl2);
/* MSTX_EVENTS read once for the mstx layers and the msprof_tx summary
 * (domain-mstx.c): exp_tx_read, on a thread of its own, hands the rows to
 * two feeds, each taken by one other thread.  The reader leaves both
 * decided (the taker reads the table itself where not fed) and ended
 * (exp_tx_feed_finish does so too where the reader could not start); a
 * taker closes its feed when it takes no more (the reader then stops
 * handing it rows); free after all three are done.  NULL: out of memory. */
struct exp_tx_feed *exp_tx_feed_new(void);
/* ... and sums e->tx_range_sums (when not NULL) on the way */
void exp_tx_read(struct exp *e, struct exp_tx_feed *layer, struct exp_tx_feed *csv);
void exp_tx_feed_finish(struct exp_tx_feed *f);
void exp_tx_feed_close(struct exp_tx_feed *f);
struct exp_tx_feed *exp_tx_feed_free(struct exp_tx_feed *f); /* NULL */
/* msprof_{ts}.json: every domain's layers (timeline.c). */
int exp_write_timeline(struct exp *e, const char *dir);
/* Every layer of msprof_{ts}.json, the mstx layers last, into tl (the
 * cluster timeline's spool of one rank). */
int exp_write_layers(struct exp *e, struct exp_tl *tl);
/* A PROF dir's database (db_path, from export_prof_dir) opened read-only
 * in e with what its host/ files say (info.json, sample.json, start_info,
 * end_info), as the export's writers read them (export.c); rep gets the
 * notes.  exp_close_prof after it, whatever it returned. */
int exp_open_prof(struct exp *e, const char *prof_dir, const char *db_path, struct export_report *rep);
void exp_close_prof(struct exp *e);
/* Device tasks (domain-tasks.c): an agent's RAW_AGENT_GPU_TASK / _GPU_API
 * record into GPU_TASK / GPU_API (0 taken, 1 malformed, <0 fatal); then
 * TASK, COMPUTE_TASK_INFO, MEMCPY_INFO, CANN_API from them; the CSVs and
 * the timeline layers (tasks-output.c). */
void exp_gpu_free(struct exp *e);
int exp_build_gpu_tasks(struct exp *e);
/* The indexes the device task outputs read in (tasks-output.c). */
int exp_index_gpu_tasks(struct exp *e);
int exp_write_gpu_summaries(struct exp *e, const char *dir);
bool exp_have_gpu_layers(struct exp *e);
int exp_write_gpu_layers(struct exp *e, struct exp_tl *tl);
extern const char *const exp_memcpy_operations[8];
bool exp_table_has_rows(struct exp *e, const char *table);
/* The device ids N with a device_<N> directory in prof_dir, N below
 * DEV_MAX_DEVICES (collectors/device.h), marked in ret (that many entries);
 * their count. */
unsigned exp_list_devices(const char *prof_dir, bool *ret);
bool exp_table_has_index(struct exp *e, const char *index);
/* The current database of prof_dir (parsed first when there is none or it
 * is stale), opened read-only (query.c); rep->message says why not. */
int exp_open_current(const char *prof_dir, sqlite3 **ret, struct export_report *rep);
/* The agents' causes of dropped events (parse-agent.c), in the order of
 * AGENT_COUNTERS's dropped* columns: "<n> dropped <text>". */
#define EXP_DROP_CAUSES 5
extern const char *const exp_drop_cause_text[EXP_DROP_CAUSES];
/* The newest msprof_{14 digits}.db of prof_dir into path (common.c). */
bool exp_newest_db(const char *prof_dir, char *path, size_t size);
/* EXPORT_REPORT_FILE in dir from a (aggregate.h) and e->db (report.c). */
struct exp_agg;
int exp_write_report(struct exp *e, const char *dir, const struct exp_agg *a);
/* --model-id/--iteration-id (select-steps.c): TEMP views in front of the data
 * tables that hold only what lies inside the chosen steps. */
int exp_select_steps(struct exp *e, uint64_t model_id, uint64_t first, unsigned count);
