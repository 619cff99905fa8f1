/* Event times against the program's own clock: marks made between two
 * clock_gettime(CLOCK_MONOTONIC) reads, paced by random sleeps of up to
 * 2.5 ms over about a second and a half (so that they fall into many of the
 * writer's drains), with bursts of start/end ranges between them that
 * span drains too.
 *
 *   clock-app run N OUT          N marks ("c<i>"), a burst of BURST ranges
 *                                before every 50th; OUT gets the pid, then
 *                                "i before after" per mark (CLOCK_MONOTONIC ns)
 *   clock-app check DIR OUT TOL  every mark in the file, its time within TOL
 *                                ns of its two reads; every range's end at
 *                                or after its start (the thread's events in
 *                                time order); prints the largest error */
#include <inttypes.h>
#include <time.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"
#include "common/util.h"

#define BURST 20000

static int run(int n, const char *out)
{
	FILE *f = fopen(out, "w");
	CHECK(f);
	fprintf(f, "%d\n", (int)getpid());
	for (int i = 0; i < n; i++) {
		if (i % 50 == 0)
			for (int k = 0; k < BURST; k++)
				mstxRangeEnd(mstxRangeStartA("r", NULL));
		char msg[32];
		snprintf(msg, sizeof msg, "c%d", i);
		uint64_t before = mono_ns();
		mstxMarkA(msg, NULL);
		uint64_t after = mono_ns();
		fprintf(f, "%d %" PRIu64 " %" PRIu64 "\n", i, before, after);
		struct timespec ts = { 0, (long)(rnd() % 2500000) };
		nanosleep(&ts, NULL);
	}
	CHECK(fclose(f) == 0);
	return 0;
}

static int check(const char *dir, const char *out, uint64_t tol)
{
	FILE *f = fopen(out, "r");
	CHECK(f);
	int pid, n = 0;
	CHECK(fscanf(f, "%d", &pid) == 1);
	uint64_t (*truth)[2] = NULL;
	int i;
	uint64_t b, a;
	while (fscanf(f, "%d %" SCNu64 " %" SCNu64, &i, &b, &a) == 3) {
		CHECK(i == n);
		truth = realloc(truth, (size_t)(n + 1) * sizeof(*truth));
		CHECK(truth);
		truth[n][0] = b;
		truth[n][1] = a;
		n++;
	}
	fclose(f);
	CHECK(n > 0);

	struct ar_file af;
	app_load(dir, (uint32_t)pid, &af);
	uint64_t worst = 0;
	int seen = 0, starts = 0, ends = 0;
	for (size_t k = 0; k < af.n_ev; k++) {
		const struct ar_event *e = &af.ev[k];
		if (e->rec == RAW_AGENT_RANGE_START)
			starts++;
		else if (e->rec == RAW_AGENT_RANGE_END)
			ends++;
		if (e->rec != RAW_AGENT_MARK)
			continue;
		CHECK(e->msg && e->msg[0] == 'c');
		int m = atoi(e->msg + 1);
		CHECK(m >= 0 && m < n);
		uint64_t err = e->ts < truth[m][0] ? truth[m][0] - e->ts : e->ts > truth[m][1] ? e->ts - truth[m][1] : 0;
		if (err > tol)
			fprintf(stderr, "mark c%d at %" PRIu64 ", made between %" PRIu64 " and %" PRIu64 "\n", m, e->ts,
				truth[m][0], truth[m][1]);
		CHECK(err <= tol);
		if (err > worst)
			worst = err;
		seen++;
	}
	CHECK(seen == n);
	int bursts = (n + 49) / 50;
	CHECK(starts == bursts * BURST && ends == starts);
	app_check_order(&af, (uint32_t)pid);
	printf("%d marks within %" PRIu64 " ns of the program's clock reads around them (at most %" PRIu64
	       " ns); %d ranges, every thread's events in time order\n",
	       n, tol, worst, starts);
	free(truth);
	return app_check_ok(&af);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "run") == 0)
		return run(atoi(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "check") == 0)
		return check(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	fprintf(stderr, "usage: clock-app run N OUT | check DIR OUT TOL_NS\n");
	return 2;
}
