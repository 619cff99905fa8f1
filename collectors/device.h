/* Device collection: accelerators sampled by the daemon, one backend per
 * vendor behind one small interface, and the sampler that writes their
 * samples as raw records (raw.h, RAW_SOURCE_DEVICE) into
 * PROF_x/device_<N>/data, with device_<N>/info.json.<N>, start_info.<N>
 * and end_info.<N> beside it (reference §2.2, §9).
 *
 * A backend is found at run time (NVML: dlopen of libnvidia-ml.so.1), so
 * one binary runs on machines with and without the vendor's driver; adding
 * one (Ascend: DSMI) is a new file and a line in device_backends[], and
 * nothing outside collectors/ changes.  No event loop here: a device
 * worker (dev_worker_new) opens, samples and finishes on a thread of its
 * own, because vendor calls block (NVML: nvmlInit for seconds on a real
 * driver, 20 ms per PCIe direction inside nvmlDeviceGetPcieThroughput, for
 * ever on a hung driver), and tells its owner of each step through a
 * callback (msprofd: uv_async_send). */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/raw.h"

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
	uint32_t sms;                /* multiprocessors (NVIDIA SMs): msprof's
	                                ai_core_num, 0: unknown */
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
 * error for the session, which goes on without device data).  The same as
 * dev_sampler_open() then dev_sampler_begin(). */
int dev_sampler_new(const struct dev_sampler_config *cfg, struct dev_sampler **ret, char *why, size_t why_len);
/* The slow half: open the backend and describe the devices; no files. */
int dev_sampler_open(struct dev_sampler **ret, char *why, size_t why_len);
/* A sampler of the devices `from` opened, through its backend (no driver
 * call): `from` must outlive it (dev_probe holds it).  Backends are safe
 * to call from several threads at once. */
int dev_sampler_borrow(const struct dev_sampler *from, struct dev_sampler **ret);
/* The files: device_<N>/data, info.json.<N>, start_info.<N>. */
int dev_sampler_begin(struct dev_sampler *s, const struct dev_sampler_config *cfg, char *why, size_t why_len);
unsigned dev_sampler_count(const struct dev_sampler *s);
const struct dev_info *dev_sampler_info(const struct dev_sampler *s, unsigned i);
const char *dev_sampler_backend(const struct dev_sampler *s);
/* One sample of every device now; -errno when a write failed.  cancel
 * (may be NULL) is read before each device: once set, the devices not yet
 * sampled are left out (a sample is written whole or not at all). */
int dev_sampler_tick(struct dev_sampler *s, unsigned kinds, const atomic_bool *cancel);
uint64_t dev_sampler_records(const struct dev_sampler *s);
uint64_t dev_sampler_bytes(const struct dev_sampler *s);   /* raw bytes, all devices */
/* RAW_SESSION_END, end_info.<N>, close. */
int dev_sampler_finish(struct dev_sampler *s, uint32_t reason);
struct dev_sampler *dev_sampler_free(struct dev_sampler *s);

/* --- probe: the devices found once, for every session -----------------------
 *
 * Opening a backend is slow (NVML: dlopen, then nvmlInit for seconds on a
 * driver without persistence mode) and its answer rarely changes, so an
 * owner that runs many sessions (msprofd) probes once, on a thread of its
 * own, and keeps the backend open: each session's worker borrows it
 * (dev_worker_config.probe) and a session learns its devices, or why there
 * are none, without a driver call.  notify(arg) is called once, from the
 * thread and under the probe's lock, when it is done (never after
 * dev_probe_release); the owner then reads the phase.
 *
 *   RUNNING --backend open--> FOUND (dev_probe_sampler: the devices)
 *      \--no driver, no device--> NONE (why says why)
 *
 * A probe is never redone by itself: an owner that wants to find a driver
 * installed after NONE starts a new probe. */
enum dev_probe_phase { DEV_PROBE_RUNNING, DEV_PROBE_FOUND, DEV_PROBE_NONE };

struct dev_probe;

/* Start the thread; -errno only when it could not start. */
int dev_probe_new(void (*notify)(void *arg), void *arg, struct dev_probe **ret);
/* Where it is; NONE: why (may be NULL) says why. */
enum dev_probe_phase dev_probe_get(struct dev_probe *p, char *why, size_t why_len);
/* FOUND: the devices (count, info, backend) until the last reference goes. */
const struct dev_sampler *dev_probe_sampler(struct dev_probe *p);
/* CLOCK_MONOTONIC when it started. */
uint64_t dev_probe_started_ns(const struct dev_probe *p);
/* References for those that borrow its backend (the workers): the last
 * one let go closes the backend.  Both return what to store (ref: p;
 * unref: NULL). */
struct dev_probe *dev_probe_ref(struct dev_probe *p);
struct dev_probe *dev_probe_unref(struct dev_probe *p);
/* The owner lets go: no notify after this returns.  Returns NULL. */
struct dev_probe *dev_probe_release(struct dev_probe *p);

/* --- worker: a sampler on a thread of its own -------------------------------
 *
 * The thread is the only one that touches the sampler's files.  It moves
 * through the phases below and calls notify(arg) after each move, from the
 * thread and under the worker's lock (so that release can promise there is
 * no call after it: notify must only wake its owner, as uv_async_send does,
 * never call into the worker); the owner reads where it is with
 * dev_worker_get().
 *
 *   OPENING --open and files made--> RUNNING --stop, or a write error--> DONE
 *      \--no device, or stopped while opening (no files made)--> OFF
 *
 * RUNNING samples each enabled kind on a fixed grid from mono0_ns (a
 * sample later than a whole period skips the missed deadlines, as the host
 * sampler does).  dev_worker_stop() returns at once: the thread ends the
 * call in progress, writes no further sample, finishes the files
 * (RAW_SESSION_END, end_info.<N>) and moves to DONE.  An owner that cannot
 * wait (its driver hangs) calls dev_worker_release() anyway: the thread
 * then finishes and frees itself whenever the call returns, and
 * dev_workers_wait() lets a process that exits give it a last chance. */
enum dev_worker_phase {
	DEV_WORKER_OPENING,
	DEV_WORKER_RUNNING,
	DEV_WORKER_OFF,      /* why says why */
	DEV_WORKER_DONE,     /* error, records and bytes are final */
};

struct dev_worker_config {
	struct dev_sampler_config sampler;   /* prof_dir is copied */
	/* NULL: the worker opens the backend itself.  A probe that FOUND
	 * devices: the worker borrows its backend (a reference is held until
	 * the thread ends), OPENING makes no driver call, and a stop that comes
	 * while OPENING still makes the files (whoever started it has told of
	 * the devices already) before the worker finishes them. */
	struct dev_probe *probe;
	uint64_t mem_period_ns;              /* DEV_TICK_MEM every ..., 0: never */
	uint64_t pcie_period_ns;             /* DEV_TICK_PCIE every ..., 0: never */
	void (*notify)(void *arg);
	void *arg;
};

struct dev_worker_state {
	enum dev_worker_phase phase;
	int error;           /* DONE: the first write error (sampling or finishing), 0: complete */
	bool stopped;        /* DONE after dev_worker_stop(), not on its own (a write error) */
	uint64_t records;    /* DONE: records written, all devices */
	uint64_t bytes;      /* DONE: raw bytes, all devices */
	char why[256];       /* OFF */
};

struct dev_worker;

/* Start the thread; -errno only when it could not start. */
int dev_worker_new(const struct dev_worker_config *cfg, struct dev_worker **ret);
void dev_worker_get(struct dev_worker *w, struct dev_worker_state *ret);
/* The devices (count, info, backend) once RUNNING or DONE, until release;
 * with a probe, from the start. */
const struct dev_sampler *dev_worker_sampler(struct dev_worker *w);
/* Ask the thread to finish with this RAW_SESSION_END reason; returns at once. */
void dev_worker_stop(struct dev_worker *w, uint32_t reason);
/* Let go (stopping it first if need be): notify is never called after
 * this returns.  Joins a thread that is done; one still in a vendor call
 * is left to finish its files and free itself.  Returns NULL. */
struct dev_worker *dev_worker_release(struct dev_worker *w);
/* Wait up to timeout_ms for released threads to end; how many still run. */
unsigned dev_workers_wait(unsigned timeout_ms);

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
