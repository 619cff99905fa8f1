/* msprof --dynamic=on --list (ours): the processes --pid can attach to with
 * agent data, i.e. those whose msprof agent is connected to msprofd.  CANN
 * msprof has no such option; its documentation lists the targets' sockets
 * with `ls ~/dynamic_profiling_socket_*`.  Any other process of the user
 * can still be attached to for host data. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/console.h"
#include "launcher/runners.h"
#include "launcher/collection.h"

int mode_list_run(const struct msprof_opts *o)
{
	struct collection s;
	struct agent_info *a = NULL;
	size_t n = 0;
	int rc = 1;

	collection_init(&s);
	s.quiet = true;
	if (collection_connect(&s) < 0)
		goto out;
	int r = collection_agents(&s, &a, &n);
	if (r == -EOPNOTSUPP) {
		console_error("this msprofd cannot list agents; use msprof and msprofd from the same release");
		goto out;
	}
	if (r < 0) {
		console_error("cannot list the agents: msprofd did not answer: %s", strerror(-r));
		goto out;
	}
	if (n == 0) {
		console_info("No process has a registered msprof agent; --pid attaches to any process of this user "
			     "for host data.");
	} else {
		printf("%-8s %-8s %-5s %-10s %s\n", "PID", "PPID", "RANK", "STATE", "NAME");
		for (size_t i = 0; i < n; i++) {
			char rank[16] = "-";
			if (a[i].rank >= 0)
				snprintf(rank, sizeof(rank), "%d", a[i].rank);
			printf("%-8d %-8d %-5s %-10s %s\n", (int)a[i].pid, (int)a[i].ppid, rank,
			       a[i].recording ? "recording" : "idle", a[i].name);
		}
	}
	rc = 0;
out:
	free(a);
	collection_release(&s);
	return rc;
}
