// SPDX-License-Identifier: GPL-2.0
/*
 * Direct writes through trimmed bios, read back, on the QEMU NVMe
 * namespaces (make test's plain NVMe boot, where guest/init names them in
 * BLK_NOWZ_DEV and BLK_WZ_DEV; a memory-backed null_blk of its own
 * elsewhere).
 *
 * Risk: the trim shortens a bio that another follows and hands its tail
 * back with iov_iter_revert(). Across unequal iovec segments a wrong
 * revert puts the following bytes at the wrong device offset, and a
 * request count cannot see that: the series' dio_split counts requests
 * and bios on NVMe, but reads back no vectored write. This guard writes
 * 64 MiB of single pages (no two physically adjacent, so each bio of an
 * unpatched kernel holds BLK_MAX_VECS pages) as one pwrite() and as one
 * pwritev() of unequal segments in shuffled buffer order, at limits where
 * the trim acts, checks in the trace that it acted (more bios than whole
 * bios of BLK_MAX_VECS pages), and reads the device back.
 *
 * What the earlier, larger version of this guard also checked is covered
 * elsewhere: the request shape on NVMe by dio_split (named devices, the
 * debug boot), the split points by KUnit bio_split_rw_last, the bio
 * bounds by dio_io's dio_bios, plain writes by dio_verify.sh and dio_fs.
 *
 * The first 64 MiB of a named device are overwritten. max_sectors_kb is
 * saved on its first write; it, the trace instance and a device made here
 * are restored or removed in the teardown, which the harness runs in its
 * parent process, also after a failed assertion.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "blk_common.h"

#define BUF_LEN		(64 * MiB)
#define MADE_MB		192		/* null_blk made here: memory-backed */
#define NR_SEGS		1024		/* at most, for pwritev (IOV_MAX) */
#define SEG_MAX_PAGES	48
#define TRACE_BUF_KB	4096
#define SEED		0x5eed2023ULL

struct rb_ctx {
	struct blk_made made;
	struct blkdev dev;
	struct blk_saved max_kb;
	struct blk_trace tr;
	struct blk_buf buf;
	char *back;			/* BUF_LEN, what is read back */
	struct iovec segs[NR_SEGS];
	int nr_segs;
	size_t segs_len;
	int fd;
};

/*
 * Segments of 1..SEG_MAX_PAGES pages carved one after the other out of
 * the buffer, then shuffled, so that the write's order is not the
 * buffer's: a revert to the wrong segment writes other bytes.
 */
static void make_segments(struct rb_ctx *c)
{
	unsigned long long seed = SEED;
	struct iovec t;
	size_t off = 0, len;
	int i, j;

	for (c->nr_segs = 0; c->nr_segs < NR_SEGS; c->nr_segs++) {
		len = (1 + blk_rand(&seed) % SEG_MAX_PAGES) * BLK_PAGE;
		if (off + len > BUF_LEN)
			break;
		c->segs[c->nr_segs].iov_base = c->buf.addr + off;
		c->segs[c->nr_segs].iov_len = len;
		off += len;
	}
	c->segs_len = off;
	for (i = c->nr_segs - 1; i > 0; i--) {
		j = blk_rand(&seed) % (i + 1);
		t = c->segs[i];
		c->segs[i] = c->segs[j];
		c->segs[j] = t;
	}
}

/*
 * The device (@lbs-byte blocks, named in @env or made here) at
 * max_sectors_kb @kb, opened with O_DIRECT, traced, and the buffer.
 * Returns 0, -BLK_ESKIP or -errno, the reason in @msg.
 */
static int ctx_make(struct rb_ctx *c, const char *env, unsigned int lbs,
		    unsigned int kb, char *msg, size_t msglen)
{
	char name[64];
	int ret;

	c->fd = -1;
	if (geteuid()) {
		snprintf(msg, msglen, "must be run as root (sysfs, tracefs, pagemap)");
		return -BLK_ESKIP;
	}
	ret = blk_test_dev(env, -1, lbs, MADE_MB, lbs, BUF_LEN, &c->made,
			   &c->dev, msg, msglen);
	if (ret)
		return ret;
	if (kb > c->dev.max_hw_sectors_kb) {
		snprintf(msg, msglen, "max_sectors_kb %u on %s: above max_hw_sectors_kb %u",
			 kb, c->dev.name, c->dev.max_hw_sectors_kb);
		return -BLK_ESKIP;
	}
	ret = blk_queue_set_saved(&c->max_kb, c->dev.name, "max_sectors_kb",
				  kb);
	if (ret) {
		snprintf(msg, msglen, "max_sectors_kb %u on %s: %s", kb,
			 c->dev.name, strerror(-ret));
		return ret;
	}
	snprintf(name, sizeof(name), "dio_align_%d", getpid());
	ret = blk_trace_create(&c->tr, name, c->dev.major, c->dev.minor,
			       TRACE_BUF_KB, msg, msglen);
	if (ret)
		return ret;
	c->fd = open(c->dev.path, O_RDWR | O_DIRECT);
	if (c->fd < 0) {
		snprintf(msg, msglen, "cannot open %s: %s", c->dev.path,
			 strerror(errno));
		return -errno;
	}
	ret = blk_buf_runs(&c->buf, BUF_LEN / BLK_PAGE, 1, 1, SEED, msg,
			   msglen);
	if (ret)
		return ret == -EPERM ? -BLK_ESKIP : ret;
	if (posix_memalign((void **)&c->back, BLK_PAGE, BUF_LEN)) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	make_segments(c);
	return 0;
}

/*
 * Write @len bytes (as the segments if @vec) at max_sectors_kb @kb, each byte's pattern that of
 * its device offset, and read them back. Passes iff the write took more
 * bios than whole bios of BLK_MAX_VECS pages (the trim acted) and every
 * byte read back is the one written there.
 */
static void write_read_back(struct __test_metadata *_metadata,
			    struct rb_ctx *c, unsigned int kb, int vec)
{
	size_t len = vec ? c->segs_len : BUF_LEN, off = 0;
	unsigned long whole = (len + BLK_MAX_VECS * BLK_PAGE - 1) /
			      (BLK_MAX_VECS * BLK_PAGE);
	struct blk_trace_sum s;
	long long bad;
	ssize_t n;
	int i, ret;

	if (vec) {
		for (i = 0; i < c->nr_segs; i++) {
			blk_pattern_fill(c->segs[i].iov_base,
					 c->segs[i].iov_len, off, 7);
			off += c->segs[i].iov_len;
		}
	} else {
		blk_pattern_fill(c->buf.addr, len, 0, 7);
	}
	ASSERT_EQ(0, blk_trace_clear(&c->tr));
	n = vec ? pwritev(c->fd, c->segs, c->nr_segs, 0) :
		  pwrite(c->fd, c->buf.addr, len, 0);
	ASSERT_EQ((ssize_t)len, n) TH_LOG("%s of %zu bytes on %s: %s",
					  vec ? "pwritev" : "pwrite", len,
					  c->dev.name,
					  n < 0 ? strerror(errno) : "short");
	ret = blk_trace_collect(&c->tr, 'W', &s);
	ASSERT_EQ(0, ret) TH_LOG("trace of %s: %s", c->dev.name,
				 strerror(-ret));
	ret = pread_full(c->fd, c->back, len, 0);
	ASSERT_EQ(0, ret) TH_LOG("read back: %s", strerror(-ret));
	bad = blk_pattern_check(c->back, len, 0, 7);
	ksft_print_msg("dio %s of %zu KiB%s on %s at max_sectors_kb %u: %ld bios, %ld requests (whole bios of %d pages: %lu); first byte read back wrong: %lld; pass iff more bios than %lu and none wrong\n",
		       vec ? "pwritev" : "pwrite", (size_t)(len / KiB),
		       vec ? " in shuffled unequal segments" : "", c->dev.name,
		       kb, s.bios, s.rqs, BLK_MAX_VECS, whole, bad, whole);
	EXPECT_LT(whole, (unsigned long)s.bios)
		TH_LOG("no bio was trimmed: the case did not test its risk");
	EXPECT_EQ(-1, bad) TH_LOG("device offset %lld holds other data", bad);
}

FIXTURE(dio_align) {
	struct rb_ctx c;
};

FIXTURE_VARIANT(dio_align) {
	const char *env;	/* where a named device comes from */
	unsigned int lbs;
	unsigned int kb;	/* max_sectors_kb: the trim acts there */
};

/* { env, lbs, kb } */
FIXTURE_VARIANT_ADD(dio_align, 512_max60k) { "BLK_NOWZ_DEV", 512, 60 };
FIXTURE_VARIANT_ADD(dio_align, 512_max96k) { "BLK_NOWZ_DEV", 512, 96 };
FIXTURE_VARIANT_ADD(dio_align, 4096_max96k) { "BLK_WZ_DEV", 4096, 96 };
FIXTURE_VARIANT_ADD(dio_align, 4096_max508k) { "BLK_WZ_DEV", 4096, 508 };

FIXTURE_SETUP(dio_align)
{
	char msg[256];
	int ret;

	ret = ctx_make(&self->c, variant->env, variant->lbs, variant->kb,
		       msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
}

FIXTURE_TEARDOWN_PARENT(dio_align)
{
	blk_saved_restore(&self->c.max_kb);
	blk_trace_destroy(&self->c.tr);
	blk_made_destroy(&self->c.made);
}

TEST_F_TIMEOUT(dio_align, pwrite, 300)
{
	write_read_back(_metadata, &self->c, variant->kb, 0);
}

TEST_F_TIMEOUT(dio_align, pwritev, 300)
{
	write_read_back(_metadata, &self->c, variant->kb, 1);
}

TEST_HARNESS_MAIN
