/* Device collection: accelerators sampled by the daemon, one backend per
 * vendor behind one small interface, and the sampler that writes their
 * samples as raw records (raw.h, RAW_SOURCE_DEVICE) into
 * PROF_x/device_<N>/data, with device_<N>/info.json.<N>, start_info.<N>
 * and end_info.<N> beside it (reference §2.2, §9).
 *
 * A backend is found at run time (NVML: dlopen of libnvidia-ml.so.1), so
 * one binary runs on machines with and without the vendor's driver; adding
 * one (Ascend: DSMI) is a new file and a line in device_backends[], and
 * nothing outside collectors/ changes.  No event loop here: the daemon
 * owns the timers and calls dev_sampler_tick(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "raw.h"

#define DEV_MAX_DEVICES 32          /* device ids 0..30 fit msprof's pid packing; 31 is the host */
#define DEV_NAME_MAX 96
#define DEV_MAX_PROCS 1024          /* processes listed per device per sample */

/* What a sample holds; a backend sets the bit of each value it could read
 * (an older driver or a device without the sensor leaves it clear, and
 * the export writes NULL / leaves the counter out). */
enum dev_valid {
	DEV_V_UTIL_GPU = 1 << 0,
	DEV_V_UTIL_MEM = 1 << 1,
	DEV_V_MEM = 1 << 2,          /* used and free */
	DEV_V_MEM_RESERVED = 1 << 3,
	DEV_V_SM_CLOCK = 1 << 4,
	DEV_V_MEM_CLOCK = 1 << 5,
	DEV_V_POWER = 1 << 6,
	DEV_V_TEMP = 1 << 7,
	DEV_V_PCIE_TX = 1 << 8,
	DEV_V_PCIE_RX = 1 << 9,
};

struct dev_info {
	uint32_t index;
	uint32_t backend;            /* enum dev_backend_id */
	char name[DEV_NAME_MAX];     /* "NVIDIA H200" */
	char uuid[DEV_NAME_MAX];
	char bus_id[DEV_NAME_MAX];
	char driver[DEV_NAME_MAX];   /* driver version */
	uint64_t mem_total;          /* bytes */
	uint32_t max_sm_clock_mhz;   /* 0: unknown */
	uint32_t max_mem_clock_mhz;
	uint32_t cores;              /* compute cores (CUDA cores), 0: unknown */
};

struct dev_sample {
	uint32_t valid;              /* enum dev_valid */
	uint32_t util_gpu, util_mem; /* percent, over the driver's last period */
	uint64_t mem_used, mem_free, mem_reserved; /* bytes */
	uint32_t sm_clock_mhz, mem_clock_mhz;
	uint32_t power_mw;
	uint32_t temp_c;
	uint32_t pcie_tx_kbps, pcie_rx_kbps; /* KB/s */
};

struct dev_proc { uint32_t pid; uint64_t used; }; /* bytes of device memory */

enum dev_backend_id { DEV_BACKEND_NVML = 1 };

/* What each tick reads: DEV_TICK_MEM (--sys-hardware-mem: utilisation,
 * memory, clocks, power, temperature, per-process memory) and
 * DEV_TICK_PCIE (--sys-interconnection-profiling). */
enum dev_tick_kind { DEV_TICK_MEM = 1, DEV_TICK_PCIE = 2 };

struct dev_backend;
struct dev_backend_ops {
	enum dev_backend_id id;
	const char *name;            /* "nvml" */
	/* Load the library and find the devices.  -ENOENT/-ENODEV with why
	 * filled when there is no driver or no device: collection is off. */
	int (*open)(struct dev_backend **ret, char *why, size_t why_len);
	unsigned (*count)(const struct dev_backend *b);
	int (*info)(struct dev_backend *b, unsigned index, struct dev_info *ret);
	/* Fill what `kinds` asks for; procs gets at most max entries and
	 * *ret_nprocs their count (DEV_TICK_MEM only). */
	int (*sample)(struct dev_backend *b, unsigned index, unsigned kinds, struct dev_sample *ret,
		      struct dev_proc *procs, size_t max, size_t *ret_nprocs);
	void (*close)(struct dev_backend *b);
};

/* The backends, tried in order; NULL-terminated. */
extern const struct dev_backend_ops *const device_backends[];
extern const struct dev_backend_ops dev_backend_nvml;

/* The environment variable naming the NVML library to load instead of
 * libnvidia-ml.so.1 (for tests: a fake NVML with scripted values). */
#define DEV_NVML_LIBRARY_ENV "MSPROF_NVML_LIBRARY"

struct dev_sampler_config {
	const char *prof_dir;        /* PROF_x, must exist; device_<N>/data are made */
	uint32_t app_pid;            /* "pid" of info.json.<N> */
	uint64_t mono0_ns, real0_ns; /* session clocks */
	uint64_t slice_bytes;        /* 0: RAW_DEFAULT_SLICE_BYTES */
};

struct dev_sampler;

/* Open the first backend that finds devices, make device_<N>/data and the
 * info and start files.  -ENODEV/-ENOENT: no devices (why says why; not an
 * error for the session, which goes on without device data). */
int dev_sampler_new(const struct dev_sampler_config *cfg, struct dev_sampler **ret, char *why, size_t why_len);
unsigned dev_sampler_count(const struct dev_sampler *s);
const struct dev_info *dev_sampler_info(const struct dev_sampler *s, unsigned i);
const char *dev_sampler_backend(const struct dev_sampler *s);
/* One sample of every device now; -errno when a write failed. */
int dev_sampler_tick(struct dev_sampler *s, unsigned kinds);
uint64_t dev_sampler_records(const struct dev_sampler *s);
uint64_t dev_sampler_bytes(const struct dev_sampler *s);   /* raw bytes, all devices */
/* RAW_SESSION_END, end_info.<N>, close. */
int dev_sampler_finish(struct dev_sampler *s, uint32_t reason);
struct dev_sampler *dev_sampler_free(struct dev_sampler *s);

/* Encode / decode the device records (raw.h) -- shared by the sampler, the
 * parser and the tests.  Decoders return -EBADMSG for a short or malformed
 * payload; strings longer than their field are refused. */
int dev_encode_info(struct raw_buf *b, uint64_t ts, const struct dev_info *d);
int dev_decode_info(const uint8_t *p, size_t len, uint64_t *ret_ts, struct dev_info *ret);
int dev_encode_sample(struct raw_buf *b, uint64_t ts, uint32_t index, const struct dev_sample *s);
int dev_decode_sample(const uint8_t *p, size_t len, uint64_t *ret_ts, uint32_t *ret_index,
		      struct dev_sample *ret);
int dev_encode_procs(struct raw_buf *b, uint64_t ts, uint32_t index, const struct dev_proc *v, size_t n);
/* *ret_v is malloc'd (NULL when n is 0). */
int dev_decode_procs(const uint8_t *p, size_t len, uint64_t *ret_ts, uint32_t *ret_index,
		     struct dev_proc **ret_v, size_t *ret_n);
