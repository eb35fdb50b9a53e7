// SPDX-License-Identifier: GPL-2.0
/* rxe_icrc.c - RoCE v2 invariant CRC over the masked IP/UDP/BTH pseudo-header and the payload. */

#include <linux/crc32.h>
#include <crypto/hash.h>
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
 * The CRC-32 engine (compat.h decides, RXE_ICRC_SHASH): where the CRC library's crc32_le()
 * is the generic table code (before 6.14), the crypto API's "crc32" is used when an
 * accelerated driver provides it (crc32-pclmul on x86: carry-less multiply); otherwise, and on
 * kernels whose crc32_le() is itself arch-accelerated, crc32_le(). Both compute the same CRC:
 * the shash is seeded with RXE_ICRC_SEED as its key, and neither inverts at the end. The
 * engine in use is /sys/module/rdma_rxe/parameters/icrc_engine (read-only).
 */
static char rxe_icrc_engine[CRYPTO_MAX_ALG_NAME] = "crc32_le";
module_param_string(icrc_engine, rxe_icrc_engine, sizeof(rxe_icrc_engine), 0444);
MODULE_PARM_DESC(icrc_engine, "the CRC-32 implementation the ICRC uses (read-only)");

#ifdef RXE_ICRC_SHASH
static struct crypto_shash *rxe_crc_tfm;	/* an accelerated "crc32", or NULL */

void rxe_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);
	__le32 seed = cpu_to_le32(RXE_ICRC_SEED);

	if (IS_ERR(tfm))
		return;
	if (!strcmp(crypto_shash_driver_name(tfm), "crc32-generic") ||
	    crypto_shash_digestsize(tfm) != sizeof(u32) ||
	    crypto_shash_setkey(tfm, (const u8 *)&seed, sizeof(seed))) {
		crypto_free_shash(tfm);	/* no faster than crc32_le() */
		return;
	}
	strscpy(rxe_icrc_engine, crypto_shash_driver_name(tfm), sizeof(rxe_icrc_engine));
	rxe_crc_tfm = tfm;
}

void rxe_icrc_exit(void)
{
	if (rxe_crc_tfm)
		crypto_free_shash(rxe_crc_tfm);
	rxe_crc_tfm = NULL;
}

static int rxe_icrc_shash_piece(void *arg, const u8 *p, unsigned int n)
{
	return crypto_shash_update(arg, p, n);
}
#else
void rxe_icrc_init(void)
{
}

void rxe_icrc_exit(void)
{
}
#endif

/*
 * The masked pseudo-header of the ICRC (IBA annex A17): the IP header, UDP header and BTH of
 * the packet at @ip and @bth with their variant fields set to ones, into @ph; its length.
 */
static unsigned int rxe_icrc_ph(const void *ip, const void *bth, u8 *ph)
{
	const struct iphdr *ip4 = ip;
	unsigned int iplen;
	struct rxe_bth *b;
	struct udphdr *u;

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
	return iplen + sizeof(*u) + sizeof(*b);
}

#define RXE_ICRC_PH_MAX	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + sizeof(struct rxe_bth))

static int rxe_icrc_piece(void *arg, const u8 *p, unsigned int n)
{
	u32 *crc = arg;

	*crc = crc32_le(*crc, p, n);
	return 0;
}

/*
 * The ICRC of pseudo-header @ph then @len bytes of what follows the BTH: at @buf, or, with
 * @skb, from offset @off of it (rxe_skb_walk(): the linear part, then page fragments). The
 * shash when there is one (a failure falls back to crc32_le()).
 */
static u32 rxe_icrc_of(const u8 *ph, unsigned int phlen, struct sk_buff *skb, unsigned int off,
		       const u8 *buf, unsigned int len)
{
	u32 crc;

#ifdef RXE_ICRC_SHASH
	if (rxe_crc_tfm) {
		SHASH_DESC_ON_STACK(desc, rxe_crc_tfm);
		__le32 out;

		desc->tfm = rxe_crc_tfm;
		if (!crypto_shash_init(desc) && !crypto_shash_update(desc, ph, phlen) &&
		    !(skb ? rxe_skb_walk(skb, off, len, rxe_icrc_shash_piece, desc) :
			    crypto_shash_update(desc, buf, len)) &&
		    !crypto_shash_final(desc, (u8 *)&out))
			return ~le32_to_cpu(out);
	}
#endif
	crc = crc32_le(RXE_ICRC_SEED, ph, phlen);
	if (skb)
		rxe_skb_walk(skb, off, len, rxe_icrc_piece, &crc);
	else
		crc = crc32_le(crc, buf, len);
	return ~crc;
}

/*
 * Compute the ICRC of the packet whose IP header starts at @ip and whose BTH starts at
 * @bth; @len counts the bytes from the BTH up to (not including) the ICRC field.
 * Variant fields are replaced by ones on a copy; the packet itself is not touched.
 */
u32 rxe_icrc(const void *ip, const void *bth, unsigned int len)
{
	u8 ph[RXE_ICRC_PH_MAX];
	unsigned int phlen = rxe_icrc_ph(ip, bth, ph);

	return rxe_icrc_of(ph, phlen, NULL, 0, (const u8 *)bth + sizeof(struct rxe_bth),
			   len - sizeof(struct rxe_bth));
}

/*
 * The ICRC of a packet whose BTH is at @bth_off from skb->data (the headers up to it linear),
 * @len bytes from the BTH up to the ICRC field; the rest may lie in page fragments.
 */
u32 rxe_icrc_at(struct sk_buff *skb, unsigned int bth_off, unsigned int len)
{
	u8 ph[RXE_ICRC_PH_MAX];
	unsigned int phlen = rxe_icrc_ph(skb_network_header(skb), skb->data + bth_off, ph);

	return rxe_icrc_of(ph, phlen, skb, bth_off + sizeof(struct rxe_bth), NULL,
			   len - sizeof(struct rxe_bth));
}

/* The ICRC of a received packet: skb->data at the BTH (see rxe_icrc_at()). */
u32 rxe_icrc_skb(struct sk_buff *skb, unsigned int len)
{
	return rxe_icrc_at(skb, 0, len);
}
