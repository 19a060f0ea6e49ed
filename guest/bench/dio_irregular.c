// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: dio_irregular DEVICE TOTAL_MIB [write]
 * make bench: O_DIRECT reads (or writes) of 64 MiB each, TOTAL_MIB in all,
 * at consecutive offsets of DEVICE, from a buffer whose physical layout
 * is that of the block kselftest dio_align: runs of 1 to 40 physically
 * contiguous pages, consecutive runs never adjacent (blk_buf_runs() of
 * the selftests' blk_lib.c, fixed seed). Needs root (PFNs in
 * /proc/self/pagemap). Prints
 *   DIO secs=S bytes=N cpu=C layout="..."
 * secs: the I/O alone (CLOCK_MONOTONIC), cpu: user + system seconds of
 * this process over the I/O. The caller sets max_sectors_kb and traces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <linux/fs.h>

#include "blk_lib.h"

#define BUF_LEN		(64 * BLK_MiB)
#define RUNS_SEED	0x5eed40ULL

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_sec(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long long total, done = 0, size, off = 0;
	double t0, t1, c0, c1;
	struct blk_layout l;
	struct blk_buf b;
	char msg[256];
	int fd, wr;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE TOTAL_MIB [write]\n", argv[0]);
		return 2;
	}
	total = strtoull(argv[2], NULL, 0) * BLK_MiB;
	wr = argc > 3 && !strcmp(argv[3], "write");
	fd = open(argv[1], (wr ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size)) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (blk_buf_runs(&b, BUF_LEN / BLK_PAGE, 1, 40, RUNS_SEED, msg,
			 sizeof(msg)) ||
	    blk_layout_scan(b.addr, BUF_LEN / BLK_PAGE, &l)) {
		fprintf(stderr, "buffer layout: %s\n", msg);
		return 1;
	}
	snprintf(msg, sizeof(msg),
		 "%lu pages in %lu physically contiguous runs of %lu..%lu pages, %lu bios at 256 bvecs per bio",
		 l.pages, l.runs, l.run_min, l.run_max, l.bios);
	t0 = now_sec();
	c0 = cpu_sec();
	while (done < total) {
		ssize_t n = wr ? pwrite(fd, b.addr, BUF_LEN, off) :
				 pread(fd, b.addr, BUF_LEN, off);

		if (n != (ssize_t)BUF_LEN) {
			fprintf(stderr, "%s at %llu: %s\n", wr ? "pwrite" : "pread",
				off, n < 0 ? strerror(errno) : "short");
			return 1;
		}
		done += BUF_LEN;
		off = (off + BUF_LEN) % (size - size % BUF_LEN);
	}
	t1 = now_sec();
	c1 = cpu_sec();
	printf("DIO secs=%.4f bytes=%llu cpu=%.3f layout=\"%s\"\n", t1 - t0,
	       done, c1 - c0, msg);
	blk_buf_free(&b);
	return 0;
}
