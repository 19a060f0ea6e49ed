// SPDX-License-Identifier: GPL-2.0
/*
 * BLKZEROOUT on a device without Write Zeroes (__blkdev_issue_zero_pages()):
 * the workbench's guards that no series test, KUnit case or blktests case
 * covers. Each case names the risk it guards against.
 *
 * The device is a memory-backed null_blk made here (1280 MiB) unless one
 * is named by BLK_NOWZ_DEV and allowed by BLK_TEST_DESTROY (see
 * blk_find()): the QEMU NVMe namespace without Write Zeroes in the NVMe
 * boots, whose data is destroyed. A device made here is removed in the
 * fixture teardown, which the harness runs in its parent process, also
 * after a failed assertion or a crash (not after a timeout: the harness
 * kills the whole process group).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zeroout_common.h"

/* A null_blk made here is memory-backed: the guest must hold it. */
#define NOWZ_MADE_MB	1280
#define SHAPE_LEN	(1 * GiB)
#define KILL_LEN	(6 * GiB)
#define KILL_MADE_MB	(6 * 1024 + 128)
#define KILL_DELAY_US	500000
#define KILL_PASSES	100

FIXTURE(zeroout) {
	struct blk_made made;
	struct blkdev dev;
};

FIXTURE_SETUP(zeroout)
{
	char msg[256];
	int ret;

	if (geteuid())
		SKIP(return, "must be run as root");
	ret = blk_test_dev("BLK_NOWZ_DEV", 0, 512, NOWZ_MADE_MB, 0, 0,
			   &self->made, &self->dev, msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
	ksft_print_msg("no Write Zeroes: %s, %llu MiB, %u-byte blocks\n",
		       self->dev.name, self->dev.size / MiB, self->dev.lbs);
}

FIXTURE_TEARDOWN_PARENT(zeroout)
{
	blk_made_destroy(&self->made);
}

/*
 * Risk: the huge zero folio not used, or bios of unbounded size, on a real
 * driver's queue (QEMU NVMe: max_sectors 128 KiB, 128 segments, a 4 KiB
 * virt boundary), where null_blk has none of these limits. A 1 GiB
 * BLKZEROOUT takes at most ZR_HUGE_MAX_BIOS bios with 2 MiB bvecs; a
 * kernel without CONFIG_TRANSPARENT_HUGEPAGE has no huge zero folio and
 * takes about 1024 of 4 KiB ZERO_PAGE bvecs. On a null_blk made here this
 * is zeroout.huge_folio of the series; only its run on the NVMe namespace
 * (BLK_NOWZ_DEV, make test-debug, make test-nothp) is not covered there:
 * make and make test run the series' zeroout on the NVMe namespaces. It
 * stays first in this file because the bystander's kill test kills and
 * reruns each guard program's first case: after_kill there makes a
 * 6 GiB memory-backed null_blk twice and ran a 3 GiB guest out of memory.
 */
TEST_F_TIMEOUT(zeroout, shape_1g, 600)
{
	/* Away from the cases' ranges where the device has room. */
	unsigned long long start = self->dev.size >= 3 * GiB ? 2 * GiB : 0;
	long lo = 1, hi = ZR_HUGE_MAX_BIOS;
	const char *bvecs = "2MiB bvecs";
	struct zr_result res;
	long bios;
	int fd, ret;

	if (access(ZR_THP_DIR, F_OK)) {
		lo = ZR_SMALL_MIN_BIOS;
		hi = ZR_SMALL_MAX_BIOS;
		bvecs = "no THP: 4KiB ZERO_PAGE bvecs";
	}
	if (start + SHAPE_LEN > self->dev.size)
		SKIP(return, "%s is smaller than 1 GiB", self->dev.name);
	fd = open(self->dev.path, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", self->dev.path,
				strerror(errno));
	ret = zr_run(fd, &self->dev, start, SHAPE_LEN, ZR_BLKZEROOUT, &res,
		     &bios);
	close(fd);
	if (ret == -BLK_ESKIP)
		SKIP(return, "no block tracepoints in a tracefs instance");
	EXPECT_TRUE(zr_verdict("zeroout 1GiB", &self->dev, ret, &res));
	EXPECT_TRUE(zr_bios_verdict("zeroout 1GiB", &self->dev, bios, lo, hi,
				    bvecs));
}

/*
 * SIGKILL a child that zeroes KILL_LEN over and over, KILL_DELAY_US after
 * it started: one pass can end sooner on a fast device (6 GiB in 0.5 s
 * on QEMU's NVMe with the huge zero folio), the next is then under way.
 * The seconds from the kill until the child was reaped go to *@waited,
 * its wait status to *@status. Returns 0, or -errno if the child could
 * not start (1: could not open the device) or could not be waited for.
 */
static int kill_zeroout(const struct blkdev *dev, double *waited,
			int *status)
{
	int fd, pipefd[2], i;
	double t_kill;
	pid_t pid;
	char c;

	*waited = 0;
	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (!pid) {
		close(pipefd[0]);
		fd = open(dev->path, O_RDWR);
		if (fd < 0)
			_exit(2);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(2);
		for (i = 0; i < KILL_PASSES; i++)
			blk_zeroout(fd, 0, KILL_LEN);
		_exit(1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		waitpid(pid, status, 0);
		return 1;
	}
	close(pipefd[0]);
	usleep(KILL_DELAY_US);
	kill(pid, SIGKILL);
	t_kill = now_sec();
	/* No limit of its own: a slow host is no bug, a hang hits the timeout. */
	if (waitpid(pid, status, 0) != pid)
		return -errno;
	*waited = now_sec() - t_kill;
	return 0;
}

/*
 * after_kill needs a device of KILL_LEN. One made by the
 * fixture is made again at that size: memory-backed, it holds only what
 * the zeroout wrote until SIGKILL. Returns 1 to go on, 0 if skipped.
 */
static int kill_dev(struct __test_metadata *_metadata,
		    FIXTURE_DATA(zeroout) * self)
{
	char msg[256];
	int ret;

	if (self->dev.size >= KILL_LEN)
		return 1;
	if (!self->made.nb.cfs[0])
		SKIP(return 0, "%s is smaller than 6 GiB: %llu MiB",
		     self->dev.name, self->dev.size / MiB);
	blk_made_destroy(&self->made);
	ret = blk_test_dev("BLK_NOWZ_DEV", 0, 512, KILL_MADE_MB, 0, KILL_LEN,
			   &self->made, &self->dev, msg, sizeof(msg));
	if (ret == -BLK_ESKIP)
		SKIP(return 0, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	return 1;
}

/*
 * Risk: use-after-free of the huge zero folio through the error path of a
 * killed zeroout. With a fatal signal pending, bio_submit_or_kill() (7.1;
 * bio_await_chain() on 6.12) ends the last bio unsubmitted, its bvecs
 * pointing into the huge zero folio, and waits for the chained ones: a
 * put of the folio there would free the folio the kernel keeps for good,
 * and the next zeroout would write freed memory (a VM_BUG_ON or KASAN
 * report on the debug kernel, non-zero data otherwise). After a SIGKILL
 * mid-zeroout the device must still zero correctly. No series test kills
 * a zeroout (zeroout.bio_bytes bounds the bios a killed caller waits for,
 * which is why the v5 guard "killable", a 5 s reap bound, is gone).
 */
TEST_F_TIMEOUT(zeroout, after_kill, 600)
{
	struct zr_result res;
	double waited;
	int fd, status, ret;

	if (!kill_dev(_metadata, self))
		return;
	ret = kill_zeroout(&self->dev, &waited, &status);
	ASSERT_EQ(0, ret) TH_LOG("killed zeroout did not run or was not reaped (%d)",
				 ret);
	ksft_print_msg("BLKZEROOUT of 6GiB on %s killed, reaped in %.2fs\n",
		       self->dev.name, waited);
	fd = open(self->dev.path, O_RDWR | O_DIRECT);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ret = zr_run(fd, &self->dev, 64 * MiB + self->dev.lbs,
		     MiB + self->dev.lbs, ZR_BLKZEROOUT, &res, NULL);
	close(fd);
	EXPECT_TRUE(zr_verdict("zeroout after kill: 1MiB+1 block", &self->dev,
			       ret, &res));
}

TEST_HARNESS_MAIN
