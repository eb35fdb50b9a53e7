/* SPDX-License-Identifier: GPL-2.0 */
/* doctor_checks.h - what the doctor's check files share: the run's state, one target, and each area's checks. */
#ifndef RXECTL_DOCTOR_CHECKS_H
#define RXECTL_DOCTOR_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/utsname.h>

#include "config.h"
#include "doctor.h"
#include "netdev.h"
#include "rxe.h"

struct doctor {
	struct rxectl *ctx;
	struct checklist l;
	struct utsname uts;
	bool rdma;			/* RDMA netlink is open (ctx_rdma_nl_try() succeeded) */
	bool rdma_unloaded;		/* ib_core is a module not loaded yet: no device can exist */
	const char *no_rdma_why;	/* why not, for the skips */
	struct rxe_dev *devs;
	size_t n_devs;
	struct netdev_ctx *nd;
	const char *container;		/* in a container (doctor_container.c): its runtime */
	enum rxe_driver_choice driver;	/* rxe.conf's `driver =` (auto when not read): what `up` loads */
};

struct target {
	char netdev[IF_NAMESIZE];	/* "" for a device whose netdev is gone */
	const struct rxe_dev *dev;	/* NULL when the netdev has none */
	char label[RXE_IBDEV_NAME_MAX];	/* what the user named, for messages */
};

#define ADD(d, id, st, target, fix, ...) check_add(&(d)->l, id, st, target, fix, __VA_ARGS__)

/* doctor_system.c: the kernel, one RDMA module, module signatures, rdma-core's rxe provider, the
 * RDMA netns mode. */
void doctor_check_kernel(struct doctor *d);
void doctor_check_module(struct doctor *d, const char *name);
/* driver.signature: does the kernel enforce module signatures, and will it load the bundled rdma_rxe. */
void doctor_check_signature(struct doctor *d);
void doctor_check_provider(struct doctor *d);
void doctor_check_netns(struct doctor *d);
/* doctor_target.c: one netdev and its device (netdev.*, device.present, port.active,
 * devnode.uverbs, gid.rocev2, counters.errors, mtu.active). */
void doctor_check_target(struct doctor *d, const struct target *t);
/* doctor_firewall.c: firewall.udp4791. */
void doctor_check_firewall(struct doctor *d);
/* doctor_memlock.c: memlock. */
void doctor_check_memlock(struct doctor *d);
/* doctor_container.c: the runtime a container of ours runs under ("podman", "docker", ...),
 * `how` says what showed it; NULL when not in a container. */
const char *doctor_container_detect(char *how, size_t len);
/* In a container, instead of the host's checks after kernel.rdma: provider.rxe, netns.mode,
 * device.present, devnode.uverbs, devnode.rdma_cm, netns.gid, memlock.limit. */
void doctor_check_container(struct doctor *d, char **args, int n_args);

#endif
