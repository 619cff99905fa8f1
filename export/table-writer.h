/* Summary tables (table-writer.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "export/files.h"
#include "export/tables.h"

struct exp;
struct exp_buf;

/* A summary table : CSV, or JSON when e->summary_json, split
 * into {type}_slice_{n}_{ts} pieces of e->csv_limit rows when it holds
 * more, else one {type}_{ts} file.  A row is one CSV line written to the
 * FILE exp_table_row returns and ended with exp_table_row_end. */
struct exp_table {
	struct exp *e;
	const char *dir;
	const struct export_csv_table *t;
	bool json;
	struct exp_out o;
	unsigned slice;
	uint64_t in_file, rows;
	int err;
	FILE *line;          /* JSON: the row as CSV, converted at its end */
	char *line_buf;
	size_t line_size;
	char field[4096];
};
int exp_table_open(struct exp *e, struct exp_table *w, const char *dir, enum export_csv id);
FILE *exp_table_row(struct exp_table *w);
int exp_table_row_end(struct exp_table *w);
/* The row formatted in b (one CSV line, newline included) as the table's
 * next row; b is emptied.  b's error, or the table's, is returned. */
int exp_table_put(struct exp_table *w, struct exp_buf *b);
/* Rows from CSV text (lines, quoted fields may hold line breaks). */
int exp_table_lines(struct exp_table *w, const char *buf, size_t len);
int exp_table_commit(struct exp_table *w);
void exp_table_abort(struct exp_table *w);
/* After an error r < 0, exp_table_abort and r; else exp_table_commit. */
int exp_table_end(struct exp_table *w, int r);
/* Table id from the rows of sql, each written by row() as one CSV line
 * (newline included); arg is row()'s.  The caller checks that there are
 * rows: a table with none is a file with the header alone. */
int exp_table_query(struct exp *e, const char *dir, enum export_csv id, const char *sql,
		    void (*row)(FILE *f, sqlite3_stmt *st, void *arg), void *arg);
/* A whole small table from a writer of CSV lines (no header). */
int exp_table_write(struct exp *e, const char *dir, enum export_csv id, int (*write)(struct exp *e, FILE *f));
