// SPDX-License-Identifier: GPL-2.0
/*
 * Direct I/O bios that blk-mq splits end on a split point.
 *
 * An O_DIRECT read or write of 8 MiB (4 bios if more) into single pages
 * is built into bios of BIO_MAX_VECS pages (1 MiB with 4 KiB pages).
 * Where the request size limit max_sectors_kb does not divide that,
 * blk-mq splits each bio into full requests and a short one; a bio that
 * ends on a split point instead leaves one short request for the whole
 * transfer:
 *
 *   proof: at 60 and 96 KiB (512-byte blocks) and 60 and 508 KiB (4 KiB
 *   blocks) the transfer takes DIV_ROUND_UP(8 MiB, limit) requests,
 *   137, 86, 137 and 17; unpatched kernels take 18, 11, 18 and 3
 *   requests per bio, 144, 88, 144 and 24.
 *
 *   512_60k_vec: the same transfer as a preadv() or pwritev() of
 *   segments of 16 pages each, which builds the same bios: 137 requests
 *   (144 unpatched).
 *
 *   Every case also checks that no request is over the limit: a count
 *   alone cannot tell one request too big from the short one it saves.
 *
 *   guard: where the limit divides the bio (64 and 128 KiB) or the bio
 *   fits one request (the device's default limit), no bio is shortened:
 *   every bio but the last is as large as the largest, so the bios, and
 *   the requests, are those of an unpatched kernel.
 *
 * Needs root and the block trace events (a trace instance of its own).
 * Each case makes a null_blk of its own (not memory-backed) and removes
 * it, or runs on the disk named in BLK_TEST_DEV (and in BLK_TEST_DESTROY:
 * its data is lost) if it has the case's logical block size and takes
 * its max_sectors_kb, which the teardown puts back. Only the test's own
 * bios are counted; if another task's I/O reaches the disk while a case
 * counts requests, the case runs again, then skips. The proof cases
 * check an improvement that a correct kernel without it lacks: they skip
 * on a kernel before the release that has it (blk_proof_skip()) unless
 * BLK_PROOFS=1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "../kselftest_harness.h"
#include "blk_util.h"

/*
 * Bytes of the transfer: 8 MiB, or 4 bios where pages are bigger than
 * 4 KiB. Enough to tell the counts apart; little enough for a debug
 * kernel under emulation.
 */
static long io_len(void)
{
	long bio = BLK_BIO_PAGES * sysconf(_SC_PAGESIZE);

	return bio * 4 > 8 * BLK_MiB ? bio * 4 : 8 * BLK_MiB;
}

FIXTURE(dio_split) {
	struct blk_dev d;
	char *buf;
};

FIXTURE_VARIANT(dio_split) {
	unsigned int lbs;
	unsigned int max_kb;	/* 0: the device's default */
	unsigned int seg_pages;	/* pages a segment of an iovec, 0: one buffer */
};

FIXTURE_VARIANT_ADD(dio_split, 512_60k) { .lbs = 512, .max_kb = 60 };
FIXTURE_VARIANT_ADD(dio_split, 512_96k) { .lbs = 512, .max_kb = 96 };
FIXTURE_VARIANT_ADD(dio_split, 4096_60k) { .lbs = 4096, .max_kb = 60 };
FIXTURE_VARIANT_ADD(dio_split, 4096_508k) { .lbs = 4096, .max_kb = 508 };
FIXTURE_VARIANT_ADD(dio_split, 512_60k_vec) { .lbs = 512, .max_kb = 60, .seg_pages = 16 };
FIXTURE_VARIANT_ADD(dio_split, 512_64k) { .lbs = 512, .max_kb = 64 };
FIXTURE_VARIANT_ADD(dio_split, 4096_128k) { .lbs = 4096, .max_kb = 128 };
FIXTURE_VARIANT_ADD(dio_split, 512_default) { .lbs = 512, .max_kb = 0 };

/*
 * Why the device cannot give the counts the cases expect at @max_kb
 * (0: its default), or NULL: a named disk may split for more than
 * max_sectors_kb, or not through blk-mq at all.
 */
static const char *other_limits(const struct blk_dev *d, unsigned int max_kb,
				char *why, size_t len)
{
	long long segs = blk_queue_get(d, "max_segments");
	long page = sysconf(_SC_PAGESIZE);
	char path[128], zoned[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/mq", d->disk);
	if (access(path, F_OK))
		return "not a blk-mq disk: no requests to count";
	snprintf(path, sizeof(path), "/sys/block/%s/queue/zoned", d->disk);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(zoned, sizeof(zoned), f))
			zoned[0] = '\0';
		fclose(f);
	}
	if (zoned[0] && strncmp(zoned, "none", 4)) {
		snprintf(why, len, "%s is zoned: writes must be sequential",
			 d->disk);
		return why;
	}
	if (blk_queue_get(d, "chunk_sectors") > 0) {
		snprintf(why, len, "%s has chunk_sectors %lld: it splits there too",
			 d->disk, blk_queue_get(d, "chunk_sectors"));
		return why;
	}
	if (max_kb && segs > 0 && segs < max_kb * 1024L / page) {
		snprintf(why, len, "%s: max_segments %lld, below the %ld pages of %u KiB",
			 d->disk, segs, max_kb * 1024L / page, max_kb);
		return why;
	}
	return NULL;
}

FIXTURE_SETUP(dio_split)
{
	const struct blk_want w = {
		.what = "dio_split", .lbs = variant->lbs,
		.size_mb = io_len() / BLK_MiB,
		.max_hw_kb = 4096, .trace = true, .open_flags = O_RDWR | O_DIRECT,
	};
	size_t page = sysconf(_SC_PAGESIZE);
	const char *why;
	char msg[256];
	int ret;

	self->d.fd = -1;
	/* The buffer is built from a pool twice its size: 3 x io_len(). */
	if (geteuid())
		SKIP(return, "must be run as root");
	if (blk_meminfo("MemAvailable") < 3 * io_len())
		SKIP(return, "MemAvailable below %lld MiB",
		     3 * io_len() / BLK_MiB);
	self->buf = blk_single_pages(io_len() / page);
	if (!self->buf && errno == EOPNOTSUPP)
		SKIP(return, "no single pages: MADV_NOHUGEPAGE refused or ignored");
	ASSERT_NE(NULL, self->buf) TH_LOG("buffer: %s", strerror(errno));
	ret = blk_dev_get(&self->d, &w, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	why = other_limits(&self->d, variant->max_kb, msg, sizeof(msg));
	if (why) {
		blk_dev_put(&self->d);
		SKIP(return, "%s", why);
	}
	if (!variant->max_kb)
		return;
	ret = blk_queue_set(&self->d, "max_sectors_kb", variant->max_kb);
	if (ret) {
		snprintf(msg, sizeof(msg), "%s max_sectors_kb %u (max_hw_sectors_kb %lld): %s",
			 self->d.disk, variant->max_kb,
			 blk_queue_get(&self->d, "max_hw_sectors_kb"),
			 strerror(-ret));
		blk_dev_put(&self->d);
		/* A named disk may not go that high. */
		if (ret == -EINVAL || ret == -EOPNOTSUPP)
			SKIP(return, "%s", msg);
		ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	}
}

FIXTURE_TEARDOWN(dio_split)
{
	blk_dev_put(&self->d);
}

/*
 * The transfer of @buf at the start of the disk: one pread() or pwrite(),
 * or with @seg_pages, a preadv() or pwritev() of segments of that many
 * pages.
 */
static ssize_t rw(int fd, char *buf, size_t len, bool write,
		  unsigned int seg_pages)
{
	size_t seg = seg_pages * sysconf(_SC_PAGESIZE), i;
	struct iovec *iov;
	ssize_t n;

	if (!seg_pages)
		return write ? pwrite(fd, buf, len, 0) : pread(fd, buf, len, 0);
	iov = calloc(len / seg, sizeof(*iov));
	if (!iov)
		return -1;
	for (i = 0; i < len / seg; i++) {
		iov[i].iov_base = buf + i * seg;
		iov[i].iov_len = seg;
	}
	n = write ? pwritev(fd, iov, len / seg, 0) :
		    preadv(fd, iov, len / seg, 0);
	free(iov);
	return n;
}

/*
 * The transfer, counted: 0, or 1 if another task did I/O on the disk
 * meanwhile (its requests would be counted too).
 */
static int transfer(struct __test_metadata *_metadata, struct blk_dev *d,
		    char *buf, bool write, unsigned int seg_pages,
		    struct blk_counts *c)
{
	long bio = BLK_BIO_PAGES * sysconf(_SC_PAGESIZE);
	ssize_t len = io_len();
	ssize_t n;

	ASSERT_EQ(0, blk_trace_start(d));
	n = rw(d->fd, buf, len, write, seg_pages);
	ASSERT_EQ(len, n) TH_LOG("%s%s: %s", write ? "pwrite" : "pread",
				 seg_pages ? "v" : "",
				 n < 0 ? strerror(errno) : "short");
	ASSERT_EQ(0, blk_trace_stop(d, bio >> 9, c));
	return c->others ? 1 : 0;
}

static void check(struct __test_metadata *_metadata, struct blk_dev *d,
		  char *buf, bool write, unsigned int seg_pages)
{
	long page = sysconf(_SC_PAGESIZE), len = io_len();
	long bio = BLK_BIO_PAGES * page, max, ideal, largest;
	const char *why = NULL;
	struct blk_counts c;
	bool proof;
	int try;

	max = blk_queue_get(d, "max_sectors_kb") << 10;
	ASSERT_LT(0, max);
	proof = bio > max && bio % max;
	if (proof)
		why = blk_proof_skip();
	if (why)
		SKIP(return, "%s", why);
	/* udev or a reader of a named disk: once more, then give up. */
	for (try = 0; try < 2; try++)
		if (!transfer(_metadata, d, buf, write, seg_pages, &c))
			break;
	if (try == 2)
		SKIP(return, "other tasks did I/O on %s (%ld bios): their requests would count",
		     d->disk, c.others);

	ksft_print_msg("%s%s of %ld MiB in single pages on %s, max_sectors_kb %ld:\n",
		       write ? "pwrite" : "pread", seg_pages ? "v" : "",
		       len / (long)BLK_MiB, d->disk, max >> 10);
	ksft_print_msg("%ld bios (%ld short, largest %ld KiB), %ld requests (largest %ld KiB)\n",
		       c.bios, c.short_bios, c.max_bio >> 1, c.rqs,
		       c.max_rq >> 1);
	ASSERT_LT(1, c.bios) TH_LOG("one bio: pages merged, no split point to end on");
	EXPECT_GE(max >> 9, c.max_rq) TH_LOG("a request over max_sectors_kb");
	if (proof) {
		ideal = (len + max - 1) / max;
		ksft_print_msg("pass iff %ld requests: one short request in all\n",
			       ideal);
		EXPECT_EQ(ideal, c.rqs);
	} else {
		/*
		 * Bios, not requests: a bio wrongly ended on a split point
		 * it already reached changes no request count. Measured
		 * against the largest bio rather than BIO_MAX_VECS pages,
		 * so that a kernel building bios of another size passes.
		 */
		largest = c.max_bio << 9;
		ksft_print_msg("pass iff %ld bios (%ld KiB each but the last), none shortened\n",
			       (len + largest - 1) / largest, largest >> 10);
		EXPECT_EQ((len + largest - 1) / largest, c.bios);
	}
}

/*
 * 60 s a case and 300 s for the program (settings): room for kernels with
 * KASAN on slow machines.
 */
TEST_F_TIMEOUT(dio_split, read, 30)
{
	check(_metadata, &self->d, self->buf, false, variant->seg_pages);
}

TEST_F_TIMEOUT(dio_split, write, 30)
{
	check(_metadata, &self->d, self->buf, true, variant->seg_pages);
}

TEST_HARNESS_MAIN
