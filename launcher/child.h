/* The profiled application as a child process: forked, held before exec
 * until its collection has started, then released.  Shared by launch mode
 * and dynamic launch mode. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "launcher/app.h"

struct child {
	pid_t pid;
	int go_fd;     /* write one byte: exec; close: give up */
	int err_fd;    /* the exec errno comes back here, EOF when exec worked */
};

#define CHILD_NONE ((struct child){ .pid = -1, .go_fd = -1, .err_fd = -1 })

/* Fork the application, held before exec.  null_stdin: its standard input
 * is /dev/null (dynamic mode, where the prompt reads msprof's). */
int child_spawn_held(const struct app_cmd *app, char **envp, bool null_stdin, struct child *ret);

/* Let the held child go; 0 once it has exec'd, -errno (the exec's) if not. */
int child_release(struct child *c);

/* Give up a child that was never released (or kill it first): closes the
 * pipes and reaps it. */
void child_abandon(struct child *c);

/* The status msprof exits with for a wait status: the code, 128+signal. */
int exit_code(int status);

/* How a process ended, for a wait status: "exited with status 3", "was
 * killed by signal SIGSEGV (Segmentation fault), core dumped". */
void child_describe(int status, char *buf, size_t len);

/* "[INFO] The application exited with status 0." or, for any other end,
 * the same as a warning. */
void child_report(int status);

/* A pidfd of pid (readable when it exits); -1 with errno, ENOSYS before
 * Linux 5.3, where callers probe instead. */
int child_pidfd_open(pid_t pid);

/* The rank of the process with environment env (common/rankenv.h, as the
 * agent reads its own); -1: not a rank. */
int rank_from_env(char *const *env);
