/* Modes without an application (msprof's SystemMode for --sys-devices,
 * --host-sys and --host-sys-usage):
 *   msprof --output=D --host-sys=cpu,mem --host-sys-pid=P   sample P's tree
 *   msprof --output=D --host-sys-usage=cpu,mem             the machine
 *   msprof --sys-devices=all --sys-period=S                the devices and the machine
 * Collection runs until the process exits, Ctrl-C, or --sys-period seconds.
 *
 * Without --host-sys-pid the session's root is msprof itself: the daemon
 * needs a process to attach the session to, and msprof lives exactly as long
 * as the collection. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/host-sys.h"
#include "launcher/app.h"
#include "launcher/child.h"
#include "launcher/console.h"
#include "launcher/runners.h"
#include "launcher/collection.h"
#include "common/util.h"

/* How often to look for the target when pidfd_open is missing (Linux < 5.3). */
#define PROBE_MS 200

static void comm_of(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static bool target_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Wait for the end of the collection. */
static void wait_end(struct collection *s, int sigfd, pid_t target, unsigned period_s)
{
	int pidfd = target != getpid() ? child_pidfd_open(target) : -1;
	bool probe = target != getpid() && pidfd < 0;
	uint64_t deadline = period_s ? mono_ns() + (uint64_t)period_s * NSEC_PER_SEC : 0;

	collection_poll(s);   /* an event may have come with the start reply */

	while (!s->ended) {
		int timeout = -1;
		if (deadline) {
			uint64_t now = mono_ns();
			if (now >= deadline)
				break;
			uint64_t left_ms = (deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
			timeout = left_ms > INT32_MAX ? INT32_MAX : (int)left_ms;
		}
		if (probe) {
			if (!target_alive(target))
				break;
			if (timeout < 0 || timeout > PROBE_MS)
				timeout = PROBE_MS;
		}
		struct pollfd p[3] = {
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = collection_fd(s), .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		if (poll(p, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;
			if (read(sigfd, &si, sizeof(si)) > 0) {
				console_warn(MSG_STOP_SIGNAL);
				break;
			}
		}
		if (p[1].revents)
			collection_poll(s);
		if (p[2].revents)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
}

int mode_hostsys_run(const struct msprof_opts *o)
{
	struct diag d = { 0 };
	struct collection s;
	char *output = NULL;
	int sigfd = -1, rc = 1;
	sigset_t old;

	collection_init(&s);
	if (output_prepare(o, NULL, &output, &d) < 0) {
		console_diag(&d);
		goto out;
	}
	sigfd = collection_begin(o, output, false, &old);
	if (sigfd < 0)
		goto out;

	pid_t target = o->host_sys_pid ? o->host_sys_pid : getpid();
	char name[64];
	comm_of(target, name, sizeof(name));
	if (collection_connect(&s) < 0 ||
	    collection_create_dir(&s, output, o, target, name, -1, "", "") < 0)
		goto out_mask;
	pid_t pids[1] = { target };
	if (collection_start(&s, o, pids, 1) < 0) {
		collection_discard(&s);
		goto out_mask;
	}
	if (opts_osrt(o))
		collection_check_osrt(&s, pids, 1);

	wait_end(&s, sigfd, target, o->sys_period);

	signals_unwatch(&sigfd, &old);

	rc = collection_stop(&s) < 0 ? 1 : 0;
	if (export_one(s.prof_dir, o->type, !o->summary_off) < 0)
		rc = 1;
	console_data_saved(s.prof_dir);
	goto out;

out_mask:
	signals_unwatch(&sigfd, &old);
out:
	collection_release(&s);
	free(output);
	return rc;
}

/* msprof's system mode collects the devices' data by default (AI Core
 * sampling on an NPU); here that is the NVIDIA devices' memory and
 * utilisation where NVML is, and the host's CPU and memory usage. */
int mode_system_run(const struct msprof_opts *o)
{
	struct msprof_opts sys = *o;   /* shallow: o still owns what it points to */
	bool host = opts_u(o, SET_HOST_SYS_USAGE) || opts_u(o, SET_HOST_SYS);
	bool device = opts_u(o, SET_SYS_HARDWARE_MEM) || opts_u(o, SET_SYS_INTERCONNECTION);

	if (!host) {
		sys.set.u[SET_HOST_SYS_USAGE] = HOST_USAGE_CPU | HOST_USAGE_MEM;
		sys.set.given |= SETTING_BIT(SET_HOST_SYS_USAGE);
	}
	if (!device && !settings_given(&o->set, SET_SYS_HARDWARE_MEM)) {
		sys.set.u[SET_SYS_HARDWARE_MEM] = 1;
		sys.set.given |= SETTING_BIT(SET_SYS_HARDWARE_MEM);
	}
	if (!host || !device)
		console_info("System mode, for %u s: %s%s%s.", o->sys_period,
			     !host ? "the host's CPU and memory usage (--host-sys-usage=cpu,mem)" : "",
			     !host && !device ? ", and " : "",
			     !device ? "the NVIDIA devices' memory and utilisation (--sys-hardware-mem=on)" : "");
	return mode_hostsys_run(&sys);
}
