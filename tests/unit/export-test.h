/* Helpers of the export unit tests that write a PROF dir's small files and
 * read back what an export wrote: its database and its output files. */
#pragma once

#include <dirent.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/raw.h"
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

/* A PROF dir of one traced program, pid 5000 "app": prof, prof/host and
 * host/data made; host's info.json, start_info (1700000000000000 µs) and
 * end_info (end_us later) written; the program's agent file opened in data
 * on the clocks mono0/real0 and its process record written (through b).
 * Returns the open writer; *ret_host: host's malloc'd path. */
static inline struct raw_writer *agent_prof_open(const char *prof, uint64_t end_us, uint64_t mono0, uint64_t real0,
						  struct raw_buf *b, char **ret_host)
{
	char *host, *data, text[96], stem[RAW_STEM_MAX];
	CHECK(asprintf(&host, "%s/host", prof) > 0 && asprintf(&data, "%s/data", host) > 0);
	CHECK(mkdir(prof, 0755) == 0 && mkdir(host, 0755) == 0 && mkdir(data, 0755) == 0);
	write_text(host, "info.json", "{\"hostname\":\"h\",\"hostUid\":\"u\",\"pid\":\"5000\",\"cpuNums\":2,"
		   "\"memoryTotal\":1000}");
	write_text(host, "start_info", "{\"collectionTimeBegin\":\"1700000000000000\"}");
	snprintf(text, sizeof text, "{\"collectionTimeEnd\":\"%" PRIu64 "\"}", UINT64_C(1700000000000000) + end_us);
	write_text(host, "end_info", text);
	struct raw_writer *w;
	raw_agent_stem(5000, stem);
	CHECK(raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, mono0, real0, 0, &w) == 0);
	raw_buf_reset(b);
	raw_buf_u64(b, mono0);
	raw_buf_u32(b, 5000), raw_buf_u32(b, 1), raw_buf_u32(b, (uint32_t)-1), raw_buf_u32(b, 1);
	raw_buf_u32(b, 3), raw_buf_bytes(b, "app", 3), raw_buf_u32(b, 3), raw_buf_bytes(b, "app", 3);
	CHECK(b->err == 0 && raw_writer_append(w, RAW_AGENT_PROCESS, b->data, (uint32_t)b->len) == 0);
	free(data);
	*ret_host = host;
	return w;
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

/* The output file in dir named prefix, then a digit, and ending in suffix
 * (NULL: any ending), or NULL; two such files fail the test. */
static inline char *find_file(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	char *found = NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name), lp = strlen(prefix), ls = suffix ? strlen(suffix) : 0;
		if (startswith(de->d_name, prefix) && de->d_name[lp] >= '0' && de->d_name[lp] <= '9' &&
		    (!suffix || (n > lp + ls && streq(de->d_name + n - ls, suffix))))
			CHECK(!found && asprintf(&found, "%s/%s", dir, de->d_name) > 0);
	}
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
