// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_mw.c - memory windows, types 1 and 2 (IBA 10.6.7): allocation, binding by work request,
 * local and remote invalidation, and the rkey lookup the responder does for every request
 * (an MW's rkey or an MR's).
 *
 * A window's key is (index << 8 | 8-bit tag) like an MR's, with indices from RXE_MW_INDEX0
 * on, so a key names a window or an MR by its index alone. A bind sets the tag from the
 * work request (the consumer's new rkey) and points the window at part of an MR that has
 * IB_ACCESS_MW_BIND; the MR then refuses deregistration (EINVAL, as stock 6.1) until every
 * window bound to it is unbound, invalidated or deallocated. Window state and the MR's count
 * of bound windows are changed and read under the dev->mrs lock, which the packet paths
 * already take to find an MR: a window never outlives that lock in their hands, and the MR
 * they use is held by its reference count as for a plain MR key.
 */

#include "rxe.h"

int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(ibmw->device);
	struct rxe_mw *mw = to_rmw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!rxe_count_get(&dev->n_mw, RXE_MAX_MW))
		return -ENOMEM;
	err = xa_alloc_cyclic(&dev->mws, &index, NULL,
			      XA_LIMIT(RXE_MW_INDEX0, RXE_MW_INDEX0 + RXE_MAX_MW - 1),
			      &dev->next_mw, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&dev->n_mw);
		return err == -EBUSY ? -ENOMEM : err;
	}
	mw->index = index;
	mw->key = ibmw->rkey = (index << 8) | (get_random_u32() & 0xff);
	/* A type 1 window is bindable from the start; a type 2 one waits for a bind WR. */
	mw->state = ibmw->type == IB_MW_TYPE_1 ? RXE_MW_VALID : RXE_MW_FREE;
	xa_store(&dev->mws, index, mw, GFP_KERNEL);
	return 0;
}

/* Drop what @mw is bound to (dev->mrs lock held); its key stays. */
static void rxe_mw_unbind(struct rxe_mw *mw)
{
	if (mw->mr)
		mw->mr->n_mw--;
	if (mw->qp)
		mw->qp->n_mw--;
	mw->mr = NULL;
	mw->qp = NULL;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
}

int rxe_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxe_dev *dev = to_rdev(ibmw->device);
	struct rxe_mw *mw = to_rmw(ibmw);

	/*
	 * Out of the windows' array first, under its own lock alone: that lock is taken with
	 * bottom halves on (xa_alloc_cyclic(), xa_store() in rxe_alloc_mw()), so taken inside the
	 * dev->mrs lock, which the softirq's rkey lookups take, it could deadlock two CPUs (this
	 * one waiting for it under dev->mrs, the other interrupted while holding it by a softirq
	 * waiting for dev->mrs: issue 36). A lookup under dev->mrs that found the window before
	 * the erase is done with it before the unbind below takes that lock.
	 */
	xa_erase(&dev->mws, mw->index);
	xa_lock_bh(&dev->mrs);
	rxe_mw_unbind(mw);
	mw->state = RXE_MW_FREE;
	xa_unlock_bh(&dev->mrs);
	atomic_dec(&dev->n_mw);
	return 0;
}

/* The window of @key (index and tag), or NULL; dev->mrs lock held. */
static struct rxe_mw *rxe_mw_find(struct rxe_dev *dev, u32 key)
{
	struct rxe_mw *mw = xa_load(&dev->mws, key >> 8);

	return mw && mw->key == key ? mw : NULL;
}

/*
 * Can @mr back a window of @pd granting @access over [addr, addr + len)? IBA C10-73 (the MR
 * was registered with MW bind access), C10-74 (a window granting remote write or atomics
 * needs an MR with local write), C10-75 (the window lies inside the MR), and the same PD.
 */
static bool rxe_mw_mr_ok(struct rxe_mr *mr, struct ib_pd *pd, int access, u64 addr, u64 len)
{
	return mr->state == RXE_MR_VALID && !mr->dma && mr->ib.pd == pd &&
	       (mr->access & IB_ACCESS_MW_BIND) &&
	       (!(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
		(mr->access & IB_ACCESS_LOCAL_WRITE)) &&
	       addr >= mr->iova && addr + len >= addr && addr + len <= mr->iova + mr->length;
}

/*
 * IB_WR_BIND_MW on @qp (run once every earlier WQE completed, as the other local operations):
 * bind the window whose current rkey is w->mw_key to [raddr, raddr + mw_len) of the MR whose
 * lkey is w->mr_key, granting w->reg_access, under a key with w->rkey's low 8 bits. A type 1
 * window may be bound again at any time (a length of 0 unbinds it); a type 2 window must be
 * free and is then usable only through @qp. Anything refused completes with
 * IB_WC_MW_BIND_ERR (the QP then goes to the error state) and changes nothing.
 */
enum ib_wc_status rxe_mw_bind(struct rxe_qp *qp, const struct rxe_swqe *w)
{
	const int remote = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
			   IB_ACCESS_REMOTE_ATOMIC;
	struct rxe_dev *dev = qp->dev;
	struct ib_pd *pd = qp->ib.pd;
	struct rxe_mr *mr = NULL;
	struct rxe_mw *mw;
	const char *why = NULL;

	/*
	 * A window grants remote access only: a local write flag some consumers pass is
	 * ignored, zero-based windows are not offered (rdma-core's provider refuses them too)
	 * and other flags are refused.
	 */
	if (w->reg_access & ~(remote | IB_ACCESS_LOCAL_WRITE))
		return IB_WC_MW_BIND_ERR;
	xa_lock_bh(&dev->mrs);
	mw = rxe_mw_find(dev, w->mw_key);
	if (!mw)
		why = "no window with this rkey";
	else if (mw->ib.pd != pd)
		why = "window of another PD than the QP's";	/* C10-72 */
	else if (mw->ib.type == IB_MW_TYPE_2 && mw->state != RXE_MW_FREE)
		why = "type 2 window not free";
	else if (mw->ib.type == IB_MW_TYPE_2 && !w->mw_len)
		why = "type 2 window bound with length 0";
	if (!why && w->mw_len) {
		mr = xa_load(&dev->mrs, w->mr_key >> 8);
		if (!mr || mr->key != w->mr_key ||
		    !rxe_mw_mr_ok(mr, pd, w->reg_access & remote, w->raddr, w->mw_len))
			why = "MR missing, not bindable, or range outside it";
	}
	if (why) {
		xa_unlock_bh(&dev->mrs);
		rxe_dbg_qp(qp, "bind of window 0x%x refused: %s\n", w->mw_key, why);
		return IB_WC_MW_BIND_ERR;
	}
	rxe_mw_unbind(mw);
	mw->key = (mw->key & ~0xffu) | (w->rkey & 0xff);
	if (w->mw_len) {
		mw->mr = mr;
		mr->n_mw++;
		mw->access = w->reg_access & remote;
		mw->addr = w->raddr;
		mw->length = w->mw_len;
	}
	if (mw->ib.type == IB_MW_TYPE_2) {
		mw->qp = qp;
		qp->n_mw++;
	}
	mw->state = RXE_MW_VALID;
	xa_unlock_bh(&dev->mrs);
	return IB_WC_SUCCESS;
}

/*
 * IB_WR_LOCAL_INV (@remote false) or a received SEND with Invalidate (@remote true) naming a
 * window's rkey: free the type 2 window of @qp's PD. Type 1 windows cannot be invalidated
 * (o10-37.2.26); a remote invalidation needs the window valid and bound to @qp, the QP the
 * SEND arrived on. Returns once no packet path that found the window still copies through it.
 */
int rxe_mw_invalidate(struct rxe_qp *qp, u32 key, bool remote)
{
	struct rxe_dev *dev = qp->dev;
	struct rxe_mr *mr = NULL;
	struct rxe_mw *mw;

	xa_lock_bh(&dev->mrs);
	mw = rxe_mw_find(dev, key);
	if (!mw || mw->ib.type != IB_MW_TYPE_2 || mw->ib.pd != qp->ib.pd ||
	    (remote && (mw->state != RXE_MW_VALID || mw->qp != qp))) {
		xa_unlock_bh(&dev->mrs);
		return -EINVAL;
	}
	if (mw->mr && rxe_mr_change_get(mw->mr))
		mr = mw->mr;
	rxe_mw_unbind(mw);
	mw->state = RXE_MW_FREE;
	xa_unlock_bh(&dev->mrs);
	if (mr) {
		rxe_mr_drain(mr);
		rxe_mr_change_put(dev, mr);
	}
	return 0;
}

/* @qp is being destroyed: the type 2 windows bound to it become free (nothing reaches them). */
void rxe_mw_qp_gone(struct rxe_qp *qp)
{
	struct rxe_dev *dev = qp->dev;
	struct rxe_mw *mw;
	unsigned long i;

	xa_lock_bh(&dev->mrs);
	if (qp->n_mw) {
		xa_for_each(&dev->mws, i, mw) {
			if (mw->qp != qp)
				continue;
			rxe_mw_unbind(mw);
			mw->state = RXE_MW_FREE;
		}
	}
	xa_unlock_bh(&dev->mrs);
}

/*
 * The MR behind @rkey, a window's or an MR's, for a request arriving on @qp that wants
 * @access to [va, va + len); a reference is taken (rxe_mr_put()). A window must be valid,
 * of @qp's PD, bound to @qp if of type 2, grant @access and hold the whole range; the MR
 * behind it must still be valid and hold it too (it is checked again at each use).
 */
struct rxe_mr *rxe_rkey_get(struct rxe_qp *qp, u32 rkey, int access, u64 va, u64 len)
{
	struct rxe_dev *dev = qp->dev;
	struct rxe_mr *mr = NULL;
	struct rxe_mw *mw;

	if (!rxe_key_is_mw(rkey))
		return rxe_mr_get(dev, qp->ib.pd, rkey, true, access, va, len);
	xa_lock_bh(&dev->mrs);
	mw = rxe_mw_find(dev, rkey);
	if (mw && mw->state == RXE_MW_VALID && mw->mr && mw->ib.pd == qp->ib.pd &&
	    (mw->ib.type == IB_MW_TYPE_1 || mw->qp == qp) &&
	    (mw->access & access) == access && va >= mw->addr && va + len >= va &&
	    va + len <= mw->addr + mw->length) {
		mr = mw->mr;
		if (mr->state != RXE_MR_VALID || va < mr->iova ||
		    va + len > mr->iova + mr->length || !refcount_inc_not_zero(&mr->ref))
			mr = NULL;
	}
	xa_unlock_bh(&dev->mrs);
	return mr;
}
