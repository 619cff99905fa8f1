/* Timeline: database -> mindstudio_profiler_output/msprof_{ts}.json.
 *
 * A bare JSON array (reference §4, §9), streamed row by row from SQLite:
 * nothing is held in memory but the current row.  Each host layer is a
 * process in the viewer, as msprof's HostUsageAssembler writes it: counter
 * events ("ph":"C", keys name, pid, tid, ts, ph, args) followed by the
 * process_name / process_labels / process_sort_index metadata events
 * (keys name, pid, tid, ph, args).  CPU Usage has one counter per CPU,
 * named "CPU <n>", and "CPU Avg"; the others one counter named after the
 * layer.  A layer without data is left out, metadata included.  The OS
 * Runtime API layers (osrt.c) and the mstx layers of the annotated
 * processes (mstx.c) follow.  Metadata events come after all others, in
 * every piece when the timeline is split (output.c); --reports leaves out
 * the tracks it does not name (e->tracks). */
#include "export/internal.h"
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
static int tl_rows(struct tl *t, const char *sql, bool with_id, const char *prefix, unsigned pid,
		   uint64_t *ret_n)
{
	sqlite3_stmt *st;
	int r = exp_prepare(t->e, sql, &st);
	if (r < 0)
		return r;
	uint64_t n = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char id[32] = "";
		if (with_id)
			snprintf(id, sizeof id, "%" PRId64, (int64_t)sqlite3_column_int64(st, 1));
		tl_counter(t, prefix, id, pid, sqlite3_column_int64(st, 0),
			   sqlite3_column_double(st, with_id ? 2 : 1));
		n++;
	}
	if (rc != SQLITE_DONE)
		r = exp_sql_fail(t->e, rc, sql);
	sqlite3_finalize(st);
	*ret_n += n;
	return r;
}

struct layer {
	enum export_track track;
	const char *table;     /* present when this table has rows */
	const char *sql;
	bool with_id;
	const char *prefix;
	const char *sql2;      /* CPU Avg */
	const char *prefix2;
	const char *table2;
};

static const struct layer layers[] = {
	{ TRACK_CPU_USAGE, "CPU_USAGE", "SELECT timestampNs, cpuId, usage FROM CPU_USAGE", true, "CPU ",
	  "SELECT timestampNs, usage FROM CPU_USAGE_AVG", "CPU Avg", "CPU_USAGE_AVG" },
	{ TRACK_MEMORY_USAGE, "HOST_MEM_USAGE", "SELECT timestampNs, usage FROM HOST_MEM_USAGE", false,
	  "Memory Usage", NULL, NULL, NULL },
	{ TRACK_NETWORK_USAGE, "HOST_NETWORK_USAGE", "SELECT timestampNs, usage FROM HOST_NETWORK_USAGE", false,
	  "Network Usage", NULL, NULL, NULL },
	{ TRACK_DISK_USAGE, "HOST_DISK_USAGE", "SELECT timestampNs, usage FROM HOST_DISK_USAGE", false,
	  "Disk Usage", NULL, NULL, NULL },
};

/* The mstx layers written ahead (export.c): wait for them, append them,
 * and commit both files as exp_write_timeline does. */
static int finish_ahead(struct exp_tx_ahead *a, struct exp_tl *out, int r)
{
	pthread_mutex_lock(&a->lock);
	while (!a->done)
		pthread_cond_wait(&a->cond, &a->lock);
	pthread_mutex_unlock(&a->lock);
	a->taken = true;
	if (r == 0)
		r = a->r;
	if (r == 0)
		r = exp_tl_append(out, &a->spool);
	if (r == 0)
		r = exp_tl_commit(out);
	else
		exp_tl_abort(out);
	if (a->with_tx) {
		if (r == 0)
			r = exp_tl_commit(&a->tx_out);
		else
			exp_tl_abort(&a->tx_out);
	}
	return r;
}

int exp_write_timeline(struct exp *e, const char *dir)
{
	bool tx = exp_track_on(e, TRACK_MSPROFTX) && exp_table_has_rows(e, "MSTX_EVENTS");
	bool osrt = exp_track_on(e, TRACK_OS_RUNTIME_API) && exp_table_has_rows(e, "OSRT_API");
	bool any = tx || osrt || exp_have_device_layers(e) || exp_have_gpu_layers(e);
	if (!exp_track_on(e, TRACK_MSPROFTX) && !e->summary_json)
		/* left out by --reports: an older export's file is not this one's */
		exp_remove_stale(dir, "msprof_tx", ".json", e->ts, 0);
	for (size_t i = 0; i < ARRAY_SIZE(layers) && !any; i++)
		any = exp_track_on(e, layers[i].track) &&
		      (exp_table_has_rows(e, layers[i].table) ||
		       (layers[i].table2 && exp_table_has_rows(e, layers[i].table2)));
	if (!any)
		return 0;

	struct exp_tl out;
	int r = exp_tl_open(e, &out, dir, "msprof");
	if (r < 0)
		return r;
	struct tl t = { .e = e, .out = &out };
	for (size_t i = 0; i < ARRAY_SIZE(layers) && r == 0; i++) {
		const struct layer *l = &layers[i];
		const struct export_track_info *k = &export_tracks[l->track];
		unsigned pid = export_format_pid(e->app_pid, k->sort_index, EXPORT_HOST_DEVICE_ID);
		uint64_t n = 0;
		if (!exp_track_on(e, l->track))
			continue;
		if (exp_table_has_rows(e, l->table))
			r = tl_rows(&t, l->sql, l->with_id, l->prefix, pid, &n);
		if (r == 0 && l->sql2 && exp_table_has_rows(e, l->table2))
			r = tl_rows(&t, l->sql2, false, l->prefix2, pid, &n);
		if (r == 0 && n)
			tl_metadata(&t, k, pid);
	}
	if (r == 0 && osrt)
		r = exp_write_osrt_layer(e, &out);
	if (r == 0)
		r = exp_write_device_layers(e, &out);
	if (r == 0)
		r = exp_write_gpu_layers(e, &out);
	/* msprof_tx_{ts}.json, the mstx layers alone, is written in the same
	 * pass.  With JSON summaries that name is the msprof_tx summary's; the
	 * summary wins, the layers are in msprof_{ts}.json */
	if (e->tx_ahead)
		return finish_ahead(e->tx_ahead, &out, r);
	struct exp_tl tx_out;
	bool with_tx = false;
	if (r == 0 && tx && !e->summary_json) {
		r = exp_tl_open(e, &tx_out, dir, "msprof_tx");
		with_tx = r == 0;
	}
	if (r == 0 && tx)
		r = exp_write_tx_layer(e, &out, with_tx ? &tx_out : NULL);
	if (r == 0)
		r = exp_tl_commit(&out);
	else
		exp_tl_abort(&out);
	if (with_tx) {
		if (r == 0)
			r = exp_tl_commit(&tx_out);
		else
			exp_tl_abort(&tx_out);
	}
	return r;
}
