/* A small stand-in for a training job, shipped so `msprof` has something
 * real to profile: each epoch computes (a matrix product on one core while a
 * forked "data loader" worker computes too), grows its memory, writes and
 * fsyncs a checkpoint, and exchanges batches with the worker over loopback
 * TCP.  Each epoch and its phases are annotated through the mstx API, which
 * records only when msprof injects its agent (--msproftx=on) and costs a
 * flag check otherwise.
 *   msprof-sample [--epochs N] [--dir D]   (defaults: 3 epochs, cwd) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"
#include "common/util.h"

#define N 256
#define BATCH (1 << 20)

static double a[N][N], b[N][N], c[N][N];

static double matmul(int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < N; i++)
			for (int k = 0; k < N; k++)
				for (int j = 0; j < N; j++)
					c[i][j] += a[i][k] * b[k][j] * 1e-9;
	return c[N / 2][N / 2];
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The worker: receives batches, burns some CPU on each, echoes a byte. */
static int worker(int fd)
{
	static char buf[BATCH];
	for (;;) {
		size_t got = 0;
		while (got < BATCH) {
			ssize_t n = read(fd, buf + got, BATCH - got);
			if (n <= 0)
				return 0;
			got += (size_t)n;
		}
		matmul(3);
		if (write(fd, "k", 1) != 1)
			return 1;
	}
}

int main(int argc, char **argv)
{
	uint64_t epochs = 3;
	const char *dir = ".";
	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--epochs") && i + 1 < argc && parse_u64(argv[i + 1], 1, 1000, &epochs) == 0)
			i++;
		else if (streq(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else {
			fprintf(stderr, "usage: msprof-sample [--epochs N] [--dir D]\n");
			return 2;
		}
	}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			a[i][j] = b[j][i] = (double)(i + j) / N;

	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof sa;
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) < 0) {
		perror("msprof-sample: listen");
		return 1;
	}
	pid_t child = fork();
	if (child == 0) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
			_exit(1);
		_exit(worker(fd));
	}
	int fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("msprof-sample: accept");
		return 1;
	}

	static char batch[BATCH];
	char **keep = calloc(epochs, sizeof *keep);
	char path[4096];
	snprintf(path, sizeof path, "%s/msprof-sample-ckpt.%d", dir, (int)getpid());
	mstxDomainHandle_t io = mstxDomainCreateA("io");
	for (uint64_t e = 0; e < epochs; e++) {
		uint64_t t0 = mono_ns();
		char name[32];
		snprintf(name, sizeof name, "epoch %llu", (unsigned long long)e + 1);
		mstxRangeId epoch = mstxRangeStartA(name, NULL);
		mstxRangeId phase = mstxRangeStartA("compute", NULL);
		double v = matmul(12);
		mstxRangeEnd(phase);
		/* memory: each epoch keeps 32 MiB more, touched */
		keep[e] = malloc(32u << 20);
		if (keep[e])
			memset(keep[e], (int)e + 1, 32u << 20);
		/* network: 16 batches to the worker and back */
		phase = mstxDomainRangeStartA(io, "exchange batches", NULL);
		for (int i = 0; i < 16; i++) {
			char ack;
			batch[0] = (char)i;
			if (write_all(fd, batch, BATCH) < 0 || read(fd, &ack, 1) != 1) {
				perror("msprof-sample: batch");
				return 1;
			}
		}
		mstxDomainRangeEnd(io, phase);
		/* disk: a 16 MiB checkpoint, fsynced */
		phase = mstxDomainRangeStartA(io, "checkpoint", NULL);
		int ck = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (ck < 0 || write_all(ck, batch, BATCH) < 0) {
			perror(path);
			return 1;
		}
		for (int i = 1; i < 16; i++)
			if (write_all(ck, batch, BATCH) < 0)
				return 1;
		fsync(ck);
		close(ck);
		mstxDomainRangeEnd(io, phase);
		mstxRangeEnd(epoch);
		mstxMarkA("epoch done", NULL);
		printf("epoch %llu: loss %.4f, %.0f ms\n", (unsigned long long)e + 1, 1.0 / (1.0 + v + (double)e),
		       (double)(mono_ns() - t0) / 1e6);
		fflush(stdout);
	}
	unlink(path);
	close(fd);
	int st;
	waitpid(child, &st, 0);
	for (uint64_t e = 0; e < epochs; e++)
		free(keep[e]);
	free(keep);
	return 0;
}
