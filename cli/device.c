// SPDX-License-Identifier: GPL-2.0
/* device.c - create and delete rxe devices (rxe_up, rxe_down): the one owner of the creation lock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config_apply.h"
#include "holders.h"
#include "kmod.h"
#include "lock.h"
#include "log.h"
#include "output.h"
#include "cdi.h"
#include "rxe.h"
#include "unit_state.h"
#include "util.h"

#define UP_POLL_MS	100
#define STALE_WAIT_S	10	/* for the device of a netdev that went away to be unregistered */

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Is the netdev we started with (`netdev` with `ifindex`) gone: deleted, or
 * deleted and re-created (another ifindex), or renamed away?
 */
static bool netdev_went_away(struct rxectl *ctx, const char *netdev, int ifindex)
{
	struct netdev_info info;
	int err = netdev_get_by_name(ctx_netdev(ctx), netdev, &info);

	return err == -ENODEV || (err == 0 && info.ifindex != ifindex);
}

/*
 * The netdev-gone race: a normal event (NIC churn), said at warning level
 * so the journal of rxe@.service holds no error for it; RXECTL_GONE.
 */
static int gone(const char *netdev, const char *when)
{
	log_warn("netdev %s went away %s; nothing to do (its rxe device is created when it "
		 "appears again).", netdev, when);
	return RXECTL_GONE;
}

/* Is `name` taken by any RDMA device (rxe or not)?  0 no, 1 yes, <0 error. */
static int name_taken(struct rxectl *ctx, const char *name)
{
	struct rdma_dev_info *all = NULL;
	size_t n = 0;
	int taken = 0, err = rdma_nl_list_devs(ctx_rdma_nl(ctx), &all, &n);

	if (err < 0)
		return err;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].name, name))
			taken = 1;
	free(all);
	return taken;
}

/* Find the device called `name` afresh; 0, -ENOENT, or error (printed). */
static int refresh(struct rxectl *ctx, const char *name, struct rxe_dev *out)
{
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d;
	size_t n = 0;
	int err = rxe_list(ctx, &devs, &n);

	if (err < 0)
		return err;
	d = rxe_find_by_name(devs, n, name);
	if (d)
		*out = *d;
	free(devs);
	return d ? 0 : -ENOENT;
}

/* Wait until ready or `wait` seconds pass; prints the summary, returns an exit code. */
static int wait_ready(struct rxectl *ctx, const char *name, const char *netdev, int ifindex,
		      int wait, bool created)
{
	double deadline = mono_sec() + wait;
	char why[512] = "it has not appeared yet";
	struct rxe_details det;
	struct rxe_dev d;
	int err;

	for (;;) {
		err = refresh(ctx, name, &d);
		if (err < 0 && err != -ENOENT)
			return RXECTL_FAIL;
		if (err == 0) {
			bool ok;

			rxe_describe(ctx, &d, &det);
			ok = rxe_ready(&d, &det, why, sizeof(why));
			if (ok || wait == 0 || mono_sec() >= deadline) {
				rxe_print_summary(ctx, &d, &det, created);
				rxe_details_free(&det);
				if (ok || wait == 0)
					return RXECTL_OK;
				break;
			}
			rxe_details_free(&det);
		} else if (netdev_went_away(ctx, netdev, ifindex)) {
			/* the device dies with its netdev */
			return gone(netdev, created ? "right after its rxe device was created" :
				    "while waiting for its rxe device");
		} else if (mono_sec() >= deadline) {
			break;
		}
		sleep_ms(UP_POLL_MS);
	}
	if (netdev_went_away(ctx, netdev, ifindex))
		return gone(netdev, "while waiting for its rxe device to become ready");
	return log_error(RXECTL_FAIL, "%s on %s is not ready after %d s: %s.", name, netdev, wait, why);
}

/*
 * A device that belongs to an earlier netdev of this name (deleted, and
 * re-created since), or to none any more, is being unregistered by the
 * kernel (asynchronously): it is not the device of this netdev.
 */
static bool stale(const struct rxe_dev *d, const char *netdev, int ifindex)
{
	return !d->netdev[0] || (!strcmp(d->netdev, netdev) && (int)d->ndev_index != ifindex);
}

/*
 * The part of rxe_up() under the lock: find the device of this netdev or
 * create it.  Its name goes to `existing`; returns -1 (it was there), -2
 * (created), or an exit code (message printed).
 */
static int create_locked(struct rxectl *ctx, const char *netdev, int ifindex, const char *name,
			 char *existing, size_t existing_len)
{
	double stale_until = mono_sec() + STALE_WAIT_S;
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *have, *named;
	char what[160];
	size_t n = 0;
	int err;

	for (;;) {
		if (rxe_list(ctx, &devs, &n) < 0)
			return RXECTL_FAIL;
		have = rxe_find_by_netdev(devs, n, netdev);
		named = rxe_find_by_name(devs, n, name);
		if (!(have && stale(have, netdev, ifindex)) && !(named && stale(named, netdev, ifindex)))
			break;
		if (mono_sec() >= stale_until)
			break;
		free(devs);
		devs = NULL;
		log_debug("waiting for the kernel to remove the rxe device of the old %s", netdev);
		sleep_ms(UP_POLL_MS);
	}
	if (have && !stale(have, netdev, ifindex)) {
		snprintf(existing, existing_len, "%s", have->name);
		free(devs);
		if (strcmp(existing, name))
			log_warn("%s already has the rxe device %s, so %s was not created; "
				 "run `rxectl down %s` first to rename it.", netdev, existing, name, existing);
		log_debug("%s already sits on %s", existing, netdev);
		return -1;
	}
	if (named && (int)named->ndev_index == ifindex && strcmp(named->netdev, netdev)) {
		/* Our name sits on our netdev, which has just been renamed away from `netdev`. */
		snprintf(what, sizeof(what), "(renamed to %s) while its rxe device was being looked up",
			 named->netdev);
		free(devs);
		return gone(netdev, what);
	}
	if (named) {
		err = log_error(RXECTL_FAIL, "the device name %s is already used by the rxe device on "
				"%s; choose another with --name or `name =` in rxe.conf.", name,
				named->netdev[0] ? named->netdev : "a netdev that is gone");
		free(devs);
		return err;
	}
	free(devs);
	if (name_taken(ctx, name) == 1)
		return log_error(RXECTL_FAIL, "the device name %s is already used by another RDMA "
				 "device; choose another with --name or `name =` in rxe.conf.", name);

	log_debug("creating %s on %s", name, netdev);
	err = rdma_nl_newlink(ctx_rdma_nl(ctx), name, "rxe", netdev);
	if (err == 0) {
		snprintf(existing, existing_len, "%s", name);
		return -2;
	}
	/* Whatever the kernel said: if our netdev is gone, that was the reason. */
	if (netdev_went_away(ctx, netdev, ifindex))
		return gone(netdev, "while its rxe device was being created");
	if (err == -EEXIST) {
		/* Someone else created it meanwhile: report whatever sits there now. */
		if (rxe_list(ctx, &devs, &n) == 0 && (have = rxe_find_by_netdev(devs, n, netdev))) {
			snprintf(existing, existing_len, "%s", have->name);
			free(devs);
			return -1;
		}
		free(devs);
	}
	if (err == -ENFILE)
		return log_error(RXECTL_FAIL, "the device name %s is already used by another RDMA "
				 "device; choose another with --name or `name =` in rxe.conf.", name);
	snprintf(what, sizeof(what), "creating %s on %s", name, netdev);
	return rxe_report_nl_error(ctx, err, what);
}

/*
 * The kernel refuses an rxe device on a VLAN device (stock rxe with EPERM, which would read as
 * a missing capability): it goes on the real device, and the RDMA core gives it a GID for each
 * address of the VLAN device, whose packets are then sent tagged.
 */
static int vlan_refused(const struct netdev_info *vlan)
{
	const char *real = vlan->link[0] ? vlan->link : "its real device";

	return log_error(RXECTL_USAGE, "%s is a VLAN device, and an rxe device cannot sit on one: "
			 "put it on %s (`rxectl up %s`, or a [%s] section in rxe.conf); its GIDs "
			 "then include %s's addresses, sent tagged on the VLAN.", vlan->name,
			 real, real, real, vlan->name);
}

int rxe_up(struct rxectl *ctx, const char *netdev, const char *name, int wait)
{
	char existing[RXE_IBDEV_NAME_MAX] = "";
	struct netdev_ctx *nd;
	struct netdev_info info;
	bool mine;
	int err;

	nd = ctx_netdev(ctx);
	if (!nd)
		return RXECTL_FAIL;
	err = netdev_get_by_name(nd, netdev, &info);
	if (err == 0 || err == -ENODEV)
		unit_state_record(netdev, err ? 0 : info.ifindex);	/* for this unit's stop */
	if (err == -ENODEV) {
		log_warn("netdev %s does not exist; check the name with `ip link`.", netdev);
		return RXECTL_GONE;
	}
	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot look up netdev %s: %s.", netdev, strerror(-err));
	if (!strcmp(info.kind, "vlan"))
		return vlan_refused(&info);

	if (config_apply_up(ctx, netdev, &info) != RXECTL_OK)
		return RXECTL_FAIL;
	if (!ctx_rdma_nl(ctx))
		return RXECTL_FAIL;
	/* From "is there a device?" to "created" under the lock shared with the units and the
	 * monitor (lock.h).  A caller that holds it already (the monitor) keeps it. */
	mine = !ctx->locked;
	if (rxe_lock(ctx) < 0)
		return RXECTL_FAIL;
	err = create_locked(ctx, netdev, info.ifindex, name, existing, sizeof(existing));
	if (err < 0)
		cdi_refresh(ctx);	/* the CDI spec for containers (cdi.h), still under the lock */
	if (mine)
		rxe_unlock(ctx);	/* creating is done; waiting needs no lock */
	if (err >= 0)
		return err;
	return wait_ready(ctx, existing, netdev, info.ifindex, wait, err == -2);
}

/* Is device `d` (same index and name) still listed? */
static bool still_there(struct rxectl *ctx, const struct rxe_dev *d)
{
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *now_;
	size_t n = 0;
	bool there;

	if (rxe_list(ctx, &devs, &n) < 0)
		return true;
	now_ = rxe_find_by_name(devs, n, d->name);
	there = now_ && now_->index == d->index;
	free(devs);
	return there;
}

static int remove_one(struct rxectl *ctx, const struct rxe_dev *d)
{
	char what[128], who[256];
	int err, n;

	/* rdma_rxe cannot take a device away from the processes using it (no disassociate): the
	 * kernel's delete waits until every one of them has closed it.  Say who, before waiting. */
	n = holders_of(d->name, who, sizeof(who), 6);
	if (n > 0)
		log_warn("%s is open by %d process%s: %s. The kernel deletes an RDMA device only "
			 "after every process using it has closed it, so this waits until %s: stop "
			 "%s to let it finish.", d->name, n, n > 1 ? "es" : "", who,
			 n > 1 ? "they exit" : "it exits", n > 1 ? "them" : "it");
	err = rdma_nl_dellink(ctx_rdma_nl(ctx), d->index);

	if (err == -ENODEV || err == -ENOENT)
		err = 0;	/* went away by itself meanwhile (with its netdev) */
	if (err < 0 && !still_there(ctx, d))
		err = 0;	/* the kernel was removing it already (it says EINVAL then) */
	if (err < 0) {
		snprintf(what, sizeof(what), "deleting %s", d->name);
		return rxe_report_nl_error(ctx, err, what);
	}
	log_debug("deleted %s (index %u)", d->name, d->index);
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "name", "removed %s", d->name);
	if (d->netdev[0])
		out_str(ctx->out, "netdev", " from %s", d->netdev);
	else
		out_null(ctx->out, "netdev", NULL);
	out_text(ctx->out, ".\n");
	out_obj_end(ctx->out);
	return RXECTL_OK;
}

int rxe_down(struct rxectl *ctx, const char *target)
{
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *d;
	bool spared = false;
	size_t n = 0;
	int ret = RXECTL_OK, recorded;

	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;
	if (!target) {
		for (size_t i = 0; i < n; i++)
			ret = rxe_worse(ret, remove_one(ctx, &devs[i]));
		if (n == 0)
			out_text(ctx->out, "no rxe devices to remove.\n");
	} else {
		d = rxe_find_by_name(devs, n, target);
		if (!d && (d = rxe_find_by_netdev(devs, n, target)) &&
		    (recorded = unit_state_ifindex(target)) >= 0 && (int)d->ndev_index != recorded) {
			/* the stop of a unit started for an earlier netdev of this name */
			if (recorded)
				log_info("%s sits on a later %s (ifindex %u) than the one this unit "
					 "was started for (ifindex %d); leaving it.", d->name, target,
					 d->ndev_index, recorded);
			else
				log_info("%s sits on a %s that appeared after this unit was started "
					 "(ifindex %u); leaving it.", d->name, target, d->ndev_index);
			d = NULL;
			spared = true;
		}
		unit_state_forget();
		if (d)
			ret = remove_one(ctx, d);
		else if (spared)
			out_text(ctx->out, "the rxe device on %s belongs to a later netdev of that name; "
				 "nothing to remove.\n", target);
		else
			out_text(ctx->out, "no rxe device is named %s or sits on it; nothing to remove.\n",
				 target);
	}
	cdi_refresh(ctx);	/* the CDI spec for containers (cdi.h) */
	free(devs);
	return ret;
}

int rxe_worse(int a, int b)
{
	/* a real failure outranks a netdev that went away, which outranks success */
	static const int rank[] = { [RXECTL_OK] = 0, [RXECTL_GONE] = 1, [RXECTL_FAIL] = 2,
				    [RXECTL_USAGE] = 3 };

	return rank[b] > rank[a] ? b : a;
}
