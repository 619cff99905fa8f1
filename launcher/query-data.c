/* msprof.py query's data types (reference §1.6):
 *
 *   msprof query -dir <dir> --data-type N [--id N] [--model-id N] [--iteration-id N]
 *
 * As in msprof's MsprofQuerySummaryManager, any of the four options turns
 * the query from the table into one data type, which must then be given.
 * msprof reads them from the cluster databases `import --cluster` writes;
 * here each PROF dir's own database is read (parsed first when needed), so
 * no import comes first.  Results are msprof's: one JSON status line on
 * stdout ({"status": 0|1, "info": ..., "data": ...}) and the data in
 * <dir>/query/.  Bad values are errors with msprof's messages and exit 1;
 * a data type without data answers status 1 with the reason and exits 0,
 * as msprof's parsers do. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/analysis.h"
#include "launcher/console.h"
#include "common/util.h"

/* msprof's QueryDataType, and why each one we cannot answer has no data. */
static const struct {
	const char *name;
	const char *missing; /* NULL: answered */
} data_types[QUERY_DATA_TYPES] = {
	[0] = { "cluster scene", NULL },
	[1] = { "step trace", NULL },
	[2] = { "fops analysis",
		"it needs the floating-point operation counts of device operators (Ascend AI Core PMU "
		"counters), which no collector here records" },
	[3] = { "data preparation",
		"it needs the framework's data-preparation queue records (dataset GetNext and host queue), "
		"which no collector here records" },
	[4] = { "parallel tuning",
		"it needs the parallel strategy and the communication operators of a distributed model, "
		"which no collector here records" },
	[5] = { "parallel data",
		"it needs the parallel strategy and the communication operators of a distributed model, "
		"which no collector here records" },
	[6] = { "cluster communication",
		"it needs a cluster analysis of the ranks' communication, which is not done here yet "
		"(each PROF dir's own is msprof --analyze=on: analyze/communication.json)" },
	[7] = { "communication matrix",
		"it needs a cluster analysis of the ranks' communication, which is not done here yet "
		"(each PROF dir's own is msprof --analyze=on: analyze/communication.json)" },
	[8] = { "host sys usage", NULL },
	[9] = { "cluster communication critical path",
		"it needs a cluster analysis of the ranks' communication, which is not done here yet "
		"(each PROF dir's own is msprof --analyze=on: analyze/communication.json)" },
	[10] = { "communication matrix critical path",
		 "it needs a cluster analysis of the ranks' communication, which is not done here yet "
		 "(each PROF dir's own is msprof --analyze=on: analyze/communication.json)" },
};

bool query_args_any(const struct query_args *a)
{
	return a->have_id || a->have_type || a->have_model || a->have_iter;
}

/* A JSON string, escaped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* msprof's status line, as Python's json.dumps writes it. */
static void status_line(int status, const char *info, const char *data)
{
	printf("{\"status\": %d, \"info\": ", status);
	json_str(stdout, info);
	fputs(", \"data\": ", stdout);
	json_str(stdout, data);
	fputs("}\n", stdout);
}

/* QueryArgumentCheck.check_arguments_valid: 0, or 1 after msprof's message. */
static int check_arguments(const struct query_args *a)
{
	if (!a->have_id || a->id < -1) {
		console_error("The query id is wrong. Please enter a valid value.");
		return 1;
	}
	if (!a->have_model || a->model_id < 0) {
		console_error("The query model id is wrong. Please enter a valid value.");
		return 1;
	}
	if (a->have_iter && a->iteration_id < 1) {
		console_error("The query iteration id is wrong. Please enter a valid value.");
		return 1;
	}
	return 0;
}

/* --- the PROF dirs' processes and steps ----------------------------------------------- */

struct gathered {
	struct export_query_step *steps;
	size_t n_steps;
	int64_t *ranks; /* per process, -1 none; a PROF dir without processes adds one -1 */
	size_t n_ranks;
};

static void gathered_release(struct gathered *g)
{
	free(g->steps);
	free(g->ranks);
}

/* 0, or 1 after saying why. */
static int gather(const char *dir, bool steps, struct gathered *g)
{
	char **dirs;
	size_t n;
	int r = analysis_find_prof_dirs(dir, &dirs, &n);
	if (r < 0) {
		console_error("cannot read '%s': %s", dir, strerror(-r));
		return 1;
	}
	if (n == 0) {
		free(dirs);
		console_error("no PROF_* directory in '%s': give a PROF_* directory or the directory that holds them",
			      dir);
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct export_report rep = { 0 };
		struct export_query_id *ids = NULL;
		struct export_query_step *st = NULL;
		size_t n_ids = 0, n_st = 0;
		r = export_query_ids(dirs[i], &ids, &n_ids, &rep);
		if (r >= 0 && steps)
			r = export_query_steps(dirs[i], &st, &n_st, &rep);
		int64_t *nr = r >= 0 ? realloc(g->ranks, (g->n_ranks + n_ids + 1) * sizeof(*nr)) : NULL;
		struct export_query_step *ns = r >= 0 ? realloc(g->steps, (g->n_steps + n_st + 1) * sizeof(*ns)) : NULL;
		if (nr)
			g->ranks = nr;
		if (ns)
			g->steps = ns;
		if (r >= 0 && (!nr || !ns))
			r = -ENOMEM;
		if (r < 0) {
			console_error("cannot query '%s': %s", dirs[i], export_report_error(&rep, r));
			rc = 1;
		} else {
			for (size_t k = 0; k < n_ids; k++)
				g->ranks[g->n_ranks++] = ids[k].rank;
			if (n_ids == 0)
				g->ranks[g->n_ranks++] = -1;
			if (n_st)
				memcpy(g->steps + g->n_steps, st, n_st * sizeof(*st));
			g->n_steps += n_st;
		}
		free(ids);
		free(st);
	}
	analysis_free_dirs(dirs, n);
	return rc;
}

/* --- 0: cluster scene -------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* msprof's check_rank_device_id: "1" when every process has a rank and no
 * two share one.  Its other case, distinct device ids without ranks, does
 * not arise: host data has no device id. */
static int cluster_scene(const char *dir)
{
	struct gathered g = { 0 };
	if (gather(dir, false, &g)) {
		gathered_release(&g);
		return 1;
	}
	bool cluster = g.n_ranks > 0;
	qsort_safe(g.ranks, g.n_ranks, sizeof(*g.ranks), cmp_i64);
	for (size_t i = 0; i < g.n_ranks && cluster; i++)
		if (g.ranks[i] < 0 || (i && g.ranks[i] == g.ranks[i - 1]))
			cluster = false;
	gathered_release(&g);
	status_line(0, "", cluster ? "1" : "0");
	return 0;
}

/* --- 1: step trace ----------------------------------------------------------------------- */

/* <dir>/query, made: 0, or -errno. */
static int query_dir(const char *dir, char *path, size_t size)
{
	char *real = realpath(dir, NULL);
	if (!real)
		return -errno;
	int n = snprintf(path, size, "%s/query", real);
	free(real);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (mkdir(path, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* <dir>/query/<name>, the directory made: 0, or -errno. */
static int query_file(const char *dir, const char *name, char *path, size_t size)
{
	char qdir[PATH_MAX];
	int r = query_dir(dir, qdir, sizeof qdir);
	if (r < 0)
		return r;
	int n = snprintf(path, size, "%s/%s", qdir, name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Microseconds with two decimals, as msprof rounds them. */
static void us2(FILE *f, int64_t ns)
{
	int64_t c = (ns + 5) / 10; /* hundredths of a µs */
	fprintf(f, "%" PRId64 ".%02" PRId64, c / 100, c % 100);
}

/* One row of msprof's StepTraceSummary.HEADERS.  A step here is a range
 * with a start and an end: FP/BP, data augmentation and refresh have no
 * meaning and are "N/A" as in our step_trace CSV. */
static void step_row(FILE *f, const struct export_query_step *s, bool first)
{
	fprintf(f, "%s{\"ID\": %" PRId64 ", \"Model ID\": \"N/A\", \"Iteration ID\": %" PRId64 ", \"Iteration Time\": ",
		first ? "" : ", ", s->id, s->step);
	us2(f, s->end_ns - s->start_ns);
	fputs(", \"FP to BP Time\": \"N/A\", \"Iteration Interval\": \"N/A\", \"Iteration Refresh\": \"N/A\", "
	      "\"Iteration Start\": ", f);
	us2(f, s->start_ns);
	fputs(", \"FP Start\": \"N/A\", \"BP End\": \"N/A\", \"Iteration End\": ", f);
	us2(f, s->end_ns);
	fputc('}', f);
}

static int step_trace(const char *dir, const struct query_args *a)
{
	if (check_arguments(a))
		return 1;
	bool all = a->id == -1;
	long long iter = a->have_iter ? a->iteration_id : -1;
	if (all && iter == -1) {
		status_line(1, "For querying all devices data, you should input a valid iteration id.", "");
		return 1;
	}
	if (!all && iter != -1) {
		status_line(1, "For querying single device data, you should not input a iteration id.", "");
		return 1;
	}
	struct gathered g = { 0 };
	if (gather(dir, true, &g)) {
		gathered_release(&g);
		return 1;
	}
	size_t hits = 0;
	for (size_t i = 0; i < g.n_steps; i++) {
		const struct export_query_step *s = &g.steps[i];
		if ((uint64_t)a->model_id == EXPORT_STEP_MODEL_ID && (all ? s->step == iter : s->id == a->id))
			g.steps[hits++] = *s;
	}
	char why[256];
	if (g.n_steps == 0)
		snprintf(why, sizeof why, "no training steps in '%s': steps are ranges named \"step N\" or "
					  "\"ProfilerStep#N\", or mstxStep marks", dir);
	else if ((uint64_t)a->model_id != EXPORT_STEP_MODEL_ID)
		snprintf(why, sizeof why, "model id %lld has no steps: the steps recorded are in step mode, "
					  "model id 4294967295", a->model_id);
	else if (all)
		snprintf(why, sizeof why, "no process has step %lld", iter);
	else
		snprintf(why, sizeof why, "id %lld has no steps (the ids are the processes' ranks, or their pids "
					  "when they have none)", a->id);
	if (hits == 0) {
		gathered_release(&g);
		char info[320];
		snprintf(info, sizeof info, "Query step trace data failed. %s.", why);
		status_line(1, info, "");
		return 0;
	}
	char name[128], path[PATH_MAX];
	snprintf(name, sizeof name, "step_trace_%lld_%lld_%lld.json", a->id, a->model_id, iter);
	int r = query_file(dir, name, path, sizeof path);
	FILE *f = r == 0 ? fopen(path, "we") : NULL;
	if (f) {
		fputc('[', f);
		for (size_t i = 0; i < hits; i++)
			step_row(f, &g.steps[i], i == 0);
		fputc(']', f);
		if (ferror(f))
			r = -EIO;
		if (fclose(f) < 0 && r == 0)
			r = -errno;
	} else if (r == 0) {
		r = -errno;
	}
	gathered_release(&g);
	if (r < 0) {
		char info[PATH_MAX + 64];
		snprintf(info, sizeof info, "cannot write '%s': %s", path, strerror(-r));
		status_line(1, info, "");
		return 1;
	}
	status_line(0, "", path);
	return 0;
}

/* --- 8: host sys usage ----------------------------------------------------------------- */

/* msprof's HostSysUsageParser: the --host-sys-usage samples of the host
 * the process of --id ran on, as host_*_usage_<id>_<model>.json. */
static int host_sys_usage(const char *dir, const struct query_args *a)
{
	if (!a->have_id) {
		status_line(1, "Query data type 8 (host sys usage) needs --id: the rank of the process, "
			       "or its pid when it has none.", "");
		return 1;
	}
	char qdir[PATH_MAX], suffix[64];
	/* msprof formats a missing model id as Python's None */
	if (a->have_model)
		snprintf(suffix, sizeof suffix, "%lld_%lld", a->id, a->model_id);
	else
		snprintf(suffix, sizeof suffix, "%lld_None", a->id);
	char **dirs;
	size_t n;
	int r = analysis_find_prof_dirs(dir, &dirs, &n);
	if (r < 0 || n == 0) {
		if (r == 0)
			free(dirs);
		console_error(r < 0 ? "cannot read '%s': %s" : "no PROF_* directory in '%s'%s", dir,
			      r < 0 ? strerror(-r) : ": give a PROF_* directory or the directory that holds them");
		return 1;
	}
	if ((r = query_dir(dir, qdir, sizeof qdir)) < 0) {
		analysis_free_dirs(dirs, n);
		console_error("cannot create '%s/query': %s", dir, strerror(-r));
		return 1;
	}
	unsigned written = 0;
	const char *found = NULL;
	char info[1024];
	int rc = 0;
	for (size_t i = 0; i < n && !found; i++) {
		struct export_report rep = { 0 };
		r = export_query_host_usage(dirs[i], a->id, qdir, suffix, &written, &rep);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			console_error("cannot query '%s': %s", dirs[i], export_report_error(&rep, r));
			rc = 1;
			break;
		}
		found = dirs[i];
	}
	if (rc == 0 && !found) {
		snprintf(info, sizeof info, "Query host sys usage data failed. No process has id %lld in '%s' "
			 "(the ids are the processes' ranks, or their pids when they have none).", a->id, dir);
		status_line(1, info, "");
	} else if (rc == 0 && !written) {
		snprintf(info, sizeof info, "Query host sys usage data failed. '%s' has no host sys usage data: "
			 "record it with --host-sys-usage=cpu,mem.", found);
		status_line(1, info, "");
	} else if (rc == 0) {
		snprintf(info, sizeof info, "%s%s%shost_pid_cpu_usage is not written: it needs the process's user and "
			 "system time apart, which are recorded as their sum.",
			 written & EXPORT_HOST_USAGE_SYS_CPU ? "" : "host_sys_cpu_usage is not written: no --host-sys-usage=cpu data. ",
			 written & EXPORT_HOST_USAGE_SYS_MEM ? "" : "host_sys_mem_usage is not written: no --host-sys-usage=mem data. ",
			 written & EXPORT_HOST_USAGE_PID_MEM ? "" : "host_pid_mem_usage is not written: no memory samples of the process. ");
		status_line(0, info, qdir);
	}
	analysis_free_dirs(dirs, n);
	return rc;
}

/* --- dispatch -------------------------------------------------------------------------------- */

int analysis_query_data(const char *dir, const struct query_args *a)
{
	if (!a->have_type) {
		console_error("The query data type is wrong. Please enter a valid value.");
		return 1;
	}
	switch (a->data_type) {
	case 0:
		return cluster_scene(dir);
	case 1:
		return step_trace(dir, a);
	case 8:
		return host_sys_usage(dir, a);
	default: {
		char info[512];
		snprintf(info, sizeof info, "Query data type %lld (%s) has no data in '%s': %s.", a->data_type,
			 data_types[a->data_type].name, dir, data_types[a->data_type].missing);
		status_line(1, info, "");
		return 0;
	}
	}
}
