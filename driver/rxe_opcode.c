// SPDX-License-Identifier: GPL-2.0
/* rxe_opcode.c - which headers each RC/UD opcode carries, and where they sit in the packet. */

#include "rxe.h"

#define OP(name, m) [IB_OPCODE_##name] = { .mask = (m) | RXE_VALID }

struct rxe_opinfo rxe_opinfo[256] = {
	OP(RC_SEND_FIRST, RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_FIRST),
	OP(RC_SEND_MIDDLE, RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_MIDDLE),
	OP(RC_SEND_LAST, RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_LAST),
	OP(RC_SEND_LAST_WITH_IMMEDIATE,
	   RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_LAST | RXE_IMMDT),
	OP(RC_SEND_ONLY, RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_ONLY),
	OP(RC_SEND_ONLY_WITH_IMMEDIATE,
	   RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_ONLY | RXE_IMMDT),
	OP(RC_SEND_LAST_WITH_INVALIDATE,
	   RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_LAST | RXE_IETH),
	OP(RC_SEND_ONLY_WITH_INVALIDATE,
	   RXE_RC | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_ONLY | RXE_IETH),
	OP(RC_RDMA_WRITE_FIRST,
	   RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_FIRST | RXE_RETH),
	OP(RC_RDMA_WRITE_MIDDLE, RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_MIDDLE),
	OP(RC_RDMA_WRITE_LAST, RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_LAST),
	OP(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
	   RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_LAST | RXE_IMMDT),
	OP(RC_RDMA_WRITE_ONLY,
	   RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_ONLY | RXE_RETH),
	OP(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
	   RXE_RC | RXE_REQ | RXE_WRITE | RXE_PAYLOAD | RXE_ONLY | RXE_RETH | RXE_IMMDT),
	OP(RC_RDMA_READ_REQUEST, RXE_RC | RXE_REQ | RXE_READ | RXE_ONLY | RXE_RETH),
	OP(RC_RDMA_READ_RESPONSE_FIRST,
	   RXE_RC | RXE_RESP | RXE_READ | RXE_PAYLOAD | RXE_FIRST | RXE_AETH),
	OP(RC_RDMA_READ_RESPONSE_MIDDLE,
	   RXE_RC | RXE_RESP | RXE_READ | RXE_PAYLOAD | RXE_MIDDLE),
	OP(RC_RDMA_READ_RESPONSE_LAST,
	   RXE_RC | RXE_RESP | RXE_READ | RXE_PAYLOAD | RXE_LAST | RXE_AETH),
	OP(RC_RDMA_READ_RESPONSE_ONLY,
	   RXE_RC | RXE_RESP | RXE_READ | RXE_PAYLOAD | RXE_ONLY | RXE_AETH),
	OP(RC_ACKNOWLEDGE, RXE_RC | RXE_RESP | RXE_ONLY | RXE_AETH),
	OP(RC_ATOMIC_ACKNOWLEDGE, RXE_RC | RXE_RESP | RXE_ATOMIC | RXE_ONLY | RXE_AETH | RXE_ATMACK),
	OP(RC_COMPARE_SWAP, RXE_RC | RXE_REQ | RXE_ATOMIC | RXE_ONLY | RXE_ATMETH),
	OP(RC_FETCH_ADD, RXE_RC | RXE_REQ | RXE_ATOMIC | RXE_ONLY | RXE_ATMETH),
	OP(UD_SEND_ONLY, RXE_UD | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_ONLY | RXE_DETH),
	OP(UD_SEND_ONLY_WITH_IMMEDIATE,
	   RXE_UD | RXE_REQ | RXE_SEND | RXE_PAYLOAD | RXE_ONLY | RXE_DETH | RXE_IMMDT),
};

static const struct {
	u32 bit;
	u8 len;
} rxe_ext_len[RXE_EXT_NUM] = {
	[RXE_EXT_DETH]   = { RXE_DETH, sizeof(struct rxe_deth) },
	[RXE_EXT_RETH]   = { RXE_RETH, sizeof(struct rxe_reth) },
	[RXE_EXT_ATMETH] = { RXE_ATMETH, sizeof(struct rxe_atmeth) },
	[RXE_EXT_AETH]   = { RXE_AETH, sizeof(struct rxe_aeth) },
	[RXE_EXT_ATMACK] = { RXE_ATMACK, sizeof(struct rxe_atmack) },
	[RXE_EXT_IMMDT]  = { RXE_IMMDT, sizeof(__be32) },
	[RXE_EXT_IETH]   = { RXE_IETH, sizeof(__be32) },
};

/* Fill in header lengths and extension offsets from each opcode's mask. */
void rxe_opcode_init(void)
{
	int op, e;

	for (op = 0; op < 256; op++) {
		struct rxe_opinfo *info = &rxe_opinfo[op];
		u8 off = sizeof(struct rxe_bth);

		if (!(info->mask & RXE_VALID))
			continue;
		for (e = 0; e < RXE_EXT_NUM; e++) {
			info->off[e] = off;
			if (info->mask & rxe_ext_len[e].bit)
				off += rxe_ext_len[e].len;
		}
		info->hdr_len = off;
	}
}
