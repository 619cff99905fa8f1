/* Launch mode: msprof [options] <app> [args], or --application="<app> args".
 *
 * The application is forked first and held at a pipe until the daemon
 * session that samples it has started, so that the samples cover its whole
 * life and info.json can name its pid.  It keeps msprof's terminal, process
 * group, argv, cwd and environment (plus --environment).
 *
 * Signals: the application is in our process group, so a Ctrl-C from the
 * terminal reaches it directly (the kernel signals the whole foreground
 * group).  Forwarding that one too would deliver it twice, and many programs
 * take a second Ctrl-C as "die now".  So we forward only what was sent to
 * msprof alone (kill(1), timeout(1): si_code is not SI_KERNEL). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "console.h"
#include "runners.h"
#include "session.h"
#include "util.h"

extern char **environ;

struct child {
	pid_t pid;
	int go_fd;     /* write one byte: exec; close: give up */
	int err_fd;    /* the exec errno comes back here, EOF when exec worked */
};

/* rank_id for info.json: RANK_ID of the application's environment. */
static int rank_of(char *const *env)
{
	const char *v = strv_env_get(env, "RANK_ID");
	uint64_t n;
	if (v && parse_u64(v, 0, INT32_MAX, &n) == 0)
		return (int)n;
	return -1;
}

/* Fork the application, held before exec.  Everything the child needs is
 * prepared here: after fork it only calls async-signal-safe functions. */
static int spawn_held(const struct app_cmd *app, char **envp, int close_fd, struct child *ret)
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
		if (close_fd >= 0)
			close(close_fd);
		char c;
		ssize_t n;
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
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

/* Let the held child go; returns 0 once it has exec'd, -errno otherwise. */
static int release(struct child *c)
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

static void abandon(struct child *c)
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

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Wait for the application; forward stop signals; watch the daemon. */
static int wait_app(struct session *s, int sigfd, pid_t pid, int *ret_status)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = session_fd(s), .events = POLLIN },
		};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			session_poll(s);
		if (!p[0].revents)
			continue;
		struct signalfd_siginfo si;
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			console_warn(MSG_STOP_SIGNAL);
			if (si.ssi_code != SI_KERNEL)
				kill(pid, (int)si.ssi_signo);
		}
		int status;
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			*ret_status = status;
			return 0;
		}
		if (w < 0 && errno != EINTR)
			return -errno;
	}
}

int mode_launch_run(const struct msprof_opts *given)
{
	/* a shallow copy for the defaults; given keeps ownership */
	struct msprof_opts eff = *given;
	const struct msprof_opts *o = &eff;
	opts_default_host_sys(&eff);

	struct diag d = { 0 };
	struct app_cmd app = { 0 };
	char **envp = NULL;
	char *output = NULL;
	struct session s;
	struct child child = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	int sigfd = -1, rc = 1, r;
	sigset_t old;

	session_init(&s);
	if (app_resolve(o, &app, &d) < 0 ||
	    app_env_build(environ, o->environment, &envp, &d) < 0 ||
	    output_prepare(o, &app, &output, &d) < 0) {
		console_diag(&d);
		goto out;
	}
	console_diag(&d);   /* warnings */
	d = (struct diag){ 0 };

	console_info("Start profiling....");
	if (!o->storage_limit_mb && output_check_space(output, &d) < 0) {
		console_diag(&d);
		goto out;
	}

	sigfd = signals_watch(true, &old);
	if (sigfd < 0)
		goto out;

	if (session_connect(&s) < 0)
		goto out_mask;
	r = spawn_held(&app, envp, session_fd(&s), &child);
	if (r < 0) {
		console_error("cannot start '%s': %s", app.path, strerror(-r));
		goto out_mask;
	}
	if (session_create_dir(&s, output, o, child.pid, app.name, rank_of(envp), app.name, app.dir) < 0)
		goto out_abandon;
	pid_t pids[1] = { child.pid };
	if (session_start(&s, o, pids, 1) < 0) {
		session_discard(&s);
		goto out_abandon;
	}

	r = release(&child);
	if (r < 0) {
		console_error("cannot execute '%s': %s", app.path, strerror(-r));
		session_discard(&s);
		rc = 127;
		goto out_abandon;
	}

	int status = 0;
	r = wait_app(&s, sigfd, child.pid, &status);
	if (r < 0) {
		/* cannot happen short of a kernel bug; do not leave the app */
		console_error("cannot wait for the application: %s", strerror(-r));
		kill(child.pid, SIGKILL);
		abandon(&child);
		session_stop(&s);
		goto out_mask;
	}
	child.pid = -1;
	rc = exit_code(status);

	/* Drop stop signals that came with the exit, then let Ctrl-C
	 * interrupt the export as usual: the raw data stays for --export. */
	struct signalfd_siginfo si;
	while (read(sigfd, &si, sizeof(si)) > 0)
		;
	close(sigfd);
	sigfd = -1;
	sigprocmask(SIG_SETMASK, &old, NULL);

	session_stop(&s);
	if (export_one(s.prof_dir, o->type) < 0 && rc == 0)
		rc = 1;
	console_info("Profiling finished.");
	console_info("Process profiling data complete. Data is saved in %s", s.prof_dir);
	goto out;

out_abandon:
	abandon(&child);
out_mask:
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	session_release(&s);
	app_cmd_release(&app);
	strv_free(envp);
	free(output);
	return rc;
}
