/* The OS runtime calls the agent interposes (--host-sys=osrt): one table,
 * indexed by the api id that RAW_AGENT_OSRT records carry, shared by the
 * agent (collectors/agent/osrt.c) and the exporter (export/domain-osrt.c).  Ids
 * are part of the raw format: append only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define OSRT_APIS(X)                                                         \
	X(0, pthread_mutex_lock) X(1, pthread_cond_wait)                     \
	X(2, pthread_cond_timedwait) X(3, pthread_join) X(4, nanosleep)      \
	X(5, usleep) X(6, sleep) X(7, clock_nanosleep) X(8, read)            \
	X(9, write) X(10, pread) X(11, pwrite) X(12, readv) X(13, writev)    \
	X(14, send) X(15, recv) X(16, sendto) X(17, recvfrom) X(18, poll)    \
	X(19, ppoll) X(20, select) X(21, epoll_wait) X(22, fsync)            \
	X(23, fdatasync) X(24, open) X(25, openat) X(26, mmap)               \
	X(27, munmap) X(28, sem_wait) X(29, sem_timedwait)                   \
	X(30, sem_clockwait) X(31, pthread_cond_clockwait)                   \
	X(32, pthread_mutex_timedlock) X(33, accept) X(34, accept4)          \
	X(35, connect) X(36, recvmsg) X(37, sendmsg) X(38, epoll_pwait)      \
	X(39, pselect)

enum osrt_api {
#define OSRT_ENUM_(id, name) OSRT_##name = id,
	OSRT_APIS(OSRT_ENUM_)
#undef OSRT_ENUM_
	OSRT_N_APIS
};

/* The call's name, or NULL for an id this build does not know. */
static inline const char *osrt_api_name(uint32_t id)
{
	static const char *const names[] = {
#define OSRT_NAME_(id, name) [id] = #name,
		OSRT_APIS(OSRT_NAME_)
#undef OSRT_NAME_
	};
	return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}
