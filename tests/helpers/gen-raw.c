/* gen-raw: write a PROF dir of synthetic agent data with the real raw
 * writer, for the export tests and benchmarks that need sizes no workload
 * produces quickly.
 *
 *   gen-raw [--tasks N] [--ranges] DIR EVENTS [STEPS] [SLICE_MB]
 *
 * DIR/host/{info.json,sample.json,start_info,end_info} and
 * DIR/host/data/agent_<GEN_PID>.data.slice_<n>: one process, one thread,
 * EVENTS mstx events in all.  STEPS push/pop ranges "step 1".."step STEPS"
 * (default 1) each hold an equal share of the remaining events as marks
 * "op_<i % 100>" one microsecond apart (the last step takes the
 * remainder), so step s holds exactly gen_marks_in(s) + 1 events.
 *
 * --ranges makes the events inside the steps a mix, in turn: a mark, a
 * push/pop range and a start/end range (range id 1, 2, ...), each range
 * taking the first half of its microsecond slot, the marks named as above
 * and the ranges "range_<i % 100>".  Every fourth start/end range ends on
 * a second thread (GEN_TID + 1) and its end comes first in the file, as
 * when the agent drains that thread's buffer first.  The step lines are
 * the same: each range is one event.
 *
 * --tasks N adds N device tasks, shared out among the steps the same way:
 * each is a CUDA runtime call on the same thread (cudaLaunchKernel_v7000,
 * cudaMemcpyAsync_v3020 or cudaMemsetAsync_v3020) in a microsecond slot of
 * its own between the marks, and the kernel, copy or set it launched,
 * linked by correlation id i + 1 and running inside the same slot (so
 * inside the step).  Task i is a memcpy when i % 16 == 5, a memset when
 * i % 16 == 13, a kernel otherwise.  As the agent writes what CUPTI hands
 * it, a step's RAW_AGENT_GPU_API and RAW_AGENT_GPU_TASK records (each
 * call before its task) come after the step's range end, in one batch.
 *
 * Prints one line per step, the ground truth the tests compare the export
 * with (times in Unix ns, durations in ns):
 *   step <s> <events> <startNs> <endNs> <tasks> <kernels> <kernelNs> <memcpys> <memsets>
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/gputask.h"
#include "collectors/raw.h"

#define GEN_PID 4242U
#define GEN_TID 4242U
#define MONO0 UINT64_C(1000000000000)
#define REAL0 UINT64_C(1700000000000000000)
#define US UINT64_C(1000)

static struct raw_writer *w;
static struct raw_buf b;

static void die(const char *what, int r)
{
	fprintf(stderr, "gen-raw: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static void emit(uint16_t type)
{
	if (b.err)
		die("encoding", b.err);
	int r = raw_writer_append(w, type, b.data, (uint32_t)b.len);
	if (r < 0)
		die("writing", r);
}

static void head_ns(uint64_t us, uint64_t ns)
{
	raw_buf_reset(&b);
	raw_buf_u64(&b, MONO0 + us * US + ns);
}

static void head(uint64_t us)
{
	head_ns(us, 0);
}

static void str(const char *s)
{
	raw_buf_u32(&b, (uint32_t)strlen(s));
	raw_buf_bytes(&b, s, strlen(s));
}

static void text_file(const char *dir, const char *name, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "we");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(p, errno);
}

/* --- device tasks ---------------------------------------------------------------- */

/* Mangled names as CUPTI reports them (the export demangles them). */
static const char *const kernels[] = {
	"_Z10vector_addPKfS0_Pfi",
	"_ZN2at6native13reduce_kernelILi512ELi1EEEvPfi",
	"_Z4gemmILi128EEvPKfS1_Pfiii",
	"_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvv",
	"_Z15softmax_forwardPfPKfii",
	"_Z12relu_inplacePfl",
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
};

struct step_tasks { uint64_t tasks, kernels, kernel_ns, memcpys, memsets; };

static uint32_t task_kind(uint64_t i)
{
	return i % 16 == 5 ? GPU_TASK_MEMCPY : i % 16 == 13 ? GPU_TASK_MEMSET : GPU_TASK_KERNEL;
}

/* Task i, launched in the microsecond slot starting at us: the call takes
 * its first 150 ns, the task runs 100..700 ns from 200 ns in. */
static void put_task(uint64_t i, uint64_t us, struct gpu_api *a, struct gpu_task *t, struct step_tasks *st)
{
	uint64_t slot = MONO0 + us * US, dur = 100 + (i * 7919) % 601;
	uint32_t kind = task_kind(i), corr = (uint32_t)(i + 1);

	*a = (struct gpu_api){ .start = slot, .end = slot + 150, .tid = GEN_TID, .correlation = corr };
	*t = (struct gpu_task){ .kind = kind, .start = slot + 200, .end = slot + 200 + dur, .device = 0,
				.context = 1, .correlation = corr };
	if (kind == GPU_TASK_KERNEL) {
		a->cbid = 211;
		snprintf(a->name, sizeof a->name, "cudaLaunchKernel_v7000");
		t->stream = 7;
		t->grid[0] = 64 * (int32_t)(1 + i % 4), t->grid[1] = t->grid[2] = 1;
		t->block[0] = 256, t->block[1] = t->block[2] = 1;
		t->registers = 32;
		snprintf(t->name, sizeof t->name, "%s", kernels[i % (sizeof kernels / sizeof *kernels)]);
		st->kernels++;
		st->kernel_ns += dur;
	} else if (kind == GPU_TASK_MEMCPY) {
		a->cbid = 41;
		snprintf(a->name, sizeof a->name, "cudaMemcpyAsync_v3020");
		t->stream = 13;
		t->copy_kind = (i / 16) % 2 ? GPU_COPY_DTOH : GPU_COPY_HTOD;
		t->bytes = 4096 * (1 + i % 64);
		st->memcpys++;
	} else {
		a->cbid = 51;
		snprintf(a->name, sizeof a->name, "cudaMemsetAsync_v3020");
		t->stream = 13;
		t->bytes = 1 << 20;
		st->memsets++;
	}
	st->tasks++;
}

/* One step's launches, as the agent writes a completed CUPTI buffer: each
 * call, then the task it launched. */
static void put_tasks(uint64_t first, const uint64_t *slots, uint64_t n, struct step_tasks *st)
{
	static struct gpu_api a;
	static struct gpu_task t;
	for (uint64_t j = 0; j < n; j++) {
		put_task(first + j, slots[j], &a, &t, st);
		if (gpu_encode_api(&b, &a) < 0)
			die("encoding a runtime call", -EINVAL);
		emit(RAW_AGENT_GPU_API);
		if (gpu_encode_task(&b, &t) < 0)
			die("encoding a task", -EINVAL);
		emit(RAW_AGENT_GPU_TASK);
	}
}

/* Event i of the steps in the microsecond slot us: a mark, or with
 * --ranges every second and third of three a push/pop or start/end range
 * (see the top). */
static void put_event(uint64_t i, uint64_t us, bool ranges, uint64_t *range_id)
{
	char msg[64];
	unsigned kind = ranges ? (unsigned)(i % 3) : 0;
	snprintf(msg, sizeof msg, kind ? "range_%" PRIu64 : "op_%" PRIu64, i % 100);
	if (kind == 0) {
		head(us);
		raw_buf_u32(&b, GEN_TID);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0);
		raw_buf_u32(&b, 0);
		str(msg);
		emit(RAW_AGENT_MARK);
		return;
	}
	uint64_t id = kind == 2 ? ++*range_id : 0;
	bool other = kind == 2 && id % 4 == 0;
	for (int half = 0; half < 2; half++) {
		/* the end of a range ended on the other thread comes first */
		bool is_end = other ? half == 0 : half == 1;
		head_ns(us, is_end ? 500 : 0);
		raw_buf_u32(&b, is_end && other ? GEN_TID + 1 : GEN_TID);
		raw_buf_u32(&b, kind);
		raw_buf_u64(&b, id);
		raw_buf_u64(&b, 0);
		if (is_end) {
			emit(RAW_AGENT_RANGE_END);
			continue;
		}
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0);
		raw_buf_u32(&b, 0);
		str(msg);
		emit(RAW_AGENT_RANGE_START);
	}
}

static uint64_t number(const char *what, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "gen-raw: %s '%s' is not a number\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "tasks", required_argument, NULL, 't' },
						  { "ranges", no_argument, NULL, 'r' }, { 0 } };
	uint64_t tasks = 0, range_id = 0;
	bool ranges = false;
	int c;
	while ((c = getopt_long(argc, argv, "t:r", longopts, NULL)) != -1) {
		if (c == 't')
			tasks = number("--tasks", optarg);
		else if (c == 'r')
			ranges = true;
		else
			argc = 0; /* getopt said what; the usage follows */
	}
	if (argc)
		argc -= optind - 1, argv += optind - 1;
	if (argc < 3) {
		fprintf(stderr, "usage: gen-raw [--tasks N] [--ranges] DIR EVENTS [STEPS] [SLICE_MB]\n");
		return 2;
	}
	const char *dir = argv[1];
	uint64_t events = number("EVENTS", argv[2]);
	uint64_t steps = argc > 3 ? number("STEPS", argv[3]) : 1;
	uint64_t slice_mb = argc > 4 ? number("SLICE_MB", argv[4]) : 64;
	if (steps == 0 || events < steps) {
		fprintf(stderr, "gen-raw: EVENTS must be at least STEPS (>= 1)\n");
		return 2;
	}
	if (tasks > UINT32_MAX) {
		fprintf(stderr, "gen-raw: --tasks is at most %" PRIu32 " (correlation ids are 32-bit)\n", UINT32_MAX);
		return 2;
	}
	char host[4096], data[4096];
	snprintf(host, sizeof host, "%s/host", dir);
	snprintf(data, sizeof data, "%s/host/data", dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || mkdir(host, 0755) < 0 || mkdir(data, 0755) < 0)
		die(dir, errno);
	text_file(host, "info.json", "{\"hostname\":\"genhost\",\"hostUid\":\"0\",\"pid\":\"4242\","
		  "\"pid_name\":\"gen\",\"rank_id\":-1,\"cpuNums\":2,\"memoryTotal\":1000000}");
	text_file(host, "sample.json", tasks ? "{\"msproftx\":\"on\",\"task_time\":\"l1\",\"runtime_api\":\"on\"}"
					     : "{\"msproftx\":\"on\"}");
	text_file(host, "start_info", "{\"collectionTimeBegin\":\"1700000000000000\"}");

	char stem[RAW_STEM_MAX];
	raw_agent_stem(GEN_PID, stem);
	int r = raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, MONO0, REAL0, slice_mb << 20, &w);
	if (r < 0)
		die("opening the raw writer", r);
	if ((r = raw_writer_set_buffer(w, 1 << 20)) < 0)
		die("buffer", r);

	head(0);
	raw_buf_u32(&b, GEN_PID);
	raw_buf_u32(&b, 1);
	raw_buf_u32(&b, (uint32_t)-1);
	raw_buf_u32(&b, RAW_AGENT_WINDOW_START);
	str("gen");
	str("gen-raw");
	emit(RAW_AGENT_PROCESS);
	head(0);
	raw_buf_u32(&b, GEN_TID);
	str("gen");
	emit(RAW_AGENT_THREAD);
	if (ranges) {
		head(0);
		raw_buf_u32(&b, GEN_TID + 1);
		str("gen-end");
		emit(RAW_AGENT_THREAD);
	}

	uint64_t marks = events - steps, per = marks / steps, t = 1, i = 0;
	uint64_t tper = tasks / steps, ti = 0;
	uint64_t *slots = NULL;
	if (tasks && !(slots = malloc((tasks - tper * (steps - 1)) * sizeof(*slots))))
		die("slots", ENOMEM);
	for (uint64_t s = 1; s <= steps; s++) {
		uint64_t k = s == steps ? marks - per * (steps - 1) : per, t0 = t;
		uint64_t m = s == steps ? tasks - tper * (steps - 1) : tper, launched = 0;
		char msg[64];
		snprintf(msg, sizeof msg, "step %" PRIu64, s);
		head(t);
		raw_buf_u32(&b, GEN_TID);
		raw_buf_u32(&b, 1);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		raw_buf_u32(&b, 0);
		raw_buf_u32(&b, 0);
		str(msg);
		emit(RAW_AGENT_RANGE_START);
		/* k marks and m launches, one microsecond slot each, the
		 * launches spread evenly among the marks */
		for (uint64_t slot = 0; slot < k + m; slot++) {
			if (launched < m && (launched + 1) * (k + m) <= (slot + 1) * m) {
				slots[launched++] = ++t;
				continue;
			}
			put_event(i++, ++t, ranges, &range_id);
		}
		head(++t);
		raw_buf_u32(&b, GEN_TID);
		raw_buf_u32(&b, 1);
		raw_buf_u64(&b, 0);
		raw_buf_u64(&b, 0);
		emit(RAW_AGENT_RANGE_END);
		struct step_tasks st = { 0 };
		put_tasks(ti, slots, m, &st);
		ti += m;
		printf("step %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 "\n", s, k + 1, REAL0 + t0 * US, REAL0 + t * US, st.tasks, st.kernels,
		       st.kernel_ns, st.memcpys, st.memsets);
		t++;
	}
	free(slots);
	head(t);
	raw_buf_u64(&b, events);
	raw_buf_u64(&b, 0);
	raw_buf_u64(&b, 0);
	raw_buf_u64(&b, 0);
	emit(RAW_AGENT_COUNTERS);
	w = raw_writer_free(w);
	raw_buf_release(&b);

	char end[128];
	snprintf(end, sizeof end, "{\"collectionTimeEnd\":\"%" PRIu64 "\"}", (REAL0 + (t + 1) * US) / 1000);
	text_file(host, "end_info", end);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return 0;
}
