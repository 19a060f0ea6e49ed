// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: nullb_bench REPS ZERO_MIB SETTING...
 * SETTING: LBS:LAT_US:QD:MBPS, e.g. 4096:50:1:0 (MBPS 0: no limit), or
 *          disk:NAME:SEGS[:MIN_KB], e.g. disk:wb-ahci168:168:1024
 *
 * make bench's guest program. For each SETTING it makes a null_blk whose
 * every command takes LAT_US microseconds (irqmode=2, completion_nsec),
 * with at most QD of them in flight (hw_queue_depth) and at most MBPS
 * MiB/s (mbps), of LBS-byte blocks, not memory-backed; then runs each case
 * on it once traced (bios and requests from the block tracepoints, pages
 * pinned from nr_foll_pin_acquired) and REPS times timed (CLOCK_MONOTONIC
 * around the I/O alone), and prints
 *   NB set=SETTING case=C kb=K ios=N bytes=N bios=N rqs=N pins=N secs=T,...
 * Cases (max_sectors_kb K, 0: the device's default):
 *   single-K  64 MiB O_DIRECT read into single pages (one bvec per page,
 *             bios of 256 pages): 60, 96, 508 and the default, where the
 *             series acts; 384, where its 1/16 rule keeps the 256 KiB
 *             tails; 64 and 128 KiB, which divide the bio
 *   write-96  the same as a write
 *   vec-K     the read as a preadv() of segments of 16 pages (an iovec:
 *             the same bios), at 60 KiB and at the default, where bios
 *             and requests are the same on both kernels
 *   thp-60    the read from a THP-backed buffer (one bio)
 *   bio1m     64 reads of 1 MiB from single pages (one bio each)
 *   ublk-32   1024 reads of 64 KiB at 32 KiB (the 2023 posting's ublk case)
 *   zero      BLKZEROOUT of ZERO_MIB MiB (no Write Zeroes on null_blk)
 *   fio-{r,w}{64m,1m}-96  fio's sequential O_DIRECT reads and writes of
 *             64 MiB in I/Os of 64 MiB or 1 MiB at 96 KiB (psync, fio's
 *             own buffers); timed by fio (mean latency x I/Os), so that
 *             fio's start is not
 *   mkfs      mke2fs -t ext4 of a 256 MiB file system, inode tables and
 *             journal zeroed (lazy_itable_init=0, lazy_journal_init=0:
 *             fallocate ZERO_RANGE, the zeroout path); timed as a whole
 *             command, mke2fs's own work included
 *
 * A disk:NAME:SEGS[:MIN_KB] setting runs, on the existing disk whose
 * serial (NVMe) or model (SCSI, ATA) is NAME, the reads at its default
 * limit alone (single-def, bio1m), read-only, its limits untouched; it
 * refuses a disk whose max_segments is not SEGS or whose default
 * max_sectors_kb is below MIN_KB (make bench: config/bench.topology's
 * AHCI disk, 168 and 1024: a 1 MiB bio split by its segments alone, and
 * NVMe namespace, 129 (6.12: 128) and 512; the series must change
 * nothing on them).
 * Its limits go to a line "NBINFO set=SETTING dev=...".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blk_common.h"

#define IO_LEN		(64 * BLK_MiB)

enum kind { READ_SINGLE, WRITE_SINGLE, READ_VEC, READ_THP, ZERO, FIO_READ,
	     FIO_WRITE, MKFS };

static const struct bench_case {
	const char *name;
	enum kind kind;
	unsigned int kb;	/* max_sectors_kb, 0: the default */
	unsigned int ios;	/* I/Os of IO_LEN / ios bytes each */
} cases[] = {
	{ "single-60", READ_SINGLE, 60, 1 },
	{ "single-96", READ_SINGLE, 96, 1 },
	{ "single-384", READ_SINGLE, 384, 1 },
	{ "single-508", READ_SINGLE, 508, 1 },
	{ "single-def", READ_SINGLE, 0, 1 },
	{ "single-64", READ_SINGLE, 64, 1 },
	{ "single-128", READ_SINGLE, 128, 1 },
	{ "write-96", WRITE_SINGLE, 96, 1 },
	{ "vec-60", READ_VEC, 60, 1 },
	{ "vec-def", READ_VEC, 0, 1 },
	{ "thp-60", READ_THP, 60, 1 },
	{ "bio1m", READ_SINGLE, 0, 64 },
	{ "ublk-32", READ_SINGLE, 32, 1024 },
	{ "zero", ZERO, 0, 1 },
	{ "fio-r64m-96", FIO_READ, 96, 1 },
	{ "fio-w64m-96", FIO_WRITE, 96, 1 },
	{ "fio-r1m-96", FIO_READ, 96, 64 },
	{ "fio-w1m-96", FIO_WRITE, 96, 64 },
	{ "mkfs", MKFS, 0, 1 },
};

/*
 * Pages pinned so far; stat_refresh first: /proc/vmstat lags by the
 * per-CPU deltas.
 */
static long long pins_now(void)
{
	blk_sysfs_write("/proc/sys/vm/stat_refresh", "1");
	return vmstat_read("nr_foll_pin_acquired");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A preadv() of @len bytes at @off into @buf, in segments of VEC_PAGES
 * pages.
 */
#define VEC_PAGES	16
static ssize_t preadv_segs(int fd, char *buf, size_t len, off_t off)
{
	size_t seg = VEC_PAGES * sysconf(_SC_PAGESIZE), i, nr = len / seg;
	struct iovec *iov = calloc(nr, sizeof(*iov));
	ssize_t n;

	if (!iov)
		return -1;
	for (i = 0; i < nr; i++) {
		iov[i].iov_base = buf + i * seg;
		iov[i].iov_len = seg;
	}
	n = preadv(fd, iov, nr, off);
	free(iov);
	return n;
}

/*
 * fio's run of @c on @path: the seconds its I/Os took, the mean latency of
 * its terse output (version 3: field 40 for reads, 81 for writes, in us)
 * times their number; -1 if fio failed.
 */
static double run_fio(const struct bench_case *c, const char *path)
{
	int write = c->kind == FIO_WRITE, i;
	char cmd[320], line[4096], *f, *save;
	double mean = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "fio --name=nb --filename=%s --direct=1 --ioengine=psync --rw=%s --bs=%llu --size=%llu --output-format=terse --terse-version=3 2>/dev/null",
		 path, write ? "write" : "read",
		 (unsigned long long)IO_LEN / c->ios, (unsigned long long)IO_LEN);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fgets(line, sizeof(line), p))
		for (i = 1, f = strtok_r(line, ";", &save); f;
		     f = strtok_r(NULL, ";", &save), i++)
			if (i == (write ? 81 : 40))
				mean = strtod(f, NULL);
	if (pclose(p))
		return -1;
	return mean < 0 ? -1 : mean * c->ios / 1e6;
}

/*
 * mke2fs of 256 MiB of @path, exec'd from PATH (through a shell, busybox's own mke2fs
 * applet would run): 0 if it succeeded.
 */
static int mkfs(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("mke2fs", "mke2fs", "-q", "-F", "-t", "ext4", "-E",
		       "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
		       path, "256M", (char *)NULL);
		_exit(127);
	}
	return waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	       WEXITSTATUS(status);
}

/*
 * One run of @c on @fd (@path): its seconds, or -1. The I/O alone is
 * timed, but for fio (its own figure) and mkfs (the whole command).
 */
static double run(const struct bench_case *c, int fd, const char *path,
		  char *single, char *thp, unsigned long long zero_bytes)
{
	size_t len = IO_LEN / c->ios;
	unsigned long long range[2] = { 0, zero_bytes };
	unsigned int i;
	double t0 = now();
	ssize_t n;

	if (c->kind == FIO_READ || c->kind == FIO_WRITE)
		return run_fio(c, path);
	if (c->kind == MKFS)
		return mkfs(path) ? -1 : now() - t0;
	if (c->kind == ZERO)
		return ioctl(fd, BLKZEROOUT, range) ? -1 : now() - t0;
	for (i = 0; i < c->ios; i++) {
		char *buf = (c->kind == READ_THP ? thp : single) + i * len;

		if (c->kind == WRITE_SINGLE)
			n = pwrite(fd, buf, len, (off_t)i * len);
		else if (c->kind == READ_VEC)
			n = preadv_segs(fd, buf, len, (off_t)i * len);
		else
			n = pread(fd, buf, len, (off_t)i * len);
		if (n != (ssize_t)len)
			return -1;
	}
	return now() - t0;
}

/*
 * Each case on @fd (@path, disk @disk traced by @t, @def_kb its default
 * max_sectors_kb): on an existing disk (@own 0) only the reads at the
 * default limit, whose max_sectors_kb is left alone.
 */
static int run_cases(const char *set, int own, int fd, const char *path,
		     const char *disk, unsigned long long def_kb,
		     struct blk_trace *t, int reps, unsigned int zero_mib,
		     char *single, char *thp)
{
	struct blk_saved saved = { 0 };
	char secs[256];
	unsigned int i, r;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bench_case *c = &cases[i];
		unsigned int kb = c->kb ? c->kb : def_kb;
		struct blk_trace_sum s;
		long long pins;
		size_t off = 0;
		double dt;

		if (!own && (c->kind != READ_SINGLE || c->kb))
			continue;
		if (own && blk_queue_set_saved(&saved, disk, "max_sectors_kb", kb)) {
			fprintf(stderr, "nullb_bench: %s: max_sectors_kb %u refused\n",
				set, kb);
			ret = 1;
			continue;
		}
		blk_trace_clear(t);
		pins = pins_now();
		if (run(c, fd, path, single, thp,
			(unsigned long long)zero_mib << 20) < 0 ||
		    blk_trace_collect(t, c->kind == READ_SINGLE ||
				      c->kind == READ_VEC ||
				      c->kind == READ_THP ||
				      c->kind == FIO_READ ? 'R' : 'W', &s)) {
			fprintf(stderr, "nullb_bench: %s: %s failed\n", set, c->name);
			ret = 1;
			continue;
		}
		pins = pins_now() - pins;
		secs[0] = '\0';
		for (r = 0; r < (unsigned int)reps; r++) {
			dt = run(c, fd, path, single, thp,
				 (unsigned long long)zero_mib << 20);
			if (dt < 0) {
				fprintf(stderr, "nullb_bench: %s: %s run %u failed\n",
					set, c->name, r);
				ret = 1;
				break;
			}
			off += snprintf(secs + off, sizeof(secs) - off, "%s%.6f",
					r ? "," : "", dt);
		}
		/* mkfs: bytes unknown, the model counts its requests only. */
		printf("NB set=%s case=%s kb=%u ios=%u bytes=%llu bios=%ld rqs=%ld pins=%lld secs=%s\n",
		       set, c->name, kb, c->ios,
		       c->kind == ZERO ? (unsigned long long)zero_mib << 20 :
		       c->kind == MKFS ? 0 : IO_LEN,
		       s.bios, s.rqs, pins, secs);
		fflush(stdout);
	}
	blk_saved_restore(&saved);
	return ret;
}

/* The whole disk in /sys/block whose serial or model is @name, into @disk. */
static int find_disk(const char *name, char *disk, size_t len)
{
	static const char * const ids[] = { "serial", "model" };
	char path[300], id[128];
	struct dirent *de;
	int found = 0;
	unsigned int i;
	DIR *d = opendir("/sys/block");

	while (d && (de = readdir(d))) {
		for (i = 0; i < ARRAY_SIZE(ids) && de->d_name[0] != '.'; i++) {
			snprintf(path, sizeof(path), "/sys/block/%s/device/%s",
				 de->d_name, ids[i]);
			if (blk_sysfs_read(path, id, sizeof(id)))
				continue;
			if (!strcmp(id, name)) {
				if (!found++)
					snprintf(disk, len, "%.63s", de->d_name);
				break;
			}
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * disk:NAME:SEGS[:MIN_KB]: the reads at the default limit on the existing disk
 * NAME (its serial or model), if its max_segments is SEGS; read-only.
 */
static int bench_disk(const char *set, int reps, char *single)
{
	unsigned long long segs, kb, hw_kb, lbs;
	char name[64], disk[64], path[80], msg[256];
	unsigned int want, want_kb = 0, major, minor;
	struct blk_trace t;
	int fd, n, ret;

	if (sscanf(set, "disk:%63[^:]:%u:%u", name, &want, &want_kb) < 2) {
		fprintf(stderr, "nullb_bench: %s is not disk:NAME:SEGS[:MIN_KB]\n", set);
		return 1;
	}
	n = find_disk(name, disk, sizeof(disk));
	if (n != 1) {
		printf("NBFAIL set=%s: %d disks have the serial or model %s (/sys/block/*/device/{serial,model}), want one\n",
		       set, n, name);
		return 1;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	if (blk_sysfs_read(path, msg, sizeof(msg)) ||
	    sscanf(msg, "%u:%u", &major, &minor) != 2 ||
	    blk_queue_get(disk, "max_segments", &segs) ||
	    blk_queue_get(disk, "max_sectors_kb", &kb) ||
	    blk_queue_get(disk, "max_hw_sectors_kb", &hw_kb) ||
	    blk_queue_get(disk, "logical_block_size", &lbs)) {
		printf("NBFAIL set=%s: %s: cannot read its limits\n", set, disk);
		return 1;
	}
	if (segs != want || kb < want_kb) {
		printf("NBFAIL set=%s: %s (%s) has max_segments %llu and max_sectors_kb %llu: not the device this setting is for\n",
		       set, disk, name, segs, kb);
		return 1;
	}
	printf("NBINFO set=%s dev=%s max_segments=%llu max_sectors_kb=%llu max_hw_sectors_kb=%llu lbs=%llu\n",
	       set, disk, segs, kb, hw_kb, lbs);
	if (blk_trace_create(&t, "nullb_bench", major, minor, 8192, msg,
			     sizeof(msg))) {
		fprintf(stderr, "nullb_bench: trace: %s\n", msg);
		return 1;
	}
	snprintf(path, sizeof(path), "/dev/%s", disk);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "nullb_bench: %s: %s\n", path, strerror(errno));
		blk_trace_destroy(&t);
		return 1;
	}
	ret = run_cases(set, 0, fd, path, disk, kb, &t, reps, 0, single, NULL);
	close(fd);
	blk_trace_destroy(&t);
	return ret;
}

static int bench_setting(const char *set, int reps, unsigned int zero_mib,
			 char *single, char *thp)
{
	unsigned int lbs, lat, qd, mbps;
	unsigned long long def_kb;
	struct blk_nullb nb;
	struct blk_trace t;
	char extra[160], msg[256];
	int fd, ret = 0;

	if (!strncmp(set, "disk:", 5))
		return bench_disk(set, reps, single);

	if (sscanf(set, "%u:%u:%u:%u", &lbs, &lat, &qd, &mbps) != 4) {
		fprintf(stderr, "nullb_bench: %s is not LBS:LAT_US:QD:MBPS\n", set);
		return 1;
	}
	snprintf(extra, sizeof(extra),
		 "irqmode=2 completion_nsec=%u hw_queue_depth=%u submit_queues=1 mbps=%u",
		 lat * 1000, qd, mbps);
	if (blk_nullb_create_attrs(&nb, "nullb_bench", lbs,
				   zero_mib > 256 ? zero_mib : 256, 8192, 0,
				   extra, msg, sizeof(msg))) {
		fprintf(stderr, "nullb_bench: %s: %s\n", set, msg);
		return 1;
	}
	if (blk_trace_create(&t, "nullb_bench", nb.major, nb.minor, 8192, msg,
			     sizeof(msg))) {
		fprintf(stderr, "nullb_bench: trace: %s\n", msg);
		blk_nullb_destroy(&nb);
		return 1;
	}
	fd = open(nb.path, O_RDWR | O_DIRECT);
	if (fd < 0 || blk_queue_get(nb.disk, "max_sectors_kb", &def_kb)) {
		fprintf(stderr, "nullb_bench: %s: %s\n", nb.path, strerror(errno));
		ret = 1;
		goto out;
	}
	ret = run_cases(set, 1, fd, nb.path, nb.disk, def_kb, &t, reps,
			zero_mib, single, thp);
	close(fd);
out:
	blk_trace_destroy(&t);
	blk_nullb_destroy(&nb);
	return ret;
}

/*
 * null_blk's irqmode=2 completes a command through an hrtimer, which is
 * only as fine as the clocksource: on jiffies (no TSC, HPET or ACPI PM
 * timer the kernel trusts) every command costs a tick, whatever
 * completion_nsec says, and the figures would measure HZ. 0 if the
 * clocksource is a real one, else 1 with the reason printed.
 */
static int clock_unfit(void)
{
	char cs[64] = "";

	blk_sysfs_read("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		       cs, sizeof(cs));
	if (cs[0] && !strstr(cs, "jiffies"))
		return 0;
	printf("NBFAIL clocksource=%s: null_blk's completion_nsec would be a tick (add a clocksource to config/bench.config)\n",
	       cs[0] ? cs : "unknown");
	return 1;
}

int main(int argc, char **argv)
{
	struct blk_buf single, thp;
	struct utsname u;
	char msg[256];
	int i, reps, status = 0;
	unsigned int zero_mib;

	if (argc < 4) {
		fprintf(stderr, "usage: %s REPS ZERO_MIB {LBS:LAT_US:QD:MBPS|disk:NAME:SEGS[:MIN_KB]}...\n",
			argv[0]);
		return 2;
	}
	if (clock_unfit())
		return 1;
	reps = atoi(argv[1]);
	zero_mib = strtoul(argv[2], NULL, 0);
	uname(&u);
	printf("NBINFO kernel=%s reps=%d zero_mib=%u\n", u.release, reps,
	       zero_mib);
	/*
	 * The buffers anew for each setting: their layout is the case, and
	 * compaction after fio and mke2fs may move the pages of a buffer
	 * that never merged into frames that do (6.12: bios of 64 MiB).
	 */
	for (i = 3; i < argc; i++) {
		if (blk_buf_nomerge(&single, IO_LEN / BLK_PAGE, msg, sizeof(msg)) ||
		    blk_buf_thp(&thp, IO_LEN, msg, sizeof(msg))) {
			fprintf(stderr, "nullb_bench: buffers: %s\n", msg);
			return 1;
		}
		status |= bench_setting(argv[i], reps, zero_mib, single.addr,
					thp.addr);
		blk_buf_free(&single);
		blk_buf_free(&thp);
	}
	return status;
}
