/* Computation and communication for tests/agent/agent-overlap.sh, run under
 * msprof --msproftx=on: N steps ("step i" ranges), each
 *   main thread:  2 ms before anything, range "forward" (computing) 10 ms,
 *                 then, once the helper is done, range "HcclRecv"
 *                 in the domain "communication" 3 ms, 2 ms after it;
 *   helper thread: from the step's start, 7 ms, then range
 *                 "HcclAllreduce" in the domain "communication"
 *                 8 ms (about 5 ms of it during "forward").
 * It prints each range as it measured it, CLOCK_REALTIME ns taken just
 * before the start call and just after the end call:
 *   step <i> <start> <end>
 *   compute <start> <end>
 *   comm <start> <end> <name>
 * the ground truth the test computes the expected overlap from. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mstx/ms_tools_ext.h"

static mstxDomainHandle_t comm_domain;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One range of ms in domain d (NULL: the default one), printed as kind. */
static void range(mstxDomainHandle_t d, const char *kind, const char *name, long ms)
{
	int64_t s = now_ns();
	mstxRangeId id = d ? mstxDomainRangeStartA(d, name, NULL) : mstxRangeStartA(name, NULL);
	pause_ms(ms);
	if (d)
		mstxDomainRangeEnd(d, id);
	else
		mstxRangeEnd(id);
	int64_t e = now_ns();
	if (d)
		printf("%s %" PRId64 " %" PRId64 " %s\n", kind, s, e, name);
	else
		printf("%s %" PRId64 " %" PRId64 "\n", kind, s, e);
}

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER; /* one line at a time */

static void *helper(void *arg)
{
	(void)arg;
	pause_ms(7);
	int64_t s = now_ns();
	mstxRangeId id = mstxDomainRangeStartA(comm_domain, "HcclAllreduce", NULL);
	pause_ms(8);
	mstxDomainRangeEnd(comm_domain, id);
	int64_t e = now_ns();
	pthread_mutex_lock(&out_mu);
	printf("comm %" PRId64 " %" PRId64 " HcclAllreduce\n", s, e);
	pthread_mutex_unlock(&out_mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	comm_domain = mstxDomainCreateA("communication");
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "step %d", i);
		int64_t s = now_ns();
		mstxRangeId step = mstxRangeStartA(name, NULL);
		pthread_t t;
		if (pthread_create(&t, NULL, helper, NULL) != 0)
			return 1;
		pause_ms(2);
		int64_t fs = now_ns();
		mstxRangeId f = mstxRangeStartA("forward", NULL);
		pause_ms(10);
		mstxRangeEnd(f);
		int64_t fe = now_ns();
		pthread_mutex_lock(&out_mu);
		printf("compute %" PRId64 " %" PRId64 "\n", fs, fe);
		pthread_mutex_unlock(&out_mu);
		pthread_join(t, NULL);
		range(comm_domain, "comm", "HcclRecv", 3);
		pause_ms(2);
		mstxRangeEnd(step);
		printf("step %d %" PRId64 " %" PRId64 "\n", i, s, now_ns());
	}
	mstxDomainDestroy(comm_domain);
	return fflush(stdout) == 0 ? 0 : 1;
}
