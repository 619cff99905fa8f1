/* Whether a process may be profiled by a user: the check msprof makes on
 * --host-sys-pid and --pid before it asks msprofd, and msprofd makes again
 * on every pid a peer names (it trusts no client). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* pid exists and has not exited (a zombie leader whose other threads still
 * run counts as running, as for the samplers), and its real, effective and
 * saved uids are uid's (uid 0 may profile any).  0, or a negative errno
 * with the reason in why: -ESRCH gone, -EIO owner unreadable, -EPERM
 * another user's. */
int proc_check_owner(uint64_t pid, uid_t uid, char *why, size_t why_len);
