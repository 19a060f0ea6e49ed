// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for how the block layer sizes bios: how many bvecs a range of
 * zeroes needs, and where a direct I/O bio that will be split may end so
 * that it ends on a split point.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/mman.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include "../blk.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/*
 * blk_zero_nr_vecs(@sects, @folio): the bvecs of a zeroing bio of @sects
 * sectors from a zero folio of @folio bytes.
 */
static const struct {
	sector_t sects;
	unsigned int folio, nr_vecs;
} zero_cases[] = {
	/* One 4 KiB zero page per bvec: 1 MiB bios, as before the folio. */
	{ 1, SZ_4K, 1 }, { 8, SZ_4K, 1 }, { 9, SZ_4K, 2 },
	{ SZ_1M >> SECTOR_SHIFT, SZ_4K, BIO_MAX_VECS },
	{ SZ_1G >> SECTOR_SHIFT, SZ_4K, BIO_MAX_VECS },
	/* The 2 MiB huge zero folio (4096 sectors): then 16 MiB bios. */
	{ 1, SZ_2M, 1 }, { 4095, SZ_2M, 1 }, { 4096, SZ_2M, 1 },
	{ 4097, SZ_2M, 2 }, { 8 * 4096, SZ_2M, BLK_ZERO_BIO_MAX_BYTES / SZ_2M },
	{ 8 * 4096 + 1, SZ_2M, BLK_ZERO_BIO_MAX_BYTES / SZ_2M },
	{ SZ_1G >> SECTOR_SHIFT, SZ_2M, BLK_ZERO_BIO_MAX_BYTES / SZ_2M },
	/* Beyond 4 GiB: sector_t arithmetic. */
	{ 5ULL << (30 - SECTOR_SHIFT), SZ_2M, BLK_ZERO_BIO_MAX_BYTES / SZ_2M },
	/*
	 * A zero folio above the bound, which this kernel's mm never hands
	 * out (it refuses PMDs above 2 MiB): one bvec of at most
	 * BLK_ZERO_BIO_MAX_BYTES; the 64 KiB zero page of a 64 KiB-page
	 * kernel: 256 of them, 16 MiB.
	 */
	{ SZ_1G >> SECTOR_SHIFT, SZ_32M, 1 },
	{ SZ_1G >> SECTOR_SHIFT, SZ_64K, BIO_MAX_VECS },
};

static void blk_zero_nr_vecs_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(zero_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, blk_zero_nr_vecs(zero_cases[i].sects,
							   zero_cases[i].folio),
				    zero_cases[i].nr_vecs,
				    "%llu sectors from a zero folio of %u bytes",
				    (unsigned long long)zero_cases[i].sects,
				    zero_cases[i].folio);
}

/*
 * One case for bio_split_rw_last(): a bio of @nr_vecs bvecs of @vec_len
 * bytes at @vec_off in their page (one bvec over several contiguous pages
 * when @vec_len is larger than a page), at sector @sector of a partition
 * that starts at @part_start, on a queue with the limits below.  @expect
 * is what bio_split_rw_last() returns: the bio's size when it ends on a
 * split point, else the offset of the last split point that is a multiple
 * of @align, worked out by hand from get_max_io_size() and
 * bio_split_rw_at().
 */
struct split_case {
	const char *name;
	unsigned int max_sectors;
	unsigned short max_segments;
	unsigned int max_segment_size;
	unsigned long virt_boundary_mask;
	unsigned int lbs, pbs;
	sector_t sector, part_start;
	unsigned int nr_vecs, vec_len, vec_off;
	unsigned int align;
	unsigned int expect;
};

static const struct split_case split_cases[] = {
	{ "fits in one request: no split point", 256, 128, SZ_64K, 0,
	  512, 512, 0, 0, 1, SZ_64K, 0, PAGE_SIZE, 0 },
	{ "one full request: ends on a split point", 128, 128, SZ_64K, 0,
	  512, 512, 0, 0, 1, SZ_64K, 0, PAGE_SIZE, SZ_64K },
	{ "64 KiB, 1 MiB contiguous: exact multiple, ends on a split point",
	  128, 128, SZ_64K, 0, 512, 512, 0, 0, 1, SZ_1M, 0, PAGE_SIZE,
	  SZ_1M },
	{ "128 KiB, 256 single pages: exact multiple", 256, 128, SZ_64K, 0,
	  512, 512, 0, 0, 256, PAGE_SIZE, 0, PAGE_SIZE, SZ_1M },
	{ "96 KiB, 1 MiB contiguous: ten pieces, 64 KiB left", 192, 128,
	  SZ_64K, 0, 512, 512, 0, 0, 1, SZ_1M, 0, PAGE_SIZE,
	  10 * 96 * SZ_1K },
	{ "96 KiB, 256 single pages: ten pieces, 64 KiB left", 192, 128,
	  SZ_64K, 0, 512, 512, 0, 0, 256, PAGE_SIZE, 0, PAGE_SIZE,
	  10 * 96 * SZ_1K },
	{ "127 KiB, 1000 KiB: last point 889 KiB", 254, 128, SZ_64K, 0,
	  512, 512, 0, 0, 1, 1000 * SZ_1K, 0, 1, 7 * 127 * SZ_1K },
	{ "127 KiB, 1000 KiB, page multiples only: 508 KiB", 254, 128,
	  SZ_64K, 0, 512, 512, 0, 0, 1, 1000 * SZ_1K, 0, PAGE_SIZE,
	  4 * 127 * SZ_1K },
	{ "512e from sector 1: pieces end on 4 KiB in absolute sectors", 256,
	  128, SZ_64K, 0, 512, 4096, 1, 0, 1, SZ_1M, 0, 1, 2047 * 512 },
	{ "512e partition from sector 1, bio at its sector 0: as above", 256,
	  128, SZ_64K, 0, 512, 4096, 0, 1, 1, SZ_1M, 0, 1, 2047 * 512 },
	{ "512e partition from sector 7, bio at its sector 1: aligned", 256,
	  128, SZ_64K, 0, 512, 4096, 1, 7, 1, SZ_1M, 0, 1, SZ_1M },
	{ "512e from sector 1, page multiples only: none", 256, 128, SZ_64K,
	  0, 512, 4096, 1, 0, 1, SZ_1M, 0, PAGE_SIZE, 0 },
	{ "1280 KiB, 200 pages that never merge: 128 segments bind", 2560,
	  128, UINT_MAX, PAGE_SIZE - 1, 512, 512, 0, 0, 200, PAGE_SIZE, 0,
	  PAGE_SIZE, 128 * PAGE_SIZE },
	{ "1280 KiB, 256 pages that never merge: ends full by segments",
	  2560, 128, UINT_MAX, PAGE_SIZE - 1, 512, 512, 0, 0, 256,
	  PAGE_SIZE, 0, PAGE_SIZE, SZ_1M },
	{ "1280 KiB, 4 segments of at most 64 KiB: ends full by segments",
	  2560, 4, SZ_64K, 0, 512, 512, 0, 0, 1, SZ_1M, 0, PAGE_SIZE, SZ_1M },
	{ "virt boundary: a half page ends each request", 2560, 128,
	  UINT_MAX, PAGE_SIZE - 1, 512, 512, 0, 0, 4, 2048, 0, 1, 3 * 2048 },
	{ "virt boundary, page multiples only", 2560, 128, UINT_MAX,
	  PAGE_SIZE - 1, 512, 512, 0, 0, 4, 2048, 0, PAGE_SIZE, PAGE_SIZE },
	{ "4 KiB blocks, 6 KiB limit: 4 KiB pieces, the last one full", 12,
	  128, SZ_64K, 0, 4096, 4096, 0, 0, 4, PAGE_SIZE, 0, 1, 4 * PAGE_SIZE },
	{ "bvecs of 3.5 KiB at +512: pieces split mid-bvec", 256, 128,
	  SZ_64K, 0, 512, 512, 0, 0, 80, PAGE_SIZE - 512, 512, 1, 2 * SZ_128K },
};

KUNIT_ARRAY_PARAM_DESC(bio_split_rw_last, split_cases, name);

/* The pages of blk_kunit_pages(), freed when the test ends. */
static void blk_kunit_free_pages(void *page)
{
	__free_pages(page, compound_order(page));
}

/*
 * 2^@order contiguous pages, freed when the test ends however it ends (a
 * failed assertion too); NULL if there are none.
 */
static struct page *blk_kunit_pages(struct kunit *test, unsigned int order)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_COMP,
					order);

	if (page && kunit_add_action_or_reset(test, blk_kunit_free_pages, page))
		return NULL;
	return page;
}

static void bio_split_rw_last_test(struct kunit *test)
{
	const struct split_case *c = test->param_value;
	struct queue_limits lim = {
		.max_hw_sectors = c->max_sectors,
		.max_sectors = c->max_sectors,
		.max_segments = c->max_segments,
		.max_segment_size = c->max_segment_size,
		.seg_boundary_mask = BLK_SEG_BOUNDARY_MASK,
		.virt_boundary_mask = c->virt_boundary_mask,
		.logical_block_size = c->lbs,
		.physical_block_size = c->pbs,
	};
	struct bio_vec *bvecs;
	struct page *page;
	struct bio bio;
	unsigned int i;

	/* The expected values above are worked out for 4 KiB pages. */
	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "the cases are worked out for 4 KiB pages");

	/* Every bvec is at @page: contiguous pages only for a long one. */
	page = blk_kunit_pages(test, get_order(c->vec_off + c->vec_len));
	if (!page)
		kunit_skip(test, "no %u bytes of contiguous pages",
			   c->vec_off + c->vec_len);
	bvecs = kunit_kcalloc(test, c->nr_vecs, sizeof(*bvecs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bvecs);

	bio_init(&bio, NULL, bvecs, c->nr_vecs, REQ_OP_READ);
	bio.bi_iter.bi_sector = c->sector;
	for (i = 0; i < c->nr_vecs; i++)
		__bio_add_page(&bio, page, c->vec_len, c->vec_off);

	KUNIT_EXPECT_EQ(test, bio_split_rw_last(&bio, &lim,
						c->part_start + c->sector,
						c->align, false), c->expect);
	/* Without the walk where the bvecs are whole pages: the same. */
	if (!c->vec_off && IS_ALIGNED(c->vec_len, PAGE_SIZE))
		KUNIT_EXPECT_EQ(test,
				bio_split_rw_last(&bio, &lim,
						  c->part_start + c->sector,
						  c->align, true), c->expect);
	/* Neither changes the bio. */
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_size, c->nr_vecs * c->vec_len);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_sector, c->sector);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_idx, 0);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_bvec_done, 0);

	bio_uninit(&bio);
}

/*
 * A bio of @nr_pages whole pages in bvecs of @run pages (the last one
 * shorter), each bvec on the same @run contiguous pages at @page.
 */
static void split_pages_bio(struct bio *bio, struct bio_vec *bvecs,
			    struct page *page, unsigned int nr_pages,
			    unsigned int run)
{
	unsigned int n;

	bio_init(bio, NULL, bvecs, nr_pages, REQ_OP_READ);
	for (; nr_pages; nr_pages -= n) {
		n = min(nr_pages, run);
		__bio_add_page(bio, page, n * PAGE_SIZE, 0);
	}
}

/*
 * The segment limits of the grids below: max_segments, including the 129
 * of NVMe and the 168 of AHCI, and no virt boundary with 64 KiB or
 * 65535-byte segments, or a virt boundary of a page.
 */
static const unsigned short split_max_segments[] = {
	1, 7, 128, 129, 168, 256,
};

static const unsigned long split_segs[][2] = {
	{ 0, SZ_64K }, { 0, SZ_64K - 1 }, { PAGE_SIZE - 1, UINT_MAX },
};

/* Set @lim's segment limits to point *@k of their grid, and divide it off. */
static void split_grid_segs(struct queue_limits *lim, unsigned int *k)
{
	lim->max_segments = split_max_segments[*k %
					       ARRAY_SIZE(split_max_segments)];
	*k /= ARRAY_SIZE(split_max_segments);
	lim->virt_boundary_mask = split_segs[*k % ARRAY_SIZE(split_segs)][0];
	lim->max_segment_size = split_segs[*k % ARRAY_SIZE(split_segs)][1];
	*k /= ARRAY_SIZE(split_segs);
}

/*
 * A grid case reports this many points that differ from the walk, then
 * only counts them: one regression would otherwise fail thousands.
 */
#define BLK_KUNIT_GRID_REPORT	3

struct split_pages_count {
	unsigned int total, answered, whole, trimmed, differ;
};

/*
 * Compare, for @bio of whole pages, the answer bio_split_rw_last() gives
 * without a walk, where bio_split_pages_piece() knows the pieces, with the
 * walk's, at each point of a grid of limits, start sectors and alignments.
 */
static void split_pages_grid(struct kunit *test, struct bio *bio,
			     struct split_pages_count *count)
{
	static const unsigned int max_sectors[] = {
		8, 120, 128, 192, 256, 1016, 1024, 2048, 2560,
	};
	/* Logical and physical block sizes. */
	static const unsigned int blocks[][2] = {
		{ 512, 512 }, { 512, 4096 }, { 4096, 4096 },
	};
	static const sector_t sectors[] = { 0, 1, 8 };
	static const unsigned int aligns[] = { 1, 4 };
	struct queue_limits lim = {
		.seg_boundary_mask = BLK_SEG_BOUNDARY_MASK,
	};
	unsigned int i, k, fast, walk, align;
	sector_t sector;

	for (i = 0; ; i++) {
		k = i;
		lim.max_sectors = max_sectors[k % ARRAY_SIZE(max_sectors)];
		lim.max_hw_sectors = lim.max_sectors;
		k /= ARRAY_SIZE(max_sectors);
		split_grid_segs(&lim, &k);
		lim.logical_block_size = blocks[k % ARRAY_SIZE(blocks)][0];
		lim.physical_block_size = blocks[k % ARRAY_SIZE(blocks)][1];
		k /= ARRAY_SIZE(blocks);
		sector = sectors[k % ARRAY_SIZE(sectors)];
		k /= ARRAY_SIZE(sectors);
		align = aligns[k % ARRAY_SIZE(aligns)] * PAGE_SIZE;
		k /= ARRAY_SIZE(aligns);
		if (k)
			break;

		count->total++;
		if (!bio_split_pages_piece(bio, &lim, sector))
			continue;
		count->answered++;
		fast = bio_split_rw_last(bio, &lim, sector, align, true);
		walk = bio_split_rw_last(bio, &lim, sector, align, false);
		if (fast != walk && ++count->differ <= BLK_KUNIT_GRID_REPORT)
			KUNIT_FAIL(test,
				   "without a walk %u, walk %u: %u bytes in %u bvecs, limit %u sectors, %u segments of %u, virt boundary %lx, blocks %u/%u, sector %llu, align %u",
				   fast, walk, bio->bi_iter.bi_size, bio->bi_vcnt,
				   lim.max_sectors, lim.max_segments,
				   lim.max_segment_size, lim.virt_boundary_mask,
				   lim.logical_block_size,
				   lim.physical_block_size,
				   (unsigned long long)sector, align);
		if (fast == bio->bi_iter.bi_size)
			count->whole++;
		else if (fast)
			count->trimmed++;
	}
}

/*
 * The answer without a walk against the walk, for bios of single pages and
 * of longer bvecs.  The grid is in pages, not bytes, so it runs with any
 * page size, and it counts the cases answered without a walk so that it
 * cannot pass by never taking that path.
 */
static void bio_split_rw_last_pages_test(struct kunit *test)
{
	static const unsigned int nr_pages[] = { 1, 15, 129, 256 };
	static const unsigned int runs[] = { 1, 4, 16 };
	struct split_pages_count count = { };
	struct bio_vec *bvecs;
	struct page *page;
	unsigned int p, r;
	struct bio bio;

	page = blk_kunit_pages(test, ilog2(16));
	if (!page)
		kunit_skip(test, "no 16 contiguous pages");
	bvecs = kunit_kcalloc(test, 256, sizeof(*bvecs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bvecs);

	for (p = 0; p < ARRAY_SIZE(nr_pages); p++) {
		for (r = 0; r < ARRAY_SIZE(runs); r++) {
			split_pages_bio(&bio, bvecs, page, nr_pages[p],
					runs[r]);
			split_pages_grid(test, &bio, &count);
			bio_uninit(&bio);
		}
	}

	kunit_info(test, "%u of %u answered without a walk: %u end on a split point, %u before it",
		   count.answered, count.total, count.whole, count.trimmed);
	KUNIT_EXPECT_EQ_MSG(test, count.differ, 0,
			    "%u of %u answers differ from the walk",
			    count.differ, count.answered);
	KUNIT_EXPECT_GT(test, count.whole, 0);
	KUNIT_EXPECT_GT(test, count.trimmed, 0);
}

/*
 * User buffers for bio_iov_whole_pages(): segments at an offset into a
 * page of their own, of some pages and extra bytes.  No byte of them is
 * touched: an iovec iterator only moves over the addresses.
 */
struct iov_layout {
	unsigned int nr;
	struct {
		unsigned int off, pages, extra;
	} seg[4];
};

static const struct iov_layout iov_layouts[] = {
	{ 1, { { 0, 8, 0 } } },
	{ 1, { { 512, 8, 0 } } },
	{ 2, { { 0, 4, 0 }, { 0, 4, 0 } } },
	{ 3, { { 0, 1, 0 }, { 0, 2, 0 }, { 0, 3, 0 } } },
	{ 2, { { 0, 4, 512 }, { 0, 4, 0 } } },
	{ 2, { { 0, 4, 0 }, { 512, 4, 0 } } },
	{ 3, { { 0, 2, 0 }, { 0, 0, 0 }, { 0, 6, 0 } } },
	{ 4, { { 0, 3, 0 }, { 2048, 0, 2048 }, { 0, 2, 0 }, { 0, 1, 0 } } },
	{ 2, { { 512, 2, PAGE_SIZE - 512 }, { 0, 5, 0 } } },
};

/*
 * Whether the bytes [@start, @start + @len) of @iov are, in every segment
 * they touch, whole pages: the pieces worked out forward from the start.
 */
static bool iov_pieces_whole(const struct iovec *iov, unsigned int nr,
			     size_t start, size_t len)
{
	size_t at = 0, from, to;
	unsigned long base;
	unsigned int i;

	for (i = 0; i < nr; at += iov[i].iov_len, i++) {
		from = max(start, at);
		to = min(start + len, at + iov[i].iov_len);
		if (from >= to)
			continue;
		base = (unsigned long)iov[i].iov_base - at;
		if (!PAGE_ALIGNED(base + from) || !PAGE_ALIGNED(base + to))
			return false;
	}
	return true;
}

/*
 * bio_iov_whole_pages() of @bio, of the bytes [@start, @start + @len) of
 * the @nr segments of @iov (one user buffer if @ubuf), just built: its
 * answer, checked against the pieces worked out forward (a difference
 * counted in *@differ).
 */
static bool iov_whole_case(struct kunit *test, struct bio *bio,
			   const struct iovec *iov, unsigned int nr, bool ubuf,
			   size_t start, size_t len, unsigned int *differ)
{
	struct iov_iter iter;
	size_t size = 0;
	unsigned int i;
	bool fast, want;

	for (i = 0; i < nr; i++)
		size += iov[i].iov_len;
	if (ubuf)
		iov_iter_ubuf(&iter, ITER_DEST, iov[0].iov_base, size);
	else
		iov_iter_init(&iter, ITER_DEST, iov, nr, size);
	iov_iter_advance(&iter, start + len);
	bio->bi_iter.bi_size = len;
	fast = bio_iov_whole_pages(bio, &iter);
	want = iov_pieces_whole(iov, nr, start, len);
	if (fast != want && ++*differ <= BLK_KUNIT_GRID_REPORT)
		KUNIT_FAIL(test, "%d, worked out %d: %u segments%s, bytes %zu to %zu",
			   fast, want, nr, ubuf ? " (ubuf)" : "", start,
			   start + len);
	return fast;
}

/*
 * bio_iov_whole_pages() of a bio just built from an iovec or one user
 * buffer, at every start and length within each layout in steps of half a
 * page, against the pieces worked out forward.  It counts both answers so
 * that it cannot pass by giving only one.
 */
static void bio_iov_whole_pages_test(struct kunit *test)
{
	unsigned int l, i, ubuf, whole = 0, total = 0, differ = 0;
	struct iovec iov[ARRAY_SIZE(iov_layouts[0].seg)];
	size_t size, start, len, at, step = PAGE_SIZE / 2;
	struct bio_vec bv = { };
	struct bio bio;

	bio_init(&bio, NULL, &bv, 1, REQ_OP_READ);
	for (l = 0; l < ARRAY_SIZE(iov_layouts); l++) {
		const struct iov_layout *lo = &iov_layouts[l];

		size = 0;
		for (i = 0; i < lo->nr; i++) {
			iov[i].iov_base = (void __user *)
				((unsigned long)SZ_16M * (i + 1) +
				 lo->seg[i].off);
			iov[i].iov_len = lo->seg[i].pages * PAGE_SIZE +
					 lo->seg[i].extra;
			size += iov[i].iov_len;
		}
		for (start = 0; start < size; start += step) {
			/* The first bvec's offset: that of byte @start. */
			for (i = 0, at = 0; at + iov[i].iov_len <= start; i++)
				at += iov[i].iov_len;
			bv.bv_offset = offset_in_page(lo->seg[i].off + start -
						      at);
			/* One buffer: as ITER_UBUF and as an iovec. */
			for (len = step; start + len <= size; len += step) {
				for (ubuf = 0; ubuf <= (lo->nr == 1); ubuf++) {
					whole += iov_whole_case(test, &bio, iov,
								lo->nr, ubuf,
								start, len,
								&differ);
					total++;
				}
			}
		}
	}
	bio_uninit(&bio);
	kunit_info(test, "%u of %u bios of whole pages", whole, total);
	KUNIT_EXPECT_EQ_MSG(test, differ, 0,
			    "%u of %u answers differ from the pieces worked out",
			    differ, total);
	KUNIT_EXPECT_GT(test, whole, 0);
	KUNIT_EXPECT_LT(test, whole, total);
}

struct split_io_count {
	unsigned int total, known, split, differ;
};

/*
 * bio_split_rw_at() of @bio, a bio of single pages, with and without
 * BIO_SINGLE_PAGES, at each point of a grid of limits and byte limits: the
 * split point and the segments of the answer without a walk must be the
 * walk's.
 */
static void split_io_grid(struct kunit *test, struct bio *bio,
			  struct split_io_count *count)
{
	/* Byte limits in pages, and one that is not whole pages. */
	static const unsigned int max_pages[] = { 1, 2, 15, 16, 32, 128, 320 };
	struct queue_limits lim = {
		.seg_boundary_mask = BLK_SEG_BOUNDARY_MASK,
		.logical_block_size = 512,
		.physical_block_size = 512,
	};
	unsigned int i, j, k, max_bytes, fsegs, wsegs;
	bool known;
	int fast, walk;

	for (i = 0; ; i++) {
		k = i;
		j = k % (ARRAY_SIZE(max_pages) + 1);
		max_bytes = j < ARRAY_SIZE(max_pages) ? max_pages[j] * PAGE_SIZE :
			    16 * PAGE_SIZE + 512;
		k /= ARRAY_SIZE(max_pages) + 1;
		split_grid_segs(&lim, &k);
		if (k)
			break;

		count->total++;
		fsegs = 0;
		wsegs = 0;
		bio_set_flag(bio, BIO_SINGLE_PAGES);
		known = bio_split_pages_known(bio, &lim, max_bytes);
		fast = bio_split_rw_at(bio, &lim, &fsegs, max_bytes);
		bio_clear_flag(bio, BIO_SINGLE_PAGES);
		walk = bio_split_rw_at(bio, &lim, &wsegs, max_bytes);
		if ((fast != walk || fsegs != wsegs) &&
		    ++count->differ <= BLK_KUNIT_GRID_REPORT)
			KUNIT_FAIL(test,
				   "%u single pages (%u done), limit %u bytes, %u segments of %u, virt boundary %lx: %d %u segments, walk %d %u",
				   bio->bi_iter.bi_size >> PAGE_SHIFT,
				   bio->bi_iter.bi_bvec_done, max_bytes,
				   lim.max_segments, lim.max_segment_size,
				   lim.virt_boundary_mask, fast, fsegs, walk,
				   wsegs);
		if (known) {
			count->known++;
			if (fast > 0)
				count->split++;
		}
	}
}

/*
 * The split of bios of single pages without a walk against the walk, for
 * bios of 1 to 256 pages, whole or advanced by a page (still single pages)
 * or by 512 bytes (no longer: walked).  It counts the cases answered
 * without a walk, so that it cannot pass by never taking that path.
 */
static void bio_split_rw_at_pages_test(struct kunit *test)
{
	static const unsigned int nr_pages[] = { 1, 2, 15, 129, 256 };
	static const unsigned int advance[] = { 0, PAGE_SIZE, 512 };
	struct split_io_count count = { };
	struct bvec_iter start;
	struct bio_vec *bvecs;
	struct page *page;
	unsigned int p, a;
	struct bio bio;

	page = blk_kunit_pages(test, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bvecs = kunit_kcalloc(test, 256, sizeof(*bvecs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bvecs);

	for (p = 0; p < ARRAY_SIZE(nr_pages); p++) {
		split_pages_bio(&bio, bvecs, page, nr_pages[p], 1);
		start = bio.bi_iter;
		for (a = 0; a < ARRAY_SIZE(advance); a++) {
			if (advance[a] >= start.bi_size)
				continue;
			bio.bi_iter = start;
			bio_advance_iter(&bio, &bio.bi_iter, advance[a]);
			split_io_grid(test, &bio, &count);
		}
		bio_uninit(&bio);
	}

	kunit_info(test, "%u of %u answered without a walk, %u of them split",
		   count.known, count.total, count.split);
	KUNIT_EXPECT_EQ_MSG(test, count.differ, 0,
			    "%u of %u answers differ from the walk",
			    count.differ, count.total);
	KUNIT_EXPECT_GT(test, count.split, 0);
	KUNIT_EXPECT_GT(test, count.known - count.split, 0);
	KUNIT_EXPECT_LT(test, count.known, count.total);
}

/*
 * A bvec added to a bio marked BIO_SINGLE_PAGES, merged into its last bvec
 * or a new one, need not be one whole page: the mark goes, and blk-mq
 * walks the bio rather than count its segments from its pages.
 */
static void bio_single_pages_add_test(struct kunit *test)
{
	struct bio_vec bvecs[4];
	struct page *pages;
	struct bio bio;

	pages = blk_kunit_pages(test, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	bio_init(&bio, NULL, bvecs, ARRAY_SIZE(bvecs), REQ_OP_READ);
	KUNIT_ASSERT_EQ(test, bio_add_page(&bio, pages, PAGE_SIZE, 0),
			PAGE_SIZE);
	bio_set_flag(&bio, BIO_SINGLE_PAGES);
	/* The next page in memory: merged, unless KMSAN forbids it. */
	KUNIT_ASSERT_EQ(test, bio_add_page(&bio, pages + 1, 512, 0), 512);
	if (!IS_ENABLED(CONFIG_KMSAN))
		KUNIT_EXPECT_EQ(test, bio.bi_vcnt, 1);
	KUNIT_EXPECT_FALSE(test, bio_flagged(&bio, BIO_SINGLE_PAGES));
	bio_set_flag(&bio, BIO_SINGLE_PAGES);
	__bio_add_page(&bio, pages, 512, 0);
	KUNIT_EXPECT_FALSE(test, bio_flagged(&bio, BIO_SINGLE_PAGES));
	bio_uninit(&bio);
}

/*
 * bio_iov_iter_get_pages() on a bio that an earlier call filled with single
 * pages, and so marked: what it adds need not be whole pages, here 3584
 * bytes at page offset 512 and 512 bytes of another page, which leave the
 * bio a multiple of PAGE_SIZE with one bvec more than pages.  The mark must
 * go, and the split must count the segments that the walk counts.  The
 * pages are all faulted in, in order, and every other one is used, so that no
 * two of them are likely to be adjacent in memory, where a bio would merge
 * them into one bvec.
 */
static void bio_single_pages_second_call_test(struct kunit *test)
{
	struct queue_limits lim = {
		.max_segments = 128,
		.max_segment_size = SZ_64K,
		.seg_boundary_mask = BLK_SEG_BOUNDARY_MASK,
		.logical_block_size = 512,
		.physical_block_size = 512,
	};
	unsigned int nr = 14, segs = 0, walk_segs = 0;
	struct iovec iov[2], *single;
	struct bio_vec *bvecs;
	struct iov_iter iter;
	unsigned long uaddr;
	int split, walk;
	struct bio bio;
	unsigned int i;

	uaddr = kunit_vm_mmap(test, NULL, 0, (2 * nr + 3) * PAGE_SIZE,
			      PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, uaddr, 0);
	for (i = 0; i < 2 * nr + 3; i++) {
		char __user *p = (char __user *)(uaddr + i * PAGE_SIZE);

		KUNIT_ASSERT_EQ(test, put_user(0, p), 0);
	}
	single = kunit_kcalloc(test, nr, sizeof(*single), GFP_KERNEL);
	bvecs = kunit_kcalloc(test, nr + 2, sizeof(*bvecs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, single);
	KUNIT_ASSERT_NOT_NULL(test, bvecs);
	bio_init(&bio, NULL, bvecs, nr + 2, REQ_OP_READ);

	for (i = 0; i < nr; i++) {
		single[i].iov_base = (void __user *)(uaddr + 2 * i * PAGE_SIZE);
		single[i].iov_len = PAGE_SIZE;
	}
	iov_iter_init(&iter, ITER_DEST, single, nr, nr * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, bio_iov_iter_get_pages(&bio, &iter), 0);
	if (!bio_flagged(&bio, BIO_SINGLE_PAGES)) {
		bio_release_pages(&bio, false);
		kunit_skip(test, "%u bvecs for %u pages: not single pages",
			   bio.bi_vcnt, nr);
	}

	iov[0].iov_base = (void __user *)(uaddr + 2 * nr * PAGE_SIZE + 512);
	iov[0].iov_len = PAGE_SIZE - 512;
	iov[1].iov_base = (void __user *)(uaddr + (2 * nr + 2) * PAGE_SIZE);
	iov[1].iov_len = 512;
	iov_iter_init(&iter, ITER_DEST, iov, 2, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, bio_iov_iter_get_pages(&bio, &iter), 0);
	KUNIT_ASSERT_EQ(test, bio.bi_iter.bi_size, (nr + 1) * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, bio.bi_vcnt, nr + 2);
	KUNIT_EXPECT_FALSE(test, bio_flagged(&bio, BIO_SINGLE_PAGES));

	split = bio_split_rw_at(&bio, &lim, &segs, SZ_1M);
	bio_clear_flag(&bio, BIO_SINGLE_PAGES);
	walk = bio_split_rw_at(&bio, &lim, &walk_segs, SZ_1M);
	KUNIT_EXPECT_EQ(test, split, walk);
	KUNIT_EXPECT_EQ(test, segs, walk_segs);
	bio_release_pages(&bio, false);
	bio_uninit(&bio);
}

static struct kunit_case blk_size_test_cases[] = {
	KUNIT_CASE(blk_zero_nr_vecs_test),
	KUNIT_CASE_PARAM(bio_split_rw_last_test, bio_split_rw_last_gen_params),
	KUNIT_CASE(bio_split_rw_last_pages_test),
	KUNIT_CASE(bio_iov_whole_pages_test),
	KUNIT_CASE(bio_split_rw_at_pages_test),
	KUNIT_CASE(bio_single_pages_add_test),
	KUNIT_CASE(bio_single_pages_second_call_test),
	{}
};

static struct kunit_suite blk_size_test_suite = {
	.name = "blk_size",
	.test_cases = blk_size_test_cases,
};

kunit_test_suite(blk_size_test_suite);

MODULE_DESCRIPTION("KUnit tests for block layer bio sizing");
MODULE_LICENSE("GPL");
