/* The other analysis modes: msprof --parse=on, --query=on and --analyze=on
 * with --output=<PROF dir|parent>. */
#include <stdlib.h>

#include "launcher/analysis.h"
#include "launcher/app.h"
#include "launcher/console.h"
#include "launcher/runners.h"

/* The checked --output, or NULL after printing why. */
static char *analysis_dir(const struct msprof_opts *o)
{
	struct diag d = { 0 };
	char *dir = NULL;
	if (output_check_analysis(o, &dir, &d) < 0) {
		console_diag(&d);
		return NULL;
	}
	return dir;
}

int mode_parse_run(const struct msprof_opts *o)
{
	char *dir = analysis_dir(o);
	if (!dir)
		return 1;
	console_info("Start profiling....");
	int rc = analysis_parse(dir);
	if (rc == 0)
		console_data_saved(dir);
	free(dir);
	return rc;
}

int mode_query_run(const struct msprof_opts *o)
{
	char *dir = analysis_dir(o);
	if (!dir)
		return 1;
	int rc = analysis_query(dir);
	free(dir);
	return rc;
}

int mode_analyze_run(const struct msprof_opts *o)
{
	char *dir = analysis_dir(o);
	if (!dir)
		return 1;
	/* msprof's default rule set: both */
	int rc = analysis_analyze(dir, o->rules ? o->rules : RULE_COMMUNICATION | RULE_COMMUNICATION_MATRIX,
				  o->clear, o->type == OUT_DB);
	free(dir);
	return rc;
}
