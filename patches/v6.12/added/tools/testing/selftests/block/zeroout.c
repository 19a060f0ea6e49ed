// SPDX-License-Identifier: GPL-2.0
/*
 * Zeroing a device without Write Zeroes: BLKZEROOUT then writes zeroes
 * from memory, one bvec per page of ZERO_PAGE, or per huge zero folio
 * where the kernel can take one.
 *
 *   huge_folio (proof): 1 GiB in at most 128 bios. With a bvec of the
 *   4 KiB ZERO_PAGE a bio carries 1 MiB: 1024 bios, as unpatched kernels
 *   without CONFIG_PERSISTENT_HUGE_ZERO_FOLIO=y make them.
 *
 *   bio_bytes (proof with CONFIG_PERSISTENT_HUGE_ZERO_FOLIO=y, guard
 *   otherwise): no bio of BIO_MAX_VECS bvecs of the huge zero folio, the
 *   512 MiB bios that option made before the fix, whose wait a killed
 *   caller cannot cut short. The bound is that, from the PMD size the
 *   kernel reports, not the fix's own 16 MiB: another bound passes.
 *
 * Needs root and the block trace events. Each case makes a null_blk of its
 * own and removes it, or runs on the disk named in BLK_TEST_DEV (and in
 * BLK_TEST_DESTROY: its data is lost), skipping if it has Write Zeroes.
 * huge_folio skips if there is no huge zero folio to take:
 * no THP, transparent_hugepage/use_zero_page at 0 (read, never set), a PMD
 * size other than 2 MiB (16 KiB pages), or no free 2 MiB to allocate it
 * from (thp_zero_page_alloc_failed grew while the case ran). A failed
 * allocation is not retried for a second, whichever task's it was: a case
 * that made 1024 bios without the counter moving runs once more after
 * that. With pages of 32 KiB or more and a 2 MiB PMD (64 KiB pages on
 * ppc64's radix MMU), bios of ZERO_PAGE are at most 128 per GiB too: the
 * count cannot tell, and huge_folio skips.
 *
 * huge_folio checks an improvement, which a correct kernel without it
 * lacks: it skips on a kernel before the release that has it
 * (BLK_PROOF_MAJOR.BLK_PROOF_MINOR in blk_util.h) unless BLK_PROOFS=1.
 * bio_bytes, a fix, judges every kernel. That the zeroed range reads back
 * as zeroes is blktests' block/053, on every kernel.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../kselftest_harness.h"
#include "blk_util.h"

#define DEV_MB		1024

FIXTURE(zeroout) {
	struct blk_dev d;
};

/*
 * A device without Write Zeroes, traced and open, or a skip: 1 GiB whose
 * data is not kept (the bios are what is measured).
 */
FIXTURE_SETUP(zeroout)
{
	const struct blk_want w = {
		.what = "zeroout", .size_mb = DEV_MB, .max_hw_kb = 1280,
		.no_write_zeroes = true, .trace = true,
		.open_flags = O_RDWR | O_DIRECT,
	};
	char msg[256];
	int ret;

	self->d.fd = -1;
	ret = blk_dev_get(&self->d, &w, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
}

FIXTURE_TEARDOWN(zeroout)
{
	blk_dev_put(&self->d);
}

/* BLKZEROOUT of [@start, @start + @len) counted in @c. */
static int zero(struct blk_dev *d, unsigned long long start,
		unsigned long long len, struct blk_counts *c)
{
	unsigned long long range[2] = { start, len };
	int ret;

	ret = blk_trace_start(d);
	if (!ret && ioctl(d->fd, BLKZEROOUT, range))
		ret = -errno;
	if (!ret)
		ret = blk_trace_stop(d, 0, c);
	if (!ret)
		ksft_print_msg("BLKZEROOUT of %llu bytes at %llu on %s: %ld bios, max %ld KiB\n",
			       len, start, d->disk, c->bios, c->max_bio >> 1);
	return ret;
}

TEST_F(zeroout, huge_folio)
{
	long long pmd, page = sysconf(_SC_PAGESIZE), failed;
	const char *why = blk_proof_skip();
	struct blk_counts c;
	int ret, try;

	if (why)
		SKIP(return, "%s", why);
	if (blk_read_ll("/sys/kernel/mm/transparent_hugepage/use_zero_page") != 1)
		SKIP(return, "no huge zero folio: no THP, or use_zero_page is 0");
	pmd = blk_read_ll("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	if (pmd != 2 * BLK_MiB)
		SKIP(return, "PMD size %lld KiB, not 2 MiB: zeroing uses ZERO_PAGE",
		     pmd >> 10);
	/* 256 bvecs of a page of 32 KiB or more make at most 128 bios. */
	if ((1LL << 30) / (256 * page) <= 128)
		SKIP(return, "%lld KiB pages: bios of ZERO_PAGE are already at most 128 per GiB",
		     page >> 10);
	/*
	 * An allocation that failed, this task's or another's, is not
	 * retried within a second: try again after that once.
	 */
	for (try = 0; try < 2; try++) {
		if (try)
			sleep(2);
		failed = blk_vmstat("thp_zero_page_alloc_failed");
		ret = zero(&self->d, 0, 1ULL << 30, &c);
		ASSERT_EQ(0, ret) TH_LOG("BLKZEROOUT: %s", strerror(-ret));
		if (c.bios <= 128)
			break;
		if (blk_vmstat("thp_zero_page_alloc_failed") > failed)
			SKIP(return, "no free 2 MiB (thp_zero_page_alloc_failed grew)");
		if (!try)
			ksft_print_msg("%ld bios, no failure counted: again after the delay\n",
				       c.bios);
	}
	ksft_print_msg("pass iff at most 128 bios (%lld bios of ZERO_PAGE)\n",
		       (1LL << 30) / (256 * page));
	EXPECT_GE(128, c.bios);
}

TEST_F(zeroout, bio_bytes)
{
	long long pmd, page = sysconf(_SC_PAGESIZE);
	struct blk_counts c;
	int ret;

	/* Without a huge zero folio, a bio of BIO_MAX_VECS pages is right. */
	pmd = blk_read_ll("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	if (pmd <= page)
		SKIP(return, "no zero folio larger than a page (no THP)");
	ret = zero(&self->d, 0, 1ULL << 30, &c);
	ASSERT_EQ(0, ret) TH_LOG("BLKZEROOUT: %s", strerror(-ret));
	ksft_print_msg("pass iff every bio is below %lld MiB, %d bvecs of the huge zero folio\n",
		       BLK_BIO_PAGES * pmd >> 20, BLK_BIO_PAGES);
	EXPECT_GT(BLK_BIO_PAGES * pmd >> 9, c.max_bio);
}

TEST_HARNESS_MAIN
