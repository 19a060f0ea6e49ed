/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the block selftests: sysfs knobs and the device a
 * test runs on (named by the user or made by the test). Tracing goes
 * through blk_lib's private trace instances (blk_trace_*()).
 */
#ifndef BLK_COMMON_H
#define BLK_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>

#include "kselftest.h"
#include "blk_lib.h"

#define KiB		1024ULL
#define MiB		(1024ULL * KiB)
#define GiB		(1024ULL * MiB)

struct blkdev {
	char name[64];
	char path[96];
	unsigned int major, minor;
	unsigned int lbs;		/* logical block size, bytes */
	unsigned long long size;	/* bytes */
	unsigned long long wz_max;	/* write_zeroes_max_bytes */
	unsigned int max_sectors_kb;	/* at discovery: the default */
	unsigned int max_hw_sectors_kb;
};

static inline int sysfs_read_ull(const char *path, unsigned long long *val)
{
	char buf[64];
	int ret;

	ret = blk_sysfs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, NULL, 0);
	return errno ? -errno : 0;
}

static inline int sysfs_write_ull(const char *path, unsigned long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", val);
	return blk_sysfs_write(path, buf);
}

/* One counter of /proc/vmstat, or -1 if the kernel has no such counter. */
static inline long long vmstat_read(const char *name)
{
	size_t nlen = strlen(name);
	long long val = -1;
	char line[256];
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, nlen) && line[nlen] == ' ') {
			val = strtoll(line + nlen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

static inline int blk_queue_path(const struct blkdev *dev, const char *attr,
				 char *path, size_t len)
{
	return snprintf(path, len, "/sys/block/%s/queue/%s", dev->name, attr);
}

static inline int dev_queue_get(const struct blkdev *dev, const char *attr,
				unsigned long long *val)
{
	char path[256];

	blk_queue_path(dev, attr, path, sizeof(path));
	return sysfs_read_ull(path, val);
}

static inline int blk_queue_set(const struct blkdev *dev, const char *attr,
				unsigned long long val)
{
	char path[256];

	blk_queue_path(dev, attr, path, sizeof(path));
	return sysfs_write_ull(path, val);
}

static inline int blk_probe(const char *name, struct blkdev *dev)
{
	unsigned long long v;
	char path[256], buf[64];

	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	snprintf(dev->path, sizeof(dev->path), "/dev/%s", name);

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	if (blk_sysfs_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &dev->major, &dev->minor) != 2)
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	if (sysfs_read_ull(path, &v) || !v)
		return -ENODEV;
	dev->size = v << 9;
	if (dev_queue_get(dev, "logical_block_size", &v))
		return -ENODEV;
	dev->lbs = v;
	if (dev_queue_get(dev, "write_zeroes_max_bytes", &dev->wz_max))
		return -ENODEV;
	if (dev_queue_get(dev, "max_sectors_kb", &v))
		return -ENODEV;
	dev->max_sectors_kb = v;
	if (dev_queue_get(dev, "max_hw_sectors_kb", &v))
		return -ENODEV;
	dev->max_hw_sectors_kb = v;
	return 0;
}

/* A device made for one test, removed by blk_made_destroy(). */
struct blk_made {
	struct blk_nullb nb;
};

static inline void blk_made_destroy(struct blk_made *made)
{
	blk_nullb_destroy(&made->nb);
}

/*
 * The device a test runs on. One named in the environment variable @env
 * (BLK_NOWZ_DEV, BLK_WZ_DEV) is used only if blk_dev_check_named() allows
 * it and has (@want_wz 1), lacks (0) or may have (-1) Write Zeroes.
 * Without a name, one is made into @made, which the caller removes with
 * blk_made_destroy() (a harness teardown can: @made may live in the
 * fixture): a memory-backed null_blk of @make_lbs-byte blocks and
 * @make_mb MiB (no Write Zeroes); with @made NULL nothing is made
 * (-BLK_ESKIP). Nothing else is ever touched. Returns 0, -BLK_ESKIP (skip) or -errno (fail),
 * the reason in @msg.
 */
static inline int blk_find(const char *env, int want_wz, unsigned int make_lbs,
			   unsigned int make_mb, struct blk_made *made,
			   struct blkdev *dev, char *msg, size_t msglen)
{
	const char *name = getenv(env);
	char made_name[64];
	int ret;

	if (name && *name) {
		if (!strncmp(name, "/dev/", 5))
			name += 5;
		ret = blk_dev_check_named(name, msg, msglen);
		if (ret)
			return ret;
	} else if (made) {
		memset(made, 0, sizeof(*made));
		snprintf(made_name, sizeof(made_name), "blk_test_%d", getpid());
		ret = blk_nullb_create(&made->nb, made_name, make_lbs, make_mb,
				       8192, 1, msg, msglen);
		name = made->nb.disk;
		if (ret)
			return ret;
	} else {
		snprintf(msg, msglen, "no device named in %s", env);
		return -BLK_ESKIP;
	}
	if (blk_probe(name, dev)) {
		snprintf(msg, msglen, "cannot read the queue limits of %s",
			 name);
		return -ENODEV;
	}
	if (want_wz >= 0 && !!dev->wz_max != want_wz) {
		snprintf(msg, msglen, "%s=%s %s Write Zeroes (write_zeroes_max_bytes %llu)",
			 env, name, want_wz ? "lacks" : "has", dev->wz_max);
		return -EINVAL;
	}
	return 0;
}

/*
 * blk_find() for a test that needs @lbs-byte logical blocks (0: any) and
 * at least @min_size bytes: 0 if the device fits, -BLK_ESKIP if there is
 * none or it does not fit (skip), -errno if the test must fail (a named
 * device refused, a device that could not be made); the reason in @msg.
 */
static inline int blk_test_dev(const char *env, int want_wz,
			       unsigned int make_lbs, unsigned int make_mb,
			       unsigned int lbs, unsigned long long min_size,
			       struct blk_made *made, struct blkdev *dev,
			       char *msg, size_t msglen)
{
	int ret;

	ret = blk_find(env, want_wz, make_lbs, make_mb, made, dev, msg,
		       msglen);
	if (ret)
		return ret;
	if (lbs && dev->lbs != lbs) {
		snprintf(msg, msglen, "%s has %u-byte blocks, not %u",
			 dev->name, dev->lbs, lbs);
		return -BLK_ESKIP;
	}
	if (dev->size < min_size) {
		snprintf(msg, msglen, "%s is smaller than %llu MiB: %llu MiB",
			 dev->name, min_size / MiB, dev->size / MiB);
		return -BLK_ESKIP;
	}
	return 0;
}

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Block device data helpers ---------------------------------------------- */

static inline long long zero_check(const void *buf, size_t len,
				   unsigned long long off)
{
	const unsigned long long *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i])
			return off + i * 8;
	return -1;
}

static inline int pwrite_full(int fd, const void *buf, size_t len,
			      unsigned long long off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static inline int pread_full(int fd, void *buf, size_t len,
			     unsigned long long off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static inline int blk_zeroout(int fd, unsigned long long start,
			      unsigned long long len)
{
	unsigned long long range[2] = { start, len };

	return ioctl(fd, BLKZEROOUT, range) ? -errno : 0;
}

#endif /* BLK_COMMON_H */
