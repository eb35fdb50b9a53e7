// SPDX-License-Identifier: GPL-2.0
/* rxe_net.c - RoCE v2 over UDP/IPv4: packet building, routing, local loopback and receive. */

#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/inetdevice.h>
#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>
#include "rxe.h"

static struct socket *rxe_sock4;
static struct socket *rxe_sock6;

/* Work out source/destination IP, MAC and IP fields from an AH attribute (RoCE v2 only). */
int rxe_av_from_attr(struct rxe_dev *dev, struct rxe_addr *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	struct net_device *ndev;
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
	if (s.sa.sa_family != d.sa.sa_family)
		return -EINVAL;		/* IPv4 to IPv6 or the other way round */
	av->family = s.sa.sa_family;
	if (av->family == AF_INET) {
		av->saddr.v4 = s.in.sin_addr.s_addr;
		av->daddr.v4 = d.in.sin_addr.s_addr;
	} else {
		av->saddr.v6 = s.in6.sin6_addr;
		av->daddr.v6 = d.in6.sin6_addr;
	}
	/* Send through the GID's own netdev: a GID of a VLAN device goes out on that VLAN. */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(grh->sgid_attr);
	if (!IS_ERR(ndev))
		av->ifindex = ndev->ifindex;
	rcu_read_unlock();
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
	unsigned int head = LL_RESERVED_SPACE(dev->ndev) + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	/* a softirq run (RXE_RUN_SOFTIRQ) sends ACKs and READ responses too */
	skb = alloc_skb(head + len, in_task() ? GFP_KERNEL : GFP_ATOMIC);
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

/*
 * A packet for @opcode whose @paylen payload bytes will be page fragments (rxe_sgl_to_frags(),
 * then rxe_pkt_add_tail() for the pad and ICRC): only the headers are allocated here.
 */
struct sk_buff *rxe_pkt_alloc_paged(struct rxe_dev *dev, const struct rxe_addr *av, u8 opcode,
				    u32 paylen)
{
	const struct rxe_opinfo *info = &rxe_opinfo[opcode];
	unsigned int head = LL_RESERVED_SPACE(dev->ndev) + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(head + info->hdr_len, in_task() ? GFP_KERNEL : GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, info->hdr_len);
	memset(skb->data, 0, info->hdr_len);
	rxe_pkt(skb)->opcode = opcode;
	rxe_pkt(skb)->hdr_len = info->hdr_len;
	rxe_pkt(skb)->paylen = paylen;
	return skb;
}

/*
 * The pad and ICRC bytes of a paged packet, zeroed, as its last fragment (from the per-CPU page
 * fragment cache; freeing the skb returns it). The ICRC is filled in when the packet goes out.
 */
int rxe_pkt_add_tail(struct sk_buff *skb, u32 paylen)
{
	unsigned int n = ((-paylen) & 3) + RXE_ICRC_SIZE, i = skb_shinfo(skb)->nr_frags;
	struct page *page;
	u8 *p;

	if (i >= MAX_SKB_FRAGS)
		return -E2BIG;
	p = netdev_alloc_frag(n);
	if (!p)
		return -ENOMEM;
	memset(p, 0, n);
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, i, page, p - (u8 *)page_address(page), n);
	skb->len += n;
	skb->data_len += n;
	skb->truesize += n;
	/* user memory: whoever would change or checksum the bytes in place must copy them */
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	return 0;
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

static void rxe_push_udp(struct sk_buff *skb, u16 sport)
{
	unsigned int len = skb->len;
	struct udphdr *uh;

	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(RXE_UDP_PORT);
	uh->len = htons(len + sizeof(*uh));
	uh->check = 0;		/* IPv4: the ICRC protects the payload; IPv6: set after the ICRC */
}

static void rxe_push_ip4(struct sk_buff *skb, const struct rxe_addr *av, struct net *net)
{
	struct iphdr *iph;

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

static void rxe_push_ip6(struct sk_buff *skb, const struct rxe_addr *av)
{
	struct ipv6hdr *ip6;

	skb_push(skb, sizeof(*ip6));
	skb_reset_network_header(skb);
	ip6 = ipv6_hdr(skb);
	ip6_flow_hdr(ip6, av->tos, cpu_to_be32(av->flow_label & 0xfffff));
	ip6->payload_len = htons(skb->len - sizeof(*ip6));
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = av->ttl;
	ip6->saddr = av->saddr.v6;
	ip6->daddr = av->daddr.v6;
	skb->protocol = htons(ETH_P_IPV6);
	skb->ip_summed = CHECKSUM_NONE;
}

/*
 * IPv6 requires a UDP checksum; it covers the ICRC, so it is set up last. It is left to the
 * netdev (CHECKSUM_PARTIAL: the pseudo-header sum is seeded here): a NIC that checksums UDP
 * over IPv6 does it in hardware, and for one that does not the stack's transmit path computes
 * it in software (skb_checksum_help()), once, as for any other UDP tunnel.
 */
static void rxe_udp6_csum(struct sk_buff *skb)
{
	struct udphdr *uh = udp_hdr(skb);

	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	uh->check = ~csum_ipv6_magic(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,
				     ntohs(uh->len), IPPROTO_UDP, 0);
}

static void rxe_set_icrc(struct sk_buff *skb)
{
	unsigned int off = skb_transport_offset(skb) + sizeof(struct udphdr);
	unsigned int len = skb->len - off - RXE_ICRC_SIZE;
	u8 *bth = skb->data + off;
	__le32 icrc;

	if (!skb_is_nonlinear(skb)) {
		put_unaligned_le32(rxe_icrc(skb_network_header(skb), bth, len), bth + len);
		return;
	}
	icrc = cpu_to_le32(rxe_icrc_at(skb, off, len));	/* the payload in page fragments */
	skb_store_bits(skb, off + len, &icrc, sizeof(icrc));
}

/* The rxe device of @ndev, or of the device under it when @ndev is a VLAN; a reference. */
static struct ib_device *rxe_ib_of_netdev(struct net_device *ndev)
{
	struct ib_device *ib = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);

	if (!ib && is_vlan_dev(ndev))
		ib = ib_device_get_by_netdev(vlan_dev_real_dev(ndev), RDMA_DRIVER_RXE);
	return ib;
}

/*
 * The rxe device whose netdev (or a VLAN on it) holds @av's destination, one of this host's
 * addresses, IPv4 or IPv6 alike: a reference, or NULL. Called under rcu_read_lock().
 */
static struct ib_device *rxe_ib_of_daddr(struct net *net, const struct rxe_addr *av)
{
	struct net_device *ndev;

	if (av->family == AF_INET)
		ndev = __ip_dev_find(net, av->daddr.v4, false);
	else
		ndev = ipv6_dev_find(net, &av->daddr.v6, NULL);
	return ndev ? rxe_ib_of_netdev(ndev) : NULL;
}

/* Hand a packet addressed to one of this host's addresses straight to its device's receive. */
static int rxe_loopback(struct rxe_dev *dev, struct net *net, struct sk_buff *skb,
			const struct rxe_addr *av, enum rxe_src src)
{
	struct ib_device *ib;

	rcu_read_lock();
	ib = rxe_ib_of_daddr(net, av);
	rcu_read_unlock();
	if (!ib) {
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	skb_pull(skb, skb_transport_offset(skb));
	rxe_rcv(to_rdev(ib), skb, src);
	ib_device_put(ib);
	return 0;
}

int rxe_route_init(struct rxe_route *r)
{
	r->known = false;
	return dst_cache_init(&r->dst, GFP_KERNEL_ACCOUNT);
}

/* The path changed (modify_qp with IB_QP_AV): look it up again at the next packet. */
void rxe_route_reset(struct rxe_route *r)
{
	r->known = false;
	dst_cache_reset(&r->dst);
}

void rxe_route_destroy(struct rxe_route *r)
{
	dst_cache_destroy(&r->dst);
}

static int rxe_route_genid(struct net *net, int family)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6)
		return rt_genid_ipv6(net);
#endif
	return rt_genid_ipv4(net);
}

/*
 * Is the destination of @av one of this host's addresses (of any netdev: the route with the
 * QP's output interface would not say)? With @r, the answer of an earlier packet while the
 * namespace's routing generation has not moved; the generation is read before the lookup, so
 * a change during it only makes the next packet look again.
 */
static bool rxe_is_local(struct rxe_dev *dev, struct net *net, const struct rxe_addr *av,
			 struct rxe_route *r)
{
	int genid = 0;
	bool local;

	if (r) {
		genid = rxe_route_genid(net, av->family);
		if (r->known && r->genid == genid)
			return r->local;
	}
	rxe_counter_inc(dev, RXE_CNT_ROUTE_LOOKUPS);
	if (av->family == AF_INET)
		local = inet_addr_type(net, av->daddr.v4) == RTN_LOCAL;
	else
		local = ipv6_chk_addr(net, &av->daddr.v6, NULL, 0);
	if (r) {
		r->genid = genid;
		r->local = local;
		r->known = true;
	}
	return local;
}

static int rxe_send6(struct rxe_dev *dev, struct net *net, const struct rxe_addr *av,
		     struct sk_buff *skb, struct rxe_route *r)
{
	struct dst_entry *dst = NULL;
	struct in6_addr saddr;
	struct flowi6 fl = {};
	int err;

	if (r) {	/* the per-CPU cache wants no migration between its get and set */
		local_bh_disable();
		dst = dst_cache_get_ip6(&r->dst, &saddr);
		local_bh_enable();
	}
	if (!dst) {
		fl.flowi6_oif = av->ifindex ? av->ifindex : dev->ndev->ifindex;
		fl.daddr = av->daddr.v6;
		fl.saddr = av->saddr.v6;
		fl.flowi6_proto = IPPROTO_UDP;
		rxe_counter_inc(dev, RXE_CNT_ROUTE_LOOKUPS);
		dst = rxe_ip6_dst_lookup_flow(net, rxe_sock6 ? rxe_sock6->sk : NULL, &fl);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (r) {
			local_bh_disable();
			dst_cache_set_ip6(&r->dst, dst, &fl.saddr);
			local_bh_enable();
		}
	}
	skb_dst_set(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb->dev = dst->dev;
	/* Multicast: no socket, so the stack loops a copy back to this host's members (a UDP
	 * tunnel socket has multicast loopback off). */
	err = ip6_local_out(net, ipv6_addr_is_multicast(&av->daddr.v6) ? NULL :
			    rxe_sock6 ? rxe_sock6->sk : NULL, skb);
	return net_xmit_eval(err) ? -EAGAIN : 0;
}

/*
 * The IPv4 route for @av: from @r's cache while it holds (dst_cache: until a route or address
 * change makes the entry obsolete), else looked up (and kept in @r).
 */
static struct rtable *rxe_route4(struct rxe_dev *dev, struct net *net, const struct rxe_addr *av,
				 struct rxe_route *r)
{
	struct rtable *rt = NULL;
	struct flowi4 fl = {};
	__be32 saddr;

	if (r) {	/* the per-CPU cache wants no migration between its get and set */
		local_bh_disable();
		rt = dst_cache_get_ip4(&r->dst, &saddr);
		local_bh_enable();
		if (rt)
			return rt;
	}
	fl.flowi4_oif = av->ifindex ? av->ifindex : dev->ndev->ifindex;
	fl.daddr = av->daddr.v4;
	fl.saddr = av->saddr.v4;
	fl.flowi4_proto = IPPROTO_UDP;
	rxe_flowi4_set_tos(&fl, av->tos & ~3);
	rxe_counter_inc(dev, RXE_CNT_ROUTE_LOOKUPS);
	rt = ip_route_output_key(net, &fl);
	if (!IS_ERR(rt) && r) {
		local_bh_disable();
		dst_cache_set_ip4(&r->dst, &rt->dst, fl.saddr);
		local_bh_enable();
	}
	return rt;
}

/*
 * Add UDP and IP headers and the ICRC to a packet built by rxe_pkt_alloc() and send it, or
 * loop it back when the destination is local. Consumes the skb.
 */
static int __rxe_pkt_send(struct rxe_dev *dev, const struct rxe_addr *av, u16 sport,
			  struct sk_buff *skb, enum rxe_src src, struct rxe_route *r)
{
	struct net *net = dev_net(dev->ndev);
	struct rtable *rt;
	int err;

	rxe_push_udp(skb, sport);
	if (rxe_is_local(dev, net, av, r)) {
		if (av->family == AF_INET)
			rxe_push_ip4(skb, av, net);
		else
			rxe_push_ip6(skb, av);
		/* It never leaves this host: no ICRC (rxe_rcv() skips the check for it). */
		err = rxe_loopback(dev, net, skb, av, src);
		if (!err)
			rxe_counter_inc(dev, RXE_CNT_LOOPBACK_PKTS);
		return err;
	}
	if (av->family == AF_INET6) {
		rxe_push_ip6(skb, av);
		rxe_set_icrc(skb);
		rxe_udp6_csum(skb);
		return rxe_send6(dev, net, av, skb, r);
	}

	rt = rxe_route4(dev, net, av, r);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);
	rxe_push_ip4(skb, av, net);
	rxe_set_icrc(skb);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->dev = rt->dst.dev;
	/*
	 * A multicast packet goes out without the socket: setup_udp_tunnel_sock() turned its
	 * multicast loopback off, and the stack's loopback copy is how this host's own members
	 * (QPs attached to the group, rxe_mcast.c) get it.
	 */
	err = ip_local_out(net, ipv4_is_multicast(av->daddr.v4) ? NULL :
			   rxe_sock4 ? rxe_sock4->sk : NULL, skb);
	return net_xmit_eval(err) ? -EAGAIN : 0;
}

/* Is connected QP @qp's destination one of this host's addresses (its cached answer)? */
bool rxe_qp_dest_local(struct rxe_qp *qp)
{
	return rxe_is_local(qp->dev, dev_net(qp->dev->ndev), &qp->av, &qp->route);
}

/*
 * Send a packet of @qp (called by a run of it, qp->lock held) to @av. A packet for a local
 * address is delivered at once; when this run is a top-level one in process context (not
 * nested, not in a softirq: qp->nested), the target (a user QP) may run in this context, one
 * level deep (rxe_rcv()).
 */
int rxe_pkt_send(struct rxe_qp *qp, const struct rxe_addr *av, struct sk_buff *skb)
{
	/* A connected QP's path is fixed until modify_qp: its route is kept (UD's vary by AH). */
	int err = __rxe_pkt_send(qp->dev, av, qp->src_port, skb,
				 qp->nested ? RXE_SRC_LOCAL : RXE_SRC_LOCAL_RUN,
				 av == &qp->av ? &qp->route : NULL);

	rxe_counter_inc(qp->dev, err ? RXE_CNT_SEND_ERR : RXE_CNT_SENT_PKTS);
	return err;
}

/*
 * Loopback direct placement (rxe_req.c): the QP at the other end of connected QP @qp's path
 * when that end is a user RC QP of an rxe device of this host; NULL otherwise. It is returned
 * with its runners count raised (destroy_qp waits for it; rxe_qp_runner_put() drops it); under
 * its lock, rxe_peer_is_ours() then says whether its own path leads back to @qp. Whether the
 * destination is local is the QP's cached answer (rxe_is_local()).
 */
struct rxe_qp *rxe_local_peer(struct rxe_qp *qp)
{
	struct net *net = dev_net(qp->dev->ndev);
	struct rxe_qp *peer = NULL;
	struct ib_device *ib;

	if (!rxe_is_local(qp->dev, net, &qp->av, &qp->route))
		return NULL;
	rcu_read_lock();
	ib = rxe_ib_of_daddr(net, &qp->av);
	if (ib)
		peer = xa_load(&to_rdev(ib)->qps, qp->attr.dest_qp_num);
	if (peer && peer->user && peer->ib.qp_type == IB_QPT_RC && !READ_ONCE(peer->dying))
		atomic_inc(&peer->runners);	/* inside the RCU section, as rxe_rcv() */
	else
		peer = NULL;
	rcu_read_unlock();
	if (ib)
		ib_device_put(ib);
	return peer;
}

/*
 * Under @peer's lock: does @peer's path lead back to @qp -- its destination QPN is @qp's and
 * its addresses are @qp's swapped, which is what @qp's packets would have to match there
 * (rxe_pkt_from_peer()) and where its answers would go?
 */
bool rxe_peer_is_ours(const struct rxe_qp *peer, const struct rxe_qp *qp)
{
	const struct rxe_addr *a = &qp->av, *b = &peer->av;

	if (peer->attr.dest_qp_num != qp->ib.qp_num || a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return b->daddr.v4 == a->saddr.v4 && b->saddr.v4 == a->daddr.v4;
	return ipv6_addr_equal(&b->daddr.v6, &a->saddr.v6) &&
	       ipv6_addr_equal(&b->saddr.v6, &a->daddr.v6);
}

/* Drop a runners count taken by rxe_rcv() or rxe_local_peer(); destroy_qp waits for none. */
void rxe_qp_runner_put(struct rxe_qp *qp)
{
	if (atomic_dec_and_test(&qp->runners))
		wake_up_var(&qp->runners);
}

/*
 * True when a received packet came from the peer of the path @av and was addressed to its
 * source: an RC QP talks only to the host it is connected to (checked before any other
 * processing, so a third host cannot acknowledge, NAK or feed someone's QP).
 */
bool rxe_pkt_from_peer(const struct rxe_addr *av, struct sk_buff *skb)
{
	if (av->family == AF_INET)
		return ip_hdr(skb)->version == 4 && ip_hdr(skb)->saddr == av->daddr.v4 &&
		       ip_hdr(skb)->daddr == av->saddr.v4;
	if (av->family == AF_INET6)
		return ip_hdr(skb)->version == 6 &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr.v6) &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &av->saddr.v6);
	return false;
}

/*
 * May @qp queue a packet at all: is it ready to receive (RTR or later, not in error), and did
 * the packet come from its peer when it is connected? rxe_qp_run() checks the same again under
 * qp->lock when it takes the packet; here it keeps out of the QP's queue (RXE_RXQ_MAX) what the
 * run would drop anyway, so a third host's flood cannot fill it and crowd out the peer's
 * packets, as it could while the run waited, e.g. behind a long READ (issue 36). Lockless: a
 * modify_qp racing with it (the state, the path) decides one packet either way, as for stock,
 * which checks both before it queues.
 */
static bool rxe_qp_admits(const struct rxe_qp *qp, struct sk_buff *skb)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (state < IB_QPS_RTR || state == IB_QPS_ERR)
		return false;
	return !rxe_qp_is_conn(qp) || rxe_pkt_from_peer(&qp->av, skb);
}

/*
 * Receive one RoCE v2 packet: skb->data is at the UDP header, which is linear, and the
 * network header is set; the rest may lie in page fragments. Every header field is checked before use; the packet is queued
 * to its QP or dropped. A local packet (@src not RXE_SRC_WIRE) was built by this host's own
 * rxe_pkt_send() and never left it: it carries no ICRC to check. Consumes the skb.
 *
 * Who runs the QP then: from the wire (softirq), a user QP's run in the tasklet after this
 * receive batch if its lock is free (rxe_qp_rx_batch(): nothing in it sleeps), else its
 * holder; for a kernel QP, the
 * worker (a kernel consumer's handlers are not called from here). A packet
 * looped back by a top-level run (RXE_SRC_LOCAL_RUN: process context, the sender's qp->lock
 * held, no spinlock) runs its user QP here, nested, if its lock is free, or hands it to the
 * lock's holder (rxe_qp_run_now()). Only user QPs run nested: their completion and event
 * handlers are uverbs' (a spinlock and a wake-up), never a kernel consumer's that might call
 * back into the QP whose lock this context holds. A user QP's run may wait for an MR's copies
 * to drain (a LOCAL_INV, or a SEND with Invalidate, of a type 2 window over it), so no sender
 * holds an MR reference across a packet send: a READ response burst drops its reference
 * before it sends (rxe_read_continue(); issue 36). The QP is kept alive across the
 * sleepable run by qp->runners (destroy_qp waits for it), not by the RCU read lock.
 */
void rxe_rcv(struct rxe_dev *dev, struct sk_buff *skb, enum rxe_src src)
{
	bool local = src != RXE_SRC_WIRE, run = false, soft = false, ran = false;
	const struct iphdr *iph = ip_hdr(skb);
	int nhlen = skb->data - skb_network_header(skb);
	struct rxe_pkt *pkt = rxe_pkt(skb);
	const struct rxe_opinfo *info;
	struct rxe_bth *bth;
	struct rxe_qp *qp;
	unsigned int len, pad;
	bool queued = false;
	__le32 icrc;

	/* The UDP header follows an option-less IPv4 header or a bare IPv6 header. */
	if (!((nhlen == sizeof(struct iphdr) && iph->version == 4 && iph->ihl == 5) ||
	      (nhlen == sizeof(struct ipv6hdr) && iph->version == 6 &&
	       ipv6_hdr(skb)->nexthdr == IPPROTO_UDP)))
		goto drop;
	if (skb->len < sizeof(struct udphdr) + sizeof(struct rxe_bth) + RXE_ICRC_SIZE)
		goto drop;
	if (ntohs(udp_hdr(skb)->len) < skb->len && pskb_trim(skb, ntohs(udp_hdr(skb)->len)))
		goto drop;
	/*
	 * From the wire the payload may lie in page fragments: only the headers are made linear
	 * (the BTH now, the opcode's others below); the payload is read where it lies.
	 */
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(struct rxe_bth)))
		goto drop;
	skb_pull(skb, sizeof(struct udphdr));

	bth = (struct rxe_bth *)skb->data;
	info = &rxe_opinfo[bth->opcode];
	if (!(info->mask & RXE_VALID) || (bth->flags & BTH_TVER_MASK) != 0)
		goto drop;
	if ((be16_to_cpu(bth->pkey) & 0x7fff) != 0x7fff)
		goto drop;
	pad = (bth->flags & BTH_PAD_MASK) >> BTH_PAD_SHIFT;
	len = skb->len;
	if (len < info->hdr_len + pad + RXE_ICRC_SIZE || !pskb_may_pull(skb, info->hdr_len))
		goto drop;
	bth = (struct rxe_bth *)skb->data;	/* the pull may have moved the head */
	pkt->opcode = bth->opcode;
	pkt->hdr_len = info->hdr_len;
	pkt->paylen = len - info->hdr_len - pad - RXE_ICRC_SIZE;
	if (pkt->paylen && !(info->mask & RXE_PAYLOAD))
		goto drop;
	pkt->qpn = be32_to_cpu(bth->qpn) & RXE_QPN_MASK;
	pkt->psn = be32_to_cpu(bth->apsn) & RXE_PSN_MASK;
	pkt->ackreq = !!(be32_to_cpu(bth->apsn) & BTH_ACKREQ);
	pkt->se = !!(bth->flags & BTH_SE);

	if (!local && (skb_copy_bits(skb, len - RXE_ICRC_SIZE, &icrc, sizeof(icrc)) ||
		       le32_to_cpu(icrc) != rxe_icrc_skb(skb, len - RXE_ICRC_SIZE))) {
		rxe_dbg(dev, "bad ICRC, opcode 0x%02x qpn %u\n", pkt->opcode, pkt->qpn);
		goto drop;
	}

	rcu_read_lock();
	if (pkt->qpn == RXE_QPN_MASK && (info->mask & RXE_UD)) {
		/* the multicast QPN: a copy to every QP attached to the destination's group */
		int n = rxe_mcast_deliver(dev, skb);

		rcu_read_unlock();
		if (!n)
			goto drop;
		atomic64_add(n, &dev->stats[RXE_CNT_RCVD_PKTS]);
		kfree_skb(skb);
		return;
	}
	qp = xa_load(&dev->qps, pkt->qpn);
	if (qp) {
		if (rxe_qp_takes(qp, info->mask) && rxe_qp_admits(qp, skb)) {
			queued = rxe_qp_queue_rx(qp, skb);
			if (queued && src != RXE_SRC_LOCAL && qp->user) {
				atomic_inc(&qp->runners);	/* before the RCU grace period */
				run = src == RXE_SRC_LOCAL_RUN;
				soft = !run;
			} else if (queued) {
				rxe_qp_want(qp);
			}
		}
	}
	rcu_read_unlock();
	if (run) {
		ran = rxe_qp_run_now(qp, RXE_RUN_NESTED);
		rxe_qp_runner_put(qp);
		if (ran)
			rxe_counter_inc(dev, RXE_CNT_LOOPBACK_INLINE);
	} else if (soft) {
		ran = rxe_qp_rx_batch(qp);	/* takes the runners count over */
	}
	if (queued) {
		rxe_counter_inc(dev, RXE_CNT_RCVD_PKTS);
		/* a response not handled by a run started for it (stock's meaning): a wire
		 * response listed for a receive batch counts as handled by the batch's run */
		if (!(info->mask & RXE_REQ) && !ran)
			rxe_counter_inc(dev, RXE_CNT_ACK_DEFERRED);
		return;
	}
drop:
	rxe_counter_inc(dev, RXE_CNT_RCVD_DROPPED);
	kfree_skb(skb);
}

/* Queue a received packet to @qp; false (not queued) when it is dying or its queue is full. */
bool rxe_qp_queue_rx(struct rxe_qp *qp, struct sk_buff *skb)
{
	bool queued = false;

	spin_lock_bh(&qp->rxq.lock);
	if (!qp->dying && skb_queue_len(&qp->rxq) < RXE_RXQ_MAX) {
		__skb_queue_tail(&qp->rxq, skb);
		queued = true;
	}
	spin_unlock_bh(&qp->rxq.lock);
	if (!queued && !READ_ONCE(qp->dying))
		rxe_dbg_qp(qp, "receive queue full (%u packets): opcode 0x%02x psn %u dropped\n",
			   RXE_RXQ_MAX, rxe_pkt(skb)->opcode, rxe_pkt(skb)->psn);
	return queued;
}

static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ib;

	ib = rxe_ib_of_netdev(skb->dev);	/* packets on a VLAN reach the rxe under it */
	if (!ib || (skb_has_frag_list(skb) && skb_linearize(skb))) {
		if (ib) {
			rxe_counter_inc(to_rdev(ib), RXE_CNT_RCVD_DROPPED);
			ib_device_put(ib);
		}
		kfree_skb(skb);
		return 0;
	}
	if (skb_is_nonlinear(skb))
		rxe_counter_inc(to_rdev(ib), RXE_CNT_RCVD_PAGED);
	rxe_rcv(to_rdev(ib), skb, RXE_SRC_WIRE);
	ib_device_put(ib);
	return 0;
}

/* An IPv6-only UDP socket on 4791 that accepts zero checksums (the ICRC covers the data). */
static int rxe_sock6_create(struct net *net, struct socket **sockp)
{
	struct sockaddr_in6 addr = { .sin6_family = AF_INET6,
				     .sin6_port = htons(RXE_UDP_PORT) };
	struct socket *sock;
	int err;

	err = sock_create_kern(net, AF_INET6, SOCK_DGRAM, 0, &sock);
	if (err)
		return err;
	err = ip6_sock_set_v6only(sock->sk);
	if (!err)
		err = kernel_bind(sock, rxe_bind_addr(&addr), sizeof(addr));
	if (err) {
		sock_release(sock);
		return err;
	}
	udp_set_no_check6_rx(sock->sk, true);
	*sockp = sock;
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
	setup_udp_tunnel_sock(&init_net, rxe_udp_tunnel_sock(rxe_sock4), &tcfg);

	err = rxe_sock6_create(&init_net, &rxe_sock6);
	if (err) {
		/* IPv4 still works; IPv6 GIDs then only reach local addresses. */
		pr_warn("no IPv6 UDP socket on port %d (%d): RoCE v2 over IPv6 is receive-disabled\n",
			RXE_UDP_PORT, err);
		rxe_sock6 = NULL;
		return 0;
	}
	setup_udp_tunnel_sock(&init_net, rxe_udp_tunnel_sock(rxe_sock6), &tcfg);
	return 0;
}

void rxe_net_exit(void)
{
	if (rxe_sock6) {
		udp_tunnel_sock_release(rxe_udp_tunnel_sock(rxe_sock6));
		rxe_sock6 = NULL;
	}
	if (rxe_sock4) {
		udp_tunnel_sock_release(rxe_udp_tunnel_sock(rxe_sock4));
		rxe_sock4 = NULL;
	}
}
