/* The export's data domains, in the order the stages walk them (struct
 * exp_domain, domain.h): a new domain is its file and one line here. */
#include <stdlib.h>

#include "export/domain.h"
#include "export/exp.h"
#include "common/util.h"

#define DOMAINS(X)                                                                  \
	X(host)     /* parse: the host samples of cpu, mem, network, disk */      \
	X(cpu)                                                                      \
	X(mem)                                                                      \
	X(network)                                                                  \
	X(disk)                                                                     \
	X(agents)   /* parse: the agents' files, for osrt, mstx, tasks */          \
	X(osrt)                                                                     \
	X(device)                                                                   \
	X(tasks)                                                                    \
	X(rank)     /* build: the devices of the two above */                      \
	X(mstx)     /* its layers after the others' (a timeline file of its own) */ \
	X(steps)    /* built from the mstx events */                                \
	X(comm)     /* built from the device tasks and the mstx events */           \
	X(overlap)  /* built from the tasks, ranges, communication and steps above */ \
	/* (every line above ends in a backslash: a new domain is one more line) */

/* each domain's entry, exp_domain_<name>, is defined in its domain-<name>.c */
#define DECLARE(name) extern const struct exp_domain exp_domain_##name;
DOMAINS(DECLARE)
#define ENTRY(name) &exp_domain_##name,
const struct exp_domain *const exp_domains[] = { DOMAINS(ENTRY) };
const size_t exp_domains_n = ARRAY_SIZE(exp_domains);
_Static_assert(ARRAY_SIZE(exp_domains) <= EXP_DOMAIN_SLOTS, "struct exp holds a state slot per domain");

void **exp_domain_state(struct exp *e, const struct exp_domain *d)
{
	for (size_t i = 0; i < exp_domains_n; i++)
		if (exp_domains[i] == d)
			return &e->domain_state[i];
	abort(); /* a domain not in the list has no state: a mistake of its code */
}
