// SPDX-License-Identifier: GPL-2.0
/* rxe_icrc.c - RoCE v2 invariant CRC over the masked IP/UDP/BTH pseudo-header and the payload. */

#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include "rxe.h"

/*
 * CRC-32 state after a 0xffffffff seed has consumed the 8 bytes of ones that stand in for
 * the (absent) LRH, per the RoCE v2 annex; the computation continues from here.
 */
#define RXE_ICRC_SEED	0xdebb20e3

/*
 * Compute the ICRC of the packet whose IP header starts at @ip and whose BTH starts at
 * @bth; @len counts the bytes from the BTH up to (not including) the ICRC field.
 * Variant fields are replaced by ones on a copy; the packet itself is not touched.
 */
u32 rxe_icrc(const void *ip, const void *bth, unsigned int len)
{
	u8 ph[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + sizeof(struct rxe_bth)];
	const struct iphdr *ip4 = ip;
	unsigned int iplen;
	struct rxe_bth *b;
	struct udphdr *u;
	u32 crc;

	if (ip4->version == 4) {
		struct iphdr *h = (struct iphdr *)ph;

		iplen = sizeof(*h);
		memcpy(h, ip, iplen);
		h->tos = 0xff;
		h->ttl = 0xff;
		h->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *h = (struct ipv6hdr *)ph;

		iplen = sizeof(*h);
		memcpy(h, ip, iplen);
		h->priority = 0xf;
		memset(h->flow_lbl, 0xff, sizeof(h->flow_lbl));
		h->hop_limit = 0xff;
	}
	u = (struct udphdr *)(ph + iplen);
	memcpy(u, (const u8 *)ip + iplen, sizeof(*u));
	u->check = CSUM_MANGLED_0;
	b = (struct rxe_bth *)(u + 1);
	memcpy(b, bth, sizeof(*b));
	b->qpn |= cpu_to_be32(~RXE_QPN_MASK);

	crc = crc32_le(RXE_ICRC_SEED, ph, iplen + sizeof(*u) + sizeof(*b));
	crc = crc32_le(crc, (const u8 *)bth + sizeof(*b), len - sizeof(*b));
	return ~crc;
}
