// SPDX-License-Identifier: GPL-2.0
/* cmd_tune.c - `rxectl tune [NETDEV] [--apply [--persist]] [--revert]`: measured, reversible tuning. */
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
#include "util.h"

#ifndef RXECTL_RUNSTATEDIR
#define RXECTL_RUNSTATEDIR "/run"
#endif
#define TUNE_STATE_DIR RXECTL_RUNSTATEDIR "/rxectl"
#define TUNE_STATE TUNE_STATE_DIR "/tune.state"
#define TUNE_SYSCTL_FILE RXECTL_SYSCONFDIR "/sysctl.d/90-rxectl-tune.conf"

/* The MTU switches carry as "jumbo"; more than that rarely gets through a network. */
#define JUMBO_MTU 9000
#define MAX_TUNABLES 256

/* One tunable: a file under /proc or /sys, what it holds, and what we would write. */
struct tunable {
	char id[64];		/* "mtu", "net.core.rmem_max", "irq.24", "rps.rx-0", "governor.cpu0" */
	char path[256];
	char current[64];	/* "" when it cannot be read */
	char recommended[64];	/* "" when nothing should change */
	char why[512];
	bool sysctl;		/* goes into the sysctl.d file with --persist */
};

struct tune {
	struct tunable v[MAX_TUNABLES];
	size_t n;
	const char *netdev;
	unsigned int mtu_to;	/* the MTU recommended, 0 if none */
};

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

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
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

/* --- the record of --apply: "path<TAB>old value" lines, in the order applied ---------- */

static bool state_has(const char *path)
{
	FILE *f = fopen(TUNE_STATE, "r");
	char line[512];
	size_t l = strlen(path);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, path, l) && line[l] == '\t';
	fclose(f);
	return found;
}

static int state_record(const char *path, const char *old)
{
	FILE *f;
	int err = 0;

	if (state_has(path))
		return 0;	/* the first --apply's value is the one to go back to */
	mkdir(TUNE_STATE_DIR, 0755);
	f = fopen(TUNE_STATE, "a");
	if (!f)
		return -errno;
	if (fprintf(f, "%s\t%s\n", path, old) < 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

static int tune_apply(struct rxectl *ctx, struct tune *t)
{
	struct output *o = ctx->out;
	int err;

	out_arr_begin(o, "changed");
	for (size_t i = 0; i < t->n; i++) {
		struct tunable *x = &t->v[i];

		if (!x->recommended[0])
			continue;
		err = state_record(x->path, x->current);
		if (err < 0) {
			out_arr_end(o);
			return log_error(RXECTL_FAIL, "cannot record the old value of %s in %s: %s; "
					 "nothing more was changed.", x->id, TUNE_STATE, strerror(-err));
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

static int tune_persist(struct rxectl *ctx, struct tune *t)
{
	FILE *f;
	bool any = false;

	for (size_t i = 0; i < t->n; i++)
		any |= t->v[i].sysctl;
	if (!any)
		return RXECTL_OK;
	mkdir(RXECTL_SYSCONFDIR "/sysctl.d", 0755);
	f = fopen(TUNE_SYSCTL_FILE ".tmp", "w");
	if (!f)
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", TUNE_SYSCTL_FILE, strerror(errno));
	fprintf(f, "# Written by `rxectl tune --apply --persist`; `rxectl tune --revert` removes it.\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct tunable *x = &t->v[i];

		if (x->sysctl)
			fprintf(f, "%s = %s\n", x->id, x->recommended[0] ? x->recommended : x->current);
	}
	if (fclose(f) != 0 || rename(TUNE_SYSCTL_FILE ".tmp", TUNE_SYSCTL_FILE) != 0)
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", TUNE_SYSCTL_FILE, strerror(errno));
	out_str(ctx->out, "sysctl_file", "wrote %s\n", TUNE_SYSCTL_FILE);
	if (t->mtu_to)
		log_warn("the MTU of %s is not persisted: rxe.conf has no `mtu =` key yet; set it "
			 "where the netdev is configured (e.g. /etc/network/interfaces, "
			 "systemd-networkd's MTUBytes=).", t->netdev);
	return RXECTL_OK;
}

static int tune_revert(struct rxectl *ctx)
{
	struct output *o = ctx->out;
	char (*paths)[512] = NULL, (*olds)[64] = NULL, line[512];
	size_t n = 0, cap = 0;
	FILE *f = fopen(TUNE_STATE, "r");
	int ret = RXECTL_OK;
	bool removed = false;

	if (!f && errno != ENOENT)
		return log_error(RXECTL_FAIL, "cannot read %s: %s.", TUNE_STATE, strerror(errno));
	while (f && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			paths = realloc(paths, cap * sizeof(*paths));
			olds = realloc(olds, cap * sizeof(*olds));
			if (!paths || !olds) {
				fclose(f);
				free(paths);
				free(olds);
				return log_error(RXECTL_FAIL, "out of memory.");
			}
		}
		snprintf(paths[n], sizeof(paths[n]), "%s", line);
		snprintf(olds[n], sizeof(olds[n]), "%s", tab + 1);
		n++;
	}
	if (f)
		fclose(f);
	out_obj_begin(o, NULL);
	out_arr_begin(o, "restored");
	for (size_t i = n; i-- > 0;) {
		char now[64];
		int err;

		read_value(paths[i], now, sizeof(now));
		err = write_line(paths[i], olds[i]);
		if (err < 0) {
			log_error(0, "restoring %s to %s failed: %s.", paths[i], olds[i], strerror(-err));
			ret = RXECTL_FAIL;
			continue;
		}
		out_obj_begin(o, NULL);
		out_str(o, "path", "restored %s", paths[i]);
		out_str(o, "from", ": %s", now);
		out_str(o, "to", " -> %s\n", olds[i]);
		out_obj_end(o);
	}
	out_arr_end(o);
	if (unlink(TUNE_SYSCTL_FILE) == 0) {
		removed = true;
		out_text(o, "removed %s\n", TUNE_SYSCTL_FILE);
	}
	out_bool(o, "sysctl_file_removed", NULL, removed);
	if (n == 0 && !removed)
		out_text(o, "nothing to revert: `rxectl tune --apply` recorded nothing (%s).\n",
			 TUNE_STATE);
	out_obj_end(o);
	if (ret == RXECTL_OK)
		unlink(TUNE_STATE);
	free(paths);
	free(olds);
	return ret;
}

static void print_table(struct rxectl *ctx, const struct tune *t)
{
	struct output *o = ctx->out;

	out_text(o, "%-24s %-12s %-12s %s\n", "TUNABLE", "CURRENT", "RECOMMENDED", "WHY");
	out_arr_begin(o, "tunables");
	for (size_t i = 0; i < t->n; i++) {
		const struct tunable *x = &t->v[i];

		out_obj_begin(o, NULL);
		out_str(o, "id", "%-24s ", x->id);
		if (x->path[0])
			out_str(o, "path", NULL, x->path);
		else
			out_null(o, "path", NULL);
		if (x->current[0])
			out_str(o, "current", "%-12s ", x->current);
		else
			out_null(o, "current", "-            ");
		if (x->recommended[0])
			out_str(o, "recommended", "%-12s ", x->recommended);
		else
			out_null(o, "recommended", "(keep)       ");
		out_str(o, "why", "%s\n", x->why);
		out_obj_end(o);
	}
	out_arr_end(o);
}

/* NETDEV given, or the netdev of the only rxe device, or the only configured netdev. */
static int pick_netdev(struct rxectl *ctx, const char *arg, char *out, size_t len)
{
	struct rxe_dev *devs = NULL;
	struct rxe_conf conf;
	size_t n = 0;
	int ret;

	if (arg) {
		if (netdev_name_invalid(arg))
			return rxectl_usage_error("tune", "'%s' is not a valid netdev name.", arg);
		snprintf(out, len, "%s", arg);
		return RXECTL_OK;
	}
	if (access("/sys/module/rdma_rxe", F_OK) == 0 && ctx_rdma_nl(ctx) &&
	    rxe_list(ctx, &devs, &n) == 0 && n == 1 && devs[0].netdev[0]) {
		snprintf(out, len, "%s", devs[0].netdev);
		free(devs);
		return RXECTL_OK;
	}
	free(devs);
	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;
	if (conf.n == 1) {
		snprintf(out, len, "%s", conf.entries[0].netdev);
		config_free(&conf);
		return RXECTL_OK;
	}
	config_free(&conf);
	return rxectl_usage_error("tune", "name the netdev to tune: there is not exactly one rxe "
				  "device or configured netdev to pick.");
}

enum { TUNE_APPLY = 1, TUNE_PERSIST, TUNE_REVERT };
const struct opt_spec cmd_tune_opts[] = {
	{ "apply",   0, NULL, "change each value to the recommended one, printing each change",
	  NULL, TUNE_APPLY },
	{ "persist", 0, NULL, "with --apply: also keep the changes across reboots", NULL,
	  TUNE_PERSIST },
	{ "revert",  0, NULL, "restore every value --apply changed", NULL, TUNE_REVERT },
	{ NULL },
};

int cmd_tune(struct rxectl *ctx, int argc, char **argv)
{
	static struct tune t;
	bool apply = false, persist = false, revert = false;
	char netdev[IF_NAMESIZE];
	struct opts o;
	int opt, ret;

	opts_init(&o, ctx, "tune", cmd_tune_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		switch (opt) {
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		case TUNE_APPLY:
			apply = true;
			break;
		case TUNE_PERSIST:
			persist = true;
			break;
		case TUNE_REVERT:
			revert = true;
			break;
		}
	}
	if (revert && (apply || persist))
		return rxectl_usage_error("tune", "--revert undoes --apply; give one of them.");
	if (persist && !apply)
		return rxectl_usage_error("tune", "--persist goes with --apply: it keeps what "
					  "--apply changes.");
	if (o.npos > 1)
		return rxectl_usage_error("tune", "tune takes at most one NETDEV, but got '%s' too.",
					  argv[2]);
	if (revert) {
		if (o.npos)
			return rxectl_usage_error("tune", "--revert restores everything --apply "
						  "recorded; it takes no NETDEV.");
		return tune_revert(ctx);
	}
	ret = pick_netdev(ctx, o.npos ? argv[1] : NULL, netdev, sizeof(netdev));
	if (ret != RXECTL_OK)
		return ret;
	if (access("/sys/class/net", F_OK) == 0) {
		char p[128];

		snprintf(p, sizeof(p), "/sys/class/net/%s", netdev);
		if (access(p, F_OK) != 0)
			return log_error(RXECTL_FAIL, "netdev %s does not exist; check the name with "
					 "`ip link`.", netdev);
	}
	memset(&t, 0, sizeof(t));
	t.netdev = netdev;
	gather_mtu(&t);
	gather_sysctls(&t);
	gather_irqs(&t);
	gather_queues(&t);
	gather_governor(&t);

	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "netdev", "tuning for %s", netdev);
	out_bool(ctx->out, "applied", apply ? " (applying)\n" : " (nothing changes without "
		 "--apply)\n", apply);
	print_table(ctx, &t);
	ret = RXECTL_OK;
	if (apply)
		ret = tune_apply(ctx, &t);
	if (ret == RXECTL_OK && persist)
		ret = tune_persist(ctx, &t);
	out_obj_end(ctx->out);
	return ret;
}
