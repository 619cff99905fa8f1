/* SQLite calls of an export run (sql.c): a failure is mapped to -errno
 * once and noted in the run's report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#include "export/db.h"

struct exp;

/* Rows of one table inserted EXP_BATCH_ROWS to a statement: an INSERT's
 * execution costs about as much whether it carries one row or a few, so a
 * 16-row one takes less than half the time of 16 single-row ones
 * (tests/bench/bench-parse.sh prints both floors).  Rows go in in the
 * order they are put, each taking the next rowid; whatever reads or
 * updates the table drains the batch first. */
#define EXP_BATCH_ROWS 16
#define EXP_BATCH_COLS 10
/* An integer put as SQL NULL.  No column the parse writes holds it: times
 * are checked (exp_time_far), ids and pids are 32-bit or positive; only a
 * damaged raw file's range id or size could, and is then NULL. */
#define EXP_NULL INT64_MIN
union exp_value {
	int64_t i;
	double d;
};
struct exp_batch {
	struct exp *e;
	sqlite3_stmt *many, *one;   /* EXP_BATCH_ROWS rows; one row */
	char what[48];              /* "INSERT INTO <table>", for errors */
	char types[EXP_BATCH_COLS + 1]; /* a letter a column: 'i' integer, 'd' double */
	int cols, n;                /* n: rows bound to many, not inserted */
	bool bound_ok;
	union exp_value bound[EXP_BATCH_ROWS * EXP_BATCH_COLS]; /* many's parameters */
};


/* Map a SQLite result code to -errno once, noting sqlite3_errmsg. */
int exp_sql_fail(struct exp *e, int rc, const char *what);
int exp_exec(struct exp *e, const char *sql);
/* db_each and db_stmt_each_rc on e->db, a SQLite failure noted as
 * exp_sql_fail does (what names the statement reused); >= 0: rows seen. */
int exp_each(struct exp *e, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx);
int exp_stmt_each(struct exp *e, sqlite3_stmt *st, const char *what, db_row_fn *row, void *ctx);
/* db_step on e->db: 1 a row, 0 done, <0 noted (inline: the merges step
 * a row at a time). */
static inline int exp_step(struct exp *e, sqlite3_stmt *st, const char *what)
{
	int rc = SQLITE_OK;
	int r = db_step(st, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, what);
}
int exp_prepare(struct exp *e, const char *sql, sqlite3_stmt **ret);
/* Step an INSERT/UPDATE to completion and reset it for the next row. */
int exp_step_done(struct exp *e, sqlite3_stmt *st, const char *what);

/* struct exp_batch (above struct exp), made with types: the columns'
 * ("iiid": three integers, a double). */
int exp_batch_init(struct exp *e, struct exp_batch *b, const char *table, const char *types);
/* One row, a value a column: bound, inserted with the next EXP_BATCH_ROWS - 1. */
int exp_batch_put(struct exp_batch *b, const union exp_value *v);
/* The rows put so far into the table. */
int exp_batch_drain(struct exp_batch *b);
/* Rows not drained are left out. */
void exp_batch_release(struct exp_batch *b);
/* Whether table has a row (false without the table: dropped because empty). */
bool exp_table_has_rows(struct exp *e, const char *table);
bool exp_table_has_index(struct exp *e, const char *index);
