/* A long-running annotated program for the safety tests.
 *
 *   spin-app steady SECONDS   one mark per millisecond; every 10th prints
 *                             "i ts" (ts: CLOCK_MONOTONIC ns when marked)
 *   spin-app signals SECONDS  marks in a tight loop while a 1 kHz SIGALRM
 *                             handler marks too; prints "pid issued sig_marks"
 *   spin-app check-kill DIR PID LAST_TS   the file of a SIGKILLed spin-app
 *                             holds every mark up to LAST_TS - 100 ms
 *   spin-app check-signals DIR PID ISSUED   as check-burst ... lossy
 *   spin-app burst N          N marks as fast as one thread can; prints
 *                             "pid issued base_kb peak_kb after_kb": the
 *                             process's resident memory before, at its peak
 *                             (VmHWM) and once the agent has written the
 *                             burst (or after 10 s)
 *   spin-app check-burst DIR PID ISSUED exact|lossy   exact: every mark
 *                             recorded; lossy: recorded + dropped == issued
 *   spin-app lengths          marks whose messages have every length from 0
 *                             to 40 and around the 1024-byte cut, at every
 *                             alignment, each in a page of its own with
 *                             non-NUL bytes around it; prints the pid
 *   spin-app check-lengths DIR PID   each message read back exactly
 *   spin-app sigsetup N       N marks 1 ms apart (the agent drains between
 *                             them), with a SIGUSR1 handler that marks "sig"
 *                             (the sigmmap shim raises it inside the
 *                             agent's first mmap); prints "pid issued
 *                             fired" (fired 0: the shim's mmap was not
 *                             the agent's, issued N) */
#include <signal.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <time.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int steady(double seconds)
{
	uint64_t end = mono() + (uint64_t)(seconds * 1e9);
	char msg[32];
	for (unsigned i = 0; mono() < end; i++) {
		snprintf(msg, sizeof(msg), "m%u", i);
		uint64_t ts = mono();
		mstxMarkA(msg, NULL);
		if (i % 10 == 0) {
			printf("%u %llu\n", i, (unsigned long long)ts);
			fflush(stdout);
		}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return 0;
}

static _Atomic uint64_t sig_marks;

static void on_alarm(int sig)
{
	(void)sig;
	mstxMarkA("sig", NULL);
	atomic_fetch_add(&sig_marks, 1);
}

static int signals(double seconds)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
	uint64_t end = mono() + (uint64_t)(seconds * 1e9), n = 0;
	while (mono() < end) {
		mstxMarkA("main", NULL);
		n++;
	}
	it = (struct itimerval){ 0 };
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
	printf("%d %llu %llu\n", (int)getpid(), (unsigned long long)(n + atomic_load(&sig_marks)),
	       (unsigned long long)atomic_load(&sig_marks));
	return 0;
}

static int check_kill(const char *dir, uint32_t pid, uint64_t last_ts)
{
	struct ar_file f;
	int r = ar_load(dir, pid, &f);
	if (r < 0)
		fprintf(stderr, "cannot load agent_%u in %s: %s\n", pid, dir, strerror(-r));
	CHECK(r == 0);
	if (f.problem[0])
		fprintf(stderr, "format problem: %s\n", f.problem);
	CHECK(f.problem[0] == 0);
	uint64_t newest = 0;
	unsigned count = 0;
	for (size_t i = 0; i < f.n_ev; i++) {
		if (f.ev[i].rec != RAW_AGENT_MARK)
			continue;
		/* marks are m0, m1, ... in order: nothing missing in between */
		char want[32];
		snprintf(want, sizeof(want), "m%u", count++);
		CHECK(strcmp(f.ev[i].msg, want) == 0);
		if (f.ev[i].ts > newest)
			newest = f.ev[i].ts;
	}
	printf("marks=%u newest=%llu last_printed=%llu lag_ms=%.1f torn=%llu\n", count,
	       (unsigned long long)newest, (unsigned long long)last_ts,
	       last_ts > newest ? (double)(last_ts - newest) / 1e6 : 0.0, (unsigned long long)f.damage);
	CHECK(count > 0);
	CHECK(newest + 100000000ULL >= last_ts);
	ar_free(&f);
	return 0;
}

/* VmRSS or VmHWM of this process, kB */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static int burst(long n)
{
	static const char *const msgs[] = { "burst a", "burst bb", "burst ccc", "burst dddd" };
	long base = status_kb("VmRSS");
	for (long i = 0; i < n; i++)
		mstxMarkA(msgs[i & 3], NULL);
	long peak = status_kb("VmHWM");
	/* the queue gives its blocks back as the agent writes them */
	long after = status_kb("VmRSS");
	for (int i = 0; i < 1000 && after > base + 4096; i++) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		after = status_kb("VmRSS");
	}
	printf("%d %ld %ld %ld %ld\n", (int)getpid(), n, base, peak, after);
	return 0;
}

/* check-signals and check-burst: every mark issued is recorded or counted
 * dropped, none bad; exact: none dropped. */
static int check_issued(const char *dir, uint32_t pid, uint64_t issued, bool exact)
{
	struct ar_file f;
	app_load(dir, pid, &f);
	uint64_t recorded = ar_count(&f, RAW_AGENT_MARK);
	printf("issued=%llu recorded=%llu dropped=%llu\n", (unsigned long long)issued,
	       (unsigned long long)recorded, (unsigned long long)f.dropped);
	CHECK(recorded == f.events && recorded + f.dropped == issued && f.bad == 0);
	if (exact)
		CHECK(f.dropped == 0);
	ar_free(&f);
	return 0;
}

/* The message of lengths() case k: its length and first byte */
static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
			       21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 39, 40, 1015, 1016,
			       1023, 1024, 1025, 1031, 2000 };
#define N_LENS (sizeof lens / sizeof lens[0])

static void fill_msg(char *p, size_t len, size_t off)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (char)('a' + (i + off) % 26);
}

static int lengths(void)
{
	long page = sysconf(_SC_PAGESIZE);
	/* each message ends at the end of a page (off 0) or just before, so
	 * that a read past the end would fault where it crossed */
	char *mem = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	CHECK(mprotect(mem + page, (size_t)page, PROT_NONE) == 0);
	for (size_t k = 0; k < N_LENS; k++)
		for (size_t off = 0; off < 8; off++) {
			memset(mem, 'x', (size_t)page);
			char *s = mem + page - 1 - off - lens[k];
			fill_msg(s, lens[k], off);
			s[lens[k]] = 0;
			mstxMarkA(s, NULL);
		}
	printf("%d\n", (int)getpid());
	return 0;
}

static int check_lengths(const char *dir, uint32_t pid)
{
	struct ar_file f;
	app_load(dir, pid, &f);
	size_t i = 0;
	char want[RAW_AGENT_MAX_STR + 1];
	for (size_t k = 0; k < N_LENS; k++)
		for (size_t off = 0; off < 8; off++) {
			size_t n = lens[k] < RAW_AGENT_MAX_STR ? lens[k] : RAW_AGENT_MAX_STR;
			fill_msg(want, n, off);
			want[n] = 0;
			while (i < f.n_ev && f.ev[i].rec != RAW_AGENT_MARK)
				i++;
			CHECK(i < f.n_ev && f.ev[i].msg && strcmp(f.ev[i].msg, want) == 0);
			i++;
		}
	printf("%zu messages exact\n", (size_t)N_LENS * 8);
	ar_free(&f);
	return 0;
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
	mstxMarkA("sig", NULL);
}

static int sigsetup(long n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	char msg[32];
	for (long i = 0; i < n; i++) {
		snprintf(msg, sizeof msg, "m%ld", i);
		mstxMarkA(msg, NULL);
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	printf("%d %ld %d\n", (int)getpid(), n + usr1_seen, (int)usr1_seen);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "sigsetup") == 0)
		return sigsetup(atol(argv[2]));
	if (argc == 2 && strcmp(argv[1], "lengths") == 0)
		return lengths();
	if (argc == 4 && strcmp(argv[1], "check-lengths") == 0)
		return check_lengths(argv[2], (uint32_t)atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "burst") == 0)
		return burst(atol(argv[2]));
	if (argc == 6 && strcmp(argv[1], "check-burst") == 0)
		return check_issued(argv[2], (uint32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10),
				    strcmp(argv[5], "exact") == 0);
	if (argc == 3 && strcmp(argv[1], "steady") == 0)
		return steady(atof(argv[2]));
	if (argc == 3 && strcmp(argv[1], "signals") == 0)
		return signals(atof(argv[2]));
	if (argc == 5 && strcmp(argv[1], "check-kill") == 0)
		return check_kill(argv[2], (uint32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10));
	if (argc == 5 && strcmp(argv[1], "check-signals") == 0)
		return check_issued(argv[2], (uint32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10), false);
	fprintf(stderr, "usage: spin-app steady|signals SECONDS | check-kill DIR PID TS | check-signals DIR PID N | "
			"burst N | check-burst DIR PID N exact|lossy\n");
	return 2;
}
