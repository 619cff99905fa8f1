/* OS runtime calls under the agent (--host-sys=osrt): the main thread makes
 * slow calls (N 2 ms nanosleeps, a contended mutex, a pipe read that waits,
 * and a wait in every other blocking call of osrt-api.h: semaphores,
 * condition variables, accept, recvmsg, poll, select, epoll...) and quick
 * ones (open, write, fsync, a read of a bad fd, connect, sendmsg, the
 * _FORTIFY_SOURCE forms), timing each one itself; helper threads end the
 * waits after spinning on CLOCK_MONOTONIC.
 *
 *   osrt-app run N OUT          the calls; OUT gets "pid tid" then
 *                               "api slow t0 t1" per call
 *   osrt-app check DIR OUT THR  every slow call recorded, no call the
 *                               program timed under THR recorded, every
 *                               record inside a distinct call of its api (to
 *                               CLOCK_TOL_NS) on the main thread, none under THR; with
 *                               THR 0, every call recorded, and every api
 *                               of osrt-api.h among them */
#include <fcntl.h>
#include <poll.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>

#include "tests/agent/apptest.h"
#include "collectors/osrt-api.h"
#include "common/util.h"

#define WAIT_NS 3000000ULL

struct call {
	unsigned api, slow;
	uint64_t t0, t1;
	bool used;
};

static struct call calls[256];
static size_t n_calls;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int held;
static int pipefd[2];

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t end = mono() + ns;
	while (mono() < end)
		;
}

#define TIMED(api_, slow_, expr)                                                  \
	do {                                                                      \
		uint64_t t0_ = mono();                                            \
		expr;                                                             \
		uint64_t t1_ = mono();                                            \
		/* a wait on another thread is slow when it did wait (a busy     \
		 * machine may run the helper to its end first) */                \
		unsigned s_ = (slow_) == 2 ? t1_ - t0_ >= WAIT_NS / 2 : (slow_);  \
		calls[n_calls++] = (struct call){ api_, s_, t0_, t1_, false };    \
	} while (0)

static void *holder(void *p)
{
	(void)p;
	pthread_mutex_lock(&mu);
	atomic_store(&held, 1);
	spin(WAIT_NS);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *writer(void *p)
{
	(void)p;
	spin(WAIT_NS);
	CHECK(write(pipefd[1], "x", 1) == 1);
	return NULL;
}

/* The helpers that end a wait of the main thread after WAIT_NS. */
static sem_t sem;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_go;
static struct sockaddr_un sun_addr;
static int sockpair[2];

static void *sem_poster(void *p)
{
	(void)p;
	spin(WAIT_NS);
	CHECK(sem_post(&sem) == 0);
	return NULL;
}

static void *cv_signaller(void *p)
{
	(void)p;
	spin(WAIT_NS);
	pthread_mutex_lock(&cmu);
	cv_go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cmu);
	return NULL;
}

static void *connector(void *p)
{
	(void)p;
	spin(WAIT_NS);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sun_addr, sizeof(sun_addr)) == 0);
	close(fd);
	return NULL;
}

static void *msg_sender(void *p)
{
	(void)p;
	spin(WAIT_NS);
	CHECK(send(sockpair[1], "y", 1, 0) == 1);
	return NULL;
}

/* Run helper fn beside the main thread's wait (expr), timed as api. */
#define WAITED(api_, fn, expr)                                            \
	do {                                                              \
		pthread_t th_;                                            \
		CHECK(pthread_create(&th_, NULL, (fn), NULL) == 0);       \
		TIMED(api_, 2, expr);                                     \
		int j_;                                                   \
		TIMED(OSRT_pthread_join, 0, j_ = pthread_join(th_, NULL)); \
		CHECK(j_ == 0);                                           \
	} while (0)

/* A quick read of the byte a helper sent, itself a recorded call. */
#define READ1(fd) do { ssize_t r1_; TIMED(OSRT_read, 0, r1_ = read((fd), &c, 1)); CHECK(r1_ == 1); } while (0)

/* The fortified forms, as a program built with _FORTIFY_SOURCE calls them. */
extern ssize_t __read_chk(int fd, void *buf, size_t n, size_t size);
extern ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t size);
extern ssize_t __recv_chk(int fd, void *buf, size_t n, size_t size, int fl);
extern int __poll_chk(struct pollfd *fds, nfds_t n, int ms, size_t size);

/* The blocking calls a training job waits in, each made to wait once. */
static void blocking_calls(const char *out)
{
	char c;
	int r;
	ssize_t w;
	struct timespec far;
	clock_gettime(CLOCK_REALTIME, &far);
	far.tv_sec += 10;

	CHECK(sem_init(&sem, 0, 0) == 0);
	WAITED(OSRT_sem_wait, sem_poster, r = sem_wait(&sem));
	CHECK(r == 0);
	WAITED(OSRT_sem_timedwait, sem_poster, r = sem_timedwait(&sem, &far));
	CHECK(r == 0);
	struct timespec mono_far;
	clock_gettime(CLOCK_MONOTONIC, &mono_far);
	mono_far.tv_sec += 10;
	WAITED(OSRT_sem_clockwait, sem_poster, r = sem_clockwait(&sem, CLOCK_MONOTONIC, &mono_far));
	CHECK(r == 0);

	TIMED(OSRT_pthread_mutex_lock, 0, r = pthread_mutex_lock(&cmu));
	cv_go = 0;
	WAITED(OSRT_pthread_cond_wait, cv_signaller, while (!cv_go) r = pthread_cond_wait(&cv, &cmu));
	cv_go = 0;
	WAITED(OSRT_pthread_cond_timedwait, cv_signaller,
	       while (!cv_go) r = pthread_cond_timedwait(&cv, &cmu, &far));
	cv_go = 0;
	WAITED(OSRT_pthread_cond_clockwait, cv_signaller,
	       while (!cv_go) r = pthread_cond_clockwait(&cv, &cmu, CLOCK_MONOTONIC, &mono_far));
	pthread_mutex_unlock(&cmu);

	atomic_store(&held, 0);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, holder, NULL) == 0);
	while (!atomic_load(&held))
		;
	TIMED(OSRT_pthread_mutex_timedlock, 2, r = pthread_mutex_timedlock(&mu, &far));
	CHECK(r == 0);
	pthread_mutex_unlock(&mu);
	TIMED(OSRT_pthread_join, 0, r = pthread_join(th, NULL));
	CHECK(r == 0);

	/* a listening socket: accept and accept4 wait for a connect */
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(ls >= 0);
	sun_addr = (struct sockaddr_un){ .sun_family = AF_UNIX };
	snprintf(sun_addr.sun_path, sizeof(sun_addr.sun_path), "%s.sock", out);
	unlink(sun_addr.sun_path);
	CHECK(bind(ls, (struct sockaddr *)&sun_addr, sizeof(sun_addr)) == 0 && listen(ls, 4) == 0);
	int fd;
	WAITED(OSRT_accept, connector, fd = accept(ls, NULL, NULL));
	CHECK(fd >= 0);
	close(fd);
	WAITED(OSRT_accept4, connector, fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC));
	CHECK(fd >= 0);
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	TIMED(OSRT_connect, 0, r = connect(fd, (struct sockaddr *)&sun_addr, sizeof(sun_addr)));
	CHECK(r == 0);
	close(fd);
	TIMED(OSRT_accept, 0, fd = accept(ls, NULL, NULL));   /* the connection just made */
	CHECK(fd >= 0);
	close(fd);
	close(ls);
	unlink(sun_addr.sun_path);

	/* a socket pair: each wait ends with a byte from the helper */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sockpair) == 0);
	struct iovec iov = { &c, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	WAITED(OSRT_recvmsg, msg_sender, w = recvmsg(sockpair[0], &mh, 0));
	CHECK(w == 1);
	TIMED(OSRT_sendmsg, 0, w = sendmsg(sockpair[0], &mh, 0));
	CHECK(w == 1);
	READ1(sockpair[1]);
	struct pollfd pfd = { .fd = sockpair[0], .events = POLLIN };
	WAITED(OSRT_poll, msg_sender, r = poll(&pfd, 1, 10000));
	CHECK(r == 1);
	READ1(sockpair[0]);
	WAITED(OSRT_ppoll, msg_sender, r = ppoll(&pfd, 1, NULL, NULL));
	CHECK(r == 1);
	READ1(sockpair[0]);
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(sockpair[0], &rd);
	WAITED(OSRT_select, msg_sender, r = select(sockpair[0] + 1, &rd, NULL, NULL, NULL));
	CHECK(r == 1);
	READ1(sockpair[0]);
	FD_SET(sockpair[0], &rd);
	WAITED(OSRT_pselect, msg_sender, r = pselect(sockpair[0] + 1, &rd, NULL, NULL, NULL, NULL));
	CHECK(r == 1);
	READ1(sockpair[0]);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN }, got;
	CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, sockpair[0], &ev) == 0);
	WAITED(OSRT_epoll_wait, msg_sender, r = epoll_wait(ep, &got, 1, 10000));
	CHECK(r == 1);
	READ1(sockpair[0]);
	WAITED(OSRT_epoll_pwait, msg_sender, r = epoll_pwait(ep, &got, 1, 10000, NULL));
	CHECK(r == 1);
	READ1(sockpair[0]);
	close(ep);

	/* the fortified forms, recorded as the plain calls */
	WAITED(OSRT_read, msg_sender, w = __read_chk(sockpair[0], &c, 1, 1));
	CHECK(w == 1);
	WAITED(OSRT_recv, msg_sender, w = __recv_chk(sockpair[0], &c, 1, 1, 0));
	CHECK(w == 1);
	WAITED(OSRT_poll, msg_sender, r = __poll_chk(&pfd, 1, 10000, sizeof(pfd)));
	CHECK(r == 1);
	READ1(sockpair[0]);

	/* the quick calls of the table not made above */
	TIMED(OSRT_send, 0, w = send(sockpair[1], "z", 1, 0));
	CHECK(w == 1);
	READ1(sockpair[0]);
	TIMED(OSRT_sendto, 0, w = sendto(sockpair[1], "z", 1, 0, NULL, 0));
	CHECK(w == 1);
	TIMED(OSRT_recvfrom, 0, w = recvfrom(sockpair[0], &c, 1, 0, NULL, NULL));
	CHECK(w == 1);
	TIMED(OSRT_writev, 0, w = writev(sockpair[1], &iov, 1));
	CHECK(w == 1);
	TIMED(OSRT_readv, 0, w = readv(sockpair[0], &iov, 1));
	CHECK(w == 1);
	close(sockpair[0]);
	close(sockpair[1]);

	char path[4096];
	snprintf(path, sizeof(path), "%s.data", out);
	TIMED(OSRT_openat, 0, fd = openat(AT_FDCWD, path, O_CREAT | O_RDWR | O_TRUNC, 0600));
	CHECK(fd >= 0);
	TIMED(OSRT_pwrite, 0, w = pwrite(fd, "abcd", 4, 0));
	CHECK(w == 4);
	TIMED(OSRT_pread, 0, w = pread(fd, &c, 1, 1));
	CHECK(w == 1 && c == 'b');
	TIMED(OSRT_pread, 0, w = __pread64_chk(fd, &c, 1, 2, 1));
	CHECK(w == 1 && c == 'c');
	TIMED(OSRT_fdatasync, 0, r = fdatasync(fd));
	CHECK(r == 0);
	void *m;
	TIMED(OSRT_mmap, 0, m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0));
	CHECK(m != MAP_FAILED);
	TIMED(OSRT_munmap, 0, r = munmap(m, 4096));
	CHECK(r == 0);
	close(fd);
	unlink(path);
	TIMED(OSRT_usleep, 0, r = usleep(1));
	CHECK(r == 0);
	unsigned left;
	TIMED(OSRT_sleep, 0, left = sleep(0));
	CHECK(left == 0);
	struct timespec tiny = { 0, 1000 };
	TIMED(OSRT_clock_nanosleep, 0, r = clock_nanosleep(CLOCK_MONOTONIC, 0, &tiny, NULL));
	CHECK(r == 0);
}

static int run(int n, const char *out)
{
	char path[4096], buf[4096] = { 0 };
	snprintf(path, sizeof(path), "%s.tmp", out);
	int fd, r;
	TIMED(OSRT_open, 0, fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600));
	CHECK(fd >= 0);
	ssize_t w;
	TIMED(OSRT_write, 0, w = write(fd, buf, sizeof(buf)));
	CHECK(w == (ssize_t)sizeof(buf));
	TIMED(OSRT_fsync, 0, r = fsync(fd));
	CHECK(r == 0);
	close(fd);
	unlink(path);
	/* errno and the return value are the real call's */
	errno = 0;
	TIMED(OSRT_read, 0, w = read(-1, buf, 1));
	CHECK(w == -1 && errno == EBADF);

	for (int i = 0; i < n; i++) {
		struct timespec ts = { 0, 2000000 };
		TIMED(OSRT_nanosleep, 1, r = nanosleep(&ts, NULL));
		CHECK(r == 0);
	}

	pthread_t th;
	CHECK(pthread_create(&th, NULL, holder, NULL) == 0);
	while (!atomic_load(&held))
		;
	TIMED(OSRT_pthread_mutex_lock, 2, r = pthread_mutex_lock(&mu));
	CHECK(r == 0);
	pthread_mutex_unlock(&mu);
	TIMED(OSRT_pthread_join, 0, r = pthread_join(th, NULL));
	CHECK(r == 0);

	CHECK(pipe(pipefd) == 0);
	CHECK(pthread_create(&th, NULL, writer, NULL) == 0);
	TIMED(OSRT_read, 2, w = read(pipefd[0], buf, 1));
	CHECK(w == 1);
	TIMED(OSRT_pthread_join, 0, r = pthread_join(th, NULL));
	CHECK(r == 0);

	blocking_calls(out);

	FILE *f = fopen(out, "w");
	CHECK(f);
	fprintf(f, "%d %u\n", (int)getpid(), app_tid());
	for (size_t i = 0; i < n_calls; i++)
		fprintf(f, "%u %u %llu %llu\n", calls[i].api, calls[i].slow, (unsigned long long)calls[i].t0,
			(unsigned long long)calls[i].t1);
	CHECK(fclose(f) == 0);
	return 0;
}

/* The agent's event clock (the TSC where the kernel counts it) maps to
 * CLOCK_MONOTONIC within a microsecond (tests/agent/agent-clock.sh): a
 * call of a microsecond (a join of a thread that has ended) may be stamped
 * that much outside the program's own reads around it. */
#define CLOCK_TOL_NS 1000

static int check(const char *dir, const char *out, uint64_t thr)
{
	FILE *in = fopen(out, "r");
	CHECK(in);
	unsigned pid, tid;
	CHECK(fscanf(in, "%u %u", &pid, &tid) == 2);
	unsigned long long t0, t1;
	unsigned api, slow;
	while (n_calls < ARRAY_SIZE(calls) && fscanf(in, "%u %u %llu %llu", &api, &slow, &t0, &t1) == 4)
		calls[n_calls++] = (struct call){ api, slow, t0, t1, false };
	fclose(in);

	struct ar_file f;
	app_load(dir, pid, &f);
	size_t n_osrt = 0, n_main = 0;
	for (size_t i = 0; i < f.n_ev; i++) {
		const struct ar_event *e = &f.ev[i];
		if (e->rec != RAW_AGENT_OSRT)
			continue;
		n_osrt++;
		CHECK(osrt_api_name(e->type) != NULL);
		CHECK(e->id >= e->ts && e->id - e->ts >= thr);
		if (e->tid != tid)
			continue;
		n_main++;
		bool found = false;
		for (size_t k = 0; k < n_calls && !found; k++) {
			struct call *c = &calls[k];
			if (!c->used && c->api == e->type && c->t0 <= e->ts + CLOCK_TOL_NS && e->id <= c->t1 + CLOCK_TOL_NS)
				found = c->used = true;
		}
		if (!found)
			fprintf(stderr, "a record of %s on the main thread matches no call\n", osrt_api_name(e->type));
		CHECK(found);
	}
	unsigned slow_calls = 0;
	bool api_seen[OSRT_N_APIS] = { false };
	for (size_t k = 0; k < n_calls; k++) {
		struct call *c = &calls[k];
		if (c->slow) {
			slow_calls++;
			if (!c->used)
				fprintf(stderr, "a slow %s was not recorded\n", osrt_api_name(c->api));
			CHECK(c->used);
		}
		if (c->t1 - c->t0 < thr)
			CHECK(!c->used);
		/* with no threshold every call is recorded: each is interposed */
		if (thr == 0 && !c->used)
			fprintf(stderr, "%s was not recorded\n", osrt_api_name(c->api));
		CHECK(thr > 0 || c->used);
		api_seen[c->api] = true;
	}
	/* every call of the table is made */
	for (unsigned a = 0; a < OSRT_N_APIS; a++) {
		if (!api_seen[a])
			fprintf(stderr, "no call of %s made\n", osrt_api_name(a));
		CHECK(api_seen[a]);
	}
	printf("%zu osrt records, %zu on the main thread (%u slow calls), threshold %llu ns\n", n_osrt, n_main,
	       slow_calls, (unsigned long long)thr);
	ar_free(&f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && streq(argv[1], "run"))
		return run(atoi(argv[2]), argv[3]);
	if (argc == 5 && streq(argv[1], "check"))
		return check(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	fprintf(stderr, "usage: osrt-app run N OUT | check DIR OUT THRESHOLD_NS\n");
	return 2;
}
