// SPDX-License-Identifier: GPL-2.0
/*
 * BLKZEROOUT on a device without Write Zeroes when the 2 MiB huge zero
 * folio cannot be used: it must fall back to the 4 KiB ZERO_PAGE (about
 * 1024 bios per GiB) and still zero correctly, and use the huge folio
 * again (at most ZR_HUGE_MAX_BIOS bios per GiB) once the obstacle is gone.
 *
 * Risk: the allocation-failure path of patch 5 ("mm/huge_memory: let
 * kernel users take the huge zero folio at run time"), whose
 * GFP_TRANSHUGE_LIGHT allocation fails on fragmented memory in the field:
 * a NULL folio used, a zeroout that fails or zeroes wrongly instead of
 * falling back, or a failure after which the folio is never tried again. The series' zeroout.huge_folio skips
 * when the allocation failed, KUnit cannot fail it, and no blktests case
 * injects it; guest/stress's allocation-failure case does the same under
 * load, on the debug kernel only.
 *
 *  1. The allocation of the huge zero folio fails (fail_page_alloc on
 *     order >= 9). The kernel keeps the folio for good once the block
 *     layer has taken it, so this only works before the first huge-folio
 *     zeroout of the boot, and the harness does not promise an order
 *     (6.12's runs tests as declared, 7.0's in reverse): this test is
 *     built from this file as a program of its own, zeroout_first_use
 *     (-DZR_FIRST_USE), which runs before the other block tests, and
 *     skips if /proc/vmstat thp_zero_page_alloc is already non-zero.
 *     After a failure the kernel waits a second before trying again, so
 *     the check after lifting the failure waits 1.5 s.
 *  2. (v5) /sys/kernel/mm/transparent_hugepage/use_zero_page at 0: gone,
 *     since it changed a machine-wide setting under every other task.
 *
 * Every sysfs / debugfs knob touched is saved on its first write and
 * restored in the fixture teardown, which the harness runs in its parent
 * process, also after a failed assertion or a crash (not after a timeout:
 * the harness kills the whole process group). The device is made here (a
 * null_blk of 1280 MiB) unless named by BLK_NOWZ_DEV and allowed by
 * BLK_TEST_DESTROY (see blk_find()), and removed in the same teardown.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zeroout_common.h"

#define USE_ZERO_PAGE	ZR_THP_DIR "/use_zero_page"
#define RANGE_LEN	(1 * GiB)
/* A null_blk made here is memory-backed: the guest must hold it. */
#define MADE_MB		1280
#define RETRY_WAIT_US	1500000	/* kernel holds off retries for 1 s (HZ) */
/* The zeroout that makes the kernel try (and fail, or not use) the folio. */
#define STIMULUS_LEN	(2 * MiB)
/*
 * Allocated at boot and handed to kernel users whatever use_zero_page
 * says (Linux 6.18 and later).
 */
#define PERSISTENT	"CONFIG_PERSISTENT_HUGE_ZERO_FOLIO"

FIXTURE(zeroout_fallback) {
	struct blk_made made;
	struct blkdev dev;
	struct blk_saved fail[ZR_FAIL_KNOBS];
	unsigned long long range_start;
};

FIXTURE_VARIANT(zeroout_fallback) {
	const char *env;
};

FIXTURE_VARIANT_ADD(zeroout_fallback, nowz) {
	.env = "BLK_NOWZ_DEV",
};

FIXTURE_SETUP(zeroout_fallback)
{
	char msg[256];
	int ret;

	if (geteuid())
		SKIP(return, "must be run as root");
	if (access(USE_ZERO_PAGE, W_OK))
		SKIP(return, "no " USE_ZERO_PAGE " (CONFIG_TRANSPARENT_HUGEPAGE)");
	ret = blk_test_dev(variant->env, 0, 512, MADE_MB, 0, 0, &self->made,
			   &self->dev, msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
	/* 1 GiB in where the device has room, else 128 MiB in. */
	self->range_start = self->dev.size >= 2 * GiB + MiB ? 1 * GiB :
			    128 * MiB;
	if (self->dev.size < self->range_start + RANGE_LEN + MiB)
		SKIP(return, "%s is too small: %llu MiB", self->dev.name,
		     self->dev.size / MiB);
	ksft_print_msg("device %s: %llu MiB, %u-byte blocks; thp_zero_page_alloc %lld\n",
		       self->dev.name, self->dev.size / MiB, self->dev.lbs,
		       vmstat_read("thp_zero_page_alloc"));
}

FIXTURE_TEARDOWN_PARENT(zeroout_fallback)
{
	zr_fail_restore(self->fail);
	blk_made_destroy(&self->made);
}

/*
 * Pattern, zero with BLKZEROOUT, verify: the 1 GiB range, traced
 * (*@bios), or without @bios STIMULUS_LEN of it, untraced.
 */
static int zeroout_range(const struct blkdev *dev, unsigned long long start,
			 struct zr_result *res, long *bios)
{
	int fd, ret;

	if (bios)
		*bios = -1;
	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0)
		return -errno;
	ret = zr_run(fd, dev, start, bios ? RANGE_LEN : STIMULUS_LEN,
		     ZR_BLKZEROOUT, res, bios);
	close(fd);
	return ret;
}

/*
 * The verdict on a traced 1 GiB zeroout_range() under condition @what:
 * zeros, and 4 KiB ZERO_PAGE bvecs (@small) or 2 MiB huge zero folio
 * bvecs.
 */
static void verdict_1g(struct __test_metadata *_metadata,
		       const struct blkdev *dev, unsigned long long start,
		       const char *what, int ret, const struct zr_result *res,
		       long bios, int small)
{
	char desc[128];

	if (ret == -BLK_ESKIP)
		SKIP(return, "no block tracepoints in a tracefs instance");
	snprintf(desc, sizeof(desc), "%s: zeroout 1GiB [%llu+%llu]", what,
		 start, RANGE_LEN);
	EXPECT_TRUE(zr_verdict(desc, dev, ret, res));
	if (small) {
		EXPECT_TRUE(zr_bios_verdict(desc, dev, bios, ZR_SMALL_MIN_BIOS,
					    ZR_SMALL_MAX_BIOS,
					    "4KiB ZERO_PAGE bvecs"));
	} else {
		EXPECT_TRUE(zr_bios_verdict(desc, dev, bios, 1,
					    ZR_HUGE_MAX_BIOS,
					    "2MiB huge zero folio bvecs"));
	}
}

/* Why the allocation-failure test cannot run in this boot, or NULL. */
static const char *alloc_fail_skip(void)
{
	long long alloc = vmstat_read("thp_zero_page_alloc");

	if (access(ZR_FAIL_DIR "probability", W_OK))
		return "no " ZR_FAIL_DIR " (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS, debugfs mounted)";
	if (alloc < 0)
		return "no thp_zero_page_alloc in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS)";
	if (blk_kconfig(PERSISTENT) == 1)
		return PERSISTENT "=y: the huge zero folio is allocated at boot";
	if (alloc > 0)
		return "huge zero folio already allocated this boot (thp_zero_page_alloc > 0): the failure case needs a fresh boot, run this test first";
	return NULL;
}

/* zeroout_range() while every order-9 allocation fails. */
static int zeroout_failing(struct __test_metadata *_metadata,
			   FIXTURE_DATA(zeroout_fallback) * self,
			   struct zr_result *res, long *bios)
{
	int ret = zr_fail_order9(self->fail, "100");

	ASSERT_EQ(0, ret) TH_LOG("cannot set up " ZR_FAIL_DIR ": %s",
				 strerror(-ret));
	ret = zeroout_range(&self->dev, self->range_start, res, bios);
	zr_fail_order9(self->fail, "0");
	return ret;
}

/*
 * With every order-9 allocation failing, a 1 GiB zeroout still zeroes,
 * takes 4 KiB ZERO_PAGE bvecs, and the kernel did try (and fail) to
 * allocate the huge zero folio; with the failure lifted, 1.5 s later
 * (past the kernel's back-off), a 1 GiB zeroout zeroes with 2 MiB huge
 * zero folio bvecs.
 */
TEST_F_TIMEOUT(zeroout_fallback, alloc_fail, 600)
{
	const char *skip = alloc_fail_skip();
	long long fail0, fail1, alloc0, alloc1;
	struct zr_result res;
	long bios;
	int ret;

	if (skip)
		SKIP(return, "%s", skip);
	alloc0 = vmstat_read("thp_zero_page_alloc");
	fail0 = vmstat_read("thp_zero_page_alloc_failed");
	ret = zeroout_failing(_metadata, self, &res, &bios);
	alloc1 = vmstat_read("thp_zero_page_alloc");
	fail1 = vmstat_read("thp_zero_page_alloc_failed");
	verdict_1g(_metadata, &self->dev, self->range_start,
		   "order-9 allocation failing", ret, &res, bios, 1);
	ksft_print_msg("order-9 allocation failing: thp_zero_page_alloc_failed +%lld, thp_zero_page_alloc +%lld; pass iff >0 and 0 (huge zero folio allocation attempted and failed)\n",
		       fail1 - fail0, alloc1 - alloc0);
	EXPECT_LT(fail0, fail1);
	EXPECT_EQ(alloc0, alloc1);

	usleep(RETRY_WAIT_US);
	ret = zeroout_range(&self->dev, self->range_start, &res, &bios);
	verdict_1g(_metadata, &self->dev, self->range_start,
		   "failure lifted, 1.5s later", ret, &res, bios, 0);
}

TEST_HARNESS_MAIN
