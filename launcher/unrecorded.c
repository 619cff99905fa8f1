/* Annotations a launched job made while --msproftx was off (unrecorded.h).
 * The folder holds one file per process that made any, named by its pid,
 * holding its count in decimal: the job's own processes write them, so a
 * file that is not a plain small number is skipped and counted apart. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/console.h"
#include "launcher/unrecorded.h"
#include "launcher/app.h"
#include "common/util.h"

int unrecorded_open(char **ret_dir, struct diag *d)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL;
	*ret_dir = NULL;
	if (asprintf(&dir, "%s/msprof-unrecorded.XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp") < 0)
		return -ENOMEM;
	if (!mkdtemp(dir)) {
		int r = -errno;
		diag_warn(d, "cannot make a folder for the count of the job's unrecorded mstx/NVTX calls (%s): %s",
			  dir, strerror(errno));
		free(dir);
		return r;
	}
	*ret_dir = dir;
	return 0;
}

int unrecorded_env(char ***env, const char *dir, bool only_count)
{
	int r = strv_env_set(env, "MSPROF_AGENT_UNRECORDED", dir);
	if (r >= 0 && only_count)
		r = strv_env_set(env, "MSPROF_AGENT_UNRECORDED_ONLY", "1");
	return r;
}

/* One process's count, or -1 when the file is not one. */
static int64_t read_count(int dirfd, const char *name)
{
	char buf[32];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 1 || buf[n - 1] != '\n')
		return -1;
	buf[n - 1] = '\0';
	uint64_t v;
	return parse_u64(buf, 1, INT64_MAX, &v) < 0 ? -1 : (int64_t)v;
}

void unrecorded_report(char *dir, bool say)
{
	if (!dir)
		return;
	DIR *dp = opendir(dir);
	uint64_t calls = 0, procs = 0, bad = 0;
	struct dirent *de;
	while (dp && (de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		int64_t n = all_digits(de->d_name) ? read_count(dirfd(dp), de->d_name) : -1;
		if (n < 0) {
			bad++;
		} else {
			calls += (uint64_t)n;
			procs++;
		}
		(void)unlinkat(dirfd(dp), de->d_name, 0);
	}
	if (dp)
		closedir(dp);
	(void)rmdir(dir);
	free(dir);
	if (say && calls)
		console_warn("The job made %llu mstx/NVTX annotation calls (marks and range starts, in %llu "
			     "process%s) that were not recorded: --msproftx is off. Profile with --msproftx=on to "
			     "record them.",
			     (unsigned long long)calls, (unsigned long long)procs, procs == 1 ? "" : "es");
	if (say && bad)
		console_warn("%llu count file%s of unrecorded annotation calls could not be read and %s left out.",
			     (unsigned long long)bad, bad == 1 ? "" : "s", bad == 1 ? "was" : "were");
}
