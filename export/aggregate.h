/* What a run amounts to, aggregated once from the database of an export
 * and rendered twice: as report.html's data (report.c) and as the text
 * summary msprof prints after an export (summary.c).  Each part is one
 * scan of its table, aggregated in C (a GROUP BY over millions of rows
 * would sort them); a part whose table has no rows is empty. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "collectors/raw.h"

struct exp;

#define EXP_AGG_TOP_RANGES 20

/* A map of (a, b) keys to dense indices 0, 1, ... in order of arrival,
 * for the scans. */
struct exp_kmap {
	int64_t *keys;     /* 2 per slot */
	uint32_t *idx;     /* slot -> index + 1, 0 empty */
	size_t cap, n;
};
/* The index of (a, b): found, or the next one (m->n before the call) when
 * new (*ret_new); <0 out of memory. */
int64_t exp_kmap_get(struct exp_kmap *m, int64_t a, int64_t b, bool *ret_new);
void exp_kmap_release(struct exp_kmap *m);

/* The ranges report.html sums: push/pop and start/end ranges
 * (ENUM_MSTX_EVENT_TYPE 1, 2) that end no earlier than they start, as SQL
 * and as C. */
#define EXP_AGG_RANGE_SQL "eventType IN (1, 2) AND endNs >= startNs"
static inline bool exp_agg_range_counts(int64_t type, int64_t start, int64_t end)
{
	return (type == 1 || type == 2) && end >= start;
}

/* Those ranges summed by (message, domain), in order of arrival.  Made
 * by exp_aggregate from MSTX_EVENTS, or beforehand by the export's thread
 * that reads the table for the mstx outputs (domain-mstx.c), which sets
 * complete once it has seen every row: exp_aggregate then takes them,
 * once (it sorts v in place: map no longer matches it). */
struct exp_agg_range_sum {
	int64_t msg, dom;
	uint64_t count;
	int64_t total, min, max;
};
struct exp_agg_range_sums {
	struct exp_kmap map;
	struct exp_agg_range_sum *v;
	size_t n, cap;
	bool complete;
};
/* One range (d: its duration, ns): 0, or <0 out of memory. */
int exp_agg_range_add(struct exp_agg_range_sums *g, int64_t msg, int64_t dom, int64_t d);
void exp_agg_range_sums_release(struct exp_agg_range_sums *g);

/* Every STEP row, in start order, and what their durations come to.
 * Percentiles are nearest-rank: the duration of a step that ran. */
struct exp_agg_steps {
	int64_t *dur, *id, *pid;     /* ns; stepId; pid */
	size_t n, cap;
	double mean_ns;
	int64_t p50, p99, min, max;  /* ns */
	size_t slowest;              /* index of the longest (the first of equals) */
	size_t processes;            /* distinct pids */
};

/* An annotation range name (steps left out: they have their own). */
struct exp_agg_range {
	char name[RAW_AGENT_MAX_STR + 1], domain[RAW_AGENT_MAX_STR + 1];
	uint64_t count;
	int64_t total, min, max;     /* ns */
};

/* A process of the tree: its peak CPU (the sum of its threads' % of one
 * CPU in one sample) and its peak resident memory. */
struct exp_agg_proc {
	int64_t pid;
	char name[256];
	double cpu_peak, cpu_mean;   /* % of one CPU; mean over its samples */
	uint64_t cpu_samples;
	uint64_t rss_peak_bytes;
};

struct exp_agg_device {
	int64_t id;
	double util_mean, util_peak; /* % */
	uint64_t samples;
};

/* A count of something dropped, missed or left out, and what it is. */
struct exp_agg_loss {
	uint64_t count;
	bool loss;                   /* false: left out as asked */
	char what[512];
};

/* One kind of communication operation (COMMUNICATION_OP's opType). */
#define EXP_AGG_COMM_TOP 10
struct exp_agg_comm_op {
	char type[64];
	uint64_t count;
	int64_t total_ns, max_ns;    /* from each call to its work's completion */
	double bytes;                /* count x the data type's size, where both are known */
};

struct exp_agg {
	int64_t t0, end;             /* SESSION_TIME_INFO */
	struct exp_agg_steps steps;
	struct exp_agg_range top[EXP_AGG_TOP_RANGES]; /* by total time, largest first */
	size_t n_top;
	bool have_ranges;            /* ranges of any name, steps too */
	uint64_t range_count, range_names;            /* all the ranges, and their names */
	struct exp_agg_proc *procs;  /* by peak CPU, busiest first */
	size_t n_procs;
	struct exp_agg_device *devices; /* by id */
	size_t n_devices;
	bool have_comm;              /* STEP_TRACE_TIME with communication */
	int64_t comm_ns, comm_span_ns;  /* communication, and the steps (or session) it lies in */
	int64_t comm_exposed_ns;     /* of comm_ns, not overlapped by computing: the steps wait */
	uint64_t comm_ops;           /* COMMUNICATION_OP rows */
	struct exp_agg_comm_op comm_top[EXP_AGG_COMM_TOP]; /* by total time, largest first */
	size_t n_comm_top;
	struct exp_agg_loss *losses;
	size_t n_losses;
	char **notes;                /* the export's own notes, this run's */
	size_t n_notes;
};

/* Fill *ret from the export's open database (released by
 * exp_agg_release, also on error).  0 or -errno. */
int exp_aggregate(struct exp *e, struct exp_agg *ret);
void exp_agg_release(struct exp_agg *a);

/* The name of process pid (PROCESS_INFO, AGENT_PROCESS), or "". */
void exp_process_name(struct exp *e, int64_t pid, char *buf, size_t size);

/* The STEP rows of db and their figures (another rank's database too). */
int exp_agg_steps_of(sqlite3 *db, struct exp_agg_steps *ret);
void exp_agg_steps_release(struct exp_agg_steps *s);

/* The text summary of a: at most EXP_SUMMARY_LINES lines of at most
 * EXP_SUMMARY_COLS columns, into buf ("" when size is 0). */
#define EXP_SUMMARY_LINES 40
#define EXP_SUMMARY_COLS 120
void exp_summary_text(const struct exp *e, const struct exp_agg *a, char *buf, size_t size);
