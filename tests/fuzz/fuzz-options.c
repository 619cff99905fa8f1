/* MSPROF_OPTIONS and MSPROF_CONFIG as self-enable reads them when a job
 * starts (launcher/mode-self.c self_enable_check): the options split as a
 * shell would, checked as msprof --dynamic=on --pid takes them (msprof's
 * option parser, its modes' sets, what self-enable refuses), and the
 * config file's JSON (its keys, torch_npu's profiler_config.json, the
 * options in it).  The input is the options, then a NUL and the config's
 * text (none without a NUL).
 *
 * With FUZZ_SEEDS=DIR in the environment it writes its seed corpus there
 * (the forms the tests and the docs use) and exits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "launcher/runners.h"
#include "tests/fuzz/fuzz-util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const seeds[][2] = {
	{ "--output=/tmp/prof --msproftx=on", NULL },
	{ "--output=./prof --msproftx=of", NULL },
	{ "--host-sys=cpu,mem,disk,network,osrt --host-sys-freq=1000 --host-sys-usage=cpu,mem", NULL },
	{ "--flight-recorder=60s,512MB --dump-on=slow-step:5,hang:300s,exit", NULL },
	{ "--msproftx=on --mstx-domain-include=a,b --storage-limit=300MB --type=db", NULL },
	{ "--schedule=skip_first=1,wait=1,warmup=1,active=2,repeat=1 --msproftx=on", NULL },
	{ "--capture-range=mstx:train --capture-range-end=repeat:2 'a b' \"c\\\"d\"", NULL },
	{ "--pid=1", NULL },
	{ "", "{\"start\": true, \"options\": \"--msproftx=on\"}" },
	{ "--output=/tmp/prof", "{\"start_step\": 2, \"stop_step\": 3, \"options\": [\"--msproftx=on\"]}" },
	{ "", "{\"schedule\": {\"wait\": 1, \"warmup\": 1, \"active\": 2, \"repeat\": 1}, \"deadline_s\": 3}" },
	{ "", "{\"schedule\": \"wait=1,activ=2\"}" },
	{ "", "{\"flight_recorder\": \"60s\", \"start\": true}" },
	{ "", "{\"activities\": [\"CPU\", \"NPU\"], \"prof_dir\": \"/tmp/npu\", \"analyse\": false, "
	      "\"record_shapes\": true, \"profile_memory\": false, \"with_stack\": false, \"active\": 2, "
	      "\"warmup\": 1, \"start_step\": 1, \"is_rank\": false, \"rank_list\": [], \"async_mode\": false, "
	      "\"metadata\": {\"a\": 1}, \"experimental_config\": {\"profiler_level\": \"Level1\", "
	      "\"aic_metrics\": \"AiCoreNone\", \"l2_cache\": false, \"export_type\": [\"text\"], "
	      "\"mstx_domain_include\": [], \"mstx_domain_exclude\": [], \"host_sys\": [\"cpu\", \"mem\"], "
	      "\"mstx\": true}}" },
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("FUZZ_SEEDS");
	if (dir && *dir) {
		for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
			char name[16], *in = NULL;
			size_t n;
			FILE *f = open_memstream(&in, &n);
			if (!f)
				abort();
			fputs(seeds[i][0], f);
			if (seeds[i][1]) {
				fputc('\0', f);
				fputs(seeds[i][1], f);
			}
			fclose(f);
			snprintf(name, sizeof name, "seed-%02zu", i);
			fuzz_write(dir, name, in, n);
			free(in);
		}
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	const char *config = memchr(in, '\0', size) ? in + strlen(in) + 1 : NULL;
	char why[1400];
	(void)self_enable_check(getpid(), in, config, why, sizeof why);
	free(in);
	return 0;
}
