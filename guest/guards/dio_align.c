// SPDX-License-Identifier: GPL-2.0
/*
 * Request shape of large O_DIRECT I/O on a block device.
 *
 * Kept for the QEMU NVMe namespaces only (make test's plain NVMe boot, where
 * guest/init names them in BLK_NOWZ_DEV and BLK_WZ_DEV): the risk is that
 * bios do not end where blk-mq splits them, or are cut short or multiplied,
 * on a real driver's limits (NVMe: max_sectors from MDTS, 128 segments, a
 * 4 KiB virt boundary), and that data written through trimmed bios from
 * unequal iovec segments lands elsewhere. On the null_blk devices it makes
 * without a name the rest is covered, so make test runs it on NVMe only:
 * the split points by KUnit bio_split_rw_last (max_segments, virt
 * boundary, 512e, odd limits), the request counts by dio_split and
 * blktests block/049 and block/050, the bio bounds by dio_io's dio_bios,
 * the data of plain writes by dio_verify.sh and dio_fs. Removable once the
 * series' dio_split runs on the NVMe namespaces and a vectored direct
 * write through trimmed bios is read back elsewhere (see each fixture).
 *
 * A bio larger than max_sectors is split by the queue. If the bio's size
 * follows the physical layout of the user buffer (a bvec per run of
 * physically contiguous pages, of one folio since Linux 7.0; 256 bvecs per
 * bio), every bio ends in a short request: full requests plus one small tail
 * per bio. If bios that will be split end where the queue splits them, every
 * request of the I/O is cut by a queue limit except the last one of the I/O:
 * that is what the shape tests check. The limit is max_sectors, or
 * max_segments where a request runs out of segments first (at 4 MiB on a
 * 128-segment queue, or wherever the buffer's pages are small folios): a
 * model of blk-mq's split walk over the buffer's pages (split_walk()) says
 * which, from the PFNs and folios of the pages and the queue limits in
 * sysfs. The bio tests check that this costs no extra bios: an I/O of at
 * most max_sectors takes the bios its pages' layout implies (one, if they
 * fit one bio), and a 64 MiB read needs no more than about 1.5 times the
 * bios the buffer layout implies (a design capping each bio at one
 * max_sectors chunk needs 512 at 128 KiB).
 *
 * The buffer's physical layout is built deterministically: pages of a
 * pool are moved one by one with mremap() into runs of 1 to 40 physically
 * contiguous pages (fixed seed), no two consecutive runs adjacent, and
 * checked through /proc/self/pagemap (needs root for the PFNs).
 *
 * The devices, one with 512-byte and one with 4096-byte logical blocks,
 * are memory-backed null_blk devices each test makes, unless named by
 * BLK_NOWZ_DEV / BLK_WZ_DEV and allowed by BLK_TEST_DESTROY (see
 * blk_find()); the first 64 MiB of a named device are overwritten. The
 * bios and requests are counted through a private trace instance.
 * max_sectors_kb is saved on its first write; it, the trace instance and
 * a device made here are restored or removed in the fixture teardown,
 * which the harness runs in its parent process, also after a failed
 * assertion or a crash (not after a timeout: the harness kills the whole
 * process group).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "blk_common.h"

#define PAGE		4096ULL
#define BUF_LEN		(64 * MiB)
#define BUF_PAGES	(BUF_LEN / PAGE)
#define MADE_MB		192		/* null_blk made here: memory-backed */
#define MIN_SIZE	(BUF_LEN + 64 * MiB)
#define RUN_MAX		40
#define RUN_SEED	0x5eed2023ULL
#define NR_SEGS		1024	/* at most, for preadv / pwritev (IOV_MAX) */
#define SEG_MAX_PAGES	48
#define NR_SMALL	8
#define SMALL_MAX_KB	32
#define NR_SMALL_MAX	16
#define TRACE_BUF_KB	4096
#define MAX_RQ		65536
#define MAX_BIO		8192

/* The requests and bios of one traced I/O. */
struct io_trace {
	struct blk_trace_event rq[MAX_RQ];
	struct blk_trace_event bio[MAX_BIO];
	long nr_rq;
	long nr_bio;
	long other;		/* bios and requests of the other direction */
	char dir;
	size_t buf_off;		/* buffer offset of the I/O's first byte */
	unsigned long long dev_off;
	size_t len;
	int vec;		/* the I/O was c->segs */
	long longer;		/* bios longer than bvec_model()'s */
};

/* The queue limits blk-mq splits a read or write bio by. */
struct split_lim {
	unsigned long long max_sectors;
	unsigned long long max_seg_size;
	unsigned int max_segs;
	unsigned int lbs, pbs;
};

/* One test's device, its trace instance and the irregular buffer. */
struct dio_ctx {
	struct blk_made made;
	struct blkdev dev;
	struct blk_saved max_kb;
	struct blk_trace tr;
	struct blk_buf buf;	/* BUF_LEN, irregular physical layout */
	struct blk_layout layout;
	unsigned long long *pfn;	/* of the buffer's pages */
	unsigned char *fstart;	/* page starts a folio run */
	unsigned char *vstart;	/* page starts a bvec of the traced I/O */
	unsigned long *seg_end;	/* page after the c->segs segment of a page */
	char *plain;		/* BUF_LEN, for reading back writes */
	struct io_trace *io;
	struct iovec segs[NR_SEGS];
	int nr_segs;
	size_t segs_len;
	int fd;
};

/* Runs in the harness's parent process: the test's fds are closed. */
static void ctx_cleanup(struct dio_ctx *c)
{
	blk_saved_restore(&c->max_kb);
	blk_trace_destroy(&c->tr);
	blk_made_destroy(&c->made);
}

/*
 * Unequal segments carved one after the other out of the whole buffer, so
 * that the vectored I/O, like the 64 MiB one, spans several bios.
 */
static void make_segments(struct dio_ctx *c)
{
	unsigned long long seed = 0x5e9ULL;
	unsigned long pg;
	size_t off = 0;

	for (c->nr_segs = 0; c->nr_segs < NR_SEGS; c->nr_segs++) {
		/*
		 * Multiples of 4 KiB (so of either logical block size): a
		 * segment ending inside a page would leave a gap at the NVMe
		 * virt_boundary (4 KiB), and the queue splits there whatever
		 * the bio sizes are.
		 */
		size_t len = (1 + blk_rand(&seed) % SEG_MAX_PAGES) * PAGE;

		if (off + len > BUF_LEN)
			break;
		c->segs[c->nr_segs].iov_base = c->buf.addr + off;
		c->segs[c->nr_segs].iov_len = len;
		for (pg = off / PAGE; pg < (off + len) / PAGE; pg++)
			c->seg_end[pg] = (off + len) / PAGE;
		off += len;
	}
	c->segs_len = off;
}

/*
 * The irregular buffer: runs of 1 to RUN_MAX physically contiguous pages
 * of pseudo-random length (fixed seed), no run continuing the previous
 * one physically (blk_buf_runs()). Describes it in @msg.
 */
static int build_buffer(struct dio_ctx *c, char *msg, size_t len)
{
	struct blk_layout *l = &c->layout;
	int ret;

	ret = blk_buf_runs(&c->buf, BUF_PAGES, 1, RUN_MAX, RUN_SEED, msg, len);
	if (ret)
		return ret;
	ret = blk_layout_scan(c->buf.addr, BUF_PAGES, l);
	if (ret) {
		snprintf(msg, len, "pagemap of the buffer: %s", strerror(-ret));
		return ret;
	}
	/* A bio holds BLK_MAX_VECS bvecs: runs, or folio runs (7.0). */
	snprintf(msg, len, "%lu pages in %lu physically contiguous runs of %lu..%lu pages, %lu bios at %d bvecs (%s) per bio",
		 (unsigned long)BUF_PAGES, l->runs, l->run_min, l->run_max,
		 l->bios, BLK_MAX_VECS,
		 l->by_folio ? "folio runs" : "runs");
	return 0;
}

/*
 * The device (@lbs-byte blocks, named in @env or made here) at
 * max_sectors_kb @kb (0: its default), opened with O_DIRECT, traced, and
 * the irregular buffer. Returns 0, -BLK_ESKIP or -errno, the reason in
 * @msg.
 */
static int ctx_make(struct dio_ctx *c, const char *env, unsigned int lbs,
		    unsigned int kb, char *msg, size_t msglen)
{
	char name[64];
	int ret;

	c->fd = -1;
	if (geteuid()) {
		snprintf(msg, msglen, "must be run as root (PFNs in /proc/self/pagemap, sysfs)");
		return -BLK_ESKIP;
	}
	ret = blk_test_dev(env, -1, lbs, MADE_MB, lbs, MIN_SIZE, &c->made,
			   &c->dev, msg, msglen);
	if (ret)
		return ret;
	ksft_print_msg("%s: %u-byte blocks, max_sectors_kb %u (hw %u)\n",
		       c->dev.name, c->dev.lbs, c->dev.max_sectors_kb,
		       c->dev.max_hw_sectors_kb);
	if (kb && kb > c->dev.max_hw_sectors_kb) {
		snprintf(msg, msglen, "max_sectors_kb %u on %s: above max_hw_sectors_kb %u",
			 kb, c->dev.name, c->dev.max_hw_sectors_kb);
		return -BLK_ESKIP;
	}
	if (kb) {
		ret = blk_queue_set_saved(&c->max_kb, c->dev.name,
					  "max_sectors_kb", kb);
		if (ret) {
			snprintf(msg, msglen, "max_sectors_kb %u on %s: %s",
				 kb, c->dev.name, strerror(-ret));
			return -BLK_ESKIP;
		}
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
		return -BLK_ESKIP;
	}
	/* Before the buffer, whose bio count needs it. */
	ret = blk_bvecs_by_folio();
	if (ret < 0) {
		snprintf(msg, msglen, BLK_BVEC_RULE_SKIP, strerror(-ret));
		return -BLK_ESKIP;
	}
	ret = build_buffer(c, msg, msglen);
	if (ret)
		return ret == -EPERM ? -BLK_ESKIP : ret;
	ksft_print_msg("buffer: %s\n", msg);
	c->io = malloc(sizeof(*c->io));
	c->pfn = malloc(BUF_PAGES * sizeof(*c->pfn));
	c->fstart = malloc(BUF_PAGES);
	c->vstart = malloc(BUF_PAGES);
	c->seg_end = calloc(BUF_PAGES, sizeof(*c->seg_end));
	if (posix_memalign((void **)&c->plain, PAGE, BUF_LEN) || !c->io ||
	    !c->pfn || !c->fstart || !c->vstart || !c->seg_end) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	make_segments(c);
	return 0;
}

/* ctx_make() in a fixture setup: skip or fail with the reason. */
static void ctx_setup(struct __test_metadata *_metadata, struct dio_ctx *c,
		      const char *env, unsigned int lbs, unsigned int kb)
{
	char msg[256];
	int ret;

	ret = ctx_make(c, env, lbs, kb, msg, sizeof(msg));
	BLK_SKIP_OR_ASSERT(ret, msg);
}

/* Trace one I/O ---------------------------------------------------------- */

static void add_event(const struct blk_trace_event *ev, void *arg)
{
	struct io_trace *t = arg;

	if (!strchr(ev->rwbs, t->dir)) {
		t->other++;
	} else if (ev->is_bio) {
		if (t->nr_bio < MAX_BIO)
			t->bio[t->nr_bio] = *ev;
		t->nr_bio++;
	} else {
		if (t->nr_rq < MAX_RQ)
			t->rq[t->nr_rq] = *ev;
		t->nr_rq++;
	}
}

static int cmp_sector(const void *a, const void *b)
{
	const struct blk_trace_event *x = a, *y = b;

	return x->sector < y->sector ? -1 : x->sector > y->sector;
}

enum io_op { IO_PREAD, IO_PWRITE, IO_PREADV, IO_PWRITEV };

static const char * const op_name[] = {
	"pread", "pwrite", "preadv", "pwritev",
};

/*
 * The PFNs and folio starts of the buffer's pages @pg to @end (not
 * included) into @pfn[@pg..] and @fstart[@pg..]. Returns 0 or -errno.
 */
static int scan_pages(const struct dio_ctx *c, unsigned long pg,
		      unsigned long end, unsigned long long *pfn,
		      unsigned char *fstart)
{
	int ret = blk_pfns(c->buf.addr + pg * PAGE, end - pg, pfn + pg);

	return ret ? ret : blk_folio_starts(pfn + pg, end - pg, fstart + pg);
}

/* The I/O itself: 0, or -errno (-EIO if it was short). */
static int do_io(struct dio_ctx *c, enum io_op op, void *addr, size_t len,
		 unsigned long long off)
{
	ssize_t n;

	switch (op) {
	case IO_PREAD:
		n = pread(c->fd, addr, len, off);
		break;
	case IO_PWRITE:
		n = pwrite(c->fd, addr, len, off);
		break;
	case IO_PREADV:
		n = preadv(c->fd, c->segs, c->nr_segs, off);
		break;
	default:
		n = pwritev(c->fd, c->segs, c->nr_segs, off);
		break;
	}
	return n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
}

/* The model of blk-mq's split walk ---------------------------------------- */

/* seg_boundary_mask: not in sysfs; the devices here keep the default. */
#define SEG_BOUNDARY	0xffffffffULL

/* Buffer offset of device sector @sector of the traced I/O. */
static size_t buf_at(const struct io_trace *io, unsigned long long sector)
{
	return io->buf_off + (sector * 512 - io->dev_off);
}

/* @bio lies within the traced I/O. */
static int bio_in_io(const struct io_trace *io,
		     const struct blk_trace_event *bio)
{
	return bio->sector * 512 >= io->dev_off &&
	       (bio->sector + bio->nr_sector) * 512 <= io->dev_off + io->len;
}

/*
 * c->vstart[i]: page i of the buffer starts a bvec of a traced bio, each
 * bio built from its first page as the kernel builds bvecs (@fstart: the
 * folio starts if it builds them by folio, blk_bvecs_by_folio()).
 */
static void bvec_model(struct dio_ctx *c, struct io_trace *io,
		       const unsigned char *fstart)
{
	unsigned long first = io->buf_off / PAGE, pg, end, n;
	unsigned long last = (io->buf_off + io->len + PAGE - 1) / PAGE;
	const struct blk_trace_event *bio;
	long b;

	memset(c->vstart + first, 0, last - first);
	io->longer = 0;
	for (b = 0; b < io->nr_bio; b++) {
		bio = &io->bio[b];
		if (!bio_in_io(io, bio))
			continue;	/* check_shape() fails its requests */
		pg = buf_at(io, bio->sector) / PAGE;
		end = (buf_at(io, bio->sector + bio->nr_sector) + PAGE - 1) /
		      PAGE;
		/* The kernel's bio holds more than the model's: say so. */
		for (n = 0; pg < end; n++)
			pg = blk_bio_bvecs(c->pfn, fstart, pg, end,
					   io->vec ? c->seg_end : NULL,
					   c->vstart);
		io->longer += n > 1;
	}
}

/*
 * Run one I/O of @len bytes at device offset @off with tracing on, fill
 * c->io, and the pages' PFNs and folios as they were during the I/O (the
 * same before and after it; a page migrated or a folio split meanwhile
 * makes it run again, up to three times). Returns 0, or -errno of the
 * I/O or the tracing (-EAGAIN if the pages kept changing).
 */
static int traced_io(struct dio_ctx *c, enum io_op op, void *addr,
		     size_t len, unsigned long long off)
{
	unsigned long pg = ((char *)addr - c->buf.addr) / PAGE;
	unsigned long end = ((char *)addr - c->buf.addr + len + PAGE - 1) /
			    PAGE;
	struct io_trace *io = c->io;
	unsigned long long *pfn;
	unsigned char *fstart;
	int ret, tries;

	pfn = malloc(BUF_PAGES * sizeof(*pfn));
	fstart = malloc(BUF_PAGES);
	if (!pfn || !fstart) {
		free(pfn);
		free(fstart);
		return -ENOMEM;
	}
	io->dir = (op == IO_PREAD || op == IO_PREADV) ? 'R' : 'W';
	io->buf_off = (char *)addr - c->buf.addr;
	io->dev_off = off;
	io->len = len;
	io->vec = op == IO_PREADV || op == IO_PWRITEV;
	for (tries = 0; tries < 3; tries++) {
		io->nr_rq = 0;
		io->nr_bio = 0;
		io->other = 0;
		ret = scan_pages(c, pg, end, c->pfn, c->fstart);
		if (!ret)
			ret = blk_trace_clear(&c->tr);
		if (!ret)
			ret = do_io(c, op, addr, len, off);
		if (!ret)
			ret = blk_trace_each(&c->tr, add_event, io);
		if (!ret)
			ret = scan_pages(c, pg, end, pfn, fstart);
		if (ret)
			break;
		ret = -EAGAIN;
		if (!memcmp(pfn + pg, c->pfn + pg, (end - pg) * sizeof(*pfn)) &&
		    !memcmp(fstart + pg, c->fstart + pg, end - pg)) {
			ret = 0;
			break;
		}
	}
	free(pfn);
	free(fstart);
	if (ret)
		return ret;
	if (io->nr_rq > MAX_RQ || io->nr_bio > MAX_BIO)
		return -ENOSPC;
	qsort(io->rq, io->nr_rq, sizeof(io->rq[0]), cmp_sector);
	qsort(io->bio, io->nr_bio, sizeof(io->bio[0]), cmp_sector);
	bvec_model(c, io, c->layout.by_folio ? c->fstart : NULL);
	return 0;
}

/* Where blk-mq's walk of a bio from a sector stopped. */
struct walk {
	unsigned long long end;		/* sector: the request's end */
	unsigned long long max;		/* bytes: get_max_io_size() there */
	unsigned long long bytes;
	unsigned int segs;
	int split;			/* a limit cut it, not the bio's end */
};

/* The limits in force, from sysfs: 0, or -EIO if one is unreadable. */
static int split_lim_get(const struct dio_ctx *c, struct split_lim *l)
{
	unsigned long long v;

	l->max_sectors = dev_queue_get(&c->dev, "max_sectors_kb", &v) ? 0 :
			 v * 2;
	l->max_segs = dev_queue_get(&c->dev, "max_segments", &v) ? 0 : v;
	l->max_seg_size = dev_queue_get(&c->dev, "max_segment_size", &v) ?
			  0 : v;
	l->lbs = c->dev.lbs;
	l->pbs = dev_queue_get(&c->dev, "physical_block_size", &v) ? 0 : v;
	return l->max_sectors && l->max_segs && l->max_seg_size && l->pbs ?
	       0 : -EIO;
}

/* get_max_io_size(): max_sectors, its end on a physical block boundary. */
static unsigned long long max_io_sectors(const struct split_lim *l,
					 unsigned long long sector)
{
	unsigned long long pbs = l->pbs / 512, start, end;

	start = sector & (pbs - 1);
	end = (start + l->max_sectors) & ~(pbs - 1);
	return end > start ? end - start :
	       l->max_sectors & ~(unsigned long long)(l->lbs / 512 - 1);
}

/*
 * Walk the bio ending at sector @bio_end from sector @sector as
 * bio_split_rw_at() (6.12) and bio_split_io_at() (7.0) do: bvec by bvec,
 * each in segments of at most max_segment_size that do not cross a
 * seg_boundary_mask boundary, until max_segments or the bytes of
 * get_max_io_size() run out. The buffer is page-aligned, so there are no
 * gaps at a virt_boundary_mask.
 */
static void split_walk(const struct dio_ctx *c, const struct io_trace *io,
		       const struct split_lim *lim, unsigned long long sector,
		       unsigned long long bio_end, struct walk *w)
{
	size_t p = buf_at(io, sector), to = buf_at(io, bio_end);
	unsigned long long len, room, left, total, pa, seg;
	size_t q;

	w->max = max_io_sectors(lim, sector) * 512;
	w->bytes = 0;
	w->segs = 0;
	w->split = 0;
	while (p < to && !w->split) {
		q = (p / PAGE + 1) * PAGE;
		while (q < to && !c->vstart[q / PAGE])
			q += PAGE;
		if (q > to)
			q = to;
		len = q - p;
		room = w->max - w->bytes;
		left = len < room ? len : room;
		for (total = 0; left && w->segs < lim->max_segs; w->segs++) {
			pa = c->pfn[(p + total) / PAGE] * PAGE + (p + total) % PAGE;
			seg = SEG_BOUNDARY - (pa & SEG_BOUNDARY) + 1;
			if (seg > lim->max_seg_size)
				seg = lim->max_seg_size;
			if (seg > left)
				seg = left;
			total += seg;
			left -= seg;
		}
		w->bytes += total;
		w->split = left || len > room;
		p = q;
	}
	if (w->split)
		w->bytes -= w->bytes % lim->lbs;
	w->end = sector + w->bytes / 512;
}

/*
 * Every request but the last (by sector) cut by a queue limit where
 * split_walk() cuts it, max_sectors or max_segments, but the tails of
 * bios whose tail is more than 1/16 of the bio (the series leaves those:
 * the rule trades that short request for one bio fewer); the last one
 * at most max_sectors; the requests cover the I/O exactly. Describes the
 * result in @msg.
 */
static int check_shape(const struct dio_ctx *c, const struct io_trace *io,
		       const struct split_lim *lim, char *msg, size_t msglen)
{
	unsigned long long next = io->dev_off / 512, total = 0, end, bio_end;
	long i, b = 0, full = 0, by_segs = 0, short_rq = 0, kept = 0;
	long gaps = 0, odd = 0;
	unsigned int first_short = 0, odd_len = 0;
	unsigned long long odd_at = 0;
	struct walk w = { 0 };
	int n;

	for (i = 0; i < io->nr_rq; i++) {
		const struct blk_trace_event *r = &io->rq[i];

		if (r->sector != next)
			gaps++;
		end = r->sector + r->nr_sector;
		next = end;
		total += r->nr_sector;
		/*
		 * The last request may hold the last bio and the tail of
		 * the one before it (a back merge): only its size counts.
		 */
		if (i == io->nr_rq - 1)
			break;
		while (b < io->nr_bio &&
		       io->bio[b].sector + io->bio[b].nr_sector <= r->sector)
			b++;
		bio_end = b < io->nr_bio ?
			  io->bio[b].sector + io->bio[b].nr_sector : 0;
		if (b < io->nr_bio && io->bio[b].sector <= r->sector &&
		    end <= bio_end && bio_in_io(io, &io->bio[b]))
			split_walk(c, io, lim, r->sector, bio_end, &w);
		else
			w.end = 0;	/* in no bio, or in more than one */
		if (w.end != end) {
			if (!odd++) {
				odd_at = r->sector;
				odd_len = r->nr_sector;
			}
		} else if (w.split || w.bytes == w.max ||
			   w.segs == lim->max_segs) {
			if (w.bytes == w.max)
				full++;
			else
				by_segs++;
		} else if (r->nr_sector * 16ULL > io->bio[b].nr_sector) {
			kept++;
		} else {
			if (!short_rq)
				first_short = r->nr_sector;
			short_rq++;
		}
	}
	n = snprintf(msg, msglen, "%ld requests: %ld of %llu sectors",
		     io->nr_rq, full, lim->max_sectors);
	if (by_segs)
		n += snprintf(msg + n, msglen - n,
			      ", %ld cut at max_segments (%u)", by_segs,
			      lim->max_segs);
	if (io->nr_rq)
		n += snprintf(msg + n, msglen - n, ", last %u",
			      io->rq[io->nr_rq - 1].nr_sector);
	if (short_rq)
		n += snprintf(msg + n, msglen - n,
			      ", %ld short before the last (first: %u sectors)",
			      short_rq, first_short);
	if (kept)
		n += snprintf(msg + n, msglen - n,
			      ", %ld short at the end of a bio whose tail is > 1/16 of it (kept by the rule)",
			      kept);
	if (odd)
		n += snprintf(msg + n, msglen - n,
			      ", %ld not where the split walk cuts (first: %llu+%u)",
			      odd, odd_at, odd_len);
	if (io->longer)
		n += snprintf(msg + n, msglen - n,
			      ", %ld bios hold more bvecs than the model builds",
			      io->longer);
	if (gaps || total != io->len / 512)
		snprintf(msg + n, msglen - n,
			 ", coverage wrong: %llu of %zu sectors, %ld gaps",
			 total, io->len / 512, gaps);
	return io->nr_rq > 0 && !short_rq && !odd && !gaps && !io->longer &&
	       total == io->len / 512 &&
	       io->rq[io->nr_rq - 1].nr_sector <= lim->max_sectors;
}

/* The bytes @op wrote, in device order, into @expect. */
static void gather_written(const struct dio_ctx *c, enum io_op op,
			   char *expect, size_t len)
{
	size_t i, off;

	if (op == IO_PWRITE) {
		memcpy(expect, c->buf.addr, len);
		return;
	}
	for (i = 0, off = 0; i < (size_t)c->nr_segs; i++) {
		memcpy(expect + off, c->segs[i].iov_base, c->segs[i].iov_len);
		off += c->segs[i].iov_len;
	}
}

/*
 * The shape test of @op at the max_sectors_kb in force: a 64 MiB (or
 * segmented) I/O, every request but the last exactly max_sectors; writes
 * read back intact.
 */
static void run_shape(struct __test_metadata *_metadata, struct dio_ctx *c,
		      enum io_op op)
{
	int vec = op == IO_PREADV || op == IO_PWRITEV;
	int write = op == IO_PWRITE || op == IO_PWRITEV;
	size_t len = vec ? c->segs_len : BUF_LEN;
	char msg[512], what[192];
	struct split_lim lim;
	char *expect;
	int ret, ok;

	ASSERT_EQ(0, split_lim_get(c, &lim))
		TH_LOG("queue limits of %s unreadable", c->dev.name);
	snprintf(what, sizeof(what), "dio %s %zuKiB%s on %s, max_sectors_kb %llu",
		 op_name[op], (size_t)(len / KiB),
		 vec ? " in unequal segments" : "", c->dev.name,
		 lim.max_sectors / 2);
	if (vec)
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 " (%d segments of 4..%lluKiB)", c->nr_segs,
			 SEG_MAX_PAGES * PAGE / KiB);
	if (write)
		blk_pattern_fill(c->buf.addr, BUF_LEN, 0, 7);
	ret = traced_io(c, op, c->buf.addr, len, 0);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", what,
				 ret == -ENOSPC ? "trace incomplete" :
				 strerror(-ret));
	ok = check_shape(c, c->io, &lim, msg, sizeof(msg));
	ksft_print_msg("%s: %s\n", what, msg);
	ksft_print_msg("%s: pass iff every request but the last is cut where blk-mq's split walk cuts it (max_sectors %llu, max_segments %u of %llu bytes, bvecs %s), but the tails of bios whose tail after the last split point is > 1/16 of the bio, no gaps%s\n",
		       what, lim.max_sectors, lim.max_segs, lim.max_seg_size,
		       c->layout.by_folio ? "by folio" : "by physical run",
		       write ? ", data read back intact" : "");
	EXPECT_TRUE(ok);
	if (!write)
		return;
	expect = malloc(len);
	ASSERT_NE(NULL, expect);
	gather_written(c, op, expect, len);
	ret = pread_full(c->fd, c->plain, len, 0);
	EXPECT_EQ(0, ret) TH_LOG("%s: read back: %s", what, strerror(-ret));
	if (!ret)
		EXPECT_EQ(0, memcmp(c->plain, expect, len))
			TH_LOG("%s: data read back differs", what);
	free(expect);
}

/*
 * dio_align: one device and max_sectors_kb setting. pread, pwrite: every
 * request but the last ends where blk-mq's walk cuts (risk: the trim
 * leaves short requests, or cuts where the driver would not, on NVMe's
 * segment and virt-boundary limits); pwrite, pwritev also read back what
 * they wrote (risk: iov_iter_revert() of a trimmed tail across unequal
 * iovec segments puts data at the wrong offset: no series test reads back
 * a vectored direct write); pread_bios: no more than 1.5 times the bios
 * the layout implies (risk: bios capped at one request, the design the
 * reviewers rejected for ublk).
 */

FIXTURE(dio_align) {
	struct dio_ctx c;
};

FIXTURE_VARIANT(dio_align) {
	const char *env;	/* where a named device comes from */
	unsigned int lbs;
	unsigned int kb;	/* max_sectors_kb; 0: the device's default */
};

/* { env, lbs, kb } */
FIXTURE_VARIANT_ADD(dio_align, 512_default) { "BLK_NOWZ_DEV", 512, 0 };
FIXTURE_VARIANT_ADD(dio_align, 512_max64k) { "BLK_NOWZ_DEV", 512, 64 };
FIXTURE_VARIANT_ADD(dio_align, 512_max96k) { "BLK_NOWZ_DEV", 512, 96 };
FIXTURE_VARIANT_ADD(dio_align, 4096_default) { "BLK_WZ_DEV", 4096, 0 };
FIXTURE_VARIANT_ADD(dio_align, 4096_max64k) { "BLK_WZ_DEV", 4096, 64 };
FIXTURE_VARIANT_ADD(dio_align, 4096_max384k) { "BLK_WZ_DEV", 4096, 384 };

FIXTURE_SETUP(dio_align)
{
	ctx_setup(_metadata, &self->c, variant->env, variant->lbs,
		  variant->kb);
}

FIXTURE_TEARDOWN_PARENT(dio_align)
{
	ctx_cleanup(&self->c);
}

TEST_F_TIMEOUT(dio_align, pread, 300)
{
	run_shape(_metadata, &self->c, IO_PREAD);
}

/*
 * A 64 MiB read needs no more than about 1.5 times the bios the buffer
 * layout implies (a design capping each bio at one max_sectors chunk
 * needs 512 at 128 KiB).
 */
TEST_F_TIMEOUT(dio_align, pread_bios, 300)
{
	unsigned long bios = self->c.layout.bios;
	unsigned long limit = (bios * 3 + 1) / 2;
	int ret;

	if (limit < bios + 1)
		limit = bios + 1;
	ret = traced_io(&self->c, IO_PREAD, self->c.buf.addr, BUF_LEN, 0);
	ASSERT_EQ(0, ret) TH_LOG("64MiB pread: %s", ret == -ENOSPC ?
				 "trace incomplete" : strerror(-ret));
	ksft_print_msg("dio pread 64MiB bios on %s: %ld bios (layout implies %lu at %d bvecs/bio); pass iff 1..%lu\n",
		       self->c.dev.name, self->c.io->nr_bio, bios,
		       BLK_MAX_VECS, limit);
	EXPECT_LE(1, self->c.io->nr_bio);
	EXPECT_GE(limit, (unsigned long)self->c.io->nr_bio);
}

TEST_F_TIMEOUT(dio_align, pwrite, 300)
{
	run_shape(_metadata, &self->c, IO_PWRITE);
}

TEST_F_TIMEOUT(dio_align, preadv, 300)
{
	run_shape(_metadata, &self->c, IO_PREADV);
}

TEST_F_TIMEOUT(dio_align, pwritev, 300)
{
	run_shape(_metadata, &self->c, IO_PWRITEV);
}

/*
 * dio_align_small: I/Os of at most max_sectors on NVMe take one bio (risk:
 * the trim acting on a bio that no other bio follows; on null_blk dio_io
 * covers it).
 */

FIXTURE(dio_align_small) {
	struct dio_ctx c;
};

FIXTURE_VARIANT(dio_align_small) {
	const char *env;
	unsigned int lbs;
};

/* { env, lbs } */
FIXTURE_VARIANT_ADD(dio_align_small, 512) { "BLK_NOWZ_DEV", 512 };
FIXTURE_VARIANT_ADD(dio_align_small, 4096) { "BLK_WZ_DEV", 4096 };

FIXTURE_SETUP(dio_align_small)
{
	ctx_setup(_metadata, &self->c, variant->env, variant->lbs, 0);
}

FIXTURE_TEARDOWN_PARENT(dio_align_small)
{
	ctx_cleanup(&self->c);
}

/*
 * I/Os of at most max_sectors take the bios their pages' layout implies
 * (one, where the pages fit one bio's bvecs; a few more where 7.0 makes a
 * bvec of each small folio), and the requests split_walk() cuts them into
 * (one, unless they run out of segments first).
 */
TEST_F_TIMEOUT(dio_align_small, ios_le_max, 300)
{
	struct dio_ctx *c = &self->c;
	unsigned long long max = c->dev.max_sectors_kb * KiB;
	unsigned long long lbs = c->dev.lbs;
	unsigned long long sizes[NR_SMALL] = {
		max, max - lbs, max / 2 + lbs, max / 2,
		3 * lbs, lbs, max - 4 * lbs, 2 * lbs,
	};
	unsigned long bios_min = 0, bios_max = 0;
	long bios = 0, rqs = 0, shaped = 0;
	unsigned long long off;
	struct blk_layout l;
	struct split_lim lim;
	char msg[512];
	int i, ret;

	ASSERT_EQ(0, split_lim_get(c, &lim))
		TH_LOG("queue limits of %s unreadable", c->dev.name);
	for (i = 0; i < NR_SMALL; i++) {
		/* Buffer positions spread over the runs, at page offsets. */
		size_t boff = (i * 997 % (BUF_PAGES - 256)) * PAGE;

		ret = blk_layout_scan(c->buf.addr + boff,
				      (sizes[i] + PAGE - 1) / PAGE, &l);
		ASSERT_EQ(0, ret) TH_LOG("layout of the buffer: %s",
					 strerror(-ret));
		/* A bio followed by another may be trimmed: 1/15 more. */
		bios_min += l.bios;
		bios_max += l.bios == 1 ? 1 : l.bios + l.bios / 15 + 1;
		off = (unsigned long long)i * MiB + i * lbs;
		ret = traced_io(c, IO_PREAD, c->buf.addr + boff, sizes[i], off);
		ASSERT_EQ(0, ret) TH_LOG("dio read of %llu bytes on %s: %s",
					 sizes[i], c->dev.name, strerror(-ret));
		bios += c->io->nr_bio;
		rqs += c->io->nr_rq;
		ret = check_shape(c, c->io, &lim, msg, sizeof(msg));
		shaped += ret;
		ksft_print_msg("dio read of %llu bytes at %llu on %s: %ld bios (the layout's %lu), %s%s\n",
			       sizes[i], off, c->dev.name, c->io->nr_bio,
			       l.bios, msg, ret ? "" : ": NOT AS THE SPLIT WALK CUTS");
	}
	ksft_print_msg("dio reads <= max_sectors (%uKiB) on %s: %d reads of %llu..%llu bytes gave %ld bios and %ld requests; pass iff %lu..%lu bios (their layout's, one more per 15 in reads of several) and every read's requests as the split walk cuts them (%ld of %d)\n",
		       c->dev.max_sectors_kb, c->dev.name, NR_SMALL, lbs, max,
		       bios, rqs, bios_min, bios_max, shaped, NR_SMALL);
	EXPECT_LE(bios_min, (unsigned long)bios);
	EXPECT_GE(bios_max, (unsigned long)bios);
	EXPECT_EQ(NR_SMALL, shaped);
}

/* max_sectors_kb 32: 64 KiB reads are still one bio each. */
TEST_F_TIMEOUT(dio_align_small, reads_64k_max32k, 300)
{
	struct dio_ctx *c = &self->c;
	long bios = 0, rqs = 0;
	int i, ret;

	ret = blk_queue_set_saved(&c->max_kb, c->dev.name, "max_sectors_kb",
				  SMALL_MAX_KB);
	ASSERT_EQ(0, ret) TH_LOG("max_sectors_kb %d on %s: cannot set: %s",
				 SMALL_MAX_KB, c->dev.name, strerror(-ret));
	for (i = 0; i < NR_SMALL_MAX; i++) {
		size_t boff = (i * 1013 % (BUF_PAGES - 32)) * PAGE;

		ret = traced_io(c, IO_PREAD, c->buf.addr + boff, 64 * KiB,
				(unsigned long long)i * 3 * MiB);
		ASSERT_EQ(0, ret) TH_LOG("dio 64KiB read on %s: %s",
					 c->dev.name, strerror(-ret));
		bios += c->io->nr_bio;
		rqs += c->io->nr_rq;
	}
	ksft_print_msg("dio 64KiB reads at max_sectors_kb %d on %s: %d reads gave %ld bios, %ld requests; pass iff %d bios\n",
		       SMALL_MAX_KB, c->dev.name, NR_SMALL_MAX, bios, rqs,
		       NR_SMALL_MAX);
	EXPECT_EQ(NR_SMALL_MAX, bios);
}

TEST_HARNESS_MAIN
