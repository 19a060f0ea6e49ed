/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the block selftests: sysfs knobs, the device a test
 * runs on (named by the user or made by the test), and counting block
 * tracepoint events for one device through tracefs.
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

#include "../kselftest.h"
#include "blk_lib.h"

#define TRACEFS		"/sys/kernel/tracing"
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

/*
 * The device a test runs on. One named in the environment variable @env
 * (BLK_NOWZ_DEV, BLK_WZ_DEV) is used only if blk_dev_check_named() allows
 * it and has (@want_wz 1), lacks (0) or may have (-1) Write Zeroes.
 * Without a name, one is made for this process and removed at exit: a
 * memory-backed null_blk of @make_lbs-byte blocks and @make_mb MiB (no
 * Write Zeroes), or with @make_lbs 0 a scsi_debug disk (Write Zeroes).
 * Nothing else is ever touched. Returns 0, -BLK_ESKIP (skip) or -errno
 * (fail), the reason in @msg.
 */
static inline int blk_find(const char *env, int want_wz, unsigned int make_lbs,
			   unsigned int make_mb, struct blkdev *dev,
			   char *msg, size_t msglen)
{
	const char *name = getenv(env);
	char disk[64];
	int ret;

	if (name && *name) {
		if (!strncmp(name, "/dev/", 5))
			name += 5;
		ret = blk_dev_check_named(name, msg, msglen);
		if (ret)
			return ret;
	} else {
		if (make_lbs)
			ret = blk_make_nullb(make_lbs, make_mb, disk,
					     sizeof(disk), msg, msglen);
		else
			ret = blk_make_sdebug(disk, sizeof(disk), msg, msglen);
		if (ret)
			return ret;
		name = disk;
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

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Tracing ---------------------------------------------------------------- */

#define TRACE_MAX_EVENTS	4

struct dev_trace {
	const struct blkdev *dev;
	const char *events[TRACE_MAX_EVENTS];
	int nr_events;
	char saved_buffer_kb[32];
};

static inline int trace_write(const char *file, const char *val)
{
	char path[320];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	return blk_sysfs_write(path, val);
}

static inline int trace_available(void)
{
	return !access(TRACEFS "/events/block/block_bio_queue/enable", W_OK) &&
	       !access(TRACEFS "/events/block/block_rq_issue/enable", W_OK);
}

/* Plain writes do not clear the ring buffer: it takes O_TRUNC. */
static inline int trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Enable the block:<event> tracepoints listed in @events (NULL terminated)
 * for @dev only (filter on dev_t, kernel encoding major << 20 | minor),
 * with a ring buffer large enough for a whole test step.
 */
static inline int trace_start(struct dev_trace *t, const struct blkdev *dev,
			      const char * const *events, unsigned int buffer_kb)
{
	char path[256], filter[64], buf[32];
	int i, ret;

	memset(t, 0, sizeof(*t));
	t->dev = dev;
	blk_sysfs_read(TRACEFS "/buffer_size_kb", t->saved_buffer_kb,
		       sizeof(t->saved_buffer_kb));
	trace_write("tracing_on", "0");
	trace_write("events/enable", "0");
	snprintf(buf, sizeof(buf), "%u", buffer_kb);
	ret = trace_write("buffer_size_kb", buf);
	if (ret)
		return ret;
	snprintf(filter, sizeof(filter), "dev == %u",
		 (dev->major << 20) | dev->minor);
	for (i = 0; events[i] && i < TRACE_MAX_EVENTS; i++) {
		t->events[i] = events[i];
		snprintf(path, sizeof(path), "events/block/%s/filter",
			 events[i]);
		/* Not fatal: the parser checks major,minor as well. */
		trace_write(path, filter);
		snprintf(path, sizeof(path), "events/block/%s/enable",
			 events[i]);
		ret = trace_write(path, "1");
		if (ret)
			return ret;
	}
	t->nr_events = i;
	ret = trace_clear();
	if (ret)
		return ret;
	return trace_write("tracing_on", "1");
}

/* Empty the buffer between steps of one test. */
static inline int trace_restart(struct dev_trace *t)
{
	trace_write("tracing_on", "0");
	if (trace_clear())
		return -1;
	return trace_write("tracing_on", "1");
}

static inline void trace_stop(struct dev_trace *t)
{
	char path[256];
	int i;

	trace_write("tracing_on", "0");
	for (i = 0; i < t->nr_events; i++) {
		snprintf(path, sizeof(path), "events/block/%s/enable",
			 t->events[i]);
		trace_write(path, "0");
		snprintf(path, sizeof(path), "events/block/%s/filter",
			 t->events[i]);
		trace_write(path, "0");
	}
	trace_clear();
	if (t->saved_buffer_kb[0])
		trace_write("buffer_size_kb", t->saved_buffer_kb);
	t->nr_events = 0;
}

/* A block_bio_queue or block_rq_issue event of the traced device. */
struct blk_event {
	char rwbs[16];
	unsigned long long sector;
	unsigned int nr_sector;
};

typedef void (*blk_event_fn)(const struct blk_event *ev, void *arg);

/*
 * Read the trace, call @fn for each @event of the traced device, return
 * the number of such events, or -1 if the buffer lost events (the header
 * says "entries-in-buffer/entries-written: N/M" with M > N) or the trace
 * cannot be read. Formats (include/trace/events/block.h):
 *   block_bio_queue: 259,0 W 2048 + 2048 [comm]
 *   block_rq_issue: 259,0 R 131072 () 0 + 256 none,0,0 [comm]
 */
static inline long trace_collect(struct dev_trace *t, const char *event,
				 blk_event_fn fn, void *arg)
{
	unsigned long long in_buf = 0, written = 0;
	char tag[80], line[512];
	long count = 0;
	size_t tlen;
	FILE *f;

	trace_write("tracing_on", "0");
	snprintf(tag, sizeof(tag), " %s: ", event);
	tlen = strlen(tag);
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct blk_event ev;
		unsigned int maj, min;
		char *p;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p)
				sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
				       &in_buf, &written);
			continue;
		}
		p = strstr(line, tag);
		if (!p)
			continue;
		p += tlen;
		memset(&ev, 0, sizeof(ev));
		if (sscanf(p, "%u,%u %15s", &maj, &min, ev.rwbs) != 3)
			continue;
		if (maj != t->dev->major || min != t->dev->minor)
			continue;
		if (!strcmp(event, "block_rq_issue")) {
			/* Skip "bytes (cmd) ": cmd may be empty. */
			p = strstr(p, ") ");
			if (!p)
				continue;
			p += 2;
		} else {
			p = strchr(p, ' ');
			if (!p)
				continue;
			p = strchr(p + 1, ' ');
			if (!p)
				continue;
		}
		if (sscanf(p, "%llu + %u", &ev.sector, &ev.nr_sector) != 2)
			continue;
		count++;
		if (fn)
			fn(&ev, arg);
	}
	fclose(f);
	if (written > in_buf) {
		ksft_print_msg("trace lost %llu of %llu events: raise buffer_size_kb\n",
			       written - in_buf, written);
		return -1;
	}
	trace_write("tracing_on", "1");
	return count;
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
