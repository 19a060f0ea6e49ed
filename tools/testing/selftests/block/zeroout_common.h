/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zero a range of a block device and prove it: a known pattern is written
 * over the range and its neighbours first, then the range must read back
 * as zeros and the logical block just before and just after it must keep
 * the pattern. Ranges up to ZR_FULL_LIMIT are written and read in full;
 * larger ones (a full read of GiBs is too slow under QEMU TCG) are checked
 * on their first and last MiB plus one logical block in every MiB, at a
 * position that moves within the MiB from sample to sample.
 */
#ifndef ZEROOUT_COMMON_H
#define ZEROOUT_COMMON_H

#include "blk_common.h"

#define ZR_FULL_LIMIT	(64 * MiB)
#define ZR_EDGE		(1 * MiB)
#define ZR_STEP		(1 * MiB)
#define ZR_CHUNK	(4 * MiB)

/*
 * Bios per GiB of a zeroout through __blkdev_issue_zero_pages(): 2 MiB
 * huge zero folio bvecs give 2, or 64 of 16 MiB for a killable caller
 * such as BLKZEROOUT (at most 80 allowed); 4 KiB ZERO_PAGE bvecs give
 * 1024 bios of 1 MiB (BIO_MAX_VECS pages).
 */
#define ZR_HUGE_MAX_BIOS	80
#define ZR_SMALL_MIN_BIOS	900
#define ZR_SMALL_MAX_BIOS	1200
#define ZR_THP_DIR		"/sys/kernel/mm/transparent_hugepage"

#define ZR_FAIL_DIR		"/sys/kernel/debug/fail_page_alloc/"

/*
 * Make fail_page_alloc fail allocations of order 9 and up (the huge zero
 * folio) with @probability percent, whatever their GFP flags and task;
 * "0" turns it off. Returns 0, or -errno of the first knob that could not
 * be set (and then turns it off).
 */
static inline int zr_fail_order9(const char *probability)
{
	static const char * const set[][2] = {
		{ "probability", "0" },
		{ "min-order", "9" },
		{ "times", "-1" },
		{ "ignore-gfp-wait", "N" },
		{ "ignore-gfp-highmem", "N" },
		{ "task-filter", "N" },
		{ "verbose", "0" },
		{ "interval", "1" },
		{ "space", "0" },
	};
	char path[256];
	unsigned int i;
	int ret;

	if (!strcmp(probability, "0"))
		return blk_sysfs_write(ZR_FAIL_DIR "probability", "0");
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		snprintf(path, sizeof(path), ZR_FAIL_DIR "%s", set[i][0]);
		ret = blk_sysfs_write(path, set[i][1]);
		if (ret) {
			ksft_print_msg("%s = %s: %s\n", path, set[i][1],
				       strerror(-ret));
			return ret;
		}
	}
	ret = blk_sysfs_write(ZR_FAIL_DIR "probability", probability);
	if (ret)
		blk_sysfs_write(ZR_FAIL_DIR "probability", "0");
	return ret;
}

enum zr_method { ZR_BLKZEROOUT, ZR_FALLOCATE };

struct zr_result {
	int ret;			/* errno of the zeroing call, or 0 */
	double secs;			/* time of the zeroing call */
	unsigned long samples;		/* pieces checked inside the range */
	long long bad;			/* first wrong byte, or -1 */
	const char *what;		/* what was wrong at @bad */
};

static void *zr_buf;

enum zr_op { ZR_WRITE_PATTERN, ZR_CHECK_ZERO };

static inline int zr_piece(int fd, unsigned long long off,
			   unsigned long long len, enum zr_op op,
			   struct zr_result *res)
{
	unsigned long long done, n;
	long long bad;
	int ret;

	for (done = 0; done < len; done += n) {
		n = len - done < ZR_CHUNK ? len - done : ZR_CHUNK;
		if (op == ZR_WRITE_PATTERN) {
			blk_pattern_fill(zr_buf, n, off + done, 0);
			ret = pwrite_full(fd, zr_buf, n, off + done);
		} else {
			ret = pread_full(fd, zr_buf, n, off + done);
			if (!ret) {
				bad = zero_check(zr_buf, n, off + done);
				if (bad >= 0 && res->bad < 0) {
					res->bad = bad;
					res->what = "not zero inside the range";
				}
			}
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* The pieces of [start, start + len) that are patterned and checked. */
static inline int zr_pieces(int fd, unsigned int lbs, unsigned long long start,
			    unsigned long long len, enum zr_op op,
			    struct zr_result *res)
{
	unsigned long long k, off, edge;
	int ret;

	if (len <= ZR_FULL_LIMIT) {
		res->samples = 1;
		return zr_piece(fd, start, len, op, res);
	}
	edge = ZR_EDGE;
	ret = zr_piece(fd, start, edge, op, res);
	if (!ret)
		ret = zr_piece(fd, start + len - edge, edge, op, res);
	res->samples = 2;
	for (k = 1; !ret && (k + 1) * ZR_STEP < len; k++) {
		off = start + k * ZR_STEP + ((k * 37) % 256) * lbs % ZR_STEP;
		if (off + lbs > start + len - edge)
			break;
		ret = zr_piece(fd, off, lbs, op, res);
		res->samples++;
	}
	return ret;
}

static inline int zr_neighbour(int fd, const struct blkdev *dev,
			       unsigned long long off, int check,
			       struct zr_result *res, const char *what)
{
	long long bad;
	int ret;

	if (!check) {
		blk_pattern_fill(zr_buf, dev->lbs, off, 0);
		return pwrite_full(fd, zr_buf, dev->lbs, off);
	}
	ret = pread_full(fd, zr_buf, dev->lbs, off);
	if (ret)
		return ret;
	bad = blk_pattern_check(zr_buf, dev->lbs, off, 0);
	if (bad >= 0 && res->bad < 0) {
		res->bad = bad;
		res->what = what;
	}
	return 0;
}

/*
 * Pattern, zero with @method, verify. @fd is the device opened O_RDWR |
 * O_DIRECT. With @bios, the zeroing call alone is traced and *@bios is
 * the number of bios it queued on @dev (block_bio_queue), or -1 if the
 * trace was incomplete. Returns 0 if every step ran (res says whether the
 * data was right), or -errno of a failed pattern write / read back or
 * trace setup.
 */
static inline int zr_run(int fd, const struct blkdev *dev,
			 unsigned long long start, unsigned long long len,
			 enum zr_method method, struct zr_result *res,
			 long *bios)
{
	static const char * const events[] = { "block_bio_queue", NULL };
	int has_before = start >= dev->lbs;
	int has_after = start + len + dev->lbs <= dev->size;
	struct dev_trace t;
	double t0;
	int ret;

	memset(res, 0, sizeof(*res));
	res->bad = -1;
	if (bios)
		*bios = -1;
	if (!zr_buf && posix_memalign(&zr_buf, 4096, ZR_CHUNK))
		return -ENOMEM;

	ret = zr_pieces(fd, dev->lbs, start, len, ZR_WRITE_PATTERN, res);
	if (!ret && has_before)
		ret = zr_neighbour(fd, dev, start - dev->lbs, 0, res, NULL);
	if (!ret && has_after)
		ret = zr_neighbour(fd, dev, start + len, 0, res, NULL);
	/* 1024 bios per GiB with 4 KiB bvecs: 8 MiB per CPU is plenty. */
	if (!ret && bios) {
		ret = trace_start(&t, dev, events, 8192);
		if (ret)
			trace_stop(&t);
	}
	if (ret)
		return ret;

	t0 = now_sec();
	if (method == ZR_BLKZEROOUT)
		res->ret = blk_zeroout(fd, start, len);
	else
		res->ret = fallocate(fd, FALLOC_FL_ZERO_RANGE |
				     FALLOC_FL_KEEP_SIZE, start, len) ?
			   -errno : 0;
	res->secs = now_sec() - t0;
	if (bios) {
		*bios = trace_collect(&t, "block_bio_queue", NULL, NULL);
		trace_stop(&t);
	}
	if (res->ret)
		return 0;

	ret = zr_pieces(fd, dev->lbs, start, len, ZR_CHECK_ZERO, res);
	if (!ret && has_before)
		ret = zr_neighbour(fd, dev, start - dev->lbs, 1, res,
				   "block before the range lost its pattern");
	if (!ret && has_after)
		ret = zr_neighbour(fd, dev, start + len, 1, res,
				   "block after the range lost its pattern");
	return ret;
}

/* Report one zr_run() as a TAP line saying what was proved. */
static inline int zr_report(const char *desc, const struct blkdev *dev,
			    int ret, const struct zr_result *res)
{
	const char *scope = res->samples > 1 ? "sampled" : "in full";

	if (ret) {
		ksft_test_result_fail("%s on %s: pattern I/O failed: %s\n",
				      desc, dev->name, strerror(-ret));
		return 0;
	}
	if (res->ret) {
		ksft_test_result_fail("%s on %s: zeroing failed: %s\n",
				      desc, dev->name, strerror(-res->ret));
		return 0;
	}
	if (res->bad >= 0) {
		ksft_test_result_fail("%s on %s: %s at byte %lld\n",
				      desc, dev->name, res->what, res->bad);
		return 0;
	}
	ksft_test_result_pass("%s on %s: zeros (%s, %lu pieces), neighbours intact, %.2fs\n",
			      desc, dev->name, scope, res->samples, res->secs);
	return 1;
}

#endif /* ZEROOUT_COMMON_H */
