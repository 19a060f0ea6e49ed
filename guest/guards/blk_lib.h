/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the block selftests that make their own devices: null_blk
 * through configfs, queue settings restored on teardown, a private
 * tracefs instance with the block events of one device, user buffers of
 * a known physical layout, and data patterns that encode their offset.
 */
#ifndef BLK_LIB_H
#define BLK_LIB_H

#include <stddef.h>

#define BLK_PAGE	4096UL
#define BLK_KiB		1024ULL
#define BLK_MiB		(1024ULL * BLK_KiB)
#define BLK_MAX_VECS	256	/* BIO_MAX_VECS */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Error returns that mean "skip": the kernel lacks what the test needs. */
#define BLK_ESKIP	10000

/*
 * In a FIXTURE_SETUP or TEST_F (kselftest_harness.h): skip with @msg if
 * @ret is -BLK_ESKIP, fail with it on any other error.
 */
#define BLK_SKIP_OR_ASSERT(ret, msg)					\
	do {								\
		if ((ret) == -BLK_ESKIP)				\
			SKIP(return, "%s", msg);			\
		ASSERT_EQ(0, ret) TH_LOG("%s", msg);			\
	} while (0)

/* null_blk ---------------------------------------------------------------- */

struct blk_nullb {
	char cfs[256];		/* /sys/kernel/config/nullb/<name>, "" if none */
	char disk[64];		/* <name> (since 6.0) or nullb<index> */
	char path[80];		/* /dev/<disk> */
	unsigned int major, minor;
	unsigned int lbs;
	unsigned int max_hw_kb;
	unsigned int dma_alignment;
	int powered;
};

/*
 * Create and power on a null_blk device named @name with @lbs-byte
 * blocks, @size_mb MiB and max_sectors @max_sectors (512-byte sectors),
 * memory-backed if @memory_backed. Returns 0, -BLK_ESKIP when configfs or
 * null_blk is missing (reason in @msg), or -errno (reason in @msg). On
 * failure whatever was created is removed again.
 *
 * Memory-backed null_blk in 6.12 copies up to blocksize bytes per step
 * without stopping at the end of its page (mainline 7.0 stops there): with
 * 4096-byte blocks a bvec that does not start on a 4096-byte boundary (a
 * buffer at +512) makes it read and write past its page. Use such buffers
 * only on devices that are not memory-backed.
 */
int blk_nullb_create(struct blk_nullb *nb, const char *name, unsigned int lbs,
		     unsigned int size_mb, unsigned int max_sectors,
		     int memory_backed, char *msg, size_t msglen);
/*
 * blk_nullb_create() with more configfs attributes set before power-on:
 * @extra is "attr=value ..." (irqmode=2 completion_nsec=50000 ...).
 */
int blk_nullb_create_attrs(struct blk_nullb *nb, const char *name,
			   unsigned int lbs, unsigned int size_mb,
			   unsigned int max_sectors, int memory_backed,
			   const char *extra, char *msg, size_t msglen);
void blk_nullb_destroy(struct blk_nullb *nb);

/* scsi_debug -------------------------------------------------------------- */

/*
 * One scsi_debug host with one disk, added through the driver's add_host
 * attribute and removed by blk_sdebug_destroy() (writing -1 removes the
 * newest host: do not add hosts concurrently). The disk's shape is fixed
 * when the driver loads: if it is not there, it is loaded here with
 * physblk_exp=@physblk_exp, atomic_wr=@atomic_wr and unloaded on destroy;
 * if it is loaded with other values, -BLK_ESKIP says which.
 */
struct blk_sdebug {
	char disk[32];		/* sdX, "" if none */
	char path[48];		/* /dev/sdX */
	unsigned int major, minor;
	int added;		/* a host was added here */
	int loaded;		/* the module was loaded here */
};

int blk_sdebug_create(struct blk_sdebug *sd, unsigned int physblk_exp,
		      unsigned int atomic_wr, char *msg, size_t msglen);
void blk_sdebug_destroy(struct blk_sdebug *sd);

/* Named devices ----------------------------------------------------------- */

/*
 * A disk the user named for a destructive test (BLK_NOWZ_DEV=...): 0 if
 * it is a whole disk without partitions or holders, not mounted, not
 * swap, not open exclusively by anyone, and listed in BLK_TEST_DESTROY
 * (names separated by spaces); otherwise -EPERM, or -ENODEV if there is
 * no such disk, with the reason in @msg.
 */
int blk_dev_check_named(const char *name, char *msg, size_t msglen);

/* sysfs ------------------------------------------------------------------- */

int blk_sysfs_read(const char *path, char *buf, size_t len);
int blk_sysfs_write(const char *path, const char *val);

/*
 * The running kernel's option @name ("CONFIG_..."): 1 if =y or =m, 0 if
 * not set, -1 if its config cannot be read (/proc/config.gz, through
 * CONFIG_IKCONFIG_PROC, or /boot/config-$(uname -r)).
 */
int blk_kconfig(const char *name);
int blk_queue_get(const char *disk, const char *attr, unsigned long long *val);

/*
 * One setting, saved on the first write and restored on demand; until
 * then also in BLK_SAVED_DIR, from where the next guard program restores
 * it if this one is killed first.
 */
#define BLK_SAVED_DIR	"/run/blk_guards_saved"
struct blk_saved {
	char path[128];
	char val[64];
	char file[64];
	int saved;
};

int blk_queue_set_saved(struct blk_saved *sv, const char *disk,
			const char *attr, unsigned long long val);
void blk_saved_restore(struct blk_saved *sv);

/* Tracing ----------------------------------------------------------------- */

/*
 * A private instance (tracefs instances/<name>) with block_bio_queue and
 * block_rq_issue enabled for one dev_t only; global tracing untouched.
 */
struct blk_trace {
	char dir[256];		/* "" if none */
	unsigned int major, minor;
};

struct blk_trace_sum {
	long bios;		/* block_bio_queue events */
	unsigned long long bio_bytes;
	long rqs;		/* block_rq_issue events */
	unsigned long long rq_bytes;
	long other_dir;		/* bios of the other direction (counted too) */
	long odd_bios;		/* bios not a multiple of BLK_PAGE bytes */
	unsigned int max_bio_sectors, min_bio_sectors;
	char bio_list[160];	/* the first bios: "sector+n ..." */
};

int blk_trace_create(struct blk_trace *t, const char *name,
		     unsigned int major, unsigned int minor,
		     unsigned int buffer_kb, char *msg, size_t msglen);
int blk_trace_clear(struct blk_trace *t);
/* @dir: 'R' or 'W'. Returns 0, or -ENOSPC if events were lost. */
int blk_trace_collect(struct blk_trace *t, char dir, struct blk_trace_sum *s);
void blk_trace_destroy(struct blk_trace *t);

/* Buffers of a known physical layout --------------------------------------- */

struct blk_buf {
	char *addr;		/* page (or 2 MiB) aligned */
	size_t len;
	void *map;		/* what to munmap */
	size_t map_len;
	long huge;		/* blk_buf_thp(): 2 MiB THPs in it, -1: unknown */
};

/* Physical layout of [addr, addr + pages pages) from /proc/self/pagemap. */
struct blk_layout {
	unsigned long pages;
	unsigned long runs;	/* of physically contiguous pages */
	unsigned long run_min, run_max;
	unsigned long bios;	/* of an unpatched multi-bio DIO loop */
	/*
	 * blk_bvecs_by_folio(): 1 or 0; -errno if the kernel does not say
	 * (no CONFIG_KALLSYMS), and then @bios is 0: not counted.
	 */
	int by_folio;
};

/*
 * How the running kernel builds bvecs from user pages: since
 * iov_iter_extract_bvecs() (Linux 7.0), one bvec per run of physically
 * contiguous pages of one folio within one extraction (at most as many
 * pages as the bio has bvecs left, within one iovec); before it,
 * bio_add_page() merged any page physically after the previous one into
 * its bvec. Returns 1 for the former, 0 for the latter, -errno if
 * /proc/kallsyms (CONFIG_KALLSYMS) cannot be read.
 */
int blk_bvecs_by_folio(void);
/* A skip's reason when it returned -errno (strerror() for the %s). */
#define BLK_BVEC_RULE_SKIP \
	"/proc/kallsyms: %s: cannot tell how the kernel builds bvecs (CONFIG_KALLSYMS)"

/*
 * The bvecs of one bio of a multi-bio direct I/O loop from page @pg of a
 * page-aligned buffer of page-multiple iovecs, the buffer's pages being
 * @pfn and, if bvecs are folio runs (blk_bvecs_by_folio()), @fstart
 * (blk_folio_starts(); NULL if not): each extraction (6.12's
 * __bio_iov_iter_get_pages(), 7.0's iov_iter_extract_bvecs()) takes as
 * many pages as the bio has bvecs left, none past @end nor
 * past its iovec's end (@iov_end[page]: the page after that iovec; NULL:
 * one iovec up to @end), and the bio is full at BLK_MAX_VECS bvecs. Marks
 * in @vstart (unless NULL) the pages that start a bvec; returns the page
 * after the bio's last.
 */
unsigned long blk_bio_bvecs(const unsigned long long *pfn,
			    const unsigned char *fstart, unsigned long pg,
			    unsigned long end, const unsigned long *iov_end,
			    unsigned char *vstart);
/* PFNs of @pages pages at @addr (needs CAP_SYS_ADMIN): -EPERM without. */
int blk_pfns(const void *addr, unsigned long pages, unsigned long long *pfn);
int blk_layout_scan(const void *addr, unsigned long pages,
		    struct blk_layout *l);
/*
 * For each of @pages pages whose PFNs are @pfn, in @start: 1 if it starts
 * a folio run, 0 if it continues the folio of the page before it (a tail
 * page of a large folio, physically after the previous page), from
 * /proc/kpageflags (needs CAP_SYS_ADMIN). Returns 0 or -errno.
 */
int blk_folio_starts(const unsigned long long *pfn, unsigned long pages,
		     unsigned char *start);

/*
 * The buffers below are checked through /proc/self/pagemap once built, and
 * built again if a page was migrated meanwhile (up to three times in all):
 * -EINVAL, with the layout found in @msg, if it never comes out as planned.
 */

/* @pages pages, no page physically followed by the next one (no merging). */
int blk_buf_nomerge(struct blk_buf *b, unsigned long pages,
		    char *msg, size_t msglen);
/*
 * @pages pages in runs of @run_min..@run_max physically contiguous pages
 * (pseudo-random lengths from @seed), consecutive runs never adjacent.
 */
int blk_buf_runs(struct blk_buf *b, unsigned long pages, unsigned int run_min,
		 unsigned int run_max, unsigned long long seed,
		 char *msg, size_t msglen);
/*
 * @len bytes of 2 MiB aligned MADV_HUGEPAGE memory, faulted in; how many
 * PMD-mapped THPs back it in @b->huge (/proc/self/smaps; -1: unknown).
 */
int blk_buf_thp(struct blk_buf *b, size_t len, char *msg, size_t msglen);
void blk_buf_free(struct blk_buf *b);

/* Patterns ---------------------------------------------------------------- */

/* 8-byte words that encode their device offset and @seed. */
void blk_pattern_fill(void *buf, size_t len, unsigned long long devoff,
		      unsigned int seed);
/* Byte offset (device offset) of the first mismatch, or -1. */
long long blk_pattern_check(const void *buf, size_t len,
			    unsigned long long devoff, unsigned int seed);

unsigned long long blk_rand(unsigned long long *state);

/* Saved settings ---------------------------------------------------------- */

/* Write @val to the sysfs or debugfs file @path, saving it on the first write. */
int blk_sysfs_set_saved(struct blk_saved *sv, const char *path,
			const char *val);

/* Linux AIO --------------------------------------------------------------- */

/*
 * One Linux AIO request through the raw system calls (no libaio), waited
 * for: @opcode IOCB_CMD_PREAD or IOCB_CMD_PWRITE of @nbytes at @buf, or
 * IOCB_CMD_PREADV or IOCB_CMD_PWRITEV of the @nbytes iovecs at @buf; at
 * device offset @off with RWF_* @rw_flags. Its result (bytes or -errno).
 */
long blk_aio_rw(int fd, unsigned int opcode, const void *buf, size_t nbytes,
		long long off, int rw_flags);
/* 0 if the kernel has Linux AIO (CONFIG_AIO), else io_setup()'s -errno. */
int blk_aio_probe(void);

#endif /* BLK_LIB_H */
