#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# rxe_conform.py - the differential packet conformance harness (issue 36): the same hostile or
# odd packets against stock rdma_rxe and the bundled one, and whether ours is less tolerant.
"""Usage:
  rxe_conform.py run --victim PROG --dev DEV --gid N --self IP --peer IP --third IP
                     --netns NS --seed S --cases N --out FILE
  rxe_conform.py compare STOCK_FILE BUNDLED_FILE README
  rxe_conform.py list --seed S --cases N

run: drives tests/driver/rxe_conform (PROG, in this network namespace, on DEV with GID index N)
and plays its peer (QP 0x123 at --peer, in namespace NS at the other end of a veth; --third is a
second address there) with hand-made RC packets with valid ICRCs from a raw socket. Each case
gets a fresh victim QP, brings it into the case's state (idle; primed: a SEND and a READ served;
busy-send / busy-read: one request of its own outstanding; mid: a SEND_FIRST received), sends
the case's packets (from the peer or the third address), and records the outcome: what the
victim sent back within 0.3 s, the completions, the QP state, and whether the connection still
works (the outstanding request answered and completed; a new SEND of the victim's acknowledged
and completed; a SEND, a WRITE and a READ of the peer acknowledged or answered with the right
data). Cases 0-4 send nothing (one per state): when one of them is not usable the harness
itself is broken (exit 2). The cases follow from the seed alone (list prints them); FILE gets
one JSON object per case.

compare: the table (case | stock | bundled | verdict) and exit 1 when bundled is less tolerant
anywhere: stock's connection usable and bundled's not, a NAK of bundled's that stock did not
send, or a packet stock accepted (a completion of it, an ACK or data for it) that bundled did
not (each only where stock's connection survives), unless a stricter rule listed in README's "Tolerance" section (a `conform: KEY` tag in its
table) covers the case: KEYS below.
"""
import ctypes
import json
import os
import random
import re
import select
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rxe_fuzz import icrc  # noqa: E402

# opcode -> (name, extension headers: R RETH, I ImmDt, A AETH, K AtomicAckETH, T AtomicETH,
# V IETH)
OPS = {
    0x00: ('SEND_FIRST', ''), 0x01: ('SEND_MIDDLE', ''), 0x02: ('SEND_LAST', ''),
    0x03: ('SEND_LAST_IMM', 'I'), 0x04: ('SEND_ONLY', ''), 0x05: ('SEND_ONLY_IMM', 'I'),
    0x06: ('WRITE_FIRST', 'R'), 0x07: ('WRITE_MIDDLE', ''), 0x08: ('WRITE_LAST', ''),
    0x09: ('WRITE_LAST_IMM', 'I'), 0x0a: ('WRITE_ONLY', 'R'), 0x0b: ('WRITE_ONLY_IMM', 'RI'),
    0x0c: ('READ_REQ', 'R'), 0x0d: ('READ_RESP_FIRST', 'A'), 0x0e: ('READ_RESP_MIDDLE', ''),
    0x0f: ('READ_RESP_LAST', 'A'), 0x10: ('READ_RESP_ONLY', 'A'), 0x11: ('ACK', 'A'),
    0x12: ('ATOMIC_ACK', 'AK'), 0x13: ('CMP_SWAP', 'T'), 0x14: ('FETCH_ADD', 'T'),
    0x16: ('SEND_LAST_INV', 'V'), 0x17: ('SEND_ONLY_INV', 'V'),
}
EXT_LEN = {'R': 16, 'I': 4, 'A': 4, 'K': 8, 'T': 28, 'V': 4}
REQ_OPS = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
           0x13, 0x14, 0x16, 0x17]
RESP_OPS = [0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x11, 0x11, 0x11, 0x12]
UNKNOWN_OPS = [0x15, 0x18, 0x1b, 0x1f, 0x20, 0x24, 0x2a, 0x40, 0x64, 0x65, 0x81, 0xc0, 0xff]
MTU = 1024
MR_LEN = 65536
STATES = ('idle', 'primed', 'busy-send', 'busy-read', 'mid')
SECRET = (b'SECRET' * 11)[:64]

# Where the bundled driver is stricter than stock by design: the key a case's divergence is
# excused by, and how to recognise such a case. Each key must be tagged `conform: KEY` in
# driver/README.md's Tolerance table, with the reason.
KEYS = {
    # a response for a PSN the victim never sent: stock takes it as an implicit ACK
    'ghost-response': lambda c: any(
        p['base'] == 'sq' and 0x0d <= p['op'] <= 0x12 and 'mal' not in p and
        0 <= p['psn'] - (1 if c['busy'] in ('busy-send', 'busy-read') else 0) < 0x800000
        for p in c['pkts']),
    # an ACK (not a READ response) naming an outstanding READ's PSN: stock completes the READ
    # successfully without its data
    'ack-for-read': lambda c: c['busy'] == 'busy-read' and any(
        p['op'] == 0x11 and p['base'] == 'sq' and p['psn'] == 0 and p['aeth'] >> 5 == 0 and
        'mal' not in p for p in c['pkts']),
    # a payload on an opcode that has none (an ACK, a READ request, an atomic or its ACK)
    'no-payload': lambda c: any(p['op'] in (0x0c, 0x11, 0x12, 0x13, 0x14) and p['len'] > 0
                                for p in c['pkts']),
    # a SEND_FIRST or SEND_MIDDLE whose payload is not the path MTU
    'send-mtu': lambda c: any(p['op'] in (0x00, 0x01) and p['len'] != MTU and 'mal' not in p
                              for p in c['pkts']),
    # a duplicate READ is replayed only when it asks for exactly what the recorded one has left
    'dup-read-exact': lambda c: c['busy'] == 'primed' and any(
        p['op'] == 0x0c and p['base'] == 'rq' and p['psn'] < 0 and 'mal' not in p
        for p in c['pkts']),
}


def stock_crashes(c):
    """Cases that crash stock rdma_rxe of 6.1 (a NULL pointer dereference in softirq, the
    guest panics), so they are not run on stock: a WRITE_FIRST or WRITE_ONLY at the expected
    PSN whose RETH length is 0 and which carries a payload (stock skips the rkey and length
    checks for a zero-length RETH, then copies the payload through no MR)."""
    return any(p['op'] in (0x06, 0x0a, 0x0b) and p['reth']['len'] == 0 and p['len'] > 0 and
               p['psn'] == 0 and p.get('mal') in (None, 'resv', 'migreq', 'fecn', 'pad')
               for p in c['pkts'] if 'reth' in p)


def opname(op):
    return OPS.get(op, (f'OP_{op:02x}', ''))[0]


# ---- the cases ----

def psn_offsets(rng):
    return rng.choice([0, 0, 0, -1, -1, -2, -4, 1, 1, 2, 5, 64, -64, 0x1000, -0x400000,
                       0x400000, -0x7fffff, 0x7fffff, 0x800000])


def gen_reth(rng, op):
    va = rng.choice(['ok', 'ok', 'ok', 'end', 'past', 'before', 'zero', 'plus1'])
    rkey = rng.choice(['ok', 'ok', 'ok', 'bad', 'key', 'zero'])
    if op == 0x0c:
        length = rng.choice([64, 64, 1, 0, 1024, 1025, 4096, 16384, 65536, 65537,
                             0x7fffffff, 0xffffffff])
    else:
        length = rng.choice([64, 64, 0, 1, 1024, 2048, 4096, 65537, 0xffffffff])
    return {'va': va, 'rkey': rkey, 'len': length}


def gen_paylen(rng, op, reth):
    name = opname(op)
    if name.endswith(('FIRST', 'MIDDLE')) and rng.random() < 0.6:
        return MTU
    if reth and name.endswith('ONLY') and rng.random() < 0.6:
        return min(reth['len'], 1400)
    return rng.choice([0, 1, 3, 16, 64, 1023, 1024, 1025, 1400])


def gen_request(rng, op=None):
    op = rng.choice(REQ_OPS) if op is None else op
    name, ext = OPS[op]
    p = {'op': op, 'psn': psn_offsets(rng), 'base': 'rq', 'ackreq': rng.random() < 0.7}
    if 'R' in ext:
        p['reth'] = gen_reth(rng, op)
    if 'T' in ext:
        p['atm'] = {'va': rng.choice(['ok', 'ok', 'plus1', 'past', 'zero']),
                    'rkey': rng.choice(['ok', 'ok', 'bad', 'key'])}
    if 'V' in ext:
        p['ieth'] = rng.choice(['rkey', 'bad'])
    if op in (0x0c, 0x13, 0x14):
        p['len'] = 0
    else:
        p['len'] = gen_paylen(rng, op, p.get('reth'))
    return p


def gen_syndrome(rng):
    kind = rng.choice(['ack', 'ack', 'rnr', 'nak', 'nak', 'nakres', 'res', 'top'])
    if kind == 'ack':
        return rng.choice([0x1f, 0x1f, 0x00, 0x05, 0x1e])
    if kind == 'rnr':
        return 0x20 | rng.choice([0, 1, 14, 31])
    if kind == 'nak':
        return 0x60 | rng.choice([0, 1, 2, 3, 4])
    if kind == 'nakres':
        return 0x60 | rng.randrange(5, 32)
    if kind == 'res':
        return 0x40 | rng.randrange(32)
    return 0x80 | rng.randrange(128)


def gen_response(rng, busy):
    op = rng.choice(RESP_OPS)
    p = {'op': op, 'base': 'sq', 'ackreq': rng.random() < 0.1,
         'psn': rng.choice([0, 0, 0, -1, -1, -2, 1, 1, 2, 64, -0x400000, 0x400000, 0x800000,
                            -0x7fffff, 0x7fffff])}
    if 'A' in OPS[op][1]:
        p['aeth'] = gen_syndrome(rng) if op == 0x11 or rng.random() < 0.3 else 0x1f
        p['msn'] = rng.choice([0, 1, 2, 0xffffff])
    if op == 0x12:
        p['orig'] = rng.randrange(1 << 64)
    if op in (0x0d, 0x0e, 0x0f, 0x10):
        p['len'] = rng.choice([64, 64, 0, 1, 63, 65, 1024, 1025, 1400])
    else:
        p['len'] = rng.choice([0, 0, 0, 4, 64])
    return p


MALFORM = ['pad', 'tver', 'udplen+', 'udplen-', 'trunc', 'icrc', 'pkey0', 'pkey7fff',
           'qpn+1', 'qpn1', 'resv', 'migreq', 'fecn', 'ipopt']


def gen_malformed(rng, busy):
    if busy in ('busy-send', 'busy-read') and rng.random() < 0.4:
        p = ({'op': 0x11, 'base': 'sq', 'psn': 0, 'ackreq': False, 'aeth': 0x1f, 'msn': 1,
              'len': 0} if busy == 'busy-send' else
             {'op': 0x10, 'base': 'sq', 'psn': 0, 'ackreq': False, 'aeth': 0x1f, 'msn': 1,
              'len': 64})
    else:
        op = rng.choice([0x04, 0x0a, 0x0c, 0x13])
        p = gen_request(rng, op)
        p['psn'], p['ackreq'] = 0, True
        if 'reth' in p:
            p['reth'] = {'va': 'ok', 'rkey': 'ok', 'len': 64}
            p['len'] = 64 if op == 0x0a else 0
        if 'atm' in p:
            p['atm'] = {'va': 'ok', 'rkey': 'ok'}
        if op == 0x04:
            p['len'] = rng.choice([0, 16, 64])
    p['mal'] = rng.choice(MALFORM)
    if p['mal'] == 'pad':
        p['padv'] = rng.randrange(1, 4)
    return p


def gen_case(rng, i):
    if i < len(STATES):
        return {'id': i, 'kind': 'control', 'busy': STATES[i], 'src': 'peer', 'pkts': [],
                'rq': 1000, 'sq': 2000}
    kind = rng.choice(['request'] * 5 + ['response'] * 3 + ['unknown', 'malformed', 'malformed'])
    busy = rng.choice(['idle', 'idle', 'primed', 'busy-send', 'busy-read', 'mid'])
    if kind == 'response':
        busy = rng.choice(['idle', 'busy-send', 'busy-send', 'busy-read', 'busy-read'])
    src = 'third' if rng.random() < 0.08 else 'peer'
    if kind == 'request':
        pkts = [gen_request(rng)]
        if rng.random() < 0.15:       # a second one behind it
            pkts.append(gen_request(rng))
    elif kind == 'response':
        pkts = [gen_response(rng, busy)]
        if rng.random() < 0.15:
            pkts.append(gen_response(rng, busy))
    elif kind == 'unknown':
        op = rng.choice(UNKNOWN_OPS)
        pkts = [{'op': op, 'base': rng.choice(['rq', 'sq']), 'psn': rng.choice([0, 1, -1]),
                 'ackreq': rng.random() < 0.5, 'len': rng.choice([0, 16, 28, 64, 1024])}]
    else:
        pkts = [gen_malformed(rng, busy)]
    rq, sq = rng.choice([(1000, 2000), (1000, 2000), (0xfffffe, 0xffffff), (0x7ffffe, 0)])
    return {'id': i, 'kind': kind, 'busy': busy, 'src': src, 'pkts': pkts, 'rq': rq, 'sq': sq}


def pinned():
    """Issue 36's findings, in every run after the controls: an old-PSN READ and an old-PSN
    atomic with bad rkeys that no responder resource records (stock drops them silently), a
    remote access NAK and an RNR NAK behind the acknowledged PSN (stock ignores them), the
    valid duplicate of a served READ (replayed), a NAK for the outstanding SEND from a third
    address."""
    reth = {'va': 'ok', 'rkey': 'bad', 'len': 64}
    atm = {'va': 'ok', 'rkey': 'bad'}
    nak = {'op': 0x11, 'base': 'sq', 'psn': -1, 'ackreq': False, 'aeth': 0x62, 'msn': 0,
           'len': 0}
    return [
        ('request', 'idle', 'peer', [{'op': 0x0c, 'base': 'rq', 'psn': -0x400000,
                                      'ackreq': False, 'reth': reth, 'len': 0}]),
        ('request', 'primed', 'peer', [{'op': 0x13, 'base': 'rq', 'psn': -3, 'ackreq': False,
                                        'atm': atm, 'len': 0}]),
        ('response', 'idle', 'peer', [nak]),
        ('response', 'busy-send', 'peer', [dict(nak, aeth=0x20)]),
        ('response', 'busy-read', 'peer', [nak]),
        ('request', 'primed', 'peer', [{'op': 0x0c, 'base': 'rq', 'psn': -1, 'ackreq': False,
                                        'reth': {'va': 'ok', 'rkey': 'ok', 'len': 64},
                                        'len': 0}]),
        ('response', 'busy-send', 'third', [dict(nak, psn=0)]),
    ]


def gen_cases(seed, n):
    """The controls, the pinned cases, then random ones from seed: n in all."""
    rng = random.Random(seed)
    cases = [gen_case(rng, i) for i in range(len(STATES))]
    for kind, busy, src, pkts in pinned():
        cases.append({'id': len(cases), 'kind': kind, 'busy': busy, 'src': src, 'pkts': pkts,
                      'rq': 1000, 'sq': 2000})
    while len(cases) < n:
        cases.append(gen_case(rng, len(cases)))
    return cases[:n]


def pkt_name(p):
    s = f"{opname(p['op'])}@{p['base']}{p['psn']:+d}"
    if p.get('ackreq'):
        s += ' A'
    if 'reth' in p:
        r = p['reth']
        s += f" va={r['va']} rkey={r['rkey']} rlen={r['len']}"
    if 'atm' in p:
        s += f" va={p['atm']['va']} rkey={p['atm']['rkey']}"
    if 'ieth' in p:
        s += f" inv={p['ieth']}"
    if 'aeth' in p:
        s += f" syn=0x{p['aeth']:02x}"
    s += f" len={p['len']}"
    if 'mal' in p:
        s += f" MAL={p['mal']}" + (str(p['padv']) if p['mal'] == 'pad' else '')
    return s


def case_name(c):
    pk = '; '.join(pkt_name(p) for p in c['pkts']) or 'nothing'
    psn = '' if (c['rq'], c['sq']) == (1000, 2000) else f" rq={c['rq']:#x} sq={c['sq']:#x}"
    return f"{c['kind']} {c['busy']} from {c['src']}{psn}: {pk}"


# ---- the wire ----

CLONE_NEWNET = 0x40000000


def setns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), f'setns {path}')
    finally:
        os.close(fd)


class Wire:
    def __init__(self, netns, dst):
        self.dst = dst
        home = os.open('/proc/self/ns/net', os.O_RDONLY)
        setns(f'/var/run/netns/{netns}')
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.bind(('0.0.0.0', 4791))
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(home, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns back')
        os.close(home)
        self.ipid = 0x1000

    def send_raw(self, pkt):
        try:
            self.raw.sendto(pkt, (self.dst, 0))
        except OSError:
            pass        # a malformed length the stack refuses: nothing reached the victim

    def drain(self):
        self.rx.setblocking(False)
        try:
            while True:
                self.rx.recv(65536)
        except (BlockingIOError, socket.error):
            pass
        self.rx.setblocking(True)

    def recv(self, secs, until=None):
        """(op, psn, syndrome, body) of each packet the victim sent within secs; sooner once
        until(packets so far) holds."""
        out, end = [], time.monotonic() + secs
        while not (until and until(out)):
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.rx], [], [], left)
            if not r:
                break
            data = self.rx.recv(65536)
            if len(data) < 16:
                continue
            op, psn = data[0], struct.unpack('!I', data[8:12])[0] & 0xffffff
            syn = data[12] if op in (0x0d, 0x0f, 0x10, 0x11, 0x12) else None
            body = data[16:-4] if op in (0x0d, 0x0f, 0x10) else data[12:-4]
            out.append((op, psn, syn, body))
        return out


def build(src, dst, op, qpn, psn, ackreq=False, ext=b'', payload=b'', mal=None, padv=0,
          ipid=1):
    pad = (-len(payload)) & 3
    flags = 0x40 | (pad << 4)        # MigReq set, as rxe sends
    pkey, apsn_resv = 0xffff, 0
    if mal == 'pad':
        flags = (flags & ~0x30) | (padv << 4)
    elif mal == 'tver':
        flags |= 0x3
    elif mal == 'pkey0':
        pkey = 0
    elif mal == 'pkey7fff':
        pkey = 0x7fff
    elif mal == 'migreq':
        flags &= ~0x40
    elif mal == 'resv':
        apsn_resv = 0x7f000000
    if mal == 'qpn+1':
        qpn += 1
    elif mal == 'qpn1':
        qpn = 1
    bth = bytearray(struct.pack('!BBHII', op, flags, pkey, qpn & 0xffffff,
                                (0x80000000 if ackreq else 0) | apsn_resv | (psn & 0xffffff)))
    if mal == 'resv':
        bth[4] = 0x3f                  # resv8a
    elif mal == 'fecn':
        bth[4] = 0xc0                  # FECN and BECN
    bth = bytes(bth)
    rest = ext + payload + bytes(pad)
    if mal == 'trunc':
        rest = ext[:len(ext) // 2] if ext else b''
    udp_len = 8 + len(bth) + len(rest) + 4
    udp_field = udp_len + (8 if mal == 'udplen+' else -8 if mal == 'udplen-' else 0)
    ihl = 6 if mal == 'ipopt' else 5
    opt = b'\x01\x01\x01\x00' if mal == 'ipopt' else b''      # NOP NOP NOP END
    ip = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, 4 * ihl + udp_len, ipid, 0x4000, 64, 17,
                     0, socket.inet_aton(src), socket.inet_aton(dst)) + opt
    udp = struct.pack('!HHHH', 0xc123, 4791, udp_field, 0)
    crc = icrc(ip[:20], udp, bth, rest)
    if mal == 'icrc':
        crc = bytes(b ^ 0x5a for b in crc)
    return ip + udp + bth + rest + crc


# ---- the victim ----

class Victim:
    def __init__(self, prog, dev, gid, peer):
        self.p = subprocess.Popen([prog, dev, str(gid), peer], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()
        out = []
        while True:
            ln = self.p.stdout.readline()
            if not ln:
                raise SystemExit(f'rxe_conform.py: the victim died at "{line}" '
                                 f'(exit {self.p.wait()})')
            ln = ln.strip()
            if ln == 'end':
                return out
            out.append(ln)

    def state(self):
        _, st, rq, sq = self.cmd('state')[0].split()
        return st, int(rq), int(sq)

    def poll(self, ms, n):
        """[(wr_id, status, opcode, len, fill)]"""
        res = []
        for ln in self.cmd(f'poll {ms} {n}'):
            _, w, st, opc, ln_, fill = ln.split()
            res.append((int(w), st, int(opc), int(ln_), int(fill)))
        return res

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def syn_class(syn):
    if syn is None:
        return ''
    t = syn >> 5
    if t == 0:
        return 'ack'
    if t == 1:
        return 'rnr'
    if t == 3:
        return {0: 'nak-seq', 1: 'nak-inv', 2: 'nak-acc', 3: 'nak-op', 4: 'nak-invrd'}.get(
            syn & 0x1f, f'nak-{syn & 0x1f}')
    return f'syn-{syn:02x}'


WC_KIND = {0: 'send', 1: 'write', 2: 'read', 3: 'cmp', 4: 'fadd', 128: 'recv', 129: 'recv-imm'}


class Runner:
    def __init__(self, a):
        self.a = a
        self.wire = Wire(a.netns, a.self_ip)
        self.v = Victim(a.victim, a.dev, a.gid, a.peer)
        self.ipid = 0

    def send(self, src, op, psn, **kw):
        self.ipid = self.ipid % 65535 + 1
        self.wire.send_raw(build(src, self.a.self_ip, op, self.qpn, psn, ipid=self.ipid, **kw))

    def pkt_bytes(self, p, R, S):
        """The extension headers and payload of case packet p."""
        ext = b''
        codes = OPS.get(p['op'], ('', ''))[1]
        for c in codes:
            if c == 'R':
                r = p['reth']
                length = r['len']
                va = {'ok': self.va, 'end': self.va + MR_LEN - min(length, MR_LEN) // 2 - 1,
                      'past': self.va + MR_LEN, 'before': self.va - 8, 'zero': 0,
                      'plus1': self.va + 1}[r['va']]
                rkey = {'ok': self.rkey, 'bad': self.rkey ^ 0x100, 'key': self.rkey ^ 0x1,
                        'zero': 0}[r['rkey']]
                ext += struct.pack('!QII', va & (2**64 - 1), rkey, length)
            elif c == 'I':
                ext += struct.pack('!I', 0xdeadbeef)
            elif c == 'A':
                ext += struct.pack('!I', (p.get('aeth', 0x1f) << 24) | p.get('msn', 0))
            elif c == 'K':
                ext += struct.pack('!Q', p.get('orig', 0))
            elif c == 'T':
                t = p['atm']
                va = {'ok': self.va + 16384, 'plus1': self.va + 16385, 'past': self.va + MR_LEN,
                      'zero': 0}[t['va']]
                rkey = {'ok': self.rkey, 'bad': self.rkey ^ 0x100, 'key': self.rkey ^ 1}[t['rkey']]
                ext += struct.pack('!QIQQ', va, rkey, 1, 0)
            elif c == 'V':
                ext += struct.pack('!I', self.rkey if p['ieth'] == 'rkey' else 0x12345678)
        if not codes and p['op'] not in OPS:
            ext = b''
        payload = bytes([0x48]) * p['len']         # 'H'
        return ext, payload

    # -- the probes: True, or what failed --

    def wait_resp(self, psn, ops, secs=1.0):
        """The first packet of the victim at psn with an opcode in ops, or None; any NAK at
        or after it ends the wait too (returned)."""
        def done(got):
            return any(q == psn and (op in ops or syn_class(s).startswith('nak'))
                       for op, q, s, _ in got)
        got = self.wire.recv(secs, done)
        for x in got:
            if x[1] == psn and (x[0] in ops or syn_class(x[2]).startswith('nak')):
                return x
        return None

    def poll_for(self, pred, ms=1000):
        """Poll until a completion pred accepts; all seen."""
        seen, end = [], time.monotonic() + ms / 1000
        while time.monotonic() < end:
            wcs = self.v.poll(100, 1)
            seen += wcs
            if any(pred(w) for w in wcs):
                return True, seen
        return False, seen

    def probe_send_in(self, src, R):
        data = b'P' * 48
        for _ in range(3):
            self.send(src, 0x04, R, ackreq=True, payload=data)
            r = self.wait_resp(R, {0x11}, 0.5)
            if r:
                break
        if not r or syn_class(r[2]) != 'ack':
            return f"peer SEND@{R}: {'no answer' if not r else syn_class(r[2])}"
        ok, seen = self.poll_for(lambda w: w[1] == 'SUCCESS' and w[2] == 128 and w[3] == 48
                                 and w[4] == ord('P'))
        return True if ok else f'peer SEND@{R}: acked, no receive completion ({seen})'

    def probe_write_in(self, src, R):
        data = b'W' * 64
        ext = struct.pack('!QII', self.va + 20480, self.rkey, 64)
        for _ in range(3):
            self.send(src, 0x0a, R, ackreq=True, ext=ext, payload=data)
            r = self.wait_resp(R, {0x11}, 0.5)
            if r:
                break
        if not r or syn_class(r[2]) != 'ack':
            return f"peer WRITE@{R}: {'no answer' if not r else syn_class(r[2])}"
        m = self.v.cmd('mem 20480 64')[0]
        return True if m == f"mem {ord('W')}" else f'peer WRITE@{R}: acked, memory {m}'

    def probe_read_in(self, src, R):
        ext = struct.pack('!QII', self.va, self.rkey, 64)
        for _ in range(3):
            self.send(src, 0x0c, R, ext=ext)
            r = self.wait_resp(R, {0x10}, 0.5)
            if r:
                break
        if not r or r[0] != 0x10:
            return f"peer READ@{R}: {'no answer' if not r else syn_class(r[2])}"
        return True if r[3] == SECRET else f'peer READ@{R}: wrong data'

    def finish_busy(self, busy, S, wr):
        """Answer the victim's outstanding request at S; its completion must be a success."""
        for _ in range(4):
            if busy == 'busy-send':
                self.send(self.a.peer, 0x11, S, ext=struct.pack('!I', 0x1f << 24 | 1))
            else:
                self.send(self.a.peer, 0x10, S, ext=struct.pack('!I', 0x1f << 24 | 1),
                          payload=b'R' * 64)
            ok, seen = self.poll_for(lambda w: w[0] == wr, 400)
            if ok:
                w = [w for w in seen if w[0] == wr][0]
                if w[1] != 'SUCCESS':
                    return f'outstanding {busy[5:]}: {w[1]}'
                if busy == 'busy-read' and w[4] != ord('R'):
                    return 'outstanding read: wrong data'
                return True
        return f'outstanding {busy[5:]}: no completion'

    def probe_send_out(self):
        wr = int(self.v.cmd('send 32')[0].split()[1])
        end = time.monotonic() + 2
        while time.monotonic() < end:
            got = self.wire.recv(0.3, lambda g: any(x[0] == 0x04 for x in g))
            sends = [x for x in got if x[0] == 0x04]
            if sends:
                P = sends[-1][1]
                self.send(self.a.peer, 0x11, P, ext=struct.pack('!I', 0x1f << 24 | 2))
                ok, seen = self.poll_for(lambda w: w[0] == wr, 400)
                if ok:
                    w = [w for w in seen if w[0] == wr][0]
                    return True if w[1] == 'SUCCESS' else f'own SEND: {w[1]}'
        return 'own SEND: never sent or never completed'

    def run_case(self, c):
        self.wire.drain()
        info = self.v.cmd(f"qp {c['rq']} {c['sq']}")[0].split()
        self.qpn, self.rkey, self.va = int(info[1]), int(info[2]), int(info[3])
        peer = self.a.peer
        src = peer if c['src'] == 'peer' else self.a.third
        R, S, busy = c['rq'], c['sq'], c['busy']
        wr = None
        if busy == 'primed':
            for f in (self.probe_send_in, self.probe_read_in):
                r = f(peer, R)
                if r is not True:
                    return {'usable': False, 'why': f'priming: {r}', 'state': '', 'resp': [],
                            'wc': []}
                R = (R + 1) & 0xffffff
        elif busy in ('busy-send', 'busy-read'):
            wr = int(self.v.cmd(f"{busy[5:]} {32 if busy == 'busy-send' else 64}")[0].split()[1])
            want = 0x04 if busy == 'busy-send' else 0x0c
            if not self.wire.recv(1, lambda g: any(x[0] == want and x[1] == S for x in g)):
                return {'usable': False, 'why': 'busy: the request never left', 'state': '',
                        'resp': [], 'wc': []}
        elif busy == 'mid':
            self.send(peer, 0x00, R, payload=b'F' * MTU)
            R = (R + 1) & 0xffffff
        self.wire.drain()
        for p in c['pkts']:
            base = R if p['base'] == 'rq' else S
            ext, payload = self.pkt_bytes(p, R, S)
            self.send(src, p['op'], (base + p['psn']) & 0xffffff, ackreq=p.get('ackreq', False),
                      ext=ext, payload=payload, mal=p.get('mal'), padv=p.get('padv', 0))
        resp = []
        for op, q, s, _ in self.wire.recv(0.3):
            base = S if op in (0x04, 0x00, 0x0c, 0x13, 0x14) else R
            d = (q - base + 0x800000) % 0x1000000 - 0x800000
            resp.append(f"{opname(op)}{'/' + syn_class(s) if s is not None else ''}@{d:+d}")
        resp = sorted(set(resp))
        wcs = self.v.poll(50, 16)
        wc_out = []
        done_busy = None
        for w in wcs:
            if w[0] == wr:
                done_busy = w
            kind = 'busy' if w[0] == wr else WC_KIND.get(w[2], 'wc') if w[1] == 'SUCCESS' else \
                ('recv' if w[0] < 8 else 'own')
            wc_out.append(f'{kind}:{w[1]}')
        st, rq_now, sq_now = self.v.state()
        why = True
        if st != 'RTS':
            why = f'state {st}'
        if why is True and busy == 'mid':
            # close the open message: the SEND_LAST at the PSN the responder expects now
            self.send(peer, 0x02, rq_now, ackreq=True, payload=b'L' * 16)
            self.wire.recv(0.3, lambda g: any(x[0] == 0x11 for x in g))
            self.v.poll(100, 4)
            st, rq_now, sq_now = self.v.state()
            if st != 'RTS':
                why = f'closing the open SEND: state {st}'
        if why is True and wr is not None:
            if done_busy:
                if done_busy[1] != 'SUCCESS':
                    why = f'outstanding {busy[5:]}: {done_busy[1]}'
            else:
                why = self.finish_busy(busy, S, wr)
        if why is True:
            why = self.probe_send_out()
        if why is True:
            st, rq_now, _ = self.v.state()
            for i, f in enumerate((self.probe_send_in, self.probe_write_in, self.probe_read_in)):
                why = f(peer, (rq_now + i) & 0xffffff)
                if why is not True:
                    break
        return {'usable': why is True, 'why': '' if why is True else why, 'state': st,
                'resp': resp, 'wc': wc_out}

    def run(self, cases):
        out = []
        try:
            kmsg = open('/dev/kmsg', 'w')
        except OSError:
            kmsg = None
        for c in cases:
            t0 = time.monotonic()
            if kmsg:    # which case a crash came with (level 3: on the bed's console)
                kmsg.write(f"<3>rxe_conform: case {c['id']}\n")
                kmsg.flush()
            if self.a.stock and stock_crashes(c):
                o = {'usable': False, 'why': 'not run: crashes stock', 'state': 'CRASH',
                     'resp': [], 'wc': []}
            else:
                o = self.run_case(c)
            o['id'], o['secs'], o['case'] = c['id'], round(time.monotonic() - t0, 2), c
            out.append(o)
            if c['kind'] == 'control' and not o['usable']:
                raise SystemExit(f"rxe_conform.py: control case {c['id']} ({c['busy']}, no "
                                 f"packet) is not usable: {o['why']}: the harness is broken")
        self.v.close()
        return out


# ---- the verdict ----

def outcome_str(o):
    s = f"{o['state'] or '-'} {'ok' if o['usable'] else 'DEAD(' + o['why'] + ')'}"
    if o['resp']:
        s += ' sent=' + ','.join(o['resp'])
    if o['wc']:
        s += ' wc=' + ','.join(o['wc'])
    return s


def accepted(o):
    """What of a packet the victim took in: success completions and ACK/data responses (by
    kind: which PSN an ACK names differs and does not matter here)."""
    return ({w for w in o['wc'] if w.endswith(':SUCCESS')} |
            {r.split('@')[0] for r in o['resp']
             if r.startswith(('ACK/ack', 'READ_RESP', 'ATOMIC_ACK'))})


def naks(o):
    return {r.split('@')[0] for r in o['resp'] if '/nak' in r or '/rnr' in r}


def verdict(c, s, b, listed):
    """(verdict, less-tolerant?)"""
    if s['state'] == 'CRASH':
        return 'stock crashes (not run there)', False
    why = []
    if s['usable'] and not b['usable']:
        why.append('connection lost')
    extra = naks(b) - naks(s)
    if extra and s['usable']:       # where both lose the connection, which NAK says so is moot
        why.append('NAKs stock does not send: ' + ','.join(sorted(extra)))
    lost = accepted(s) - accepted(b)
    if lost and s['usable']:
        why.append('refuses what stock accepts: ' + ','.join(sorted(lost)))
    if why:
        for key, match in KEYS.items():
            if match(c):
                if key in listed:
                    return f'stricter (listed: {key})', False
                return f"LESS TOLERANT ({'; '.join(why)}; key {key} not in README)", True
        return f"LESS TOLERANT ({'; '.join(why)})", True
    if b['usable'] and not s['usable']:
        return 'more tolerant', False
    if outcome_str(s) == outcome_str(b):
        return 'same', False
    return 'differs', False


def readme_keys(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r'^## Tolerance.*?(?=^## )', text, re.M | re.S)
    return set(re.findall(r'conform: ([a-z0-9-]+)', m.group(0) if m else ''))


def compare(stock_file, bundled_file, readme):
    def load(p):
        with open(p) as f:
            return {o['id']: o for o in map(json.loads, f) if 'id' in o}, None
    meta = {}
    with open(stock_file) as f:
        meta = json.loads(f.readline())
    st, _ = load(stock_file)
    bu, _ = load(bundled_file)
    # the cases as run (the stock file's), not as this copy of the generator would make them
    cases = [o['case'] for o in sorted(st.values(), key=lambda o: o['id'])]
    for o in bu.values():
        if o['id'] in st and o['case'] != st[o['id']]['case']:
            raise SystemExit(f"rxe_conform.py: case {o['id']} differs between the two runs")
    listed = readme_keys(readme)
    unknown = set(KEYS) - listed
    bad, counts = [], {}
    print(f"seed {meta['seed']}, {meta['cases']} cases; README lists {sorted(listed)}")
    print('case | packets | stock | bundled | verdict')
    for c in cases:
        s, b = st.get(c['id']), bu.get(c['id'])
        if not s or not b:
            v, less = 'MISSING (' + ('stock' if not s else 'bundled') + ' did not run it)', True
        else:
            v, less = verdict(c, s, b, listed)
        counts[v.split(' (')[0]] = counts.get(v.split(' (')[0], 0) + 1
        print(f"{c['id']} | {case_name(c)} | {outcome_str(s) if s else '-'} | "
              f"{outcome_str(b) if b else '-'} | {v}")
        if less:
            bad.append(f"{c['id']}: {case_name(c)}: {v}")
    print('verdicts: ' + ', '.join(f'{k} {n}' for k, n in sorted(counts.items())))
    for k in sorted(unknown):
        print(f'note: stricter-rule key {k} is not tagged in README (cases it covers fail)')
    for line in bad:
        print(f'LESS TOLERANT: case {line}')
    return 1 if bad else 0


def main():
    import argparse
    ap = argparse.ArgumentParser(usage=__doc__)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    for k in ('victim', 'dev', 'gid', 'self', 'peer', 'third', 'netns', 'out'):
        r.add_argument('--' + k, required=True, dest=k.replace('self', 'self_ip'))
    r.add_argument('--seed', type=int, required=True)
    r.add_argument('--cases', type=int, required=True)
    r.add_argument('--only', default='')
    r.add_argument('--stock', action='store_true', help='the driver is stock rdma_rxe')
    c = sub.add_parser('compare')
    c.add_argument('stock')
    c.add_argument('bundled')
    c.add_argument('readme')
    li = sub.add_parser('list')
    li.add_argument('--seed', type=int, required=True)
    li.add_argument('--cases', type=int, required=True)
    a = ap.parse_args()
    if a.cmd == 'list':
        for c in gen_cases(a.seed, a.cases):
            print(f"{c['id']} | {case_name(c)}")
        return 0
    if a.cmd == 'compare':
        return compare(a.stock, a.bundled, a.readme)
    cases = gen_cases(a.seed, a.cases)
    if a.only:
        keep = {int(x) for x in a.only.split(',')}
        cases = [c for c in cases if c['id'] in keep]
    t0 = time.monotonic()
    res = Runner(a).run(cases)
    with open(a.out, 'w') as f:
        f.write(json.dumps({'seed': a.seed, 'cases': a.cases}) + '\n')
        for o in res:
            f.write(json.dumps(o) + '\n')
    dead = sum(1 for o in res if not o['usable'])
    print(f'{len(res)} cases in {time.monotonic() - t0:.1f} s, {dead} left the connection '
          f'unusable')
    return 0


if __name__ == '__main__':
    sys.exit(main())
