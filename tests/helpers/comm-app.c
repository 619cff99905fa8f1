/* test-comm-app: marks communication operations as torch_npu does, through
 * the mstx API: each argument is the message of one range in the domain
 * "communication", started, held about 1 ms and ended, one after another
 * on the main thread; "mark:<msg>" is a mark in that domain instead.
 * Without the agent the calls are no-ops (tests/integration/comm-mstx.sh). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mstx/ms_tools_ext.h"

int main(int argc, char **argv)
{
	mstxDomainHandle_t comm = mstxDomainCreateA("communication");
	struct timespec ms = { 0, 1000000L };
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "mark:", 5) == 0) {
			mstxDomainMarkA(comm, argv[i] + 5, NULL);
			continue;
		}
		mstxRangeId id = mstxDomainRangeStartA(comm, argv[i], NULL);
		nanosleep(&ms, NULL);
		mstxDomainRangeEnd(comm, id);
		nanosleep(&ms, NULL);
	}
	return 0;
}
