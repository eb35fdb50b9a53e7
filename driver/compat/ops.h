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

#ifdef RXE_HAVE_RESIZE_USER_CQ
/* 7.x: only user CQs are resized (ib_resize_cq is gone), under a new name. */
static int rxe_compat_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe, struct ib_udata *udata)
{
	return cqe > INT_MAX ? -EINVAL : rxe_resize_cq(ibcq, cqe, udata);
}
#define RXE_OP_RESIZE_CQ .resize_user_cq = rxe_compat_resize_user_cq
#else
#define RXE_OP_RESIZE_CQ .resize_cq = rxe_resize_cq
#endif

#endif /* RXE_COMPAT_OPS_H */
