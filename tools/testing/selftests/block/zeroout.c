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
 * The devices are made here (a null_blk of 1280 MiB, a scsi_debug disk)
 * unless named by BLK_NOWZ_DEV / BLK_WZ_DEV and allowed by
 * BLK_TEST_DESTROY (see blk_find()); the named devices' data is
 * destroyed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "zeroout_common.h"

#define NR_CASES	11
/* A null_blk made here is memory-backed: the guest must hold it. */
#define NOWZ_MADE_MB	1280
#define SHAPE_LEN	(1 * GiB)
#define KILL_LEN	(6 * GiB)
#define KILL_DELAY_US	500000
/* Native kernels reap in well under a second; QEMU TCG is 10-50x slower. */
#define KILL_REAP_SECS	5.0

struct zr_case {
	const char *desc;
	unsigned long long start;
	unsigned long long len;
	enum zr_method method;
};

static void run_cases(const struct blkdev *dev, int present, const char *why)
{
	unsigned long long lbs = present ? dev->lbs : 512;
	/* 1 GiB in, or 16 MiB in on a small device (scsi_debug made here). */
	unsigned long long base = present && dev->size < 1 * GiB + 128 * MiB ?
				  16 * MiB : 1 * GiB;
	unsigned long long M2 = 2 * MiB;
	struct zr_case cases[NR_CASES] = {
		{ "1 logical block", base + 7 * lbs, lbs },
		{ "unaligned head+tail across two 2MiB boundaries",
		  base + M2 - 3 * lbs, 2 * M2 + 5 * lbs },
		{ "exactly 2MiB, aligned", base + 16 * MiB, M2 },
		{ "2MiB - 1 block", base + 32 * MiB, M2 - lbs },
		{ "2MiB + 1 block", base + 48 * MiB, M2 + lbs },
		{ "255x2MiB", 512 * MiB, 255 * M2 },
		{ "256x2MiB, start 1 block past 2MiB", 512 * MiB + lbs,
		  256 * M2 },
		{ "257x2MiB", 512 * MiB, 257 * M2 },
		{ ">4GiB in one call (4GiB+2MiB+2 blocks)", base - lbs,
		  4 * GiB + M2 + 2 * lbs },
		{ "whole device", 0, 0 },
		{ "fallocate(ZERO_RANGE|KEEP_SIZE) 3MiB+2 blocks unaligned",
		  base + 80 * MiB + lbs, 3 * MiB + 2 * lbs, ZR_FALLOCATE },
	};
	struct zr_result res;
	char desc[160];
	int fd = -1, i, ret;

	if (present) {
		cases[9].len = dev->size;
		fd = open(dev->path, O_RDWR | O_DIRECT);
		if (fd < 0) {
			ksft_print_msg("open %s: %s\n", dev->path,
				       strerror(errno));
			present = 0;
			why = "cannot open the device";
		}
	}
	for (i = 0; i < NR_CASES; i++) {
		const struct zr_case *c = &cases[i];

		snprintf(desc, sizeof(desc), "%s%s [%llu+%llu]",
			 c->method == ZR_FALLOCATE ? "" : "zeroout ",
			 c->desc, c->start, c->len);
		if (!present) {
			ksft_test_result_skip("%s: %s\n", desc, why);
			continue;
		}
		if (c->start + c->len > dev->size) {
			ksft_test_result_skip("%s on %s: device has only %llu MiB\n",
					      desc, dev->name,
					      dev->size / MiB);
			continue;
		}
		ret = zr_run(fd, dev, c->start, c->len, c->method, &res, NULL);
		zr_report(desc, dev, ret, &res);
	}
	if (fd >= 0)
		close(fd);
}

static void test_shape(const struct blkdev *dev, int present)
{
	/* Away from the cases' ranges where the device has room. */
	unsigned long long start = present && dev->size >= 3 * GiB ? 2 * GiB : 0;
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

	if (!present || start + SHAPE_LEN > dev->size) {
		ksft_test_result_skip("zeroout 1GiB bio shape: %s\n",
				      present ? "device smaller than 1 GiB" :
				      "no device without Write Zeroes");
		return;
	}
	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		ksft_test_result_fail("zeroout 1GiB bio shape: open %s: %s\n",
				      dev->path, strerror(errno));
		return;
	}
	ret = zr_run(fd, dev, start, SHAPE_LEN, ZR_BLKZEROOUT, &res, &bios);
	close(fd);

	if (ret)
		ksft_test_result_fail("zeroout 1GiB on %s: pattern I/O or tracefs setup failed: %s\n",
				      dev->name, strerror(-ret));
	else if (res.ret)
		ksft_test_result_fail("zeroout 1GiB on %s: BLKZEROOUT failed: %s\n",
				      dev->name, strerror(-res.ret));
	else if (res.bad >= 0)
		ksft_test_result_fail("zeroout 1GiB on %s: %s at byte %lld\n",
				      dev->name, res.what, res.bad);
	else if (bios < 0)
		ksft_test_result_fail("zeroout 1GiB on %s: trace incomplete\n",
				      dev->name);
	else
		ksft_test_result(bios >= lo && bios <= hi,
				 "zeroout 1GiB on %s: %ld bios/GiB (pass iff %ld..%ld: %s), zeros, %.2fs\n",
				 dev->name, bios, lo, hi, bvecs, res.secs);
}

static void test_killable(const struct blkdev *dev, int present)
{
	struct zr_result res;
	int fd, pipefd[2], status, reaped = 0;
	double t_kill, waited = 0;
	pid_t pid;
	char c;

	if (!present || KILL_LEN > dev->size) {
		ksft_test_result_skip("zeroout killable: no device without Write Zeroes of >= 6 GiB\n");
		ksft_test_result_skip("zeroout after kill: not run\n");
		return;
	}
	if (pipe(pipefd))
		ksft_exit_fail_perror("pipe");
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		close(pipefd[0]);
		fd = open(dev->path, O_RDWR);
		if (fd < 0)
			_exit(2);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(2);
		blk_zeroout(fd, 0, KILL_LEN);
		_exit(1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		waitpid(pid, &status, 0);
		ksft_test_result_fail("zeroout killable: child could not open %s\n",
				      dev->path);
		ksft_test_result_skip("zeroout after kill: not run\n");
		return;
	}
	close(pipefd[0]);
	usleep(KILL_DELAY_US);
	kill(pid, SIGKILL);
	t_kill = now_sec();
	while (waited < 60) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			reaped = 1;
			break;
		}
		usleep(10000);
		waited = now_sec() - t_kill;
	}
	waited = now_sec() - t_kill;
	if (!reaped) {
		ksft_test_result_fail("zeroout killable: BLKZEROOUT of 6GiB on %s not reaped %.1fs after SIGKILL\n",
				      dev->name, waited);
		waitpid(pid, &status, 0);
	} else {
		ksft_test_result(WIFSIGNALED(status) &&
				 WTERMSIG(status) == SIGKILL &&
				 waited <= KILL_REAP_SECS,
				 "zeroout killable: BLKZEROOUT of 6GiB on %s killed after 0.5s, reaped in %.2fs (limit %.0fs under TCG)%s\n",
				 dev->name, waited, KILL_REAP_SECS,
				 WIFSIGNALED(status) ? "" :
				 ", but the child exited: zeroout finished first");
	}

	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		ksft_test_result_fail("zeroout after kill: open: %s\n",
				      strerror(errno));
		return;
	}
	zr_report("zeroout after kill: 1MiB+1 block",
		  dev, zr_run(fd, dev, 64 * MiB + dev->lbs, MiB + dev->lbs,
			      ZR_BLKZEROOUT, &res, NULL), &res);
	close(fd);
}

/* A device by name or made here (blk_find()); skip or fail with the reason. */
static int get_dev(const char *env, int want_wz, struct blkdev *dev,
		   char *why, size_t whylen)
{
	int ret;

	/* Made: a null_blk without Write Zeroes, a scsi_debug disk with. */
	ret = blk_find(env, want_wz, want_wz ? 0 : 512, NOWZ_MADE_MB, dev,
		       why, whylen);
	if (ret && ret != -BLK_ESKIP)
		ksft_exit_fail_msg("%s\n", why);
	return !ret;
}

int main(void)
{
	char why_nowz[256], why_wz[256];
	struct blkdev nowz, wz;
	int has_nowz, has_wz;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	if (!trace_available())
		ksft_exit_skip("no block tracepoints in " TRACEFS "\n");
	has_nowz = get_dev("BLK_NOWZ_DEV", 0, &nowz, why_nowz,
			   sizeof(why_nowz));
	has_wz = get_dev("BLK_WZ_DEV", 1, &wz, why_wz, sizeof(why_wz));
	if (!has_nowz && !has_wz)
		ksft_exit_skip("no device: %s; %s\n", why_nowz, why_wz);
	if (has_nowz)
		ksft_print_msg("no Write Zeroes: %s, %llu MiB, %u-byte blocks\n",
			       nowz.name, nowz.size / MiB, nowz.lbs);
	if (has_wz)
		ksft_print_msg("Write Zeroes: %s, %llu MiB, %u-byte blocks, write_zeroes_max_bytes %llu\n",
			       wz.name, wz.size / MiB, wz.lbs, wz.wz_max);

	ksft_set_plan(2 * NR_CASES + 3);
	/* Shape first: the cases must not have warmed anything up for it. */
	test_shape(&nowz, has_nowz);
	run_cases(&nowz, has_nowz, why_nowz);
	run_cases(&wz, has_wz, why_wz);
	test_killable(&nowz, has_nowz);
	ksft_finished();
}
