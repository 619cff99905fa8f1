/* Helpers of the export unit tests that write a PROF dir's small files and
 * read back what an export wrote: its database and its output files. */
#pragma once

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unittest.h"
#include "common/util.h"

static inline void write_text(const char *dir, const char *name, const char *text)
{
	char *p;
	CHECK(asprintf(&p, "%s/%s", dir, name) > 0);
	FILE *f = fopen(p, "we");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
	free(p);
}

/* All rows of a query as "a|b|c\n" lines, NULL as "NULL";
 * "(no such table)\n" when the query cannot be prepared: a table the
 * export left out. */
static inline char *rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return strdup("(no such table)\n");
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	CHECK(m);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++)
			fprintf(m, "%s%s", i ? "|" : "",
				sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "NULL");
		fputc('\n', m);
	}
	sqlite3_finalize(st);
	fclose(m);
	return buf;
}

/* got (freed here) must be want. */
static inline void check_text(const char *what, char *got, const char *want)
{
	if (!got || strcmp(got, want) != 0) {
		fprintf(stderr, "%s:\n--- got:\n%s--- want:\n%s", what, got ? got : "(null)\n", want);
		CHECK(!"text differs");
	}
	free(got);
}

/* The output file in dir named prefix and then a digit, or NULL; two
 * such files fail the test. */
static inline char *find_file(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	char *found = NULL;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (startswith(de->d_name, prefix) && de->d_name[strlen(prefix)] >= '0' &&
		    de->d_name[strlen(prefix)] <= '9')
			CHECK(!found && asprintf(&found, "%s/%s", dir, de->d_name) > 0);
	if (d)
		closedir(d);
	return found;
}

/* A whole file, NUL-terminated; a missing file fails the test. */
static inline char *slurp(const char *path)
{
	FILE *f = path ? fopen(path, "re") : NULL;
	CHECK(f);
	char *buf = NULL;
	size_t n = 0;
	CHECK(getdelim(&buf, &n, '\0', f) > 0);
	fclose(f);
	return buf;
}
