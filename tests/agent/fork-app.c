/* fork and exec under the agent (standalone mode, preloaded): each process
 * that annotates gets its own agent_<pid> file with its own events and its
 * rank; a child that never annotates writes nothing; forking while another
 * thread records neither deadlocks nor leaks the parent's events into the
 * child.
 *
 * A process that execs keeps its pid: the new image continues the same file
 * set with a second window (child5).
 *
 *   fork-app run          prints "parent child1 child2 child3 child4 child5"
 *   fork-app exec-child   (what child2 and child5 exec; child2 with RANK=3
 *                         LOCAL_RANK=1)
 *   fork-app check DIR PARENT CHILD1 CHILD2 CHILD3 CHILD4 CHILD5
 *
 * Threads of a forked child while it registers (the agent buffers them):
 *
 *   fork-app threads C T M   marks once, then forks C children at once; each
 *                            child starts T threads that, released together
 *                            as the child's first annotation, each open a
 *                            range, make M marks and end the range; prints
 *                            the children's pids
 *   fork-app check-threads DIR T M exact|lossy PID...   each child's file
 *                            holds its T threads' ranges and marks
 *                            (exact), or recorded + dropped == emitted
 *                            (lossy) */
#include <stdatomic.h>
#include <sys/wait.h>

#include "tests/agent/apptest.h"
#include "mstx/ms_tools_ext.h"

#define SPIN_MARKS 20000

static _Atomic int spin_started;

static void *spinner(void *arg)
{
	(void)arg;
	for (int i = 0; i < SPIN_MARKS; i++) {
		mstxMarkA("spin", NULL);
		if (i == 100)
			atomic_store(&spin_started, 1);
	}
	return NULL;
}

static pid_t child(void (*body)(void))
{
	pid_t p = fork();
	CHECK(p >= 0);
	if (p == 0) {
		body();
		exit(0);
	}
	int st;
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return p;
}

static void child1(void)
{
	setenv("SLURM_PROCID", "7", 1); /* read when the child sets up */
	mstxMarkA("child1", NULL);
	mstxRangeEnd(mstxRangeStartA("child1-range", NULL));
}

static char *self_path;

static void child2(void)
{
	setenv("RANK", "3", 1);
	setenv("LOCAL_RANK", "1", 1); /* RANK comes first */
	execl(self_path, "fork-app", "exec-child", (char *)NULL);
	_exit(127);
}

static void child3(void)
{
	_exit(0); /* never annotates: no file */
}

static void child4(void)
{
	mstxMarkA("child4", NULL);
}

static void child5(void)
{
	mstxMarkA("pre-exec", NULL);
	/* at once: the exec wrapper has the agent write the mark first */
	execl(self_path, "fork-app", "exec-child", (char *)NULL);
	_exit(127);
}

static int run(char *argv0)
{
	self_path = argv0;
	mstxMarkA("parent-before", NULL);
	pid_t c1 = child(child1);
	pid_t c2 = child(child2);
	pid_t c3 = child(child3);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, spinner, NULL) == 0);
	while (!atomic_load(&spin_started))
		sched_yield();
	pid_t c4 = child(child4); /* while the spinner records */
	CHECK(pthread_join(th, NULL) == 0);
	pid_t c5 = child(child5);
	mstxMarkA("parent-after", NULL);
	printf("%d %d %d %d %d %d\n", (int)getpid(), (int)c1, (int)c2, (int)c3, (int)c4, (int)c5);
	return 0;
}

static int exec_child(void)
{
	mstxMarkA("exec-child", NULL);
	return 0;
}

static void only(const struct ar_file *f, const char *const *msgs, size_t n)
{
	/* the file's marks are exactly msgs (spin marks aside) */
	size_t marks = 0;
	for (size_t i = 0; i < f->n_ev; i++) {
		if (f->ev[i].rec != RAW_AGENT_MARK || strcmp(f->ev[i].msg, "spin") == 0)
			continue;
		bool known = false;
		for (size_t k = 0; k < n; k++)
			known |= strcmp(f->ev[i].msg, msgs[k]) == 0;
		if (!known)
			fprintf(stderr, "pid %u: unexpected mark '%s'\n", f->pid, f->ev[i].msg);
		CHECK(known);
		marks++;
	}
	CHECK(marks == n);
}

static int check(char **a)
{
	const char *dir = a[0];
	uint32_t parent = (uint32_t)atoi(a[1]), c1 = (uint32_t)atoi(a[2]), c2 = (uint32_t)atoi(a[3]),
		 c3 = (uint32_t)atoi(a[4]), c4 = (uint32_t)atoi(a[5]), c5 = (uint32_t)atoi(a[6]);
	struct ar_file f;

	app_load(dir, parent, &f);
	only(&f, (const char *const[]){ "parent-before", "parent-after" }, 2);
	size_t spins = 0;
	for (size_t i = 0; i < f.n_ev; i++)
		spins += f.ev[i].rec == RAW_AGENT_MARK && strcmp(f.ev[i].msg, "spin") == 0;
	CHECK(spins + f.dropped == SPIN_MARKS);
	CHECK(f.rank == -1 && f.bad == 0);
	ar_free(&f);

	app_load(dir, c1, &f);
	CHECK(f.ppid == parent && f.rank == 7);
	only(&f, (const char *const[]){ "child1" }, 1);
	CHECK(ar_count(&f, RAW_AGENT_RANGE_START) == 1 && ar_count(&f, RAW_AGENT_RANGE_END) == 1);
	CHECK(f.events == 3 && f.dropped == 0 && f.bad == 0);
	CHECK(ar_find(&f, RAW_AGENT_MARK, "child1")->tid == c1);
	ar_free(&f);

	app_load(dir, c2, &f);
	CHECK(f.ppid == parent && f.rank == 3);
	CHECK(f.cmdline && strcmp(f.cmdline, "fork-app exec-child") == 0);
	only(&f, (const char *const[]){ "exec-child" }, 1);
	CHECK(f.events == 1);
	ar_free(&f);

	CHECK(ar_load(dir, c3, &f) == -ENOENT);

	app_load(dir, c4, &f);
	CHECK(f.ppid == parent);
	only(&f, (const char *const[]){ "child4" }, 1);
	CHECK(f.events == 1 && f.dropped == 0); /* no spin marks: that thread is not in the child */
	ar_free(&f);

	/* exec: one pid, two windows, each image's events and counters */
	CHECK(ar_load(dir, c5, &f) == 0);
	CHECK(f.problem[0] == 0 && f.damage == 0 && f.windows == 2 && f.counters_last);
	only(&f, (const char *const[]){ "pre-exec", "exec-child" }, 2);
	CHECK(f.events == 1); /* the last window's counters: the exec'd image */
	CHECK(f.cmdline && strcmp(f.cmdline, "fork-app exec-child") == 0);
	return app_check_ok(&f);
}

/* --- threads of a forked child ----------------------------------------------- */

static pthread_barrier_t go;
static long n_marks;

static void *marker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	mstxRangeId id = mstxRangeStartA("thread", NULL);
	for (long i = 0; i < n_marks; i++)
		mstxMarkA("t", NULL);
	mstxRangeEnd(id);
	return NULL;
}

static void threads_child(int n)
{
	pthread_t th[256];
	CHECK(n > 0 && n <= 256);
	CHECK(pthread_barrier_init(&go, NULL, (unsigned)n) == 0);
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&th[i], NULL, marker, NULL) == 0);
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
}

static int threads(int children, int nthreads, long marks)
{
	n_marks = marks;
	mstxMarkA("parent", NULL);
	pid_t pids[64];
	CHECK(children > 0 && children <= 64);
	for (int c = 0; c < children; c++) {
		pids[c] = fork();
		CHECK(pids[c] >= 0);
		if (pids[c] == 0) {
			threads_child(nthreads);
			exit(0);
		}
	}
	for (int c = 0; c < children; c++) {
		int st;
		CHECK(waitpid(pids[c], &st, 0) == pids[c] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		printf("%s%d", c ? " " : "", (int)pids[c]);
	}
	printf("\n");
	return 0;
}

static int check_threads(char **a, int n)
{
	const char *dir = a[0];
	long nthreads = atol(a[1]), marks = atol(a[2]);
	bool exact = strcmp(a[3], "exact") == 0;
	uint64_t all = 0, all_dropped = 0;
	for (int i = 4; i < n; i++) {
		struct ar_file f;
		uint32_t pid = (uint32_t)atoi(a[i]);
		app_load(dir, pid, &f);
		uint64_t got = 0;
		for (size_t k = 0; k < f.n_ev; k++)
			got += f.ev[k].rec == RAW_AGENT_MARK && strcmp(f.ev[k].msg, "t") == 0;
		size_t starts = ar_count(&f, RAW_AGENT_RANGE_START), ends = ar_count(&f, RAW_AGENT_RANGE_END);
		/* every thread made a start, M marks and an end */
		uint64_t made = (uint64_t)(nthreads * (marks + 2)), kept = got + starts + ends;
		if (kept + f.dropped != made || (exact && kept != made))
			fprintf(stderr, "child %u: %llu marks recorded, %llu dropped, %zu starts, %zu ends; %ld threads "
				"made a range and %ld marks each\n", pid, (unsigned long long)got,
				(unsigned long long)f.dropped, starts, ends, nthreads, marks);
		CHECK(kept + f.dropped == made);
		CHECK(f.bad == 0);
		if (exact)
			CHECK(kept == made && starts == (size_t)nthreads && f.dropped == 0);
		all += got;
		all_dropped += f.dropped;
		ar_free(&f);
	}
	printf("%llu recorded %llu dropped\n", (unsigned long long)all, (unsigned long long)all_dropped);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "threads") == 0)
		return threads(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
	if (argc >= 7 && strcmp(argv[1], "check-threads") == 0)
		return check_threads(argv + 2, argc - 2);
	if (argc == 2 && strcmp(argv[1], "run") == 0)
		return run(argv[0]);
	if (argc == 2 && strcmp(argv[1], "exec-child") == 0)
		return exec_child();
	if (argc == 9 && strcmp(argv[1], "check") == 0)
		return check(argv + 2);
	fprintf(stderr, "usage: fork-app run | exec-child | check DIR PARENT C1 C2 C3 C4 C5 | threads C T M | "
		"check-threads DIR T M exact|lossy PID...\n");
	return 2;
}
