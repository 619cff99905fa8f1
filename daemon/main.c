/* msprofd: the per-user msprof daemon.  Parses options (cmdline.c), claims
 * the runtime directory and socket, detaches, and runs the server's loop
 * until a signal, a shutdown request or the idle timeout ends it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "collectors/device.h"
#include "daemon/msprofd.h"

#define EXIT_USAGE 2
#define DEV_EXIT_WAIT_MS 2000     /* for device workers still in a driver call */

/* Fork into the background.  The parent stays until the child reports ready
 * (exit 0) or gives up (exit 1), so whoever ran msprofd gets a meaningful
 * status; the child gets its own session, / as cwd and /dev/null as stdio.
 * *ret_notify_fd is the child's end of that report. */
static int detach(int ready_fd, int *ret_notify_fd)
{
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		/* Our copy of the ready pipe would hide the child's EOF. */
		if (ready_fd >= 0)
			close(ready_fd);
		ssize_t n;
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	close(p[0]);
	if (setsid() < 0)
		return -errno;
	if (chdir("/") < 0)
		return -errno;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return -errno;
	if (dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0) {
		close(null);
		return -errno;
	}
	close(null);
	*ret_notify_fd = p[1];
	return 0;
}

/* Is a daemon answering on sock_path?  A full backlog counts as yes. */
static bool daemon_alive(const char *sock_path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || strlen(sock_path) >= sizeof(sa.sun_path))
		return false;
	strcpy(sa.sun_path, sock_path);
	return connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 || errno == EAGAIN;
}

/* Written with rename so a reader never sees it half written. */
static int write_pid_file(const char *path)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	_cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0)
		return -errno;
	if (rename(tmp, path) < 0) {
		int r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

/* Sessions keep /proc files open per followed process: use the hard limit
 * (the loop is epoll based, high fds are fine).  Below what the connection
 * limits can take (twice: those without a hello may number as many again),
 * a connection past it is dropped at accept: say so now. */
static void raise_nofile(const struct daemon_options *o)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	uint64_t need = 2 * ((uint64_t)o->max_clients + o->max_agents) + 64;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_msg("the open file limit (%llu) is below the %llu that %u clients and %u agents may take: "
			"connections past it are dropped (raise 'ulimit -n' or lower --max-agents)",
			(unsigned long long)rl.rlim_cur, (unsigned long long)need, o->max_clients, o->max_agents);
}

static void notify_ready(int *fd)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "ready %d\n", (int)getpid());
	if (*fd < 0)
		return;
	(void)!write(*fd, line, (size_t)n);
	close(*fd);
	*fd = -1;
}

static void print_handle(uv_handle_t *h, void *arg)
{
	log_msg("handle '%s' still open at exit", uv_handle_type_name(uv_handle_get_type(h)));
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *dir = NULL, *sock = NULL, *lock = NULL, *pid_path = NULL, *log_path = NULL;
	_cleanup_close_ int lock_fd = -EBADF;
	struct daemon_options o;
	const char *why = "unknown reason";
	int notify_fd = -1, echo_fd = -1, r;
	uv_loop_t loop;
	struct server *srv = NULL;

	r = daemon_parse_options(argc, argv, &o);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : EXIT_SUCCESS;
	/* Whatever our starter left open (pipes of a test, a terminal) would
	 * be held for our whole life: keep only stdio and the ready fd. */
	if (o.ready_fd >= 0) {
		(void)fcntl(o.ready_fd, F_SETFD, FD_CLOEXEC);
		if (o.ready_fd > 3)
			(void)close_range(3, (unsigned)o.ready_fd - 1, 0);
		(void)close_range((unsigned)o.ready_fd + 1, ~0U, 0);
	} else {
		(void)close_range(3, ~0U, 0);
	}
	/* A client that vanishes mid-write must not kill the daemon. */
	signal(SIGPIPE, SIG_IGN);

	r = ipc_runtime_dir(&dir, &why);
	if (r < 0) {
		_cleanup_free_ char *path = NULL;
		if (ipc_runtime_dir_path(&path, &why) < 0)
			log_msg("cannot use runtime directory: %s", why);
		else
			log_msg("cannot use runtime directory '%s': %s%s%s", path, why,
				r == -EPERM ? "" : ": ", r == -EPERM ? "" : strerror(-r));
		return EXIT_FAILURE;
	}
	r = ipc_socket_path(dir, &sock, &lock);
	if (r < 0) {
		log_msg("cannot use runtime directory '%s': %s", dir, strerror(-r));
		return EXIT_FAILURE;
	}
	if (asprintf(&pid_path, "%s/msprofd.pid", dir) < 0 ||
	    asprintf(&log_path, "%s/msprofd.log", dir) < 0) {
		pid_path = log_path = NULL;
		log_msg("cannot start: %s", strerror(ENOMEM));
		return EXIT_FAILURE;
	}

	if (!o.foreground) {
		/* Until ready, lines also go to the terminal we were run from. */
		echo_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		r = detach(o.ready_fd, &notify_fd);
		if (r < 0) {
			log_msg("cannot detach: %s", strerror(-r));
			return EXIT_FAILURE;
		}
		r = log_open(log_path);
		if (r < 0) {
			log_msg("cannot open log '%s': %s", log_path, strerror(-r));
			return EXIT_FAILURE;
		}
		log_echo(echo_fd);
	}

	/* A client that spawns us holds the lock already; by hand, take it so
	 * that two manual starts cannot both bind. */
	if (o.ready_fd < 0) {
		lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (lock_fd < 0 || flock(lock_fd, LOCK_EX) < 0) {
			log_msg("cannot lock '%s': %s", lock, strerror(errno));
			return EXIT_FAILURE;
		}
	}
	if (daemon_alive(sock)) {
		log_msg("already running on '%s'", sock);
		return EXIT_FAILURE;
	}
	struct stat st;
	if (lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(sock) < 0 && errno != ENOENT) {
		log_msg("cannot remove stale socket '%s': %s", sock, strerror(errno));
		return EXIT_FAILURE;
	}

	raise_nofile(&o);
	r = uv_loop_init(&loop);
	if (r < 0) {
		log_msg("cannot create event loop: %s", uv_strerror(r));
		return EXIT_FAILURE;
	}
	struct server_config cfg = { .sock_path = sock, .pid_path = pid_path,
				     .idle_timeout_s = o.idle_timeout_s,
				     .max_clients = o.max_clients, .max_agents = o.max_agents };
	r = server_new(&loop, &cfg, &srv);
	if (r < 0) {
		(void)uv_loop_close(&loop);
		return EXIT_FAILURE;
	}
	r = write_pid_file(pid_path);
	if (r < 0) {
		log_msg("cannot write '%s': %s", pid_path, strerror(-r));
		server_shutdown(srv, "startup failed");
		uv_run(&loop, UV_RUN_DEFAULT);
		srv = server_free(srv);
		(void)uv_loop_close(&loop);
		return EXIT_FAILURE;
	}
	if (lock_fd >= 0)
		close(TAKE_FD(lock_fd));

	/* Silent on the terminal once started: only the log hears of it. */
	log_echo(-1);
	if (echo_fd >= 0)
		close(echo_fd);
	log_msg("version %s ready on '%s' (idle timeout %u s, at most %u clients and %u agents)", MSPROF_VERSION,
		sock, o.idle_timeout_s, o.max_clients, o.max_agents);
	notify_ready(&o.ready_fd);
	notify_ready(&notify_fd);

	uv_run(&loop, UV_RUN_DEFAULT);
	srv = server_free(srv);
	/* Device workers let go of by sessions that could not wait (their
	 * owner left, or this shutdown) may still be in a driver call: give
	 * them a moment to write their end records before the process goes. */
	unsigned left = dev_workers_wait(DEV_EXIT_WAIT_MS);
	if (left)
		log_msg("%u device sampler(s) still blocked in a driver call after %d ms: their data "
			"ends at the last whole sample", left, DEV_EXIT_WAIT_MS);
	r = uv_loop_close(&loop);
	if (r < 0) {
		uv_walk(&loop, print_handle, NULL);
		log_msg("event loop still busy at exit: %s", uv_strerror(r));
		return EXIT_FAILURE;
	}
	log_msg("exited");
	return EXIT_SUCCESS;
}
