/* The agent's life: load (constructor), the agent thread, the daemon
 * connection, fork and exit.
 *
 * The agent thread ("msprof-agent", all signals blocked) wakes every
 * AGENT_DRAIN_MS while a window records to drain the queues, and otherwise
 * once a second to (re)connect; every LOST_RETRY_NS after it lost a
 * msprofd it was registered with, so that the one msprof starts in its
 * place finds it registered before its next session's start (a connect to
 * a missing socket is a few microseconds; no inotify instance, which a
 * job's thousand processes would take from the user's limit of 128).  Connected, it says the agent hello of
 * ipc/proto.h and obeys agent_start / agent_stop; it never starts the
 * daemon, and a daemon that is absent or goes away costs the program
 * nothing but one line on stderr (only when an open connection is lost).
 *
 * Standalone mode: MSPROF_AGENT_OUTPUT=<dir> records from load to exit into
 * <dir>/host/data (no daemon), with MSPROF_AGENT_MSTX_DOMAIN_INCLUDE /
 * _EXCLUDE as the filter.  Launch mode: MSPROF_AGENT_WAIT_MS makes the
 * loading thread register before the program runs (register_sync).
 * Self-enable: MSPROF_OPTIONS / MSPROF_CONFIG without msprof above the
 * process starts msprof at load (selfenable.c), then registers as in
 * launch mode, retrying while msprof brings msprofd up.
 *
 * fork: the prepare handler takes the agent's locks so the child gets them
 * in a known state; the child handler only resets memory and closes the
 * inherited descriptors (async-signal-safe calls), and leaves g_state at
 * AGENT_CHILD: the child's first annotation sets it up (its own agent
 * thread, its own connection or standalone file).  A child of a recording
 * process buffers meanwhile (AGENT_BUFFERING): its other threads' events
 * wait in their queues for the window its registration opens.  exec: the environment
 * carries LD_PRELOAD and the injection variables on.  exec and _exit
 * (exitflush.c) first have the agent thread write what the queues hold
 * (agent_flush_now, answered by answer_flush). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "collectors/agent/agent.h"
#include "common/step-schedule.h"
#include "collectors/agent/ajson.h"
#include "msprof/control.h"
#include "common/host-sys.h"
#include "ipc/proto.h"

#define RETRY_NS (1 * NSEC_PER_SEC)
/* After a registered agent lost msprofd (killed; msprof starts another). */
#define LOST_RETRY_NS (20 * NSEC_PER_MSEC)
#define REFUSED_RETRY_NS (10 * NSEC_PER_SEC)
#define SEND_TIMEOUT_MS 1000
/* A forked child buffers while it registers (AGENT_BUFFERING) until a
 * window takes its events, or it is clear that none will: no msprofd, a
 * refusal, a session that asks nothing of it, no agent_start within
 * BUFFER_GRACE_NS of the hello's answer (msprofd sends it right after), or
 * BUFFER_MAX_NS in all. */
#define BUFFER_GRACE_NS (200 * NSEC_PER_MSEC)
#define BUFFER_MAX_NS (10 * NSEC_PER_SEC)

enum conn { C_NONE, C_HELLO, C_READY };
#define CAPTURE_QUEUE 64 /* capture requests asked before the agent thread sends them */

static struct {
	bool started;              /* the agent thread runs (in this process) */
	pthread_t thread;
	_Atomic int exiting;
	int sock;
	enum conn conn;
	uint64_t next_try_ns;
	bool lost;                 /* lost a msprofd it was registered with: LOST_RETRY_NS */
	_Atomic bool connect_failed; /* the last connection attempt found no msprofd */
	bool crowded;              /* closed before its hello was read, to make room in a
				      storm of connections (no_hello): tried again at once */
	bool warned;
	char *standalone_dir;
	uint64_t next_id;
	uint64_t idle_session;     /* agent_start without msproftx: nothing recorded */
	char idle_dir[PATH_MAX];   /* its prof_dir, for a window when CUPTI comes up */
	bool idle_listed;          /* its --ranks list has us */
	_Atomic pid_t pid;         /* the process the agent thread runs in */
	bool fork_buffers;         /* a child forked now buffers while it registers */
	uint64_t buffer_until_ns;  /* then: the latest end of its buffering */
	uint64_t ready_ns;         /* when the hello was answered */
	/* agent_flush_now: requests asked and answered (futex words) */
	_Atomic uint32_t flush_req, flush_done;
	/* msprofStart/msprofStop and --capture-range, in the order asked,
	 * until the agent thread sends them (capture_mu) */
	pthread_mutex_t capture_mu;
	struct {
		bool start;
		int64_t lo, hi;          /* --schedule's steps [lo, hi), or 0, 0 */
	} capture_q[CAPTURE_QUEUE];
	unsigned capture_head, capture_n;
	uint64_t capture_dropped;        /* asked while the queue was full */
	void (*_Atomic on_schedule)(const char *spec);  /* agent_control_on_schedule */
	/* --dump-on (agent_control_on_watch): arm, and look at the clock */
	void (*_Atomic on_watch)(const char *spec);
	void (*_Atomic watch_tick)(uint64_t now_ns);
	/* a dump asked for (agent_dump_ask), until the agent thread sends it */
	char dump_trigger[16], dump_detail[200];
	bool armed;                      /* msprofd armed a --schedule (register_sync's wait ends) */
	size_t rlen;
	char rbuf[4 + IPC_MAX_MSG];
	char sbuf[IPC_MAX_MSG + 1];
} C = { .sock = -1, .capture_mu = PTHREAD_MUTEX_INITIALIZER };

static void warn_once(const char *fmt, const char *a, const char *b)
{
	if (C.warned)
		return;
	C.warned = true;
	/* one write: in a job of many processes sharing the terminal or a
	 * log, the line must not be cut by another process's output */
	char line[1024];
	int n = snprintf(line, sizeof line, "msprof agent: ");
	int k = snprintf(line + n, sizeof line - (size_t)n - 1, fmt, a, b);
	n = k < 0 ? n : n + k < (int)sizeof line - 1 ? n + k : (int)sizeof line - 2;
	line[n++] = '\n';
	int saved = errno;
	(void)!write(2, line, (size_t)n);
	errno = saved;
}

/* --- the daemon connection ------------------------------------------------ */

/* The runtime dir as ipc/runtime.c resolves it, checked but never created:
 * the agent must not make directories in the user's name. */
static int runtime_sock(char *buf, size_t size, const char **ret_why, char *ret_dir)
{
	const char *env = getenv("MSPROF_RUNTIME_DIR");
	char dir[PATH_MAX];
	if (env && *env) {
		if (env[0] != '/') {
			*ret_why = "MSPROF_RUNTIME_DIR is not an absolute path";
			return -EINVAL;
		}
		snprintf(dir, sizeof(dir), "%s", env);
	} else if ((env = getenv("XDG_RUNTIME_DIR")) && env[0] == '/') {
		snprintf(dir, sizeof(dir), "%s/msprof", env);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/msprof-%u", (unsigned)geteuid());
	}
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = 0;
	struct stat st;
	if (lstat(dir, &st) < 0)
		return -errno; /* no daemon yet: not worth a word */
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		*ret_why = "it is not a 0700 directory of the current user";
		return -EPERM;
	}
	int n = snprintf(buf, size, "%s/msprofd.sock", dir);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	memcpy(ret_dir, dir, sizeof(dir));
	return 0;
}

static int send_msg(const char *json, size_t n)
{
	if (C.sock < 0)
		return -ENOTCONN;
	uint8_t hdr[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
	struct iovec iov[2] = { { hdr, 4 }, { (void *)json, n } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t want = 4 + n, done = 0;
	/* a blocking socket with SO_SNDTIMEO: the daemon reads promptly */
	while (done < want) {
		ssize_t k = sendmsg(C.sock, &mh, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)k;
		while (mh.msg_iovlen > 0 && (size_t)k >= mh.msg_iov[0].iov_len) {
			k -= (ssize_t)mh.msg_iov[0].iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen > 0) {
			mh.msg_iov[0].iov_base = (uint8_t *)mh.msg_iov[0].iov_base + k;
			mh.msg_iov[0].iov_len -= (size_t)k;
		}
	}
	return 0;
}

static void msg_begin(struct ajw *w, enum ipc_type type, uint64_t id)
{
	ajw_begin(w, C.sbuf, sizeof(C.sbuf));
	ajw_int(w, "v", IPC_PROTO_VERSION);
	ajw_str(w, "type", ipc_type_name(type));
	ajw_uint(w, "id", id);
}

static int msg_send(struct ajw *w)
{
	long n = ajw_end(w);
	return n < 0 ? (int)n : send_msg(C.sbuf, (size_t)n);
}

static void send_error(uint64_t id, enum ipc_err code, const char *message)
{
	struct ajw w;
	msg_begin(&w, IPC_T_ERROR, id);
	ajw_str(&w, "code", ipc_err_name(code));
	ajw_str(&w, "message", message);
	(void)msg_send(&w);
}

static void disconnect(const char *why)
{
	bool was_ready = C.conn == C_READY;
	if (C.sock >= 0)
		close(C.sock);
	C.sock = -1;
	C.conn = C_NONE;
	C.rlen = 0;
	C.idle_session = 0;
	/* a msprofd started in its place (msprof restarts one) is seen at once */
	C.lost = C.lost || was_ready;
	C.next_try_ns = mono_ns() + (C.lost ? LOST_RETRY_NS : RETRY_NS);
	/* Nobody will stop the window now: close it so what was recorded is
	 * complete (counters last) and the disk stops filling. */
	pthread_mutex_lock(&g_win_mu);
	bool stopped = window_active() && window_stop_lost() >= 0;
	pthread_mutex_unlock(&g_win_mu);
	if (was_ready && !atomic_load(&C.exiting))
		warn_once("lost msprofd (%s)%s; the program continues", why,
			  stopped ? ", recording stopped" : "");
}

static void read_input(void);

/* Connect and say hello.  A connect waits while msprofd's backlog is
 * full (it takes connections as fast as it reads their hellos): at most
 * wait_ms, then the agent asks again as when msprofd had no room.  False
 * when no msprofd of ours was found. */
static bool connect_hello(uint64_t wait_ms)
{
	char path[PATH_MAX], dir[PATH_MAX];
	const char *why = NULL;
	C.next_try_ns = mono_ns() + (C.lost ? LOST_RETRY_NS : RETRY_NS);
	int r = runtime_sock(path, sizeof(path), &why, dir);
	if (r < 0) {
		if (why)
			warn_once("cannot use the msprofd runtime directory: %s%s", why, "");
		return false;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, path, strlen(path) + 1); /* runtime_sock checked the length */
	wait_ms = wait_ms < 1 ? 1 : wait_ms;
	struct timeval ctv = { .tv_sec = (time_t)(wait_ms / 1000), .tv_usec = (suseconds_t)(wait_ms % 1000) * 1000 };
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &ctv, sizeof(ctv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* not running: when a socket appears, or in a second; its
		 * backlog full for wait_ms (EAGAIN): crowded, ask again soon */
		if (errno == EAGAIN) {
			C.crowded = true;
			C.next_try_ns = mono_ns() + LOST_RETRY_NS;
		}
		close(fd);
		return false;
	}
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != geteuid()) {
		close(fd);
		warn_once("refusing msprofd socket '%s': %s", path, "not owned by the current user");
		return false;
	}
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_MS / 1000, .tv_usec = (SEND_TIMEOUT_MS % 1000) * 1000 };
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	C.sock = fd;

	char comm[64];
	agent_comm(comm, sizeof(comm));
	struct ajw w;
	msg_begin(&w, IPC_T_HELLO, ++C.next_id);
	ajw_str(&w, "client", "agent");
	ajw_int(&w, "pid", getpid());
	ajw_int(&w, "ppid", getppid());
	ajw_str(&w, "name", comm);
	ajw_int(&w, "rank", agent_rank());
	ajw_str(&w, "features", AGENT_FEATURES);
	C.conn = C_HELLO;
	if (msg_send(&w) < 0) {
		/* msprofd closed the connection before the hello went out
		 * (EPIPE): in a storm of connections it turns the newest away
		 * unheard, with a no_hello frame that is still there to read.
		 * Not a refusal of this process: it asks again at once, as
		 * when that frame comes after the hello -- unless the frame
		 * says otherwise (a real refusal is said, read_input). */
		C.crowded = true;
		read_input();
		if (C.sock >= 0) {
			close(C.sock);
			C.sock = -1;
		}
		C.conn = C_NONE;
		if (C.crowded)
			C.next_try_ns = mono_ns() + LOST_RETRY_NS;
		return true;
	}
	C.lost = false;
	return true;
}

/* connect_failed changes only once an attempt has ended: a request made
 * while the first one is under way is queued, not refused. */
static void try_connect(uint64_t wait_ms)
{
	C.connect_failed = !connect_hello(wait_ms);
}

static void on_start(const struct ajson_obj *m, uint64_t id)
{
	int64_t session = 0, threshold = OSRT_THRESHOLD_DEFAULT_NS;
	const char *dir = NULL, *inc = "", *exc = "", *ranks = "", *steps = "", *dump_on = "";
	bool tx = true, osrt = false;
	int64_t lo = 0, hi = 0;
	if (ajson_get_int(m, "session", &session) < 0 || session <= 0 ||
	    ajson_get_str(m, "prof_dir", &dir) < 0 || dir[0] != '/' ||
	    ajson_get_bool(m, "msproftx", &tx) == -EINVAL || ajson_get_bool(m, "osrt", &osrt) == -EINVAL ||
	    ajson_get_int(m, "osrt_threshold_ns", &threshold) == -EINVAL || threshold < 0 ||
	    (uint64_t)threshold > OSRT_THRESHOLD_MAX_NS ||
	    ajson_get_str(m, "mstx_domain_include", &inc) == -EINVAL ||
	    ajson_get_str(m, "mstx_domain_exclude", &exc) == -EINVAL ||
	    ajson_get_str(m, "ranks", &ranks) == -EINVAL || ajson_get_str(m, "step_range", &steps) == -EINVAL ||
	    (*steps && agent_gate_parse_range(steps, &lo, &hi) < 0) || ajson_get_str(m, "dump_on", &dump_on) == -EINVAL) {
		send_error(id, IPC_E_BAD_REQUEST, "agent_start needs 'session' and an absolute 'prof_dir' "
					      "('step_range' is \"A-B\", A < B; 'osrt_threshold_ns' 0..1000000000)");
		return;
	}
	/* --dump-on: the steps are watched whatever is recorded */
	void (*watch)(const char *) = atomic_load(&C.on_watch);
	if (watch)
		watch(dump_on);
	/* --ranks: a process of another rank records nothing (gate.c) */
	bool listed = agent_gate_rank_listed(ranks, agent_rank());
	if (!listed)
		tx = osrt = false;
	pthread_mutex_lock(&g_win_mu);
	int r = 0;
	if (atomic_load(&C.exiting))
		r = -ESHUTDOWN; /* the exit handler has closed the last window */
	else if (window_active() || C.idle_session)
		r = -EBUSY;
	else if (tx || osrt || (listed && (agent_cupti_active() || agent_comm_plugin_active()))) {
		/* osrt or device tasks alone: a window that takes no annotation */
		agent_gate_set(*steps != 0, lo, hi);
		r = window_start(&(struct window_opts){ .prof_dir = dir, .include = inc, .exclude = exc,
							 .session = (uint64_t)session, .osrt = osrt,
							 .no_mstx = !tx,
							 .osrt_threshold_ns = (uint64_t)threshold });
	} else {
		/* nothing of ours is asked for, unless CUPTI comes up later
		 * (cuInit after the session began): device_window */
		C.idle_session = (uint64_t)session;
		C.idle_listed = listed;
		snprintf(C.idle_dir, sizeof C.idle_dir, "%s", dir);
	}
	pthread_mutex_unlock(&g_win_mu);
	if (r == -EBUSY) {
		send_error(id, IPC_E_BUSY, "this agent is recording for another session");
		return;
	}
	if (r < 0) {
		char text[PATH_MAX + 64];
		snprintf(text, sizeof(text), "cannot write into '%s/host/data': %s", dir, strerror(-r));
		send_error(id, IPC_E_IO, text);
		return;
	}
#ifdef MSPROF_AGENT_NO_OSRT
	osrt = false; /* this build wraps no call: say so */
#endif
	struct ajw w;
	msg_begin(&w, IPC_T_AGENT_STARTED, id);
	ajw_int(&w, "session", session);
	ajw_bool(&w, "osrt", osrt);
	(void)msg_send(&w);
}

static void on_stop(const struct ajson_obj *m, uint64_t id)
{
	int64_t session = 0;
	if (ajson_get_int(m, "session", &session) < 0) {
		send_error(id, IPC_E_BAD_REQUEST, "agent_stop needs 'session'");
		return;
	}
	struct window_result res = { 0 };
	int r = -ENOENT;
	pthread_mutex_lock(&g_win_mu);
	if (window_active() && window_session() == (uint64_t)session)
		r = window_stop(&res);
	else if (C.idle_session && C.idle_session == (uint64_t)session)
		r = 0, C.idle_session = 0;
	pthread_mutex_unlock(&g_win_mu);
	if (r == -ENOENT) {
		send_error(id, IPC_E_NOT_FOUND, "this agent is not recording for that session");
		return;
	}
	struct ajw w;
	msg_begin(&w, IPC_T_AGENT_STOPPED, id);
	ajw_int(&w, "session", session);
	ajw_uint(&w, "events", res.events);
	ajw_uint(&w, "dropped", res.dropped);
	ajw_uint(&w, "bytes", res.bytes);
	ajw_uint(&w, "bad_calls", res.bad);
	ajw_uint(&w, "truncated", res.truncated);
	if (r < 0)
		ajw_str(&w, "error", strerror(-r));
	(void)msg_send(&w);
}

static void on_message(const char *json, size_t n)
{
	static char strbuf[IPC_MAX_MSG + 1];
	struct ajson_obj m;
	int64_t v = 0, id = 0;
	const char *type = NULL;
	if (ajson_parse(json, n, strbuf, sizeof(strbuf), &m) < 0 || ajson_get_int(&m, "v", &v) < 0 ||
	    ajson_get_str(&m, "type", &type) < 0) {
		disconnect("it sent a message that is not protocol JSON");
		return;
	}
	if (v != IPC_PROTO_VERSION) {
		disconnect("protocol version mismatch");
		return;
	}
	if (ajson_get_int(&m, "id", &id) == -EINVAL || id < 0)
		id = 0;
	enum ipc_type t = ipc_type_from_name(type);
	if (C.conn == C_HELLO) {
		bool ok = false;
		if (t == IPC_T_HELLO && ajson_get_bool(&m, "ok", &ok) == 0 && ok) {
			C.conn = C_READY;
			C.ready_ns = mono_ns();
			return;
		}
		const char *text = "hello refused", *code = "";
		(void)ajson_get_str(&m, "message", &text);
		char why[256];
		snprintf(why, sizeof(why), "%.200s", text);
		C.conn = C_NONE; /* no "lost" warning for a refusal */
		disconnect(why);
		/* Closed unheard among many connections at once (msprofd makes
		 * room among those without a hello): not a refusal of this
		 * process, so it asks again at once rather than recording
		 * nothing and saying nothing; a real refusal (the agent limit)
		 * is said, and named by msprof. */
		C.crowded = t == IPC_T_ERROR && ajson_get_str(&m, "code", &code) == 0 && strcmp(code, "no_hello") == 0;
		if (C.crowded) {
			C.next_try_ns = mono_ns() + LOST_RETRY_NS;
			return;
		}
		warn_once("msprofd refused this agent: %s%s", why, "");
		C.next_try_ns = mono_ns() + REFUSED_RETRY_NS;
		return;
	}
	if (t == IPC_T_AGENT_SCHEDULE) {
		const char *spec = "";
		void (*fn)(const char *) = atomic_load(&C.on_schedule);
		if (ajson_get_str(&m, "schedule", &spec) == 0 && fn) {
			fn(spec);
			C.armed = *spec != '\0';
		}
	} else if (t == IPC_T_AGENT_START)
		on_start(&m, (uint64_t)id);
	else if (t == IPC_T_AGENT_STOP)
		on_stop(&m, (uint64_t)id);
	else if (id > 0 && t != IPC_T_ERROR && t != IPC_T_STATUS)
		send_error((uint64_t)id, IPC_E_UNKNOWN_TYPE, "an agent does not answer this request");
}

static void read_input(void)
{
	for (;;) {
		ssize_t k = recv(C.sock, C.rbuf + C.rlen, sizeof(C.rbuf) - C.rlen, MSG_DONTWAIT);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			disconnect(strerror(errno));
			return;
		}
		if (k == 0) {
			disconnect("it closed the connection");
			return;
		}
		C.rlen += (size_t)k;
		size_t off = 0;
		while (C.sock >= 0 && C.rlen - off >= 4) {
			const uint8_t *p = (const uint8_t *)C.rbuf + off;
			uint32_t n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
			if (n == 0 || n > IPC_MAX_MSG) {
				disconnect("it sent a bad frame");
				return;
			}
			if (C.rlen - off - 4 < n)
				break;
			on_message(C.rbuf + off + 4, n);
			off += 4 + n;
		}
		if (C.sock < 0)
			return;
		memmove(C.rbuf, C.rbuf + off, C.rlen - off);
		C.rlen -= off;
	}
}

/* Launch mode: msprof holds the program until its session covers it, and
 * sets MSPROF_AGENT_WAIT_MS so that the agent registers before the program
 * runs: connect, hello, and wait (at most that long) for agent_start, so
 * the first annotation is recorded (or for agent_schedule: a window at the
 * job's steps, which must not miss the first of them).  Runs on the loading thread before the
 * agent thread exists (or, in a forked child, before it is restarted).
 * Without the variable the agent never waits.  Self-enabled (self_ms, from
 * selfenable.c), msprof has only just been started and may still be
 * starting msprofd: the connection is tried again every SELF_RETRY_MS
 * until the deadline. */
#define SELF_RETRY_MS 10
static uint64_t wait_left(uint64_t deadline)
{
	uint64_t now = mono_ns();
	uint64_t ms = now < deadline ? (deadline - now) / NSEC_PER_MSEC : 0;
	return ms < SEND_TIMEOUT_MS ? ms : SEND_TIMEOUT_MS;
}

static void register_sync(uint64_t self_ms)
{
	const char *v = getenv("MSPROF_AGENT_WAIT_MS");
	uint64_t ms = self_ms;
	if (C.standalone_dir || (!ms && (!v || parse_u64(v, 1, 60000, &ms) < 0)))
		return;
	uint64_t deadline = mono_ns() + ms * NSEC_PER_MSEC;
	try_connect(wait_left(deadline));
	for (;;) {
		uint64_t now = mono_ns();
		/* recording, or left idle, or armed to open windows at steps */
		if (window_active() || C.idle_session || C.armed)
			break;
		/* no connection, and one is tried again (self-enabled: msprofd
		 * may still be starting) */
		bool retrying = C.sock < 0 && (C.crowded || self_ms);
		if (now >= deadline || (retrying && now + SELF_RETRY_MS * NSEC_PER_MSEC >= deadline)) {
			/* Still crowded out, or the hello still unanswered (the
			 * agent thread reads the answer when it comes): said,
			 * never silent.  A refusal was said already. */
			char msbuf[24];
			snprintf(msbuf, sizeof msbuf, "%llu", (unsigned long long)ms);
			if (C.sock >= 0 && C.conn == C_HELLO)
				warn_once("msprofd did not answer this process within %s ms (too many processes "
					  "connecting at once): its annotations are not recorded until it does%s",
					  msbuf, "");
			else if (retrying)
				warn_once("msprofd had no room to hear this process within %s ms (too many processes "
					  "connecting at once): its annotations are not recorded%s",
					  msbuf, "");
			break;
		}
		if (C.sock < 0) {
			if (!retrying)
				break;
			C.crowded = false;
			(void)poll(NULL, 0, SELF_RETRY_MS);
			try_connect(wait_left(deadline));
			continue;
		}
		struct pollfd pf = { .fd = C.sock, .events = POLLIN };
		int n = poll(&pf, 1, (int)((deadline - now) / NSEC_PER_MSEC) + 1);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			read_input();
	}
}

/* --- the agent thread -------------------------------------------------------- */

/* CUPTI came up while a session had left this agent idle (launch mode:
 * agent_start arrives before main, cuInit later): its device records get a
 * window now.  On the agent thread, which alone handles agent_start and
 * agent_stop, so the session cannot change under us; never on the thread
 * in cuInit, which may hold driver locks a window_stop's CUPTI flush needs. */
static void device_window(void)
{
	pthread_mutex_lock(&g_win_mu);
	if (C.idle_session && C.idle_listed && !window_active() && !atomic_load(&C.exiting) &&
	    window_start(&(struct window_opts){ .prof_dir = C.idle_dir, .session = C.idle_session,
						.no_mstx = true }) == 0)
		C.idle_session = 0;
	pthread_mutex_unlock(&g_win_mu);
}

/* The job's msprofStart/msprofStop: the agent thread sends them (the
 * socket is its own) as soon as its connection is ready, which at the
 * job's start may be a moment away, in the order they were asked (a start
 * and a stop before then are both sent); past CAPTURE_QUEUE waiting, the
 * oldest is dropped, and the drops are said at exit. */
int agent_capture_ask_steps(bool start, int64_t lo, int64_t hi)
{
	if (C.standalone_dir)
		return -ENOTSUP;  /* recording from load to exit: no window to move */
	/* queued while the agent thread connects (a job's first moments); no
	 * msprofd found: none to ask */
	if (!C.started || (C.sock < 0 && C.connect_failed))
		return -ENOTCONN;
	pthread_mutex_lock(&C.capture_mu);
	if (C.capture_n == CAPTURE_QUEUE) {
		C.capture_head = (C.capture_head + 1) % CAPTURE_QUEUE;
		C.capture_n--;
		C.capture_dropped++;
	}
	unsigned i = (C.capture_head + C.capture_n++) % CAPTURE_QUEUE;
	C.capture_q[i].start = start;
	C.capture_q[i].lo = lo;
	C.capture_q[i].hi = hi;
	pthread_mutex_unlock(&C.capture_mu);
	agent_wake_always();
	return 0;
}

int agent_capture_ask(bool start)
{
	return agent_capture_ask_steps(start, 0, 0);
}

void agent_control_on_watch(void (*arm)(const char *spec), void (*tick)(uint64_t now_ns))
{
	atomic_store(&C.on_watch, arm);
	atomic_store(&C.watch_tick, tick);
}

int agent_dump_ask(const char *trigger, const char *detail)
{
	if (C.standalone_dir)
		return -ENOTSUP;
	if (!C.started || (C.sock < 0 && C.connect_failed))
		return -ENOTCONN;
	pthread_mutex_lock(&C.capture_mu);
	/* one waits at a time: a later one while it waits is the same trouble */
	bool queued = !C.dump_trigger[0];
	if (queued) {
		snprintf(C.dump_trigger, sizeof C.dump_trigger, "%s", trigger);
		snprintf(C.dump_detail, sizeof C.dump_detail, "%s", detail ? detail : "");
	}
	pthread_mutex_unlock(&C.capture_mu);
	agent_wake_always();
	return queued ? 0 : -EBUSY;
}

void agent_control_on_schedule(void (*fn)(const char *spec))
{
	atomic_store(&C.on_schedule, fn);
}

/* msprof/control.h: the job arms its own --schedule (capture.c, through
 * the hook it registered). */
AGENT_EXPORT int msprofSchedule(const char *spec)
{
	struct step_schedule sc;
	void (*fn)(const char *) = atomic_load(&C.on_schedule);
	if (C.standalone_dir)
		return -ENOTSUP;
	if (!spec || strlen(spec) > STEP_SCHEDULE_SPEC_MAX || (*spec && step_schedule_parse(spec, &sc) < 0))
		return -EINVAL;
	if (!C.started || (C.sock < 0 && C.connect_failed))
		return -ENOTCONN;
	if (!fn)
		return -ENOTSUP;
	fn(spec);
	return 0;
}

AGENT_EXPORT int msprofStart(void)
{
	return agent_capture_ask(true);
}

AGENT_EXPORT int msprofStop(void)
{
	return agent_capture_ask(false);
}

static void send_dump(void)
{
	char trigger[sizeof C.dump_trigger], detail[sizeof C.dump_detail];
	if (C.conn != C_READY)
		return; /* kept until it is */
	pthread_mutex_lock(&C.capture_mu);
	memcpy(trigger, C.dump_trigger, sizeof trigger);
	memcpy(detail, C.dump_detail, sizeof detail);
	C.dump_trigger[0] = '\0';
	pthread_mutex_unlock(&C.capture_mu);
	if (!trigger[0])
		return;
	/* what the job did up to now is in the ring before the dump copies it */
	pthread_mutex_lock(&g_win_mu);
	window_drain();
	pthread_mutex_unlock(&g_win_mu);
	struct ajw w;
	msg_begin(&w, IPC_T_CAPTURE, 0);
	ajw_str(&w, "dump", trigger);
	if (detail[0])
		ajw_str(&w, "detail", detail);
	(void)msg_send(&w);
}

static void send_capture(void)
{
	send_dump();
	for (;;) {
		if (C.conn != C_READY)
			return; /* kept until it is */
		pthread_mutex_lock(&C.capture_mu);
		bool have = C.capture_n > 0;
		bool start = have && C.capture_q[C.capture_head].start;
		int64_t lo = have ? C.capture_q[C.capture_head].lo : 0, hi = have ? C.capture_q[C.capture_head].hi : 0;
		if (have) {
			C.capture_head = (C.capture_head + 1) % CAPTURE_QUEUE;
			C.capture_n--;
		}
		pthread_mutex_unlock(&C.capture_mu);
		if (!have)
			return;
		struct ajw w;
		msg_begin(&w, IPC_T_CAPTURE, 0);
		ajw_bool(&w, "start", start);
		if (hi > lo) {
			char steps[48];
			snprintf(steps, sizeof steps, "%lld-%lld", (long long)lo, (long long)hi);
			ajw_str(&w, "steps", steps);
		}
		(void)msg_send(&w);
	}
}

/* A thread about to end the process image asked for a flush
 * (agent_flush_now): everything its queues hold goes into the file now. */
static void answer_flush(void)
{
	uint32_t req = atomic_load_explicit(&C.flush_req, memory_order_acquire);
	if (req == atomic_load_explicit(&C.flush_done, memory_order_relaxed))
		return;
	pthread_mutex_lock(&g_win_mu);
	window_flush();
	pthread_mutex_unlock(&g_win_mu);
	atomic_store_explicit(&C.flush_done, req, memory_order_release);
	(void)syscall(SYS_futex, &C.flush_done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The agent thread did not answer a flush in time (it never got the CPU,
 * or is stuck): what the queues still hold is lost with the process, and
 * said on stderr and beside the process's files, never silently.
 * Async-signal-safe: atomics, open/write/close. */
static void flush_timed_out(void)
{
	uint64_t bytes = 0;
	uint32_t n = atomic_load(&g_n_threads);
	for (uint32_t i = 0; i < n && i < AGENT_MAX_THREADS; i++) {
		struct athread *t = atomic_load(&g_threads[i]);
		if (!t)
			continue;
		uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_acquire);
		bytes += head > tail ? head - tail : 0;
	}
	if (!bytes)
		return;
	char line[256];
	size_t len = agent_put_str(line, 0, sizeof line, "msprof agent: the agent thread did not write this process's last "
						      "annotations before it ended: ");
	len = agent_put_u64(line, len, sizeof line, bytes);
	len = agent_put_str(line, len, sizeof line, " bytes of them are lost\n");
	(void)!write(2, line, len);
	/* and for the export, beside the process's files (the file may not
	 * even exist: the thread had not written yet) */
	const char *dir = window_dir();
	if (!dir[0])
		return;
	char path[PATH_MAX + 64];
	size_t at = agent_put_str(path, 0, sizeof path, dir);
	at = agent_put_str(path, at, sizeof path, "/" RAW_AGENT_PREFIX); /* collectors/raw.h */
	at = agent_put_u64(path, at, sizeof path, (uint64_t)syscall(SYS_getpid));
	at = agent_put_str(path, at, sizeof path, RAW_AGENT_LOST_SUFFIX);
	path[at] = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0)
		return;
	len = agent_put_u64(line, 0, sizeof line, bytes);
	line[len++] = '\n';
	(void)!write(fd, line, len);
	close(fd);
}

/* Async-signal-safe: atomics, write(2) on the eventfd, clock_gettime and
 * futex(2); no lock, no allocation.  The agent thread does the writing in
 * its own context, so whatever the caller interrupted (malloc, a lock of
 * ours) costs at most the bounded wait, never a deadlock. */
void agent_flush_now(void)
{
	/* idle, or a forked child that never annotated: nothing of ours */
	if (atomic_load_explicit(&g_state, memory_order_acquire) != AGENT_RECORDING || !C.started ||
	    atomic_load(&C.exiting) || agent_wake_fd() < 0)
		return;
	int saved = errno;
	/* a vfork child shares our memory but is not this process: the queues
	 * are its parent's, and it must not wait on the parent's thread */
	if ((pid_t)syscall(SYS_getpid) != atomic_load(&C.pid) || pthread_equal(pthread_self(), C.thread)) {
		errno = saved;
		return;
	}
	uint32_t want = atomic_fetch_add(&C.flush_req, 1) + 1;
	agent_wake_always();
	uint64_t deadline = mono_ns() + AGENT_EXIT_FLUSH_MS * NSEC_PER_MSEC;
	for (;;) {
		uint32_t done = atomic_load_explicit(&C.flush_done, memory_order_acquire);
		if ((int32_t)(done - want) >= 0)
			break;
		uint64_t now = mono_ns();
		if (now >= deadline || atomic_load(&C.exiting))
			break;
		struct timespec ts = { (time_t)((deadline - now) / NSEC_PER_SEC),
				       (long)((deadline - now) % NSEC_PER_SEC) };
		(void)syscall(SYS_futex, &C.flush_done, FUTEX_WAIT_PRIVATE, done, &ts, NULL, 0);
	}
	if ((int32_t)(atomic_load_explicit(&C.flush_done, memory_order_acquire) - want) < 0)
		flush_timed_out();
	errno = saved;
}

/* A forked child buffering its first events (AGENT_BUFFERING): once it is
 * clear that no window takes them, back to idle.  Events outside every
 * window are not lost, as a process's are while idle; what a window takes
 * is counted as recorded or dropped. */
static void buffering_check(uint64_t now)
{
	/* standalone: after_fork_init opens the window itself */
	if (C.standalone_dir || atomic_load(&g_state) != AGENT_BUFFERING)
		return;
	bool none = C.sock < 0 || C.idle_session || now >= C.buffer_until_ns ||
		    (C.conn == C_READY && now >= C.ready_ns + BUFFER_GRACE_NS);
	if (!none)
		return;
	pthread_mutex_lock(&g_win_mu);
	window_discard_buffered();
	pthread_mutex_unlock(&g_win_mu);
}

static void *agent_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "msprof-agent");
	agent_osrt_self(false); /* the writer's own reads and writes */
	pthread_mutex_lock(&g_win_mu);
	window_prepare();
	pthread_mutex_unlock(&g_win_mu);
	uint64_t next_drain = 0;
	while (!atomic_load(&C.exiting)) {
		/* each asked: both flags clear */
		bool cupti_up = agent_cupti_came_up(), comm_up = agent_comm_plugin_came_up();
		if (cupti_up || comm_up)
			device_window();
		/* a dump asked for as the process ends goes before the
		 * flush that lets it end */
		send_dump();
		answer_flush();
		uint64_t now = mono_ns();
		void (*tick)(uint64_t) = atomic_load(&C.watch_tick);
		if (tick)
			tick(now);
		send_capture();
		pthread_mutex_lock(&g_win_mu);
		bool active = window_active();
		if (active && now >= next_drain) {
			window_drain();
			next_drain = now + AGENT_DRAIN_MS * NSEC_PER_MSEC;
		} else if (!active) {
			/* a clock pair at least every wake (1 s) between windows:
			 * the first events of the next one, and those buffered
			 * before it, are mapped over a second, not the whole gap
			 * (clock.c); a drain takes its own */
			agent_clock_sync();
		}
		pthread_mutex_unlock(&g_win_mu);
		if (!C.standalone_dir && C.sock < 0 && now >= C.next_try_ns)
			try_connect(SEND_TIMEOUT_MS);
		buffering_check(now);

		int timeout = 1000;
		if (active)
			timeout = next_drain > now ? (int)((next_drain - now) / NSEC_PER_MSEC) + 1 : 0;
		else if (atomic_load(&g_state) == AGENT_BUFFERING)
			timeout = AGENT_DRAIN_MS; /* to see its grace end */
		if (!C.standalone_dir && C.sock < 0 && C.next_try_ns > now) {
			uint64_t ms = (C.next_try_ns - now) / NSEC_PER_MSEC + 1;
			if ((uint64_t)timeout > ms)
				timeout = (int)ms;
		}
		/* the daemon's connection */
		int other = C.sock;
		struct pollfd pf[2] = { { .fd = agent_wake_fd(), .events = POLLIN }, { .fd = other, .events = POLLIN } };
		int n = poll(pf, other >= 0 ? 2 : 1, timeout);
		if (n <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			agent_wake_clear();
			next_drain = 0; /* a block is full: drain now */
		}
		if (other >= 0 && pf[1].revents)
			read_input();
	}
	return NULL;
}

int agent_thread_start(void)
{
	if (C.started)
		return 0;
	int r = agent_wake_open();
	if (r < 0)
		return r;
	/* the thread must never run the program's signal handlers */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	r = pthread_create(&C.thread, &attr, agent_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		agent_wake_close();
		return -r;
	}
	atomic_store(&C.pid, (pid_t)syscall(SYS_getpid));
	C.started = true;
	return 0;
}

/* --- load, exit, fork -------------------------------------------------------- */

static void start_standalone(void)
{
	/* MSPROF_AGENT_OSRT=1: OS runtime calls too (a bad threshold is the default) */
	const char *osrt = getenv("MSPROF_AGENT_OSRT"), *thr = getenv("MSPROF_AGENT_OSRT_THRESHOLD_NS");
	uint64_t threshold = OSRT_THRESHOLD_DEFAULT_NS;
	if (thr && parse_u64(thr, 0, OSRT_THRESHOLD_MAX_NS, &threshold) < 0)
		threshold = OSRT_THRESHOLD_DEFAULT_NS;
	pthread_mutex_lock(&g_win_mu);
	int r = window_start(&(struct window_opts){
		.prof_dir = C.standalone_dir,
		.include = getenv("MSPROF_AGENT_MSTX_DOMAIN_INCLUDE"),
		.exclude = getenv("MSPROF_AGENT_MSTX_DOMAIN_EXCLUDE"),
		.session = 0,
		.osrt = osrt && streq(osrt, "1"),
		.osrt_threshold_ns = threshold,
	});
	pthread_mutex_unlock(&g_win_mu);
	if (r < 0)
		fprintf(stderr, "msprof agent: cannot record into '%s/host/data': %s\n", C.standalone_dir,
			strerror(-r));
	else
		agent_wake(); /* the agent thread may be asleep for a second */
}

/* The forking thread takes the agent's locks in its own name: with osrt
 * recording, a wait for them (the agent thread holds g_win_mu while it
 * drains) would otherwise be recorded as the program's pthread_mutex_lock. */
static __thread bool tl_fork_osrt __attribute__((tls_model("initial-exec")));

static void atfork_prepare(void)
{
	tl_fork_osrt = agent_osrt_self_swap(false);
	C.fork_buffers = agent_state_queues(atomic_load(&g_state));
	pthread_mutex_lock(&g_win_mu);
	pthread_mutex_lock(&g_reg_mu);
	pthread_mutex_lock(&C.capture_mu);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&C.capture_mu);
	pthread_mutex_unlock(&g_reg_mu);
	pthread_mutex_unlock(&g_win_mu);
	agent_osrt_self(tl_fork_osrt);
}

/* Async-signal-safe calls only: plain stores, close(2), gettid. */
static void atfork_child(void)
{
	C.capture_n = 0; /* the parent's requests are the parent's */
	pthread_mutex_unlock(&C.capture_mu);
	pthread_mutex_unlock(&g_reg_mu);
	pthread_mutex_unlock(&g_win_mu);
	agent_rank_forget(); /* a child may set its own rank before it annotates */
	agent_unrecorded_forget();
	agent_osrt_self(tl_fork_osrt);
	if (C.sock >= 0)
		close(C.sock);
	C.sock = -1;
	C.lost = false;
	agent_wake_close();
	C.conn = C_NONE;
	C.rlen = 0;
	C.idle_session = 0;
	C.next_try_ns = 0;
	C.warned = false;
	C.started = false;
	atomic_store(&C.flush_done, atomic_load(&C.flush_req));
	/* only the forking thread lives on: every other slot is free, and
	 * nothing the parent had not drained is the child's */
	uint32_t n = atomic_load(&g_n_threads);
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct athread *self = agent_thread_get_if_any();
	for (uint32_t i = 0; i < n; i++) {
		struct athread *t = atomic_load(&g_threads[i]);
		if (!t)
			continue;
		atomic_store(&t->busy, 0);
		agent_slot_reset(t);
		if (t != self)
			atomic_store(&t->live, 0);
		else
			t->tid = me;
	}
	/* a counting-only agent has no session for the child to join */
	atomic_store(&g_state, agent_unrecorded_only() ? AGENT_IDLE : AGENT_CHILD);
}

/* A forked child's first call (core.c, through agent_core_ops): its own
 * agent thread and window. */
static void after_fork_init(void)
{
	int expect = AGENT_CHILD;
	/* a child of a recording process queues its threads' events while it
	 * registers (its session likely covers it): the window takes them */
	if (!atomic_compare_exchange_strong(&g_state, &expect, C.fork_buffers ? AGENT_BUFFERING : AGENT_IDLE))
		return; /* another thread of the child does it */
	C.buffer_until_ns = mono_ns() + BUFFER_MAX_NS;
	pthread_mutex_lock(&g_win_mu);
	window_forget_after_fork();
	pthread_mutex_unlock(&g_win_mu);
	register_sync(0); /* launch mode: its session covers the child already */
	if (agent_thread_start() >= 0 && C.standalone_dir)
		start_standalone();
	if (!C.started || C.standalone_dir) {
		/* no agent thread, or the standalone window could not start:
		 * nothing will take them */
		pthread_mutex_lock(&g_win_mu);
		window_discard_buffered();
		pthread_mutex_unlock(&g_win_mu);
	}
}

static void block_size_from_env(void)
{
	const char *v = getenv("MSPROF_AGENT_BUFFER_KB");
	uint64_t kb;
	if (!v || parse_u64(v, 64, 1 << 20, &kb) < 0)
		return;
	uint64_t bytes = 64 << 10;
	while (bytes < (kb << 10))
		bytes <<= 1;
	g_block_bytes = bytes;
}

static void buffer_cap_from_env(void)
{
	const char *v = getenv("MSPROF_AGENT_BUFFER_MAX_MB");
	uint64_t mb;
	if (!v || !*v)
		return;
	if (parse_u64(v, 1, 1 << 20, &mb) < 0) {
		fprintf(stderr, "msprof agent: MSPROF_AGENT_BUFFER_MAX_MB='%s' is not a number of MiB from 1 to 1048576; "
			"the default, %d, is used\n", v, AGENT_BUFFER_MAX_DEFAULT_MB);
		return;
	}
	g_buf_cap = mb << 20;
}

static const struct agent_core_ops core_ops = {
	.after_fork = after_fork_init,
};

__attribute__((constructor)) static void agent_load(void)
{
	agent_osrt_self(false); /* our start (a window may open here) is not the program's */
	/* before pthread_atfork: a child's first call finds it set */
	agent_core_set_ops(&core_ops);
	agent_core_init();
	agent_rank_init();
	block_size_from_env();
	buffer_cap_from_env();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	const char *out = getenv("MSPROF_AGENT_OUTPUT");
	if (out && *out)
		C.standalone_dir = strdup(out);
	agent_unrecorded_init();
	if (agent_unrecorded_only()) {
		/* preloaded to count (--msproftx off): no session to join */
		agent_osrt_self(true);
		return;
	}
	/* MSPROF_OPTIONS / MSPROF_CONFIG without msprof: msprof is started
	 * now, and the program waits boundedly for its window */
	uint64_t self_ms = C.standalone_dir ? 0 : agent_self_enable();
	register_sync(self_ms);
	if (agent_thread_start() >= 0 && C.standalone_dir)
		start_standalone();
	/* else no agent thread: the program runs, nothing records */
	agent_osrt_self(true);
}

__attribute__((destructor)) static void agent_unload(void)
{
	agent_unrecorded_write(); /* a forked child's own count too */
	if (atomic_load(&g_state) == AGENT_CHILD)
		return; /* a child that never annotated: nothing of its own */
	agent_osrt_self(false); /* the last drain is ours, not the program's */
	atomic_store(&C.exiting, 1);
	pthread_mutex_lock(&g_win_mu);
	if (window_active())
		(void)window_stop(NULL);
	pthread_mutex_unlock(&g_win_mu);
	struct window_result tot;
	window_totals(&tot);
	if (tot.dropped_full)
		fprintf(stderr, "msprof agent: %llu events dropped (buffer full: the queues reached %llu MiB; "
			"MSPROF_AGENT_BUFFER_MAX_MB raises it)\n", (unsigned long long)tot.dropped_full,
			(unsigned long long)(g_buf_cap >> 20));
	if (tot.dropped_nested)
		fprintf(stderr, "msprof agent: %llu events dropped (made by a signal handler inside an annotation)\n",
			(unsigned long long)tot.dropped_nested);
	if (tot.dropped_noslot)
		fprintf(stderr, "msprof agent: %llu events dropped (their thread got no buffer: more than %d threads "
			"or no memory)\n", (unsigned long long)tot.dropped_noslot, AGENT_MAX_THREADS);
	if (tot.dropped_unopened)
		fprintf(stderr, "msprof agent: %llu NCCL operations dropped (more were open at once than the agent "
			"keeps)\n", (unsigned long long)tot.dropped_unopened);
	if (tot.dropped_write)
		fprintf(stderr, "msprof agent: %llu events dropped (the file could not be written)\n",
			(unsigned long long)tot.dropped_write);
	if (tot.bad)
		fprintf(stderr, "msprof agent: %llu bad annotation calls ignored (NULL message, unknown range id, "
			"pop without push or destroyed domain)\n", (unsigned long long)tot.bad);
	if (tot.truncated)
		fprintf(stderr, "msprof agent: %llu messages cut to %d bytes\n", (unsigned long long)tot.truncated,
			RAW_AGENT_MAX_STR);
	if (C.capture_dropped)
		fprintf(stderr, "msprof agent: %llu start/stop requests dropped (more than %d waited for msprofd)\n",
			(unsigned long long)C.capture_dropped, CAPTURE_QUEUE);
}
