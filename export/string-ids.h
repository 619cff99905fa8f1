/* STRING_IDS (string-ids.c): ids handed out as the parse meets strings, and
 * the strings of ids for the writers. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct exp;
struct exp_intern;

/* STRING_IDS: the id of s, inserting it on first use. */
int exp_intern_id(struct exp *e, const char *s, int64_t *ret);
struct exp_intern *exp_intern_free(struct exp_intern *in);
/* STRING_IDS values by id for the writers of the large tables, in place of
 * two joins per row: the ones last asked for stay in a direct-mapped cache
 * (the sort of such a query also carries two integers instead of two
 * strings per row). */
struct exp_strings;
int exp_strings_new(struct exp *e, struct exp_strings **ret);
struct exp_strings *exp_strings_free(struct exp_strings *c);
/* 1 with the string (NULL value: ""), 0 when STRING_IDS has no such id (an
 * inner join would leave the row out), <0 on a database error.  The
 * string stays valid until the next call on c: a row's two strings come
 * from two caches. */
int exp_strings_get(struct exp_strings *c, int64_t id, const char **ret, size_t *ret_len);
/* The string of id into buf, cut to size ("" when there is none or on an
 * error); returns buf. */
const char *exp_strings_copy(struct exp_strings *c, int64_t id, char *buf, size_t size);
