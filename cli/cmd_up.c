// SPDX-License-Identifier: GPL-2.0
/* cmd_up.c - `rxectl up [NETDEV]`: create the rxe device (idempotently) and wait until it is usable. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "kmod.h"
#include "lock.h"
#include "log.h"
#include "names.h"
#include "output.h"
#include "rxe.h"

#define UP_DEFAULT_WAIT 10	/* seconds; documented in rxectl(8) */
#define UP_POLL_MS 100

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
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
static int wait_ready(struct rxectl *ctx, const char *name, const char *netdev, int wait, bool created)
{
	double deadline = now() + wait;
	char why[512] = "it has not appeared yet";
	struct rxe_details det;
	struct rxe_dev d;
	int err;

	rxe_unlock(ctx);	/* taken in up_one(); creating is done, waiting needs no lock */
	for (;;) {
		err = refresh(ctx, name, &d);
		if (err < 0 && err != -ENOENT)
			return RXECTL_FAIL;
		if (err == 0) {
			bool ok;

			rxe_describe(ctx, &d, &det);
			ok = rxe_ready(&d, &det, why, sizeof(why));
			if (ok || wait == 0 || now() >= deadline) {
				rxe_print_summary(ctx, &d, &det, created);
				rxe_details_free(&det);
				if (ok || wait == 0)
					return RXECTL_OK;
				break;
			}
			rxe_details_free(&det);
		} else if (now() >= deadline) {
			break;
		}
		sleep_ms(UP_POLL_MS);
	}
	return log_error(RXECTL_FAIL, "%s on %s is not ready after %d s: %s.", name, netdev, wait, why);
}

/* Bring up one netdev: the whole of `rxectl up NETDEV`. */
static int up_one(struct rxectl *ctx, const char *netdev, const char *name, int wait)
{
	struct netdev_ctx *nd;
	struct netdev_info info;
	struct rxe_dev *devs = NULL;
	const struct rxe_dev *have;
	char what[160];
	size_t n = 0;
	int err;

	nd = ctx_netdev(ctx);
	if (!nd)
		return RXECTL_FAIL;
	err = netdev_get_by_name(nd, netdev, &info);
	if (err == -ENODEV)
		return log_error(RXECTL_FAIL, "netdev %s does not exist; check the name with "
				 "`ip link`.", netdev);
	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot look up netdev %s: %s.", netdev, strerror(-err));

	if (modules_load_rxe() < 0)
		return RXECTL_FAIL;
	if (!ctx_rdma_nl(ctx))
		return RXECTL_FAIL;
	/* From "is there a device?" to "created" under the lock shared with the
	 * units and the monitor (lock.h); wait_ready() releases it. */
	if (rxe_lock(ctx) < 0)
		return RXECTL_FAIL;
	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;

	have = rxe_find_by_netdev(devs, n, netdev);
	if (have) {
		char existing[RXE_IBDEV_NAME_MAX];

		snprintf(existing, sizeof(existing), "%s", have->name);
		free(devs);
		if (strcmp(existing, name))
			log_warn("%s already has the rxe device %s, so %s was not created; "
				 "run `rxectl down %s` first to rename it.", netdev, existing, name, existing);
		log_debug("%s already sits on %s", existing, netdev);
		return wait_ready(ctx, existing, netdev, wait, false);
	}
	have = rxe_find_by_name(devs, n, name);
	if (have) {
		err = log_error(RXECTL_FAIL, "the device name %s is already used by the rxe device on "
				"%s; choose another with --name or `name =` in rxe.conf.", name,
				have->netdev[0] ? have->netdev : "a netdev that is gone");
		free(devs);
		return err;
	}
	free(devs);
	if (name_taken(ctx, name) == 1)
		return log_error(RXECTL_FAIL, "the device name %s is already used by another RDMA "
				 "device; choose another with --name or `name =` in rxe.conf.", name);

	log_debug("creating %s on %s", name, netdev);
	err = rdma_nl_newlink(ctx_rdma_nl(ctx), name, "rxe", netdev);
	if (err == -EEXIST) {
		/* Someone else created it meanwhile: report whatever sits there now. */
		if (rxe_list(ctx, &devs, &n) == 0 && (have = rxe_find_by_netdev(devs, n, netdev))) {
			char existing[RXE_IBDEV_NAME_MAX];

			snprintf(existing, sizeof(existing), "%s", have->name);
			free(devs);
			return wait_ready(ctx, existing, netdev, wait, false);
		}
		free(devs);
	}
	if (err == -ENFILE)
		return log_error(RXECTL_FAIL, "the device name %s is already used by another RDMA "
				 "device; choose another with --name or `name =` in rxe.conf.", name);
	if (err == -ENODEV)
		return log_error(RXECTL_FAIL, "netdev %s does not exist (it went away); check the "
				 "name with `ip link`.", netdev);
	if (err < 0) {
		snprintf(what, sizeof(what), "creating %s on %s", name, netdev);
		return rxe_report_nl_error(ctx, err, what);
	}
	return wait_ready(ctx, name, netdev, wait, true);
}

static int parse_wait(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 3600)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int cmd_up(struct rxectl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'w' },
		{ "json", no_argument,       NULL, 'j' },
		{ "help", no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netdev = NULL, *name = NULL, *why;
	char defname[RXE_IBDEV_NAME_MAX];
	struct rxe_conf conf;
	int opt, wait = UP_DEFAULT_WAIT, ret = RXECTL_OK;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "n:w:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			name = optarg;
			break;
		case 'w':
			if (parse_wait(optarg, &wait) < 0)
				return rxectl_usage_error("up", "--wait needs a whole number of seconds "
							  "from 0 to 3600, not '%s'.", optarg);
			break;
		case 'j':
			ctx_set_json(ctx);
			break;
		case 'h':
			rxectl_command_usage("up", true);
			return RXECTL_OK;
		default:
			if (optopt == 'n' || optopt == 'w')
				return rxectl_usage_error("up", "option %s needs a value.",
							  argv[optind - 1]);
			return rxectl_usage_error("up", "unknown option '%s' for up.", argv[optind - 1]);
		}
	}
	if (optind < argc)
		netdev = argv[optind++];
	if (optind < argc)
		return rxectl_usage_error("up", "up takes at most one NETDEV, but also got '%s'.",
					  argv[optind]);
	if (name && !netdev)
		return rxectl_usage_error("up", "--name needs a NETDEV: names for every configured "
					  "netdev come from `name =` in the config file.");
	if (netdev && (why = netdev_name_invalid(netdev)))
		return log_error(RXECTL_USAGE, "netdev name '%s' %s.", netdev, why);
	if (name && (why = ibdev_name_invalid(name)))
		return log_error(RXECTL_USAGE, "device name '%s' %s.", name, why);

	/* The whole file is checked before anything changes. */
	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;

	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "devices");
	if (netdev) {
		const struct rxe_conf_entry *e = config_find_netdev(&conf, netdev);

		if (!name && e) {
			name = e->name;
		} else if (!name) {
			if (default_ibdev_name(netdev, defname, sizeof(defname)) < 0 ||
			    (why = ibdev_name_invalid(defname))) {
				config_free(&conf);
				return log_error(RXECTL_USAGE, "the default device name rxe_%s is not "
						 "a valid RDMA device name; choose one with --name.",
						 netdev);
			}
			name = defname;
		}
		ret = up_one(ctx, netdev, name, wait);
	} else if (!conf.path) {
		ret = log_error(RXECTL_USAGE, "no NETDEV given and %s does not exist; name a netdev "
				"(`rxectl up eth0`) or declare netdevs in that file (see rxe.conf(5)).",
				ctx->config_path);
	} else if (conf.n == 0) {
		log_info("%s declares no netdevs; nothing to bring up.", conf.path);
	} else {
		for (size_t i = 0; i < conf.n; i++) {
			int r = up_one(ctx, conf.entries[i].netdev, conf.entries[i].name, wait);

			rxe_unlock(ctx);	/* if up_one() failed while holding it */

			if (r > ret)
				ret = r;
		}
	}
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	config_free(&conf);
	return ret;
}
