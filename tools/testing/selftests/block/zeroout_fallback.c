// SPDX-License-Identifier: GPL-2.0
/*
 * BLKZEROOUT on a device without Write Zeroes when the 2 MiB huge zero
 * folio cannot be used: it must fall back to the 4 KiB ZERO_PAGE (about
 * 1024 bios per GiB) and still zero correctly, and use the huge folio
 * again (at most 4 bios per GiB) once the obstacle is gone.
 *
 *  1. The allocation of the huge zero folio fails (fail_page_alloc on
 *     order >= 9). The kernel keeps the folio for good once the block
 *     layer has taken it, so this only works before the first huge-folio
 *     zeroout of the boot: this program must run before the other block
 *     tests, and skips this part if /proc/vmstat thp_zero_page_alloc is
 *     already non-zero. After a failure the kernel waits a second before
 *     trying again, so the check after lifting the failure waits 1.5 s.
 *  2. /sys/kernel/mm/transparent_hugepage/use_zero_page is 0.
 *
 * Every sysfs / debugfs knob touched is restored on exit, on failure and
 * on SIGTERM / SIGINT (the kselftest runner's timeout).
 */
#define _GNU_SOURCE
#include <signal.h>

#include "zeroout_common.h"

#define FAIL_DIR	ZR_FAIL_DIR
#define USE_ZERO_PAGE	ZR_THP_DIR "/use_zero_page"
#define RANGE_LEN	(1 * GiB)
/* A null_blk made here is memory-backed: the guest must hold it. */
#define MADE_MB		1280

/* 1 GiB in where the device has room, else 128 MiB in. */
static unsigned long long range_start;
#define RETRY_WAIT_US	1500000	/* kernel holds off retries for 1 s (HZ) */

struct knob {
	const char *path;
	char saved[64];
	int saved_ok;
};

/* Restored in reverse order: probability goes back to 0 first. */
static struct knob knobs[] = {
	{ USE_ZERO_PAGE },
	{ FAIL_DIR "min-order" },
	{ FAIL_DIR "times" },
	{ FAIL_DIR "ignore-gfp-wait" },
	{ FAIL_DIR "ignore-gfp-highmem" },
	{ FAIL_DIR "task-filter" },
	{ FAIL_DIR "verbose" },
	{ FAIL_DIR "interval" },
	{ FAIL_DIR "space" },
	{ FAIL_DIR "probability" },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static void knobs_save(void)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		knobs[i].saved_ok = !blk_sysfs_read(knobs[i].path, knobs[i].saved,
						sizeof(knobs[i].saved));
}

/* Async-signal-safe: open/write/close only. */
static void knobs_restore(void)
{
	int i;

	for (i = NR_KNOBS - 1; i >= 0; i--) {
		const char *val = knobs[i].saved;
		/* use_zero_page reads back "1", fail_page_alloc "Y"/"N": ok */
		if (knobs[i].saved_ok)
			blk_sysfs_write(knobs[i].path, val);
	}
}

/* exit() runs the atexit handlers: these and blk_find()'s removal. */
static void on_signal(int sig)
{
	knobs_restore();
	exit(128 + sig);
}

/* Pattern, zero with BLKZEROOUT (traced), verify: the 1 GiB range. */
static int zeroout_traced(const struct blkdev *dev, struct zr_result *res,
			  long *bios)
{
	int fd, ret;

	*bios = -1;
	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0)
		return -errno;
	ret = zr_run(fd, dev, range_start, RANGE_LEN, ZR_BLKZEROOUT, res, bios);
	close(fd);
	return ret;
}

static void report_small(const char *why, const struct blkdev *dev, long bios)
{
	if (bios < 0)
		ksft_test_result_fail("%s: zeroout 1GiB on %s: trace incomplete\n",
				      why, dev->name);
	else
		ksft_test_result(bios >= ZR_SMALL_MIN_BIOS && bios <= ZR_SMALL_MAX_BIOS,
				 "%s: zeroout 1GiB on %s: %ld bios/GiB (pass iff %d..%d: 4KiB ZERO_PAGE bvecs)\n",
				 why, dev->name, bios, ZR_SMALL_MIN_BIOS, ZR_SMALL_MAX_BIOS);
}

static void report_huge(const char *why, const struct blkdev *dev, int ret,
			const struct zr_result *res, long bios)
{
	if (ret || res->ret || res->bad >= 0)
		ksft_test_result_fail("%s: zeroout 1GiB on %s: failed (%s)\n",
				      why, dev->name,
				      ret ? strerror(-ret) :
				      res->ret ? strerror(-res->ret) : res->what);
	else if (bios < 0)
		ksft_test_result_fail("%s: zeroout 1GiB on %s: trace incomplete\n",
				      why, dev->name);
	else
		ksft_test_result(bios > 0 && bios <= ZR_HUGE_MAX_BIOS,
				 "%s: zeroout 1GiB on %s: zeros, %ld bios/GiB (pass iff 1..%d: 2MiB huge zero folio bvecs)\n",
				 why, dev->name, bios, ZR_HUGE_MAX_BIOS);
}

static void test_alloc_failure(const struct blkdev *dev, const char *skip)
{
	long long fail0, fail1, alloc0, alloc1;
	struct zr_result res;
	char desc[128];
	long bios;
	int ret;

	if (skip) {
		ksft_test_result_skip("order-9 allocation failing: zeros, neighbours intact: %s\n",
				      skip);
		ksft_test_result_skip("order-9 allocation failing: 4KiB bvecs: %s\n",
				      skip);
		ksft_test_result_skip("order-9 allocation failing: huge zero folio allocation attempted and failed: %s\n",
				      skip);
		ksft_test_result_skip("failure lifted, 1.5s later: 2MiB bvecs: %s\n",
				      skip);
		return;
	}

	alloc0 = vmstat_read("thp_zero_page_alloc");
	fail0 = vmstat_read("thp_zero_page_alloc_failed");
	ret = zr_fail_order9("100");
	if (ret)
		ksft_exit_fail_msg("cannot set up " FAIL_DIR ": %s\n",
				   strerror(-ret));
	ret = zeroout_traced(dev, &res, &bios);
	zr_fail_order9("0");
	alloc1 = vmstat_read("thp_zero_page_alloc");
	fail1 = vmstat_read("thp_zero_page_alloc_failed");

	snprintf(desc, sizeof(desc), "order-9 allocation failing: 1GiB [%llu+%llu]",
		 range_start, RANGE_LEN);
	zr_report(desc, dev, ret, &res);
	report_small("order-9 allocation failing", dev, bios);
	ksft_test_result(fail1 > fail0 && alloc1 == alloc0,
			 "order-9 allocation failing: huge zero folio allocation attempted and failed: thp_zero_page_alloc_failed +%lld, thp_zero_page_alloc +%lld (pass iff >0 and 0)\n",
			 fail1 - fail0, alloc1 - alloc0);

	usleep(RETRY_WAIT_US);
	ret = zeroout_traced(dev, &res, &bios);
	report_huge("failure lifted, 1.5s later", dev, ret, &res, bios);
}

static void test_use_zero_page_off(const struct blkdev *dev)
{
	struct zr_result res;
	char desc[128];
	long bios;
	int ret;

	ret = blk_sysfs_write(USE_ZERO_PAGE, "0");
	if (ret) {
		ksft_test_result_skip("use_zero_page=0: cannot write " USE_ZERO_PAGE ": %s\n",
				      strerror(-ret));
		ksft_test_result_skip("use_zero_page=0: 4KiB bvecs: not run\n");
		ksft_test_result_skip("use_zero_page=1 again: 2MiB bvecs: not run\n");
		return;
	}
	ret = zeroout_traced(dev, &res, &bios);
	snprintf(desc, sizeof(desc), "use_zero_page=0: 1GiB [%llu+%llu]",
		 range_start, RANGE_LEN);
	zr_report(desc, dev, ret, &res);
	report_small("use_zero_page=0", dev, bios);

	blk_sysfs_write(USE_ZERO_PAGE, "1");
	ret = zeroout_traced(dev, &res, &bios);
	report_huge("use_zero_page=1 again", dev, ret, &res, bios);
}

int main(void)
{
	const char *skip_fail = NULL;
	struct blkdev dev;
	char msg[256];
	int ret;
	long long alloc;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	if (!trace_available())
		ksft_exit_skip("no block tracepoints in " TRACEFS "\n");
	ret = blk_find("BLK_NOWZ_DEV", 0, 512, MADE_MB, &dev, msg,
		       sizeof(msg));
	if (ret == -BLK_ESKIP)
		ksft_exit_skip("%s\n", msg);
	if (ret)
		ksft_exit_fail_msg("%s\n", msg);
	range_start = dev.size >= 2 * GiB + MiB ? 1 * GiB : 128 * MiB;
	if (dev.size < range_start + RANGE_LEN + MiB)
		ksft_exit_skip("%s is too small: %llu MiB\n", dev.name,
			       dev.size / MiB);
	if (access(USE_ZERO_PAGE, W_OK))
		ksft_exit_skip("no " USE_ZERO_PAGE " (CONFIG_TRANSPARENT_HUGEPAGE)\n");

	alloc = vmstat_read("thp_zero_page_alloc");
	if (access(FAIL_DIR "probability", W_OK))
		skip_fail = "no " FAIL_DIR " (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS, debugfs mounted)";
	else if (alloc < 0)
		skip_fail = "no thp_zero_page_alloc in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS)";
	else if (alloc > 0)
		skip_fail = "huge zero folio already allocated this boot (thp_zero_page_alloc > 0): the failure case needs a fresh boot, run this test first";

	ksft_print_msg("device %s: %llu MiB, %u-byte blocks; thp_zero_page_alloc %lld\n",
		       dev.name, dev.size / MiB, dev.lbs, alloc);
	knobs_save();
	atexit(knobs_restore);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	ksft_set_plan(7);
	test_alloc_failure(&dev, skip_fail);
	test_use_zero_page_off(&dev);
	knobs_restore();
	ksft_finished();
}
