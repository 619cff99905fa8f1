/* STRING_IDS: interning as the parse writes, lookups by id as the writers
 * read (string-ids.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "export/db.h"
#include "export/exp.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "common/util.h"

/* --- STRING_IDS ------------------------------------------------------------ */

/* A cache in front of STRING_IDS: open addressing on a power-of-two table.
 * Names are few, but mstx messages can be as many as the events ("step
 * 1234"), so the cache is bounded (INTERN_CACHE_MAX entries and
 * INTERN_CACHE_BYTES of strings): when full it is emptied and lookups that
 * miss it ask the database, through the unique index StringIdsValueIndex.
 * Until the first emptying the cache holds every string, and a miss means
 * a new string without asking. */
#define INTERN_CACHE_MAX (1U << 16)
#define INTERN_CACHE_BYTES (16U << 20)
#define INTERN_ID_MAX ((int64_t)1 << 40)

struct exp_intern {
	struct { char *s; int64_t id; } *slots;
	size_t cap, used, bytes;
	int64_t next_id;
	bool complete;          /* the cache holds every string so far */
	sqlite3_stmt *insert, *find;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void intern_clear(struct exp_intern *in)
{
	for (size_t i = 0; i < in->cap; i++) {
		free(in->slots[i].s);
		in->slots[i].s = NULL;
	}
	in->used = in->bytes = 0;
}

struct exp_intern *exp_intern_free(struct exp_intern *in)
{
	if (!in)
		return NULL;
	intern_clear(in);
	free(in->slots);
	sqlite3_finalize(in->insert);
	sqlite3_finalize(in->find);
	free(in);
	return NULL;
}

/* --- STRING_IDS by id ------------------------------------------------------------ */

#define STRINGS_SLOTS 4096 /* a power of two */

struct exp_strings {
	struct exp *e;
	sqlite3_stmt *st;
	struct {
		int64_t id;       /* -1: empty */
		char *s;
		size_t len;
	} slot[STRINGS_SLOTS];
};

int exp_strings_new(struct exp *e, struct exp_strings **ret)
{
	struct exp_strings *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->e = e;
	for (size_t i = 0; i < STRINGS_SLOTS; i++)
		c->slot[i].id = -1;
	int r = exp_prepare(e, "SELECT value FROM STRING_IDS WHERE id = ?", &c->st);
	if (r < 0) {
		free(c);
		return r;
	}
	*ret = c;
	return 0;
}

struct exp_strings *exp_strings_free(struct exp_strings *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < STRINGS_SLOTS; i++)
		free(c->slot[i].s);
	sqlite3_finalize(c->st);
	free(c);
	return NULL;
}

struct string_copy {
	char *s;
	size_t len;
};

static int string_copy_row(sqlite3_stmt *st, void *ctx)
{
	struct string_copy *c = ctx;
	const char *v = (const char *)sqlite3_column_text(st, 0);
	size_t n = v ? (size_t)sqlite3_column_bytes(st, 0) : 0;
	char *copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, v, n);
	copy[n] = '\0';
	c->s = copy;
	c->len = n;
	return 1;
}

int exp_strings_get(struct exp_strings *c, int64_t id, const char **ret, size_t *ret_len)
{
	size_t k = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ULL >> 52) & (STRINGS_SLOTS - 1);
	if (c->slot[k].id != id || id < 0) {
		sqlite3_bind_int64(c->st, 1, id);
		struct string_copy v = { NULL, 0 };
		int r = exp_stmt_each(c->e, c->st, "STRING_IDS", string_copy_row, &v);
		if (r <= 0)
			return r;
		free(c->slot[k].s);
		c->slot[k].s = v.s;
		c->slot[k].len = v.len;
		c->slot[k].id = id;
	}
	*ret = c->slot[k].s;
	*ret_len = c->slot[k].len;
	return 1;
}

const char *exp_strings_copy(struct exp_strings *c, int64_t id, char *buf, size_t size)
{
	const char *v;
	size_t len;
	if (exp_strings_get(c, id, &v, &len) > 0)
		snprintf(buf, size, "%.*s", (int)len, v);
	else
		buf[0] = '\0';
	return buf;
}

static int intern_grow(struct exp_intern *in)
{
	size_t ncap = in->cap ? in->cap * 2 : 256;
	__typeof__(in->slots) n = calloc(ncap, sizeof *n);
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < in->cap; i++) {
		if (!in->slots[i].s)
			continue;
		size_t j = fnv1a(in->slots[i].s) & (ncap - 1);
		while (n[j].s)
			j = (j + 1) & (ncap - 1);
		n[j] = in->slots[i];
	}
	free(in->slots);
	in->slots = n;
	in->cap = ncap;
	return 0;
}

/* The id of s in the database, 0 and *ret; 1 when it is not there. */
static int intern_find(struct exp *e, struct exp_intern *in, const char *s, int64_t *ret)
{
	int64_t id;
	sqlite3_bind_text(in->find, 1, s, -1, SQLITE_STATIC);
	int r = exp_stmt_each(e, in->find, "STRING_IDS lookup", db_row_i64, &id);
	if (r <= 0)
		return r < 0 ? r : 1;
	*ret = id;
	return 0;
}

int exp_intern_id(struct exp *e, const char *s, int64_t *ret)
{
	int r;
	if (!e->strings) {
		e->strings = calloc(1, sizeof *e->strings);
		if (!e->strings)
			return -ENOMEM;
		e->strings->complete = true;
		r = exp_prepare(e, "INSERT INTO STRING_IDS (id, value) VALUES (?, ?)", &e->strings->insert);
		if (r == 0)
			r = exp_prepare(e, "SELECT id FROM STRING_IDS WHERE value = ?", &e->strings->find);
		if (r < 0)
			return r;
	}
	struct exp_intern *in = e->strings;
	size_t len = strlen(s);
	if (in->used >= INTERN_CACHE_MAX || in->bytes + len > INTERN_CACHE_BYTES) {
		intern_clear(in);
		in->complete = false;
	}
	if ((in->used + 1) * 2 > in->cap) {
		r = intern_grow(in);
		if (r < 0)
			return r;
	}
	size_t j = fnv1a(s) & (in->cap - 1);
	for (; in->slots[j].s; j = (j + 1) & (in->cap - 1))
		if (streq(in->slots[j].s, s)) {
			*ret = in->slots[j].id;
			return 0;
		}
	char *copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	int64_t id = 0;
	r = in->complete ? 1 : intern_find(e, in, s, &id);
	if (r == 1) {
		if (in->next_id >= INTERN_ID_MAX) {
			free(copy);
			return -E2BIG;
		}
		id = in->next_id;
		sqlite3_bind_int64(in->insert, 1, id);
		sqlite3_bind_text(in->insert, 2, s, -1, SQLITE_STATIC);
		r = exp_step_done(e, in->insert, "STRING_IDS");
		if (r == 0)
			in->next_id++;
	}
	if (r < 0) {
		free(copy);
		return r;
	}
	in->slots[j].s = copy;
	in->slots[j].id = id;
	in->used++;
	in->bytes += len + 1;
	*ret = id;
	return 0;
}
