// SPDX-License-Identifier: GPL-2.0
/* doctor_checks.c - `rxectl doctor`'s run: which netdevs and devices to check, every check in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_checks.h"
#include "names.h"

/* --- targets and the run --------------------------------------------------------------- */

static void add_target(struct target **v, size_t *n, const char *netdev,
		       const struct rxe_dev *dev, const char *label)
{
	struct target *t;

	for (size_t i = 0; i < *n; i++)
		if ((netdev[0] && !strcmp((*v)[i].netdev, netdev)) ||
		    (!netdev[0] && dev && (*v)[i].dev == dev))
			return;
	t = realloc(*v, (*n + 1) * sizeof(*t));
	if (!t)
		return;
	*v = t;
	t = &t[(*n)++];
	memset(t, 0, sizeof(*t));
	snprintf(t->netdev, sizeof(t->netdev), "%s", netdev);
	t->dev = dev;
	snprintf(t->label, sizeof(t->label), "%s", label);
}

int doctor_run(struct rxectl *ctx, char **args, int n_args)
{
	return doctor_run_in(ctx, args, n_args, DOCTOR_AUTO);
}

int doctor_run_in(struct rxectl *ctx, char **args, int n_args, enum doctor_where where)
{
	char how[64] = "";
	struct doctor d = { .ctx = ctx };
	struct target *tv = NULL;
	size_t nt = 0;
	struct rxe_conf conf = { 0 };
	int ret;

	/* Names first: a bad one is a usage error before anything is looked at. */
	for (int i = 0; i < n_args; i++)
		if (netdev_name_invalid(args[i]) && ibdev_name_invalid(args[i]))
			return rxectl_usage_error("doctor", "'%s' is neither a valid netdev name nor a "
						  "valid RDMA device name.", args[i]);
	if (where != DOCTOR_HOST)
		d.container = doctor_container_detect(how, sizeof(how));
	if (where == DOCTOR_CONTAINER && !d.container)
		d.container = "unknown", snprintf(how, sizeof(how), "doctor --container");
	if (n_args == 0) {	/* a malformed file is bad input anywhere (its netdevs are not used in a container) */
		ret = ctx_load_config(ctx, &conf);
		if (ret != RXECTL_OK)
			return ret;
		d.driver = conf.driver;
	}

	uname(&d.uts);
	if (netdev_open(&d.nd) < 0)
		d.nd = NULL;
	if (d.container)
		ADD(&d, "container", CHECK_PASS, NULL, NULL, "running in a container (%s, from %s): "
		    "checking what a workload here needs; `rxectl doctor --host` checks as on a "
		    "host.", d.container, how);
	doctor_check_kernel(&d);
	if (d.container) {
		if (d.rdma && rxe_list(ctx, &d.devs, &d.n_devs) < 0) {
			d.devs = NULL;
			d.n_devs = 0;
		}
		doctor_check_container(&d, args, n_args);
		goto print;	/* rxe.conf's netdevs are the host's business */
	}
	doctor_check_module(&d, "ib_core");
	doctor_check_module(&d, "ib_uverbs");
	doctor_check_module(&d, "rdma_rxe");
	doctor_check_signature(&d);
	doctor_check_provider(&d);
	doctor_check_netns(&d);
	if (d.rdma && rxe_list(ctx, &d.devs, &d.n_devs) < 0) {
		d.devs = NULL;
		d.n_devs = 0;
	}

	if (n_args) {
		for (int i = 0; i < n_args; i++) {
			const struct rxe_dev *dev = rxe_find_by_name(d.devs, d.n_devs, args[i]);

			if (dev)
				add_target(&tv, &nt, dev->netdev, dev, args[i]);
			else
				add_target(&tv, &nt, args[i],
					   rxe_find_by_netdev(d.devs, d.n_devs, args[i]), args[i]);
		}
	} else {
		for (size_t i = 0; i < conf.n; i++)
			add_target(&tv, &nt, conf.entries[i].netdev,
				   rxe_find_by_netdev(d.devs, d.n_devs, conf.entries[i].netdev),
				   conf.entries[i].netdev);
		for (size_t i = 0; i < d.n_devs; i++)
			add_target(&tv, &nt, d.devs[i].netdev, &d.devs[i], d.devs[i].name);
	}
	for (size_t i = 0; i < nt; i++)
		doctor_check_target(&d, &tv[i]);
	if (nt == 0) {
		if (d.rdma || d.rdma_unloaded) {
			ADD(&d, "device.present", CHECK_FAIL, NULL, NULL,
			    "there is no rxe device, and %s declares none.", ctx->config_path);
			check_fix(&d.l, "create one with `rxectl up NETDEV`, or declare it in %s and "
				  "run `rxectl up`.", ctx->config_path);
		} else {
			ADD(&d, "device.present", CHECK_SKIP, NULL, NULL, "skipped: %s.", d.no_rdma_why);
		}
	}
	doctor_check_firewall(&d);
	doctor_check_memlock(&d);
print:
	checklist_print(ctx, &d.l);
	ret = checklist_result(&d.l) == CHECK_FAIL ? RXECTL_FAIL : RXECTL_OK;
	checklist_free(&d.l);
	free(tv);
	free(d.devs);
	config_free(&conf);
	netdev_close(d.nd);
	return ret;
}
