/* The pieces of a collection that are plain files and strings: which program
 * to run with which argv and environment, and where the PROF dirs go.  No
 * daemon and no collectors here, so tests exercise them directly. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

struct app_cmd {
	char *path;       /* what is executed: absolute, or found on PATH */
	char *name;       /* its base name (info.json pid_name, sample.json app) */
	char *dir;        /* its canonical directory (sample.json app_dir) */
	char **argv;      /* NULL-terminated; argv[0] as the user wrote it */
	char **words;     /* the split --application string, owned */
};

/* Resolve and check the application of o (new style, or --application which
 * wins): exists (bare names through PATH), executable, not a directory.
 * Messages are msprof's PreCheckApp ones. */
int app_resolve(const struct msprof_opts *o, struct app_cmd *ret, struct diag *d);
void app_cmd_release(struct app_cmd *a);

/* The application's environment: base plus the "K=V;K2=V2" pairs of spec
 * (which replace variables of the same name).  Items without '=' are skipped
 * with a warning.  *ret is a malloc'd NULL-terminated vector (strv_free). */
int app_env_build(char *const *base, const char *spec, char ***ret, struct diag *d);
void strv_free(char **v);
const char *strv_env_get(char *const *env, const char *key);

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
