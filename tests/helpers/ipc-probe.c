/* ipc-probe: talk to msprofd from test scripts, byte-exactly when needed.
 *
 *   ipc-probe [OPTION]... STEP...      run the steps in order
 *   ipc-probe [OPTION]... -i           read steps from stdin, one per line
 *
 * Every step but flood prints exactly one line on stdout (a frame as compact JSON, or a
 * {"probe":...} line), so a script (or a bash coproc) can read one line per
 * step it wrote.  See usage() for steps, options and exit codes. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "common/util.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_CONNECT = 2,   /* cannot connect, or the runtime dir is refused */
	EXIT_ERROR = 3,     /* an "error" frame was received */
	EXIT_EOF = 4,       /* the daemon closed the connection */
	EXIT_TIMEOUT = 5,   /* nothing arrived in time */
	EXIT_BAD = 6,       /* the daemon sent something that is not a frame */
};

#define MAX_EVENTS 64

static int timeout_ms = 5000;
static int fd = -1;
static bool eof;
static char rbuf[4 + IPC_MAX_MSG];
static size_t rlen;
static uint64_t next_id;
static cJSON *events[MAX_EVENTS];
static unsigned n_events;

static void usage(FILE *f)
{
	fputs("Usage: ipc-probe [OPTION]... STEP...\n"
	      "       ipc-probe [OPTION]... -i     (steps from stdin, one per line)\n"
	      "Connection (default: the socket in the runtime directory, checked, no spawn):\n"
	      "  --socket=PATH       connect to PATH as is\n"
	      "  --spawn[=MSPROFD]   connect through ipc_client_connect (starts msprofd; says hello)\n"
	      "  --no-hello          do not say hello first\n"
	      "  --extra-conns=N     first open N other connections that say hello and stay open\n"
	      "  --idle-conns=N      first open N other connections that say nothing and stay open\n"
	      "  --timeout=MS        wait for a frame at most MS ms (default 5000)\n"
	      "Steps (each prints one line):\n"
	      "  req:TYPE[:JSON]     send {v,type,id,...JSON} and print the reply with that id\n"
	      "  json:TEXT           send TEXT as one frame and print the next frame\n"
	      "  hex:HEX             send raw bytes and print the next frame\n"
	      "  send-json:TEXT      send a frame, print {\"probe\":\"sent\"}\n"
	      "  send-hex:HEX        send raw bytes, print {\"probe\":\"sent\"}\n"
	      "  read                print the next frame\n"
	      "  event               print the next event (id 0), including ones that came early\n"
	      "  eof                 wait for the daemon to close: {\"probe\":\"eof\"}\n"
	      "  peer                print the daemon's {\"peer_pid\",\"peer_uid\"} (SO_PEERCRED)\n"
	      "  flood:N             pipeline N requests without reading until the daemon stops\n"
	      "                      taking them (prints its RSS growth), then read all replies\n"
	      "                      (two lines)\n"
	      "Exit: 0 ok, 1 usage, 2 cannot connect, 3 an error frame came, 4 connection closed,\n"
	      "5 timeout, 6 not a frame.  With several steps: the first non-zero code.\n", f);
}

static void say(const char *what)
{
	printf("{\"probe\":\"%s\"}\n", what);
	fflush(stdout);
}

static void print_msg(const cJSON *m)
{
	char *s = cJSON_PrintUnformatted(m);
	printf("%s\n", s ? s : "{\"probe\":\"oom\"}");
	fflush(stdout);
	free(s);
}

static int send_bytes(const void *p, size_t n)
{
	const char *b = p;
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int send_msg(const cJSON *m)
{
	char *frame;
	size_t len;
	int r = ipc_frame_encode(m, &frame, &len);
	if (r < 0)
		return r;
	r = send_bytes(frame, len);
	free(frame);
	return r;
}

/* Next frame within the timeout.  0 and *ret; or an EXIT_* code. */
static int recv_frame(cJSON **ret)
{
	uint64_t deadline = mono_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	for (;;) {
		size_t used;
		int r = ipc_frame_decode(rbuf, rlen, &used, ret);
		if (r == 1) {
			memmove(rbuf, rbuf + used, rlen - used);
			rlen -= used;
			return 0;
		}
		if (r < 0)
			return EXIT_BAD;
		if (eof)
			return EXIT_EOF;
		uint64_t now = mono_ns();
		if (now >= deadline)
			return EXIT_TIMEOUT;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		r = poll(&p, 1, (int)((deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return EXIT_TIMEOUT;
		ssize_t n = read(fd, rbuf + rlen, sizeof(rbuf) - rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			eof = true; /* a reset counts as closed too */
		else
			rlen += (size_t)n;
	}
}

static int code_of(int r)
{
	switch (r) {
	case EXIT_EOF: say("eof"); break;
	case EXIT_TIMEOUT: say("timeout"); break;
	case EXIT_BAD: say("bad_frame"); break;
	default: break;
	}
	return r;
}

static bool is_error(const cJSON *m)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "type");
	return cJSON_IsString(t) && streq(t->valuestring, "error");
}

static uint64_t id_of(const cJSON *m)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
	return cJSON_IsNumber(id) && id->valuedouble > 0 ? (uint64_t)id->valuedouble : 0;
}

/* Print a frame as the step's line; its exit code. */
static int finish_with(cJSON *m)
{
	int r = is_error(m) ? EXIT_ERROR : EXIT_OK;
	print_msg(m);
	cJSON_Delete(m);
	return r;
}

/* Frames that are neither what we wait for are events: keep them. */
static void keep_event(cJSON *m)
{
	if (n_events < MAX_EVENTS)
		events[n_events++] = m;
	else
		cJSON_Delete(m);
}

static int parse_hex(const char *s, char **ret, size_t *ret_len)
{
	size_t n = strlen(s);
	if (n % 2)
		return -EINVAL;
	char *b = malloc(n / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			free(b);
			return -EINVAL;
		}
		b[i] = (char)v;
	}
	*ret = b;
	*ret_len = n / 2;
	return 0;
}

static int step_req(const char *spec)
{
	char type[64];
	const char *colon = strchr(spec, ':');
	size_t tl = colon ? (size_t)(colon - spec) : strlen(spec);
	if (tl == 0 || tl >= sizeof(type))
		return EXIT_USAGE;
	memcpy(type, spec, tl);
	type[tl] = '\0';

	_cleanup_json_ cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "v", IPC_PROTO_VERSION);
	cJSON_AddStringToObject(m, "type", type);
	uint64_t id = ++next_id;
	cJSON_AddNumberToObject(m, "id", (double)id);
	if (colon) {
		_cleanup_json_ cJSON *extra = cJSON_Parse(colon + 1);
		if (!cJSON_IsObject(extra)) {
			fprintf(stderr, "ipc-probe: not a JSON object: %s\n", colon + 1);
			return EXIT_USAGE;
		}
		cJSON *item;
		while ((item = extra->child)) {
			cJSON_DetachItemViaPointer(extra, item);
			cJSON_DeleteItemFromObjectCaseSensitive(m, item->string);
			cJSON_AddItemToObject(m, item->string, item);
		}
	}
	/* A failed send is not final: the daemon may have answered and closed
	 * already, and that answer is still readable. */
	(void)send_msg(m);
	for (;;) {
		cJSON *f;
		int r = recv_frame(&f);
		if (r)
			return code_of(r);
		uint64_t fid = id_of(f);
		if (fid == id || (fid == 0 && is_error(f)))
			return finish_with(f);
		if (fid == 0)
			keep_event(f);
		else
			cJSON_Delete(f);
	}
}

static int step_read(void)
{
	cJSON *f;
	int r = recv_frame(&f);
	return r ? code_of(r) : finish_with(f);
}

static int step_event(void)
{
	if (n_events > 0) {
		cJSON *f = events[0];
		memmove(events, events + 1, --n_events * sizeof(events[0]));
		return finish_with(f);
	}
	for (;;) {
		cJSON *f;
		int r = recv_frame(&f);
		if (r)
			return code_of(r);
		if (id_of(f) == 0)
			return finish_with(f);
		cJSON_Delete(f);
	}
}

static int step_eof(void)
{
	for (;;) {
		cJSON *f;
		int r = recv_frame(&f);
		if (r == EXIT_EOF) {
			say("eof");
			return EXIT_OK;
		}
		if (r)
			return code_of(r);
		cJSON_Delete(f); /* frames before the close are not the point */
	}
}

static long peer_rss_kb(void)
{
	pid_t pid;
	char path[64], line[256];
	long kb = -1;

	if (ipc_peer_cred(fd, &pid, NULL) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* flood:N -- pipeline N status requests without reading until the daemon
 * stops taking them (no progress for 2 s), note the daemon's RSS growth,
 * then read every reply while sending the rest.  Shows that a client that
 * does not read cannot make the daemon buffer without bound. */
static int step_flood(const char *arg)
{
	uint64_t n;
	char frame[128];

	if (parse_u64(arg, 1, 10000000, &n) < 0)
		return EXIT_USAGE;
	int len = snprintf(frame + 4, sizeof(frame) - 4, "{\"v\":1,\"type\":\"status\",\"id\":%d}", 1000000000);
	frame[0] = frame[1] = 0;
	frame[2] = (char)(len >> 8);
	frame[3] = (char)len;
	size_t flen = 4 + (size_t)len;   /* every request the same bytes: id 1e9 */

	long rss0 = peer_rss_kb();
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	uint64_t sent = 0, replies = 0, errors = 0, blocked_after = 0;
	const char *end = "done";  /* why the loop ended, for the report */
	char first_error[64] = "";
	size_t off = 0;   /* bytes of the current request already sent */
	bool reading = false;
	uint64_t deadline = mono_ns() + 600 * NSEC_PER_SEC;

	while ((sent < n || replies < n) && mono_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = (short)((sent < n ? POLLOUT : 0) | (reading ? POLLIN : 0)) };
		int r = poll(&p, 1, reading ? timeout_ms : 2000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && !reading) {
			/* No progress: the daemon stopped reading us. */
			blocked_after = sent;
			long rss1 = peer_rss_kb();
			printf("{\"probe\":\"flood_blocked\",\"sent\":%llu,\"rss_growth_kb\":%ld}\n",
			       (unsigned long long)sent, rss0 >= 0 && rss1 >= 0 ? rss1 - rss0 : -1);
			reading = true;
			continue;
		}
		if (r == 0) {
			end = "timeout";
			break;
		}
		if (p.revents & POLLOUT) {
			for (;;) {
				ssize_t w = send(fd, frame + off, flen - off, MSG_NOSIGNAL);
				if (w < 0)
					break;
				off += (size_t)w;
				if (off == flen) {
					off = 0;
					if (++sent == n)
						break;
				}
			}
			if (sent == n && !reading)
				reading = true;
		}
		if (p.revents & (POLLIN | POLLHUP)) {
			ssize_t m = read(fd, rbuf + rlen, sizeof(rbuf) - rlen);
			if (m <= 0 && !(m < 0 && errno == EAGAIN)) {
				end = m == 0 ? "eof" : "read_error";
				break;
			}
			if (m > 0)
				rlen += (size_t)m;
			for (;;) {
				size_t used;
				cJSON *f;
				if (ipc_frame_decode(rbuf, rlen, &used, &f) != 1)
					break;
				memmove(rbuf, rbuf + used, rlen - used);
				rlen -= used;
				if (is_error(f)) {
					if (errors++ == 0) {
						const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
						snprintf(first_error, sizeof(first_error), "%s",
							 cJSON_IsString(c) ? c->valuestring : "?");
					}
				} else
					replies++;
				cJSON_Delete(f);
			}
		}
	}
	fcntl(fd, F_SETFL, fl);
	printf("{\"probe\":\"flood\",\"sent\":%llu,\"replies\":%llu,\"blocked_after\":%llu,"
	       "\"errors\":%llu,\"first_error\":\"%s\",\"end\":\"%s\"}\n",
	       (unsigned long long)sent, (unsigned long long)replies, (unsigned long long)blocked_after,
	       (unsigned long long)errors, first_error, end);
	fflush(stdout);
	return replies == n ? EXIT_OK : EXIT_TIMEOUT;
}

static int step(const char *s)
{
	char *bytes;
	size_t n;

	if (startswith(s, "req:"))
		return step_req(s + 4);
	if (startswith(s, "json:") || startswith(s, "send-json:")) {
		bool wait = s[0] == 'j';
		const char *text = strchr(s, ':') + 1;
		size_t len = strlen(text);
		unsigned char hdr[4] = { (unsigned char)(len >> 24), (unsigned char)(len >> 16),
					 (unsigned char)(len >> 8), (unsigned char)len };
		int r = send_bytes(hdr, 4);
		if (r == 0)
			r = send_bytes(text, len);
		if (!wait) {
			say(r == 0 ? "sent" : "send_failed");
			return r == 0 ? EXIT_OK : EXIT_EOF;
		}
		return step_read();
	}
	if (startswith(s, "hex:") || startswith(s, "send-hex:")) {
		bool wait = s[0] == 'h';
		if (parse_hex(strchr(s, ':') + 1, &bytes, &n) < 0) {
			fprintf(stderr, "ipc-probe: bad hex in '%s'\n", s);
			return EXIT_USAGE;
		}
		int r = send_bytes(bytes, n);
		free(bytes);
		if (!wait) {
			say(r == 0 ? "sent" : "send_failed");
			return r == 0 ? EXIT_OK : EXIT_EOF;
		}
		return step_read();
	}
	if (startswith(s, "flood:"))
		return step_flood(s + 6);
	if (streq(s, "read"))
		return step_read();
	if (streq(s, "event"))
		return step_event();
	if (streq(s, "eof"))
		return step_eof();
	if (streq(s, "peer")) {
		pid_t pid;
		uid_t uid;
		if (ipc_peer_cred(fd, &pid, &uid) < 0) {
			say("no_peer");
			return EXIT_CONNECT;
		}
		printf("{\"peer_pid\":%d,\"peer_uid\":%u}\n", (int)pid, (unsigned)uid);
		fflush(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "ipc-probe: unknown step '%s'\n", s);
	return EXIT_USAGE;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;
		close(s);
		return r;
	}
	return s;
}

static int hello_bytes(char **frame, size_t *len)
{
	_cleanup_json_ cJSON *h = ipc_msg_new(IPC_T_HELLO, 0);
	cJSON_AddStringToObject(h, "client", "ipc-probe");
	cJSON_AddNumberToObject(h, "pid", getpid());
	cJSON_DeleteItemFromObjectCaseSensitive(h, "id");
	cJSON_AddNumberToObject(h, "id", (double)++next_id);
	return ipc_frame_encode(h, frame, len);
}

int main(int argc, char **argv)
{
	enum { OPT_SOCKET = 0x100, OPT_SPAWN, OPT_NO_HELLO, OPT_EXTRA, OPT_IDLE, OPT_TIMEOUT };
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "spawn", optional_argument, NULL, OPT_SPAWN },
		{ "no-hello", no_argument, NULL, OPT_NO_HELLO },
		{ "extra-conns", required_argument, NULL, OPT_EXTRA },
		{ "idle-conns", required_argument, NULL, OPT_IDLE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *sock_opt = NULL, *spawn_path = NULL;
	bool spawn = false, hello = true, interactive = false;
	uint64_t extra = 0, idle = 0, v;
	int c;

	while ((c = getopt_long(argc, argv, "ih", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_SOCKET: sock_opt = optarg; break;
		case OPT_SPAWN: spawn = true; spawn_path = optarg; break;
		case OPT_NO_HELLO: hello = false; break;
		case OPT_EXTRA:
			if (parse_u64(optarg, 0, 1000, &extra) < 0)
				return EXIT_USAGE;
			break;
		case OPT_IDLE:
			if (parse_u64(optarg, 0, 1000, &idle) < 0)
				return EXIT_USAGE;
			break;
		case OPT_TIMEOUT:
			if (parse_u64(optarg, 0, 3600000, &v) < 0)
				return EXIT_USAGE;
			timeout_ms = (int)v;
			break;
		case 'i': interactive = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!interactive && optind >= argc && !spawn) {
		usage(stderr);
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);

	_cleanup_free_ char *dir = NULL, *sock = NULL;
	if (spawn) {
		struct ipc_client *cl = NULL;
		_cleanup_free_ char *err = NULL;
		if (ipc_client_connect(spawn_path, &cl, &err) < 0) {
			fprintf(stderr, "ipc-probe: %s\n", err ? err : "cannot connect");
			return EXIT_CONNECT;
		}
		/* Take over the connection: hello is done, nothing is pending. */
		fd = fcntl(ipc_client_fd(cl), F_DUPFD_CLOEXEC, 3);
		ipc_client_free(cl);
		hello = false;
		next_id = 1;
		if (fd < 0)
			return EXIT_CONNECT;
		int fl = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	} else {
		if (!sock_opt) {
			const char *why = "?";
			int r = ipc_runtime_dir(&dir, &why);
			if (r < 0) {
				_cleanup_free_ char *path = NULL;
				(void)ipc_runtime_dir_path(&path, &why);
				fprintf(stderr, "ipc-probe: cannot use runtime directory '%s': %s\n",
					path ? path : "?", why);
				return EXIT_CONNECT;
			}
			if (ipc_socket_path(dir, &sock, NULL) < 0)
				return EXIT_CONNECT;
			sock_opt = sock;
		}
		/* Held until we exit; they only exist to take up client slots. */
		for (uint64_t i = 0; i < extra; i++) {
			int x = connect_to(sock_opt);
			char *frame;
			size_t len;
			if (x >= 0 && hello_bytes(&frame, &len) == 0) {
				(void)!send(x, frame, len, MSG_NOSIGNAL);
				free(frame);
			}
		}
		for (uint64_t i = 0; i < idle; i++)
			if (connect_to(sock_opt) < 0)
				fprintf(stderr, "ipc-probe: idle connection %" PRIu64 " failed\n", i);
		fd = connect_to(sock_opt);
		if (fd < 0) {
			fprintf(stderr, "ipc-probe: cannot connect to '%s': %s\n", sock_opt, strerror(-fd));
			return EXIT_CONNECT;
		}
	}

	if (hello) {
		char *frame;
		size_t len;
		uint64_t id;
		if (hello_bytes(&frame, &len) < 0)
			return EXIT_USAGE;
		id = next_id;
		(void)send_bytes(frame, len);
		free(frame);
		cJSON *f;
		int r;
		while ((r = recv_frame(&f)) == 0) {
			if (id_of(f) == id || is_error(f))
				break;
			cJSON_Delete(f);
		}
		if (r)
			return code_of(r);
		if (is_error(f))
			return finish_with(f); /* refused: print why */
		cJSON_Delete(f);
	}

	int worst = EXIT_OK;
	if (interactive) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		while ((n = getline(&line, &cap, stdin)) > 0) {
			while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				line[--n] = '\0';
			if (n == 0)
				continue;
			int r = step(line);
			if (r && !worst)
				worst = r;
		}
		free(line);
	} else {
		for (int i = optind; i < argc; i++) {
			int r = step(argv[i]);
			if (r && !worst)
				worst = r;
		}
	}
	while (n_events > 0)
		cJSON_Delete(events[--n_events]);
	close(fd);
	if (fflush(stdout) != 0 || ferror(stdout))
		return EXIT_USAGE;
	return worst;
}
