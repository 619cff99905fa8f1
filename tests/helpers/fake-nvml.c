/* A fake NVML (libnvidia-ml) for the tests: the nvml* entry points msprofd
 * uses, with values scripted from the environment, loaded through the
 * daemon's real dlopen path (MSPROF_NVML_LIBRARY).
 *
 * Sample k of device i (k counts nvmlDeviceGetMemoryInfo_v2 calls on that
 * device, from 0) reads, so that a test can compute every value the export
 * must show (tests/integration/device-nvml.sh mirrors these formulas):
 *   name          "NVIDIA FakeGPU-<i>"         uuid "GPU-fake-<i>"
 *   total         80 GiB                      reserved (512 + i) MiB
 *   used          (1000 + 100 i + k) MiB       free = total - used - reserved
 *   utilisation   gpu (10 i + k) % 101, memory (5 + k) % 101
 *   clocks        SM 1000 + 10 k + i, memory 2619 + i; max SM 1980, max mem 2619
 *   power         100000 + 1000 k mW           temperature 40 + i + k % 10 C
 *   PCIe          tx 1000 (i + 1) + p, rx 2000 (i + 1) + p KB/s (p: the
 *                 device's PCIe call pair count)
 *   processes     the pid in the file FAKE_NVML_PIDFILE (when it holds
 *                 one) using (200 + k) MiB, and pid 1 using 7 MiB
 *   architecture  from fake_arch[i % 5]: compute capability and SMs of an
 *                 H100 (9.0, 132), A100 (8.0, 108), RTX 3090 (8.6, 82),
 *                 V100 (7.0, 80), and a future 13.0 with 100; CUDA cores
 *                 = SMs x cores per SM of that capability (the future one:
 *                 12800, whose SM count msprofd cannot know)
 * Environment:
 *   FAKE_NVML_DEVICES     device count (default 1, at most 8)
 *   FAKE_NVML_INIT_ERROR  nvmlInit_v2 fails with this code (9: driver not loaded)
 *   FAKE_NVML_PIDFILE     see processes
 *   FAKE_NVML_INIT_DELAY_MS  nvmlInit_v2 takes this long (a driver without
 *                         persistence mode takes seconds)
 *   FAKE_NVML_PCIE_DELAY_MS  each nvmlDeviceGetPcieThroughput call takes this
 *                         long (NVML measures 20 ms inside the call)
 *   FAKE_NVML_LOST_AFTER  from sample k = this on, every call about a device
 *                         fails with 15 (NVML_ERROR_GPU_IS_LOST), as when a
 *                         GPU falls off the bus mid-run
 *   FAKE_NVML_TRACE       a file to which every init and PCIe call appends
 *                         "<call> <i> <counter> <begin> <end>" (CLOCK_REALTIME ns;
 *                         init: i and counter -1), so a test knows when a
 *                         slow call was in progress */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEV 8
#define MIB (1024ULL * 1024ULL)

struct fake_dev { int index; };
static struct fake_dev devs[MAX_DEV];
static unsigned n_devs;
static unsigned mem_calls[MAX_DEV], pcie_calls[MAX_DEV];

struct nvml_memory { uint64_t total, free, used; };
struct nvml_memory_v2 { unsigned version; uint64_t total, reserved, free, used; };
struct nvml_util { unsigned gpu, memory; };
struct nvml_pci { char bus_id_legacy[16]; unsigned domain, bus, device, pci_device_id, pci_subsystem_id; char bus_id[32]; };
struct nvml_proc { unsigned pid; uint64_t used; unsigned gpu_instance, compute_instance; };

/* exported with the names and signatures of NVML; prototypes here keep
 * the project's -Wmissing-prototypes quiet */
int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int r);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d);
int nvmlDeviceGetName(void *d, char *buf, unsigned len);
int nvmlDeviceGetUUID(void *d, char *buf, unsigned len);
int nvmlDeviceGetPciInfo_v3(void *d, struct nvml_pci *p);
int nvmlSystemGetDriverVersion(char *buf, unsigned len);
int nvmlDeviceGetMemoryInfo(void *d, struct nvml_memory *m);
int nvmlDeviceGetMemoryInfo_v2(void *d, struct nvml_memory_v2 *m);
int nvmlDeviceGetUtilizationRates(void *d, struct nvml_util *u);
int nvmlDeviceGetClockInfo(void *d, int type, unsigned *v);
int nvmlDeviceGetMaxClockInfo(void *d, int type, unsigned *v);
int nvmlDeviceGetPowerUsage(void *d, unsigned *v);
int nvmlDeviceGetTemperature(void *d, int sensor, unsigned *v);
int nvmlDeviceGetPcieThroughput(void *d, int counter, unsigned *v);
int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *n, struct nvml_proc *v);
int nvmlDeviceGetNumGpuCores(void *d, unsigned *v);
int nvmlDeviceGetCudaComputeCapability(void *d, int *major, int *minor);

static const struct { int major, minor; unsigned sms, cores; } fake_arch[] = {
	{ 9, 0, 132, 132 * 128 }, { 8, 0, 108, 108 * 64 }, { 8, 6, 82, 82 * 128 },
	{ 7, 0, 80, 80 * 64 }, { 13, 0, 100, 12800 },
};

static uint64_t real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The scripted delay of a call (the value of env, in ms). */
static void delay(const char *env)
{
	const char *e = getenv(env);
	long ms = e && *e ? atol(e) : 0;
	if (ms > 0) {
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) < 0)
			;
	}
}

/* One line per traced call, written at once (O_APPEND) so lines from
 * several threads never mix. */
static void trace(const char *call, int i, int counter, uint64_t begin)
{
	const char *path = getenv("FAKE_NVML_TRACE");
	if (!path || !*path)
		return;
	char line[160];
	int n = snprintf(line, sizeof(line), "%s %d %d %llu %llu\n", call, i, counter,
			 (unsigned long long)begin, (unsigned long long)real_now());
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n) {
			/* a test that reads the trace notices the missing line */
		}
		close(fd);
	}
}

static int idx(void *d)
{
	struct fake_dev *f = d;
	return f && f >= devs && f < devs + n_devs ? f->index : -1;
}

/* FAKE_NVML_LOST_AFTER: device i is gone from sample k on.  The calls of
 * a sample up to its nvmlDeviceGetMemoryInfo_v2 (which counts it) ask
 * lost(); those after it ask gone[i], which the first lost() call of sample
 * k sets, so sample k-1 is whole and sample k has nothing. */
static unsigned gone[MAX_DEV];

static int lost(void *d)
{
	const char *e = getenv("FAKE_NVML_LOST_AFTER");
	int i = idx(d);
	if (e && *e && i >= 0 && mem_calls[i] >= (unsigned)atoi(e))
		gone[i] = 1;
	return i >= 0 && gone[i];
}

static int lost_later(void *d)
{
	int i = idx(d);
	return i >= 0 && gone[i];
}

int nvmlInit_v2(void)
{
	uint64_t begin = real_now();
	delay("FAKE_NVML_INIT_DELAY_MS");
	trace("init", -1, -1, begin);
	const char *e = getenv("FAKE_NVML_INIT_ERROR");
	if (e && *e)
		return atoi(e);
	const char *n = getenv("FAKE_NVML_DEVICES");
	n_devs = n && *n ? (unsigned)atoi(n) : 1;
	if (n_devs > MAX_DEV)
		n_devs = MAX_DEV;
	for (unsigned i = 0; i < n_devs; i++)
		devs[i].index = (int)i;
	return 0;
}

int nvmlShutdown(void) { return 0; }

const char *nvmlErrorString(int r)
{
	return r == 9 ? "Driver Not Loaded" : "Unknown Error";
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = n_devs;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d)
{
	if (i >= n_devs)
		return 2;
	*d = &devs[i];
	return 0;
}

int nvmlDeviceGetName(void *d, char *buf, unsigned len)
{
	snprintf(buf, len, "NVIDIA FakeGPU-%d", idx(d));
	return 0;
}

int nvmlDeviceGetUUID(void *d, char *buf, unsigned len)
{
	snprintf(buf, len, "GPU-fake-%d", idx(d));
	return 0;
}

int nvmlDeviceGetPciInfo_v3(void *d, struct nvml_pci *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", 0x10 + idx(d));
	return 0;
}

int nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	snprintf(buf, len, "999.99");
	return 0;
}

int nvmlDeviceGetMemoryInfo(void *d, struct nvml_memory *m)
{
	if (lost(d))
		return 15;
	m->total = 80ULL * 1024 * MIB;
	m->used = 0;
	m->free = m->total;
	return idx(d) < 0 ? 2 : 0;
}

int nvmlDeviceGetMemoryInfo_v2(void *d, struct nvml_memory_v2 *m)
{
	int i = idx(d);
	if (i < 0)
		return 2;
	if (lost(d))
		return 15;
	unsigned k = mem_calls[i]++;
	m->total = 80ULL * 1024 * MIB;
	m->reserved = (512ULL + (unsigned)i) * MIB;
	m->used = (1000ULL + 100ULL * (unsigned)i + k) * MIB;
	m->free = m->total - m->used - m->reserved;
	return 0;
}

/* the current sample number of device i (the _v2 call comes first in a
 * sample, after the utilisation: both read the same k) */
static unsigned cur(int i, int ahead)
{
	return mem_calls[i] + (unsigned)ahead - 1;
}

int nvmlDeviceGetUtilizationRates(void *d, struct nvml_util *u)
{
	if (lost(d))
		return 15;
	int i = idx(d);
	unsigned k = cur(i, 1);  /* called before the memory of the same sample */
	u->gpu = (10U * (unsigned)i + k) % 101;
	u->memory = (5U + k) % 101;
	return 0;
}

int nvmlDeviceGetClockInfo(void *d, int type, unsigned *v)
{
	if (lost_later(d))
		return 15;
	int i = idx(d);
	unsigned k = cur(i, 0);
	*v = type == 1 ? 1000U + 10U * k + (unsigned)i : 2619U + (unsigned)i;
	return type == 1 || type == 2 ? 0 : 3;
}

int nvmlDeviceGetMaxClockInfo(void *d, int type, unsigned *v)
{
	*v = type == 1 ? 1980 : 2619;
	return 0;
}

int nvmlDeviceGetPowerUsage(void *d, unsigned *v)
{
	if (lost_later(d))
		return 15;
	*v = 100000U + 1000U * cur(idx(d), 0);
	return 0;
}

int nvmlDeviceGetTemperature(void *d, int sensor, unsigned *v)
{
	if (lost_later(d))
		return 15;
	int i = idx(d);
	*v = 40U + (unsigned)i + cur(i, 0) % 10;
	return 0;
}

int nvmlDeviceGetPcieThroughput(void *d, int counter, unsigned *v)
{
	if (lost(d))
		return 15;
	int i = idx(d);
	uint64_t begin = real_now();
	delay("FAKE_NVML_PCIE_DELAY_MS");
	unsigned p = pcie_calls[i];
	if (counter == 1)
		pcie_calls[i]++;
	*v = (counter == 0 ? 1000U : 2000U) * ((unsigned)i + 1) + p;
	trace("pcie", i, counter, begin);
	return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *n, struct nvml_proc *v)
{
	if (lost_later(d))
		return 15;
	int i = idx(d);
	unsigned k = cur(i, 0), have = 0, cap = *n;
	const char *path = getenv("FAKE_NVML_PIDFILE");
	FILE *f = path && *path ? fopen(path, "re") : NULL;
	unsigned pid = 0;
	if (f) {
		if (fscanf(f, "%u", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid && have < cap)
		v[have++] = (struct nvml_proc){ .pid = pid, .used = (200ULL + k) * MIB };
	if (have < cap)
		v[have++] = (struct nvml_proc){ .pid = 1, .used = 7ULL * MIB };
	*n = have;
	return 0;
}

int nvmlDeviceGetNumGpuCores(void *d, unsigned *v)
{
	int i = idx(d);
	if (i < 0)
		return 2;
	*v = fake_arch[i % 5].cores;
	return 0;
}

int nvmlDeviceGetCudaComputeCapability(void *d, int *major, int *minor)
{
	int i = idx(d);
	if (i < 0)
		return 2;
	*major = fake_arch[i % 5].major;
	*minor = fake_arch[i % 5].minor;
	return 0;
}
