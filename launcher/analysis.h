/* The analysis commands on PROF dirs: parse, query, export and analyze,
 * shared by the --parse/--query/--export/--analyze modes and msprof.py's
 * subcommand forms (subcmd.c).  Each takes a PROF dir or a directory
 * holding PROF dirs, prints msprof's console lines and returns the exit
 * status. */
#pragma once

#include <stdbool.h>

#include "export/export.h"
#include "launcher/options.h"

/* The PROF_* dirs to work on: dir itself when it is one, else those
 * directly under it, sorted.  0 and *ret (NULL-terminated), or -errno. */
int analysis_find_prof_dirs(const char *dir, char ***ret, size_t *ret_n);
void analysis_free_dirs(char **dirs, size_t n);

int analysis_parse(const char *dir);
int analysis_query(const char *dir);
/* opt->on_progress is set here (a line on a terminal). */
int analysis_export(const char *dir, struct export_options *opt);
/* db: --type=db (communication_analyzer.db instead of the JSON files). */
int analysis_analyze(const char *dir, unsigned rules, bool clear, bool db);
/* msprof export cluster: every PROF dir under dir (one per rank) parsed
 * when it needs it, then merged into dir/msprof_cluster_output/
 * (export_cluster).  1 when there is none, or one was skipped. */
#define ANALYSIS_CLUSTER_DIR "msprof_cluster_output"
int analysis_cluster(const char *dir);

/* msprof.py query's --id, --data-type, --model-id, --iteration-id. */
#define QUERY_DATA_TYPES 11 /* msprof's QueryDataType: 0 to 10 */
struct query_args {
	bool have_id, have_type, have_model, have_iter;
	long long id, data_type, model_id, iteration_id;
};
/* Whether any is given: the query is then one data type (query-data.c). */
bool query_args_any(const struct query_args *a);
int analysis_query_data(const char *dir, const struct query_args *a);

/* Read and check a --reports file: 0 and the tracks, or -errno after
 * printing why. */
int analysis_read_reports(const char *path, uint64_t *ret_tracks);
