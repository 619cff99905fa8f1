/* OS runtime calls under the agent (--host-sys=osrt): the main thread makes
 * slow calls (N 2 ms nanosleeps, a contended mutex, a pipe read that waits)
 * and quick ones (open, write, fsync, a read of a bad fd), timing each one
 * itself; helper threads make the waits without interposed calls (they
 * spin on CLOCK_MONOTONIC).
 *
 *   osrt-app run N OUT          the calls; OUT gets "pid tid" then
 *                               "api slow t0 t1" per call
 *   osrt-app check DIR OUT THR  every slow call recorded, no call the
 *                               program timed under THR recorded, every
 *                               record inside a distinct call of its api
 *                               on the main thread, none under THR */
#include <fcntl.h>
#include <stdatomic.h>
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

	FILE *f = fopen(out, "w");
	CHECK(f);
	fprintf(f, "%d %u\n", (int)getpid(), app_tid());
	for (size_t i = 0; i < n_calls; i++)
		fprintf(f, "%u %u %llu %llu\n", calls[i].api, calls[i].slow, (unsigned long long)calls[i].t0,
			(unsigned long long)calls[i].t1);
	CHECK(fclose(f) == 0);
	return 0;
}

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
			if (!c->used && c->api == e->type && c->t0 <= e->ts && e->id <= c->t1)
				found = c->used = true;
		}
		if (!found)
			fprintf(stderr, "a record of %s on the main thread matches no call\n", osrt_api_name(e->type));
		CHECK(found);
	}
	unsigned slow_calls = 0;
	for (size_t k = 0; k < n_calls; k++) {
		struct call *c = &calls[k];
		if (c->slow) {
			slow_calls++;
			CHECK(c->used);
		}
		if (c->t1 - c->t0 < thr)
			CHECK(!c->used);
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
