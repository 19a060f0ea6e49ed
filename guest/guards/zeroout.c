// SPDX-License-Identifier: GPL-2.0
/*
 * BLKZEROOUT and fallocate(FALLOC_FL_ZERO_RANGE) on block devices.
 *
 * Correctness on a namespace without Write Zeroes (zeroing goes through
 * __blkdev_issue_zero_pages()) and one with it (offloaded), for ranges
 * chosen around the 2 MiB size of the huge zero folio; the bio shape of
 * a 1 GiB zeroout on the device without Write Zeroes (2 MiB bvecs give at
 * most 4 bios per GiB, 4 KiB bvecs give 1024; a kernel without
 * CONFIG_TRANSPARENT_HUGEPAGE has no huge zero folio and must give the
 * latter); and that a large zeroout can still be killed.
 *
 * Each test makes its device (a null_blk of 1280 MiB for variant nowz,
 * a scsi_debug disk for wz) unless one is named by BLK_NOWZ_DEV /
 * BLK_WZ_DEV and allowed by BLK_TEST_DESTROY (see blk_find()); the named
 * devices' data is destroyed. A device made here is removed in the
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
/* Native kernels reap in well under a second; QEMU TCG is 10-50x slower. */
#define KILL_REAP_SECS	5.0

FIXTURE(zeroout) {
	struct blk_made made;
	struct blkdev dev;
};

/* Where the device comes from: named in @env, or made here. */
FIXTURE_VARIANT(zeroout) {
	const char *env;
	int want_wz;
	unsigned int make_lbs;	/* null_blk of this block size; 0: scsi_debug */
};

FIXTURE_VARIANT_ADD(zeroout, nowz) {
	.env = "BLK_NOWZ_DEV",
	.want_wz = 0,
	.make_lbs = 512,
};

FIXTURE_VARIANT_ADD(zeroout, wz) {
	.env = "BLK_WZ_DEV",
	.want_wz = 1,
	.make_lbs = 0,
};

FIXTURE_SETUP(zeroout)
{
	char msg[256];
	int ret;

	if (geteuid())
		SKIP(return, "must be run as root");
	ret = blk_test_dev(variant->env, variant->want_wz, variant->make_lbs,
			   NOWZ_MADE_MB, 0, 0, &self->made, &self->dev, msg,
			   sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
	ksft_print_msg("%s: %s, %llu MiB, %u-byte blocks, write_zeroes_max_bytes %llu\n",
		       variant->want_wz ? "Write Zeroes" : "no Write Zeroes",
		       self->dev.name, self->dev.size / MiB, self->dev.lbs,
		       self->dev.wz_max);
}

FIXTURE_TEARDOWN_PARENT(zeroout)
{
	blk_made_destroy(&self->made);
}

/* The correctness cases, chosen around the 2 MiB huge zero folio. */
enum zr_case_id {
	ZC_ONE_BLOCK, ZC_UNALIGNED, ZC_EXACT_2M, ZC_2M_MINUS, ZC_2M_PLUS,
	ZC_255X2M, ZC_256X2M_OFF, ZC_257X2M, ZC_OVER_4G, ZC_WHOLE,
	ZC_FALLOCATE,
};

struct zr_case {
	const char *desc;
	unsigned long long start;
	unsigned long long len;
	enum zr_method method;
};

static void zr_case_get(const struct blkdev *dev, enum zr_case_id id,
			struct zr_case *c)
{
	unsigned long long lbs = dev->lbs;
	/* 1 GiB in, or 16 MiB in on a small device (scsi_debug made here). */
	unsigned long long base = dev->size < 1 * GiB + 128 * MiB ?
				  16 * MiB : 1 * GiB;
	unsigned long long M2 = 2 * MiB;
	const struct zr_case cases[] = {
		[ZC_ONE_BLOCK] = { "1 logical block", base + 7 * lbs, lbs },
		[ZC_UNALIGNED] = { "unaligned head+tail across two 2MiB boundaries",
				   base + M2 - 3 * lbs, 2 * M2 + 5 * lbs },
		[ZC_EXACT_2M] = { "exactly 2MiB, aligned", base + 16 * MiB, M2 },
		[ZC_2M_MINUS] = { "2MiB - 1 block", base + 32 * MiB, M2 - lbs },
		[ZC_2M_PLUS] = { "2MiB + 1 block", base + 48 * MiB, M2 + lbs },
		[ZC_255X2M] = { "255x2MiB", 512 * MiB, 255 * M2 },
		[ZC_256X2M_OFF] = { "256x2MiB, start 1 block past 2MiB",
				    512 * MiB + lbs, 256 * M2 },
		[ZC_257X2M] = { "257x2MiB", 512 * MiB, 257 * M2 },
		[ZC_OVER_4G] = { ">4GiB in one call (4GiB+2MiB+2 blocks)",
				 base - lbs, 4 * GiB + M2 + 2 * lbs },
		[ZC_WHOLE] = { "whole device", 0, dev->size },
		[ZC_FALLOCATE] = { "fallocate(ZERO_RANGE|KEEP_SIZE) 3MiB+2 blocks unaligned",
				   base + 80 * MiB + lbs, 3 * MiB + 2 * lbs,
				   ZR_FALLOCATE },
	};

	*c = cases[id];
}

/* Pattern, zero, verify one case (zr_run()): zeros, neighbours intact. */
static void run_case(struct __test_metadata *_metadata,
		     const struct blkdev *dev, enum zr_case_id id)
{
	struct zr_result res;
	struct zr_case c;
	char desc[160];
	int fd, ret;

	zr_case_get(dev, id, &c);
	snprintf(desc, sizeof(desc), "%s%s [%llu+%llu]",
		 c.method == ZR_FALLOCATE ? "" : "zeroout ", c.desc, c.start,
		 c.len);
	if (c.start + c.len > dev->size)
		SKIP(return, "%s on %s: device has only %llu MiB", desc,
		     dev->name, dev->size / MiB);
	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0)
		SKIP(return, "%s: cannot open %s: %s", desc, dev->path,
		     strerror(errno));
	ret = zr_run(fd, dev, c.start, c.len, c.method, &res, NULL);
	close(fd);
	EXPECT_TRUE(zr_verdict(desc, dev, ret, &res));
}

/*
 * The bio shape of a 1 GiB BLKZEROOUT without Write Zeroes: 2 MiB huge
 * zero folio bvecs (up to 16 MiB bios for a killable caller) give at
 * most ZR_HUGE_MAX_BIOS, a kernel without THP 4 KiB ZERO_PAGE bvecs and
 * about 1024. Runs first: the cases must not have warmed anything up.
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

	if (variant->want_wz)
		SKIP(return, "bio shape only without Write Zeroes (the zero folio path)");
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

/* zeroout.VARIANT.NAME: run_case() of the case @id. */
#define ZEROOUT_CASE(name, id)						\
	TEST_F_TIMEOUT(zeroout, name, 600)				\
	{								\
		run_case(_metadata, &self->dev, id);			\
	}

ZEROOUT_CASE(one_block, ZC_ONE_BLOCK)
ZEROOUT_CASE(unaligned_across_2m, ZC_UNALIGNED)
ZEROOUT_CASE(exact_2m, ZC_EXACT_2M)
ZEROOUT_CASE(len_2m_minus_block, ZC_2M_MINUS)
ZEROOUT_CASE(len_2m_plus_block, ZC_2M_PLUS)
ZEROOUT_CASE(x255_2m, ZC_255X2M)
ZEROOUT_CASE(x256_2m_off_block, ZC_256X2M_OFF)
ZEROOUT_CASE(x257_2m, ZC_257X2M)
ZEROOUT_CASE(over_4g, ZC_OVER_4G)
ZEROOUT_CASE(whole_device, ZC_WHOLE)
ZEROOUT_CASE(fallocate_3m_unaligned, ZC_FALLOCATE)

/*
 * SIGKILL a child that zeroes KILL_LEN over and over, KILL_DELAY_US after
 * it started: one pass can end sooner on a fast device (6 GiB in 0.5 s
 * on QEMU's NVMe with the huge zero folio), the next is then under way.
 * The seconds from the kill until the child was reaped go to *@waited,
 * its wait status to *@status. Returns 0, or -errno if the child could
 * not start (1: could not open the device) or was not reaped within 60 s.
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
	while (*waited < 60) {
		if (waitpid(pid, status, WNOHANG) == pid) {
			*waited = now_sec() - t_kill;
			return 0;
		}
		usleep(10000);
		*waited = now_sec() - t_kill;
	}
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

/*
 * killable and after_kill need a device of KILL_LEN. One made by the
 * fixture is made again at that size: memory-backed, it holds only what
 * the zeroout wrote until SIGKILL. Returns 1 to go on, 0 if skipped.
 */
static int kill_dev(struct __test_metadata *_metadata,
		    FIXTURE_DATA(zeroout) * self,
		    const FIXTURE_VARIANT(zeroout) * variant)
{
	char msg[256];
	int ret;

	if (variant->want_wz)
		SKIP(return 0, "only without Write Zeroes (the zero folio path)");
	if (self->dev.size >= KILL_LEN)
		return 1;
	if (!self->made.nb.cfs[0])
		SKIP(return 0, "%s is smaller than 6 GiB: %llu MiB",
		     self->dev.name, self->dev.size / MiB);
	blk_made_destroy(&self->made);
	ret = blk_test_dev(variant->env, 0, 512, KILL_MADE_MB, 0, KILL_LEN,
			   &self->made, &self->dev, msg, sizeof(msg));
	if (ret == -BLK_ESKIP)
		SKIP(return 0, "%s", msg);
	ASSERT_EQ(0, ret) TH_LOG("%s", msg);
	return 1;
}

/* A large zeroout can still be killed, and is reaped quickly. */
TEST_F_TIMEOUT(zeroout, killable, 600)
{
	double waited;
	int status, ret;

	if (!kill_dev(_metadata, self, variant))
		return;
	ret = kill_zeroout(&self->dev, &waited, &status);
	ASSERT_NE(1, ret) TH_LOG("child could not open %s", self->dev.path);
	ASSERT_NE(-ETIMEDOUT, ret)
		TH_LOG("BLKZEROOUT of 6GiB on %s not reaped %.1fs after SIGKILL",
		       self->dev.name, waited);
	ASSERT_EQ(0, ret) TH_LOG("pipe or fork: %s", strerror(-ret));
	ksft_print_msg("BLKZEROOUT of 6GiB on %s killed after 0.5s, reaped in %.2fs%s\n",
		       self->dev.name, waited, WIFSIGNALED(status) ? "" :
		       ", but the child exited: its zeroouts ended first");
	ksft_print_msg("pass iff killed by SIGKILL and reaped within %.0fs (limit under TCG)\n",
		       KILL_REAP_SECS);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_GE(KILL_REAP_SECS, waited);
}

/* After a killed zeroout the device still zeroes correctly. */
TEST_F_TIMEOUT(zeroout, after_kill, 600)
{
	struct zr_result res;
	double waited;
	int fd, status, ret;

	if (!kill_dev(_metadata, self, variant))
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
