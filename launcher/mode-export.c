/* Export mode: msprof --export=on [--type=text|db] --output=<PROF dir|parent>.
 * Exports every PROF_* directory found (the one given, or those directly
 * under it) again from its raw data.  torch_npu runs exactly this and then
 * polls mindstudio_profiler_output/, so it must exit 0 on success. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "console.h"
#include "runners.h"
#include "session.h"
#include "util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The PROF dirs to export, sorted (names start with an index and a time). */
static int find_prof_dirs(const char *dir, char ***ret, size_t *ret_n)
{
	char *copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	bool self = is_prof_dir_name(basename(copy));
	free(copy);

	char **v = NULL;
	size_t n = 0;
	if (self) {
		v = calloc(1, sizeof(*v));
		if (!v || !(v[0] = strdup(dir))) {
			free(v);
			return -ENOMEM;
		}
		*ret = v;
		*ret_n = 1;
		return 0;
	}

	DIR *dp = opendir(dir);
	if (!dp)
		return -errno;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(dp))) {
		if (!is_prof_dir_name(de->d_name))
			continue;
		char *path;
		struct stat st;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		/* a symlink is not followed, as msprof refuses them */
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		char **nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(path);
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[n++] = path;
	}
	closedir(dp);
	if (r < 0) {
		while (n)
			free(v[--n]);
		free(v);
		return r;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	*ret_n = n;
	return 0;
}

int mode_export_run(const struct msprof_opts *o)
{
	struct diag d = { 0 };
	char *dir = NULL;
	char **dirs = NULL;
	size_t n = 0;
	int rc = 1;

	if (output_check_analysis(o, &dir, &d) < 0) {
		console_diag(&d);
		return 1;
	}
	/* msprof prints this for every mode, the analysis ones included */
	console_info("Start profiling....");
	int r = find_prof_dirs(dir, &dirs, &n);
	if (r < 0) {
		console_error("cannot read '%s': %s", dir, strerror(-r));
		goto out;
	}
	if (n == 0) {
		console_error("no PROF_* directory in '%s'", dir);
		goto out;
	}
	unsigned failed = 0;
	for (size_t i = 0; i < n; i++)
		if (export_one(dirs[i], o->type) < 0)
			failed++;
	if (failed == 0) {
		console_info("Profiling finished.");
		console_info("Process profiling data complete. Data is saved in %s", dir);
		rc = 0;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	free(dir);
	return rc;
}
