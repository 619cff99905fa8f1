/* Raw files: every record type round-trips, damage is counted and survived,
 * slices rotate and age. */
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/raw.h"
#include "common/util.h"
#include "tests/unit/unittest.h"


static char tmpdir[] = "/tmp/test-raw-XXXXXX";

static char *subdir(const char *name)
{
	return unittest_subdir(tmpdir, name);
}

static uint64_t file_size(const char *p)
{
	struct stat st;
	CHECK(stat(p, &st) == 0);
	return (uint64_t)st.st_size;
}

static void read_file(const char *p, uint8_t **ret, size_t *ret_len)
{
	size_t n = file_size(p);
	uint8_t *b = malloc(n + 1);
	CHECK(b);
	FILE *f = fopen(p, "rb");
	CHECK(f);
	CHECK(fread(b, 1, n, f) == n);
	fclose(f);
	*ret = b;
	*ret_len = n;
}

static void write_file(const char *p, const void *b, size_t n)
{
	FILE *f = fopen(p, "wb");
	CHECK(f);
	CHECK(fwrite(b, 1, n, f) == n);
	CHECK(fclose(f) == 0);
}

/* --- encoders the way a collector writes, decoders the way a parser reads -- */

static const struct raw_proc_info info0 = { 111, 4242, 1, 987654321, "a) b (c", 1 };
static const struct raw_thread_cpu tc0[] = {
	{ 4242, 4242, 150, 30, 1800000123ULL, 1 },
	{ 4242, 4243, 7, 0, 70000000ULL, -1 },
};
static const struct raw_proc_mem pm0[] = { { 4242, 12345, 678, 90 }, { 1, 1, 2, 3 } };
static const struct raw_proc_io io0[] = { { 4242, 1, 2, 3, 33554432ULL, 5, 6 } };
static const struct raw_net_dev nd0[] = {
	{ "lo", 1, 2, 3, 4, 5, 6, 7, 8 },
	{ "fifteen-chars-x", UINT64_MAX, 0, 0, 0, 0, 0, 0, 1 },
};
static const struct raw_sys_cpu sc0[] = {
	{ -1, 10, 20, 30, 40, 50, 60, 70, 80 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8 },
};
static const struct raw_sys_mem sm0 = { 222, 16000000, 8000000, 1000, 2000, 300, 9000000, 7000000, 16, 8 };
static const struct raw_proc_cpu pc0[] = { { 1, 100, 200 }, { 4242, 3, 4 } };

static void enc_proc_info(struct raw_buf *b, const struct raw_proc_info *p)
{
	raw_buf_u64(b, p->ts);
	raw_buf_u32(b, p->pid);
	raw_buf_u32(b, p->ppid);
	raw_buf_u64(b, p->starttime);
	raw_buf_str(b, p->comm, 16);
	raw_buf_u32(b, p->is_target);
}

static void write_all_types(struct raw_writer *w)
{
	struct raw_buf b = { 0 };

	enc_proc_info(&b, &info0);
	CHECK(raw_writer_append(w, RAW_PROC_INFO, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 112);
	raw_buf_u32(&b, 2);
	for (size_t i = 0; i < ARRAY_SIZE(tc0); i++) {
		raw_buf_u32(&b, tc0[i].pid);
		raw_buf_u32(&b, tc0[i].tid);
		raw_buf_u64(&b, tc0[i].utime);
		raw_buf_u64(&b, tc0[i].stime);
		raw_buf_u64(&b, tc0[i].runtime_ns);
		raw_buf_u32(&b, (uint32_t)tc0[i].processor);
		raw_buf_u32(&b, 0);
	}
	CHECK(raw_writer_append(w, RAW_THREAD_CPU, b.data, (uint32_t)b.len) == 0);

	for (int all = 0; all < 2; all++) {
		raw_buf_reset(&b);
		raw_buf_u64(&b, 113);
		raw_buf_u32(&b, 2);
		for (size_t i = 0; i < ARRAY_SIZE(pm0); i++) {
			raw_buf_u32(&b, pm0[i].pid);
			raw_buf_u32(&b, 0);
			raw_buf_u64(&b, pm0[i].size);
			raw_buf_u64(&b, pm0[i].resident);
			raw_buf_u64(&b, pm0[i].shared);
		}
		CHECK(raw_writer_append(w, all ? RAW_PROC_MEM_ALL : RAW_PROC_MEM, b.data, (uint32_t)b.len) == 0);
	}

	raw_buf_reset(&b);
	raw_buf_u64(&b, 114);
	raw_buf_u32(&b, 1);
	raw_buf_u32(&b, io0[0].pid);
	raw_buf_u32(&b, 0);
	raw_buf_u64(&b, io0[0].rchar);
	raw_buf_u64(&b, io0[0].wchar);
	raw_buf_u64(&b, io0[0].read_bytes);
	raw_buf_u64(&b, io0[0].write_bytes);
	raw_buf_u64(&b, io0[0].cancelled_write_bytes);
	raw_buf_u64(&b, io0[0].blkio_ticks);
	CHECK(raw_writer_append(w, RAW_PROC_IO, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 115);
	raw_buf_u32(&b, 2);
	for (size_t i = 0; i < ARRAY_SIZE(nd0); i++) {
		raw_buf_str(&b, nd0[i].ifname, 16);
		raw_buf_u64(&b, nd0[i].rx_bytes);
		raw_buf_u64(&b, nd0[i].rx_packets);
		raw_buf_u64(&b, nd0[i].rx_errs);
		raw_buf_u64(&b, nd0[i].rx_drop);
		raw_buf_u64(&b, nd0[i].tx_bytes);
		raw_buf_u64(&b, nd0[i].tx_packets);
		raw_buf_u64(&b, nd0[i].tx_errs);
		raw_buf_u64(&b, nd0[i].tx_drop);
	}
	CHECK(raw_writer_append(w, RAW_NET_DEV, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 116);
	raw_buf_u32(&b, 2);
	for (size_t i = 0; i < ARRAY_SIZE(sc0); i++) {
		raw_buf_u32(&b, (uint32_t)sc0[i].cpu);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, sc0[i].user);
		raw_buf_u64(&b, sc0[i].nice);
		raw_buf_u64(&b, sc0[i].system);
		raw_buf_u64(&b, sc0[i].idle);
		raw_buf_u64(&b, sc0[i].iowait);
		raw_buf_u64(&b, sc0[i].irq);
		raw_buf_u64(&b, sc0[i].softirq);
		raw_buf_u64(&b, sc0[i].steal);
	}
	CHECK(raw_writer_append(w, RAW_SYS_CPU, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, sm0.ts);
	raw_buf_u64(&b, sm0.mem_total);
	raw_buf_u64(&b, sm0.mem_free);
	raw_buf_u64(&b, sm0.buffers);
	raw_buf_u64(&b, sm0.cached);
	raw_buf_u64(&b, sm0.shmem);
	raw_buf_u64(&b, sm0.commit_limit);
	raw_buf_u64(&b, sm0.committed_as);
	raw_buf_u64(&b, sm0.huge_total);
	raw_buf_u64(&b, sm0.huge_free);
	CHECK(raw_writer_append(w, RAW_SYS_MEM, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 117);
	raw_buf_u32(&b, 2);
	for (size_t i = 0; i < ARRAY_SIZE(pc0); i++) {
		raw_buf_u32(&b, pc0[i].pid);
		raw_buf_u32(&b, 0);
		raw_buf_u64(&b, pc0[i].utime);
		raw_buf_u64(&b, pc0[i].stime);
	}
	CHECK(raw_writer_append(w, RAW_PROC_CPU, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 118);
	raw_buf_u32(&b, 4242);
	CHECK(raw_writer_append(w, RAW_PROC_EXIT, b.data, (uint32_t)b.len) == 0);

	raw_buf_reset(&b);
	raw_buf_u64(&b, 119);
	raw_buf_u32(&b, 1);
	CHECK(raw_writer_append(w, RAW_SESSION_END, b.data, (uint32_t)b.len) == 0);

	CHECK(b.err == 0);
	raw_buf_release(&b);
}

#define N_TYPES_WRITTEN 11

static void check_record(const struct raw_record *rec, int i)
{
	struct raw_cur c = { rec->payload, rec->len, 0 };
	static const uint16_t order[N_TYPES_WRITTEN] = {
		RAW_PROC_INFO, RAW_THREAD_CPU, RAW_PROC_MEM, RAW_PROC_MEM_ALL, RAW_PROC_IO, RAW_NET_DEV,
		RAW_SYS_CPU, RAW_SYS_MEM, RAW_PROC_CPU, RAW_PROC_EXIT, RAW_SESSION_END,
	};
	CHECK(rec->type == order[i]);
	CHECK(rec->flags == 0);

	switch (rec->type) {
	case RAW_PROC_INFO: {
		struct raw_proc_info p;
		p.ts = raw_cur_u64(&c);
		p.pid = raw_cur_u32(&c);
		p.ppid = raw_cur_u32(&c);
		p.starttime = raw_cur_u64(&c);
		raw_cur_str(&c, p.comm, 16);
		p.is_target = raw_cur_u32(&c);
		CHECK(p.ts == info0.ts && p.pid == info0.pid && p.ppid == info0.ppid);
		CHECK(p.starttime == info0.starttime && streq(p.comm, info0.comm) && p.is_target == 1);
		break;
	}
	case RAW_THREAD_CPU: {
		CHECK(raw_cur_u64(&c) == 112);
		CHECK(raw_cur_u32(&c) == 2);
		for (size_t k = 0; k < 2; k++) {
			CHECK(raw_cur_u32(&c) == tc0[k].pid);
			CHECK(raw_cur_u32(&c) == tc0[k].tid);
			CHECK(raw_cur_u64(&c) == tc0[k].utime);
			CHECK(raw_cur_u64(&c) == tc0[k].stime);
			CHECK(raw_cur_u64(&c) == tc0[k].runtime_ns);
			CHECK((int32_t)raw_cur_u32(&c) == tc0[k].processor);
			CHECK(raw_cur_u32(&c) == 0);
		}
		break;
	}
	case RAW_PROC_MEM:
	case RAW_PROC_MEM_ALL:
		CHECK(raw_cur_u64(&c) == 113);
		CHECK(raw_cur_u32(&c) == 2);
		for (size_t k = 0; k < 2; k++) {
			CHECK(raw_cur_u32(&c) == pm0[k].pid);
			CHECK(raw_cur_u32(&c) == 0);
			CHECK(raw_cur_u64(&c) == pm0[k].size);
			CHECK(raw_cur_u64(&c) == pm0[k].resident);
			CHECK(raw_cur_u64(&c) == pm0[k].shared);
		}
		break;
	case RAW_PROC_IO:
		CHECK(raw_cur_u64(&c) == 114);
		CHECK(raw_cur_u32(&c) == 1);
		CHECK(raw_cur_u32(&c) == io0[0].pid);
		CHECK(raw_cur_u32(&c) == 0);
		CHECK(raw_cur_u64(&c) == io0[0].rchar);
		CHECK(raw_cur_u64(&c) == io0[0].wchar);
		CHECK(raw_cur_u64(&c) == io0[0].read_bytes);
		CHECK(raw_cur_u64(&c) == io0[0].write_bytes);
		CHECK(raw_cur_u64(&c) == io0[0].cancelled_write_bytes);
		CHECK(raw_cur_u64(&c) == io0[0].blkio_ticks);
		break;
	case RAW_NET_DEV:
		CHECK(raw_cur_u64(&c) == 115);
		CHECK(raw_cur_u32(&c) == 2);
		for (size_t k = 0; k < 2; k++) {
			char name[16];
			raw_cur_str(&c, name, sizeof(name));
			/* names are cut to 15 characters, always terminated */
			CHECK(strncmp(name, nd0[k].ifname, 15) == 0 && strlen(name) <= 15);
			CHECK(raw_cur_u64(&c) == nd0[k].rx_bytes);
			CHECK(raw_cur_u64(&c) == nd0[k].rx_packets);
			CHECK(raw_cur_u64(&c) == nd0[k].rx_errs);
			CHECK(raw_cur_u64(&c) == nd0[k].rx_drop);
			CHECK(raw_cur_u64(&c) == nd0[k].tx_bytes);
			CHECK(raw_cur_u64(&c) == nd0[k].tx_packets);
			CHECK(raw_cur_u64(&c) == nd0[k].tx_errs);
			CHECK(raw_cur_u64(&c) == nd0[k].tx_drop);
		}
		break;
	case RAW_SYS_CPU:
		CHECK(raw_cur_u64(&c) == 116);
		CHECK(raw_cur_u32(&c) == 2);
		for (size_t k = 0; k < 2; k++) {
			CHECK((int32_t)raw_cur_u32(&c) == sc0[k].cpu);
			CHECK(raw_cur_u32(&c) == 0);
			CHECK(raw_cur_u64(&c) == sc0[k].user);
			CHECK(raw_cur_u64(&c) == sc0[k].nice);
			CHECK(raw_cur_u64(&c) == sc0[k].system);
			CHECK(raw_cur_u64(&c) == sc0[k].idle);
			CHECK(raw_cur_u64(&c) == sc0[k].iowait);
			CHECK(raw_cur_u64(&c) == sc0[k].irq);
			CHECK(raw_cur_u64(&c) == sc0[k].softirq);
			CHECK(raw_cur_u64(&c) == sc0[k].steal);
		}
		break;
	case RAW_SYS_MEM:
		CHECK(raw_cur_u64(&c) == sm0.ts);
		CHECK(raw_cur_u64(&c) == sm0.mem_total);
		CHECK(raw_cur_u64(&c) == sm0.mem_free);
		CHECK(raw_cur_u64(&c) == sm0.buffers);
		CHECK(raw_cur_u64(&c) == sm0.cached);
		CHECK(raw_cur_u64(&c) == sm0.shmem);
		CHECK(raw_cur_u64(&c) == sm0.commit_limit);
		CHECK(raw_cur_u64(&c) == sm0.committed_as);
		CHECK(raw_cur_u64(&c) == sm0.huge_total);
		CHECK(raw_cur_u64(&c) == sm0.huge_free);
		break;
	case RAW_PROC_CPU:
		CHECK(raw_cur_u64(&c) == 117);
		CHECK(raw_cur_u32(&c) == 2);
		for (size_t k = 0; k < 2; k++) {
			CHECK(raw_cur_u32(&c) == pc0[k].pid);
			CHECK(raw_cur_u32(&c) == 0);
			CHECK(raw_cur_u64(&c) == pc0[k].utime);
			CHECK(raw_cur_u64(&c) == pc0[k].stime);
		}
		break;
	case RAW_PROC_EXIT:
		CHECK(raw_cur_u64(&c) == 118);
		CHECK(raw_cur_u32(&c) == 4242);
		break;
	case RAW_SESSION_END:
		CHECK(raw_cur_u64(&c) == 119);
		CHECK(raw_cur_u32(&c) == 1);
		break;
	}
	CHECK(c.err == 0 && c.left == 0);
}

/* Read a whole file; returns records, fills stats. */
static int read_all(const char *path, struct raw_reader_stats *st, void (*fn)(const struct raw_record *, int))
{
	struct raw_reader *r;
	int e = raw_reader_open(path, &r);
	if (e < 0)
		return e;
	struct raw_record rec;
	int n = 0;
	while ((e = raw_reader_next(r, &rec)) > 0) {
		if (fn)
			fn(&rec, n);
		n++;
	}
	CHECK(e == 0);
	CHECK(raw_reader_next(r, &rec) == 0); /* stays at the end */
	if (st)
		*st = *raw_reader_stats(r);
	CHECK(raw_reader_stats(r)->records == (uint64_t)n);
	raw_reader_free(r);
	return n;
}

static void test_crc_and_stems(void)
{
	CHECK(raw_crc32("123456789", 9) == 0xCBF43926U);
	CHECK(raw_crc32("", 0) == 0);
	/* CRC-32C's check value (RFC 3720), with the CPU's instruction where
	 * it has one; the tables are checked in the child below */
	CHECK(raw_crc32c("123456789", 9) == 0xE3069283U);
	CHECK(raw_crc32c("", 0) == 0);
	CHECK(raw_crc32c_update(raw_crc32c("1234", 4), "56789", 5) == 0xE3069283U);
	/* the table-driven CRC against the bitwise definition, every length
	 * and alignment of a random buffer */
	static uint8_t rnd[320];
	uint32_t seed = 12345;
	for (size_t i = 0; i < sizeof(rnd); i++) {
		seed = seed * 1103515245u + 12345u;
		rnd[i] = (uint8_t)(seed >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len + off <= 308 && len <= 300; len++) {
			uint32_t c = 0xffffffffU;
			for (size_t i = 0; i < len; i++) {
				c ^= rnd[off + i];
				for (int k = 0; k < 8; k++)
					c = (c >> 1) ^ (0xedb88320U & (0U - (c & 1)));
			}
			CHECK(raw_crc32(rnd + off, len) == (c ^ 0xffffffffU));
			c = 0xffffffffU;
			for (size_t i = 0; i < len; i++) {
				c ^= rnd[off + i];
				for (int k = 0; k < 8; k++)
					c = (c >> 1) ^ (0x82f63b78U & (0U - (c & 1)));
			}
			CHECK(raw_crc32c(rnd + off, len) == (c ^ 0xffffffffU));
		}
	CHECK(streq(raw_source_stem(RAW_SOURCE_HOST_CPU), "host_cpu.data"));
	CHECK(streq(raw_source_stem(RAW_SOURCE_HOST_MEM), "host_mem.data"));
	CHECK(streq(raw_source_stem(RAW_SOURCE_HOST_DISK), "host_disk.data"));
	CHECK(streq(raw_source_stem(RAW_SOURCE_HOST_NET), "host_network.data"));
	CHECK(streq(raw_source_stem(RAW_SOURCE_USAGE_CPU), "host_usage_cpu.data"));
	CHECK(streq(raw_source_stem(RAW_SOURCE_USAGE_MEM), "host_usage_mem.data"));
	CHECK(raw_source_stem(0) == NULL);
	CHECK(raw_source_stem(7) == NULL);
	CHECK(raw_source_stem(100) == NULL);
}

static void test_buf_cursor(void)
{
	struct raw_buf b = { 0 };
	raw_buf_u16(&b, 0xBEEF);
	raw_buf_u32(&b, 0xDEADBEEF);
	raw_buf_u64(&b, 0x0123456789ABCDEFULL);
	raw_buf_str(&b, "exactly16chars!!", 16);
	raw_buf_str(&b, NULL, 4);
	raw_buf_bytes(&b, "xy", 2);
	CHECK(b.err == 0 && b.len == 2 + 4 + 8 + 16 + 4 + 2);
	/* little-endian on disk whatever the host */
	CHECK(b.data[0] == 0xEF && b.data[1] == 0xBE && b.data[2] == 0xEF && b.data[5] == 0xDE);
	CHECK(b.data[6] == 0xEF && b.data[13] == 0x01);

	struct raw_cur c = { b.data, b.len, 0 };
	CHECK(raw_cur_u16(&c) == 0xBEEF);
	CHECK(raw_cur_u32(&c) == 0xDEADBEEF);
	CHECK(raw_cur_u64(&c) == 0x0123456789ABCDEFULL);
	char s[16];
	raw_cur_str(&c, s, sizeof(s));
	CHECK(streq(s, "exactly16chars!")); /* 15 kept, field always terminated */
	raw_cur_str(&c, s, 4);
	CHECK(streq(s, ""));
	CHECK(raw_cur_u16(&c) == ('x' | 'y' << 8));
	CHECK(c.err == 0 && c.left == 0);
	CHECK(raw_cur_u32(&c) == 0 && c.err != 0);
	CHECK(raw_cur_u64(&c) == 0 && c.err != 0);
	raw_cur_str(&c, s, 8);
	CHECK(s[0] == 0);

	raw_buf_reset(&b);
	CHECK(b.len == 0 && b.err == 0);
	for (int i = 0; i < 100000; i++)
		raw_buf_u64(&b, (uint64_t)i);
	CHECK(b.len == 800000 && b.err == 0);
	raw_buf_release(&b);
	CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

static void test_roundtrip(void)
{
	char *dir = subdir("roundtrip");
	struct raw_writer *w;
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_CPU, 1111, 2222, 0, &w) == 0);
	write_all_types(w);
	CHECK(raw_writer_append(w, 99, NULL, RAW_MAX_PAYLOAD + 1) == -EMSGSIZE);
	CHECK(raw_writer_append(w, 99, NULL, 1) == -EINVAL);
	uint64_t bytes = raw_writer_bytes(w);
	CHECK(raw_writer_slice(w) == 0);
	raw_writer_free(w);
	CHECK(raw_writer_free(NULL) == NULL);

	char **paths;
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_CPU, &paths) == 1);
	CHECK(paths[0][0] == '/' && strstr(paths[0], "/host_cpu.data.slice_0") && paths[1] == NULL);
	CHECK(file_size(paths[0]) == bytes);
	struct stat st;
	CHECK(stat(paths[0], &st) == 0);
	CHECK((st.st_mode & 0777) == 0640);

	struct raw_reader *r;
	CHECK(raw_reader_open(paths[0], &r) == 0);
	const struct raw_header *h = raw_reader_header(r);
	CHECK(h->version == RAW_VERSION && h->mono0_ns == 1111 && h->real0_ns == 2222);
	CHECK(h->source == RAW_SOURCE_HOST_CPU && h->writer_pid == (uint32_t)getpid() && h->slice == 0);
	CHECK(h->clk_tck == (uint32_t)sysconf(_SC_CLK_TCK) && h->page_size == (uint64_t)sysconf(_SC_PAGESIZE));
	raw_reader_free(r);

	struct raw_reader_stats rs;
	CHECK(read_all(paths[0], &rs, check_record) == N_TYPES_WRITTEN);
	CHECK(rs.bad_records == 0 && rs.skipped_bytes == 0 && rs.torn_bytes == 0);

	/* header bytes are where raw.h says */
	uint8_t *buf;
	size_t len;
	read_file(paths[0], &buf, &len);
	CHECK(memcmp(buf, RAW_MAGIC, 8) == 0 && buf[8] == RAW_VERSION && buf[12] == RAW_HEADER_SIZE);
	CHECK(buf[16] == (1111 & 0xff) && buf[32] == RAW_SOURCE_HOST_CPU);
	CHECK(buf[64] == 0x4d && buf[65] == 0x52 && buf[66] == 0x46 && buf[67] == 0x58); /* "MRFX" */
	free(buf);

	/* a second writer in the same dir continues with the next slice */
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == 0);
	CHECK(raw_writer_slice(w) == 1);
	raw_writer_free(w);
	raw_paths_free(paths);
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_CPU, &paths) == 2);
	raw_paths_free(paths);
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_MEM, &paths) == 0 && paths[0] == NULL);
	raw_paths_free(paths);
	CHECK(raw_writer_open("/nonexistent/dir", RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == -ENOENT);
	CHECK(raw_writer_open(dir, 0, 1, 2, 0, &w) == -EINVAL);
	free(dir);
}

/* A file of n records "i" (u64 i, then i bytes of i); offsets of frames. */
static char *make_seq_file(const char *dir, int n, uint64_t *offs)
{
	struct raw_writer *w;
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_MEM, 1, 2, 0, &w) == 0);
	struct raw_buf b = { 0 };
	for (int i = 0; i < n; i++) {
		if (offs)
			offs[i] = raw_writer_bytes(w);
		raw_buf_reset(&b);
		raw_buf_u64(&b, (uint64_t)i);
		for (int k = 0; k < i % 50; k++)
			raw_buf_bytes(&b, &(uint8_t){ (uint8_t)i }, 1);
		CHECK(raw_writer_append(w, RAW_PROC_EXIT, b.data, (uint32_t)b.len) == 0);
	}
	if (offs)
		offs[n] = raw_writer_bytes(w);
	raw_buf_release(&b);
	raw_writer_free(w);
	char **paths;
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_MEM, &paths) >= 1);
	char *p = strdup(paths[0]);
	raw_paths_free(paths);
	return p;
}

static int seen_ids[1024];
static int n_seen;

static void collect_ids(const struct raw_record *rec, int i)
{
	struct raw_cur c = { rec->payload, rec->len, 0 };
	uint64_t id = raw_cur_u64(&c);
	CHECK(c.err == 0);
	CHECK(rec->len == 8 + id % 50);
	for (size_t k = 8; k < rec->len; k++)
		CHECK(rec->payload[k] == (uint8_t)id);
	if (n_seen < 1024)
		seen_ids[n_seen++] = (int)id;
}

static void test_damage(void)
{
	enum { N = 40 };
	uint64_t offs[N + 1];
	struct raw_reader_stats st;
	char *dir = subdir("damage");
	char *path = make_seq_file(dir, N, offs);
	uint8_t *orig;
	size_t len;
	read_file(path, &orig, &len);
	CHECK(len == offs[N]);
	char dpath[4096];
	snprintf(dpath, sizeof(dpath), "%s/damaged", dir);

	/* torn tail: the last frame cut at every possible length */
	for (uint64_t cut = offs[N - 1] + 1; cut < offs[N]; cut++) {
		write_file(dpath, orig, cut);
		n_seen = 0;
		CHECK(read_all(dpath, &st, collect_ids) == N - 1);
		CHECK(st.bad_records == 0 && st.skipped_bytes == 0);
		CHECK(st.torn_bytes == cut - offs[N - 1]);
		CHECK(seen_ids[N - 2] == N - 2);
	}

	/* a flipped byte in the middle of one payload: one bad record, the
	 * rest come back in order */
	uint8_t *d = malloc(len);
	memcpy(d, orig, len);
	d[offs[20] + RAW_FRAME_SIZE + 3] ^= 0x40;
	write_file(dpath, d, len);
	n_seen = 0;
	CHECK(read_all(dpath, &st, collect_ids) == N - 1);
	CHECK(st.bad_records == 1 && st.torn_bytes == 0);
	CHECK(st.skipped_bytes == offs[21] - offs[20]);
	for (int i = 0, k = 0; i < N; i++)
		if (i != 20)
			CHECK(seen_ids[k++] == i);

	/* a damaged sync word, a damaged length (too big; plausible), a damaged crc */
	const size_t where[] = { 0, 9, 11, 12 };
	for (size_t w = 0; w < ARRAY_SIZE(where); w++) {
		memcpy(d, orig, len);
		d[offs[7] + where[w]] ^= where[w] == 11 ? 0x7f : 0x01;
		write_file(dpath, d, len);
		n_seen = 0;
		CHECK(read_all(dpath, &st, collect_ids) == N - 1);
		CHECK(st.bad_records == 1 && st.torn_bytes == 0);
		CHECK(seen_ids[7] == 8);
	}

	/* garbage inserted between two frames */
	uint8_t *g = malloc(len + 100);
	memcpy(g, orig, offs[10]);
	memset(g + offs[10], 0xA5, 100);
	memcpy(g + offs[10] + 100, orig + offs[10], len - offs[10]);
	write_file(dpath, g, len + 100);
	CHECK(read_all(dpath, &st, NULL) == N);
	CHECK(st.bad_records == 1 && st.skipped_bytes == 100 && st.torn_bytes == 0);

	/* a frame whose length claims more than the file holds, followed by
	 * good frames: damage, not a torn tail */
	memcpy(d, orig, len);
	d[offs[5] + 8] = 0xff;
	d[offs[5] + 9] = 0xff;
	d[offs[5] + 10] = 0x0f; /* len 0x0fffff, under RAW_MAX_PAYLOAD */
	write_file(dpath, d, len);
	CHECK(read_all(dpath, &st, NULL) == N - 1);
	CHECK(st.bad_records == 1 && st.torn_bytes == 0);

	/* header problems: a damaged magic or version in a file of frames
	 * is a damaged header; a newer version whose header checks is a
	 * newer file, and one without frames or magic is not a raw file */
	memcpy(d, orig, len);
	d[0] = 'X';
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EBADMSG);
	d[RAW_HEADER_SIZE] ^= 0xff;
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EPROTO);
	memcpy(d, orig, len);
	d[8] = RAW_VERSION + 1;
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EBADMSG);
	{
		uint32_t c = raw_crc32c(d, 56);
		for (int i = 0; i < 4; i++)
			d[56 + i] = (uint8_t)(c >> (8 * i));
	}
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EPROTONOSUPPORT);
	/* the reserved word is checked too */
	memcpy(d, orig, len);
	d[61] ^= 0x04;
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EBADMSG);
	/* a flipped bit in the header's clocks fails its checksum */
	memcpy(d, orig, len);
	d[20] ^= 0x10;
	write_file(dpath, d, len);
	CHECK(read_all(dpath, NULL, NULL) == -EBADMSG);
	/* as does one in a frame's type: the frame is skipped, counted */
	memcpy(d, orig, len);
	d[RAW_HEADER_SIZE + 4] ^= 0x01;
	write_file(dpath, d, len);
	struct raw_reader_stats st1;
	CHECK(read_all(dpath, &st1, NULL) == N - 1 && st1.bad_records == 1);
	write_file(dpath, orig, 40);
	CHECK(read_all(dpath, NULL, NULL) == -EPROTO);
	write_file(dpath, orig, 0);
	CHECK(read_all(dpath, NULL, NULL) == -EPROTO);
	/* a longer header from a later minor revision is skipped */
	memcpy(g, orig, RAW_HEADER_SIZE);
	g[12] = RAW_HEADER_SIZE + 16;
	uint32_t hcrc = raw_crc32c(g, 56); /* the header's checksum covers its size */
	memcpy(g + 56, &hcrc, 4);
	memset(g + RAW_HEADER_SIZE, 0, 16);
	memcpy(g + RAW_HEADER_SIZE + 16, orig + RAW_HEADER_SIZE, len - RAW_HEADER_SIZE);
	write_file(dpath, g, len + 16);
	CHECK(read_all(dpath, &st, NULL) == N && st.bad_records == 0);
	CHECK(read_all("/nonexistent", NULL, NULL) == -ENOENT);

	free(g);
	free(d);
	free(orig);
	free(path);
	free(dir);
}

/* Random bytes, random mutations of a real file, and frames with valid
 * sync words and crcs stitched at random: never a crash, always sane
 * counts. */
static void test_fuzz(void)
{
	enum { N = 30 };
	uint64_t offs[N + 1];
	char *dir = subdir("fuzz");
	char *path = make_seq_file(dir, N, offs);
	uint8_t *orig;
	size_t len;
	read_file(path, &orig, &len);
	char fpath[4096];
	snprintf(fpath, sizeof(fpath), "%s/fuzzed", dir);
	uint8_t *b = calloc(1, len * 2 + 8192);
	uint64_t opened = 0, recs = 0, bad = 0, torn = 0;

	for (int iter = 0; iter < 4000; iter++) {
		size_t n;
		int mode = iter % 4;
		if (mode == 0) { /* pure noise, sometimes behind a valid header */
			n = rnd() % 4096;
			for (size_t i = 0; i < n; i++)
				b[i] = (uint8_t)rnd();
			if (n >= RAW_HEADER_SIZE && rnd() % 2)
				memcpy(b, orig, RAW_HEADER_SIZE);
		} else if (mode == 1) { /* a real file with bytes flipped */
			n = len;
			memcpy(b, orig, len);
			for (int k = (int)(rnd() % 8); k >= 0; k--)
				b[RAW_HEADER_SIZE + rnd() % (len - RAW_HEADER_SIZE)] ^= (uint8_t)(1 + rnd() % 255);
		} else if (mode == 2) { /* a real file cut and spliced */
			size_t a = RAW_HEADER_SIZE + rnd() % (len - RAW_HEADER_SIZE);
			size_t c = a + rnd() % (len - a);
			memcpy(b, orig, a);
			memcpy(b + a, orig + c, len - c);
			n = a + len - c;
			n -= rnd() % 2 ? rnd() % (n - RAW_HEADER_SIZE + 1) : 0;
		} else { /* noise full of sync words and plausible frames */
			memcpy(b, orig, RAW_HEADER_SIZE);
			n = RAW_HEADER_SIZE;
			while (n < 4096) {
				uint32_t sync = RAW_FRAME_SYNC, type = RAW_PROC_INFO; /* type, flags */
				memcpy(b + n, &sync, 4);
				memcpy(b + n + 4, &type, 4);
				uint32_t l = (uint32_t)(rnd() % 64);
				if (rnd() % 8 == 0)
					l = (uint32_t)rnd();
				memcpy(b + n + 8, &l, 4);
				uint32_t body = l < 64 ? l : 8;
				for (uint32_t k = 0; k < body; k++)
					b[n + 16 + k] = (uint8_t)rnd();
				uint32_t crc = raw_crc32c_update(raw_crc32c(b + n + 4, 8), b + n + 16, body);
				if (rnd() % 3 == 0)
					crc ^= 1;
				memcpy(b + n + 12, &crc, 4);
				n += 16 + body - (rnd() % 4 == 0 ? rnd() % (16 + body) : 0);
			}
		}
		write_file(fpath, b, n);
		struct raw_reader *r;
		int e = raw_reader_open(fpath, &r);
		if (e < 0) {
			CHECK(e == -EPROTO || e == -EPROTONOSUPPORT);
			continue;
		}
		struct raw_record rec;
		uint64_t payload = 0, frames = 0;
		while ((e = raw_reader_next(r, &rec)) > 0) {
			CHECK(rec.len <= RAW_MAX_PAYLOAD);
			CHECK(rec.payload && raw_crc32(rec.payload, rec.len) == raw_crc32(rec.payload, rec.len));
			payload += rec.len;
			frames++;
		}
		CHECK(e == 0);
		const struct raw_reader_stats *st = raw_reader_stats(r);
		/* every byte after the header is a frame, skipped or torn */
		CHECK(st->records == frames);
		CHECK(payload + frames * RAW_FRAME_SIZE + st->skipped_bytes + st->torn_bytes ==
		      n - RAW_HEADER_SIZE);
		if (mode == 1 || mode == 2)
			CHECK(frames <= N);
		opened++;
		recs += frames;
		bad += st->bad_records;
		torn += st->torn_bytes > 0;
		raw_reader_free(r);
	}
	printf("fuzz: 4000 inputs, %llu opened, %llu records, %llu bad, %llu torn tails\n",
	       (unsigned long long)opened, (unsigned long long)recs, (unsigned long long)bad,
	       (unsigned long long)torn);
	free(b);
	free(orig);
	free(path);
	free(dir);
}

static void test_rotation(void)
{
	char *dir = subdir("rotation");
	struct raw_writer *w;
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_NET, 5, 6, 1024, &w) == 0);
	uint8_t payload[100];
	for (int i = 0; i < 300; i++) {
		memset(payload, i, sizeof(payload));
		memcpy(payload, &i, sizeof(i));
		CHECK(raw_writer_append(w, RAW_NET_DEV, payload, sizeof(payload)) == 0);
	}
	/* one record bigger than a slice still goes in, alone */
	static uint8_t big[4096];
	CHECK(raw_writer_append(w, RAW_NET_DEV, big, sizeof(big)) == 0);
	uint64_t bytes = raw_writer_bytes(w);
	uint32_t last = raw_writer_slice(w);
	raw_writer_free(w);

	char **paths;
	int n = raw_list_slices(dir, RAW_SOURCE_HOST_NET, &paths);
	CHECK(n > 10 && (uint32_t)n == last + 1);
	uint64_t total = 0;
	int rec_i = 0;
	for (int s = 0; s < n; s++) {
		char want[64];
		snprintf(want, sizeof(want), "/host_network.data.slice_%d", s);
		CHECK(strstr(paths[s], want) && streq(strstr(paths[s], want), want)); /* numeric order */
		uint64_t sz = file_size(paths[s]);
		total += sz;
		if (s < n - 1)
			CHECK(sz <= 1024);
		struct raw_reader *r;
		CHECK(raw_reader_open(paths[s], &r) == 0);
		CHECK(raw_reader_header(r)->slice == (uint32_t)s && raw_reader_header(r)->mono0_ns == 5);
		struct raw_record rec;
		while (raw_reader_next(r, &rec) > 0) {
			if (rec_i < 300) {
				int id;
				memcpy(&id, rec.payload, sizeof(id));
				CHECK(id == rec_i && rec.len == 100);
			} else
				CHECK(rec.len == sizeof(big) && s == n - 1);
			rec_i++;
		}
		CHECK(raw_reader_stats(r)->bad_records == 0 && raw_reader_stats(r)->torn_bytes == 0);
		raw_reader_free(r);
	}
	CHECK(rec_i == 301);
	CHECK(total == bytes);
	raw_paths_free(paths);
	free(dir);
}

/* Buffered writing: nothing reaches the file until a flush, a full buffer or
 * a rotation; frames bigger than the buffer go straight out after what is
 * buffered; on disk the order is always the order of the calls. */
static void test_buffering(void)
{
	char *dir = subdir("buffering");
	struct raw_writer *w;
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_MEM, 1, 2, 4096, &w) == 0);
	CHECK(raw_writer_set_buffer(w, 512) == 0);
	char **paths;
	CHECK(raw_list_slices(dir, RAW_SOURCE_HOST_MEM, &paths) == 1);
	char first[4096];
	snprintf(first, sizeof(first), "%s", paths[0]);
	raw_paths_free(paths);

	uint8_t payload[100];
	int id = 0;
	/* three frames of 116 bytes fit in 512: only the header is on disk */
	for (; id < 3; id++) {
		memcpy(payload, &id, sizeof(id));
		CHECK(raw_writer_append(w, RAW_PROC_MEM, payload, sizeof(payload)) == 0);
	}
	CHECK(file_size(first) == RAW_HEADER_SIZE);
	CHECK(raw_writer_bytes(w) == RAW_HEADER_SIZE + 3 * 116);
	/* a fifth frame would overflow: the four before it are written */
	for (; id < 5; id++) {
		memcpy(payload, &id, sizeof(id));
		CHECK(raw_writer_append(w, RAW_PROC_MEM, payload, sizeof(payload)) == 0);
	}
	CHECK(file_size(first) == RAW_HEADER_SIZE + 4 * 116);
	/* a frame bigger than the buffer flushes what is buffered, then itself */
	static uint8_t big[1000];
	int big_id = 1000;
	memcpy(big, &big_id, sizeof(big_id));
	CHECK(raw_writer_append(w, RAW_PROC_MEM, big, sizeof(big)) == 0);
	CHECK(file_size(first) == RAW_HEADER_SIZE + 5 * 116 + 1016);
	for (id = 5; id < 40; id++) { /* crosses into more slices */
		memcpy(payload, &id, sizeof(id));
		CHECK(raw_writer_append(w, RAW_PROC_MEM, payload, sizeof(payload)) == 0);
	}
	CHECK(raw_writer_flush(w) == 0);
	uint64_t bytes = raw_writer_bytes(w);
	memcpy(payload, &id, sizeof(id));
	CHECK(raw_writer_append(w, RAW_PROC_MEM, payload, sizeof(payload)) == 0); /* free flushes it */
	bytes += 116;
	raw_writer_free(w);

	int n = raw_list_slices(dir, RAW_SOURCE_HOST_MEM, &paths);
	CHECK(n >= 2);
	uint64_t total = 0;
	int want[64], n_want = 0;
	for (int i = 0; i < 5; i++)
		want[n_want++] = i;
	want[n_want++] = 1000;
	for (int i = 5; i <= 40; i++)
		want[n_want++] = i;
	int got = 0;
	for (int i = 0; i < n; i++) {
		total += file_size(paths[i]);
		struct raw_reader *r;
		CHECK(raw_reader_open(paths[i], &r) == 0);
		struct raw_record rec;
		while (raw_reader_next(r, &rec) > 0) {
			int v;
			memcpy(&v, rec.payload, sizeof(v));
			CHECK(got < n_want && v == want[got]);
			got++;
		}
		CHECK(raw_reader_stats(r)->bad_records == 0 && raw_reader_stats(r)->torn_bytes == 0);
		raw_reader_free(r);
	}
	CHECK(got == n_want);
	CHECK(total == bytes);
	raw_paths_free(paths);
	free(dir);
}

static void make_sized(const char *dir, const char *name, size_t size, time_t mtime)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	uint8_t *b = calloc(1, size);
	write_file(p, b, size);
	free(b);
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
}

static bool exists_in(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void test_ageing(void)
{
	char *dir = subdir("ageing");
	time_t t = 1700000000;
	/* oldest first by mtime; slice_10 is newer than slice_9 although it
	 * sorts before it by name */
	make_sized(dir, "host_cpu.data.slice_9", 1000, t + 1);
	make_sized(dir, "host_cpu.data.slice_10", 1000, t + 5);
	make_sized(dir, "host_cpu.data.slice_11", 1000, t + 9); /* newest of its source */
	make_sized(dir, "host_mem.data.slice_0", 1000, t + 2);
	make_sized(dir, "host_mem.data.slice_1", 1000, t + 6); /* newest */
	make_sized(dir, "aging.api_event.data.slice_0", 1000, t); /* only slice: newest */
	make_sized(dir, "unaging.additional.msproftx.slice_0", 1000, t);
	make_sized(dir, "unaging.additional.msproftx.slice_1", 1000, t);
	make_sized(dir, "info.json", 1000, t);
	make_sized(dir, "start_info", 1000, t);
	make_sized(dir, "hash_dic.slice_0", 1000, t);
	make_sized(dir, "hash_dic.slice_1", 1000, t);
	make_sized(dir, "notes.txt", 1000, t); /* not a slice: counted, never aged */
	CHECK(mkdir(strcat(strcpy((char[4096]){ 0 }, dir), "/subdir"), 0755) == 0);
	/* 13 files, 13000 bytes */

	uint64_t freed = 99;
	CHECK(raw_age_dir(dir, 20000, &freed) == 0 && freed == 0);
	CHECK(raw_age_dir(dir, 12500, &freed) == 1 && freed == 1000);
	CHECK(!exists_in(dir, "host_cpu.data.slice_9"));
	CHECK(exists_in(dir, "host_mem.data.slice_0"));
	CHECK(raw_age_dir(dir, 10500, &freed) == 2 && freed == 2000);
	CHECK(!exists_in(dir, "host_mem.data.slice_0") && !exists_in(dir, "host_cpu.data.slice_10"));
	/* nothing ageable is left */
	CHECK(raw_age_dir(dir, 0, NULL) == 0);
	const char *kept[] = {
		"host_cpu.data.slice_11", "host_mem.data.slice_1", "aging.api_event.data.slice_0",
		"unaging.additional.msproftx.slice_0", "unaging.additional.msproftx.slice_1",
		"info.json", "start_info", "hash_dic.slice_0", "hash_dic.slice_1", "notes.txt",
	};
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		CHECK(exists_in(dir, kept[i]));
	CHECK(raw_age_dir("/nonexistent", 0, NULL) == -ENOENT);

	/* real slices from a writer: the one being written survives */
	char *d2 = subdir("ageing2");
	struct raw_writer *w;
	CHECK(raw_writer_open(d2, RAW_SOURCE_HOST_CPU, 1, 2, 512, &w) == 0);
	uint8_t p[200] = { 0 };
	for (int i = 0; i < 20; i++)
		CHECK(raw_writer_append(w, RAW_THREAD_CPU, p, sizeof(p)) == 0);
	int deleted = raw_age_dir(d2, 0, &freed);
	CHECK(deleted == (int)raw_writer_slice(w));
	char **paths;
	CHECK(raw_list_slices(d2, RAW_SOURCE_HOST_CPU, &paths) == 1);
	raw_paths_free(paths);
	CHECK(raw_writer_append(w, RAW_THREAD_CPU, p, sizeof(p)) == 0);
	raw_writer_free(w);
	free(d2);
	free(dir);
}

/* The bytes of the regular files in dir: what a storage limit is held to. */
static uint64_t dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	CHECK(d);
	uint64_t total = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	}
	closedir(d);
	return total;
}

static void test_quota(void)
{
	char *dir = subdir("quota");
	const uint64_t limit = 64 * 1024;
	struct raw_quota *q;
	struct raw_quota_stats st, rd;
	CHECK(raw_quota_open(dir, &q) == -ENOENT);
	CHECK(raw_quota_read(dir, &rd) == -ENOENT);
	CHECK(raw_quota_create(dir, limit, 8 * 1024, &q) == 0);

	/* Two writers, one buffered (as msprofd's samplers and an agent);
	 * the dir is measured after every append.  Neither asks for the
	 * quota's slices: they cut to them. */
	struct raw_writer *a, *b;
	CHECK(raw_writer_open(dir, RAW_SOURCE_HOST_CPU, 1, 2, 0, &a) == 0);
	CHECK(raw_writer_open_stem(dir, "agent_7.data", RAW_SOURCE_AGENT, 1, 2, 0, &b) == 0);
	CHECK(raw_writer_set_buffer(b, 4096) == 0);
	static uint8_t p[70 * 1024];
	bool over = false;
	for (int i = 0; i < 3000; i++) {
		CHECK(raw_writer_append(i % 3 ? b : a, RAW_THREAD_CPU, p, 100 + (uint32_t)(i * 7) % 600) == 0);
		over = over || dir_bytes(dir) > limit;
	}
	CHECK(!over);
	CHECK(raw_writer_slice(a) > 0 && raw_writer_bytes(a) < 3000 * 700 / 3 + 64 * raw_writer_slice(a));
	raw_quota_stats(q, &st);
	CHECK(st.aged_files > 0 && st.peak_bytes <= limit && st.refused_records == 0);
	CHECK(st.slice_bytes == 8 * 1024);
	/* once the buffered writer flushed, the count is the files' bytes */
	CHECK(raw_writer_flush(b) == 0);
	raw_quota_stats(q, &st);
	CHECK(st.used_bytes == dir_bytes(dir));

	/* a frame larger than the limit: refused, counted, not written (the
	 * slice it would have started may be, a header) */
	uint64_t before = dir_bytes(dir);
	CHECK(raw_writer_append(a, RAW_THREAD_CPU, p, sizeof(p)) == -EDQUOT);
	raw_quota_stats(q, &st);
	CHECK(st.refused_records == 1 && st.refused_bytes == RAW_FRAME_SIZE + sizeof(p));
	CHECK(dir_bytes(dir) <= before + RAW_HEADER_SIZE);

	/* A writer that dies holding the ageing lock, with bytes reserved
	 * and never written, wedges no one: the kernel drops its flock, and
	 * its reservation only makes the dir age that much early. */
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, RAW_QUOTA_FILE);
		int fd = open(path, O_RDWR);
		struct raw_quota *cq;
		if (fd < 0 || raw_quota_open(dir, &cq) < 0 || raw_quota_reserve(cq, 1000) < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		(void)!write(pfd[1], "x", 1);
		pause();
		_exit(0);
	}
	char c;
	close(pfd[1]);
	CHECK(read(pfd[0], &c, 1) == 1);
	CHECK(kill(pid, SIGKILL) == 0);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	close(pfd[0]);
	alarm(20); /* a wedged lock fails here instead of hanging the suite */
	for (int i = 0; i < 300; i++) {
		CHECK(raw_writer_append(i % 2 ? b : a, RAW_THREAD_CPU, p, 500) == 0);
		over = over || dir_bytes(dir) > limit;
	}
	alarm(0);
	CHECK(!over);
	CHECK(raw_writer_flush(b) == 0);
	raw_quota_stats(q, &st);
	CHECK(st.used_bytes == dir_bytes(dir) + 1000);
	/* the export's reading of the file: the same counters */
	CHECK(raw_quota_read(dir, &rd) == 0);
	CHECK(rd.aged_files == st.aged_files && rd.aged_bytes == st.aged_bytes && rd.peak_bytes == st.peak_bytes &&
	      rd.refused_records == 1 && rd.limit_bytes == limit);
	raw_writer_free(a);
	raw_writer_free(b);
	raw_quota_free(q);

	/* Nothing left to age: each of three writers has only the slice it is
	 * writing.  The third frame does not fit and is refused whole. */
	char *d2 = subdir("quota2");
	CHECK(raw_quota_create(d2, 4096 + 3 * 5080 - 100, 8 * 1024, &q) == 0);
	struct raw_writer *w[3];
	for (int i = 0; i < 3; i++) {
		char stem[RAW_STEM_MAX];
		raw_agent_stem(100 + i, stem);
		CHECK(raw_writer_open_stem(d2, stem, RAW_SOURCE_AGENT, 1, 2, 0, &w[i]) == 0);
	}
	CHECK(raw_writer_append(w[0], RAW_THREAD_CPU, p, 5000) == 0);
	CHECK(raw_writer_append(w[1], RAW_THREAD_CPU, p, 5000) == 0);
	CHECK(raw_writer_append(w[2], RAW_THREAD_CPU, p, 5000) == -EDQUOT);
	raw_quota_stats(q, &st);
	CHECK(st.refused_records == 1 && st.aged_files == 0 && dir_bytes(d2) <= st.limit_bytes);
	CHECK(raw_writer_append(w[2], RAW_THREAD_CPU, p, 100) == 0); /* what fits still goes */
	for (int i = 0; i < 3; i++)
		raw_writer_free(w[i]);
	raw_quota_free(q);
	/* a file that is not a quota file is refused, not trusted */
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", d2, RAW_QUOTA_FILE);
	CHECK(truncate(path, 10) == 0);
	CHECK(raw_quota_open(d2, &q) == -EBADMSG && raw_quota_read(d2, &rd) == -EBADMSG);
	CHECK(raw_writer_open(d2, RAW_SOURCE_HOST_MEM, 1, 2, 0, &w[0]) == -EBADMSG);
	free(d2);

	/* A writer stopped while it holds the ageing lock (SIGSTOP, a
	 * debugger, a suspended job) is not waited for: a frame that needs
	 * ageing meanwhile is refused and counted, and once the lock is
	 * free again ageing goes on. */
	char *d3 = subdir("quota3");
	CHECK(raw_quota_create(d3, limit, 8 * 1024, &q) == 0);
	CHECK(raw_writer_open(d3, RAW_SOURCE_HOST_CPU, 1, 2, 0, &a) == 0);
	CHECK(pipe(pfd) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char qpath[4096];
		snprintf(qpath, sizeof qpath, "%s/%s", d3, RAW_QUOTA_FILE);
		int fd = open(qpath, O_RDWR);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		(void)!write(pfd[1], "x", 1);
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	CHECK(read(pfd[0], &c, 1) == 1);
	close(pfd[0]);
	alarm(20); /* waiting with the holder fails here instead of hanging */
	int r = 0;
	for (int i = 0; i < 1000 && r == 0; i++)
		r = raw_writer_append(a, RAW_THREAD_CPU, p, 500);
	alarm(0);
	CHECK(r == -EDQUOT);
	raw_quota_stats(q, &st);
	CHECK(st.refused_records == 1 && st.aged_files == 0 && dir_bytes(d3) <= limit);
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	CHECK(raw_writer_append(a, RAW_THREAD_CPU, p, 500) == 0);
	raw_quota_stats(q, &st);
	CHECK(st.aged_files > 0 && dir_bytes(d3) <= limit);
	raw_writer_free(a);
	raw_quota_free(q);
	free(d3);
	free(dir);
}

/* A dump of a ring's dir (raw_dump_take, raw_dump_write): every file of
 * the moment of the take but the quota's, though every one is aged before
 * the copy; slices cut to their whole frames (a writer may be appending)
 * with the dump's clocks in their headers, a dir inside left out, and
 * nothing left of the links it copies from. */
static void test_dump(void)
{
	char *src = subdir("dump-src"), *dst = subdir("dump-dst");
	struct raw_quota *q;
	CHECK(raw_quota_create(src, 64 * 1024, 8 * 1024, &q) == 0);
	CHECK(raw_quota_set_ring(q, 0) == 0);
	struct raw_writer *w;
	CHECK(raw_writer_open(src, RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == 0);
	uint8_t p[500] = { 0 };
	for (int i = 0; i < 300; i++)
		CHECK(raw_writer_append(w, RAW_THREAD_CPU, p, sizeof(p)) == 0);
	CHECK(raw_writer_flush(w) == 0);
	char **paths;
	int n = raw_list_slices(src, RAW_SOURCE_HOST_CPU, &paths);
	CHECK(n > 1); /* aged: the ring kept its newest slices only */
	int want_records = 0;
	for (int i = 0; i < n; i++)
		want_records += read_all(paths[i], NULL, NULL);
	/* the newest slice with half a frame at its end, as while its writer
	 * appends */
	uint64_t whole = file_size(paths[n - 1]);
	int fd = open(paths[n - 1], O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, p, 100) == 100);
	close(fd);
	char path[4096];
	snprintf(path, sizeof path, "%s/notes.txt", src);
	write_file(path, "seven b", 7);
	snprintf(path, sizeof path, "%s/inner", src);
	CHECK(mkdir(path, 0755) == 0);

	uint64_t files = 0, bytes = 0;
	uint64_t want_bytes = dir_bytes(src) - file_size(paths[n - 1]) + whole -
			      file_size(strcat(strcpy(path, src), "/" RAW_QUOTA_FILE));
	struct raw_dump *dump;
	CHECK(raw_dump_take(src, &dump) == 0);
	CHECK(!raw_dump_in_place(dump)); /* links: one filesystem */
	/* the writers age every slice after the take */
	for (int i = 0; i < n; i++)
		CHECK(unlink(paths[i]) == 0);
	snprintf(path, sizeof path, "%s/notes.txt", src);
	CHECK(unlink(path) == 0);
	CHECK(raw_dump_write(dump, dst, 777, 888, &files, &bytes) == 0);
	dump = raw_dump_free(dump);
	CHECK(files == (uint64_t)n + 1);
	CHECK(dir_bytes(dst) == bytes && bytes == want_bytes);
	int got_records = 0;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dst, strrchr(paths[i], '/') + 1);
		struct raw_reader *r;
		CHECK(raw_reader_open(path, &r) == 0);
		CHECK(!raw_reader_header_damaged(r));
		CHECK(raw_reader_header(r)->mono0_ns == 777 && raw_reader_header(r)->real0_ns == 888);
		raw_reader_free(r);
		struct raw_reader_stats st;
		got_records += read_all(path, &st, NULL);
		CHECK(st.torn_bytes == 0);
	}
	CHECK(got_records == want_records);
	CHECK(file_size(strcat(strcpy(path, dst), "/notes.txt")) == 7);
	CHECK(!exists_in(dst, RAW_QUOTA_FILE) && !exists_in(dst, "inner"));
	/* no SRC.dump-XXXXXX left beside src */
	DIR *d = opendir(tmpdir);
	CHECK(d);
	for (struct dirent *de; (de = readdir(d));)
		CHECK(!startswith(de->d_name, "dump-src.dump-"));
	closedir(d);
	CHECK(raw_dump_take("/nonexistent", &dump) == -ENOENT);
	raw_paths_free(paths);
	raw_writer_free(w);
	raw_quota_free(q);
	free(src);
	free(dst);
}

int main(int argc, char **argv)
{
	umask(022);
	if (argc == 2 && streq(argv[1], "crc")) {
		test_crc_and_stems(); /* MSPROF_RAW_CRC_TABLE: the tables */
		CHECK(!raw_crc32c_hardware());
		return 0;
	}
	CHECK(mkdtemp(tmpdir));
	test_crc_and_stems();
	/* the CRC-32C tables too, where the CPU's instruction is what runs */
	printf("# CRC-32C by the CPU's instruction: %s\n", raw_crc32c_hardware() ? "yes" : "no");
	pid_t child = fork();
	if (child == 0) {
		setenv("MSPROF_RAW_CRC_TABLE", "1", 1);
		execl(argv[0], argv[0], "crc", (char *)NULL);
		_exit(127);
	}
	int status;
	CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	test_buf_cursor();
	test_roundtrip();
	test_damage();
	test_fuzz();
	test_rotation();
	test_buffering();
	test_ageing();
	test_quota();
	test_dump();
	rm_rf(tmpdir);
	printf("ok\n");
	return 0;
}
