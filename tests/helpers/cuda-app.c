/* test-cuda-app: stands in for a CUDA program under msprof where no GPU
 * is: it does what the CUDA driver does at cuInit with
 * CUDA_INJECTION64_PATH (load that library, call its InitializeInjection),
 * writes its pid to argv[1] when given, and lives argv[2] ms (default 300).
 * With the fake CUPTI (fake-cupti.c) the agent then records device tasks.
 * argv[3] "exit-thread": a second thread calls exit(0) instead, as soon as
 * the file argv[4] exists (at once without argv[4]), while the main thread
 * sleeps on.  CUDA_APP_DLOPEN: colon-separated libraries loaded first, as a
 * CUDA program has loaded its libcudart (and PyTorch its libcupti) by the
 * time it calls cuInit. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *exit_when;

static void *exiter(void *arg)
{
	(void)arg;
	struct timespec ts = { 0, 1000000L };
	while (exit_when && access(exit_when, F_OK) != 0)
		nanosleep(&ts, NULL);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	if (!path || !*path) {
		fprintf(stderr, "test-cuda-app: CUDA_INJECTION64_PATH is not set\n");
		return 2;
	}
	const char *pre = getenv("CUDA_APP_DLOPEN");
	while (pre && *pre) {
		char lib[4096];
		size_t n = strcspn(pre, ":");
		snprintf(lib, sizeof lib, "%.*s", (int)n, pre);
		if (n && !dlopen(lib, RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "test-cuda-app: cannot load '%s': %s\n", lib, dlerror());
			return 2;
		}
		pre += n + (pre[n] == ':');
	}
	void *h = dlopen(path, RTLD_NOW);
	int (*init)(void) = NULL;
	if (h)
		*(void **)&init = dlsym(h, "InitializeInjection");
	if (!init) {
		fprintf(stderr, "test-cuda-app: no InitializeInjection in '%s': %s\n", path, dlerror());
		return 2;
	}
	if (init() != 1)
		return 3;
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
			return 4;
	}
	long ms = argc > 2 ? atol(argv[2]) : 300;
	if (argc > 3 && strcmp(argv[3], "exit-thread") == 0) {
		pthread_t t;
		exit_when = argc > 4 ? argv[4] : NULL;
		if (pthread_create(&t, NULL, exiter, NULL) != 0)
			return 5;
	}
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	return 0;
}
