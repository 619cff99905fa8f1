/* test-sync-ranks SOCKET RANK ROUNDS: two ranks (processes) that meet
 * ROUNDS times in an all-reduce of one byte over a unix socket, each
 * under a torch_npu-style mstx range of the domain "communication", as a
 * collective of a real job is (tests/integration/cluster-clocks.sh).
 * Rank 0 listens on SOCKET, rank 1 connects.  Before each round each rank
 * works a different time (rank 0 3-5 ms, rank 1 4 ms), so the ranges start
 * apart and end together: each ends when both ranks' bytes have arrived.
 * Prints "rank R rounds N".
 *
 * test-sync-ranks SOCKET RANK ROUNDS HANG_ROUND HANG_MS: rank 1 waits
 * HANG_MS before its part of round HANG_ROUND, so that rank 0's collective
 * hangs that long (tests/integration/flight-recorder.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"
#include "common/util.h"
#include "tests/helpers/workload.h"

static int meet(const char *path, int rank)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof a.sun_path)
		return -1;
	strcpy(a.sun_path, path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (rank == 0) {
		unlink(path);
		if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0)
			return -1;
		int c = accept(s, NULL, NULL);
		close(s);
		return c;
	}
	for (int i = 0; i < 3000; i++) { /* rank 0 may start up to 30 s later */
		if (connect(s, (struct sockaddr *)&a, sizeof a) == 0)
			return s;
		sleep_ms(10);
	}
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t rank, rounds, hang_round = UINT64_MAX, hang_ms = 0;
	if ((argc != 4 && argc != 6) || parse_u64(argv[2], 0, 1, &rank) < 0 ||
	    parse_u64(argv[3], 1, 100000, &rounds) < 0 ||
	    (argc == 6 && (parse_u64(argv[4], 0, 100000, &hang_round) < 0 || parse_u64(argv[5], 0, 600000, &hang_ms) < 0))) {
		fprintf(stderr, "usage: test-sync-ranks SOCKET RANK(0|1) ROUNDS [HANG_ROUND HANG_MS]\n");
		return 2;
	}
	int fd = meet(argv[1], (int)rank);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	mstxDomainHandle_t comm = mstxDomainCreateA("communication");
	static const char msg[] = "{\"opName\": \"HcclAllreduce\", \"groupName\": \"world\", \"dataType\": \"int8\", "
				  "\"count\": \"1\", \"rankSize\": \"2\"}";
	for (uint64_t i = 0; i < rounds; i++) {
		sleep_ms(rank ? 4 : 3 + i % 3);
		if (rank == 1 && i == hang_round)
			sleep_ms((unsigned)hang_ms);
		mstxRangeId r = mstxDomainRangeStartA(comm, msg, NULL);
		char b = 1;
		if (write(fd, &b, 1) != 1 || read(fd, &b, 1) != 1) {
			perror("exchange");
			return 1;
		}
		mstxDomainRangeEnd(comm, r);
	}
	printf("rank %d rounds %llu\n", (int)rank, (unsigned long long)rounds);
	close(fd);
	if (rank == 0)
		unlink(argv[1]);
	return 0;
}
