/* Parse and export: raw slices in PROF_x/host/data -> PROF_x/msprof_{ts}.db
 * (SQLite, schema of reference §5) -> PROF_x/mindstudio_profiler_output/
 * (timeline JSON, summary CSVs, README.txt; reference §2.3, §2.4, §3, §4).
 *
 * The database is the single store the writers read.  Library code: it never
 * prints; what a user should hear comes back in struct export_report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum export_type { EXPORT_TEXT = 0, EXPORT_DB = 1 };

struct export_options {
	enum export_type type;   /* text: db + json + csv; db: only the db */
};

struct export_report {
	char db_path[4096];      /* the msprof_{ts}.db written */
	char output_dir[4096];   /* mindstudio_profiler_output, "" for type db */
	unsigned files_written;  /* deliverables in output_dir (README.txt not counted) */
	uint64_t records;        /* raw records parsed */
	uint64_t bad_records;    /* damaged frames and malformed payloads skipped */
	uint64_t torn_bytes;     /* incomplete tails */
	unsigned raw_files;      /* raw slices read */
	uint64_t mstx_dropped;   /* mstx events the agents dropped (buffers full) */
	char message[512];       /* first problem worth telling the user, or "" */
};

/* Returns 0, -ENOENT when prof_dir has no host/ data to export (message
 * says what is missing), or -errno.  opt NULL means type text.  *ret is
 * filled in every case, so a failure comes with its message and whatever
 * counts were gathered. */
int export_prof_dir(const char *prof_dir, const struct export_options *opt, struct export_report *ret);
