/* One export run's shared state (struct exp): what every stage needs of
 * the PROF dir, its database and the report, and nothing of one domain: a
 * domain's own state hangs off its slot (exp_domain_state, domain.h).
 * Made by the entry (stages.c) or by exp_open_prof (prof.h); the notes
 * and failures go to the report (exp.c). */
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
#include "export/export.h"
#include "ipc/settings.h"

#define EXPORT_OUTPUT_DIR "mindstudio_profiler_output"
#define EXPORT_TS_LEN 14 /* YYYYMMDDhhmmss */
#define EXPORT_MAX_NETCARDS 64
#define EXPORT_MAX_FILES 64 /* names kept for README.txt; CSV slices beyond are not listed twice */
/* Rows per summary file, as msprof (FileSliceHelper.CSV_LIMIT).  For tests,
 * MSPROF_EXPORT_CSV_LIMIT (1 to this; empty: unset) sets a smaller one,
 * read once as the export starts (stages.c run); anything else fails it. */
#define EXPORT_CSV_LIMIT 1000000
#define EXPORT_MAX_TL_PIECES 1024

struct exp_netcard {
	char name[32];
	int64_t speed_mbps; /* -1: unknown (lo, virtual devices) */
};

struct exp_agg_range_sums;
struct exp_intern;
struct exp_layers_ahead;

/* The domains' own state, a slot each (domain.h); at least the list's length. */
#define EXP_DOMAIN_SLOTS 24

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
	/* what is wrong with info.json's rank_id or pid, "" nothing (the
	 * export goes on, noted; export cluster leaves the rank out) */
	char info_damaged[192];
	struct exp_netcard netcards[EXPORT_MAX_NETCARDS];
	unsigned n_netcards;
	/* info.json's "flight_recorder": a dump of the flight recorder's ring
	 * (launcher/flight.c), which ends at its trigger, not with the
	 * collectors' final records */
	struct exp_flight {
		bool on;
		char trigger[16];
		char detail[208];
		uint64_t span_s, ring_mb;
		uint64_t overwritten_slices, refused_writes;
		struct { uint32_t type; uint64_t records; } overwritten[32];
		unsigned n_overwritten;
	} flight;

	/* host/sample.json; without it every source found is exported */
	bool have_sample;
	struct settings sample;  /* its settings by their rows (.s: copies, exp_release_host frees them) */
	bool system_only;        /* sample.json "app" empty: collected without an application */

	/* host/start_info, host/end_info, and the records themselves */
	uint64_t start_ns, end_ns;  /* 0: not given */
	uint64_t start_mono_ns;     /* start_info clockMonotonicRaw, read with start_ns; 0: not given */
	int64_t first_ns, last_ns;  /* first and last record time (unix ns) */
	bool have_records;

	struct exp_intern *strings;
	/* the connection's main tables, "\nNAME\n..." (exp_open_db: read-only,
	 * the set does not change), so that asking for an absent one prepares
	 * nothing (exp_table_has_rows); NULL: not known */
	char *main_tables;
	/* each domain's own, by its place in the list: exp_domain_state (domain.h) */
	void *domain_state[EXP_DOMAIN_SLOTS];

	/* what this export writes (export_options) */
	bool summary_json;          /* summaries as .json */
	uint64_t tl_slice_bytes;    /* timeline pieces, 0: one file */
	uint64_t csv_limit;         /* rows per summary file, 0: EXPORT_CSV_LIMIT */
	uint64_t tracks;            /* bit per enum export_track: written */
	bool selected;              /* only the chosen steps (select-steps.c) */
	export_progress_fn on_progress;
	void *progress_ctx;
	uint64_t raw_bytes, raw_done; /* parse progress */

	/* files written to the output dir, for README.txt */
	char written[EXPORT_MAX_FILES][NAME_MAX + 1];
	unsigned n_written;

	/* The timeline is written by a thread of its own, on a copy of this
	 * struct with its own connection (stages.c): the report, the progress
	 * callback and the list of written files are shared, under lock;
	 * parent is the struct whose list the copy's files go to. */
	pthread_mutex_t *lock;
	struct exp *parent;
	struct exp_layers_ahead *ahead; /* the timeline's thread only (timeline.h) */
	/* report.html's range sums made ahead by a reader of the rows
	 * (aggregate.h), taken when complete; NULL: summed there */
	struct exp_agg_range_sums *agg_ranges;
};

/* The stages of build_db (stages.c) that make the database from the raw
 * data, for a database of the caller's too (tests/fuzz: one in memory):
 * the empty tables and their fixed rows; every domain's parse of the raw
 * files; every domain's release of what its parse and build kept. */
int exp_create_schema(struct exp *e);
int exp_parse_domains(struct exp *e);
void exp_release_domains(struct exp *e);

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
	if (e->on_progress) {
		exp_lock(e);
		e->on_progress(e->progress_ctx, stage, done, total);
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
static inline bool exp_track_on(const struct exp *e, unsigned track)
{
	return (e->tracks >> track) & 1;
}
