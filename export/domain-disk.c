/* Host disk: HOST_DISK_USAGE (--host-sys=disk), parsed with the other host
 * samples (parse-host.c); the Disk Usage layer; the host_disk_usage summary. */
#include "export/internal.h"
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
	{ CSV_HOST_DISK_USAGE, false, ASK_DISK, "HOST_DISK_USAGE", write_host_disk },
};

static const struct exp_counter_layer layer = {
	TRACK_DISK_USAGE, "HOST_DISK_USAGE", "SELECT timestampNs, usage FROM HOST_DISK_USAGE", false, "Disk Usage",
	NULL, NULL, NULL,
};

static const char *const tables[] = { "HOST_DISK_USAGE", "TARGET_PROCESS_DISK_USAGE", "HOST_DISK_DEVICE_USAGE", NULL };

const struct exp_domain exp_domain_disk = {
	.name = "disk",
	.tables = tables,
	.counter_layer = &layer,
	.host_summaries = summaries,
	.n_host_summaries = ARRAY_SIZE(summaries),
};
