// SPDX-License-Identifier: GPL-2.0
/*
 * A direct I/O bio trimmed to the logical block size gives back every pin
 * it took on the pages it no longer covers.
 *
 * The iovec segments of an O_DIRECT transfer need only add up to whole
 * logical blocks, so a bio that fills its 256 bvecs can end off a block
 * boundary and is trimmed back to one. On a null_blk of 4096-byte blocks,
 * a preadv() or pwritev() of 1 MiB from 254 pages that never merge, then
 * 4608 bytes of a THP (one bvec over two pages of one folio), 512 bytes
 * and 3072 bytes of two more pages fills a first bio 1 KiB past a block:
 * the trim drops the 512-byte bvec and shortens the 4608-byte one to its
 * first page.
 *
 *   trimmed_bio (proof): after TRANSFERS of them no page of the buffer
 *   is still pinned. Linux 7.0 and 7.1 leak one pin per transfer here.
 *   A pin is seen on the test's own pages, not in machine-wide counters
 *   that other tasks move: fork() copies a page that may be pinned for
 *   DMA (folio_maybe_dma_pinned()) rather than share it, so a page whose
 *   frame number differs in a child forked after the transfers is one
 *   that is still pinned (/proc/PID/pagemap).
 *
 * Kernels that want every segment to be a multiple of the logical block
 * size (Linux 6.12: EINVAL) cannot build such a bio: the test skips, as
 * it does with pages other than 4 KiB, for which the layout is built.
 *
 * Needs root and a THP for the buffer. The case makes a null_blk of its
 * own (not memory-backed: the 512-byte segments are not block aligned in
 * memory) and removes it, or runs on the disk named in BLK_TEST_DEV (and
 * in BLK_TEST_DESTROY: its first MiB is lost) if it has 4 KiB blocks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../kselftest_harness.h"
#include "blk_util.h"

#define LBS		4096
#define TRANSFERS	10
#define FULL_PAGES	254	/* then the THP bvec and two small ones */
#define NR_SEGS		(FULL_PAGES + 3)
#define IO_LEN		(1 * BLK_MiB)

FIXTURE(dio_pins) {
	struct blk_dev d;
	struct iovec iov[NR_SEGS];
	char *thp;
	long long pmd;
};

FIXTURE_VARIANT(dio_pins) {
	int write;
};

FIXTURE_VARIANT_ADD(dio_pins, preadv) { 0 };
FIXTURE_VARIANT_ADD(dio_pins, pwritev) { 1 };

FIXTURE_SETUP(dio_pins)
{
	const struct blk_want w = {
		.what = "dio_pins", .lbs = LBS, .size_mb = 64, .max_hw_kb = 4096,
		.open_flags = O_RDWR | O_DIRECT,
	};
	char msg[256], *pages, *area;
	int i, ret;

	self->d.fd = -1;
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP(return, "the iovec layout is built for 4 KiB pages");
	self->pmd = blk_read_ll("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	if (self->pmd <= 0)
		SKIP(return, "no PMD size: no THP");
	/* Memory first: the process frees it, whatever happens. */
	pages = blk_single_pages(FULL_PAGES + 2);
	if (!pages && errno == EOPNOTSUPP)
		SKIP(return, "no single pages: MADV_NOHUGEPAGE refused or ignored");
	ASSERT_NE(NULL, pages) TH_LOG("buffer: %s", strerror(errno));
	area = mmap(NULL, 2 * self->pmd, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	self->thp = (char *)(((unsigned long)area + self->pmd - 1) &
			     ~(self->pmd - 1));
	if (madvise(self->thp, self->pmd, MADV_HUGEPAGE))
		SKIP(return, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
	memset(self->thp, 1, self->pmd);
	if (blk_anon_huge_kb(self->thp) < (unsigned long)self->pmd >> 10)
		SKIP(return, "the MADV_HUGEPAGE buffer is not a THP");

	for (i = 0; i < FULL_PAGES; i++) {
		self->iov[i].iov_base = pages + i * 4096;
		self->iov[i].iov_len = 4096;
	}
	self->iov[i].iov_base = self->thp;
	self->iov[i++].iov_len = 4096 + 512;
	self->iov[i].iov_base = pages + FULL_PAGES * 4096;
	self->iov[i++].iov_len = 512;
	self->iov[i].iov_base = pages + (FULL_PAGES + 1) * 4096;
	self->iov[i].iov_len = 3072;

	ret = blk_dev_get(&self->d, &w, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
}

FIXTURE_TEARDOWN(dio_pins)
{
	blk_dev_put(&self->d);
}

/*
 * How many pages of @iov a child forked now does not share: those that
 * may be pinned. -ENODATA if a page has no frame (swapped out), -errno
 * if a frame cannot be read.
 */
static int pinned_pages(const struct iovec *iov)
{
	int pipefd[2], self, other, i, n = 0;
	unsigned long addr, end;
	unsigned long long a, b;
	char c, path[64];
	pid_t child;

	if (pipe(pipefd))
		return -errno;
	child = fork();
	if (child < 0) {
		n = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return n;
	}
	if (!child) {
		/* Touch nothing: wait for the parent to close the pipe. */
		close(pipefd[1]);
		_exit(read(pipefd[0], &c, 1) < 0);
	}
	close(pipefd[0]);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", child);
	self = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	other = self < 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (other < 0)
		n = -errno;
	for (i = 0; n >= 0 && i < NR_SEGS; i++) {
		addr = (unsigned long)iov[i].iov_base & ~4095UL;
		end = (unsigned long)iov[i].iov_base + iov[i].iov_len;
		for (; n >= 0 && addr < end; addr += 4096) {
			a = blk_pfn(self, (void *)addr);
			b = blk_pfn(other, (void *)addr);
			if (!a || !b)
				n = -ENODATA;
			else if (a != b)
				n++;
		}
	}
	if (other >= 0)
		close(other);
	if (self >= 0)
		close(self);
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	return n;
}

/*
 * TRANSFERS of the case's transfer: 0, 1 if the kernel refuses the
 * iovecs, or -errno.
 */
static int transfers(int fd, const struct iovec *iov, bool write)
{
	ssize_t n;
	int i;

	for (i = 0; i < TRANSFERS; i++) {
		if (write)
			n = pwritev(fd, iov, NR_SEGS, 0);
		else
			n = preadv(fd, iov, NR_SEGS, 0);
		if (!i && n < 0 && errno == EINVAL)
			return 1;
		if (n != IO_LEN)
			return n < 0 ? -errno : -EIO;
	}
	return 0;
}

TEST_F(dio_pins, trimmed_bio)
{
	const char *op = variant->write ? "pwritev" : "preadv";
	int ret;

	ret = transfers(self->d.fd, self->iov, variant->write);
	if (ret == 1)
		SKIP(return, "%s",
		     "segments must be logical block multiples here (EINVAL): no bio ends off a block");
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", op, strerror(-ret));
	ret = pinned_pages(self->iov);
	if (ret == -ENODATA)
		SKIP(return, "a page of the buffer is swapped out: no frame");
	ASSERT_LE(0, ret) TH_LOG("/proc/PID/pagemap: %s", strerror(-ret));
	ksft_print_msg("%d x %s, %d segments, %s: %d pages of the buffer still pinned\n",
		       TRANSFERS, op, NR_SEGS, self->d.disk, ret);
	ksft_print_msg("pass iff none is\n");
	EXPECT_EQ(0, ret);
}

TEST_HARNESS_MAIN
