/* The text summary msprof prints after an export (and `msprof export
 * summary --format=text`): the run at a glance, from the aggregates that
 * report.html shows too (aggregate.h), in at most EXP_SUMMARY_LINES lines
 * of at most EXP_SUMMARY_COLS columns, so that it fits a screen.  Times in
 * ms with three decimals, as report.html gives them. */

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "export/aggregate.h"
#include "export/exp.h"
#include "export/export.h"
#include "common/util.h"

#define SUMMARY_RANGES 8
#define SUMMARY_PROCS 5
#define SUMMARY_DEVICES 4
#define SUMMARY_COMM 5
#define SUMMARY_LOSSES 8
#define SUMMARY_NOTES 3
#define SUMMARY_NAME_COLS 40

struct text {
	char *buf;
	size_t size, len;
	unsigned lines;
};

/* One line, cut at EXP_SUMMARY_COLS; none past EXP_SUMMARY_LINES. */
static void line(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct text *t, const char *fmt, ...)
{
	char l[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l, sizeof l, fmt, ap);
	va_end(ap);
	if (t->lines >= EXP_SUMMARY_LINES)
		return;
	if (strlen(l) > EXP_SUMMARY_COLS)
		memcpy(l + EXP_SUMMARY_COLS - 3, "...", 4);
	int n = snprintf(t->buf + t->len, t->size - t->len, "%s\n", l);
	if (n < 0 || (size_t)n >= t->size - t->len) {
		t->buf[t->len] = '\0';
		t->lines = EXP_SUMMARY_LINES;
		return;
	}
	t->len += (size_t)n;
	t->lines++;
}

/* name cut to SUMMARY_NAME_COLS columns (bytes: a name is mostly ASCII) */
static const char *cut(const char *name, char *buf, size_t size)
{
	if (strlen(name) <= SUMMARY_NAME_COLS)
		return name;
	snprintf(buf, size, "%.*s...", SUMMARY_NAME_COLS - 3, name);
	return buf;
}

static double ms(double ns)
{
	return ns / 1e6;
}

static void bytes_text(uint64_t b, char *buf, size_t size)
{
	if (b >= 1ULL << 30)
		snprintf(buf, size, "%.2f GiB", (double)b / (1ULL << 30));
	else if (b >= 1ULL << 20)
		snprintf(buf, size, "%.1f MiB", (double)b / (1ULL << 20));
	else if (b >= 1ULL << 10)
		snprintf(buf, size, "%.1f KiB", (double)b / (1ULL << 10));
	else
		snprintf(buf, size, "%" PRIu64 " B", b);
}

static void steps(struct text *t, const struct exp *e, const struct exp_agg *a)
{
	const struct exp_agg_steps *s = &a->steps;
	if (!s->n)
		return;
	char who[64];
	if (e->rank_id >= 0)
		snprintf(who, sizeof who, "rank %" PRId64 ", pid %" PRId64, e->rank_id, s->pid[s->slowest]);
	else
		snprintf(who, sizeof who, "pid %" PRId64, s->pid[s->slowest]);
	line(t, "Steps      %zu in %zu process(es): mean %.3f ms, p50 %.3f ms, p99 %.3f ms", s->n, s->processes,
	     ms(s->mean_ns), ms((double)s->p50), ms((double)s->p99));
	line(t, "           slowest: step %" PRId64 " (%s) %.3f ms; fastest %.3f ms", s->id[s->slowest], who,
	     ms((double)s->dur[s->slowest]), ms((double)s->min));
}

static void ranges(struct text *t, const struct exp_agg *a)
{
	if (!a->n_top)
		return;
	line(t, "Top ranges by total time (%" PRIu64 " range(s) of %" PRIu64 " name(s), steps apart):", a->range_count,
	     a->range_names);
	line(t, "  %-*s %10s %14s %12s %12s", SUMMARY_NAME_COLS, "name", "count", "total ms", "mean ms", "max ms");
	for (size_t i = 0; i < a->n_top && i < SUMMARY_RANGES; i++) {
		const struct exp_agg_range *g = &a->top[i];
		char nb[SUMMARY_NAME_COLS + 1];
		line(t, "  %-*s %10" PRIu64 " %14.3f %12.3f %12.3f", SUMMARY_NAME_COLS, cut(g->name, nb, sizeof nb), g->count,
		     ms((double)g->total), ms((double)g->total / (double)g->count), ms((double)g->max));
	}
	if (a->range_names > SUMMARY_RANGES)
		line(t, "  ... %" PRIu64 " more name(s): report.html and msprof_tx_summary list them", a->range_names - SUMMARY_RANGES);
}

static void procs(struct text *t, const struct exp_agg *a)
{
	if (!a->n_procs)
		return;
	line(t, "Processes (CPU: %% of one CPU, the sum of its threads; memory: resident):");
	line(t, "  %8s  %-24s %10s %10s %12s", "pid", "name", "peak CPU", "mean CPU", "peak memory");
	for (size_t i = 0; i < a->n_procs && i < SUMMARY_PROCS; i++) {
		const struct exp_agg_proc *p = &a->procs[i];
		char cpu[32] = "-", mean[32] = "-", mem[32] = "-";
		if (p->cpu_samples) {
			snprintf(cpu, sizeof cpu, "%.1f%%", p->cpu_peak);
			snprintf(mean, sizeof mean, "%.1f%%", p->cpu_mean);
		}
		if (p->rss_peak_bytes)
			bytes_text(p->rss_peak_bytes, mem, sizeof mem);
		line(t, "  %8" PRId64 "  %-24.24s %10s %10s %12s", p->pid, p->name[0] ? p->name : "?", cpu, mean, mem);
	}
	if (a->n_procs > SUMMARY_PROCS)
		line(t, "  ... %zu more process(es): report.html lists their threads", a->n_procs - SUMMARY_PROCS);
}

static void devices(struct text *t, const struct exp_agg *a)
{
	for (size_t i = 0; i < a->n_devices && i < SUMMARY_DEVICES; i++)
		line(t, "Device %-3" PRId64 " utilisation mean %.1f%%, peak %.1f%% (%" PRIu64 " samples)", a->devices[i].id,
		     a->devices[i].util_mean, a->devices[i].util_peak, a->devices[i].samples);
	if (a->n_devices > SUMMARY_DEVICES)
		line(t, "  ... %zu more device(s) in report.html", a->n_devices - SUMMARY_DEVICES);
}

/* The operations by kind, and their share of the steps (the overlap
 * analysis: the steps' spans, or the collection's without steps). */
static void communication(struct text *t, const struct exp_agg *a)
{
	if (a->comm_ops)
		line(t, "Communication %" PRIu64 " operation(s), from each call to its completion:", a->comm_ops);
	if (a->n_comm_top)
		line(t, "  %-*s %10s %14s %12s %12s %12s", SUMMARY_NAME_COLS - 12, "operation", "count", "total ms", "mean ms",
		     "max ms", "data");
	for (size_t i = 0; i < a->n_comm_top && i < SUMMARY_COMM; i++) {
		const struct exp_agg_comm_op *o = &a->comm_top[i];
		char nb[SUMMARY_NAME_COLS + 1], data[32];
		bytes_text((uint64_t)o->bytes, data, sizeof data);
		line(t, "  %-*s %10" PRIu64 " %14.3f %12.3f %12.3f %12s", SUMMARY_NAME_COLS - 12, cut(o->type, nb, sizeof nb),
		     o->count, ms((double)o->total_ns), ms((double)o->total_ns / (double)o->count), ms((double)o->max_ns),
		     data);
	}
	if (a->n_comm_top > SUMMARY_COMM)
		line(t, "  ... more kinds in report.html");
	if (a->have_comm)
	{
		line(t, "  %.1f%% of the time analysed (%.3f ms of %.3f ms: the steps, overlap_analysis),",
		     100.0 * (double)a->comm_ns / (double)a->comm_span_ns, ms((double)a->comm_ns), ms((double)a->comm_span_ns));
		line(t, "  %.1f%% not overlapped by computing (%.3f ms the steps wait for it)",
		     100.0 * (double)a->comm_exposed_ns / (double)a->comm_span_ns, ms((double)a->comm_exposed_ns));
	}
}

/* "  <count> <what>" (a note: "  <what>"), the cause wrapped onto a second line rather than cut */
static void loss_line(struct text *t, uint64_t count, const char *what)
{
	char l[1024];
	if (count)
		snprintf(l, sizeof l, "  %" PRIu64 " %s", count, what);
	else
		snprintf(l, sizeof l, "  %s", what);
	size_t n = strlen(l);
	if (n <= EXP_SUMMARY_COLS) {
		line(t, "%s", l);
		return;
	}
	size_t at = EXP_SUMMARY_COLS;
	while (at > 4 && l[at] != ' ')
		at--;
	if (at <= 4)
		at = EXP_SUMMARY_COLS;
	line(t, "%.*s", (int)at, l);
	line(t, "    %s", l + at + (l[at] == ' '));
}

static void losses(struct text *t, const struct exp_agg *a)
{
	if (!a->n_losses && !a->n_notes) {
		line(t, "Losses     none: nothing dropped, missed or left out");
		return;
	}
	line(t, "Losses and notes:");
	for (size_t i = 0; i < a->n_losses && i < SUMMARY_LOSSES; i++)
		loss_line(t, a->losses[i].count, a->losses[i].what);
	if (a->n_losses > SUMMARY_LOSSES)
		line(t, "  ... %zu more: report.html lists them", a->n_losses - SUMMARY_LOSSES);
	for (size_t i = 0; i < a->n_notes && i < SUMMARY_NOTES; i++)
		loss_line(t, 0, a->notes[i]);
	if (a->n_notes > SUMMARY_NOTES)
		line(t, "  ... %zu more note(s): report.html lists them", a->n_notes - SUMMARY_NOTES);
}

void exp_summary_text(const struct exp *e, const struct exp_agg *a, char *buf, size_t size)
{
	if (!size)
		return;
	struct text t = { .buf = buf, .size = size };
	buf[0] = '\0';
	char real[PATH_MAX];
	const char *prof = realpath(e->prof_dir, real) ? real : e->prof_dir;
	const char *slash = strrchr(prof, '/');
	line(&t, "Summary of %s", slash && slash[1] ? slash + 1 : prof);
	line(&t, "Duration   %.3f s", a->end > a->t0 ? (double)(a->end - a->t0) / 1e9 : 0.0);
	if (e->flight.on)
		line(&t, "Dump       of the flight recorder, on %s%s%s", e->flight.trigger, e->flight.detail[0] ? ": " : "",
		     e->flight.detail);
	line(&t, "Output     %s/%s", prof, EXPORT_OUTPUT_DIR);
	line(&t, "           %s there shows this and more in a browser", EXPORT_REPORT_FILE);
	steps(&t, e, a);
	ranges(&t, a);
	procs(&t, a);
	devices(&t, a);
	communication(&t, a);
	losses(&t, a);
}
