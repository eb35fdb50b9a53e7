// SPDX-License-Identifier: GPL-2.0
/* rxe_mr.c - memory regions: registration, key lookup with access checks, copying to and from. */

#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include "rxe.h"

/* Keys are (index << 8 | 8-bit tag); the tag changes with each use of an index. */
static int rxe_mr_add(struct rxe_dev *dev, struct rxe_mr *mr)
{
	u32 index;
	int err;

	err = xa_alloc_cyclic(&dev->mrs, &index, NULL, XA_LIMIT(1, RXE_MAX_MR),
			      &dev->next_mr, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;	/* RXE_MAX_MR in use */
	mr->index = index;
	mr->dev = dev;
	mr->ib.lkey = mr->ib.rkey = (index << 8) | (get_random_u32() & 0xff);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);
	/* Publish only when fully set up. */
	xa_store(&dev->mrs, index, mr, GFP_KERNEL);
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

	xa_erase(&mr->dev->mrs, mr->index);
	/* Wait for the packet paths to stop using it. */
	rxe_mr_put(mr);
	wait_for_completion(&mr->done);
	if (mr->umem) {
		kvfree(mr->pages);
		ib_umem_release(mr->umem);
	}
	kfree(mr);
	return 0;
}

/*
 * Find the MR for @key and take a reference, checking the PD, the access rights (@remote:
 * the key is an rkey) and that [va, va + len) lies inside it.
 */
struct rxe_mr *rxe_mr_get(struct rxe_dev *dev, struct ib_pd *pd, u32 key, bool remote,
			  int access, u64 va, u64 len)
{
	struct rxe_mr *mr;

	xa_lock(&dev->mrs);
	mr = xa_load(&dev->mrs, key >> 8);
	if (!mr || (remote ? mr->ib.rkey : mr->ib.lkey) != key ||
	    !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	xa_unlock(&dev->mrs);
	if (!mr)
		return NULL;

	if (mr->ib.pd != pd || (mr->access & access) != access)
		goto bad;
	if (remote && mr->dma)
		goto bad;
	if (!mr->dma && (va < mr->iova || va + len < va || va + len > mr->iova + mr->length))
		goto bad;
	return mr;
bad:
	rxe_mr_put(mr);
	return NULL;
}

void rxe_mr_put(struct rxe_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}

/* Copy @len bytes between @buf and the MR at @va; the range was checked by rxe_mr_get(). */
int rxe_mr_copy(struct rxe_mr *mr, u64 va, void *buf, u32 len, bool to_mr)
{
	u64 off;

	if (mr->dma) {
		void *p = (void *)(uintptr_t)va;

		if (to_mr)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return 0;
	}
	off = va - mr->iova + mr->page_off;
	while (len) {
		unsigned long pg = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		void *p;

		if (pg >= mr->npages)
			return -EFAULT;
		p = kmap_local_page(mr->pages[pg]);
		if (to_mr)
			memcpy(p + poff, buf, n);
		else
			memcpy(buf, p + poff, n);
		kunmap_local(p);
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
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
	pg = off >> PAGE_SHIFT;
	if (pg >= mr->npages || (off & 7))
		return NULL;
	return kmap_local_page(mr->pages[pg]) + (off & ~PAGE_MASK);
}

void rxe_mr_unmap8(struct rxe_mr *mr, void *addr)
{
	if (!mr->dma)
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
