/* msprof --dump --pid=P (ours): the flight recorder of the job P belongs
 * to (msprof --flight-recorder, common/flight-recorder.h) writes out what
 * it holds now.  msprofd finds the session whose tree holds P and tells its
 * msprof, which writes the dump into its own --output and says where. */
#include <stdio.h>

#include "launcher/collection.h"
#include "launcher/console.h"
#include "launcher/runners.h"

int mode_dump_run(const struct msprof_opts *o)
{
	struct collection s;
	char why[256] = "";
	pid_t owner = 0;
	int rc = 1;

	collection_init(&s);
	s.quiet = true;
	if (collection_connect(&s) < 0)
		goto out;
	if (collection_ask_dump(&s, o->pids[0], &owner, why, sizeof why) < 0) {
		console_error("cannot dump for process %d: %s", (int)o->pids[0], why);
		goto out;
	}
	console_info("Dump asked of the flight recorder of process %d: msprof (pid %d) writes it into its "
		     "--output and names it there.", (int)o->pids[0], (int)owner);
	rc = 0;
out:
	collection_release(&s);
	return rc;
}
