// SPDX-License-Identifier: GPL-2.0
/*
 * Request shape of large O_DIRECT I/O on a block device.
 *
 * A bio larger than max_sectors is split by the queue. If the bio's size
 * follows the physical layout of the user buffer (bvecs merge physically
 * contiguous pages, 256 bvecs per bio), every bio ends in a short request:
 * full requests plus one small tail per bio. If bios that will be split
 * end on a multiple of max_sectors, every request of the I/O is exactly
 * max_sectors bytes except the last one of the I/O: that is what the
 * shape tests check. The bio tests check that this costs no extra bios:
 * an I/O of at most max_sectors is one bio, and a 64 MiB read needs no
 * more than about 1.5 times the bios the buffer layout implies (a design
 * capping each bio at one max_sectors chunk needs 512 at 128 KiB).
 *
 * The buffer's physical layout is built deterministically: pages of a
 * pool are moved one by one with mremap() into runs of 1 to 40 physically
 * contiguous pages (fixed seed), no two consecutive runs adjacent, and
 * checked through /proc/self/pagemap (needs root for the PFNs).
 *
 * The devices, one with 512-byte and one with 4096-byte logical blocks,
 * are memory-backed null_blk devices made here, unless named by
 * BLK_NOWZ_DEV / BLK_WZ_DEV and allowed by BLK_TEST_DESTROY (see
 * blk_find()); the first 64 MiB of a named device are overwritten.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "blk_common.h"

#define PAGE		4096ULL
#define BUF_LEN		(64 * MiB)
#define BUF_PAGES	(BUF_LEN / PAGE)
#define MADE_MB		192		/* null_blk made here: memory-backed */
#define RUN_MAX		40
#define BIO_MAX_VECS	256
#define NR_SEGS		1024	/* at most, for preadv / pwritev (IOV_MAX) */
#define SEG_MAX_PAGES	48
#define NR_SMALL	8
#define NR_SETTINGS	3
#define SMALL_MAX_KB	32
#define NR_SMALL_MAX	16
#define TRACE_BUF_KB	16384

static char *buf;		/* BUF_LEN, irregular physical layout */
static char *plain;		/* BUF_LEN, for reading back writes */
static unsigned int nr_runs, run_min, run_max;
static unsigned long layout_bios;	/* bios the layout implies */

/* Devices whose max_sectors_kb is to be restored. */
static struct blkdev *restore_dev[2];

static void restore_max_sectors(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (restore_dev[i])
			blk_queue_set(restore_dev[i], "max_sectors_kb",
				      restore_dev[i]->max_sectors_kb);
}

/* exit() runs the atexit handlers: these and blk_find()'s removal. */
static void on_signal(int sig)
{
	restore_max_sectors();
	exit(128 + sig);
}

/*
 * The irregular buffer: runs of 1 to RUN_MAX physically contiguous pages
 * of pseudo-random length (fixed seed), no run continuing the previous
 * one physically (blk_buf_runs()).
 */
static int build_buffer(char *msg, size_t len)
{
	static struct blk_buf b;
	struct blk_layout l;
	int ret;

	ret = blk_buf_runs(&b, BUF_PAGES, 1, RUN_MAX, 0x5eed2023ULL, msg,
			   len);
	if (ret)
		return ret;
	buf = b.addr;
	ret = blk_layout_scan(buf, BUF_PAGES, &l);
	if (ret) {
		snprintf(msg, len, "pagemap of the buffer: %s", strerror(-ret));
		return ret;
	}
	nr_runs = l.runs;
	run_min = l.run_min;
	run_max = l.run_max;
	/* Each run is one bvec, a bio holds BIO_MAX_VECS of them. */
	layout_bios = l.bios;
	snprintf(msg, len, "%lu pages in %u physically contiguous runs of %u..%u pages, %lu bios at %d bvecs per bio",
		 (unsigned long)BUF_PAGES, nr_runs, run_min, run_max,
		 layout_bios, BIO_MAX_VECS);
	return 0;
}

/* Trace one I/O ---------------------------------------------------------- */

#define MAX_RQ		65536

struct io_trace {
	struct blk_event rq[MAX_RQ];
	long nr_rq;
	long nr_bio;
	long other;		/* requests of the other direction */
	char dir;
};

static struct io_trace io;

static void add_rq(const struct blk_event *ev, void *arg)
{
	struct io_trace *t = arg;

	if (!strchr(ev->rwbs, t->dir)) {
		t->other++;
		return;
	}
	if (t->nr_rq < MAX_RQ)
		t->rq[t->nr_rq] = *ev;
	t->nr_rq++;
}

static void count_bio(const struct blk_event *ev, void *arg)
{
	struct io_trace *t = arg;

	if (strchr(ev->rwbs, t->dir))
		t->nr_bio++;
	else
		t->other++;
}

static int cmp_sector(const void *a, const void *b)
{
	const struct blk_event *x = a, *y = b;

	return x->sector < y->sector ? -1 : x->sector > y->sector;
}

enum io_op { IO_PREAD, IO_PWRITE, IO_PREADV, IO_PWRITEV };

static const char * const op_name[] = {
	"pread", "pwrite", "preadv", "pwritev",
};

/*
 * Unequal segments carved one after the other out of the whole of buf, so
 * that the vectored I/O, like the 64 MiB one, spans several bios.
 */
static struct iovec segs[NR_SEGS];
static int nr_segs;
static size_t segs_len;

static void make_segments(void)
{
	unsigned long long seed = 0x5e9ULL;
	size_t off = 0;

	for (nr_segs = 0; nr_segs < NR_SEGS; nr_segs++) {
		/*
		 * Multiples of 4 KiB (so of either logical block size): a
		 * segment ending inside a page would leave a gap at the NVMe
		 * virt_boundary (4 KiB), and the queue splits there whatever
		 * the bio sizes are.
		 */
		size_t len = (1 + blk_rand(&seed) % SEG_MAX_PAGES) * PAGE;

		if (off + len > BUF_LEN)
			break;
		segs[nr_segs].iov_base = buf + off;
		segs[nr_segs].iov_len = len;
		off += len;
	}
	segs_len = off;
}

/*
 * Run one I/O of @len bytes at device offset @off with tracing on, fill io.
 * Returns 0, or -errno of the I/O or the tracing.
 */
static int traced_io(int fd, const struct blkdev *dev, enum io_op op,
		     void *addr, size_t len, unsigned long long off)
{
	static const char * const events[] = {
		"block_bio_queue", "block_rq_issue", NULL
	};
	struct dev_trace t;
	long n1, n2;
	ssize_t n;
	int ret;

	io.nr_rq = 0;
	io.nr_bio = 0;
	io.other = 0;
	io.dir = (op == IO_PREAD || op == IO_PREADV) ? 'R' : 'W';
	ret = trace_start(&t, dev, events, TRACE_BUF_KB);
	if (ret) {
		trace_stop(&t);
		return ret;
	}
	switch (op) {
	case IO_PREAD:
		n = pread(fd, addr, len, off);
		break;
	case IO_PWRITE:
		n = pwrite(fd, addr, len, off);
		break;
	case IO_PREADV:
		n = preadv(fd, segs, nr_segs, off);
		break;
	default:
		n = pwritev(fd, segs, nr_segs, off);
		break;
	}
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	n1 = trace_collect(&t, "block_bio_queue", count_bio, &io);
	n2 = trace_collect(&t, "block_rq_issue", add_rq, &io);
	trace_stop(&t);
	if (ret)
		return ret;
	if (n1 < 0 || n2 < 0 || io.nr_rq > MAX_RQ)
		return -ENOSPC;
	qsort(io.rq, io.nr_rq, sizeof(io.rq[0]), cmp_sector);
	return 0;
}

/*
 * Every request but the last (by sector) exactly @max sectors, and the
 * requests cover [start, start + len) exactly. Describes the result in msg.
 */
static int check_shape(unsigned long long start, size_t len, unsigned int max,
		       char *msg, size_t msglen)
{
	unsigned long long next = start, total = 0;
	long i, full = 0, short_rq = 0, gaps = 0;
	unsigned int first_short = 0;
	int n;

	for (i = 0; i < io.nr_rq; i++) {
		const struct blk_event *r = &io.rq[i];

		if (r->sector != next)
			gaps++;
		next = r->sector + r->nr_sector;
		total += r->nr_sector;
		if (r->nr_sector == max) {
			full++;
		} else if (i != io.nr_rq - 1) {
			if (!short_rq)
				first_short = r->nr_sector;
			short_rq++;
		}
	}
	n = snprintf(msg, msglen, "%ld requests: %ld of %u sectors", io.nr_rq,
		     full, max);
	if (io.nr_rq)
		n += snprintf(msg + n, msglen - n, ", last %u",
			      io.rq[io.nr_rq - 1].nr_sector);
	if (short_rq)
		n += snprintf(msg + n, msglen - n,
			      ", %ld short before the last (first: %u sectors)",
			      short_rq, first_short);
	if (gaps || total != len / 512)
		snprintf(msg + n, msglen - n,
			 ", coverage wrong: %llu of %zu sectors, %ld gaps",
			 total, len / 512, gaps);
	return io.nr_rq > 0 && !short_rq && !gaps && total == len / 512 &&
	       io.rq[io.nr_rq - 1].nr_sector <= max;
}

static void fill(void)
{
	blk_pattern_fill(buf, BUF_LEN, 0, 7);
}

static int verify_write(int fd, unsigned long long off, size_t len,
			const void *expect_linear)
{
	if (pread_full(fd, plain, len, off))
		return -EIO;
	return memcmp(plain, expect_linear, len) ? -EILSEQ : 0;
}

/* Shape tests at one max_sectors_kb: 64 MiB read/write, preadv/pwritev. */
static void test_shapes(int fd, const struct blkdev *dev, unsigned int kb)
{
	unsigned int max = kb * 2;
	char msg[256], what[192];
	enum io_op op;
	size_t i, off;
	int ret;

	for (op = IO_PREAD; op <= IO_PWRITEV; op++) {
		int vec = op == IO_PREADV || op == IO_PWRITEV;
		size_t len = vec ? segs_len : BUF_LEN;

		snprintf(what, sizeof(what), "dio %s %zuKiB%s on %s, max_sectors_kb %u",
			 op_name[op], (size_t)(len / KiB),
			 vec ? " in unequal segments" : "", dev->name, kb);
		if (vec)
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 " (%d segments of 4..%lluKiB)", nr_segs,
				 SEG_MAX_PAGES * PAGE / KiB);
		if (op == IO_PWRITE || op == IO_PWRITEV)
			fill();
		ret = traced_io(fd, dev, op, buf, len, 0);
		if (ret) {
			ksft_test_result_fail("%s: %s\n", what,
					      ret == -ENOSPC ? "trace incomplete" :
					      strerror(-ret));
			if (op == IO_PREAD)
				ksft_test_result_fail("dio pread 64MiB bios on %s, max_sectors_kb %u: not measured\n",
						      dev->name, kb);
			continue;
		}
		ret = check_shape(0, len, max, msg, sizeof(msg));

		if (op == IO_PWRITE || op == IO_PWRITEV) {
			/* Gather what was written, then read it back. */
			char *expect = malloc(len);
			int vret;

			if (!expect)
				ksft_exit_fail_msg("out of memory\n");
			if (op == IO_PWRITE) {
				memcpy(expect, buf, len);
			} else {
				for (i = 0, off = 0; i < (size_t)nr_segs; i++) {
					memcpy(expect + off, segs[i].iov_base,
					       segs[i].iov_len);
					off += segs[i].iov_len;
				}
			}
			vret = verify_write(fd, 0, len, expect);
			free(expect);
			if (vret) {
				ksft_test_result_fail("%s: data read back differs\n",
						      what);
				continue;
			}
		}
		ksft_test_result(ret, "%s: %s (pass iff all %u but the last)%s\n",
				 what, msg, max,
				 op == IO_PWRITE || op == IO_PWRITEV ?
				 ", data read back intact" : "");

		if (op == IO_PREAD) {
			unsigned long limit = (layout_bios * 3 + 1) / 2;

			if (limit < layout_bios + 1)
				limit = layout_bios + 1;
			ksft_test_result(io.nr_bio >= 1 &&
					 (unsigned long)io.nr_bio <= limit,
					 "dio pread 64MiB bios on %s, max_sectors_kb %u: %ld bios (layout implies %lu at %d bvecs/bio; pass iff <= %lu)\n",
					 dev->name, kb, io.nr_bio, layout_bios,
					 BIO_MAX_VECS, limit);
		}
	}
}

/* I/Os of at most max_sectors are one bio (and one request) each. */
static void test_small_ios(int fd, const struct blkdev *dev)
{
	unsigned long long max = dev->max_sectors_kb * KiB;
	unsigned long long sizes[NR_SMALL] = {
		max, max - dev->lbs, max / 2 + dev->lbs, max / 2,
		3 * dev->lbs, dev->lbs, max - 4 * dev->lbs, 2 * dev->lbs,
	};
	long bios = 0, rqs = 0, other = 0;
	int i, ret;

	for (i = 0; i < NR_SMALL; i++) {
		/* Buffer positions spread over the runs, at page offsets. */
		size_t boff = (i * 997 % (BUF_PAGES - 256)) * PAGE;

		ret = traced_io(fd, dev, IO_PREAD, buf + boff, sizes[i],
				(unsigned long long)i * MiB + i * dev->lbs);
		if (ret) {
			ksft_test_result_fail("dio reads <= max_sectors on %s: %s\n",
					      dev->name, strerror(-ret));
			return;
		}
		bios += io.nr_bio;
		rqs += io.nr_rq;
		other += io.other;
	}
	ksft_test_result(bios == NR_SMALL && rqs == NR_SMALL,
			 "dio reads <= max_sectors (%uKiB) on %s: %d reads of %llu..%llu bytes gave %ld bios, %ld requests (pass iff %d and %d)\n",
			 dev->max_sectors_kb, dev->name, NR_SMALL,
			 (unsigned long long)dev->lbs, max, bios, rqs,
			 NR_SMALL, NR_SMALL);
}

/* max_sectors_kb 32: 64 KiB reads are still one bio each. */
static void test_small_max(int fd, const struct blkdev *dev)
{
	long bios = 0, rqs = 0;
	int i, ret;

	ret = blk_queue_set(dev, "max_sectors_kb", SMALL_MAX_KB);
	if (ret) {
		ksft_test_result_fail("dio 64KiB reads at max_sectors_kb %d on %s: cannot set: %s\n",
				      SMALL_MAX_KB, dev->name, strerror(-ret));
		return;
	}
	for (i = 0; i < NR_SMALL_MAX; i++) {
		size_t boff = (i * 1013 % (BUF_PAGES - 32)) * PAGE;

		ret = traced_io(fd, dev, IO_PREAD, buf + boff, 64 * KiB,
				(unsigned long long)i * 3 * MiB);
		if (ret)
			break;
		bios += io.nr_bio;
		rqs += io.nr_rq;
	}
	blk_queue_set(dev, "max_sectors_kb", dev->max_sectors_kb);
	if (ret)
		ksft_test_result_fail("dio 64KiB reads at max_sectors_kb %d on %s: %s\n",
				      SMALL_MAX_KB, dev->name, strerror(-ret));
	else
		ksft_test_result(bios == NR_SMALL_MAX,
				 "dio 64KiB reads at max_sectors_kb %d on %s: %d reads gave %ld bios, %ld requests (pass iff %d bios)\n",
				 SMALL_MAX_KB, dev->name, NR_SMALL_MAX, bios,
				 rqs, NR_SMALL_MAX);
}

#define TESTS_PER_DEV	(NR_SETTINGS * 5 + 2)

static void test_device(struct blkdev *dev, int present, const char *why)
{
	unsigned int kbs[NR_SETTINGS];
	int fd, i, j;

	if (present) {
		fd = open(dev->path, O_RDWR | O_DIRECT);
		if (fd < 0) {
			why = "cannot open the device";
			present = 0;
		}
	}
	if (!present) {
		for (i = 0; i < TESTS_PER_DEV; i++)
			ksft_test_result_skip("dio shape tests: %s\n", why);
		return;
	}
	ksft_print_msg("%s: %u-byte blocks, max_sectors_kb %u (hw %u)\n",
		       dev->name, dev->lbs, dev->max_sectors_kb,
		       dev->max_hw_sectors_kb);
	kbs[0] = dev->max_sectors_kb;
	kbs[1] = 64;
	kbs[2] = dev->lbs == 512 ? 96 : 384;
	for (i = 0; i < NR_SETTINGS; i++) {
		int ret = -ERANGE;

		if (kbs[i] <= dev->max_hw_sectors_kb)
			ret = blk_queue_set(dev, "max_sectors_kb", kbs[i]);
		if (ret) {
			for (j = 0; j < 5; j++)
				ksft_test_result_skip("dio shapes on %s at max_sectors_kb %u: %s\n",
						      dev->name, kbs[i],
						      ret == -ERANGE ?
						      "above max_hw_sectors_kb" :
						      strerror(-ret));
			continue;
		}
		test_shapes(fd, dev, kbs[i]);
	}
	blk_queue_set(dev, "max_sectors_kb", dev->max_sectors_kb);
	test_small_ios(fd, dev);
	test_small_max(fd, dev);
	blk_queue_set(dev, "max_sectors_kb", dev->max_sectors_kb);
	close(fd);
}

/*
 * A device with @lbs-byte blocks (named, or a null_blk made here) of room
 * for the test; skip or fail with the reason in @why.
 */
static int get_dev(const char *env, unsigned int lbs, struct blkdev *dev,
		   char *why, size_t whylen)
{
	int ret;

	ret = blk_find(env, -1, lbs, MADE_MB, dev, why, whylen);
	if (ret && ret != -BLK_ESKIP)
		ksft_exit_fail_msg("%s\n", why);
	if (ret)
		return 0;
	if (dev->lbs != lbs) {
		snprintf(why, whylen, "%s has %u-byte blocks, not %u",
			 dev->name, dev->lbs, lbs);
		return 0;
	}
	if (dev->size < BUF_LEN + 64 * MiB) {
		snprintf(why, whylen, "%s is smaller than %llu MiB", dev->name,
			 (BUF_LEN + 64 * MiB) / MiB);
		return 0;
	}
	return 1;
}

int main(void)
{
	char msg[256], why512[256], why4k[256];
	struct blkdev d512, d4k;
	int has512, has4k;
	int ret;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must be run as root (PFNs in /proc/self/pagemap, sysfs)\n");
	if (!trace_available())
		ksft_exit_skip("no block tracepoints in " TRACEFS "\n");
	has512 = get_dev("BLK_NOWZ_DEV", 512, &d512, why512, sizeof(why512));
	has4k = get_dev("BLK_WZ_DEV", 4096, &d4k, why4k, sizeof(why4k));
	if (!has512 && !has4k)
		ksft_exit_skip("no device: %s; %s\n", why512, why4k);
	if (has512)
		restore_dev[0] = &d512;
	if (has4k)
		restore_dev[1] = &d4k;
	atexit(restore_max_sectors);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	if (posix_memalign((void **)&plain, PAGE, BUF_LEN))
		ksft_exit_fail_msg("out of memory\n");
	ret = build_buffer(msg, sizeof(msg));
	if (ret == -EPERM)
		ksft_exit_skip("%s\n", msg);

	ksft_set_plan(1 + 2 * TESTS_PER_DEV);
	ksft_test_result(!ret, "buffer layout: %s\n", msg);
	if (ret)
		ksft_exit_fail_msg("cannot build the buffer layout\n");
	make_segments();

	test_device(&d512, has512, why512);
	test_device(&d4k, has4k, why4k);
	ksft_finished();
}
