// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: dio_table [LIMIT_KB...]
 * Bios and requests of a 64 MiB O_DIRECT read, for the table in the
 * changelog of "block: end direct I/O bios that will be split on a split point": for each buffer layout (physically contiguous THP memory;
 * runs of 1-40 and of 1-3 physically contiguous pages; single pages that
 * never merge) and each max_sectors_kb (default: 96 127 128 384 512 1023
 * 1280 4096), one read into that buffer from a null_blk device this
 * program creates (512-byte blocks, max_hw_sectors 4 MiB, not memory
 * backed) and removes, counted with a private trace instance:
 *   TABLE layout=L limit=K bios=N rqs=N bytes=N runs=N
 * Run it on the baseline and the patched kernel and compare. Root only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blk_lib.h"

#define IO_LEN		(64 * BLK_MiB)
#define IO_PAGES	(IO_LEN / BLK_PAGE)

static const unsigned int def_limits[] = {
	96, 127, 128, 384, 512, 1023, 1280, 4096,
};

static int make_buf(struct blk_buf *b, int layout, char *msg, size_t len)
{
	switch (layout) {
	case 0:
		return blk_buf_thp(b, IO_LEN, msg, len);
	case 1:
		return blk_buf_runs(b, IO_PAGES, 1, 40, 0x5eed2023ULL, msg, len);
	case 2:
		return blk_buf_runs(b, IO_PAGES, 1, 3, 0x5eed2023ULL, msg, len);
	default:
		return blk_buf_nomerge(b, IO_PAGES, msg, len);
	}
}

static const char * const layout_name[] = {
	"contiguous", "runs1-40", "runs1-3", "single",
};

int main(int argc, char **argv)
{
	unsigned int limits[32], nr_limits = 0, i;
	struct blk_saved saved = { 0 };
	struct blk_nullb nb;
	struct blk_trace t;
	char msg[256];
	int layout, fd, ret, status = 0;

	for (i = 1; i < (unsigned int)argc && nr_limits < ARRAY_SIZE(limits); i++)
		limits[nr_limits++] = strtoul(argv[i], NULL, 0);
	if (!nr_limits)
		for (i = 0; i < ARRAY_SIZE(def_limits); i++)
			limits[nr_limits++] = def_limits[i];

	ret = blk_nullb_create(&nb, "dio_table", 512, 256, 8192, 0, msg,
			       sizeof(msg));
	if (ret) {
		fprintf(stderr, "dio_table: null_blk: %s\n", msg);
		return 1;
	}
	ret = blk_trace_create(&t, "dio_table", nb.major, nb.minor, 4096, msg,
			       sizeof(msg));
	if (ret) {
		fprintf(stderr, "dio_table: trace: %s\n", msg);
		blk_nullb_destroy(&nb);
		return 1;
	}
	fd = open(nb.path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "dio_table: %s: %s\n", nb.path, strerror(errno));
		status = 1;
		goto out;
	}

	for (layout = 0; layout < 4; layout++) {
		struct blk_layout l;
		struct blk_buf b;

		if (make_buf(&b, layout, msg, sizeof(msg))) {
			fprintf(stderr, "dio_table: %s buffer: %s\n",
				layout_name[layout], msg);
			status = 1;
			continue;
		}
		if (blk_layout_scan(b.addr, IO_PAGES, &l))
			memset(&l, 0, sizeof(l));
		for (i = 0; i < nr_limits; i++) {
			struct blk_trace_sum s;
			ssize_t n;

			if (blk_queue_set_saved(&saved, nb.disk,
						"max_sectors_kb", limits[i])) {
				fprintf(stderr, "dio_table: max_sectors_kb %u refused\n",
					limits[i]);
				status = 1;
				continue;
			}
			blk_trace_clear(&t);
			n = pread(fd, b.addr, IO_LEN, 0);
			ret = blk_trace_collect(&t, 'R', &s);
			if (n != (ssize_t)IO_LEN || ret) {
				fprintf(stderr, "dio_table: %s at %u KiB: read %zd, trace %d\n",
					layout_name[layout], limits[i], n, ret);
				status = 1;
				continue;
			}
			printf("TABLE layout=%s limit=%u bios=%ld rqs=%ld bytes=%llu runs=%lu\n",
			       layout_name[layout], limits[i], s.bios, s.rqs,
			       s.rq_bytes, l.runs);
			fflush(stdout);
		}
		blk_buf_free(&b);
	}
	close(fd);
out:
	blk_saved_restore(&saved);
	blk_trace_destroy(&t);
	blk_nullb_destroy(&nb);
	return status;
}
