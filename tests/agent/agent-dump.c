/* agent-dump: print the agent files of a data directory for test scripts.
 *
 *   agent-dump DATA_DIR            one summary line per process
 *   agent-dump -v DATA_DIR [PID]   and every record
 *
 * Summary: pid=N ppid=N rank=N local_rank=N world_size=N local_world_size=N
 *          node_rank=N device=N name=S slices=N processes=N windows=N marks=N starts=N
 * ends=N events=N dropped=N bad=N truncated=N counters=N last=0|1 damage=N
 * problem=S.  Exit 1 when a directory cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/agent/agent-read.h"
#include "collectors/raw.h"

static void dump(const struct ar_file *f)
{
	for (size_t i = 0; i < f->n_threads; i++)
		printf("  thread tid=%llu name=%s\n", (unsigned long long)f->threads[i].key, f->threads[i].name);
	for (size_t i = 0; i < f->n_domains; i++)
		printf("  domain id=%llu name=%s\n", (unsigned long long)f->domains[i].key, f->domains[i].name);
	for (size_t i = 0; i < f->n_ev; i++) {
		const struct ar_event *e = &f->ev[i];
		const char *k = e->rec == RAW_AGENT_MARK ? "mark" : e->rec == RAW_AGENT_RANGE_START ? "start"
				: e->rec == RAW_AGENT_OSRT	  ? "osrt"
								  : "end";
		printf("  %s ts=%llu tid=%u type=%u id=%llx domain=%llu cat=%llu color=%x msg=%s\n", k,
		       (unsigned long long)e->ts, e->tid, e->type, (unsigned long long)e->id,
		       (unsigned long long)e->domain, (unsigned long long)e->category, e->color,
		       e->msg ? e->msg : "");
	}
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	if (verbose) {
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: agent-dump [-v] DATA_DIR [PID]\n");
		return 2;
	}
	uint32_t *pids = NULL;
	size_t n = 0;
	uint32_t one;
	if (argc > 2) {
		one = (uint32_t)strtoul(argv[2], NULL, 10);
		pids = &one;
		n = 1;
	} else if (raw_list_agent_pids(argv[1], &pids, &n) < 0) {
		fprintf(stderr, "agent-dump: cannot read '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct ar_file f;
		int r = ar_load(argv[1], pids[i], &f);
		if (r < 0) {
			printf("pid=%u error=%s\n", pids[i], strerror(-r));
			continue;
		}
		printf("pid=%u ppid=%u rank=%d local_rank=%d world_size=%d local_world_size=%d node_rank=%d device=%d "
		       "name=%s slices=%u processes=%u windows=%u marks=%zu starts=%zu ends=%zu "
		       "events=%llu dropped=%llu bad=%llu truncated=%llu counters=%u last=%d damage=%llu problem=%s\n",
		       f.pid, f.ppid, f.rank, f.local_rank, f.world_size, f.local_world_size,
		       f.node_rank, f.device, f.name ? f.name : "", f.slices, f.processes, f.windows,
		       ar_count(&f, RAW_AGENT_MARK), ar_count(&f, RAW_AGENT_RANGE_START),
		       ar_count(&f, RAW_AGENT_RANGE_END), (unsigned long long)f.events,
		       (unsigned long long)f.dropped, (unsigned long long)f.bad, (unsigned long long)f.truncated,
		       f.n_counters, f.counters_last, (unsigned long long)f.damage,
		       f.problem[0] ? f.problem : "-");
		if (verbose)
			dump(&f);
		ar_free(&f);
	}
	if (pids != &one)
		free(pids);
	return 0;
}
