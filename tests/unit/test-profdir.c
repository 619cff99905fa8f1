/* PROF directory: name format, creation and cleanup, host facts checked
 * against the kernel, JSON files read back. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "collectors/profdir.h"
#include "collectors/raw.h"
#include "common/util.h"
#include "tests/unit/unittest.h"


static char tmpdir[] = "/tmp/test-profdir-XXXXXX";

static bool is_dir(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *dir, const char *name)
{
	char p[8192];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	CHECK(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += !streq(de->d_name, ".") && !streq(de->d_name, "..");
	closedir(d);
	return n;
}

static bool matches(const char *re, const char *s)
{
	regex_t r;
	CHECK(regcomp(&r, re, REG_EXTENDED | REG_NOSUB) == 0);
	bool m = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

static void test_name(void)
{
	char name[PROFDIR_NAME_MAX];
	/* 2026-03-23 03:17:49.197 UTC */
	uint64_t t = 1774235869ULL * NSEC_PER_SEC + 197 * NSEC_PER_MSEC + 999999;
	CHECK(profdir_make_name(0, t, 815596, name) == 0);
	CHECK(matches("^PROF_000001_20260323031749197_00815596[A-R]{8}$", name));
	/* what downstream readers match (reference §9) */
	CHECK(matches("^PROF_[0-9]+_[0-9]+_[0-9a-zA-Z]+", name));
	CHECK(profdir_make_name(41, t, 1, name) == 0);
	CHECK(matches("^PROF_000042_20260323031749197_00000001[A-R]{8}$", name));
	CHECK(profdir_make_name(999999, t, 1, name) == 0);
	CHECK(matches("^PROF_000001_", name));
	CHECK(profdir_make_name(999998, t, 4194304, name) == 0);
	CHECK(matches("^PROF_999999_20260323031749197_04194304[A-R]{8}$", name));
	/* same inputs, different letters: the nonce */
	char a[PROFDIR_NAME_MAX], b[PROFDIR_NAME_MAX];
	int same = 0;
	for (int i = 0; i < 10; i++) {
		CHECK(profdir_make_name(0, t, 2, a) == 0 && profdir_make_name(0, t, 2, b) == 0);
		same += streq(a, b);
	}
	CHECK(same < 10);
	CHECK(profdir_make_name(0, t, -1, name) == -EINVAL);
}

static void test_create_remove(void)
{
	char *p1, *p2;
	CHECK(profdir_create(tmpdir, 1234, &p1) == 0);
	CHECK(profdir_create(tmpdir, 1234, &p2) == 0);
	CHECK(!streq(p1, p2));
	CHECK(p1[0] == '/');
	const char *base = strrchr(p1, '/') + 1;
	CHECK(matches("^PROF_[0-9]{6}_[0-9]{17}_00001234[A-R]{8}$", base));
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/host/data", p1);
	CHECK(is_dir(sub));
	struct stat st;
	CHECK(stat(p1, &st) == 0 && (st.st_mode & 0777) == 0750);

	/* relative parent comes back absolute */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof(cwd)));
	CHECK(chdir(tmpdir) == 0);
	char *p3;
	CHECK(profdir_create(".", 1, &p3) == 0);
	CHECK(p3[0] == '/' && is_dir(p3));
	CHECK(chdir(cwd) == 0);

	/* nothing is created under a parent that is not a directory */
	char file[4096];
	snprintf(file, sizeof(file), "%s/plainfile", tmpdir);
	fclose(fopen(file, "w"));
	char *bad = NULL;
	CHECK(profdir_create(file, 1, &bad) == -ENOTDIR && bad == NULL);
	CHECK(profdir_create("/nonexistent/x", 1, &bad) == -ENOENT);
	unlink(file);

	/* remove_empty: the metadata files a session starts with, and
	 * header-only slices, go; the directory goes */
	struct host_facts f;
	CHECK(host_facts_read(&f) == 0);
	CHECK(profdir_write_info(p1, &f, 1234, "app", -1) == 0);
	CHECK(profdir_write_time_info(p1, 1, 0, 0) == 0);
	cJSON *opts = cJSON_CreateObject();
	cJSON_AddStringToObject(opts, "host_sys", "cpu");
	CHECK(profdir_write_sample(p1, opts) == 0);
	struct raw_writer *w;
	snprintf(sub, sizeof(sub), "%s/host/data", p1);
	CHECK(raw_writer_open(sub, RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == 0);
	raw_writer_free(w);
	CHECK(profdir_remove_empty(p1) == 0);
	CHECK(access(p1, F_OK) < 0 && errno == ENOENT);

	/* with data in it: refused, nothing touched */
	CHECK(profdir_write_info(p2, &f, 1234, "app", -1) == 0);
	snprintf(sub, sizeof(sub), "%s/host/data", p2);
	CHECK(raw_writer_open(sub, RAW_SOURCE_HOST_CPU, 1, 2, 0, &w) == 0);
	CHECK(raw_writer_append(w, RAW_PROC_EXIT, "12345678abcd", 12) == 0);
	raw_writer_free(w);
	CHECK(profdir_remove_empty(p2) == -ENOTEMPTY);
	snprintf(sub, sizeof(sub), "%s/host", p2);
	CHECK(exists(sub, "info.json") && exists(sub, "data/host_cpu.data.slice_0"));
	/* an unknown file at the top: refused too */
	CHECK(profdir_remove_empty(p3) == 0);
	free(p3);
	CHECK(profdir_create(tmpdir, 1, &p3) == 0);
	snprintf(file, sizeof(file), "%s/mindstudio_profiler_output", p3);
	CHECK(mkdir(file, 0755) == 0);
	CHECK(profdir_remove_empty(p3) == -ENOTEMPTY && is_dir(file));
	CHECK(profdir_remove_empty("/nonexistent") == -ENOENT);

	cJSON_Delete(opts);
	free(p1);
	free(p2);
	free(p3);
}

static void test_facts(void)
{
	struct host_facts f;
	CHECK(host_facts_read(&f) == 0);
	char hn[256] = { 0 };
	CHECK(gethostname(hn, sizeof(hn) - 1) == 0);
	CHECK(streq(f.hostname, hn));
	CHECK(f.cpu_nums == (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(f.clk_tck == (unsigned long)sysconf(_SC_CLK_TCK));
	struct sysinfo si;
	CHECK(sysinfo(&si) == 0);
	CHECK(f.mem_total_kb == (uint64_t)si.totalram * si.mem_unit / 1024);
	CHECK(f.hwtype[0] && f.os[0] && f.cpu_name[0]);

	FILE *mf = fopen("/etc/machine-id", "r");
	if (mf) {
		char id[64] = { 0 };
		if (fgets(id, sizeof(id), mf)) {
			id[strcspn(id, "\n")] = 0;
			CHECK(streq(f.host_uid, id));
		}
		fclose(mf);
	}

	int n = count_entries("/sys/class/net");
	CHECK(f.n_netcards == (unsigned)n);
	for (unsigned i = 0; i < f.n_netcards; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "/sys/class/net/%s/speed", f.netcards[i].name);
		FILE *sf = fopen(p, "r");
		long v = -1;
		if (sf) {
			if (fscanf(sf, "%ld", &v) != 1 || v < 0)
				v = -1;
			fclose(sf);
		}
		CHECK(f.netcards[i].speed_mbps == v);
		if (streq(f.netcards[i].name, "lo"))
			CHECK(f.netcards[i].speed_mbps == -1);
	}
	printf("facts: '%s', %u cpus '%s' %.0f MHz, %llu kB, os '%s', %u netcards\n", f.hostname, f.cpu_nums,
	       f.cpu_name, f.cpu_mhz, (unsigned long long)f.mem_total_kb, f.os, f.n_netcards);
}

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *fp = fopen(path, "rb");
	CHECK(fp);
	char *b = calloc(1, 1 << 20);
	size_t n = fread(b, 1, (1 << 20) - 1, fp);
	fclose(fp);
	*ret_len = n;
	return b;
}

static const char *str_of(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	CHECK(cJSON_IsString(v));
	return v->valuestring;
}

static double num_of(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	CHECK(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_json_files(void)
{
	char *p;
	CHECK(profdir_create(tmpdir, 777, &p) == 0);
	struct host_facts f;
	CHECK(host_facts_read(&f) == 0);
	CHECK(profdir_write_info(p, &f, 777, "my \"app\"", 3) == 0);

	char path[8192], host[4096];
	snprintf(host, sizeof(host), "%s/host", p);
	snprintf(path, sizeof(path), "%s/info.json", host);
	size_t len;
	char *text = slurp(path, &len);
	CHECK(len > 0 && !memchr(text, '\n', len)); /* one line */
	free(text);
	cJSON *j;
	CHECK(profdir_read_json(path, &j) == 0);
	CHECK(streq(str_of(j, "jobInfo"), "NA"));
	CHECK(streq(str_of(j, "hostname"), f.hostname));
	CHECK(streq(str_of(j, "hostUid"), f.host_uid));
	CHECK(streq(str_of(j, "pid"), "777"));
	CHECK(streq(str_of(j, "pid_name"), "my \"app\""));
	CHECK(num_of(j, "rank_id") == 3);
	CHECK(streq(str_of(j, "devices"), ""));
	CHECK(cJSON_IsArray(cJSON_GetObjectItem(j, "DeviceInfo")) &&
	      cJSON_GetArraySize(cJSON_GetObjectItem(j, "DeviceInfo")) == 0);
	cJSON *cpu = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "CPU"), 0);
	CHECK(cpu && num_of(cpu, "Id") == 0);
	CHECK(streq(str_of(cpu, "Name"), f.cpu_name));
	str_of(cpu, "Type");
	uint64_t mhz;
	const char *fr = str_of(cpu, "Frequency");
	CHECK(fr[0] >= '0' && fr[0] <= '9');
	CHECK(parse_u64(str_of(cpu, "Logical_CPU_Count"), 1, 1 << 20, &mhz) == 0);
	CHECK(num_of(j, "cpuNums") == f.cpu_nums);
	CHECK(num_of(j, "sysClockFreq") == (double)f.clk_tck);
	CHECK(num_of(j, "memoryTotal") == (double)f.mem_total_kb);
	CHECK(num_of(j, "netCardNums") == f.n_netcards);
	cJSON *cards = cJSON_GetObjectItem(j, "netCard");
	CHECK(cJSON_GetArraySize(cards) == (int)f.n_netcards);
	for (int i = 0; i < cJSON_GetArraySize(cards); i++) {
		cJSON *c = cJSON_GetArrayItem(cards, i);
		CHECK(streq(str_of(c, "netCardName"), f.netcards[i].name));
		CHECK(num_of(c, "speed") == (double)f.netcards[i].speed_mbps);
	}
	CHECK(streq(str_of(j, "platform_version"), "0"));
	CHECK(streq(str_of(j, "version"), "1.0"));
	CHECK(num_of(j, "drvVersion") == 0);
	CHECK(streq(str_of(j, "OS"), f.os));
	CHECK(streq(str_of(j, "hwtype"), f.hwtype));
	str_of(j, "msprof_version");
	cJSON_Delete(j);

	/* start_info at a given instant: 2026-03-23 03:17:49.197123 UTC */
	uint64_t t = 1774235869ULL * NSEC_PER_SEC + 197123456ULL;
	CHECK(profdir_write_time_info(p, 1, t, 987654321012ULL) == 0);
	snprintf(path, sizeof(path), "%s/start_info", host);
	CHECK(profdir_read_json(path, &j) == 0);
	CHECK(streq(str_of(j, "collectionDateBegin"), "2026-03-23 03:17:49.197123"));
	CHECK(streq(str_of(j, "collectionTimeBegin"), "1774235869197123"));
	CHECK(streq(str_of(j, "clockMonotonicRaw"), "987654321012"));
	cJSON_Delete(j);
	/* end_info now */
	uint64_t before = real_ns() / NSEC_PER_USEC;
	CHECK(profdir_write_time_info(p, 0, 0, 0) == 0);
	uint64_t after = real_ns() / NSEC_PER_USEC;
	snprintf(path, sizeof(path), "%s/end_info", host);
	CHECK(profdir_read_json(path, &j) == 0);
	uint64_t v;
	CHECK(parse_u64(str_of(j, "collectionTimeEnd"), before, after, &v) == 0);
	CHECK(parse_u64(str_of(j, "clockMonotonicRaw"), 1, UINT64_MAX, &v) == 0);
	CHECK(matches("^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$",
		      str_of(j, "collectionDateEnd")));
	cJSON_Delete(j);

	/* sample.json: the options as given */
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "result_dir", "/tmp/x");
	cJSON_AddStringToObject(o, "host_sys", "cpu,mem");
	cJSON_AddNumberToObject(o, "host_sys_freq", 50);
	CHECK(profdir_write_sample(p, o) == 0);
	snprintf(path, sizeof(path), "%s/sample.json", host);
	CHECK(profdir_read_json(path, &j) == 0);
	CHECK(cJSON_Compare(j, o, true));
	cJSON_Delete(j);
	cJSON_Delete(o);

	/* no temporaries left behind */
	CHECK(count_entries(host) == 5); /* data, info.json, start_info, end_info, sample.json */

	/* read_json limits */
	snprintf(path, sizeof(path), "%s/big.json", tmpdir);
	FILE *fp = fopen(path, "w");
	fputc('"', fp);
	for (int i = 0; i < (1 << 20) + 10; i++)
		fputc('a', fp);
	fputc('"', fp);
	fclose(fp);
	CHECK(profdir_read_json(path, &j) == -EFBIG);
	fp = fopen(path, "w");
	fputs("{\"a\": [1, 2", fp);
	fclose(fp);
	CHECK(profdir_read_json(path, &j) == -EBADMSG);
	CHECK(profdir_read_json("/nonexistent.json", &j) == -ENOENT);
	CHECK(profdir_read_json(tmpdir, &j) == -EINVAL);
	unlink(path);
	CHECK(profdir_write_info("/nonexistent", &f, 1, "x", -1) == -ENOENT);
	free(p);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	umask(022);
	CHECK(mkdtemp(tmpdir));
	test_name();
	test_create_remove();
	test_facts();
	test_json_files();
	rm_rf(tmpdir);
	printf("ok\n");
	return 0;
}
