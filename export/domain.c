/* The export's data domains, in the order the stages walk them (struct
 * exp_domain, domain.h): a new domain is its file and one line here. */
#include "export/domain.h"
#include "export/exp.h"
#include "common/util.h"

const struct exp_domain *const exp_domains[] = {
	&exp_domain_host,     /* parse: the host samples of cpu, mem, network, disk */
	&exp_domain_cpu,
	&exp_domain_mem,
	&exp_domain_network,
	&exp_domain_disk,
	&exp_domain_agents,   /* parse: the agents' files, for osrt, mstx, tasks */
	&exp_domain_osrt,
	&exp_domain_device,
	&exp_domain_tasks,
	&exp_domain_rank,     /* build: the devices of the two above */
	&exp_domain_mstx,     /* its layers last, by exp_write_timeline */
	&exp_domain_steps,    /* built from the mstx events */
	&exp_domain_comm,     /* built from the device tasks and the mstx events */
	&exp_domain_overlap,  /* built from the tasks, ranges, communication and steps above */
};
const size_t exp_domains_n = ARRAY_SIZE(exp_domains);
_Static_assert(ARRAY_SIZE(exp_domains) <= EXP_DOMAIN_SLOTS, "struct exp holds a state slot per domain");

void **exp_domain_state(struct exp *e, const struct exp_domain *d)
{
	size_t i = 0;
	while (i < exp_domains_n - 1 && exp_domains[i] != d)
		i++;
	return &e->domain_state[i];
}
