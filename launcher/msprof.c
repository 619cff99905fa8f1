/* msprof: parse the command line, pick the mode, run it. */
#include <signal.h>
#include <stdio.h>

#include "config.h"
#include "launcher/console.h"
#include "launcher/modes.h"
#include "launcher/options.h"
#include "launcher/runners.h"
#include "common/util.h"

/* Indexed by the mode table's enum: the table decides, this only runs. */
static const mode_run_fn mode_runners[_MODE_MAX] = {
	[MODE_LIST] = mode_list_run,
	[MODE_DUMP] = mode_dump_run,
	[MODE_DYNAMIC] = mode_dynamic_run,
	[MODE_LAUNCH] = mode_launch_run,
	[MODE_SYSTEM] = mode_system_run,
	[MODE_HOST_SYS] = mode_hostsys_run,
	[MODE_HOST_SYS_USAGE] = mode_hostsys_run,
	[MODE_PARSE] = mode_parse_run,
	[MODE_QUERY] = mode_query_run,
	[MODE_EXPORT] = mode_export_run,
	[MODE_ANALYZE] = mode_analyze_run,
};

int main(int argc, char **argv)
{
	struct msprof_opts o;
	struct diag d = { 0 };
	const struct mode_def *m;
	int rc;

	/* A closed stdout must not kill msprof while the application runs;
	 * write errors are checked instead.  The application gets SIG_DFL. */
	signal(SIGPIPE, SIG_IGN);

	opts_init(&o);
	if (argc <= 1) {
		/* msprof prints the usage and fails */
		opts_print_help(stderr);
		return 1;
	}
	if (streq(argv[1], COMPLETE_CMD)) {
		/* not in --help: the completion scripts' entry */
		rc = complete_run(argc - 2, argv + 2);
	} else if (self_enable_is(argv[1])) {
		rc = self_enable_run(argc, argv);
	} else if (subcmd_is(argv[1])) {
		rc = subcmd_run(argc, argv);
	} else if (opts_parse(argc, argv, &o, &d) < 0) {
		console_diag(&d);
		rc = 1;
	} else if (o.help) {
		opts_print_help(stdout);
		rc = 0;
	} else if (o.version) {
		printf("msprof %s\n", MSPROF_VERSION);
		rc = 0;
	} else if (mode_select(&o, &m, &d) < 0) {
		console_diag(&d);
		rc = 1;
	} else {
		console_diag(&d);   /* warnings only */
		rc = mode_runners[m->id](&o);
	}
	opts_release(&o);
	return console_finish(rc);
}
