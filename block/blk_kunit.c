// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the size arithmetic of the block layer: how many bvecs a
 * range of zeroes needs, and how far a direct I/O bio may grow so that it
 * ends on a max_sectors boundary.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include "blk.h"

static void blk_zero_nr_vecs_zero_page_test(struct kunit *test)
{
	/* One 4 KiB zero page per bvec, as before the huge zero folio. */
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(1, SZ_4K), 1);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(8, SZ_4K), 1);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(9, SZ_4K), 2);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(SZ_1M >> SECTOR_SHIFT, SZ_4K),
			BIO_MAX_VECS);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(SZ_1G >> SECTOR_SHIFT, SZ_4K),
			BIO_MAX_VECS);
}

static void blk_zero_nr_vecs_huge_folio_test(struct kunit *test)
{
	const sector_t folio_sects = SZ_2M >> SECTOR_SHIFT;

	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(1, SZ_2M), 1);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(folio_sects - 1, SZ_2M), 1);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(folio_sects, SZ_2M), 1);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(folio_sects + 1, SZ_2M), 2);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(255 * folio_sects, SZ_2M), 255);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(256 * folio_sects, SZ_2M), 256);
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(257 * folio_sects, SZ_2M),
			BIO_MAX_VECS);
	/* Beyond 4 GiB: sector_t arithmetic, still capped. */
	KUNIT_EXPECT_EQ(test, blk_zero_nr_vecs(5ULL << (30 - SECTOR_SHIFT),
					       SZ_2M), BIO_MAX_VECS);
}

/* Bytes that @nr_vecs bvecs surely hold from @page_off on. */
static size_t room(unsigned int nr_vecs, size_t page_off)
{
	return (size_t)nr_vecs * PAGE_SIZE - page_off;
}

static void bio_aligned_extract_examples_test(struct kunit *test)
{
	/* Fits in one request: extract everything, as today. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64K, SZ_128K, 0,
						       256), SZ_64K);
	/* A 32 KiB limit and a 64 KiB read: one bio, not two. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64K, SZ_32K, 0,
						       SZ_64K / PAGE_SIZE),
			SZ_64K);
	/* Whole 128 KiB pieces, as many as the bvecs surely hold. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64M, SZ_128K, 0,
						       256),
			rounddown(room(256, 0), SZ_128K));
	/* A buffer starting mid-page loses a piece, not alignment. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64M, SZ_128K, 512,
						       256),
			rounddown(room(256, 512), SZ_128K));
	/* Non-power-of-two limits: 96 KiB and 384 KiB. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64M, 96 * SZ_1K,
						       0, 256),
			rounddown(room(256, 0), 96 * SZ_1K));
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64M, 384 * SZ_1K,
						       0, 256),
			rounddown(room(256, 0), 384 * SZ_1K));
	/* Mid-piece: first complete the piece. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(100 * SZ_1K, SZ_64M,
						       SZ_128K, 0,
						       28 * SZ_1K / PAGE_SIZE),
			28 * SZ_1K);
	/* On a boundary with no room for a whole piece: submit the bio. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(SZ_1M, SZ_64M, SZ_128K,
						       0, 1), 0);
	/* A piece larger than any bio: today's behaviour. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(0, SZ_64M, SZ_4M, 0,
						       256), SZ_64M);
	/* Mid-piece and the boundary out of reach: today's behaviour. */
	KUNIT_EXPECT_EQ(test, bio_aligned_extract_size(SZ_4K, SZ_64M, SZ_4M,
						       0, 1), SZ_64M);
}

/*
 * Check one limit, bvec count and page offset for every bio size up to
 * three pieces: the result is never 0 for an empty bio, 0 only when the bio
 * ends on a boundary and the next piece may not fit, and a bio that does
 * not take the whole rest ends on a boundary (so the logical block trim that
 * follows, for 512 and 4096 byte blocks, removes nothing) and needs no more
 * pages than it has bvecs.
 */
static void check_extract_size(struct kunit *test, unsigned int max,
			       unsigned int nr_vecs, size_t page_off,
			       size_t count)
{
	unsigned int done;

	for (done = 0; done <= 3 * max; done += SZ_4K) {
		size_t got = bio_aligned_extract_size(done, count, max,
						      page_off, nr_vecs);

		if (!got) {
			KUNIT_EXPECT_NE(test, done, 0);
			KUNIT_EXPECT_EQ(test, done % max, 0);
			KUNIT_EXPECT_LT(test, room(nr_vecs, page_off),
					(size_t)max);
			continue;
		}
		KUNIT_EXPECT_LE(test, got, count);
		if (got == count)
			continue;
		KUNIT_EXPECT_EQ(test, (done + got) % max, 0);
		KUNIT_EXPECT_EQ(test, (done + got) % SZ_4K, 0);
		KUNIT_EXPECT_LE(test, got, room(nr_vecs, page_off));
	}
}

static void bio_aligned_extract_properties_test(struct kunit *test)
{
	static const unsigned int limits[] = {
		SZ_4K, SZ_32K, 96 * SZ_1K, SZ_128K, 384 * SZ_1K, SZ_512K,
		SZ_1M, SZ_2M, 1280 * SZ_1K,
	};
	static const unsigned int vecs[] = { 1, 2, 9, 33, 128, 255, 256 };
	static const size_t offs[] = { 0, 512, PAGE_SIZE - 512 };
	static const size_t counts[] = { SZ_4K, SZ_64K, SZ_1M + SZ_4K, SZ_64M };
	unsigned int l, v, o, c;

	for (l = 0; l < ARRAY_SIZE(limits); l++)
		for (v = 0; v < ARRAY_SIZE(vecs); v++)
			for (o = 0; o < ARRAY_SIZE(offs); o++)
				for (c = 0; c < ARRAY_SIZE(counts); c++)
					check_extract_size(test, limits[l],
							   vecs[v], offs[o],
							   counts[c]);
}

static struct kunit_case blk_size_test_cases[] = {
	KUNIT_CASE(blk_zero_nr_vecs_zero_page_test),
	KUNIT_CASE(blk_zero_nr_vecs_huge_folio_test),
	KUNIT_CASE(bio_aligned_extract_examples_test),
	KUNIT_CASE(bio_aligned_extract_properties_test),
	{}
};

static struct kunit_suite blk_size_test_suite = {
	.name = "blk-size",
	.test_cases = blk_size_test_cases,
};

kunit_test_suite(blk_size_test_suite);

MODULE_DESCRIPTION("KUnit tests for block layer size arithmetic");
MODULE_LICENSE("GPL");
