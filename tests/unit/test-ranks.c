/* The PROF dir split of a distributed job (collectors/profdir-ranks.c) on
 * PROF dirs written here record by record, so that every fact the split
 * must find is known: which process has which rank (its agent's record, the
 * host sampler's, or inherited from its parent), which devices its tasks
 * ran on, and what each dir must then hold (agent files, device dirs and
 * their info.json.N, the "processes" list, host/info.json.N where it has no
 * device); a job of one rank renamed in place; a dir of no rank untouched. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/gputask.h"
#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/cjson-cleanup.h"
#include "common/util.h"
#include "tests/unit/unittest.h"

static char tmpdir[] = "/tmp/test-ranks-XXXXXX";

static char *join(const char *a, const char *b)
{
	char *p = path_join(a, b);
	CHECK(p);
	return p;
}

static bool exists(const char *dir, const char *name)
{
	_cleanup_free_ char *p = join(dir, name);
	struct stat st;
	return lstat(p, &st) == 0;
}

/* A session's PROF dir: host/ with its small files, device_<N>/ for each bit
 * of devices (a data slice and info.json.N, rank -1). */
static char *make_session(const char *name, uint64_t devices)
{
	char *prof = unittest_subdir(tmpdir, name);
	_cleanup_free_ char *host = join(prof, "host"), *data = join(prof, "host/data");
	CHECK(mkdir(host, 0750) == 0 && mkdir(data, 0750) == 0);
	CHECK(profdir_write_text(host, "info.json", "{\"pid\":\"100\",\"pid_name\":\"launcher\",\"rank_id\":-1,"
						     "\"hostUid\":\"h1\",\"devices\":\"\",\"DeviceInfo\":[]}") == 0);
	CHECK(profdir_write_text(host, "start_info", "{\"collectionTimeBegin\":\"1700000000000000\","
						      "\"clockMonotonicRaw\":\"1\"}") == 0);
	CHECK(profdir_write_text(host, "sample.json", "{}") == 0);
	for (unsigned d = 0; d < 64; d++) {
		if (!(devices >> d & 1))
			continue;
		char sub[32], info[64], name_n[32];
		snprintf(sub, sizeof sub, "device_%u", d);
		_cleanup_free_ char *dev = join(prof, sub), *ddata = join(dev, "data");
		CHECK(mkdir(dev, 0750) == 0 && mkdir(ddata, 0750) == 0);
		snprintf(info, sizeof info, "{\"rank_id\":-1,\"pid\":\"100\",\"devices\":\"%u\"}", d);
		snprintf(name_n, sizeof name_n, "info.json.%u", d);
		CHECK(profdir_write_text(dev, name_n, info) == 0);
		CHECK(profdir_write_text(ddata, "device.data.slice_0", "samples") == 0);
	}
	return prof;
}

/* agent_<pid>: its process record (rank, local rank, DEVICE_ID), then a
 * kernel on each device of devices. */
static void agent(const char *prof, uint32_t pid, uint32_t ppid, int32_t rank, int32_t local, int32_t env_dev,
		  uint64_t devices)
{
	_cleanup_free_ char *data = join(prof, "host/data");
	char stem[RAW_STEM_MAX];
	raw_agent_stem((pid_t)pid, stem);
	struct raw_writer *w;
	CHECK(raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, 1, 1700000000000000000ULL, 0, &w) == 0);
	struct raw_buf b = { 0 };
	raw_buf_u64(&b, 5);
	raw_buf_u32(&b, pid);
	raw_buf_u32(&b, ppid);
	raw_buf_u32(&b, (uint32_t)rank);
	raw_buf_u32(&b, RAW_AGENT_WINDOW_START);
	raw_buf_lstr(&b, "python", RAW_AGENT_MAX_STR);
	raw_buf_lstr(&b, "python train.py", RAW_AGENT_MAX_STR);
	raw_buf_u32(&b, (uint32_t)local);
	raw_buf_u32(&b, 4);
	raw_buf_u32(&b, 4);
	raw_buf_u32(&b, 0);
	raw_buf_u32(&b, (uint32_t)env_dev);
	CHECK(raw_writer_append(w, RAW_AGENT_PROCESS, b.data, (uint32_t)b.len) == 0);
	for (unsigned d = 0; d < 64; d++) {
		if (!(devices >> d & 1))
			continue;
		struct gpu_task t = { .kind = GPU_TASK_KERNEL, .start = 10, .end = 20, .device = d };
		snprintf(t.name, sizeof t.name, "_Z6kernelv");
		raw_buf_reset(&b);
		CHECK(gpu_encode_task(&b, &t) == 0);
		CHECK(raw_writer_append(w, RAW_AGENT_GPU_TASK, b.data, (uint32_t)b.len) == 0);
	}
	raw_buf_release(&b);
	raw_writer_free(w);
}

/* host_cpu's process records: pid, ppid, rank from its environment */
static void host_procs(const char *prof, const uint32_t (*procs)[3], size_t n)
{
	_cleanup_free_ char *data = join(prof, "host/data");
	struct raw_writer *w;
	CHECK(raw_writer_open(data, RAW_SOURCE_HOST_CPU, 1, 1700000000000000000ULL, 0, &w) == 0);
	struct raw_buf b = { 0 };
	for (size_t i = 0; i < n; i++) {
		raw_buf_reset(&b);
		raw_buf_u64(&b, 5);
		raw_buf_u32(&b, procs[i][0]);
		raw_buf_u32(&b, procs[i][1]);
		raw_buf_u64(&b, 1);
		raw_buf_str(&b, "worker", 16);
		raw_buf_u32(&b, 1);
		raw_buf_u32(&b, procs[i][2]);
		raw_buf_u32(&b, (uint32_t)-1);
		CHECK(raw_writer_append(w, RAW_PROC_INFO, b.data, (uint32_t)b.len) == 0);
	}
	raw_buf_release(&b);
	raw_writer_free(w);
}

static cJSON *json(const char *dir, const char *name)
{
	_cleanup_free_ char *p = join(dir, name);
	cJSON *j = NULL;
	CHECK(profdir_read_json(p, &j) == 0);
	return j;
}

static double num(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	CHECK(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *str(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	CHECK(cJSON_IsString(v));
	return v->valuestring;
}

/* "processes" as "a,b,c" */
static void procs_of(const cJSON *j, char *out, size_t cap)
{
	out[0] = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(j, "processes"))
		snprintf(out + strlen(out), cap - strlen(out), "%s%d", out[0] ? "," : "", (int)v->valuedouble);
}

static unsigned count_files(const char *dir)
{
	DIR *d = opendir(dir);
	CHECK(d);
	unsigned n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Two ranks with a device each, a worker of rank 0 known only to the host
 * sampler, a launcher of no rank, and a device nobody ran on. */
static void test_two_ranks(void)
{
	_cleanup_free_ char *prof = make_session("PROF_000001_20240101000000000_00000100AAAAAAAA", 0x7);
	agent(prof, 100, 1, -1, -1, -1, 0);     /* the launcher */
	agent(prof, 101, 100, 0, 0, -1, 1 << 0); /* rank 0 on device 0 */
	agent(prof, 102, 100, 1, 1, -1, 1 << 1); /* rank 1 on device 1 */
	static const uint32_t hp[][3] = { { 100, 1, -1U }, { 101, 100, 0 }, { 102, 100, 1 }, { 103, 101, -1U } };
	host_procs(prof, hp, ARRAY_SIZE(hp));

	struct profdir_rank *v = NULL;
	size_t n = 0;
	CHECK(profdir_split_ranks(prof, NULL, 0, &v, &n) == 2 && n == 2);
	for (size_t k = 0; k < n; k++) {
		const char *d = v[k].path;
		CHECK(v[k].rank == (int32_t)k && v[k].pid == (pid_t)(101 + k) && v[k].devices == 1ULL << k);
		char want_name[64];
		snprintf(want_name, sizeof want_name, "PROF_%06zu_", k + 1);
		CHECK(startswith(strrchr(d, '/') + 1, want_name));
		_cleanup_json_ cJSON *info = json(d, "host/info.json");
		CHECK(num(info, "rank_id") == (double)k && streq(str(info, "hostUid"), "h1"));
		char pid[32], procs[64], devs[32];
		snprintf(pid, sizeof pid, "%zu", 101 + k);
		snprintf(devs, sizeof devs, "%zu", k);
		CHECK(streq(str(info, "pid"), pid) && streq(str(info, "pid_name"), "python") &&
		      streq(str(info, "devices"), devs));
		procs_of(info, procs, sizeof procs);
		CHECK(streq(procs, k == 0 ? "101,103" : "102"));
		/* its agent file, the machine's samples, its device with the rank */
		_cleanup_free_ char *data = join(d, "host/data");
		char agent_file[64], dev_info[64];
		snprintf(agent_file, sizeof agent_file, "agent_%zu.data.slice_0", 101 + k);
		CHECK(exists(data, agent_file) && exists(data, "host_cpu.data.slice_0") && count_files(data) == 2);
		snprintf(dev_info, sizeof dev_info, "device_%zu/info.json.%zu", k, k);
		_cleanup_json_ cJSON *di = json(d, dev_info);
		CHECK(num(di, "rank_id") == (double)k && streq(str(di, "pid"), pid));
		snprintf(dev_info, sizeof dev_info, "device_%zu/data/device.data.slice_0", k);
		CHECK(exists(d, dev_info) && !exists(d, "host/info.json.0") && !exists(d, "device_2"));
		CHECK(exists(d, "host/start_info") && exists(d, "host/sample.json"));
	}
	/* the session's dir: the launcher, the device nobody ran on, rank -1 */
	_cleanup_free_ char *data = join(prof, "host/data");
	CHECK(exists(data, "agent_100.data.slice_0") && !exists(data, "agent_101.data.slice_0") &&
	      !exists(data, "agent_102.data.slice_0") && exists(data, "host_cpu.data.slice_0"));
	CHECK(!exists(prof, "device_0") && !exists(prof, "device_1") && exists(prof, "device_2"));
	_cleanup_json_ cJSON *info = json(prof, "host/info.json");
	char procs[64];
	procs_of(info, procs, sizeof procs);
	CHECK(num(info, "rank_id") == -1 && streq(procs, "100"));
	_cleanup_json_ cJSON *d2 = json(prof, "device_2/info.json.2");
	CHECK(num(d2, "rank_id") == -1);
	profdir_ranks_free(v, n);
}

/* Two ranks on one device, and a rank on the device of its DEVICE_ID with no
 * task: the shared device is linked into both and leaves the session's dir,
 * which then holds nothing but its small files. */
static void test_shared_device(void)
{
	_cleanup_free_ char *prof = make_session("PROF_000001_20240101000000000_00000100BBBBBBBB", 0x3);
	agent(prof, 201, 1, 0, 0, -1, 1 << 0);
	agent(prof, 202, 1, 1, 1, -1, 1 << 0);
	agent(prof, 203, 1, 2, 2, 1, 0); /* DEVICE_ID=1, no kernel */
	struct profdir_rank *v = NULL;
	size_t n = 0;
	CHECK(profdir_split_ranks(prof, NULL, 0, &v, &n) == 3);
	CHECK(v[0].devices == 1 && v[1].devices == 1 && v[2].devices == 2);
	for (size_t k = 0; k < 2; k++) {
		_cleanup_json_ cJSON *di = json(v[k].path, "device_0/info.json.0");
		CHECK(num(di, "rank_id") == (double)k);
	}
	_cleanup_json_ cJSON *d1 = json(v[2].path, "device_1/info.json.1");
	CHECK(num(d1, "rank_id") == 2);
	CHECK(!exists(prof, "device_0") && !exists(prof, "device_1"));
	/* every process went to a rank: only the small files are left */
	_cleanup_free_ char *data = join(prof, "host/data");
	CHECK(count_files(data) == 0);
	CHECK(profdir_remove_empty(prof) == 0);
	profdir_ranks_free(v, n);
}

/* A job of one rank and its worker: the session's dir renamed as the rank's;
 * without a device, host/info.json.<local rank>; a rank known to the caller
 * only (an attached process without an agent). */
static void test_one_rank(void)
{
	_cleanup_free_ char *prof = make_session("PROF_000001_20240101000000000_00000100CCCCCCCC", 0);
	static const uint32_t hp[][3] = { { 301, 1, -1U }, { 302, 301, -1U } };
	host_procs(prof, hp, ARRAY_SIZE(hp));
	struct profdir_known_rank known = { 301, 7 };
	struct profdir_rank *v = NULL;
	size_t n = 0;
	CHECK(profdir_split_ranks(prof, &known, 1, &v, &n) == 1);
	CHECK(v[0].rank == 7 && v[0].pid == 301 && !exists(tmpdir, strrchr(prof, '/') + 1));
	CHECK(startswith(strrchr(v[0].path, '/') + 1, "PROF_000008_"));
	_cleanup_json_ cJSON *info = json(v[0].path, "host/info.json");
	_cleanup_json_ cJSON *info0 = json(v[0].path, "host/info.json.0");
	CHECK(num(info, "rank_id") == 7 && num(info0, "rank_id") == 7);
	const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(info0, "DeviceInfo"), 0);
	CHECK(dev && num(dev, "ai_core_num") == 0);
	profdir_ranks_free(v, n);
}

/* No rank at all: nothing moves; the dir gets host/info.json.0 (rank -1),
 * and none when it has a device dir. */
static void test_no_rank(void)
{
	_cleanup_free_ char *prof = make_session("PROF_000001_20240101000000000_00000100DDDDDDDD", 0);
	agent(prof, 401, 1, -1, -1, -1, 0);
	struct profdir_rank *v = NULL;
	size_t n = 1;
	CHECK(profdir_split_ranks(prof, NULL, 0, &v, &n) == 0 && n == 0 && !v);
	_cleanup_free_ char *data = join(prof, "host/data");
	CHECK(exists(data, "agent_401.data.slice_0") && exists(prof, "host/info.json.0"));
	_cleanup_json_ cJSON *info0 = json(prof, "host/info.json.0");
	CHECK(num(info0, "rank_id") == -1);

	_cleanup_free_ char *gpu = make_session("PROF_000001_20240101000000000_00000100EEEEEEEE", 1);
	agent(gpu, 402, 1, -1, -1, -1, 1);
	CHECK(profdir_split_ranks(gpu, NULL, 0, &v, &n) == 0 && !exists(gpu, "host/info.json.0"));
}

/* Later records: a rank read after an exec wins (pid 801: its parent's rank
 * 1 first, then its own 8); the first ppid stays (902, a worker of rank 0,
 * reparented to init when 901 ended).  An agent file that cannot be read
 * is no rank's and stays in the session's dir. */
static void test_records(void)
{
	_cleanup_free_ char *prof = make_session("PROF_000001_20240101000000000_00000100FFFFFFFF", 0);
	static const uint32_t hp[][3] = {
		{ 800, 1, 1 }, { 801, 800, 1 }, { 801, 800, 8 }, { 901, 1, 0 }, { 902, 901, -1U }, { 902, 1, -1U },
	};
	host_procs(prof, hp, ARRAY_SIZE(hp));
	_cleanup_free_ char *data = join(prof, "host/data");
	char junk[200];
	memset(junk, 'x', sizeof junk - 1);
	junk[sizeof junk - 1] = 0;
	CHECK(profdir_write_text(data, "agent_999.data.slice_0", junk) == 0); /* no raw header: damaged */
	struct profdir_rank *v = NULL;
	size_t n = 0;
	CHECK(profdir_split_ranks(prof, NULL, 0, &v, &n) == 3);
	CHECK(v[0].rank == 0 && v[1].rank == 1 && v[2].rank == 8 && v[2].pid == 801);
	_cleanup_json_ cJSON *r0 = json(v[0].path, "host/info.json");
	char procs[64];
	procs_of(r0, procs, sizeof procs);
	CHECK(streq(procs, "901,902"));
	CHECK(exists(data, "agent_999.data.slice_0") && profdir_remove_empty(prof) < 0);
	profdir_ranks_free(v, n);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	umask(022);
	CHECK(mkdtemp(tmpdir));
	test_two_ranks();
	test_shared_device();
	test_one_rank();
	test_no_rank();
	test_records();
	rm_rf(tmpdir);
	printf("ok\n");
	return 0;
}
