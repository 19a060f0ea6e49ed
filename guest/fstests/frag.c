// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: frag KIB
 * Fragments the guest's free memory before make fstests runs the suite:
 * maps KIB KiB (guest/fstests/run.sh: 70 % of MemAvailable), faults it in
 * as small pages (MADV_NOHUGEPAGE), then gives back every page whose
 * frame number is odd (read from /proc/self/pagemap) and whose two
 * neighbours in memory it also holds. A page given back so cannot merge
 * into a larger free block: the page allocator hands these holes out
 * first (it takes the smallest free block that fits), and the buffers the
 * suite's programs allocate next are single pages that are never next to
 * each other in memory, as the series' own tests build theirs. A direct
 * I/O bio of such a buffer holds one page per bvec: the case the series'
 * trim and its split of single pages act on.
 * Prints one line (what it holds and gave back), then sleeps until it is
 * killed. It sets its oom_score_adj to 1000: under memory pressure the
 * OOM killer ends it before any test's process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static int held(const unsigned long long *sorted, size_t n,
		unsigned long long pfn)
{
	return !!bsearch(&pfn, sorted, n, sizeof(*sorted), cmp);
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), len, i, pages, freed = 0;
	long long kib = argc > 1 ? atoll(argv[1]) : 0;
	unsigned long long e, *pfn, *sorted;
	char *area;
	int fd;

	if (kib <= 0) {
		fprintf(stderr, "usage: frag KIB\n");
		return 2;
	}
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0 || write(fd, "1000", 4) != 4) {
		perror("frag: oom_score_adj");
		return 1;
	}
	close(fd);
	pages = kib * 1024 / page;
	len = pages * page;
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("frag: mmap");
		return 1;
	}
	if (madvise(area, len, MADV_NOHUGEPAGE))
		perror("frag: madvise(MADV_NOHUGEPAGE)");
	for (i = 0; i < pages; i++)
		area[i * page] = 1;
	pfn = calloc(pages, sizeof(*pfn));
	sorted = calloc(pages, sizeof(*sorted));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (!pfn || !sorted || fd < 0) {
		perror("frag: /proc/self/pagemap");
		return 1;
	}
	for (i = 0; i < pages; i++) {
		if (pread(fd, &e, sizeof(e),
			  (unsigned long)(area + i * page) / page * sizeof(e)) !=
		    sizeof(e)) {
			perror("frag: pagemap");
			return 1;
		}
		/* Bit 63: present; bits 0-54: the frame (0 without root). */
		pfn[i] = e >> 63 ? e & ((1ULL << 55) - 1) : 0;
		if (!pfn[i]) {
			fprintf(stderr, "frag: no frame numbers in pagemap (not root?)\n");
			return 1;
		}
	}
	close(fd);
	memcpy(sorted, pfn, pages * sizeof(*pfn));
	qsort(sorted, pages, sizeof(*sorted), cmp);
	/* An odd frame whose two neighbours are held becomes a hole. */
	for (i = 0; i < pages; i++)
		if ((pfn[i] & 1) && held(sorted, pages, pfn[i] - 1) &&
		    held(sorted, pages, pfn[i] + 1) &&
		    !madvise(area + i * page, page, MADV_DONTNEED))
			freed++;
	printf("frag: holds %zu KiB in %zu pages, gave back %zu pages of odd frame number between two held ones (%zu KiB)\n",
	       (pages - freed) * page / 1024, pages - freed, freed,
	       freed * page / 1024);
	fflush(stdout);
	for (;;)
		pause();
}
