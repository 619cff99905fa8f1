/* Rows of a prepared statement through a callback (db.h). */

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sqlite3.h>

#include "export/db.h"

int db_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH: return -EACCES;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_CANTOPEN: return -ENOENT;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB: return -EBADMSG;
	case SQLITE_TOOBIG: return -E2BIG;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE: return -EINVAL;
	case SQLITE_INTERRUPT: return -EINTR;
	default: return -EIO;
	}
}

static int sqlite_fail(int rc, int *fail_rc)
{
	if (fail_rc)
		*fail_rc = rc;
	return db_errno(rc);
}

/* The rows of st; not reset. */
static int step_all(sqlite3_stmt *st, db_row_fn *row, void *ctx, int *fail_rc)
{
	int n = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!row)
			continue;
		if (n < INT_MAX)
			n++;
		int r = row(st, ctx);
		if (r < 0)
			return r;
		if (r > 0)
			return n;
	}
	return rc == SQLITE_DONE ? n : sqlite_fail(rc, fail_rc);
}

int db_each_rc(sqlite3 *db, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx, int *fail_rc)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sqlite_fail(rc, fail_rc);
	int r = bind ? bind(st, ctx) : 0;
	if (r >= 0)
		r = step_all(st, row, ctx, fail_rc);
	sqlite3_finalize(st);
	return r;
}

int db_stmt_each_rc(sqlite3_stmt *st, db_row_fn *row, void *ctx, int *fail_rc)
{
	int r = step_all(st, row, ctx, fail_rc);
	sqlite3_reset(st);
	return r;
}

int db_row_i64(sqlite3_stmt *st, void *ctx)
{
	*(int64_t *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

int db_row_double(sqlite3_stmt *st, void *ctx)
{
	*(double *)ctx = sqlite3_column_double(st, 0);
	return 1;
}

int db_row_stop(sqlite3_stmt *st, void *ctx)
{
	(void)st;
	(void)ctx;
	return 1;
}

int db_bind_text1(sqlite3_stmt *st, void *ctx)
{
	sqlite3_bind_text(st, 1, ctx, -1, SQLITE_STATIC);
	return 0;
}
