#include <errno.h>
#include <stdbool.h>

#include "ipc/selectors.h"

/* A decimal number at *p (digits only), moved past. */
static int number(const char **p, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	bool big = false;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			big = true;
		else
			v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	if (big || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int ipc_parse_step_range(const char *s, int64_t *ret_lo, int64_t *ret_hi)
{
	uint64_t a, b;
	int r;
	if (!s)
		return -EINVAL;
	if ((r = number(&s, INT64_MAX, &a)) < 0)
		return r;
	if (*s++ != '-')
		return -EINVAL;
	if ((r = number(&s, INT64_MAX, &b)) < 0)
		return r;
	if (*s)
		return -EINVAL;
	if (b <= a)
		return -ERANGE;
	*ret_lo = (int64_t)a;
	*ret_hi = (int64_t)b;
	return 0;
}

int ipc_parse_ranks(const char *s)
{
	unsigned n = 0;
	if (!s)
		return -EINVAL;
	for (;;) {
		uint64_t v;
		int r = number(&s, IPC_RANK_MAX, &v);
		if (r < 0)
			return r;
		if (++n > IPC_RANKS_MAX)
			return -E2BIG;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}
