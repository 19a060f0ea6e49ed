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
 *   otherwise): no bio above 16 MiB, which bounds the wait of a killed
 *   caller; that option made 512 MiB bios before the fix.
 *
 *   zeroes (guard): a zeroed range that starts and ends off a page reads
 *   back as zeroes, and the blocks around it keep their data.
 *
 *   iomap_zero (guard): once zeroing took the huge zero folio, sub-block
 *   O_DIRECT writes into holes of an XFS file on a device with stable
 *   writes, whose padding iomap writes from largest_zero_folio() through
 *   bounced bios, read back right and put no folio they do not own. A
 *   kernel that hands iomap the huge zero folio without skipping it in
 *   bio_free_folios() frees it: a VM_BUG_ON with CONFIG_DEBUG_VM, else
 *   "Bad page state" and, once the freed memory is reused (the test
 *   fills 64 MiB of its own to that end), padding that is not zeroes.
 *
 * Needs root and the block trace events. Each case makes a null_blk of its
 * own and removes it, or runs on the disk named in BLK_TEST_DEV (and in
 * BLK_TEST_DESTROY: its data is lost), skipping if it has Write Zeroes;
 * iomap_zero sets its stable_writes and puts the value back. huge_folio
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
#define DATA_MB		64
#define MAX_BIO_MB	16
/* mkfs.xfs makes no file system below 300 MiB. */
#define XFS_MB		512
#define XFS_WRITES	256
#define XFS_STRIDE	(64 * 1024)

/*
 * A device without Write Zeroes, traced and open, or a skip: 1 GiB whose
 * data is not kept (the bios are what is measured), or with @data a
 * small one that keeps it.
 */
static void zr_setup(struct __test_metadata *_metadata, struct blk_dev *d,
		     bool data)
{
	const struct blk_want w = {
		.what = "zeroout", .lbs = data ? 512 : 0,
		.size_mb = data ? DATA_MB : DEV_MB, .max_hw_kb = 1280,
		.memory_backed = data, .no_write_zeroes = true, .trace = true,
		.open_flags = O_RDWR | O_DIRECT,
	};
	long long avail = blk_meminfo("MemAvailable");
	char msg[256];
	int ret;

	d->fd = -1;
	/* The data device holds DATA_MB, and the test reads it back. */
	if (data && avail < 4LL * DATA_MB * BLK_MiB)
		SKIP(return, "MemAvailable %lld MiB, below %d MiB",
		     avail >> 20, 4 * DATA_MB);
	ret = blk_dev_get(d, &w, msg, sizeof(msg));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
}

FIXTURE(zeroout) {
	struct blk_dev d;
};

FIXTURE_SETUP(zeroout)
{
	zr_setup(_metadata, &self->d, false);
}

FIXTURE_TEARDOWN(zeroout)
{
	blk_dev_put(&self->d);
}

FIXTURE(zeroout_data) {
	struct blk_dev d;
};

FIXTURE_SETUP(zeroout_data)
{
	zr_setup(_metadata, &self->d, true);
}

FIXTURE_TEARDOWN(zeroout_data)
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
	ksft_print_msg("%s\n", c.bios == 1 ?
		       "the huge zero folio zeroed the 8 MiB: it is kept" :
		       "ZERO_PAGE zeroed the 8 MiB: no kept folio to guard");
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

TEST_F(zeroout_xfs, iomap_zero)
{
	const size_t bait_len = 64 * BLK_MiB;
	unsigned char *buf, *bait = MAP_FAILED;
	unsigned long long bad = 0;
	char file[96];
	int fd, i, j;

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
	struct blk_counts c;
	int ret;

	ret = zero(&self->d, 0, 1ULL << 30, &c);
	ASSERT_EQ(0, ret) TH_LOG("BLKZEROOUT: %s", strerror(-ret));
	ksft_print_msg("pass iff no bio above %d MiB\n", MAX_BIO_MB);
	EXPECT_GE(MAX_BIO_MB * 2048L, c.max_bio);
}

TEST_F(zeroout_data, zeroes)
{
	const unsigned long long start = 4096 + 512, end = 40 * BLK_MiB + 1024;
	const size_t len = DATA_MB * BLK_MiB;
	unsigned long long bad = 0, i;
	struct blk_counts c;
	unsigned char *buf;
	int ret;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0xa5, len);
	ASSERT_EQ(len, pwrite(self->d.fd, buf, len, 0));
	ret = zero(&self->d, start, end - start, &c);
	ASSERT_EQ(0, ret) TH_LOG("BLKZEROOUT: %s", strerror(-ret));
	memset(buf, 0, len);
	ASSERT_EQ(len, pread(self->d.fd, buf, len, 0));
	for (i = 0; i < len; i++)
		if (buf[i] != (i >= start && i < end ? 0 : 0xa5) && !bad++)
			ksft_print_msg("first wrong byte at %llu: %#x\n", i,
				       buf[i]);
	ksft_print_msg("%llu wrong bytes\n", bad);
	munmap(buf, len);
	EXPECT_EQ(0ULL, bad);
}

TEST_HARNESS_MAIN
