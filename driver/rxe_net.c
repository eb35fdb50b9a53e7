// SPDX-License-Identifier: GPL-2.0
/* rxe_net.c - RoCE v2 over UDP/IPv4: packet building, routing, local loopback and receive. */

#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/inetdevice.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>
#include "rxe.h"

static struct socket *rxe_sock4;

/* Work out source/destination IP, MAC and IP fields from an AH attribute (RoCE v2 only). */
int rxe_av_from_attr(struct rxe_dev *dev, struct rxe_addr *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr sa;
	} s, d;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr || grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	rdma_gid2ip(&s.sa, &grh->sgid_attr->gid);
	rdma_gid2ip(&d.sa, &grh->dgid);
	if (s.sa.sa_family != AF_INET || d.sa.sa_family != AF_INET)
		return -EAFNOSUPPORT;	/* IPv6 GIDs are not supported yet */
	av->family = AF_INET;
	av->saddr.v4 = s.in.sin_addr.s_addr;
	av->daddr.v4 = d.in.sin_addr.s_addr;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->ttl = grh->hop_limit ? grh->hop_limit : 64;
	av->tos = grh->traffic_class;
	av->flow_label = grh->flow_label;
	return 0;
}

/* Allocate a packet for @opcode with @paylen payload bytes; skb->data points at the BTH. */
struct sk_buff *rxe_pkt_alloc(struct rxe_dev *dev, const struct rxe_addr *av, u8 opcode,
			      u32 paylen)
{
	const struct rxe_opinfo *info = &rxe_opinfo[opcode];
	u32 pad = (-paylen) & 3;
	u32 len = info->hdr_len + paylen + pad + RXE_ICRC_SIZE;
	unsigned int head = LL_RESERVED_SPACE(dev->ndev) + sizeof(struct iphdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(head + len, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, len);
	memset(skb->data, 0, info->hdr_len);
	memset(skb->data + info->hdr_len + paylen, 0, pad + RXE_ICRC_SIZE);
	rxe_pkt(skb)->opcode = opcode;
	rxe_pkt(skb)->hdr_len = info->hdr_len;
	rxe_pkt(skb)->paylen = paylen;
	return skb;
}

void rxe_bth_init(struct sk_buff *skb, u8 opcode, bool se, u32 qpn, bool ackreq, u32 psn,
		  u32 paylen)
{
	struct rxe_bth *bth = (struct rxe_bth *)skb->data;

	bth->opcode = opcode;
	bth->flags = (se ? BTH_SE : 0) | BTH_MIG | ((((-paylen) & 3) << BTH_PAD_SHIFT) & BTH_PAD_MASK);
	bth->pkey = cpu_to_be16(RXE_DEFAULT_PKEY);
	bth->qpn = cpu_to_be32(qpn & RXE_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? BTH_ACKREQ : 0) | (psn & RXE_PSN_MASK));
}

static void rxe_push_headers(struct sk_buff *skb, const struct rxe_addr *av, u16 sport,
			     struct net *net)
{
	unsigned int len = skb->len;
	struct udphdr *uh;
	struct iphdr *iph;

	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(RXE_UDP_PORT);
	uh->len = htons(len + sizeof(*uh));
	uh->check = 0;		/* RoCE v2 over IPv4: the ICRC protects the payload */

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = av->tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.v4;
	iph->daddr = av->daddr.v4;
	iph->id = 0;
	if (skb_dst(skb))
		ip_select_ident(net, skb, NULL);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	skb->ip_summed = CHECKSUM_NONE;
}

static void rxe_set_icrc(struct sk_buff *skb)
{
	u8 *bth = skb_transport_header(skb) + sizeof(struct udphdr);
	unsigned int len = skb_tail_pointer(skb) - bth - RXE_ICRC_SIZE;

	put_unaligned_le32(rxe_icrc(skb_network_header(skb), bth, len), bth + len);
}

/* Hand a packet addressed to one of this host's addresses straight to the receive path. */
static int rxe_loopback(struct net *net, struct sk_buff *skb, __be32 daddr)
{
	struct net_device *ndev;
	struct ib_device *ib = NULL;

	rcu_read_lock();
	ndev = __ip_dev_find(net, daddr, false);
	if (ndev)
		ib = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	rcu_read_unlock();
	if (!ib) {
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	skb_pull(skb, sizeof(struct iphdr));
	rxe_rcv(to_rdev(ib), skb);
	ib_device_put(ib);
	return 0;
}

/*
 * Add UDP and IP headers and the ICRC to a packet built by rxe_pkt_alloc() and send it, or
 * loop it back when the destination is local. Consumes the skb.
 */
int rxe_pkt_send(struct rxe_dev *dev, const struct rxe_addr *av, u16 sport, struct sk_buff *skb)
{
	struct net *net = dev_net(dev->ndev);
	struct flowi4 fl = {};
	struct rtable *rt;
	int err;

	if (av->family != AF_INET) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	if (inet_addr_type(net, av->daddr.v4) == RTN_LOCAL) {
		rxe_push_headers(skb, av, sport, net);
		rxe_set_icrc(skb);
		return rxe_loopback(net, skb, av->daddr.v4);
	}

	fl.flowi4_oif = dev->ndev->ifindex;
	fl.daddr = av->daddr.v4;
	fl.saddr = av->saddr.v4;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.flowi4_tos = av->tos & ~3;
	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);
	rxe_push_headers(skb, av, sport, net);
	rxe_set_icrc(skb);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->dev = rt->dst.dev;
	err = ip_local_out(net, rxe_sock4 ? rxe_sock4->sk : NULL, skb);
	return net_xmit_eval(err) ? -EAGAIN : 0;
}

/*
 * Receive one RoCE v2 packet: skb->data is at the UDP header, the network header is set
 * and the skb is linear. Every header field is checked before use; the packet is queued
 * to its QP's worker or dropped. Consumes the skb.
 */
void rxe_rcv(struct rxe_dev *dev, struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct rxe_pkt *pkt = rxe_pkt(skb);
	const struct rxe_opinfo *info;
	struct rxe_bth *bth;
	struct rxe_qp *qp;
	unsigned int len, pad;
	bool queued = false;

	if (skb_network_header_len(skb) < 0 ||
	    skb->data - skb_network_header(skb) != sizeof(struct iphdr) ||
	    iph->version != 4 || iph->ihl != 5)
		goto drop;
	if (skb->len < sizeof(struct udphdr) + sizeof(struct rxe_bth) + RXE_ICRC_SIZE)
		goto drop;
	if (ntohs(udp_hdr(skb)->len) < skb->len)
		skb_trim(skb, ntohs(udp_hdr(skb)->len));
	skb_pull(skb, sizeof(struct udphdr));

	bth = (struct rxe_bth *)skb->data;
	info = &rxe_opinfo[bth->opcode];
	if (!(info->mask & RXE_VALID) || (bth->flags & BTH_TVER_MASK) != 0)
		goto drop;
	if ((be16_to_cpu(bth->pkey) & 0x7fff) != 0x7fff)
		goto drop;
	pad = (bth->flags & BTH_PAD_MASK) >> BTH_PAD_SHIFT;
	len = skb->len;
	if (len < info->hdr_len + pad + RXE_ICRC_SIZE)
		goto drop;
	pkt->opcode = bth->opcode;
	pkt->hdr_len = info->hdr_len;
	pkt->paylen = len - info->hdr_len - pad - RXE_ICRC_SIZE;
	if (pkt->paylen && !(info->mask & RXE_PAYLOAD))
		goto drop;
	pkt->qpn = be32_to_cpu(bth->qpn) & RXE_QPN_MASK;
	pkt->psn = be32_to_cpu(bth->apsn) & RXE_PSN_MASK;
	pkt->ackreq = !!(be32_to_cpu(bth->apsn) & BTH_ACKREQ);
	pkt->se = !!(bth->flags & BTH_SE);

	if (get_unaligned_le32(skb->data + len - RXE_ICRC_SIZE) !=
	    rxe_icrc(skb_network_header(skb), skb->data, len - RXE_ICRC_SIZE))
		goto drop;

	rcu_read_lock();
	qp = xa_load(&dev->qps, pkt->qpn);
	if (qp) {
		bool ud = qp->ib.qp_type == IB_QPT_UD || qp->ib.qp_type == IB_QPT_GSI;

		if (ud == !!(info->mask & RXE_UD)) {
			spin_lock_bh(&qp->rxq.lock);
			if (!qp->dying && skb_queue_len(&qp->rxq) < RXE_RXQ_MAX) {
				__skb_queue_tail(&qp->rxq, skb);
				queued = true;
			}
			spin_unlock_bh(&qp->rxq.lock);
			if (queued)
				queue_work(rxe_wq, &qp->work);
		}
	}
	rcu_read_unlock();
	if (queued)
		return;
drop:
	kfree_skb(skb);
}

static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ib;

	ib = ib_device_get_by_netdev(skb->dev, RDMA_DRIVER_RXE);
	if (!ib || skb_linearize(skb)) {
		if (ib)
			ib_device_put(ib);
		kfree_skb(skb);
		return 0;
	}
	rxe_rcv(to_rdev(ib), skb);
	ib_device_put(ib);
	return 0;
}

int rxe_net_init(void)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	int err;

	cfg.family = AF_INET;
	cfg.local_udp_port = htons(RXE_UDP_PORT);
	err = udp_sock_create(&init_net, &cfg, &rxe_sock4);
	if (err) {
		pr_err("cannot bind UDP port %d (is another rdma_rxe loaded?): %d\n",
		       RXE_UDP_PORT, err);
		return err;
	}
	tcfg.encap_type = 1;
	tcfg.encap_rcv = rxe_udp_encap_recv;
	setup_udp_tunnel_sock(&init_net, rxe_sock4, &tcfg);
	return 0;
}

void rxe_net_exit(void)
{
	if (rxe_sock4) {
		udp_tunnel_sock_release(rxe_sock4);
		rxe_sock4 = NULL;
	}
}
