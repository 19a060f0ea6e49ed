/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the block selftests make and count: null_blk devices, a trace
 * instance of the block events of one device, and buffers whose pages
 * never merge into one bvec.
 *
 * A device or trace instance is named ksft_blk_PID_WHAT after the process
 * that made it. A run killed before its teardown leaves them behind; every
 * fixture first removes those whose process is gone (blk_sweep()), and
 * leaves alone those of a run still going.
 */
#ifndef BLK_UTIL_H
#define BLK_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest.h"

#define NULLB_CFS	"/sys/kernel/config/nullb"
#define BLK_TRACEFS	"/sys/kernel/tracing"
#define BLK_MNTDIR	"/tmp"
#define BLK_PREFIX	"ksft_blk_"
#define BLK_MiB		(1024UL * 1024)
/* BIO_MAX_VECS: a direct I/O bio of single pages holds this many. */
#define BLK_BIO_PAGES	256

struct blk_nullb {
	char cfs[128];		/* configfs directory, "" if none */
	char disk[64];
	char path[80];		/* /dev/DISK */
	unsigned int dev;	/* major << 20 | minor, as the trace filter wants */
};

struct blk_trace {
	char dir[128];		/* instance directory, "" if none */
};

/* What the block events of one device counted. */
struct blk_counts {
	long bios;		/* block_bio_queue */
	long rqs;		/* block_rq_issue */
	long max_bio;		/* sectors of the largest bio */
	long short_bios;	/* bios of fewer sectors than asked */
};

/* Writes the formatted value to @path: 0 or -errno. */
static inline int blk_write(const char *path, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int fd, len, ret = 0;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* The number at the start of @path, or -errno. */
static inline long long blk_read_ll(const char *path)
{
	long long val;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return -errno;
	ret = fscanf(f, "%lld", &val);
	fclose(f);
	return ret == 1 ? val : -EINVAL;
}

/* The "Name: N kB" line of /proc/meminfo in bytes, or -1. */
static inline long long blk_meminfo(const char *name)
{
	char line[128];
	long long kb = -1;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			kb = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	return kb < 0 ? -1 : kb << 10;
}

/* The event counter @name of /proc/vmstat, or -1. */
static inline long long blk_vmstat(const char *name)
{
	long long val = -1;
	char key[64];
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &val) == 2 && strcmp(key, name))
		val = -1;
	fclose(f);
	return val;
}

/*
 * Whether @name is ksft_blk_PID_... of a process that is gone: no longer
 * there, or a zombie (its files are closed, and nobody may reap it).
 */
static inline int blk_stale(const char *name)
{
	size_t n = strlen(BLK_PREFIX);
	char path[64], state = 0;
	char *end;
	FILE *f;
	long pid;

	if (strncmp(name, BLK_PREFIX, n))
		return 0;
	pid = strtol(name + n, &end, 10);
	if (end == name + n || *end != '_' || pid <= 0)
		return 0;
	if (kill(pid, 0))
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT;
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses. */
	if (fscanf(f, "%*[^)]%*[)] %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z';
}

static inline int blk_nullb_remove(const char *cfs)
{
	char path[256];
	int i;

	snprintf(path, sizeof(path), "%.200s/power", cfs);
	blk_write(path, "0");
	/* The last opener may still be going away. */
	for (i = 0; i < 100 && rmdir(cfs) && errno == EBUSY; i++)
		usleep(20000);
	return access(cfs, F_OK) ? 0 : -EBUSY;
}

/*
 * Unmounts and removes a mount point of a test, or of a killed run: only a
 * directory that root owns, so that no other user's file is touched.
 */
static inline int blk_mnt_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid)
		return -EPERM;
	if (umount(path))
		umount2(path, MNT_DETACH);
	return rmdir(path) ? -errno : 0;
}

/*
 * Removes the mount points, devices and trace instances of earlier runs
 * that were killed, in that order: a device goes once nothing mounts it.
 */
static inline void blk_sweep(void)
{
	static const char * const dirs[] = {
		BLK_MNTDIR, NULLB_CFS, BLK_TRACEFS "/instances",
	};
	char path[192];
	struct dirent *de;
	unsigned int i;
	DIR *d;
	int ret;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		d = opendir(dirs[i]);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (!blk_stale(de->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%.100s", dirs[i],
				 de->d_name);
			if (i == 0)
				ret = blk_mnt_remove(path);
			else if (i == 1)
				ret = blk_nullb_remove(path);
			else
				ret = rmdir(path);
			fprintf(stderr, "# %s %s left by a killed run\n",
				ret ? "cannot remove" : "removed", path);
		}
		closedir(d);
	}
}

/*
 * Makes a null_blk of @size_mb MiB and @lbs-byte blocks, its maximum
 * request size @max_hw_kb KiB, memory-backed or not, every attribute the
 * tests rely on set here rather than taken from the module's parameters.
 * Returns 0, or -errno with the reason in @msg; -EOPNOTSUPP if there is
 * no null_blk configfs.
 */
static inline int blk_nullb_create(struct blk_nullb *nb, const char *what,
				   unsigned int lbs, unsigned long size_mb,
				   unsigned int max_hw_kb, int memory_backed,
				   char *msg, size_t msglen)
{
	/*
	 * Every attribute the tests rely on, as a new device would otherwise
	 * take the module's parameters (zoned=1 would set chunk_sectors).
	 * Those of the second group, missing on older kernels, are skipped
	 * there: such kernels have no parameter for them either.
	 */
	const struct {
		const char *name;
		unsigned long val;
		bool optional;
	} attrs[] = {
		{ "queue_mode", 2 },		/* blk-mq */
		{ "irqmode", 0 },		/* complete in submission */
		{ "submit_queues", 1 },
		{ "hw_queue_depth", 64 },
		{ "blocksize", lbs },
		{ "size", size_mb },
		{ "memory_backed", !!memory_backed },
		{ "max_sectors", max_hw_kb * 2 },
		{ "discard", 0 },
		{ "zoned", 0, true },
		{ "virt_boundary", 0, true },
		{ "mbps", 0, true },
		{ "cache_size", 0, true },
		{ "blocking", 0, true },
		{ "power", 1 },
	};
	unsigned int i, major = 0, minor = 0;
	char path[192];
	FILE *f;
	int ret;

	memset(nb, 0, sizeof(*nb));
	/* Mounting configfs where it belongs is harmless; blktests does it. */
	if (access(NULLB_CFS, W_OK))
		mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	/* A null_blk module loaded by someone else keeps its parameters. */
	if (access(NULLB_CFS, W_OK) && access("/sys/module/null_blk", F_OK) &&
	    system("modprobe -q null_blk nr_devices=0 2>/dev/null") == -1)
		return -errno;
	if (access(NULLB_CFS, W_OK)) {
		snprintf(msg, msglen, "%s: %s (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)",
			 NULLB_CFS, strerror(errno));
		return -EOPNOTSUPP;
	}
	snprintf(nb->cfs, sizeof(nb->cfs), NULLB_CFS "/" BLK_PREFIX "%d_%s",
		 getpid(), what);
	if (mkdir(nb->cfs, 0755)) {
		ret = -errno;
		snprintf(msg, msglen, "mkdir %s: %s", nb->cfs, strerror(errno));
		nb->cfs[0] = '\0';
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), "%s/%s", nb->cfs, attrs[i].name);
		if (attrs[i].optional && access(path, F_OK))
			continue;
		ret = blk_write(path, "%lu", attrs[i].val);
		if (ret) {
			snprintf(msg, msglen, "%s = %lu: %s", path,
				 attrs[i].val, strerror(-ret));
			goto fail;
		}
	}
	/* Since Linux 6.0 the disk is named after the directory. */
	snprintf(nb->disk, sizeof(nb->disk), "%s", strrchr(nb->cfs, '/') + 1);
	snprintf(path, sizeof(path), "/sys/block/%s/dev", nb->disk);
	f = fopen(path, "r");
	ret = f && fscanf(f, "%u:%u", &major, &minor) == 2 ? 0 : -ENODEV;
	if (f)
		fclose(f);
	snprintf(nb->path, sizeof(nb->path), "/dev/%s", nb->disk);
	for (i = 0; !ret && i < 500 && access(nb->path, F_OK); i++)
		usleep(10000);
	if (ret || access(nb->path, F_OK)) {
		ret = -ENODEV;
		snprintf(msg, msglen, "%s powered on, but no %s", nb->cfs,
			 nb->path);
		goto fail;
	}
	nb->dev = major << 20 | minor;
	return 0;
fail:
	blk_nullb_remove(nb->cfs);
	nb->cfs[0] = '\0';
	return ret;
}

static inline void blk_nullb_destroy(struct blk_nullb *nb)
{
	if (nb->cfs[0] && blk_nullb_remove(nb->cfs))
		fprintf(stderr, "# cannot remove %s\n", nb->cfs);
	nb->cfs[0] = '\0';
}

/* Sets queue/@attr of the null_blk: 0 or -errno. */
static inline int blk_queue_set(const struct blk_nullb *nb, const char *attr,
				unsigned long val)
{
	char path[192];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", nb->disk, attr);
	return blk_write(path, "%lu", val);
}

static inline long long blk_queue_get(const struct blk_nullb *nb,
				      const char *attr)
{
	char path[192];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", nb->disk, attr);
	return blk_read_ll(path);
}

static inline void blk_trace_destroy(struct blk_trace *t)
{
	if (t->dir[0] && rmdir(t->dir))
		fprintf(stderr, "# cannot remove %s: %s\n", t->dir,
			strerror(errno));
	t->dir[0] = '\0';
}

static inline int blk_trace_file(const struct blk_trace *t, const char *file,
				 const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	return blk_write(path, "%s", val);
}

/*
 * A trace instance of block_bio_queue and block_rq_issue of @nb's disk,
 * off until blk_trace_start(). 0, or -errno with the reason in @msg;
 * -EOPNOTSUPP without tracefs or the block events.
 */
static inline int blk_trace_create(struct blk_trace *t, const char *what,
				   const struct blk_nullb *nb,
				   char *msg, size_t msglen)
{
	static const char * const ev[] = { "block_bio_queue", "block_rq_issue" };
	char file[96] = "buffer_size_kb", val[32];
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	if (access(BLK_TRACEFS "/instances", W_OK))
		mount("tracefs", BLK_TRACEFS, "tracefs", 0, NULL);
	snprintf(t->dir, sizeof(t->dir), BLK_TRACEFS "/instances/" BLK_PREFIX "%d_%s",
		 getpid(), what);
	if (mkdir(t->dir, 0755)) {
		ret = errno == ENOENT ? -EOPNOTSUPP : -errno;
		snprintf(msg, msglen, "mkdir %s: %s (CONFIG_FTRACE)", t->dir,
			 strerror(errno));
		t->dir[0] = '\0';
		return ret;
	}
	ret = blk_trace_file(t, "buffer_size_kb", "2048");
	for (i = 0; !ret && i < ARRAY_SIZE(ev); i++) {
		snprintf(val, sizeof(val), "dev == %u", nb->dev);
		snprintf(file, sizeof(file), "events/block/%s/filter", ev[i]);
		ret = blk_trace_file(t, file, val);
		snprintf(file, sizeof(file), "events/block/%s/enable", ev[i]);
		if (!ret)
			ret = blk_trace_file(t, file, "1");
	}
	if (!ret)
		ret = blk_trace_file(t, "tracing_on", "0");
	if (ret) {
		snprintf(msg, msglen, "%s/%s: %s (CONFIG_BLK_DEV_IO_TRACE)",
			 t->dir, file, strerror(-ret));
		blk_trace_destroy(t);
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	}
	return 0;
}

/* Empties the ring buffer and starts tracing: 0 or -errno. */
static inline int blk_trace_start(struct blk_trace *t)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	return blk_trace_file(t, "tracing_on", "1");
}

/*
 * Stops tracing and counts what it saw; a bio of fewer than @full
 * sectors counts as short. 0, or -errno; -ENOSPC if the ring buffer lost
 * events.
 */
static inline int blk_trace_stop(struct blk_trace *t, long full,
				 struct blk_counts *c)
{
	char path[160], line[512], *p;
	long sectors;
	FILE *f;

	memset(c, 0, sizeof(*c));
	blk_trace_file(t, "tracing_on", "0");
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "CPU:0 [LOST 12 EVENTS]" */
		if (strstr(line, "[LOST ")) {
			fclose(f);
			return -ENOSPC;
		}
		if (strstr(line, " block_rq_issue: ")) {
			c->rqs++;
			continue;
		}
		if (!strstr(line, " block_bio_queue: "))
			continue;
		c->bios++;
		/* "block_bio_queue: 252,0 R 0 + 2048 [prog]" */
		p = strstr(line, " + ");
		sectors = p ? strtol(p + 3, NULL, 10) : 0;
		if (sectors > c->max_bio)
			c->max_bio = sectors;
		if (sectors < full)
			c->short_bios++;
	}
	fclose(f);
	return 0;
}

/*
 * The AnonHugePages of the mapping that holds @addr, in kB, from
 * /proc/self/smaps; 0 when smaps cannot tell (no CONFIG_PROC_PAGE_MONITOR).
 */
static inline unsigned long blk_anon_huge_kb(const void *addr)
{
	unsigned long start, end, kb = 0;
	int in = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = (unsigned long)addr >= start &&
			     (unsigned long)addr < end;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/*
 * @pages single pages at consecutive addresses, no two of them next to
 * each other in memory: each is every other page of a faulted-in area,
 * moved with mremap(), so that a direct I/O bio holds one page per bvec.
 * NULL with errno set on failure: EOPNOTSUPP when the area would be
 * huge pages (madvise() refused, or THP used them anyway).
 */
static inline char *blk_single_pages(unsigned long pages)
{
	size_t page = sysconf(_SC_PAGESIZE), len = pages * page;
	char *pool, *buf;
	unsigned long i;
	int err;

	pool = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED)
		return NULL;
	buf = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		goto fail;
	/* EINVAL: a kernel without THP, whose pages are all single. */
	if (madvise(pool, 2 * len, MADV_NOHUGEPAGE) && errno != EINVAL) {
		errno = EOPNOTSUPP;
		goto fail_buf;
	}
	for (i = 0; i < 2 * len; i += page)
		pool[i] = 1;
	if (blk_anon_huge_kb(pool)) {
		errno = EOPNOTSUPP;
		goto fail_buf;
	}
	for (i = 0; i < pages; i++)
		if (mremap(pool + 2 * i * page, page, page,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   buf + i * page) == MAP_FAILED)
			goto fail_buf;
	munmap(pool, 2 * len);
	return buf;
fail_buf:
	err = errno;
	munmap(buf, len);
	errno = err;
fail:
	err = errno;
	munmap(pool, 2 * len);
	errno = err;
	return NULL;
}

#endif /* BLK_UTIL_H */
