#include "launcher/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/rankenv.h"
#include "launcher/console.h"
#include "common/util.h"

static const char *env_get(void *ctx, const char *name)
{
	return strv_env_get(ctx, name);
}

static void rank_env_of(char *const *env, struct rank_env *ret)
{
	rank_env_read(env_get, (void *)env, ret);
}

int rank_from_env(char *const *env)
{
	struct rank_env re;
	rank_env_of(env, &re);
	return re.rank;
}

/* Everything the child needs is prepared before fork: after it, it only
 * calls async-signal-safe functions. */
int child_spawn_held(const struct app_cmd *app, char **envp, bool null_stdin, struct child *ret)
{
	int go[2], err[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	/* for a script without #!, as execvp does */
	size_t argc = 0;
	while (app->argv[argc])
		argc++;
	char **sh_argv = calloc(argc + 2, sizeof(*sh_argv));
	if (!sh_argv) {
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return -ENOMEM;
	}
	sh_argv[0] = (char *)"/bin/sh";
	sh_argv[1] = app->path;
	for (size_t i = 1; i < argc; i++)
		sh_argv[i + 1] = app->argv[i];

	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		free(sh_argv);
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		char c;
		ssize_t n;
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		if (null_stdin) {
			int fd = open("/dev/null", O_RDONLY);
			if (fd >= 0 && fd != 0) {
				dup2(fd, 0);
				close(fd);
			}
		}
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execve(app->path, app->argv, envp);
		if (errno == ENOEXEC)
			execve("/bin/sh", sh_argv, envp);
		int e = errno;
		ssize_t w = write(err[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	free(sh_argv);
	close(go[0]);
	close(err[1]);
	*ret = (struct child){ .pid = pid, .go_fd = go[1], .err_fd = err[0] };
	return 0;
}

int child_release(struct child *c)
{
	ssize_t n;
	do
		n = write(c->go_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	close(c->go_fd);
	c->go_fd = -1;
	int e = 0;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

void child_abandon(struct child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0)
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	c->pid = -1;
}

int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void child_describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);
		snprintf(buf, len, "was killed by signal %s%s (%s)%s", abbrev ? "SIG" : "", abbrev ? abbrev : "?",
			 strsignal(sig), WCOREDUMP(status) ? ", core dumped" : "");
	} else {
		snprintf(buf, len, "ended with wait status 0x%x", (unsigned)status);
	}
}

void child_report(int status)
{
	char how[128];
	child_describe(status, how, sizeof(how));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		console_info("The application %s.", how);
	else
		console_warn("The application %s.", how);
}

int child_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}
