/* A PROF dir's descriptions as the export reads them (export/prof.c
 * exp_read_host): host/info.json, host/sample.json (the settings, by the
 * table of ipc/settings.c), host/start_info and host/end_info.  The input
 * is the four files' texts, cut by NUL bytes (a part missing: no file).
 * What is read must be in range whatever the files say. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/exp.h"
#include "export/export.h"
#include "export/prof.h"
#include "tests/fuzz/fuzz-util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *dir;
static const char *const names[] = { "host/info.json", "host/sample.json", "host/start_info", "host/end_info" };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fuzz_scratch("fuzz-info");
	fuzz_mkdir(dir, "host");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t left = size;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n;
		const char *part = left ? fuzz_part(&in, &left, &n) : NULL;
		if (part)
			fuzz_write(dir, names[i], part, n);
		else
			fuzz_unlink(dir, names[i]);
	}
	struct export_report rep = { 0 };
	struct exp e = { .prof_dir = dir, .rep = &rep, .tracks = UINT64_MAX, .rank_id = -1 };
	exp_read_host(&e);
	/* a rank is one, or none; a damaged identity is said */
	if (e.rank_id < -1 || e.rank_id > INT32_MAX || (e.info_damaged[0] && e.rank_id != -1) ||
	    e.n_netcards > EXPORT_MAX_NETCARDS || e.flight.n_overwritten > 32) {
		fprintf(stderr, "fuzz-info: out of range: rank %" PRId64 " (damage '%s'), %u netcards\n", e.rank_id,
			e.info_damaged, e.n_netcards);
		abort();
	}
	exp_release_host(&e);
	return 0;
}
