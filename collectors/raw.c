/* Raw data files: slice writer, frame reader with resynchronisation, payload
 * builder and cursor, slice listing and ageing.  See raw.h for the format. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "collectors/raw.h"
#include "common/util.h"

/* --- little-endian helpers ---------------------------------------------- */

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* --- CRC-32 --------------------------------------------------------------- */


/* Slice-by-8: eight bytes per step through eight derived tables, about 4x
 * the byte loop.  The tables are derived from the base table when the
 * library is loaded, before any thread can ask for a checksum. */
static uint32_t crc_slice[8][256];
/* The same for CRC-32C (Castagnoli, reflected polynomial 0x82f63b78): the
 * checksum of version 2 frames, where the CPU has no instruction for it. */
static uint32_t crc32c_slice[8][256];

static void slice_tables(uint32_t t[8][256], uint32_t poly)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (poly & (0U - (c & 1)));
		t[0][i] = c;
	}
	for (unsigned k = 1; k < 8; k++)
		for (unsigned i = 0; i < 256; i++)
			t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
}

static uint32_t crc_sliced(const uint32_t t[8][256], uint32_t c, const uint8_t *b, size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ get32(b);
		uint32_t hi = get32(b + 4);
		c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		    t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		b += 8;
		n -= 8;
	}
	while (n--)
		c = t[0][(c ^ *b++) & 0xff] ^ (c >> 8);
	return c;
}

uint32_t raw_crc32(const void *p, size_t n)
{
	return crc_sliced((const uint32_t(*)[256])crc_slice, 0xffffffffU, p, n) ^ 0xffffffffU;
}

static uint32_t crc32c_table(uint32_t c, const uint8_t *b, size_t n)
{
	return crc_sliced((const uint32_t(*)[256])crc32c_slice, c, b, n);
}

/* The CPU's CRC-32C instruction (SSE4.2's crc32, ARMv8's crc32c*): eight
 * bytes a step, several times the tables' speed.  Chosen at load by what
 * the CPU says it has.  Each architecture names its 8- and 1-byte steps;
 * the loop over them is one. */
#if defined(__x86_64__)
#include <nmmintrin.h>
#define CRC32C_HW 1
#define CRC32C_HW_TARGET "sse4.2"
#define CRC32C_HW_8(c, v) ((uint32_t)_mm_crc32_u64((c), (v)))
#define CRC32C_HW_1(c, x) _mm_crc32_u8((c), (x))
static bool crc32c_hw_present(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#define CRC32C_HW 1
#define CRC32C_HW_TARGET "+crc"
#define CRC32C_HW_8(c, v) __crc32cd((c), (v))
#define CRC32C_HW_1(c, x) __crc32cb((c), (x))
static bool crc32c_hw_present(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}
#endif

#ifdef CRC32C_HW
__attribute__((target(CRC32C_HW_TARGET))) static uint32_t crc32c_hw(uint32_t c, const uint8_t *b, size_t n)
{
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, b, 8);
		c = CRC32C_HW_8(c, v);
		b += 8;
		n -= 8;
	}
	while (n--)
		c = CRC32C_HW_1(c, *b++);
	return c;
}
#else
static uint32_t crc32c_hw(uint32_t c, const uint8_t *b, size_t n)
{
	return crc32c_table(c, b, n);
}
static bool crc32c_hw_present(void)
{
	return false;
}
#endif

static uint32_t (*crc32c_step)(uint32_t c, const uint8_t *b, size_t n) = crc32c_table;

/* Before the library's other constructors (the agent's starts its thread,
 * which checksums what it writes). */
__attribute__((constructor(101))) static void crc_init(void)
{
	slice_tables(crc_slice, 0xedb88320U);
	slice_tables(crc32c_slice, 0x82f63b78U);
	if (crc32c_hw_present() && !getenv("MSPROF_RAW_CRC_TABLE"))
		crc32c_step = crc32c_hw;
}

uint32_t raw_crc32c_update(uint32_t crc, const void *p, size_t n)
{
	return ~crc32c_step(~crc, p, n);
}

uint32_t raw_crc32c(const void *p, size_t n)
{
	return raw_crc32c_update(0, p, n);
}

bool raw_crc32c_hardware(void)
{
	return crc32c_step != crc32c_table;
}

uint32_t raw_frame_crc(const uint8_t *frame)
{
	return raw_crc32c_update(raw_crc32c(frame + 4, 8), frame + RAW_FRAME_SIZE, get32(frame + 8));
}

/* --- sources ------------------------------------------------------------- */

static const char *const source_stems[] = {
	[RAW_SOURCE_HOST_CPU] = "host_cpu.data",
	[RAW_SOURCE_HOST_MEM] = "host_mem.data",
	[RAW_SOURCE_HOST_DISK] = "host_disk.data",
	[RAW_SOURCE_HOST_NET] = "host_network.data",
	[RAW_SOURCE_USAGE_CPU] = "host_usage_cpu.data",
	[RAW_SOURCE_USAGE_MEM] = "host_usage_mem.data",
	[RAW_SOURCE_DEVICE] = "device.data",
};

const char *raw_source_stem(enum raw_source s)
{
	if ((unsigned)s >= ARRAY_SIZE(source_stems))
		return NULL;
	return source_stems[s];
}

const char *raw_type_noun(uint32_t type)
{
	static __thread char other[40];
	switch (type) {
	case RAW_PROC_EXIT: return "process exit record(s)";
	case RAW_THREAD_CPU: return "thread CPU sample(s)";
	case RAW_PROC_MEM: return "process memory sample(s)";
	case RAW_PROC_IO: return "process I/O sample(s)";
	case RAW_NET_DEV: return "network sample(s)";
	case RAW_SYS_CPU: return "host CPU sample(s)";
	case RAW_SYS_MEM: return "host memory sample(s)";
	case RAW_PROC_CPU: return "process CPU usage sample(s)";
	case RAW_PROC_MEM_ALL: return "process memory usage sample(s)";
	case RAW_SESSION_END: return "session end record(s)";
	case RAW_SAMPLER_TICKS: return "sampler tick count(s)";
	case RAW_DISK_STATS: return "disk sample(s)";
	case RAW_PROC_CPU_THREADS: return "thread CPU usage sample(s)";
	case RAW_AGENT_MARK: return "mark(s)";
	case RAW_AGENT_RANGE_START: return "range start(s)";
	case RAW_AGENT_RANGE_END: return "range end(s)";
	case RAW_AGENT_OSRT: return "OS runtime call(s)";
	case RAW_AGENT_COMM_OP: return "communication operation(s)";
	case RAW_AGENT_GPU_TASK: return "device task(s)";
	case RAW_AGENT_GPU_API: return "runtime API call(s)";
	case RAW_AGENT_GPU_SYNC: return "device wait(s)";
	case RAW_DEV_SAMPLE: return "device sample(s)";
	case RAW_DEV_PROCS: return "device process sample(s)";
	default:
		snprintf(other, sizeof other, "record(s) of type %u", type);
		return other;
	}
}

#define SLICE_SEP ".slice_"

/* "<stem>.slice_<n>" -> n, and the stem's length when ret_stem_len is not
 * NULL; the stem is everything before the last ".slice_". */
static int slice_index(const char *name, const char *stem, uint32_t *ret, size_t *ret_stem_len)
{
	const char *sep = NULL;
	for (const char *p = strstr(name, SLICE_SEP); p; p = strstr(p + 1, SLICE_SEP))
		sep = p;
	if (!sep)
		return -EINVAL;
	if (stem && ((size_t)(sep - name) != strlen(stem) || strncmp(name, stem, (size_t)(sep - name)) != 0))
		return -EINVAL;
	uint64_t v;
	int r = parse_u64(sep + strlen(SLICE_SEP), 0, UINT32_MAX, &v);
	if (r < 0)
		return r;
	*ret = (uint32_t)v;
	if (ret_stem_len)
		*ret_stem_len = (size_t)(sep - name);
	return 0;
}

/* --- writer -------------------------------------------------------------- */

struct raw_writer {
	int dir_fd;
	int fd;
	enum raw_source source;
	char stem[RAW_STEM_MAX];  /* file name before ".slice_<n>" */
	uint64_t mono0_ns, real0_ns;
	uint64_t slice_bytes;
	uint32_t slice;     /* index of the slice fd points to */
	uint64_t slice_len; /* bytes in that slice, buffered ones included */
	uint64_t total;     /* all slices */
	uint8_t *buf;       /* whole frames not yet written (raw_writer_set_buffer) */
	size_t buf_len, buf_cap;
	struct raw_quota *quota; /* the dir's storage limit, NULL: none */
	uint64_t slice_ns;  /* a ring's quota: a new slice after this long (0: never) */
	uint64_t slice_t0;  /* CLOCK_MONOTONIC when the current slice began */
};

/* Every byte is reserved under the dir's limit before it is buffered or
 * written, and given back if it never reaches the file: the dir never
 * holds more than the limit, whatever the writers do between ageing. */
static int reserve(struct raw_writer *w, uint64_t bytes)
{
	return w->quota ? raw_quota_reserve(w->quota, bytes) : 0;
}

static void header_encode(uint8_t h[RAW_HEADER_SIZE], const struct raw_writer *w, uint32_t slice)
{
	long tck = sysconf(_SC_CLK_TCK);
	long page = sysconf(_SC_PAGESIZE);

	memset(h, 0, RAW_HEADER_SIZE);
	memcpy(h, RAW_MAGIC, 8);
	put32(h + 8, RAW_VERSION);
	put32(h + 12, RAW_HEADER_SIZE);
	put64(h + 16, w->mono0_ns);
	put64(h + 24, w->real0_ns);
	put32(h + 32, (uint32_t)w->source);
	put32(h + 36, (uint32_t)getpid());
	put32(h + 40, slice);
	put32(h + 44, tck > 0 ? (uint32_t)tck : 0);
	put64(h + 48, page > 0 ? (uint64_t)page : 0);
	put32(h + 56, raw_crc32c(h, 56));
}

/* Write all of buf (a partial write of a regular file is retried for the
 * rest); on failure the file is cut back to `keep` bytes so that no partial
 * frame is left behind when we can help it. */
static int write_all(int fd, struct iovec *iov, int n_iov, uint64_t keep)
{
	size_t want = 0;
	for (int i = 0; i < n_iov; i++)
		want += iov[i].iov_len;

	size_t done = 0;
	while (done < want) {
		ssize_t n = writev(fd, iov, n_iov);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int r = -errno;
			if (done > 0 && ftruncate(fd, (off_t)keep) < 0) {
				/* the reader will see a torn frame, which it handles */
			}
			return r;
		}
		if (n == 0) {
			if (done > 0 && ftruncate(fd, (off_t)keep) < 0) {
				/* as above */
			}
			return -ENOSPC;
		}
		done += (size_t)n;
		/* advance the iovecs past what was written */
		size_t adv = (size_t)n;
		while (n_iov > 0 && adv >= iov[0].iov_len) {
			adv -= iov[0].iov_len;
			iov++;
			n_iov--;
		}
		if (n_iov > 0) {
			iov[0].iov_base = (uint8_t *)iov[0].iov_base + adv;
			iov[0].iov_len -= adv;
		}
	}
	return 0;
}

/* Create slice `*idx` (or the next free index after it) with its header. */
static int slice_create(struct raw_writer *w, uint32_t idx, int *ret_fd, uint32_t *ret_idx)
{
	char name[NAME_MAX + 1];

	int r = reserve(w, RAW_HEADER_SIZE);
	if (r < 0)
		return r;
	for (unsigned tries = 0; tries < 1024; tries++, idx++) {
		snprintf(name, sizeof(name), "%s" SLICE_SEP "%u", w->stem, idx);
		_cleanup_close_ int fd = openat(w->dir_fd, name,
						O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0640);
		if (fd < 0) {
			if (errno == EEXIST && idx < UINT32_MAX)
				continue;
			r = -errno;
			raw_quota_release(w->quota, RAW_HEADER_SIZE);
			return r;
		}
		uint8_t h[RAW_HEADER_SIZE];
		header_encode(h, w, idx);
		struct iovec iov = { .iov_base = h, .iov_len = sizeof(h) };
		r = write_all(fd, &iov, 1, 0);
		if (r < 0) {
			(void)unlinkat(w->dir_fd, name, 0);
			raw_quota_release(w->quota, RAW_HEADER_SIZE);
			return r;
		}
		*ret_fd = fd;
		fd = -EBADF; /* handed on (TAKE_FD is a braced group: -Wpedantic) */
		*ret_idx = idx;
		return 0;
	}
	raw_quota_release(w->quota, RAW_HEADER_SIZE);
	return -EEXIST;
}

/* A stem names files in one directory: no '/', not "." or "..", short
 * enough that "<stem>.slice_<u32>" fits in NAME_MAX. */
static bool stem_ok(const char *stem)
{
	size_t n = stem ? strnlen(stem, RAW_STEM_MAX) : 0;
	return n > 0 && n < RAW_STEM_MAX && !strchr(stem, '/') && !streq(stem, ".") && !streq(stem, "..");
}

void raw_agent_stem(pid_t pid, char ret[RAW_STEM_MAX])
{
	snprintf(ret, RAW_STEM_MAX, RAW_AGENT_PREFIX "%u.data", (unsigned)pid);
}

int raw_writer_open(const char *dir, enum raw_source source, uint64_t mono0_ns,
		    uint64_t real0_ns, uint64_t slice_bytes, struct raw_writer **ret)
{
	const char *stem = raw_source_stem(source);
	if (!stem)
		return -EINVAL;
	return raw_writer_open_stem(dir, stem, source, mono0_ns, real0_ns, slice_bytes, ret);
}

int raw_writer_open_stem(const char *dir, const char *stem, enum raw_source source,
			 uint64_t mono0_ns, uint64_t real0_ns, uint64_t slice_bytes,
			 struct raw_writer **ret)
{
	if (!dir || !ret || !stem_ok(stem))
		return -EINVAL;

	struct raw_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -EBADF;
	w->source = source;
	snprintf(w->stem, sizeof(w->stem), "%s", stem);
	w->mono0_ns = mono0_ns;
	w->real0_ns = real0_ns;
	w->slice_bytes = slice_bytes ? slice_bytes : RAW_DEFAULT_SLICE_BYTES;

	w->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dir_fd < 0) {
		int r = -errno;
		free(w);
		return r;
	}
	/* A dir under --storage-limit has its quota file: every writer there
	 * joins it, and cuts its slices to the size ageing works with. */
	int q = raw_quota_open(dir, &w->quota);
	if (q < 0 && q != -ENOENT) {
		raw_writer_free(w);
		return q;
	}
	if (w->quota && w->slice_bytes > raw_quota_slice_bytes(w->quota))
		w->slice_bytes = raw_quota_slice_bytes(w->quota);
	w->slice_ns = raw_quota_slice_ns(w->quota);

	/* Continue after any slice already there rather than mixing two
	 * sessions' headers in one file. */
	uint32_t first = 0;
	char **paths = NULL;
	int n = raw_list_stem_slices(dir, stem, &paths);
	if (n > 0) {
		const char *base = strrchr(paths[n - 1], '/');
		uint32_t last;
		if (slice_index(base ? base + 1 : paths[n - 1], NULL, &last, NULL) == 0 && last < UINT32_MAX)
			first = last + 1;
	}
	raw_paths_free(paths);

	int r = slice_create(w, first, &w->fd, &w->slice);
	if (r < 0) {
		raw_writer_free(w);
		return r;
	}
	w->slice_len = RAW_HEADER_SIZE;
	w->total = RAW_HEADER_SIZE;
	w->slice_t0 = mono_ns();
	*ret = w;
	return 0;
}

int raw_writer_flush(struct raw_writer *w)
{
	if (!w || w->fd < 0)
		return -EBADF;
	if (w->buf_len == 0)
		return 0;
	/* On failure write_all truncates back to what was on disk, so the
	 * buffered frames are lost whole and the file stays clean. */
	uint64_t on_disk = w->slice_len - w->buf_len;
	struct iovec iov = { .iov_base = w->buf, .iov_len = w->buf_len };
	int r = write_all(w->fd, &iov, 1, on_disk);
	if (r < 0) {
		w->total -= w->buf_len;
		w->slice_len = on_disk;
		raw_quota_release(w->quota, w->buf_len);
	}
	w->buf_len = 0;
	return r;
}

int raw_writer_set_buffer(struct raw_writer *w, size_t cap)
{
	if (!w || w->fd < 0)
		return -EBADF;
	int r = raw_writer_flush(w);
	if (r < 0)
		return r;
	free(w->buf);
	w->buf = NULL;
	w->buf_cap = 0;
	if (cap == 0)
		return 0;
	w->buf = malloc(cap);
	if (!w->buf)
		return -ENOMEM;
	w->buf_cap = cap;
	return 0;
}

/* A ring's slice that began slice_ns ago takes nothing more, so that ageing
 * by time (raw_quota_age_before) frees the ring in steps of slice_ns. */
static bool slice_expired(const struct raw_writer *w)
{
	return w->slice_ns && w->slice_len > RAW_HEADER_SIZE && mono_ns() - w->slice_t0 >= w->slice_ns;
}

bool raw_writer_fits(const struct raw_writer *w, uint32_t len)
{
	/* an empty slice takes any record, however large */
	return w && (w->slice_len <= RAW_HEADER_SIZE ||
		     (w->slice_len + RAW_FRAME_SIZE + (uint64_t)len <= w->slice_bytes && !slice_expired(w)));
}

int raw_writer_rotate(struct raw_writer *w)
{
	if (!w || w->fd < 0)
		return -EBADF;
	/* What is buffered belongs to this slice. */
	int r = raw_writer_flush(w);
	if (r < 0)
		return r;
	/* Open the next slice before letting go of this one: if that fails
	 * (disk full) the caller hears it and nothing is lost. */
	int fd;
	uint32_t idx;
	r = slice_create(w, w->slice + 1, &fd, &idx);
	if (r < 0)
		return r;
	close(w->fd);
	w->fd = fd;
	w->slice = idx;
	w->slice_len = RAW_HEADER_SIZE;
	w->total += RAW_HEADER_SIZE;
	w->slice_t0 = mono_ns();
	return 0;
}

/* One record whose payload is a then b (either may be empty). */
static int append(struct raw_writer *w, uint16_t type, const void *a, uint32_t na, const void *b, uint32_t nb,
		  bool may_rotate)
{
	if (!w || w->fd < 0)
		return -EBADF;
	if (na > RAW_MAX_PAYLOAD || nb > RAW_MAX_PAYLOAD - na)
		return -EMSGSIZE;
	if ((na > 0 && !a) || (nb > 0 && !b))
		return -EINVAL;

	int r;
	uint32_t len = na + nb;
	uint64_t frame = RAW_FRAME_SIZE + (uint64_t)len;
	if (may_rotate && !raw_writer_fits(w, len) && (r = raw_writer_rotate(w)) < 0)
		return r;
	if ((r = reserve(w, frame)) < 0)
		return r;

	uint8_t f[RAW_FRAME_SIZE];
	put32(f, RAW_FRAME_SYNC);
	put16(f + 4, type);
	put16(f + 6, 0);
	put32(f + 8, len);
	put32(f + 12, raw_crc32c_update(raw_crc32c_update(raw_crc32c(f + 4, 8), a, na), b, nb));

	if (frame <= w->buf_cap) {
		if (w->buf_len + frame > w->buf_cap && (r = raw_writer_flush(w)) < 0) {
			raw_quota_release(w->quota, frame);
			return r;
		}
		uint8_t *p = w->buf + w->buf_len;
		memcpy(p, f, sizeof(f));
		if (na > 0)
			memcpy(p + sizeof(f), a, na);
		if (nb > 0)
			memcpy(p + sizeof(f) + na, b, nb);
		w->buf_len += frame;
		w->slice_len += frame;
		w->total += frame;
		return 0;
	}

	/* Too big for the buffer (or none): write it now, after what is
	 * buffered so the order on disk is the order of the calls. */
	r = raw_writer_flush(w);
	if (r < 0) {
		raw_quota_release(w->quota, frame);
		return r;
	}
	struct iovec iov[3] = { { .iov_base = f, .iov_len = sizeof(f) } };
	int n = 1;
	if (na > 0)
		iov[n++] = (struct iovec){ .iov_base = (void *)a, .iov_len = na };
	if (nb > 0)
		iov[n++] = (struct iovec){ .iov_base = (void *)b, .iov_len = nb };
	r = write_all(w->fd, iov, n, w->slice_len);
	if (r < 0) {
		raw_quota_release(w->quota, frame);
		return r;
	}
	w->slice_len += frame;
	w->total += frame;
	return 0;
}

int raw_writer_append(struct raw_writer *w, uint16_t type, const void *payload, uint32_t len)
{
	return append(w, type, payload, len, NULL, 0, true);
}

int raw_writer_append_here(struct raw_writer *w, uint16_t type, const void *payload, uint32_t len)
{
	return append(w, type, payload, len, NULL, 0, false);
}

int raw_writer_append2(struct raw_writer *w, uint16_t type, const void *a, uint32_t na, const void *b, uint32_t nb)
{
	return append(w, type, a, na, b, nb, false);
}

uint64_t raw_writer_room(const struct raw_writer *w)
{
	if (!w)
		return 0;
	if (w->slice_len <= RAW_HEADER_SIZE)
		return UINT64_MAX;
	if (slice_expired(w))
		return 0;
	uint64_t used = w->slice_len + RAW_FRAME_SIZE;
	return used < w->slice_bytes ? w->slice_bytes - used : 0;
}

uint64_t raw_writer_bytes(const struct raw_writer *w)
{
	return w ? w->total : 0;
}

uint32_t raw_writer_slice(const struct raw_writer *w)
{
	return w ? w->slice : 0;
}

struct raw_writer *raw_writer_free(struct raw_writer *w)
{
	if (!w)
		return NULL;
	if (w->fd >= 0) {
		(void)raw_writer_flush(w); /* callers that care flush first */
		close(w->fd);
	}
	free(w->buf);
	raw_quota_free(w->quota);
	if (w->dir_fd >= 0)
		close(w->dir_fd);
	free(w);
	return NULL;
}

/* --- payload builder ----------------------------------------------------- */

static uint8_t *buf_grow(struct raw_buf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (n > SIZE_MAX - b->len) {
		b->err = -ENOMEM;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n) {
			if (cap > SIZE_MAX / 2) {
				cap = b->len + n;
				break;
			}
			cap *= 2;
		}
		uint8_t *d = realloc(b->data, cap);
		if (!d) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->data = d;
		b->cap = cap;
	}
	uint8_t *p = b->data + b->len;
	b->len += n;
	return p;
}

void raw_buf_reset(struct raw_buf *b)
{
	b->len = 0;
	b->err = 0;
}

void raw_buf_release(struct raw_buf *b)
{
	free(b->data);
	*b = (struct raw_buf){ 0 };
}

void raw_buf_u16(struct raw_buf *b, uint16_t v)
{
	uint8_t *p = buf_grow(b, 2);
	if (p)
		put16(p, v);
}

void raw_buf_u32(struct raw_buf *b, uint32_t v)
{
	uint8_t *p = buf_grow(b, 4);
	if (p)
		put32(p, v);
}

void raw_buf_u64(struct raw_buf *b, uint64_t v)
{
	uint8_t *p = buf_grow(b, 8);
	if (p)
		put64(p, v);
}

void raw_buf_bytes(struct raw_buf *b, const void *src, size_t n)
{
	uint8_t *p = buf_grow(b, n);
	if (p && n)
		memcpy(p, src, n);
}

void raw_buf_str(struct raw_buf *b, const char *s, size_t field)
{
	uint8_t *p = buf_grow(b, field);
	if (!p || field == 0)
		return;
	/* at most field-1 characters, so the field always holds a terminator */
	size_t n = s ? strnlen(s, field - 1) : 0;
	if (n)
		memcpy(p, s, n);
	memset(p + n, 0, field - n);
}

void raw_buf_lstr(struct raw_buf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1);
	raw_buf_u32(b, (uint32_t)n);
	raw_buf_bytes(b, s, n);
}

/* --- cursor -------------------------------------------------------------- */

static const uint8_t *cur_take(struct raw_cur *c, size_t n)
{
	if (c->err || c->left < n) {
		c->err = -EBADMSG;
		c->left = 0;
		return NULL;
	}
	const uint8_t *p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

uint16_t raw_cur_u16(struct raw_cur *c)
{
	const uint8_t *p = cur_take(c, 2);
	return p ? get16(p) : 0;
}

uint32_t raw_cur_u32(struct raw_cur *c)
{
	const uint8_t *p = cur_take(c, 4);
	return p ? get32(p) : 0;
}

uint64_t raw_cur_u64(struct raw_cur *c)
{
	const uint8_t *p = cur_take(c, 8);
	return p ? get64(p) : 0;
}

void raw_cur_str(struct raw_cur *c, char *out, size_t field)
{
	if (field == 0)
		return;
	const uint8_t *p = cur_take(c, field);
	if (!p) {
		out[0] = 0;
		return;
	}
	memcpy(out, p, field);
	out[field - 1] = 0;
}

void raw_cur_lstr(struct raw_cur *c, char *out, size_t max)
{
	uint32_t n = raw_cur_u32(c);
	const uint8_t *p = n < max ? cur_take(c, n) : NULL;
	if (!p || memchr(p, '\0', n)) {
		/* a NUL inside the bytes would cut the string silently */
		c->err = -EBADMSG;
		out[0] = '\0';
		return;
	}
	memcpy(out, p, n);
	out[n] = '\0';
}

/* --- reader -------------------------------------------------------------- */

/* The reader keeps a window [buf_off, buf_off + buf_len) of the file; pos is
 * always inside it or at its end.  A damaged region ("gap") starts where a
 * frame fails to check and ends at the next frame that does; a frame that
 * runs past the end of the file is a torn tail unless a good frame follows
 * it, in which case it was damage too. */
struct raw_reader {
	int fd;
	struct raw_header hdr;
	uint8_t *buf;
	size_t cap, buf_len;
	uint64_t buf_off, pos;
	bool eof, done;

	bool in_gap, torn_pending;
	uint64_t gap_start, torn_at, bad_end;
	bool header_damaged;
	const char *why;        /* what candidate() found wrong */
	struct raw_reader_stats st;

	/* a RAW_AGENT_BATCH being handed out event by event */
	uint8_t *bat;
	size_t bat_len, bat_pos, bat_cap;
	uint32_t bat_tid;
	uint64_t bat_off;       /* file offset of the batch's payload */
	uint8_t scratch[48 + 65536];   /* the record made of one event */
};

#define READ_CHUNK (64U * 1024)

/* *buf holds at least want bytes, what it held kept; on -ENOMEM it is as
 * it was. */
static int grow_to(uint8_t **buf, size_t *cap, size_t want)
{
	if (want <= *cap)
		return 0;
	uint8_t *b = realloc(*buf, want);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = want;
	return 0;
}

/* Make `need` bytes from pos available if the file has them; *ret_avail is
 * what is there (less than need only at end of file). */
static int fill(struct raw_reader *r, size_t need, size_t *ret_avail)
{
	size_t have = (size_t)(r->buf_off + r->buf_len - r->pos);

	while (have < need && !r->eof) {
		size_t start = (size_t)(r->pos - r->buf_off);
		if (start > 0) {
			memmove(r->buf, r->buf + start, have);
			r->buf_off = r->pos;
			r->buf_len = have;
		}
		if (grow_to(&r->buf, &r->cap, need > READ_CHUNK ? need : READ_CHUNK) < 0)
			return -ENOMEM;
		ssize_t n = read(r->fd, r->buf + r->buf_len, r->cap - r->buf_len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			r->eof = true;
			break;
		}
		r->buf_len += (size_t)n;
		have += (size_t)n;
	}
	*ret_avail = have < need ? have : need;
	return 0;
}

static inline const uint8_t *at_pos(const struct raw_reader *r)
{
	return r->buf + (r->pos - r->buf_off);
}

int raw_reader_open(const char *path, struct raw_reader **ret)
{
	return raw_reader_open_flags(path, 0, ret);
}

int raw_reader_open_flags(const char *path, unsigned flags, struct raw_reader **ret)
{
	if (!path || !ret)
		return -EINVAL;

	struct raw_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int e = -errno;
		free(r);
		return e;
	}

	size_t avail;
	int e = fill(r, RAW_HEADER_SIZE + 4, &avail);
	if (e < 0)
		goto fail;
	const uint8_t *h = at_pos(r);
	e = -EPROTO;
	if (avail < RAW_HEADER_SIZE)
		goto fail;
	bool magic = memcmp(h, RAW_MAGIC, 8) == 0;
	uint32_t version = get32(h + 8), hsize = get32(h + 12);
	/* version 2 covers the header with its own checksum: a flipped bit in
	 * the clocks would shift every record of the file; the reserved word
	 * is zero, so that no byte of it goes unchecked */
	bool crc_ok = raw_crc32c(h, 56) == get32(h + 56) && get32(h + 60) == 0;
	/* a frame right after: our file, whatever its header says */
	bool framed = avail >= RAW_HEADER_SIZE + 4 && get32(h + RAW_HEADER_SIZE) == RAW_FRAME_SYNC;
	bool damaged;
	if (!magic || version == 0)
		damaged = !crc_ok && framed;
	else if (version > RAW_VERSION)
		damaged = !crc_ok; /* a newer writer's header checks */
	else
		damaged = version >= 2 && !crc_ok;
	if (damaged) {
		e = -EBADMSG;
		if (!(flags & RAW_READER_DAMAGED_HEADER))
			goto fail;
		r->header_damaged = true;
		version = RAW_VERSION; /* until raw_reader_set_header */
		hsize = RAW_HEADER_SIZE;
	} else if (!magic || version == 0) {
		goto fail;
	} else if (version > RAW_VERSION) {
		e = -EPROTONOSUPPORT;
		goto fail;
	}
	if (hsize < RAW_HEADER_SIZE || hsize > 65536)
		goto fail;
	r->hdr = (struct raw_header){
		.version = version,
		.mono0_ns = get64(h + 16),
		.real0_ns = get64(h + 24),
		.source = get32(h + 32),
		.writer_pid = get32(h + 36),
		.slice = get32(h + 40),
		.clk_tck = get32(h + 44),
		.page_size = get64(h + 48),
	};
	/* skip a longer header written by a later minor revision */
	e = fill(r, hsize, &avail);
	if (e < 0)
		goto fail;
	if (avail < hsize) {
		e = -EPROTO;
		goto fail;
	}
	r->pos += hsize;
	*ret = r;
	return 0;
fail:
	raw_reader_free(r);
	return e;
}

const struct raw_header *raw_reader_header(const struct raw_reader *r)
{
	return &r->hdr;
}

bool raw_reader_header_damaged(const struct raw_reader *r)
{
	return r->header_damaged;
}

void raw_reader_set_header(struct raw_reader *r, const struct raw_header *h)
{
	/* the frames' checksums depend on the version: kept as read where
	 * the header was whole */
	uint32_t version = r->hdr.version;
	r->hdr = *h;
	if (!r->header_damaged)
		r->hdr.version = version;
}

/* The first damage of a file, for the export to name. */
static void damage(struct raw_reader *r, uint64_t off, const char *what)
{
	if (!r->st.damage_what) {
		r->st.damage_off = off;
		r->st.damage_what = what;
	}
}

const struct raw_reader_stats *raw_reader_stats(const struct raw_reader *r)
{
	return &r->st;
}

enum cand { C_END, C_VALID, C_TORN, C_NOSYNC, C_BAD };

/* Examine the frame that would start at pos. */
static int candidate(struct raw_reader *r, uint32_t *ret_len, uint64_t *ret_extent)
{
	static const uint8_t sync[4] = { RAW_FRAME_SYNC & 0xff, (RAW_FRAME_SYNC >> 8) & 0xff,
					 (RAW_FRAME_SYNC >> 16) & 0xff, RAW_FRAME_SYNC >> 24 };
	size_t avail;
	int e = fill(r, RAW_FRAME_SIZE, &avail);
	if (e < 0)
		return e;
	if (avail == 0)
		return C_END;
	const uint8_t *p = at_pos(r);
	r->why = "no frame where one was expected";
	if (avail < 4)
		return memcmp(p, sync, avail) == 0 ? C_TORN : C_NOSYNC;
	if (get32(p) != RAW_FRAME_SYNC) {
		*ret_extent = 1;
		return C_NOSYNC;
	}
	if (avail < RAW_FRAME_SIZE)
		return C_TORN;
	uint32_t len = get32(p + 8);
	if (len > RAW_MAX_PAYLOAD) {
		*ret_extent = RAW_FRAME_SIZE;
		r->why = "impossible length";
		return C_BAD;
	}
	uint32_t crc = get32(p + 12);
	e = fill(r, RAW_FRAME_SIZE + (size_t)len, &avail);
	if (e < 0)
		return e;
	if (avail < RAW_FRAME_SIZE + (size_t)len)
		return C_TORN;
	p = at_pos(r);
	/* version 1: CRC-32 of the payload; 2: CRC-32C of type, flags, len
	 * and the payload */
	if ((r->hdr.version >= 2 ? raw_frame_crc(p) : raw_crc32(p + RAW_FRAME_SIZE, len)) != crc) {
		*ret_extent = RAW_FRAME_SIZE + (uint64_t)len;
		r->why = "checksum mismatch";
		return C_BAD;
	}
	*ret_len = len;
	return C_VALID;
}

/* Move pos at least one byte on, to the next sync word or the end. */
static int skip_to_sync(struct raw_reader *r)
{
	static const uint8_t sync[4] = { RAW_FRAME_SYNC & 0xff, (RAW_FRAME_SYNC >> 8) & 0xff,
					 (RAW_FRAME_SYNC >> 16) & 0xff, RAW_FRAME_SYNC >> 24 };
	r->pos++;
	for (;;) {
		size_t avail;
		int e = fill(r, 4, &avail);
		if (e < 0)
			return e;
		if (avail < 4) {
			/* fewer than 4 bytes left: no frame can start here */
			r->pos = r->buf_off + r->buf_len;
			return 0;
		}
		const uint8_t *p = at_pos(r);
		size_t n = (size_t)(r->buf_off + r->buf_len - r->pos);
		const uint8_t *q = memmem(p, n, sync, sizeof(sync));
		if (q) {
			r->pos += (uint64_t)(q - p);
			return 0;
		}
		/* keep the last 3 bytes: a sync word may straddle the refill */
		r->pos += n - 3;
	}
}

/* The next event of the batch being handed out, as the record it stands
 * for (raw.h, RAW_AGENT_BATCH); false when the batch is done.  An event
 * that does not fit what is left of the batch, or of an unknown kind, ends
 * the batch as a bad record. */
static bool batch_next(struct raw_reader *r, struct raw_record *ret)
{
	size_t left = r->bat_len - r->bat_pos;
	if (left == 0)
		return false;
	const uint8_t *p = r->bat + r->bat_pos;
	unsigned kind = left >= RAW_AGENT_EV_HEAD ? p[8] : 0, etype = left >= RAW_AGENT_EV_HEAD ? p[9] : 0;
	unsigned k = kind & ~RAW_AGENT_EV_ATTR;
	unsigned n = left >= RAW_AGENT_EV_HEAD ? get16(p + 10) : 0;
	if (k < RAW_AGENT_EV_MARK || k > RAW_AGENT_EV_COMM || raw_agent_ev_size(kind, etype, n) > left ||
	    (k == RAW_AGENT_EV_END && n != 0) || ((k == RAW_AGENT_EV_MARK || k == RAW_AGENT_EV_START) &&
						  n > RAW_AGENT_MAX_STR)) {
		damage(r, r->bat_off + r->bat_pos, "malformed event in a batch");
		r->st.bad_records++;
		r->bat_pos = r->bat_len;
		return false;
	}
	uint32_t domain = get32(p + 12);
	const uint8_t *q = p + RAW_AGENT_EV_HEAD;
	uint64_t id = 0;
	uint32_t category = 0, color = 0;
	if (raw_agent_ev_has_id(kind, etype)) {
		id = get64(q);
		q += 8;
	}
	if (kind & RAW_AGENT_EV_ATTR) {
		category = get32(q);
		color = get32(q + 4);
		q += 8;
	}
	uint8_t *o = r->scratch;
	uint16_t type;
	put64(o, get64(p));
	put32(o + 8, r->bat_tid);
	put32(o + 12, k == RAW_AGENT_EV_OSRT ? domain : etype);
	o += 16;
	switch (k) {
	case RAW_AGENT_EV_MARK:
	case RAW_AGENT_EV_START:
		type = k == RAW_AGENT_EV_MARK ? RAW_AGENT_MARK : RAW_AGENT_RANGE_START;
		if (k == RAW_AGENT_EV_START) {
			put64(o, id); /* push/pop: 0 */
			o += 8;
		}
		put64(o, domain);
		put64(o + 8, category);
		put32(o + 16, color);
		put32(o + 20, 0);
		put32(o + 24, n);
		memcpy(o + 28, q, n);
		o += 28 + n;
		break;
	case RAW_AGENT_EV_END:
		type = RAW_AGENT_RANGE_END;
		put64(o, id);
		put64(o + 8, domain);
		o += 16;
		break;
	case RAW_AGENT_EV_OSRT:
		type = RAW_AGENT_OSRT;
		put64(o, id);
		o += 8;
		break;
	default:
		type = RAW_AGENT_COMM_OP;
		put64(o, id);
		memcpy(o + 8, q, n);
		o += 8 + n;
		break;
	}
	r->bat_pos += raw_agent_ev_size(kind, etype, n);
	r->st.batch_events++;
	*ret = (struct raw_record){ .type = type, .len = (uint32_t)(o - r->scratch), .payload = r->scratch };
	return true;
}

/* A batch frame's payload kept aside to be handed out. */
static int batch_take(struct raw_reader *r, const uint8_t *payload, uint32_t len)
{
	if (len < RAW_AGENT_BATCH_HEAD) {
		damage(r, r->bat_off, "batch too short");
		r->st.bad_records++;
		return 0;
	}
	if (grow_to(&r->bat, &r->bat_cap, len) < 0)
		return -ENOMEM;
	memcpy(r->bat, payload, len);
	r->bat_tid = get32(payload);
	r->bat_len = len;
	r->bat_pos = RAW_AGENT_BATCH_HEAD;
	r->st.batches++;
	return 0;
}

int raw_reader_next(struct raw_reader *r, struct raw_record *ret)
{
	if (!r || !ret)
		return -EINVAL;
	if (batch_next(r, ret))
		return 1;
	if (r->done)
		return 0;

	for (;;) {
		uint32_t len = 0;
		uint64_t extent = 1;
		int c = candidate(r, &len, &extent);
		if (c < 0)
			return c;

		switch (c) {
		case C_END:
			if (r->in_gap) {
				if (r->torn_pending) {
					r->st.skipped_bytes += r->torn_at - r->gap_start;
					r->st.torn_bytes += r->pos - r->torn_at;
					r->st.torn_off = r->torn_at;
				} else
					r->st.skipped_bytes += r->pos - r->gap_start;
				r->in_gap = false;
			}
			r->done = true;
			return 0;

		case C_VALID: {
			if (r->in_gap) {
				/* a "torn" frame followed by a good one was damage */
				if (r->torn_pending && r->torn_at >= r->bad_end) {
					damage(r, r->torn_at, "length past the next frame");
					r->st.bad_records++;
				}
				r->st.skipped_bytes += r->pos - r->gap_start;
				r->in_gap = r->torn_pending = false;
			}
			const uint8_t *p = at_pos(r);
			*ret = (struct raw_record){
				.type = get16(p + 4),
				.flags = get16(p + 6),
				.len = len,
				.payload = p + RAW_FRAME_SIZE,
			};
			r->pos += RAW_FRAME_SIZE + (uint64_t)len;
			r->st.records++;
			if (ret->type != RAW_AGENT_BATCH || r->hdr.version < 2)
				return 1;
			r->bat_off = r->pos - len;
			int e = batch_take(r, ret->payload, ret->len);
			if (e < 0)
				return e;
			if (batch_next(r, ret))
				return 1;
			continue; /* an empty or damaged batch */
		}

		case C_TORN:
			if (!r->in_gap) {
				r->in_gap = true;
				r->gap_start = r->pos;
			}
			if (!r->torn_pending) {
				r->torn_pending = true;
				r->torn_at = r->pos;
			}
			break;

		default: /* C_NOSYNC, C_BAD */
			if (!r->in_gap) {
				r->in_gap = true;
				r->gap_start = r->pos;
			}
			/* A sync word inside the payload of a frame already
			 * counted is not another bad record. */
			if (!r->torn_pending && r->pos >= r->bad_end) {
				damage(r, r->pos, r->why);
				r->st.bad_records++;
				r->bad_end = r->pos + extent;
			}
			break;
		}

		int e = skip_to_sync(r);
		if (e < 0)
			return e;
	}
}

struct raw_reader *raw_reader_free(struct raw_reader *r)
{
	if (!r)
		return NULL;
	if (r->fd >= 0)
		close(r->fd);
	free(r->bat);
	free(r->buf);
	free(r);
	return NULL;
}

/* --- listing ------------------------------------------------------------- */

struct slice_ent {
	uint32_t idx;
	char *name;
};

static int slice_ent_cmp(const void *a, const void *b)
{
	const struct slice_ent *x = a, *y = b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void raw_paths_free(char **paths)
{
	strv_free(paths);
}

int raw_list_slices(const char *dir, enum raw_source source, char ***ret_paths)
{
	const char *stem = raw_source_stem(source);
	if (!stem)
		return -EINVAL;
	return raw_list_stem_slices(dir, stem, ret_paths);
}

int raw_list_stem_slices(const char *dir, const char *stem, char ***ret_paths)
{
	if (!dir || !stem_ok(stem) || !ret_paths)
		return -EINVAL;
	_cleanup_free_ char *abs = dir[0] == '/' ? strdup(dir) : realpath(dir, NULL);
	if (!abs)
		return -errno;
	DIR *d = opendir(abs);
	if (!d)
		return -errno;

	struct slice_ent *ents = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		uint32_t idx;
		if (slice_index(de->d_name, stem, &idx, NULL) < 0)
			continue;
		if (GROW_ARRAY(ents, cap, n, 16) < 0) {
			r = -ENOMEM;
			break;
		}
		ents[n].idx = idx;
		ents[n].name = path_join(abs, de->d_name);
		if (!ents[n].name) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);

	char **paths = NULL;
	if (r == 0) {
		paths = calloc(n + 1, sizeof(*paths));
		if (!paths)
			r = -ENOMEM;
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(ents[i].name);
		free(ents);
		return r;
	}
	qsort_safe(ents, n, sizeof(*ents), slice_ent_cmp);
	for (size_t i = 0; i < n; i++)
		paths[i] = ents[i].name;
	free(ents);
	*ret_paths = paths;
	return (int)(n > INT_MAX ? INT_MAX : n);
}

/* "agent_<pid>.data.slice_<n>" -> pid; anything else -> -EINVAL. */
static int agent_pid_of(const char *name, uint32_t *ret)
{
	static const char prefix[] = RAW_AGENT_PREFIX, suffix[] = ".data";
	const size_t np = sizeof(prefix) - 1, ns = sizeof(suffix) - 1;
	uint32_t idx;
	size_t stem_len;
	if (slice_index(name, NULL, &idx, &stem_len) < 0)
		return -EINVAL;
	if (stem_len <= np + ns || stem_len > np + ns + 10 || strncmp(name, prefix, np) != 0 ||
	    strncmp(name + stem_len - ns, suffix, ns) != 0)
		return -EINVAL;
	char num[11];
	size_t nd = stem_len - np - ns;
	memcpy(num, name + np, nd);
	num[nd] = 0;
	uint64_t v;
	if (num[0] == '0' || parse_u64(num, 1, UINT32_MAX, &v) < 0)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int raw_list_agent_pids(const char *dir, uint32_t **ret_pids, size_t *ret_n)
{
	if (!dir || !ret_pids || !ret_n)
		return -EINVAL;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;

	uint32_t *pids = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		uint32_t pid;
		if (agent_pid_of(de->d_name, &pid) < 0) {
			errno = 0;
			continue;
		}
		if (GROW_ARRAY(pids, cap, n, 16) < 0) {
			r = -ENOMEM;
			break;
		}
		pids[n++] = pid;
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r < 0) {
		free(pids);
		return r;
	}
	/* one entry per pid, however many slices it wrote */
	size_t u = 0;
	if (n > 0) {
		qsort_safe(pids, n, sizeof(*pids), u32_cmp);
		for (size_t i = 0; i < n; i++)
			if (u == 0 || pids[u - 1] != pids[i])
				pids[u++] = pids[i];
	}
	*ret_pids = pids;
	*ret_n = u;
	return (int)(u > INT_MAX ? INT_MAX : u);
}

/* --- ageing -------------------------------------------------------------- */

/* Reference §2.5: names containing any of these are never aged. */
static const char *const age_exempt[] = {
	"model_load_info", "task_desc_info", "id_map_info", "fusion_op_info",
	"tensor_data_info", "step_info", "training_trace", "info.json", "hash_dic",
	"start_info", "end_info", "host_start", "dev_start", "sample.json", "unaging",
};

struct age_ent {
	char *name;
	size_t stem_len;
	uint32_t idx;
	uint64_t size;
	struct timespec mtime;
	bool ageable;
};

static int age_ent_cmp(const void *a, const void *b)
{
	const struct age_ent *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool age_same_stem(const struct age_ent *x, const struct age_ent *y)
{
	return x->stem_len == y->stem_len && strncmp(x->name, y->name, x->stem_len) == 0;
}

/* by stem, then slice index */
static int age_stem_cmp(const void *a, const void *b)
{
	const struct age_ent *x = a, *y = b;
	size_t n = x->stem_len < y->stem_len ? x->stem_len : y->stem_len;
	int c = strncmp(x->name, y->name, n);
	if (c != 0)
		return c;
	if (x->stem_len != y->stem_len)
		return x->stem_len < y->stem_len ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool age_is_exempt(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(age_exempt); i++)
		if (strstr(name, age_exempt[i]))
			return true;
	return false;
}

/* A listing of the dir dfd from its start, dfd left open: a DIR of its
 * own descriptor (closedir closes only that), rewound because dup'd
 * descriptors share their offset with dfd, which an earlier listing may
 * have left at the end.  NULL with errno set. */
static DIR *list_dir_fd(int dfd)
{
	int fd = dup(dfd);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	rewinddir(d);
	return d;
}

/* The slices of dfd's directory, oldest first, each marked ageable or not,
 * and the bytes of every regular file there (skip: a name left out of
 * both, the quota file). */
static int age_scan(int dfd, const char *skip, struct age_ent **ret_ents, size_t *ret_n, uint64_t *ret_total)
{
	DIR *d = list_dir_fd(dfd);
	if (!d)
		return -errno;

	struct age_ent *ents = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	int r = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		struct stat st;
		if ((skip && streq(de->d_name, skip)) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			errno = 0;
			continue;
		}
		total += (uint64_t)st.st_size;
		uint32_t idx;
		size_t stem_len;
		if (age_is_exempt(de->d_name) || slice_index(de->d_name, NULL, &idx, &stem_len) < 0)
			continue;
		if (GROW_ARRAY(ents, cap, n, 32) < 0) {
			r = -ENOMEM;
			break;
		}
		char *name = strdup(de->d_name);
		if (!name) {
			r = -ENOMEM;
			break;
		}
		ents[n++] = (struct age_ent){
			.name = name,
			.stem_len = stem_len,
			.idx = idx,
			.size = (uint64_t)st.st_size,
			.mtime = st.st_mtim,
		};
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);

	/* the newest slice of each stem is still being written */
	if (r == 0 && n > 0) {
		qsort_safe(ents, n, sizeof(*ents), age_stem_cmp);
		for (size_t i = 0; i < n; i++)
			ents[i].ageable = i + 1 < n && age_same_stem(&ents[i], &ents[i + 1]);
		qsort_safe(ents, n, sizeof(*ents), age_ent_cmp);
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(ents[i].name);
		free(ents);
		return r;
	}
	*ret_ents = ents;
	*ret_n = n;
	*ret_total = total;
	return 0;
}

static void age_ents_free(struct age_ent *ents, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
}

struct quota_map;
static void quota_count_slice(struct quota_map *m, int dfd, const char *name);

/* Delete the oldest ageable slices until `want` bytes are gone (or none
 * is left) or, with before_ns, those last written before it (CLOCK_REALTIME
 * ns); each one's size to *freed as it goes, so a failure part way still
 * says what went.  count: a ring's quota, whose slices' records are counted
 * by type before they go.  Returns the files deleted or -errno. */
static int age_delete(int dfd, const struct age_ent *ents, size_t n, uint64_t want, uint64_t before_ns,
		      struct quota_map *count, uint64_t *freed)
{
	int deleted = 0;
	for (size_t i = 0; i < n && (before_ns || *freed < want); i++) {
		if (!ents[i].ageable)
			continue;
		if (before_ns && (uint64_t)ents[i].mtime.tv_sec * NSEC_PER_SEC + (uint64_t)ents[i].mtime.tv_nsec >=
					 before_ns)
			break; /* oldest first: the rest are newer */
		if (count)
			quota_count_slice(count, dfd, ents[i].name);
		if (unlinkat(dfd, ents[i].name, 0) < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		*freed += ents[i].size;
		deleted++;
	}
	return deleted;
}

int raw_age_dir(const char *dir, uint64_t limit_bytes, uint64_t *ret_freed_bytes)
{
	if (!dir)
		return -EINVAL;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	struct age_ent *ents;
	size_t n;
	uint64_t total, freed = 0;
	int r = age_scan(dfd, NULL, &ents, &n, &total);
	if (r < 0)
		return r;
	int deleted = total > limit_bytes ? age_delete(dfd, ents, n, total - limit_bytes, 0, NULL, &freed) : 0;
	age_ents_free(ents, n);
	if (deleted < 0)
		return deleted;
	if (ret_freed_bytes)
		*ret_freed_bytes = freed;
	return deleted;
}

/* --- storage limit --------------------------------------------------------- */

/* RAW_QUOTA_FILE as every writer maps it: host byte order (it never leaves
 * the machine that writes it while a session runs; raw_quota_read checks
 * the magic, so another machine's file reads as damaged, not wrong).  The
 * counters change only through atomic operations on the shared mapping. */
#define QUOTA_MAGIC "MSPQUOTA"
#define QUOTA_VERSION 2                /* 1: without slice_ns and aged_types */
#define QUOTA_FILE_BYTES 4096

struct quota_map {
	char magic[8];
	uint32_t version;
	uint32_t size;            /* sizeof(struct quota_map) */
	uint64_t limit_bytes;
	uint64_t slice_bytes;
	uint64_t used;            /* bytes of the dir's files, reserved before they are written */
	uint64_t peak;            /* the most `used` has been */
	uint64_t aged_files, aged_bytes;
	uint64_t refused_records, refused_bytes;
	/* version 2 */
	uint64_t slice_ns;        /* a ring: writers start a new slice after this long */
	uint32_t ring;            /* a ring: aged slices' records are counted by type */
	uint32_t n_aged_types;
	struct { uint32_t type, reserved; uint64_t records; } aged_types[RAW_QUOTA_TYPES]; /* under the lock */
};
#define QUOTA_V1_SIZE offsetof(struct quota_map, slice_ns)

struct raw_quota {
	int fd;                   /* the quota file: its flock serialises ageing */
	int dir_fd;
	struct quota_map *m;
	uint64_t lock_busy_ns;    /* the lock was not had in time: one try only until then */
};

/* The ageing lock is waited for boundedly: its holder may be a writer that
 * is stopped mid-ageing (SIGSTOP, a debugger, a suspended job), and no
 * writer, msprofd's loop least of all, may wait with it.  Past
 * QUOTA_LOCK_WAIT_MS the frame is refused (counted as any refusal), and
 * for QUOTA_LOCK_BACKOFF_NS after that each ageing tries once, at once. */
#define QUOTA_LOCK_WAIT_MS 100
#define QUOTA_LOCK_BACKOFF_NS NSEC_PER_SEC

#define QLOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define QADD(x, v) __atomic_add_fetch(&(x), (v), __ATOMIC_ACQ_REL)

/* Saturating: a file that was never counted (there before the quota) must
 * not wrap the count round. */
static void quota_sub(struct quota_map *m, uint64_t v)
{
	uint64_t u = QLOAD(m->used);
	while (!__atomic_compare_exchange_n(&m->used, &u, u > v ? u - v : 0, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
}

static bool quota_map_ok(const struct quota_map *m)
{
	return memcmp(m->magic, QUOTA_MAGIC, 8) == 0 && m->version == QUOTA_VERSION &&
	       m->size == sizeof(*m) && m->limit_bytes > 0 && m->slice_bytes > 0;
}

static int quota_map(int dir_fd, int fd, struct raw_quota **ret)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct quota_map))
		return -EBADMSG;
	void *p = mmap(NULL, sizeof(struct quota_map), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (!quota_map_ok(p)) {
		munmap(p, sizeof(struct quota_map));
		return -EBADMSG;
	}
	struct raw_quota *q = calloc(1, sizeof(*q));
	if (!q) {
		munmap(p, sizeof(struct quota_map));
		return -ENOMEM;
	}
	q->fd = fd;
	q->dir_fd = dir_fd;
	q->m = p;
	*ret = q;
	return 0;
}

int raw_quota_create(const char *dir, uint64_t limit_bytes, uint64_t slice_bytes, struct raw_quota **ret)
{
	if (!dir || !ret || !limit_bytes || !slice_bytes)
		return -EINVAL;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	/* A file left by an earlier session in this dir is replaced, not
	 * reused: a writer of that session still maps the old one. */
	if (unlinkat(dfd, RAW_QUOTA_FILE, 0) < 0 && errno != ENOENT)
		return -errno;
	_cleanup_close_ int fd = openat(dfd, RAW_QUOTA_FILE, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	struct age_ent *ents = NULL;
	size_t n = 0;
	uint64_t total = 0;
	int r = age_scan(dfd, RAW_QUOTA_FILE, &ents, &n, &total);
	age_ents_free(ents, n);
	/* The file itself counts, so that everything in the dir is under the
	 * limit; it is written whole before anyone maps it. */
	struct quota_map m = {
		.version = QUOTA_VERSION,
		.size = sizeof(m),
		.limit_bytes = limit_bytes,
		.slice_bytes = slice_bytes,
		.used = total + QUOTA_FILE_BYTES,
		.peak = total + QUOTA_FILE_BYTES,
	};
	memcpy(m.magic, QUOTA_MAGIC, 8);
	uint8_t page[QUOTA_FILE_BYTES] = { 0 };
	memcpy(page, &m, sizeof(m));
	struct iovec iov = { .iov_base = page, .iov_len = sizeof(page) };
	if (r == 0)
		r = write_all(fd, &iov, 1, 0);
	if (r == 0)
		r = quota_map(dfd, fd, ret);
	if (r < 0) {
		(void)unlinkat(dfd, RAW_QUOTA_FILE, 0);
		return r;
	}
	fd = dfd = -EBADF; /* handed on */
	return 0;
}

int raw_quota_open(const char *dir, struct raw_quota **ret)
{
	if (!dir || !ret)
		return -EINVAL;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	_cleanup_close_ int fd = openat(dfd, RAW_QUOTA_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = quota_map(dfd, fd, ret);
	if (r < 0)
		return r;
	fd = dfd = -EBADF; /* handed on */
	return 0;
}

struct raw_quota *raw_quota_free(struct raw_quota *q)
{
	if (!q)
		return NULL;
	munmap(q->m, sizeof(*q->m));
	close(q->fd);
	close(q->dir_fd);
	free(q);
	return NULL;
}

/* Under the file's lock: delete the oldest ageable slices until `need`
 * more bytes fit, each one's size off the count as it goes.  The lock is
 * an flock, which the kernel drops with a writer that dies holding it.
 * Returns the bytes freed (0: nothing could go, or the lock was not had
 * in time) or -errno. */
static int64_t quota_age(struct raw_quota *q, uint64_t need)
{
	struct quota_map *m = q->m;
	uint64_t now = mono_ns();
	unsigned tries = now < q->lock_busy_ns ? 1 : QUOTA_LOCK_WAIT_MS;
	while (flock(q->fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (errno == EWOULDBLOCK && --tries == 0) {
			q->lock_busy_ns = mono_ns() + QUOTA_LOCK_BACKOFF_NS;
			return 0; /* nothing could go: refused */
		}
		if (errno == EWOULDBLOCK)
			(void)nanosleep(&(struct timespec){ .tv_nsec = NSEC_PER_MSEC }, NULL);
	}
	q->lock_busy_ns = 0;
	uint64_t used = QLOAD(m->used), freed = 0;
	int64_t r = 0;
	/* another writer may have aged while we waited */
	if (used + need > m->limit_bytes) {
		struct age_ent *ents;
		size_t n;
		uint64_t total;
		r = age_scan(q->dir_fd, RAW_QUOTA_FILE, &ents, &n, &total);
		if (r == 0) {
			int d = age_delete(q->dir_fd, ents, n, used + need - m->limit_bytes, 0, m->ring ? m : NULL,
					   &freed);
			if (freed) {
				quota_sub(m, freed);
				QADD(m->aged_bytes, freed);
			}
			if (d > 0)
				QADD(m->aged_files, (uint64_t)d);
			r = d < 0 && !freed ? d : (int64_t)freed;
			age_ents_free(ents, n);
		}
	} else {
		r = 1; /* room now: try again */
	}
	flock(q->fd, LOCK_UN);
	return r;
}

int raw_quota_reserve(struct raw_quota *q, uint64_t bytes)
{
	struct quota_map *m = q->m;
	uint64_t limit = m->limit_bytes;
	for (;;) {
		uint64_t u = QLOAD(m->used);
		if (u + bytes <= limit) {
			if (!__atomic_compare_exchange_n(&m->used, &u, u + bytes, false, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				continue;
			uint64_t p = QLOAD(m->peak);
			while (p < u + bytes && !__atomic_compare_exchange_n(&m->peak, &p, u + bytes, false,
									     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				;
			return 0;
		}
		int64_t r = bytes > limit ? 0 : quota_age(q, bytes);
		if (r < 0)
			return (int)r;
		if (r == 0) {
			QADD(m->refused_records, 1);
			QADD(m->refused_bytes, bytes);
			return -EDQUOT;
		}
	}
}

void raw_quota_release(struct raw_quota *q, uint64_t bytes)
{
	if (q && bytes)
		quota_sub(q->m, bytes);
}

uint64_t raw_quota_slice_bytes(const struct raw_quota *q)
{
	return q ? q->m->slice_bytes : 0;
}

/* A ring's counts by type into the stats (racy reads of counts changed
 * under the lock: each is a whole u64). */
static void quota_types_out(const struct quota_map *m, struct raw_quota_stats *ret)
{
	ret->slice_ns = m->slice_ns;
	ret->ring = m->ring != 0;
	uint32_t n = QLOAD(m->n_aged_types);
	ret->n_aged_types = n < RAW_QUOTA_TYPES ? n : RAW_QUOTA_TYPES;
	for (uint32_t i = 0; i < ret->n_aged_types; i++) {
		ret->aged_types[i].type = m->aged_types[i].type;
		ret->aged_types[i].records = QLOAD(m->aged_types[i].records);
	}
}

static void quota_type_add(struct quota_map *m, uint32_t type, uint64_t v)
{
	uint32_t n = m->n_aged_types;
	for (uint32_t i = 0; i < n && i < RAW_QUOTA_TYPES; i++)
		if (m->aged_types[i].type == type) {
			QADD(m->aged_types[i].records, v);
			return;
		}
	if (n >= RAW_QUOTA_TYPES) {
		/* more kinds than the table holds: the last entry takes them (type 0) */
		m->aged_types[RAW_QUOTA_TYPES - 1].type = 0;
		QADD(m->aged_types[RAW_QUOTA_TYPES - 1].records, v);
		return;
	}
	m->aged_types[n].type = type;
	QADD(m->aged_types[n].records, v);
	__atomic_store_n(&m->n_aged_types, n + 1, __ATOMIC_RELEASE);
}

/* The record type a batch's event is handed out as (raw_reader_next). */
static uint32_t batch_event_type(unsigned kind)
{
	switch (kind & ~RAW_AGENT_EV_ATTR) {
	case RAW_AGENT_EV_MARK: return RAW_AGENT_MARK;
	case RAW_AGENT_EV_START: return RAW_AGENT_RANGE_START;
	case RAW_AGENT_EV_END: return RAW_AGENT_RANGE_END;
	case RAW_AGENT_EV_OSRT: return RAW_AGENT_OSRT;
	case RAW_AGENT_EV_COMM: return RAW_AGENT_COMM_OP;
	default: return 0;
	}
}

/* Whether a record type describes its writer (repeated in every slice so
 * that slices stand alone) rather than being data: not counted as lost. */
static bool type_describes(uint32_t type)
{
	switch (type) {
	case RAW_AGENT_PROCESS: case RAW_AGENT_THREAD: case RAW_AGENT_DOMAIN: case RAW_AGENT_CATEGORY:
	case RAW_AGENT_COUNTERS: case RAW_PROC_INFO: case RAW_THREAD_INFO: case RAW_DEV_INFO:
		return true;
	default:
		return false;
	}
}

/* The whole frames at the start of the slice in p[0, n): their end.  Frames
 * are walked by their lengths, not checked (the reader checks them). */
static size_t frames_end(const uint8_t *p, size_t n, void (*fn)(void *, uint32_t, const uint8_t *, uint32_t),
			 void *arg)
{
	size_t pos = RAW_HEADER_SIZE;
	if (n < pos)
		return 0;
	while (pos + RAW_FRAME_SIZE <= n) {
		uint32_t len = get32(p + pos + 8);
		if (get32(p + pos) != RAW_FRAME_SYNC || len > RAW_MAX_PAYLOAD || len > n - pos - RAW_FRAME_SIZE)
			break;
		if (fn)
			fn(arg, get16(p + pos + 4), p + pos + RAW_FRAME_SIZE, len);
		pos += RAW_FRAME_SIZE + len;
	}
	return pos;
}

static void count_frame(void *arg, uint32_t type, const uint8_t *p, uint32_t len)
{
	struct quota_map *m = arg;
	if (type != RAW_AGENT_BATCH) {
		if (!type_describes(type))
			quota_type_add(m, type, 1);
		return;
	}
	uint64_t by[6] = { 0 };
	for (uint32_t off = RAW_AGENT_BATCH_HEAD; off + RAW_AGENT_EV_HEAD <= len;) {
		const uint8_t *e = p + off;
		uint32_t size = raw_agent_ev_size(e[8], e[9], get16(e + 10));
		unsigned k = e[8] & ~RAW_AGENT_EV_ATTR;
		if (size > len - off || k < RAW_AGENT_EV_MARK || k > RAW_AGENT_EV_COMM)
			break;
		by[k]++;
		off += size;
	}
	for (unsigned k = RAW_AGENT_EV_MARK; k <= RAW_AGENT_EV_COMM; k++)
		if (by[k])
			quota_type_add(m, batch_event_type(k), by[k]);
}

/* Read a whole file of dfd's dir into memory (at most max bytes): *ret
 * malloc'd, its length returned, or -errno. */
static ssize_t read_whole(int dfd, const char *name, size_t max, uint8_t **ret)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	size_t want = (size_t)st.st_size < max ? (size_t)st.st_size : max;
	uint8_t *p = malloc(want ? want : 1);
	if (!p)
		return -ENOMEM;
	size_t got = 0;
	while (got < want) {
		ssize_t k = read(fd, p + got, want - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;
			free(p);
			return e;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	*ret = p;
	return (ssize_t)got;
}

/* A ring's slice about to be aged: its records by type into the map
 * (under the lock).  One that cannot be read counts nothing. */
static void quota_count_slice(struct quota_map *m, int dfd, const char *name)
{
	uint8_t *p = NULL;
	ssize_t n = read_whole(dfd, name, SIZE_MAX, &p);
	if (n > 0)
		(void)frames_end(p, (size_t)n, count_frame, m);
	free(p);
}

int raw_quota_set_ring(struct raw_quota *q, uint64_t slice_ns)
{
	if (!q)
		return -EINVAL;
	__atomic_store_n(&q->m->slice_ns, slice_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&q->m->ring, 1, __ATOMIC_RELEASE);
	return 0;
}

uint64_t raw_quota_slice_ns(const struct raw_quota *q)
{
	return q ? QLOAD(q->m->slice_ns) : 0;
}

int raw_quota_age_before(struct raw_quota *q, uint64_t cutoff_real_ns)
{
	if (!q || !cutoff_real_ns)
		return -EINVAL;
	/* one try: the caller comes back (msprofd's loop never waits) */
	if (flock(q->fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	struct quota_map *m = q->m;
	struct age_ent *ents;
	size_t n;
	uint64_t total, freed = 0;
	int r = age_scan(q->dir_fd, RAW_QUOTA_FILE, &ents, &n, &total);
	if (r == 0) {
		r = age_delete(q->dir_fd, ents, n, 0, cutoff_real_ns, m->ring ? m : NULL, &freed);
		if (freed) {
			quota_sub(m, freed);
			QADD(m->aged_bytes, freed);
		}
		if (r > 0)
			QADD(m->aged_files, (uint64_t)r);
		age_ents_free(ents, n);
	}
	flock(q->fd, LOCK_UN);
	return r;
}

/* Copy every file of the dir sfd (the quota file left out) into dfd, as
 * raw_dump_write says; with drop, each file is removed from sfd once
 * copied. */
static int dump_files(int sfd, int dfd, bool drop, uint64_t mono0_ns, uint64_t real0_ns, uint64_t *ret_files,
		      uint64_t *ret_bytes)
{
	DIR *d = list_dir_fd(sfd);
	if (!d)
		return -errno;
	uint64_t files = 0, bytes = 0;
	int r = 0;
	while (r == 0) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			r = -errno; /* 0 at the end */
			break;
		}
		if (de->d_name[0] == '.' || streq(de->d_name, RAW_QUOTA_FILE))
			continue;
		uint8_t *p = NULL;
		ssize_t n = read_whole(sfd, de->d_name, SIZE_MAX, &p);
		if (n == -ENOENT || n == -EINVAL || n == -ELOOP) {
			continue; /* aged meanwhile, or not a file */
		} else if (n < 0) {
			r = (int)n;
			break;
		}
		size_t keep = (size_t)n;
		uint32_t idx;
		if (slice_index(de->d_name, NULL, &idx, NULL) == 0 && keep >= RAW_HEADER_SIZE &&
		    memcmp(p, RAW_MAGIC, 8) == 0) {
			/* whole frames only (the writer may be appending), and
			 * the clocks of now */
			keep = frames_end(p, keep, NULL, NULL);
			put64(p + 16, mono0_ns);
			put64(p + 24, real0_ns);
			put32(p + 56, raw_crc32c(p, 56));
		}
		_cleanup_close_ int out = openat(dfd, de->d_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (out < 0) {
			r = -errno;
		} else {
			struct iovec iov = { .iov_base = p, .iov_len = keep };
			r = keep ? write_all(out, &iov, 1, 0) : 0;
		}
		free(p);
		if (drop)
			(void)unlinkat(sfd, de->d_name, 0);
		if (r == 0) {
			files++;
			bytes += keep;
		}
	}
	closedir(d);
	*ret_files += files;
	*ret_bytes += bytes;
	return r;
}

/* Every file of sfd (the quota file left out) hard-linked into snap_fd:
 * 0, or -errno where a link cannot be made or the listing fails (the
 * caller then copies in place).  A file aged before its link is left out. */
static int snapshot_files(int sfd, int snap_fd)
{
	DIR *d = list_dir_fd(sfd);
	if (!d)
		return -errno;
	int r = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			r = errno ? -errno : 0; /* a listing cut short is no snapshot */
			break;
		}
		if (de->d_name[0] == '.' || streq(de->d_name, RAW_QUOTA_FILE))
			continue;
		if (linkat(sfd, de->d_name, snap_fd, de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		r = -errno;
		struct stat st;
		if (r == -EPERM && fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			r = 0; /* a dir: not copied either */
			continue;
		}
		break;
	}
	closedir(d);
	return r;
}

/* Every file of the dir dir_fd removed. */
static void unlink_all(int dir_fd)
{
	DIR *d = list_dir_fd(dir_fd);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.')
			(void)unlinkat(dir_fd, de->d_name, 0);
	closedir(d);
}

struct raw_dump {
	int sfd;          /* src */
	char *snap;       /* SRC.dump-XXXXXX, or NULL */
	int snap_fd;      /* its links; -1: the copy reads src in place */
};

int raw_dump_take(const char *src, struct raw_dump **ret)
{
	if (!src || !ret)
		return -EINVAL;
	struct raw_dump *d = calloc(1, sizeof *d);
	if (!d)
		return -ENOMEM;
	d->snap_fd = -1;
	d->sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->sfd < 0) {
		int r = -errno;
		free(d);
		return r;
	}
	/* a link takes microseconds, the copy of a 100 MB ring a few hundred
	 * ms, in which writers at a GB a second age a third of it */
	if (asprintf(&d->snap, "%s.dump-XXXXXX", src) < 0) {
		d->snap = NULL;
	} else if (!mkdtemp(d->snap)) {
		free(d->snap);
		d->snap = NULL;
	} else if ((d->snap_fd = open(d->snap, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
		   snapshot_files(d->sfd, d->snap_fd) < 0) {
		unlink_all(d->snap_fd);
		close(d->snap_fd);
		d->snap_fd = -1;
	}
	*ret = d;
	return 0;
}

bool raw_dump_in_place(const struct raw_dump *d)
{
	return d && d->snap_fd < 0;
}

int raw_dump_write(struct raw_dump *d, const char *dst, uint64_t mono0_ns, uint64_t real0_ns, uint64_t *ret_files,
		   uint64_t *ret_bytes)
{
	if (!d || !dst)
		return -EINVAL;
	_cleanup_close_ int dfd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	uint64_t files = 0, bytes = 0;
	int r;
	/* from the links, each dropped once copied (raw_dump_free drops what
	 * an error left) */
	if (d->snap_fd >= 0)
		r = dump_files(d->snap_fd, dfd, true, mono0_ns, real0_ns, &files, &bytes);
	else
		r = dump_files(d->sfd, dfd, false, mono0_ns, real0_ns, &files, &bytes);
	if (ret_files)
		*ret_files = files;
	if (ret_bytes)
		*ret_bytes = bytes;
	return r;
}

struct raw_dump *raw_dump_free(struct raw_dump *d)
{
	if (!d)
		return NULL;
	if (d->snap_fd >= 0) {
		unlink_all(d->snap_fd);
		close(d->snap_fd);
	}
	if (d->snap)
		(void)rmdir(d->snap);
	free(d->snap);
	close(d->sfd);
	free(d);
	return NULL;
}

void raw_quota_stats(const struct raw_quota *q, struct raw_quota_stats *ret)
{
	const struct quota_map *m = q->m;
	*ret = (struct raw_quota_stats){
		.limit_bytes = m->limit_bytes,
		.slice_bytes = m->slice_bytes,
		.used_bytes = QLOAD(m->used),
		.peak_bytes = QLOAD(m->peak),
		.aged_files = QLOAD(m->aged_files),
		.aged_bytes = QLOAD(m->aged_bytes),
		.refused_records = QLOAD(m->refused_records),
		.refused_bytes = QLOAD(m->refused_bytes),
	};
	quota_types_out(m, ret);
}

int raw_quota_read(const char *dir, struct raw_quota_stats *ret)
{
	if (!dir || !ret)
		return -EINVAL;
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, RAW_QUOTA_FILE) >= sizeof path)
		return -ENAMETOOLONG;
	/* read, not mapped: the export may run on a read-only copy */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct quota_map m = { 0 };
	ssize_t n = pread(fd, &m, sizeof m, 0);
	if (n < 0)
		return -errno;
	/* a version 1 file (an older msprof's) has the fields before slice_ns */
	bool v1 = (size_t)n >= QUOTA_V1_SIZE && m.version == 1 && m.size == QUOTA_V1_SIZE;
	if (v1) {
		memset((uint8_t *)&m + QUOTA_V1_SIZE, 0, sizeof m - QUOTA_V1_SIZE);
		m.version = QUOTA_VERSION;
		m.size = sizeof m;
	}
	if ((!v1 && (size_t)n < sizeof m) || !quota_map_ok(&m))
		return -EBADMSG;
	*ret = (struct raw_quota_stats){
		.limit_bytes = m.limit_bytes,
		.slice_bytes = m.slice_bytes,
		.used_bytes = m.used,
		.peak_bytes = m.peak,
		.aged_files = m.aged_files,
		.aged_bytes = m.aged_bytes,
		.refused_records = m.refused_records,
		.refused_bytes = m.refused_bytes,
	};
	quota_types_out(&m, ret);
	return 0;
}
