/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ops.h - ib_device_ops entries whose signature differs between kernels (see compat.h for the
 * RXE_HAVE_* probes): the driver implements the 6.1 signature, these adapt it. Included by
 * rxe_main.c after rxe.h.
 */
#ifndef RXE_COMPAT_OPS_H
#define RXE_COMPAT_OPS_H

#include <rdma/uverbs_ioctl.h>

#ifdef RXE_HAVE_CQ_ATTRS
/* Kernel users (ib_alloc_cq) pass no bundle: no udata, a kernel CQ. */
static int rxe_compat_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
				struct uverbs_attr_bundle *attrs)
{
	return rxe_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define rxe_compat_create_cq rxe_create_cq
#endif

#ifdef RXE_HAVE_MR_DMAH
/* DMA handles (TPH steering hints) mean nothing to a software device. */
static struct ib_mr *rxe_compat_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 iova,
					    int access, struct ib_dmah *dmah,
					    struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return rxe_reg_user_mr(pd, start, length, iova, access, udata);
}
#else
#define rxe_compat_reg_user_mr rxe_reg_user_mr
#endif

#endif /* RXE_COMPAT_OPS_H */
