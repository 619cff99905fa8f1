/* One-row summaries of the host samples (domain-host-summary.c), described
 * as data in the host domains' entries. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sqlite3.h>

#include "export/tables.h"

struct exp;

/* A one-row summary of host samples (domain-host-summary.c): written when its switch
 * of sample.json was given and its table has rows (else older files of
 * its type are removed). */
struct exp_host_summary {
	enum export_csv csv;
	bool usage;          /* --host-sys-usage (else --host-sys) */
	unsigned ask;        /* the item of that switch */
	const char *table;   /* written only when this table has rows */
	int (*write)(struct exp *e, FILE *f);
};
int exp_write_host_summaries(struct exp *e, const char *dir, const struct exp_host_summary *s, size_t n);
/* msprof HostProfDataBase.get_recommend_value over col of table. */
int exp_peak_recommend(struct exp *e, const char *table, const char *col, double *ret_peak, double *ret_rec);
/* ",<v>" as exp_format_num writes it. */
void exp_put_num(FILE *f, double v, int decimals);
/* "host,<pid>,<name>" of a per-process row (columns 0 and 1). */
void exp_put_process(FILE *f, sqlite3_stmt *st);
/* The name of a pid u.pid: the newest PROCESS_INFO row's (a pid may be reused). */
#define EXP_NAME_OF_PID                                                                 \
	"COALESCE((SELECT s.value FROM PROCESS_INFO i JOIN STRING_IDS s ON s.id = i.name " \
	"WHERE i.pid = u.pid ORDER BY i.firstSeenNs DESC LIMIT 1), '')"
