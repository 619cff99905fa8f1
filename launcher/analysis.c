/* Parse, query, export and analyze over one PROF dir or a directory of
 * them (analysis.h). */
#include "launcher/analysis.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/app.h"
#include "launcher/console.h"
#include "launcher/progress.h"
#include "common/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void analysis_free_dirs(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

int analysis_find_prof_dirs(const char *dir, char ***ret, size_t *ret_n)
{
	char *copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	bool self = is_prof_dir_name(basename(copy));
	free(copy);

	char **v = NULL;
	size_t n = 0;
	if (self) {
		v = calloc(1, sizeof(*v));
		if (!v || !(v[0] = strdup(dir))) {
			free(v);
			return -ENOMEM;
		}
		*ret = v;
		*ret_n = 1;
		return 0;
	}
	DIR *dp = opendir(dir);
	if (!dp)
		return -errno;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(dp))) {
		if (!is_prof_dir_name(de->d_name))
			continue;
		char *path;
		struct stat st;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		/* a symlink is not followed, as msprof refuses them */
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		char **nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(path);
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[n++] = path;
	}
	closedir(dp);
	if (r < 0) {
		analysis_free_dirs(v, n);
		return r;
	}
	qsort_safe(v, n, sizeof(*v), cmp_str);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The dirs of dir, or 1 after saying why there are none. */
static int dirs_of(const char *dir, char ***ret, size_t *ret_n)
{
	int r = analysis_find_prof_dirs(dir, ret, ret_n);
	if (r < 0) {
		console_error("cannot read '%s': %s", dir, strerror(-r));
		return 1;
	}
	if (*ret_n == 0) {
		free(*ret);
		console_error("no PROF_* directory in '%s': give a PROF_* directory or the directory that holds them",
			      dir);
		return 1;
	}
	return 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* --- the commands --------------------------------------------------------------- */

/* One PROF dir: msprof's RunningMode::StartExportTask lines around it. */
static int export_dir(const char *prof, struct export_options *opt, const char *verb, const char *verb_cap)
{
	struct export_report *rep = calloc(1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	struct progress p;
	progress_begin(&p, base(prof), opt);
	/* MSPROF_SLICE_MB: timeline piece size (msprof's msprof_slice.json) */
	const char *mb = getenv("MSPROF_SLICE_MB");
	if (mb && *mb) {
		char *end;
		unsigned long long v = strtoull(mb, &end, 10);
		if (*end || v == 0 || v > 1ULL << 20)
			console_warn("MSPROF_SLICE_MB=%s is not a size in MB (1 to 1048576): the default, %llu MB, is used",
				     mb, EXPORT_TL_SLICE_BYTES >> 20);
		else
			opt->tl_slice_bytes = v << 20;
	}
	/* the text summary alone (export summary --format=text): only it */
	bool text_only = opt->what == EXPORT_TEXT_SUMMARY;
	if (!text_only)
		console_info("Start %s data in %s.", verb, base(prof));
	int r = export_prof_dir(prof, opt, rep);
	progress_end(&p, opt);
	if (r < 0) {
		console_error("cannot %s '%s': %s", verb, base(prof), export_report_error(rep, r));
		if (rep->error[0] && rep->message[0])
			console_warn("%s", rep->message);
	} else {
		if (rep->message[0])
			console_warn("%s", rep->message);
		if (opt->what == EXPORT_REPORT)
			console_info("The report of %s is saved in %s/%s", base(prof), rep->output_dir, EXPORT_REPORT_FILE);
		else if (!text_only)
			console_info("%s all data in %s done.", verb_cap, base(prof));
		fputs(rep->summary, stdout);
		fflush(stdout);
	}
	free(rep);
	return r;
}

/* one() on each PROF dir of dir; 1 when there is none or one failed. */
static int each_prof_dir(const char *dir, int (*one)(const char *prof, void *arg), void *arg)
{
	char **dirs;
	size_t n;
	if (dirs_of(dir, &dirs, &n))
		return 1;
	unsigned failed = 0;
	for (size_t i = 0; i < n; i++)
		if (one(dirs[i], arg) < 0)
			failed++;
	analysis_free_dirs(dirs, n);
	return failed ? 1 : 0;
}

static int parse_one(const char *prof, void *arg)
{
	(void)arg;
	struct export_options opt = { .type = EXPORT_DB, .parse_only = true };
	return export_dir(prof, &opt, "parse", "Parse");
}

int analysis_parse(const char *dir)
{
	return each_prof_dir(dir, parse_one, NULL);
}

static int export_one(const char *prof, void *arg)
{
	return export_dir(prof, arg, "export", "Export");
}

int analysis_export(const char *dir, struct export_options *opt)
{
	return each_prof_dir(dir, export_one, opt);
}

/* Each rank's database, parsed unless current (export_prof_dir, type db),
 * on RANK_DB_THREADS threads at most: a thread takes the next dir. */
#define RANK_DB_THREADS 4
struct rank_dbs {
	pthread_mutex_t mu;
	char **dirs;
	struct export_cluster_rank *ranks;
	size_t n, next;
};

static void *rank_db_main(void *arg)
{
	struct rank_dbs *q = arg;
	struct export_report *rep = malloc(sizeof *rep);
	for (;;) {
		pthread_mutex_lock(&q->mu);
		size_t i = q->next < q->n ? q->next++ : q->n;
		pthread_mutex_unlock(&q->mu);
		if (i == q->n)
			break;
		struct export_options opt = { .type = EXPORT_DB };
		int r = rep ? export_prof_dir(q->dirs[i], &opt, rep) : -ENOMEM;
		q->ranks[i].prof_dir = q->dirs[i];
		if (r < 0)
			q->ranks[i].why = strdup(rep ? export_report_error(rep, r) : strerror(ENOMEM));
		else
			q->ranks[i].db_path = strdup(rep->db_path);
	}
	free(rep);
	return NULL;
}

/* The PROF_* entries of dir that are not directories (a symbolic link is
 * not followed, as msprof refuses them): each as a rank the cluster lists
 * as skipped, with why, into ranks[*n...] (room for *cap). */
static int cluster_non_dirs(const char *dir, struct export_cluster_rank **ranks, size_t *n, size_t *cap)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return -errno;
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(dp))) {
		struct stat st;
		if (!is_prof_dir_name(de->d_name) || fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    S_ISDIR(st.st_mode))
			continue;
		char *path = NULL, *why = NULL, target[PATH_MAX];
		ssize_t t = S_ISLNK(st.st_mode) ? readlinkat(dirfd(dp), de->d_name, target, sizeof target - 1) : -1;
		target[t > 0 ? t : 0] = '\0';
		int w = S_ISLNK(st.st_mode)
				? asprintf(&why, "a symbolic link%s%s%s, not followed (msprof follows none): copy or "
						 "move the PROF_* directory itself here", t > 0 ? " to '" : "", target,
					   t > 0 ? "'" : "")
				: asprintf(&why, "%s, not a directory: a rank's data is a PROF_* directory",
					   S_ISREG(st.st_mode) ? "a plain file" : "not a file or a directory");
		if (w < 0 || asprintf(&path, "%s/%s", dir, de->d_name) < 0 || GROW_ARRAY(*ranks, *cap, *n, 8) < 0) {
			free(why);
			free(path);
			r = -ENOMEM;
			break;
		}
		(*ranks)[(*n)++] = (struct export_cluster_rank){ .prof_dir = path, .why = why };
	}
	closedir(dp);
	return r;
}

int analysis_cluster(const char *dir)
{
	char *copy = strdup(dir);
	if (!copy)
		return 1;
	bool self = is_prof_dir_name(basename(copy));
	free(copy);
	if (self) {
		console_error("'%s' is a PROF_* directory: give the directory that holds the ranks' PROF_* directories",
			      dir);
		return 1;
	}
	char **dirs, out[PATH_MAX];
	size_t n;
	if (dirs_of(dir, &dirs, &n))
		return 1;
	/* ranks[n...]: the PROF_* names that are not directories, listed as skipped */
	size_t cap = n, total = n;
	struct export_cluster_rank *ranks = calloc(n, sizeof *ranks);
	struct export_cluster_report *crep = malloc(sizeof *crep);
	int rc = 1;
	if (!ranks || !crep || cluster_non_dirs(dir, &ranks, &total, &cap) < 0 ||
	    (size_t)snprintf(out, sizeof out, "%s/%s", dir, ANALYSIS_CLUSTER_DIR) >= sizeof out) {
		console_error("cannot export the cluster view of '%s': %s", dir, strerror(ENOMEM));
		goto done;
	}
	console_info("Start cluster export of %zu PROF_* directories in %s.", n, dir);
	for (size_t i = n; i < total; i++)
		console_warn("'%s' is skipped: %s", base(ranks[i].prof_dir), ranks[i].why);
	struct rank_dbs q = { .mu = PTHREAD_MUTEX_INITIALIZER, .dirs = dirs, .ranks = ranks, .n = n };
	pthread_t th[RANK_DB_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nth = 0, want = cpus > 1 && n > 1 ? (unsigned)(cpus < RANK_DB_THREADS ? cpus : RANK_DB_THREADS) : 0;
	for (unsigned t = 0; t < want; t++)
		if (pthread_create(&th[t], NULL, rank_db_main, &q) == 0)
			nth++;
	if (!nth)
		(void)rank_db_main(&q);
	for (unsigned t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
	for (size_t i = 0; i < n; i++)
		if (!ranks[i].why && !ranks[i].db_path) {
			console_error("cannot export the cluster view of '%s': %s", dir, strerror(ENOMEM));
			goto done;
		}
	int r = export_cluster(out, ranks, total, crep);
	if (crep->message[0])
		console_warn("%s", crep->message);
	if (r < 0) {
		console_error("cannot export the cluster view of '%s': %s", dir, strerror(-r));
		goto done;
	}
	char clocks[128] = "";
	if (crep->hosts > 1)
		snprintf(clocks, sizeof clocks, "; %u of %u other host%s' clocks aligned from their collectives, the "
			 "rest trusted", crep->hosts_aligned, crep->hosts - 1, crep->hosts == 2 ? "" : "s");
	console_info("Merged %u of %zu PROF_* directories (%u skipped) from %u host%s: %llu timeline events, "
		     "%llu steps (%llu step rows)%s%s.", crep->ranks, total, crep->skipped, crep->hosts,
		     crep->hosts == 1 ? "" : "s", (unsigned long long)crep->events, (unsigned long long)crep->steps,
		     (unsigned long long)crep->step_rows, crep->shifted ? "; some ranks' clocks were shifted" : "",
		     clocks);
	console_info("Cluster data is saved in %s: %s %s %s %s", out, crep->timeline, crep->steps_csv, crep->ranks_csv,
		     crep->db);
	rc = crep->skipped || !crep->ranks ? 1 : 0;
done:
	for (size_t i = 0; ranks && i < total; i++) {
		free((char *)ranks[i].db_path);
		free((char *)ranks[i].why);
		if (i >= n)
			free((char *)ranks[i].prof_dir);
	}
	free(ranks);
	free(crep);
	analysis_free_dirs(dirs, n);
	return rc;
}

/* msprof's query table, one per PROF dir with a row per device dir; this
 * implementation has host data only: Device ID and Dir Name "host", Job
 * Info "NA" as msprof shows it without a job id. */
static const char *const query_columns[] = {
	"Job Info", "Device ID", "Dir Name", "Collection Time", "Model ID", "Iteration Number",
	"Top Time Iteration", "Rank ID",
};
#define QUERY_COLS (sizeof(query_columns) / sizeof(query_columns[0]))

/* The header line (header) or the row's line of the query table: each
 * column as wide as the wider of its header and its value, two spaces
 * apart, the last unpadded. */
static void query_line(char (*row)[128], bool header)
{
	for (size_t c = 0; c < QUERY_COLS; c++) {
		size_t w = strlen(query_columns[c]) > strlen(row[c]) ? strlen(query_columns[c]) : strlen(row[c]);
		const char *cell = header ? query_columns[c] : row[c];
		if (c + 1 < QUERY_COLS)
			printf("%-*s  ", (int)w, cell);
		else
			printf("%s\n", cell);
	}
}

static int query_one(const char *prof, void *arg)
{
	(void)arg;
	struct export_query q;
	struct export_report rep;
	char row[QUERY_COLS][128];
	console_info("Start query data in %s.", base(prof));
	int r = export_query_prof_dir(prof, &q, &rep);
	if (r < 0) {
		console_error("cannot query '%s': %s", base(prof), export_report_error(&rep, r));
		return r;
	}
	snprintf(row[0], 128, "NA");
	snprintf(row[1], 128, "host");
	snprintf(row[2], 128, "host");
	if (q.start_ns > 0) {
		time_t t = (time_t)(q.start_ns / 1000000000);
		struct tm tm;
		localtime_r(&t, &tm);
		size_t k = strftime(row[3], 128, "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(row[3] + k, 128 - k, ".%06lld", (long long)(q.start_ns % 1000000000 / 1000));
	} else {
		snprintf(row[3], 128, "N/A");
	}
	if (q.n_steps) {
		snprintf(row[4], 128, "%llu", EXPORT_STEP_MODEL_ID);
		snprintf(row[5], 128, "%llu", (unsigned long long)q.n_steps);
		size_t k = 0;
		for (unsigned j = 0; j < q.n_top; j++)
			k += (size_t)snprintf(row[6] + k, 128 - k, "%s%lld", j ? "," : "", (long long)q.top[j]);
	} else {
		snprintf(row[4], 128, "N/A");
		snprintf(row[5], 128, "N/A");
		snprintf(row[6], 128, "N/A");
	}
	if (q.rank >= 0)
		snprintf(row[7], 128, "%lld", (long long)q.rank);
	else
		snprintf(row[7], 128, "N/A");
	query_line(row, true);
	query_line(row, false);
	console_info("Query all data in %s done.", base(prof));
	return 0;
}

int analysis_query(const char *dir)
{
	return each_prof_dir(dir, query_one, NULL);
}

int analysis_analyze(const char *dir, unsigned rules, bool clear, bool db)
{
	char **dirs;
	size_t n;
	if (dirs_of(dir, &dirs, &n))
		return 1;
	/* communication_analyzer.db holds both rules' tables; text adds one
	 * JSON file per rule.  Text writes the database too: a PROF dir of
	 * either form holds msprof_*.db, and msprof-analyze's cluster then
	 * reads the rank from it and the analysis from this file (its
	 * "missing analysis DB file" otherwise) */
	unsigned what = EXPORT_ANALYZE_DB |
			(db ? 0 : ((rules & RULE_COMMUNICATION) ? EXPORT_ANALYZE_COMMUNICATION : 0) |
					  ((rules & RULE_COMMUNICATION_MATRIX) ? EXPORT_ANALYZE_MATRIX : 0));
	unsigned failed = 0;
	for (size_t i = 0; i < n; i++) {
		struct export_report rep = { 0 };
		unsigned ops = 0;
		console_info("Start analyze data in %s.", base(dirs[i]));
		int r = export_analyze_comm(dirs[i], what, &ops, &rep);
		if (r < 0) {
			console_error("cannot analyze '%s': %s", base(dirs[i]), export_report_error(&rep, r));
			failed++;
			continue;
		}
		/* what the parse it may have run had to say */
		if (rep.message[0])
			console_warn("%s", rep.message);
		if (ops == 0) {
			/* torch_npu runs --analyze after every export: no data to
			 * analyze is not a failure */
			console_info("%s has no communication data (collective operations between devices), "
				     "so there is nothing for the communication rules to analyze; no analyze/ written.",
				     base(dirs[i]));
			continue;
		}
		console_info("Analyze all data in %s done (%u communication operation(s)).", base(dirs[i]), ops);
	}
	for (size_t i = 0; clear && !failed && i < n; i++) {
		struct export_options opt = { .type = EXPORT_DB, .clear = true };
		struct export_report rep;
		if (export_prof_dir(dirs[i], &opt, &rep) < 0)
			failed++;
	}
	analysis_free_dirs(dirs, n);
	return failed ? 1 : 0;
}

int analysis_read_reports(const char *path, uint64_t *ret_tracks)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		console_error("Argument --reports: cannot read '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		console_error("Argument --reports: '%s' is a soft link; give the file itself", path);
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		console_error("Argument --reports: '%s' is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size > MSPROF_MAX_REPORTS_BYTES) {
		console_error("Argument --reports: '%s' is larger than %u MB", path, MSPROF_MAX_REPORTS_BYTES >> 20);
		return -EFBIG;
	}
	FILE *f = fopen(path, "re");
	char *buf = f ? malloc((size_t)st.st_size + 1) : NULL;
	size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	int r = 0;
	if (!f || !buf || ferror(f)) {
		r = -(errno ? errno : EIO);
		console_error("Argument --reports: cannot read '%s': %s", path, strerror(-r));
	} else {
		buf[got] = '\0';
		char why[128];
		if (export_reports_parse(buf, ret_tracks, why, sizeof why) < 0) {
			console_error("Argument --reports: '%s' is not a reports configuration: %s "
				      "(expected {\"json_process\": {\"cpu_usage\": true, ...}})", path, why);
			r = -EINVAL;
		}
	}
	free(buf);
	if (f)
		fclose(f);
	return r;
}
