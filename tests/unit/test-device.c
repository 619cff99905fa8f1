/* The device records' codec (every malformed payload refused) and the
 * device sampler through the fake NVML (argv[1]): records read back from
 * the raw files hold the fake's values, and every slice begins with
 * RAW_DEV_INFO so it stands alone.  The device worker: its phases, a stop
 * while opening (no files), a release during a slow call (the thread ends
 * the sample and the files alone, and never notifies after); a GPU lost
 * mid-run leaves no empty samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/device.h"
#include "collectors/raw.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MIB (1024ULL * 1024ULL)

static void test_codec(void)
{
	struct raw_buf b = { 0 };
	struct dev_info in = { .index = 3, .backend = DEV_BACKEND_NVML, .mem_total = 1ULL << 40,
			       .max_sm_clock_mhz = 1980, .max_mem_clock_mhz = 2619, .cores = 16896, .sms = 132 };
	strcpy(in.name, "NVIDIA H200");
	strcpy(in.uuid, "GPU-1234");
	strcpy(in.bus_id, "00000000:19:00.0");
	strcpy(in.driver, "570.86.15");
	CHECK(dev_encode_info(&b, 42, &in) == 0);
	struct dev_info out;
	uint64_t ts;
	uint32_t idx;
	CHECK(dev_decode_info(b.data, b.len, &ts, &out) == 0);
	CHECK(ts == 42 && out.index == 3 && out.backend == DEV_BACKEND_NVML && out.mem_total == 1ULL << 40 &&
	      out.max_sm_clock_mhz == 1980 && out.max_mem_clock_mhz == 2619 && out.cores == 16896 &&
	      out.sms == 132);
	CHECK(streq(out.name, in.name) && streq(out.uuid, in.uuid) && streq(out.bus_id, in.bus_id) &&
	      streq(out.driver, in.driver));
	/* every truncation and one extra byte are damage */
	for (size_t n = 0; n < b.len; n++)
		CHECK(dev_decode_info(b.data, n, &ts, &out) == -EBADMSG);
	uint8_t *longer = calloc(1, b.len + 1);
	CHECK(longer);
	memcpy(longer, b.data, b.len);
	CHECK(dev_decode_info(longer, b.len + 1, &ts, &out) == -EBADMSG);
	free(longer);
	/* a name length past its field, a NUL inside a name, an index past 31 */
	size_t name_at = 8 + 4 + 4 + 8 + 4 * 4;
	uint8_t *p = b.data;
	p[name_at] = DEV_NAME_MAX;
	CHECK(dev_decode_info(b.data, b.len, &ts, &out) == -EBADMSG);
	p[name_at] = (uint8_t)strlen(in.name);
	p[name_at + 4 + 2] = 0;
	CHECK(dev_decode_info(b.data, b.len, &ts, &out) == -EBADMSG);
	CHECK(dev_encode_info(&b, 42, &in) == 0);
	b.data[8] = DEV_MAX_DEVICES;
	CHECK(dev_decode_info(b.data, b.len, &ts, &out) == -EBADMSG);

	struct dev_sample s = { .valid = DEV_V_UTIL_GPU | DEV_V_MEM | DEV_V_PCIE_RX, .util_gpu = 100, .util_mem = 7,
				.mem_used = 5 * MIB, .mem_free = 6 * MIB, .mem_reserved = 7 * MIB, .sm_clock_mhz = 1,
				.mem_clock_mhz = 2, .power_mw = 3, .temp_c = 4, .pcie_tx_kbps = 5, .pcie_rx_kbps = 6 };
	struct dev_sample s2;
	CHECK(dev_encode_sample(&b, 7, 2, &s) == 0);
	CHECK(dev_decode_sample(b.data, b.len, &ts, &idx, &s2) == 0);
	CHECK(ts == 7 && idx == 2 && s2.valid == s.valid && s2.util_gpu == 100 && s2.util_mem == 7 &&
	      s2.mem_used == 5 * MIB && s2.mem_free == 6 * MIB && s2.mem_reserved == 7 * MIB && s2.sm_clock_mhz == 1 &&
	      s2.mem_clock_mhz == 2 && s2.power_mw == 3 && s2.temp_c == 4 && s2.pcie_tx_kbps == 5 &&
	      s2.pcie_rx_kbps == 6);
	CHECK(dev_decode_sample(b.data, b.len - 1, &ts, &idx, &s2) == -EBADMSG);
	s.util_gpu = 101;   /* a percentage above 100 */
	CHECK(dev_encode_sample(&b, 7, 2, &s) == 0);
	CHECK(dev_decode_sample(b.data, b.len, &ts, &idx, &s2) == -EBADMSG);
	s.util_gpu = 1;
	s.valid |= 1U << 20; /* a bit nobody defined */
	CHECK(dev_encode_sample(&b, 7, 2, &s) == 0);
	CHECK(dev_decode_sample(b.data, b.len, &ts, &idx, &s2) == -EBADMSG);

	struct dev_proc v[3] = { { 10, 1 }, { 11, 2 }, { 12, UINT64_MAX } }, *w = NULL;
	size_t n;
	CHECK(dev_encode_procs(&b, 9, 1, v, 3) == 0);
	CHECK(dev_decode_procs(b.data, b.len, &ts, &idx, &w, &n) == 0);
	CHECK(ts == 9 && idx == 1 && n == 3 && w);
	for (size_t i = 0; i < 3; i++)
		CHECK(w[i].pid == v[i].pid && w[i].used == v[i].used);
	free(w);
	CHECK(dev_decode_procs(b.data, b.len - 1, &ts, &idx, &w, &n) == -EBADMSG);
	b.data[12] = 4;     /* a count the payload does not hold */
	CHECK(dev_decode_procs(b.data, b.len, &ts, &idx, &w, &n) == -EBADMSG);
	CHECK(dev_encode_procs(&b, 9, 1, NULL, 0) == 0);
	CHECK(dev_decode_procs(b.data, b.len, &ts, &idx, &w, &n) == 0 && n == 0 && !w);
	raw_buf_release(&b);
}

static void test_sampler(const char *fake, const char *tmp)
{
	char why[256];
	struct dev_sampler *s = NULL;

	/* no library: off, with the reason */
	setenv(DEV_NVML_LIBRARY_ENV, "/nonexistent/libnvidia-ml.so.1", 1);
	struct dev_sampler_config cfg = { .prof_dir = tmp, .app_pid = 77, .mono0_ns = mono_ns(),
					  .real0_ns = real_ns(), .slice_bytes = 4096 };
	CHECK(dev_sampler_new(&cfg, &s, why, sizeof(why)) == -ENOENT && !s);
	CHECK(strstr(why, "no NVIDIA driver") != NULL);
	setenv(DEV_NVML_LIBRARY_ENV, fake, 1);
	setenv("FAKE_NVML_INIT_ERROR", "9", 1);
	CHECK(dev_sampler_new(&cfg, &s, why, sizeof(why)) == -ENODEV && !s);
	CHECK(streq(why, "NVML cannot start: Driver Not Loaded"));
	unsetenv("FAKE_NVML_INIT_ERROR");

	/* ai_core_num: the SMs, from the CUDA cores and the compute
	 * capability (fake-nvml.c fake_arch); 0 for an unknown architecture */
	setenv("FAKE_NVML_DEVICES", "5", 1);
	CHECK(dev_sampler_open(&s, why, sizeof(why)) == 0 && dev_sampler_count(s) == 5);
	static const uint32_t cores[] = { 16896, 6912, 10496, 5120, 12800 }, sms[] = { 132, 108, 82, 80, 0 };
	for (unsigned i = 0; i < 5; i++)
		CHECK(dev_sampler_info(s, i)->cores == cores[i] && dev_sampler_info(s, i)->sms == sms[i]);
	s = dev_sampler_free(s);

	setenv("FAKE_NVML_DEVICES", "2", 1);
	CHECK(dev_sampler_new(&cfg, &s, why, sizeof(why)) == 0 && s);
	CHECK(dev_sampler_count(s) == 2 && streq(dev_sampler_backend(s), "nvml"));
	CHECK(streq(dev_sampler_info(s, 1)->name, "NVIDIA FakeGPU-1"));
	/* enough samples for several 4 KiB slices */
	const unsigned ticks = 200;
	for (unsigned k = 0; k < ticks; k++)
		CHECK(dev_sampler_tick(s, DEV_TICK_MEM, NULL) == 0);
	CHECK(dev_sampler_finish(s, 0) == 0);
	s = dev_sampler_free(s);

	for (unsigned i = 0; i < 2; i++) {
		char *dir;
		CHECK(asprintf(&dir, "%s/device_%u/data", tmp, i) > 0);
		char **paths = NULL;
		CHECK(raw_list_slices(dir, RAW_SOURCE_DEVICE, &paths) > 3);
		unsigned slices = 0, k = 0, procs = 0;
		for (char **p = paths; *p; p++, slices++) {
			struct raw_reader *r;
			CHECK(raw_reader_open(*p, &r) == 0);
			struct raw_record rec;
			bool first = true;
			while (raw_reader_next(r, &rec) == 1) {
				uint64_t ts;
				uint32_t idx;
				if (first) {
					struct dev_info d;
					CHECK(rec.type == RAW_DEV_INFO);
					CHECK(dev_decode_info(rec.payload, rec.len, &ts, &d) == 0 && d.index == i);
					first = false;
				} else if (rec.type == RAW_DEV_SAMPLE) {
					struct dev_sample smp;
					CHECK(dev_decode_sample(rec.payload, rec.len, &ts, &idx, &smp) == 0 && idx == i);
					CHECK(smp.mem_used == (1000 + 100 * i + k) * MIB);
					CHECK(smp.sm_clock_mhz == 1000 + 10 * k + i);
					k++;
				} else if (rec.type == RAW_DEV_PROCS) {
					struct dev_proc *v;
					size_t n;
					CHECK(dev_decode_procs(rec.payload, rec.len, &ts, &idx, &v, &n) == 0);
					CHECK(n == 1 && v[0].pid == 1 && v[0].used == 7 * MIB);
					free(v);
					procs++;
				} else {
					CHECK(rec.type == RAW_SESSION_END);
				}
			}
			CHECK(raw_reader_stats(r)->bad_records == 0);
			raw_reader_free(r);
		}
		CHECK(slices > 3);
		CHECK(k == ticks && procs == ticks);
		raw_paths_free(paths);
		free(dir);
	}
}

static atomic_uint notified;

static void count_notify(void *arg)
{
	(void)arg;
	atomic_fetch_add(&notified, 1);
}

/* Poll until w leaves `from` (at most 10 s); its state. */
static struct dev_worker_state wait_phase(struct dev_worker *w, enum dev_worker_phase from)
{
	struct dev_worker_state st;
	for (int i = 0; i < 10000; i++) {
		dev_worker_get(w, &st);
		if (st.phase != from)
			return st;
		usleep(1000);
	}
	CHECK(!"the worker did not move on");
	return st;
}

static void test_worker(const char *fake, const char *tmp)
{
	struct dev_worker *w = NULL;
	struct dev_worker_config cfg = {
		.sampler = { .prof_dir = tmp, .app_pid = 77, .mono0_ns = mono_ns(), .real0_ns = real_ns() },
		.mem_period_ns = 10 * NSEC_PER_MSEC,
		.notify = count_notify,
	};
	setenv(DEV_NVML_LIBRARY_ENV, fake, 1);
	setenv("FAKE_NVML_DEVICES", "1", 1);

	/* stopped while nvmlInit runs: OFF, and no device_0 made */
	setenv("FAKE_NVML_INIT_DELAY_MS", "200", 1);
	CHECK(dev_worker_new(&cfg, &w) == 0);
	dev_worker_stop(w, 0);
	struct dev_worker_state st = wait_phase(w, DEV_WORKER_OPENING);
	CHECK(st.phase == DEV_WORKER_OFF && st.error == -ECANCELED && !dev_worker_sampler(w));
	char *dir;
	CHECK(asprintf(&dir, "%s/device_0", tmp) > 0);
	CHECK(access(dir, F_OK) < 0);
	w = dev_worker_release(w);
	unsetenv("FAKE_NVML_INIT_DELAY_MS");

	/* running, then stopped: DONE, the files complete */
	atomic_store(&notified, 0);
	cfg.sampler.mono0_ns = mono_ns();
	CHECK(dev_worker_new(&cfg, &w) == 0);
	st = wait_phase(w, DEV_WORKER_OPENING);
	CHECK(st.phase == DEV_WORKER_RUNNING && dev_sampler_count(dev_worker_sampler(w)) == 1);
	usleep(100 * 1000);
	dev_worker_stop(w, 0);
	st = wait_phase(w, DEV_WORKER_RUNNING);
	CHECK(st.phase == DEV_WORKER_DONE && st.error == 0 && st.stopped && st.records >= 3 && st.bytes > 0);
	CHECK(atomic_load(&notified) == 2);
	w = dev_worker_release(w);

	/* released while a PCIe call takes 1 s: release returns at once, the
	 * thread ends the sample (both directions) and the files alone */
	setenv("FAKE_NVML_PCIE_DELAY_MS", "1000", 1);
	rm_rf(dir);
	cfg.mem_period_ns = 0;
	cfg.pcie_period_ns = 100 * NSEC_PER_MSEC;
	cfg.sampler.mono0_ns = mono_ns();
	CHECK(dev_worker_new(&cfg, &w) == 0);
	st = wait_phase(w, DEV_WORKER_OPENING);
	CHECK(st.phase == DEV_WORKER_RUNNING);
	usleep(100 * 1000);                    /* inside the first call */
	unsigned before = atomic_load(&notified);
	w = dev_worker_release(w);
	CHECK(dev_workers_wait(0) == 1);       /* still in the call */
	CHECK(dev_workers_wait(10000) == 0);
	CHECK(atomic_load(&notified) == before);
	unsetenv("FAKE_NVML_PCIE_DELAY_MS");
	char *data, *end;
	CHECK(asprintf(&data, "%s/data/device.data.slice_0", dir) > 0);
	CHECK(asprintf(&end, "%s/end_info.0", dir) > 0);
	CHECK(access(end, F_OK) == 0);
	struct raw_reader *r;
	struct raw_record rec;
	CHECK(raw_reader_open(data, &r) == 0);
	unsigned types[8], n = 0;
	while (n < 8 && raw_reader_next(r, &rec) == 1) {
		types[n++] = rec.type;
		uint64_t ts;
		uint32_t idx;
		struct dev_sample smp;
		if (rec.type == RAW_DEV_SAMPLE) {
			CHECK(dev_decode_sample(rec.payload, rec.len, &ts, &idx, &smp) == 0);
			CHECK(smp.valid == (DEV_V_PCIE_TX | DEV_V_PCIE_RX) && smp.pcie_tx_kbps == 1000 &&
			      smp.pcie_rx_kbps == 2000);
		}
	}
	CHECK(raw_reader_stats(r)->bad_records == 0);
	raw_reader_free(r);
	CHECK(n == 3 && types[0] == RAW_DEV_INFO && types[1] == RAW_DEV_SAMPLE && types[2] == RAW_SESSION_END);
	free(data);
	free(end);
	free(dir);

	/* a GPU lost after 3 samples: no sample (and no process list) from
	 * then on, rather than empty ones; ticks go on without error */
	setenv("FAKE_NVML_LOST_AFTER", "3", 1);
	struct dev_sampler *ds = NULL;
	char why[256];
	CHECK(dev_sampler_new(&cfg.sampler, &ds, why, sizeof(why)) == 0);
	for (int k = 0; k < 6; k++)
		CHECK(dev_sampler_tick(ds, DEV_TICK_MEM | DEV_TICK_PCIE, NULL) == 0);
	CHECK(dev_sampler_records(ds) == 1 + 3 * 2);   /* RAW_DEV_INFO, then SAMPLE + PROCS a tick */
	CHECK(dev_sampler_finish(ds, 0) == 0);
	ds = dev_sampler_free(ds);
	unsetenv("FAKE_NVML_LOST_AFTER");
}

/* Probe done (test_probe): the notify calls. */
static atomic_uint probe_notified;

static void probe_notify(void *arg)
{
	(void)arg;
	atomic_fetch_add(&probe_notified, 1);
}

static enum dev_probe_phase wait_probe(struct dev_probe *p)
{
	enum dev_probe_phase phase = DEV_PROBE_RUNNING;
	for (int i = 0; i < 10000 && (phase = dev_probe_get(p, NULL, 0)) == DEV_PROBE_RUNNING; i++)
		usleep(1000);
	return phase;
}

/* Lines of the fake NVML's trace that begin with call. */
static unsigned trace_count(const char *path, const char *call)
{
	FILE *f = fopen(path, "re");
	char line[256];
	unsigned n = 0;
	while (f && fgets(line, sizeof(line), f))
		n += strncmp(line, call, strlen(call)) == 0 && line[strlen(call)] == ' ';
	if (f)
		fclose(f);
	return n;
}

static void test_probe(const char *fake, const char *tmp)
{
	char why[256];
	struct dev_probe *p = NULL;

	/* no library: NONE with msprof's reason, told once */
	setenv(DEV_NVML_LIBRARY_ENV, "/nonexistent/libnvidia-ml.so.1", 1);
	atomic_store(&probe_notified, 0);
	CHECK(dev_probe_new(probe_notify, NULL, &p) == 0);
	CHECK(wait_probe(p) == DEV_PROBE_NONE);
	CHECK(dev_probe_get(p, why, sizeof(why)) == DEV_PROBE_NONE && strstr(why, "no NVIDIA driver"));
	CHECK(!dev_probe_sampler(p) && atomic_load(&probe_notified) == 1);
	p = dev_probe_release(p);

	/* two GPUs: found once; two workers borrow the backend at once and
	 * make no driver init of their own */
	char *trace;
	CHECK(asprintf(&trace, "%s/trace", tmp) > 0);
	setenv(DEV_NVML_LIBRARY_ENV, fake, 1);
	setenv("FAKE_NVML_DEVICES", "2", 1);
	setenv("FAKE_NVML_TRACE", trace, 1);
	atomic_store(&probe_notified, 0);
	CHECK(dev_probe_new(probe_notify, NULL, &p) == 0);
	CHECK(wait_probe(p) == DEV_PROBE_FOUND && atomic_load(&probe_notified) == 1);
	CHECK(dev_sampler_count(dev_probe_sampler(p)) == 2);
	CHECK(streq(dev_sampler_info(dev_probe_sampler(p), 1)->name, "NVIDIA FakeGPU-1"));

	char *dirs[3];
	struct dev_worker *w[3];
	for (int i = 0; i < 3; i++) {
		CHECK(asprintf(&dirs[i], "%s/w%d", tmp, i) > 0 && mkdir(dirs[i], 0750) == 0);
		struct dev_worker_config cfg = {
			.sampler = { .prof_dir = dirs[i], .app_pid = 77, .mono0_ns = mono_ns(), .real0_ns = real_ns() },
			.mem_period_ns = 5 * NSEC_PER_MSEC,
			.probe = p,
		};
		CHECK(dev_worker_new(&cfg, &w[i]) == 0);
		/* the devices are known before the thread opens anything */
		CHECK(dev_sampler_count(dev_worker_sampler(w[i])) == 2);
	}
	/* the third is stopped at once: it still makes its files, then ends */
	dev_worker_stop(w[2], 0);
	/* the owner lets go of the probe while workers borrow it */
	p = dev_probe_release(p);
	/* the first two sample: running, for 40 of their periods (a loaded
	 * machine may hold a thread back for tens of ms) */
	for (int i = 0; i < 2; i++)
		CHECK(wait_phase(w[i], DEV_WORKER_OPENING).phase == DEV_WORKER_RUNNING);
	usleep(200 * 1000);
	for (int i = 0; i < 3; i++) {
		dev_worker_stop(w[i], 0);
		struct dev_worker_state st = wait_phase(w[i], DEV_WORKER_OPENING);
		if (st.phase == DEV_WORKER_RUNNING)
			st = wait_phase(w[i], DEV_WORKER_RUNNING);
		CHECK(st.phase == DEV_WORKER_DONE && st.error == 0 && st.stopped);
		/* RAW_DEV_INFO and RAW_SESSION_END per device, and samples but in the third */
		CHECK(i == 2 ? st.records >= 4 : st.records > 4);
		for (int d = 0; d < 2; d++) {
			char *f;
			CHECK(asprintf(&f, "%s/device_%d/info.json.%d", dirs[i], d, d) > 0);
			CHECK(access(f, F_OK) == 0);
			free(f);
			CHECK(asprintf(&f, "%s/device_%d/end_info.%d", dirs[i], d, d) > 0);
			CHECK(access(f, F_OK) == 0);
			free(f);
		}
		w[i] = dev_worker_release(w[i]);   /* the last one closes the backend */
		free(dirs[i]);
	}
	CHECK(trace_count(trace, "init") == 1);
	unsetenv("FAKE_NVML_TRACE");
	free(trace);
}

int main(int argc, char **argv)
{
	test_codec();
	if (argc > 1) {
		char tmpl[] = "/tmp/test-device.XXXXXX";
		CHECK(mkdtemp(tmpl));
		test_sampler(argv[1], tmpl);
		rm_rf(tmpl);
		char tmpl2[] = "/tmp/test-device.XXXXXX";
		CHECK(mkdtemp(tmpl2));
		test_worker(argv[1], tmpl2);
		rm_rf(tmpl2);
		char tmpl3[] = "/tmp/test-device.XXXXXX";
		CHECK(mkdtemp(tmpl3));
		test_probe(argv[1], tmpl3);
		rm_rf(tmpl3);
	}
	return 0;
}
