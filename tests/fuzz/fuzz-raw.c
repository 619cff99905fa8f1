/* The export's decoders of raw records, in process: an input is one raw
 * file, parsed by the export's domain that reads it (export/domain-*.c,
 * through the raw reader) into a database in memory, as an export parses
 * it before its builds.
 *
 * The input is fuzz-raw.h's: its first byte chooses the file, a host
 * sampler's (host_cpu.data ...), an agent's (agent_4242.data) or a
 * device's (device_0/data/device.data), by its value modulo their number,
 * and with FUZZ_RAW_FIX_CRC has the checksums made right; the rest is the
 * file.  The tables are made once; each input's rows are rolled back after
 * it, and what the domains kept is released. */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>

#include "collectors/raw.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/export.h"
#include "export/prof.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "tests/fuzz/fuzz-raw.h"
#include "tests/fuzz/fuzz-util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the domains whose parse reads the files (export/domain.c) */
extern const struct exp_domain exp_domain_host, exp_domain_agents, exp_domain_device;

static const char *dir;
static struct {
	char path[64];
	const struct exp_domain *parser;
} files[8];
static unsigned n_files;
static struct export_report rep;
static struct exp e0, e;     /* e0: e as each input finds it */
static uint8_t *buf;

static void add_file(const char *path, const struct exp_domain *parser)
{
	snprintf(files[n_files].path, sizeof files[0].path, "%s", path);
	files[n_files++].parser = parser;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fuzz_scratch("fuzz-raw");
	fuzz_mkdir(dir, "host/data");
	fuzz_mkdir(dir, "device_0/data");
	static const char info[] = "{\"hostname\":\"h\",\"hostUid\":\"u\",\"pid\":\"4242\",\"cpuNums\":4,"
				   "\"memoryTotal\":16000000,\"rank_id\":-1}";
	fuzz_write(dir, "host/info.json", info, sizeof info - 1);
	char path[64];
	for (unsigned s = RAW_SOURCE_HOST_CPU; s <= RAW_SOURCE_USAGE_MEM; s++) {
		snprintf(path, sizeof path, "host/data/%s.slice_0", raw_source_stem((enum raw_source)s));
		add_file(path, &exp_domain_host);
	}
	add_file("host/data/agent_4242.data.slice_0", &exp_domain_agents);
	add_file("device_0/data/device.data.slice_0", &exp_domain_device);

	e0 = (struct exp){ .prof_dir = dir, .rep = &rep, .tracks = UINT64_MAX, .rank_id = -1 };
	exp_read_host(&e0);
	if (sqlite3_open(":memory:", &e0.db) != SQLITE_OK || exp_create_schema(&e0) < 0) {
		fprintf(stderr, "fuzz-raw: cannot make the database in memory: %s\n", rep.error);
		abort();
	}
	buf = malloc(RAW_MAX_PAYLOAD * 4);
	return buf ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > RAW_MAX_PAYLOAD * 4)
		return 0;
	unsigned which = (data[0] & ~FUZZ_RAW_FIX_CRC) % n_files;
	const char *file = files[which].path;
	size_t n = size - 1;
	memcpy(buf, data + 1, n);
	if (data[0] & FUZZ_RAW_FIX_CRC)
		fuzz_raw_fix_checksums(buf, n);
	fuzz_write(dir, file, buf, n);

	e = e0;
	rep = (struct export_report){ 0 };
	if (exp_exec(&e, "SAVEPOINT input") < 0)
		abort();
	(void)files[which].parser->parse(&e);
	exp_release_domains(&e);
	if (exp_exec(&e, "ROLLBACK TO input; RELEASE input") < 0) {
		fprintf(stderr, "fuzz-raw: cannot roll the input back: %s\n", rep.error);
		abort();
	}
	e.strings = exp_intern_free(e.strings);
	fuzz_unlink(dir, file);
	return 0;
}
