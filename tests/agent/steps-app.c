/* Training steps for tests/agent/agent-steps.sh, run under msprof:
 *   steps-app ranges N    steps 0..N-1 as mstx ranges "step i" (the last
 *                         one "ProfilerStep#<N-1>", torch's name), each
 *                         holding a mark "work" and a range "inner"
 *   steps-app explicit N  the same steps started by mstxStep(i); a push
 *                         range "between" after the last step ends it
 *   steps-app fork        a child with RANK=1 annotates "step 0" and a
 *                         mark; the parent (its own rank) steps 0 and 1
 * Every step sleeps 2 ms so that steps have a visible length. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static void body(void)
{
	mstxMarkA("work", NULL);
	mstxRangeId r = mstxRangeStartA("inner", NULL);
	pause_ms(2);
	mstxRangeEnd(r);
}

static void ranges(int n)
{
	for (int i = 0; i < n; i++) {
		char name[32];
		if (i == n - 1)
			snprintf(name, sizeof name, "ProfilerStep#%d", i);
		else
			snprintf(name, sizeof name, "step %d", i);
		mstxRangeId s = mstxRangeStartA(name, NULL);
		body();
		mstxRangeEnd(s);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "ranges") == 0) {
		ranges(atoi(argv[2]));
	} else if (argc == 3 && strcmp(argv[1], "explicit") == 0) {
		int n = atoi(argv[2]);
		for (int i = 0; i < n; i++) {
			mstxStep((uint64_t)i);
			body();
		}
		mstxRangeId r = mstxRangeStartA("after", NULL);
		mstxRangeEnd(r);
	} else if (argc == 2 && strcmp(argv[1], "fork") == 0) {
		pid_t c = fork();
		if (c < 0)
			return 1;
		if (c == 0) {
			setenv("RANK", "1", 1);
			ranges(1);
			exit(0); /* not _exit: the agent's exit handler writes the last events */
		}
		int st;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
		ranges(2);
		printf("child %d\n", (int)c);
	} else {
		fprintf(stderr, "usage: steps-app ranges|explicit N | fork\n");
		return 2;
	}
	return 0;
}
