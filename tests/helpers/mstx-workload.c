/* test-mstx-workload: a program annotated through the mstx API, for the
 * agent tests of the export and of msprofd (tests/integration/agent-*.sh).
 * It does nothing special without the agent (the calls are no-ops).
 *
 *   test-mstx-workload script N
 *       prints "main <tid>" and "worker <tid>", waits for a line on stdin,
 *       then makes these calls and prints "done", then waits for stdin to
 *       close:
 *         main:   mark "main-mark"
 *                 start "outer", start "inner", end inner, end outer
 *                 start "cross" (ended by the worker, after its mark)
 *                 domain "netdom": mark "dom-mark", start/end "dom-range"
 *                 N marks "loop <i>"
 *         worker: mark "worker-mark", end "cross"
 *         main:   start "left-open" (never ended)
 *
 *   test-mstx-workload latency PROF_DIR...
 *       one session per PROF dir on itself, through msprofd ($MSPROFD
 *       started if needed): a thread marks "spin" every ~5 µs while the
 *       main thread sends session_start, waits 200 ms, sends session_stop.
 *       Prints per session one line of CLOCK_REALTIME ns:
 *         "start_sent start_reply stop_sent stop_reply"
 *       so a script can compare them with the first and last recorded
 *       event.
 *
 *   test-mstx-workload flood SECONDS BYTES THREADS
 *       THREADS threads mark as fast as they can for SECONDS, each mark's
 *       message BYTES long (at most 1023): a writer that fills a storage
 *       limit in seconds (tests/integration/launch-storage-limit.sh).
 *       SIGTERM ends it early, as SECONDS would (exit 0: a test's way to
 *       end the job when it has what it waited for).  Prints "issued N". */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/json.h"
#include "mstx/ms_tools_ext.h"
#include "common/util.h"

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

static int wait_line(void)
{
	char line[64];
	return fgets(line, sizeof line, stdin) ? 0 : -1;
}

/* --- script --------------------------------------------------------------- */

static mstxRangeId cross;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int phase; /* 1: worker may go, 2: worker done */

static void *worker(void *arg)
{
	pthread_mutex_lock(&mu);
	printf("worker %d\n", (int)gettid_());
	fflush(stdout);
	while (phase < 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	mstxMarkA("worker-mark", NULL);
	mstxRangeEnd(cross);
	pthread_mutex_lock(&mu);
	phase = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int script(unsigned n)
{
	pthread_t t;
	printf("main %d\n", (int)gettid_());
	fflush(stdout);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	if (wait_line() < 0)
		return 1;
	mstxMarkA("main-mark", NULL);
	mstxRangeId outer = mstxRangeStartA("outer", NULL);
	mstxRangeId inner = mstxRangeStartA("inner", NULL);
	mstxRangeEnd(inner);
	mstxRangeEnd(outer);
	cross = mstxRangeStartA("cross", NULL);
	mstxDomainHandle_t d = mstxDomainCreateA("netdom");
	mstxDomainMarkA(d, "dom-mark", NULL);
	mstxRangeId dr = mstxDomainRangeStartA(d, "dom-range", NULL);
	mstxDomainRangeEnd(d, dr);
	char msg[32];
	for (unsigned i = 0; i < n; i++) {
		snprintf(msg, sizeof msg, "loop %u", i);
		mstxMarkA(msg, NULL);
	}
	pthread_mutex_lock(&mu);
	phase = 1;
	pthread_cond_broadcast(&cv);
	while (phase < 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	(void)mstxRangeStartA("left-open", NULL);
	printf("done\n");
	fflush(stdout);
	while (wait_line() == 0)
		;
	return 0;
}

/* --- latency ----------------------------------------------------------------- */

static atomic_int spinning = 1;

static void *spinner(void *arg)
{
	while (atomic_load_explicit(&spinning, memory_order_relaxed)) {
		mstxMarkA("spin", NULL);
		/* ~5 µs apart: fine enough for a 10 ms question, slow enough
		 * that the agent's ring never fills between two drains */
		uint64_t until = mono_ns() + 5000;
		while (mono_ns() < until)
			;
	}
	return NULL;
}

/* req is consumed */
static int call(struct ipc_client *c, cJSON *req, cJSON **ret)
{
	*ret = NULL;
	int r = req ? ipc_client_call(c, req, 10000, ret) : -ENOMEM;
	cJSON_Delete(req);
	if (r < 0) {
		char *text = *ret ? cJSON_PrintUnformatted(*ret) : NULL;
		fprintf(stderr, "test-mstx-workload: request failed: %s %s\n", strerror(-r), text ? text : "");
		free(text);
	}
	return r;
}

static int latency(int n, char **dirs)
{
	struct ipc_client *c = NULL;
	_cleanup_free_ char *err = NULL;
	if (ipc_client_connect(getenv("MSPROFD"), &c, &err) < 0) {
		fprintf(stderr, "test-mstx-workload: %s\n", err ? err : "cannot connect");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, spinner, NULL) != 0)
		return 1;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		cJSON *req = ipc_msg_new(IPC_T_SESSION_START, 0), *reply = NULL;
		if (!req)
			return 1;
		cJSON *pids = cJSON_AddArrayToObject(req, "pids");
		cJSON_AddItemToArray(pids, cJSON_CreateNumber(getpid()));
		cJSON_AddStringToObject(req, "prof_dir", dirs[i]);
		cJSON_AddBoolToObject(req, "msproftx", 1);
		uint64_t t0 = real_ns();
		if (call(c, req, &reply) < 0) {
			rc = 1;
			cJSON_Delete(reply);
			break;
		}
		uint64_t t1 = real_ns();
		uint64_t sid;
		if (json_get_u64(reply, "session", 1, JSON_MAX_INT, true, 0, &sid) < 0)
			rc = 1;
		cJSON_Delete(reply);
		nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
		req = ipc_msg_new(IPC_T_SESSION_STOP, 0);
		if (req)
			cJSON_AddNumberToObject(req, "session", (double)sid);
		uint64_t t2 = real_ns();
		reply = NULL;
		if (call(c, req, &reply) < 0)
			rc = 1;
		uint64_t t3 = real_ns();
		cJSON_Delete(reply);
		printf("%llu %llu %llu %llu\n", (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)t2,
		       (unsigned long long)t3);
		fflush(stdout);
	}
	atomic_store(&spinning, 0);
	pthread_join(t, NULL);
	ipc_client_free(c);
	return rc;
}

/* --- flood ------------------------------------------------------------- */

static uint64_t flood_end_ns;
static volatile sig_atomic_t flood_stop;
static size_t flood_bytes;
static atomic_ullong flood_issued;

static void on_flood_term(int sig)
{
	(void)sig;
	flood_stop = 1;
}

static void *flooder(void *arg)
{
	char msg[1024];
	unsigned long long n = 0;
	memset(msg, 'f', flood_bytes);
	msg[flood_bytes] = 0;
	(void)arg;
	do {
		/* the clock every 256 marks: the marks are the load */
		for (int i = 0; i < 256; i++, n++) {
			msg[n % flood_bytes] = (char)('a' + n % 26);
			mstxMarkA(msg, NULL);
		}
	} while (!flood_stop && mono_ns() < flood_end_ns);
	atomic_fetch_add(&flood_issued, n);
	return NULL;
}

static int flood(double seconds, unsigned bytes, unsigned threads)
{
	pthread_t t[64];
	if (bytes < 1 || bytes > 1023 || threads < 1 || threads > 64)
		return 2;
	flood_bytes = bytes;
	flood_end_ns = mono_ns() + (uint64_t)(seconds * 1e9);
	signal(SIGTERM, on_flood_term);
	for (unsigned i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, flooder, NULL) != 0)
			return 1;
	for (unsigned i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("issued %llu\n", (unsigned long long)atomic_load(&flood_issued));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && streq(argv[1], "script"))
		return script((unsigned)atoi(argv[2]));
	if (argc >= 3 && streq(argv[1], "latency"))
		return latency(argc - 2, argv + 2);
	if (argc == 5 && streq(argv[1], "flood"))
		return flood(atof(argv[2]), (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: test-mstx-workload script N | latency PROF_DIR... | flood SECONDS BYTES THREADS\n");
	return 2;
}
