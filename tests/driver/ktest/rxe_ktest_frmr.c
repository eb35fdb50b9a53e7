// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_ktest_frmr.c - rxe_ktest's fast-register MR cases: what NVMe-oF, NFS/RDMA and iSER use.
 *
 * Each case runs on fresh loopback RC QP pairs (a case that ends in a remote access error
 * leaves its pair in the error state). The MR's pages are three separate pages, mapped from
 * 100 bytes into the first, so every transfer crosses page list entries.
 *   frmr-caps                 IB_DEVICE_MEM_MGT_EXTENSIONS and max_fast_reg_page_list_len
 *   frmr-write-read           ib_alloc_mr + ib_map_mr_sg + IB_WR_REG_MR (IB_WC_REG_MR), then
 *                             another QP RDMA WRITEs and READs every byte through the rkey
 *   frmr-local-inv            IB_WR_LOCAL_INV (IB_WC_LOCAL_INV), then a WRITE through the old
 *                             rkey fails with a remote access error
 *   frmr-key-generation       ib_update_fast_reg_key() gives a key that differs in the low
 *                             8 bits only; the new registration works through it, the old
 *                             key fails
 *   frmr-send-inv             SEND with Invalidate: the receiver's completion carries
 *                             IB_WC_WITH_INVALIDATE and the rkey, and the rkey is dead after
 *   frmr-send-inv-dma-key     SEND with Invalidate naming the PD's DMA MR (not a fast-register
 *                             MR, like a user MR): remote access error, no receive succeeds
 *   frmr-send-inv-foreign-pd  SEND with Invalidate naming a valid fast-register MR of another
 *                             PD: remote access error, and that MR still works afterwards
 */
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "rxe_ktest.h"

#define FR_PAGES 3
#define FR_OFF 100				/* the MR starts this far into its first page */
#define FR_LEN (FR_PAGES * PAGE_SIZE - FR_OFF)
#define FR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)
#define FR_NQP 12

static struct kt_qp fq[FR_NQP];		/* every QP these cases create, destroyed at the end */
static int nfq;
static struct ib_pd *pd2;			/* the foreign PD */
static struct ib_mr *mr, *mr2;
static struct page *pages[FR_PAGES + 1];	/* [FR_PAGES]: mr2's page */
static struct scatterlist sgl[FR_PAGES], sgl2[1];
static bool sgl_mapped, sgl2_mapped;
static void *lbuf;				/* the writer's source and read-back buffer */
static u64 ldma;

/* A new RC QP on @qpd; NULL when it cannot be created (reported as setup failure). */
static struct kt_qp *kt_fq(struct ib_pd *qpd)
{
	struct kt_qp *e;

	if (nfq >= FR_NQP)
		return NULL;
	e = &fq[nfq];
	if (kt_qp_create_pd(e, IB_QPT_RC, qpd))
		return NULL;
	nfq++;
	return e;
}

/* Two new RC QPs on the test PD connected to each other; false (reported) on failure. */
static bool kt_fpair(const char *name, struct kt_qp **a, struct kt_qp **b)
{
	int err;

	*a = kt_fq(pd);
	*b = kt_fq(pd);
	err = *a && *b ? 0 : -ENOMEM;
	err = err ?: kt_rc_connect(*a, (*b)->qp->qp_num, gid) ?:
		kt_rc_connect(*b, (*a)->qp->qp_num, gid);
	if (err)
		report(false, name, "setting up a connected QP pair failed with %d", err);
	return !err;
}

/* Post @wr (one, signaled) on @e and wait for its completion into @wc. */
static int kt_run(struct kt_qp *e, const struct ib_send_wr *wr, struct ib_wc *wc)
{
	int base = READ_ONCE(e->ncomp), err;

	err = ib_post_send(e->qp, wr, NULL);
	if (err)
		return err;
	if (!kt_wait_comps(e, base + 1))
		return -ETIMEDOUT;
	*wc = e->last;
	return 0;
}

/* IB_WR_REG_MR of @m with its current key on @e; the completion's status, or -errno. */
static int kt_reg(struct kt_qp *e, struct ib_mr *m, struct ib_wc *wc)
{
	struct ib_reg_wr r = {};

	r.wr.opcode = IB_WR_REG_MR;
	r.wr.send_flags = IB_SEND_SIGNALED;
	r.mr = m;
	r.key = m->rkey;
	r.access = FR_ACCESS;
	return kt_run(e, &r.wr, wc);
}

/* RDMA WRITE (or READ) of @len bytes between lbuf and [va, va + len) through @rkey. */
static int kt_rdma(struct kt_qp *e, enum ib_wr_opcode op, u64 va, u32 rkey, u32 len,
		   struct ib_wc *wc)
{
	struct ib_sge sge = { .addr = ldma, .length = len, .lkey = pd->local_dma_lkey };
	struct ib_rdma_wr w = {};

	w.wr.opcode = op;
	w.wr.send_flags = IB_SEND_SIGNALED;
	w.wr.sg_list = &sge;
	w.wr.num_sge = 1;
	w.remote_addr = va;
	w.rkey = rkey;
	return kt_run(e, &w.wr, wc);
}

static int kt_send_inv(struct kt_qp *e, u32 rkey, struct ib_wc *wc)
{
	struct ib_sge sge = { .addr = ldma, .length = 64, .lkey = pd->local_dma_lkey };
	struct ib_send_wr w = { .opcode = IB_WR_SEND_WITH_INV, .send_flags = IB_SEND_SIGNALED,
				.sg_list = &sge, .num_sge = 1 };

	w.ex.invalidate_rkey = rkey;
	return kt_run(e, &w, wc);
}

static u8 kt_pattern(u32 i, u8 seed)
{
	return (u8)(i * 7 + seed);
}

/* Offset of the first byte in the MR's pages that differs from the pattern, or -1. */
static long kt_mr_differs(u8 seed)
{
	u32 i;

	for (i = 0; i < FR_LEN; i++) {
		u32 at = i + FR_OFF;
		u8 *p = page_address(pages[at / PAGE_SIZE]);

		if (p[at % PAGE_SIZE] != kt_pattern(i, seed))
			return i;
	}
	return -1;
}

static long kt_lbuf_differs(u8 seed)
{
	u8 *p = lbuf;
	u32 i;

	for (i = 0; i < FR_LEN; i++)
		if (p[i] != kt_pattern(i, seed))
			return i;
	return -1;
}

static void kt_fill_lbuf(u8 seed)
{
	u8 *p = lbuf;
	u32 i;

	for (i = 0; i < FR_LEN; i++)
		p[i] = kt_pattern(i, seed);
}

static int kt_frmr_setup(void)
{
	unsigned int off = FR_OFF;
	int i, n;

	lbuf = kzalloc(FR_PAGES * PAGE_SIZE, GFP_KERNEL);
	if (!lbuf)
		return -ENOMEM;
	ldma = ib_dma_map_single(ibdev, lbuf, FR_PAGES * PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, ldma)) {
		kfree(lbuf);
		lbuf = NULL;
		return -EIO;
	}
	for (i = 0; i <= FR_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i])
			return -ENOMEM;
	}
	sg_init_table(sgl, FR_PAGES);
	for (i = 0; i < FR_PAGES; i++)
		sg_set_page(&sgl[i], pages[i], PAGE_SIZE, 0);
	if (ib_dma_map_sg(ibdev, sgl, FR_PAGES, DMA_BIDIRECTIONAL) != FR_PAGES)
		return -EIO;
	sgl_mapped = true;
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, FR_PAGES + 1);
	if (IS_ERR(mr)) {
		n = PTR_ERR(mr);
		mr = NULL;
		return n;
	}
	n = ib_map_mr_sg(mr, sgl, FR_PAGES, &off, PAGE_SIZE);
	if (n != FR_PAGES || mr->length != FR_LEN)
		return n < 0 ? n : -EIO;
	return 0;
}

/* frmr-caps, frmr-write-read, frmr-local-inv on pair A. */
static int kt_frmr_basic(void)
{
	struct kt_qp *a1, *a2;
	struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED };
	struct ib_wc reg = {}, wr = {}, rd = {}, li = {}, old = {};
	long wdiff, rdiff;
	int err;

	if (!kt_fpair("frmr-write-read", &a1, &a2))
		return 0;
	err = kt_reg(a2, mr, &reg);
	if (err)
		goto fail;
	kt_fill_lbuf(3);
	err = kt_rdma(a1, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, FR_LEN, &wr);
	if (err)
		goto fail;
	wdiff = kt_mr_differs(3);
	memset(lbuf, 0, FR_LEN);
	err = kt_rdma(a1, IB_WR_RDMA_READ, mr->iova, mr->rkey, FR_LEN, &rd);
	if (err)
		goto fail;
	rdiff = kt_lbuf_differs(3);
	report(reg.status == IB_WC_SUCCESS && reg.opcode == IB_WC_REG_MR &&
	       wr.status == IB_WC_SUCCESS && rd.status == IB_WC_SUCCESS &&
	       wdiff < 0 && rdiff < 0, "frmr-write-read",
	       "REG_MR status %d opcode %d (want %d), %lu bytes over %d pages from offset %d: WRITE status %d, %s; READ status %d, %s",
	       reg.status, reg.opcode, IB_WC_REG_MR, FR_LEN, FR_PAGES, FR_OFF, wr.status,
	       wdiff < 0 ? "every byte landed" : "bytes differ", rd.status,
	       rdiff < 0 ? "every byte read back" : "bytes differ");

	inv.ex.invalidate_rkey = mr->rkey;
	err = kt_run(a2, &inv, &li);
	if (err)
		goto fail_inv;
	err = kt_rdma(a1, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, 64, &old);
	if (err)
		goto fail_inv;
	report(li.status == IB_WC_SUCCESS && li.opcode == IB_WC_LOCAL_INV &&
	       old.status == IB_WC_REM_ACCESS_ERR, "frmr-local-inv",
	       "LOCAL_INV status %d opcode %d (want %d); WRITE through the invalidated rkey 0x%x: status %d (want %d)",
	       li.status, li.opcode, IB_WC_LOCAL_INV, mr->rkey, old.status, IB_WC_REM_ACCESS_ERR);
	return 0;

fail:
	report(false, "frmr-write-read", "posting or completing failed with %d (REG status %d, WRITE %d, READ %d)",
	       err, reg.status, wr.status, rd.status);
	return err == -ETIMEDOUT ? err : 0;
fail_inv:
	report(false, "frmr-local-inv", "posting or completing failed with %d (LOCAL_INV status %d)",
	       err, li.status);
	return err == -ETIMEDOUT ? err : 0;
}

/* frmr-key-generation on pair B: the MR was invalidated by frmr-local-inv. */
static int kt_frmr_keygen(void)
{
	struct kt_qp *b1, *b2;
	struct ib_wc reg = {}, nw = {}, ow = {};
	u32 oldkey = mr->rkey, newkey;
	long diff;
	int err;

	if (!kt_fpair("frmr-key-generation", &b1, &b2))
		return 0;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	newkey = mr->rkey;
	err = kt_reg(b2, mr, &reg);
	kt_fill_lbuf(11);
	err = err ?: kt_rdma(b1, IB_WR_RDMA_WRITE, mr->iova, newkey, FR_LEN, &nw);
	diff = kt_mr_differs(11);
	err = err ?: kt_rdma(b1, IB_WR_RDMA_WRITE, mr->iova, oldkey, 64, &ow);
	if (err) {
		report(false, "frmr-key-generation", "posting or completing failed with %d", err);
		return err == -ETIMEDOUT ? err : 0;
	}
	report((oldkey & ~0xffu) == (newkey & ~0xffu) && (oldkey & 0xff) != (newkey & 0xff) &&
	       mr->lkey == newkey && reg.status == IB_WC_SUCCESS && nw.status == IB_WC_SUCCESS &&
	       diff < 0 && ow.status == IB_WC_REM_ACCESS_ERR, "frmr-key-generation",
	       "key 0x%x -> 0x%x; REG_MR status %d; WRITE through the new key status %d, %s; through the old key status %d (want %d)",
	       oldkey, newkey, reg.status, nw.status, diff < 0 ? "every byte landed" : "bytes differ",
	       ow.status, IB_WC_REM_ACCESS_ERR);
	return 0;
}

/* frmr-send-inv on pair C: the MR is valid under the key frmr-key-generation gave it. */
static int kt_frmr_send_inv(void)
{
	struct kt_qp *c1, *c2;
	struct ib_wc snd = {}, rcv = {}, after = {};
	u32 key = mr->rkey;
	int err;

	if (!kt_fpair("frmr-send-inv", &c1, &c2))
		return 0;
	err = kt_post_recv(c2) ?: kt_send_inv(c1, key, &snd);
	/* A receive that never completes is a failure of this case, not a deadlock. */
	if (!err && !kt_wait_comps(c2, 1)) {
		report(false, "frmr-send-inv", "sender status %d; the receive did not complete in 10 s",
		       snd.status);
		return 0;
	}
	rcv = c2->last;
	err = err ?: kt_rdma(c1, IB_WR_RDMA_WRITE, mr->iova, key, 64, &after);
	if (err) {
		report(false, "frmr-send-inv", "posting or completing failed with %d (send status %d)",
		       err, snd.status);
		return err == -ETIMEDOUT ? err : 0;
	}
	report(snd.status == IB_WC_SUCCESS && rcv.status == IB_WC_SUCCESS &&
	       rcv.opcode == IB_WC_RECV && (rcv.wc_flags & IB_WC_WITH_INVALIDATE) &&
	       rcv.ex.invalidate_rkey == key && after.status == IB_WC_REM_ACCESS_ERR,
	       "frmr-send-inv",
	       "sender status %d; receiver status %d, IB_WC_WITH_INVALIDATE %s, rkey 0x%x (sent 0x%x); WRITE through it after: status %d (want %d)",
	       snd.status, rcv.status, rcv.wc_flags & IB_WC_WITH_INVALIDATE ? "set" : "not set",
	       rcv.wc_flags & IB_WC_WITH_INVALIDATE ? rcv.ex.invalidate_rkey : 0, key,
	       after.status, IB_WC_REM_ACCESS_ERR);
	return 0;
}

/* SEND with Invalidate of @key that the receiver must refuse; reported as @name. */
static int kt_frmr_inv_refused(const char *name, u32 key, const char *what)
{
	struct kt_qp *d1, *d2;
	struct ib_wc snd = {}, rcv = {};
	int err;

	if (!kt_fpair(name, &d1, &d2))
		return 0;
	err = kt_post_recv(d2) ?: kt_send_inv(d1, key, &snd);
	/* The receive completes too (flushed, or in error); never as an invalidation. */
	if (!err && !kt_wait_comps(d2, 1)) {
		report(false, name, "key 0x%x (%s): sender status %d; the receive did not complete in 10 s",
		       key, what, snd.status);
		return 0;
	}
	rcv = d2->last;
	if (err) {
		report(false, name, "posting or completing failed with %d (send status %d)", err,
		       snd.status);
		return err == -ETIMEDOUT ? err : 0;
	}
	report(snd.status == IB_WC_REM_ACCESS_ERR && rcv.status != IB_WC_SUCCESS &&
	       !(rcv.wc_flags & IB_WC_WITH_INVALIDATE), name,
	       "key 0x%x (%s): sender status %d (want %d), receiver status %d, IB_WC_WITH_INVALIDATE %s",
	       key, what, snd.status, IB_WC_REM_ACCESS_ERR, rcv.status,
	       rcv.wc_flags & IB_WC_WITH_INVALIDATE ? "set" : "not set");
	return 0;
}

/* frmr-send-inv-foreign-pd: a valid fast-register MR of pd2, registered by a QP of pd2. */
static int kt_frmr_foreign(void)
{
	unsigned int off = 0;
	struct kt_qp *p;
	struct ib_wc reg = {}, w = {};
	int err, n;

	pd2 = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd2)) {
		err = PTR_ERR(pd2);
		pd2 = NULL;
		goto setup;
	}
	sg_init_table(sgl2, 1);
	sg_set_page(&sgl2[0], pages[FR_PAGES], PAGE_SIZE, 0);
	err = -EIO;
	if (ib_dma_map_sg(ibdev, sgl2, 1, DMA_BIDIRECTIONAL) != 1)
		goto setup;
	sgl2_mapped = true;
	mr2 = ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr2)) {
		err = PTR_ERR(mr2);
		mr2 = NULL;
		goto setup;
	}
	n = ib_map_mr_sg(mr2, sgl2, 1, &off, PAGE_SIZE);
	p = kt_fq(pd2);
	err = n != 1 ? -EIO : !p ? -ENOMEM : kt_rc_connect(p, p->qp->qp_num, gid);
	err = err ?: kt_reg(p, mr2, &reg);
	if (err || reg.status != IB_WC_SUCCESS)
		goto setup;

	err = kt_frmr_inv_refused("frmr-send-inv-foreign-pd", mr2->rkey,
				  "a valid fast-register MR of another PD");
	if (err)
		return err;
	/* The refused invalidation left it valid: its own PD's QP still writes through it. */
	{
		struct ib_sge sge = { .addr = p->dma, .length = 64, .lkey = pd2->local_dma_lkey };
		struct ib_rdma_wr rw = {};

		rw.wr.opcode = IB_WR_RDMA_WRITE;
		rw.wr.send_flags = IB_SEND_SIGNALED;
		rw.wr.sg_list = &sge;
		rw.wr.num_sge = 1;
		rw.remote_addr = mr2->iova;
		rw.rkey = mr2->rkey;
		err = kt_run(p, &rw.wr, &w);
	}
	report(!err && w.status == IB_WC_SUCCESS, "frmr-send-inv-foreign-pd",
	       "the other PD's MR after the refused invalidation: WRITE through rkey 0x%x posted %d, status %d (want %d)",
	       mr2->rkey, err, w.status, IB_WC_SUCCESS);
	return err == -ETIMEDOUT ? err : 0;

setup:
	report(false, "frmr-send-inv-foreign-pd",
	       "setting up a registered MR in a second PD failed with %d (REG status %d)", err,
	       reg.status);
	return err == -ETIMEDOUT ? err : 0;
}

int kt_frmr(void)
{
	struct ib_device_attr *at = &ibdev->attrs;
	int err;

	report((at->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	       at->max_fast_reg_page_list_len > 0, "frmr-caps",
	       "IB_DEVICE_MEM_MGT_EXTENSIONS %s, max_fast_reg_page_list_len %u",
	       at->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS ? "set" : "not set",
	       at->max_fast_reg_page_list_len);
	err = kt_frmr_setup();
	if (err) {
		report(false, "frmr-write-read", "ib_alloc_mr/ib_map_mr_sg of %d pages failed with %d",
		       FR_PAGES, err);
		return 0;
	}
	err = kt_frmr_basic() ?: kt_frmr_keygen() ?: kt_frmr_send_inv();
	err = err ?: kt_frmr_inv_refused("frmr-send-inv-dma-key", pd->local_dma_lkey,
					 "the PD's DMA MR, not a fast-register MR");
	return err ?: kt_frmr_foreign();
}

void kt_frmr_put(void)
{
	int i;

	while (nfq > 0)
		kt_qp_destroy(&fq[--nfq]);
	if (mr2)
		ib_dereg_mr(mr2);
	mr2 = NULL;
	if (mr)
		ib_dereg_mr(mr);
	mr = NULL;
	if (sgl2_mapped)
		ib_dma_unmap_sg(ibdev, sgl2, 1, DMA_BIDIRECTIONAL);
	sgl2_mapped = false;
	if (sgl_mapped)
		ib_dma_unmap_sg(ibdev, sgl, FR_PAGES, DMA_BIDIRECTIONAL);
	sgl_mapped = false;
	if (pd2)
		ib_dealloc_pd(pd2);
	pd2 = NULL;
	for (i = 0; i <= FR_PAGES; i++) {
		if (pages[i])
			__free_page(pages[i]);
		pages[i] = NULL;
	}
	if (lbuf) {
		ib_dma_unmap_single(ibdev, ldma, FR_PAGES * PAGE_SIZE, DMA_BIDIRECTIONAL);
		kfree(lbuf);
	}
	lbuf = NULL;
}
