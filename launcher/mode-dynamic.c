/* Dynamic mode: the (msprof) prompt (reference §1.4).
 *
 *   msprof --dynamic=on [options] <app> [args]    launch: start the app,
 *                                                 with the agent injected
 *   msprof --dynamic=on --pid=P[,P...] [options]  attach: running processes
 *
 * Each profiled process ("target") has its own connection to msprofd, which
 * holds its claim (one interactive msprof per process) and runs one daemon
 * session per collection window:
 *
 *   start  -> per live target: a new PROF dir, collection_start     (window open)
 *   stop   -> per open window: collection_stop, the reply, end_info, then
 *             the dir is exported by a child process while the prompt goes
 *             on (which first makes its files durable: profdir_sync)
 *   quit/q -> stop what is open, detach; launch: wait for the app
 *
 * Other ways a window closes, each saving and exporting it: the target
 * exits (launch: the app, and then msprof exits with its status), msprofd
 * ends the session (disk full, shutdown), the connection to msprofd breaks
 * (the next start reconnects, starting a new msprofd, and claims again).
 *
 * One thread, one poll loop: the prompt's input (terminal or pipe; EOF is
 * quit), the stop signals and SIGCHLD (signalfd), each target's daemon
 * connection and pidfd, the export children's report pipes.  Lines that
 * come while the prompt waits (an export done, a process gone) are printed
 * on a line of their own and the prompt is shown again.
 *
 * Replies are msprof's (dyn_prof_client.cpp, the single-process version
 * with the "(msprof) " prompt); "status" and the messages about exits,
 * msprofd and exports are ours. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "launcher/app.h"
#include "launcher/child.h"
#include "launcher/console.h"
#include "launcher/lineedit.h"
#include "launcher/runners.h"
#include "collectors/profdir.h"
#include "launcher/collection.h"
#include "launcher/flight.h"
#include "common/rankenv.h"
#include "common/step-schedule.h"
#include "common/util.h"

extern char **environ;

#define PROMPT "(msprof) "
#define IDLE_DEFAULT_S 1800       /* msprof: a prompt with no start for 30 min ends */
#define LINE_MAX_LEN 1024         /* longer input lines are cut (and invalid) */
#define MAX_EXPORTS 16            /* export children at once; then wait for the oldest */
#define PROBE_MS 200              /* exit probing where pidfd_open is missing */
#define EXPORT_AFTER_STOP_MS 1    /* the stopped windows' exports wait this long (cmd_stop) */

/* msprof's replies, exactly. */
#define MSG_START_OK "dynamic profiling start success......"
#define MSG_ALREADY "dynamic profiling already started......"
#define MSG_START_FAILED "dynamic profiling start failed......"
#define MSG_STOP_OK "dynamic profiling stop success......"
#define MSG_NOT_STARTED "dynamic profiling has not started......"
#define MSG_QUIT_OK "dynamic profiling quit success......"
/* ours */
#define MSG_FLIGHT_ON "the flight recorder records all the time: 'dump' writes out what it holds"

struct target {
	pid_t pid;
	char name[64];            /* comm, or the app's name */
	char dir[PATH_MAX];       /* its executable's directory, for sample.json */
	int rank;
	bool alive;
	bool agent;               /* its agent has registered with msprofd */
	int pidfd;                /* attach: readable when it exits; -1 */
	struct collection s;         /* its connection (and claim), and the open window */
	bool window;
	unsigned window_no;       /* the run's window it is in, from 1 */
	uint64_t window_ns;       /* CLOCK_MONOTONIC when the window opened */
	time_t window_t;          /* and the wall clock */
	/* --flight-recorder: the collection runs into fl's ring from the
	 * start to the end (window stays true), and `dump` writes it out */
	struct flight *fl;
	struct flight_job job;
};

enum phase { PHASE_PROMPT, PHASE_WAIT_APP, PHASE_DRAIN };

#define MAX_STARTERS 1024

struct dyn {
	struct msprof_opts o;     /* shallow copy with the defaults */
	char *output;
	bool launch;
	bool no_prompt;           /* launch mode with --capture-range or --schedule: windows by the job alone */
	struct app_cmd app;
	char **envp;
	struct child child;
	bool app_exited;
	int app_status;

	struct target *t;
	unsigned n;
	int sigfd;
	enum phase phase;

	bool prompt_shown;
	bool eof;
	struct lineedit le;       /* le.on: a terminal, edited */
	uint64_t start_ns;        /* CLOCK_MONOTONIC at the prompt's start */
	unsigned windows;         /* windows started so far */
	char line[LINE_MAX_LEN + 1];   /* a longer line is cut, so it is no command */
	size_t len;

	struct export_job jobs[MAX_EXPORTS];
	unsigned n_jobs;
	unsigned saved;           /* windows saved */
	bool export_failed;
	uint64_t export_at;       /* 0, or when the stopped windows are exported (cmd_stop) */

	unsigned idle_s;
	uint64_t idle_since;      /* no window open since */
	/* the processes that asked for the open window: it closes when the
	 * last of them asks (each rank of a job asks at its own step) */
	pid_t starters[MAX_STARTERS];
	unsigned n_starters;
	char window_steps[48];    /* the open window's --schedule steps "A-B", or "" */
	/* --schedule: processes already asking for the next window (steps
	 * next_steps) while a slower rank keeps this one open */
	pid_t next[MAX_STARTERS];
	unsigned n_next;
	char next_steps[48];
	/* --schedule's deadline (seconds; 0 none): a window open that long is
	 * closed, and a schedule under which none opened that long is said */
	uint64_t deadline_ns;
	uint64_t armed_ns, window_ns; /* when the schedule was armed; when its window opened */
	bool deadline_told;
	bool lost_told;           /* the lost connection was reported */
	bool quitting;            /* no next window: none is made ahead */
	bool flight;              /* --flight-recorder: the prompt's `dump` */
	bool claims_unsupported;
};

/* --- output around the prompt -------------------------------------------- */

static void prompt(struct dyn *d)
{
	if (d->phase != PHASE_PROMPT || d->prompt_shown || d->no_prompt)
		return;
	if (d->le.on) {
		lineedit_show(&d->le);
	} else {
		fputs(PROMPT, stdout);
		fflush(stdout);
	}
	d->prompt_shown = true;
}

/* Before a line that was not asked for: off the prompt's line. */
static void unprompt(struct dyn *d)
{
	if (!d->prompt_shown)
		return;
	if (d->le.on) {
		/* the line is drawn again, with what was typed, after the message */
		lineedit_hide(&d->le);
	} else {
		fputc('\n', stdout);
		fflush(stdout);
	}
	d->prompt_shown = false;
}

/* A reply to a command (msprof's CmdLogNoLevel: no level, stdout). */
static _printf_(1, 2) void reply(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* --- targets ------------------------------------------------------------- */

/* Name, directory and rank of a process we attach to. */
static void describe(struct target *t)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(t->name, sizeof(t->name), f))
			t->name[strcspn(t->name, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t->pid);
	char exe[PATH_MAX];
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(t->dir, sizeof(t->dir), "%s", dirname(exe));
	}
	/* its place in the job, read from its environment as launch mode
	 * reads the app's (common/rankenv.h) */
	t->rank = -1;
	enum { ENV_MAX = 256 * 1024 };
	char *buf = malloc(ENV_MAX);
	struct rank_env re;
	if (buf && rank_env_of_pid((uint32_t)t->pid, buf, ENV_MAX, &re) > 0)
		t->rank = re.rank;
	free(buf);
}

static unsigned windows_open(const struct dyn *d)
{
	unsigned k = 0;
	for (unsigned i = 0; i < d->n; i++)
		k += d->t[i].window;
	return k;
}

static unsigned targets_alive(const struct dyn *d)
{
	unsigned k = 0;
	for (unsigned i = 0; i < d->n; i++)
		k += d->t[i].alive;
	return k;
}

/* Connect a target's session and claim its process.  0 when it is ours;
 * 1 when it is refused (busy, gone, not ours: the user is told, the
 * process is skipped); -errno when msprofd cannot be reached (told too). */
static int target_connect(struct dyn *d, struct target *t)
{
	char why[256];
	bool retry_quiet = t->s.retry_quiet;

	collection_release(&t->s);
	collection_init(&t->s);
	t->s.quiet = true;
	t->s.retry_quiet = retry_quiet;
	t->s.dir_pid = t->pid;
	int r = collection_connect(&t->s);
	if (r < 0)
		return r;
	r = collection_claim(&t->s, t->pid, d->o.schedule, why, sizeof(why));
	if (r == 0)
		return 0;
	if (r == -EOPNOTSUPP) {
		if (!d->claims_unsupported)
			console_warn("msprofd does not support claims: another msprof could drive the same processes");
		d->claims_unsupported = true;
		return 0;
	}
	bool conn = r == -ETIMEDOUT || r == -ECONNRESET || r == -ENOTCONN;
	if (retry_quiet)
		; /* a recorder retrying: it said its trouble once */
	else if (r == -EBUSY)
		/* msprof's words for a target that already has its client */
		console_error("recv params timeout, server for pid %d has been connected to another client.",
			      (int)t->pid);
	else
		console_error("cannot attach to process %d: %s", (int)t->pid, why);
	collection_release(&t->s);
	collection_init(&t->s);
	t->s.quiet = true;
	return conn ? r : 1;
}

/* What a window of t holds: the agent records mstx only with --msproftx=on. */
static const char *data_kinds(const struct dyn *d, const struct target *t)
{
	if (!t->agent)
		return "without the msprof agent: host data only";
	if (opts_u(&d->o, SET_MSPROFTX))
		return "with its msprof agent: host and agent data";
	return opts_osrt(&d->o) ? "with its msprof agent: host and osrt data" :
				  "with its msprof agent: host data (mstx data needs --msproftx=on)";
}

/* Device tasks need CUPTI, which only the CUDA driver brings up, at cuInit,
 * from CUDA_INJECTION64_PATH: a process started without it naming the
 * agent cannot get them by attaching (turning CUPTI's kernel tracing on in
 * a running job instruments every loaded module and has stalled jobs for
 * seconds, so the agent never does it late).  Say so once per process, and
 * how to start it; the rest is collected. */
static void warn_no_injection(const struct dyn *d)
{
	if ((opts_u(&d->o, SET_TASK_TIME) == TASK_TIME_OFF && !opts_u(&d->o, SET_RUNTIME_API)) || !app_nvidia_present())
		return;
	_cleanup_free_ char *agent = NULL;
	struct diag diag = { 0 };
	for (unsigned i = 0; i < d->n; i++) {
		if (app_has_cuda_injection(d->t[i].pid))
			continue;
		if (!agent && agent_find(&agent, &diag) < 0)
			agent = strdup(AGENT_NAME);
		console_warn("process %d (%s) was not started with CUDA_INJECTION64_PATH=%s: its device tasks cannot "
			     "be collected by attaching; start it with that variable set (and LD_PRELOAD=%s for mstx) "
			     "to collect them, everything else is collected.", (int)d->t[i].pid, d->t[i].name,
			     agent ? agent : AGENT_NAME, agent ? agent : AGENT_NAME);
	}
}

static void agents_refresh(struct dyn *d)
{
	struct agent_info *a = NULL;
	size_t n = 0;
	struct collection *any = NULL;
	for (unsigned i = 0; i < d->n && !any; i++)
		if (d->t[i].alive && d->t[i].s.ipc && !d->t[i].s.lost)
			any = &d->t[i].s;
	if (!any || collection_agents(any, &a, &n) < 0)
		return;
	for (unsigned i = 0; i < d->n; i++) {
		d->t[i].agent = false;
		for (size_t k = 0; k < n; k++)
			d->t[i].agent = d->t[i].agent || a[k].pid == d->t[i].pid;
	}
	free(a);
}

/* --- exports ------------------------------------------------------------- */

static void export_done(struct dyn *d, unsigned k)
{
	if (export_finish(&d->jobs[k]) < 0)
		d->export_failed = true;
	d->jobs[k] = d->jobs[--d->n_jobs];
}

static void export_start(struct dyn *d, char *prof_dir)
{
	if (!prof_dir) {
		d->export_failed = true; /* out of memory */
		return;
	}
	if (d->n_jobs == MAX_EXPORTS)
		export_done(d, 0);   /* blocks until the oldest is done */
	int r = export_spawn(prof_dir, d->o.type, !d->o.summary_off, &d->jobs[d->n_jobs]);
	if (r < 0) {
		/* as a last resort, in the foreground */
		if (export_one(prof_dir, d->o.type, !d->o.summary_off) < 0)
			d->export_failed = true;
	} else {
		d->n_jobs++;
	}
	free(prof_dir);
}

/* --- windows ------------------------------------------------------------- */

/* The next window's PROF dir, made while nobody waits (after setup, after
 * a stop's reply), so that start renames it into place: what a start
 * must do on the file system before msprofd can sample into it is then
 * one rename, not three mkdirs and two files. */
static void window_prepare(struct dyn *d, struct target *t)
{
	if (d->flight)
		return; /* no windows: the ring */
	if (t->alive && t->s.ipc && !t->s.lost && d->phase == PHASE_PROMPT && !d->quitting)
		collection_prepare_dir(&t->s, d->output, &d->o, t->pid, t->name, t->rank, t->name, t->dir);
}

static bool window_open(struct dyn *d, struct target *t)
{
	struct collection *s = &t->s;
	if (collection_create_dir(s, d->output, &d->o, t->pid, t->name, t->rank, t->name, t->dir) < 0)
		return false;
	pid_t pids[1] = { t->pid };
	s->defer_start_info = true;   /* cmd_start writes it after its reply */
	if (collection_start(s, &d->o, pids, 1) < 0) {
		collection_discard(s);
		return false;
	}
	t->window = true;
	t->window_ns = mono_ns();
	t->window_t = time(NULL);
	t->window_no = d->windows + 1;
	return true;
}

/* Stop the daemon session and write end_info; the export comes after, in
 * window_export, so that replies are printed before the export lines. */
static void flight_start(struct dyn *d, struct target *t);
static void flight_end(struct dyn *d, struct target *t);

static void window_stop(struct dyn *d, struct target *t)
{
	if (!t->window || t->fl)
		return; /* the recorder runs until the target or the prompt ends (flight_end) */
	(void)collection_write_start_info(&t->s);   /* a no-op once cmd_start wrote it */
	t->s.defer_end_info = true;                 /* window_export writes it, after the reply */
	collection_stop(&t->s);
	if (t->s.lost && !d->lost_told) {
		console_warn("lost the connection to msprofd: the processes keep running; the next start reconnects");
		d->lost_told = true;
	}
}

static void window_export(struct dyn *d, struct target *t)
{
	if (t->fl && d->quitting) {
		flight_end(d, t);
		return;
	}
	if (!t->window || t->fl)
		return;
	t->window = false;
	d->saved++;
	(void)collection_write_end_info(&t->s);
	/* one PROF dir per rank of what it ran (a torchrun parent's ranks;
	 * an attached rank itself, whose environment describe() read) */
	char *dir = collection_take_dir(&t->s);
	struct profdir_known_rank self = { t->pid, t->rank };
	char **dirs = dir ? collection_rank_dirs(dir, &self, t->rank >= 0, opts_s(&d->o, SET_RANKS)) : NULL;
	for (size_t i = 0; dirs && dirs[i]; i++)
		export_start(d, strdup(dirs[i]));
	if (dir && !dirs)
		export_start(d, dir);
	else
		free(dir);
	strv_free(dirs);
	if (!windows_open(d))
		d->idle_since = mono_ns();
	window_prepare(d, t);
}

static void window_save(struct dyn *d, struct target *t)
{
	window_stop(d, t);
	window_export(d, t);
}

static const char *dir_name(const struct target *t)
{
	const char *slash = t->s.prof_dir ? strrchr(t->s.prof_dir, '/') : NULL;
	return slash ? slash + 1 : "";
}

/* --- events -------------------------------------------------------------- */

static void quit_now(struct dyn *d);

/* The target is gone (attach: its pidfd; launch: the app was reaped). */
static void target_gone(struct dyn *d, struct target *t)
{
	if (!t->alive)
		return;
	t->alive = false;
	unprompt(d);
	if (d->launch) {
		char how[128];
		child_describe(d->app_status, how, sizeof(how));
		if (WIFEXITED(d->app_status) && WEXITSTATUS(d->app_status) == 0)
			console_info("app process %d %s, dynamic profiling ends.", (int)t->pid, how);
		else
			console_warn("app process %d %s, dynamic profiling ends.", (int)t->pid, how);
	}
	else
		console_warn("process %d (%s) has exited%s", (int)t->pid, t->name,
			     targets_alive(d) ? ", the other processes carry on" : "");
	if (t->fl) {
		flight_end(d, t);
	} else if (t->window) {
		console_info("The collection of process %d is saved in %s.", (int)t->pid, dir_name(t));
		window_save(d, t);
	}
	if (t->pidfd >= 0) {
		close(t->pidfd);
		t->pidfd = -1;
	}
	/* the connection goes too: it held the claim */
	collection_release(&t->s);
	collection_init(&t->s);
	t->s.quiet = true;
	if (!targets_alive(d)) {
		if (!d->launch)
			console_info("All attached processes have exited, dynamic profiling ends.");
		quit_now(d);
	}
}

static void cmd_start(struct dyn *d);
static void cmd_start_steps(struct dyn *d, const char *steps);
static void cmd_stop(struct dyn *d);
static void exports_due(struct dyn *d);

static void say_asked(const struct dyn *d, const struct capture_ask *a)
{
	const char *cr = d->o.capture_range, *call = a->start ? "msprofStart" : "msprofStop";
	const char *verb = a->start ? "start" : "stop";
	if (a->steps[0] && a->start)
		console_info("process %d asked to %s the collection (--schedule: steps %s)", (int)a->by, verb, a->steps);
	else if (a->steps[0])
		console_info("process %d asked to %s the collection (--schedule: its steps %s are done)", (int)a->by,
			     verb, a->steps);
	else if (!cr)
		console_info("process %d asked to %s the collection (%s)", (int)a->by, verb, call);
	else if (streq(cr, "cudaProfilerApi"))
		console_info("process %d asked to %s the collection (%s or %s)", (int)a->by, verb,
			     a->start ? "cudaProfilerStart" : "cudaProfilerStop", call);
	else
		console_info("process %d asked to %s the collection (range '%s' %s, or %s)", (int)a->by, verb, cr + 5,
			     a->start ? "began" : "ended", call);
}

/* pid in the set: its index, or n */
static unsigned pid_find(const pid_t *set, unsigned n, pid_t pid)
{
	unsigned i = 0;
	while (i < n && set[i] != pid)
		i++;
	return i;
}

static void pid_add(pid_t *set, unsigned *n, pid_t pid)
{
	if (pid_find(set, *n, pid) == *n && *n < MAX_STARTERS)
		set[(*n)++] = pid;
}

static bool pid_remove(pid_t *set, unsigned *n, pid_t pid)
{
	unsigned i = pid_find(set, *n, pid);
	if (i == *n)
		return false;
	set[i] = set[--*n];
	return true;
}

/* A process of the job asked for a window (msprofStart/msprofStop, its
 * capture range, its schedule): as the prompt's start and stop, except
 * that a window several processes asked for closes when the last of them
 * asks (the ranks of a job reach a step at their own pace), and that a
 * --schedule window asked for while another is open (a faster rank in
 * its next cycle) opens as soon as that one closes. */
static void capture_asked(struct dyn *d, const struct capture_ask *a)
{
	unprompt(d);
	say_asked(d, a);
	bool open = windows_open(d) && !d->export_at;
	if (a->start) {
		if (!open) {
			cmd_start_steps(d, a->steps);
			if (windows_open(d))
				d->starters[0] = a->by, d->n_starters = 1;
		} else if (streq(a->steps, d->window_steps)) {
			pid_add(d->starters, &d->n_starters, a->by);
		} else if (a->steps[0] && (!d->n_next || streq(a->steps, d->next_steps))) {
			snprintf(d->next_steps, sizeof d->next_steps, "%s", a->steps);
			pid_add(d->next, &d->n_next, a->by);
			console_info("the window of steps %s opens when the open one (steps %s) closes", a->steps,
				     d->window_steps[0] ? d->window_steps : "the prompt's");
		}
		return;
	}
	if (a->steps[0] && !open)
		return;  /* its window closed already (its deadline, the prompt's stop) */
	if (a->steps[0] && open && !streq(a->steps, d->window_steps)) {
		if (pid_remove(d->next, &d->n_next, a->by))
			console_warn("process %d was done with steps %s before their window could open (other processes "
				     "were still in steps %s): its part of them is not collected", (int)a->by, a->steps,
				     d->window_steps);
		return;
	}
	(void)pid_remove(d->starters, &d->n_starters, a->by);
	if (d->n_starters && open) {
		console_info("the collection stays open until %u other process(es) that asked for it ask to stop",
			     d->n_starters);
		return;
	}
	cmd_stop(d);
	if (d->n_next) {
		char steps[48];
		pid_t next[MAX_STARTERS];
		unsigned n = d->n_next;
		snprintf(steps, sizeof steps, "%s", d->next_steps);
		memcpy(next, d->next, n * sizeof *next);
		d->n_next = 0;
		cmd_start_steps(d, steps);
		if (windows_open(d)) {
			memcpy(d->starters, next, n * sizeof *next);
			d->n_starters = n;
		}
	}
}

/* t's recorder lost its session (msprofd shut down, the connection went,
 * or msprofd ended it: a write error): said once a trouble. */
static void flight_lost_tell(struct dyn *d, struct target *t)
{
	if (!flight_trouble(t->fl))
		return;
	unprompt(d);
	flight_trouble_say(&t->s, t->pid);
}

/* What came on a target's daemon connection. */
static void target_poll(struct dyn *d, struct target *t)
{
	struct collection *s = &t->s;
	collection_poll(s);
	/* the job's msprofStart/msprofStop: as the prompt's start and stop */
	struct capture_ask a;
	while (collection_take_capture(s, &a))
		capture_asked(d, &a);
	struct dump_ask da;
	if (t->fl && collection_take_dump(s, &da)) {
		unprompt(d);
		(void)flight_dump(t->fl, &t->job, &da);
	}
	if (s->capture_dropped) {
		unprompt(d);
		console_warn("%" PRIu64 " request(s) of the job to start or stop the collection came faster than msprof "
			     "took them and were dropped", s->capture_dropped);
		s->capture_dropped = 0;
	}
	/* the tree exiting is the target's own news (pidfd, SIGCHLD) */
	if (t->window && s->ended && !streq(s->ended_reason, "target_exited")) {
		if (t->fl) {
			flight_lost_tell(d, t);
		} else {
			unprompt(d);
			console_warn("msprofd ended the collection of process %d (%s); what was collected is saved "
				     "in %s", (int)t->pid, s->ended_reason, dir_name(t));
			window_save(d, t);
		}
	}
	if (s->lost) {
		unprompt(d);
		if (t->fl) {
			flight_lost_tell(d, t); /* it reconnects by itself */
		} else {
			if (!d->lost_told)
				console_warn("lost the connection to msprofd: the processes keep running; the next "
					     "start reconnects");
			d->lost_told = true;
			if (t->window) {
				console_warn("The collection of process %d ended with msprofd; what was written is "
					     "saved in %s.", (int)t->pid, dir_name(t));
				window_save(d, t);
			}
		}
		collection_release(s);
		collection_init(s);
		s->quiet = true;
	}
}

/* --- the flight recorder --------------------------------------------------- */

/* Each target's collection runs into a ring of its own from the start. */
static void flight_start(struct dyn *d, struct target *t)
{
	struct collection *s = &t->s;
	t->job = (struct flight_job){ .output = d->output, .opts = &d->o, .pid = t->pid, .name = t->name,
				      .dir = t->dir, .rank = t->rank };
	if (!t->alive || !s->ipc || s->lost || !(t->fl = calloc(1, sizeof *t->fl)))
		return;
	if (flight_open(t->fl, &d->o) < 0 || flight_start_session(t->fl, s, &t->job) < 0) {
		console_error("the flight recorder of process %d could not start (above)", (int)t->pid);
		free(s->prof_dir);
		s->prof_dir = NULL;
		(void)flight_close(t->fl);
		free(t->fl);
		t->fl = NULL;
		return;
	}
	t->window = true;
	t->window_ns = mono_ns();
	t->window_t = time(NULL);
}

/* msprofd went away under t's recorder (killed, restarted) or ended its
 * session: a new one, started as at the beginning, records into the same
 * ring, tried as flight_retry_due says until one answers; the job's agents
 * find it by themselves (as launch mode's flight_resume does).  What the
 * ring overwrote before is not counted again. */
static void flight_resume(struct dyn *d, struct target *t)
{
	if (!flight_retry_due(t->fl))
		return;
	t->s.retry_quiet = true; /* the trouble is said once (flight_lost_tell) */
	int r = target_connect(d, t);
	if (r == 0)
		r = flight_start_session(t->fl, &t->s, &t->job);
	t->s.retry_quiet = false;
	if (r != 0) {
		collection_release(&t->s);
		collection_init(&t->s);
		t->s.quiet = true;
		return;
	}
	flight_retry_resumed(t->fl);
	d->lost_told = false;
}

/* The target or the prompt ends: a launched job that ended badly is
 * dumped (--dump-on's exit), then its exports finish and its ring goes. */
static void flight_end(struct dyn *d, struct target *t)
{
	if (!t->fl)
		return;
	unprompt(d);
	/* a launched job's status is known; an attached process's is not */
	flight_job_ended(t->fl, &t->s, &t->job, d->launch && d->app_exited, d->app_status);
	collection_stop(&t->s);
	if (flight_close(t->fl) > 0)
		d->export_failed = true;
	free(t->fl);
	t->fl = NULL;
	t->window = false;
	free(collection_take_dir(&t->s));
}

/* --- commands ------------------------------------------------------------ */

static void cmd_help(struct dyn *d);

/* Reconnect targets whose connection is gone (msprofd died): a new msprofd
 * is started, the claims are made again.  False when none can be used. */
static bool reconnect(struct dyn *d)
{
	bool any = false, tried = false;
	for (unsigned i = 0; i < d->n; i++) {
		struct target *t = &d->t[i];
		if (!t->alive)
			continue;
		if (t->s.ipc && !t->s.lost) {
			any = true;
			continue;
		}
		tried = true;
		int r = target_connect(d, t);
		if (r < 0)
			return false;   /* msprofd cannot be reached: said why */
		any = any || r == 0;
	}
	if (tried && any) {
		d->lost_told = false;
		agents_refresh(d);
	}
	return any;
}

static void cmd_start(struct dyn *d)
{
	cmd_start_steps(d, "");
}

/* A window; steps "A-B" (--schedule): it keeps only what lies in steps A to
 * B-1, as --step-range does, its steps before A the warm-up. */
static void cmd_start_steps(struct dyn *d, const char *steps)
{
	if (d->flight) {
		console_warn(MSG_FLIGHT_ON);
		return;
	}
	/* a window stopped a moment ago (cmd_stop) is saved first */
	exports_due(d);
	if (windows_open(d)) {
		console_warn(MSG_ALREADY);
		return;
	}
	d->n_starters = 0;
	snprintf(d->window_steps, sizeof d->window_steps, "%s", steps);
	struct settings saved = d->o.set;
	if (*steps) {
		d->o.set.s[SET_STEP_RANGE] = d->window_steps;
		d->o.set.given |= SETTING_BIT(SET_STEP_RANGE);
		for (unsigned i = 0; i < d->n; i++)
			collection_forget_spare(&d->t[i].s);   /* its sample.json has no steps */
	}
	unsigned started = 0;
	if (reconnect(d)) {
		for (unsigned i = 0; i < d->n; i++) {
			struct target *t = &d->t[i];
			if (t->alive && t->s.ipc && !t->s.lost)
				started += window_open(d, t);
		}
	}
	d->o.set = saved;
	if (!started) {
		console_error(MSG_START_FAILED);
		return;
	}
	d->window_ns = mono_ns();
	d->windows++;
	reply(MSG_START_OK);
	for (unsigned i = 0; i < d->n; i++)
		if (d->t[i].window)
			(void)collection_write_start_info(&d->t[i].s);
}

static void stop_all(struct dyn *d)
{
	for (unsigned i = 0; i < d->n; i++)
		window_stop(d, &d->t[i]);
}

static void export_all(struct dyn *d)
{
	d->export_at = 0;
	for (unsigned i = 0; i < d->n; i++)
		window_export(d, &d->t[i]);
}

static void cmd_stop(struct dyn *d)
{
	if (d->flight) {
		console_warn(MSG_FLIGHT_ON);
		return;
	}
	if (!windows_open(d)) {
		console_warn(MSG_NOT_STARTED);
		return;
	}
	stop_all(d);
	d->n_starters = 0;
	d->window_steps[0] = '\0';
	reply(MSG_STOP_OK);
	/* The exports (end_info, a fork per window: about 1 ms of CPU) need
	 * not come before the reply is read; with the machine's other cores
	 * busy they would, as the reader, just woken, does not take the core
	 * from msprof.  So they wait a moment, msprof in poll (main loop),
	 * and come before anything else it does (exports_due). */
	d->export_at = mono_ns() + EXPORT_AFTER_STOP_MS * NSEC_PER_MSEC;
}

/* The exports cmd_stop left for a moment, before any other work. */
static void exports_due(struct dyn *d)
{
	if (!d->export_at)
		return;
	unprompt(d);
	export_all(d);
}

static void quit_now(struct dyn *d)
{
	d->quitting = true;
	/* the terminal as it was: from here a Ctrl-C is the terminal's
	 * again, for msprof and the application alike */
	lineedit_end(&d->le);
	stop_all(d);
	export_all(d);
	d->phase = d->launch && !d->app_exited ? PHASE_WAIT_APP : PHASE_DRAIN;
	d->prompt_shown = false;
	if (d->phase == PHASE_WAIT_APP)
		console_info("waiting for app process exit......");
}

static void cmd_quit(struct dyn *d)
{
	stop_all(d);
	reply(MSG_QUIT_OK);
	quit_now(d);
}

/* The bytes of a window's raw files so far: host/data and device_<N>/data
 * slices, as their writers have written them (what a reader of the dir
 * would find now). */
static uint64_t window_bytes(const char *prof_dir)
{
	uint64_t sum = 0;
	DIR *top = opendir(prof_dir);
	if (!top)
		return 0;
	struct dirent *t;
	while ((t = readdir(top))) {
		if (!streq(t->d_name, "host") && !startswith(t->d_name, "device_"))
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s/data", prof_dir, t->d_name);
		DIR *dir = opendir(path);
		if (!dir)
			continue;
		struct dirent *e;
		struct stat st;
		while ((e = readdir(dir)))
			if (strstr(e->d_name, ".slice_") && fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode))
				sum += (uint64_t)st.st_size;
		closedir(dir);
	}
	closedir(top);
	return sum;
}

/* "4.2 s", "3 min 05 s", "2 h 07 min" */
static void format_elapsed(uint64_t ns, char *buf, size_t size)
{
	uint64_t s = ns / NSEC_PER_SEC;
	if (s < 60)
		snprintf(buf, size, "%llu.%llu s", (unsigned long long)s,
			 (unsigned long long)(ns % NSEC_PER_SEC / (NSEC_PER_SEC / 10)));
	else if (s < 3600)
		snprintf(buf, size, "%llu min %02llu s", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, size, "%llu h %02llu min", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
}

/* "1.5 MiB" */
static void format_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n / 1024;
	unsigned u = 0;
	if (n < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)n);
		return;
	}
	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
}

static void cmd_status(struct dyn *d)
{
	char took[32];
	agents_refresh(d);
	format_elapsed(mono_ns() - d->start_ns, took, sizeof(took));
	if (d->launch)
		reply("dynamic profiling of the application %s (pid %d) for %s, output %s", d->app.name,
		      (int)d->t[0].pid, took, d->output);
	else
		reply("dynamic profiling of %u process%s for %s, output %s", d->n, d->n == 1 ? "" : "es", took,
		      d->output);
	for (unsigned i = 0; i < d->n; i++) {
		struct target *t = &d->t[i];
		if (!t->alive) {
			reply("  pid %d (%s): exited", (int)t->pid, t->name);
			continue;
		}
		reply("  pid %d (%s): running, %s%s", (int)t->pid, t->name, data_kinds(d, t),
		      t->s.ipc && !t->s.lost ? "" : ", not connected to msprofd");
		if (t->window) {
			char since[16] = "?", open_for[32], human[32];
			struct tm tm;
			if (localtime_r(&t->window_t, &tm))
				strftime(since, sizeof(since), "%H:%M:%S", &tm);
			format_elapsed(mono_ns() - t->window_ns, open_for, sizeof(open_for));
			uint64_t bytes = window_bytes(t->s.prof_dir);
			format_bytes(bytes, human, sizeof(human));
			if (t->fl)
				reply("    flight recorder since %s (%s), its ring %s holding %llu bytes (%s); %zu dump%s "
				      "written", since, open_for, dir_name(t), (unsigned long long)bytes, human,
				      t->fl->n_dumps, t->fl->n_dumps == 1 ? "" : "s");
			else
				reply("    window %u, open since %s (%s), into %s: %llu bytes written (%s)", t->window_no,
				      since, open_for, dir_name(t), (unsigned long long)bytes, human);
			unsigned live, seen;
			if (collection_sampled(&t->s, &live, &seen) == 0)
				reply("    sampling %u process%s of its tree now, %u since the window opened", live,
				      live == 1 ? "" : "es", seen);
		}
	}
	if (d->flight)
		return; /* the dumps' exports are the recorder's, said above */
	reply("  collection %s; %u collection%s saved, %u export%s running",
	      windows_open(d) ? "started" : "not started", d->saved, d->saved == 1 ? "" : "s", d->n_jobs,
	      d->n_jobs == 1 ? "" : "s");
}

/* `dump`: every recorder writes out what its ring holds (trigger "prompt"). */
static void cmd_dump(struct dyn *d)
{
	if (!d->flight) {
		console_warn("no flight recorder runs: msprof --flight-recorder=60s (or =512MB) starts one");
		return;
	}
	unsigned n = 0;
	for (unsigned i = 0; i < d->n; i++) {
		struct target *t = &d->t[i];
		if (t->fl && t->alive && flight_dump(t->fl, &t->job, &(struct dump_ask){ .trigger = "prompt" }) == 0)
			n++;
	}
	if (!n)
		console_error("no dump was written (above)");
}

static const struct command {
	const char *name, *alias;
	void (*run)(struct dyn *d);
	const char *help;
} commands[] = {
	/* msprof's usage lists these three, in this order, with these words */
	{ "start", NULL, cmd_start, "Start a collection in interactive mode." },
	{ "stop", NULL, cmd_stop, "Stop a collection that was started in interactive mode." },
	{ "quit", "q", cmd_quit, "Stop collection and quit interactive mode." },
	/* ours */
	{ "status", NULL, cmd_status, "Show the processes, the open window, its time and the bytes written." },
	{ "dump", NULL, cmd_dump, "With --flight-recorder: write out what the recorder holds now." },
	{ "help", "h", cmd_help, "Show this usage." },
};

static void cmd_help(struct dyn *d)
{
	fputs("Usage:\n", stdout);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s:", commands[i].name);
		printf("\t %-23s%s\n", name, commands[i].help);
	}
	fflush(stdout);
}

static void run_line(struct dyn *d, char *line)
{
	/* msprof trims the line (Utils::Trim); an empty one shows the prompt again */
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strlen(line);
	while (n > 0 && strchr(" \t\r\n", line[n - 1]))
		line[--n] = '\0';
	if (n == 0)
		return;
	exports_due(d);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(line, commands[i].name) || (commands[i].alias && streq(line, commands[i].alias))) {
			commands[i].run(d);
			return;
		}
	reply("invalid option -- '%s'\n", line);
	cmd_help(d);
}

/* Ctrl-C typed at an edited prompt: a byte, not a signal (lineedit.h). */
static void interrupted(struct dyn *d)
{
	if (d->launch)
		reply("(Ctrl-C at the prompt does not reach the application: type 'stop' to end the collection, "
		      "'quit' to leave the prompt; msprof then waits for the application, and a Ctrl-C stops it)");
	else
		reply("(Ctrl-C at the prompt does not reach the processes: type 'stop' to end the collection, "
		      "'quit' to detach from them and end msprof)");
}

/* The edited prompt's bytes: a line runs as a piped one does. */
static void edit_input(struct dyn *d, const char *buf, size_t n)
{
	for (size_t i = 0; i < n && d->phase == PHASE_PROMPT; i++) {
		switch (lineedit_feed(&d->le, (unsigned char)buf[i])) {
		case LE_NONE:
			continue;
		case LE_LINE:
			snprintf(d->line, sizeof(d->line), "%s", lineedit_line(&d->le));
			d->prompt_shown = false;
			run_line(d, d->line);
			break;
		case LE_INTR:
			d->prompt_shown = false;
			interrupted(d);
			break;
		case LE_EOF:
			d->prompt_shown = false;
			d->eof = true;
			cmd_quit(d);
			break;
		}
		prompt(d);
	}
}

/* Read what the prompt's input has; run every whole line. */
static void read_input(struct dyn *d)
{
	char buf[512];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		/* EOF (or an input that broke) is quit */
		d->eof = true;
		unprompt(d);
		if (d->len > 0 && d->phase == PHASE_PROMPT) {
			d->line[d->len] = '\0';
			d->len = 0;
			run_line(d, d->line);
		}
		if (d->phase == PHASE_PROMPT)
			cmd_quit(d);
		return;
	}
	if (d->le.on) {
		edit_input(d, buf, (size_t)n);
		return;
	}
	for (ssize_t i = 0; i < n && d->phase == PHASE_PROMPT; i++) {
		if (buf[i] != '\n') {
			if (d->len < LINE_MAX_LEN)
				d->line[d->len++] = buf[i];
			continue;
		}
		d->line[d->len] = '\0';
		d->len = 0;
		d->prompt_shown = false;   /* the user's newline ended its line */
		run_line(d, d->line);
		prompt(d);
	}
}

/* --- the loop ------------------------------------------------------------ */

static void forward(struct dyn *d, const struct signalfd_siginfo *si)
{
	if (d->launch && !d->app_exited && si->ssi_code != SI_KERNEL)
		kill(d->t[0].pid, (int)si->ssi_signo);
}

static void reap_app(struct dyn *d)
{
	if (!d->launch || d->app_exited)
		return;
	int status;
	pid_t w = waitpid(d->t[0].pid, &status, WNOHANG);
	if (w != d->t[0].pid)
		return;
	d->app_exited = true;
	d->app_status = status;
	if (d->phase == PHASE_WAIT_APP) {
		d->t[0].alive = false;
		d->phase = PHASE_DRAIN;
	} else {
		target_gone(d, &d->t[0]);
	}
}

static void read_signals(struct dyn *d)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		unprompt(d);
		console_warn(MSG_STOP_SIGNAL);
		forward(d, &si);
		stop = true;
	}
	reap_app(d);
	if (stop && d->phase == PHASE_PROMPT)
		quit_now(d);
}

/* --schedule's deadline: the window open too long closes, naming the
 * processes it waited for; none opened that long after arming is said
 * once.  The ms until the next look, -1 none. */
static int deadline_check(struct dyn *d)
{
	if (!d->deadline_ns || d->phase != PHASE_PROMPT)
		return -1;
	uint64_t now = mono_ns(), due;
	if (windows_open(d) && !d->export_at && d->window_steps[0]) {
		due = d->window_ns + d->deadline_ns;
		if (now >= due) {
			char who[256] = "";
			size_t len = 0;
			for (unsigned i = 0; i < d->n_starters && len + 16 < sizeof who; i++)
				len += (size_t)snprintf(who + len, sizeof who - len, "%s%d", i ? ", " : "", (int)d->starters[i]);
			unprompt(d);
			console_warn("the window of steps %s is closed by its deadline (%llu s after it opened): process(es) "
				     "%s did not finish its steps; what was collected is saved", d->window_steps,
				     (unsigned long long)(d->deadline_ns / NSEC_PER_SEC), who[0] ? who : "(none)");
			d->n_starters = 0;
			cmd_stop(d);
			return 0;
		}
	} else if (!d->windows && !d->deadline_told) {
		due = d->armed_ns + d->deadline_ns;
		if (now >= due) {
			unprompt(d);
			console_warn("no process reached the steps of --schedule=%s within its deadline (%llu s): no window "
				     "has opened yet (the job has not reached them, or marks no steps)", d->o.schedule,
				     (unsigned long long)(d->deadline_ns / NSEC_PER_SEC));
			d->deadline_told = true;
			return -1;
		}
	} else {
		return -1;
	}
	uint64_t ms = (due - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static void loop(struct dyn *d)
{
	/* fds: stdin, signals, and per target its connection and pidfd, and
	 * per export its report */
	size_t cap = 2 + 2 * (size_t)d->n + MAX_EXPORTS;
	struct pollfd *p = calloc(cap, sizeof(*p));
	if (!p) {
		console_error("out of memory");
		return;
	}
	if (d->phase == PHASE_PROMPT && d->no_prompt && d->o.schedule) {
		console_info("The collection starts closed: the application's steps open and close the windows "
			     "(--schedule=%s).", d->o.schedule);
	} else if (d->phase == PHASE_PROMPT && d->no_prompt && streq(d->o.capture_range, "cudaProfilerApi")) {
		console_info("%s", "The collection starts closed: the application's cudaProfilerStart opens a window "
				   "(--capture-range), its cudaProfilerStop closes it.");
	} else if (d->phase == PHASE_PROMPT && d->no_prompt) {
		console_info("The collection starts closed: each range '%s' of the application opens a window "
			     "(--capture-range), its end closes it.", d->o.capture_range + 5);
	} else if (d->phase == PHASE_PROMPT) {
		_cleanup_free_ char *hist = lineedit_history_path();
		(void)lineedit_begin(&d->le, STDIN_FILENO, PROMPT, hist);
		/* the same first line in every mode, at a terminal or not */
		if (d->flight)
			console_info("msprof %s dynamic mode with the flight recorder: 'dump' what it holds, 'status', "
				     "'help', 'quit'.", MSPROF_VERSION);
		else
			console_info("msprof %s dynamic mode: 'start' and 'stop' a collection, 'status', 'help', 'quit'.",
				     MSPROF_VERSION);
	}
	d->start_ns = mono_ns();
	prompt(d);
	while (!(d->phase == PHASE_DRAIN && d->n_jobs == 0)) {
		size_t k = 0;
		bool probe = false;
		p[k++] = (struct pollfd){ .fd = d->phase == PHASE_PROMPT && !d->eof && !d->no_prompt ? STDIN_FILENO : -1,
					  .events = POLLIN };
		p[k++] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		for (unsigned i = 0; i < d->n; i++) {
			struct target *t = &d->t[i];
			bool watch = t->alive && d->phase == PHASE_PROMPT;
			p[k++] = (struct pollfd){ .fd = watch ? collection_fd(&t->s) : -1, .events = POLLIN };
			p[k++] = (struct pollfd){ .fd = watch ? t->pidfd : -1, .events = POLLIN };
			probe = probe || (watch && !d->launch && t->pidfd < 0);
		}
		for (unsigned i = 0; i < d->n_jobs; i++)
			p[k++] = (struct pollfd){ .fd = d->jobs[i].fd, .events = POLLIN };

		int timeout = deadline_check(d);
		if (d->phase == PHASE_PROMPT && !windows_open(d) && !d->no_prompt && !d->o.schedule) {
			uint64_t end = d->idle_since + (uint64_t)d->idle_s * NSEC_PER_SEC, now = mono_ns();
			if (now >= end) {
				unprompt(d);
				console_warn("No collection was started within %u seconds, dynamic profiling quits.",
					     d->idle_s);
				quit_now(d);
				continue;
			}
			uint64_t ms = (end - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
			timeout = ms > INT32_MAX ? INT32_MAX : (int)ms;
		}
		if (timeout == 0)
			continue;  /* the deadline acted: look again */
		if (probe && (timeout < 0 || timeout > PROBE_MS))
			timeout = PROBE_MS;
		if (d->flight && (timeout < 0 || timeout > FLIGHT_PEER_MS))
			timeout = FLIGHT_PEER_MS; /* the job's other recorders' requests */
		if (d->export_at) {
			uint64_t now = mono_ns();
			int ms = d->export_at > now ? (int)((d->export_at - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) : 0;
			if (timeout < 0 || timeout > ms)
				timeout = ms;
		}

		if (poll(p, k, timeout) < 0) {
			if (errno == EINTR)
				continue;
			console_error("cannot wait for input: %s", strerror(errno));
			exports_due(d);
			break;
		}
		exports_due(d); /* whatever woke msprof: the windows it handles are exported */
		/* exports first: the other handlers may start more, which moves
		 * the jobs; newest first, so that removing one (the last moves
		 * into its place) never moves one not looked at yet */
		size_t base = 2 + 2 * (size_t)d->n;
		for (size_t j = k; j > base; j--)
			if (p[j - 1].revents) {
				unprompt(d);
				export_done(d, (unsigned)(j - 1 - base));
			}
		if (p[1].revents)
			read_signals(d);
		for (unsigned i = 0; i < d->n && d->phase == PHASE_PROMPT; i++) {
			struct target *t = &d->t[i];
			if (p[2 + 2 * i].fd >= 0 && p[2 + 2 * i].revents)
				target_poll(d, t);
			bool gone = p[3 + 2 * i].fd >= 0 && p[3 + 2 * i].revents;
			if (!gone && t->alive && !d->launch && t->pidfd < 0)
				gone = kill(t->pid, 0) < 0 && errno == ESRCH;
			if (gone)
				target_gone(d, t);
		}
		if (d->phase == PHASE_PROMPT && !d->eof && p[0].fd >= 0 && p[0].revents)
			read_input(d);
		for (unsigned i = 0; i < d->n && d->phase == PHASE_PROMPT; i++) {
			struct target *t = &d->t[i];
			if (!t->fl || !t->alive)
				continue;
			flight_peers(t->fl, &t->job);
			if (!t->s.ipc || t->s.lost || (t->s.ended && !streq(t->s.ended_reason, "target_exited"))) {
				flight_lost_tell(d, t); /* said already where target_poll saw it */
				flight_resume(d, t);
			} else if (flight_back(t->fl)) {
				unprompt(d);
				flight_back_say(t->pid);
			}
		}
		prompt(d);
	}
	free(p);
}

/* --- setup --------------------------------------------------------------- */

static unsigned idle_seconds(void)
{
	/* for tests: not in --help, documented in the man page */
	const char *v = getenv("MSPROF_DYNAMIC_IDLE_S");
	uint64_t n;
	if (v && *v) {
		if (parse_u64(v, 1, UINT32_MAX, &n) == 0)
			return (unsigned)n;
		console_warn("MSPROF_DYNAMIC_IDLE_S '%s' is not a number of seconds, using %u", v, IDLE_DEFAULT_S);
	}
	return IDLE_DEFAULT_S;
}

/* launch: the application, held until it is claimed, then released. */
static int setup_launch(struct dyn *d)
{
	struct diag dg = { 0 };
	char *agent = NULL;

	if (app_resolve(&d->o, &d->app, &dg) < 0 || output_prepare(&d->o, &d->app, &d->output, &dg) < 0) {
		console_diag(&dg);
		return -EINVAL;
	}
	if (opts_osrt(&d->o) && agent_find_osrt(&agent, &dg) < 0) {
		console_error(MSG_OSRT_AGENT_INVALID, dg.error);
		return -ENOENT;
	}
	if (!agent && agent_find(&agent, &dg) < 0) {
		diag_warn(&dg, "%s: mstx and NVTX data will not be collected, host data will", dg.error);
		dg.error[0] = '\0';
	}
	int r = app_env_for(environ, &d->o, agent, &d->envp, &dg);
	free(agent);
	console_diag(&dg);
	if (r < 0)
		return r;
	r = collection_check_space(&d->o, d->output);
	if (r < 0)
		return r;

	d->t = calloc(1, sizeof(*d->t));
	if (!d->t)
		return -ENOMEM;
	d->n = 1;
	struct target *t = &d->t[0];
	collection_init(&t->s);
	t->pidfd = -1;
	/* msprofd first: no point starting the app if it cannot be reached */
	t->s.quiet = true;
	r = collection_connect(&t->s);
	if (r < 0)
		return r;
	r = child_spawn_held(&d->app, d->envp, true, &d->child);
	if (r < 0) {
		console_error("cannot start '%s': %s", d->app.path, strerror(-r));
		return r;
	}
	t->pid = d->child.pid;
	t->alive = true;
	snprintf(t->name, sizeof(t->name), "%s", d->app.name);
	snprintf(t->dir, sizeof(t->dir), "%s", d->app.dir);
	t->rank = rank_from_env(d->envp);
	r = target_connect(d, t);
	if (r != 0) {
		child_abandon(&d->child);
		return r < 0 ? r : -ESRCH;
	}
	/* the recorder covers the job from its first instruction */
	if (d->flight)
		flight_start(d, t);
	r = child_release(&d->child);
	if (r < 0) {
		console_error("cannot execute '%s': %s", d->app.path, strerror(-r));
		child_abandon(&d->child);   /* reaps what is left of it */
		t->alive = false;
		d->app_exited = true;
		d->app_status = 127 << 8;
		return r;
	}
	return 0;
}

/* attach: the processes of --pid that can be claimed. */
static int setup_attach(struct dyn *d)
{
	struct diag dg = { 0 };
	if (output_prepare(&d->o, NULL, &d->output, &dg) < 0) {
		console_diag(&dg);
		return -EINVAL;
	}
	if (collection_check_space(&d->o, d->output) < 0)
		return -ENOSPC;
	d->t = calloc(d->o.n_pids, sizeof(*d->t));
	if (!d->t)
		return -ENOMEM;
	for (unsigned i = 0; i < d->o.n_pids; i++) {
		struct target *t = &d->t[d->n];
		collection_init(&t->s);
		t->pid = d->o.pids[i];
		t->pidfd = -1;
		describe(t);
		int r = target_connect(d, t);
		if (r < 0)
			return r;   /* msprofd cannot be reached: said why */
		if (r > 0)
			continue;
		t->alive = true;
		t->pidfd = child_pidfd_open(t->pid);
		d->n++;
	}
	if (d->n == 0) {
		console_error("no process left to profile, stop profiling.");
		return -ESRCH;
	}
	agents_refresh(d);
	for (unsigned i = 0; i < d->n; i++)
		console_info("Attached to process %d (%s), %s.", (int)d->t[i].pid, d->t[i].name, data_kinds(d, &d->t[i]));
	warn_no_injection(d);
	for (unsigned i = 0; i < d->n && opts_osrt(&d->o); i++)
		if (d->t[i].s.ipc && !d->t[i].s.lost)
			collection_check_osrt(&d->t[i].s, &d->t[i].pid, 1);
	return 0;
}

int mode_dynamic_run(const struct msprof_opts *given)
{
	struct dyn dd = { .o = *given, .child = CHILD_NONE, .sigfd = -1 };
	struct dyn *d = &dd;
	sigset_t old;
	int rc = 1;

	opts_default_host_sys(&d->o);
	opts_default_flight(&d->o);
	d->flight = opts_s(&d->o, SET_FLIGHT_RECORDER) != NULL;
	d->launch = opts_have_app(&d->o);
	d->no_prompt = !d->o.dynamic; /* launch mode's --capture-range, --schedule (mode-launch.c) */
	d->idle_s = idle_seconds();
	/* the range is looked for by the agent msprof preloads (app.c) */
	if (d->o.capture_range && !d->launch) {
		console_error("Argument --capture-range needs an application that msprof launches: the agent of a "
			      "process attached to (--pid) was loaded without it.");
		return 1;
	}
	if (d->o.capture_range_end && !d->o.capture_range) {
		console_error("Argument --capture-range-end must be used with --capture-range.");
		return 1;
	}
	if (d->o.schedule && d->o.capture_range) {
		console_error("Argument --schedule and --capture-range cannot be configured at the same time: each "
			      "opens and closes the windows.");
		return 1;
	}
	if (d->o.schedule && settings_given(&d->o.set, SET_STEP_RANGE)) {
		console_error("Argument --schedule and --step-range cannot be configured at the same time: the "
			      "schedule chooses each window's steps.");
		return 1;
	}
	if (d->o.schedule && !opts_u(&d->o, SET_MSPROFTX)) {
		console_error("Argument --schedule needs --msproftx=on: the job's steps are annotations "
			      "(mstxStep, \"step N\" ranges, mstx.torch.enable()).");
		return 1;
	}
	if (d->no_prompt && (d->o.delay_s || d->o.duration_s)) {
		console_error("Argument %s and --delay/--duration cannot be configured at the same time: "
			      "the job's %s open and close the windows.", d->o.schedule ? "--schedule" : "--capture-range",
			      d->o.schedule ? "steps" : "ranges");
		return 1;
	}

	/* Signals first: the application must not be able to exit unseen. */
	d->sigfd = signals_watch(true, &old);
	if (d->sigfd < 0)
		return 1;
	int r = d->launch ? setup_launch(d) : setup_attach(d);
	if (r < 0 && !(d->launch && d->app_exited))
		goto out;

	d->idle_since = d->armed_ns = mono_ns();
	struct step_schedule sc;
	if (d->o.schedule && step_schedule_parse(d->o.schedule, &sc) == 0)
		d->deadline_ns = sc.deadline_s * NSEC_PER_SEC;
	d->phase = d->app_exited ? PHASE_DRAIN : PHASE_PROMPT;
	for (unsigned i = 0; i < d->n; i++) {
		if (d->flight && !d->t[i].fl)
			flight_start(d, &d->t[i]);
		window_prepare(d, &d->t[i]);
	}
	loop(d);
	/* a stop signal in the prompt phase with the app gone: nothing to wait for */
	while (d->launch && !d->app_exited) {
		int status;
		pid_t w = waitpid(d->t[0].pid, &status, 0);
		if (w == d->t[0].pid) {
			d->app_exited = true;
			d->app_status = status;
		} else if (w < 0 && errno != EINTR) {
			break;
		}
	}
	while (d->n_jobs > 0)
		export_done(d, 0);

	if (d->saved)
		console_info("Process profiling data complete. Data is saved in %s", d->output);
	if (d->launch)
		rc = exit_code(d->app_status);
	else
		rc = 0;
	if (d->export_failed && rc == 0)
		rc = 1;

out:
	for (unsigned i = 0; i < d->n; i++) {
		flight_end(d, &d->t[i]);
		if (d->t[i].pidfd >= 0)
			close(d->t[i].pidfd);
		collection_release(&d->t[i].s);
	}
	free(d->t);
	if (d->child.pid > 0 && !d->app_exited) {
		/* setup failed after the fork: do not leave it held */
		kill(d->child.pid, SIGKILL);
		child_abandon(&d->child);
	}
	lineedit_release(&d->le);
	signals_unwatch(&d->sigfd, &old);
	app_cmd_release(&d->app);
	strv_free(d->envp);
	free(d->output);
	return rc;
}
