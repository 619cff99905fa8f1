/* A program with its own mstx loader, written the way CANN's header-only
 * ms_tools_ext.h loads a tool (reference §6): function-pointer slots, one
 * table per module whose entry i points at slot i (entries 0 and *_SIZE
 * NULL), getModuleFuncTable returning MSTX_SUCCESS and the slot count, and
 * dlopen($MSTX_INJECTION_PATH) + dlsym("InitInjectionMstx").  Nothing of
 * ours is linked: it checks the agent against the protocol itself.
 *
 *   mstx-loader-app run          prints "pid tid"
 *   mstx-loader-app check DIR PID TID */
#include <dlfcn.h>

#include "tests/agent/apptest.h"

typedef uint64_t range_id;
typedef void (*fnptr)(void);
enum { CORE_SIZE = 5, CORE2_SIZE = 6, MEM_SIZE = 5 };

static struct {
	void (*mark)(const char *, void *);
	range_id (*range_start)(const char *, void *);
	void (*range_end)(range_id);
	void (*get_tool_id)(uint64_t *);
	void *(*domain_create)(const char *);
	void (*domain_destroy)(void *);
	void (*domain_mark)(void *, const char *, void *);
	range_id (*domain_range_start)(void *, const char *, void *);
	void (*domain_range_end)(void *, range_id);
	fnptr mem[4];
} ctx;

static fnptr *core[CORE_SIZE + 1] = {
	NULL, (fnptr *)&ctx.mark, (fnptr *)&ctx.range_start, (fnptr *)&ctx.range_end, (fnptr *)&ctx.get_tool_id, NULL,
};
static fnptr *core2[CORE2_SIZE + 1] = {
	NULL, (fnptr *)&ctx.domain_create, (fnptr *)&ctx.domain_destroy, (fnptr *)&ctx.domain_mark,
	(fnptr *)&ctx.domain_range_start, (fnptr *)&ctx.domain_range_end, NULL,
};
static fnptr *mem[MEM_SIZE + 1] = {
	NULL, &ctx.mem[0], &ctx.mem[1], &ctx.mem[2], &ctx.mem[3], NULL,
};
static unsigned asked[4];

static int get_table(int module, fnptr ***out, unsigned *size)
{
	if (module < 1 || module > 3 || !out || !size)
		return 1; /* MSTX_FAIL */
	asked[module]++;
	*out = module == 1 ? core : module == 2 ? core2 : mem;
	*size = module == 1 ? CORE_SIZE : module == 2 ? CORE2_SIZE : MEM_SIZE;
	return 0; /* MSTX_SUCCESS */
}

static int run(void)
{
	const char *path = getenv("MSTX_INJECTION_PATH");
	CHECK(path != NULL);
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	CHECK(h != NULL);
	int (*init)(int (*)(int, fnptr ***, unsigned *));
	void *sym = dlsym(h, "InitInjectionMstx");
	CHECK(sym != NULL);
	memcpy(&init, &sym, sizeof(init));
	CHECK(init(get_table) == 0);

	/* the agent asked for CORE and CORE_DOMAIN, filled every slot there,
	 * left the memory module alone and never wrote the NULL ends */
	CHECK(asked[1] == 1 && asked[2] == 1);
	CHECK(ctx.mark && ctx.range_start && ctx.range_end && ctx.get_tool_id);
	CHECK(ctx.domain_create && ctx.domain_destroy && ctx.domain_mark && ctx.domain_range_start &&
	      ctx.domain_range_end);
	for (int i = 0; i < 4; i++)
		CHECK(ctx.mem[i] == NULL);
	CHECK(core[0] == NULL && core[CORE_SIZE] == NULL && core2[0] == NULL && core2[CORE2_SIZE] == NULL);

	uint64_t tool = 0;
	ctx.get_tool_id(&tool);
	CHECK(tool == 0x1000);
	ctx.mark("loader-mark", NULL);
	range_id r = ctx.range_start("loader-range", NULL);
	CHECK(r != 0);
	ctx.range_end(r);
	void *d = ctx.domain_create("loader-dom");
	CHECK(d != NULL);
	ctx.domain_mark(d, "loader-dmark", NULL);
	range_id dr = ctx.domain_range_start(d, "loader-drange", NULL);
	ctx.domain_range_end(d, dr);
	ctx.domain_destroy(d);
	printf("%u %u\n", (unsigned)getpid(), app_tid());
	return 0;
}

static int check(const char *dir, uint32_t pid, uint32_t tid)
{
	struct ar_file f;
	app_load(dir, pid, &f);
	CHECK(f.events == 6 && f.bad == 0 && f.dropped == 0);
	CHECK(ar_count(&f, RAW_AGENT_MARK) == 2 && ar_count(&f, RAW_AGENT_RANGE_START) == 2 &&
	      ar_count(&f, RAW_AGENT_RANGE_END) == 2);
	uint64_t d = ar_domain_id(&f, "loader-dom");
	CHECK(d != 0);
	const struct ar_event *e = ar_find(&f, RAW_AGENT_MARK, "loader-mark");
	CHECK(e && e->tid == tid && e->domain == 0);
	e = ar_find(&f, RAW_AGENT_MARK, "loader-dmark");
	CHECK(e && e->domain == d);
	e = ar_find(&f, RAW_AGENT_RANGE_START, "loader-drange");
	CHECK(e && e->domain == d && ar_find_end(&f, e->id));
	e = ar_find(&f, RAW_AGENT_RANGE_START, "loader-range");
	CHECK(e && ar_find_end(&f, e->id));
	return app_check_ok(&f);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run();
	if (argc == 5 && strcmp(argv[1], "check") == 0)
		return check(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]));
	fprintf(stderr, "usage: mstx-loader-app run | check DIR PID TID\n");
	return 2;
}
