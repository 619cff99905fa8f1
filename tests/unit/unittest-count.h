/* The check of the unit tests that go on after a failure and report the
 * count at the end (test-export, test-ipc): like unittest.h's CHECK, but a
 * failure is counted in `failures` instead of ending the test. */
#pragma once

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                          \
		}                                                                            \
	} while (0)
