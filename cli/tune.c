// SPDX-License-Identifier: GPL-2.0
/* tune.c - the tunables: MTU, socket buffers, IRQ affinity, RPS/XPS, CPU governor; gathered, and applied with a record (tune_state.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "doctor.h"
#include "log.h"
#include "names.h"
#include "netdev.h"
#include "output.h"
#include "rxe.h"
#include "tune.h"
#include "tune_state.h"
#include "util.h"

static int read_value(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t l;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		int err = ferror(f) ? -EIO : 0;

		fclose(f);
		return err;
	}
	fclose(f);
	l = strcspn(buf, "\n");
	buf[l] = '\0';
	/* sysctls with several values use tabs */
	for (char *p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
	return 0;
}

static struct tunable *add(struct tune *t, const char *id, const char *path)
{
	struct tunable *x;

	if (t->n == MAX_TUNABLES)
		return NULL;
	x = &t->v[t->n++];
	memset(x, 0, sizeof(*x));
	snprintf(x->id, sizeof(x->id), "%s", id);
	snprintf(x->path, sizeof(x->path), "%s", path);
	read_value(path, x->current, sizeof(x->current));
	return x;
}

static long ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

static void gather_mtu(struct tune *t)
{
	char path[128];
	unsigned int cur, max = 0, to;
	struct tunable *x;
	int err;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", t->netdev);
	x = add(t, "mtu", path);
	if (!x)
		return;
	cur = (unsigned int)strtoul(x->current, NULL, 10);
	err = netdev_max_mtu(t->netdev, &max);
	if (err < 0 || max == 0) {
		snprintf(x->why, sizeof(x->why), "RoCE active MTU %u; the kernel does not say how "
			 "large an MTU %s allows, so nothing is recommended",
			 roce_mtu_for_netdev_mtu(cur), t->netdev);
		return;
	}
	to = max < JUMBO_MTU ? max : JUMBO_MTU;
	if (to <= cur) {
		snprintf(x->why, sizeof(x->why), "RoCE active MTU %u, the most %s can give (it "
			 "allows up to %u)", roce_mtu_for_netdev_mtu(cur), t->netdev, max);
		return;
	}
	t->mtu_to = to;
	snprintf(x->recommended, sizeof(x->recommended), "%u", to);
	snprintf(x->why, sizeof(x->why), "RoCE active MTU %u -> %u (%s allows up to %u; %u is "
		 "the usual jumbo size); both ends and every switch between them must carry it, "
		 "or large messages are lost", roce_mtu_for_netdev_mtu(cur),
		 roce_mtu_for_netdev_mtu(to), t->netdev, max, to);
}

static void gather_sysctls(struct tune *t)
{
	static const struct {
		const char *name;
		unsigned long want;
	} s[] = {
		{ "net.core.rmem_max", 16ul << 20 },
		{ "net.core.wmem_max", 16ul << 20 },
		{ "net.core.rmem_default", 1ul << 20 },
		{ "net.core.wmem_default", 1ul << 20 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		char path[128];
		struct tunable *x;
		unsigned long cur;

		snprintf(path, sizeof(path), "/proc/sys/%s", s[i].name);
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		x = add(t, s[i].name, path);
		if (!x)
			return;
		x->sysctl = true;
		cur = strtoul(x->current, NULL, 10);
		if (x->current[0] && cur < s[i].want)
			snprintf(x->recommended, sizeof(x->recommended), "%lu", s[i].want);
		snprintf(x->why, sizeof(x->why), "%s socket buffers let bursts queue instead of "
			 "dropping; rdma_rxe itself receives in softirq, so this helps the TCP/UDP "
			 "around RDMA (connection setup, NFS, iSER) more than RDMA traffic%s",
			 strstr(s[i].name, "max") ? "the largest" : "the default",
			 x->recommended[0] ? "" : " (already large enough)");
	}
}

static bool irqbalance_runs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[300], comm[64];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (read_value(path, comm, sizeof(comm)) == 0 && !strcmp(comm, "irqbalance"))
			found = true;
	}
	closedir(d);
	return found;
}

static void gather_irqs(struct tune *t)
{
	char pattern[160];
	glob_t g;
	long cpus = ncpus();
	bool balance = irqbalance_runs();
	size_t k = 0;

	snprintf(pattern, sizeof(pattern), "/sys/class/net/%s/device/msi_irqs/*", t->netdev);
	if (glob(pattern, 0, NULL, &g) != 0) {
		struct tunable *x = add(t, "irq", "");

		if (x)
			snprintf(x->why, sizeof(x->why), "%s has no MSI interrupts of its own (a "
				 "virtual or software netdev): nothing to spread", t->netdev);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *irq = strrchr(g.gl_pathv[i], '/') + 1;
		char id[64], path[128];
		struct tunable *x;

		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", irq);
		if (access(path, F_OK) != 0)
			continue;	/* an allocated vector without a handler */
		snprintf(id, sizeof(id), "irq.%s", irq);
		x = add(t, id, path);
		if (!x)
			break;
		if (balance) {
			snprintf(x->why, sizeof(x->why), "irqbalance runs and places this interrupt");
		} else if (cpus == 1) {
			snprintf(x->why, sizeof(x->why), "one CPU: nothing to spread");
		} else {
			snprintf(x->recommended, sizeof(x->recommended), "%ld", (long)(k % cpus));
			if (!strcmp(x->recommended, x->current))
				x->recommended[0] = '\0';
			snprintf(x->why, sizeof(x->why), "irqbalance does not run: one CPU per "
				 "interrupt of %s spreads the receive work over the CPUs", t->netdev);
		}
		k++;
	}
	globfree(&g);
}

/* The hex CPU mask of all online CPUs (up to 64), as rps_cpus takes it. */
static void all_cpus_mask(char *buf, size_t len)
{
	long n = ncpus();

	snprintf(buf, len, "%llx", n >= 64 ? ~0ull : (1ull << n) - 1);
}

static bool mask_is_zero(const char *s)
{
	for (; *s; s++)
		if (*s != '0' && *s != ',')
			return false;
	return true;
}

static void gather_queues(struct tune *t)
{
	char pattern[160];
	glob_t rx, tx;
	long cpus = ncpus();

	snprintf(pattern, sizeof(pattern), "/sys/class/net/%s/queues/rx-*/rps_cpus", t->netdev);
	if (glob(pattern, 0, NULL, &rx) == 0) {
		for (size_t i = 0; i < rx.gl_pathc; i++) {
			char id[64], want[32];
			struct tunable *x;

			snprintf(id, sizeof(id), "rps.rx-%zu", i);
			x = add(t, id, rx.gl_pathv[i]);
			if (!x)
				break;
			if (cpus > 1 && (long)rx.gl_pathc < cpus && x->current[0] &&
			    mask_is_zero(x->current)) {
				all_cpus_mask(want, sizeof(want));
				snprintf(x->recommended, sizeof(x->recommended), "%s", want);
				snprintf(x->why, sizeof(x->why), "%s has %zu receive queue%s for %ld "
					 "CPUs: RPS lets every CPU take part in receiving", t->netdev,
					 rx.gl_pathc, rx.gl_pathc == 1 ? "" : "s", cpus);
			} else {
				snprintf(x->why, sizeof(x->why), "%s", cpus == 1 ? "one CPU: nothing "
					 "to spread" : (long)rx.gl_pathc >= cpus ? "a receive queue "
					 "per CPU already" : "already set");
			}
		}
		globfree(&rx);
	}
	snprintf(pattern, sizeof(pattern), "/sys/class/net/%s/queues/tx-*/xps_cpus", t->netdev);
	if (glob(pattern, 0, NULL, &tx) == 0) {
		for (size_t i = 0; tx.gl_pathc > 1 && i < tx.gl_pathc; i++) {
			char id[64];
			struct tunable *x;

			snprintf(id, sizeof(id), "xps.tx-%zu", i);
			x = add(t, id, tx.gl_pathv[i]);
			if (!x)
				break;
			if (!x->current[0]) {
				snprintf(x->why, sizeof(x->why), "not readable on this netdev");
			} else if (cpus > 1 && mask_is_zero(x->current)) {
				snprintf(x->recommended, sizeof(x->recommended), "%llx",
					 1ull << (i % (size_t)cpus % 64));
				snprintf(x->why, sizeof(x->why), "one transmit queue per CPU keeps a "
					 "flow's packets on one queue (no reordering)");
			} else {
				snprintf(x->why, sizeof(x->why), "already set");
			}
		}
		globfree(&tx);
	}
}

static void gather_governor(struct tune *t)
{
	glob_t g;

	if (glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", 0, NULL, &g) != 0) {
		struct tunable *x = add(t, "governor", "");

		if (x)
			snprintf(x->why, sizeof(x->why), "no CPU frequency scaling here (a virtual "
				 "machine, or a fixed clock): nothing to set");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char id[64], avail[256], apath[300];
		const char *cpu = strstr(g.gl_pathv[i], "/cpu/") + 5;
		struct tunable *x;

		snprintf(id, sizeof(id), "governor.%.*s", (int)strcspn(cpu, "/"), cpu);
		x = add(t, id, g.gl_pathv[i]);
		if (!x)
			break;
		snprintf(apath, sizeof(apath), "%.*s/scaling_available_governors",
			 (int)(strrchr(g.gl_pathv[i], '/') - g.gl_pathv[i]), g.gl_pathv[i]);
		read_value(apath, avail, sizeof(avail));
		if (strcmp(x->current, "performance") && strstr(avail, "performance")) {
			snprintf(x->recommended, sizeof(x->recommended), "performance");
			snprintf(x->why, sizeof(x->why), "rdma_rxe does its transport work on the "
				 "CPU: a CPU that clocks down between packets adds latency");
		} else {
			snprintf(x->why, sizeof(x->why), "%s", strcmp(x->current, "performance") ?
				 "no performance governor available" : "already performance");
		}
	}
	globfree(&g);
}

int tune_apply(struct rxectl *ctx, struct tune *t)
{
	struct output *o = ctx->out;
	int err;

	out_arr_begin(o, "changed");
	for (size_t i = 0; i < t->n; i++) {
		struct tunable *x = &t->v[i];

		if (!x->recommended[0])
			continue;
		err = tune_state_record_value(x->path, x->current);
		if (err < 0) {
			out_arr_end(o);
			return log_error(RXECTL_FAIL, "cannot record the old value of %s in %s: %s; "
					 "nothing more was changed.", x->id, tune_state_path(),
					 strerror(-err));
		}
		err = write_line(x->path, x->recommended);
		if (err < 0) {
			out_arr_end(o);
			return log_error(RXECTL_FAIL, "setting %s (%s) to %s failed: %s; what was "
					 "changed before is recorded, `rxectl tune --revert` restores it.",
					 x->id, x->path, x->recommended, strerror(-err));
		}
		out_obj_begin(o, NULL);
		out_str(o, "id", "changed %s", x->id);
		out_str(o, "path", " (%s)", x->path);
		out_str(o, "from", ": %s", x->current);
		out_str(o, "to", " -> %s\n", x->recommended);
		out_obj_end(o);
	}
	out_arr_end(o);
	return RXECTL_OK;
}

void tune_gather(struct tune *t, const char *netdev)
{
	memset(t, 0, sizeof(*t));
	t->netdev = netdev;
	gather_mtu(t);
	gather_sysctls(t);
	gather_irqs(t);
	gather_queues(t);
	gather_governor(t);
}

int tune_apply_for_up(struct rxectl *ctx, const char *netdev)
{
	static struct tune t;
	int err;

	tune_gather(&t, netdev);
	for (size_t i = 0; i < t.n; i++) {
		struct tunable *x = &t.v[i];

		if (!x->recommended[0] || !strcmp(x->id, "mtu"))
			continue;
		err = tune_state_record_value(x->path, x->current);
		if (!err)
			err = write_line(x->path, x->recommended);
		if (err == -EROFS && getenv("INVOCATION_ID")) {
			/* a sandboxed unit (ProtectKernelTunables=): rxe@NETDEV.service's
			 * unsandboxed ExecStartPre= hook (`tune --apply --from-config`) does it */
			log_info("rxe.conf says tune = yes; %s is read-only in this sandboxed service, "
				 "so rxe@%s.service's ExecStartPre= hook (`rxectl tune %s --apply "
				 "--from-config`) sets it.", x->path, netdev, netdev);
			return RXECTL_OK;
		}
		if (err == -EROFS) {
			log_warn("rxe.conf says tune = yes, but %s is read-only here (a container?); "
				 "run `rxectl tune %s --apply --persist` where it can be written.",
				 x->path, netdev);
			return RXECTL_OK;
		}
		if (err < 0) {
			log_warn("rxe.conf says tune = yes, but setting %s (%s) to %s failed: %s; "
				 "`rxectl tune %s` shows the values.", x->id, x->path,
				 x->recommended, strerror(-err), netdev);
			continue;
		}
		log_info("tuned %s: %s -> %s (rxe.conf says tune = yes; `rxectl tune --revert` "
			 "restores it).", x->id, x->current, x->recommended);
	}
	return RXECTL_OK;
}
