/* Ends of a process image without exit handlers, under the agent
 * (standalone mode, preloaded): each case records N marks and M OS runtime
 * calls (fsync of /dev/null: quick, recorded with the threshold at 0 by the
 * osrt agent, never by the plain one) and ends at once, with no time for the
 * agent's periodic drain.  Every record must be in the file.
 *
 *   exit-app run CASE N M     CASE: _exit, _Exit, signal (_exit from a
 *                             handler), exec (execl of "exec-child N"),
 *                             execvp, execfail (an exec that fails, then as
 *                             much again, then exit), fork (a child records
 *                             and _exits), vfork (a vfork child execs while
 *                             the parent records), stalled (the agent thread
 *                             held by a ptrace-stop of a helper of ours while
 *                             the program records N "held-0" and N "held-1"
 *                             marks and _exits: prints "stalled", or
 *                             "noptrace" where ptrace is refused); prints the
 *                             pids to check
 *   exit-app exec-child N     N marks "after-exec", then exit
 *   exit-app check DIR CASE N M OSRT PIDS...
 *                             OSRT: 1 when the osrt agent recorded; CASE
 *                             stalled: prints the held marks in the file
 *                             (the file may be cut short, or missing) */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"
#include "collectors/osrt-api.h"

static char *self_path;
static int n_marks, n_calls;

static void record(const char *msg, int marks, int calls)
{
	for (int i = 0; i < marks; i++)
		mstxMarkA(msg, NULL);
	if (calls == 0)
		return;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC); /* an osrt record too */
	CHECK(fd >= 0);
	for (int i = 0; i < calls; i++)
		(void)fsync(fd);
	close(fd);
}

static void on_usr1(int sig)
{
	(void)sig;
	_exit(0);
}

static void exec_self(int n, bool by_path)
{
	char num[16];
	snprintf(num, sizeof(num), "%d", n);
	if (by_path) {
		execl(self_path, "exit-app", "exec-child", num, (char *)NULL);
	} else {
		char *argv[] = { "exit-app", "exec-child", num, NULL };
		execvp(self_path, argv);
	}
}

/* The tid of the agent thread (named msprof-agent), 0 when none. */
static pid_t agent_tid(void)
{
	DIR *d = opendir("/proc/self/task");
	CHECK(d);
	pid_t tid = 0;
	for (struct dirent *de; !tid && (de = readdir(d));) {
		char path[300], comm[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
		FILE *f = de->d_name[0] != '.' ? fopen(path, "re") : NULL;
		if (f && fgets(comm, sizeof comm, f) && strcmp(comm, "msprof-agent\n") == 0)
			tid = (pid_t)atoi(de->d_name);
		if (f)
			fclose(f);
	}
	closedir(d);
	return tid;
}

/* A helper child ptrace-stops thread tid of ours and keeps it stopped until
 * we are gone; true when it is held. */
static bool hold_thread(pid_t tid)
{
	int go[2], done[2];
	CHECK(pipe(go) == 0 && pipe(done) == 0);
	pid_t h = fork();
	CHECK(h >= 0);
	if (h == 0) {
		close(go[1]);
		close(done[0]);
		char b = 0;
		CHECK(read(go[0], &b, 1) == 1);
		int st = 0;
		bool held = ptrace(PTRACE_SEIZE, tid, NULL, NULL) == 0 && ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0 &&
			    waitpid(tid, &st, __WALL) == tid && WIFSTOPPED(st);
		b = held ? 'y' : 'n';
		CHECK(write(done[1], &b, 1) == 1);
		(void)!read(go[0], &b, 1); /* EOF: the program is gone */
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	(void)prctl(PR_SET_PTRACER, h, 0, 0, 0); /* where Yama asks for it */
	CHECK(write(go[1], "g", 1) == 1);
	char b = 'n';
	CHECK(read(done[0], &b, 1) == 1);
	if (b != 'y') {
		kill(h, SIGKILL);
		CHECK(waitpid(h, NULL, 0) == h);
	}
	return b == 'y';
}

static int run(const char *c)
{
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(c, "_exit") == 0 || strcmp(c, "_Exit") == 0) {
		record("before-exit", n_marks, n_calls);
		if (c[1] == 'E')
			_Exit(0);
		_exit(0);
	}
	if (strcmp(c, "signal") == 0) {
		CHECK(signal(SIGUSR1, on_usr1) != SIG_ERR);
		record("before-exit", n_marks, n_calls);
		raise(SIGUSR1);
		return 3; /* not reached */
	}
	if (strcmp(c, "exec") == 0 || strcmp(c, "execvp") == 0) {
		record("before-exec", n_marks, n_calls);
		exec_self(n_marks, c[4] == 0);
		return 127;
	}
	if (strcmp(c, "execfail") == 0) {
		record("before-exec", n_marks, n_calls);
		errno = 0;
		int r = execl("/nonexistent/exit-app", "exit-app", (char *)NULL);
		CHECK(r == -1 && errno == ENOENT);
		char *argv[] = { "x", NULL };
		errno = 0;
		r = execvp("exit-app-not-on-any-path", argv);
		CHECK(r == -1 && errno == ENOENT);
		record("after-failed-exec", n_marks, n_calls);
		return 0;
	}
	if (strcmp(c, "fork") == 0 || strcmp(c, "vfork") == 0) {
		bool v = c[0] == 'v';
		record("parent", n_marks, 0);
		pid_t p = v ? vfork() : fork();
		CHECK(p >= 0);
		if (p == 0) {
			if (v)
				exec_self(n_marks, true);
			else
				record("child", n_marks, n_calls);
			_exit(v ? 127 : 0);
		}
		record("parent", n_marks, 0);
		int st;
		CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		printf("%d\n", (int)p);
		return 0;
	}
	if (strcmp(c, "stalled") == 0) {
		record("held-0", n_marks, 0);
		/* the first marks in the file (a drain), so that it can be
		 * exported: at most 10 s */
		const char *out = getenv("MSPROF_AGENT_OUTPUT");
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/host/data/agent_%d.data.slice_0", out ? out : ".", (int)getpid());
		struct stat st = { 0 };
		for (int i = 0; i < 1000 && (stat(path, &st) < 0 || st.st_size < 16 * n_marks); i++)
			usleep(10000);
		pid_t tid = agent_tid();
		CHECK(tid > 0);
		if (!hold_thread(tid)) {
			printf("noptrace\n");
			return 0;
		}
		printf("stalled\n");
		fflush(stdout);
		record("held-1", n_marks, 0);
		_exit(0); /* the flush waits for the held thread in vain */
	}
	fprintf(stderr, "exit-app: unknown case '%s'\n", c);
	return 2;
}

/* Marks with message msg in f. */
static size_t marks(const struct ar_file *f, const char *msg)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_ev; i++)
		n += f->ev[i].rec == RAW_AGENT_MARK && strcmp(f->ev[i].msg, msg) == 0;
	return n;
}

static size_t fsyncs(const struct ar_file *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_ev; i++)
		n += f->ev[i].rec == RAW_AGENT_OSRT && f->ev[i].type == OSRT_fsync;
	return n;
}

/* The file of pid with `windows` windows, read back and checked as any,
 * with nothing dropped or refused. */
static void load(const char *dir, uint32_t pid, unsigned windows, struct ar_file *f)
{
	app_load_windows(dir, pid, windows, f);
	CHECK(f->dropped == 0 && f->bad == 0);
}

static void expect(const struct ar_file *f, const char *msg, size_t want)
{
	size_t got = marks(f, msg);
	if (got != want)
		fprintf(stderr, "pid %u: %zu '%s' marks, want %zu\n", f->pid, got, msg, want);
	CHECK(got == want);
}

static void expect_calls(const struct ar_file *f, size_t want)
{
	size_t got = fsyncs(f);
	if (got != want)
		fprintf(stderr, "pid %u: %zu fsync records, want %zu\n", f->pid, got, want);
	CHECK(got == want);
}

static int check(char **a, int n)
{
	const char *dir = a[0], *c = a[1];
	size_t nm = (size_t)atoi(a[2]), nc = atoi(a[4]) ? (size_t)atoi(a[3]) : 0;
	uint32_t pid = (uint32_t)atoi(a[5]);
	struct ar_file f;

	if (strcmp(c, "stalled") == 0) {
		size_t n0 = 0, n1 = 0;
		if (ar_load(dir, pid, &f) == 0) {
			n0 = marks(&f, "held-0");
			n1 = marks(&f, "held-1");
			ar_free(&f);
		}
		printf("%zu\n", n0 + n1);
		return 0;
	}
	if (strcmp(c, "_exit") == 0 || strcmp(c, "_Exit") == 0 || strcmp(c, "signal") == 0) {
		load(dir, pid, 1, &f);
		expect(&f, "before-exit", nm);
		expect_calls(&f, nc);
		CHECK(f.events == f.n_ev);
	} else if (strcmp(c, "exec") == 0 || strcmp(c, "execvp") == 0) {
		/* one pid, two images: the first one's records up to the exec,
		 * the second one's counters last */
		load(dir, pid, 2, &f);
		expect(&f, "before-exec", nm);
		expect_calls(&f, nc);
		expect(&f, "after-exec", nm);
		CHECK(f.events == nm);
		CHECK(f.cmdline && strncmp(f.cmdline, "exit-app exec-child", 19) == 0);
	} else if (strcmp(c, "execfail") == 0) {
		load(dir, pid, 1, &f);
		expect(&f, "before-exec", nm);
		expect(&f, "after-failed-exec", nm);
		expect_calls(&f, 2 * nc);
		CHECK(f.events == f.n_ev);
	} else if ((strcmp(c, "fork") == 0 || strcmp(c, "vfork") == 0) && n == 7) {
		uint32_t child = (uint32_t)atoi(a[6]);
		load(dir, pid, 1, &f);
		expect(&f, "parent", 2 * nm);
		CHECK(marks(&f, "child") == 0 && marks(&f, "after-exec") == 0 && fsyncs(&f) == 0);
		ar_free(&f);
		load(dir, child, 1, &f);
		CHECK(f.ppid == pid);
		if (c[0] == 'v') {
			/* the vfork child is its own process only from the exec on */
			expect(&f, "after-exec", nm);
			CHECK(f.events == nm);
		} else {
			expect(&f, "child", nm);
			expect_calls(&f, nc);
			CHECK(marks(&f, "parent") == 0 && f.events == f.n_ev);
		}
	} else {
		fprintf(stderr, "exit-app: bad check arguments\n");
		return 2;
	}
	return app_check_ok(&f);
}

int main(int argc, char **argv)
{
	self_path = argv[0];
	if (argc == 5 && strcmp(argv[1], "run") == 0) {
		n_marks = atoi(argv[3]);
		n_calls = atoi(argv[4]);
		return run(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "exec-child") == 0) {
		record("after-exec", atoi(argv[2]), 0);
		return 0;
	}
	if ((argc == 8 || argc == 9) && strcmp(argv[1], "check") == 0)
		return check(argv + 2, argc - 2);
	fprintf(stderr, "usage: exit-app run CASE N M | exec-child N | check DIR CASE N M OSRT PID [CHILD]\n");
	return 2;
}
