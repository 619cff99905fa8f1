/* Export mode: msprof --export=on --output=<PROF dir|parent> [--type=text|db]
 * [--model-id=M --iteration-id=N] [--summary-format=csv|json] [--clear=on]
 * [--reports=<json>].  Exports every PROF_* directory found (the one given,
 * or those directly under it), parsing its raw data first unless its
 * database is current.  torch_npu runs this and then polls
 * mindstudio_profiler_output/, so it must exit 0 on success. */
#include <stdlib.h>

#include "launcher/analysis.h"
#include "launcher/app.h"
#include "launcher/console.h"
#include "launcher/runners.h"

int mode_export_run(const struct msprof_opts *o)
{
	struct diag d = { 0 };
	char *dir = NULL;
	if (output_check_analysis(o, &dir, &d) < 0) {
		console_diag(&d);
		return 1;
	}
	struct export_options opt = {
		.type = o->type == OUT_DB ? EXPORT_DB : EXPORT_TEXT,
		.summary_json = o->summary_json,
		.clear = o->clear,
		.select = opts_used(o, OPT_MODEL_ID),
		.model_id = o->model_id,
		.iteration_id = o->iteration_id,
		.iteration_count = 1,
		.reports = o->reports != NULL,
		.what = o->summary_off ? 0 : EXPORT_ALL | EXPORT_TEXT_SUMMARY,
	};
	if (o->reports && analysis_read_reports(o->reports, &opt.tracks) < 0) {
		free(dir);
		return 1;
	}
	/* msprof prints this for every mode, the analysis ones included */
	console_info("Start profiling....");
	int rc = analysis_export(dir, &opt);
	if (rc == 0)
		console_data_saved(dir);
	free(dir);
	return rc;
}
