// SPDX-License-Identifier: GPL-2.0
/* rxe_queue.c - rings in the rdma_user_rxe.h layout and their mmap() into user space. */

#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include "rxe.h"

/*
 * Allocate a ring with room for at least @nelem entries of @elem bytes. Slots are a power of
 * two in number and in size (at least a cache line); one slot always stays empty, so the
 * ring holds 2^n - 1 entries. For user rings, @mi receives the mmap() offset and size.
 */
int rxe_queue_init(struct rxe_dev *dev, struct rxe_queue *q, u32 nelem, size_t elem,
		   struct ib_udata *udata, struct mminfo *mi)
{
	u32 slots = roundup_pow_of_two(max_t(u32, nelem + 1, 2));
	size_t esize = roundup_pow_of_two(max_t(size_t, elem, SMP_CACHE_BYTES));
	int err;

	q->log2_elem = ilog2(esize);
	q->mask = slots - 1;
	q->index = 0;
	q->size = PAGE_ALIGN(sizeof(struct rxe_queue_buf) + (size_t)slots * esize);
	q->mmap = NULL;
	/*
	 * Every ring is charged to the caller's memory cgroup; rxe_mmap() maps user rings page by
	 * page. At the cgroup's limit the allocation fails (ENOMEM to the caller) instead of
	 * calling the OOM killer (__GFP_NORETRY).
	 */
	q->buf = __vmalloc(q->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NORETRY | __GFP_NOWARN);
	if (!q->buf)
		return -ENOMEM;
	q->buf->log2_elem_size = q->log2_elem;
	q->buf->index_mask = q->mask;

	if (!udata)
		return 0;

	q->mmap = kzalloc(sizeof(*q->mmap), GFP_KERNEL_ACCOUNT);
	if (!q->mmap) {
		err = -ENOMEM;
		goto err_buf;
	}
	q->mmap->buf = q->buf;
	err = rdma_user_mmap_entry_insert(&rdma_udata_to_drv_context(udata, struct rxe_ucontext, ib)->ib,
					  &q->mmap->rdma, q->size);
	if (err) {
		kfree(q->mmap);
		q->mmap = NULL;
		goto err_buf;
	}
	mi->offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	mi->size = q->size;
	mi->pad = 0;
	return 0;

err_buf:
	vfree(q->buf);
	q->buf = NULL;
	return err;
}

/*
 * Move the @n entries of @oq from index @from into the new ring @nq, oldest first at its slot 0
 * (the caller holds what serialises both ends of @oq and then points its users at @nq): @nq's
 * shared indices say 0 consumed, @n produced; the caller sets nq->index to its side's.
 */
void rxe_queue_move(struct rxe_queue *nq, struct rxe_queue *oq, u32 from, u32 n, size_t esize)
{
	u32 i;

	for (i = 0; i < n; i++)
		memcpy(rxe_queue_slot(nq, i), rxe_queue_slot(oq, from + i), esize);
	nq->buf->consumer_index = 0;
	smp_store_release(&nq->buf->producer_index, n);
}

/* Drop our use of the ring. User rings are freed by rxe_mmap_free() once unmapped. */
void rxe_queue_free(struct rxe_queue *q)
{
	if (!q->buf)
		return;
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}

int rxe_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct rxe_mmap_entry *entry;
	unsigned long off;
	int err;

	rentry = rdma_user_mmap_entry_get(ctx, vma);
	if (!rentry)
		return -EINVAL;
	entry = container_of(rentry, struct rxe_mmap_entry, rdma);
	/* The ring is an accounted __vmalloc() area (no VM_USERMAP): insert its pages one by one. */
	for (off = 0, err = 0; !err && off < vma->vm_end - vma->vm_start; off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off, vmalloc_to_page(entry->buf + off));
	rdma_user_mmap_entry_put(rentry);
	return err;
}

void rxe_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct rxe_mmap_entry *entry = container_of(rentry, struct rxe_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
