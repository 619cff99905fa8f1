/* test-mstx-procs N: N annotated processes at once, for msprofd's agent
 * limit (tests/integration/agent-crowd.sh).  It starts N copies of itself
 * ("test-mstx-procs child I", so each loads the agent afresh), each marks
 * "proc I" once and then waits until all N have marked: N agents are
 * connected at the same time.  Prints each child's pid and I on a line,
 * and exits 0 when every child exited 0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

#define READY_FD 3   /* a child writes a byte once it marked */
#define GO_FD 4      /* ... and reads until the parent closes it */

static int child(const char *i)
{
	char msg[64], c;
	snprintf(msg, sizeof msg, "proc %s", i);
	mstxMarkA(msg, NULL);
	if (write(READY_FD, "x", 1) != 1)
		return 1;
	while (read(GO_FD, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	int n = argc == 2 ? atoi(argv[1]) : 0;
	if (n < 1) {
		fprintf(stderr, "usage: test-mstx-procs N\n");
		return 2;
	}
	int ready[2], go[2];
	if (pipe(ready) < 0 || pipe(go) < 0)
		return 1;
	pid_t *pids = calloc((size_t)n, sizeof(*pids));
	/* the program's own path, so that the children's comm is its name */
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (!pids || len <= 0)
		return 1;
	self[len] = '\0';
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			char arg[16];
			snprintf(arg, sizeof arg, "%d", i);
			if (dup2(ready[1], READY_FD) < 0 || dup2(go[0], GO_FD) < 0)
				_exit(1);
			close(go[1]);
			execl(self, argv[0], "child", arg, (char *)NULL);
			_exit(127);
		}
		pids[i] = p;
		printf("%d %d\n", (int)p, i);
	}
	fflush(stdout);
	close(ready[1]);
	close(go[0]);
	/* every child has marked (or died: then read ends early) */
	char c;
	for (int got = 0; got < n;) {
		ssize_t k = read(ready[0], &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got++;
	}
	close(go[1]);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int st;
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	free(pids);
	if (bad)
		fprintf(stderr, "test-mstx-procs: %d child(ren) failed\n", bad);
	return bad ? 1 : 0;
}
