/* One way to walk rows: a statement stepped to its end with a callback per
 * row, and SQLite's result codes mapped to -errno in one place.  Takes a
 * plain connection and prints nothing; export's exp_each (sql.h) adds
 * the note for the report. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* Binds the statement's parameters: 0, or <0 to give up with that error. */
typedef int db_bind_fn(sqlite3_stmt *st, void *ctx);
/* One row: 0 for the next, >0 to stop after this one (a success), <0 to
 * stop with that error. */
typedef int db_row_fn(sqlite3_stmt *st, void *ctx);

/* A SQLite result code as -errno. */
int db_errno(int rc);

/* Prepare sql (one statement), bind it (bind may be NULL), hand each row to row (NULL: a
 * statement that writes, stepped to its end) and finalize.  Returns the
 * rows row() was given (at most INT_MAX), or <0: the error of a callback,
 * unchanged, or SQLite's as -errno with *fail_rc (may be NULL) set to its
 * result code, so a caller can tell the two apart. */
int db_each_rc(sqlite3 *db, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx, int *fail_rc);
static inline int db_each(sqlite3 *db, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx)
{
	return db_each_rc(db, sql, bind, row, ctx, NULL);
}
/* The same on a statement prepared once and bound by the caller, for
 * loops that rebind it: stepped through, then reset (bindings kept). */
int db_stmt_each_rc(sqlite3_stmt *st, db_row_fn *row, void *ctx, int *fail_rc);

/* One step of a cursor read by hand, for the merges that interleave
 * several (a callback cannot): 1 a row, 0 done, or SQLite's failure as
 * -errno with *fail_rc (may be NULL) set. */
static inline int db_step(sqlite3_stmt *st, int *fail_rc)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	if (fail_rc)
		*fail_rc = rc;
	return db_errno(rc);
}

/* Bind v at col, or NULL when have is false (a value not known). */
static inline void db_bind_i64_or_null(sqlite3_stmt *st, int col, bool have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

/* Row callbacks for a single value: the first column into *(int64_t *)ctx
 * or *(double *)ctx, then stop. */
int db_row_i64(sqlite3_stmt *st, void *ctx);
int db_row_double(sqlite3_stmt *st, void *ctx);
/* A row callback that stops at the first row: with it db_each answers
 * "is there a row" (1 or 0). */
int db_row_stop(sqlite3_stmt *st, void *ctx);
/* A bind callback: ctx is a NUL-terminated string, bound as ?1. */
int db_bind_text1(sqlite3_stmt *st, void *ctx);
