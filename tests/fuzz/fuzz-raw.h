/* The raw-file targets' inputs (fuzz-raw.c, fuzz-raw-reader.c): a byte of
 * choices, then the file.  With FUZZ_RAW_FIX_CRC in it, the harness makes
 * the file's checksums right before reading it, so that mutated payloads
 * get past them to what decodes them. */
#pragma once

#include <stdint.h>
#include <string.h>

#include "collectors/raw.h"

#define FUZZ_RAW_FIX_CRC 0x80U

static inline uint32_t fuzz_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void fuzz_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The checksums the reader checks made right (version 2 files): the
 * header's over its first 56 bytes, each frame's over its type, flags,
 * length and payload (raw.h), walking the frames as the reader does. */
static inline void fuzz_raw_fix_checksums(uint8_t *p, size_t n)
{
	if (n < RAW_HEADER_SIZE || memcmp(p, RAW_MAGIC, 8) != 0 || fuzz_get32(p + 8) < 2)
		return;
	fuzz_put32(p + 56, raw_crc32c(p, 56));
	size_t at = fuzz_get32(p + 12);
	if (at < RAW_HEADER_SIZE || at > n)
		at = RAW_HEADER_SIZE;
	while (at + RAW_FRAME_SIZE <= n) {
		uint32_t len = fuzz_get32(p + at + 8);
		if (fuzz_get32(p + at) != RAW_FRAME_SYNC || len > RAW_MAX_PAYLOAD || len > n - at - RAW_FRAME_SIZE) {
			at++;
			continue;
		}
		fuzz_put32(p + at + 12, raw_frame_crc(p + at));
		at += RAW_FRAME_SIZE + len;
	}
}
