/* Launch mode: msprof [options] <app> [args], or --application="<app> args".
 *
 * The application is forked first and held at a pipe until the daemon
 * session that samples it has started, so that the samples cover its whole
 * life and info.json can name its pid.  It keeps msprof's terminal, process
 * group, argv, cwd and environment (plus --environment).
 *
 * --delay=S lets it run first and starts the collection S seconds later;
 * --duration=S stops the collection S seconds after it started (after the
 * delay, as msprof counts), and msprof then waits for the application.  An
 * application that exits before the delay leaves no PROF dir (msprof
 * AppMode::RunModeTasks).
 *
 * --msproftx=on injects the in-process agent (LD_PRELOAD and the mstx/NVTX
 * injection variables); --host-sys=osrt injects its osrt build instead
 * (libmsprof_agent_osrt.so, which also records mstx when asked).  The agent registers with msprofd as the process
 * starts; msprofd sends it agent_start when it belongs to a running
 * session, so with the application held until collection_start it records
 * from its very first annotation.
 *
 * Signals: the application is in our process group, so a Ctrl-C from the
 * terminal reaches it directly (the kernel signals the whole foreground
 * group).  Forwarding that one too would deliver it twice, and many programs
 * take a second Ctrl-C as "die now".  So we forward only what was sent to
 * msprof alone (kill(1), timeout(1): si_code is not SI_KERNEL). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/app.h"
#include "launcher/child.h"
#include "launcher/console.h"
#include "launcher/runners.h"
#include "launcher/unrecorded.h"
#include "collectors/profdir.h"
#include "launcher/collection.h"
#include "launcher/flight.h"
#include "common/util.h"

extern char **environ;

/* A sanitized build's agent needs the ASan runtime first in LD_PRELOAD,
 * which a job launched without --msproftx lacks (the tests give it where
 * they ask for the agent): that build preloads none only to count. */
#ifdef __SANITIZE_ADDRESS__
#define COUNT_ONLY_AGENT 0
#else
#define COUNT_ONLY_AGENT 1
#endif

enum { WAIT_EXITED = 0, WAIT_DEADLINE = 1 };

/* msprofd's first sample comes about a millisecond after its reply to the
 * start; a loaded machine may take longer, a session without host sampling
 * never takes one: the application is released after this at the latest */
#define FIRST_SAMPLE_WAIT_MS 200

/* Processes of the job we adopted as its subreaper, once they exit: the
 * application's own status is left for waitpid(app). */
static void reap_adopted(pid_t app)
{
	for (;;) {
		siginfo_t si = { 0 };
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0 || si.si_pid == app)
			return;
		(void)waitpid(si.si_pid, NULL, WNOHANG);
	}
}

/* --flight-recorder: msprofd went away (killed, restarted) or ended the
 * session: a new one (started as at the beginning) records into the same
 * ring, tried as flight_retry_due says until one answers; the job's agents
 * find it by themselves and record again when its session starts.  What
 * the ring overwrote before is not counted again (the new session's counts
 * begin at zero). */
static void flight_resume(struct collection *s, struct flight *fl, const struct flight_job *job)
{
	if (!flight_retry_due(fl))
		return;
	bool agents = s->agents;
	collection_release(s);
	collection_init(s);
	s->agents = agents;
	s->quiet = true;
	s->retry_quiet = true; /* the trouble is said once (wait_app) */
	if (collection_connect(s) < 0 || flight_start_session(fl, s, job) < 0) {
		collection_release(s);
		collection_init(s);
		s->lost = true;
		s->quiet = true;
		return;
	}
	s->retry_quiet = false;
	flight_retry_resumed(fl);
}

/* Wait for the application, until deadline_ns (CLOCK_MONOTONIC, 0: none);
 * forward stop signals; watch the daemon.  WAIT_EXITED with *ret_status,
 * WAIT_DEADLINE, or -errno. */
static int wait_app(struct collection *s, int sigfd, pid_t pid, uint64_t deadline_ns, int *ret_status,
		    struct flight *fl, const struct flight_job *job)
{
	for (;;) {
		int timeout = -1;
		if (deadline_ns) {
			uint64_t now = mono_ns();
			if (now >= deadline_ns)
				return WAIT_DEADLINE;
			uint64_t ms = (deadline_ns - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
			timeout = ms > INT32_MAX ? INT32_MAX : (int)ms;
		}
		struct pollfd p[2] = {
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = collection_fd(s), .events = POLLIN },
		};
		if (fl->ring && (timeout < 0 || timeout > FLIGHT_PEER_MS))
			timeout = FLIGHT_PEER_MS; /* the job's other recorders' requests */
		int n = poll(p, 2, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			collection_poll(s);
		struct dump_ask a;
		if (collection_take_dump(s, &a))
			(void)flight_dump(fl, job, &a);
		flight_peers(fl, job);
		if (fl->ring && (s->lost || (s->ended && strcmp(s->ended_reason, "target_exited") != 0))) {
			if (flight_trouble(fl))
				flight_trouble_say(s, 0);
			flight_resume(s, fl, job);
		} else if (fl->ring && flight_back(fl)) {
			flight_back_say(0);
		}
		if (!p[0].revents)
			continue;
		struct signalfd_siginfo si;
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			console_warn(MSG_STOP_SIGNAL);
			if (si.ssi_code != SI_KERNEL)
				kill(pid, (int)si.ssi_signo);
		}
		reap_adopted(pid);
		int status;
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			*ret_status = status;
			return WAIT_EXITED;
		}
		if (w < 0 && errno != EINTR)
			return -errno;
	}
}

static uint64_t after_s(unsigned s)
{
	return mono_ns() + (uint64_t)s * NSEC_PER_SEC;
}

int mode_launch_run(const struct msprof_opts *given)
{
	/* windows opened and closed by the job's ranges or steps: dynamic mode's
	 * windows, with no prompt; the collection starts closed */
	if (given->capture_range || given->capture_range_end || given->schedule)
		return mode_dynamic_run(given);
	/* a shallow copy for the defaults; given keeps ownership */
	struct msprof_opts eff = *given;
	const struct msprof_opts *o = &eff;
	opts_default_host_sys(&eff);
	opts_default_flight(&eff);

	struct diag d = { 0 };
	struct app_cmd app = { 0 };
	char **envp = NULL;
	char *output = NULL, *agent = NULL, *unrecorded = NULL;
	struct collection s;
	struct flight fl = { 0 };
	struct flight_job job = { 0 };
	struct child child = CHILD_NONE;
	int sigfd = -1, rc = 1, r, status = 0;
	bool exited = false, started = false, stopped = false;
	sigset_t old;

	collection_init(&s);
	if (app_resolve(o, &app, &d) < 0 || output_prepare(o, &app, &output, &d) < 0) {
		console_diag(&d);
		goto out;
	}
	if (opts_osrt(o) && agent_find_osrt(&agent, &d) < 0) {
		/* msprof refuses to start when its osrt tools are missing */
		console_error(MSG_OSRT_AGENT_INVALID, d.error);
		goto out;
	}
	/* the agent: for mstx, for NCCL's operations (--hccl), and for device
	 * tasks and runtime calls where an NVIDIA driver is (its CUPTI part is
	 * loaded by the CUDA driver) */
	bool want_agent = opts_u(o, SET_MSPROFTX) || o->comm ||
			  ((opts_u(o, SET_TASK_TIME) != TASK_TIME_OFF || opts_u(o, SET_RUNTIME_API)) && app_nvidia_present());
	if (want_agent && !agent && agent_find(&agent, &d) < 0) {
		/* one clear warning; the host data does not need the agent */
		diag_warn(&d, "%s: mstx data will not be collected, host data will", d.error);
		d.error[0] = '\0';
	}
	/* --msproftx off: what the job annotates is counted, and said at the
	 * end; the agent is preloaded for that alone when nothing else needs
	 * it (it then joins no session) */
	char *count_agent = NULL;
	if (!opts_u(o, SET_MSPROFTX) && unrecorded_open(&unrecorded, &d) >= 0 && !agent &&
	    (!COUNT_ONLY_AGENT || agent_find(&count_agent, &d) < 0)) {
		d.error[0] = '\0'; /* no agent: nothing counted, nothing said */
		unrecorded_report(unrecorded, false);
		unrecorded = NULL;
	}
	r = app_env_for(environ, o, agent, &envp, &d);
	if (r >= 0 && count_agent)
		r = app_env_add_agent(&envp, count_agent);
	if (r >= 0 && unrecorded)
		r = unrecorded_env(&envp, unrecorded, count_agent != NULL);
	free(count_agent);
	if (r < 0) {
		if (!d.error[0])
			diag_error(&d, "out of memory");
		console_diag(&d);
		goto out;
	}
	console_diag(&d);   /* warnings */

	sigfd = collection_begin(o, output, true, &old);
	if (sigfd < 0)
		goto out;

	/* the agents end their windows when they lose msprofd: said with it */
	s.agents = agent && opts_u(o, SET_MSPROFTX);
	if (collection_connect(&s) < 0)
		goto out_mask;
	/* A process the job daemonizes (fork, setsid, its parent exits) is
	 * re-parented to us instead of init, so that msprofd keeps sampling it
	 * however short its parent's life was. */
	s.follow_adopted = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	r = child_spawn_held(&app, envp, false, &child);
	if (r < 0) {
		console_error("cannot start '%s': %s", app.path, strerror(-r));
		goto out_mask;
	}

	if (o->delay_s) {
		r = child_release(&child);
		if (r < 0) {
			console_error("cannot execute '%s': %s", app.path, strerror(-r));
			rc = 127;
			goto out_abandon;
		}
		r = wait_app(&s, sigfd, child.pid, after_s(o->delay_s), &status, &fl, &job);
		if (r < 0)
			goto out_wait_failed;
		if (r == WAIT_EXITED) {
			/* msprof logs this one; here it is the only news there is */
			console_warn("Before delay time, the app process has exited.");
			child_report(status);
			child.pid = -1;
			rc = exit_code(status);
			goto out_mask;
		}
		if (s.lost) {
			/* the daemon went away during the delay: start a new one */
			collection_release(&s);
			collection_init(&s);
			s.agents = agent && opts_u(o, SET_MSPROFTX);
			(void)collection_connect(&s);
		}
	}

	job = (struct flight_job){ .output = output, .opts = o, .pid = child.pid, .name = app.name, .dir = app.dir,
				   .rank = rank_from_env(envp) };
	/* --flight-recorder: the collection goes into the ring, and the
	 * dumps into PROF dirs of their own */
	if (s.ipc && opts_s(o, SET_FLIGHT_RECORDER)) {
		if (flight_open(&fl, o) < 0 || flight_start_session(&fl, &s, &job) < 0)
			goto out_abandon;
		s.quiet = true; /* its troubles are the recorder's to say (wait_app) */
		started = true;
	} else if (s.ipc && collection_create_dir(&s, output, o, child.pid, app.name, rank_from_env(envp), app.name, app.dir) >= 0) {
		pid_t pids[1] = { child.pid };
		if (collection_start(&s, o, pids, 1) < 0)
			collection_discard(&s);
		else
			started = true;
	}
	if (!o->delay_s) {
		if (!started)
			goto out_abandon;
		/* the application's first moments inside the first interval of
		 * the samples, not before their baseline */
		collection_wait_first_sample(&s, FIRST_SAMPLE_WAIT_MS);
		r = child_release(&child);
		if (r < 0) {
			console_error("cannot execute '%s': %s", app.path, strerror(-r));
			collection_discard(&s);
			rc = 127;
			goto out_abandon;
		}
	} else if (started) {
		console_info("Collection started after the delay of %u s.", o->delay_s);
	}

	if (started && o->duration_s) {
		r = wait_app(&s, sigfd, child.pid, after_s(o->duration_s), &status, &fl, &job);
		if (r < 0)
			goto out_wait_failed;
		exited = r == WAIT_EXITED;
		if (!exited) {
			collection_stop(&s);
			stopped = true;
			console_info("Collection stopped after the duration of %u s.", o->duration_s);
			console_info("waiting for app process exit......");
		}
	}
	if (!exited) {
		r = wait_app(&s, sigfd, child.pid, 0, &status, &fl, &job);
		if (r < 0)
			goto out_wait_failed;
	}
	/* the app's own rank, for a job whose agent wrote nothing */
	struct profdir_known_rank app_rank = { child.pid, rank_from_env(envp) };
	child.pid = -1;
	rc = exit_code(status);

	/* Drop stop signals that came with the exit, then let Ctrl-C
	 * interrupt the export as usual: the raw data stays for --export. */
	struct signalfd_siginfo si;
	while (read(sigfd, &si, sizeof(si)) > 0)
		;
	signals_unwatch(&sigfd, &old);

	if (!started) {
		child_report(status);
		/* a delayed start that failed: said already, nothing to export */
		if (rc == 0)
			rc = 1;
		goto out;
	}
	if (fl.ring) {
		s.quiet = fl.in_trouble; /* the session's missed ticks said, as without the recorder */
		flight_job_ended(&fl, &s, &job, true, status);
		collection_stop(&s);
		child_report(status);
		if (flight_close(&fl) > 0 && rc == 0)
			rc = 1;
		console_info("Profiling finished.");
		goto out;
	}
	if (!stopped)
		collection_stop(&s);
	{
		char **dirs = collection_rank_dirs(s.prof_dir, &app_rank, app_rank.rank >= 0, opts_s(o, SET_RANKS));
		size_t n = 0, failed = 0;
		bool *ok = NULL;
		while (dirs && dirs[n])
			n++;
		ok = calloc(n ? n : 1, sizeof(*ok));
		for (size_t i = 0; i < n; i++) {
			bool good = export_one(dirs[i], o->type, !o->summary_off) >= 0;
			if (ok)
				ok[i] = good;
			failed += !good;
		}
		if (ok && o->type == OUT_TEXT)
			(void)export_rank_reports(dirs, ok, n);
		/* how the job ended, before the closing lines */
		child_report(status);
		/* a failed export is no success: said, and the exit status
		 * non-zero (the application's own, where it failed too) */
		if (failed) {
			console_error("Profiling finished, but the export of %zu of %zu PROF dir(s) failed (above).", failed,
				      n);
			if (rc == 0)
				rc = 1;
		} else {
			console_info("Profiling finished.");
		}
		for (size_t i = 0; i < n; i++)
			if (ok && ok[i])
				console_info("Process profiling data complete. Data is saved in %s", dirs[i]);
		free(ok);
		strv_free(dirs);
	}
	unrecorded_report(unrecorded, true);
	unrecorded = NULL;
	goto out;

out_wait_failed:
	/* cannot happen short of a kernel bug; do not leave the app */
	console_error("cannot wait for the application: %s", strerror(-r));
	kill(child.pid, SIGKILL);
	child_abandon(&child);
	if (started)
		collection_stop(&s);
	goto out_mask;
out_abandon:
	child_abandon(&child);
out_mask:
	signals_unwatch(&sigfd, &old);
out:
	if (fl.ring)
		(void)flight_close(&fl);
	unrecorded_report(unrecorded, false);
	collection_release(&s);
	app_cmd_release(&app);
	strv_free(envp);
	free(output);
	free(agent);
	return rc;
}
