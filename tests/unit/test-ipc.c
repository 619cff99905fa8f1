/* Unit tests for ipc/: framing, message checks, the runtime directory, peer
 * credentials, and the blocking client against a scripted server process. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "common/util.h"
#include "tests/unit/unittest-count.h"

/* Frame raw payload bytes with a given length field. */
static size_t make_frame(char *out, uint32_t len_field, const char *payload, size_t n)
{
	out[0] = (char)(len_field >> 24);
	out[1] = (char)(len_field >> 16);
	out[2] = (char)(len_field >> 8);
	out[3] = (char)len_field;
	memcpy(out + 4, payload, n);
	return 4 + n;
}

static int decode_str(const char *payload, size_t n)
{
	char buf[256];
	size_t used = 0;
	cJSON *m = NULL;
	size_t len = make_frame(buf, (uint32_t)n, payload, n);
	int r = ipc_frame_decode(buf, len, &used, &m);
	if (r == 1)
		cJSON_Delete(m);
	return r;
}

static void test_types(void)
{
	const enum ipc_type all[] = { IPC_T_HELLO, IPC_T_STATUS, IPC_T_SHUTDOWN,
		IPC_T_SESSION_START, IPC_T_SESSION_STARTED, IPC_T_SESSION_STOP,
		IPC_T_SESSION_STOPPED, IPC_T_SESSION_ENDED, IPC_T_ERROR };
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		const char *n = ipc_type_name(all[i]);
		CHECK(n != NULL);
		CHECK(ipc_type_from_name(n) == all[i]);
	}
	CHECK(ipc_type_name(IPC_T_UNKNOWN) == NULL);
	CHECK(ipc_type_from_name("frobnicate") == IPC_T_UNKNOWN);
	CHECK(ipc_type_from_name(NULL) == IPC_T_UNKNOWN);
	CHECK(streq(ipc_type_name(IPC_T_SESSION_START), "session_start"));
}

/* The error codes: the words on the wire (proto.h) are pinned here, and
 * each round-trips through the table. */
static void test_errors(void)
{
	static const char *const wire[_IPC_E_MAX] = {
		NULL, "bad_frame", "too_big", "bad_json", "no_hello", "version", "unknown_type",
		"bad_request", "limit", "not_found", "io", "busy", "denied",
	};
	for (unsigned i = 0; i < _IPC_E_MAX; i++) {
		const char *n = ipc_err_name((enum ipc_err)i);
		CHECK(wire[i] ? n && streq(n, wire[i]) : n == NULL);
		CHECK(ipc_err_from_name(n) == (enum ipc_err)i);
		CHECK(ipc_err_meaning((enum ipc_err)i) != NULL && ipc_err_errno((enum ipc_err)i) < 0);
	}
	CHECK(ipc_err_from_name("frobnicate") == IPC_E_UNKNOWN);
	CHECK(ipc_err_errno(IPC_E_BUSY) == -EBUSY && ipc_err_errno(IPC_E_NOT_FOUND) == -ESRCH &&
	      ipc_err_errno(IPC_E_DENIED) == -EPERM && ipc_err_errno(IPC_E_UNKNOWN) == -EIO);

	_cleanup_json_ cJSON *e = ipc_error_new(7, IPC_E_BUSY, NULL);
	CHECK(e != NULL && ipc_msg_err(e) == IPC_E_BUSY);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
	CHECK(cJSON_IsString(msg) && streq(msg->valuestring, ipc_err_meaning(IPC_E_BUSY)));
	CHECK(ipc_error_new(7, IPC_E_UNKNOWN, "x") == NULL);
}

static void test_round_trip(void)
{
	_cleanup_json_ cJSON *m = ipc_msg_new(IPC_T_SESSION_START, 42);
	_cleanup_json_ cJSON *back = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t len, used = 0;

	CHECK(m != NULL);
	cJSON_AddStringToObject(m, "prof_dir", "/tmp/PROF_x \"quoted\" \xc3\xa9");
	cJSON *pids = cJSON_AddArrayToObject(m, "pids");
	cJSON_AddItemToArray(pids, cJSON_CreateNumber(1234));
	CHECK(ipc_frame_encode(m, &buf, &len) == 0);
	CHECK(len > 4);
	uint32_t n = (uint32_t)(unsigned char)buf[0] << 24 | (uint32_t)(unsigned char)buf[1] << 16 |
		     (uint32_t)(unsigned char)buf[2] << 8 | (unsigned char)buf[3];
	CHECK(n == len - 4);

	/* Byte by byte: nothing until the last byte, then exactly one frame. */
	for (size_t i = 0; i < len; i++) {
		cJSON *x = NULL;
		used = 99;
		CHECK(ipc_frame_decode(buf, i, &used, &x) == 0);
		CHECK(used == 0);
		CHECK(x == NULL);
	}
	CHECK(ipc_frame_decode(buf, len, &used, &back) == 1);
	CHECK(used == len);
	CHECK(cJSON_Compare(m, back, 1));

	enum ipc_type t;
	uint64_t id;
	CHECK(ipc_msg_check(back, &t, &id) == 0);
	CHECK(t == IPC_T_SESSION_START);
	CHECK(id == 42);

	/* Two frames back to back, the second cut short. */
	_cleanup_free_ char *two = malloc(2 * len);
	memcpy(two, buf, len);
	memcpy(two + len, buf, len);
	cJSON *x = NULL;
	CHECK(ipc_frame_decode(two, 2 * len - 1, &used, &x) == 1);
	CHECK(used == len);
	cJSON_Delete(x);
	x = NULL;
	CHECK(ipc_frame_decode(two + used, len - 1, &used, &x) == 0);
	CHECK(ipc_frame_decode(two + len, len, &used, &x) == 1);
	cJSON_Delete(x);
}

static void test_limits(void)
{
	char hdr[8];
	size_t used;
	cJSON *m = NULL;

	/* An oversized length is refused from its 4 bytes alone. */
	make_frame(hdr, IPC_MAX_MSG + 1, "", 0);
	CHECK(ipc_frame_decode(hdr, 4, &used, &m) == -EMSGSIZE);
	make_frame(hdr, 0xffffffffU, "", 0);
	CHECK(ipc_frame_decode(hdr, 4, &used, &m) == -EMSGSIZE);
	/* The maximum itself only waits for more bytes. */
	make_frame(hdr, IPC_MAX_MSG, "", 0);
	used = 7;
	CHECK(ipc_frame_decode(hdr, 4, &used, &m) == 0 && used == 0);
	make_frame(hdr, 0, "", 0);
	CHECK(ipc_frame_decode(hdr, 4, &used, &m) == -EBADMSG);

	/* A message of exactly IPC_MAX_MSG bytes passes; one more does not. */
	_cleanup_json_ cJSON *big = cJSON_CreateObject();
	size_t base = strlen("{\"s\":\"\"}");
	_cleanup_free_ char *s = malloc(IPC_MAX_MSG);
	memset(s, 'a', IPC_MAX_MSG - base);
	s[IPC_MAX_MSG - base] = '\0';
	cJSON_AddStringToObject(big, "s", s);
	_cleanup_free_ char *buf = NULL;
	size_t len;
	CHECK(ipc_frame_encode(big, &buf, &len) == 0);
	CHECK(len == 4 + IPC_MAX_MSG);
	CHECK(ipc_frame_decode(buf, len, &used, &m) == 1);
	cJSON_Delete(m);
	s[IPC_MAX_MSG - base] = 'a';
	s[IPC_MAX_MSG - base + 1 - 1] = 'a';
	cJSON_DeleteItemFromObject(big, "s");
	char *s2 = malloc(IPC_MAX_MSG - base + 2);
	memset(s2, 'b', IPC_MAX_MSG - base + 1);
	s2[IPC_MAX_MSG - base + 1] = '\0';
	cJSON_AddStringToObject(big, "s", s2);
	free(s2);
	char *buf2 = NULL;
	CHECK(ipc_frame_encode(big, &buf2, &len) == -EMSGSIZE);
	CHECK(buf2 == NULL);
}

static void test_bad_json(void)
{
	CHECK(decode_str("{}", 2) == 1);
	CHECK(decode_str("{} \n", 4) == 1);
	CHECK(decode_str("[1,2]", 5) == -EBADMSG);
	CHECK(decode_str("42", 2) == -EBADMSG);
	CHECK(decode_str("\"s\"", 3) == -EBADMSG);
	CHECK(decode_str("null", 4) == -EBADMSG);
	CHECK(decode_str("{", 1) == -EBADMSG);
	CHECK(decode_str("{\"a\":}", 6) == -EBADMSG);
	CHECK(decode_str("{}x", 3) == -EBADMSG);
	CHECK(decode_str("{}{}", 4) == -EBADMSG);
	CHECK(decode_str("{}\0", 3) == -EBADMSG);
	CHECK(decode_str("\xff\xfe\x00\x01", 4) == -EBADMSG);
	/* Deep nesting is refused by cJSON's limit, not by the stack. */
	char deep[200];
	memset(deep, '[', sizeof(deep));
	CHECK(decode_str(deep, sizeof(deep)) == -EBADMSG);
}

static int check_str(const char *json, enum ipc_type *t, uint64_t *id)
{
	_cleanup_json_ cJSON *m = cJSON_Parse(json);
	if (!m)
		return -999;
	return ipc_msg_check(m, t, id);
}

static void test_msg_check(void)
{
	enum ipc_type t;
	uint64_t id;

	CHECK(check_str("{\"v\":1,\"type\":\"status\",\"id\":7}", &t, &id) == 0 && t == IPC_T_STATUS && id == 7);
	CHECK(check_str("{\"v\":1,\"type\":\"status\"}", &t, &id) == 0 && id == 0);
	CHECK(check_str("{\"v\":1,\"type\":\"nope\",\"id\":1}", &t, &id) == 0 && t == IPC_T_UNKNOWN);
	CHECK(check_str("{\"type\":\"hello\",\"id\":1}", &t, &id) == -EPROTONOSUPPORT);
	CHECK(check_str("{\"v\":2,\"type\":\"hello\",\"id\":1}", &t, &id) == -EPROTONOSUPPORT);
	CHECK(check_str("{\"v\":0,\"type\":\"hello\",\"id\":1}", &t, &id) == -EPROTONOSUPPORT);
	CHECK(check_str("{\"v\":\"1\",\"type\":\"hello\"}", &t, &id) == -EPROTONOSUPPORT);
	CHECK(check_str("{\"v\":1.5,\"type\":\"hello\"}", &t, &id) == -EPROTONOSUPPORT);
	CHECK(check_str("{\"v\":1}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":3}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":-1}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":1.5}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":\"1\"}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":1e300}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":1000000000000000}", &t, &id) == -EBADMSG);
	CHECK(check_str("{\"v\":1,\"type\":\"hello\",\"id\":999999999999999}", &t, &id) == 0 &&
	      id == JSON_MAX_INT);

	/* The largest id survives encode and decode digit for digit. */
	{
		_cleanup_json_ cJSON *big = ipc_msg_new(IPC_T_STATUS, JSON_MAX_INT), *back = NULL;
		_cleanup_free_ char *buf = NULL;
		size_t len, used;
		CHECK(ipc_frame_encode(big, &buf, &len) == 0);
		CHECK(memmem(buf, len, "999999999999999", 15) != NULL);
		CHECK(ipc_frame_decode(buf, len, &used, &back) == 1);
		CHECK(back && ipc_msg_check(back, &t, &id) == 0 && id == JSON_MAX_INT);
	}

	_cleanup_json_ cJSON *m = ipc_msg_new(IPC_T_ERROR, 9);
	CHECK(m && ipc_msg_check(m, &t, &id) == 0 && t == IPC_T_ERROR && id == 9);
	CHECK(ipc_msg_new(IPC_T_UNKNOWN, 1) == NULL);

	uint64_t u;
	_cleanup_json_ cJSON *o = cJSON_Parse("{\"a\":5,\"b\":\"x\",\"c\":true,\"d\":-1}");
	CHECK(json_get_u64(o, "a", 1, 10, true, 0, &u) == 0 && u == 5);
	CHECK(json_get_u64(o, "a", 6, 10, true, 0, &u) == -ERANGE);
	CHECK(json_get_u64(o, "d", 0, 10, true, 0, &u) == -ERANGE);
	CHECK(json_get_u64(o, "b", 0, 10, true, 0, &u) == -EINVAL);
	CHECK(json_get_u64(o, "z", 0, 10, true, 0, &u) == -ENOENT);
	CHECK(json_get_u64(o, "z", 0, 10, false, 3, &u) == 0 && u == 3);
	bool b;
	CHECK(json_get_bool(o, "c", true, false, &b) == 0 && b);
	CHECK(json_get_bool(o, "a", true, false, &b) == -EINVAL);
}

/* --- runtime directory -------------------------------------------------- */

static char tmpdir[256];

static int runtime_with(const char *dir, const char **why)
{
	char *p = NULL;
	setenv("MSPROF_RUNTIME_DIR", dir, 1);
	int r = ipc_runtime_dir(&p, why);
	if (r == 0) {
		CHECK(p && streq(p, dir));
		free(p);
	} else {
		CHECK(p == NULL);
	}
	return r;
}

static void test_runtime_dir(void)
{
	char path[512], link[512], file[512];
	const char *why = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/run", tmpdir);
	CHECK(runtime_with(path, &why) == 0);
	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK(runtime_with(path, &why) == 0); /* existing and fine */

	CHECK(chmod(path, 0750) == 0);
	why = NULL;
	CHECK(runtime_with(path, &why) == -EPERM);
	CHECK(why && strstr(why, "permissions"));
	CHECK(chmod(path, 0701) == 0);
	CHECK(runtime_with(path, &why) == -EPERM);
	CHECK(chmod(path, 0700) == 0);

	snprintf(link, sizeof(link), "%s/link", tmpdir);
	CHECK(symlink(path, link) == 0);
	why = NULL;
	CHECK(runtime_with(link, &why) == -EPERM);
	CHECK(why && strstr(why, "symbolic link"));
	/* A trailing slash must not make lstat follow the link. */
	char slashed[520];
	snprintf(slashed, sizeof(slashed), "%s/", link);
	setenv("MSPROF_RUNTIME_DIR", slashed, 1);
	char *p = NULL;
	CHECK(ipc_runtime_dir(&p, &why) == -EPERM);
	free(p);

	snprintf(file, sizeof(file), "%s/file", tmpdir);
	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
	why = NULL;
	CHECK(runtime_with(file, &why) == -EPERM);
	CHECK(why && strstr(why, "not a directory"));

	char missing[560];
	snprintf(missing, sizeof(missing), "%s/no/such", tmpdir);
	CHECK(runtime_with(missing, &why) == -ENOENT);
	CHECK(runtime_with("relative/dir", &why) == -EINVAL);

	if (geteuid() == 0) {
		char other[512];
		snprintf(other, sizeof(other), "%s/other", tmpdir);
		CHECK(mkdir(other, 0700) == 0);
		CHECK(chown(other, 65534, 65534) == 0);
		why = NULL;
		CHECK(runtime_with(other, &why) == -EPERM);
		CHECK(why && strstr(why, "not owned"));
	}

	/* Without MSPROF_RUNTIME_DIR: $XDG_RUNTIME_DIR/msprof. */
	unsetenv("MSPROF_RUNTIME_DIR");
	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
	p = NULL;
	CHECK(ipc_runtime_dir(&p, &why) == 0);
	char want[512];
	snprintf(want, sizeof(want), "%s/msprof", tmpdir);
	CHECK(p && streq(p, want));
	free(p);
	unsetenv("XDG_RUNTIME_DIR");
	p = NULL;
	CHECK(ipc_runtime_dir_path(&p, &why) == 0);
	snprintf(want, sizeof(want), "/tmp/msprof-%u", (unsigned)geteuid());
	CHECK(p && streq(p, want));
	free(p);

	char *sock = NULL, *lock = NULL;
	CHECK(ipc_socket_path("/run/user/1000/msprof", &sock, &lock) == 0);
	CHECK(sock && streq(sock, "/run/user/1000/msprof/msprofd.sock"));
	CHECK(lock && streq(lock, "/run/user/1000/msprof/msprofd.sock.lock"));
	free(sock);
	free(lock);
	char longdir[200];
	memset(longdir, 'x', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	sock = NULL;
	CHECK(ipc_socket_path(longdir, &sock, &lock) == -ENAMETOOLONG);
	CHECK(sock == NULL);
}

static void test_peer_cred(void)
{
	int sv[2];
	pid_t pid;
	uid_t uid;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(ipc_peer_cred(sv[0], &pid, &uid) == 0);
	CHECK(pid == getpid());
	CHECK(uid == geteuid());
	close(sv[0]);
	close(sv[1]);
	CHECK(ipc_peer_cred(-1, &pid, &uid) == -EBADF);
}

/* --- the client against a scripted server ------------------------------- */

static int read_frame(int fd, cJSON **ret)
{
	static char buf[4 + IPC_MAX_MSG];
	size_t len = 0, used;
	for (;;) {
		int r = ipc_frame_decode(buf, len, &used, ret);
		if (r != 0)
			return r;
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);
		if (n <= 0)
			return -EIO;
		len += (size_t)n;
	}
}

static void send_msg(int fd, cJSON *m)
{
	char *buf;
	size_t len;
	if (ipc_frame_encode(m, &buf, &len) == 0) {
		(void)!write(fd, buf, len);
		free(buf);
	}
	cJSON_Delete(m);
}

static uint64_t msg_id(const cJSON *m)
{
	enum ipc_type t;
	uint64_t id = 0;
	ipc_msg_check(m, &t, &id);
	return id;
}

/* The fake daemon: one connection; refuse hello with a version error when
 * `refuse`, else answer hello, then for the first request send an event and
 * a stray reply before the real one, leave the second unanswered, and close
 * when the third byte stream ends. */
static _Noreturn void fake_server(int lfd, int refuse)
{
	int fd = accept(lfd, NULL, NULL);
	cJSON *m = NULL;
	if (fd >= 0 && refuse == 2) {
		/* Refuse at once, as msprofd does for another uid or past
		 * the client limit: the client's hello may not even get out. */
		cJSON *e = ipc_msg_new(IPC_T_ERROR, 0);
		cJSON_AddStringToObject(e, "code", "limit");
		cJSON_AddStringToObject(e, "message", "too many clients (64)");
		send_msg(fd, e);
		_exit(0);
	}
	if (fd < 0 || read_frame(fd, &m) != 1)
		_exit(1);
	uint64_t id = msg_id(m);
	cJSON_Delete(m);
	if (refuse == 1) {
		cJSON *e = ipc_msg_new(IPC_T_ERROR, id);
		cJSON_AddStringToObject(e, "code", "version");
		cJSON_AddStringToObject(e, "message", "protocol version 1 is not supported");
		send_msg(fd, e);
		_exit(0);
	}
	cJSON *h = ipc_msg_new(IPC_T_HELLO, id);
	cJSON_AddBoolToObject(h, "ok", 1);
	send_msg(fd, h);
	if (refuse == 3) {
		/* Say why and hang up before the client's next request. */
		cJSON *e = ipc_msg_new(IPC_T_ERROR, 0);
		cJSON_AddStringToObject(e, "code", "io");
		cJSON_AddStringToObject(e, "message", "going away");
		send_msg(fd, e);
		_exit(0);
	}

	if (read_frame(fd, &m) != 1)
		_exit(1);
	id = msg_id(m);
	cJSON_Delete(m);
	cJSON *ev = ipc_msg_new(IPC_T_SESSION_ENDED, 0);
	cJSON_AddNumberToObject(ev, "session", 3);
	send_msg(fd, ev);
	send_msg(fd, ipc_msg_new(IPC_T_STATUS, id + 100));
	cJSON *st = ipc_msg_new(IPC_T_STATUS, id);
	cJSON_AddNumberToObject(st, "sessions", 0);
	send_msg(fd, st);

	if (read_frame(fd, &m) != 1)
		_exit(1);
	cJSON_Delete(m);
	/* Unanswered; the client times out, then we hang up. */
	char c;
	(void)!read(fd, &c, 1);
	_exit(0);
}

static pid_t start_fake(const char *rundir, int refuse)
{
	char *sock = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	CHECK(ipc_socket_path(rundir, &sock, NULL) == 0);
	unlink(sock);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	strcpy(sa.sun_path, sock);
	free(sock);
	CHECK(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	CHECK(listen(lfd, 4) == 0);
	pid_t pid = fork();
	if (pid == 0)
		fake_server(lfd, refuse);
	close(lfd);
	return pid;
}

static void test_client(void)
{
	char rundir[512];
	struct ipc_client *c = NULL;
	char *err = NULL;
	const char *why;
	char *p;
	int status;

	snprintf(rundir, sizeof(rundir), "%s/client-run", tmpdir);
	setenv("MSPROF_RUNTIME_DIR", rundir, 1);
	unsetenv("MSPROFD_PATH");
	CHECK(ipc_runtime_dir(&p, &why) == 0);
	free(p);

	pid_t pid = start_fake(rundir, 0);
	CHECK(ipc_client_connect("/nonexistent/msprofd", &c, &err) == 0);
	if (err)
		fprintf(stderr, "connect: %s\n", err);
	free(err);
	err = NULL;
	if (c) {
		cJSON *req = ipc_msg_new(IPC_T_STATUS, 0), *reply = NULL, *ev = NULL;
		CHECK(ipc_client_call(c, req, 5000, &reply) == 0);
		CHECK(reply && cJSON_GetObjectItem(reply, "sessions"));
		CHECK(msg_id(reply) == msg_id(req));
		cJSON_Delete(reply);
		/* The event that came before the reply was queued. */
		CHECK(ipc_client_poll_event(c, &ev) == 1);
		CHECK(ev && cJSON_GetObjectItem(ev, "session")->valueint == 3);
		cJSON_Delete(ev);
		CHECK(ipc_client_poll_event(c, &ev) == 0);

		reply = NULL;
		CHECK(ipc_client_call(c, req, 100, &reply) == -ETIMEDOUT);
		CHECK(reply == NULL);
		cJSON_Delete(req);
		/* The server hangs up once we do; its exit is the EOF we see. */
		shutdown(ipc_client_fd(c), SHUT_WR);
		struct pollfd pf = { .fd = ipc_client_fd(c), .events = POLLIN };
		CHECK(poll(&pf, 1, 5000) == 1);
		CHECK(ipc_client_poll_event(c, &ev) == -ECONNRESET);
		c = ipc_client_free(c);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* A daemon that refuses hello: a readable error, not a crash. */
	pid = start_fake(rundir, 1);
	CHECK(ipc_client_connect("/nonexistent/msprofd", &c, &err) == -EREMOTEIO);
	CHECK(err && strstr(err, "refused") && strstr(err, "version"));
	free(err);
	err = NULL;
	CHECK(waitpid(pid, &status, 0) == pid);

	/* Refused at accept (another uid, the client limit): whether the
	 * hello went out before the close or not, the reason is reported. */
	for (int i = 0; i < 20; i++) {
		pid = start_fake(rundir, 2);
		CHECK(ipc_client_connect("/nonexistent/msprofd", &c, &err) == -EREMOTEIO);
		if (!err || !strstr(err, "refused the connection: too many clients")) {
			fprintf(stderr, "early refusal %d: %s\n", i, err ? err : "(null)");
			failures++;
		}
		free(err);
		err = NULL;
		CHECK(waitpid(pid, &status, 0) == pid);
	}

	/* The daemon wrote an error and closed before our request: the send
	 * fails (EPIPE) and the call still returns the daemon's reason. */
	pid = start_fake(rundir, 3);
	CHECK(ipc_client_connect("/nonexistent/msprofd", &c, &err) == 0);
	CHECK(waitpid(pid, &status, 0) == pid); /* closed for sure */
	if (c) {
		cJSON *req = ipc_msg_new(IPC_T_STATUS, 0), *reply = NULL;
		CHECK(ipc_client_call(c, req, 5000, &reply) == -EREMOTEIO);
		CHECK(reply && streq(cJSON_GetObjectItem(reply, "message")->valuestring, "going away"));
		cJSON_Delete(reply);
		reply = NULL;
		CHECK(ipc_client_call(c, req, 5000, &reply) == -ECONNRESET);
		cJSON_Delete(req);
		c = ipc_client_free(c);
	}

	/* No daemon: the stale socket left by the fake is removed and the
	 * spawn fails in each way with a message naming the program. */
	CHECK(ipc_client_connect("/nonexistent/msprofd", &c, &err) == -ENOENT);
	CHECK(err && strstr(err, "cannot execute") && strstr(err, "/nonexistent/msprofd"));
	free(err);
	err = NULL;
	CHECK(ipc_client_connect("/bin/false", &c, &err) < 0);
	CHECK(err && strstr(err, "exit status 1"));
	free(err);
	err = NULL;
	CHECK(ipc_client_connect("/bin/true", &c, &err) < 0);
	CHECK(err && strstr(err, "did not report ready"));
	free(err);
	err = NULL;
	/* MSPROFD_PATH is used when no path is given. */
	setenv("MSPROFD_PATH", "/bin/false", 1);
	CHECK(ipc_client_connect(NULL, &c, &err) < 0);
	CHECK(err && strstr(err, "/bin/false"));
	free(err);
	err = NULL;
	unsetenv("MSPROFD_PATH");
	CHECK(c == NULL);

	/* An unsafe runtime directory is named in the message. */
	CHECK(chmod(rundir, 0755) == 0);
	CHECK(ipc_client_connect("/bin/false", &c, &err) == -EPERM);
	CHECK(err && strstr(err, rundir) && strstr(err, "permissions"));
	free(err);
	chmod(rundir, 0700);
}

/* What the daemon's log does to a peer's string (common/util.h). */
static void test_escape(void)
{
	char out[64];
	CHECK(str_escape_ctl(out, sizeof out, "plain text") == 10 && strcmp(out, "plain text") == 0);
	CHECK(str_escape_ctl(out, sizeof out, "a\nFAKE line\x1b[2J\x7f\t") == 29);
	CHECK(strcmp(out, "a\\x0aFAKE line\\x1b[2J\\x7f\\x09") == 0);
	CHECK(strchr(out, '\n') == NULL);
	/* cut at a whole escape: never half of one */
	CHECK(str_escape_ctl(out, 6, "ab\ncd") == 2 && strcmp(out, "ab") == 0);
	CHECK(str_escape_ctl(out, 7, "ab\ncd") == 6 && strcmp(out, "ab\\x0a") == 0);
	CHECK(str_escape_ctl(out, 1, "x") == 0 && out[0] == 0);
	/* UTF-8 passes as it is */
	CHECK(str_escape_ctl(out, sizeof out, "\xc3\xbc") == 2 && strcmp(out, "\xc3\xbc") == 0);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test-ipc.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	test_types();
	test_escape();
	test_errors();
	test_round_trip();
	test_limits();
	test_bad_json();
	test_msg_check();
	test_runtime_dir();
	test_peer_cred();
	test_client();

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("all ipc checks passed\n");
	return 0;
}
