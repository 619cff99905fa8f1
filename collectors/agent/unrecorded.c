/* Annotations a job makes while --msproftx is off.  msprof then preloads
 * the agent only to count them (MSPROF_AGENT_UNRECORDED_ONLY: no session,
 * no agent thread), or, with --host-sys=osrt or device data, alongside its
 * other work: every mark and range start of mstx or NVTX that is not
 * recorded for that reason adds one.  As the process ends (destructor,
 * exec, _exit) it writes its count into MSPROF_AGENT_UNRECORDED/<pid>, and
 * the launcher adds the files up into one line at the end of the run.
 *
 * The count is striped over cache lines by thread, so that threads
 * annotating at once do not contend on one word; a call costs a relaxed
 * add. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/agent/agent.h"

#define STRIPES 16

bool g_unrecorded_on;
static bool g_only;
static char g_dir[PATH_MAX];
static struct {
	_Alignas(64) _Atomic uint64_t n;
} g_count[STRIPES];
static _Atomic unsigned g_next_stripe;
static __thread unsigned tl_stripe __attribute__((tls_model("initial-exec")));

void agent_unrecorded_init(void)
{
	const char *dir = getenv("MSPROF_AGENT_UNRECORDED");
	const char *only = getenv("MSPROF_AGENT_UNRECORDED_ONLY");
	if (!dir || dir[0] != '/' || strlen(dir) >= sizeof g_dir - 32)
		return;
	memcpy(g_dir, dir, strlen(dir) + 1);
	g_only = only && strcmp(only, "1") == 0;
	g_unrecorded_on = true;
}

bool agent_unrecorded_only(void)
{
	return g_only;
}

void agent_unrecorded_add(void)
{
	unsigned s = tl_stripe;
	if (!s) /* 0: not yet given one (stripes are 1..STRIPES) */
		tl_stripe = s = atomic_fetch_add_explicit(&g_next_stripe, 1, memory_order_relaxed) % STRIPES + 1;
	atomic_fetch_add_explicit(&g_count[s - 1].n, 1, memory_order_relaxed);
}

void agent_unrecorded_forget(void)
{
	for (unsigned i = 0; i < STRIPES; i++)
		atomic_store_explicit(&g_count[i].n, 0, memory_order_relaxed);
}

void agent_unrecorded_write(void)
{
	if (!g_unrecorded_on)
		return;
	uint64_t n = 0;
	for (unsigned i = 0; i < STRIPES; i++)
		n += atomic_load_explicit(&g_count[i].n, memory_order_relaxed);
	if (!n)
		return;
	int saved = errno;
	char path[PATH_MAX], line[32];
	size_t at = agent_put_str(path, 0, sizeof path, g_dir);
	at = agent_put_str(path, at, sizeof path, "/");
	at = agent_put_u64(path, at, sizeof path, (uint64_t)syscall(SYS_getpid));
	path[at] = '\0';
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		size_t len = agent_put_u64(line, 0, sizeof line, n);
		line[len++] = '\n';
		(void)!write(fd, line, len);
		close(fd);
	}
	errno = saved;
}
