/* msprof.py's command forms (reference §1.6), for scripts written against
 * CANN's analysis tool:
 *
 *   msprof import -dir <dir> [--cluster]
 *   msprof query -dir <dir> [--data-type 0..10 [--id N] [--model-id N]
 *          [--iteration-id N]]                          (query-data.c)
 *   msprof export timeline|summary|db -dir <dir> [-reports <json>]
 *          [--model-id N --iteration-id N [--iteration-count 1..5]]
 *          [--format csv|json] [--clear]
 *   msprof analyze -dir <dir> -r|--rule <rules> [--clear] [--type text|db]
 *   msprof export cluster -dir <dir>          (ours: the ranks merged, analysis.c)
 *   msprof export report -dir <dir>           (ours: report.html alone, export/report.c)
 *
 * "-dir" is also "--collection-dir"; values follow as the next word or
 * after "=", and a leading "=" and "~" are expanded as msprof.py does.
 * Errors are argparse's: "msprof <cmd>: error: ..." and exit status 2. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/analysis.h"
#include "launcher/console.h"
#include "launcher/runners.h"
#include "common/util.h"

static const char *const subcommands[] = { "import", "query", "export", "analyze" };

bool subcmd_is(const char *word)
{
	for (size_t i = 0; word && i < ARRAY_SIZE(subcommands); i++)
		if (streq(word, subcommands[i]))
			return true;
	return false;
}

struct sub {
	const char *cmd;          /* "export timeline" */
	char dir[4096];
	bool have_dir, cluster, clear, have_model, have_iter, have_count, json, text, type_db;
	uint64_t model_id, iteration_id, count;
	const char *reports;
	unsigned rules;
	struct query_args q;      /* query's options, signed as argparse's int */
};

/* -h/--help of each form, argparse's layout with msprof.py's options. */
static const struct {
	const char *cmd, *usage, *options;
} helps[] = {
	{ "import", "[-h] -dir <dir> [--cluster]",
	  "  --cluster             <Optional> the cluster scene flag (each PROF dir is parsed)\n" },
	{ "query", "[-h] -dir <dir> [--id <id>] [--data-type <data_type>] [--model-id <model_id>]\n"
		   "                    [--iteration-id <iteration_id>]",
	  "  --id <id>             <Optional> the rank of a process (its pid when it has none); -1: all\n"
	  "  --data-type <data_type>\n"
	  "                        <Optional> the data type to query, support 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10:\n"
	  "                        0 cluster scene, 1 step trace, 8 host sys usage; the others need data\n"
	  "                        not collected here (2 fops analysis, 3 data preparation, 4 parallel\n"
	  "                        tuning, 5 parallel data, 6 cluster communication, 7 communication\n"
	  "                        matrix, 9 and 10 their critical paths)\n"
	  "  --model-id <model_id>\n"
	  "                        <Optional> the model ID (4294967295: steps)\n"
	  "  --iteration-id <iteration_id>\n"
	  "                        <Optional> the iteration ID\n" },
	{ "export timeline", "[-h] -dir <dir> [--iteration-id <iteration_id>] [--model-id <model_id>]\n"
			     "                    [--iteration-count <iteration_count>] [--clear] [-reports reports]",
	  "  --iteration-id, --model-id, --iteration-count\n"
	  "                        <Optional> steps to export (model id 4294967295, count 1-5)\n"
	  "  --clear               <Optional> the clear mode flag\n"
	  "  -reports reports      <Optional> path of the reports JSON configuration file\n" },
	{ "export summary", "[-h] -dir <dir> [--iteration-id <iteration_id>] [--model-id <model_id>]\n"
			    "                    [--iteration-count <iteration_count>] [--clear] [--format <export_format>]",
	  "  --iteration-id, --model-id, --iteration-count\n"
	  "                        <Optional> steps to export (model id 4294967295, count 1-5)\n"
	  "  --clear               <Optional> the clear mode flag\n"
	  "  --format <export_format>\n"
	  "                        <Optional> the format for export, supports csv and json; text prints\n"
	  "                        the run at a glance (as msprof does after an export) and writes nothing\n" },
	{ "export db", "[-h] -dir <dir>", "" },
	{ "export cluster", "[-h] -dir <dir>",
	  "\n  <dir> holds one PROF_* directory per rank of a distributed job (each parsed first\n"
	  "  when it has no current msprof_*.db).  Written to <dir>/msprof_cluster_output/:\n"
	  "    msprof_cluster_<ts>.json      every rank's timeline, its processes named \"Rank <id> ...\"\n"
	  "                                  (\"Pid <pid> ...\" for a dir without a rank_id), sorted by rank\n"
	  "    cluster_step_trace_<ts>.csv   per step and rank: step time, communication, wait for the\n"
	  "                                  slowest rank, the step's slowest and fastest rank\n"
	  "    cluster_ranks_<ts>.csv        every PROF_* entry: merged, or skipped and why\n"
	  "    msprof_cluster_<ts>.db        CLUSTER_RANK and CLUSTER_STEP, the same as the two CSVs\n"
	  "  Exit status 1 when a directory was skipped (the others are still merged).\n" },
	{ "export report", "[-h] -dir <dir>",
	  "\n  Writes mindstudio_profiler_output/report.html of each PROF_* directory (parsed first\n"
	  "  when it has no current msprof_*.db), and nothing else: one self-contained page to open\n"
	  "  in a browser, with the host and device samples over time, the step times, the ranges\n"
	  "  with the largest total time, per-thread CPU, the ranks beside it and every loss.  Every\n"
	  "  export writes it too.\n" },
	{ "analyze", "[-h] -dir <dir> --rule RULE [--clear] [--type {db,text}]",
	  "  --rule RULE, -r RULE  communication, communication_matrix, or both separated by a comma\n"
	  "  --clear               <Optional> the clear mode flag\n"
	  "  --type {db,text}      Specify the output file type, db or text\n" },
};

const char *subcmd_form(size_t i)
{
	return i < ARRAY_SIZE(helps) ? helps[i].cmd : NULL;
}

static int print_help(const char *cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(helps); i++) {
		if (!streq(helps[i].cmd, cmd))
			continue;
		printf("usage: msprof %s %s\n\noptions:\n"
		       "  -h, --help            show this help message and exit\n"
		       "  -dir <dir>, --collection-dir <dir>\n"
		       "                        <Mandatory> Specify the directory that is used for creating data\n"
		       "                        collection results.\n%s",
		       helps[i].cmd, helps[i].usage, helps[i].options);
		return 0;
	}
	return 2;
}

static int usage_error(const struct sub *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const struct sub *s, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "usage: msprof %s -dir <dir> [options]\nmsprof %s: error: ", s->cmd, s->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* Python's int(): optional sign, digits. */
static bool integer(const char *v, long long *ret)
{
	char *end;
	if (!v)
		return false;
	while (*v == ' ' || *v == '\t')
		v++;
	if (!(*v == '-' || *v == '+' || (*v >= '0' && *v <= '9')))
		return false;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || end == v)
		return false;
	*ret = n;
	return true;
}

/* msprof.py query's four options: 1 taken, 0 not one of them, or the
 * exit status of argparse's error. */
static int query_option(struct sub *s, const char *name, const char *val, int *ret_rc)
{
	struct { const char *name; bool *have; long long *v; } opts[] = {
		{ "--id", &s->q.have_id, &s->q.id },
		{ "--data-type", &s->q.have_type, &s->q.data_type },
		{ "--model-id", &s->q.have_model, &s->q.model_id },
		{ "--iteration-id", &s->q.have_iter, &s->q.iteration_id },
	};
	if (!streq(s->cmd, "query"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!streq(name, opts[i].name))
			continue;
		if (!val) {
			*ret_rc = usage_error(s, "argument %s: expected one argument", name);
			return 1;
		}
		if (!integer(val, opts[i].v)) {
			*ret_rc = usage_error(s, "argument %s: invalid int value: '%s'", name, val);
			return 1;
		}
		if (opts[i].v == &s->q.data_type && (s->q.data_type < 0 || s->q.data_type >= QUERY_DATA_TYPES)) {
			*ret_rc = usage_error(s, "argument --data-type: invalid choice: %lld "
						 "(choose from 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", s->q.data_type);
			return 1;
		}
		*opts[i].have = true;
		*ret_rc = 0;
		return 1;
	}
	return 0;
}

static bool number(const char *v, uint64_t max, uint64_t *ret)
{
	char *end;
	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n > max)
		return false;
	*ret = n;
	return true;
}

/* -dir's value: leading "=" dropped, "~" expanded. */
static int set_dir(struct sub *s, const char *v)
{
	while (*v == '=')
		v++;
	const char *home = getenv("HOME");
	if (v[0] == '~' && (v[1] == '/' || !v[1]) && home)
		snprintf(s->dir, sizeof s->dir, "%s%s", home, v + 1);
	else
		snprintf(s->dir, sizeof s->dir, "%s", v);
	s->have_dir = s->dir[0] != '\0';
	return 0;
}

static int parse_args(struct sub *s, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		char name[64];
		const char *tok = argv[i], *eq = strchr(tok, '='), *val = NULL;
		size_t n = eq ? (size_t)(eq - tok) : strlen(tok);
		if (n >= sizeof name)
			return usage_error(s, "unrecognized arguments: %s", tok);
		memcpy(name, tok, n);
		name[n] = '\0';
		if (streq(tok, "-h") || streq(tok, "--help"))
			return print_help(s->cmd) == 0 ? -1 : 2;
		bool flag = streq(name, "--cluster") || streq(name, "--clear");
		if (flag) {
			if (eq)
				return usage_error(s, "argument %s: ignored explicit argument '%s'", name, eq + 1);
			if (streq(name, "--cluster"))
				s->cluster = true;
			else
				s->clear = true;
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		int qrc;
		if (query_option(s, name, val, &qrc)) {
			if (qrc)
				return qrc;
		} else if (streq(name, "-dir") || streq(name, "--collection-dir")) {
			if (!val)
				return usage_error(s, "argument -dir/--collection-dir: expected one argument");
			set_dir(s, val);
		} else if (streq(name, "--model-id") || streq(name, "--iteration-id") ||
			   streq(name, "--iteration-count")) {
			uint64_t v;
			bool count = streq(name, "--iteration-count");
			if (!number(val, count ? 5 : UINT32_MAX, &v) || (count && v < 1))
				return usage_error(s, "argument %s: invalid value: '%s', expected an integer in %s", name,
						   val ? val : "", count ? "1-5" : "0-4294967295");
			if (streq(name, "--model-id"))
				s->model_id = v, s->have_model = true;
			else if (count)
				s->count = v, s->have_count = true;
			else
				s->iteration_id = v, s->have_iter = true;
		} else if (streq(name, "--format")) {
			if (!val || (!streq(val, "csv") && !streq(val, "json") && !streq(val, "text")))
				return usage_error(s, "argument --format: invalid choice: '%s' (choose from 'csv', 'json', "
						      "'text')", val ? val : "");
			s->json = streq(val, "json");
			s->text = streq(val, "text");
		} else if (streq(name, "-reports") || streq(name, "--reports")) {
			if (!val)
				return usage_error(s, "argument -reports: expected one argument");
			s->reports = val;
		} else if (streq(name, "--type")) {
			if (!val || (!streq(val, "text") && !streq(val, "db")))
				return usage_error(s, "argument --type: invalid choice: '%s' (choose from 'text', 'db')",
						   val ? val : "");
			s->type_db = streq(val, "db");
		} else if (streq(name, "-r") || streq(name, "--rule")) {
			if (!val)
				return usage_error(s, "argument -r/--rule: expected one argument");
			for (const char *p = val; *p;) {
				size_t k = strcspn(p, ",");
				if (k == 13 && strncmp(p, "communication", k) == 0)
					s->rules |= RULE_COMMUNICATION;
				else if (k == 20 && strncmp(p, "communication_matrix", k) == 0)
					s->rules |= RULE_COMMUNICATION_MATRIX;
				else
					return usage_error(s, "argument -r/--rule: invalid value: '%s', "
							      "expected communication or communication_matrix", val);
				p += k + (p[k] == ',');
			}
		} else {
			return usage_error(s, "unrecognized arguments: %s", tok);
		}
	}
	if (!s->have_dir)
		return usage_error(s, "the following arguments are required: -dir/--collection-dir");
	struct stat st;
	if (stat(s->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "[ERROR] Analysis output path(%s) does not exist.\n", s->dir);
		return 1;
	}
	return 0;
}

/* Which options a form takes, beyond -dir. */
enum { T_CLUSTER = 1, T_SELECT = 2, T_FORMAT = 4, T_CLEAR = 8, T_REPORTS = 16, T_RULE = 32, T_TYPE = 64 };

static int refuse_others(struct sub *s, unsigned takes)
{
	struct { bool given; unsigned need; const char *name; } uses[] = {
		{ s->cluster, T_CLUSTER, "--cluster" },
		{ s->have_model || s->have_iter || s->have_count, T_SELECT, "--model-id/--iteration-id/--iteration-count" },
		{ s->json || s->text, T_FORMAT, "--format" },
		{ s->clear, T_CLEAR, "--clear" },
		{ s->reports != NULL, T_REPORTS, "-reports" },
		{ s->rules != 0, T_RULE, "-r/--rule" },
		{ s->type_db, T_TYPE, "--type" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(uses); i++)
		if (uses[i].given && !(takes & uses[i].need))
			return usage_error(s, "unrecognized arguments: %s", uses[i].name);
	return 0;
}

int subcmd_run(int argc, char **argv)
{
	struct sub s = { .cmd = argv[1] };
	char cmd[64];
	int first = 2, r;
	unsigned what = 0;
	enum export_type type = EXPORT_TEXT;

	if (streq(argv[1], "export")) {
		const char *kind = argc > 2 ? argv[2] : "";
		if (streq(kind, "-h") || streq(kind, "--help")) {
			printf("usage: msprof export [-h] {summary,timeline,db,cluster,report} ...\n\n"
			       "  summary   Get summary data.\n  timeline  Get timeline data.\n  db        Get db data.\n"
			       "  cluster   Merge the ranks' PROF dirs: one timeline, a step table across ranks.\n"
			       "  report    Write report.html alone: the profile on one page for a browser.\n"
			       "\n'msprof export <kind> -h' tells the options of each.\n");
			return 0;
		}
		if (streq(kind, "timeline"))
			what = EXPORT_TIMELINE;
		else if (streq(kind, "summary"))
			what = EXPORT_SUMMARY;
		else if (streq(kind, "db"))
			type = EXPORT_DB;
		else if (streq(kind, "report"))
			what = EXPORT_REPORT;
		else if (!streq(kind, "cluster"))
			return usage_error(&s, "argument export: invalid choice: '%s' (choose from 'timeline', 'summary', "
					       "'db', 'cluster', 'report')", kind);
		snprintf(cmd, sizeof cmd, "export %s", kind);
		s.cmd = cmd;
		first = 3;
	}
	if ((r = parse_args(&s, argc, argv, first)) != 0)
		return r < 0 ? 0 : r; /* -1: help printed */

	if (streq(s.cmd, "export cluster"))
		return (r = refuse_others(&s, 0)) != 0 ? r : analysis_cluster(s.dir);
	if (streq(argv[1], "import")) {
		if ((r = refuse_others(&s, T_CLUSTER)) != 0)
			return r;
		return analysis_parse(s.dir);
	}
	if (streq(argv[1], "query")) {
		if ((r = refuse_others(&s, 0)) != 0)
			return r;
		if (query_args_any(&s.q))
			return analysis_query_data(s.dir, &s.q);
		return analysis_query(s.dir);
	}
	if (streq(argv[1], "analyze")) {
		if ((r = refuse_others(&s, T_RULE | T_CLEAR | T_TYPE)) != 0)
			return r;
		if (!s.rules)
			return usage_error(&s, "the following arguments are required: -r/--rule");
		return analysis_analyze(s.dir, s.rules, s.clear, s.type_db);
	}
	unsigned takes = type == EXPORT_DB || what == EXPORT_REPORT ? 0 :
			 what == EXPORT_TIMELINE ? T_SELECT | T_CLEAR | T_REPORTS :
						   T_SELECT | T_CLEAR | T_FORMAT;
	if ((r = refuse_others(&s, takes)) != 0)
		return r;
	if (s.have_model != s.have_iter) {
		console_error("Please set 'model-id' and 'iteration-id' simultaneously.");
		return 1;
	}
	if (s.have_count && !s.have_iter)
		return usage_error(&s, "argument --iteration-count: needs --model-id and --iteration-id");
	if (s.text && s.have_iter)
		return usage_error(&s, "argument --format: 'text' summarizes the whole profile: leave out "
				       "--model-id/--iteration-id");
	struct export_options opt = {
		.type = type,
		.what = s.text ? EXPORT_TEXT_SUMMARY : what,
		.summary_json = s.json,
		.clear = s.clear,
		.select = s.have_iter,
		.model_id = s.model_id,
		.iteration_id = s.iteration_id,
		.iteration_count = s.have_count ? (unsigned)s.count : 1,
		.reports = s.reports != NULL,
	};
	if (s.reports && analysis_read_reports(s.reports, &opt.tracks) < 0)
		return 1;
	return analysis_export(s.dir, &opt);
}
