/* The raw file reader (collectors/raw.c), in process: its header checks,
 * frames, checksums, resynchronisation after damage, torn tails and the
 * agents' batches cut into records, then every record's fields read with
 * the cursor the decoders use.  The input is fuzz-raw's (fuzz-raw.h): a
 * byte of choices (FUZZ_RAW_FIX_CRC; FUZZ_READER_DAMAGED_HEADER: opened
 * as the export opens a slice whose header fails its checksum, given the
 * header of another), then the file, read from a file in memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collectors/raw.h"
#include "tests/fuzz/fuzz-raw.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_READER_DAMAGED_HEADER 0x40U

static int fd = -1;
static char path[64];
static uint8_t *buf;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz-raw-reader", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	buf = malloc(RAW_MAX_PAYLOAD * 4);
	return buf ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > RAW_MAX_PAYLOAD * 4)
		return 0;
	size_t n = size - 1;
	memcpy(buf, data + 1, n);
	if (data[0] & FUZZ_RAW_FIX_CRC)
		fuzz_raw_fix_checksums(buf, n);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, n, 0) != (ssize_t)n)
		abort();

	struct raw_reader *r;
	if (raw_reader_open_flags(path, data[0] & FUZZ_READER_DAMAGED_HEADER ? RAW_READER_DAMAGED_HEADER : 0, &r) < 0)
		return 0;
	if (raw_reader_header_damaged(r)) {
		struct raw_header h = *raw_reader_header(r);
		h.mono0_ns = 1, h.real0_ns = 1700000000000000000ULL;
		raw_reader_set_header(r, &h);
	}
	struct raw_record rec;
	uint64_t sum = 0;
	while (raw_reader_next(r, &rec) > 0) {
		/* the fields as a decoder reads them: numbers of every width,
		 * and length-prefixed strings */
		struct raw_cur c = { .p = rec.payload, .left = rec.len };
		char s[RAW_AGENT_MAX_STR + 1];
		switch (rec.type % 4) {
		case 0: sum += raw_cur_u64(&c); break;
		case 1: sum += raw_cur_u32(&c) + raw_cur_u16(&c); break;
		case 2: raw_cur_lstr(&c, s, sizeof s); break;
		default: raw_cur_str(&c, s, 16); break;
		}
		while (c.left >= 8 && !c.err)
			sum += raw_cur_u64(&c);
	}
	const struct raw_reader_stats *st = raw_reader_stats(r);
	if (st->records + st->bad_records < sum % 2) /* keeps sum */
		abort();
	raw_reader_free(r);
	return 0;
}
