// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: iowq_stall [ROUNDS [TIMEOUT_S [SPIN_US]]]
 * A request punted to io-wq that no worker picks up.  Each round opens a
 * ring, submits one 4 KiB read of /dev/zero with IOSQE_ASYNC (so that it
 * goes to io-wq), waits for its completion for at most TIMEOUT_S seconds
 * (default 10) and closes the ring, so that the task has no ring between
 * two rounds.  Between two rounds it spins for 0 to SPIN_US microseconds
 * (default 200; a different delay each round), so that the next ring
 * meets the exiting worker at different points of its exit.  Prints one line per stalled round and a summary:
 *   iowq_stall: R rounds, S stalled
 * Exits 1 if a round stalled, 2 on an error.
 *
 * Build, from a kernel tree after make headers_install:
 *   gcc -O2 -iquote tools/include -I usr/include -o iowq_stall iowq_stall.c
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io_uring/mini_liburing.h"

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void spin_us(unsigned int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 +
	       (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* One round: 0 if the read completed, 1 if it stalled, -errno else. */
static int round_once(int fd, char *buf, unsigned int timeout)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		return ret < 0 ? ret : -ret;
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		io_uring_queue_exit(&ring);
		return -EBUSY;
	}
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = 4096;
	sqe->flags = IOSQE_ASYNC;
	ret = io_uring_submit(&ring);
	if (ret != 1) {
		io_uring_queue_exit(&ring);
		return ret < 0 ? ret : -EIO;
	}
	timed_out = 0;
	alarm(timeout);
	ret = io_uring_wait_cqe(&ring, &cqe);
	alarm(0);
	if (!ret && cqe->res != 4096)
		ret = cqe->res < 0 ? cqe->res : -EIO;
	else if (ret == -EINTR && timed_out)
		ret = 1;
	io_uring_queue_exit(&ring);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 200;
	unsigned int timeout = argc > 2 ? strtoul(argv[2], NULL, 0) : 10;
	unsigned int spin = argc > 3 ? strtoul(argv[3], NULL, 0) : 200;
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i, stalled = 0;
	static char buf[4096];
	int fd, ret;

	sigaction(SIGALRM, &sa, NULL);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("iowq_stall: /dev/zero");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		spin_us(i * 37 % (spin + 1));
		ret = round_once(fd, buf, timeout);
		if (ret < 0) {
			fprintf(stderr, "iowq_stall: round %u: %s\n", i,
				strerror(-ret));
			return 2;
		}
		if (ret) {
			printf("iowq_stall: round %u: no completion in %u s\n",
			       i, timeout);
			stalled++;
		}
	}
	printf("iowq_stall: %u rounds, %u stalled\n", rounds, stalled);
	return stalled ? 1 : 0;
}
