/* Host disk: HOST_DISK_USAGE (--host-sys=disk), parsed with the other host
 * samples (domain-host.c); the Disk Usage layer; the host_disk_usage summary. */
#include <stdio.h>

#include "export/domain-host-counters.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/tables.h"
#include "common/util.h"

/* Rates are B/s in the database (msprof's unit there), KB/s here; msprof
 * does not round these (nor the network ones), so neither do we. */
static int write_host_disk(struct exp *e, FILE *f)
{
	double rp, rr, wp, wr;
	int r = exp_peak_recommend(e, "HOST_DISK_USAGE", "readRate", &rp, &rr);
	if (r == 0)
		r = exp_peak_recommend(e, "HOST_DISK_USAGE", "writeRate", &wp, &wr);
	if (r < 0)
		return r;
	fputs("host", f);
	exp_put_num(f, rp / 1024.0, -1);
	exp_put_num(f, rr / 1024.0, -1);
	exp_put_num(f, wp / 1024.0, -1);
	exp_put_num(f, wr / 1024.0, -1);
	fputc('\n', f);
	return 0;
}

static const struct exp_host_summary summaries[] = {
	{ CSV_HOST_DISK_USAGE, false, HOST_SYS_DISK, "HOST_DISK_USAGE", write_host_disk },
};

/* Byte rates beside the percentage, MB/s (MB = 2^20 bytes, as msprof's KB
 * is 2^10): the tree's, each disk's that did I/O, each process's. */
static const struct exp_counter_track rates[] = {
	{ "HOST_DISK_USAGE", "SELECT timestampNs, 'Disk Rate', readRate, writeRate FROM HOST_DISK_USAGE",
	  "Read(MB/s)", "Write(MB/s)", 1.0 / 1048576.0 },
	{ "HOST_DISK_DEVICE_USAGE",
	  "SELECT d.timestampNs, 'Disk ' || s.value, d.readRate, d.writeRate FROM HOST_DISK_DEVICE_USAGE d "
	  "JOIN STRING_IDS s ON s.id = d.name WHERE d.name IN (SELECT name FROM HOST_DISK_DEVICE_USAGE "
	  "GROUP BY name HAVING MAX(readRate + writeRate) > 0)",
	  "Read(MB/s)", "Write(MB/s)", 1.0 / 1048576.0 },
	{ "TARGET_PROCESS_DISK_USAGE",
	  "SELECT u.timestampNs, " EXP_NAME_OF_PID " || ' (pid ' || u.pid || ')', u.readRate, u.writeRate "
	  "FROM TARGET_PROCESS_DISK_USAGE u",
	  "Read(MB/s)", "Write(MB/s)", 1.0 / 1048576.0 },
};

static const struct exp_counter_layer layer = {
	TRACK_DISK_USAGE, "HOST_DISK_USAGE", "SELECT timestampNs, usage FROM HOST_DISK_USAGE", false, "Disk Usage",
	NULL, NULL, NULL, rates, ARRAY_SIZE(rates),
};

static const char *const tables[] = { "HOST_DISK_USAGE", "TARGET_PROCESS_DISK_USAGE", "HOST_DISK_DEVICE_USAGE", NULL };

const struct exp_domain exp_domain_disk = {
	.name = "disk",
	.tables = tables,
	.counter_layer = &layer,
	.host_summaries = summaries,
	.n_host_summaries = ARRAY_SIZE(summaries),
};
