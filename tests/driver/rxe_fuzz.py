#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# rxe_fuzz.py - send malformed and hostile RoCE v2 packets (with valid ICRCs) at an rxe host.
"""Usage: rxe_fuzz.py SRC_IP DST_IP COUNT [SEED]

Builds IPv4/UDP/BTH packets by hand on a raw socket so the ICRC can be computed over the exact
headers: random RC/UD/unknown opcodes, QPNs (mostly 1, 16 and 17, the first QPs), random PSNs, random extension header contents
(rkeys, addresses, lengths, AETH syndromes), random payload lengths and pad counts, and a share
of packets that are truncated, have a wrong ICRC, a bad TVer or a bad P_Key.
"""
import random
import socket
import struct
import sys
import zlib

RC_OPS = list(range(0x00, 0x15)) + [0x16, 0x17]
UD_OPS = [0x64, 0x65]
EXT = {  # opcode -> extension header bytes after the BTH
    0x03: 4, 0x05: 4, 0x06: 16, 0x09: 4, 0x0a: 16, 0x0b: 20, 0x0c: 16, 0x0d: 4, 0x0f: 4,
    0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28, 0x16: 4, 0x17: 4, 0x64: 8, 0x65: 12,
}


def icrc(ip, udp, bth, rest):
    ipm = bytearray(ip)
    ipm[1] = 0xff                      # TOS
    ipm[8] = 0xff                      # TTL
    ipm[10:12] = b'\xff\xff'           # header checksum
    udpm = bytearray(udp)
    udpm[6:8] = b'\xff\xff'            # UDP checksum
    bthm = bytearray(bth)
    bthm[4] = 0xff                     # resv8a / FECN / BECN
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(ipm) + bytes(udpm) + bytes(bthm) + rest))


def packet(rng, src, dst):
    op = rng.choice(RC_OPS * 4 + UD_OPS + [rng.randrange(256)])
    paylen = rng.choice([0, 1, 3, 4, 8, 255, 256, 1024, rng.randrange(1200)])
    pad = rng.randrange(4)
    flags = (rng.randrange(4) << 6) | (pad << 4)
    if rng.random() < 0.03:
        flags |= rng.randrange(1, 16)  # bad TVer
    pkey = 0xffff if rng.random() > 0.03 else rng.randrange(65536)
    r = rng.random()
    qpn = rng.choice([1, 16, 17]) if r < 0.6 else rng.randrange(64) if r < 0.9 else rng.randrange(1 << 24)
    apsn = (rng.randrange(2) << 31) | rng.randrange(1 << 24)
    bth = struct.pack('!BBHII', op, flags, pkey, qpn, apsn)
    ext = bytearray(rng.randbytes(EXT.get(op, 0)))
    if op in (0x06, 0x0a, 0x0b, 0x0c) and rng.random() < 0.5:
        # plausible RETH: small length, maybe huge
        struct.pack_into('!QII', ext, 0, rng.randrange(1 << 64), rng.randrange(1 << 32),
                         rng.choice([0, 1, 8, 4096, 65536, 0x7fffffff, 0xffffffff]))
    rest = bytes(ext) + rng.randbytes(paylen) + bytes(pad)
    udp_len = 8 + len(bth) + len(rest) + 4
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, rng.randrange(1, 65536), 0x4000, 64,
                     17, 0, socket.inet_aton(src), socket.inet_aton(dst))
    udp = struct.pack('!HHHH', rng.randrange(0xc000, 0x10000), 4791, udp_len, 0)
    crc = icrc(ip, udp, bth, rest)
    if rng.random() < 0.05:
        crc = rng.randbytes(4)
    pkt = ip + udp + bth + rest + crc
    if rng.random() < 0.05:
        pkt = pkt[:rng.randrange(20, len(pkt))]
    return pkt


def main():
    src, dst, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for _ in range(count):
        try:
            s.sendto(packet(rng, src, dst), (dst, 0))
        except OSError:
            pass
    print(f"sent {count} packets to {dst}")


if __name__ == '__main__':
    main()
