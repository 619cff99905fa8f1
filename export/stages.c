/* The stages of export_prof_dir over the domains (domain.c): the two
 * steps msprof's analysis runs after a collection.
 *
 *   parse   host/{info.json,sample.json,start_info,end_info} + host/data/ slices
 *           -> PROF/.msprof_{ts}.db.XXXXXX -> renamed PROF/msprof_{ts}.db
 *   export  msprof_{ts}.db -> PROF/mindstudio_profiler_output/
 *           msprof_{ts}.json, {type}_{ts}.csv, README.txt   (type text only)
 *
 * Every file is built under a hidden temporary name and renamed when
 * complete, so an interrupted export never leaves a file a reader would
 * take for a finished one; older msprof_*.db and older files of each
 * deliverable type are removed only after the new one is in place.  The
 * database is built with journal_mode=OFF and synchronous=OFF: it is not
 * visible under its final name until it is complete, so a crash costs only
 * the temporary file. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "collectors/device.h"
#include "export/aggregate.h"
#include "export/db.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/prof.h"
#include "export/export.h"
#include "export/files.h"
#include "export/report.h"
#include "export/select-steps.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "export/timeline.h"
#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"
#include "ipc/settings.h"


/* --- database ---------------------------------------------------------------- */

static int create_schema(struct exp *e)
{
	char sql[1024];
	int r;
	for (size_t i = 0; i < export_db_tables_n; i++) {
		snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", export_db_tables[i].name, export_db_tables[i].columns);
		if ((r = exp_exec(e, sql)) < 0)
			return r;
	}
	/* the key PROC_INFO upserts on; also serves PROC_EXIT's lookup by pid */
	r = exp_exec(e, "CREATE UNIQUE INDEX ProcessInfoIndex ON PROCESS_INFO (pid, startTicks)");
	/* the keys the agent tables upsert on; STRING_IDS by value for
	 * interning more strings than the cache holds (string-ids.c) */
	if (r == 0)
		r = exp_exec(e, "CREATE UNIQUE INDEX AgentThreadIndex ON AGENT_THREAD (pid, tid); "
				"CREATE UNIQUE INDEX AgentCategoryIndex ON AGENT_CATEGORY (pid, domainId, category); "
				"CREATE UNIQUE INDEX StringIdsValueIndex ON STRING_IDS (value)");
	return r;
}

static int insert_text_pair(struct exp *e, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st;
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	r = exp_step_done(e, st, sql);
	sqlite3_finalize(st);
	return r;
}

static int write_fixed_rows(struct exp *e)
{
	static const char meta[] = "INSERT INTO META_DATA (name, value) VALUES (?, ?)";
	static const char *const version[][2] = {
		{ "SCHEMA_VERSION", EXPORT_SCHEMA_VERSION_MAJOR "." EXPORT_SCHEMA_VERSION_MINOR "." EXPORT_SCHEMA_VERSION_MICRO },
		{ "SCHEMA_VERSION_MAJOR", EXPORT_SCHEMA_VERSION_MAJOR },
		{ "SCHEMA_VERSION_MINOR", EXPORT_SCHEMA_VERSION_MINOR },
		{ "SCHEMA_VERSION_MICRO", EXPORT_SCHEMA_VERSION_MICRO },
	};
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(version) && r == 0; i++)
		r = insert_text_pair(e, meta, version[i][0], version[i][1]);
	return r;
}

/* msprof's SESSION_TIME_INFO: start and end of the collection.  end_info is
 * missing when the launcher was killed; the last sample stands in. */
static int write_session_time(struct exp *e)
{
	int64_t start = e->start_ns ? (int64_t)e->start_ns : (e->have_records ? e->first_ns : 0);
	int64_t end = e->end_ns ? (int64_t)e->end_ns : (e->have_records ? e->last_ns : start);
	if (!e->end_ns)
		exp_note(e, "'%s/host/end_info' is missing: the collection did not stop cleanly; "
			    "its end is taken from the last sample", e->prof_dir);
	if (end < start)
		end = start;
	sqlite3_stmt *st;
	static const char sql[] = "INSERT INTO SESSION_TIME_INFO (startTimeNs, endTimeNs) VALUES (?, ?)";
	int r = exp_prepare(e, sql, &st);
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	r = exp_step_done(e, st, sql);
	sqlite3_finalize(st);
	return r;
}

/* Data tables nobody wrote to are dropped: readers take a table's presence
 * as "this was collected". */
static int drop_empty(struct exp *e)
{
	for (size_t i = 0; i < export_db_tables_n; i++) {
		if (export_db_tables[i].always || exp_table_has_rows(e, export_db_tables[i].name))
			continue;
		char sql[128];
		snprintf(sql, sizeof sql, "DROP TABLE %s", export_db_tables[i].name);
		int r = exp_exec(e, sql);
		if (r < 0)
			return r;
	}
	return 0;
}

/* PRAGMA user_version of the databases this build writes: a hash of the
 * schema table and EXPORT_DB_LAYOUT, so a database is reused only by a
 * build with the same tables (another build's writers might ask for a
 * column it lacks), indexes and derived tables (SCHEMA.md, "Layout
 * version"). */
static int32_t schema_stamp(void)
{
	uint32_t h = 2166136261U;
	for (size_t i = 0; i < export_db_tables_n; i++) {
		for (const char *p = export_db_tables[i].name; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619U;
		for (const char *p = export_db_tables[i].columns; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619U;
	}
	for (uint32_t v = EXPORT_DB_LAYOUT, i = 0; i < 4; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 16777619U;
	return (int32_t)(h & 0x7fffffff) | 1;
}

int exp_create_schema(struct exp *e)
{
	int r = create_schema(e);
	return r == 0 ? write_fixed_rows(e) : r;
}

int exp_parse_domains(struct exp *e)
{
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->parse)
			r = exp_domains[i]->parse(e);
	return r;
}

void exp_release_domains(struct exp *e)
{
	for (size_t i = 0; i < exp_domains_n; i++)
		if (exp_domains[i]->release)
			exp_domains[i]->release(e);
}

static int build_db(struct exp *e, const char *tmp)
{
	int rc = sqlite3_open_v2(tmp, &e->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return exp_sql_fail(e, rc, "open");
	/* 16 KiB pages: a bulk load of millions of rows spends about a tenth
	 * less than with 4 KiB ones (fewer pages to split, spill and read
	 * back through the 16 MiB cache); it must come before the first table */
	int r = exp_exec(e, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
			    "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384; BEGIN");
	if (r == 0)
		r = exp_create_schema(e);
	if (r == 0)
		r = exp_parse_domains(e);
	/* the span is known once every record was parsed, and the builds
	 * read it (domain-overlap.c: Free without steps) */
	if (r == 0)
		r = write_session_time(e);
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->build)
			r = exp_domains[i]->build(e);
	/* a window of chosen steps (--step-range, --schedule): its database
	 * holds them alone, as its outputs do */
	if (r == 0 && e->have_sample && e->sample.s[SET_STEP_RANGE] && *e->sample.s[SET_STEP_RANGE])
		r = exp_trim_step_range(e, e->sample.s[SET_STEP_RANGE]);
	exp_release_domains(e);
	if (r == 0)
		r = drop_empty(e);
	if (r == 0) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA user_version = %" PRId32, schema_stamp());
		r = exp_exec(e, sql);
	}
	if (r == 0)
		r = exp_exec(e, "COMMIT");
	int c = exp_close_db(e);
	if (r == 0 && c < 0) {
		exp_fail(e, "cannot close database '%s'", tmp);
		r = c;
	}
	return r;
}

/* --- output directory --------------------------------------------------------- */

/* "{stem}_{14 digits}{suffix}" or, sliced, "{stem}_slice_{n}_{14 digits}{suffix}" */
static bool is_output(const char *name, const char *stem, const char *suffix)
{
	size_t ls = strlen(stem), lx = strlen(suffix), len = strlen(name);
	if (len < ls + 1 + EXPORT_TS_LEN + lx || strncmp(name, stem, ls) != 0 || name[ls] != '_' ||
	    strcmp(name + len - lx, suffix) != 0)
		return false;
	const char *stamp = name + len - lx - EXPORT_TS_LEN, *mid = name + ls + 1;
	for (size_t i = 0; i < EXPORT_TS_LEN; i++)
		if (!isdigit((unsigned char)stamp[i]))
			return false;
	if (mid == stamp)
		return true;
	if (!startswith(mid, "slice_"))
		return false;
	const char *q = mid + 6;
	while (q < stamp && isdigit((unsigned char)*q))
		q++;
	return q > mid + 6 && q == stamp - 1 && *q == '_';
}

static bool written(const struct exp *e, const char *stem, const char *suffix)
{
	for (unsigned i = 0; i < e->n_written; i++)
		if (is_output(e->written[i], stem, suffix))
			return true;
	return false;
}

static int write_readme(struct exp *e, const char *dir)
{
	struct exp_out o;
	int r = exp_out_open(&o, dir, "README.txt");
	if (r < 0)
		return r;
	/* msprof MsprofOutputSummary._export_readme_file: a numbered list per
	 * kind, "N.<name>.<suffix>:<description>", each list ended by a blank
	 * line; a sliced file is listed once. */
	fputs("Timeline file description:\n", o.f);
	unsigned n = 0;
	if (written(e, "msprof", ".json"))
		fprintf(o.f, "%u.msprof.json:%s", ++n, EXPORT_TIMELINE_DESCRIPTION);
	if (written(e, "msprof_tx", ".json"))
		fprintf(o.f, "%u.msprof_tx.json:%s", ++n, EXPORT_TX_TIMELINE_DESCRIPTION);
	fputs("\nSummary file description:\n", o.f);
	n = 0;
	for (size_t k = 0; k < _CSV_MAX; k++) {
		const struct export_csv_table *t = &export_csv_tables[k];
		const char *js = export_csv_stem(t, true);
		if (written(e, t->type, ".csv"))
			fprintf(o.f, "%u.%s.csv:%s", ++n, t->type, t->description);
		else if (written(e, js, ".json"))
			fprintf(o.f, "%u.%s.json:%s", ++n, js, t->description);
	}
	fputc('\n', o.f);
	unsigned before = e->n_written;
	r = exp_out_commit(e, &o);
	e->n_written = before; /* README is not a deliverable of its own */
	return r;
}

static int open_output_db(struct exp *e, const struct export_options *opt)
{
	int r = exp_open_db(e);
	if (r == 0 && opt && opt->select)
		r = exp_select_steps(e, opt->model_id, opt->iteration_id, opt->iteration_count);
	else if (r == 0 && e->have_sample)
		r = exp_select_step_range(e, e->sample.s[SET_STEP_RANGE]);
	return r;
}

static int write_summaries(struct exp *e, const char *dir)
{
	exp_progress(e, "summary", 0, 0);
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++) {
		const struct exp_domain *d = exp_domains[i];
		if (d->n_host_summaries)
			r = exp_write_host_summaries(e, dir, d->host_summaries, d->n_host_summaries);
		if (r == 0 && d->summaries)
			r = d->summaries(e, dir);
	}
	return r;
}

/* A thread of the export: a copy of it with its own connection. */
struct export_job {
	struct exp e;
	const struct export_options *opt;
	const char *dir;
	int r;
};

struct timeline_job {
	struct export_job j;
	const struct exp_domain *read;  /* a domain read by a reader's thread */
};

static void *timeline_thread(void *arg)
{
	struct timeline_job *t = arg;
	struct export_job *j = &t->j;
	j->r = open_output_db(&j->e, j->opt);
	if (j->r == 0) {
		exp_progress(&j->e, "timeline", 0, 0);
		j->r = exp_write_timeline(&j->e, j->dir);
	}
	if (t->read) /* taken, or never to be (an error) */
		t->read->shared_read->done(&j->e, true);
	exp_close_db(&j->e);
	return NULL;
}

struct reader_job {
	struct export_job j;
	const struct exp_domain *d;
};

/* A domain's table for the timeline's and the summaries' threads. */
static void *reader_thread(void *arg)
{
	struct reader_job *rd = arg;
	struct export_job *j = &rd->j;
	j->r = open_output_db(&j->e, j->opt);
	if (j->r == 0)
		rd->d->shared_read->read(&j->e);
	else
		rd->d->shared_read->cancel(&j->e);
	exp_close_db(&j->e);
	return NULL;
}

/* A thread of the export (a job of size bytes that starts with struct
 * export_job): a copy of e with its own connection; NULL: out of memory. */
static void *job_new(size_t size, struct exp *e, const struct export_options *opt, const char *dir)
{
	struct export_job *j = calloc(1, size);
	if (!j)
		return NULL;
	*j = (struct export_job){ .e = *e, .opt = opt, .dir = dir };
	j->e.db = NULL;
	j->e.parent = e;
	return j;
}

/* The timeline and the summaries, each on one core: they read the same
 * tables and write different files, and the larger exports are made of
 * little else.  A domain whose layers have a file of their own may have
 * them written ahead by the summaries' thread (layers_ahead: the mstx
 * layers, while device tasks are at least as many as the mstx events),
 * which evens the two out; a domain whose layers and summary read the
 * same table may have a third thread read it once for both (shared_read:
 * the mstx events otherwise), which is then most of what the other two
 * would read.  Summaries stop at the first error as the timeline does;
 * the two do not stop each other. */
static int write_both(struct exp *e, const struct export_options *opt, const char *dir)
{
	const struct exp_domain *ahead_d = NULL, *read_d = NULL;
	for (size_t i = 0; i < exp_domains_n; i++) {
		const struct exp_domain *d = exp_domains[i];
		if (!ahead_d && d->own_timeline && d->layers_ahead && d->has_layers(e) && d->layers_ahead(e))
			ahead_d = d;
		else if (!read_d && d->shared_read && d->shared_read->wanted(e))
			read_d = d;
	}
	/* the read's hand-over, in the domain's state: the copies of e see it */
	if (read_d && read_d->shared_read->begin(e) < 0)
		read_d = NULL; /* each reads it itself */
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	e->lock = &lock;
	struct timeline_job *tj = job_new(sizeof *tj, e, opt, dir);
	struct reader_job *rd = read_d ? job_new(sizeof *rd, e, opt, dir) : NULL;
	struct exp_layers_ahead *a = calloc(1, sizeof *a);
	if (!tj || !a) {
		free(tj);
		free(a);
		free(rd);
		if (read_d)
			read_d->shared_read->cancel(e);
		e->lock = NULL;
		return -ENOMEM;
	}
	if (read_d && !rd) {
		read_d->shared_read->cancel(e); /* each reads it itself */
		read_d = NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	a->d = ahead_d;
	tj->j.e.ahead = ahead_d ? a : NULL;
	tj->read = read_d;
	pthread_t th, th_rd;
	int r = -pthread_create(&th, NULL, timeline_thread, tj);
	if (rd) {
		rd->d = read_d;
		if (r < 0 || pthread_create(&th_rd, NULL, reader_thread, rd) != 0) {
			read_d->shared_read->cancel(e); /* each reads it itself */
			free(rd);
			rd = NULL;
		}
	}
	if (r < 0) {
		/* one after the other, as without threads */
		e->lock = NULL;
		exp_progress(e, "timeline", 0, 0);
		r = exp_write_timeline(e, dir);
		if (r == 0)
			r = write_summaries(e, dir);
	} else {
		if (ahead_d)
			exp_write_layers_ahead(e, dir, a);
		r = write_summaries(e, dir);
		if (read_d) /* taken, or never to be (an earlier summary failed) */
			read_d->shared_read->done(e, false);
		pthread_join(th, NULL);
		if (rd)
			pthread_join(th_rd, NULL);
		e->lock = NULL;
		if (tj->j.r < 0)
			r = tj->j.r;
		else if (r == 0 && ahead_d && a->r < 0)
			r = a->r;
	}
	/* what the timeline's thread did not take, or left on an error */
	exp_tl_abort(&a->spool);
	if (a->with_own && !a->taken)
		exp_tl_abort(&a->own);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(rd);
	free(a);
	free(tj);
	return r;
}

/* The aggregates of the database, rendered as report.html into dir (when
 * given) and as the text summary (when asked for). */
static int write_aggregates(struct exp *e, const char *dir, bool text)
{
	struct exp_agg *a = malloc(sizeof *a);
	if (!a)
		return -ENOMEM;
	int r = exp_aggregate(e, a);
	if (r == 0 && dir)
		r = exp_write_report(e, dir, a);
	if (r == 0 && text)
		exp_summary_text(e, a, e->rep->summary, sizeof e->rep->summary);
	exp_agg_release(a);
	free(a);
	return r;
}

static int write_outputs(struct exp *e, const struct export_options *opt)
{
	unsigned what = opt && opt->what ? opt->what : EXPORT_ALL;
	bool text = what & EXPORT_TEXT_SUMMARY;
	if (!(what & ~EXPORT_TEXT_SUMMARY) || (opt && opt->type == EXPORT_DB)) {
		/* the text summary alone, or of a database export: no file */
		int r = open_output_db(e, opt);
		if (r == 0)
			r = write_aggregates(e, NULL, text);
		exp_close_db(e);
		return r;
	}
	char dir[PATH_MAX];
	if ((size_t)snprintf(dir, sizeof dir, "%s/%s", e->prof_dir, EXPORT_OUTPUT_DIR) >= sizeof dir)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		int r = -errno;
		exp_fail(e, "cannot create '%s': %s", dir, strerror(errno));
		return r;
	}
	snprintf(e->rep->output_dir, sizeof e->rep->output_dir, "%s", dir);

	int r = open_output_db(e, opt);
	if (r == 0 && (what & EXPORT_TIMELINE) && (what & EXPORT_SUMMARY)) {
		r = write_both(e, opt, dir);
	} else if (r == 0 && (what & EXPORT_TIMELINE)) {
		exp_progress(e, "timeline", 0, 0);
		r = exp_write_timeline(e, dir);
	} else if (r == 0 && (what & EXPORT_SUMMARY)) {
		r = write_summaries(e, dir);
	}
	/* last: its losses list the notes of everything before it */
	if (r == 0)
		r = write_aggregates(e, dir, text);
	/* what the reads of write_both made, kept for the aggregates */
	for (size_t i = 0; i < exp_domains_n; i++)
		if (exp_domains[i]->shared_read)
			exp_domains[i]->shared_read->end(e);
	exp_close_db(e);
	e->rep->files_written = e->n_written;
	/* the report alone leaves the README of the export that wrote the rest */
	if (r == 0 && (what & EXPORT_ALL))
		r = write_readme(e, dir);
	return r;
}

/* --- entry ------------------------------------------------------------------------ */

/* Raw data -> PROF/msprof_{ts}.db, built under a temporary name. */
static int parse_db(struct exp *e)
{
	char tmp[PATH_MAX], final[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.msprof_%s.db.XXXXXX", e->prof_dir, e->ts) >= sizeof tmp ||
	    (size_t)snprintf(final, sizeof final, "%s/msprof_%s.db", e->prof_dir, e->ts) >= sizeof final)
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;
		exp_fail(e, "cannot create a database in '%s': %s", e->prof_dir, strerror(errno));
		return r;
	}
	(void)fchmod(fd, 0640);
	close(fd);
	int r = build_db(e, tmp);
	if (r == 0 && rename(tmp, final) < 0) {
		r = -errno;
		exp_fail(e, "cannot rename '%s' to '%s': %s", tmp, final, strerror(errno));
	}
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	snprintf(e->rep->db_path, sizeof e->rep->db_path, "%s", final);
	exp_remove_stale(e->prof_dir, "msprof", ".db", e->ts, 1);
	return 0;
}

static void local_ts(char buf[EXPORT_TS_LEN + 1])
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(buf, EXPORT_TS_LEN + 1, "%Y%m%d%H%M%S", &tm);
}

static void add_size(const char *path, uint64_t *bytes, struct timespec *newest)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return;
	*bytes += (uint64_t)st.st_size;
	if (st.st_mtim.tv_sec > newest->tv_sec ||
	    (st.st_mtim.tv_sec == newest->tv_sec && st.st_mtim.tv_nsec > newest->tv_nsec))
		*newest = st.st_mtim;
}

/* What --storage-limit took: the counters every writer of host/data kept
 * in its quota file (collectors/raw.h), read on every export since the
 * database does not hold them. */
static void note_storage_limit(struct exp *e, const char *data_dir)
{
	struct raw_quota_stats q;
	int r = raw_quota_read(data_dir, &q);
	if (r == -ENOENT)
		return;
	if (r < 0) {
		exp_note(e, "--storage-limit: cannot read '%s/%s': %s: what the limit deleted or refused is "
			     "not known", data_dir, RAW_QUOTA_FILE, strerror(-r));
		return;
	}
	const double mib = 1024.0 * 1024.0;
	if (q.aged_files)
		exp_note(e, "--storage-limit: the raw data reached its limit of %.1f MiB: the %" PRIu64
			     " oldest raw slice(s) (%.1f MiB) were deleted and are not in this export",
			     (double)q.limit_bytes / mib, q.aged_files, (double)q.aged_bytes / mib);
	if (q.refused_records)
		exp_note(e, "--storage-limit: %" PRIu64 " write(s) (%.1f MiB) were refused at the limit of "
			     "%.1f MiB, no older raw data being left to delete", q.refused_records,
			     (double)q.refused_bytes / mib, (double)q.limit_bytes / mib);
}

/* The raw slices of prof_dir: how many, their bytes, and the newest
 * modification among them and the host/ descriptions. */
static int count_slices(const char *prof_dir, unsigned *ret, uint64_t *ret_bytes, struct timespec *ret_newest)
{
	uint64_t bytes = 0;
	struct timespec newest = { 0 };
	static const char *const described[] = { "info.json", "sample.json", "start_info", "end_info" };
	for (size_t i = 0; i < ARRAY_SIZE(described); i++) {
		char p[PATH_MAX];
		uint64_t ignored = 0;
		snprintf(p, sizeof p, "%s/host/%s", prof_dir, described[i]);
		add_size(p, &ignored, &newest);
	}
	char dir[PATH_MAX];
	if ((size_t)snprintf(dir, sizeof dir, "%s/host/data", prof_dir) >= sizeof dir)
		return -ENAMETOOLONG;
	unsigned n = 0;
	for (int s = RAW_SOURCE_HOST_CPU; s <= RAW_SOURCE_USAGE_MEM; s++) {
		char **paths = NULL;
		int r = raw_list_slices(dir, (enum raw_source)s, &paths);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		for (char **p = paths; p && *p; p++) {
			add_size(*p, &bytes, &newest);
			n++;
		}
		raw_paths_free(paths);
	}
	/* the agents' files (agent_<pid>.data.slice_<n>) */
	uint32_t *pids = NULL;
	size_t np = 0;
	int r = raw_list_agent_pids(dir, &pids, &np);
	if (r < 0 && r != -ENOENT)
		return r;
	for (size_t i = 0; i < np; i++) {
		char stem[RAW_STEM_MAX], **paths = NULL;
		raw_agent_stem((pid_t)pids[i], stem);
		if (raw_list_stem_slices(dir, stem, &paths) < 0)
			continue;
		for (char **p = paths; p && *p; p++)
			add_size(*p, &bytes, &newest);
		raw_paths_free(paths);
	}
	free(pids);
	/* the devices' files (device_<N>/data): msprofd's device thread may
	 * finish them after an export that did not wait for it; the dirs that
	 * are there, from one listing (export cluster looks at every rank) */
	DIR *pd = opendir(prof_dir);
	struct dirent *de;
	while (pd && (de = readdir(pd))) {
		uint64_t id;
		char **paths = NULL;
		if (!startswith(de->d_name, "device_") || parse_u64(de->d_name + 7, 0, DEV_MAX_DEVICES - 1, &id) < 0 ||
		    (size_t)snprintf(dir, sizeof dir, "%s/%s/data", prof_dir, de->d_name) >= sizeof dir ||
		    raw_list_slices(dir, RAW_SOURCE_DEVICE, &paths) < 0)
			continue;
		for (char **p = paths; p && *p; p++)
			add_size(*p, &bytes, &newest);
		raw_paths_free(paths);
	}
	if (pd)
		closedir(pd);
	*ret = n + (unsigned)np;
	*ret_bytes = bytes;
	*ret_newest = newest;
	return 0;
}

/* Whether the database at path has this build's layout (schema_stamp). */
static bool db_layout_current(const char *path)
{
	sqlite3 *db = NULL;
	bool ok = false;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK) {
		int64_t v = 0;
		ok = db_each(db, "PRAGMA user_version", NULL, db_row_i64, &v) > 0 && v == schema_stamp();
	}
	sqlite3_close(db);
	return ok;
}

/* Whether the database at path can stand for the raw data: this build
 * wrote it (its layout) and nothing it was parsed from changed since. */
static bool db_current(const char *path, const struct timespec *raw_newest)
{
	struct stat st;
	if (stat(path, &st) < 0 || st.st_mtim.tv_sec < raw_newest->tv_sec ||
	    (st.st_mtim.tv_sec == raw_newest->tv_sec && st.st_mtim.tv_nsec < raw_newest->tv_nsec))
		return false;
	return db_layout_current(path);
}

/* msprof's --clear: the intermediate databases in sqlite/ of host/ and
 * device_*\/ (CANN keeps thread.db and platform.db) and data/'s .complete
 * tags.  This implementation parses straight into msprof_{ts}.db and has
 * no intermediates of its own; raw data is never touched. */
static void clear_dir_files(const char *dir, const char *suffix, bool keep_cann)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n), ls = suffix ? strlen(suffix) : 0;
		if (streq(n, ".") || streq(n, ".."))
			continue;
		if (keep_cann && (streq(n, "thread.db") || streq(n, "platform.db")))
			continue;
		if (suffix && (len < ls || strcmp(n + len - ls, suffix) != 0))
			continue;
		(void)unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

static void clear_intermediates(struct exp *e)
{
	DIR *d = opendir(e->prof_dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!streq(de->d_name, "host") && !startswith(de->d_name, "device_"))
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s/sqlite", e->prof_dir, de->d_name);
		clear_dir_files(p, NULL, true);
		snprintf(p, sizeof p, "%s/%s/data", e->prof_dir, de->d_name);
		clear_dir_files(p, ".complete", false);
	}
	closedir(d);
}

static int run(struct exp *e, const struct export_options *opt)
{
	struct stat stb;
	struct timespec newest = { 0 };
	char path[PATH_MAX], have_db[PATH_MAX];
	unsigned slices = 0;
	int r;

	const char *limit = getenv("MSPROF_EXPORT_CSV_LIMIT");
	if (limit && *limit) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(limit, &end, 10);
		if (!isdigit((unsigned char)*limit) || *end || errno || v == 0 || v > EXPORT_CSV_LIMIT) {
			exp_fail(e, "MSPROF_EXPORT_CSV_LIMIT '%s' is not a number of rows from 1 to %d", limit,
				 EXPORT_CSV_LIMIT);
			return -EINVAL;
		}
		e->csv_limit = v;
	}
	if ((size_t)snprintf(path, sizeof path, "%s/host", e->prof_dir) >= sizeof path)
		return -ENAMETOOLONG;
	if (stat(path, &stb) < 0 || !S_ISDIR(stb.st_mode)) {
		exp_fail(e, "no host data in '%s': '%s' is missing", e->prof_dir, path);
		return -ENOENT;
	}
	if ((r = count_slices(e->prof_dir, &slices, &e->raw_bytes, &newest)) < 0) {
		exp_fail(e, "cannot list '%s/data': %s", path, strerror(-r));
		return r;
	}
	/* a database with no raw data next to it is all there is: it is
	 * exported as it is, whatever build wrote it */
	bool have = !(opt && opt->parse_only) && exp_newest_db(e->prof_dir, have_db, sizeof have_db);
	bool reuse = have && (!slices || db_current(have_db, &newest));
	if (!slices && !reuse) {
		exp_fail(e, "no raw data in '%s/data'", path);
		return -ENOENT;
	}
	/* a current database asked for as it is (export cluster's look at
	 * each rank) needs nothing of host/'s descriptions */
	bool db_as_is = reuse && opt && opt->type == EXPORT_DB && !(opt->what & EXPORT_TEXT_SUMMARY) && !opt->clear;
	if (!db_as_is)
		exp_read_host(e);
	snprintf(path, sizeof path, "%s/host/data", e->prof_dir);
	note_storage_limit(e, path);
	if (opt && opt->select && e->system_only && opt->type == EXPORT_TEXT && !opt->parse_only) {
		/* msprof: --model-id/--iteration-id are not supported for system
		 * data (collected without --application); the data is left as is */
		exp_fail(e, "The step export is not supported: '%s' holds system data only (collected without an "
			    "application), and --model-id/--iteration-id select an application's steps; "
			    "export it without them", e->prof_dir);
		return -ENOTSUP;
	}
	if (!e->cpu_nums) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		e->cpu_nums = n > 0 ? (unsigned)n : 1;
	}
	local_ts(e->ts);
	if (opt) {
		e->summary_json = opt->summary_json;
		e->on_progress = opt->on_progress;
		e->progress_ctx = opt->progress_ctx;
		if (opt->tl_slice_bytes)
			e->tl_slice_bytes = opt->tl_slice_bytes;
		if (opt->reports)
			e->tracks = opt->tracks;
	}

	if (reuse) {
		if (!slices && !db_layout_current(have_db))
			exp_note(e, "database '%s' was written by another msprof version and there is no raw data "
				    "to rebuild it from: it is exported as it is", have_db);
		snprintf(e->rep->db_path, sizeof e->rep->db_path, "%s", have_db);
		e->rep->reused = true;
		/* newest_db found "msprof_{ts}.db": its ts is kept */
		exp_remove_stale(e->prof_dir, "msprof", ".db", strrchr(have_db, '/') + 1 + strlen("msprof_"), 1);
	} else if ((r = parse_db(e)) < 0) {
		return r;
	}
	if (opt && opt->clear)
		clear_intermediates(e);
	if (opt && opt->parse_only)
		return 0;
	if (opt && opt->type == EXPORT_DB && !(opt->what & EXPORT_TEXT_SUMMARY))
		return 0;
	return write_outputs(e, opt);
}

/* A temp file of ours: ".{name}.XXXXXX" (mkostemp's six letters and
 * digits; exp_out_open and write_db), {name} ending as a database,
 * deliverable or spool does. */
static bool is_leftover(const char *name)
{
	static const char *const ends[] = { ".db", ".csv", ".json", ".txt", ".layer", ".html" };
	size_t n = strlen(name);
	if (name[0] != '.' || n < 1 + 3 + 7 || name[n - 7] != '.')
		return false;
	for (size_t i = n - 6; i < n; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	size_t stem = n - 7;
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t k = strlen(ends[i]);
		if (stem > k && memcmp(name + stem - k, ends[i], k) == 0)
			return true;
	}
	return false;
}

static void remove_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat stb;
		if (is_leftover(de->d_name) && fstatat(dirfd(d), de->d_name, &stb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(stb.st_mode))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* Exports of one PROF dir take turns: each holds an exclusive flock on the
 * directory, waiting (progress says so) while another has it.  So a temp
 * file of ours found by the holder is what an export killed midway left,
 * and it is removed.  Returns the lock's fd, or -1 where there is no lock
 * (no such directory, a file system without locks): the export goes on. */
static int lock_prof_dir(const char *prof_dir, const struct export_options *opt)
{
	int fd = open(prof_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			close(fd);
			return -1;
		}
		if (opt && opt->on_progress)
			opt->on_progress(opt->progress_ctx, "waiting for another msprof exporting it", 0, 0);
		struct timespec ts = { 0, 50000000L };
		nanosleep(&ts, NULL);
	}
	char out[PATH_MAX];
	remove_leftovers(prof_dir);
	if ((size_t)snprintf(out, sizeof out, "%s/%s", prof_dir, EXPORT_OUTPUT_DIR) < sizeof out)
		remove_leftovers(out);
	return fd;
}

int export_prof_dir(const char *prof_dir, const struct export_options *opt, struct export_report *ret)
{
	struct export_report rep = { 0 };
	struct exp e = { .prof_dir = prof_dir, .rep = &rep, .tracks = UINT64_MAX, .tl_slice_bytes = EXPORT_TL_SLICE_BYTES,
			 .rank_id = -1 };
	int lock = lock_prof_dir(prof_dir, opt);
	int r = run(&e, opt);
	if (e.db)
		exp_close_db(&e);
	if (lock >= 0)
		close(lock);
	exp_release_host(&e);
	exp_report_settle(&rep, r);
	*ret = rep;
	return r;
}
