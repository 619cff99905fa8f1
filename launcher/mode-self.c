/* msprof self-enable PID: what the agent of a job started without msprof
 * runs when the job's environment has MSPROF_OPTIONS or MSPROF_CONFIG
 * (collectors/agent/selfenable.c).  Not for users to type: --help does not
 * list it; the man page's ENVIRONMENT describes the variables.
 *
 * It checks MSPROF_OPTIONS while its stderr is still the job's, so that a
 * bad option is msprof's own message there, once, and its exit status
 * (non-zero) tells the agent to let the job run unprofiled.  Good options,
 * it opens its log (<output>/msprof_self_<pid>.log: the output directory of
 * MSPROF_OPTIONS, else msprof's default for an attached process), says so
 * in one line, makes the log its stdout and stderr and detaches (fork,
 * setsid: the job's terminal, process group and pipes are never held; the
 * parent's exit 0 is the agent's answer).  The detached msprof then drives
 * one dynamic-mode msprof (`msprof --dynamic=on --pid=PID <options>`,
 * mode-dynamic.c) through its prompt on a pipe:
 *
 *   MSPROF_OPTIONS alone: "start" at once; dynamic mode saves and exports
 *     the window when the job exits (one PROF dir, as in launch mode).
 *   MSPROF_CONFIG=FILE: FILE is read whenever it changes (stat every
 *     CONFIG_POLL_MS, so an editor that replaces the file is seen too) and
 *     "start" / "stop" follow it, each window its own PROF dir; other
 *     options quit that msprof and start one with them.  A file that is not
 *     what it must be is said once in the log and ignored: the previous
 *     state stays until the file changes again.
 *
 * Reusing dynamic mode keeps one implementation of attaching, windows, the
 * job's exit and the exports, and the log reads as a session at the
 * prompt. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/app.h"
#include "launcher/child.h"
#include "launcher/console.h"
#include "launcher/modes.h"
#include "launcher/runners.h"
#include "common/selfenable.h"
#include "common/util.h"

#define CONFIG_POLL_MS 50
#define CONFIG_MAX_BYTES (64 * 1024)
/* a prompt without a window never ends by itself here: the job decides */
#define IDLE_FOREVER_S "315360000"

struct self {
	pid_t job;
	int pidfd;                 /* readable when the job exits; -1: probe with kill */
	const char *config;        /* MSPROF_CONFIG, or NULL */
	char **base;               /* MSPROF_OPTIONS' words */
	pid_t dyn;                 /* the dynamic-mode msprof, 0 none */
	int dyn_in;                /* its prompt's input */
	char *dyn_key;             /* its options, as one string */
	bool open;                 /* a window was started */
	struct stat seen;          /* the config as last read */
	bool seen_any, missing_told;
};

/* What the config asks for. */
struct want {
	bool on;
	char **words;              /* the options of the window */
	char *key;
};

/* Append a copy of word to the NULL-terminated *v. */
static int words_push(char ***v, const char *word)
{
	size_t n = 0;
	while (*v && (*v)[n])
		n++;
	char **nv = realloc(*v, (n + 2) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[n] = strdup(word))) {
		nv[n] = NULL;
		return -ENOMEM;
	}
	nv[n + 1] = NULL;
	return 0;
}

bool self_enable_is(const char *word)
{
	return word && streq(word, "self-enable");
}

/* argv of the dynamic-mode msprof for process pid with these options. */
static char **dyn_argv(pid_t pid, char *const *words)
{
	char **v = NULL;
	char pidopt[32];
	snprintf(pidopt, sizeof(pidopt), "--pid=%d", (int)pid);
	if (words_push(&v, "msprof") < 0 || words_push(&v, "--dynamic=on") < 0 || words_push(&v, pidopt) < 0)
		goto fail;
	for (size_t i = 0; words && words[i]; i++)
		if (words_push(&v, words[i]) < 0)
			goto fail;
	return v;
fail:
	strv_free(v);
	return NULL;
}

/* The options as dynamic mode would take them: 0, or -EINVAL with d set. */
static int check_words(pid_t pid, char *const *words, struct msprof_opts *o, struct diag *d)
{
	char **v = dyn_argv(pid, words);
	if (!v)
		return diag_error(d, "out of memory");
	int argc = 0;
	while (v[argc])
		argc++;
	const struct mode_def *m;
	int r = opts_parse(argc, v, o, d);
	if (r >= 0 && (o->help || o->version))
		r = diag_error(d, "--help and --version have no place in MSPROF_OPTIONS or MSPROF_CONFIG");
	if (r >= 0)
		r = mode_select(o, &m, d);
	strv_free(v);
	return r;
}

static char *join(char *const *words)
{
	size_t n = 1;
	for (size_t i = 0; words && words[i]; i++)
		n += strlen(words[i]) + 1;
	char *s = calloc(1, n);
	for (size_t i = 0; s && words && words[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

/* --- the dynamic-mode msprof ---------------------------------------------- */

static void dyn_send(struct self *s, const char *cmd)
{
	if (s->dyn <= 0)
		return;
	char line[32];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);
	if (write(s->dyn_in, line, (size_t)n) != n)
		console_warn("cannot tell msprof '%s': %s", cmd, strerror(errno));
}

/* Wait for it to end (after quit, or the job's exit, which dynamic mode
 * sees itself). */
/* What is left of a dynamic msprof that has been reaped. */
static void dyn_release(struct self *s)
{
	if (s->dyn_in >= 0)
		close(s->dyn_in);
	s->dyn_in = -1;
	s->dyn = 0;
	s->open = false;
	free(s->dyn_key);
	s->dyn_key = NULL;
}

static int dyn_wait(struct self *s)
{
	int status = 0;
	if (s->dyn <= 0)
		return 0;
	/* its input stays open meanwhile: EOF would be quit, and end the
	 * window before the job does */
	while (waitpid(s->dyn, &status, 0) < 0 && errno == EINTR)
		;
	dyn_release(s);
	return exit_code(status);
}

static int dyn_spawn(struct self *s, char *const *words, const char *key)
{
	char **argv = dyn_argv(s->job, words);
	int fds[2];
	if (!argv || pipe2(fds, O_CLOEXEC) < 0) {
		strv_free(argv);
		console_error("cannot start msprof for process %d: %s", (int)s->job, strerror(errno ? errno : ENOMEM));
		return -errno;
	}
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		dup2(fds[0], STDIN_FILENO); /* dup2 clears O_CLOEXEC */
		execv("/proc/self/exe", argv);
		fprintf(stderr, "cannot execute msprof: %s\n", strerror(errno));
		_exit(127);
	}
	int e = errno;
	close(fds[0]);
	strv_free(argv);
	if (p < 0) {
		close(fds[1]);
		console_error("cannot start msprof for process %d: %s", (int)s->job, strerror(e));
		return -e;
	}
	s->dyn = p;
	s->dyn_in = fds[1];
	s->dyn_key = strdup(key);
	s->open = false;
	return 0;
}

/* --- MSPROF_CONFIG -------------------------------------------------------- */

static void want_release(struct want *w)
{
	strv_free(w->words);
	free(w->key);
	*w = (struct want){ 0 };
}

/* Read the config into *w: 0, or -EINVAL with why (a sentence). */
static int config_read(struct self *s, struct want *w, char *why, size_t why_len)
{
	_cleanup_free_ char *text = NULL;
	int fd = open(s->config, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "cannot open it: %s", strerror(errno));
		return -EINVAL;
	}
	text = malloc(CONFIG_MAX_BYTES + 1);
	ssize_t n = text ? read(fd, text, CONFIG_MAX_BYTES + 1) : -1;
	close(fd);
	if (n < 0 || n > CONFIG_MAX_BYTES) {
		snprintf(why, why_len, n < 0 ? "cannot read it" : "it is larger than %d bytes", CONFIG_MAX_BYTES);
		return -EINVAL;
	}
	text[n] = '\0';
	cJSON *j = cJSON_Parse(text);
	if (!cJSON_IsObject(j)) {
		snprintf(why, why_len, "it is not a JSON object (%s)", j ? "another JSON value" : "a syntax error");
		cJSON_Delete(j);
		return -EINVAL;
	}
	int r = -EINVAL;
	bool start = false, start_given = false;
	double lo = -1, hi = -1;
	char **extra = NULL;
	const cJSON *it;
	cJSON_ArrayForEach(it, j) {
		const char *k = it->string;
		if (streq(k, "start")) {
			if (!cJSON_IsBool(it)) {
				snprintf(why, why_len, "'start' must be true or false");
				goto out;
			}
			start = cJSON_IsTrue(it);
			start_given = true;
		} else if (streq(k, "start_step") || streq(k, "stop_step")) {
			double v = it->valuedouble;
			if (!cJSON_IsNumber(it) || v < 0 || v > 1e15 || v != (double)(int64_t)v) {
				snprintf(why, why_len, "'%s' must be a step number (an integer from 0)", k);
				goto out;
			}
			*(streq(k, "start_step") ? &lo : &hi) = v;
		} else if (streq(k, "options")) {
			const char *err = NULL;
			if (cJSON_IsString(it)) {
				extra = app_split_words(it->valuestring, &err);
				if (!extra) {
					snprintf(why, why_len, "'options' has %s", err ? err : "no room (out of memory)");
					goto out;
				}
			} else if (cJSON_IsArray(it)) {
				const cJSON *o;
				cJSON_ArrayForEach(o, it) {
					if (!cJSON_IsString(o) || words_push(&extra, o->valuestring) < 0) {
						snprintf(why, why_len, "'options' must be a string or an array of strings");
						goto out;
					}
				}
			} else {
				snprintf(why, why_len, "'options' must be a string or an array of strings");
				goto out;
			}
		} else {
			snprintf(why, why_len, "unknown key '%.64s' (known: start, start_step, stop_step, options)", k);
			goto out;
		}
	}
	if ((lo < 0) != (hi < 0)) {
		snprintf(why, why_len, "'start_step' and 'stop_step' go together");
		goto out;
	}
	if (lo > hi) {
		snprintf(why, why_len, "'start_step' is after 'stop_step'");
		goto out;
	}
	*w = (struct want){ 0 };
	for (size_t i = 0; s->base && s->base[i]; i++)
		if (words_push(&w->words, s->base[i]) < 0)
			goto nomem;
	for (size_t i = 0; extra && extra[i]; i++)
		if (words_push(&w->words, extra[i]) < 0)
			goto nomem;
	if (lo >= 0) {
		/* both steps are in the window: --step-range's B is the first left out */
		char range[64];
		snprintf(range, sizeof(range), "--step-range=%lld-%lld", (long long)lo, (long long)hi + 1);
		if (words_push(&w->words, range) < 0)
			goto nomem;
	}
	w->on = lo >= 0 ? !start_given || start : start;
	w->key = join(w->words);
	if (!w->key)
		goto nomem;
	/* the options as msprof takes them: a bad one is the file's fault */
	struct msprof_opts o;
	struct diag d = { 0 };
	opts_init(&o);
	r = check_words(s->job, w->words, &o, &d);
	opts_release(&o);
	if (r < 0) {
		snprintf(why, why_len, "its options are not valid: %s", d.error);
		want_release(w);
		r = -EINVAL;
	}
	goto out;
nomem:
	want_release(w);
	snprintf(why, why_len, "out of memory");
	r = -EINVAL;
out:
	strv_free(extra);
	cJSON_Delete(j);
	return r;
}

/* Bring the dynamic-mode msprof to what the config wants. */
static void config_apply(struct self *s, const struct want *w)
{
	if (w->on) {
		if (s->dyn > 0 && !streq(s->dyn_key, w->key)) {
			console_info("MSPROF_CONFIG: new options '%s': quit", w->key);
			dyn_send(s, "quit");
			(void)dyn_wait(s);
		}
		if (s->dyn <= 0 && dyn_spawn(s, w->words, w->key) < 0)
			return;
		if (!s->open) {
			console_info("MSPROF_CONFIG: start");
			dyn_send(s, "start");
			s->open = true;
		}
	} else if (s->open) {
		console_info("MSPROF_CONFIG: stop");
		dyn_send(s, "stop");
		s->open = false;
	}
}

/* The config, when it changed since it was last read. */
static void config_check(struct self *s)
{
	struct stat st;
	if (stat(s->config, &st) < 0) {
		if (!s->missing_told)
			console_warn("MSPROF_CONFIG '%s' cannot be read (%s): the previous state stays until it can", s->config,
				     strerror(errno));
		s->missing_told = true;
		return;
	}
	s->missing_told = false;
	/* truncated and not yet written (an editor saving in place): the
	 * write that follows is the change */
	if (st.st_size == 0)
		return;
	if (s->seen_any && st.st_ino == s->seen.st_ino && st.st_size == s->seen.st_size &&
	    st.st_mtim.tv_sec == s->seen.st_mtim.tv_sec && st.st_mtim.tv_nsec == s->seen.st_mtim.tv_nsec &&
	    st.st_ctim.tv_sec == s->seen.st_ctim.tv_sec && st.st_ctim.tv_nsec == s->seen.st_ctim.tv_nsec)
		return;
	s->seen = st;
	s->seen_any = true;
	struct want w = { 0 };
	char why[1400];
	if (config_read(s, &w, why, sizeof(why)) < 0) {
		/* said once per change: the next look sees the same stat */
		console_error("MSPROF_CONFIG '%s' is ignored: %s; the previous state stays", s->config, why);
		return;
	}
	config_apply(s, &w);
	want_release(&w);
}

static bool job_alive(struct self *s, int timeout_ms)
{
	struct pollfd p = { .fd = s->pidfd, .events = POLLIN };
	if (s->pidfd >= 0)
		return poll(&p, 1, timeout_ms) == 0 || (p.revents == 0);
	if (timeout_ms > 0)
		(void)poll(NULL, 0, timeout_ms);
	return !(kill(s->job, 0) < 0 && errno == ESRCH);
}

/* --- the detached msprof -------------------------------------------------- */

static int supervise(struct self *s)
{
	int rc = 0;
	if (!s->config) {
		/* one window, from now to the job's exit */
		if (dyn_spawn(s, s->base, "") < 0)
			return 1;
		dyn_send(s, "start");
		s->open = true;
		rc = dyn_wait(s);
	} else {
		while (job_alive(s, CONFIG_POLL_MS)) {
			config_check(s);
			/* it ended by itself (msprofd unreachable: it said why) */
			if (s->dyn > 0 && waitpid(s->dyn, NULL, WNOHANG) == s->dyn)
				dyn_release(s);
		}
		/* dynamic mode sees the exit itself, saves the window and exports */
		rc = dyn_wait(s);
	}
	console_info("The self-enabled profiling of process %d has ended.", (int)s->job);
	return rc;
}

int self_enable_run(int argc, char **argv)
{
	struct self s = { .pidfd = -1, .dyn_in = -1 };
	uint64_t pid;
	if (argc != 3 || parse_u64(argv[2], 1, INT32_MAX, &pid) < 0) {
		console_error("self-enable is started by the msprof agent (MSPROF_OPTIONS, MSPROF_CONFIG), "
			      "not by hand");
		return 2;
	}
	s.job = (pid_t)pid;
	const char *opts = getenv("MSPROF_OPTIONS"), *cfg = getenv("MSPROF_CONFIG");
	s.config = cfg && *cfg ? cfg : NULL;
	const char *err = NULL;
	s.base = app_split_words(opts ? opts : "", &err);
	struct msprof_opts o;
	struct diag d = { 0 };
	opts_init(&o);
	_cleanup_free_ char *output = NULL;
	int r = s.base ? check_words(s.job, s.base, &o, &d)
		       : diag_error(&d, "MSPROF_OPTIONS has %s", err ? err : "no room (out of memory)");
	if (r >= 0)
		r = output_prepare(&o, NULL, &output, &d);
	opts_release(&o);
	if (r < 0) {
		console_diag(&d);
		console_error("MSPROF_OPTIONS='%s' is not valid (above): process %d runs unprofiled", opts ? opts : "",
			      (int)s.job);
		strv_free(s.base);
		return 2;
	}
	_cleanup_free_ char *log = NULL;
	if (asprintf(&log, "%s/msprof_self_%d.log", output, (int)s.job) < 0)
		return 2;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0) {
		console_error("cannot open '%s': %s: process %d runs unprofiled", log, strerror(errno), (int)s.job);
		strv_free(s.base);
		return 2;
	}
	if (s.config)
		console_info("msprof follows MSPROF_CONFIG '%s' for process %d; its log is %s", s.config, (int)s.job,
			     log);
	else
		console_info("msprof profiles process %d (MSPROF_OPTIONS) until it exits; its log is %s", (int)s.job,
			     log);
	/* the job waits for a window only where one is coming */
	int answer = 0;
	if (s.config) {
		struct want w = { 0 };
		char why[1400];
		if (config_read(&s, &w, why, sizeof(why)) < 0 || !w.on)
			answer = SELF_NO_WINDOW;
		want_release(&w);
	}
	fflush(stdout);
	pid_t p = fork();
	if (p < 0) {
		console_error("cannot detach: %s: process %d runs unprofiled", strerror(errno), (int)s.job);
		strv_free(s.base);
		return 2;
	}
	if (p > 0) {
		strv_free(s.base);
		return answer; /* the job goes on */
	}

	(void)setsid();
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
	close(fd);
	signal(SIGHUP, SIG_IGN);
	setenv("MSPROF_DYNAMIC_IDLE_S", IDLE_FOREVER_S, 1);
	s.pidfd = child_pidfd_open(s.job);
	int rc = supervise(&s);
	if (s.pidfd >= 0)
		close(s.pidfd);
	strv_free(s.base);
	return rc;
}
