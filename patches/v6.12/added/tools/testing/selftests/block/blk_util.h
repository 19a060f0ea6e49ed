/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device a block selftest runs on, and what its block events count.
 *
 * A test makes a null_blk of its own, or takes the whole disk named in
 * BLK_TEST_DEV if BLK_TEST_DESTROY lists it too: its data is destroyed.
 * What a test makes is named ksft_blk_NS_PID_WHAT after the process that
 * made it and its PID namespace; each setup first removes (or puts back)
 * what runs of its namespace that were killed left (blk_sweep()), and
 * leaves alone what a run still going or another namespace has. What a
 * test mounted or loaded for its device (configfs, tracefs, null_blk) is
 * unmounted or unloaded when it puts the device back, unless in use.
 */
#ifndef BLK_UTIL_H
#define BLK_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define BLK_MiB		(1024LL * 1024)

/* BIO_MAX_VECS: a bio holds at most this many bvecs. */
#define BLK_BIO_PAGES	256

/*
 * The first release with the changes the proof cases check (not the
 * fixes): blk_proof_skip() skips them on an earlier kernel.
 */
#define BLK_PROOF_MAJOR	7
#define BLK_PROOF_MINOR	5

/* What a test needs of its device. */
struct blk_want {
	const char *what;	/* in the names it makes, 9 characters at most */
	unsigned int lbs;	/* logical block size, 0: any (512 if made) */
	unsigned long size_mb;	/* at least */
	unsigned int max_hw_kb;	/* of a null_blk; a named disk has its own */
	bool no_write_zeroes;	/* zeroing must write zeroes from memory */
	bool trace;		/* count its block events */
	int open_flags;		/* open it with these, 0: not at all */
};

struct blk_dev {
	char disk[64];
	char path[80];		/* /dev/DISK */
	unsigned int dev;	/* major << 20 | minor, as the trace filter wants */
	char cfs[128];		/* configfs directory of a null_blk made here */
	char trace[128];	/* trace instance directory, "" if none */
	char saved[128];	/* queue limits of a named disk to restore */
	int fd;
};

/* What the block events of the device counted. */
struct blk_counts {
	long bios;		/* block_bio_queue of this process */
	long rqs;		/* block_rq_issue */
	long max_rq;		/* sectors of the largest request */
	long max_bio;		/* sectors of its largest bio */
	long short_bios;	/* its bios of fewer sectors than asked */
	long others;		/* block_bio_queue of other tasks */
};

const char *blk_proof_skip(void);
int blk_write(const char *path, const char *fmt, ...);
long long blk_read_ll(const char *path);
long long blk_meminfo(const char *name);
long long blk_vmstat(const char *name);
void blk_sweep(void);

int blk_dev_get(struct blk_dev *d, const struct blk_want *w, char *msg,
		size_t msglen);
void blk_dev_put(struct blk_dev *d);
int blk_queue_set(struct blk_dev *d, const char *attr, long long val);
long long blk_queue_get(const struct blk_dev *d, const char *attr);

int blk_trace_start(struct blk_dev *d);
int blk_trace_stop(struct blk_dev *d, long full, struct blk_counts *c);

unsigned long long blk_pfn(int pagemap_fd, const void *addr);
unsigned long blk_anon_huge_kb(const void *addr);
char *blk_single_pages(unsigned long pages);

#endif /* BLK_UTIL_H */
