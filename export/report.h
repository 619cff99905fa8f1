/* report.html (report.c). */
#pragma once

struct exp;
/* EXPORT_REPORT_FILE in dir from a (aggregate.h) and e->db (report.c). */
struct exp_agg;
int exp_write_report(struct exp *e, const char *dir, const struct exp_agg *a);
