/* parse-floor: the "C insert floor" of the parse benchmark (bench-parse.sh):
 * what a C program needs to write the rows of a parsed database into an
 * empty one, the least the parse can cost once the raw files are decoded.
 *
 *   parse-floor SRC.db OUT.db [ROWS]
 *
 * Reads every table of SRC (msprof --parse's msprof_{ts}.db) into memory
 * first, untimed, then times writing them into OUT, created empty: the
 * same tables (SRC's CREATE statements), the same rows in rowid order, one
 * prepared INSERT per table, one transaction, SRC's indexes created after
 * the load, the page size SRC has and the pragmas the parse uses (no
 * journal, no sync, an exclusive lock, a 16 MiB cache).  ROWS (default 1):
 * rows per INSERT, the rest of a table's rows one per INSERT (the parse
 * puts its large tables' rows 16 to an INSERT: export/sql.h's
 * EXP_BATCH_ROWS; the floor is one row per INSERT).  Prints
 *   floor <seconds> <rows> <cpu seconds>
 * where seconds run from the open of OUT to its close, and cpu seconds are
 * the process's (user + system) over the same stretch. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

struct cell {
	int type;                   /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
	int len;
	union { int64_t i; double d; char *p; } v;
};

struct table {
	char *name, *sql;
	int cols;
	size_t rows;
	struct cell *cells;         /* rows x cols */
};

static void die(const char *what, sqlite3 *db)
{
	fprintf(stderr, "parse-floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : strerror(errno));
	exit(1);
}

static double now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void load(sqlite3 *db, struct table *t)
{
	char *q = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY rowid", t->name);
	sqlite3_stmt *st = NULL;
	if (!q || sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		die(t->name, db);
	sqlite3_free(q);
	t->cols = sqlite3_column_count(st);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (t->rows == cap) {
			cap = cap ? cap * 2 : 1024;
			t->cells = realloc(t->cells, cap * (size_t)t->cols * sizeof *t->cells);
			if (!t->cells)
				die("memory", NULL);
		}
		struct cell *c = t->cells + t->rows++ * (size_t)t->cols;
		for (int i = 0; i < t->cols; i++) {
			c[i].type = sqlite3_column_type(st, i);
			if (c[i].type == SQLITE_INTEGER) {
				c[i].v.i = sqlite3_column_int64(st, i);
			} else if (c[i].type == SQLITE_FLOAT) {
				c[i].v.d = sqlite3_column_double(st, i);
			} else if (c[i].type != SQLITE_NULL) {
				const void *p = c[i].type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, i)
									 : sqlite3_column_blob(st, i);
				c[i].len = sqlite3_column_bytes(st, i);
				if (!(c[i].v.p = malloc((size_t)c[i].len + 1)))
					die("memory", NULL);
				if (c[i].len)
					memcpy(c[i].v.p, p, (size_t)c[i].len);
			}
		}
	}
	if (rc != SQLITE_DONE)
		die(t->name, db);
	sqlite3_finalize(st);
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(sql, db);
}

/* INSERT INTO t VALUES (?, ...) with k rows */
static sqlite3_stmt *insert(sqlite3 *db, const struct table *t, int k)
{
	size_t n = strlen(t->name) + 32 + (3 * (size_t)t->cols + 4) * (size_t)k;
	char *q = malloc(n);
	if (!q)
		die("memory", NULL);
	int w = snprintf(q, n, "INSERT INTO \"%s\" VALUES ", t->name);
	for (int r = 0; r < k; r++)
		for (int i = 0; i < t->cols; i++)
			w += snprintf(q + w, n - (size_t)w, "%s?%s", i ? "," : r ? ",(" : "(", i == t->cols - 1 ? ")" : "");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		die(q, db);
	free(q);
	return st;
}

static void bind_row(sqlite3_stmt *st, const struct table *t, size_t r, int at)
{
	const struct cell *c = t->cells + r * (size_t)t->cols;
	for (int i = 0; i < t->cols; i++) {
		switch (c[i].type) {
		case SQLITE_INTEGER: sqlite3_bind_int64(st, at + i + 1, c[i].v.i); break;
		case SQLITE_FLOAT: sqlite3_bind_double(st, at + i + 1, c[i].v.d); break;
		case SQLITE_TEXT: sqlite3_bind_text(st, at + i + 1, c[i].v.p, c[i].len, SQLITE_STATIC); break;
		case SQLITE_BLOB: sqlite3_bind_blob(st, at + i + 1, c[i].v.p, c[i].len, SQLITE_STATIC); break;
		default: sqlite3_bind_null(st, at + i + 1); break;
		}
	}
}

static void store(sqlite3 *db, const struct table *t, int k)
{
	exec(db, t->sql);
	sqlite3_stmt *one = insert(db, t, 1), *many = k > 1 && t->rows >= (size_t)k ? insert(db, t, k) : NULL;
	size_t r = 0;
	for (; many && r + (size_t)k <= t->rows; r += (size_t)k) {
		for (int j = 0; j < k; j++)
			bind_row(many, t, r + (size_t)j, j * t->cols);
		if (sqlite3_step(many) != SQLITE_DONE)
			die(t->name, db);
		sqlite3_reset(many);
	}
	for (; r < t->rows; r++) {
		bind_row(one, t, r, 0);
		if (sqlite3_step(one) != SQLITE_DONE)
			die(t->name, db);
		sqlite3_reset(one);
	}
	sqlite3_finalize(one);
	sqlite3_finalize(many);
}

int main(int argc, char **argv)
{
	int k = argc == 4 ? atoi(argv[3]) : 1;
	if ((argc != 3 && argc != 4) || k < 1 || k > 64) {
		fprintf(stderr, "usage: parse-floor SRC.db OUT.db [ROWS (1-64)]\n");
		return 2;
	}
	sqlite3 *src, *out;
	if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(argv[1], src);

	/* the tables and indexes in the order SRC made them */
	struct table *t = NULL;
	size_t nt = 0, ni = 0;
	char **idx = NULL;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(src, "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
				    "AND name NOT LIKE 'sqlite_%' ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		die("sqlite_master", src);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		char *name = strdup((const char *)sqlite3_column_text(st, 1));
		char *sql = strdup((const char *)sqlite3_column_text(st, 2));
		if (!name || !sql || !(t = realloc(t, (nt + 1) * sizeof *t)) || !(idx = realloc(idx, (ni + 1) * sizeof *idx)))
			die("memory", NULL);
		if (strcmp(type, "table") == 0) {
			t[nt++] = (struct table){ .name = name, .sql = sql };
		} else {
			idx[ni++] = sql;
			free(name);
		}
	}
	sqlite3_finalize(st);
	int page = 4096;
	if (sqlite3_prepare_v2(src, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		page = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	size_t rows = 0;
	for (size_t i = 0; i < nt; i++) {
		load(src, &t[i]);
		rows += t[i].rows;
	}
	sqlite3_close(src);

	char pragmas[256];
	snprintf(pragmas, sizeof pragmas, "PRAGMA page_size = %d; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
		 "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384; BEGIN", page);
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (sqlite3_open_v2(argv[2], &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		die(argv[2], out);
	exec(out, pragmas);
	for (size_t i = 0; i < nt; i++)
		store(out, &t[i], k);
	for (size_t i = 0; i < ni; i++)
		exec(out, idx[i]);
	exec(out, "COMMIT");
	if (sqlite3_close(out) != SQLITE_OK)
		die("close", out);
	double secs = now(CLOCK_MONOTONIC) - t0, cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("floor %.3f %zu %.3f\n", secs, rows, cpu);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
