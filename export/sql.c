/* SQLite calls of an export run, their failures mapped to -errno once and
 * noted in its report, and rows inserted in batches (sql.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "export/db.h"
#include "export/exp.h"
#include "export/sql.h"
#include "common/util.h"

int exp_sql_fail(struct exp *e, int rc, const char *what)
{
	/* SQLite says "database or disk is full": the user needs the cause
	 * the system gave and the file */
	if (rc == SQLITE_FULL || (e->db && sqlite3_system_errno(e->db) == ENOSPC)) {
		const char *file = e->db ? sqlite3_db_filename(e->db, "main") : NULL;
		exp_fail(e, "cannot write database '%s': %s", file && *file ? file : "?", strerror(ENOSPC));
		return -ENOSPC;
	}
	exp_fail(e, "database error in %s: %s", what, e->db ? sqlite3_errmsg(e->db) : sqlite3_errstr(rc));
	return db_errno(rc);
}

int exp_each(struct exp *e, const char *sql, db_bind_fn *bind, db_row_fn *row, void *ctx)
{
	int rc = SQLITE_OK;
	int r = db_each_rc(e->db, sql, bind, row, ctx, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, sql);
}

int exp_stmt_each(struct exp *e, sqlite3_stmt *st, const char *what, db_row_fn *row, void *ctx)
{
	int rc = SQLITE_OK;
	int r = db_stmt_each_rc(st, row, ctx, &rc);
	return rc == SQLITE_OK ? r : exp_sql_fail(e, rc, what);
}

int exp_exec(struct exp *e, const char *sql)
{
	int rc = sqlite3_exec(e->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : exp_sql_fail(e, rc, sql);
}

int exp_prepare(struct exp *e, const char *sql, sqlite3_stmt **ret)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(e->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return exp_sql_fail(e, rc, sql);
	*ret = st;
	return 0;
}

int exp_step_done(struct exp *e, sqlite3_stmt *st, const char *what)
{
	/* one execution, the inserts' hot path: stepped here, not through
	 * the row iterator */
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : exp_sql_fail(e, rc, what);
}

int exp_batch_init(struct exp *e, struct exp_batch *b, const char *table, const char *types)
{
	int cols = (int)strlen(types);
	*b = (struct exp_batch){ .e = e, .cols = cols }; /* released safely whatever comes */
	if (cols < 1 || cols > EXP_BATCH_COLS || strspn(types, "id") != (size_t)cols)
		return -EINVAL;
	memcpy(b->types, types, (size_t)cols);
	if ((size_t)snprintf(b->what, sizeof b->what, "INSERT INTO %s", table) >= sizeof b->what)
		return -ENAMETOOLONG; /* the SQL is made from it */
	/* "INSERT INTO T VALUES (?, ?), (?, ?), ...": the row's part, then
	 * as many as the statement carries */
	char row[4 * EXP_BATCH_COLS + 4], sql[sizeof row * EXP_BATCH_ROWS + 64];
	size_t n = 0;
	for (int i = 0; i < cols; i++)
		n += (size_t)snprintf(row + n, sizeof row - n, "%s?", i ? ", " : "(");
	snprintf(row + n, sizeof row - n, ")");
	n = (size_t)snprintf(sql, sizeof sql, "%s VALUES %s", b->what, row);
	int r = exp_prepare(e, sql, &b->one);
	for (int k = 1; k < EXP_BATCH_ROWS; k++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", row);
	if (r == 0)
		r = exp_prepare(e, sql, &b->many);
	if (r < 0)
		exp_batch_release(b);
	return r;
}

static void batch_bind(sqlite3_stmt *st, int i, char type, union exp_value v)
{
	if (type == 'd')
		sqlite3_bind_double(st, i, v.d);
	else if (v.i == EXP_NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v.i);
}

int exp_batch_put(struct exp_batch *b, const union exp_value *v)
{
	/* a statement keeps its values from one execution to the next: only
	 * those that changed are bound (a row's thread, domain and category
	 * seldom do; binding costs a tenth of an insert) */
	union exp_value *bound = b->bound + b->n * b->cols;
	for (int i = 0; i < b->cols; i++) {
		if (b->bound_ok && v[i].i == bound[i].i) /* the same bits */
			continue;
		batch_bind(b->many, b->n * b->cols + i + 1, b->types[i], v[i]);
		bound[i] = v[i];
	}
	if (++b->n < EXP_BATCH_ROWS)
		return 0;
	b->n = 0;
	b->bound_ok = true;
	return exp_step_done(b->e, b->many, b->what);
}

int exp_batch_drain(struct exp_batch *b)
{
	int r = 0;
	for (int k = 0; k < b->n && r == 0; k++) {
		for (int i = 0; i < b->cols; i++)
			batch_bind(b->one, i + 1, b->types[i], b->bound[k * b->cols + i]);
		r = exp_step_done(b->e, b->one, b->what);
	}
	/* many's parameters keep their values, which bound still mirrors */
	b->n = 0;
	return r;
}

void exp_batch_release(struct exp_batch *b)
{
	sqlite3_finalize(b->many);
	sqlite3_finalize(b->one);
	b->many = b->one = NULL;
	b->n = 0;
}

/* SQLite keeps memory statistics under one process-wide lock taken on
 * every allocation; nothing here reads them, and export cluster's reader
 * threads would queue on that lock.  Before SQLite is first used (a
 * constructor: any program that links the export). */
__attribute__((constructor)) static void sql_no_memstatus(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

bool exp_table_has_rows(struct exp *e, const char *table)
{
	char sql[128];
	const char *name = strncmp(table, "main.", 5) == 0 ? table + 5 : table;
	if (e->main_tables && !strchr(name, '.')) {
		char key[128];
		if ((size_t)snprintf(key, sizeof key, "\n%s\n", name) < sizeof key && !strstr(e->main_tables, key))
			return false;
	}
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 1", table);
	/* an error is no such table: dropped because empty */
	return db_each(e->db, sql, NULL, db_row_stop, NULL) > 0;
}

bool exp_table_has_index(struct exp *e, const char *index)
{
	return db_each(e->db, "SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND name = ?", db_bind_text1,
		       db_row_stop, (void *)index) > 0;
}
