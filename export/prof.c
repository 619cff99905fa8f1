/* A PROF dir opened for an export (prof.h): what its host/ files say, its
 * database opened and closed. */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "collectors/profdir.h"
#include "export/buf.h"
#include "common/cjson-cleanup.h"
#include "export/exp.h"
#include "export/prof.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "common/util.h"

/* --- small JSON files in host/ ----------------------------------------------- */

/* A number written as a JSON number or as a decimal string (msprof writes
 * both kinds in info.json and start_info). */
static bool json_u64(const cJSON *o, const char *key, uint64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		return double_to_u64(v->valuedouble, ret);
	if (cJSON_IsString(v) && v->valuestring)
		return parse_u64(v->valuestring, 0, UINT64_MAX, ret) == 0;
	return false;
}

static bool json_i64(const cJSON *o, const char *key, int64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		return double_to_i64(v->valuedouble, ret);
	if (cJSON_IsString(v) && v->valuestring) {
		char *end;
		errno = 0;
		long long x = strtoll(v->valuestring, &end, 10);
		if (errno || end == v->valuestring || *end)
			return false;
		*ret = x;
		return true;
	}
	return false;
}

static void json_str(const cJSON *o, const char *key, char *buf, size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(v) && v->valuestring)
		snprintf(buf, size, "%s", v->valuestring);
}

static int read_host_json(struct exp *e, const char *name, cJSON **ret)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/host/%s", e->prof_dir, name) >= sizeof path)
		return -ENAMETOOLONG;
	return profdir_read_json(path, ret);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void read_processes(struct exp *e, const cJSON *arr)
{
	int n = cJSON_GetArraySize(arr);
	if (!cJSON_IsArray(arr) || n > (1 << 20))
		return;
	/* an empty list is a dir of no process (a host-level dir whose
	 * processes all went to their ranks), not every process */
	e->procs = calloc(n > 0 ? (size_t)n : 1, sizeof(*e->procs));
	if (!e->procs)
		return; /* every process counts, as without the key */
	const cJSON *v;
	cJSON_ArrayForEach(v, arr)
		if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= UINT32_MAX)
			e->procs[e->n_procs++] = (uint32_t)v->valuedouble;
	qsort_safe(e->procs, e->n_procs, sizeof(*e->procs), cmp_u32);
}

bool exp_own_process(const struct exp *e, uint32_t pid)
{
	return !e->procs || bsearch_safe(&pid, e->procs, e->n_procs, sizeof(pid), cmp_u32);
}

/* info.json's "agentsRefused" (the launcher writes it when msprofd turned
 * processes of the job away at its agent limit): their annotations are
 * missing, and the report names them, the first EXPORT_REFUSED_NAMED. */
#define EXPORT_REFUSED_NAMED 16
static void note_refused(struct exp *e, const cJSON *ref)
{
	uint64_t count = 0, named = 0;
	char names[1024] = "";
	size_t used = 0;
	const cJSON *p;

	if (!json_u64(ref, "count", &count) || !count)
		return;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(ref, "processes")) {
		uint64_t pid;
		char name[64] = "?";
		if (named == EXPORT_REFUSED_NAMED || !json_u64(p, "pid", &pid))
			break;
		json_str(p, "name", name, sizeof name);
		int n = snprintf(names + used, sizeof names - used, "%s%" PRIu64 " (%s)", named ? ", " : "", pid, name);
		if (n < 0 || (size_t)n >= sizeof names - used)
			break;
		used += (size_t)n;
		named++;
	}
	char more[96] = "";
	if (count > named)
		snprintf(more, sizeof more, "%s%" PRIu64 " more (host/info.json or msprofd's log names them)",
			 named ? ", and " : "", count - named);
	exp_note(e, "agent: %" PRIu64 " process(es) turned away by msprofd at its agent limit, their annotations "
		     "missing: %s%s (MSPROFD_MAX_AGENTS raises the limit)", count, names, more);
}

/* info.json's "flight_recorder" (launcher/flight.c): what triggered the
 * dump, and what the ring had overwritten by then, by record type. */
static void read_flight(struct exp *e, const cJSON *fr)
{
	struct exp_flight *f = &e->flight;
	if (!cJSON_IsObject(fr))
		return;
	f->on = true;
	json_str(fr, "trigger", f->trigger, sizeof f->trigger);
	json_str(fr, "detail", f->detail, sizeof f->detail);
	(void)json_u64(fr, "span_s", &f->span_s);
	(void)json_u64(fr, "ring_mb", &f->ring_mb);
	(void)json_u64(fr, "overwritten_slices", &f->overwritten_slices);
	(void)json_u64(fr, "refused_writes", &f->refused_writes);
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(fr, "overwritten")) {
		uint64_t type;
		if (f->n_overwritten == sizeof f->overwritten / sizeof f->overwritten[0])
			break;
		uint64_t records;
		if (!cJSON_IsNumber(c) || !double_to_u64(c->valuedouble, &records) ||
		    parse_u64(c->string, 0, UINT16_MAX, &type) < 0)
			continue;
		f->overwritten[f->n_overwritten].type = (uint32_t)type;
		f->overwritten[f->n_overwritten++].records = records;
	}
}

/* info.json's rank_id (a number: a rank from 0, or -1 for none, as
 * profdir.c and msprof write it) and pid (a process id, as a string of
 * digits or a number): what is wrong with them into e->info_damaged.
 * They name the rank in a cluster, so a value of the wrong type or out
 * of range is damage, never a guess. */
static void read_identity(struct exp *e, const cJSON *j)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "rank_id");
	char shown[48];
	if (v && !cJSON_IsNumber(v)) {
		snprintf(shown, sizeof shown, "%s", cJSON_IsString(v) ? "a string" : cJSON_IsBool(v) ? "a boolean"
						    : cJSON_IsNull(v) ? "null" : "not a number");
		snprintf(e->info_damaged, sizeof e->info_damaged,
			 "'rank_id' is %s, not a number (a rank from 0, or -1 for none)", shown);
	} else if (v) {
		double d = v->valuedouble;
		int64_t rank;
		if (double_to_i64(d, &rank) && (double)rank == d && rank >= -1 && rank <= INT32_MAX)
			e->rank_id = rank;
		else
			snprintf(e->info_damaged, sizeof e->info_damaged,
				 d == floor(d) ? "'rank_id' is %.0f, not a rank (a whole number from 0 to %d, or -1 for none)"
					       : "'rank_id' is %.17g, not a rank (a whole number from 0 to %d, or -1 for none)",
				 d, INT32_MAX);
	}
	v = cJSON_GetObjectItemCaseSensitive(j, "pid");
	uint64_t pid = 0;
	bool pid_ok = !v;
	if (cJSON_IsString(v) && v->valuestring)
		pid_ok = parse_u64(v->valuestring, 0, INT32_MAX, &pid) == 0;
	else if (cJSON_IsNumber(v))
		pid_ok = double_to_u64(v->valuedouble, &pid) && (double)pid == v->valuedouble && pid <= INT32_MAX;
	if (!pid_ok && !e->info_damaged[0]) {
		if (cJSON_IsString(v) && v->valuestring)
			snprintf(shown, sizeof shown, "\"%.32s\"", v->valuestring);
		else if (cJSON_IsNumber(v))
			snprintf(shown, sizeof shown, "%.17g", v->valuedouble);
		else
			snprintf(shown, sizeof shown, "not a number");
		snprintf(e->info_damaged, sizeof e->info_damaged,
			 "'pid' is %s, not a process id (a whole number from 0 to %d)", shown, INT32_MAX);
	}
	if (pid_ok)
		e->app_pid = (uint32_t)pid;
	if (e->info_damaged[0])
		e->rank_id = -1;
}

static void read_info(struct exp *e)
{
	_cleanup_json_ cJSON *j = NULL;
	int r = read_host_json(e, "info.json", &j);
	if (r < 0) {
		exp_note(e, "cannot read '%s/host/info.json': %s", e->prof_dir, strerror(-r));
		return;
	}
	e->have_info = true;
	uint64_t v;
	read_identity(e, j);
	if (e->info_damaged[0])
		exp_note(e, "'%s/host/info.json' is damaged: %s; its data is exported without a rank", e->prof_dir,
			 e->info_damaged);
	if (json_u64(j, "cpuNums", &v) && v <= 1U << 20)
		e->cpu_nums = (unsigned)v;
	if (json_u64(j, "memoryTotal", &v))
		e->mem_total_kb = v;
	if (!e->mem_total_kb)
		exp_note(e, "'%s/host/info.json' has no memoryTotal: memory usage in percent cannot be computed",
			 e->prof_dir);
	json_str(j, "hostname", e->hostname, sizeof e->hostname);
	json_str(j, "hostUid", e->host_uid, sizeof e->host_uid);
	read_processes(e, cJSON_GetObjectItemCaseSensitive(j, "processes"));
	note_refused(e, cJSON_GetObjectItemCaseSensitive(j, "agentsRefused"));
	read_flight(e, cJSON_GetObjectItemCaseSensitive(j, "flight_recorder"));
	const cJSON *cards = cJSON_GetObjectItemCaseSensitive(j, "netCard"), *c;
	cJSON_ArrayForEach(c, cards) {
		if (e->n_netcards >= EXPORT_MAX_NETCARDS)
			break;
		struct exp_netcard *n = &e->netcards[e->n_netcards];
		n->name[0] = '\0';
		json_str(c, "netCardName", n->name, sizeof n->name);
		if (!n->name[0])
			continue;
		if (!json_i64(c, "speed", &n->speed_mbps))
			n->speed_mbps = -1;
		e->n_netcards++;
	}
}

static void read_sample(struct exp *e)
{
	_cleanup_json_ cJSON *j = NULL;
	if (read_host_json(e, "sample.json", &j) < 0)
		return; /* without it: export whatever data exists */
	e->have_sample = true;
	/* msprof's system mode: no application, so no steps of one (an older
	 * sample.json without the key says nothing) */
	const cJSON *app = cJSON_GetObjectItemCaseSensitive(j, "app");
	e->system_only = cJSON_IsString(app) && app->valuestring && !app->valuestring[0];
	/* the settings by their rows (ipc/settings.c); the list flags are
	 * common/host-sys.h's */
	struct settings set;
	settings_from_sample(j, &set);
	e->sample = set;
	/* the texts point into j: copies (exp_release_host frees them); one
	 * that cannot be copied is as if not given */
	for (size_t i = 0; i < _SET_MAX; i++) {
		e->sample.s[i] = set.s[i] ? strdup(set.s[i]) : NULL;
		if (set.s[i] && !e->sample.s[i]) {
			e->sample.given &= ~SETTING_BIT(i);
			exp_note(e, "'%s/host/sample.json': '%s' left out: out of memory", e->prof_dir,
				 setting_table[i].sample_key);
		}
	}
}

static void read_times(struct exp *e)
{
	_cleanup_json_ cJSON *b = NULL, *n = NULL;
	uint64_t us;
	if (read_host_json(e, "start_info", &b) == 0 && json_u64(b, "collectionTimeBegin", &us)) {
		e->start_ns = us * NSEC_PER_USEC;
		if (!json_u64(b, "clockMonotonicRaw", &e->start_mono_ns))
			e->start_mono_ns = 0;
	}
	if (read_host_json(e, "end_info", &n) == 0 && json_u64(n, "collectionTimeEnd", &us))
		e->end_ns = us * NSEC_PER_USEC;
}

void exp_read_host(struct exp *e)
{
	read_info(e);
	read_sample(e);
	read_times(e);
}

/* --- database ---------------------------------------------------------------- */

static int table_name_row(sqlite3_stmt *st, void *ctx)
{
	const char *name = (const char *)sqlite3_column_text(st, 0);
	exp_buf_puts(ctx, name ? name : "");
	exp_buf_putc(ctx, '\n');
	return 0;
}

int exp_open_db(struct exp *e)
{
	e->main_tables = NULL;   /* a copy's (export_job) are its parent's */
	int rc = sqlite3_open_v2(e->rep->db_path, &e->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return exp_sql_fail(e, rc, "open");
	/* unreadable (a damaged file): not known, and the first real
	 * statement says why */
	struct exp_buf b = { 0 };
	exp_buf_putc(&b, '\n');
	if (db_each(e->db, "SELECT name FROM main.sqlite_master WHERE type = 'table'", NULL, table_name_row, &b) >= 0) {
		exp_buf_putc(&b, '\0');
		if (!b.err)
			e->main_tables = TAKE_PTR(b.p);
	}
	exp_buf_release(&b);
	return 0;
}

int exp_close_db(struct exp *e)
{
	e->strings = exp_intern_free(e->strings);
	free(TAKE_PTR(e->main_tables));
	int rc = sqlite3_close(e->db);
	e->db = NULL;
	return rc == SQLITE_OK ? 0 : -EIO;
}

int exp_open_prof(struct exp *e, const char *prof_dir, const char *db_path, struct export_report *rep)
{
	*e = (struct exp){ .prof_dir = prof_dir, .rep = rep, .tracks = UINT64_MAX, .rank_id = -1 };
	exp_read_host(e);
	if ((size_t)snprintf(rep->db_path, sizeof rep->db_path, "%s", db_path) >= sizeof rep->db_path)
		return -ENAMETOOLONG;
	return exp_open_db(e);
}

void exp_release_host(struct exp *e)
{
	free(e->procs);
	e->procs = NULL;
	for (size_t i = 0; i < _SET_MAX; i++) {
		free((char *)e->sample.s[i]);
		e->sample.s[i] = NULL;
	}
}

void exp_close_prof(struct exp *e)
{
	if (e->db)
		exp_close_db(e);
	exp_release_host(e);
}
