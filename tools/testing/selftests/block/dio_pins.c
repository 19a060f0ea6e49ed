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
 * first page. Each page pinned for the transfer must be unpinned when it
 * is done, so after TRANSFERS of them nr_foll_pin_released in /proc/vmstat
 * must have grown as much as nr_foll_pin_acquired. The same transfers go
 * through Linux AIO too (IOCB_CMD_PREADV, IOCB_CMD_PWRITEV: the same bios,
 * their pages unpinned at asynchronous completion). Linux 7.0's
 * bio_iov_iter_align_down() unpinned one page per dropped bvec and none
 * of a shortened one, and leaked one pin per transfer here.
 *
 * Kernels that want every segment to be a multiple of the logical block
 * size (Linux 6.12: EINVAL) cannot build such a bio: the test skips.
 *
 * Needs root (configfs, PFNs), null_blk, THP (the buffer must be a huge
 * page: skipped if it is not) and /proc/kpageflags. The null_blk is made
 * here, not memory-backed (the 512-byte segments are not block aligned in
 * memory: see blk_nullb_create()), and removed in the fixture teardown.
 */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <linux/aio_abi.h>

#include "../kselftest_harness.h"
#include "blk_common.h"

#define LBS		4096
#define SIZE_MB		64
#define MAX_SECTORS	8192
#define TRANSFERS	10
#define FULL_PAGES	254	/* then the THP bvec and two small ones */
#define NR_SEGS		(FULL_PAGES + 3)
#define IO_LEN		(1 * MiB)
#define KPF_THP		22

FIXTURE(dio_pins) {
	struct blk_nullb nb;
	struct blk_buf pages;	/* FULL_PAGES + 2, never merging */
	struct blk_buf thp;
	struct iovec iov[NR_SEGS];
	int fd;
};

FIXTURE_VARIANT(dio_pins) {
	int write;
	int aio;	/* Linux AIO: the same bios, completed asynchronously */
};

FIXTURE_VARIANT_ADD(dio_pins, preadv) {
	.write = 0,
};

FIXTURE_VARIANT_ADD(dio_pins, pwritev) {
	.write = 1,
};

FIXTURE_VARIANT_ADD(dio_pins, aio_preadv) {
	.write = 0,
	.aio = 1,
};

FIXTURE_VARIANT_ADD(dio_pins, aio_pwritev) {
	.write = 1,
	.aio = 1,
};

/* 1 if the page at @addr is part of a transparent huge page. */
static int is_thp(const void *addr, char *msg, size_t msglen)
{
	unsigned long long pfn, flags;
	ssize_t n;
	int fd, ret;

	ret = blk_pfns(addr, 1, &pfn);
	if (ret) {
		snprintf(msg, msglen, "PFN of the THP buffer: %s",
			 strerror(-ret));
		return ret;
	}
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0) {
		snprintf(msg, msglen, "/proc/kpageflags: %s", strerror(errno));
		return -BLK_ESKIP;
	}
	n = pread(fd, &flags, sizeof(flags), pfn * sizeof(flags));
	close(fd);
	if (n != sizeof(flags)) {
		snprintf(msg, msglen, "/proc/kpageflags at PFN %llu: short read",
			 pfn);
		return -EIO;
	}
	if (!(flags >> KPF_THP & 1)) {
		snprintf(msg, msglen, "the MADV_HUGEPAGE buffer is not a THP: %s",
			 "is transparent_hugepage/enabled never?");
		return -BLK_ESKIP;
	}
	return 0;
}

FIXTURE_SETUP(dio_pins)
{
	char msg[256], name[64];
	int i, ret, err;

	self->fd = -1;
	if (geteuid())
		SKIP(return, "must be run as root");
	ret = variant->aio ? blk_aio_probe() : 0;
	if (ret)
		SKIP(return, "no Linux AIO (io_setup: %s)", strerror(-ret));
	/* Memory first: the process frees it, whatever happens. */
	ret = blk_buf_nomerge(&self->pages, FULL_PAGES + 2, msg, sizeof(msg));
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	ret = blk_buf_thp(&self->thp, 2 * MiB, msg, sizeof(msg));
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	ret = is_thp(self->thp.addr, msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);

	for (i = 0; i < FULL_PAGES; i++) {
		self->iov[i].iov_base = self->pages.addr + i * BLK_PAGE;
		self->iov[i].iov_len = BLK_PAGE;
	}
	self->iov[i].iov_base = self->thp.addr;
	self->iov[i++].iov_len = BLK_PAGE + 512;
	self->iov[i].iov_base = self->pages.addr + FULL_PAGES * BLK_PAGE;
	self->iov[i++].iov_len = 512;
	self->iov[i].iov_base = self->pages.addr + (FULL_PAGES + 1) * BLK_PAGE;
	self->iov[i].iov_len = 3072;

	/*
	 * The device last: the harness runs no teardown after a setup that
	 * did not complete, so remove it here if the open fails.
	 */
	snprintf(name, sizeof(name), "dio_pins_%d", getpid());
	ret = blk_nullb_create(&self->nb, name, LBS, SIZE_MB, MAX_SECTORS, 0,
			       msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
	self->fd = open(self->nb.path, O_RDWR | O_DIRECT);
	if (self->fd < 0) {
		err = errno;
		blk_nullb_destroy(&self->nb);
		ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->nb.path,
					      strerror(err));
	}
}

/*
 * In the parent, also after a crash of the test. The child's exit has
 * closed the device and freed the buffers.
 */
FIXTURE_TEARDOWN_PARENT(dio_pins)
{
	blk_nullb_destroy(&self->nb);
}

/* nr_foll_pin_acquired and nr_foll_pin_released, folded from all CPUs. */
static int pin_counts(long long *acquired, long long *released)
{
	/* /proc/vmstat alone lags by the per-CPU deltas. */
	blk_sysfs_write("/proc/sys/vm/stat_refresh", "1");
	*acquired = vmstat_read("nr_foll_pin_acquired");
	*released = vmstat_read("nr_foll_pin_released");
	return *acquired < 0 || *released < 0 ? -ENOENT : 0;
}

static const char *op_name(int write, int aio)
{
	if (aio)
		return write ? "AIO pwritev" : "AIO preadv";
	return write ? "pwritev" : "preadv";
}

/* The transfer of @iov at offset 0: bytes, or -errno. */
static ssize_t rw(int fd, int write, int aio, const struct iovec *iov)
{
	ssize_t n;

	if (aio)
		return blk_aio_rw(fd, write ? IOCB_CMD_PWRITEV : IOCB_CMD_PREADV,
				  iov, NR_SEGS, 0, 0);
	if (write)
		n = pwritev(fd, iov, NR_SEGS, 0);
	else
		n = preadv(fd, iov, NR_SEGS, 0);
	return n < 0 ? -errno : n;
}

TEST_F(dio_pins, trimmed_bio)
{
	const char *op = op_name(variant->write, variant->aio);
	long long acq0, rel0, acq1, rel1;
	ssize_t n;
	int i;

	ASSERT_EQ(0, pin_counts(&acq0, &rel0))
		TH_LOG("no nr_foll_pin_* in /proc/vmstat");
	for (i = 0; i < TRANSFERS; i++) {
		n = rw(self->fd, variant->write, variant->aio, self->iov);
		if (!i && n == -EINVAL)
			SKIP(return, "%s",
			     "segments must be logical block multiples here (EINVAL): no bio ends off a block");
		ASSERT_EQ(IO_LEN, n) TH_LOG("%s %d: %s", op, i,
					    n < 0 ? strerror(-n) : "short");
	}
	ASSERT_EQ(0, pin_counts(&acq1, &rel1));
	ksft_print_msg("%d x %s of 1 MiB in %d segments on %s: %lld pins taken, %lld released\n",
		       TRANSFERS, op, NR_SEGS, self->nb.disk, acq1 - acq0,
		       rel1 - rel0);
	ksft_print_msg("pass iff as many pins released as taken, and some taken\n");
	EXPECT_LT(0, acq1 - acq0);
	EXPECT_EQ(acq1 - acq0, rel1 - rel0)
		TH_LOG("%lld pins leaked", acq1 - acq0 - (rel1 - rel0));
}

TEST_HARNESS_MAIN
