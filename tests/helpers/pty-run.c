/* pty-run: run a command on a fresh pseudo-terminal, as a user at a
 * terminal would, so that tests drive interactive programs (the (msprof)
 * prompt) through a real tty and not only through a pipe.
 *
 *   pty-run [-t SECONDS] -- COMMAND [ARG]...
 *
 * The command gets the terminal's slave side as its controlling terminal
 * and as stdin, stdout and stderr, in a session of its own, with SIGINT and
 * SIGQUIT at their defaults (so a typed ^C works as at a terminal).  What pty-run
 * reads on its stdin is typed into the terminal; when that ends, an EOF
 * character (^D) is typed, which a reader in canonical mode sees as end of
 * input at the start of a line.  What the command writes (and the
 * terminal's echo of the typing) is copied to pty-run's stdout.
 *
 * Exit status: the command's (128+N when killed by signal N); 124 when it
 * ran longer than -t SECONDS (default 120) and was killed; 2 on a usage or
 * setup error. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/util.h"

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: pty-run [-t SECONDS] -- COMMAND [ARG]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t limit_s = 120;
	int opt;
	while ((opt = getopt(argc, argv, "+t:")) != -1) {
		if (opt != 't' || parse_u64(optarg, 1, 86400, &limit_s) < 0)
			return usage();
	}
	if (optind >= argc)
		return usage();

	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		perror("pty-run: cannot open a pseudo-terminal");
		return 2;
	}
	const char *slave_name = ptsname(master);
	if (!slave_name) {
		perror("pty-run: ptsname");
		return 2;
	}
	char slave_path[256];
	snprintf(slave_path, sizeof(slave_path), "%s", slave_name);

	/* The child holds the slave open before the loop below starts: until
	 * then the master reads as hung up (EIO), which the loop takes for the
	 * command's end.  The pipe's write end closes on exec. */
	int sync_pipe[2];
	if (pipe2(sync_pipe, O_CLOEXEC) < 0) {
		perror("pty-run: pipe");
		return 2;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("pty-run: fork");
		return 2;
	}
	if (pid == 0) {
		/* a session of its own, with the slave as controlling terminal */
		if (setsid() < 0)
			_exit(127);
		int slave = open(slave_path, O_RDWR);
		if (slave < 0)
			_exit(127);
		(void)ioctl(slave, TIOCSCTTY, 0);
		struct winsize ws = { .ws_row = 24, .ws_col = 80 };
		(void)ioctl(slave, TIOCSWINSZ, &ws);
		if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
			_exit(127);
		if (slave > 2)
			close(slave);
		close(sync_pipe[0]);
		/* as at a terminal: a shell running pty-run in the background
		 * may have left SIGINT and SIGQUIT ignored */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pty-run: cannot execute '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}

	close(sync_pipe[1]);
	for (char c; read(sync_pipe[0], &c, 1) != 0; )
		if (errno != EINTR)
			break;
	close(sync_pipe[0]);

	/* The typed EOF character, as the slave's termios has it. */
	char veof = 4;
	bool in_open = true, typed_eof = false;
	uint64_t deadline = mono_ns() + limit_s * NSEC_PER_SEC;
	int status = 0;
	bool timed_out = false;

	for (;;) {
		uint64_t now = mono_ns();
		if (now >= deadline) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		struct pollfd p[2] = {
			{ .fd = in_open ? STDIN_FILENO : -1, .events = POLLIN },
			{ .fd = master, .events = POLLIN },
		};
		int timeout = (int)((deadline - now) / NSEC_PER_MSEC) + 1;
		if (poll(p, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			perror("pty-run: poll");
			break;
		}
		if (p[1].revents) {
			char buf[4096];
			ssize_t n = read(master, buf, sizeof(buf));
			if (n > 0) {
				if (write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
					break;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			/* EIO: every slave descriptor is closed, the command is done */
			break;
		}
		if (p[0].revents) {
			char buf[512];
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0) {
				if (write_all(master, buf, (size_t)n) < 0)
					break;
			} else {
				in_open = false;
				struct termios tio;
				int slave = open(slave_path, O_RDWR | O_NOCTTY);
				if (slave >= 0) {
					if (tcgetattr(slave, &tio) == 0 && tio.c_cc[VEOF])
						veof = (char)tio.c_cc[VEOF];
					close(slave);
				}
			}
		}
		if (!in_open && !typed_eof) {
			typed_eof = true;
			(void)write_all(master, &veof, 1);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(master);
	if (timed_out) {
		fprintf(stderr, "pty-run: '%s' ran longer than %llu s, killed\n", argv[optind],
			(unsigned long long)limit_s);
		return 124;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 2;
}
