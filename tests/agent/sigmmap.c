/* A preloaded shim before the agent: the first mmap with MAP_POPULATE (the
 * agent taking a thread's first block) raises SIGUSR1 from inside it, so
 * that a signal handler annotates while the thread is setting up its
 * queue.  Everything else goes to the C library's mmap. */
#undef _FILE_OFFSET_BITS /* mmap and mmap64 stay two symbols, both defined here */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/types.h>

static atomic_int fired;

static void *real_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "mmap64");
	return real(a, n, prot, flags, fd, off);
}

static void maybe_fire(int flags)
{
	if ((flags & MAP_POPULATE) && !atomic_exchange(&fired, 1))
		raise(SIGUSR1);
}

__attribute__((visibility("default"))) void *mmap64(void *a, size_t n, int prot, int flags, int fd, off64_t off)
{
	maybe_fire(flags);
	return real_mmap(a, n, prot, flags, fd, off);
}

__attribute__((visibility("default"))) void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	maybe_fire(flags);
	return real_mmap(a, n, prot, flags, fd, off);
}
