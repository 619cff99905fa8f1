/* The pieces of a collection that are plain files and strings: which program
 * to run with which argv and environment, and where the PROF dirs go.  No
 * daemon and no collectors here, so tests exercise them directly. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "launcher/options.h"

struct app_cmd {
	char *path;       /* what is executed: absolute, or found on PATH */
	char *name;       /* its base name (info.json pid_name, sample.json app) */
	char *dir;        /* its canonical directory, or for a command found on PATH its script's
			   * or the current one (sample.json app_dir; the output of --application) */
	char **argv;      /* NULL-terminated; argv[0] as the user wrote it */
	char **words;     /* the split --application string, owned */
};

/* Resolve and check the application of o (new style, or --application which
 * wins): exists (bare names through PATH), executable, not a directory.
 * Messages are msprof's PreCheckApp ones. */
int app_resolve(const struct msprof_opts *o, struct app_cmd *ret, struct diag *d);
void app_cmd_release(struct app_cmd *a);

/* Split s into words as a shell would, without expansions (quotes and
 * backslashes; --application, MSPROF_OPTIONS).  NULL with *ret_err set for
 * an unterminated quote, or out of memory (*ret_err NULL). */
char **app_split_words(const char *s, const char **ret_err);

/* The application's environment: base plus the "K=V;K2=V2" pairs of spec
 * (which replace variables of the same name).  Items without '=' are skipped
 * with a warning.  *ret is a malloc'd NULL-terminated vector (strv_free,
 * common/util.h). */
int app_env_build(char *const *base, const char *spec, char ***ret, struct diag *d);
const char *strv_env_get(char *const *env, const char *key);
/* Set key=value in *env (a malloc'd vector as app_env_build makes),
 * replacing the variable if it is there. */
int strv_env_set(char ***env, const char *key, const char *value);

#define AGENT_NAME "libmsprof_agent.so"
/* The same agent with the OS runtime calls wrapped (--host-sys=osrt). */
#define AGENT_OSRT_NAME "libmsprof_agent_osrt.so"
/* How long, at most, the agent of a launched application waits at load for
 * msprofd to start it (collectors/agent register_sync). */
#define AGENT_WAIT_MS "3000"

/* The in-process agent: $MSPROF_AGENT_PATH; else next to the installed
 * program, <bindir>/../<libdir>/ or <bindir>/../<libdir>/msprof/; else, in
 * a meson build tree (only where <exe dir>/../build.ninja exists, the rule
 * ipc/call.c uses for msprofd), <exe dir>/../collectors/agent/; else the
 * configured libdir.  *ret is absolute.  -ENOENT when there is none,
 * -EINVAL when MSPROF_AGENT_PATH names no readable file or the path cannot
 * go into LD_PRELOAD (a blank or a colon); d gets the reason as an error. */
int agent_find(char **ret, struct diag *d);
/* msprof's words when its osrt tools are missing ("The tool perf is
 * invalid, ..."), for the osrt agent; %s: why it was not found. */
#define MSG_OSRT_AGENT_INVALID \
	"The tool " AGENT_OSRT_NAME " is invalid, please check that it is installed with msprof: %s"
/* The same search for AGENT_OSRT_NAME, $MSPROF_AGENT_OSRT_PATH first. */
int agent_find_osrt(char **ret, struct diag *d);

/* The environment a launched application gets: base plus --environment
 * (app_env_build), then what msprof sets (application.cpp SetAppEnv):
 * PROFILING_MODE=dynamic and DYNAMIC_PROFILING_KEY_PID=<msprof's pid> with
 * --dynamic=on, PROFILING_MODE=delay_or_duration with --delay or
 * --duration; then the agent (app_env_add_agent) unless agent is NULL, with
 * MSPROF_AGENT_WAIT_MS in plain launch mode (no delay, no duration). */
int app_env_for(char *const *base, const struct msprof_opts *o, const char *agent, char ***ret, struct diag *d);

/* msprof's Python bootstrap (python/mstx/_boot: a PyTorch job's
 * communication recorded with no code in the job) first on PYTHONPATH,
 * with the build tree's mstx package after it when msprof runs from a
 * build tree; nothing when neither is found.  With --msproftx=on. */
int app_env_add_python(char ***env);

/* Whether an NVIDIA driver is here (/dev/nvidiactl, or the node
 * MSPROF_NVIDIA_CTL names): the agent is then injected for device tasks. */
bool app_nvidia_present(void);

/* Whether process pid was started with CUDA_INJECTION64_PATH naming an
 * msprof agent (its initial environment, /proc/pid/environ): only then
 * does the CUDA driver bring the agent's CUPTI part up at cuInit. */
bool app_has_cuda_injection(pid_t pid);

/* Inject the agent into env: LD_PRELOAD (after what is there),
 * MSTX_INJECTION_PATH and NVTX_INJECTION64_PATH. */
int app_env_add_agent(char ***env, const char *agent);

/* The directory PROF dirs are created in, made if missing (mkdir -p):
 * --output; else $ASCEND_WORK_PATH/profiling_data; else the application's
 * directory for --application, the current directory otherwise (msprof
 * ParamsCheck).  app may be NULL (no application).  *ret canonical. */
int output_prepare(const struct msprof_opts *o, const struct app_cmd *app, char **ret, struct diag *d);

/* --export's --output: must exist and not be a symlink.  *ret canonical. */
int output_check_analysis(const struct msprof_opts *o, char **ret, struct diag *d);

/* msprof refuses to collect into a file system with less than 20 MB free
 * when no --storage-limit is given (FileAgeing, error EK0204). */
int output_check_space(const char *dir, struct diag *d);

/* "PROF_{digits}_{digits}_{alnum}" (reference §9). */
bool is_prof_dir_name(const char *name);
