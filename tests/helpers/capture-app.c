/* test-capture-app: a job that starts and stops its own collection
 * (msprof/control.h; tests/integration/capture.sh).  Twice: msprofStart,
 * a pause for the window to open, marks "in<W>-<i>" every 10 ms for
 * 300 ms, msprofStop, a pause; marks "out-<i>" before, between and after.
 * Prints each call's return value ("start 0", "stop 0"; -ENOTCONN without
 * msprof) and the marks it made of each kind ("marks in1 N").
 *
 * test-capture-app range NAME N: N iterations, each an mstx range NAME (a
 * pause, then marks "in<I>-<i>" for 200 ms), then a pause and 300 ms of
 * marks "out<I>-<i>": for --capture-range=mstx:NAME.  Prints "marks in<I> N".
 *
 * test-capture-app cuda N: the same iterations, each between
 * cudaProfilerStart and cudaProfilerStop instead of a range, for
 * --capture-range=cudaProfilerApi.  It does first what the CUDA driver does
 * at cuInit (load CUDA_INJECTION64_PATH, call its InitializeInjection), and
 * takes the two calls from the fake CUPTI (MSPROF_CUPTI_LIBRARY), which
 * stands for the CUDA runtime there.
 *
 * test-capture-app steps N [MS [HANG_AT HANG_MS]]: N training steps, step
 * i begun by mstxStep(i) and the last ended by mstxStepEnd, each MS ms
 * (default 150) of marks "s<i>-<j>" every 10 ms, for --schedule; step
 * HANG_AT also waits HANG_MS ms after its marks (a rank that hangs), and
 * with "kill" after it then kills itself with SIGKILL (a rank that dies),
 * with "fail" exits with status 3 (a rank that fails).
 * Prints "marks s<i> N" per step. */
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
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

static int (*profiler_start)(void), (*profiler_stop)(void);

/* CUDA's side of cudaProfilerApi: injection, then the fake runtime's calls */
static int cuda_init(void)
{
	const char *inject = getenv("CUDA_INJECTION64_PATH"), *cupti = getenv("MSPROF_CUPTI_LIBRARY");
	void *h = inject ? dlopen(inject, RTLD_NOW) : NULL, *c = cupti ? dlopen(cupti, RTLD_NOW) : NULL;
	int (*init)(void) = NULL;
	if (h)
		*(void **)&init = dlsym(h, "InitializeInjection");
	if (c) {
		*(void **)&profiler_start = dlsym(c, "cudaProfilerStart");
		*(void **)&profiler_stop = dlsym(c, "cudaProfilerStop");
	}
	if (!init || !profiler_start || !profiler_stop) {
		fprintf(stderr, "test-capture-app: needs CUDA_INJECTION64_PATH and MSPROF_CUPTI_LIBRARY (the fake "
				"CUPTI): %s\n", dlerror());
		return -1;
	}
	return init() == 1 ? 0 : -1;
}

static int ranges(const char *name, int n)
{
	bool cuda = strcmp(name, "cuda") == 0;
	if (cuda && cuda_init() < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		char kind[16];
		mstxRangeId r = 0;
		if (cuda)
			printf("cudaProfilerStart %d\n", profiler_start());
		else
			r = mstxRangeStartA(name, NULL);
		sleep_ms(400);
		snprintf(kind, sizeof kind, "in%d", i);
		printf("marks %s %u\n", kind, marks(kind, 200));
		if (cuda)
			printf("cudaProfilerStop %d\n", profiler_stop());
		else
			mstxRangeEnd(r);
		sleep_ms(300); /* the window closes a moment after the range */
		snprintf(kind, sizeof kind, "out%d", i);
		marks(kind, 300);
	}
	return 0;
}

static int steps(int n, unsigned ms, int hang_at, unsigned hang_ms, const char *end)
{
	for (int i = 0; i < n; i++) {
		char kind[16];
		mstxStep((uint64_t)i);
		snprintf(kind, sizeof kind, "s%d", i);
		printf("marks %s %u\n", kind, marks(kind, ms));
		if (i == hang_at)
			sleep_ms(hang_ms);
		if (i == hang_at && strcmp(end, "kill") == 0)
			raise(SIGKILL);
		if (i == hang_at && strcmp(end, "fail") == 0)
			exit(3);
	}
	if (n > 0)
		mstxStepEnd((uint64_t)n - 1);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && strcmp(argv[1], "range") == 0)
		return ranges(argv[2], atoi(argv[3]));
	if ((argc == 3 || argc == 4 || argc == 6 ||
	     (argc == 7 && (strcmp(argv[6], "kill") == 0 || strcmp(argv[6], "fail") == 0))) &&
	    strcmp(argv[1], "steps") == 0)
		return steps(atoi(argv[2]), argc >= 4 ? (unsigned)atoi(argv[3]) : 150, argc >= 6 ? atoi(argv[4]) : -1,
			     argc >= 6 ? (unsigned)atoi(argv[5]) : 0, argc == 7 ? argv[6] : "");
	if (argc == 3 && strcmp(argv[1], "cuda") == 0)
		return ranges("cuda", atoi(argv[2]));
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
