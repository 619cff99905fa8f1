/* The host samples' layers of the timeline (exp_write_counter_layer),
 * each described by its domain (domain-cpu.c, domain-mem.c, ...), as
 * msprof's HostUsageAssembler writes them: counter events ("ph":"C", keys
 * name, pid, tid, ts, ph, args) followed by the process_name /
 * process_labels / process_sort_index metadata events.  CPU Usage has one
 * counter per CPU, named "CPU <n>", and "CPU Avg"; the others one counter
 * named after the layer.  A layer without data is left out, metadata
 * included.  Rows are streamed from SQLite. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/domain-host-counters.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "common/util.h"

struct tl {
	struct exp *e;
	struct exp_tl *out;
};

static void tl_counter(struct tl *t, const char *name, const char *name_suffix, unsigned pid, int64_t ts_ns,
		       double value)
{
	char ts[32], v[64];
	exp_format_ts(ts_ns, ts);
	exp_format_num(value, 6, v, sizeof v); /* "50.0", "12.345678" */
	fprintf(exp_tl_event(t->out),
		"{\"name\":\"%s%s\",\"pid\":%u,\"tid\":0,\"ts\":\"%s\",\"ph\":\"C\",\"args\":{\"Usage(%%)\":%s}}",
		name, name_suffix, pid, ts, v);
}

static void tl_metadata(struct tl *t, const struct export_track_info *k, unsigned pid)
{
	exp_tl_process(t->out, pid, k->process_name, k->label, k->sort_index);
}

/* Stream "SELECT ts, [id,] value" rows as counters.  With an id column the
 * counter is named prefix + id ("CPU 3"), else prefix alone. */
struct tl_rows {
	struct tl *t;
	bool with_id;
	const char *prefix;
	unsigned pid;
};

static int tl_row(sqlite3_stmt *st, void *ctx)
{
	const struct tl_rows *q = ctx;
	char id[32] = "";
	if (q->with_id)
		snprintf(id, sizeof id, "%" PRId64, (int64_t)sqlite3_column_int64(st, 1));
	tl_counter(q->t, q->prefix, id, q->pid, sqlite3_column_int64(st, 0),
		   sqlite3_column_double(st, q->with_id ? 2 : 1));
	return 0;
}

static int tl_rows(struct tl *t, const char *sql, bool with_id, const char *prefix, unsigned pid,
		   uint64_t *ret_n)
{
	struct tl_rows q = { t, with_id, prefix, pid };
	int r = exp_each(t->e, sql, NULL, tl_row, &q);
	if (r < 0)
		return r;
	*ret_n += (uint64_t)r;
	return 0;
}

void exp_tl_counter2(struct exp_tl *out, unsigned pid, int64_t ts_ns, const char *name, const char *arg1,
		     double v1, const char *arg2, double v2)
{
	char ts[32], a[64], b[64];
	exp_format_ts(ts_ns, ts);
	exp_format_num(v1, 6, a, sizeof a);
	FILE *f = exp_tl_event(out);
	fputs("{\"name\":\"", f);
	exp_json_str(f, name, strlen(name));
	fprintf(f, "\",\"pid\":%u,\"tid\":0,\"ts\":\"%s\",\"ph\":\"C\",\"args\":{\"%s\":%s", pid, ts, arg1, a);
	if (arg2) {
		exp_format_num(v2, 6, b, sizeof b);
		fprintf(f, ",\"%s\":%s", arg2, b);
	}
	fputs("}}", f);
}

struct tl_more {
	struct tl *t;
	const struct exp_counter_track *k;
	unsigned pid;
};

/* ?1 of a track's statement, where it has one: the page size in bytes */
static int bind_page_size(sqlite3_stmt *st, void *ctx)
{
	const struct tl_more *q = ctx;
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, q->t->e->page_size ? q->t->e->page_size : 4096);
	return 0;
}

static int tl_more_row(sqlite3_stmt *st, void *ctx)
{
	const struct tl_more *q = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 1);
	exp_tl_counter2(q->t->out, q->pid, sqlite3_column_int64(st, 0), name ? name : "", q->k->arg1,
			sqlite3_column_double(st, 2) * q->k->scale, q->k->arg2,
			q->k->arg2 ? sqlite3_column_double(st, 3) * q->k->scale : 0);
	return 0;
}

bool exp_counter_layer_has(struct exp *e, const struct exp_counter_layer *l)
{
	if (!exp_track_on(e, l->track))
		return false;
	if (exp_table_has_rows(e, l->table) || (l->table2 && exp_table_has_rows(e, l->table2)))
		return true;
	for (size_t i = 0; i < l->n_more; i++)
		if (exp_table_has_rows(e, l->more[i].table))
			return true;
	return false;
}

int exp_write_counter_layer(struct exp *e, struct exp_tl *out, const struct exp_counter_layer *l)
{
	const struct export_track_info *k = &export_tracks[l->track];
	unsigned pid = export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID);
	struct tl t = { .e = e, .out = out };
	uint64_t n = 0;
	int r = 0;
	if (!exp_track_on(e, l->track))
		return 0;
	if (exp_table_has_rows(e, l->table))
		r = tl_rows(&t, l->sql, l->with_id, l->prefix, pid, &n);
	if (r == 0 && l->sql2 && exp_table_has_rows(e, l->table2))
		r = tl_rows(&t, l->sql2, false, l->prefix2, pid, &n);
	for (size_t i = 0; r == 0 && i < l->n_more; i++) {
		if (!exp_table_has_rows(e, l->more[i].table))
			continue;
		struct tl_more q = { &t, &l->more[i], pid };
		r = exp_each(e, l->more[i].sql, bind_page_size, tl_more_row, &q);
		if (r > 0)
			n += (uint64_t)r;
		r = r < 0 ? r : 0;
	}
	if (r == 0 && n)
		tl_metadata(&t, k, pid);
	return r;
}
