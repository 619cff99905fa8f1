/* Run for MS milliseconds of wall time doing light work, then die of the
 * given signal (default SIGSEGV, a real invalid access).
 *   test-crasher MS [SIGNAL] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/util.h"

int main(int argc, char **argv)
{
	uint64_t ms, sig = SIGSEGV;
	if (argc < 2 || parse_u64(argv[1], 0, 3600000, &ms) < 0 || (argc > 2 && parse_u64(argv[2], 1, 64, &sig) < 0)) {
		fprintf(stderr, "usage: test-crasher MS [SIGNAL]\n");
		return 2;
	}
	uint64_t end = mono_ns() + ms * NSEC_PER_MSEC;
	volatile uint64_t x = 0;
	while (mono_ns() < end)
		x++;
	fflush(stdout);
	/* A sanitizer runtime may have installed its own handler (ASan turns
	 * SIGSEGV into exit 1): restore the default so the process really dies
	 * of the signal, as the job under test must. */
	signal((int)sig, SIG_DFL);
	if (sig == SIGSEGV) {
		/* The address comes from the command line's length so the
		 * compiler cannot see (and warn about) the invalid access. */
		volatile uintptr_t addr = (uintptr_t)(argc - argc) + 8;
		*(volatile int *)addr = 1;
	}
	raise((int)sig);
	return 0;
}
