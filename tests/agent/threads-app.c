/* Many threads annotating at once through the mstx API of the preloaded
 * agent: N workers with M marks and M start/end ranges each, some ending
 * early; ranges started on the main thread and ended by the workers; and
 * S short-lived threads one after another (slots are reused).  `check`
 * asserts every thread's events exactly, or with a tiny buffer, that
 * nothing is lost silently: recorded + dropped == issued.
 *
 *   threads-app run N M S     prints "pid tid..." (workers, then short ones)
 *   threads-app check DIR exact|lossy N M S PID TID... */
#include <stdatomic.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"

#define XRANGES 64

static int M;
static mstxRangeId xr[XRANGES];
static uint32_t *tids;

struct arg {
	int k;
};

static void *worker(void *p)
{
	int k = ((struct arg *)p)->k;
	char msg[64];
	tids[k] = app_tid();
	for (int i = 0; i < M; i++) {
		snprintf(msg, sizeof(msg), "w%d-m%d", k, i);
		mstxMarkA(msg, NULL);
		snprintf(msg, sizeof(msg), "w%d-r%d", k, i);
		mstxRangeId r = mstxRangeStartA(msg, NULL);
		mstxRangeEnd(r);
	}
	return NULL;
}

static void *short_lived(void *p)
{
	int k = ((struct arg *)p)->k;
	char msg[64];
	tids[k] = app_tid();
	for (int i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "s%d-%d", k, i);
		mstxMarkA(msg, NULL);
	}
	return NULL;
}

static void *end_one(void *p)
{
	mstxRangeEnd(*(mstxRangeId *)p);
	return NULL;
}

static int run(int n, int m, int s)
{
	M = m;
	tids = calloc((size_t)(n + s), sizeof(*tids));
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	struct arg *args = calloc((size_t)(n + s), sizeof(*args));
	for (int i = 0; i < XRANGES; i++)
		xr[i] = mstxRangeStartA("xrange", NULL);
	for (int k = 0; k < n; k++) {
		args[k].k = k;
		CHECK(pthread_create(&th[k], NULL, worker, &args[k]) == 0);
	}
	for (int k = 0; k < n; k++)
		CHECK(pthread_join(th[k], NULL) == 0);
	for (int k = 0; k < s; k++) {
		args[n + k].k = n + k;
		pthread_t t;
		CHECK(pthread_create(&t, NULL, short_lived, &args[n + k]) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	/* the main thread's ranges end on threads that did not start them */
	for (int i = 0; i < XRANGES; i++) {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, end_one, &xr[i]) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	printf("%u", (unsigned)getpid());
	for (int k = 0; k < n + s; k++)
		printf(" %u", tids[k]);
	printf("\n");
	free(th);
	free(args);
	free(tids);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int check(const char *dir, bool exact, int n, int m, int s, uint32_t pid, char **tidv)
{
	struct ar_file f;
	app_load(dir, pid, &f);
	uint64_t issued = (uint64_t)n * m * 3 + (uint64_t)s * 5 + 2 * XRANGES;
	uint64_t recorded = ar_count(&f, RAW_AGENT_MARK) + ar_count(&f, RAW_AGENT_RANGE_START) +
			    ar_count(&f, RAW_AGENT_RANGE_END);
	printf("issued=%llu recorded=%llu dropped=%llu\n", (unsigned long long)issued,
	       (unsigned long long)recorded, (unsigned long long)f.dropped);
	CHECK(f.events == recorded);
	CHECK(recorded + f.dropped == issued);
	CHECK(f.bad == 0 && f.truncated == 0);
	/* no END without its START (a dropped start drops its end): the
	 * sorted ids of the ENDs are a subset of those of the STARTs */
	uint64_t *starts = calloc(f.n_ev + 1, sizeof(*starts)), *ends = calloc(f.n_ev + 1, sizeof(*ends));
	size_t ns = 0, ne = 0;
	for (size_t i = 0; i < f.n_ev; i++) {
		if (f.ev[i].rec == RAW_AGENT_RANGE_START)
			starts[ns++] = f.ev[i].id;
		else if (f.ev[i].rec == RAW_AGENT_RANGE_END)
			ends[ne++] = f.ev[i].id;
	}
	qsort(starts, ns, sizeof(*starts), cmp_u64);
	qsort(ends, ne, sizeof(*ends), cmp_u64);
	for (size_t i = 0, j = 0; i < ne; i++) {
		while (j < ns && starts[j] < ends[i])
			j++;
		CHECK(j < ns && starts[j] == ends[i]);
	}
	free(starts);
	free(ends);
	for (int k = 0; k < n + s; k++) {
		uint32_t tid = (uint32_t)atoi(tidv[k]);
		const struct ar_event **v;
		size_t cnt = ar_thread_events(&f, tid, &v);
		CHECK(ar_thread_name(&f, tid) != NULL);
		app_check_order(&f, tid);
		if (exact && k < n) {
			/* mark i, start i, end i, in order, messages exact */
			CHECK(cnt == (size_t)m * 3);
			for (int i = 0; i < m; i++) {
				char want[64];
				snprintf(want, sizeof(want), "w%d-m%d", k, i);
				CHECK(v[3 * i]->rec == RAW_AGENT_MARK && strcmp(v[3 * i]->msg, want) == 0);
				snprintf(want, sizeof(want), "w%d-r%d", k, i);
				CHECK(v[3 * i + 1]->rec == RAW_AGENT_RANGE_START && strcmp(v[3 * i + 1]->msg, want) == 0);
				CHECK(v[3 * i + 2]->rec == RAW_AGENT_RANGE_END && v[3 * i + 2]->id == v[3 * i + 1]->id);
			}
		} else if (exact) {
			CHECK(cnt == 5);
		}
		free(v);
	}
	if (exact) {
		/* the main thread's ranges, each ended by another thread */
		size_t xs = 0;
		for (size_t i = 0; i < f.n_ev; i++) {
			if (f.ev[i].rec != RAW_AGENT_RANGE_START || strcmp(f.ev[i].msg, "xrange") != 0)
				continue;
			const struct ar_event *e = ar_find_end(&f, f.ev[i].id);
			CHECK(e && e->tid != f.ev[i].tid);
			xs++;
		}
		CHECK(xs == XRANGES);
		CHECK(f.dropped == 0);
	}
	return app_check_ok(&f);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "run") == 0)
		return run(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc >= 8 && strcmp(argv[1], "check") == 0 && argc == 8 + atoi(argv[4]) + atoi(argv[6]))
		return check(argv[2], strcmp(argv[3], "exact") == 0, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]),
			     (uint32_t)atoi(argv[7]), argv + 8);
	fprintf(stderr, "usage: threads-app run N M S | check DIR exact|lossy N M S PID TID...\n");
	return 2;
}
