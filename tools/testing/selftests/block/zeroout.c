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
 *   iomap_zero (guard): once zeroing took the huge zero folio, sub-block
 *   O_DIRECT writes into holes of an XFS file on a device with stable
 *   writes, whose padding iomap writes from largest_zero_folio() through
 *   bounced bios, read back right and put no folio they do not own. A
 *   kernel that hands iomap the huge zero folio without skipping it in
 *   bio_free_folios() frees it: a VM_BUG_ON with CONFIG_DEBUG_VM, else
 *   "Bad page state" and, once the freed memory is reused (the test
 *   fills 64 MiB of its own to that end), padding that is not zeroes:
 *   the case checks both, the first in the kernel log (/dev/kmsg). It
 *   skips where the zeroout took ZERO_PAGE, with no folio kept to guard.
 *   A huge zero folio once taken is kept until the system shuts down; the
 *   case says so.
 *
 * Needs root and the block trace events. Each case makes a null_blk of its
 * own and removes it, or runs on the disk named in BLK_TEST_DEV (and in
 * BLK_TEST_DESTROY: its data is lost), skipping if it has Write Zeroes;
 * iomap_zero sets stable_writes, so it runs on a null_blk of its own
 * only, and skips on a named disk. huge_folio
 * skips if there is no huge zero folio to take:
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
 * The guards and bio_bytes, a fix, judge every kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../kselftest_harness.h"
#include "blk_util.h"

#define DEV_MB		1024
/* mkfs.xfs makes no file system below 300 MiB. */
#define XFS_MB		512
#define XFS_WRITES	256
#define XFS_STRIDE	(64 * 1024)

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

/*
 * An XFS on a memory-backed device with stable writes, mounted at
 * /run/ksft_blk_NS_PID_xfs_mnt, after a BLKZEROOUT of 8 MiB on the device
 * that takes the huge zero folio where the kernel can.
 */
FIXTURE(zeroout_xfs) {
	struct blk_dev d;
	char mnt[64];
};

/*
 * mkfs.xfs on @dev: 0, or -EIO. It dies with the test, so that a killed
 * run leaves no mkfs holding its device.
 */
static int xfs_mkfs(const char *dev)
{
	pid_t parent = getpid(), pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(126);
		execlp("mkfs.xfs", "mkfs.xfs", "-f", "-q", dev, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* Everything but the mount, with the reason of a failure in @msg. */
static int xfs_make(struct blk_dev *d, char *msg, size_t len)
{
	struct blk_counts c;
	int ret;

	ret = blk_queue_set(d, "stable_writes", 1);
	if (ret) {
		snprintf(msg, len, "%s stable_writes: %s", d->disk,
			 ret == -EOPNOTSUPP ?
			 "set on a null_blk of the test's own only" :
			 strerror(-ret));
		return ret;
	}
	ret = zero(d, 0, 8 * BLK_MiB, &c);
	if (ret) {
		snprintf(msg, len, "BLKZEROOUT on %s: %s", d->path,
			 strerror(-ret));
		return ret;
	}
	/* What the writes below run beside: the kept folio, or none. */
	if (c.bios != 1) {
		snprintf(msg, len,
			 "ZERO_PAGE zeroed the 8 MiB in %ld bios: no huge zero folio kept to guard",
			 c.bios);
		return -EOPNOTSUPP;
	}
	ksft_print_msg("%s\n",
		       "the huge zero folio zeroed the 8 MiB: the kernel keeps it until it is shut down");
	close(d->fd);
	d->fd = -1;
	ret = xfs_mkfs(d->path);
	if (ret)
		snprintf(msg, len, "mkfs.xfs -f -q %s failed", d->path);
	return ret;
}

FIXTURE_SETUP(zeroout_xfs)
{
	const struct blk_want w = {
		/* Sub-block writes: 512-byte sectors. */
		.what = "xfs", .lbs = 512, .size_mb = XFS_MB, .max_hw_kb = 1280,
		.memory_backed = true, .trace = true, .open_flags = O_RDWR,
	};
	char msg[256];
	int ret;

	self->mnt[0] = '\0';
	self->d.fd = -1;
	if (system("command -v mkfs.xfs >/dev/null"))
		SKIP(return, "no mkfs.xfs (xfsprogs)");
	if (blk_meminfo("MemAvailable") < 256LL * BLK_MiB)
		SKIP(return, "MemAvailable below 256 MiB");
	ret = blk_dev_get(&self->d, &w, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	ret = xfs_make(&self->d, msg, sizeof(msg));
	if (!ret) {
		ret = blk_mnt_make(&self->d, "xfs", "xfs", self->mnt,
				   sizeof(self->mnt));
		snprintf(msg, sizeof(msg), "mount: %s", strerror(-ret));
	}
	if (ret) {
		blk_dev_put(&self->d);
		if (ret == -ENODEV || ret == -EOPNOTSUPP)
			SKIP(return, "%s", ret == -ENODEV ?
			     "no XFS in this kernel (CONFIG_XFS_FS)" : msg);
		ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	}
}

FIXTURE_TEARDOWN(zeroout_xfs)
{
	if (self->mnt[0])
		blk_mnt_remove(self->mnt);
	blk_dev_put(&self->d);
}

/* /dev/kmsg from its end on, or -1 if this task cannot read it. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The records of @fd, from where it stands, that contain @what. */
static int kmsg_count(int fd, const char *what)
{
	char rec[8192];
	int found = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* records lost: go on */
			continue;
		if (n <= 0)
			return found;
		rec[n] = '\0';
		found += !!strstr(rec, what);
	}
}

TEST_F(zeroout_xfs, iomap_zero)
{
	const size_t bait_len = 64 * BLK_MiB;
	unsigned char *buf, *bait = MAP_FAILED;
	unsigned long long bad = 0;
	int fd, kmsg, i, j, bad_pages;
	char file[96];

	/* A put of the kept folio: "Bad page state" when it is freed. */
	kmsg = kmsg_open();
	if (kmsg < 0)
		ksft_print_msg("/dev/kmsg: %s: the kernel log is not checked\n",
			       strerror(errno));

	snprintf(file, sizeof(file), "%s/f", self->mnt);
	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0600);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", file, strerror(errno));
	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0x5a, 512);
	for (i = 0; i < XFS_WRITES; i++) {
		/* Memory a freed huge zero folio would be handed out as. */
		if (i == XFS_WRITES / 4) {
			bait = mmap(NULL, bait_len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			ASSERT_NE(MAP_FAILED, bait);
			memset(bait, 0xa5, bait_len);
		}
		ASSERT_EQ(512, pwrite(fd, buf, 512,
				      (off_t)i * XFS_STRIDE + 512))
			TH_LOG("write %d: %s", i, strerror(errno));
	}
	for (i = 0; i < XFS_WRITES; i++) {
		/* The last block ends at the end of the file. */
		int len = i == XFS_WRITES - 1 ? 1024 : 4096;

		ASSERT_EQ(len, pread(fd, buf, 4096, (off_t)i * XFS_STRIDE));
		for (j = 0; j < len; j++)
			if (buf[j] != (j >= 512 && j < 1024 ? 0x5a : 0) &&
			    !bad++)
				ksft_print_msg("block %d byte %d: %#x\n", i, j,
					       buf[j]);
	}
	ksft_print_msg("%d writes of 512 bytes into XFS holes, stable writes: %llu bad bytes\n",
		       XFS_WRITES, bad);
	munmap(bait, bait_len);
	munmap(buf, 4096);
	close(fd);
	EXPECT_EQ(0ULL, bad);
	if (kmsg >= 0) {
		bad_pages = kmsg_count(kmsg, "Bad page state");
		close(kmsg);
		ksft_print_msg("%d \"Bad page state\" records in the kernel log\n",
			       bad_pages);
		EXPECT_EQ(0, bad_pages);
	}
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
