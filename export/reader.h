/* The raw files of a parser (reader.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct exp;
struct raw_cur;
struct raw_reader;
struct raw_record;

/* Open a raw file for a parser: 1 and *ret, or 0 when it is unusable
 * (noted in the report, the export goes on), or <0 (out of memory). */
int exp_reader_open(struct exp *e, const char *path, struct raw_reader **ret);
/* Feed every whole record to take (<0 fatal, 0 taken, 1 malformed,
 * counted in *malformed), note read errors and damage in the report, and
 * free the reader.  Returns <0 only when take failed fatally. */
int exp_reader_drain(struct exp *e, const char *path, struct raw_reader *rd,
		     int (*take)(void *ctx, const struct raw_record *rec), void *ctx, uint64_t *malformed);
/* A string field of an agent record: u32 length + bytes, at most
 * RAW_AGENT_MAX_STR, copied NUL-terminated into buf (RAW_AGENT_MAX_STR + 1
 * bytes); an embedded NUL ends it.  false: malformed (reader.c). */
bool exp_take_str(struct raw_cur *c, char *buf);
