/* A tree of real processes for the sampler's benchmark and tests: this
 * process and N-1 children, BUSY of them working DUTY percent of every
 * 10 ms (spinning on their own CPU clock) and the rest asleep in pause().
 * Prints "ready" once every child exists; SIGTERM or SIGINT ends the whole
 * tree (children also die with their parent: PR_SET_PDEATHSIG).
 *   test-procfarm N BUSY DUTY */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define PERIOD_NS (10 * NSEC_PER_MSEC)

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* DUTY percent of each period on the CPU, the rest asleep, on a fixed grid. */
static void work(uint64_t duty)
{
	uint64_t next = mono_ns();
	volatile uint64_t x = 0;
	(void)x; /* only written: the work volatile keeps */
	for (;;) {
		uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < PERIOD_NS * duty / 100)
			for (int i = 0; i < 1000; i++)
				x += (uint64_t)i * 2654435761u;
		next += PERIOD_NS;
		struct timespec ts = { .tv_sec = (time_t)(next / NSEC_PER_SEC), .tv_nsec = (long)(next % NSEC_PER_SEC) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
			;
	}
}

int main(int argc, char **argv)
{
	uint64_t n, busy, duty;
	if (argc != 4 || parse_u64(argv[1], 1, 4096, &n) < 0 || parse_u64(argv[2], 0, 4096, &busy) < 0 ||
	    parse_u64(argv[3], 1, 100, &duty) < 0 || busy >= n) {
		fprintf(stderr, "usage: test-procfarm N BUSY DUTY (BUSY < N, DUTY in 1..100)\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pid_t parent = getpid();
	pid_t *kids = calloc(n, sizeof(*kids));
	if (!kids)
		return 1;
	for (uint64_t i = 1; i < n && !stop; i++) {
		pid_t c = fork();
		if (c < 0) {
			perror("fork");
			stop = 1;
			break;
		}
		if (c == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			if (i <= busy)
				work(duty);
			for (;;)
				pause();
		}
		kids[i] = c;
	}
	int rc = stop;
	if (!stop) {
		printf("ready\n");
		rc = fflush(stdout) != 0;
	}
	while (!stop)
		pause();
	/* its own children only: never the process group, which may hold the
	 * script that started it */
	for (uint64_t i = 1; i < n; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	free(kids);
	return rc;
}
