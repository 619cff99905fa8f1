/* Counter layers of the host samples in the timeline (domain-host-counters.c),
 * described as data in the cpu, mem, disk and network domains' entries. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/tables.h"

struct exp;
struct exp_tl;

/* A host counter layer (domain-host-counters.c): "SELECT ts, [id,] value" rows as
 * counters named prefix (+ id), and a second query's under prefix2 (CPU
 * Avg); each written when its table has rows, then the process metadata. */
struct exp_counter_track;
struct exp_counter_layer {
	enum export_track track;
	const char *table;     /* present when this table has rows */
	const char *sql;
	bool with_id;
	const char *prefix;
	const char *sql2;
	const char *prefix2;
	const char *table2;
	/* more counters in the same process, each written when its table
	 * has rows: "SELECT ts, name, v1[, v2]" rows as counters named
	 * name with args {arg1: v1 * scale, arg2: v2 * scale} */
	const struct exp_counter_track *more;
	size_t n_more;
};
struct exp_counter_track {
	const char *table;
	const char *sql;
	const char *arg1, *arg2; /* arg2 NULL: one value */
	double scale;            /* B/s -> MB/s, kB -> MB, ... */
};
/* A counter event named name (JSON-escaped here) with one or two args. */
void exp_tl_counter2(struct exp_tl *out, unsigned pid, int64_t ts_ns, const char *name, const char *arg1,
		     double v1, const char *arg2, double v2);
bool exp_counter_layer_has(struct exp *e, const struct exp_counter_layer *l);
int exp_write_counter_layer(struct exp *e, struct exp_tl *tl, const struct exp_counter_layer *l);
