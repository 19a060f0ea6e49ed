// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the block selftests that make their own devices; see
 * blk_lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "blk_lib.h"

#define CONFIGFS	"/sys/kernel/config"
#define NULLB_CFS	CONFIGFS "/nullb"
#define PFN_MASK	((1ULL << 55) - 1)
#define HPAGE		(2UL << 20)

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* sysfs ------------------------------------------------------------------- */

int blk_sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int blk_sysfs_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static int sysfs_write_ull(const char *path, unsigned long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", val);
	return blk_sysfs_write(path, buf);
}

static int sysfs_read_ull(const char *path, unsigned long long *val)
{
	char buf[64], *end;
	int ret;

	ret = blk_sysfs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int blk_queue_get(const char *disk, const char *attr, unsigned long long *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", disk, attr);
	return sysfs_read_ull(path, val);
}

int blk_queue_set_saved(struct blk_saved *sv, const char *disk,
			const char *attr, unsigned long long val)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", disk, attr);
	if (!sv->saved) {
		ret = blk_sysfs_read(path, sv->val, sizeof(sv->val));
		if (ret)
			return ret;
		snprintf(sv->path, sizeof(sv->path), "%s", path);
		sv->saved = 1;
	}
	return sysfs_write_ull(path, val);
}

void blk_saved_restore(struct blk_saved *sv)
{
	if (!sv->saved)
		return;
	if (blk_sysfs_write(sv->path, sv->val))
		fprintf(stderr, "# cannot restore %s to %s\n", sv->path,
			sv->val);
	sv->saved = 0;
}

/* null_blk ---------------------------------------------------------------- */

static int nullb_attr(const struct blk_nullb *nb, const char *attr,
		      unsigned long long val)
{
	char path[sizeof(nb->cfs) + 32];

	snprintf(path, sizeof(path), "%s/%s", nb->cfs, attr);
	return sysfs_write_ull(path, val);
}

/* Make NULLB_CFS appear: mount configfs, load null_blk without devices. */
static int nullb_cfs_ready(char *msg, size_t msglen)
{
	struct stat st;

	if (!stat(NULLB_CFS, &st))
		return 0;
	if (stat(CONFIGFS, &st)) {
		snprintf(msg, msglen, "%s missing: kernel without CONFIG_CONFIGFS_FS",
			 CONFIGFS);
		return -BLK_ESKIP;
	}
	/* Mounting configfs where it belongs is harmless; blktests does it. */
	if (mount("configfs", CONFIGFS, "configfs", 0, NULL) && errno != EBUSY) {
		snprintf(msg, msglen, "cannot mount configfs on %s: %s",
			 CONFIGFS, strerror(errno));
		return -BLK_ESKIP;
	}
	if (!stat(NULLB_CFS, &st))
		return 0;
	if (stat("/sys/module/null_blk", &st) &&
	    !system("modprobe -q null_blk nr_devices=0 2>/dev/null") &&
	    !stat(NULLB_CFS, &st))
		return 0;
	snprintf(msg, msglen, "%s missing: no null_blk (CONFIG_BLK_DEV_NULL_BLK)",
		 NULLB_CFS);
	return -BLK_ESKIP;
}

int blk_nullb_create(struct blk_nullb *nb, const char *name, unsigned int lbs,
		     unsigned int size_mb, unsigned int max_sectors,
		     int memory_backed, char *msg, size_t msglen)
{
	unsigned long long v;
	char path[sizeof(nb->cfs) + 32], buf[64];
	int ret, i;

	memset(nb, 0, sizeof(*nb));
	ret = nullb_cfs_ready(msg, msglen);
	if (ret)
		return ret;
	snprintf(nb->cfs, sizeof(nb->cfs), NULLB_CFS "/%.64s", name);
	if (mkdir(nb->cfs, 0755)) {
		ret = -errno;
		snprintf(msg, msglen, "mkdir %s: %s", nb->cfs, strerror(errno));
		nb->cfs[0] = '\0';
		return ret;
	}
	ret = nullb_attr(nb, "blocksize", lbs);
	if (!ret)
		ret = nullb_attr(nb, "size", size_mb);
	if (!ret)
		ret = nullb_attr(nb, "memory_backed", !!memory_backed);
	if (!ret)
		ret = nullb_attr(nb, "max_sectors", max_sectors);
	if (ret) {
		snprintf(msg, msglen, "configuring %s: %s", nb->cfs,
			 strerror(-ret));
		goto fail;
	}
	ret = nullb_attr(nb, "power", 1);
	if (ret) {
		snprintf(msg, msglen, "power on %s: %s", nb->cfs,
			 strerror(-ret));
		goto fail;
	}
	nb->powered = 1;
	snprintf(path, sizeof(path), "%s/index", nb->cfs);
	ret = sysfs_read_ull(path, &v);
	if (ret) {
		snprintf(msg, msglen, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	/*
	 * Since 6.0 the disk is named after the configfs directory, before
	 * that nullb<index>.
	 */
	for (i = 0; i < 500; i++) {
		snprintf(nb->disk, sizeof(nb->disk), "%s", name);
		snprintf(path, sizeof(path), "/sys/block/%s/dev", nb->disk);
		ret = blk_sysfs_read(path, buf, sizeof(buf));
		if (ret) {
			snprintf(nb->disk, sizeof(nb->disk), "nullb%llu", v);
			snprintf(path, sizeof(path), "/sys/block/%s/dev",
				 nb->disk);
			ret = blk_sysfs_read(path, buf, sizeof(buf));
		}
		snprintf(nb->path, sizeof(nb->path), "/dev/%s", nb->disk);
		if (!ret && !access(nb->path, F_OK))
			break;
		sleep_ms(10);
	}
	if (ret || access(nb->path, F_OK) ||
	    sscanf(buf, "%u:%u", &nb->major, &nb->minor) != 2) {
		ret = -ENODEV;
		snprintf(msg, msglen, "%s powered on, but no %s", nb->cfs,
			 nb->path);
		goto fail;
	}
	ret = blk_queue_get(nb->disk, "logical_block_size", &v);
	if (!ret && v != lbs)
		ret = -EINVAL;
	if (!ret)
		nb->lbs = v;
	if (!ret)
		ret = blk_queue_get(nb->disk, "max_hw_sectors_kb", &v);
	if (!ret)
		nb->max_hw_kb = v;
	if (!ret)
		ret = blk_queue_get(nb->disk, "dma_alignment", &v);
	if (!ret)
		nb->dma_alignment = v;
	if (ret) {
		snprintf(msg, msglen, "queue limits of %s: %s (wanted %u-byte blocks)",
			 nb->disk, strerror(-ret), lbs);
		goto fail;
	}
	return 0;
fail:
	blk_nullb_destroy(nb);
	return ret;
}

void blk_nullb_destroy(struct blk_nullb *nb)
{
	int i;

	if (!nb->cfs[0])
		return;
	if (nb->powered && nullb_attr(nb, "power", 0))
		fprintf(stderr, "# cannot power off %s\n", nb->cfs);
	nb->powered = 0;
	/* The last opener may still be going away: retry for a while. */
	for (i = 0; i < 100 && rmdir(nb->cfs) && errno == EBUSY; i++)
		sleep_ms(20);
	if (!access(nb->cfs, F_OK))
		fprintf(stderr, "# cannot remove %s: %s\n", nb->cfs,
			strerror(errno));
	nb->cfs[0] = '\0';
}

/* Tracing ----------------------------------------------------------------- */

static const char * const trace_events[] = {
	"block_bio_queue", "block_rq_issue",
};

static int trace_attr(const struct blk_trace *t, const char *file,
		      const char *val)
{
	char path[sizeof(t->dir) + 128];

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	return blk_sysfs_write(path, val);
}

int blk_trace_create(struct blk_trace *t, const char *name,
		     unsigned int major, unsigned int minor,
		     unsigned int buffer_kb, char *msg, size_t msglen)
{
	static const char * const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128], val[64];
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->major = major;
	t->minor = minor;
	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, W_OK))
			break;
	}
	if (i == ARRAY_SIZE(roots)) {
		snprintf(msg, msglen,
			 "no tracefs instances (tracefs not mounted or no CONFIG_FTRACE)");
		return -BLK_ESKIP;
	}
	snprintf(t->dir, sizeof(t->dir), "%s/instances/%.64s", roots[i], name);
	if (mkdir(t->dir, 0755)) {
		ret = -errno;
		snprintf(msg, msglen, "mkdir %s: %s", t->dir, strerror(errno));
		t->dir[0] = '\0';
		return ret;
	}
	snprintf(val, sizeof(val), "%u", buffer_kb);
	ret = trace_attr(t, "buffer_size_kb", val);
	if (ret) {
		snprintf(msg, msglen, "%s/buffer_size_kb: %s", t->dir,
			 strerror(-ret));
		goto fail;
	}
	for (i = 0; i < ARRAY_SIZE(trace_events); i++) {
		snprintf(path, sizeof(path), "events/block/%s/filter",
			 trace_events[i]);
		snprintf(val, sizeof(val), "dev == %u", major << 20 | minor);
		/* Not fatal: the parser checks major,minor as well. */
		trace_attr(t, path, val);
		snprintf(path, sizeof(path), "events/block/%s/enable",
			 trace_events[i]);
		ret = trace_attr(t, path, "1");
		if (ret) {
			snprintf(msg, msglen, "%s/%s: %s (no CONFIG_BLK_DEV_IO_TRACE?)",
				 t->dir, path, strerror(-ret));
			ret = ret == -ENOENT ? -BLK_ESKIP : ret;
			goto fail;
		}
	}
	ret = trace_attr(t, "tracing_on", "1");
	if (!ret)
		ret = blk_trace_clear(t);
	if (ret) {
		snprintf(msg, msglen, "%s: cannot start: %s", t->dir,
			 strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	blk_trace_destroy(t);
	return ret;
}

/* A plain write does not clear the ring buffer: O_TRUNC does. */
int blk_trace_clear(struct blk_trace *t)
{
	char path[sizeof(t->dir) + 8];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void sum_bio(struct blk_trace_sum *s, char dir, const char *rwbs,
		    unsigned long long sector, unsigned int nr)
{
	size_t n = strlen(s->bio_list);

	if (!strchr(rwbs, dir))
		s->other_dir++;
	s->bios++;
	s->bio_bytes += (unsigned long long)nr << 9;
	if (nr > s->max_bio_sectors)
		s->max_bio_sectors = nr;
	if (!s->min_bio_sectors || nr < s->min_bio_sectors)
		s->min_bio_sectors = nr;
	if (n + 48 < sizeof(s->bio_list))
		snprintf(s->bio_list + n, sizeof(s->bio_list) - n, "%s%s %llu+%u",
			 n ? ", " : "", rwbs, sector, nr);
	else if (n + 5 < sizeof(s->bio_list) && !strstr(s->bio_list, "..."))
		snprintf(s->bio_list + n, sizeof(s->bio_list) - n, ", ...");
}

/*
 * Formats (include/trace/events/block.h):
 *   block_bio_queue: 251,0 W 2048 + 2048 [comm]
 *   block_rq_issue: 251,0 R 131072 () 0 + 256 none,0,0 [comm]
 */
int blk_trace_collect(struct blk_trace *t, char dir, struct blk_trace_sum *s)
{
	unsigned long long in_buf = 0, written = 0, sector;
	char path[sizeof(t->dir) + 8], line[512], rwbs[16];
	unsigned int maj, min, nr;
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p, *q;
		int is_bio;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p)
				sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
				       &in_buf, &written);
			continue;
		}
		p = strstr(line, " block_bio_queue: ");
		is_bio = !!p;
		if (!p)
			p = strstr(line, " block_rq_issue: ");
		if (!p)
			continue;
		p = strchr(p + 2, ' ') + 1;
		if (sscanf(p, "%u,%u %15s", &maj, &min, rwbs) != 3 ||
		    maj != t->major || min != t->minor)
			continue;
		if (is_bio) {
			/* after "maj,min rwbs " */
			q = strchr(p, ' ');
			q = q ? strchr(q + 1, ' ') : NULL;
		} else {
			/* after "bytes (cmd) ": cmd may be empty */
			q = strstr(p, ") ");
			q = q ? q + 1 : NULL;
		}
		if (!q || sscanf(q, "%llu + %u", &sector, &nr) != 2)
			continue;
		if (is_bio) {
			sum_bio(s, dir, rwbs, sector, nr);
		} else {
			s->rqs++;
			s->rq_bytes += (unsigned long long)nr << 9;
		}
	}
	fclose(f);
	return written > in_buf ? -ENOSPC : 0;
}

void blk_trace_destroy(struct blk_trace *t)
{
	char path[128];
	unsigned int i;

	if (!t->dir[0])
		return;
	trace_attr(t, "tracing_on", "0");
	for (i = 0; i < ARRAY_SIZE(trace_events); i++) {
		snprintf(path, sizeof(path), "events/block/%s/enable",
			 trace_events[i]);
		trace_attr(t, path, "0");
	}
	if (rmdir(t->dir))
		fprintf(stderr, "# cannot remove %s: %s\n", t->dir,
			strerror(errno));
	t->dir[0] = '\0';
}

/* Buffers ----------------------------------------------------------------- */

int blk_pfns(const void *addr, unsigned long pages, unsigned long long *pfn)
{
	off_t off = (unsigned long)addr / BLK_PAGE * sizeof(*pfn);
	size_t len = pages * sizeof(*pfn);
	unsigned long i;
	ssize_t n;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -errno;
	n = pread(fd, pfn, len, off);
	close(fd);
	if (n != (ssize_t)len)
		return -EIO;
	for (i = 0; i < pages; i++) {
		/* bit 63: present; bits 0-54: PFN (0 without CAP_SYS_ADMIN) */
		if (!(pfn[i] >> 63))
			return -ENOMEM;
		if (!(pfn[i] & PFN_MASK))
			return -EPERM;
		pfn[i] &= PFN_MASK;
	}
	return 0;
}

/*
 * Bios of an unpatched 6.12 multi-bio direct I/O loop over these pages
 * from a page-aligned start: each bio_iov_iter_get_pages() call extracts
 * as many pages as the bio has bvecs left, a page physically following
 * the previous one merges into its bvec, a bio ends at BLK_MAX_VECS.
 */
static unsigned long layout_bios(const unsigned long long *pfn,
				 unsigned long n)
{
	unsigned long i = 0, bios = 0, first, end;
	unsigned int vcnt;

	while (i < n) {
		bios++;
		vcnt = 0;
		first = i;
		while (i < n && vcnt < BLK_MAX_VECS) {
			end = i + BLK_MAX_VECS - vcnt;
			if (end > n)
				end = n;
			for (; i < end; i++)
				if (i == first || pfn[i] != pfn[i - 1] + 1)
					vcnt++;
		}
	}
	return bios;
}

int blk_layout_scan(const void *addr, unsigned long pages,
		    struct blk_layout *l)
{
	unsigned long long *pfn;
	unsigned long i, len = 1;
	int ret;

	memset(l, 0, sizeof(*l));
	pfn = calloc(pages, sizeof(*pfn));
	if (!pfn)
		return -ENOMEM;
	ret = blk_pfns(addr, pages, pfn);
	if (ret) {
		free(pfn);
		return ret;
	}
	l->pages = pages;
	l->run_min = ~0UL;
	for (i = 1; i <= pages; i++) {
		if (i < pages && pfn[i] == pfn[i - 1] + 1) {
			len++;
			continue;
		}
		l->runs++;
		if (len < l->run_min)
			l->run_min = len;
		if (len > l->run_max)
			l->run_max = len;
		len = 1;
	}
	l->bios = layout_bios(pfn, pages);
	free(pfn);
	return 0;
}

struct pool_page {
	unsigned long long pfn;
	unsigned long idx;
};

static int cmp_pfn(const void *a, const void *b)
{
	const struct pool_page *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * Fault @n small pages and return them sorted by PFN; *pool is their
 * mapping (n pages), to be unmapped by the caller.
 */
static struct pool_page *pool_sorted(unsigned long n, char **pool,
				     char *msg, size_t msglen)
{
	unsigned long long *pfn;
	struct pool_page *pp;
	unsigned long i;
	int ret;

	*pool = mmap(NULL, n * BLK_PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*pool == MAP_FAILED) {
		snprintf(msg, msglen, "mmap of %lu pages: %s", n,
			 strerror(errno));
		*pool = NULL;
		return NULL;
	}
	madvise(*pool, n * BLK_PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		(*pool)[i * BLK_PAGE] = 1;
	pfn = calloc(n, sizeof(*pfn));
	pp = calloc(n, sizeof(*pp));
	if (!pfn || !pp) {
		snprintf(msg, msglen, "out of memory");
		goto fail;
	}
	ret = blk_pfns(*pool, n, pfn);
	if (ret) {
		snprintf(msg, msglen, "cannot read PFNs from /proc/self/pagemap: %s%s",
			 strerror(-ret), ret == -EPERM ? " (needs root)" : "");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		pp[i].pfn = pfn[i];
		pp[i].idx = i;
	}
	free(pfn);
	qsort(pp, n, sizeof(*pp), cmp_pfn);
	return pp;
fail:
	free(pfn);
	free(pp);
	munmap(*pool, n * BLK_PAGE);
	*pool = NULL;
	return NULL;
}

/* Destination of @pages pages, small pages only. */
static int buf_map(struct blk_buf *b, unsigned long pages,
		   char *msg, size_t msglen)
{
	memset(b, 0, sizeof(*b));
	b->map_len = pages * BLK_PAGE;
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED) {
		snprintf(msg, msglen, "mmap of %lu pages: %s", pages,
			 strerror(errno));
		b->map = NULL;
		return -ENOMEM;
	}
	madvise(b->map, b->map_len, MADV_NOHUGEPAGE);
	b->addr = b->map;
	b->len = b->map_len;
	return 0;
}

static int move_page(char *pool, unsigned long idx, char *dst,
		     char *msg, size_t msglen)
{
	if (mremap(pool + idx * BLK_PAGE, BLK_PAGE, BLK_PAGE,
		   MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED) {
		snprintf(msg, msglen, "mremap: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int blk_buf_nomerge(struct blk_buf *b, unsigned long pages,
		    char *msg, size_t msglen)
{
	unsigned long n = 2 * pages + 64, i, j = 0;
	unsigned long long last = 0;
	struct blk_layout l;
	struct pool_page *pp;
	char *pool;
	int ret;

	ret = buf_map(b, pages, msg, msglen);
	if (ret)
		return ret;
	pp = pool_sorted(n, &pool, msg, msglen);
	if (!pp) {
		blk_buf_free(b);
		return -EPERM;
	}
	/* In PFN order, never the page right after the one taken last. */
	for (i = 0; i < n && j < pages; i++) {
		if (j && pp[i].pfn == last + 1)
			continue;
		ret = move_page(pool, pp[i].idx, b->addr + j * BLK_PAGE,
				msg, msglen);
		if (ret)
			break;
		last = pp[i].pfn;
		j++;
	}
	free(pp);
	munmap(pool, n * BLK_PAGE);
	if (!ret && j < pages) {
		snprintf(msg, msglen, "pool of %lu pages gave only %lu of %lu",
			 n, j, pages);
		ret = -ENOMEM;
	}
	if (!ret) {
		ret = blk_layout_scan(b->addr, pages, &l);
		if (ret)
			snprintf(msg, msglen, "pagemap of the buffer: %s",
				 strerror(-ret));
		else if (l.runs != pages) {
			snprintf(msg, msglen, "%lu pages in %lu runs, not %lu: pages merge",
				 pages, l.runs, pages);
			ret = -EINVAL;
		}
	}
	if (ret)
		blk_buf_free(b);
	return ret;
}

int blk_buf_runs(struct blk_buf *b, unsigned long pages, unsigned int run_min,
		 unsigned int run_max, unsigned long long seed,
		 char *msg, size_t msglen)
{
	unsigned long n = 2 * pages + 256, c = 0, j = 0, planned = 0, k;
	struct blk_layout l;
	struct pool_page *pp;
	char *pool;
	int ret = 0;

	ret = buf_map(b, pages, msg, msglen);
	if (ret)
		return ret;
	pp = pool_sorted(n, &pool, msg, msglen);
	if (!pp) {
		blk_buf_free(b);
		return -EPERM;
	}
	while (j < pages && c < n && !ret) {
		unsigned long want = run_min + blk_rand(&seed) %
				     (run_max - run_min + 1);

		/* Physically contiguous pages from the sorted pool. */
		for (k = 0; k < want && j < pages && c < n; k++, c++, j++) {
			if (k && pp[c].pfn != pp[c - 1].pfn + 1)
				break;
			ret = move_page(pool, pp[c].idx, b->addr + j * BLK_PAGE,
					msg, msglen);
			if (ret)
				break;
		}
		planned++;
		c++;	/* leave a page out: the next run is not adjacent */
	}
	free(pp);
	munmap(pool, n * BLK_PAGE);
	if (!ret && j < pages) {
		snprintf(msg, msglen, "pool of %lu pages gave only %lu of %lu",
			 n, j, pages);
		ret = -ENOMEM;
	}
	if (!ret) {
		ret = blk_layout_scan(b->addr, pages, &l);
		if (ret)
			snprintf(msg, msglen, "pagemap of the buffer: %s",
				 strerror(-ret));
		else if (l.runs != planned || l.run_max > run_max) {
			snprintf(msg, msglen, "%lu runs of %lu..%lu pages, planned %lu of %u..%u",
				 l.runs, l.run_min, l.run_max, planned,
				 run_min, run_max);
			ret = -EINVAL;
		}
	}
	if (ret)
		blk_buf_free(b);
	return ret;
}

int blk_buf_thp(struct blk_buf *b, size_t len, char *msg, size_t msglen)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->map_len = len + HPAGE;
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED) {
		snprintf(msg, msglen, "mmap of %zu bytes: %s", b->map_len,
			 strerror(errno));
		b->map = NULL;
		return -ENOMEM;
	}
	b->addr = (char *)(((unsigned long)b->map + HPAGE - 1) & ~(HPAGE - 1));
	b->len = len;
	madvise(b->addr, len, MADV_HUGEPAGE);
	for (i = 0; i < len; i += BLK_PAGE)
		b->addr[i] = 1;
	return 0;
}

void blk_buf_free(struct blk_buf *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}

/* Patterns ---------------------------------------------------------------- */

static unsigned long long pattern_word(unsigned long long off,
				       unsigned int seed)
{
	return (off * 0x9e3779b97f4a7c15ULL) ^ (0xb10cULL << 48) ^
	       ((unsigned long long)seed << 20) ^ 1;
}

void blk_pattern_fill(void *buf, size_t len, unsigned long long devoff,
		      unsigned int seed)
{
	unsigned long long *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = pattern_word(devoff + i * 8, seed);
}

long long blk_pattern_check(const void *buf, size_t len,
			    unsigned long long devoff, unsigned int seed)
{
	const unsigned long long *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != pattern_word(devoff + i * 8, seed))
			return devoff + i * 8;
	return -1;
}

/* xorshift64: deterministic layouts from fixed seeds */
unsigned long long blk_rand(unsigned long long *state)
{
	unsigned long long x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}
