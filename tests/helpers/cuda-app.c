/* test-cuda-app: stands in for a CUDA program under msprof where no GPU
 * is: it does what the CUDA driver does at cuInit with
 * CUDA_INJECTION64_PATH (load that library, call its InitializeInjection),
 * writes its pid to argv[1] when given, and lives argv[2] ms (default 300).
 * With the fake CUPTI (fake-cupti.c) the agent then records device tasks. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	if (!path || !*path) {
		fprintf(stderr, "test-cuda-app: CUDA_INJECTION64_PATH is not set\n");
		return 2;
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
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	return 0;
}
