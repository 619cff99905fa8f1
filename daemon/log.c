/* The daemon's log: stderr in the foreground, <runtime>/msprofd.log when
 * detached.  One write(2) per line on an O_APPEND fd, so lines never mix. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/msprofd.h"

static char *log_path;      /* NULL: stderr without timestamps */
static uint64_t log_bytes;  /* size of the current file */
static int echo_fd = -1;

/* Open (or reopen after rotation) the log on fd 2, so that anything a library
 * prints lands there too. */
static int log_reopen(void)
{
	struct stat st;
	int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) < 0) {
			int r = -errno;
			close(fd);
			return r;
		}
		close(fd);
	}
	log_bytes = (uint64_t)st.st_size;
	return 0;
}

int log_open(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	free(log_path);
	log_path = p;
	return log_reopen();
}

void log_echo(int fd)
{
	echo_fd = fd;
}

static void log_rotate(void)
{
	char old[4096];

	if (snprintf(old, sizeof(old), "%s.old", log_path) >= (int)sizeof(old))
		return;
	/* On failure keep writing to the open file rather than lose lines. */
	if (rename(log_path, old) == 0)
		(void)log_reopen();
}

void log_msg(const char *fmt, ...)
{
	char line[2048];
	size_t n = 0;
	va_list ap;

	if (log_path) {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		n = strftime(line, sizeof(line), "%Y-%m-%d %H:%M:%S", &tm);
		n += (size_t)snprintf(line + n, sizeof(line) - n, ".%03ld msprofd[%d]: ",
				      ts.tv_nsec / 1000000, (int)getpid());
	} else {
		n = (size_t)snprintf(line, sizeof(line), "msprofd: ");
	}
	char text[sizeof line];
	va_start(ap, fmt);
	int m = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	/* A peer's strings (an agent's message, a name) are in what is
	 * logged: control characters in them are escaped, so that no peer can
	 * start a line of its own in the log or drive a terminal. */
	n += str_escape_ctl(line + n, sizeof(line) - n - 1, text);
	line[n++] = '\n';

	if (log_path && log_bytes + n > LOG_MAX_BYTES)
		log_rotate();
	int e = errno;
	if (write(STDERR_FILENO, line, n) > 0)
		log_bytes += n;
	if (echo_fd >= 0) {
		/* The terminal sees lines without the timestamp prefix. */
		const char *msg = strstr(line, "]: ");
		if (log_path && msg) {
			(void)!write(echo_fd, "msprofd: ", 9);
			msg += 3;
			(void)!write(echo_fd, msg, n - (size_t)(msg - line));
		} else {
			(void)!write(echo_fd, line, n);
		}
	}
	errno = e;
}
