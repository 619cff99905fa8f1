/* The PROF_* directory: its name, its tree, and the small JSON files in
 * host/ that msprof's readers expect (reference §2.1, §2.2, §9).
 *
 *   PROF_{6d}_{YYYYMMDDhhmmssmmm}_{pid 8d}{8 letters A-R}/
 *     host/info.json  host/start_info  host/end_info  host/sample.json
 *     host/data/      raw slices (raw.h)
 *     msprof_{YYYYMMDDhhmmss}.db          (export/)
 *     mindstudio_profiler_output/        (export/)
 *
 * host/info.json keys (one line of JSON, as msprof writes it):
 *   "jobInfo": "NA", "hostname", "hostUid" (machine-id), "pid" (string,
 *   the profiled app's pid), "pid_name", "rank_id" (-1 unless set), "devices": "",
 *   "DeviceInfo": [], "CPU": [{"Id":0, "Name", "Type", "Frequency" (MHz,
 *   string), "Logical_CPU_Count"}], "cpuNums" (online CPUs, number),
 *   "sysClockFreq" (CLK_TCK, number), "memoryTotal" (kB, number),
 *   "netCardNums" (number), "netCard": [{"netCardName", "speed" (Mbit/s,
 *   number, -1 unknown)}], "platform_version": "0", "version": "1.0",
 *   "drvVersion": 0, "OS", "hwtype": "x86_64"/..., "msprof_version";
 *   after a job is split by rank (profdir-ranks.c): "processes" (the pids
 *   of the dir, our own key) and "devices" ("0,1").
 * host/info.json.<N>: the same with one DeviceInfo entry, where a dir has no
 *   device_<N>/ (cluster tools need an info.json.<N> in a sub-dir).
 * host/sample.json: the collection options as given: "result_dir", the
 *   collection settings under their rows' sample keys (ipc/settings.c:
 *   "host_sys", "host_sys_freq", ..., "storageLimit"), the job's "app",
 *   "app_dir", "type", "dynamic", "pid", "delay", "duration", then the
 *   remaining settings ("msproftx", ...).  The launcher builds it
 *   (settings_to_sample), profdir_write_sample writes it.
 * host/start_info, host/end_info: {"collectionDateBegin"/"collectionDateEnd"
 *   (local "YYYY-MM-DD HH:MM:SS.uuuuuu"), "collectionTimeBegin"/"...End" (µs
 *   since the epoch, string), "clockMonotonicRaw" (ns, string)}. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cJSON;

#define PROFDIR_NAME_MAX 64

/* Build "PROF_000001_20260323031749197_00815596RKPKAHRB" from an index, a
 * realtime instant and a pid; the letters come from a hash of all three and
 * a random nonce, so two sessions in the same millisecond still differ. */
int profdir_make_name(unsigned index, uint64_t real_ns, pid_t pid, char ret[PROFDIR_NAME_MAX]);

/* Create parent/PROF_…/host/data (the PROF dir itself with O_EXCL semantics:
 * mkdir fails if it exists; the index is bumped and retried).  ret_path is
 * malloc'd.  On failure nothing is left behind. */
int profdir_create(const char *parent, pid_t pid, char **ret_path);

/* A PROF dir made ahead, under a hidden name (PROFDIR_SPARE_PREFIX...)
 * with host/data, to be given its name when its collection starts: a
 * dynamic start then costs one rename instead of three mkdirs and the
 * files written into it meanwhile (a few hundred µs each on a journaled
 * disk).  ret_path is malloc'd.  An unused one goes with
 * profdir_remove_empty. */
#define PROFDIR_SPARE_PREFIX ".msprof-spare-"
int profdir_create_spare(const char *parent, char **ret_path);
/* Rename the spare dir to a fresh PROF_ name for pid in the same parent
 * (never over an existing one); ret_path is malloc'd. */
int profdir_claim_spare(const char *spare, pid_t pid, char **ret_path);

/* Remove a PROF dir created by profdir_create that holds no data yet
 * (used when launching the app fails). */
int profdir_remove_empty(const char *path);

/* Host facts for info.json, gathered once. */
struct host_facts {
	char hostname[256];
	char host_uid[64];
	char cpu_name[128];
	char os[128];
	char hwtype[32];
	unsigned cpu_nums;
	unsigned long clk_tck;
	uint64_t mem_total_kb;
	double cpu_mhz;
	unsigned n_netcards;
	struct { char name[16]; int64_t speed_mbps; } netcards[64];
};
int host_facts_read(struct host_facts *ret);

/* The files below (host/info.json, sample.json, start_info, end_info and
 * device_<N>/'s info.json.<N>, start_info.<N>, end_info.<N>) are written
 * whole (renamed into place) but not fsynced: that would put a disk flush
 * on the reply to a dynamic start or stop.  profdir_sync() makes them
 * durable; whoever declares a PROF dir complete (the launcher, before it
 * splits or exports it) calls it first. */

/* Write host/info.json for the profiled process. */
int profdir_write_info(const char *prof_dir, const struct host_facts *facts, pid_t pid,
		       const char *pid_name, int rank_id);
/* Set key in host/info.json to value (consumed, also on failure): what is
 * known only when the collection ends (the processes msprofd turned away). */
int profdir_update_info(const char *prof_dir, const char *key, struct cJSON *value);
/* Write host/sample.json from a cJSON object of options (not consumed). */
int profdir_write_sample(const char *prof_dir, const struct cJSON *options);
/* Write host/start_info (begin=1) or host/end_info (begin=0) with the
 * clocks read now, or at the given instant when real_ns != 0. */
int profdir_write_time_info(const char *prof_dir, int begin, uint64_t real_ns, uint64_t monoraw_ns);
/* The same keys in dir/name (device_<N>/start_info.<N>, device.c). */
int profdir_write_time_file(const char *dir, const char *name, int begin, uint64_t real_ns, uint64_t monoraw_ns);

/* Write dir/name atomically (a temporary file renamed into place) and
 * durably (fsynced before the rename). */
int profdir_write_text(const char *dir, const char *name, const char *text);
/* The same for a cJSON tree, written unformatted (not consumed). */
int profdir_write_json(const char *dir, const char *name, const struct cJSON *j);
/* The same, not fsynced: as the files above are written (profdir_sync
 * later); for the device_<N>/ files too (device.c). */
int profdir_write_json_lazy(const char *dir, const char *name, const struct cJSON *j);
/* fsync what the writers above left unsynced: every file directly in
 * host/ and in each device_<N>/ (not the raw data/ slices), those
 * directories, the PROF dir and its entry in its parent.  Files that are
 * not there are skipped; the first error is returned after trying all. */
int profdir_sync(const char *prof_dir);

/* Read a JSON file (at most 1 MiB) into a cJSON tree. */
int profdir_read_json(const char *path, struct cJSON **ret);

/* One PROF dir per rank (profdir-ranks.c, which describes the layout):
 * after collection, the processes of prof_dir that have a rank (from their
 * agent files, or known: attached processes whose environment the caller
 * read) and their descendants move into a new PROF dir per rank beside it;
 * prof_dir keeps the rest as the host-level dir.  *ret (n entries, by rank)
 * is for profdir_ranks_free; n is 0 and prof_dir untouched when no process
 * has a rank.  Returns n, or -errno (dirs made so far are left, named by
 * nothing: the caller reports prof_dir as it is). */
struct profdir_known_rank {
	pid_t pid;
	int32_t rank;
};
struct profdir_rank {
	int32_t rank;
	pid_t pid;              /* its main process */
	char *path;             /* its PROF dir */
	uint64_t devices;       /* bit N: device_N is in it */
};
int profdir_split_ranks(const char *prof_dir, const struct profdir_known_rank *known, size_t n_known,
			struct profdir_rank **ret, size_t *ret_n);
void profdir_ranks_free(struct profdir_rank *v, size_t n);
