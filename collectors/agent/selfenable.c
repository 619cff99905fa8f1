/* Self-enable: a job started without msprof, with the agent loaded
 * (LD_PRELOAD, the injection variables, or `import mstx`) and MSPROF_OPTIONS
 * or MSPROF_CONFIG in its environment, profiles itself.
 *
 * The agent does not collect on its own: at load it starts msprof
 * ("msprof self-enable <pid>", launcher/mode-self.c), which checks the
 * options with the job's stderr still its own (a bad option is msprof's
 * message there, once), then detaches (setsid, its output to a log file in
 * the output directory) and attaches to the job as dynamic mode does.  So
 * host sampling, the PROF dirs, the export and every message are msprof's,
 * and the job's data goes where it would under `msprof --dynamic=on
 * --pid=<pid>`.
 *
 * The job waits twice, each time boundedly: SELF_CHECK_MS for msprof to
 * say the options are good (normally a few ms), then SELF_WAIT_MS for its
 * window (control.c register_sync), so that its first annotation is
 * recorded.  An msprof that cannot be found or fails costs one line on
 * stderr; the job runs on unprofiled, with its exit status its own.
 *
 * MSPROF_SELF_ROOT=<pid> in the environment says a session already covers
 * the tree: set here before msprof is started (so a failure is told once,
 * not once per child), and by msprof's launch modes (launcher/app.c), so
 * children do not start their own.  With MSPROF_OPTIONS,
 * MSPROF_AGENT_WAIT_MS is set too, so that a program the job execs
 * registers before it runs, as under launch mode. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "collectors/agent/agent.h"
#include "common/selfenable.h"

extern char **environ;

#define SELF_CHECK_MS 5000
#define SELF_WAIT_MS 3000
#define SELF_WAIT_MS_STR "3000"
#define AGENT_FILE_PREFIX "libmsprof_agent"

/* an address inside the agent, for dladdr */
static const char self_anchor;

static bool executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* msprof: $MSPROF_BIN; in a meson build tree (the agent in
 * <build>/collectors/agent), <build>/launcher/msprof; the configured
 * bindir; PATH.  The reverse of launcher/app.c's agent_find. */
static int find_msprof(char *buf, size_t size, const char **ret_why)
{
	const char *env = getenv("MSPROF_BIN");
	if (env && *env) {
		if (!executable(env)) {
			*ret_why = "MSPROF_BIN names no executable file";
			return -ENOENT;
		}
		snprintf(buf, size, "%s", env);
		return 0;
	}
	Dl_info info;
	if (dladdr(&self_anchor, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
		char dir[PATH_MAX], probe[PATH_MAX + 32];
		snprintf(dir, sizeof(dir), "%s", info.dli_fname);
		*strrchr(dir, '/') = '\0';
		snprintf(probe, sizeof(probe), "%s/../../build.ninja", dir);
		if (access(probe, F_OK) == 0) {
			snprintf(probe, sizeof(probe), "%s/../../launcher/msprof", dir);
			if (executable(probe) && realpath(probe, buf))
				return 0;
		}
	}
	snprintf(buf, size, "%s/msprof", MSPROF_BINDIR);
	if (executable(buf))
		return 0;
	const char *path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");
		if (n > 0 && snprintf(buf, size, "%.*s/msprof", (int)n, path) < (int)size && executable(buf))
			return 0;
		path += n + (path[n] == ':');
	}
	*ret_why = "it is not next to the agent, in " MSPROF_BINDIR " or on PATH (MSPROF_BIN names it)";
	return -ENOENT;
}

static bool names_agent(const char *path)
{
	const char *base = strrchr(path, '/');
	return strncmp(base ? base + 1 : path, AGENT_FILE_PREFIX, strlen(AGENT_FILE_PREFIX)) == 0;
}

/* LD_PRELOAD without the agent (the loader splits on blanks and colons). */
static char *preload_without_agent(const char *v)
{
	char *out = malloc(strlen(v) + sizeof("LD_PRELOAD="));
	if (!out)
		return NULL;
	char *o = stpcpy(out, "LD_PRELOAD=");
	while (*v) {
		size_t n = strcspn(v, " :\t");
		char word[PATH_MAX];
		if (n > 0 && n < sizeof(word)) {
			memcpy(word, v, n);
			word[n] = '\0';
			if (!names_agent(word)) {
				if (o[-1] != '=')
					*o++ = ':';
				o = stpcpy(o, word);
			}
		}
		v += n;
		v += strspn(v, " :\t");
	}
	return out;
}

/* msprof's environment: the job's, without the agent (msprof and the
 * msprofd it may start must not load it). */
static char **helper_env(void)
{
	static const char *const injected[] = { "MSTX_INJECTION_PATH=", "NVTX_INJECTION64_PATH=",
						"CUDA_INJECTION64_PATH=", "NCCL_PROFILER_PLUGIN=" };
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		bool drop = false;
		for (size_t j = 0; j < sizeof(injected) / sizeof(injected[0]); j++)
			drop = drop || (strncmp(e, injected[j], strlen(injected[j])) == 0 &&
					names_agent(e + strlen(injected[j])));
		drop = drop || strncmp(e, "MSPROF_AGENT_WAIT_MS=", 21) == 0;
		if (drop)
			continue;
		if (strncmp(e, "LD_PRELOAD=", 11) == 0) {
			char *p = preload_without_agent(e + 11);
			if (p && p[11])
				env[k++] = p;
			else
				free(p);
			continue;
		}
		env[k++] = strdup(e);
		if (!env[k - 1])
			k--;
	}
	return env;
}

static void env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

static void say(const char *what, const char *why)
{
	fprintf(stderr, "msprof agent: %s is set but %s; the program runs unprofiled\n", what, why);
}

uint64_t agent_self_enable(void)
{
	const char *opts = getenv("MSPROF_OPTIONS"), *cfg = getenv("MSPROF_CONFIG");
	const char *what = cfg && *cfg ? "MSPROF_CONFIG" : "MSPROF_OPTIONS";
	if (!(opts && *opts) && !(cfg && *cfg))
		return 0;
	/* under msprof already (launch mode, or an ancestor that self-enabled) */
	if (getenv(SELF_ROOT_VAR) || getenv("MSPROF_AGENT_WAIT_MS") || getenv("MSPROF_AGENT_OUTPUT"))
		return 0;
	char pid[24];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (setenv(SELF_ROOT_VAR, pid, 1) < 0)
		return 0;

	char msprof[PATH_MAX];
	const char *why = NULL;
	if (find_msprof(msprof, sizeof(msprof), &why) < 0) {
		char text[PATH_MAX + 64];
		snprintf(text, sizeof(text), "msprof cannot be found: %s", why);
		say(what, text);
		return 0;
	}
	char **env = helper_env();
	if (!env)
		return 0;
	/* its stdout is the job's stderr: what it says before it detaches is
	 * the job's to see, and the job's stdout stays the job's data */
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	char *argv[] = { msprof, (char *)"self-enable", pid, NULL };
	pid_t child;
	int r = posix_spawn(&child, msprof, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	env_free(env);
	if (r != 0) {
		char text[PATH_MAX + 64];
		snprintf(text, sizeof(text), "'%s' cannot be started: %s", msprof, strerror(r));
		say(what, text);
		return 0;
	}
	/* it answers by exiting: 0 once detached, else it has said why */
	uint64_t deadline = mono_ns() + SELF_CHECK_MS * NSEC_PER_MSEC;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);
		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			/* the program reaps its children itself (SIGCHLD ignored):
			 * msprof's answer is lost, its window is not */
			status = 0;
			break;
		}
		if (mono_ns() >= deadline) {
			say(what, "msprof did not answer in time");
			return 0;
		}
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 0; /* no window now (SELF_NO_WINDOW), or msprof said why */
	/* MSPROF_SELF_WAIT_MS: the wait for the window, where bringing
	 * msprofd up takes longer (a loaded or instrumented machine) */
	const char *w = getenv("MSPROF_SELF_WAIT_MS");
	char *end = NULL;
	unsigned long ms = w && *w ? strtoul(w, &end, 10) : 0;
	bool own = end && !*end && ms >= 1 && ms <= 600000;
	/* one window covers the tree from now to the job's exit: a program
	 * the job execs waits for it too, as under launch mode (not with
	 * MSPROF_CONFIG, where it would wait in vain while no window is open) */
	if (!(cfg && *cfg))
		(void)setenv("MSPROF_AGENT_WAIT_MS", own ? w : SELF_WAIT_MS_STR, 1);
	return own ? ms : SELF_WAIT_MS;
}
