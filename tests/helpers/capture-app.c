/* test-capture-app: a job that starts and stops its own collection
 * (msprof/control.h; tests/integration/capture.sh).  Twice: msprofStart,
 * a pause for the window to open, marks "in<W>-<i>" every 10 ms for
 * 300 ms, msprofStop, a pause; marks "out-<i>" before, between and after.
 * Prints each call's return value ("start 0", "stop 0"; -ENOTCONN without
 * msprof) and the marks it made of each kind ("marks in1 N"). */
#include <stdio.h>

#include "msprof/control.h"
#include "mstx/ms_tools_ext.h"
#include "tests/helpers/workload.h"

static unsigned marks(const char *kind, unsigned ms)
{
	char msg[32];
	unsigned n = 0;
	for (unsigned t = 0; t < ms; t += 10, n++) {
		snprintf(msg, sizeof msg, "%s-%u", kind, n);
		mstxMarkA(msg, NULL);
		sleep_ms(10);
	}
	return n;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	unsigned out = marks("out", 100);
	for (int w = 1; w <= 2; w++) {
		printf("start %d\n", msprofStart());
		sleep_ms(600);
		char kind[8];
		snprintf(kind, sizeof kind, "in%d", w);
		printf("marks %s %u\n", kind, marks(kind, 300));
		printf("stop %d\n", msprofStop());
		sleep_ms(600);
		out += marks("out", 100);
	}
	printf("marks out %u\n", out);
	return 0;
}
