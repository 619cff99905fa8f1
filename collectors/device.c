/* Device sampler: the first backend that finds devices, one raw writer per
 * device in PROF_x/device_<N>/data, and the device records' codec. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "collectors/device.h"
#include "collectors/profdir.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"

const struct dev_backend_ops *const device_backends[] = {
	&dev_backend_nvml,
	NULL,
};

struct dev_dev {
	struct dev_info info;
	struct raw_writer *w;
	uint32_t slice;            /* the slice RAW_DEV_INFO was last written to */
	char dir[4096];            /* PROF_x/device_<N> */
};

struct dev_sampler {
	const struct dev_backend_ops *ops;
	struct dev_backend *b;
	unsigned n;
	struct dev_dev *devs;
	struct dev_proc *procs;
	struct raw_buf buf, ibuf;   /* a record's payload; RAW_DEV_INFO's */
	uint64_t records;
	bool borrowed;              /* b is another sampler's (dev_sampler_borrow) */
};

/* --- codec ------------------------------------------------------------------ */

int dev_encode_info(struct raw_buf *b, uint64_t ts, const struct dev_info *d)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, d->index);
	raw_buf_u32(b, d->backend);
	raw_buf_u64(b, d->mem_total);
	raw_buf_u32(b, d->max_sm_clock_mhz);
	raw_buf_u32(b, d->max_mem_clock_mhz);
	raw_buf_u32(b, d->cores);
	raw_buf_u32(b, d->sms);    /* 0 in files written before it was known */
	raw_buf_lstr(b, d->name, DEV_NAME_MAX);
	raw_buf_lstr(b, d->uuid, DEV_NAME_MAX);
	raw_buf_lstr(b, d->bus_id, DEV_NAME_MAX);
	raw_buf_lstr(b, d->driver, DEV_NAME_MAX);
	return b->err;
}

int dev_decode_info(const uint8_t *p, size_t len, uint64_t *ret_ts, struct dev_info *ret)
{
	struct raw_cur c = { p, len, 0 };
	struct dev_info d = { 0 };
	uint64_t ts = raw_cur_u64(&c);
	d.index = raw_cur_u32(&c);
	d.backend = raw_cur_u32(&c);
	d.mem_total = raw_cur_u64(&c);
	d.max_sm_clock_mhz = raw_cur_u32(&c);
	d.max_mem_clock_mhz = raw_cur_u32(&c);
	d.cores = raw_cur_u32(&c);
	d.sms = raw_cur_u32(&c);
	raw_cur_lstr(&c, d.name, DEV_NAME_MAX);
	raw_cur_lstr(&c, d.uuid, DEV_NAME_MAX);
	raw_cur_lstr(&c, d.bus_id, DEV_NAME_MAX);
	raw_cur_lstr(&c, d.driver, DEV_NAME_MAX);
	if (c.err || c.left || d.index >= DEV_MAX_DEVICES)
		return -EBADMSG;
	*ret_ts = ts;
	*ret = d;
	return 0;
}

#define SAMPLE_LEN (8 + 4 * 4 + 8 * 3 + 4 * 6)
#define PROC_ENTRY_LEN 16

int dev_encode_sample(struct raw_buf *b, uint64_t ts, uint32_t index, const struct dev_sample *s)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, index);
	raw_buf_u32(b, s->valid);
	raw_buf_u32(b, s->util_gpu);
	raw_buf_u32(b, s->util_mem);
	raw_buf_u64(b, s->mem_used);
	raw_buf_u64(b, s->mem_free);
	raw_buf_u64(b, s->mem_reserved);
	raw_buf_u32(b, s->sm_clock_mhz);
	raw_buf_u32(b, s->mem_clock_mhz);
	raw_buf_u32(b, s->power_mw);
	raw_buf_u32(b, s->temp_c);
	raw_buf_u32(b, s->pcie_tx_kbps);
	raw_buf_u32(b, s->pcie_rx_kbps);
	return b->err;
}

int dev_decode_sample(const uint8_t *p, size_t len, uint64_t *ret_ts, uint32_t *ret_index,
		      struct dev_sample *ret)
{
	if (len != SAMPLE_LEN)
		return -EBADMSG;
	struct raw_cur c = { p, len, 0 };
	struct dev_sample s;
	uint64_t ts = raw_cur_u64(&c);
	uint32_t index = raw_cur_u32(&c);
	s.valid = raw_cur_u32(&c);
	s.util_gpu = raw_cur_u32(&c);
	s.util_mem = raw_cur_u32(&c);
	s.mem_used = raw_cur_u64(&c);
	s.mem_free = raw_cur_u64(&c);
	s.mem_reserved = raw_cur_u64(&c);
	s.sm_clock_mhz = raw_cur_u32(&c);
	s.mem_clock_mhz = raw_cur_u32(&c);
	s.power_mw = raw_cur_u32(&c);
	s.temp_c = raw_cur_u32(&c);
	s.pcie_tx_kbps = raw_cur_u32(&c);
	s.pcie_rx_kbps = raw_cur_u32(&c);
	/* percentages above 100 are damage, as are bits nobody defined */
	if (c.err || index >= DEV_MAX_DEVICES || (s.valid & ~(uint32_t)((DEV_V_PCIE_RX << 1) - 1)) ||
	    s.util_gpu > 100 || s.util_mem > 100)
		return -EBADMSG;
	*ret_ts = ts;
	*ret_index = index;
	*ret = s;
	return 0;
}

int dev_encode_procs(struct raw_buf *b, uint64_t ts, uint32_t index, const struct dev_proc *v, size_t n)
{
	raw_buf_reset(b);
	raw_buf_u64(b, ts);
	raw_buf_u32(b, index);
	raw_buf_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		raw_buf_u32(b, v[i].pid);
		raw_buf_u32(b, 0);
		raw_buf_u64(b, v[i].used);
	}
	return b->err;
}

int dev_decode_procs(const uint8_t *p, size_t len, uint64_t *ret_ts, uint32_t *ret_index,
		     struct dev_proc **ret_v, size_t *ret_n)
{
	struct raw_cur c = { p, len, 0 };
	uint64_t ts = raw_cur_u64(&c);
	uint32_t index = raw_cur_u32(&c);
	uint32_t n = raw_cur_u32(&c);
	if (c.err || index >= DEV_MAX_DEVICES || n > DEV_MAX_PROCS || c.left != (size_t)n * PROC_ENTRY_LEN)
		return -EBADMSG;
	struct dev_proc *v = NULL;
	if (n && !(v = calloc(n, sizeof(*v))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		v[i].pid = raw_cur_u32(&c);
		(void)raw_cur_u32(&c);
		v[i].used = raw_cur_u64(&c);
	}
	*ret_ts = ts;
	*ret_index = index;
	*ret_v = v;
	*ret_n = n;
	return 0;
}

/* --- device_<N>/ files ------------------------------------------------------ */

#define J(x)                            \
	do {                            \
		if (!(x))               \
			return -ENOMEM; \
	} while (0)


/* info.json.<N>: what msprof's readers need of it (reference §9): rank_id,
 * devices, DeviceInfo[{id, ai_core_num, aic_frequency}], pid, hostname; and
 * the device's model name, which NPU_INFO takes. */
static int write_info(const struct dev_dev *d, uint32_t app_pid)
{
	char name[32], num[32], host[256] = "";
	_cleanup_json_ cJSON *j = cJSON_CreateObject();
	if (!j)
		return -ENOMEM;
	(void)gethostname(host, sizeof(host) - 1);
	snprintf(num, sizeof(num), "%u", d->info.index);
	J(cJSON_AddStringToObject(j, "jobInfo", "NA"));
	J(cJSON_AddStringToObject(j, "hostname", host));
	snprintf(name, sizeof(name), "%u", app_pid);
	J(cJSON_AddStringToObject(j, "pid", name));
	J(cJSON_AddNumberToObject(j, "rank_id", -1));
	J(cJSON_AddStringToObject(j, "devices", num));
	J(cJSON_AddStringToObject(j, "drvVersion", d->info.driver));
	J(cJSON_AddStringToObject(j, "platform_version", "0"));
	J(cJSON_AddStringToObject(j, "version", "1.0"));
	cJSON *arr = cJSON_AddArrayToObject(j, "DeviceInfo"), *e = cJSON_CreateObject();
	if (!arr || !e || !cJSON_AddItemToArray(arr, e)) {
		cJSON_Delete(e);
		return -ENOMEM;
	}
	J(cJSON_AddNumberToObject(e, "id", d->info.index));
	J(cJSON_AddStringToObject(e, "name", d->info.name));
	/* the unit a kernel's blocks are spread over, as an AI core is for
	 * a task's blocks on Ascend (msprof-analyze compares block counts
	 * with it); 0 when the backend cannot tell */
	J(cJSON_AddNumberToObject(e, "ai_core_num", d->info.sms));
	snprintf(num, sizeof(num), "%u", d->info.max_sm_clock_mhz);
	J(cJSON_AddStringToObject(e, "aic_frequency", num));
	J(cJSON_AddNumberToObject(e, "hbm_total", (double)d->info.mem_total));
	J(cJSON_AddStringToObject(e, "uuid", d->info.uuid));
	J(cJSON_AddStringToObject(e, "bus_id", d->info.bus_id));
	snprintf(name, sizeof(name), "info.json.%u", d->info.index);
	return profdir_write_json_lazy(d->dir, name, j);
}

/* start_info.<N> / end_info.<N>: the keys of host/start_info (profdir.c) */
static int write_time(const struct dev_dev *d, bool begin)
{
	char name[32];
	snprintf(name, sizeof(name), "%s.%u", begin ? "start_info" : "end_info", d->info.index);
	return profdir_write_time_file(d->dir, name, begin, 0, 0);
}

static int mkdir_p2(const char *dir, const char *sub)
{
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return -errno;
	_cleanup_free_ char *p = path_join(dir, sub);
	if (!p)
		return -ENOMEM;
	if (mkdir(p, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* --- sampler ------------------------------------------------------------------ */

unsigned dev_sampler_count(const struct dev_sampler *s) { return s ? s->n : 0; }

const struct dev_info *dev_sampler_info(const struct dev_sampler *s, unsigned i)
{
	return s && i < s->n ? &s->devs[i].info : NULL;
}

const char *dev_sampler_backend(const struct dev_sampler *s) { return s ? s->ops->name : ""; }
uint64_t dev_sampler_records(const struct dev_sampler *s) { return s ? s->records : 0; }

uint64_t dev_sampler_bytes(const struct dev_sampler *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; s && i < s->n; i++)
		n += s->devs[i].w ? raw_writer_bytes(s->devs[i].w) : 0;
	return n;
}

struct dev_sampler *dev_sampler_free(struct dev_sampler *s)
{
	if (!s)
		return NULL;
	for (unsigned i = 0; s->devs && i < s->n; i++)
		s->devs[i].w = raw_writer_free(s->devs[i].w);
	if (s->b && !s->borrowed)
		s->ops->close(s->b);
	raw_buf_release(&s->buf);
	raw_buf_release(&s->ibuf);
	free(s->procs);
	free(s->devs);
	free(s);
	return NULL;
}

/* s->n devices' state, none yet in a slice, and the process list a
 * sample fills: the same for a sampler that opened its backend and for one
 * that borrows another's. */
static int alloc_devs(struct dev_sampler *s)
{
	s->devs = calloc(s->n, sizeof(*s->devs));
	s->procs = calloc(DEV_MAX_PROCS, sizeof(*s->procs));
	if (!s->devs || !s->procs)
		return -ENOMEM;
	for (unsigned i = 0; i < s->n; i++)
		s->devs[i].slice = UINT32_MAX;
	return 0;
}

int dev_sampler_open(struct dev_sampler **ret, char *why, size_t why_len)
{
	struct dev_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int r = -ENODEV;
	snprintf(why, why_len, "no device backend");
	for (size_t k = 0; device_backends[k]; k++) {
		r = device_backends[k]->open(&s->b, why, why_len);
		if (r == 0) {
			s->ops = device_backends[k];
			break;
		}
		if (r == -ENOMEM)
			break;
	}
	if (r < 0) {
		free(s);
		return r;
	}
	s->n = s->ops->count(s->b);
	if (alloc_devs(s) < 0) {
		dev_sampler_free(s);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct dev_dev *d = &s->devs[i];
		r = s->ops->info(s->b, i, &d->info);
		if (r < 0) {
			snprintf(why, why_len, "cannot describe device %u: %s", i, strerror(-r));
			dev_sampler_free(s);
			return r;
		}
		d->info.index = i;
	}
	why[0] = '\0';
	*ret = s;
	return 0;
}

int dev_sampler_borrow(const struct dev_sampler *from, struct dev_sampler **ret)
{
	struct dev_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = from->ops;
	s->b = from->b;
	s->borrowed = true;
	s->n = from->n;
	if (alloc_devs(s) < 0) {
		dev_sampler_free(s);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->n; i++)
		s->devs[i].info = from->devs[i].info;
	*ret = s;
	return 0;
}

int dev_sampler_begin(struct dev_sampler *s, const struct dev_sampler_config *cfg, char *why, size_t why_len)
{
	for (unsigned i = 0; i < s->n; i++) {
		struct dev_dev *d = &s->devs[i];
		snprintf(d->dir, sizeof(d->dir), "%s/device_%u", cfg->prof_dir, i);
		char data[4200];
		snprintf(data, sizeof(data), "%s/data", d->dir);
		int r;
		if ((r = mkdir_p2(d->dir, "data")) < 0 ||
		    (r = raw_writer_open(data, RAW_SOURCE_DEVICE, cfg->mono0_ns, cfg->real0_ns, cfg->slice_bytes,
					 &d->w)) < 0 ||
		    (r = raw_writer_set_buffer(d->w, 64 * 1024)) < 0 || (r = write_info(d, cfg->app_pid)) < 0 ||
		    (r = write_time(d, true)) < 0) {
			snprintf(why, why_len, "cannot write into '%s': %s", d->dir, strerror(-r));
			for (unsigned k = 0; k <= i; k++)
				s->devs[k].w = raw_writer_free(s->devs[k].w);
			return r;
		}
	}
	why[0] = '\0';
	return 0;
}

int dev_sampler_new(const struct dev_sampler_config *cfg, struct dev_sampler **ret, char *why, size_t why_len)
{
	struct dev_sampler *s;
	int r = dev_sampler_open(&s, why, why_len);
	if (r < 0)
		return r;
	r = dev_sampler_begin(s, cfg, why, why_len);
	if (r < 0) {
		dev_sampler_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* RAW_DEV_INFO first in every slice, so each slice stands alone: before
 * a record of next_len bytes that would start a new slice, or the first. */
static int describe(struct dev_sampler *s, struct dev_dev *d, uint64_t ts, uint32_t next_len)
{
	if (d->slice == raw_writer_slice(d->w) && raw_writer_fits(d->w, next_len))
		return 0;
	int r = dev_encode_info(&s->ibuf, ts, &d->info);
	if (r < 0)
		return r;
	if (d->slice != UINT32_MAX && (r = raw_writer_rotate(d->w)) < 0)
		return r;
	r = raw_writer_append_here(d->w, RAW_DEV_INFO, s->ibuf.data, (uint32_t)s->ibuf.len);
	if (r == 0) {
		s->records++;
		d->slice = raw_writer_slice(d->w);
	}
	return r;
}

/* Append the record encoded in s->buf (stamped ts) into d's slice. */
static int append(struct dev_sampler *s, struct dev_dev *d, uint16_t type, uint64_t ts)
{
	if (s->buf.err)
		return s->buf.err;
	int r = describe(s, d, ts, (uint32_t)s->buf.len);
	if (r == 0)
		r = raw_writer_append_here(d->w, type, s->buf.data, (uint32_t)s->buf.len);
	if (r == 0)
		s->records++;
	return r;
}

int dev_sampler_tick(struct dev_sampler *s, unsigned kinds, const atomic_bool *cancel)
{
	for (unsigned i = 0; i < s->n && !(cancel && atomic_load(cancel)); i++) {
		struct dev_dev *d = &s->devs[i];
		struct dev_sample smp;
		size_t np = 0;
		uint64_t ts = mono_ns();
		int r = s->ops->sample(s->b, i, kinds, &smp, s->procs, DEV_MAX_PROCS, &np);
		if (r < 0)
			continue;   /* a device that cannot answer now: no sample */
		if ((r = dev_encode_sample(&s->buf, ts, i, &smp)) < 0 ||
		    (r = append(s, d, RAW_DEV_SAMPLE, ts)) < 0)
			return r;
		if ((kinds & DEV_TICK_MEM) && ((r = dev_encode_procs(&s->buf, ts, i, s->procs, np)) < 0 ||
					       (r = append(s, d, RAW_DEV_PROCS, ts)) < 0))
			return r;
	}
	return 0;
}

int dev_sampler_finish(struct dev_sampler *s, uint32_t reason)
{
	int ret = 0;
	for (unsigned i = 0; s && i < s->n; i++) {
		struct dev_dev *d = &s->devs[i];
		if (!d->w)
			continue;
		uint64_t ts = mono_ns();
		raw_buf_reset(&s->buf);
		raw_buf_u64(&s->buf, ts);
		raw_buf_u32(&s->buf, reason);
		int r = append(s, d, RAW_SESSION_END, ts);
		if (r == 0)
			r = raw_writer_flush(d->w);
		if (r == 0)
			r = write_time(d, false);
		if (r < 0 && ret == 0)
			ret = r;
		d->w = raw_writer_free(d->w);
	}
	return ret;
}
