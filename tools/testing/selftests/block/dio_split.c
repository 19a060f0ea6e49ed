// SPDX-License-Identifier: GPL-2.0
/*
 * Direct I/O bios that blk-mq splits end on a split point.
 *
 * A 64 MiB O_DIRECT read or write into single pages is built into bios of
 * BIO_MAX_VECS pages (1 MiB with 4 KiB pages). Where the request size
 * limit max_sectors_kb does not divide that, blk-mq splits each bio into
 * full requests and a short one; a bio that ends on a split point instead
 * leaves one short request for the whole transfer:
 *
 *   proof: at 60 and 96 KiB (512-byte blocks) and 60 and 508 KiB (4 KiB
 *   blocks) the transfer takes DIV_ROUND_UP(64 MiB, limit) requests;
 *   unpatched kernels take 18, 11, 18 and 3 requests per bio.
 *
 *   guard: where the limit divides the bio (64 and 128 KiB) or the bio
 *   fits one request (the device's default limit), no bio is shortened:
 *   the bios, and so the requests, are those of an unpatched kernel.
 *
 * Needs root, null_blk (made here, not memory-backed, removed in the
 * teardown) and the block trace events (a trace instance of its own).
 */
#define _GNU_SOURCE
#include "../kselftest_harness.h"
#include "blk_util.h"

#define IO_MB	64

FIXTURE(dio_split) {
	struct blk_nullb nb;
	struct blk_trace tr;
	char *buf;
	int fd;
};

FIXTURE_VARIANT(dio_split) {
	unsigned int lbs;
	unsigned int max_kb;	/* 0: the device's default */
};

FIXTURE_VARIANT_ADD(dio_split, 512_60k) { 512, 60 };
FIXTURE_VARIANT_ADD(dio_split, 512_96k) { 512, 96 };
FIXTURE_VARIANT_ADD(dio_split, 4096_60k) { 4096, 60 };
FIXTURE_VARIANT_ADD(dio_split, 4096_508k) { 4096, 508 };
FIXTURE_VARIANT_ADD(dio_split, 512_64k) { 512, 64 };
FIXTURE_VARIANT_ADD(dio_split, 4096_128k) { 4096, 128 };
FIXTURE_VARIANT_ADD(dio_split, 512_default) { 512, 0 };

FIXTURE_SETUP(dio_split)
{
	size_t page = sysconf(_SC_PAGESIZE);
	char msg[256];
	int ret;

	self->fd = -1;
	if (geteuid())
		SKIP(return, "must be run as root");
	blk_sweep();
	self->buf = blk_single_pages(IO_MB * BLK_MiB / page);
	if (!self->buf && errno == EOPNOTSUPP)
		SKIP(return, "no single pages: MADV_NOHUGEPAGE refused or ignored");
	ASSERT_NE(NULL, self->buf) TH_LOG("buffer: %s", strerror(errno));

	ret = blk_nullb_create(&self->nb, "dio_split", variant->lbs, 2 * IO_MB,
			       4096, 0, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	/* From here on, the teardown removes what fails. */
	if (variant->max_kb)
		ret = blk_queue_set(&self->nb, "max_sectors_kb", variant->max_kb);
	if (!ret)
		ret = blk_trace_create(&self->tr, "dio_split", &self->nb, msg,
				       sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "max_sectors_kb %u: %s",
			 variant->max_kb, strerror(-ret));
	if (!ret) {
		self->fd = open(self->nb.path, O_RDWR | O_DIRECT);
		ret = self->fd < 0 ? -errno : 0;
		snprintf(msg, sizeof(msg), "open %s: %s", self->nb.path,
			 strerror(-ret));
	}
	if (ret) {
		blk_trace_destroy(&self->tr);
		blk_nullb_destroy(&self->nb);
		if (ret == -EOPNOTSUPP)
			SKIP(return, "%s", msg);
		ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	}
}

FIXTURE_TEARDOWN(dio_split)
{
	if (self->fd >= 0)
		close(self->fd);
	blk_trace_destroy(&self->tr);
	blk_nullb_destroy(&self->nb);
}

static void check(struct __test_metadata *_metadata,
		  const struct blk_nullb *nb, struct blk_trace *tr, int fd,
		  char *buf, int write)
{
	long page = sysconf(_SC_PAGESIZE), len = IO_MB * BLK_MiB;
	long bio = BLK_BIO_PAGES * page, max, ideal;
	struct blk_counts c;
	ssize_t n;

	max = blk_queue_get(nb, "max_sectors_kb") << 10;
	ASSERT_LT(0, max);
	ASSERT_EQ(0, blk_trace_start(tr));
	if (write)
		n = pwrite(fd, buf, len, 0);
	else
		n = pread(fd, buf, len, 0);
	ASSERT_EQ(len, n) TH_LOG("%s: %s", write ? "pwrite" : "pread",
				 n < 0 ? strerror(errno) : "short");
	ASSERT_EQ(0, blk_trace_stop(tr, bio >> 9, &c));

	ksft_print_msg("%s of %d MiB in single pages on %s, max_sectors_kb %ld:\n",
		       write ? "pwrite" : "pread", IO_MB, nb->disk, max >> 10);
	ksft_print_msg("%ld bios (%ld short, largest %ld KiB), %ld requests\n",
		       c.bios, c.short_bios, c.max_bio >> 1, c.rqs);
	ASSERT_LT(1, c.bios) TH_LOG("one bio: pages merged, no split point to end on");
	if (bio > max && bio % max) {
		ideal = (len + max - 1) / max;
		ksft_print_msg("pass iff %ld requests: one short request in all\n",
			       ideal);
		EXPECT_EQ(ideal, c.rqs);
	} else {
		ksft_print_msg("pass iff %ld bios, none shortened\n", len / bio);
		EXPECT_EQ(len / bio, c.bios);
		EXPECT_EQ(0, c.short_bios);
	}
}

TEST_F_TIMEOUT(dio_split, read, 300)
{
	check(_metadata, &self->nb, &self->tr, self->fd, self->buf, 0);
}

TEST_F_TIMEOUT(dio_split, write, 300)
{
	check(_metadata, &self->nb, &self->tr, self->fd, self->buf, 1);
}

TEST_HARNESS_MAIN
