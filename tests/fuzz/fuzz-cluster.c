/* A rank's dir as `msprof export cluster` reads it (export/cluster.c): its
 * host/info.json and host/start_info (the rank, the host, the clocks) and
 * its msprof_*.db (the steps, the communication, every layer of the
 * timeline), merged into msprof_cluster_output.  The input is info.json,
 * start_info and the SQL that makes the database, cut by NUL bytes; the
 * SQL may not attach or write other files (an input that names ATTACH or
 * VACUUM is passed over). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "export/export.h"
#include "tests/fuzz/fuzz-util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RANK "PROF_000001_20260101000000000_00000001FUZZFUZZ"
static const char *dir;
static char rank_dir[256], db_path[300], out_dir[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fuzz_scratch("fuzz-cluster");
	fuzz_mkdir(dir, RANK "/host");
	snprintf(rank_dir, sizeof rank_dir, "%s/" RANK, dir);
	snprintf(db_path, sizeof db_path, "%s/msprof_20260101000000.db", rank_dir);
	snprintf(out_dir, sizeof out_dir, "%s/msprof_cluster_output", dir);
	return 0;
}

static bool names(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++)
		if (strncasecmp(s + i, word, w) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t left = size, n_info, n_start, n_sql;
	const char *info = fuzz_part(&in, &left, &n_info);
	const char *start = fuzz_part(&in, &left, &n_start);
	const char *sql = fuzz_part(&in, &left, &n_sql);
	if (names(sql, n_sql, "attach") || names(sql, n_sql, "vacuum"))
		return 0;
	fuzz_write(rank_dir, "host/info.json", info, n_info);
	fuzz_write(rank_dir, "host/start_info", start, n_start);
	(void)unlink(db_path);
	sqlite3 *db;
	char *text = strndup(sql, n_sql);
	if (!text || sqlite3_open(db_path, &db) != SQLITE_OK) {
		free(text);
		abort();
	}
	(void)sqlite3_exec(db, text, NULL, NULL, NULL);
	sqlite3_close(db);
	free(text);

	struct export_cluster_rank rank = { .prof_dir = rank_dir, .db_path = db_path };
	struct export_cluster_report *rep = malloc(sizeof *rep);
	if (!rep)
		return 0;
	(void)export_cluster(out_dir, &rank, 1, rep);
	free(rep);
	return 0;
}
