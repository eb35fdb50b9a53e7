/* SPDX-License-Identifier: GPL-2.0 */
/* rxe_ktest.h - what the rxe_ktest cases share: the device, the PD, QPs and the reporting. */
#ifndef RXE_KTEST_H
#define RXE_KTEST_H

#include <linux/completion.h>
#include <rdma/ib_verbs.h>

#define KT_WAIT (10 * HZ)
#define KT_BUF 4096

extern struct ib_device *ibdev;
extern struct ib_pd *pd;
extern int gid;
extern int failures;

#define report(ok, name, fmt, ...) do {						\
	bool __ok = (ok);							\
	pr_info("rxe_ktest: %s %s: " fmt "\n", __ok ? "ok" : "FAIL", name, ##__VA_ARGS__); \
	if (!__ok)								\
		failures++;							\
} while (0)

/* One QP with its own CQ and buffer; the handlers record what they saw here. */
struct kt_qp {
	struct ib_qp *qp;
	struct ib_cq *cq;
	void *buf;
	u64 dma;
	struct completion comp;		/* one per completion-handler call */
	struct completion event;	/* one per async event */
	int ncomp, nerr, last_status;
	struct ib_wc last;		/* the newest completion */
	atomic_t fatal;
	bool comp_sleepable, ev_sleepable;
	bool ev_entered;		/* the event handler started (it may not have returned) */
	int comp_query_err, ev_query_err, ev_modify_err;
	enum ib_qp_state ev_state;
};

int kt_qp_create_pd(struct kt_qp *e, enum ib_qp_type type, struct ib_pd *qpd);
void kt_qp_destroy(struct kt_qp *e);
int kt_rc_connect(struct kt_qp *e, u32 dqpn, int index);
bool kt_wait_comps(struct kt_qp *e, int n);
int kt_post_recv(struct kt_qp *e);

/* rxe_ktest_frmr.c: fast-register MRs, local and remote invalidation */
int kt_frmr(void);
void kt_frmr_put(void);

/* rxe_ktest_verbs.c: UC/UD post-time refusals, LAST_WQE_REACHED on a kernel SRQ QP */
int kt_verbs(void);

#endif /* RXE_KTEST_H */
