/* A program built against NVIDIA's header-only NVTX v3 (nothing of ours
 * linked): the agent comes in only as NVTX_INJECTION64_PATH.  Marks (A, W,
 * Ex with color, category and a registered string), nested push/pop with
 * their levels, a start/end range ended on another thread, a domain with a
 * category name, domain push/pop and start/end, thread and category names,
 * and bad input (pop with nothing pushed, unknown range id, NULL message,
 * destroyed domain).  `check` asserts the file holds exactly that.
 *
 *   nvtx-app run [notool]        prints "pid tid_main tid_thread" (notool:
 *                                no tool is expected, levels not checked)
 *   nvtx-app check DIR PID TID_MAIN TID_THREAD */
#include <wchar.h>

#include "tests/agent/apptest.h"
#include "nvtx3/nvToolsExt.h"

static nvtxRangeId_t xrange;
static bool tool = true; /* false: run without a tool, levels are not tracked */
#define LEVEL(call, want) CHECK(tool ? (call) == (want) : ((void)(call), 1))
static uint32_t thread_tid;

static nvtxEventAttributes_t attr_ascii(const char *msg, uint32_t category, uint32_t argb)
{
	nvtxEventAttributes_t a;
	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.category = category;
	if (argb) {
		a.colorType = NVTX_COLOR_ARGB;
		a.color = argb;
	}
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = msg;
	return a;
}

static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = app_tid();
	LEVEL(nvtxRangePushA("T0"), 0); /* levels are per thread */
	nvtxRangeEnd(xrange);
	LEVEL(nvtxRangePop(), 0);
	return NULL;
}

static int run(void)
{
	nvtxNameOsThreadA(app_tid(), "nv-main");
	nvtxNameCategoryA(7, "cat-seven");
	nvtxMarkA("nv-hello");
	nvtxMarkW(L"wide-\u00fc");
	nvtxEventAttributes_t ex = attr_ascii("nv-ex", 7, 0xff00ff00);
	nvtxMarkEx(&ex);

	LEVEL(nvtxRangePushA("L0"), 0);
	LEVEL(nvtxRangePushA("L1"), 1);
	nvtxEventAttributes_t l2 = attr_ascii("L2", 0, 0xff0000ff);
	LEVEL(nvtxRangePushEx(&l2), 2);
	LEVEL(nvtxRangePop(), 2);
	LEVEL(nvtxRangePop(), 1);
	LEVEL(nvtxRangePop(), 0);
	CHECK(!tool || nvtxRangePop() < 0);                 /* bad: nothing pushed */

	xrange = nvtxRangeStartA("nv-range");
	CHECK(xrange != 0 || !tool);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);

	nvtxDomainHandle_t d = nvtxDomainCreateA("nvdom");
	CHECK(d != NULL || !tool);
	nvtxDomainNameCategoryA(d, 1, "dcat");
	nvtxStringHandle_t s = nvtxDomainRegisterStringA(d, "registered-msg");
	CHECK(s != NULL || !tool);
	nvtxEventAttributes_t reg = attr_ascii(NULL, 1, 0);
	reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	reg.message.registered = s;
	nvtxDomainMarkEx(d, &reg);
	nvtxEventAttributes_t dp = attr_ascii("dpush", 0, 0);
	LEVEL(nvtxDomainRangePushEx(d, &dp), 0);
	LEVEL(nvtxDomainRangePop(d), 0);
	CHECK(!tool || nvtxDomainRangePop(d) < 0);          /* bad: nothing pushed in that domain */
	nvtxEventAttributes_t dr = attr_ascii("drange", 0, 0);
	nvtxRangeId_t drid = nvtxDomainRangeStartEx(d, &dr);
	nvtxDomainRangeEnd(d, drid);

	nvtxRangeEnd(0x4242);                       /* bad: never handed out */
	nvtxMarkA(NULL);                            /* bad: NULL message */
	nvtxDomainDestroy(d);
	nvtxDomainMarkEx(d, &reg);                  /* bad: destroyed domain */

	printf("%u %u %u\n", (unsigned)getpid(), app_tid(), thread_tid);
	return 0;
}

static int check(const char *dir, uint32_t pid, uint32_t tmain, uint32_t tthread)
{
	struct ar_file f;
	app_load(dir, pid, &f);

	CHECK(ar_count(&f, RAW_AGENT_MARK) == 4);
	CHECK(ar_count(&f, RAW_AGENT_RANGE_START) == 7);
	CHECK(ar_count(&f, RAW_AGENT_RANGE_END) == 7);
	CHECK(f.events == 18 && f.dropped == 0 && f.bad == 5 && f.truncated == 0);

	const struct ar_event *e = ar_find(&f, RAW_AGENT_MARK, "nv-hello");
	CHECK(e && e->type == 0 && e->tid == tmain && e->domain == 0);
	e = ar_find(&f, RAW_AGENT_MARK, "wide-\xc3\xbc");
	CHECK(e && e->type == 0);
	e = ar_find(&f, RAW_AGENT_MARK, "nv-ex");
	CHECK(e && e->type == 3 && e->category == 7 && e->color == 0xff00ff00);
	CHECK(ar_category_name(&f, 0, 7) && strcmp(ar_category_name(&f, 0, 7), "cat-seven") == 0);
	CHECK(strcmp(ar_thread_name(&f, tmain), "nv-main") == 0);

	/* push/pop: L0 L1 L2 then three ends, in this order on the main thread */
	const struct ar_event **v;
	size_t n = ar_thread_events(&f, tmain, &v);
	size_t k = 0;
	while (k < n && !(v[k]->rec == RAW_AGENT_RANGE_START && strcmp(v[k]->msg, "L0") == 0))
		k++;
	CHECK(k + 6 <= n);
	CHECK(v[k]->type == 1 && v[k]->id == 0);
	CHECK(strcmp(v[k + 1]->msg, "L1") == 0 && v[k + 1]->type == 1);
	CHECK(strcmp(v[k + 2]->msg, "L2") == 0 && v[k + 2]->color == 0xff0000ff);
	for (size_t j = 3; j < 6; j++)
		CHECK(v[k + j]->rec == RAW_AGENT_RANGE_END && v[k + j]->type == 1 && v[k + j]->domain == 0 &&
		      v[k + j]->id == 0);
	free(v);

	/* the thread's own push/pop, and the range it ended */
	e = ar_find(&f, RAW_AGENT_RANGE_START, "T0");
	CHECK(e && e->tid == tthread && e->type == 1);
	const struct ar_event *rs = ar_find(&f, RAW_AGENT_RANGE_START, "nv-range");
	CHECK(rs && rs->tid == tmain && rs->type == 2);
	const struct ar_event *re = ar_find_end(&f, rs->id);
	CHECK(re && re->tid == tthread && re->type == 2);

	/* the domain */
	uint64_t d = ar_domain_id(&f, "nvdom");
	CHECK(d != 0);
	CHECK(ar_category_name(&f, d, 1) && strcmp(ar_category_name(&f, d, 1), "dcat") == 0);
	e = ar_find(&f, RAW_AGENT_MARK, "registered-msg");
	CHECK(e && e->domain == d && e->type == 3 && e->category == 1);
	e = ar_find(&f, RAW_AGENT_RANGE_START, "dpush");
	CHECK(e && e->domain == d && e->type == 1);
	size_t dom_ends = 0;
	for (size_t i = 0; i < f.n_ev; i++)
		dom_ends += f.ev[i].rec == RAW_AGENT_RANGE_END && f.ev[i].domain == d;
	CHECK(dom_ends == 2);
	e = ar_find(&f, RAW_AGENT_RANGE_START, "drange");
	CHECK(e && e->domain == d && e->type == 2 && ar_find_end(&f, e->id));

	app_check_order(&f, tmain);
	app_check_order(&f, tthread);
	return app_check_ok(&f);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "run") == 0) {
		tool = !(argc > 2 && strcmp(argv[2], "notool") == 0);
		return run();
	}
	if (argc == 6 && strcmp(argv[1], "check") == 0)
		return check(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
	fprintf(stderr, "usage: nvtx-app run | check DIR PID TID_MAIN TID_THREAD\n");
	return 2;
}
