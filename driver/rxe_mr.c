// SPDX-License-Identifier: GPL-2.0
/* rxe_mr.c - memory regions: registration, key lookup with access checks, copying to and from. */

#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include "rxe.h"

/*
 * Keys are (index << 8 | 8-bit tag); the tag changes with each use of an index, and a
 * fast-register MR's consumer changes it again for each registration.
 */
static int rxe_mr_add(struct rxe_dev *dev, struct rxe_mr *mr)
{
	u32 index;
	int err;

	err = xa_alloc_cyclic_bh(&dev->mrs, &index, NULL, XA_LIMIT(1, RXE_MAX_MR),
			      &dev->next_mr, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;	/* RXE_MAX_MR in use */
	mr->index = index;
	mr->dev = dev;
	mr->ib.lkey = mr->ib.rkey = (index << 8) | (get_random_u32() & 0xff);
	mr->key = mr->ib.lkey;
	mr->state = mr->frmr ? RXE_MR_FREE : RXE_MR_VALID;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);
	/* Publish only when fully set up. */
	xa_store_bh(&dev->mrs, index, mr, GFP_KERNEL);
	return 0;
}

struct ib_mr *rxe_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rxe_dev *dev = to_rdev(pd->device);
	struct rxe_mr *mr;
	int err;

	/* A DMA MR covers all memory: it is for local use only, never through an rkey. */
	if (access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dma = true;
	mr->access = access;
	mr->length = U64_MAX;
	err = rxe_mr_add(dev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ib;
}

struct ib_mr *rxe_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 iova, int access,
			      struct ib_udata *udata)
{
	struct rxe_dev *dev = to_rdev(pd->device);
	struct sg_page_iter iter;
	struct rxe_mr *mr;
	unsigned long i = 0;
	int err;

	if (!length || length > RXE_MAX_MSG * 16ULL || iova + length < iova)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = rxe_umem_get(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL_ACCOUNT | __GFP_NORETRY);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (i >= mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (i != mr->npages) {
		err = -EFAULT;
		goto err_pages;
	}
	mr->page_off = ib_umem_offset(mr->umem);
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	err = rxe_mr_add(dev, mr);
	if (err)
		goto err_pages;
	return &mr->ib;

err_pages:
	kvfree(mr->pages);
err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	/*
	 * As stock 6.1 (IBA 10.6.7.2.6): an MR with memory windows bound to it stays; EINVAL.
	 * Checked and erased under the one lock binds take: no window binds to it after this.
	 */
	xa_lock_bh(&mr->dev->mrs);
	if (mr->n_mw) {
		xa_unlock_bh(&mr->dev->mrs);
		return -EINVAL;
	}
	__xa_erase(&mr->dev->mrs, mr->index);
	xa_unlock_bh(&mr->dev->mrs);
	/* Wait for the packet paths to stop using it. */
	rxe_mr_put(mr);
	wait_for_completion(&mr->done);
	if (mr->umem) {
		kvfree(mr->pages);
		ib_umem_release(mr->umem);
	}
	kvfree(mr->fpages);
	kvfree(mr->fmap);
	/* a lookup that found it before the erase may still try its reference: RCU */
	kfree_rcu(mr, rcu);
	return 0;
}

/* ---- fast-register MRs (memory management extensions: allocate, register, invalidate) ---- */

struct ib_mr *rxe_alloc_mr(struct ib_pd *pd, enum ib_mr_type type, u32 max_num_sg)
{
	struct rxe_dev *dev = to_rdev(pd->device);
	struct rxe_mr *mr;
	int err = -ENOMEM;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg || max_num_sg > RXE_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fpages = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL_ACCOUNT);
	mr->fmap = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!mr->fpages || !mr->fmap)
		goto err_free;
	mr->fmax = max_num_sg;
	mr->frmr = true;
	err = rxe_mr_add(dev, mr);	/* free (IBA: allocated L_Key, no memory) */
	if (err)
		goto err_free;
	return &mr->ib;

err_free:
	kvfree(mr->fpages);
	kvfree(mr->fmap);
	kfree(mr);
	return ERR_PTR(err);
}

static int rxe_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	if (mr->nmap >= mr->fmax)
		return -ENOMEM;
	mr->fmap[mr->nmap++] = addr;
	return 0;
}

/*
 * Fill the list the next IB_WR_REG_MR registers. The device DMA-maps to kernel virtual
 * addresses (ib_uses_virt_dma), so each entry is the kernel address of one page_size block.
 * The registered list is another array (REG_MR copies into it): mapping never changes memory
 * a valid key reaches.
 */
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	int n;

	if (!mr->frmr || !is_power_of_2(ibmr->page_size) || ibmr->page_size < PAGE_SIZE)
		return -EINVAL;
	mr->nmap = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rxe_set_page);
	mr->map_shift = ilog2(ibmr->page_size);
	mr->map_off = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/*
 * Take a reference for a registration or invalidation of @mr (under the dev->mrs lock): it
 * counts in mr->changing, so two of them at once (a local and a remote invalidation, say)
 * never wait for each other in rxe_mr_drain().
 */
bool rxe_mr_change_get(struct rxe_mr *mr)
{
	if (!refcount_inc_not_zero(&mr->ref))
		return false;
	mr->changing++;
	return true;
}

void rxe_mr_change_put(struct rxe_dev *dev, struct rxe_mr *mr)
{
	xa_lock_bh(&dev->mrs);
	mr->changing--;
	xa_unlock_bh(&dev->mrs);
	rxe_mr_put(mr);
}

/*
 * Wait for the packet paths that found @mr before its state changed to finish their copy:
 * they hold a reference for one copy at most and never wait on the network. What is left
 * is the registration's own reference and those of rxe_mr_change_get().
 */
void rxe_mr_drain(struct rxe_mr *mr)
{
	/*
	 * The state change is seen before the references are counted; rxe_mr_get() takes its
	 * reference before it reads the state: one of the two sees the other.
	 */
	smp_mb();
	while (refcount_read(&mr->ref) > 1 + READ_ONCE(mr->changing))
		cond_resched();
}

/*
 * IB_WR_REG_MR: make the free fast-register MR @ibmr valid under @key (its index bits are
 * the MR's, the low 8 bits the consumer's new tag) with @access, over the list map_mr_sg()
 * filled and the ib_mr's iova and length. The MR must belong to @pd (the QP's).
 */
int rxe_mr_fast_reg(struct rxe_dev *dev, struct ib_pd *pd, uintptr_t ibmr, u32 key, int access)
{
	struct rxe_mr *mr;
	u64 span;
	int err = -EINVAL;

	/* As for any MR: remote write or atomic access needs local write access. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	xa_lock_bh(&dev->mrs);
	mr = xa_load(&dev->mrs, key >> 8);
	if (!mr || (uintptr_t)&mr->ib != ibmr || !mr->frmr || mr->ib.pd != pd ||
	    mr->state != RXE_MR_FREE || !rxe_mr_change_get(mr))
		mr = NULL;
	xa_unlock_bh(&dev->mrs);
	if (!mr)
		return -EINVAL;
	rxe_mr_drain(mr);
	/*
	 * Free and drained: no packet path reads fpages. Copy (not swap) the mapped list: a
	 * registration without a new map_mr_sg() registers the same pages again.
	 */
	memcpy(mr->fpages, mr->fmap, array_size(mr->nmap, sizeof(u64)));

	xa_lock_bh(&dev->mrs);
	span = (u64)mr->nmap << mr->map_shift;
	if (mr->state == RXE_MR_FREE && mr->ib.iova + mr->ib.length >= mr->ib.iova &&
	    mr->map_off <= span && mr->ib.length <= span - mr->map_off) {
		mr->npages = mr->nmap;
		mr->fshift = mr->map_shift;
		mr->page_off = mr->map_off;
		mr->iova = mr->ib.iova;
		mr->length = mr->ib.length;
		mr->access = access;
		mr->key = key;
		smp_store_release(&mr->state, RXE_MR_VALID);	/* rxe_mr_get() */
		err = 0;
	}
	xa_unlock_bh(&dev->mrs);
	rxe_mr_change_put(dev, mr);
	return err;
}

/*
 * IB_WR_LOCAL_INV (@remote false) and a received SEND with Invalidate (@remote true): make the
 * fast-register MR whose current key is @key free. Only a fast-register MR of @pd (the QP's)
 * can be invalidated: never a user MR (reg_user_mr) or a DMA MR. A remote invalidation needs
 * the MR valid (it reports IB_WC_WITH_INVALIDATE, which must be true); a local one of an MR
 * already free succeeds. Returns once no packet path copies through the MR any more.
 */
int rxe_mr_invalidate(struct rxe_dev *dev, struct ib_pd *pd, u32 key, bool remote)
{
	struct rxe_mr *mr;

	xa_lock_bh(&dev->mrs);
	mr = xa_load(&dev->mrs, key >> 8);
	if (!mr || !mr->frmr || mr->key != key || mr->ib.pd != pd ||
	    (remote && mr->state != RXE_MR_VALID) || !rxe_mr_change_get(mr))
		mr = NULL;
	else
		WRITE_ONCE(mr->state, RXE_MR_FREE);
	xa_unlock_bh(&dev->mrs);
	if (!mr)
		return -EINVAL;
	rxe_mr_drain(mr);
	rxe_mr_change_put(dev, mr);
	return 0;
}

/*
 * Find the valid MR for @key and take a reference, checking the PD, the access rights
 * (@remote: the key is an rkey) and that [va, va + len) lies inside it. Every packet's SGE and
 * rkey comes here, so it takes no device-wide lock: the MR is found under RCU (rxe_dereg_mr()
 * frees it after a grace period), the reference is taken first and only then the state read
 * (an acquire: a registration writes the other fields before the state says valid). An
 * invalidation that changes the state afterwards waits for this reference (rxe_mr_drain()), so
 * nothing checked here changes while it is held; one that changed it before is seen here.
 */
struct rxe_mr *rxe_mr_get(struct rxe_dev *dev, struct ib_pd *pd, u32 key, bool remote,
			  int access, u64 va, u64 len)
{
	struct rxe_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mrs, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return NULL;
	smp_mb__after_atomic();		/* the reference before the state: rxe_mr_drain() */
	if (smp_load_acquire(&mr->state) != RXE_MR_VALID || READ_ONCE(mr->key) != key ||
	    mr->ib.pd != pd || (mr->access & access) != access || (remote && mr->dma) ||
	    (!mr->dma && (va < mr->iova || va + len < va || va + len > mr->iova + mr->length))) {
		rxe_mr_put(mr);
		return NULL;
	}
	return mr;
}

void rxe_mr_put(struct rxe_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}

/*
 * Call @fn on the bytes [va, va + len) of @mr (the range was checked by rxe_mr_get()), piece by
 * contiguous piece in the kernel's view: one piece for a DMA MR, a block at a time for a
 * fast-register MR, a page at a time (mapped for the call) for a user MR. Stops at @fn's first
 * error and returns it; -EFAULT past the MR's pages.
 */
int rxe_mr_walk(struct rxe_mr *mr, u64 va, u32 len,
		int (*fn)(void *arg, const u8 *p, unsigned int n), void *arg)
{
	u64 off;
	int err = 0;

	if (mr->dma)
		return len ? fn(arg, (u8 *)(uintptr_t)va, len) : 0;
	off = va - mr->iova + mr->page_off;
	if (mr->frmr) {
		unsigned int shift = mr->fshift;

		while (len && !err) {
			u64 blk = off >> shift, boff = off & ((1ULL << shift) - 1);
			u32 n = min_t(u64, len, (1ULL << shift) - boff);

			if (blk >= mr->npages)
				return -EFAULT;
			err = fn(arg, (u8 *)(uintptr_t)(mr->fpages[blk] + boff), n);
			off += n;
			len -= n;
		}
		return err;
	}
	while (len && !err) {
		unsigned long pg = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		u8 *p;

		if (pg >= mr->npages)
			return -EFAULT;
		p = kmap_local_page(mr->pages[pg]);
		err = fn(arg, p + poff, n);
		kunmap_local(p);
		off += n;
		len -= n;
	}
	return err;
}

struct rxe_copy {
	u8		*buf;
	bool		to_mr;
};

static int rxe_piece_copy(void *arg, const u8 *p, unsigned int n)
{
	struct rxe_copy *c = arg;

	if (c->to_mr)
		memcpy((u8 *)p, c->buf, n);	/* MR memory: the walk's pieces are writable */
	else
		memcpy(c->buf, p, n);
	c->buf += n;
	return 0;
}

/* Copy @len bytes between @buf and the MR at @va; the range was checked by rxe_mr_get(). */
int rxe_mr_copy(struct rxe_mr *mr, u64 va, void *buf, u32 len, bool to_mr)
{
	struct rxe_copy c = { .buf = buf, .to_mr = to_mr };

	if (mr->dma) {	/* the common kernel case without the walk */
		if (to_mr)
			memcpy((void *)(uintptr_t)va, buf, len);
		else
			memcpy(buf, (void *)(uintptr_t)va, len);
		return 0;
	}
	return rxe_mr_walk(mr, va, len, rxe_piece_copy, &c);
}

/* Map the naturally aligned 8 bytes at @va for an atomic operation. */
void *rxe_mr_map8(struct rxe_mr *mr, u64 va)
{
	u64 off;
	unsigned long pg;

	if (va & 7)
		return NULL;
	if (mr->dma)
		return (void *)(uintptr_t)va;
	/*
	 * The MR's iova need not share the alignment of the memory behind it: check the
	 * alignment of the real address too, so an atomic never straddles two cache lines.
	 */
	off = va - mr->iova + mr->page_off;
	if (mr->frmr) {
		u64 blk = off >> mr->fshift, a;

		if (blk >= mr->npages)
			return NULL;
		a = mr->fpages[blk] + (off & ((1ULL << mr->fshift) - 1));
		return (a & 7) ? NULL : (void *)(uintptr_t)a;
	}
	pg = off >> PAGE_SHIFT;
	if (pg >= mr->npages || (off & 7))
		return NULL;
	return kmap_local_page(mr->pages[pg]) + (off & ~PAGE_MASK);
}

void rxe_mr_unmap8(struct rxe_mr *mr, void *addr)
{
	if (!mr->dma && !mr->frmr)
		kunmap_local(addr);
}

/*
 * Copy @len bytes between @buf and a scatter/gather list at the cursor (*cur_sge, *sge_off),
 * advancing it. Each SGE's lkey is checked against the QP's PD. Returns 0, or -EINVAL when
 * the list is too short, or -EACCES on a bad key or range.
 */
int rxe_sgl_copy(struct rxe_qp *qp, const struct rxe_sge *sge, u32 nsge, u32 *cur_sge,
		 u32 *sge_off, void *buf, u32 len, bool to_sgl)
{
	int access = to_sgl ? IB_ACCESS_LOCAL_WRITE : 0;

	while (len) {
		const struct rxe_sge *s;
		struct rxe_mr *mr;
		u32 n;
		int err;

		if (*cur_sge >= nsge)
			return -EINVAL;
		s = &sge[*cur_sge];
		if (*sge_off >= s->length) {
			(*cur_sge)++;
			*sge_off = 0;
			continue;
		}
		n = min(len, s->length - *sge_off);
		mr = rxe_mr_get(qp->dev, qp->ib.pd, s->lkey, false, access, s->addr + *sge_off, n);
		if (!mr)
			return -EACCES;
		err = rxe_mr_copy(mr, s->addr + *sge_off, buf, n, to_sgl);
		rxe_mr_put(mr);
		if (err)
			return -EACCES;
		*sge_off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Hang @len bytes of a user QP's scatter/gather list at the cursor (*cur_sge, *sge_off) on @skb
 * as page fragments, each SGE's lkey checked against the QP's PD as rxe_sgl_copy() does, and
 * advance the cursor. The skb takes a reference on every page it points at, so the pages outlive
 * a deregistration of the MR while it is queued. Bytes adjacent in one page share a fragment.
 * Returns 0; -E2BIG when the bytes would take more than @max_frags fragments, -EOPNOTSUPP for an
 * MR without user pages (a kernel DMA or fast-register MR), -EINVAL or -EACCES as rxe_sgl_copy():
 * the cursor is then where it was and the fragments already hung stay with the skb (the caller
 * frees it and copies instead, which fails the same way on a bad key).
 */
int rxe_sgl_to_frags(struct rxe_qp *qp, const struct rxe_sge *sge, u32 nsge, u32 *cur_sge,
		     u32 *sge_off, struct sk_buff *skb, u32 len, unsigned int max_frags)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	u32 cs = *cur_sge, so = *sge_off;

	while (len) {
		const struct rxe_sge *s;
		struct rxe_mr *mr;
		u64 off;
		u32 n, rem;
		int err = 0;

		if (cs >= nsge)
			return -EINVAL;
		s = &sge[cs];
		if (so >= s->length) {
			cs++;
			so = 0;
			continue;
		}
		n = min(len, s->length - so);
		mr = rxe_mr_get(qp->dev, qp->ib.pd, s->lkey, false, 0, s->addr + so, n);
		if (!mr)
			return -EACCES;
		if (mr->dma || mr->frmr || !mr->pages) {
			rxe_mr_put(mr);
			return -EOPNOTSUPP;
		}
		off = s->addr + so - mr->iova + mr->page_off;
		for (rem = n; rem && !err; ) {
			unsigned long pg = off >> PAGE_SHIFT;
			u32 poff = off & ~PAGE_MASK, k = min_t(u32, rem, PAGE_SIZE - poff);
			skb_frag_t *last = sh->nr_frags ? &sh->frags[sh->nr_frags - 1] : NULL;

			if (pg >= mr->npages) {
				err = -EACCES;
				break;
			}
			if (last && skb_frag_page(last) == mr->pages[pg] &&
			    skb_frag_off(last) + skb_frag_size(last) == poff) {
				skb_frag_size_add(last, k);
			} else if (sh->nr_frags >= max_frags) {
				err = -E2BIG;
				break;
			} else {
				get_page(mr->pages[pg]);
				skb_fill_page_desc(skb, sh->nr_frags, mr->pages[pg], poff, k);
			}
			skb->len += k;
			skb->data_len += k;
			skb->truesize += k;
			off += k;
			rem -= k;
		}
		rxe_mr_put(mr);
		if (err)
			return err;
		so += n;
		len -= n;
	}
	*cur_sge = cs;
	*sge_off = so;
	return 0;
}

/*
 * Call @fn on the bytes [off, off + len) of @skb, piece by contiguous piece: the linear part
 * at once, page fragments (and a fragment list) through skb_seq_read(), which maps each
 * in turn. Stops at @fn's first error and returns it; -EINVAL if the skb is shorter.
 */
int rxe_skb_walk(struct sk_buff *skb, unsigned int off, unsigned int len,
		 int (*fn)(void *arg, const u8 *p, unsigned int n), void *arg)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;
	int err = 0;

	if (!len)
		return 0;
	if (off + len <= skb_headlen(skb))
		return fn(arg, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len && (n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);	/* a piece may run past the range's end */
		err = fn(arg, data, n);
		if (err)
			break;
		done += n;
	}
	skb_abort_seq_read(&st);
	return err ? err : done == len ? 0 : -EINVAL;
}

struct rxe_to_mr {
	struct rxe_mr	*mr;
	u64		va;
};

static int rxe_piece_to_mr(void *arg, const u8 *p, unsigned int n)
{
	struct rxe_to_mr *t = arg;
	int err = rxe_mr_copy(t->mr, t->va, (void *)p, n, true);	/* read only */

	t->va += n;
	return err;
}

/* Copy a received packet's payload into @mr at @va (the range was checked by rxe_mr_get()). */
int rxe_pkt_to_mr(struct sk_buff *skb, struct rxe_mr *mr, u64 va)
{
	struct rxe_to_mr t = { .mr = mr, .va = va };

	return rxe_skb_walk(skb, rxe_pkt(skb)->hdr_len, rxe_pkt(skb)->paylen, rxe_piece_to_mr, &t);
}

struct rxe_to_sgl {
	struct rxe_qp		*qp;
	const struct rxe_sge	*sge;
	u32			nsge;
	u32			*cur_sge;
	u32			*sge_off;
};

static int rxe_piece_to_sgl(void *arg, const u8 *p, unsigned int n)
{
	struct rxe_to_sgl *t = arg;

	return rxe_sgl_copy(t->qp, t->sge, t->nsge, t->cur_sge, t->sge_off, (void *)p, n, true);
}

/* Copy a received packet's payload into an SGE list at its cursor (as rxe_sgl_copy()). */
int rxe_pkt_to_sgl(struct rxe_qp *qp, struct sk_buff *skb, const struct rxe_sge *sge, u32 nsge,
		   u32 *cur_sge, u32 *sge_off)
{
	struct rxe_to_sgl t = { .qp = qp, .sge = sge, .nsge = nsge, .cur_sge = cur_sge,
				.sge_off = sge_off };

	return rxe_skb_walk(skb, rxe_pkt(skb)->hdr_len, rxe_pkt(skb)->paylen, rxe_piece_to_sgl,
			    &t);
}

/*
 * Call @fn on the data of send WQE @w of @qp, piece by contiguous piece: its inline copy, or
 * its SGEs, each lkey checked against the QP's PD (local read) as rxe_sgl_copy() does.
 */
static int rxe_swqe_walk(struct rxe_qp *qp, const struct rxe_swqe *w,
			 int (*fn)(void *arg, const u8 *p, unsigned int n), void *arg)
{
	u32 i;

	if (w->inl)
		return w->length ? fn(arg, w->data, w->length) : 0;
	for (i = 0; i < w->num_sge; i++) {
		const struct rxe_sge *s = &w->sge[i];
		struct rxe_mr *mr;
		int err;

		if (!s->length)
			continue;
		mr = rxe_mr_get(qp->dev, qp->ib.pd, s->lkey, false, 0, s->addr, s->length);
		if (!mr)
			return -EACCES;
		err = rxe_mr_walk(mr, s->addr, s->length, fn, arg);
		rxe_mr_put(mr);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Loopback direct placement (rxe_req.c): one copy from memory to memory, each side's keys
 * checked on its own QP. The data of @qp's send WQE @w into @mr at @va (an RDMA WRITE; @mr
 * and the range were checked by rxe_rkey_get() on the target QP).
 */
int rxe_swqe_to_mr(struct rxe_qp *qp, const struct rxe_swqe *w, struct rxe_mr *mr, u64 va)
{
	struct rxe_to_mr t = { .mr = mr, .va = va };

	return rxe_swqe_walk(qp, w, rxe_piece_to_mr, &t);
}

/* ... into the SGEs @sge of a receive WQE of @dqp (a SEND) */
int rxe_swqe_to_sgl(struct rxe_qp *qp, const struct rxe_swqe *w, struct rxe_qp *dqp,
		    const struct rxe_sge *sge, u32 nsge)
{
	u32 cur = 0, off = 0;
	struct rxe_to_sgl t = { .qp = dqp, .sge = sge, .nsge = nsge, .cur_sge = &cur,
				.sge_off = &off };

	return rxe_swqe_walk(qp, w, rxe_piece_to_sgl, &t);
}

/* ... and @len bytes of @mr at @va into the SGEs @sge of @dqp's send WQE (an RDMA READ) */
int rxe_mr_to_sgl(struct rxe_mr *mr, u64 va, u32 len, struct rxe_qp *dqp,
		  const struct rxe_sge *sge, u32 nsge)
{
	u32 cur = 0, off = 0;
	struct rxe_to_sgl t = { .qp = dqp, .sge = sge, .nsge = nsge, .cur_sge = &cur,
				.sge_off = &off };

	return rxe_mr_walk(mr, va, len, rxe_piece_to_sgl, &t);
}
