#include "launcher/app.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/selfenable.h"
#include "common/util.h"

void app_cmd_release(struct app_cmd *a)
{
	free(a->path);
	free(a->name);
	free(a->dir);
	free(a->argv);      /* the strings belong to argv or to words */
	strv_free(a->words);
	*a = (struct app_cmd){ 0 };
}

static char *absolute(const char *path)
{
	if (path[0] == '/')
		return strdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return path_join(cwd, path);
}

/* Split --application into words as a shell would, without expansions:
 * blanks separate words, '...' keeps everything as is, "..." keeps all but
 * \" \\ \$ \` (which lose their backslash), a backslash outside quotes
 * keeps the next character.  msprof itself splits on blanks only; a string
 * without quotes or backslashes splits the same.  NULL with *ret_err set
 * for an unterminated quote, or out of memory (*ret_err NULL). */
char **app_split_words(const char *s, const char **ret_err)
{
	size_t n = 0, cap = 8, len = strlen(s);
	char **v = calloc(cap, sizeof(*v));
	char *word = malloc(len + 1);
	*ret_err = NULL;
	if (!v || !word)
		goto fail;
	for (;;) {
		s += strspn(s, " \t\n");
		if (!*s)
			break;
		size_t w = 0;
		while (*s && !strchr(" \t\n", *s)) {
			char c = *s++;
			if (c == '\\') {
				if (*s)
					word[w++] = *s++;
			} else if (c == '\'') {
				const char *e = strchr(s, '\'');
				if (!e) {
					*ret_err = "an unterminated ' quote";
					goto fail;
				}
				memcpy(word + w, s, (size_t)(e - s));
				w += (size_t)(e - s);
				s = e + 1;
			} else if (c == '"') {
				while (*s && *s != '"') {
					if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
						s++;
					word[w++] = *s++;
				}
				if (!*s) {
					*ret_err = "an unterminated \" quote";
					goto fail;
				}
				s++;
			} else {
				word[w++] = c;
			}
		}
		if (n + 2 > cap) {
			char **nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv)
				goto fail;
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strndup(word, w)))
			goto fail;
		v[++n] = NULL;
	}
	free(word);
	return v;
fail:
	free(word);
	strv_free(v);
	return NULL;
}

/* The directory msprof writes to for --application when --output is not
 * given: the application's.  A command found on PATH (python3 train.py)
 * is not where the user works: then the directory of the first argument
 * that names a file, as the shell would find it from the current directory
 * (the script), else the current directory. */
static char *application_dir(char *const *argv, bool on_path, const char *canon_path)
{
	if (!on_path) {
		char *tmp = strdup(canon_path), *dir = tmp ? strdup(dirname(tmp)) : NULL;
		free(tmp);
		return dir;
	}
	for (int i = 1; argv[i]; i++) {
		struct stat st;
		if (argv[i][0] == '-' || stat(argv[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		char *real = realpath(argv[i], NULL), *dir = real ? strdup(dirname(real)) : NULL;
		free(real);
		return dir;
	}
	return absolute(".");
}

/* execvp's search: the first PATH entry holding an executable non-directory;
 * ret_noexec gets the first match that is not executable, for the message. */
static char *search_path(const char *name, char **ret_noexec)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	*ret_noexec = NULL;
	for (const char *p = path;; ) {
		size_t len = strcspn(p, ":");
		char *dir = len ? strndup(p, len) : strdup(".");
		char *cand = dir ? path_join(dir, name) : NULL;
		free(dir);
		struct stat st;
		if (cand && stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				free(*ret_noexec);
				*ret_noexec = NULL;
				return cand;
			}
			if (!*ret_noexec) {
				*ret_noexec = cand;
				cand = NULL;
			}
		}
		free(cand);
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	return NULL;
}

int app_resolve(const struct msprof_opts *o, struct app_cmd *ret, struct diag *d)
{
	struct app_cmd a = { 0 };
	char **src;
	int argc;

	if (o->application) {
		const char *why;
		if (!(a.words = app_split_words(o->application, &why)))
			return why ? diag_error(d, "Argument --application: %s in '%s'.", why, o->application)
				   : diag_error(d, "out of memory");
		for (argc = 0; a.words[argc]; argc++)
			;
		if (argc == 0) {
			app_cmd_release(&a);
			return diag_error(d, "Argument --application: expected one argument");
		}
		src = a.words;
	} else if (o->app_argc > 0) {
		src = o->app_argv;
		argc = o->app_argc;
	} else {
		return diag_error(d, "Argument --application: expected one argument");
	}

	const char *cmd = src[0];
	bool on_path = !strchr(cmd, '/');
	if (on_path) {
		char *noexec = NULL;
		a.path = search_path(cmd, &noexec);
		if (!a.path) {
			if (noexec)
				diag_error(d, "This app(%s) has no executable permission!", noexec);
			else
				diag_error(d, "App path(%s) does not exist or permission denied!!!", cmd);
			free(noexec);
			app_cmd_release(&a);
			return -ENOENT;
		}
	} else {
		a.path = absolute(cmd);
		if (!a.path) {
			app_cmd_release(&a);
			return diag_error(d, "App path(%s) does not exist or permission denied!!!", cmd);
		}
		struct stat st;
		if (stat(a.path, &st) < 0) {
			diag_error(d, "App path(%s) does not exist or permission denied!!!", a.path);
			app_cmd_release(&a);
			return -ENOENT;
		}
		if (access(a.path, X_OK) < 0) {
			diag_error(d, "This app(%s) has no executable permission!", a.path);
			app_cmd_release(&a);
			return -EACCES;
		}
		if (S_ISDIR(st.st_mode)) {
			diag_error(d, "Argument --application:%s is a directory, please enter the executable file path.",
				   a.path);
			app_cmd_release(&a);
			return -EISDIR;
		}
	}

	/* the name as invoked (python3, not python3.11), the real directory */
	char *canon = realpath(a.path, NULL);
	char *tmp = strdup(a.path);
	if (tmp) {
		a.name = strdup(basename(tmp));
		a.dir = application_dir(src, on_path, canon ? canon : a.path);
	}
	free(tmp);
	free(canon);
	a.argv = calloc((size_t)argc + 1, sizeof(*a.argv));
	if (!a.name || !a.dir || !a.argv) {
		app_cmd_release(&a);
		return diag_error(d, "out of memory");
	}
	for (int i = 0; i < argc; i++)
		a.argv[i] = src[i];
	*ret = a;
	return 0;
}

static size_t strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

const char *strv_env_get(char *const *env, const char *key)
{
	size_t klen = strlen(key);
	for (; env && *env; env++)
		if (strncmp(*env, key, klen) == 0 && (*env)[klen] == '=')
			return *env + klen + 1;
	return NULL;
}

int strv_env_set(char ***env, const char *key, const char *value)
{
	char *item;
	if (asprintf(&item, "%s=%s", key, value) < 0)
		return -ENOMEM;
	size_t klen = strlen(key), n = strv_len(*env);
	for (size_t i = 0; i < n; i++)
		if (strncmp((*env)[i], key, klen) == 0 && (*env)[i][klen] == '=') {
			free((*env)[i]);
			(*env)[i] = item;
			return 0;
		}
	char **v = realloc(*env, (n + 2) * sizeof(*v));
	if (!v) {
		free(item);
		return -ENOMEM;
	}
	v[n] = item;
	v[n + 1] = NULL;
	*env = v;
	return 0;
}

static bool readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* A candidate: the file exists, and its path made absolute and clean. */
static char *agent_candidate(const char *dir, const char *sub, const char *lib)
{
	char *p;
	if (asprintf(&p, "%s/%s%s%s", dir, sub, *sub ? "/" : "", lib) < 0)
		return NULL;
	char *canon = readable_file(p) ? realpath(p, NULL) : NULL;
	free(p);
	return canon;
}

/* lib (AGENT_NAME or AGENT_OSRT_NAME), or what the variable var names. */
static int agent_lookup(const char *lib, const char *var, char **ret, struct diag *d)
{
	const char *env = getenv(var);
	char *found = NULL;

	if (env && *env) {
		if (!readable_file(env))
			return diag_error(d, "%s '%s' is not a readable file", var, env);
		found = realpath(env, NULL);
		if (!found)
			return diag_error(d, "cannot resolve %s '%s': %s", var, env, strerror(errno));
	}

	char self[PATH_MAX];
	ssize_t n = found ? -1 : readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		const char *rel = MSPROF_LIBDIR_REL;
		char *up = NULL;
		if (rel[0] != '/' && asprintf(&up, "%s/../%s", self, rel) > 0) {
			found = agent_candidate(up, "", lib);
			if (!found)
				found = agent_candidate(up, "msprof", lib);
		}
		free(up);
		if (!found && asprintf(&up, "%s/../build.ninja", self) > 0) {
			bool build_tree = access(up, F_OK) == 0;
			free(up);
			up = NULL;
			if (build_tree && asprintf(&up, "%s/..", self) > 0)
				found = agent_candidate(up, "collectors/agent", lib);
			free(up);
		}
	}
	if (!found)
		found = agent_candidate(MSPROF_AGENT_LIBDIR, "", lib);
	if (!found)
		found = agent_candidate(MSPROF_AGENT_LIBDIR, "msprof", lib);
	if (!found) {
		diag_error(d, "cannot find the msprof agent %s (set %s)", lib, var);
		return -ENOENT;
	}
	/* the dynamic loader splits LD_PRELOAD on blanks and colons */
	if (strpbrk(found, " \t:")) {
		diag_error(d, "the msprof agent '%s' cannot be preloaded: its path holds a blank or a colon", found);
		free(found);
		return -EINVAL;
	}
	*ret = found;
	return 0;
}

/* The folder holding msprof's sitecustomize.py and, from a build tree,
 * the folder holding the build's mstx package (NULL when installed: the
 * package is in its Python's site-packages). */
static int python_boot(char **ret_boot, char **ret_pkg)
{
	char self[PATH_MAX];
	_cleanup_free_ char *probe = NULL, *boot = NULL;
	*ret_boot = *ret_pkg = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
	if (slash) {
		*slash = '\0';
		/* build/launcher/msprof: build/python holds the package */
		if (asprintf(&probe, "%s/../build.ninja", self) > 0 && access(probe, F_OK) == 0 &&
		    asprintf(&boot, "%s/../python/mstx/_boot/sitecustomize.py", self) > 0 && readable_file(boot)) {
			char *pkg = NULL;
			if (asprintf(&pkg, "%s/../python", self) < 0)
				return -ENOMEM;
			*ret_pkg = realpath(pkg, NULL);
			free(pkg);
			if (!*ret_pkg || asprintf(ret_boot, "%s/mstx/_boot", *ret_pkg) < 0) {
				free(*ret_pkg);
				*ret_boot = *ret_pkg = NULL;
				return -ENOENT;
			}
			return 0;
		}
	}
	const char *dir = MSPROF_PYTHON_BOOT_DIR;
	free(boot);
	boot = NULL;
	if (!dir[0] || asprintf(&boot, "%s/sitecustomize.py", dir) < 0 || !readable_file(boot))
		return -ENOENT;
	*ret_boot = strdup(dir);
	return *ret_boot ? 0 : -ENOMEM;
}

int app_env_add_python(char ***env)
{
	_cleanup_free_ char *boot = NULL, *pkg = NULL, *v = NULL;
	if (python_boot(&boot, &pkg) < 0)
		return 0; /* no mstx package here: Python jobs annotate nothing of ours */
	const char *old = strv_env_get(*env, "PYTHONPATH");
	if (asprintf(&v, "%s%s%s%s%s", boot, pkg ? ":" : "", pkg ? pkg : "", old && *old ? ":" : "",
		     old && *old ? old : "") < 0)
		return -ENOMEM;
	return strv_env_set(env, "PYTHONPATH", v);
}

int agent_find(char **ret, struct diag *d)
{
	return agent_lookup(AGENT_NAME, "MSPROF_AGENT_PATH", ret, d);
}

int agent_find_osrt(char **ret, struct diag *d)
{
	return agent_lookup(AGENT_OSRT_NAME, "MSPROF_AGENT_OSRT_PATH", ret, d);
}

bool app_nvidia_present(void)
{
	const char *ctl = getenv("MSPROF_NVIDIA_CTL");
	return access(ctl && *ctl ? ctl : "/dev/nvidiactl", F_OK) == 0;
}

bool app_has_cuda_injection(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	if (!f)
		return false;
	static const char var[] = "CUDA_INJECTION64_PATH=";
	/* entries are NUL-terminated; a long one is read in pieces, and only
	 * a piece that starts an entry can be the variable */
	char buf[PATH_MAX + sizeof var];
	bool at_start = true, found = false;
	int c;
	size_t n = 0;
	while ((c = fgetc(f)) != EOF) {
		if (c != '\0') {
			if (n < sizeof buf - 1)
				buf[n++] = (char)c;
			continue;
		}
		buf[n] = '\0';
		if (at_start && startswith(buf, var)) {
			const char *lib = buf + strlen(var);
			const char *base = strrchr(lib, '/');
			found = startswith(base ? base + 1 : lib, "libmsprof_agent");
		}
		n = 0;
		at_start = true;
	}
	return found;
}

int app_env_add_agent(char ***env, const char *agent)
{
	const char *old = strv_env_get(*env, "LD_PRELOAD");
	int r = 0;

	if (old && *old) {
		/* After what the user preloads: their choices keep their order
		 * (a sanitizer runtime, which must come first, for one).  Already
		 * there (preloaded by hand): left as it is. */
		bool present = false;
		for (const char *p = old; *p && !present; ) {
			size_t len = strcspn(p, " \t:");
			present = len == strlen(agent) && strncmp(p, agent, len) == 0;
			p += len;
			p += strspn(p, " \t:");
		}
		if (!present) {
			char *v;
			if (asprintf(&v, "%s:%s", old, agent) < 0)
				return -ENOMEM;
			r = strv_env_set(env, "LD_PRELOAD", v);
			free(v);
		}
	} else {
		r = strv_env_set(env, "LD_PRELOAD", agent);
	}
	if (r >= 0)
		r = strv_env_set(env, "MSTX_INJECTION_PATH", agent);
	if (r >= 0)
		r = strv_env_set(env, "NVTX_INJECTION64_PATH", agent);
	return r;
}

int app_env_build(char *const *base, const char *spec, char ***ret, struct diag *d)
{
	size_t n = strv_len(base);
	size_t extra = 1;
	for (const char *p = spec; p && *p; p++)
		extra += *p == ';';
	char **env = calloc(n + extra + 1, sizeof(*env));
	if (!env)
		return diag_error(d, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(env[i] = strdup(base[i])))
			goto oom;

	for (const char *p = spec; p && *p; ) {
		size_t len = strcspn(p, ";");
		if (len > 0) {
			const char *eq = memchr(p, '=', len);
			if (!eq || eq == p) {
				/* msprof only logs this one; say it where it is seen */
				diag_warn(d, "Invalid app_env params %.*s", (int)len, p);
			} else {
				char *item = strndup(p, len);
				if (!item)
					goto oom;
				size_t klen = (size_t)(eq - p), i;
				for (i = 0; i < n; i++)
					if (strncmp(env[i], item, klen + 1) == 0)
						break;
				if (i < n) {
					free(env[i]);
					env[i] = item;
				} else {
					env[n++] = item;
				}
			}
		}
		p += len;
		if (*p == ';')
			p++;
	}
	*ret = env;
	return 0;
oom:
	strv_free(env);
	return diag_error(d, "out of memory");
}

int app_env_for(char *const *base, const struct msprof_opts *o, const char *agent, char ***ret, struct diag *d)
{
	char **env = NULL;
	int r = app_env_build(base, o->environment, &env, d);
	if (r < 0)
		return r;
	if (o->dynamic) {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		r = strv_env_set(&env, "PROFILING_MODE", "dynamic");
		if (r >= 0)
			r = strv_env_set(&env, "DYNAMIC_PROFILING_KEY_PID", pid);
	} else if (o->delay_s || o->duration_s) {
		r = strv_env_set(&env, "PROFILING_MODE", "delay_or_duration");
	}
	if (r >= 0 && agent)
		r = app_env_add_agent(&env, agent);
	/* a PyTorch job's communication without code in the job */
	if (r >= 0 && agent && opts_u(o, SET_MSPROFTX))
		r = app_env_add_python(&env);
	/* --capture-range: the agent looks for the range (collectors/agent/capture.c) */
	if (r >= 0 && agent && o->capture_range)
		r = strv_env_set(&env, "MSPROF_CAPTURE_RANGE", o->capture_range);
	if (r >= 0 && agent && o->capture_range)
		r = strv_env_set(&env, "MSPROF_CAPTURE_RANGE_END",
				 o->capture_range_end ? o->capture_range_end : "stop");
	/* --schedule: the agent counts the steps (collectors/agent/capture.c) */
	if (r >= 0 && agent && o->schedule)
		r = strv_env_set(&env, "MSPROF_SCHEDULE", o->schedule);
	/* device tasks: the CUDA driver loads the agent's CUPTI part at cuInit;
	 * a CUDA_INJECTION64_PATH of the user's own (another tool) is kept,
	 * and that tool then has CUPTI to itself */
	if (r >= 0 && agent && (opts_u(o, SET_TASK_TIME) != TASK_TIME_OFF || opts_u(o, SET_RUNTIME_API) ||
				(o->capture_range && streq(o->capture_range, "cudaProfilerApi"))) &&
	    !strv_env_get(env, "CUDA_INJECTION64_PATH"))
		r = strv_env_set(&env, "CUDA_INJECTION64_PATH", agent);
	/* communication: NCCL (>= 2.23) dlopens its profiler plugin from
	 * NCCL_PROFILER_PLUGIN and the agent is one (collectors/agent/nccl.c);
	 * the user's own plugin (or "none") is kept */
	if (r >= 0 && agent && !strv_env_get(env, "NCCL_PROFILER_PLUGIN"))
		r = strv_env_set(&env, "NCCL_PROFILER_PLUGIN", agent);
	/* Plain launch mode: the session covers the application (and what it
	 * starts) from its first instruction, so the agent may wait for its
	 * agent_start while loading and miss no annotation.  Not with a delay
	 * or a duration, nor in dynamic mode: there the agent would wait in
	 * vain, and delay every program the application starts.  A flight
	 * recorder covers the job from its start in either mode. */
	if (r >= 0 && agent && (!o->dynamic || opts_s(o, SET_FLIGHT_RECORDER)) && !o->delay_s && !o->duration_s)
		r = strv_env_set(&env, "MSPROF_AGENT_WAIT_MS", AGENT_WAIT_MS);
	/* this session covers the job: its agent must not start another for
	 * MSPROF_OPTIONS or MSPROF_CONFIG (collectors/agent/selfenable.c) */
	if (r >= 0 && agent) {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		r = strv_env_set(&env, SELF_ROOT_VAR, pid);
	}
	if (r < 0) {
		strv_free(env);
		return diag_error(d, "out of memory");
	}
	*ret = env;
	return 0;
}

/* mkdir -p with msprof's 0750 (Utils::CreateDir). */
static int mkdir_p(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0750) < 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return -e;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return 0;
}

static int prepare_dir(const char *path, bool given, char **ret, struct diag *d)
{
	int r = mkdir_p(path);
	if (r < 0)
		return diag_error(d, "Create output dir failed.ErrorCode: %d, ErrorInfo: %s.", -r, strerror(-r));
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (given)
			return diag_error(d, "Argument --output %s is not a dir.", path);
		return diag_error(d, "Profiling output path %s is not a dir or can not accessible.", path);
	}
	if (access(path, W_OK | X_OK) < 0) {
		if (given)
			return diag_error(d, "Argument --output %s permission denied.", path);
		return diag_error(d, "Profiling output path %s is not a dir or can not accessible.", path);
	}
	char *canon = realpath(path, NULL);
	if (!canon)
		return diag_error(d, "Argument --output is invalid because of get the canonicalized absolute pathname failed");
	*ret = canon;
	return 0;
}

int output_prepare(const struct msprof_opts *o, const struct app_cmd *app, char **ret, struct diag *d)
{
	if (o->output)
		return prepare_dir(o->output, true, ret, d);

	const char *work = getenv("ASCEND_WORK_PATH");
	if (work && *work) {
		char *wabs = absolute(work);
		char *path = wabs ? path_join(wabs, "profiling_data") : NULL;
		free(wabs);
		if (!path)
			return diag_error(d, "out of memory");
		int r = prepare_dir(path, false, ret, d);
		free(path);
		return r;
	}
	if (app && o->application)
		return prepare_dir(app->dir, false, ret, d);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return diag_error(d, "cannot resolve the current directory: %s", strerror(errno));
	return prepare_dir(cwd, false, ret, d);
}

int output_check_analysis(const struct msprof_opts *o, char **ret, struct diag *d)
{
	if (!o->output)
		return diag_error(d, "Argument --output: expected one argument");
	/* lstat of "dir/" would follow a symlink: drop trailing slashes */
	char *p = strdup(o->output);
	if (!p)
		return diag_error(d, "out of memory");
	for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	struct stat st;
	int r = 0;
	if (lstat(p, &st) < 0)
		r = diag_error(d, "Analysis output path(%s) does not exist.", o->output);
	else if (S_ISLNK(st.st_mode))
		r = diag_error(d, "Analysis output path(%s) is soft link.", o->output);
	else if (!(*ret = realpath(p, NULL)))
		r = diag_error(d, "Analysis output path(%s) does not exist.", o->output);
	free(p);
	return r;
}

int output_check_space(const char *dir, struct diag *d)
{
	struct statvfs sv;
	if (statvfs(dir, &sv) < 0)
		return 0;   /* cannot tell: let the writers find out */
	unsigned long long mb = ((unsigned long long)sv.f_bavail * sv.f_frsize) >> 20;
	if (mb < MSPROF_MIN_FREE_MB)
		return diag_error(d, "Insufficient disk space. Reason: The remaining disk space of the system is %lluMB, "
				  "which is less than %uMB.", mb, MSPROF_MIN_FREE_MB);
	return 0;
}

bool is_prof_dir_name(const char *name)
{
	if (!startswith(name, "PROF_"))
		return false;
	const char *p = name + 5;
	for (int field = 0; field < 2; field++) {
		const char *start = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == start || *p != '_')
			return false;
		p++;
	}
	if (!*p)
		return false;
	for (; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return false;
	return true;
}
