/* A job that never saw msprof, for agent-self and agent-self-config: the
 * script starts it with the agent loaded and MSPROF_OPTIONS or
 * MSPROF_CONFIG set, and reads the PROF dirs it leaves back.
 *
 *   self-app marks N MS [STATUS]   marks "m0".."m<N-1>", one every MS ms,
 *                                  then exits with STATUS (0)
 *   self-app child                 marks "parent-a", runs a forked child
 *                                  (marks "fork-a") and an exec'd one
 *                                  (self-app child-body: "exec-a"), then
 *                                  marks "parent-b"; prints the three pids
 *   self-app steps S               steps 0..S-1, each a range "step N"
 *                                  holding marks "sN-a" and "sN-b" */
#include <sys/wait.h>
#include <time.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int marks(unsigned n, unsigned ms, int status)
{
	char msg[32];
	for (unsigned i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "m%u", i);
		mstxMarkA(msg, NULL);
		sleep_ms(ms);
	}
	return status;
}

static int child(const char *self)
{
	mstxMarkA("parent-a", NULL);
	pid_t f = fork();
	CHECK(f >= 0);
	if (f == 0) {
		mstxMarkA("fork-a", NULL);
		_exit(0);
	}
	pid_t e = fork();
	CHECK(e >= 0);
	if (e == 0) {
		execl(self, self, "child-body", (char *)NULL);
		_exit(127);
	}
	int st;
	CHECK(waitpid(f, &st, 0) == f && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(waitpid(e, &st, 0) == e && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	mstxMarkA("parent-b", NULL);
	printf("%d %d %d\n", (int)getpid(), (int)f, (int)e);
	return 0;
}

static int steps(unsigned n)
{
	char msg[32];
	for (unsigned s = 0; s < n; s++) {
		snprintf(msg, sizeof(msg), "step %u", s);
		mstxRangeId r = mstxRangeStartA(msg, NULL);
		snprintf(msg, sizeof(msg), "s%u-a", s);
		mstxMarkA(msg, NULL);
		sleep_ms(20);
		snprintf(msg, sizeof(msg), "s%u-b", s);
		mstxMarkA(msg, NULL);
		mstxRangeEnd(r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 4 && strcmp(argv[1], "marks") == 0)
		return marks((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 0);
	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child("/proc/self/exe");
	if (argc == 2 && strcmp(argv[1], "child-body") == 0) {
		mstxMarkA("exec-a", NULL);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "steps") == 0)
		return steps((unsigned)atoi(argv[2]));
	fprintf(stderr, "usage: self-app marks N MS [STATUS] | child | steps S\n");
	return 2;
}
