/* A program annotated through OUR mstx header and libms_tools_ext: marks,
 * nested ranges, a domain, a range ended on another thread, and bad input
 * (NULL message, unknown range id, a destroyed domain, a message over
 * RAW_AGENT_MAX_STR).  The script runs it with the agent preloaded, with the
 * agent only as MSTX_INJECTION_PATH, with a domain filter, and without the
 * agent; `check` asserts the file holds exactly what `run` did.
 *
 *   mstx-app run                prints "pid tid_main tid_thread tool_id"
 *   mstx-app check DIR PID TID_MAIN TID_THREAD all|exclude-io */
#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"

static mstxRangeId xthread_id;
static uint32_t thread_tid;

static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = app_tid();
	mstxMarkA("from-thread", NULL);
	mstxRangeEnd(xthread_id); /* started on the main thread */
	return NULL;
}

static int run(void)
{
	uint64_t tool = 0;
	mstxGetToolId(&tool);

	mstxMarkA("hello", NULL);
	mstxMarkA(NULL, NULL);                      /* bad: NULL message */
	mstxRangeId outer = mstxRangeStartA("outer", NULL);
	mstxRangeId inner = mstxRangeStartA("inner", NULL);
	mstxRangeEnd(inner);
	mstxRangeEnd(outer);
	mstxRangeEnd(0x12345);                      /* bad: never handed out */
	mstxRangeEnd(inner);                        /* bad: ended already */
	mstxRangeEnd(0);                            /* ignored: what idle returns */

	mstxDomainHandle_t io = mstxDomainCreateA("io");
	CHECK(io != NULL || tool == MSTX_TOOL_INVALID_ID);
	CHECK(mstxDomainCreateA("io") == io);       /* same name, same domain */
	mstxDomainMarkA(io, "dmark", NULL);
	mstxRangeId dr = mstxDomainRangeStartA(io, "drange", NULL);
	mstxDomainRangeEnd(io, dr);

	char longmsg[2000];
	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = 0;
	mstxMarkA(longmsg, NULL);                   /* cut to 1024, counted */

	xthread_id = mstxRangeStartA("xthread", NULL);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);

	mstxDomainDestroy(io);
	mstxDomainMarkA(io, "after-destroy", NULL); /* bad: destroyed domain */
	mstxDomainDestroy(io);                      /* bad: destroyed already */

	printf("%u %u %u %llu\n", (unsigned)getpid(), app_tid(), thread_tid, (unsigned long long)tool);
	return 0;
}

static int check(const char *dir, uint32_t pid, uint32_t tmain, uint32_t tthread, const char *variant)
{
	bool io_on = strcmp(variant, "exclude-io") != 0;
	struct ar_file f;
	app_load(dir, pid, &f);

	CHECK(f.rank == -1);
	CHECK(f.name && strcmp(f.name, "mstx-app") == 0);
	CHECK(f.cmdline && strstr(f.cmdline, "mstx-app run"));

	/* exact counts */
	size_t marks = io_on ? 4 : 3, ranges = io_on ? 4 : 3;
	CHECK(ar_count(&f, RAW_AGENT_MARK) == marks);
	CHECK(ar_count(&f, RAW_AGENT_RANGE_START) == ranges);
	CHECK(ar_count(&f, RAW_AGENT_RANGE_END) == ranges);
	CHECK(f.events == marks + 2 * ranges);
	CHECK(f.dropped == 0);
	CHECK(f.bad == 5);
	CHECK(f.truncated == 1);

	/* messages, event types, domains */
	const struct ar_event *hello = ar_find(&f, RAW_AGENT_MARK, "hello");
	CHECK(hello && hello->tid == tmain && hello->type == 0 && hello->domain == 0 && hello->id == 0);
	const struct ar_event *o = ar_find(&f, RAW_AGENT_RANGE_START, "outer");
	const struct ar_event *in = ar_find(&f, RAW_AGENT_RANGE_START, "inner");
	CHECK(o && in && o->type == 2 && in->type == 2 && o->id && in->id && o->id != in->id);
	const struct ar_event *oe = ar_find_end(&f, o->id), *ie = ar_find_end(&f, in->id);
	CHECK(oe && ie && oe->type == 2 && oe->tid == tmain && ie->tid == tmain);
	/* nesting: outer starts, inner starts, inner ends, outer ends */
	CHECK(o->ts <= in->ts && in->ts <= ie->ts && ie->ts <= oe->ts);
	CHECK(o < in && in < ie && ie < oe); /* and in that order in the file */

	uint64_t io = ar_domain_id(&f, "io");
	CHECK(io != 0 && strcmp(ar_domain_name(&f, io), "io") == 0);
	const struct ar_event *dm = ar_find(&f, RAW_AGENT_MARK, "dmark");
	const struct ar_event *ds = ar_find(&f, RAW_AGENT_RANGE_START, "drange");
	if (io_on) {
		CHECK(dm && dm->domain == io && dm->tid == tmain);
		CHECK(ds && ds->domain == io);
		const struct ar_event *de = ar_find_end(&f, ds->id);
		CHECK(de && de->domain == io);
	} else {
		CHECK(!dm && !ds);
	}
	CHECK(!ar_find(&f, RAW_AGENT_MARK, "after-destroy"));

	/* the long message: cut to exactly RAW_AGENT_MAX_STR bytes */
	const struct ar_event *lm = NULL;
	for (size_t i = 0; i < f.n_ev; i++)
		if (f.ev[i].rec == RAW_AGENT_MARK && f.ev[i].msg && f.ev[i].msg[0] == 'x')
			lm = &f.ev[i];
	CHECK(lm && lm->msg_len == RAW_AGENT_MAX_STR && strspn(lm->msg, "x") == RAW_AGENT_MAX_STR);

	/* cross-thread: started on main, ended on the thread */
	const struct ar_event *xs = ar_find(&f, RAW_AGENT_RANGE_START, "xthread");
	CHECK(xs && xs->tid == tmain);
	const struct ar_event *xe = ar_find_end(&f, xs->id);
	CHECK(xe && xe->tid == tthread && xe->ts >= xs->ts);
	const struct ar_event *ft = ar_find(&f, RAW_AGENT_MARK, "from-thread");
	CHECK(ft && ft->tid == tthread);

	/* thread names: both threads described */
	CHECK(ar_thread_name(&f, tmain) && strcmp(ar_thread_name(&f, tmain), "mstx-app") == 0);
	CHECK(ar_thread_name(&f, tthread) != NULL);
	app_check_order(&f, tmain);
	app_check_order(&f, tthread);
	return app_check_ok(&f);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run();
	if (argc == 7 && strcmp(argv[1], "check") == 0)
		return check(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]),
			     argv[6]);
	fprintf(stderr, "usage: mstx-app run | check DIR PID TID_MAIN TID_THREAD all|exclude-io\n");
	return 2;
}
