/* SPDX-License-Identifier: GPL-2.0 */
/* diag.h - what `gid` and `test` share: picking the one RDMA device a command is about. */
#ifndef RXECTL_DIAG_H
#define RXECTL_DIAG_H

#include "rxe.h"

/*
 * The device `cmd` works on: DEVICE by name (an rxe device or any other RDMA
 * device, such as a hardware RoCE NIC), or the rxe device on netdev DEVICE,
 * or, when arg is NULL, the only rxe device there is.  Fills *out (port 1 of
 * a non-rxe device).  Returns RXECTL_OK, or RXECTL_FAIL / RXECTL_USAGE after
 * printing the sentence that says why.
 */
int diag_pick_device(struct rxectl *ctx, const char *cmd, const char *arg, struct rxe_dev *out);

/* The uverbs character device of an RDMA device, from sysfs ("uverbs0"); false if none. */
bool diag_find_uverbs(const char *ibdev, char *name, size_t len);

/*
 * The GID table of port dev->port from sysfs, appended to p->gids (free with
 * verbs_port_free()): for when libibverbs cannot open the device (no provider,
 * no access to its uverbs node), since reading sysfs needs no privilege.
 * Empty slots are skipped.  0 or -ENOMEM.
 */
int diag_sysfs_gids(const struct rxe_dev *dev, struct verbs_port *p);

/*
 * rxe_describe() with the GID table from sysfs when libibverbs cannot open the device, and the
 * recommended GID index computed from it: what `gid` and `env` show.  RXECTL_OK (free *det with
 * rxe_details_free()), or RXECTL_FAIL after saying why no GID table can be read.
 */
int diag_describe(struct rxectl *ctx, const struct rxe_dev *d, struct rxe_details *det);

#endif
