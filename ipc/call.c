/* The blocking client the launcher uses: find or start the per-user daemon,
 * say hello, make calls with a deadline, collect unsolicited events.
 *
 * Starting the daemon follows tmux: connect; on failure take an exclusive
 * flock on <sock>.lock and connect again (another client may have started it
 * meanwhile); still nothing, so remove a stale socket and spawn msprofd with
 * --ready-fd, then block on that pipe until the daemon writes its "ready"
 * line (it does so after listen(), so the next connect succeeds) or the pipe
 * closes because it failed.  The lock is held throughout, so racing clients
 * start exactly one daemon. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "common/util.h"

#define CLIENT_MAX_EVENTS 256           /* queued unsolicited events */
#define CLIENT_HELLO_TIMEOUT_MS 5000
#define CLIENT_SPAWN_TIMEOUT_MS 10000   /* the daemon must be ready by then */

struct ipc_client {
	int fd;
	bool eof;
	uint64_t next_id;
	char *buf;                      /* 4 + IPC_MAX_MSG bytes */
	size_t len;
	cJSON *events[CLIENT_MAX_EVENTS];
	unsigned ev_head, ev_count;
};

static _printf_(2, 3) void set_err(char **ret_err, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!ret_err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	*ret_err = s;
}

/* Milliseconds left until deadline_ns (0: no deadline -> -1 for poll). */
static int ms_left(uint64_t deadline_ns)
{
	if (!deadline_ns)
		return -1;
	uint64_t now = mono_ns();
	if (now >= deadline_ns)
		return 0;
	uint64_t ms = (deadline_ns - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static uint64_t deadline_after(int timeout_ms)
{
	return timeout_ms < 0 ? 0 : mono_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
}

/* Wait for fd to become ready for events; 0 on timeout, 1 ready. */
static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, ms_left(deadline_ns));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		return r > 0;
	}
}

static int try_connect(const char *sock_path, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;

	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, sock_path);
	/* Non-blocking: a daemon whose backlog is full gives EAGAIN at once
	 * instead of hanging the launcher. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* --- locating and spawning the daemon ----------------------------------- */

static bool is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The path fmt makes, in *ret when it is an executable file: 0 then,
 * -ENOENT when it is not, -ENOMEM. */
_printf_(2, 3) static int try_executable(char **ret, const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (!is_executable(p)) {
		free(p);
		return -ENOENT;
	}
	*ret = p;
	return 0;
}

/* daemon_path, else $MSPROFD_PATH, else next to our own binary (or in
 * ../daemon inside a meson build tree), else PATH.
 * Resolved before fork so the child only calls async-signal-safe functions. */
static int find_daemon(const char *daemon_path, char **ret)
{
	const char *env = getenv("MSPROFD_PATH");
	char self[PATH_MAX];
	char *p;

	if (daemon_path && *daemon_path)
		return (*ret = strdup(daemon_path)) ? 0 : -ENOMEM;
	if (env && *env)
		return (*ret = strdup(env)) ? 0 : -ENOMEM;

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			int r = try_executable(ret, "%s/msprofd", self);
			if (r != -ENOENT)
				return r;
			/* Run from a meson build tree (build/launcher/msprof), the
			 * daemon is build/daemon/msprofd.  Only where build.ninja
			 * says this is a build tree, so an installed msprof never
			 * picks up a stray ../daemon. */
			if (asprintf(&p, "%s/../build.ninja", self) < 0)
				return -ENOMEM;
			bool build_tree = access(p, F_OK) == 0;
			free(p);
			r = build_tree ? try_executable(ret, "%s/../daemon/msprofd", self) : -ENOENT;
			if (r != -ENOENT)
				return r;
		}
	}

	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		int r = try_executable(ret, "%.*s/msprofd", (int)len, len ? path : ".");
		if (r != -ENOENT)
			return r;
		path += len;
		if (*path == ':')
			path++;
	}
	return -ENOENT;
}

/* Child side of the spawn: only async-signal-safe calls until exec.  The
 * ready pipe becomes fd 3, everything else the launcher had open is closed
 * (it may hold the app's pipes), stdio is /dev/null (the daemon opens its
 * own log), and the signal mask is cleared because the launcher may block
 * signals it forwards and a blocked SIGTERM would survive exec. */
static _Noreturn void spawn_child(const char *exe, char *const argv[], int ready_w, int err_w)
{
	sigset_t none;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Move both pipe ends above the fds we are about to fill. */
	int rw = fcntl(ready_w, F_DUPFD, 10);
	int ew = fcntl(err_w, F_DUPFD_CLOEXEC, 10);
	int null = open("/dev/null", O_RDWR);
	if (rw < 0 || ew < 0 || null < 0)
		goto fail;
	if (dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 || dup2(rw, 3) < 0)
		goto fail;
	/* Keep fd 3 (ready) and ew (exec error, close-on-exec, ew >= 10). */
	if (close_range(4, (unsigned)ew - 1, 0) < 0 || close_range((unsigned)ew + 1, ~0U, 0) < 0)
		for (int fd = 4; fd < 4096; fd++)
			if (fd != ew)
				close(fd);
	execv(exe, argv);
fail:
	e = errno;
	if (ew >= 0)
		(void)!write(ew, &e, sizeof(e));
	_exit(127);
}

/* Spawn msprofd and wait for its ready line.  The daemon detaches by itself
 * (fork + setsid); the process we fork exits once the daemon is ready, so it
 * is reaped here and the daemon is never the launcher's child. */
static int spawn_daemon(const char *exe, const char *runtime_dir, char **ret_err)
{
	_cleanup_close_ int ready_r = -EBADF, ready_w = -EBADF, err_r = -EBADF, err_w = -EBADF;
	char *argv[] = { (char *)exe, (char *)"--ready-fd=3", NULL };
	int p[2], r, status = 0;
	bool timed_out = false, reaped = false;
	char line[64];
	size_t got = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	ready_r = p[0], ready_w = p[1];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	err_r = p[0], err_w = p[1];

	pid_t pid = fork();
	if (pid < 0) {
		r = -errno;
		set_err(ret_err, "cannot start msprofd: %s", strerror(-r));
		return r;
	}
	if (pid == 0)
		spawn_child(exe, argv, ready_w, err_w);
	close(TAKE_FD(ready_w));
	close(TAKE_FD(err_w));

	/* EOF on the error pipe means exec succeeded (it is close-on-exec). */
	int exec_errno = 0;
	ssize_t n;
	do
		n = read(err_r, &exec_errno, sizeof(exec_errno));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(exec_errno)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		set_err(ret_err, "cannot execute msprofd '%s': %s", exe, strerror(exec_errno));
		return -exec_errno;
	}

	/* Block on the ready pipe: a line, or EOF when the daemon gave up. */
	uint64_t deadline = deadline_after(CLIENT_SPAWN_TIMEOUT_MS);
	r = 0;
	while (got < sizeof(line) - 1 && !memchr(line, '\n', got)) {
		r = wait_fd(ready_r, POLLIN, deadline);
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		n = read(ready_r, line + got, sizeof(line) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		got += (size_t)n;
		r = 1;
	}
	line[got] = '\0';
	bool ready = startswith(line, "ready") && strchr(line, '\n');

	if (!ready && timed_out) {
		/* Neither ready nor gone: not a working msprofd.  The process
		 * we forked is ours to end rather than leave behind. */
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == 0)
			kill(pid, SIGKILL);
		reaped = w == pid;
	}
	while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ready)
		return 0;
	if (timed_out) {
		set_err(ret_err, "msprofd '%s' was not ready within %d ms; see '%s/msprofd.log'",
			exe, CLIENT_SPAWN_TIMEOUT_MS, runtime_dir);
		return -ETIMEDOUT;
	}

	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		set_err(ret_err, "msprofd '%s' failed to start (exit status %d); see '%s/msprofd.log'",
			exe, WEXITSTATUS(status), runtime_dir);
	else if (WIFSIGNALED(status))
		set_err(ret_err, "msprofd '%s' failed to start (killed by signal %d)", exe,
			WTERMSIG(status));
	else
		set_err(ret_err, "msprofd '%s' did not report ready; see '%s/msprofd.log'", exe,
			runtime_dir);
	return -ECHILD;
}

/* --- frames over the blocking socket ------------------------------------ */

static int send_all(struct ipc_client *c, const char *buf, size_t len, uint64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return errno == EPIPE ? -ECONNRESET : -errno;
			int r = wait_fd(c->fd, POLLOUT, deadline);
			if (r < 0)
				return r;
			if (r == 0)
				return -ETIMEDOUT;
			continue;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read once into the buffer.  1: got bytes, 0: would block, <0: error or
 * -ECONNRESET on EOF. */
static int fill(struct ipc_client *c)
{
	if (c->eof)
		return -ECONNRESET;
	for (;;) {
		ssize_t n = recv(c->fd, c->buf + c->len, 4 + IPC_MAX_MSG - c->len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0) {
			c->eof = true;
			return -ECONNRESET;
		}
		c->len += (size_t)n;
		return 1;
	}
}

/* Take one whole frame out of the buffer: 1 and a checked message, 0 when
 * more bytes are needed. */
static int next_frame(struct ipc_client *c, cJSON **ret, enum ipc_type *ret_type, uint64_t *ret_id)
{
	size_t used;
	cJSON *m;

	int r = ipc_frame_decode(c->buf, c->len, &used, &m);
	if (r <= 0)
		return r;
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	r = ipc_msg_check(m, ret_type, ret_id);
	if (r < 0) {
		cJSON_Delete(m);
		return r;
	}
	*ret = m;
	return 1;
}

static bool is_event(enum ipc_type t, uint64_t id)
{
	return id == 0 && t >= IPC_T_SESSION_ENDED && t < IPC_T_ERROR;
}

static void queue_event(struct ipc_client *c, cJSON *ev)
{
	/* The daemon sends at most one event per session; a flood is a bug,
	 * and memory stays bounded by dropping what does not fit. */
	if (c->ev_count == CLIENT_MAX_EVENTS) {
		cJSON_Delete(ev);
		return;
	}
	c->events[(c->ev_head + c->ev_count) % CLIENT_MAX_EVENTS] = ev;
	c->ev_count++;
}

int ipc_client_call(struct ipc_client *c, cJSON *req, int timeout_ms, cJSON **ret_reply)
{
	_cleanup_free_ char *frame = NULL;
	size_t frame_len;
	uint64_t deadline = deadline_after(timeout_ms);
	int r;

	/* The client owns the id space of its connection: 0 is for events. */
	uint64_t id = ++c->next_id;
	cJSON_DeleteItemFromObjectCaseSensitive(req, "id");
	if (!cJSON_AddNumberToObject(req, "id", (double)id))
		return -ENOMEM;
	if (!cJSON_HasObjectItem(req, "v") && !cJSON_AddNumberToObject(req, "v", IPC_PROTO_VERSION))
		return -ENOMEM;

	r = ipc_frame_encode(req, &frame, &frame_len);
	if (r < 0)
		return r;
	r = send_all(c, frame, frame_len, deadline);
	/* A daemon that refused us (limit, uid) wrote why and closed: the
	 * send fails, but the reason is still there to read. */
	if (r < 0 && r != -ECONNRESET)
		return r;

	for (;;) {
		cJSON *m;
		enum ipc_type t;
		uint64_t mid;

		r = next_frame(c, &m, &t, &mid);
		if (r < 0)
			return r;
		if (r == 0) {
			r = wait_fd(c->fd, POLLIN, deadline);
			if (r < 0)
				return r;
			if (r == 0)
				return -ETIMEDOUT;
			r = fill(c);
			if (r < 0)
				return r;
			continue;
		}
		if (mid == id || (mid == 0 && t == IPC_T_ERROR)) {
			/* An error with id 0 is about the connection (the
			 * daemon is closing it): the pending call gets it. */
			*ret_reply = m;
			return t == IPC_T_ERROR ? -EREMOTEIO : 0;
		}
		if (is_event(t, mid))
			queue_event(c, m);
		else
			cJSON_Delete(m); /* a late reply to a call that timed out */
	}
}

int ipc_client_poll_event(struct ipc_client *c, cJSON **ret_event)
{
	if (c->ev_count > 0) {
		*ret_event = c->events[c->ev_head];
		c->ev_head = (c->ev_head + 1) % CLIENT_MAX_EVENTS;
		c->ev_count--;
		return 1;
	}
	for (;;) {
		cJSON *m;
		enum ipc_type t;
		uint64_t mid;

		int r = next_frame(c, &m, &t, &mid);
		if (r < 0)
			return r;
		if (r == 1) {
			if (mid == 0) {
				*ret_event = m;
				return 1;
			}
			cJSON_Delete(m);
			continue;
		}
		r = fill(c);
		if (r <= 0)
			return r;
	}
}

int ipc_client_fd(const struct ipc_client *c)
{
	return c->fd;
}

struct ipc_client *ipc_client_free(struct ipc_client *c)
{
	if (!c)
		return NULL;
	if (c->fd >= 0)
		close(c->fd);
	while (c->ev_count > 0) {
		cJSON_Delete(c->events[c->ev_head]);
		c->ev_head = (c->ev_head + 1) % CLIENT_MAX_EVENTS;
		c->ev_count--;
	}
	free(c->buf);
	free(c);
	return NULL;
}

static inline void ipc_client_freep(struct ipc_client **c) { ipc_client_free(*c); }

static int client_new(int fd, struct ipc_client **ret)
{
	struct ipc_client *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->buf = malloc(4 + IPC_MAX_MSG);
	if (!c->buf) {
		free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

static int hello(struct ipc_client *c, char **ret_err)
{
	_cleanup_json_ cJSON *req = ipc_msg_new(IPC_T_HELLO, 0);
	_cleanup_json_ cJSON *reply = NULL;

	if (!req || !cJSON_AddStringToObject(req, "client", "msprof") ||
	    !cJSON_AddNumberToObject(req, "pid", getpid()))
		return -ENOMEM;
	int r = ipc_client_call(c, req, CLIENT_HELLO_TIMEOUT_MS, &reply);
	if (r == -EREMOTEIO) {
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(reply, "message");
		set_err(ret_err, "msprofd refused the connection: %s",
			cJSON_IsString(msg) ? msg->valuestring : "no reason given");
		return r;
	}
	if (r == -ETIMEDOUT) {
		set_err(ret_err, "msprofd did not answer within %d ms", CLIENT_HELLO_TIMEOUT_MS);
		return r;
	}
	if (r < 0) {
		set_err(ret_err, "cannot talk to msprofd: %s", strerror(-r));
		return r;
	}
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(reply, "type");
	if (!cJSON_IsString(type) || !streq(type->valuestring, "hello") ||
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(reply, "ok"))) {
		set_err(ret_err, "msprofd sent an unexpected reply to hello");
		return -EPROTO;
	}
	return 0;
}

/* The runtime directory keeps other users out, unless root made it or
 * someone loosened it: a server of another uid on our socket path could
 * answer with anything and learn what we profile, so it is not spoken to.
 * The kernel records the listener's credentials at connect, before any
 * accept. */
static int check_server(int fd, const char *sock, char **ret_err)
{
	pid_t pid;
	uid_t uid;
	int r = ipc_peer_cred(fd, &pid, &uid);
	if (r < 0) {
		set_err(ret_err, "cannot check who serves '%s': %s", sock, strerror(-r));
		return r;
	}
	if (uid != geteuid()) {
		set_err(ret_err, "the server on '%s' (pid %d) runs as uid %u, not as uid %u: refusing to use it; "
			"stop that process and remove the socket, or set MSPROF_RUNTIME_DIR to a directory of "
			"your own", sock, (int)pid, (unsigned)uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

static void unlock_closep(int *fd)
{
	if (*fd >= 0) {
		flock(*fd, LOCK_UN);
		close(*fd);
	}
}

int ipc_client_connect(const char *daemon_path, struct ipc_client **ret, char **ret_err)
{
	_cleanup_free_ char *dir = NULL, *sock = NULL, *lock = NULL, *exe = NULL;
	__attribute__((cleanup(ipc_client_freep))) struct ipc_client *c = NULL;
	_cleanup_close_ int fd = -EBADF;
	const char *why = "unknown reason";
	int r;

	r = ipc_runtime_dir(&dir, &why);
	if (r < 0) {
		_cleanup_free_ char *path = NULL;
		const char *why2 = why;
		if (ipc_runtime_dir_path(&path, &why2) < 0)
			set_err(ret_err, "cannot use runtime directory: %s", why2);
		else if (r == -EPERM)
			set_err(ret_err, "cannot use runtime directory '%s': %s", path, why);
		else
			set_err(ret_err, "cannot use runtime directory '%s': %s: %s", path, why,
				strerror(-r));
		return r;
	}
	r = ipc_socket_path(dir, &sock, &lock);
	if (r < 0) {
		set_err(ret_err, "cannot use socket in '%s': %s", dir, strerror(-r));
		return r;
	}

	r = try_connect(sock, &fd);
	if (r == -ENOENT || r == -ECONNREFUSED) {
		__attribute__((cleanup(unlock_closep))) int lock_fd =
			open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (lock_fd < 0) {
			r = -errno;
			set_err(ret_err, "cannot open lock file '%s': %s", lock, strerror(-r));
			return r;
		}
		while (flock(lock_fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				r = -errno;
				set_err(ret_err, "cannot lock '%s': %s", lock, strerror(-r));
				return r;
			}
		}
		/* Another client may have started it while we waited. */
		r = try_connect(sock, &fd);
		if (r == -ENOENT || r == -ECONNREFUSED) {
			struct stat st;
			/* Refused: a socket nobody listens on, left by a daemon
			 * that was killed.  Only ever remove a socket. */
			if (lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(sock) < 0 &&
			    errno != ENOENT) {
				r = -errno;
				set_err(ret_err, "cannot remove stale socket '%s': %s", sock, strerror(-r));
				return r;
			}
			r = find_daemon(daemon_path, &exe);
			if (r < 0) {
				set_err(ret_err, "cannot find msprofd next to this program or in PATH "
					"(set MSPROFD_PATH)");
				return r;
			}
			r = spawn_daemon(exe, dir, ret_err);
			if (r < 0)
				return r;
			r = try_connect(sock, &fd);
		}
	}
	if (r < 0) {
		set_err(ret_err, "cannot connect to msprofd at '%s': %s", sock, strerror(-r));
		return r;
	}

	r = check_server(fd, sock, ret_err);
	if (r < 0)
		return r;
	r = client_new(fd, &c);
	if (r < 0) {
		set_err(ret_err, "out of memory");
		return r;
	}
	fd = -EBADF;
	r = hello(c, ret_err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}
