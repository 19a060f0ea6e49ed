// SPDX-License-Identifier: GPL-2.0
/*
 * The device a block selftest runs on, and what its block events count:
 * see blk_util.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../kselftest.h"
#include "blk_util.h"

#define NULLB_CFS	"/sys/kernel/config/nullb"
#define BLK_TRACEFS	"/sys/kernel/tracing"
#define BLK_PREFIX	"ksft_blk_"

/*
 * What this process mounted or loaded for its devices (configfs, tracefs,
 * null_blk), which blk_dev_put() unmounts or unloads again.
 */
static bool blk_mounted_cfs, blk_mounted_tracefs, blk_loaded_nullb;

/*
 * NULL where a proof case judges this kernel, or why it skips. A proof
 * checks an improvement, not a fix: a kernel before the release that has
 * it is correct without it and would fail the case. BLK_PROOFS=1 runs the
 * proofs on any kernel: a backport, or a kernel shown to lack them.
 */
const char *blk_proof_skip(void)
{
	const char *opt = getenv("BLK_PROOFS");
	static char why[160];
	struct utsname u;

	if (opt && !strcmp(opt, "1"))
		return NULL;
	if (ksft_min_kernel_version(BLK_PROOF_MAJOR, BLK_PROOF_MINOR))
		return NULL;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(why, sizeof(why),
		 "kernel %.64s: before %d.%d, the first with this change (BLK_PROOFS=1 runs it)",
		 u.release, BLK_PROOF_MAJOR, BLK_PROOF_MINOR);
	return why;
}

/* Writes the formatted value to @path: 0 or -errno. */
int blk_write(const char *path, const char *fmt, ...)
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
long long blk_read_ll(const char *path)
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
long long blk_meminfo(const char *name)
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
long long blk_vmstat(const char *name)
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
 * This process's PID namespace, as the low 16 bits of its inode (0 if
 * /proc cannot tell): enough to tell a machine's namespaces apart, and
 * short enough for a disk name (below).
 */
static unsigned long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : st.st_ino & 0xffff;
}

/*
 * @dir/ksft_blk_NS_PID_@what: a name for what this process makes. Its
 * PID namespace is in it because configfs and tracefs are shared by all
 * of them: a PID of another container is another process. null_blk names
 * the disk after it, cut at 31 characters: @what has at most 9.
 */
static void blk_name(char *buf, size_t len, const char *dir, const char *what)
{
	snprintf(buf, len, "%s/" BLK_PREFIX "%04lx_%d_%.9s", dir, pid_ns(),
		 getpid(), what);
}

/*
 * Whether @name is ksft_blk_NS_PID_... of a process of this PID namespace
 * that is gone: no longer there, or a zombie (its files are closed, and
 * nobody may reap it). Names of other namespaces are left to them.
 */
static int blk_stale(const char *name)
{
	size_t n = strlen(BLK_PREFIX);
	char path[64], state = 0;
	unsigned long ns;
	const char *p;
	char *end;
	FILE *f;
	long pid;

	if (strncmp(name, BLK_PREFIX, n))
		return 0;
	ns = strtoul(name + n, &end, 16);
	if (end != name + n + 4 || *end != '_' || ns != pid_ns())
		return 0;
	p = end + 1;
	pid = strtol(p, &end, 10);
	if (end == p || *end != '_' || pid <= 0)
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

static int nullb_remove(const char *cfs)
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

/* Root's own: no other user can make a test's mount point in advance. */
#define BLK_MNTDIR	"/run"

/*
 * Unmounts and removes a mount point of a test, or of a killed run: only a
 * directory that root owns, so that no other user's file is touched.
 * 1 if @path is not a directory: no mount point of a test.
 */
int blk_mnt_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return 1;
	if (st.st_uid)
		return -EPERM;
	if (umount(path))
		umount2(path, MNT_DETACH);
	return rmdir(path) ? -errno : 0;
}

static int trace_remove(const char *path)
{
	return rmdir(path) ? -errno : 0;
}

/*
 * Saved queue limits: files in root's own /run, where no other user can
 * put a file for root to read. The limits a test may change on a named
 * disk, and puts back:
 */
#define BLK_SAVEDIR	"/run"
static const char * const blk_saved_attrs[] = { "max_sectors_kb" };

static bool saved_attr_ok(const char *attr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(blk_saved_attrs); i++)
		if (!strcmp(attr, blk_saved_attrs[i]))
			return true;
	return false;
}

/*
 * Puts back the queue limits that the file @path saved ("DISK ATTR VALUE"
 * lines, the first value of an attribute last) and removes it. Only a
 * regular file of root's, written by no one else, and only the limits of
 * blk_saved_attrs[] of a disk in /sys/block; 1 if @path is a directory
 * (a mount point).
 */
static int saved_restore(const char *path)
{
	char disk[8][64], attr[8][32], sys[192];
	long long val[8];
	struct stat st;
	int fd, n = 0, ret = 0;
	FILE *f;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid ||
	    (st.st_mode & 022)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? 1 : -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -errno;
	}
	while (n < 8 && fscanf(f, "%63s %31s %lld", disk[n], attr[n],
			       &val[n]) == 3)
		n++;
	fclose(f);
	while (n--) {
		if (strchr(disk[n], '/') || !saved_attr_ok(attr[n])) {
			ret = -EPERM;
			continue;
		}
		snprintf(sys, sizeof(sys), "/sys/block/%s/queue/%s", disk[n],
			 attr[n]);
		if (blk_write(sys, "%lld", val[n]))
			ret = -EIO;
	}
	return unlink(path) ? -errno : ret;
}

/*
 * What a killed run may have left, in the order it goes (a device once
 * nothing mounts it), and the function that removes or puts back one: 0,
 * -errno, or 1 if that is not its kind of entry.
 */
static const struct {
	const char *dir;
	int (*remove)(const char *path);
} blk_left[] = {
	/* Mount points, before the devices they mount. */
	{ BLK_MNTDIR, blk_mnt_remove },
	/* null_blk devices. */
	{ NULLB_CFS, nullb_remove },
	/* Trace instances. */
	{ BLK_TRACEFS "/instances", trace_remove },
	/* The saved queue limits of named disks, put back. */
	{ BLK_SAVEDIR, saved_restore },
};

/* Removes (or puts back) what earlier runs that were killed left. */
void blk_sweep(void)
{
	char path[192];
	struct dirent *de;
	unsigned int i;
	DIR *d;
	int ret;

	for (i = 0; i < ARRAY_SIZE(blk_left); i++) {
		d = opendir(blk_left[i].dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (!blk_stale(de->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%.100s",
				 blk_left[i].dir, de->d_name);
			ret = blk_left[i].remove(path);
			if (ret <= 0)
				fprintf(stderr, "# %s %s left by a killed run\n",
					ret ? "cannot remove" : "removed", path);
		}
		closedir(d);
	}
}

/* MAJOR:MINOR of /sys/block/@disk as the trace filter has it, or 0. */
static unsigned int disk_dev(const char *disk)
{
	unsigned int major, minor;
	char path[128];
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	f = fopen(path, "r");
	if (!f)
		return 0;
	ret = fscanf(f, "%u:%u", &major, &minor);
	fclose(f);
	return ret == 2 ? major << 20 | minor : 0;
}

/*
 * A null_blk of its own for @w: every attribute the tests rely on set
 * here, as a new device would otherwise take the module's parameters
 * (zoned=1 would set chunk_sectors). Those switched off last, missing on
 * older kernels, are skipped there: such kernels have no parameter for
 * them either.
 */
static int nullb_make(struct blk_dev *d, const struct blk_want *w, char *msg,
		      size_t msglen)
{
	const struct {
		const char *name;
		unsigned long val;
	} attrs[] = {
		{ "queue_mode", 2 },		/* blk-mq */
		{ "irqmode", 0 },		/* complete in submission */
		{ "submit_queues", 1 },
		{ "hw_queue_depth", 64 },
		{ "blocksize", w->lbs ? w->lbs : 512 },
		{ "size", w->size_mb },
		{ "memory_backed", w->memory_backed },
		{ "max_sectors", w->max_hw_kb * 2 },
		{ "discard", 0 },
	};
	static const char * const off[] = {
		"zoned", "virt_boundary", "mbps", "cache_size", "blocking",
		"no_sched", "shared_tags", "poll_queues", "rotational",
	};
	char path[192];
	unsigned int i;
	int ret;

	/* configfs where it belongs, as blktests mounts it. */
	if (access(NULLB_CFS, W_OK) &&
	    !mount("configfs", "/sys/kernel/config", "configfs", 0, NULL))
		blk_mounted_cfs = true;
	/* A null_blk module loaded by someone else keeps its parameters. */
	if (access(NULLB_CFS, W_OK) && access("/sys/module/null_blk", F_OK)) {
		if (system("modprobe -q null_blk nr_devices=0 2>/dev/null") == -1)
			return -errno;
		blk_loaded_nullb = !access("/sys/module/null_blk", F_OK);
	}
	if (access(NULLB_CFS, W_OK)) {
		snprintf(msg, msglen, "%s: %s (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)",
			 NULLB_CFS, strerror(errno));
		return -EOPNOTSUPP;
	}
	blk_name(d->cfs, sizeof(d->cfs), NULLB_CFS, w->what);
	if (mkdir(d->cfs, 0755)) {
		ret = -errno;
		snprintf(msg, msglen, "mkdir %s: %s", d->cfs, strerror(errno));
		d->cfs[0] = '\0';
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), "%s/%s", d->cfs, attrs[i].name);
		ret = blk_write(path, "%lu", attrs[i].val);
		if (ret)
			goto fail;
	}
	for (i = 0; i < ARRAY_SIZE(off); i++) {
		snprintf(path, sizeof(path), "%s/%s", d->cfs, off[i]);
		ret = access(path, F_OK) ? 0 : blk_write(path, "0");
		if (ret)
			goto fail;
	}
	snprintf(path, sizeof(path), "%s/power", d->cfs);
	ret = blk_write(path, "1");
	if (ret)
		goto fail;
	/* Since Linux 6.0 the disk is named after the directory. */
	snprintf(d->disk, sizeof(d->disk), "%s", strrchr(d->cfs, '/') + 1);
	snprintf(d->path, sizeof(d->path), "/dev/%s", d->disk);
	d->dev = disk_dev(d->disk);
	if (!d->dev) {
		snprintf(msg, msglen,
			 "no disk %s: null_blk names its disks nullbN (before Linux 6.0)",
			 d->disk);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < 500 && access(d->path, F_OK); i++)
		usleep(10000);
	if (access(d->path, F_OK)) {
		snprintf(msg, msglen, "%s powered on, but no %s", d->cfs,
			 d->path);
		return -ENODEV;
	}
	/* udev probes a new disk: let it finish before anything is counted. */
	if (!access("/run/udev/control", F_OK) &&
	    system("udevadm settle --timeout=10 >/dev/null 2>&1") == -1)
		return -errno;
	return 0;
fail:
	snprintf(msg, msglen, "%s: %s", path, strerror(-ret));
	return ret;
}

/*
 * The whole disk @name of BLK_TEST_DEV, if BLK_TEST_DESTROY lists it
 * (-EPERM if not: it was named, so this is an error), nothing holds it
 * and it has what @w asks for (-EOPNOTSUPP if not).
 */
static int named_get(struct blk_dev *d, const char *name,
		     const struct blk_want *w, char *msg, size_t msglen)
{
	const char *ok = getenv("BLK_TEST_DESTROY");
	unsigned int dev = 0;
	long long lbs, sectors;
	char path[96];
	const char *p;
	size_t n;
	int fd;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	n = strlen(name);
	if (n < sizeof(d->disk) && !strchr(name, '/'))
		dev = disk_dev(name);
	if (!dev) {
		snprintf(msg, msglen, "BLK_TEST_DEV=%.40s is not a whole disk in /sys/block",
			 name);
		return -ENODEV;
	}
	for (p = ok; p && (p = strstr(p, name)); p += n)
		if ((p == ok || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			break;
	if (!p) {
		snprintf(msg, msglen,
			 "BLK_TEST_DEV=%s is not in BLK_TEST_DESTROY: its data would be lost",
			 name);
		return -EPERM;
	}
	snprintf(d->disk, sizeof(d->disk), "%s", name);
	snprintf(d->path, sizeof(d->path), "/dev/%s", name);
	d->dev = dev;
	blk_name(d->saved, sizeof(d->saved), BLK_SAVEDIR, w->what);
	lbs = blk_queue_get(d, "logical_block_size");
	if (w->lbs && lbs != w->lbs) {
		snprintf(msg, msglen, "%s has %lld-byte blocks, the case %u",
			 name, lbs, w->lbs);
		return -EOPNOTSUPP;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	sectors = blk_read_ll(path);
	if (sectors < (long long)(w->size_mb * BLK_MiB >> 9)) {
		snprintf(msg, msglen, "%s holds %lld MiB, the case needs %lu",
			 name, sectors >> 11, w->size_mb);
		return -EOPNOTSUPP;
	}
	fd = open(d->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, msglen, "%s: %s (mounted or held)", d->path,
			 strerror(errno));
		return errno == EBUSY ? -EOPNOTSUPP : -errno;
	}
	close(fd);
	return 0;
}

static int trace_file(const struct blk_dev *d, const char *file,
		      const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", d->trace, file);
	return blk_write(path, "%s", val);
}

/*
 * A trace instance of block_bio_queue and block_rq_issue of the disk, off
 * until blk_trace_start(). -EOPNOTSUPP without tracefs or the events.
 */
static int trace_make(struct blk_dev *d, const char *what, char *msg,
		      size_t msglen)
{
	static const char * const ev[] = { "block_bio_queue", "block_rq_issue" };
	char file[96] = "buffer_size_kb", val[32];
	unsigned int i;
	int ret;

	if (access(BLK_TRACEFS "/instances", W_OK) &&
	    !mount("tracefs", BLK_TRACEFS, "tracefs", 0, NULL))
		blk_mounted_tracefs = true;
	blk_name(d->trace, sizeof(d->trace), BLK_TRACEFS "/instances", what);
	/* No tracefs, or one this task may not write (lockdown, read-only). */
	if (mkdir(d->trace, 0755)) {
		ret = errno == ENOENT || errno == EPERM || errno == EACCES ||
		      errno == EROFS ? -EOPNOTSUPP : -errno;
		snprintf(msg, msglen, "mkdir %s: %s (CONFIG_FTRACE)", d->trace,
			 strerror(errno));
		d->trace[0] = '\0';
		return ret;
	}
	/* A case counts a few thousand events at most: 512 KiB a CPU holds them. */
	ret = trace_file(d, "buffer_size_kb", "512");
	for (i = 0; !ret && i < ARRAY_SIZE(ev); i++) {
		snprintf(val, sizeof(val), "dev == %u", d->dev);
		snprintf(file, sizeof(file), "events/block/%s/filter", ev[i]);
		ret = trace_file(d, file, val);
		snprintf(file, sizeof(file), "events/block/%s/enable", ev[i]);
		if (!ret)
			ret = trace_file(d, file, "1");
	}
	if (!ret)
		ret = trace_file(d, "tracing_on", "0");
	if (ret) {
		snprintf(msg, msglen, "%s/%s: %s (CONFIG_BLK_DEV_IO_TRACE)",
			 d->trace, file, strerror(-ret));
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	}
	return 0;
}

/*
 * The device of @w, its block events traced and open if @w asks: 0, or
 * -errno with the reason in @msg, -EOPNOTSUPP if there is none to have
 * (the test skips). On failure nothing is left behind: the harness runs
 * no teardown after a failed setup.
 */
int blk_dev_get(struct blk_dev *d, const struct blk_want *w, char *msg,
		size_t msglen)
{
	const char *name = getenv("BLK_TEST_DEV");
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (geteuid()) {
		snprintf(msg, msglen, "must be run as root");
		return -EOPNOTSUPP;
	}
	blk_sweep();
	if (name && *name)
		ret = named_get(d, name, w, msg, msglen);
	else
		ret = nullb_make(d, w, msg, msglen);
	if (!ret && w->no_write_zeroes &&
	    blk_queue_get(d, "write_zeroes_max_bytes")) {
		snprintf(msg, msglen, "%s has Write Zeroes: zeroing writes no zeroes from memory",
			 d->disk);
		ret = -EOPNOTSUPP;
	}
	if (!ret && w->trace)
		ret = trace_make(d, w->what, msg, msglen);
	if (!ret && w->open_flags) {
		d->fd = open(d->path, w->open_flags | O_CLOEXEC);
		ret = d->fd < 0 ? -errno : 0;
		snprintf(msg, msglen, "open %s: %s", d->path, strerror(-ret));
	}
	if (ret)
		blk_dev_put(d);
	return ret;
}

/* Closes, removes or puts back everything blk_dev_get() and the test made. */
void blk_dev_put(struct blk_dev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	if (d->trace[0] && rmdir(d->trace))
		fprintf(stderr, "# cannot remove %s: %s\n", d->trace,
			strerror(errno));
	d->trace[0] = '\0';
	if (d->cfs[0] && nullb_remove(d->cfs))
		fprintf(stderr, "# cannot remove %s\n", d->cfs);
	d->cfs[0] = '\0';
	if (d->saved[0] && !access(d->saved, F_OK) && saved_restore(d->saved))
		fprintf(stderr, "# cannot restore the limits in %s\n",
			d->saved);
	d->saved[0] = '\0';
	/* What blk_dev_get() mounted or loaded, unless another user has it. */
	if (blk_loaded_nullb && !system("modprobe -qr null_blk 2>/dev/null"))
		blk_loaded_nullb = false;
	if (blk_mounted_cfs && !umount("/sys/kernel/config"))
		blk_mounted_cfs = false;
	if (blk_mounted_tracefs && !umount(BLK_TRACEFS))
		blk_mounted_tracefs = false;
}

/*
 * Saves queue/@attr of a named disk (its file @path) in d->saved, for
 * blk_dev_put() or, after a kill, blk_sweep() to put back: 0, or
 * -EOPNOTSUPP if it is no limit of blk_saved_attrs[] or cannot be saved
 * where only root writes.
 */
static int saved_add(struct blk_dev *d, const char *attr, const char *path)
{
	long long old = blk_read_ll(path);
	struct stat st;
	int fd, len;

	if (!saved_attr_ok(attr) || old < 0 || stat(BLK_SAVEDIR, &st) ||
	    st.st_uid || (st.st_mode & 022))
		return -EOPNOTSUPP;
	fd = open(d->saved, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
		  O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	len = dprintf(fd, "%s %s %lld\n", d->disk, attr, old);
	close(fd);
	return len > 0 ? 0 : -EIO;
}

/*
 * Sets queue/@attr of the disk: 0 or -errno. A named disk's value is
 * saved first (saved_add()).
 */
int blk_queue_set(struct blk_dev *d, const char *attr, long long val)
{
	char path[192];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", d->disk, attr);
	if (!d->cfs[0]) {
		ret = saved_add(d, attr, path);
		if (ret)
			return ret;
	}
	return blk_write(path, "%lld", val);
}

long long blk_queue_get(const struct blk_dev *d, const char *attr)
{
	char path[192];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", d->disk, attr);
	return blk_read_ll(path);
}

/*
 * Mounts the disk (@fstype) at /run/ksft_blk_NS_PID_WHAT_mnt, its path in
 * @mnt: 0 or -errno, -ENODEV if the kernel lacks the file system.
 */
int blk_mnt_make(const struct blk_dev *d, const char *what,
		 const char *fstype, char *mnt, size_t len)
{
	char name[16];
	int ret;

	snprintf(name, sizeof(name), "%.5s_mnt", what);
	blk_name(mnt, len, BLK_MNTDIR, name);
	if (mkdir(mnt, 0700)) {
		ret = -errno;
		mnt[0] = '\0';
		return ret;
	}
	if (mount(d->path, mnt, fstype, 0, NULL)) {
		ret = -errno;
		rmdir(mnt);
		mnt[0] = '\0';
		return ret;
	}
	return 0;
}

/* Empties the ring buffer and starts tracing: 0 or -errno. */
int blk_trace_start(struct blk_dev *d)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", d->trace);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	return trace_file(d, "tracing_on", "1");
}

/* The PID of a trace line "COMM-PID [CPU] ...", or -1. */
static long trace_pid(const char *line)
{
	const char *p = strstr(line, " [");

	while (p && p > line && p[-1] == ' ')
		p--;
	while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!p || p == line || p[-1] != '-')
		return -1;
	return strtol(p, NULL, 10);
}

/*
 * The sectors of a block_bio_queue or block_rq_issue line, 0 if it has
 * none: "block_bio_queue: 252,0 R 0 + 2048 [prog]".
 */
static long trace_sectors(const char *line)
{
	const char *p = strstr(line, " + ");

	return p ? strtol(p + 3, NULL, 10) : 0;
}

/*
 * Stops tracing and counts what it saw; a bio of fewer than @full
 * sectors counts as short. Bios of other tasks (udev, a reader of the
 * named disk) are counted apart; requests cannot be told apart. 0, or
 * -errno; -ENOSPC if the ring buffer lost events.
 */
int blk_trace_stop(struct blk_dev *d, long full, struct blk_counts *c)
{
	char path[160], line[512];
	long sectors, me = getpid();
	FILE *f;

	memset(c, 0, sizeof(*c));
	trace_file(d, "tracing_on", "0");
	snprintf(path, sizeof(path), "%s/trace", d->trace);
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
			sectors = trace_sectors(line);
			if (sectors > c->max_rq)
				c->max_rq = sectors;
			continue;
		}
		if (!strstr(line, " block_bio_queue: "))
			continue;
		if (trace_pid(line) != me) {
			c->others++;
			continue;
		}
		c->bios++;
		sectors = trace_sectors(line);
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
unsigned long blk_anon_huge_kb(const void *addr)
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
 * The page frame of @addr in the pagemap open at @pagemap_fd
 * (/proc/PID/pagemap), or 0: not present, or frames not readable (they
 * need CAP_SYS_ADMIN).
 */
unsigned long long blk_pfn(int pagemap_fd, const void *addr)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned long long e;

	if (pread(pagemap_fd, &e, sizeof(e),
		  (unsigned long)addr / page * sizeof(e)) != sizeof(e))
		return 0;
	/* Bit 63: present; bits 0-54: the frame. */
	return e >> 63 ? e & ((1ULL << 55) - 1) : 0;
}

/*
 * @pages single pages at consecutive addresses, no two of them next to
 * each other in memory: pages of a faulted-in area, moved with mremap(),
 * so that a direct I/O bio holds one page per bvec. NULL with errno set
 * on failure: EOPNOTSUPP when the area would be huge pages (madvise()
 * refused, or THP used them anyway), ENOMEM when too few of its pages
 * are apart.
 */
char *blk_single_pages(unsigned long pages)
{
	size_t page = sysconf(_SC_PAGESIZE), len = pages * page;
	unsigned long long pfn, last = 0;
	unsigned long i, j = 0;
	int err, fd = -1;
	char *pool, *buf;

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
	/*
	 * A bio may merge a page into the bvec before it when the two are
	 * adjacent in memory. Take, where the frames can be read, the next
	 * page of the pool that does not follow the last one taken, else
	 * every other page.
	 */
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < pages; i++, j++) {
		for (;; j++) {
			if (j >= 2 * pages) {
				errno = ENOMEM;
				goto fail_buf;
			}
			pfn = fd < 0 ? 0 : blk_pfn(fd, pool + j * page);
			if (pfn ? pfn != last + 1 : !(j & 1))
				break;
		}
		if (mremap(pool + j * page, page, page,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   buf + i * page) == MAP_FAILED)
			goto fail_buf;
		last = pfn;
	}
	if (fd >= 0)
		close(fd);
	munmap(pool, 2 * len);
	return buf;
fail_buf:
	err = errno;
	if (fd >= 0)
		close(fd);
	munmap(buf, len);
	errno = err;
fail:
	err = errno;
	munmap(pool, 2 * len);
	errno = err;
	return NULL;
}
