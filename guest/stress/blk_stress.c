// SPDX-License-Identifier: GPL-2.0
/*
 * Fault and stress cases of make test-debug (issue 6), run on the debug
 * kernel in a boot of their own, each for a bounded time (SECONDS, the
 * only argument, default 30), with TAP output:
 *
 *  1. allocation failure: fail_page_alloc fails every order >= 9
 *     allocation, then half of them at random, while BLKZEROOUT runs in a
 *     loop; every zeroout must be correct, the huge zero folio must be
 *     tried at most once a second (the kernel's back-off, not compaction
 *     on every call), and once the failure is lifted the next zeroout
 *     must use it (2 MiB bvecs). Needs a boot where the folio has not
 *     been taken yet, so it runs first.
 *  2. shrinker race: several processes zero random ranges of the device
 *     without Write Zeroes, each verified, while another drops caches
 *     and slab (which runs the huge zero folio's shrinker) and a third
 *     allocates, dirties and frees half of the memory. The series pins
 *     the folio for good: thp_zero_page_alloc must not move. A design that
 *     used the huge zero folio without holding a reference would let the
 *     shrinker free it under in-flight bios and the memory hog dirty it:
 *     this case is there to catch that (as wrong data or a KASAN report),
 *     even though on a correct kernel it only looks like a slow pass.
 *  3. kill: SIGKILL at a random moment of a 2 GiB zeroout, repeated; a
 *     killed zeroout must stop short of its end and write, after the
 *     kill, no more than the queue can hold in flight plus the rest of
 *     the bio it was submitting (sectors written, from the device's own
 *     stat: a count, where a time limit would fail on a slow host),
 *     nothing may stay in flight (/sys/block/DEV/inflight), each sampled
 *     block must read back as zeros or as the pattern it had, and the
 *     device must stay usable.
 *  4. mixed load: zeroing loops on both namespaces (without and with
 *     Write Zeroes) while fio writes and verifies (crc32c) on both.
 *  5. boundaries: fio writes and verifies direct I/O of random sizes
 *     while max_sectors_kb changes under it through sysfs.
 *
 * Every knob touched is restored. The devices are found as by the block
 * kselftests (zeroout_common.h), whose data on them is destroyed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "zeroout_common.h"

#define FAIL_DIR	ZR_FAIL_DIR
#define NR_ZERO_WORKERS	3
#define WORKER_REGION	(256 * MiB)
#define WORKER_MAX_LEN	(8 * MiB)
#define ALLOC_START	(6 * GiB)
#define ALLOC_LEN	(64 * MiB)
#define KILL_START	(2 * GiB)
#define KILL_LEN	(2 * GiB)
#define ZERO_BIO_MAX	(16 * MiB)	/* the series' cap on a zeroing bio */
#define KILL_MAX_DELAY	1500	/* ms */
#define MIXED_FIO_START	(5 * GiB)
#define MIXED_WZ_FIO	(512 * MiB)
#define FIO_SIZE	(128 * MiB)

static double budget = 30;
static struct blkdev nowz, wz;
/* fio's logs: a directory of this run's own, removed at exit. */
static char logdir[] = "/tmp/blk_stress.XXXXXX";

/* What one worker process did; lives in shared memory. */
struct wstat {
	unsigned long zeroouts;
	unsigned long long bytes;	/* zeroed and verified */
	unsigned long errors;
	char msg[192];
};

static struct wstat *wstat_alloc(int n)
{
	void *p = mmap(NULL, n * sizeof(struct wstat), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(p, 0, n * sizeof(struct wstat));
	return p;
}

/* Record the first error of a worker. */
static void wfail(struct wstat *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->errors++) {
		va_start(ap, fmt);
		vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
		va_end(ap);
	}
}

static const char *wz_name(enum zr_method m)
{
	return m == ZR_BLKZEROOUT ? "BLKZEROOUT" : "FALLOC_FL_ZERO_RANGE";
}

/*
 * Zero random ranges of [start, start + len) of @dev until @deadline,
 * each one patterned first and verified after (zr_run: the range reads
 * back as zeros, the blocks on either side keep their pattern).
 */
static void zero_worker(const struct blkdev *dev, unsigned long long start,
			unsigned long long len, double deadline,
			unsigned long long seed, struct wstat *st)
{
	unsigned long long blocks = len / dev->lbs, n, at;
	enum zr_method m;
	struct zr_result res;
	int fd, ret;

	fd = open(dev->path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		wfail(st, "open %s: %s", dev->path, strerror(errno));
		return;
	}
	while (now_sec() < deadline && !st->errors) {
		n = 1 + blk_rand(&seed) % (WORKER_MAX_LEN / dev->lbs);
		at = 1 + blk_rand(&seed) % (blocks - n - 2);
		m = blk_rand(&seed) % 4 ? ZR_BLKZEROOUT : ZR_FALLOCATE;
		ret = zr_run(fd, dev, start + at * dev->lbs, n * dev->lbs, m,
			     &res, NULL);
		if (ret)
			wfail(st, "%s: pattern I/O at %llu: %s", dev->name,
			      start + at * dev->lbs, strerror(-ret));
		else if (res.ret)
			wfail(st, "%s: %s [%llu+%llu]: %s", dev->name,
			      wz_name(m), start + at * dev->lbs, n * dev->lbs,
			      strerror(-res.ret));
		else if (res.bad >= 0)
			wfail(st, "%s: %s [%llu+%llu]: %s at byte %lld",
			      dev->name, wz_name(m), start + at * dev->lbs,
			      n * dev->lbs, res.what, res.bad);
		else {
			st->zeroouts++;
			st->bytes += (n + 2) * dev->lbs;
		}
	}
	close(fd);
}

static pid_t spawn_zero_worker(const struct blkdev *dev,
			       unsigned long long start, double deadline,
			       unsigned long long seed, struct wstat *st)
{
	pid_t pid = fork();

	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		zero_worker(dev, start, WORKER_REGION, deadline, seed, st);
		_exit(0);
	}
	return pid;
}

/* Sum of the workers' counts; 0 if one of them failed (its message). */
static int wstat_sum(struct wstat *st, int n, unsigned long *zeroouts,
		     unsigned long long *bytes, const char **msg)
{
	int i, ok = 1;

	*zeroouts = 0;
	*bytes = 0;
	for (i = 0; i < n; i++) {
		*zeroouts += st[i].zeroouts;
		*bytes += st[i].bytes;
		if (st[i].errors && ok) {
			*msg = st[i].msg;
			ok = 0;
		}
	}
	return ok;
}

static void wait_all(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

static long long meminfo_kb(const char *key)
{
	size_t klen = strlen(key);
	long long kb = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			kb = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/* Case 1 ------------------------------------------------------------------ */

/* One traced zeroout of the 64 MiB range; bios <= 5: huge folio bvecs. */
static int alloc_zeroout(int fd, long *bios, char *why, size_t len)
{
	struct zr_result res;
	int ret;

	ret = zr_run(fd, &nowz, ALLOC_START, ALLOC_LEN, ZR_BLKZEROOUT, &res,
		     bios);
	if (ret)
		snprintf(why, len, "pattern I/O or trace: %s", strerror(-ret));
	else if (res.ret)
		snprintf(why, len, "BLKZEROOUT: %s", strerror(-res.ret));
	else if (res.bad >= 0)
		snprintf(why, len, "%s at byte %lld", res.what, res.bad);
	else if (*bios < 0)
		snprintf(why, len, "trace incomplete");
	else
		return 0;
	return -1;
}

/*
 * BLKZEROOUT is killable: with the huge zero folio its bios carry at most
 * 16 MiB, so 64 MiB takes 4 (5 allowed); with ZERO_PAGE, 64 of 1 MiB.
 */
#define ALLOC_HUGE_MAX	5
#define ALLOC_SMALL_MIN	48

static void case_alloc_failure(void)
{
	unsigned long n_full = 0, n_rand = 0, n_huge = 0, n_small = 0;
	long long alloc0, fail0, fails;
	double t0, t_end, t_rand, elapsed;
	int fd, huge_seen = 0, rand_phase = 0, ok = 1;
	char why[192] = "";
	long bios;

	alloc0 = vmstat_read("thp_zero_page_alloc");
	fail0 = vmstat_read("thp_zero_page_alloc_failed");
	if (access(FAIL_DIR "probability", W_OK)) {
		ksft_test_result_skip("allocation failure: no " FAIL_DIR "\n");
		return;
	}
	if (alloc0 != 0) {
		ksft_test_result_skip("allocation failure: thp_zero_page_alloc is %lld: the huge zero folio is taken already (needs a fresh boot)\n",
				      alloc0);
		return;
	}
	fd = open(nowz.path, O_RDWR | O_DIRECT);
	if (fd < 0 || zr_fail_order9(NULL, "100")) {
		ksft_test_result_fail("allocation failure: set-up of %s / " FAIL_DIR " failed\n",
				      nowz.path);
		return;
	}
	t0 = now_sec();
	t_rand = t0 + budget / 3;
	t_end = t0 + budget;
	while (ok && now_sec() < t_end) {
		if (!rand_phase && n_full && now_sec() >= t_rand) {
			rand_phase = 1;
			zr_fail_order9(NULL, "50");
		}
		if (alloc_zeroout(fd, &bios, why, sizeof(why))) {
			ok = 0;
			break;
		}
		if (rand_phase)
			n_rand++;
		else
			n_full++;
		if (bios <= ALLOC_HUGE_MAX && !rand_phase) {
			snprintf(why, sizeof(why), "2MiB bvecs while every order-9 allocation fails");
			ok = 0;
		} else if (bios <= ALLOC_HUGE_MAX) {
			n_huge++;
			huge_seen = 1;
		} else if (bios >= ALLOC_SMALL_MIN && !huge_seen) {
			n_small++;
		} else {
			snprintf(why, sizeof(why), "%ld bios for 64MiB at probability %s%s",
				 bios, rand_phase ? "50" : "100", huge_seen ?
				 ", after the huge zero folio was pinned" : "");
			ok = 0;
		}
	}
	elapsed = now_sec() - t0;
	fails = vmstat_read("thp_zero_page_alloc_failed") - fail0;
	zr_fail_order9(NULL, "0");

	/* Lifted: after the 1 s back-off the next zeroout takes the folio. */
	if (ok) {
		usleep(1500000);
		if (alloc_zeroout(fd, &bios, why, sizeof(why)))
			ok = 0;
		else if (bios > ALLOC_HUGE_MAX) {
			snprintf(why, sizeof(why), "failure lifted: %ld bios for 64MiB, not 2MiB bvecs",
				 bios);
			ok = 0;
		}
	}
	close(fd);
	if (ok && (fails < 1 || fails > elapsed / 1.0 + 1)) {
		snprintf(why, sizeof(why), "%lld failed attempts in %.0fs: want 1..%.0f (one try per second at most)",
			 fails, elapsed, elapsed + 1);
		ok = 0;
	}
	ksft_print_msg("allocation failure: %lu zeroouts at probability 100, %lu at 50 (%lu with 4KiB bvecs, %lu with 2MiB), %lld injected failures of the huge zero folio allocation in %.0fs, all 64MiB ranges verified\n",
		       n_full, n_rand, n_small, n_huge, fails, elapsed);
	ksft_test_result(ok, "allocation failure: %lu+%lu zeroouts correct, %lld injected failures, huge folio after lifting%s%s\n",
			 n_full, n_rand, fails, ok ? "" : ": ", why);
}

/* Case 2 ------------------------------------------------------------------ */

/* Until @deadline: drop caches and slab, or fill half of memory and free. */
static void pressure_worker(int hog, double deadline, struct wstat *st)
{
	size_t len;
	char *p;
	int ret;

	while (now_sec() < deadline) {
		if (!hog) {
			ret = blk_sysfs_write("/proc/sys/vm/drop_caches", "3");
			if (ret)
				wfail(st, "drop_caches: %s", strerror(-ret));
			st->zeroouts++;
			usleep(20000);
			continue;
		}
		len = meminfo_kb("MemAvailable") * 1024 / 2;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		/* Non-zero: a freed zero folio reused here shows as data. */
		memset(p, 0xa5, len);
		munmap(p, len);
		st->zeroouts++;
		st->bytes += len;
	}
}

static void case_shrinker_race(void)
{
	struct wstat *st = wstat_alloc(NR_ZERO_WORKERS + 2);
	pid_t pids[NR_ZERO_WORKERS + 2];
	long long alloc0, alloc1;
	unsigned long long bytes;
	const char *msg = "";
	unsigned long zeroouts;
	double deadline;
	int i, ok;

	alloc0 = vmstat_read("thp_zero_page_alloc");
	deadline = now_sec() + budget;
	for (i = 0; i < NR_ZERO_WORKERS; i++)
		pids[i] = spawn_zero_worker(&nowz, i * WORKER_REGION + MiB,
					    deadline, 0x5eed + i, &st[i]);
	for (i = 0; i < 2; i++) {
		pids[NR_ZERO_WORKERS + i] = fork();
		if (!pids[NR_ZERO_WORKERS + i]) {
			pressure_worker(i, deadline, &st[NR_ZERO_WORKERS + i]);
			_exit(0);
		}
	}
	wait_all(pids, NR_ZERO_WORKERS + 2);
	alloc1 = vmstat_read("thp_zero_page_alloc");

	ok = wstat_sum(st, NR_ZERO_WORKERS, &zeroouts, &bytes, &msg);
	if (st[NR_ZERO_WORKERS].errors) {
		ok = 0;
		msg = st[NR_ZERO_WORKERS].msg;
	}
	ksft_print_msg("shrinker race: %lu zeroouts by %d processes, %llu MiB verified; %lu drop_caches, %lu memory hog rounds (%llu MiB dirtied); thp_zero_page_alloc %lld -> %lld\n",
		       zeroouts, NR_ZERO_WORKERS, bytes / MiB,
		       st[NR_ZERO_WORKERS].zeroouts,
		       st[NR_ZERO_WORKERS + 1].zeroouts,
		       st[NR_ZERO_WORKERS + 1].bytes / MiB, alloc0, alloc1);
	/* Pinned for good: at most the first allocation, never a second. */
	if (ok && alloc1 - alloc0 > (alloc0 ? 0 : 1)) {
		ok = 0;
		msg = "the huge zero folio was freed and allocated again";
	}
	if (ok && !zeroouts) {
		ok = 0;
		msg = "no zeroout completed";
	}
	ksft_test_result(ok, "shrinker race: %lu zeroouts verified under drop_caches and memory pressure, huge zero folio kept%s%s\n",
			 zeroouts, ok ? "" : ": ", msg);
	munmap(st, (NR_ZERO_WORKERS + 2) * sizeof(*st));
}

/* Case 3 ------------------------------------------------------------------ */

#define KILL_SAMPLE	(1 * MiB)	/* one 4 KiB block every MiB */
#define KILL_BLOCK	4096

static int inflight_zero(const struct blkdev *dev, char *buf, size_t len)
{
	unsigned long long r = 1, w = 1;
	char path[128];
	int i;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight", dev->name);
	for (i = 0; i < 100; i++) {
		if (blk_sysfs_read(path, buf, len))
			return 0;
		if (sscanf(buf, "%llu %llu", &r, &w) == 2 && !r && !w)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Sectors written to @dev since boot: field 7 of /sys/block/DEV/stat. */
static int written_sectors(const struct blkdev *dev, unsigned long long *sect)
{
	unsigned long long f[6];
	char path[128], buf[256];

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev->name);
	if (blk_sysfs_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], sect) != 7)
		return -EIO;
	return 0;
}

/*
 * The most a zeroout may still write once SIGKILL is pending: every
 * request the queue holds (nr_requests per hardware queue, max_sectors_kb
 * each) and the rest of the bio it was submitting. In sectors; 0 when the
 * queue cannot be read.
 */
static unsigned long long kill_bound(const struct blkdev *dev)
{
	unsigned long long nr_req = 0, max_kb = 0, hw_queues = 0;
	char path[128];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/block/%s/mq", dev->name);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		hw_queues += d->d_name[0] >= '0' && d->d_name[0] <= '9';
	closedir(dir);
	if (dev_queue_get(dev, "nr_requests", &nr_req) ||
	    dev_queue_get(dev, "max_sectors_kb", &max_kb))
		return 0;
	return (hw_queues * nr_req * max_kb * KiB + ZERO_BIO_MAX) >> 9;
}

static int kill_samples(int fd, void *buf, int write, unsigned long *zeroed,
			unsigned long *kept, long long *bad)
{
	unsigned long long off;
	int ret;

	for (off = KILL_START; off < KILL_START + KILL_LEN; off += KILL_SAMPLE) {
		if (write) {
			blk_pattern_fill(buf, KILL_BLOCK, off, 7);
			ret = pwrite_full(fd, buf, KILL_BLOCK, off);
		} else {
			ret = pread_full(fd, buf, KILL_BLOCK, off);
			if (!ret && zero_check(buf, KILL_BLOCK, off) < 0)
				(*zeroed)++;
			else if (!ret && blk_pattern_check(buf, KILL_BLOCK, off, 7) < 0)
				(*kept)++;
			else if (!ret && *bad < 0)
				*bad = off;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static void case_kill(void)
{
	unsigned long kills = 0, finished = 0, zeroed = 0, kept = 0;
	unsigned long long seed = 0x6b696c6c, before, at_kill, after;
	unsigned long long bound, most_after = 0;
	double t_kill, reap, max_reap = 0, t_end;
	char inflight[64] = "", why[192] = "";
	long long bad = -1;
	int fd, ok = 1, status, ret;
	void *buf;
	pid_t pid;

	fd = open(nowz.path, O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, KILL_BLOCK)) {
		ksft_test_result_fail("kill: open %s: %s\n", nowz.path,
				      strerror(errno));
		return;
	}
	bound = kill_bound(&nowz);
	if (!bound) {
		ksft_test_result_fail("kill: cannot read the queue of %s\n",
				      nowz.name);
		close(fd);
		free(buf);
		return;
	}
	t_end = now_sec() + budget;
	while (ok && now_sec() < t_end) {
		ret = kill_samples(fd, buf, 1, NULL, NULL, NULL);
		if (ret) {
			snprintf(why, sizeof(why), "pattern write: %s", strerror(-ret));
			ok = 0;
			break;
		}
		if (written_sectors(&nowz, &before)) {
			snprintf(why, sizeof(why), "cannot read %s's stat", nowz.name);
			ok = 0;
			break;
		}
		pid = fork();
		if (!pid)
			_exit(blk_zeroout(fd, KILL_START, KILL_LEN) ? 1 : 0);
		usleep(1000 * (blk_rand(&seed) % KILL_MAX_DELAY));
		kill(pid, SIGKILL);
		t_kill = now_sec();
		ret = written_sectors(&nowz, &at_kill);
		waitpid(pid, &status, 0);
		reap = now_sec() - t_kill;
		if (reap > max_reap)
			max_reap = reap;
		if (!inflight_zero(&nowz, inflight, sizeof(inflight))) {
			snprintf(why, sizeof(why), "inflight \"%s\" a second after the kill",
				 inflight);
			ok = 0;
		}
		/* Read once nothing is in flight: completions are counted. */
		if (ret || written_sectors(&nowz, &after)) {
			snprintf(why, sizeof(why), "cannot read %s's stat", nowz.name);
			ok = 0;
		} else if (WIFSIGNALED(status)) {
			kills++;
			if (after - at_kill > most_after)
				most_after = after - at_kill;
			if (after - before >= KILL_LEN >> 9) {
				snprintf(why, sizeof(why), "a killed zeroout wrote its whole range");
				ok = 0;
			} else if (after - at_kill > bound) {
				snprintf(why, sizeof(why), "%llu KiB written after SIGKILL (at most %llu)",
					 (after - at_kill) / 2, bound / 2);
				ok = 0;
			}
		} else if (WIFEXITED(status) && !WEXITSTATUS(status)) {
			finished++;
		} else {
			snprintf(why, sizeof(why), "zeroout failed without being killed");
			ok = 0;
		}
		ret = kill_samples(fd, buf, 0, &zeroed, &kept, &bad);
		if (ret || bad >= 0) {
			snprintf(why, sizeof(why), "block at %lld neither zero nor its pattern%s%s",
				 bad, ret ? ": read: " : "", ret ? strerror(-ret) : "");
			ok = 0;
		}
	}
	/* Usable after all that: one more zeroout, whole range, verified. */
	if (ok) {
		struct zr_result res;

		ret = zr_run(fd, &nowz, KILL_START, 64 * MiB, ZR_BLKZEROOUT,
			     &res, NULL);
		if (ret || res.ret || res.bad >= 0) {
			snprintf(why, sizeof(why), "zeroout after the kills failed");
			ok = 0;
		}
	}
	close(fd);
	free(buf);
	ksft_print_msg("kill: %lu zeroouts of 2GiB killed, %lu finished first; at most %llu KiB written after a kill (bound %llu KiB); slowest reap %.2fs; samples after the kills: %lu zero, %lu still their pattern\n",
		       kills, finished, most_after / 2, bound / 2, max_reap,
		       zeroed, kept);
	if (ok && !kills) {
		snprintf(why, sizeof(why), "no zeroout was killed in flight");
		ok = 0;
	}
	ksft_test_result(ok, "kill: %lu zeroouts killed, each stopped short, at most %llu KiB written after SIGKILL, nothing in flight, %lu samples verified%s%s\n",
			 kills, most_after / 2, zeroed + kept, ok ? "" : ": ", why);
}

/* Cases 4 and 5: fio ------------------------------------------------------ */

/* fio writing and verifying [start, start + FIO_SIZE) of @dev, in a loop. */
static pid_t spawn_fio(const struct blkdev *dev, unsigned long long start,
		       const char *bsrange, double deadline, const char *log)
{
	char runtime[32], offset[32], size[32], filename[128], bs[64],
	     output[128];
	pid_t pid = fork();

	if (pid)
		return pid;
	snprintf(runtime, sizeof(runtime), "--runtime=%.0f",
		 deadline - now_sec());
	snprintf(offset, sizeof(offset), "--offset=%llu", start);
	snprintf(size, sizeof(size), "--size=%llu", FIO_SIZE);
	snprintf(filename, sizeof(filename), "--filename=%s", dev->path);
	snprintf(bs, sizeof(bs), "--bsrange=%s", bsrange);
	snprintf(output, sizeof(output), "--output=%s", log);
	execlp("fio", "fio", "--name=stress", filename, offset, size, bs,
	       runtime, output, "--time_based", "--direct=1",
	       "--ioengine=libaio", "--iodepth=8", "--rw=randwrite",
	       "--verify=crc32c", "--verify_backlog=64", "--verify_fatal=1",
	       "--do_verify=1", "--group_reporting", "--eta=never", NULL);
	_exit(127);
}

static int fio_status(pid_t pid, const char *log, char *why, size_t len)
{
	char line[256];
	int status;
	FILE *f;

	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 1;
	snprintf(why, len, "fio exited with %d, its log above",
		 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f))
		ksft_print_msg("fio: %s", line);
	if (f)
		fclose(f);
	return 0;
}

/* The path of fio's log @name in logdir. */
static const char *log_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", logdir, name);
	return buf;
}

/* "write: IOPS=..., BW=...(...MB/s)(NNNMiB/...)" -> NNN MiB written. */
static unsigned long long fio_mib(const char *log, const char *what)
{
	unsigned long long mib = 0;
	char line[512], *p;
	FILE *f = fopen(log, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, what);
		if (!p || !(p = strstr(p, ")(")))
			continue;
		mib = strtoull(p + 2, &p, 10);
		if (*p == 'G')
			mib *= 1024;
		else if (*p == 'K' || *p == 'k')
			mib /= 1024;
		break;
	}
	fclose(f);
	return mib;
}

static void case_mixed(void)
{
	struct wstat *st = wstat_alloc(2);
	unsigned long long bytes, w0, w1;
	pid_t zp[2] = { -1, -1 }, fp[2] = { -1, -1 };
	const char *msg = "";
	unsigned long zeroouts;
	char why[192] = "", log[2][64];
	double deadline;
	int ok;

	deadline = now_sec() + budget;
	zp[0] = spawn_zero_worker(&nowz, 4 * GiB, deadline, 0x31, &st[0]);
	zp[1] = spawn_zero_worker(&wz, 0, deadline, 0x32, &st[1]);
	log_path(log[0], sizeof(log[0]), "fio-mixed-0.log");
	log_path(log[1], sizeof(log[1]), "fio-mixed-1.log");
	fp[0] = spawn_fio(&nowz, MIXED_FIO_START, "4k-1m", deadline, log[0]);
	fp[1] = spawn_fio(&wz, MIXED_WZ_FIO, "4k-1m", deadline, log[1]);
	wait_all(zp, 2);
	ok = fio_status(fp[0], log[0], why, sizeof(why));
	ok &= fio_status(fp[1], log[1], why, sizeof(why));
	if (!wstat_sum(st, 2, &zeroouts, &bytes, &msg)) {
		ok = 0;
		snprintf(why, sizeof(why), "%s", msg);
	}
	w0 = fio_mib(log[0], "write:");
	w1 = fio_mib(log[1], "write:");
	ksft_print_msg("mixed load: %lu + %lu zeroouts on %s and %s (%llu MiB verified); fio wrote and verified %llu MiB on %s, %llu MiB on %s\n",
		       st[0].zeroouts, st[1].zeroouts, nowz.name, wz.name,
		       bytes / MiB, w0, nowz.name, w1, wz.name);
	if (ok && (!st[0].zeroouts || !st[1].zeroouts || !w0 || !w1)) {
		ok = 0;
		snprintf(why, sizeof(why), "a zeroing loop or fio did no work");
	}
	ksft_test_result(ok, "mixed load: %lu zeroouts and %llu MiB of fio I/O verified on both namespaces%s%s\n",
			 zeroouts, w0 + w1, ok ? "" : ": ", why);
	munmap(st, 2 * sizeof(*st));
}

static void case_boundaries(void)
{
	/* Powers of two and not, down to one page, up to the hardware limit. */
	static const unsigned int kb[] = { 128, 96, 64, 100, 4, 124, 32, 60, 8 };
	unsigned long changes = 0, refused = 0;
	unsigned long long mib;
	char why[192] = "", log[64];
	unsigned int i = 0, v;
	double deadline;
	pid_t pid;
	int ok;

	deadline = now_sec() + budget;
	log_path(log, sizeof(log), "fio-limits.log");
	pid = spawn_fio(&nowz, MIXED_FIO_START, "4k-2m", deadline, log);
	while (now_sec() < deadline) {
		v = kb[i++ % ARRAY_SIZE(kb)];
		if (v > nowz.max_hw_sectors_kb)
			v = nowz.max_hw_sectors_kb;
		if (blk_queue_set(&nowz, "max_sectors_kb", v))
			refused++;
		else
			changes++;
		usleep(50000);
	}
	ok = fio_status(pid, log, why, sizeof(why));
	blk_queue_set(&nowz, "max_sectors_kb", nowz.max_sectors_kb);
	mib = fio_mib(log, "write:");
	ksft_print_msg("boundaries: %lu max_sectors_kb changes (%lu refused) under fio, %llu MiB written and verified\n",
		       changes, refused, mib);
	if (ok && (!changes || !mib)) {
		ok = 0;
		snprintf(why, sizeof(why), "no limit change or no I/O");
	}
	ksft_test_result(ok, "boundaries: %llu MiB of direct I/O verified across %lu max_sectors_kb changes%s%s\n",
			 mib, changes, ok ? "" : ": ", why);
}

static void restore(void)
{
	char path[64];

	zr_fail_order9(NULL, "0");
	blk_queue_set(&nowz, "max_sectors_kb", nowz.max_sectors_kb);
	unlink(log_path(path, sizeof(path), "fio-mixed-0.log"));
	unlink(log_path(path, sizeof(path), "fio-mixed-1.log"));
	unlink(log_path(path, sizeof(path), "fio-limits.log"));
	rmdir(logdir);
}

int main(int argc, char **argv)
{
	char msg[256];
	int ret;

	if (argc > 1)
		budget = atof(argv[1]);
	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	/* Only named devices: the cases need more than a null_blk holds. */
	if (!getenv("BLK_NOWZ_DEV") || !getenv("BLK_WZ_DEV"))
		ksft_exit_skip("needs BLK_NOWZ_DEV and BLK_WZ_DEV (and BLK_TEST_DESTROY naming both)\n");
	ret = blk_test_dev("BLK_NOWZ_DEV", 0, 0, 0, 0, 7 * GiB, NULL, &nowz,
			   msg, sizeof(msg));
	if (!ret)
		ret = blk_test_dev("BLK_WZ_DEV", 1, 0, 0, 0, 1 * GiB, NULL,
				   &wz, msg, sizeof(msg));
	if (ret == -BLK_ESKIP)
		ksft_exit_skip("needs a namespace without Write Zeroes of >= 7 GiB and one with it of >= 1 GiB: %s\n",
			       msg);
	if (ret)
		ksft_exit_fail_msg("%s\n", msg);
	ksft_print_msg("%s (%llu MiB, no Write Zeroes), %s (%llu MiB, Write Zeroes); %.0fs per case\n",
		       nowz.name, nowz.size / MiB, wz.name, wz.size / MiB,
		       budget);
	if (!mkdtemp(logdir))
		ksft_exit_fail_msg("mkdtemp %s: %s\n", logdir, strerror(errno));
	atexit(restore);
	ksft_set_plan(5);
	case_alloc_failure();
	case_shrinker_race();
	case_kill();
	case_mixed();
	case_boundaries();
	ksft_finished();
}
