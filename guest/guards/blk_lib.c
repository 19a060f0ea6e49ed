// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the block selftests that make their own devices; see
 * blk_lib.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/aio_abi.h>

#include "blk_lib.h"

#define CONFIGFS	"/sys/kernel/config"
#define NULLB_CFS	CONFIGFS "/nullb"
#define SDEBUG_DRV	"/sys/bus/pseudo/drivers/scsi_debug"
#define SDEBUG_PARAM	"/sys/module/scsi_debug/parameters"
#define SDEBUG_MAX	64
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

int blk_kconfig(const char *name)
{
	size_t len = strlen(name);
	int ret = -1;
	char line[256];
	FILE *f;

	f = popen("{ gzip -dc /proc/config.gz || cat /boot/config-$(uname -r); } 2>/dev/null",
		  "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (ret < 0)
			ret = 0;
		if (!strncmp(line, name, len) && line[len] == '=')
			ret = line[len + 1] == 'y' || line[len + 1] == 'm';
	}
	pclose(f);
	return ret;
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
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", disk, attr);
	snprintf(buf, sizeof(buf), "%llu", val);
	return blk_sysfs_set_saved(sv, path, buf);
}

void blk_saved_restore(struct blk_saved *sv)
{
	if (!sv->saved)
		return;
	if (blk_sysfs_write(sv->path, sv->val))
		fprintf(stderr, "# cannot restore %s to %s\n", sv->path,
			sv->val);
	else
		unlink(sv->file);
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
	return blk_nullb_create_attrs(nb, name, lbs, size_mb, max_sectors,
				      memory_backed, NULL, msg, msglen);
}

/* Writes each "attr=value" of the blank-separated @extra: 0 or -errno. */
static int nullb_extra(const struct blk_nullb *nb, const char *extra,
		       char *msg, size_t msglen)
{
	char buf[256], *tok, *save = NULL, *eq, path[sizeof(nb->cfs) + 32];
	int ret;

	snprintf(buf, sizeof(buf), "%s", extra ? extra : "");
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		eq = strchr(tok, '=');
		if (!eq) {
			snprintf(msg, msglen, "null_blk attribute %s: no '='", tok);
			return -EINVAL;
		}
		*eq = '\0';
		snprintf(path, sizeof(path), "%s/%s", nb->cfs, tok);
		ret = blk_sysfs_write(path, eq + 1);
		if (ret) {
			snprintf(msg, msglen, "%s = %s: %s", path, eq + 1,
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int blk_nullb_create_attrs(struct blk_nullb *nb, const char *name,
			   unsigned int lbs, unsigned int size_mb,
			   unsigned int max_sectors, int memory_backed,
			   const char *extra, char *msg, size_t msglen)
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
	ret = nullb_extra(nb, extra, msg, msglen);
	if (ret)
		goto fail;
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

/* scsi_debug -------------------------------------------------------------- */

/* The disks in /sys/block whose SCSI model is scsi_debug. */
static int sdebug_disks(char names[][32], int max)
{
	char path[300], model[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/sys/block");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "sd", 2) || strlen(de->d_name) >= 32)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/device/model",
			 de->d_name);
		if (blk_sysfs_read(path, model, sizeof(model)) ||
		    strcmp(model, "scsi_debug"))
			continue;
		snprintf(names[n++], 32, "%.31s", de->d_name);
	}
	closedir(d);
	return n;
}

static int sdebug_param_is(const char *name, unsigned int want,
			   char *msg, size_t msglen)
{
	unsigned long long v;
	char path[128];

	snprintf(path, sizeof(path), SDEBUG_PARAM "/%s", name);
	if (sysfs_read_ull(path, &v)) {
		snprintf(msg, msglen, "cannot read %s", path);
		return 0;
	}
	if (v != want)
		snprintf(msg, msglen,
			 "scsi_debug is loaded with %s=%llu, this test needs %u (module parameter, fixed at load)",
			 name, v, want);
	return v == want;
}

int blk_sdebug_create(struct blk_sdebug *sd, unsigned int physblk_exp,
		      unsigned int atomic_wr, char *msg, size_t msglen)
{
	char before[SDEBUG_MAX][32], now[SDEBUG_MAX][32], cmd[160];
	unsigned long long hosts = 0;
	char path[96], buf[32];
	int nb, nn, i, j, ret, fd;

	memset(sd, 0, sizeof(*sd));
	if (access(SDEBUG_DRV, F_OK)) {
		snprintf(cmd, sizeof(cmd),
			 "modprobe -q scsi_debug add_host=0 physblk_exp=%u atomic_wr=%u dev_size_mb=192 2>/dev/null",
			 physblk_exp, atomic_wr);
		if (system(cmd) || access(SDEBUG_DRV, F_OK)) {
			snprintf(msg, msglen,
				 "no scsi_debug driver (CONFIG_SCSI_DEBUG, built in or loadable by modprobe)");
			return -BLK_ESKIP;
		}
		sd->loaded = 1;
	}
	if (!sdebug_param_is("physblk_exp", physblk_exp, msg, msglen) ||
	    !sdebug_param_is("atomic_wr", atomic_wr, msg, msglen)) {
		blk_sdebug_destroy(sd);
		return -BLK_ESKIP;
	}
	/*
	 * Hosts someone else added hold their data (the default shared
	 * store), and add_host=-1 removes the newest host: leave a
	 * scsi_debug in use alone.
	 */
	if (sysfs_read_ull(SDEBUG_DRV "/add_host", &hosts) || hosts) {
		snprintf(msg, msglen,
			 "scsi_debug has %llu hosts already (not this test's): left alone",
			 hosts);
		blk_sdebug_destroy(sd);
		return -BLK_ESKIP;
	}
	nb = sdebug_disks(before, SDEBUG_MAX);
	ret = blk_sysfs_write(SDEBUG_DRV "/add_host", "1");
	if (ret) {
		snprintf(msg, msglen, "%s/add_host: %s", SDEBUG_DRV,
			 strerror(-ret));
		blk_sdebug_destroy(sd);
		return ret;
	}
	sd->added = 1;
	/* The disk shows up asynchronously; devtmpfs makes its node. */
	for (i = 0; i < 250 && !sd->disk[0]; i++) {
		sleep_ms(20);
		nn = sdebug_disks(now, SDEBUG_MAX);
		for (j = 0; j < nn && !sd->disk[0]; j++) {
			int k, old = 0;

			for (k = 0; k < nb; k++)
				old |= !strcmp(now[j], before[k]);
			snprintf(path, sizeof(path), "/dev/%.31s", now[j]);
			if (!old && !access(path, F_OK))
				snprintf(sd->disk, sizeof(sd->disk), "%.31s",
					 now[j]);
		}
	}
	if (!sd->disk[0]) {
		snprintf(msg, msglen, "no new scsi_debug disk 5s after add_host");
		blk_sdebug_destroy(sd);
		return -ENODEV;
	}
	snprintf(sd->path, sizeof(sd->path), "/dev/%s", sd->disk);
	/*
	 * sd probes asynchronously: the disk is in sysfs, with a node in
	 * /dev, before it can be opened (ENXIO).
	 */
	for (i = 0, fd = -1; i < 250 && fd < 0; i++) {
		fd = open(sd->path, O_RDONLY);
		if (fd < 0)
			sleep_ms(20);
	}
	if (fd < 0) {
		snprintf(msg, msglen, "%s cannot be opened 5s after add_host: %s",
			 sd->path, strerror(errno));
		blk_sdebug_destroy(sd);
		return -ENODEV;
	}
	close(fd);
	snprintf(path, sizeof(path), "/sys/block/%s/dev", sd->disk);
	if (blk_sysfs_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &sd->major, &sd->minor) != 2) {
		snprintf(msg, msglen, "cannot read %s", path);
		blk_sdebug_destroy(sd);
		return -ENODEV;
	}
	return 0;
}

void blk_sdebug_destroy(struct blk_sdebug *sd)
{
	if (sd->added && blk_sysfs_write(SDEBUG_DRV "/add_host", "-1"))
		fprintf(stderr, "# cannot remove the scsi_debug host of %s\n",
			sd->disk[0] ? sd->disk : "(no disk)");
	if (sd->loaded && system("modprobe -q -r scsi_debug"))
		fprintf(stderr, "# cannot unload scsi_debug\n");
	memset(sd, 0, sizeof(*sd));
}

/* Named devices ----------------------------------------------------------- */

/* The named device this process holds open with O_EXCL, and its fd. */
static char held[32];
static int held_fd = -1;

static int named_in_use(const char *name, unsigned int major,
			unsigned int minor, char *msg, size_t msglen)
{
	char line[1024], want[32], path[300];
	unsigned int ma, mi;
	struct dirent *de;
	int busy = 0, fd;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s", name);
	d = opendir(path);
	while (d && (de = readdir(d)) && !busy) {
		snprintf(path, sizeof(path), "/sys/block/%s/%s/partition",
			 name, de->d_name);
		if (!access(path, F_OK)) {
			snprintf(msg, msglen, "%s has partitions (%s)", name,
				 de->d_name);
			busy = 1;
		}
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/sys/block/%s/holders", name);
	d = busy ? NULL : opendir(path);
	while (d && (de = readdir(d)) && !busy) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(msg, msglen, "%s is held by %s", name, de->d_name);
		busy = 1;
	}
	if (d)
		closedir(d);
	f = busy ? NULL : fopen("/proc/self/mountinfo", "r");
	while (f && fgets(line, sizeof(line), f) && !busy) {
		/* "id parent major:minor root mountpoint ..." */
		if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 &&
		    ma == major && mi == minor) {
			snprintf(msg, msglen, "%s is mounted", name);
			busy = 1;
		}
	}
	if (f)
		fclose(f);
	snprintf(want, sizeof(want), "/dev/%.20s ", name);
	f = busy ? NULL : fopen("/proc/swaps", "r");
	while (f && fgets(line, sizeof(line), f) && !busy) {
		if (!strncmp(line, want, strlen(want))) {
			snprintf(msg, msglen, "%s is swap", name);
			busy = 1;
		}
	}
	if (f)
		fclose(f);
	if (busy)
		return busy;
	/*
	 * Mounted, held or opened exclusively by anyone: EBUSY. Once open,
	 * it stays open until the test's process exits, so that nobody can
	 * mount or claim the device while the test writes to it.
	 */
	if (!strcmp(held, name))
		return 0;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_EXCL);
	if (fd < 0) {
		snprintf(msg, msglen, "%s cannot be opened exclusively: %s",
			 path, strerror(errno));
		return 1;
	}
	if (held_fd >= 0)
		close(held_fd);
	held_fd = fd;
	snprintf(held, sizeof(held), "%s", name);
	return 0;
}

int blk_dev_check_named(const char *name, char *msg, size_t msglen)
{
	const char *ok = getenv("BLK_TEST_DESTROY");
	char path[300], buf[32];
	unsigned int major, minor;
	size_t n = strlen(name);
	const char *p;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	if (n >= 32 || strchr(name, '/') ||
	    blk_sysfs_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &major, &minor) != 2) {
		snprintf(msg, msglen, "%.40s is not a whole disk in /sys/block",
			 name);
		return -ENODEV;
	}
	if (named_in_use(name, major, minor, msg, msglen))
		return -EPERM;
	for (p = ok; p && (p = strstr(p, name)); p += n)
		if ((p == ok || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 0;
	snprintf(msg, msglen,
		 "%s is not listed in BLK_TEST_DESTROY: its data would be destroyed; set BLK_TEST_DESTROY=\"%s\" to allow it",
		 name, name);
	return -EPERM;
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

/* Tracing on, its ring buffer empty; the reason in @msg if not. */
static int trace_start(struct blk_trace *t, char *msg, size_t msglen)
{
	int ret = trace_attr(t, "tracing_on", "1");

	if (!ret)
		ret = blk_trace_clear(t);
	if (ret)
		snprintf(msg, msglen, "%s: cannot start: %s", t->dir,
			 strerror(-ret));
	return ret;
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
	ret = trace_start(t, msg, msglen);
	if (!ret)
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
	if (((unsigned long long)nr << 9) % BLK_PAGE)
		s->odd_bios++;
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

/* One block_bio_queue or block_rq_issue event of a blk_trace's device. */
struct blk_trace_event {
	int is_bio;		/* block_bio_queue, else block_rq_issue */
	char rwbs[16];
	unsigned long long sector;
	unsigned int nr_sector;
};

typedef void (*blk_trace_fn)(const struct blk_trace_event *ev, void *arg);

/*
 * Calls @fn for each event of @t's device; 0, or -ENOSPC if events were
 * lost. Formats (include/trace/events/block.h):
 *   block_bio_queue: 251,0 W 2048 + 2048 [comm]
 *   block_rq_issue: 251,0 R 131072 () 0 + 256 none,0,0 [comm]
 */
static int blk_trace_each(struct blk_trace *t, blk_trace_fn fn, void *arg)
{
	unsigned long long in_buf = 0, written = 0;
	char path[sizeof(t->dir) + 8], line[512];
	struct blk_trace_event ev;
	unsigned int maj, min;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p, *q;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p)
				sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
				       &in_buf, &written);
			continue;
		}
		memset(&ev, 0, sizeof(ev));
		p = strstr(line, " block_bio_queue: ");
		ev.is_bio = !!p;
		if (!p)
			p = strstr(line, " block_rq_issue: ");
		if (!p)
			continue;
		p = strchr(p + 2, ' ') + 1;
		if (sscanf(p, "%u,%u %15s", &maj, &min, ev.rwbs) != 3 ||
		    maj != t->major || min != t->minor)
			continue;
		if (ev.is_bio) {
			/* after "maj,min rwbs " */
			q = strchr(p, ' ');
			q = q ? strchr(q + 1, ' ') : NULL;
		} else {
			/* after "bytes (cmd) ": cmd may be empty */
			q = strstr(p, ") ");
			q = q ? q + 1 : NULL;
		}
		if (!q || sscanf(q, "%llu + %u", &ev.sector, &ev.nr_sector) != 2)
			continue;
		fn(&ev, arg);
	}
	fclose(f);
	return written > in_buf ? -ENOSPC : 0;
}

struct trace_sum_arg {
	struct blk_trace_sum *s;
	char dir;
};

static void trace_sum_one(const struct blk_trace_event *ev, void *arg)
{
	struct trace_sum_arg *a = arg;

	if (ev->is_bio) {
		sum_bio(a->s, a->dir, ev->rwbs, ev->sector, ev->nr_sector);
	} else {
		a->s->rqs++;
		a->s->rq_bytes += (unsigned long long)ev->nr_sector << 9;
	}
}

int blk_trace_collect(struct blk_trace *t, char dir, struct blk_trace_sum *s)
{
	struct trace_sum_arg a = { s, dir };

	memset(s, 0, sizeof(*s));
	return blk_trace_each(t, trace_sum_one, &a);
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

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_TAIL	16

int blk_folio_starts(const unsigned long long *pfn, unsigned long pages,
		     unsigned char *start)
{
	unsigned long long flags[64];
	unsigned long i = 0, j, n;
	int fd, ret = 0;
	ssize_t got;

	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -errno;
	/* One read per run of consecutive PFNs (up to 64 pages). */
	while (i < pages && !ret) {
		for (n = 1; i + n < pages && n < 64; n++)
			if (pfn[i + n] != pfn[i] + n)
				break;
		got = pread(fd, flags, n * sizeof(flags[0]),
			    pfn[i] * sizeof(flags[0]));
		if (got != (ssize_t)(n * sizeof(flags[0]))) {
			ret = got < 0 ? -errno : -EIO;
			break;
		}
		/* The tail pages of a folio follow its head physically. */
		for (j = 0; j < n; j++, i++)
			start[i] = !(i && pfn[i] == pfn[i - 1] + 1 &&
				     (flags[j] >> KPF_COMPOUND_TAIL & 1));
	}
	close(fd);
	return ret;
}

int blk_bvecs_by_folio(void)
{
	static int by_folio = -1;
	char line[512], name[256];
	FILE *f;

	if (by_folio >= 0)
		return by_folio;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	by_folio = 0;
	while (!by_folio && fgets(line, sizeof(line), f))
		by_folio = sscanf(line, "%*s %*s %255s", name) == 1 &&
			   !strcmp(name, "iov_iter_extract_bvecs");
	fclose(f);
	return by_folio;
}

unsigned long blk_bio_bvecs(const unsigned long long *pfn,
			    const unsigned char *fstart, unsigned long pg,
			    unsigned long end, const unsigned long *iov_end,
			    unsigned char *vstart)
{
	unsigned long first = pg, call, stop;
	unsigned int nvecs = 0;

	while (pg < end && nvecs < BLK_MAX_VECS) {
		/* One extraction: the bvecs left, within the iovec. */
		stop = iov_end && iov_end[pg] > pg && iov_end[pg] < end ?
		       iov_end[pg] : end;
		if (stop - pg > BLK_MAX_VECS - nvecs)
			stop = pg + BLK_MAX_VECS - nvecs;
		for (call = pg; pg < stop; pg++) {
			if (pg != first &&
			    (fstart ? pg != call && !fstart[pg] :
				      pfn[pg] == pfn[pg - 1] + 1))
				continue;
			nvecs++;
			if (vstart)
				vstart[pg] = 1;
		}
	}
	return pg;
}

int blk_layout_scan(const void *addr, unsigned long pages,
		    struct blk_layout *l)
{
	unsigned char *fstart = NULL;
	unsigned long long *pfn;
	unsigned long i, len = 1;
	int ret;

	memset(l, 0, sizeof(*l));
	pfn = calloc(pages, sizeof(*pfn));
	if (!pfn)
		return -ENOMEM;
	ret = blk_pfns(addr, pages, pfn);
	if (!ret) {
		l->by_folio = blk_bvecs_by_folio();
		if (l->by_folio > 0) {
			fstart = malloc(pages);
			ret = fstart ? blk_folio_starts(pfn, pages, fstart) :
				       -ENOMEM;
		}
	}
	if (ret) {
		free(fstart);
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
	/* An unpatched multi-bio direct I/O loop over the pages. */
	if (l->by_folio >= 0)
		for (i = 0; i < pages; l->bios++)
			i = blk_bio_bvecs(pfn, fstart, i, pages, NULL, NULL);
	free(fstart);
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
	pfn = calloc(n, sizeof(*pfn));
	pp = calloc(n, sizeof(*pp));
	/* EINVAL: a kernel without THP, whose pages are all small. */
	if (madvise(*pool, n * BLK_PAGE, MADV_NOHUGEPAGE) && errno != EINVAL) {
		snprintf(msg, msglen, "madvise(MADV_NOHUGEPAGE): %s",
			 strerror(errno));
		goto fail;
	}
	for (i = 0; i < n; i++)
		(*pool)[i * BLK_PAGE] = 1;
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
	if (madvise(b->map, b->map_len, MADV_NOHUGEPAGE) && errno != EINVAL) {
		int err = errno;

		snprintf(msg, msglen, "madvise(MADV_NOHUGEPAGE): %s",
			 strerror(err));
		blk_buf_free(b);
		return -err;
	}
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

/*
 * @b mapped for @pages pages, and in *@pp a pool of @n pages sorted by
 * PFN (pool_sorted()) to move its pages from.
 */
static int buf_start(struct blk_buf *b, unsigned long pages, unsigned long n,
		     char **pool, struct pool_page **pp, char *msg,
		     size_t msglen)
{
	int ret = buf_map(b, pages, msg, msglen);

	if (ret)
		return ret;
	*pp = pool_sorted(n, pool, msg, msglen);
	if (*pp)
		return 0;
	blk_buf_free(b);
	return -EPERM;
}

/*
 * After moving @moved of @pages pages from a pool of @n (@ret: how that
 * went): free the pool, check that every page came and scan the layout
 * into @l. On failure the buffer is freed.
 */
static int buf_finish(struct blk_buf *b, struct pool_page *pp, char *pool,
		      unsigned long n, unsigned long moved,
		      unsigned long pages, int ret, struct blk_layout *l,
		      char *msg, size_t msglen)
{
	free(pp);
	munmap(pool, n * BLK_PAGE);
	if (!ret && moved < pages) {
		snprintf(msg, msglen, "pool of %lu pages gave only %lu of %lu",
			 n, moved, pages);
		ret = -ENOMEM;
	}
	if (!ret) {
		ret = blk_layout_scan(b->addr, pages, l);
		if (ret)
			snprintf(msg, msglen, "pagemap of the buffer: %s",
				 strerror(-ret));
	}
	if (ret)
		blk_buf_free(b);
	return ret;
}

/*
 * A page can be migrated (by proactive compaction, or compaction for
 * another allocation) between the PFN scan of the pool and the scan of
 * the buffer built from it. The layout is then not the one planned: the
 * build says -EAGAIN, and blk_buf_runs() builds the buffer again, up to
 * BUF_TRIES times in all.
 */
#define BUF_TRIES	3

static int buf_runs_once(struct blk_buf *b, unsigned long pages,
			 unsigned int run_min, unsigned int run_max,
			 unsigned long long seed, char *msg, size_t msglen)
{
	unsigned long n = 2 * pages + 256, c = 0, j = 0, planned = 0, k;
	struct blk_layout l;
	struct pool_page *pp;
	char *pool;
	int ret = 0;

	ret = buf_start(b, pages, n, &pool, &pp, msg, msglen);
	if (ret)
		return ret;
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
	ret = buf_finish(b, pp, pool, n, j, pages, ret, &l, msg, msglen);
	if (!ret && (l.runs != planned || l.run_max > run_max)) {
		snprintf(msg, msglen, "%lu runs of %lu..%lu pages, planned %lu of %u..%u",
			 l.runs, l.run_min, l.run_max, planned, run_min,
			 run_max);
		blk_buf_free(b);
		ret = -EAGAIN;
	}
	return ret;
}

int blk_buf_runs(struct blk_buf *b, unsigned long pages, unsigned int run_min,
		 unsigned int run_max, unsigned long long seed,
		 char *msg, size_t msglen)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < BUF_TRIES && ret == -EAGAIN; i++)
		ret = buf_runs_once(b, pages, run_min, run_max, seed, msg,
				    msglen);
	return ret == -EAGAIN ? -EINVAL : ret;
}

/* Runs of one page each: consecutive runs are never adjacent. */
int blk_buf_nomerge(struct blk_buf *b, unsigned long pages,
		    char *msg, size_t msglen)
{
	return blk_buf_runs(b, pages, 1, 1, 0, msg, msglen);
}

/*
 * The 2 MiB extents of @b that PMD-mapped THPs back: AnonHugePages of its
 * mapping in /proc/self/smaps (madvise() made [addr, addr + len) one of
 * its own), or -1 if it cannot be read.
 */
static long buf_huge(const struct blk_buf *b)
{
	unsigned long start, end, kb;
	char line[256];
	long huge = -1;
	int in = 0;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (huge < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start <= (unsigned long)b->addr &&
			     (unsigned long)b->addr < end;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge = kb / (HPAGE >> 10);
	}
	fclose(f);
	return huge;
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
	/* EINVAL: no THP in this kernel; the buffer says so (b->huge 0). */
	if (madvise(b->addr, len, MADV_HUGEPAGE) && errno != EINVAL) {
		snprintf(msg, msglen, "madvise(MADV_HUGEPAGE): %s",
			 strerror(errno));
		blk_buf_free(b);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < len; i += BLK_PAGE)
		b->addr[i] = 1;
	b->huge = buf_huge(b);
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

/* Settings saved on first write, restored in teardown ------------------- */

/*
 * Whether BLK_SAVED_DIR is the guards' own: a directory (not a symlink)
 * of this user's, root, that nobody else may write or read. It lives in
 * /run, where only root makes names; should a directory of that name be
 * anyone else's all the same, its files are never written, read or
 * trusted.
 */
static int saved_dir_trusted(void)
{
	struct stat st;

	return !lstat(BLK_SAVED_DIR, &st) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && !(st.st_mode & 077);
}

/*
 * Whether @path is a setting a guard saves and @val a value of its form:
 * a disk's max_sectors_kb, a fail_page_alloc knob, THP's use_zero_page;
 * numbers or Y/N.
 */
static int saved_allowed(const char *path, const char *val)
{
	static const char * const allowed[] = {
		"/sys/block/*/queue/max_sectors_kb",
		"/sys/kernel/debug/fail_page_alloc/*",
		"/sys/kernel/mm/transparent_hugepage/use_zero_page",
	};
	unsigned int i;

	if (strstr(path, "..") || !*val ||
	    strspn(val, "0123456789-YN") != strlen(val))
		return 0;
	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		if (!fnmatch(allowed[i], path, FNM_PATHNAME))
			return 1;
	return 0;
}

/*
 * Each saved setting is also written to BLK_SAVED_DIR/PID_N until it is
 * restored, so that blk_sweep() can restore it if PID is killed first.
 */
int blk_sysfs_set_saved(struct blk_saved *sv, const char *path,
			const char *val)
{
	static unsigned int seq;
	FILE *f = NULL;
	int fd, ret;

	if (!sv->saved) {
		ret = blk_sysfs_read(path, sv->val, sizeof(sv->val));
		if (ret)
			return ret;
		snprintf(sv->path, sizeof(sv->path), "%s", path);
		if (!saved_allowed(sv->path, sv->val)) {
			fprintf(stderr, "# %s = %s is no setting a guard saves\n",
				sv->path, sv->val);
			return -EINVAL;
		}
		if (mkdir(BLK_SAVED_DIR, 0700) && errno != EEXIST)
			return -errno;
		if (!saved_dir_trusted()) {
			fprintf(stderr, "# %s is not root's own directory (mode 0700): nothing saved there\n",
				BLK_SAVED_DIR);
			return -EPERM;
		}
		snprintf(sv->file, sizeof(sv->file), BLK_SAVED_DIR "/%d_%u",
			 getpid(), seq++);
		fd = open(sv->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
			  0600);
		if (fd >= 0)
			f = fdopen(fd, "w");
		if (!f || fprintf(f, "%s\n%s\n", sv->path, sv->val) < 0 ||
		    fclose(f)) {
			ret = -errno;
			if (!f && fd >= 0)
				close(fd);
			unlink(sv->file);
			return ret;
		}
		sv->saved = 1;
	}
	return blk_sysfs_write(path, val);
}

/*
 * Puts back the setting saved in BLK_SAVED_DIR/@name: only from a regular
 * file of this user's, and only a setting a guard saves.
 */
static void saved_restore_file(const char *name)
{
	char path[256], set[128], val[64];
	struct stat st;
	FILE *f = NULL;
	int fd, ret;

	snprintf(path, sizeof(path), BLK_SAVED_DIR "/%.200s", name);
	fd = open(path, O_RDONLY | O_NOFOLLOW);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid())
		f = fdopen(fd, "r");
	ret = !f || fscanf(f, "%127[^\n]\n%63[^\n]", set, val) != 2;
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	if (!ret && !saved_allowed(set, val)) {
		fprintf(stderr, "# refused %s: %s = %s is no setting a guard saves\n",
			path, set, val);
		ret = -1;
	} else if (!ret) {
		ret = blk_sysfs_write(set, val);
		fprintf(stderr, "# %s %s to %s, left by a killed run\n",
			ret ? "cannot restore" : "restored", set, val);
	} else {
		fprintf(stderr, "# cannot read %s, left by a killed run\n",
			path);
	}
	unlink(path);
}

/* Whether process @pid is gone: no longer there, or a zombie. */
static int pid_gone(long pid)
{
	char path[64], state = 0;
	FILE *f;

	if (kill(pid, 0))
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (fscanf(f, "%*[^)]%*[)] %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z';
}

/* The PID of a guard's PREFIX_PID name, or 0 if it is none. */
static long guard_pid(const char *name)
{
	static const char * const prefix[] = {
		"blk_test_", "dio_align_", "dio_io_", "zeroout_",
	};
	unsigned int i;
	char *end;
	long pid;

	for (i = 0; i < ARRAY_SIZE(prefix); i++) {
		if (strncmp(name, prefix[i], strlen(prefix[i])))
			continue;
		pid = strtol(name + strlen(prefix[i]), &end, 10);
		return *end || pid <= 0 ? 0 : pid;
	}
	return 0;
}

/*
 * Runs before each guard program: puts back the settings of guard runs
 * that were killed, and removes their null_blk devices and trace
 * instances. What belongs to a run still going is left alone.
 */
static void __attribute__((constructor)) blk_sweep(void)
{
	static const char * const dirs[] = {
		NULLB_CFS, "/sys/kernel/tracing/instances",
	};
	char path[256];
	struct dirent *de;
	unsigned int i;
	DIR *d = NULL;
	int ret;

	if (saved_dir_trusted())
		d = opendir(BLK_SAVED_DIR);
	else if (!access(BLK_SAVED_DIR, F_OK))
		fprintf(stderr, "# %s is not root's own directory (mode 0700): its files are not trusted\n",
			BLK_SAVED_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !pid_gone(atol(de->d_name)))
			continue;
		saved_restore_file(de->d_name);
	}
	if (d)
		closedir(d);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		d = opendir(dirs[i]);
		while (d && (de = readdir(d))) {
			if (!guard_pid(de->d_name) || !pid_gone(guard_pid(de->d_name)))
				continue;
			snprintf(path, sizeof(path), "%s/%.200s", dirs[i],
				 de->d_name);
			if (i == 0) {
				struct blk_nullb nb = { .powered = 1 };

				snprintf(nb.cfs, sizeof(nb.cfs), "%s", path);
				blk_nullb_destroy(&nb);
				ret = !access(path, F_OK);
			} else {
				ret = rmdir(path);
			}
			fprintf(stderr, "# %s %s left by a killed run\n",
				ret ? "cannot remove" : "removed", path);
		}
		if (d)
			closedir(d);
	}
}

/* Linux AIO --------------------------------------------------------------- */

long blk_aio_rw(int fd, unsigned int opcode, const void *buf, size_t nbytes,
		long long off, int rw_flags)
{
	aio_context_t ctx = 0;
	struct io_event ev;
	struct iocb cb, *cbp = &cb;
	long ret;

	if (syscall(__NR_io_setup, 1, &ctx))
		return -errno;
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = opcode;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = nbytes;
	cb.aio_offset = off;
	cb.aio_rw_flags = rw_flags;
	ret = syscall(__NR_io_submit, ctx, 1, &cbp);
	if (ret == 1)
		ret = syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL);
	if (ret == 1)
		ret = ev.res;
	else
		ret = ret < 0 ? -errno : -EIO;
	syscall(__NR_io_destroy, ctx);
	return ret;
}

int blk_aio_probe(void)
{
	aio_context_t ctx = 0;

	if (syscall(__NR_io_setup, 1, &ctx))
		return -errno;
	syscall(__NR_io_destroy, ctx);
	return 0;
}
