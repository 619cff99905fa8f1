/* Send MB megabytes over a loopback TCP connection between two threads and
 * print how many bytes crossed, then stay alive HOLD_MS so a sampler sees
 * the last of it.   test-netloop MB [HOLD_MS]   prints "bytes=<n>" */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

static uint64_t total;

static void *sink(void *arg)
{
	int fd = *(int *)arg;
	static char buf[1 << 16];
	uint64_t got = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		got += (uint64_t)n;
	total = got;
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t mb, hold = 0;
	if (argc < 2 || parse_u64(argv[1], 1, 65536, &mb) < 0 || (argc > 2 && parse_u64(argv[2], 0, 3600000, &hold) < 0)) {
		fprintf(stderr, "usage: test-netloop MB [HOLD_MS]\n");
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0) {
		perror("listen");
		return 1;
	}
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("connect");
		return 1;
	}
	int s = accept(ls, NULL, NULL);
	pthread_t t;
	pthread_create(&t, NULL, sink, &s);
	static char buf[1 << 16];
	for (uint64_t sent = 0; sent < mb << 20;) {
		ssize_t n = write(c, buf, sizeof buf);
		if (n <= 0) {
			perror("write");
			return 1;
		}
		sent += (uint64_t)n;
	}
	close(c);
	pthread_join(t, NULL);
	close(s);
	close(ls);
	printf("bytes=%llu\n", (unsigned long long)total);
	fflush(stdout);
	struct timespec ts = { .tv_sec = (time_t)(hold / 1000), .tv_nsec = (long)(hold % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	return fflush(stdout) == 0 ? 0 : 1;
}
