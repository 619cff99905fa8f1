/* The calls that end a process image without its exit handlers: the exec
 * family (the image is replaced) and _exit/_Exit.  The agent thread drains
 * the queues every AGENT_DRAIN_MS; what the program recorded since the last
 * drain would be lost with the image.  Each wrapper asks the agent thread to
 * write it now (agent_flush_now: bounded, async-signal-safe, errno kept)
 * and then calls the next definition with the same arguments: an exec that
 * fails returns its -1 and errno, and the process goes on recording.
 *
 * Both builds of the agent carry these wrappers: they cost nothing on any
 * annotation or libc call but these, which a process makes once.  They take
 * effect only where the agent is LD_PRELOADed (a dlopen'ed agent interposes
 * nothing).  execl, execlp and execle build the argument vector as glibc
 * does and go on through execv, execvp and execve.
 *
 * exit itself is wrapped in capture.c, for --dump-on's exit (in the
 * shared builds only: a unit test linking this folder's library must keep
 * libc's).
 *
 * The next definitions are looked up before any other constructor of ours
 * runs, so that a call from a signal handler or a forked child never enters
 * the dynamic loader; one made before (another library's constructor) looks
 * its own up. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"

/* glibc before 2.34 does not declare it */
int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags);

#define NEXT_(name) next_##name
#define DECLARE_NEXT_(name) static void *_Atomic next_##name
#define RESOLVE_NEXT_(name) resolve_next(&NEXT_(name), #name)

/* *slot, looked up once: a race only looks it up twice, to the same value */
static void *resolve_next(void *_Atomic *slot, const char *name)
{
	void *p = atomic_load_explicit(slot, memory_order_relaxed);
	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(slot, p, memory_order_relaxed);
	}
	return p;
}

DECLARE_NEXT_(execve);
DECLARE_NEXT_(execv);
DECLARE_NEXT_(execvp);
DECLARE_NEXT_(execvpe);
DECLARE_NEXT_(fexecve);
DECLARE_NEXT_(execveat);
DECLARE_NEXT_(_exit);
DECLARE_NEXT_(_Exit);

/* f: the next definition of name, or NULL (memcpy: ISO C has no cast
 * from void * to a function pointer) */
#define NEXT_FN_(f, name)                                                                    \
	__typeof__(name) *f;                                                                   \
	void *f##_sym = RESOLVE_NEXT_(name);                                                 \
	memcpy(&f, &f##_sym, sizeof(f))

/* The process image ends: what it recorded goes into its file, and what it
 * did not record (--msproftx off) is counted for the launcher. */
static void image_ends(void)
{
	agent_unrecorded_write();
	agent_flush_now();
}

static int no_next(void)
{
	errno = ENOSYS;
	return -1;
}

AGENT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	image_ends();
	NEXT_FN_(f, execve);
	return f ? f(path, argv, envp) : (int)syscall(SYS_execve, path, argv, envp);
}

AGENT_EXPORT int execv(const char *path, char *const argv[])
{
	image_ends();
	NEXT_FN_(f, execv);
	return f ? f(path, argv) : no_next();
}

AGENT_EXPORT int execvp(const char *file, char *const argv[])
{
	image_ends();
	NEXT_FN_(f, execvp);
	return f ? f(file, argv) : no_next();
}

AGENT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	image_ends();
	NEXT_FN_(f, execvpe);
	return f ? f(file, argv, envp) : no_next();
}

AGENT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	image_ends();
	NEXT_FN_(f, fexecve);
	return f ? f(fd, argv, envp) : no_next();
}

AGENT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	image_ends();
	NEXT_FN_(f, execveat);
	return f ? f(dirfd, path, argv, envp, flags)
		 : (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

/* execl, execlp, execle: arg0 ... NULL (then envp for execle), on the
 * stack like glibc's; E2BIG for a list longer than an argv can be. */
#define ARGV_FROM_LIST_(argv, arg0, last)                                                    \
	size_t n_ = 1;                                                                       \
	va_list ap_;                                                                         \
	va_start(ap_, arg0);                                                                 \
	while (va_arg(ap_, char *) != NULL && n_ < INT32_MAX)                                \
		n_++;                                                                        \
	va_end(ap_);                                                                         \
	if (n_ >= INT32_MAX) {                                                               \
		errno = E2BIG;                                                               \
		return -1;                                                                   \
	}                                                                                    \
	char *argv[n_ + 1];                                                                  \
	argv[0] = (char *)(arg0);                                                            \
	va_start(ap_, arg0);                                                                 \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                  \
		argv[i_] = va_arg(ap_, char *);                                              \
	last;                                                                                \
	va_end(ap_)

AGENT_EXPORT int execl(const char *path, const char *arg, ...)
{
	ARGV_FROM_LIST_(argv, arg, (void)0);
	return execv(path, argv);
}

AGENT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	ARGV_FROM_LIST_(argv, arg, (void)0);
	return execvp(file, argv);
}

AGENT_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	ARGV_FROM_LIST_(argv, arg, envp = va_arg(ap_, char *const *));
	return execve(path, argv, envp);
}

/* exit_group(2) is what _exit makes when nothing else is there to call */
static _Noreturn void end_now(int status)
{
	for (;;)
		(void)syscall(SYS_exit_group, status);
}

AGENT_EXPORT void _exit(int status)
{
	image_ends();
	NEXT_FN_(f, _exit);
	if (f)
		f(status);
	end_now(status);
}

AGENT_EXPORT void _Exit(int status)
{
	image_ends();
	NEXT_FN_(f, _Exit);
	if (f)
		f(status);
	end_now(status);
}

__attribute__((constructor(101))) static void exitflush_load(void)
{
	(void)RESOLVE_NEXT_(execve);
	(void)RESOLVE_NEXT_(execv);
	(void)RESOLVE_NEXT_(execvp);
	(void)RESOLVE_NEXT_(execvpe);
	(void)RESOLVE_NEXT_(fexecve);
	(void)RESOLVE_NEXT_(execveat);
	(void)RESOLVE_NEXT_(_exit);
	(void)RESOLVE_NEXT_(_Exit);
}
