/* The per-user runtime directory and the peer check.  The directory is the
 * first line of defence (0700, ours, not a symlink), SO_PEERCRED the second:
 * a root-made or loosened directory must still not let another user in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "common/util.h"

int ipc_runtime_dir_path(char **ret_path, const char **ret_why)
{
	const char *env = getenv("MSPROF_RUNTIME_DIR");
	char *p;

	if (env && *env) {
		/* The daemon chdirs to / when it detaches: a relative path would
		 * name another directory there. */
		if (env[0] != '/') {
			*ret_why = "MSPROF_RUNTIME_DIR is not an absolute path";
			return -EINVAL;
		}
		p = strdup(env);
	} else if ((env = getenv("XDG_RUNTIME_DIR")) && env[0] == '/') {
		if (asprintf(&p, "%s/msprof", env) < 0)
			p = NULL;
	} else {
		if (asprintf(&p, "/tmp/msprof-%u", (unsigned)geteuid()) < 0)
			p = NULL;
	}
	if (!p)
		return -ENOMEM;
	/* Trailing slashes would make lstat follow a symlink at the end. */
	for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	*ret_path = p;
	return 0;
}

int ipc_runtime_dir(char **ret_path, const char **ret_why)
{
	_cleanup_free_ char *path = NULL;
	const char *why = NULL;
	struct stat st;
	int r;

	r = ipc_runtime_dir_path(&path, &why);
	if (r < 0) {
		if (why)
			*ret_why = why;
		return r;
	}
	/* Only the last component is created, like tmux: a missing parent is
	 * the caller's mistake, not something to paper over. */
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		*ret_why = r == -ENOENT ? "its parent directory does not exist" : "it cannot be created";
		return r;
	}
	if (lstat(path, &st) < 0) {
		*ret_why = "it cannot be examined";
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		*ret_why = "it is a symbolic link";
		return -EPERM;
	}
	if (!S_ISDIR(st.st_mode)) {
		*ret_why = "it is not a directory";
		return -EPERM;
	}
	if (st.st_uid != geteuid()) {
		*ret_why = "it is not owned by the current user";
		return -EPERM;
	}
	if (st.st_mode & 077) {
		*ret_why = "it has group or other permissions (must be 0700)";
		return -EPERM;
	}
	*ret_path = TAKE_PTR(path);
	return 0;
}

int ipc_socket_path(const char *runtime_dir, char **ret_sock, char **ret_lock)
{
	_cleanup_free_ char *sock = NULL, *lock = NULL;

	if (asprintf(&sock, "%s/msprofd.sock", runtime_dir) < 0) {
		sock = NULL;
		return -ENOMEM;
	}
	if (strlen(sock) >= sizeof(((struct sockaddr_un *)NULL)->sun_path))
		return -ENAMETOOLONG;
	if (asprintf(&lock, "%s.lock", sock) < 0) {
		lock = NULL;
		return -ENOMEM;
	}
	*ret_sock = TAKE_PTR(sock);
	if (ret_lock)
		*ret_lock = TAKE_PTR(lock);
	return 0;
}

int ipc_peer_cred(int fd, pid_t *ret_pid, uid_t *ret_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (len != sizeof(cred))
		return -EIO;
	if (ret_pid)
		*ret_pid = cred.pid;
	if (ret_uid)
		*ret_uid = cred.uid;
	return 0;
}
