// SPDX-License-Identifier: GPL-2.0
/* cmd_monitor.c - `rxectl monitor`: keep the devices declared in rxe.conf alive across netdev changes. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "cdi.h"
#include "config.h"
#include "lock.h"
#include "log.h"
#include "netdev.h"
#include "output.h"
#include "rxe.h"
#include "util.h"

/*
 * The loop: wait for an rtnetlink link or address notification (or a
 * signal, or the periodic check), let the burst settle, then reconcile every
 * netdev declared in rxe.conf (re-read each time):
 *
 *  - a declared netdev that is there without an rxe device gets one, through
 *    the same code as `rxectl up NETDEV --wait 0` and therefore under the
 *    same lock as the units and a hand-run `rxectl up` -- but only when it is
 *    a new netdev (first seen, re-created, or renamed into the name): a device
 *    deleted by hand from a netdev that stayed is left deleted;
 *  - after address changes the device's readiness (a RoCE v2 GID for the
 *    netdev's address) is compared with the last check and every change is
 *    logged: a GID that went away, and the GID index once it is back.
 *
 * RDMA netlink has no device notifications on the kernels we support, so a
 * periodic check (PERIODIC_S) catches devices that went away on their own.
 * Every action is logged (to the journal under systemd, see log.h).
 */
#define SETTLE_MS	300	/* after a notification, before the first check */
#define RECHECK_MS	2000	/* and a second check: GIDs follow addresses asynchronously */
#define PERIODIC_S	30

struct seen_gid {
	unsigned int index;
	char ip[INET6_ADDRSTRLEN];
};

struct watched {
	char netdev[IF_NAMESIZE];
	int ifindex;		/* the netdev we last saw under this name; 0: absent */
	bool known;		/* checked at least once */
	bool had_dev;
	bool ready;
	bool busy;		/* the creation lock was busy: creating is to be tried again */
	int gid_index;
	struct seen_gid *gids;	/* the device's RoCE v2 GIDs at the last check */
	size_t n_gids;
};

struct monitor {
	struct rxectl *ctx;
	struct watched *w;
	size_t n;
	bool config_ok;
	bool retry;		/* a creation waits for the lock: reconcile again soon */
};

#define RETRY_MS	500	/* after the creation lock was found busy */

/* The state of `netdev`, kept across reconciles; a new entry if needed. */
static struct watched *watch(struct monitor *m, const char *netdev)
{
	void *p;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->w[i].netdev, netdev))
			return &m->w[i];
	p = realloc(m->w, (m->n + 1) * sizeof(*m->w));
	if (!p)
		return NULL;
	m->w = p;
	memset(&m->w[m->n], 0, sizeof(*m->w));
	snprintf(m->w[m->n].netdev, sizeof(m->w[m->n].netdev), "%s", netdev);
	return &m->w[m->n++];
}

/* Forget netdevs no longer declared. */
static void prune(struct monitor *m, const struct rxe_conf *conf)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++) {
		if (config_find_netdev(conf, m->w[i].netdev)) {
			m->w[k++] = m->w[i];
			continue;
		}
		free(m->w[i].gids);
		log_info("%s is no longer declared in %s; leaving it alone.", m->w[i].netdev,
				 m->ctx->config_path);
	}
	m->n = k;
}

/*
 * Create the device of `e` through rxe_up() (as `rxectl up NETDEV --wait 0`).
 * The creation lock is only tried, never waited for: the watchdog must keep
 * being pinged.  Returns false if it was busy (try again on the next cycle).
 */
static bool create(struct monitor *m, const struct rxe_conf_entry *e)
{
	struct rxe_conf conf;
	bool declared = false;
	int ret;

	ret = rxe_trylock(m->ctx);
	if (ret == -EWOULDBLOCK) {
		log_debug("the creation lock is busy; trying %s again shortly", e->netdev);
		return false;
	}
	if (ret < 0)
		return true;	/* said why; tried again on the next change of the netdev */
	/* Still declared?  Asked under the lock `rxectl disable --now` holds while it
	 * removes the device after editing the file, so a disabled netdev stays without. */
	if (ctx_load_config(m->ctx, &conf) == RXECTL_OK) {
		declared = config_find_netdev(&conf, e->netdev) != NULL;
		config_free(&conf);
	}
	if (!declared) {
		rxe_unlock(m->ctx);
		log_info("%s is no longer declared in %s; not creating %s.", e->netdev,
			 m->ctx->config_path, e->name);
		return true;
	}
	ret = rxe_up(m->ctx, e->netdev, e->name, 0);
	rxe_unlock(m->ctx);
	output_flush(m->ctx->out);
	if (ret == RXECTL_FAIL || ret == RXECTL_USAGE)
		log_warn("could not create %s on %s (see above); trying again on the next change of "
			 "%s.", e->name, e->netdev, e->netdev);
	return true;
}

static bool has_gid(const struct seen_gid *v, size_t n, const struct seen_gid *g)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].index == g->index && !strcmp(v[i].ip, g->ip))
			return true;
	return false;
}

/* Log every RoCE v2 GID that went away or appeared since the last check (not on the first). */
static void diff_gids(struct watched *w, const struct rxe_dev *d, const struct rxe_details *det)
{
	struct seen_gid *now_ = calloc(det->port.n_gids + 1, sizeof(*now_));
	size_t n = 0;

	if (!now_ || !det->have_verbs) {
		free(now_);
		return;
	}
	for (size_t i = 0; i < det->port.n_gids; i++) {
		const struct verbs_gid *g = &det->port.gids[i];

		if (g->type != GID_TYPE_ROCE_V2)
			continue;
		now_[n].index = g->index;
		snprintf(now_[n].ip, sizeof(now_[n].ip), "%s", g->ip);
		n++;
	}
	if (w->had_dev && w->gids) {
		for (size_t i = 0; i < w->n_gids; i++)
			if (!has_gid(now_, n, &w->gids[i]))
				log_info("%s on %s lost RoCE v2 GID index %u (%s): the address is no "
					 "longer on %s.", d->name, d->netdev, w->gids[i].index,
					 w->gids[i].ip, d->netdev);
		for (size_t i = 0; i < n; i++)
			if (!has_gid(w->gids, w->n_gids, &now_[i]))
				log_info("%s on %s has RoCE v2 GID index %u for %s.", d->name, d->netdev,
					 now_[i].index, now_[i].ip);
	}
	free(w->gids);
	w->gids = now_;
	w->n_gids = n;
}

/* Log what changed about the device's GIDs and readiness since the last check. */
static void check_gids(struct monitor *m, struct watched *w, const struct rxe_dev *d)
{
	struct rxe_details det;
	char why[512] = "";
	bool ready;

	rxe_describe(m->ctx, d, &det);
	ready = rxe_ready(d, &det, why, sizeof(why));
	diff_gids(w, d, &det);
	if (!w->had_dev || ready != w->ready || det.gid_index != w->gid_index) {
		if (ready && det.gid_index >= 0 && det.have_verbs) {
			const struct verbs_gid *g = NULL;

			for (size_t i = 0; i < det.port.n_gids; i++)
				if ((int)det.port.gids[i].index == det.gid_index)
					g = &det.port.gids[i];
			log_info("%s on %s is ready%s: applications should use GID index %d (%s, %s).",
				 d->name, d->netdev, w->had_dev && !w->ready ? " again" : "",
				 det.gid_index, g ? gid_type_str(g->type) : "RoCE v2", g ? g->ip : "?");
		} else if (ready) {
			log_info("%s on %s is ready.", d->name, d->netdev);
		} else {
			log_warn("%s on %s is not ready: %s.", d->name, d->netdev, why);
		}
	}
	w->ready = ready;
	w->gid_index = det.gid_index;
	rxe_details_free(&det);
}

/*
 * The device on this very netdev: one left over from an earlier netdev of
 * the same name (being unregistered by the kernel) does not count.
 */
static const struct rxe_dev *this_netdev(const struct rxe_dev *devs, size_t n,
					 const struct netdev_info *info)
{
	const struct rxe_dev *d = rxe_find_by_netdev(devs, n, info->name);

	return d && (int)d->ndev_index == info->ifindex ? d : NULL;
}

static void reconcile(struct monitor *m)
{
	struct netdev_ctx *nd = ctx_netdev(m->ctx);
	struct rxe_dev *devs = NULL;
	struct rxe_conf conf;
	size_t n = 0;

	m->retry = false;
	if (ctx_load_config(m->ctx, &conf) != RXECTL_OK) {
		if (m->config_ok)
			log_warn("%s cannot be used (see above); keeping the devices as they are until "
				 "it is fixed.", m->ctx->config_path);
		m->config_ok = false;
		return;
	}
	m->config_ok = true;
	prune(m, &conf);
	if (!nd || rxe_list(m->ctx, &devs, &n) < 0) {
		config_free(&conf);
		return;
	}
	for (size_t i = 0; i < conf.n; i++) {
		const struct rxe_conf_entry *e = &conf.entries[i];
		struct watched *w = watch(m, e->netdev);
		struct netdev_info info;
		const struct rxe_dev *d;

		if (!w)
			break;
		if (netdev_get_by_name(nd, e->netdev, &info) < 0) {
			if (w->ifindex || !w->known)
				log_info("%s is not there; its rxe device is created when it appears.",
					 e->netdev);
			w->ifindex = 0;
			w->had_dev = false;
			w->busy = false;
			w->known = true;
			continue;
		}
		d = this_netdev(devs, n, &info);
		if (!d && w->ifindex != info.ifindex) {
			if (!w->busy)
				log_info("%s %s (ifindex %d) without an rxe device; creating %s.",
					 e->netdev, !w->known ? "is there" : w->ifindex ?
					 "was re-created" : "appeared", info.ifindex, e->name);
			w->busy = !create(m, e);
			if (w->busy) {
				m->retry = true;
				continue;	/* w->ifindex unchanged: tried again */
			}
			free(devs);
			devs = NULL;
			if (rxe_list(m->ctx, &devs, &n) < 0)
				n = 0;
			d = this_netdev(devs, n, &info);
		} else if (!d && w->had_dev) {
			log_warn("the rxe device on %s went away while %s stayed; not re-creating it "
				 "(run `rxectl up %s` to do so).", e->netdev, e->netdev, e->netdev);
		}
		w->ifindex = info.ifindex;
		w->known = true;
		if (d)
			check_gids(m, w, d);
		w->had_dev = d != NULL;
	}
	free(devs);
	config_free(&conf);
	cdi_refresh(m->ctx);	/* devices that came or went by themselves, in the CDI spec */
}

int cmd_monitor(struct rxectl *ctx, int argc, char **argv)
{
	struct monitor m = { .ctx = ctx, .config_ok = true };
	struct pollfd pfd[2] = { { .events = POLLIN }, { .events = POLLIN } };
	bool got_term = false, got_hup = false;
	sigset_t sigs;
	double due[2] = { 0, 0 }, next_periodic, next_watchdog = 0;
	uint64_t wd_usec = 0;
	struct opts o;
	int opt, fd;

	opts_init(&o, ctx, "monitor", NULL, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == OPTS_ARG)
			return rxectl_usage_error("monitor", "monitor takes no arguments, but got '%s'.",
						  o.arg);
	}
	if (ctx->json)
		return rxectl_usage_error("monitor", "monitor logs what it does; it has no JSON output.");

	fd = netdev_events_open();
	if (fd < 0)
		return log_error(RXECTL_FAIL, "cannot listen to rtnetlink notifications: %s.",
				 strerror(-fd));
	if (!ctx_netdev(ctx) || !ctx_rdma_nl(ctx)) {
		close(fd);
		return RXECTL_FAIL;
	}
	/* Signals arrive as data on a signalfd, read in the same poll() as the notifications. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[0].fd = fd;
	pfd[1].fd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (pfd[1].fd < 0) {
		close(fd);
		return log_error(RXECTL_FAIL, "cannot create a signalfd: %s.", strerror(errno));
	}
	if (sd_watchdog_enabled(0, &wd_usec) <= 0)
		wd_usec = 0;

	log_info("watching the netdevs declared in %s.", ctx->config_path);
	reconcile(&m);
	sd_notifyf(0, "READY=1\nSTATUS=watching %zu netdev(s) declared in %s", m.n, ctx->config_path);
	next_periodic = mono_sec() + PERIODIC_S;

	while (!got_term) {
		double t = mono_sec(), wake = next_periodic;
		int r, timeout;

		if (m.retry && !due[0])
			due[0] = t + RETRY_MS / 1000.0;

		if (wd_usec && t >= next_watchdog) {
			sd_notify(0, "WATCHDOG=1");
			next_watchdog = t + (double)wd_usec / 2e6;
		}
		if (wd_usec && next_watchdog < wake)
			wake = next_watchdog;
		for (int i = 0; i < 2; i++)
			if (due[i] && due[i] < wake)
				wake = due[i];
		timeout = wake > t ? (int)((wake - t) * 1000) + 1 : 0;
		r = poll(pfd, 2, timeout);
		if (r < 0 && errno != EINTR) {
			log_msg(LOG_ERR, "poll failed: %s.", strerror(errno));
			break;
		}
		t = mono_sec();
		if (r > 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;

			while (read(pfd[1].fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					got_hup = true;
				else
					got_term = true;
			}
			if (got_term)
				break;
		}
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			int got = netdev_events_drain(fd);

			if (got != 0) {
				log_debug("%d rtnetlink notification(s)", got);
				if (!due[0])
					due[0] = t + SETTLE_MS / 1000.0;
				due[1] = t + RECHECK_MS / 1000.0;
			}
		}
		if (got_hup) {
			got_hup = false;
			log_info("reloading %s.", ctx->config_path);
			due[0] = t;
		}
		if ((due[0] && t >= due[0]) || (due[1] && t >= due[1]) || t >= next_periodic) {
			if (due[0] && t >= due[0])
				due[0] = 0;
			else if (due[1] && t >= due[1])
				due[1] = 0;
			reconcile(&m);
			sd_notifyf(0, "STATUS=watching %zu netdev(s) declared in %s", m.n,
				   ctx->config_path);
			next_periodic = mono_sec() + PERIODIC_S;
		}
	}
	sd_notify(0, "STOPPING=1");
	log_info("stopping.");
	close(pfd[1].fd);
	close(fd);
	for (size_t i = 0; i < m.n; i++)
		free(m.w[i].gids);
	free(m.w);
	return RXECTL_OK;
}
