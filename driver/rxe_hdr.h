/* SPDX-License-Identifier: GPL-2.0 */
/* rxe_hdr.h - RoCE v2 wire format: BTH and extension headers, PSN arithmetic, opcode table API. */
#ifndef RXE_HDR_H
#define RXE_HDR_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <rdma/ib_pack.h>

#define RXE_UDP_PORT		4791
#define RXE_ICRC_SIZE		4
#define RXE_PSN_MASK		0x00ffffff
#define RXE_QPN_MASK		0x00ffffff
#define RXE_DEFAULT_PKEY	0xffff

/* Base Transport Header, 12 bytes. */
struct rxe_bth {
	u8	opcode;
	u8	flags;		/* SE:1 MigReq:1 PadCnt:2 TVer:4 */
	__be16	pkey;
	__be32	qpn;		/* FECN:1 BECN:1 resv6, DestQP:24 */
	__be32	apsn;		/* AckReq:1 resv7, PSN:24 */
} __packed;

#define BTH_SE		0x80
#define BTH_MIG		0x40
#define BTH_PAD_SHIFT	4
#define BTH_PAD_MASK	0x30
#define BTH_TVER_MASK	0x0f
#define BTH_ACKREQ	0x80000000u

struct rxe_deth {		/* Datagram ETH, 8 bytes */
	__be32	qkey;
	__be32	sqp;		/* resv8, SrcQP:24 */
} __packed;

struct rxe_reth {		/* RDMA ETH, 16 bytes */
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

struct rxe_atmeth {		/* Atomic ETH, 28 bytes */
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

struct rxe_aeth {		/* ACK ETH, 4 bytes: syndrome:8 MSN:24 */
	__be32	smsn;
} __packed;

struct rxe_atmack {		/* Atomic ACK ETH, 8 bytes */
	__be64	orig;
} __packed;

/* AETH syndromes (IBA 9.7.5.1.3). */
#define AETH_TYPE_MASK		0xe0
#define AETH_ACK		0x00
#define AETH_RNR_NAK		0x20
#define AETH_NAK		0x60
#define AETH_ACK_UNLIMITED	0x1f	/* ACK, credit field "invalid" */
#define AETH_NAK_PSN_SEQ	0x60
#define AETH_NAK_INVALID_REQ	0x61
#define AETH_NAK_REM_ACCESS	0x62
#define AETH_NAK_REM_OP		0x63

/* Opcode classification bits. */
enum rxe_hdr_mask {
	RXE_DETH	= BIT(0),
	RXE_RETH	= BIT(1),
	RXE_ATMETH	= BIT(2),
	RXE_AETH	= BIT(3),
	RXE_ATMACK	= BIT(4),
	RXE_IMMDT	= BIT(5),
	RXE_IETH	= BIT(6),
	RXE_PAYLOAD	= BIT(7),
	RXE_REQ		= BIT(8),
	RXE_RESP	= BIT(9),
	RXE_FIRST	= BIT(10),
	RXE_MIDDLE	= BIT(11),
	RXE_LAST	= BIT(12),
	RXE_SEND	= BIT(13),
	RXE_WRITE	= BIT(14),
	RXE_READ	= BIT(15),
	RXE_ATOMIC	= BIT(16),
	RXE_RC		= BIT(17),
	RXE_UD		= BIT(18),
	RXE_VALID	= BIT(19),
	RXE_UC		= BIT(20),
	RXE_ONLY	= RXE_FIRST | RXE_LAST,
};

/* Header order after the BTH; offsets are computed in this order. */
enum rxe_ext {
	RXE_EXT_DETH,
	RXE_EXT_RETH,
	RXE_EXT_ATMETH,
	RXE_EXT_AETH,
	RXE_EXT_ATMACK,
	RXE_EXT_IMMDT,
	RXE_EXT_IETH,
	RXE_EXT_NUM,
};

struct rxe_opinfo {
	u32	mask;
	u8	hdr_len;		/* BTH + all extension headers */
	u8	off[RXE_EXT_NUM];	/* offset of each extension from the BTH */
};

extern struct rxe_opinfo rxe_opinfo[256];
void rxe_opcode_init(void);

static inline u32 rxe_psn_add(u32 psn, u32 n)
{
	return (psn + n) & RXE_PSN_MASK;
}

/* Signed distance a - b in 24-bit PSN space. */
static inline int rxe_psn_diff(u32 a, u32 b)
{
	return ((int)((a - b) << 8)) >> 8;
}

#endif /* RXE_HDR_H */
