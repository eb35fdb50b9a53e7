// SPDX-License-Identifier: GPL-2.0
/* rxe_mcast.c - UD multicast: groups, QP attach/detach, the netdev's membership, delivery. */

#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include "rxe.h"

/*
 * A multicast group of the device: its MGID (an IPv4-mapped or IPv6 multicast address, RoCE v2)
 * and the UD QPs attached to it. The first attach joins the group on the netdev (IGMP/MLD
 * through the kernel's own membership, which also programs the MAC filter), the last detach
 * leaves it. Groups live in dev->mcgs under dev->mcg_lock (a mutex: joining takes the RTNL);
 * receive walks them under RCU.
 */
struct rxe_mcg {
	struct list_head	node;		/* in dev->mcgs */
	union ib_gid		mgid;
	int			family;		/* AF_INET or AF_INET6 */
	struct in6_addr		addr;		/* IPv6, or IPv4 in its last 4 bytes */
	u32			nqp;
	struct rxe_qp		*qp[RXE_MAX_MCAST_QP_ATTACH];
	struct rcu_head		rcu;
};

/* The group of @mgid, or NULL; dev->mcg_lock or RCU held. */
static struct rxe_mcg *rxe_mcg_find(struct rxe_dev *dev, const union ib_gid *mgid)
{
	struct rxe_mcg *g;

	list_for_each_entry_rcu(g, &dev->mcgs, node, lockdep_is_held(&dev->mcg_lock))
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

/* Join (or leave) @g's group on the netdev. */
static int rxe_mcg_netdev(struct rxe_dev *dev, struct rxe_mcg *g, bool join)
{
	struct in_device *in_dev;
	int err = 0;

	if (g->family == AF_INET6)
		return join ? ipv6_dev_mc_inc(dev->ndev, &g->addr) :
			      ipv6_dev_mc_dec(dev->ndev, &g->addr);
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(dev->ndev);
	if (!in_dev)
		err = -ENODEV;		/* no IPv4 on the netdev */
	else if (join)
		ip_mc_inc_group(in_dev, g->addr.s6_addr32[3]);
	else
		ip_mc_dec_group(in_dev, g->addr.s6_addr32[3]);
	rtnl_unlock();
	return err;
}

int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *dev = qp->dev;
	struct sockaddr_storage ss;
	struct rxe_mcg *g;
	int err = 0;
	u32 i;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	rdma_gid2ip((struct sockaddr *)&ss, mgid);
	if (ss.ss_family == AF_INET ?
	    !ipv4_is_multicast(((struct sockaddr_in *)&ss)->sin_addr.s_addr) :
	    !ipv6_addr_is_multicast(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		return -EINVAL;

	mutex_lock(&dev->mcg_lock);
	g = rxe_mcg_find(dev, mgid);
	if (!g) {
		if (dev->n_mcg >= RXE_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto out;
		}
		g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		g->mgid = *mgid;
		g->family = ss.ss_family;
		memcpy(&g->addr, mgid->raw, sizeof(g->addr));
		err = rxe_mcg_netdev(dev, g, true);
		if (err) {
			kfree(g);
			goto out;
		}
		list_add_tail_rcu(&g->node, &dev->mcgs);
		dev->n_mcg++;
	}
	for (i = 0; i < g->nqp; i++)
		if (g->qp[i] == qp)
			goto out;	/* already attached: nothing to do */
	if (g->nqp >= RXE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	WRITE_ONCE(g->qp[g->nqp], qp);
	smp_store_release(&g->nqp, g->nqp + 1);
	qp->n_mcast++;
out:
	mutex_unlock(&dev->mcg_lock);
	return err;
}

/* Take @qp out of @g (dev->mcg_lock held); the last QP out frees the group. */
static void rxe_mcg_remove(struct rxe_dev *dev, struct rxe_mcg *g, u32 i)
{
	struct rxe_qp *qp = g->qp[i];

	/* Receive reads qp[] under RCU: the slot is replaced, and the QP waits for the grace
	 * period before it is freed (rxe_destroy_qp() calls synchronize_rcu()). */
	WRITE_ONCE(g->qp[i], g->qp[g->nqp - 1]);
	smp_store_release(&g->nqp, g->nqp - 1);
	qp->n_mcast--;
	if (g->nqp)
		return;
	list_del_rcu(&g->node);
	dev->n_mcg--;
	rxe_mcg_netdev(dev, g, false);
	kfree_rcu(g, rcu);
}

int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *dev = qp->dev;
	struct rxe_mcg *g;
	int err = -EINVAL;	/* not attached to that group */
	u32 i;

	mutex_lock(&dev->mcg_lock);
	g = rxe_mcg_find(dev, mgid);
	for (i = 0; g && i < g->nqp; i++) {
		if (g->qp[i] == qp) {
			rxe_mcg_remove(dev, g, i);
			err = 0;
			break;
		}
	}
	mutex_unlock(&dev->mcg_lock);
	return err;
}

/* A QP being destroyed leaves every group it is still in (a kernel consumer may not detach). */
void rxe_mcast_qp_gone(struct rxe_qp *qp)
{
	struct rxe_dev *dev = qp->dev;
	struct rxe_mcg *g, *tmp;
	u32 i;

	if (!qp->n_mcast)
		return;
	mutex_lock(&dev->mcg_lock);
	list_for_each_entry_safe(g, tmp, &dev->mcgs, node) {
		for (i = 0; i < g->nqp; i++) {
			if (g->qp[i] == qp) {
				rxe_mcg_remove(dev, g, i);
				break;
			}
		}
	}
	mutex_unlock(&dev->mcg_lock);
}

/*
 * Deliver a UD packet sent to the multicast QPN (0xffffff) to a copy of it for every QP
 * attached to the group its destination address names. Called under rcu_read_lock() from
 * rxe_rcv(); consumes nothing (the caller frees the original). Returns the copies queued.
 */
int rxe_mcast_deliver(struct rxe_dev *dev, struct sk_buff *skb)
{
	union ib_gid mgid;
	struct rxe_mcg *g;
	int queued = 0;
	u32 i, n;

	if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, (struct in6_addr *)mgid.raw);
	else
		memcpy(mgid.raw, &ipv6_hdr(skb)->daddr, sizeof(mgid));
	g = rxe_mcg_find(dev, &mgid);
	if (!g)
		return 0;
	n = smp_load_acquire(&g->nqp);
	for (i = 0; i < n; i++) {
		struct rxe_qp *qp = READ_ONCE(g->qp[i]);
		struct sk_buff *c;

		if (!qp || READ_ONCE(qp->dying))
			continue;
		c = skb_clone(skb, GFP_ATOMIC);
		if (!c)
			break;
		memcpy(c->cb, skb->cb, sizeof(c->cb));
		if (rxe_qp_queue_rx(qp, c)) {
			rxe_qp_want(qp);
			queued++;
		} else {
			kfree_skb(c);
		}
	}
	return queued;
}

/* The device goes: leave what is left (QPs are gone by now, so normally nothing). */
void rxe_mcast_cleanup(struct rxe_dev *dev)
{
	struct rxe_mcg *g, *tmp;

	mutex_lock(&dev->mcg_lock);
	list_for_each_entry_safe(g, tmp, &dev->mcgs, node) {
		list_del_rcu(&g->node);
		rxe_mcg_netdev(dev, g, false);
		kfree_rcu(g, rcu);
	}
	dev->n_mcg = 0;
	mutex_unlock(&dev->mcg_lock);
}
