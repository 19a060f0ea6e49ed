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

/* The fail_page_alloc knobs zr_fail_order9() sets, probability first. */
#define ZR_FAIL_KNOBS		9

/*
 * Make fail_page_alloc fail allocations of order 9 and up (the huge zero
 * folio) with @probability percent, whatever their GFP flags, in this task
 * and the tasks it forks after (task-filter, /proc/self/make-it-fail):
 * no other task on the machine is affected. "0" turns it off. With
 * @saved (ZR_FAIL_KNOBS of them) each knob is saved on its first write,
 * for zr_fail_restore(). Returns 0, or -errno of the first knob that
 * could not be set (and then turns it off).
 */
static inline int zr_fail_order9(struct blk_saved *saved,
				 const char *probability)
{
	static const char * const set[ZR_FAIL_KNOBS][2] = {
		{ "probability", "0" },
		{ "min-order", "9" },
		{ "times", "-1" },
		{ "ignore-gfp-wait", "N" },
		{ "ignore-gfp-highmem", "N" },
		{ "task-filter", "Y" },
		{ "verbose", "0" },
		{ "interval", "1" },
		{ "space", "0" },
	};
	int off = !strcmp(probability, "0");
	unsigned int i, n = off ? 1 : ZR_FAIL_KNOBS + 1;
	char path[256];
	int ret = 0;

	/* Probability to 0, the other knobs, then probability (unless off). */
	for (i = 0; i < n && !ret; i++) {
		unsigned int k = i % ZR_FAIL_KNOBS;
		const char *val = i == ZR_FAIL_KNOBS ? probability : set[k][1];

		snprintf(path, sizeof(path), ZR_FAIL_DIR "%s", set[k][0]);
		ret = saved ? blk_sysfs_set_saved(&saved[k], path, val) :
		      blk_sysfs_write(path, val);
		if (ret)
			ksft_print_msg("%s = %s: %s\n", path, val,
				       strerror(-ret));
	}
	if (!ret)
		ret = blk_sysfs_write("/proc/self/make-it-fail", off ? "0" : "1");
	if (ret)
		blk_sysfs_write(ZR_FAIL_DIR "probability", "0");
	return ret;
}

/* Put back what zr_fail_order9() changed: probability first. */
static inline void zr_fail_restore(struct blk_saved *saved)
{
	unsigned int i;

	for (i = 0; i < ZR_FAIL_KNOBS; i++)
		blk_saved_restore(&saved[i]);
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
 * the number of bios it queued on @dev (block_bio_queue, through a
 * private trace instance), or -1 if the trace was incomplete. Returns 0
 * if every step ran (res says whether the data was right), or -errno of
 * a failed pattern write / read back or trace setup (-BLK_ESKIP: no
 * tracing in this kernel).
 */
static inline int zr_run(int fd, const struct blkdev *dev,
			 unsigned long long start, unsigned long long len,
			 enum zr_method method, struct zr_result *res,
			 long *bios)
{
	int has_before = start >= dev->lbs;
	int has_after = start + len + dev->lbs <= dev->size;
	struct blk_trace_sum sum;
	struct blk_trace t;
	char name[64], msg[256];
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
	/*
	 * 1024 bios per GiB with 4 KiB bvecs, 8192 requests at 128 KiB:
	 * 8 MiB per CPU is plenty.
	 */
	if (!ret && bios) {
		snprintf(name, sizeof(name), "zeroout_%d", getpid());
		ret = blk_trace_create(&t, name, dev->major, dev->minor, 8192,
				       msg, sizeof(msg));
		if (ret)
			ksft_print_msg("%s\n", msg);
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
		*bios = blk_trace_collect(&t, 'W', &sum) ? -1 : sum.bios;
		blk_trace_destroy(&t);
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

/*
 * The verdict on one zr_run(): print what was measured and the pass
 * criterion, return 1 if it passed.
 */
static inline int zr_verdict(const char *desc, const struct blkdev *dev,
			     int ret, const struct zr_result *res)
{
	const char *scope = res->samples > 1 ? "sampled" : "in full";

	if (ret)
		ksft_print_msg("%s on %s: pattern I/O or trace setup failed: %s\n",
			       desc, dev->name, strerror(-ret));
	else if (res->ret)
		ksft_print_msg("%s on %s: zeroing failed: %s\n",
			       desc, dev->name, strerror(-res->ret));
	else if (res->bad >= 0)
		ksft_print_msg("%s on %s: %s at byte %lld\n",
			       desc, dev->name, res->what, res->bad);
	else
		ksft_print_msg("%s on %s: zeros (%s, %lu pieces), neighbours intact, %.2fs\n",
			       desc, dev->name, scope, res->samples,
			       res->secs);
	ksft_print_msg("%s: pass iff the call succeeds, the range reads zeros and the blocks around it keep their pattern\n",
		       desc);
	return !ret && !res->ret && res->bad < 0;
}

/*
 * The verdict on a traced 1 GiB zr_run()'s bio count: @lo..@hi bios of
 * @what.
 */
static inline int zr_bios_verdict(const char *desc, const struct blkdev *dev,
				  long bios, long lo, long hi,
				  const char *what)
{
	if (bios < 0)
		ksft_print_msg("%s on %s: trace incomplete\n", desc,
			       dev->name);
	else
		ksft_print_msg("%s on %s: %ld bios/GiB; pass iff %ld..%ld (%s)\n",
			       desc, dev->name, bios, lo, hi, what);
	return bios >= lo && bios <= hi;
}

#endif /* ZEROOUT_COMMON_H */
