/* The NVML device backend: NVIDIA GPUs through libnvidia-ml.so.1, opened
 * with dlopen at run time (no link-time dependency), so the daemon runs on
 * machines without the driver and says why device collection is off.
 *
 * Only the few entry points below are used, declared here with the types of
 * NVML's public ABI (nvml.h, stable across driver releases for these
 * versioned names).  Every value NVML hands back is checked before use: an
 * unsupported query clears its valid bit, a name is cut at its field. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/device.h"
#include "common/util.h"

typedef int nvml_ret;
typedef void *nvml_dev;

#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1
#define NVML_VALUE_NOT_AVAILABLE UINT64_MAX
#define NVML_BUF 96

struct nvml_memory { uint64_t total, free, used; };
struct nvml_memory_v2 { unsigned version; uint64_t total, reserved, free, used; };
#define NVML_MEMORY_V2_VERSION ((unsigned)sizeof(struct nvml_memory_v2) | (2U << 24))
struct nvml_util { unsigned gpu, memory; };
struct nvml_pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};
/* nvmlProcessInfo_t of the _v2 and _v3 calls (the same layout) */
struct nvml_proc { unsigned pid; uint64_t used; unsigned gpu_instance, compute_instance; };

struct dev_backend {
	void *lib;
	unsigned n;
	nvml_dev devs[DEV_MAX_DEVICES];
	struct nvml_proc *procs;          /* DEV_MAX_PROCS entries, under procs_lock */
	pthread_mutex_t procs_lock;       /* samplers of several sessions share a backend */
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*get_count)(unsigned *);
	nvml_ret (*get_handle)(unsigned, nvml_dev *);
	nvml_ret (*get_name)(nvml_dev, char *, unsigned);
	nvml_ret (*get_uuid)(nvml_dev, char *, unsigned);
	nvml_ret (*get_pci)(nvml_dev, struct nvml_pci *);
	nvml_ret (*driver_version)(char *, unsigned);
	nvml_ret (*mem_info)(nvml_dev, struct nvml_memory *);
	nvml_ret (*mem_info_v2)(nvml_dev, struct nvml_memory_v2 *);
	nvml_ret (*util)(nvml_dev, struct nvml_util *);
	nvml_ret (*clock)(nvml_dev, int, unsigned *);
	nvml_ret (*max_clock)(nvml_dev, int, unsigned *);
	nvml_ret (*power)(nvml_dev, unsigned *);
	nvml_ret (*temp)(nvml_dev, int, unsigned *);
	nvml_ret (*pcie)(nvml_dev, int, unsigned *);
	nvml_ret (*cores)(nvml_dev, unsigned *);
	nvml_ret (*cuda_cc)(nvml_dev, int *, int *);
	nvml_ret (*procs_fn)(nvml_dev, unsigned *, struct nvml_proc *);
};

static const char *nvml_err(struct dev_backend *b, nvml_ret r)
{
	const char *s = b->error_string ? b->error_string(r) : NULL;
	return s ? s : "unknown NVML error";
}

static void nvml_close(struct dev_backend *b)
{
	if (!b)
		return;
	if (b->shutdown)
		b->shutdown();
	if (b->lib)
		dlclose(b->lib);
	free(b->procs);
	pthread_mutex_destroy(&b->procs_lock);
	free(b);
}

#define SYM(field, name) (*(void **)&b->field = dlsym(b->lib, name))

static int nvml_open(struct dev_backend **ret, char *why, size_t why_len)
{
	const char *path = getenv(DEV_NVML_LIBRARY_ENV);
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	struct dev_backend *b = calloc(1, sizeof(*b));
	if (!b || !(b->procs = calloc(DEV_MAX_PROCS, sizeof(*b->procs)))) {
		free(b);
		return -ENOMEM;
	}
	pthread_mutex_init(&b->procs_lock, NULL);
	b->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!b->lib) {
		const char *e = dlerror();
		snprintf(why, why_len, "no NVIDIA driver (%s)", e ? e : path);
		nvml_close(b);
		return -ENOENT;
	}
	SYM(init, "nvmlInit_v2");
	SYM(error_string, "nvmlErrorString");
	SYM(get_count, "nvmlDeviceGetCount_v2");
	SYM(get_handle, "nvmlDeviceGetHandleByIndex_v2");
	if (!b->init || !b->get_count || !b->get_handle) {
		snprintf(why, why_len, "'%s' is not a usable NVML library (nvmlInit_v2, "
			 "nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByIndex_v2 missing)", path);
		nvml_close(b);
		return -ENOENT;
	}
	nvml_ret r = b->init();
	if (r != NVML_SUCCESS) {
		snprintf(why, why_len, "NVML cannot start: %s", nvml_err(b, r));
		nvml_close(b);
		return -ENODEV;
	}
	SYM(shutdown, "nvmlShutdown");  /* from here on nvml_close shuts it down */
	unsigned n = 0;
	r = b->get_count(&n);
	if (r != NVML_SUCCESS || n == 0) {
		snprintf(why, why_len, "no NVIDIA GPU: %s", r != NVML_SUCCESS ? nvml_err(b, r) : "NVML lists no device");
		nvml_close(b);
		return -ENODEV;
	}
	if (n > DEV_MAX_DEVICES)
		n = DEV_MAX_DEVICES;  /* device ids above 30 have no place in msprof's timeline pids */
	for (unsigned i = 0; i < n; i++) {
		r = b->get_handle(i, &b->devs[i]);
		if (r != NVML_SUCCESS) {
			snprintf(why, why_len, "NVML cannot open GPU %u: %s", i, nvml_err(b, r));
			nvml_close(b);
			return -ENODEV;
		}
	}
	b->n = n;
	SYM(get_name, "nvmlDeviceGetName");
	SYM(get_uuid, "nvmlDeviceGetUUID");
	SYM(get_pci, "nvmlDeviceGetPciInfo_v3");
	SYM(driver_version, "nvmlSystemGetDriverVersion");
	SYM(mem_info, "nvmlDeviceGetMemoryInfo");
	SYM(mem_info_v2, "nvmlDeviceGetMemoryInfo_v2");
	SYM(util, "nvmlDeviceGetUtilizationRates");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(pcie, "nvmlDeviceGetPcieThroughput");
	SYM(cores, "nvmlDeviceGetNumGpuCores");
	SYM(cuda_cc, "nvmlDeviceGetCudaComputeCapability");
	SYM(procs_fn, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!b->procs_fn)
		SYM(procs_fn, "nvmlDeviceGetComputeRunningProcesses_v2");
	*ret = b;
	return 0;
}

static unsigned nvml_count(const struct dev_backend *b)
{
	return b->n;
}

/* A NUL-terminated copy of what NVML wrote into buf (it may not terminate
 * a string that fills the buffer). */
static void take_str(char *dst, size_t size, char *buf, size_t buf_len)
{
	buf[buf_len - 1] = '\0';
	snprintf(dst, size, "%s", buf);
}

/* NVML gives CUDA cores but no multiprocessor count for a whole GPU
 * (nvmlDeviceGetAttributes' multiprocessorCount is for MIG devices only);
 * the cores per SM are fixed by the compute capability (NVIDIA's CUDA
 * samples, helper_cuda.h _ConvertSMVer2Cores).  0: an architecture not in
 * the table, or a core count that does not divide. */
static uint32_t sm_count(uint32_t cores, int major, int minor)
{
	uint32_t per_sm;
	if (major == 3)
		per_sm = 192;                          /* Kepler */
	else if (major == 5)
		per_sm = 128;                          /* Maxwell */
	else if (major == 6 || major == 8)
		per_sm = minor == 0 ? 64 : 128;        /* GP100, GA100: 64; the rest 128 */
	else if (major == 7)
		per_sm = 64;                           /* Volta, Turing */
	else if (major >= 9 && major <= 12)
		per_sm = 128;                          /* Hopper, Blackwell */
	else
		return 0;
	return cores % per_sm == 0 ? cores / per_sm : 0;
}

static int nvml_info(struct dev_backend *b, unsigned index, struct dev_info *ret)
{
	if (index >= b->n)
		return -EINVAL;
	nvml_dev d = b->devs[index];
	struct dev_info info = { .index = index, .backend = DEV_BACKEND_NVML };
	char buf[NVML_BUF];
	unsigned v;

	if (b->get_name && b->get_name(d, buf, sizeof(buf)) == NVML_SUCCESS)
		take_str(info.name, sizeof(info.name), buf, sizeof(buf));
	if (!info.name[0])
		snprintf(info.name, sizeof(info.name), "NVIDIA GPU");
	if (b->get_uuid && b->get_uuid(d, buf, sizeof(buf)) == NVML_SUCCESS)
		take_str(info.uuid, sizeof(info.uuid), buf, sizeof(buf));
	struct nvml_pci pci;
	if (b->get_pci && b->get_pci(d, &pci) == NVML_SUCCESS)
		take_str(info.bus_id, sizeof(info.bus_id), pci.bus_id, sizeof(pci.bus_id));
	if (b->driver_version && b->driver_version(buf, sizeof(buf)) == NVML_SUCCESS)
		take_str(info.driver, sizeof(info.driver), buf, sizeof(buf));
	struct nvml_memory m;
	if (b->mem_info && b->mem_info(d, &m) == NVML_SUCCESS)
		info.mem_total = m.total;
	if (b->max_clock && b->max_clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		info.max_sm_clock_mhz = v;
	if (b->max_clock && b->max_clock(d, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
		info.max_mem_clock_mhz = v;
	if (b->cores && b->cores(d, &v) == NVML_SUCCESS)
		info.cores = v;
	int major, minor;
	if (info.cores && b->cuda_cc && b->cuda_cc(d, &major, &minor) == NVML_SUCCESS)
		info.sms = sm_count(info.cores, major, minor);
	*ret = info;
	return 0;
}

static int nvml_sample(struct dev_backend *b, unsigned index, unsigned kinds, struct dev_sample *ret,
		       struct dev_proc *procs, size_t max, size_t *ret_nprocs)
{
	if (index >= b->n)
		return -EINVAL;
	nvml_dev d = b->devs[index];
	struct dev_sample s = { 0 };
	size_t np = 0;
	unsigned v;
	bool procs_ok = false;

	if (kinds & DEV_TICK_MEM) {
		struct nvml_util u;
		if (b->util && b->util(d, &u) == NVML_SUCCESS && u.gpu <= 100 && u.memory <= 100) {
			s.util_gpu = u.gpu;
			s.util_mem = u.memory;
			s.valid |= DEV_V_UTIL_GPU | DEV_V_UTIL_MEM;
		}
		/* _v2 adds the memory the driver reserves; older drivers lack it */
		struct nvml_memory_v2 m2 = { .version = NVML_MEMORY_V2_VERSION };
		struct nvml_memory m;
		if (b->mem_info_v2 && b->mem_info_v2(d, &m2) == NVML_SUCCESS) {
			s.mem_used = m2.used;
			s.mem_free = m2.free;
			s.mem_reserved = m2.reserved;
			s.valid |= DEV_V_MEM | DEV_V_MEM_RESERVED;
		} else if (b->mem_info && b->mem_info(d, &m) == NVML_SUCCESS) {
			s.mem_used = m.used;
			s.mem_free = m.free;
			s.valid |= DEV_V_MEM;
		}
		if (b->clock && b->clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
			s.sm_clock_mhz = v;
			s.valid |= DEV_V_SM_CLOCK;
		}
		if (b->clock && b->clock(d, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) {
			s.mem_clock_mhz = v;
			s.valid |= DEV_V_MEM_CLOCK;
		}
		if (b->power && b->power(d, &v) == NVML_SUCCESS) {
			s.power_mw = v;
			s.valid |= DEV_V_POWER;
		}
		if (b->temp && b->temp(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
			s.temp_c = v;
			s.valid |= DEV_V_TEMP;
		}
		unsigned n = DEV_MAX_PROCS;
		pthread_mutex_lock(&b->procs_lock);
		if (b->procs_fn && b->procs_fn(d, &n, b->procs) == NVML_SUCCESS) {
			procs_ok = true;
			/* a count above what we offered is a broken library */
			if (n > DEV_MAX_PROCS)
				n = DEV_MAX_PROCS;
			for (unsigned i = 0; i < n && np < max; i++) {
				if (b->procs[i].used == NVML_VALUE_NOT_AVAILABLE || b->procs[i].pid == 0)
					continue;   /* no per-process figure (MIG, no permission) */
				procs[np].pid = b->procs[i].pid;
				procs[np].used = b->procs[i].used;
				np++;
			}
		}
		pthread_mutex_unlock(&b->procs_lock);
	}
	if (kinds & DEV_TICK_PCIE) {
		/* NVML measures each direction over 20 ms inside the call */
		if (b->pcie && b->pcie(d, NVML_PCIE_UTIL_TX_BYTES, &v) == NVML_SUCCESS) {
			s.pcie_tx_kbps = v;
			s.valid |= DEV_V_PCIE_TX;
		}
		if (b->pcie && b->pcie(d, NVML_PCIE_UTIL_RX_BYTES, &v) == NVML_SUCCESS) {
			s.pcie_rx_kbps = v;
			s.valid |= DEV_V_PCIE_RX;
		}
	}
	/* nothing readable (a GPU fallen off the bus, a driver reset): no
	 * sample rather than an empty one */
	if (!s.valid && !procs_ok)
		return -EIO;
	*ret = s;
	*ret_nprocs = np;
	return 0;
}

const struct dev_backend_ops dev_backend_nvml = {
	.id = DEV_BACKEND_NVML,
	.name = "nvml",
	.open = nvml_open,
	.count = nvml_count,
	.info = nvml_info,
	.sample = nvml_sample,
	.close = nvml_close,
};
