/* test-capture-app: a job that starts and stops its own collection
 * (msprof/control.h; tests/integration/capture.sh).  Twice: msprofStart,
 * a pause for the window to open, marks "in<W>-<i>" every 10 ms for
 * 300 ms, msprofStop, a pause; marks "out-<i>" before, between and after.
 * Prints each call's return value ("start 0", "stop 0"; -ENOTCONN without
 * msprof) and the marks it made of each kind ("marks in1 N").
 *
 * test-capture-app range NAME N: N iterations, each an mstx range NAME (a
 * pause, then marks "in<I>-<i>" for 200 ms), then a pause and 300 ms of
 * marks "out<I>-<i>": for --capture-range=mstx:NAME.  Prints "marks in<I> N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int ranges(const char *name, int n)
{
	for (int i = 0; i < n; i++) {
		char kind[16];
		mstxRangeId r = mstxRangeStartA(name, NULL);
		sleep_ms(400);
		snprintf(kind, sizeof kind, "in%d", i);
		printf("marks %s %u\n", kind, marks(kind, 200));
		mstxRangeEnd(r);
		sleep_ms(300); /* the window closes a moment after the range */
		snprintf(kind, sizeof kind, "out%d", i);
		marks(kind, 300);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && strcmp(argv[1], "range") == 0)
		return ranges(argv[2], atoi(argv[3]));
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
