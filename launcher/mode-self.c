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
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/app.h"
#include "launcher/child.h"
#include "launcher/console.h"
#include "launcher/modes.h"
#include "launcher/runners.h"
#include "common/selfenable.h"
#include "common/flight-recorder.h"
#include "common/step-schedule.h"
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
	bool scheduled;            /* the dynamic-mode msprof follows a step window (--schedule) */
	struct stat seen;          /* the config as last read */
	bool seen_any, missing_told;
};

/* What the config asks for. */
struct want {
	bool on;
	bool scheduled;            /* a step window: the agent opens it (--schedule), not "start" */
	bool flight;               /* a flight recorder: it records from the attach, unasked */
	char **words;              /* the options of the window */
	char *metadata;            /* torch_npu's "metadata" (JSON), for each PROF dir; NULL none */
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

/* Self-enable is `msprof --dynamic=on --pid=<the job>`: it takes the
 * options dynamic mode honours for an attached process, and none that
 * names other processes, another mode or a terminal's session.  These,
 * though dynamic mode has them, are self-enable's own to set. */
static const enum opt_id self_owned[] = { OPT_PID, OPT_DYNAMIC, OPT_APPLICATION, OPT_ENVIRONMENT };

/* An option of words self-enable cannot honour: -EPERM with d saying which
 * and why, else 0 (a word msprof does not take is check_words' to say).
 * The words are walked as opts_parse walks them. */
static int refuse_words(pid_t pid, char *const *words, const char *source, struct diag *d)
{
	for (size_t i = 0; words && words[i]; i++) {
		const char *w = words[i];
		if (streq(w, "--"))
			w = words[++i];
		if (!w)
			break;
		if (!startswith(w, "--")) {
			diag_error(d, "'%s' has no place in %s: self-enable profiles the process it is loaded in "
				      "(process %d), which is the application; remove it", w, source, (int)pid);
			return -EPERM;
		}
		const struct opt_def *def = opts_find(w);
		if (!def)
			continue;
		bool owned = false;
		for (size_t k = 0; k < ARRAY_SIZE(self_owned); k++)
			owned = owned || self_owned[k] == def->id;
		/* msprof's NPU options (past _OPT_MAX) are taken and ignored */
		bool terminal = (unsigned)def->id < _OPT_MAX && !mode_allows(MODE_DYNAMIC, def->id);
		if (owned) {
			diag_error(d, "--%s has no place in %s: self-enable profiles the process it is loaded in "
				      "(process %d) until it exits, as --dynamic=on --pid=%d does; remove --%s",
				   def->name, source, (int)pid, (int)pid, def->name);
			return -EPERM;
		}
		if (terminal) {
			diag_error(d, "--%s has no place in %s: it is an option of msprof run from a terminal, and "
				      "self-enable takes only what `msprof --dynamic=on --pid` honours (collection "
				      "options); remove --%s", def->name, source, def->name);
			return -EPERM;
		}
		if (def->takes_value && !strchr(w, '=') && words[i + 1])
			i++;
	}
	return 0;
}

/* The options as dynamic mode would take them: 0, -EPERM (an option
 * self-enable cannot honour) or -EINVAL, with d set. */
static int check_words(pid_t pid, char *const *words, const char *source, struct msprof_opts *o,
		       struct diag *d)
{
	int refused = refuse_words(pid, words, source, d);
	if (refused < 0)
		return refused;
	char **v = dyn_argv(pid, words);
	if (!v)
		return diag_error(d, "out of memory");
	int argc = 0;
	while (v[argc])
		argc++;
	const struct mode_def *m;
	/* (--help and --version were refused above, with the other options
	 * of a terminal) */
	int r = opts_parse(argc, v, o, d);
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

/* metadata: what each PROF dir of the windows holds as
 * profiler_metadata.json (MSPROF_METADATA, collection.c), NULL none. */
static int dyn_spawn(struct self *s, char *const *words, const char *key, const char *metadata)
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
		if (metadata)
			setenv(METADATA_VAR, metadata, 1);
		else
			unsetenv(METADATA_VAR);
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
	free(w->metadata);
	free(w->key);
	*w = (struct want){ 0 };
}

/* --- torch_npu's profiler_config.json ------------------------------------------
 * The file torch_npu's dynamic profiling polls (keys as
 * torch_npu/profiler/_dynamic_profiler/_dynamic_profiler_config_context.py
 * reads them), taken as it is: start_step, warmup and active are the
 * window (steps start_step + warmup to start_step + warmup + active - 1,
 * as its schedule(wait=0, warmup, active) records them; start_step -1:
 * now), prof_dir the output, is_rank/rank_list the ranks,
 * experimental_config's export_type, mstx/msprof_tx, mstx_domain_include/
 * exclude and host_sys ours of the same meaning, metadata written into
 * each PROF dir (profiler_metadata.json, as torch_npu writes it).  Keys of
 * data only an Ascend NPU or torch_npu's own profiler makes are named in a
 * warning each where they ask for something; analyse, async_mode and
 * activities change nothing here (the export always analyses). */
struct npu_config {
	bool seen;                 /* any of its keys */
	double active, warmup;     /* -1: not given */
	const char *prof_dir;
	bool is_rank;
	const cJSON *rank_list, *exp, *metadata;
};

/* A torch_npu key whose value asks for data msprof does not make: the
 * name and the default that asks for nothing. */
static const struct {
	const char *key;
	int type;                  /* cJSON_False, cJSON_String (default text), cJSON_NULL */
	const char *def;
} npu_only[] = {
	{ "record_shapes", cJSON_False, NULL }, { "profile_memory", cJSON_False, NULL },
	{ "with_stack", cJSON_False, NULL },    { "with_flops", cJSON_False, NULL },
	{ "with_modules", cJSON_False, NULL },
	/* experimental_config */
	{ "profiler_level", cJSON_String, "Level0" }, { "aic_metrics", cJSON_String, "AiCoreNone" },
	{ "l2_cache", cJSON_False, NULL },            { "op_attr", cJSON_False, NULL },
	{ "gc_detect_threshold", cJSON_NULL, NULL },  { "record_op_args", cJSON_False, NULL },
	{ "sys_io", cJSON_False, NULL },              { "sys_interconnection", cJSON_False, NULL },
};

/* Whether v asks for what npu_only[i] names. */
static bool npu_only_asks(size_t i, const cJSON *v)
{
	switch (npu_only[i].type) {
	case cJSON_False:
		return cJSON_IsTrue(v);
	case cJSON_String:
		return cJSON_IsString(v) && !streq(v->valuestring, npu_only[i].def);
	default:
		return v && !cJSON_IsNull(v);
	}
}

static void npu_only_warn(const char *key, const cJSON *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(npu_only); i++)
		if (streq(key, npu_only[i].key) && npu_only_asks(i, v))
			console_warn("MSPROF_CONFIG: '%s' asks for data of torch_npu's profiler or an Ascend NPU, which "
				     "msprof does not collect here; the rest of the file is followed", key);
}

/* 1: k is one of torch_npu's keys, taken into c; 0: not one; -EINVAL with why. */
static int npu_key(struct npu_config *c, const char *k, const cJSON *v, char *why, size_t why_len)
{
	if (streq(k, "active") || streq(k, "warmup")) {
		if (!cJSON_IsNumber(v) || v->valuedouble < (streq(k, "active") ? 1 : 0) || v->valuedouble > 1e9 ||
		    v->valuedouble != (double)(int64_t)v->valuedouble) {
			snprintf(why, why_len, "'%s' must be a number of steps (%s)", k,
				 streq(k, "active") ? "from 1" : "from 0");
			return -EINVAL;
		}
		*(streq(k, "active") ? &c->active : &c->warmup) = v->valuedouble;
	} else if (streq(k, "prof_dir")) {
		if (!cJSON_IsString(v) || !v->valuestring[0]) {
			snprintf(why, why_len, "'prof_dir' must be a directory's path");
			return -EINVAL;
		}
		c->prof_dir = v->valuestring;
	} else if (streq(k, "is_rank")) {
		c->is_rank = cJSON_IsTrue(v);
	} else if (streq(k, "rank_list")) {
		c->rank_list = v;
	} else if (streq(k, "experimental_config")) {
		if (!cJSON_IsObject(v) && !cJSON_IsNull(v)) {
			snprintf(why, why_len, "'experimental_config' must be an object");
			return -EINVAL;
		}
		c->exp = v;
	} else if (streq(k, "metadata")) {
		c->metadata = v;
	} else if (streq(k, "activities") || streq(k, "analyse") || streq(k, "async_mode") ||
		   streq(k, "is_valid")) {
		/* nothing to change: msprof collects and analyses what it can */
	} else {
		bool npu = false;
		for (size_t i = 0; i < ARRAY_SIZE(npu_only) && !npu; i++)
			npu = streq(k, npu_only[i].key);
		if (!npu)
			return 0;
		npu_only_warn(k, v);
	}
	c->seen = true;
	return 1;
}

/* "a,b,c" of a list of strings or integers into opt=...; "" when empty. */
static int list_word(char ***words, const char *opt, const cJSON *list, char *why, size_t why_len)
{
	char buf[1024];
	size_t at = (size_t)snprintf(buf, sizeof buf, "%s=", opt), start = at;
	const cJSON *it;
	int64_t n;
	if (cJSON_IsString(list) && list->valuestring[0]) {
		at += (size_t)snprintf(buf + at, sizeof buf - at, "%s", list->valuestring);
	} else if (cJSON_IsArray(list)) {
		/* until buf is full (at past its end: refused below) */
		cJSON_ArrayForEach(it, list) {
			if (at >= sizeof buf)
				break;
			const char *sep = at > start ? "," : "";
			if (cJSON_IsString(it))
				at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", sep, it->valuestring);
			else if (cJSON_IsNumber(it) && double_to_i64(it->valuedouble, &n))
				at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%lld", sep, (long long)n);
			else if (cJSON_IsNumber(it)) /* no integer: the option's check says so */
				at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%g", sep, it->valuedouble);
		}
	} else if (list && !cJSON_IsNull(list)) {
		snprintf(why, why_len, "'%s' must be a list", opt + 2);
		return -EINVAL;
	}
	if (at >= sizeof buf) {
		snprintf(why, why_len, "the list of %s is too long", opt);
		return -EINVAL;
	}
	if (at == start)
		return 0;
	return words_push(words, buf) < 0 ? -ENOMEM : 0;
}

/* The options c asks for, after the others on *words. */
static int npu_words(const struct npu_config *c, char ***words, char *why, size_t why_len)
{
	int r = 0;
	if (c->prof_dir) {
		char *o;
		if (asprintf(&o, "--output=%s", c->prof_dir) < 0)
			return -ENOMEM;
		r = words_push(words, o);
		free(o);
	}
	if (r == 0 && c->is_rank)
		r = list_word(words, "--ranks", c->rank_list, why, why_len);
	const cJSON *e = cJSON_IsObject(c->exp) ? c->exp : NULL, *it;
	if (r == 0 && e) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "export_type");
		bool text = !t, db = false;
		if (cJSON_IsString(t))
			text = !strcasecmp(t->valuestring, "text"), db = !strcasecmp(t->valuestring, "db");
		const cJSON *types = cJSON_IsArray(t) ? t : NULL;
		cJSON_ArrayForEach(it, types) {
			text = text || (cJSON_IsString(it) && !strcasecmp(it->valuestring, "text"));
			db = db || (cJSON_IsString(it) && !strcasecmp(it->valuestring, "db"));
		}
		/* text writes the database too */
		if (db && !text)
			r = words_push(words, "--type=db");
		if (r == 0 && (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "mstx")) ||
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "msprof_tx"))))
			r = words_push(words, "--msproftx=on");
		if (r == 0)
			r = list_word(words, "--mstx-domain-include",
				      cJSON_GetObjectItemCaseSensitive(e, "mstx_domain_include"), why, why_len);
		if (r == 0)
			r = list_word(words, "--mstx-domain-exclude",
				      cJSON_GetObjectItemCaseSensitive(e, "mstx_domain_exclude"), why, why_len);
		if (r == 0)
			r = list_word(words, "--host-sys", cJSON_GetObjectItemCaseSensitive(e, "host_sys"), why,
				      why_len);
		cJSON_ArrayForEach(it, e)
			if (it->string)
				npu_only_warn(it->string, it);
	}
	if (r == -ENOMEM)
		snprintf(why, why_len, "out of memory");
	return r;
}

/* Read the config into *w: 0, or -EINVAL with why (a sentence). */
/* The config's text (NUL-terminated) as what it wants, after the options
 * of MSPROF_OPTIONS (s->base) for process s->job: 0, or -EPERM (an option
 * self-enable cannot honour) or -EINVAL with why. */
static int config_parse(struct self *s, const char *text, struct want *w, char *why, size_t why_len)
{
	cJSON *j = cJSON_Parse(text);
	if (!cJSON_IsObject(j)) {
		snprintf(why, why_len, "it is not a JSON object (%s)", j ? "another JSON value" : "a syntax error");
		cJSON_Delete(j);
		return -EINVAL;
	}
	int r = -EINVAL;
	bool start = false, start_given = false, now = false, flight = false;
	double lo = -1, hi = -1, deadline = 0;
	char *schedule = NULL;     /* "--schedule=..." of key "schedule" */
	char **extra = NULL;
	struct npu_config npu = { .active = -1, .warmup = -1 };
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
			/* torch_npu's start_step -1: now */
			if (cJSON_IsNumber(it) && v == -1 && streq(k, "start_step")) {
				now = true;
				continue;
			}
			if (!cJSON_IsNumber(it) || v < 0 || v > 1e15 || v != (double)(int64_t)v) {
				snprintf(why, why_len, "'%s' must be a step number (an integer from 0)", k);
				goto out;
			}
			*(streq(k, "start_step") ? &lo : &hi) = v;
		} else if (streq(k, "schedule")) {
			/* ours: --schedule's windows, as a string of its form or an
			 * object of its keys ({"wait": 1, "active": 2}) */
			char spec[STEP_SCHEDULE_SPEC_MAX + 1];
			size_t at = 0;
			const cJSON *kv;
			struct step_schedule sc;
			if (cJSON_IsString(it)) {
				at = (size_t)snprintf(spec, sizeof spec, "%s", it->valuestring);
			} else if (cJSON_IsObject(it)) {
				/* stops at a bad value (at 0: refused below) or once
				 * spec is full (at past its end: refused below) */
				cJSON_ArrayForEach(kv, it) {
					if (!cJSON_IsNumber(kv) || kv->valuedouble < 0 || kv->valuedouble > 9e15) {
						at = 0;
						break;
					}
					if (at >= sizeof spec)
						break;
					at += (size_t)snprintf(spec + at, sizeof spec - at, "%s%s=%lld", at ? "," : "",
							       kv->string, (long long)kv->valuedouble);
				}
			}
			if (at == 0 || at >= sizeof spec || step_schedule_parse(spec, &sc) < 0) {
				snprintf(why, why_len, "'schedule' must be --schedule's form (\"wait=1,warmup=1,active=2\") "
					 "or an object of its keys (skip_first, wait, warmup, active, repeat, start_step, "
					 "deadline) with numbers from 0");
				goto out;
			}
			free(schedule);
			if (asprintf(&schedule, "--schedule=%s", spec) < 0) {
				schedule = NULL;
				snprintf(why, why_len, "out of memory");
				goto out;
			}
		} else if (streq(k, "deadline_s")) {
			/* ours: a step window still open this long after it opened
			 * closes, and one that has not opened this long after the
			 * file armed it is said */
			if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 1e9 ||
			    it->valuedouble != (double)(int64_t)it->valuedouble) {
				snprintf(why, why_len, "'deadline_s' must be a number of seconds (from 1)");
				goto out;
			}
			deadline = it->valuedouble;
		} else if (streq(k, "flight_recorder")) {
			/* ours: --flight-recorder's span and/or size ("60s",
			 * "512MB"): the job recorded into a ring from now, `dump`
			 * and --dump-on as the option gives them */
			struct flight_spec fs;
			char opt[FLIGHT_SPEC_MAX + 32];
			if (!cJSON_IsString(it) || flight_spec_parse(it->valuestring, &fs) < 0) {
				snprintf(why, why_len, "'flight_recorder' must be --flight-recorder's value: a span (60s, 10m, "
					 "2h) and/or a size (512MB, 2GB), comma-separated");
				goto out;
			}
			snprintf(opt, sizeof opt, "--flight-recorder=%s", it->valuestring);
			flight = true;
			if (words_push(&extra, opt) < 0) {
				snprintf(why, why_len, "out of memory");
				goto out;
			}
		} else if (streq(k, "options")) {
			const char *err = NULL;
			if (cJSON_IsString(it)) {
				/* after any word "flight_recorder" put there */
				char **words = app_split_words(it->valuestring, &err);
				if (!words) {
					snprintf(why, why_len, "'options' has %s", err ? err : "no room (out of memory)");
					goto out;
				}
				for (size_t i = 0; words[i]; i++)
					if (words_push(&extra, words[i]) < 0) {
						strv_free(words);
						snprintf(why, why_len, "out of memory");
						goto out;
					}
				strv_free(words);
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
			int t = npu_key(&npu, k, it, why, why_len);
			if (t < 0)
				goto out;
			if (t == 0) {
				snprintf(why, why_len, "unknown key '%.64s' (known: start, start_step, stop_step, schedule, "
						       "deadline_s, options, and the keys of torch_npu's profiler_config.json)", k);
				goto out;
			}
		}
	}
	/* torch_npu's window: start_step's warmup steps, then its active ones */
	double warmup = 0;
	if (lo >= 0 && hi < 0 && (npu.seen || npu.active >= 0 || npu.warmup >= 0)) {
		warmup = npu.warmup >= 0 ? npu.warmup : 0;
		hi = lo + warmup + (npu.active >= 0 ? npu.active : 1) - 1;
	}
	if (schedule && (lo >= 0 || hi >= 0 || now)) {
		snprintf(why, why_len, "'schedule' and 'start_step'/'stop_step' exclude each other");
		goto out;
	}
	if (now && (lo >= 0 || hi >= 0)) {
		snprintf(why, why_len, "'start_step' -1 (now) and a step window exclude each other");
		goto out;
	}
	if ((lo < 0) != (hi < 0)) {
		snprintf(why, why_len, "'start_step' and 'stop_step' go together");
		goto out;
	}
	if (lo > hi - warmup) {
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
	if (npu.seen && (r = npu_words(&npu, &w->words, why, why_len)) < 0) {
		want_release(w);
		r = -EINVAL;
		goto out;
	}
	r = -EINVAL;
	if (cJSON_IsObject(npu.metadata) && !(w->metadata = cJSON_PrintUnformatted(npu.metadata)))
		goto nomem;
	if (lo >= 0) {
		/* the window opens and closes at the steps, the agent counting
		 * them (--schedule by the steps' own numbers): until then nothing
		 * is collected, and every rank opens it at the same step */
		char sched[160];
		int at = snprintf(sched, sizeof(sched), "--schedule=start_step=%lld,warmup=%lld,active=%lld,repeat=1",
				  (long long)lo, (long long)warmup, (long long)(hi - lo - warmup + 1));
		if (deadline > 0)
			snprintf(sched + at, sizeof(sched) - (size_t)at, ",deadline=%lld", (long long)deadline);
		if (words_push(&w->words, sched) < 0)
			goto nomem;
		w->scheduled = true;
	}
	if (schedule) {
		if (words_push(&w->words, schedule) < 0)
			goto nomem;
		w->scheduled = true;
	}
	/* a step window, "now", or a recorder (which records from the attach
	 * on): on unless "start" says otherwise */
	w->on = lo >= 0 || now || schedule || flight ? !start_given || start : start;
	w->flight = flight;
	w->key = join(w->words);
	if (w->key && w->metadata) {
		char *k;
		if (asprintf(&k, "%s metadata=%s", w->key, w->metadata) < 0)
			k = NULL;
		free(w->key);
		w->key = k;
	}
	if (!w->key)
		goto nomem;
	/* the options as msprof takes them: a bad one is the file's fault */
	struct msprof_opts o;
	struct diag d = { 0 };
	opts_init(&o);
	r = check_words(s->job, w->words, "MSPROF_CONFIG's options", &o, &d);
	opts_release(&o);
	if (r < 0) {
		if (r == -EPERM)
			snprintf(why, why_len, "%s", d.error);
		else
			snprintf(why, why_len, "its options are not valid: %s", d.error);
		want_release(w);
		r = r == -EPERM ? -EPERM : -EINVAL;
	}
	goto out;
nomem:
	want_release(w);
	snprintf(why, why_len, "out of memory");
	r = -EINVAL;
out:
	free(schedule);
	strv_free(extra);
	cJSON_Delete(j);
	return r;
}

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
	return config_parse(s, text, w, why, why_len);
}

/* Bring the dynamic-mode msprof to what the config wants. */
static void config_apply(struct self *s, const struct want *w)
{
	if (w->on) {
		if (s->dyn > 0 && !streq(s->dyn_key, w->key)) {
			console_info("MSPROF_CONFIG: new options '%s': quit", w->key);
			dyn_send(s, "quit");
			(void)dyn_wait(s);
			s->open = false;
		}
		if (s->dyn <= 0 && dyn_spawn(s, w->words, w->key, w->metadata) < 0)
			return;
		/* off again: its msprof quits (as for a step window) */
		s->scheduled = w->scheduled || w->flight;
		if (w->flight) {
			console_info("MSPROF_CONFIG: the flight recorder records (%s)", w->key);
		} else if (w->scheduled) {
			console_info("MSPROF_CONFIG: the window opens at its steps (%s)", w->key);
		} else if (!s->open) {
			console_info("MSPROF_CONFIG: start");
			dyn_send(s, "start");
			s->open = true;
		}
	} else if (s->open) {
		console_info("MSPROF_CONFIG: stop");
		dyn_send(s, "stop");
		s->open = false;
	} else if (s->dyn > 0 && s->scheduled) {
		/* a step window no longer wanted: its msprof quits, which
		 * disarms the job's agent (or saves the window it had open) */
		console_info("MSPROF_CONFIG: stop (the step window or the flight recorder is called off)");
		dyn_send(s, "quit");
		(void)dyn_wait(s);
		s->scheduled = false;
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

/* The job has ended: dynamic mode sees that itself, saves its window and
 * exports; one that is still running SELF_END_GRACE_MS later is told to
 * quit, so that a self-enabled msprof ends with its job whatever else it
 * was told. */
#define SELF_END_GRACE_MS 10000

static int dyn_end_with_job(struct self *s)
{
	for (uint64_t until = mono_ns() + SELF_END_GRACE_MS * NSEC_PER_MSEC; s->dyn > 0 && mono_ns() < until;) {
		int status;
		if (waitpid(s->dyn, &status, WNOHANG) == s->dyn) {
			dyn_release(s);
			return exit_code(status);
		}
		(void)poll(NULL, 0, CONFIG_POLL_MS);
	}
	if (s->dyn > 0) {
		console_warn("process %d has ended and msprof for it has not %d s later: quit", (int)s->job,
			     SELF_END_GRACE_MS / 1000);
		dyn_send(s, "quit");
	}
	return dyn_wait(s);
}

/* --- the detached msprof -------------------------------------------------- */

static int supervise(struct self *s)
{
	int rc = 0;
	if (!s->config) {
		/* one window, from now to the job's exit (a flight recorder
		 * records from the attach, unasked) */
		if (dyn_spawn(s, s->base, "", NULL) < 0)
			return 1;
		bool flight = false;
		for (size_t i = 0; s->base && s->base[i]; i++)
			flight = flight || strncmp(s->base[i], "--flight-recorder=", 18) == 0;
		if (!flight)
			dyn_send(s, "start");
		s->open = true;
		int status;
		while (s->dyn > 0 && job_alive(s, CONFIG_POLL_MS))
			if (waitpid(s->dyn, &status, WNOHANG) == s->dyn) {
				/* it ended by itself (msprofd unreachable: it said why) */
				dyn_release(s);
				rc = exit_code(status);
			}
		if (s->dyn > 0)
			rc = dyn_end_with_job(s);
	} else {
		while (job_alive(s, CONFIG_POLL_MS)) {
			config_check(s);
			/* it ended by itself (msprofd unreachable: it said why) */
			if (s->dyn > 0 && waitpid(s->dyn, NULL, WNOHANG) == s->dyn)
				dyn_release(s);
		}
		rc = dyn_end_with_job(s);
	}
	console_info("The self-enabled profiling of process %d has ended.", (int)s->job);
	return rc;
}

int self_enable_check(pid_t job, const char *options, const char *config, char *why, size_t why_len)
{
	struct self s = { .job = job, .pidfd = -1, .dyn_in = -1 };
	const char *err = NULL;
	struct msprof_opts o;
	struct diag d = { 0 };
	opts_init(&o);
	s.base = app_split_words(options ? options : "", &err);
	int r = s.base ? check_words(job, s.base, "MSPROF_OPTIONS", &o, &d) : diag_error(&d, "MSPROF_OPTIONS has %s",
											 err ? err : "no room");
	opts_release(&o);
	snprintf(why, why_len, "%s", r < 0 ? d.error : "");
	if (r >= 0 && config) {
		struct want w = { 0 };
		r = config_parse(&s, config, &w, why, why_len);
		want_release(&w);
	}
	strv_free(s.base);
	return r;
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
	int r = s.base ? check_words(s.job, s.base, "MSPROF_OPTIONS", &o, &d)
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
	/* the job waits for a window only where one is coming */
	int answer = 0;
	if (s.config) {
		struct want w = { 0 };
		char why[1400];
		/* a step window: the job waits until its agent is armed */
		int c = config_read(&s, &w, why, sizeof(why));
		if (c < 0 || !w.on)
			answer = SELF_NO_WINDOW;
		want_release(&w);
		if (c == -EPERM) {
			/* an option self-enable can never honour: said where
			 * the job's owner sees it, not only in a log */
			console_error("MSPROF_CONFIG '%s': %s: process %d runs unprofiled", s.config, why, (int)s.job);
			strv_free(s.base);
			return 2;
		}
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
