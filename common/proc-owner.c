/* The owner and liveness check on /proc/PID/status (proc-owner.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/proc-owner.h"
#include "common/util.h"

int proc_check_owner(uint64_t pid, uid_t uid, char *why, size_t why_len)
{
	char path[64], line[256], state = '?';
	unsigned uids[3] = { 0 }, threads = 1;
	int have_uid = 0;

	if (pid == 0 || pid > INT32_MAX) {
		snprintf(why, why_len, "process %" PRIu64 " does not exist", pid);
		return -ESRCH;
	}
	snprintf(path, sizeof(path), "/proc/%" PRIu64 "/status", pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, why_len, "process %" PRIu64 " does not exist", pid);
		return -ESRCH;
	}
	while (fgets(line, sizeof(line), f)) {
		if (startswith(line, "State:"))
			(void)sscanf(line + 6, " %c", &state);
		else if (startswith(line, "Uid:"))
			have_uid = sscanf(line + 4, "%u %u %u", &uids[0], &uids[1], &uids[2]);
		else if (startswith(line, "Threads:"))
			(void)sscanf(line + 8, "%u", &threads);
	}
	if ((state == 'Z' || state == 'X') && threads <= 1) {
		snprintf(why, why_len, "process %" PRIu64 " has exited", pid);
		return -ESRCH;
	}
	if (have_uid != 3) {
		snprintf(why, why_len, "cannot read the owner of process %" PRIu64, pid);
		return -EIO;
	}
	if (uid != 0 && (uids[0] != uid || uids[1] != uid || uids[2] != uid)) {
		snprintf(why, why_len, "process %" PRIu64 " belongs to uid %u, not to uid %u", pid,
			 uids[0] != uid ? uids[0] : uids[1] != uid ? uids[1] : uids[2], (unsigned)uid);
		return -EPERM;
	}
	return 0;
}
