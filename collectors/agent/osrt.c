/* --host-sys=osrt: the OS runtime calls of osrt-api.h, interposed.  The
 * agent is LD_PRELOADed, so the program's calls (and its libraries') reach
 * these definitions first; each one calls the next definition
 * (dlsym(RTLD_NEXT)) and, while a window asks for osrt, records the call
 * when it took at least the threshold (g_osrt_threshold_ticks).
 *
 *   not recording: one relaxed load of g_osrt_on, then the real call
 *   recording:     two reads of the event clock (clock.h) around the real
 *                  call; a call over the threshold goes into the thread's queue
 *                  (agent_osrt: no lock, no syscall)
 *
 * errno and the return value are the real call's.  A thread never records
 * a call made inside another one of its recorded calls (tl_osrt_off: the
 * agent's own slow paths take locks and map memory, and a signal handler
 * interrupting a call is left out), nor when it is the agent thread or the
 * load and exit handlers (agent_osrt_self).
 *
 * Bootstrap: the pointers are looked up in a constructor that runs before
 * the agent's own, and lazily by any call that comes earlier (another
 * library's constructor).  glibc's dlsym reaches none of these symbols
 * through the PLT, so the lookup does not come back here.  The pthread_cond
 * calls are asked for by version: unversioned, dlsym may give the
 * pre-2.3.2 ABI, which a program using the current one must not get. */
/* the plain and the 64 symbols are both defined here: no header redirects */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "collectors/agent/agent.h"
#include "collectors/osrt-api.h"

/* g_osrt_on, g_osrt_threshold_ticks (set by window.c) and tl_osrt_off (set by
 * agent_osrt_self) live in core.c: the files below this one use them too. */

static void *osrt_sym(const char *name, const char *version)
{
	void *p = NULL;
#if defined(__x86_64__)
	if (version)
		p = dlvsym(RTLD_NEXT, name, version);
#else
	(void)version;
#endif
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	if (!p) {
		/* nothing sensible to call: the program cannot go on */
		static const char msg[] = "msprof agent: cannot find the next definition of an interposed call\n";
		(void)!write(2, msg, sizeof(msg) - 1);
		abort();
	}
	return p;
}

/* *slot, looked up at the first call: a race only looks it up twice */
static inline void *osrt_real(void *_Atomic *slot, const char *name, const char *version)
{
	void *p = atomic_load_explicit(slot, memory_order_relaxed);
	if (_likely_(p))
		return p;
	p = osrt_sym(name, version);
	atomic_store_explicit(slot, p, memory_order_relaxed);
	return p;
}

static inline uint64_t osrt_now(void)
{
	return agent_clock_now();
}

/* One interposed call: REAL_(name) is the next definition, CALL the call
 * made through it, saved in a variable of type rtype. */
#define REAL_(name) real_##name
#define DECLARE_(name) static void *_Atomic real_##name
#define RESOLVE_(name, version) osrt_real(&REAL_(name), #name, version)
/* memcpy: ISO C has no cast from void * to a function pointer (one mov) */
#define OSRT_BODY_(api, name, version, rtype, call)                                          \
	__typeof__(name) *real;                                                                \
	void *sym_ = RESOLVE_(name, version);                                                \
	memcpy(&real, &sym_, sizeof(real));                                                  \
	if (_likely_(!atomic_load_explicit(&g_osrt_on, memory_order_relaxed)) || tl_osrt_off) \
		return call;                                                                 \
	tl_osrt_off = 1;                                                                     \
	uint64_t t0 = osrt_now();                                                            \
	rtype r = call;                                                                      \
	uint64_t t1 = osrt_now();                                                            \
	if (t1 - t0 >= g_osrt_threshold_ticks) {                                              \
		int saved = errno;                                                           \
		agent_osrt(api, t0, t1);                                                     \
		errno = saved;                                                               \
	}                                                                                    \
	tl_osrt_off = 0;                                                                     \
	return r

#define WRAP_(api, name, version, rtype, params, call)                                       \
	DECLARE_(name);                                                                      \
	AGENT_EXPORT rtype name params                                                       \
	{                                                                                    \
		OSRT_BODY_(api, name, version, rtype, call);                                 \
	}

#if defined(__x86_64__)
#define COND_VERSION "GLIBC_2.3.2"
#else
#define COND_VERSION NULL
#endif

WRAP_(OSRT_pthread_mutex_lock, pthread_mutex_lock, NULL, int, (pthread_mutex_t *m), real(m))
WRAP_(OSRT_pthread_cond_wait, pthread_cond_wait, COND_VERSION, int, (pthread_cond_t *c, pthread_mutex_t *m),
      real(c, m))
WRAP_(OSRT_pthread_cond_timedwait, pthread_cond_timedwait, COND_VERSION, int,
      (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at), real(c, m, at))
WRAP_(OSRT_pthread_join, pthread_join, NULL, int, (pthread_t th, void **ret), real(th, ret))
WRAP_(OSRT_nanosleep, nanosleep, NULL, int, (const struct timespec *req, struct timespec *rem), real(req, rem))
WRAP_(OSRT_usleep, usleep, NULL, int, (useconds_t us), real(us))
WRAP_(OSRT_sleep, sleep, NULL, unsigned, (unsigned s), real(s))
WRAP_(OSRT_clock_nanosleep, clock_nanosleep, NULL, int,
      (clockid_t clk, int flags, const struct timespec *req, struct timespec *rem), real(clk, flags, req, rem))
WRAP_(OSRT_read, read, NULL, ssize_t, (int fd, void *buf, size_t n), real(fd, buf, n))
WRAP_(OSRT_write, write, NULL, ssize_t, (int fd, const void *buf, size_t n), real(fd, buf, n))
WRAP_(OSRT_pread, pread, NULL, ssize_t, (int fd, void *buf, size_t n, off_t off), real(fd, buf, n, off))
WRAP_(OSRT_pwrite, pwrite, NULL, ssize_t, (int fd, const void *buf, size_t n, off_t off), real(fd, buf, n, off))
WRAP_(OSRT_pread, pread64, NULL, ssize_t, (int fd, void *buf, size_t n, off64_t off), real(fd, buf, n, off))
WRAP_(OSRT_pwrite, pwrite64, NULL, ssize_t, (int fd, const void *buf, size_t n, off64_t off),
      real(fd, buf, n, off))
WRAP_(OSRT_readv, readv, NULL, ssize_t, (int fd, const struct iovec *iov, int n), real(fd, iov, n))
WRAP_(OSRT_writev, writev, NULL, ssize_t, (int fd, const struct iovec *iov, int n), real(fd, iov, n))
WRAP_(OSRT_send, send, NULL, ssize_t, (int fd, const void *buf, size_t n, int fl), real(fd, buf, n, fl))
WRAP_(OSRT_recv, recv, NULL, ssize_t, (int fd, void *buf, size_t n, int fl), real(fd, buf, n, fl))
WRAP_(OSRT_sendto, sendto, NULL, ssize_t,
      (int fd, const void *buf, size_t n, int fl, __CONST_SOCKADDR_ARG to, socklen_t tolen),
      real(fd, buf, n, fl, to, tolen))
WRAP_(OSRT_recvfrom, recvfrom, NULL, ssize_t,
      (int fd, void *restrict buf, size_t n, int fl, __SOCKADDR_ARG from, socklen_t *restrict fromlen),
      real(fd, buf, n, fl, from, fromlen))
WRAP_(OSRT_poll, poll, NULL, int, (struct pollfd *fds, nfds_t n, int ms), real(fds, n, ms))
WRAP_(OSRT_ppoll, ppoll, NULL, int, (struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *ss),
      real(fds, n, ts, ss))
WRAP_(OSRT_select, select, NULL, int, (int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv),
      real(n, rd, wr, ex, tv))
WRAP_(OSRT_epoll_wait, epoll_wait, NULL, int, (int fd, struct epoll_event *ev, int n, int ms), real(fd, ev, n, ms))
WRAP_(OSRT_fsync, fsync, NULL, int, (int fd), real(fd))
WRAP_(OSRT_fdatasync, fdatasync, NULL, int, (int fd), real(fd))
WRAP_(OSRT_mmap, mmap, NULL, void *, (void *a, size_t n, int prot, int fl, int fd, off_t off),
      real(a, n, prot, fl, fd, off))
WRAP_(OSRT_mmap, mmap64, NULL, void *, (void *a, size_t n, int prot, int fl, int fd, off64_t off),
      real(a, n, prot, fl, fd, off))
WRAP_(OSRT_munmap, munmap, NULL, int, (void *a, size_t n), real(a, n))
/* what threads of Python, PyTorch's data loaders and its stores block in */
WRAP_(OSRT_sem_wait, sem_wait, NULL, int, (sem_t *s), real(s))
WRAP_(OSRT_sem_timedwait, sem_timedwait, NULL, int, (sem_t *restrict s, const struct timespec *restrict at),
      real(s, at))
WRAP_(OSRT_sem_clockwait, sem_clockwait, NULL, int, (sem_t *restrict s, clockid_t clk, const struct timespec *restrict at),
      real(s, clk, at))
WRAP_(OSRT_pthread_cond_clockwait, pthread_cond_clockwait, NULL, int,
      (pthread_cond_t *restrict c, pthread_mutex_t *restrict m, clockid_t clk, const struct timespec *restrict at),
      real(c, m, clk, at))
WRAP_(OSRT_pthread_mutex_timedlock, pthread_mutex_timedlock, NULL, int,
      (pthread_mutex_t *restrict m, const struct timespec *restrict at), real(m, at))
WRAP_(OSRT_accept, accept, NULL, int, (int fd, __SOCKADDR_ARG addr, socklen_t *restrict len), real(fd, addr, len))
WRAP_(OSRT_accept4, accept4, NULL, int, (int fd, __SOCKADDR_ARG addr, socklen_t *restrict len, int fl),
      real(fd, addr, len, fl))
WRAP_(OSRT_connect, connect, NULL, int, (int fd, __CONST_SOCKADDR_ARG addr, socklen_t len), real(fd, addr, len))
WRAP_(OSRT_recvmsg, recvmsg, NULL, ssize_t, (int fd, struct msghdr *msg, int fl), real(fd, msg, fl))
WRAP_(OSRT_sendmsg, sendmsg, NULL, ssize_t, (int fd, const struct msghdr *msg, int fl), real(fd, msg, fl))
WRAP_(OSRT_epoll_pwait, epoll_pwait, NULL, int, (int fd, struct epoll_event *ev, int n, int ms, const sigset_t *ss),
      real(fd, ev, n, ms, ss))
WRAP_(OSRT_pselect, pselect, NULL, int,
      (int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts, const sigset_t *ss),
      real(n, rd, wr, ex, ts, ss))

/* _FORTIFY_SOURCE's checked forms, which a fortified program calls instead
 * of the plain ones (the buffer's size as the last argument): recorded as
 * the plain call. */
extern ssize_t __read_chk(int fd, void *buf, size_t n, size_t size);
extern ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t size);
extern ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t size);
extern ssize_t __recv_chk(int fd, void *buf, size_t n, size_t size, int fl);
extern ssize_t __recvfrom_chk(int fd, void *restrict buf, size_t n, size_t size, int fl, __SOCKADDR_ARG from,
			      socklen_t *restrict fromlen);
extern int __poll_chk(struct pollfd *fds, nfds_t n, int ms, size_t size);
extern int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *ss, size_t size);
WRAP_(OSRT_read, __read_chk, NULL, ssize_t, (int fd, void *buf, size_t n, size_t size), real(fd, buf, n, size))
WRAP_(OSRT_pread, __pread_chk, NULL, ssize_t, (int fd, void *buf, size_t n, off_t off, size_t size),
      real(fd, buf, n, off, size))
WRAP_(OSRT_pread, __pread64_chk, NULL, ssize_t, (int fd, void *buf, size_t n, off64_t off, size_t size),
      real(fd, buf, n, off, size))
WRAP_(OSRT_recv, __recv_chk, NULL, ssize_t, (int fd, void *buf, size_t n, size_t size, int fl),
      real(fd, buf, n, size, fl))
WRAP_(OSRT_recvfrom, __recvfrom_chk, NULL, ssize_t,
      (int fd, void *restrict buf, size_t n, size_t size, int fl, __SOCKADDR_ARG from, socklen_t *restrict fromlen),
      real(fd, buf, n, size, fl, from, fromlen))
WRAP_(OSRT_poll, __poll_chk, NULL, int, (struct pollfd *fds, nfds_t n, int ms, size_t size), real(fds, n, ms, size))
WRAP_(OSRT_ppoll, __ppoll_chk, NULL, int,
      (struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *ss, size_t size),
      real(fds, n, ts, ss, size))

/* open and openat take a mode only when they may create */
static inline mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define WRAP_OPEN_(api, name)                                                                \
	DECLARE_(name);                                                                      \
	AGENT_EXPORT int name(const char *path, int flags, ...)                             \
	{                                                                                    \
		va_list ap;                                                                  \
		va_start(ap, flags);                                                         \
		mode_t mode = open_mode(flags, ap);                                          \
		va_end(ap);                                                                  \
		OSRT_BODY_(api, name, NULL, int, real(path, flags, mode));                   \
	}
#define WRAP_OPENAT_(api, name)                                                              \
	DECLARE_(name);                                                                      \
	AGENT_EXPORT int name(int dirfd, const char *path, int flags, ...)                  \
	{                                                                                    \
		va_list ap;                                                                  \
		va_start(ap, flags);                                                         \
		mode_t mode = open_mode(flags, ap);                                          \
		va_end(ap);                                                                  \
		OSRT_BODY_(api, name, NULL, int, real(dirfd, path, flags, mode));            \
	}

WRAP_OPEN_(OSRT_open, open)
WRAP_OPEN_(OSRT_open, open64)
WRAP_OPENAT_(OSRT_openat, openat)
WRAP_OPENAT_(OSRT_openat, openat64)

/* Before the agent's constructor (default priority): everything it and the
 * program call later finds its pointer set. */
__attribute__((constructor(101))) static void osrt_load(void)
{
#define R_(name, version) (void)RESOLVE_(name, version)
	R_(pthread_mutex_lock, NULL); R_(pthread_cond_wait, COND_VERSION);
	R_(pthread_cond_timedwait, COND_VERSION); R_(pthread_join, NULL); R_(nanosleep, NULL);
	R_(usleep, NULL); R_(sleep, NULL); R_(clock_nanosleep, NULL); R_(read, NULL); R_(write, NULL);
	R_(pread, NULL); R_(pwrite, NULL); R_(pread64, NULL); R_(pwrite64, NULL); R_(readv, NULL);
	R_(writev, NULL); R_(send, NULL); R_(recv, NULL); R_(sendto, NULL); R_(recvfrom, NULL);
	R_(poll, NULL); R_(ppoll, NULL); R_(select, NULL); R_(epoll_wait, NULL); R_(fsync, NULL);
	R_(fdatasync, NULL); R_(mmap, NULL); R_(mmap64, NULL); R_(munmap, NULL); R_(open, NULL);
	R_(open64, NULL); R_(openat, NULL); R_(openat64, NULL); R_(sem_wait, NULL); R_(sem_timedwait, NULL);
	/* not sem_clockwait and pthread_cond_clockwait: glibc has them from
	 * 2.30 on, and a program that calls them has them (resolved then) */
	R_(pthread_mutex_timedlock, NULL);
	R_(accept, NULL); R_(accept4, NULL); R_(connect, NULL); R_(recvmsg, NULL); R_(sendmsg, NULL);
	R_(epoll_pwait, NULL); R_(pselect, NULL); R_(__read_chk, NULL); R_(__pread_chk, NULL);
	R_(__pread64_chk, NULL); R_(__recv_chk, NULL); R_(__recvfrom_chk, NULL); R_(__poll_chk, NULL);
	R_(__ppoll_chk, NULL);
#undef R_
}
