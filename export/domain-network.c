/* Host network: HOST_NETWORK_USAGE and NETWORK_INTERFACE_USAGE (--host-sys=network), parsed
 * with the other host samples (domain-host.c); the Network Usage layer; the
 * host_network_usage summary. */
#include <stdio.h>

#include "export/domain-host-counters.h"
#include "export/domain-host-summary.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/tables.h"
#include "common/util.h"

/* msprof HostNetworkUsagePresenter: Netcard Speed = sum of the known rated
 * speeds (Mbit/s * 125000 / 1024 KB/s); peak and recommend of speed. */
static int write_host_network(struct exp *e, FILE *f)
{
	double peak, rec, cards = 0;
	int r = exp_peak_recommend(e, "HOST_NETWORK_USAGE", "speed", &peak, &rec);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < e->n_netcards; i++)
		if (e->netcards[i].speed_mbps > 0)
			cards += (double)e->netcards[i].speed_mbps * 125000.0 / 1024.0;
	fputs("host", f);
	exp_put_num(f, cards, -1);
	exp_put_num(f, peak / 1024.0, -1);
	exp_put_num(f, rec / 1024.0, -1);
	fputc('\n', f);
	return 0;
}

static const struct exp_host_summary summaries[] = {
	{ CSV_HOST_NETWORK_USAGE, false, HOST_SYS_NETWORK, "HOST_NETWORK_USAGE", write_host_network },
};

/* Byte rates beside the percentage, MB/s (MB = 2^20 bytes): all
 * interfaces (lo's traffic once), and each interface's rx and tx. */
static const struct exp_counter_track rates[] = {
	{ "HOST_NETWORK_USAGE", "SELECT timestampNs, 'Network Rate', speed FROM HOST_NETWORK_USAGE", "Speed(MB/s)",
	  NULL, 1.0 / 1048576.0 },
	{ "NETWORK_INTERFACE_USAGE",
	  "SELECT n.timestampNs, 'Interface ' || s.value, n.rxRate, n.txRate FROM NETWORK_INTERFACE_USAGE n "
	  "JOIN STRING_IDS s ON s.id = n.name",
	  "Rx(MB/s)", "Tx(MB/s)", 1.0 / 1048576.0 },
};

static const struct exp_counter_layer layer = {
	TRACK_NETWORK_USAGE, "HOST_NETWORK_USAGE", "SELECT timestampNs, usage FROM HOST_NETWORK_USAGE", false,
	"Network Usage", NULL, NULL, NULL, rates, ARRAY_SIZE(rates),
};

static const char *const tables[] = { "HOST_NETWORK_USAGE", "NETWORK_INTERFACE_USAGE", NULL };

const struct exp_domain exp_domain_network = {
	.name = "network",
	.tables = tables,
	.counter_layer = &layer,
	.host_summaries = summaries,
	.n_host_summaries = ARRAY_SIZE(summaries),
};
