/* Shared by the agent's test programs: a program runs in two modes,
 *   prog run ...        annotate (the agent injected by the script) and print
 *                       what the checker needs to know (pid, tids) on stdout
 *   prog check DIR ...  read DIR's agent files back and assert exactly what
 *                       the run did
 * CHECK stops at the first failure with file:line and the expression. */
#pragma once

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/unit/unittest.h"
#include "tests/agent/agent-read.h"
#include "collectors/raw.h"

static inline uint32_t app_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* The file of pid in dir, loaded and checked for what holds for any file:
 * no damage, no format problem, PROCESS in every slice, COUNTERS last;
 * with `windows` collection windows. */
static inline void app_load_windows(const char *dir, uint32_t pid, unsigned windows, struct ar_file *f)
{
	int r = ar_load(dir, pid, f);
	if (r < 0) {
		fprintf(stderr, "cannot load agent_%u in %s: %s\n", pid, dir, strerror(-r));
		exit(1);
	}
	if (f->problem[0])
		fprintf(stderr, "format problem: %s\n", f->problem);
	CHECK(f->problem[0] == 0);
	CHECK(f->damage == 0);
	CHECK(f->processes == f->slices);
	CHECK(f->windows == windows);
	CHECK(f->n_counters >= 1 && f->counters_last);
	CHECK(f->pid == pid);
}

/* The same, for a file of one window. */
static inline void app_load(const char *dir, uint32_t pid, struct ar_file *f)
{
	app_load_windows(dir, pid, 1, f);
}

/* Events of tid must be in ts order (the ring keeps call order). */
static inline void app_check_order(const struct ar_file *f, uint32_t tid)
{
	const struct ar_event **v;
	size_t n = ar_thread_events(f, tid, &v);
	for (size_t i = 1; i < n; i++)
		CHECK(v[i - 1]->ts <= v[i]->ts);
	free(v);
}

/* The end of a check that passed: f freed, and "ok", the line the script
 * waits for, on stdout; the program's exit status. */
static inline int app_check_ok(struct ar_file *f)
{
	ar_free(f);
	printf("ok\n");
	return 0;
}
