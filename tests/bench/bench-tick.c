/* Cost of one sampling tick, against a baseline measured in the same run:
 * one open+read+close of /proc/self/stat.  Prints figures only; never fails
 * on time.
 *
 *   bench-tick [ticks]      (default 5000) */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/host.h"
#include "common/util.h"

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct summary {
	double median_us, p90_us, mean_us, max_us;
};

static struct summary summarize(uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)ns[i];
	return (struct summary){
		.median_us = (double)ns[n / 2] / 1e3,
		.p90_us = (double)ns[(n * 9) / 10] / 1e3,
		.mean_us = sum / (double)n / 1e3,
		.max_us = (double)ns[n - 1] / 1e3,
	};
}

static double baseline_open_read_close(size_t n, uint64_t *ns)
{
	char buf[2048];
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = mono_ns();
		int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
			perror("/proc/self/stat");
			exit(1);
		}
		close(fd);
		ns[i] = mono_ns() - t0;
	}
	return summarize(ns, n).median_us;
}

static double baseline_pread(size_t n, uint64_t *ns)
{
	char buf[2048];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/proc/self/stat");
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = mono_ns();
		if (pread(fd, buf, sizeof(buf), 0) <= 0) {
			perror("pread");
			exit(1);
		}
		ns[i] = mono_ns() - t0;
	}
	close(fd);
	return summarize(ns, n).median_us;
}

static struct host_sampler *sampler(const char *dir, pid_t root, unsigned sys, unsigned usage)
{
	struct host_sampler_config cfg = {
		.data_dir = dir,
		.n_roots = 1,
		.roots = { (uint32_t)root },
		.follow_children = true,
		.sys_flags = sys,
		.usage_flags = usage,
	};
	struct host_sampler *s;
	int r = host_sampler_new(&cfg, &s);
	if (r < 0) {
		fprintf(stderr, "host_sampler_new: %s\n", strerror(-r));
		exit(1);
	}
	return s;
}

static void tick_or_die(struct host_sampler *s, unsigned kind)
{
	int r = host_sampler_tick(s, kind);
	if (r < 1) {
		fprintf(stderr, "tick: %s\n", r < 0 ? strerror(-r) : "target gone");
		exit(1);
	}
}

/* Back-to-back ticks: the steady cost (a tree rescan every 100 ms is in
 * the mean and the tail). */
static struct summary run_ticks(struct host_sampler *s, unsigned kind, size_t n, uint64_t *ns)
{
	tick_or_die(s, kind); /* first tick opens the thread files */
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = mono_ns();
		tick_or_die(s, kind);
		ns[i] = mono_ns() - t0;
	}
	return summarize(ns, n);
}

/* Pacing at hz for seconds, as the daemon's timer paces ticks: how many
 * (at most cap), and the sleep until the next deadline (*next moves on by
 * period). */
static size_t paced_count(double hz, double seconds, size_t cap)
{
	size_t n = (size_t)(hz * seconds);
	return n > cap ? cap : n;
}

static void pace(uint64_t *next, uint64_t period)
{
	*next += period;
	struct timespec ts = { (time_t)(*next / NSEC_PER_SEC), (long)(*next % NSEC_PER_SEC) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Ticks paced at hz, as the daemon's timer runs them: caches go cold
 * between ticks, and a tree rescan (at most every 100 ms) lands on some. */
static struct summary run_paced(struct host_sampler *s, unsigned kind, double hz, double seconds, uint64_t *ns,
				size_t cap)
{
	size_t n = paced_count(hz, seconds, cap);
	uint64_t period = (uint64_t)(1e9 / hz), next = mono_ns();
	for (size_t i = 0; i < n; i++) {
		pace(&next, period);
		uint64_t t0 = mono_ns();
		tick_or_die(s, kind);
		ns[i] = mono_ns() - t0;
	}
	return summarize(ns, n);
}

static int count_procs(void)
{
	DIR *d = opendir("/proc");
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
	if (d)
		closedir(d);
	return n;
}

static void report_line(const char *what, const struct summary *st, double base)
{
	printf("  %-16s median %7.2f us  p90 %7.2f us  mean %7.2f us  max %8.2f us  (%.1fx baseline)\n", what,
	       st->median_us, st->p90_us, st->mean_us, st->max_us, st->median_us / base);
}

/* The baseline paced the same way: a lone open+read+close after the same
 * sleep pays the same cold caches as a tick does. */
static double paced_baseline(double hz, double seconds, uint64_t *ns, size_t cap)
{
	size_t n = paced_count(hz, seconds, cap);
	char buf[2048];
	uint64_t period = (uint64_t)(1e9 / hz), next = mono_ns();
	for (size_t i = 0; i < n; i++) {
		pace(&next, period);
		uint64_t t0 = mono_ns();
		int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			exit(1);
		close(fd);
		ns[i] = mono_ns() - t0;
	}
	return summarize(ns, n).median_us;
}

/* mean cost of a paced tick times the rate: % of one core */
static void report_paced(double hz, const struct summary *st, double base)
{
	char label[32];
	snprintf(label, sizeof(label), "paced %g Hz", hz);
	report_line(label, st, base);
	printf("  %-16s => %.3f%% of one core at %g Hz (baseline paced alike: %.2f us)\n", "",
	       st->mean_us * hz / 1e4, hz, base);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 5000;
	if (n < 10)
		n = 10;
	uint64_t *ns = calloc(n > 20000 ? n : 20000, sizeof(*ns));
	char dir[] = "/tmp/bench-tick-XXXXXX";
	if (!ns || !mkdtemp(dir)) {
		perror("setup");
		return 1;
	}

	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		for (;;)
			pause();
	}

	double base = baseline_open_read_close(20000, ns);
	double pr = baseline_pread(20000, ns);
	printf("baseline: open+read+close /proc/self/stat median %.2f us; pread on a kept fd %.2f us\n", base, pr);
	printf("target: one sleeping process (1 thread); %d processes on this machine; %ld cpus\n", count_procs(),
	       sysconf(_SC_NPROCESSORS_ONLN));

	unsigned all_sys = HOST_SYS_CPU | HOST_SYS_MEM | HOST_SYS_DISK | HOST_SYS_NETWORK;
	struct host_sampler *s = sampler(dir, child, all_sys, 0);
	printf("--host-sys=cpu,mem,disk,network: 5 files of the target, /proc/net/dev, 4 records a tick\n");
	struct summary st = run_ticks(s, HOST_TICK_SYS, n, ns);
	report_line("back to back", &st, base);
	const double sys_hz[] = { 50, 100, 1000 };
	for (size_t i = 0; i < ARRAY_SIZE(sys_hz); i++) {
		st = run_paced(s, HOST_TICK_SYS, sys_hz[i], 2.0, ns, n > 20000 ? n : 20000);
		report_paced(sys_hz[i], &st, paced_baseline(sys_hz[i], 1.0, ns, n > 20000 ? n : 20000));
	}
	host_sampler_finish(s, 0);
	host_sampler_free(s);

	s = sampler(dir, child, 0, HOST_USAGE_CPU | HOST_USAGE_MEM);
	printf("--host-sys-usage=cpu,mem: /proc/stat, /proc/meminfo, stat+statm of every process\n");
	size_t nu = n / 10 < 10 ? 10 : n / 10;
	st = run_ticks(s, HOST_TICK_USAGE, nu, ns);
	report_line("back to back", &st, base);
	const double usage_hz[] = { 10, 50 };
	for (size_t i = 0; i < ARRAY_SIZE(usage_hz); i++) {
		st = run_paced(s, HOST_TICK_USAGE, usage_hz[i], 2.0, ns, n > 20000 ? n : 20000);
		report_paced(usage_hz[i], &st, paced_baseline(usage_hz[i], 1.0, ns, n > 20000 ? n : 20000));
	}
	host_sampler_finish(s, 0);
	host_sampler_free(s);

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(ns);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return 0;
}
