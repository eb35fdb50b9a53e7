#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# rxe_hostile.py - a hostile or vanishing RoCE v2 peer, against tests/driver/rxe_victim.
"""Usage: rxe_hostile.py SCENARIO ARGS...

Crafts RC packets with valid ICRCs on a raw IPv4 socket (any source address) and listens on
UDP 4791 for what the victim answers; INFO is the victim.info file rxe_victim wrote
("qpn rkey va rq_psn sq_psn"), DIR the directory both watch.

  write-first SRC DST INFO DIR   WRITE_FIRST (1 KiB of an 8 KiB WRITE, ACK requested) at the
                                 victim's PSN, check it was acknowledged, then go silent
                                 (touch DIR/go) as a peer that died mid-message
  spoof THIRD SRC DST INFO DIR   an ACK and a remote-access NAK for the victim's outstanding
                                 SEND from THIRD, touch DIR/go, wait for DIR/checked, then
                                 the real ACK from SRC (the connected peer)
  read SRC DST INFO DIR          READ requests: a current one (answered), its duplicate
                                 (replayed from the responder resource), an old PSN with a
                                 foreign va and an old PSN never used (both must be ignored),
                                 an rkey guessing loop on an old PSN and old-PSN atomics with
                                 a bad rkey (no answer at all: stock rdma_rxe drops a duplicate
                                 no responder resource records), then a current READ (must be
                                 answered: the QP serves on); touch DIR/go
  window SRC DST INFO DIR        against the SEND rxe_victim spoof posts, from the connected
                                 peer itself: once it has arrived, an ACK for a PSN never sent,
                                 then 200 copies of one sequence NAK for the SEND's PSN (each
                                 a rewind of the whole window if acted on); fail when more
                                 than 3 resends come back; touch DIR/go, wait for
                                 DIR/checked, then the real ACK
  uc SRC DST INFO DIR            UC SENDs to a UC victim (rxe_victim uc): a message with a lost
                                 MIDDLE, a lone MIDDLE, a lone LAST (all to be dropped), an ONLY
                                 at a new PSN, a FIRST+LAST, then a message whose LAST comes
                                 before its MIDDLE (dropped); touch DIR/go. The victim judges.
  stale SRC DST INFO DIR         against rxe_victim stale (timeout 67 ms, retry_cnt 2): touch
                                 DIR/go; its first READ gets 0.6 s of ACKs of an old PSN (no
                                 progress, 9 timeouts' worth), then its response; its second
                                 READ gets 4 s of old ACKs only. Fail when the first READ was
                                 re-issued at all, or the second other than twice
  idle SRC DST INFO DIR          against rxe_victim idle (rnr_retry 0): a remote access NAK and
                                 an RNR NAK for the PSN before the victim's first (nothing
                                 outstanding), touch DIR/go; then, once its SEND arrives, the
                                 same two NAKs again (behind the acknowledged PSN), then the
                                 SEND's ACK. No response matching no outstanding request may
                                 change the QP
  rnr SRC DST INFO DIR           against rxe_victim rnr (rnr_retry 1): touch DIR/go; each of
                                 its three SENDs gets one RNR NAK (10 us), then, resent, an ACK
  mtu SRC DST INFO DIR           against rxe_victim mtu: touch DIR/go, READ 4 MiB and touch
                                 DIR/reading (the victim's modify_qp calls start): all of it must
                                 come back; touch DIR/read, then a 64-byte READ at the next
                                 PSN, which must be answered; touch DIR/done
  flood THIRD SRC DST INFO DIR   against rxe_victim flood, as SCHED_FIFO (the victim's worker
                                 waits): touch DIR/go, READ the whole 4 MiB MR from SRC, then
                                 5000 SEND_ONLYs from THIRD (each would be dropped by the
                                 address check, but only once taken from the QP's queue, which
                                 holds 4096), then a 64-byte READ from SRC at the next PSN,
                                 which must be answered; touch DIR/done
Exit 0 when the victim answered as a safe responder must, 1 (with the step) when not.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rxe_fuzz import icrc  # noqa: E402

OP_SEND_ONLY, OP_WRITE_FIRST, OP_READ_REQ, OP_ACK = 0x04, 0x06, 0x0c, 0x11
OP_CMP_SWAP, OP_FETCH_ADD = 0x13, 0x14
UC_FIRST, UC_MIDDLE, UC_LAST, UC_ONLY = 0x20, 0x21, 0x22, 0x24
READ_RESP = {0x0d, 0x0e, 0x0f, 0x10}
_ipid = [0x1234]
_dir = []  # DIR, once known


def build(src, dst, op, qpn, psn, ackreq=False, ext=b'', payload=b''):
    pad = (-len(payload)) & 3
    bth = struct.pack('!BBHII', op, 0x40 | (pad << 4), 0xffff, qpn & 0xffffff,
                      (0x80000000 if ackreq else 0) | (psn & 0xffffff))
    rest = ext + payload + bytes(pad)
    udp_len = 8 + len(bth) + len(rest) + 4
    _ipid[0] = _ipid[0] % 65535 + 1
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, _ipid[0], 0x4000, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    udp = struct.pack('!HHHH', 0xc123, 4791, udp_len, 0)
    return ip + udp + bth + rest + icrc(ip, udp, bth, rest)


class Peer:
    def __init__(self, dst):
        self.dst = dst
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.bind(('0.0.0.0', 4791))

    def send(self, src, *args, **kw):
        self.raw.sendto(build(src, self.dst, *args, **kw), (self.dst, 0))

    def recv(self, secs, until=None):
        """Packets the victim sent us within secs: (opcode, psn, syndrome, payload); sooner
        once until(packets so far) holds."""
        out, end = [], time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0 or (until and until(out)):
                return out
            self.rx.settimeout(left)
            try:
                data, _ = self.rx.recvfrom(65536)
            except socket.timeout:
                return out
            if len(data) < 16:
                continue
            op, psn = data[0], struct.unpack('!I', data[8:12])[0] & 0xffffff
            syn = data[12] if op in READ_RESP | {OP_ACK, 0x12} else None
            body = data[16:-4] if op in (0x0d, 0x0f, 0x10) else data[12:-4]
            out.append((op, psn, syn, body))


def reth(va, rkey, length):
    return struct.pack('!QII', va, rkey, length)


def atmeth(va, rkey, swap_add, compare):
    return struct.pack('!QIQQ', va, rkey, swap_add, compare)


def touch(d, name):
    open(os.path.join(d, name), 'w').close()


def wait_file(d, name, secs=120):
    end = time.monotonic() + secs
    while not os.path.exists(os.path.join(d, name)):
        if time.monotonic() > end:
            sys.exit(f"rxe_hostile: {name} did not appear in {d}")
        time.sleep(0.1)


def fail(msg):
    print(f"FAIL: {msg}")
    if _dir:
        touch(_dir[0], 'go')    # the victim stops waiting for an attack that ended
    sys.exit(1)


def write_first(src, dst, info, d):
    qpn, rkey, va, rq_psn, _ = info
    p = Peer(dst)
    p.send(src, OP_WRITE_FIRST, qpn, rq_psn, ackreq=True, ext=reth(va, rkey, 8192),
           payload=b'W' * 1024)
    got = p.recv(5)
    if not any(op == OP_ACK and psn == rq_psn and syn == 0x1f for op, psn, syn, _ in got):
        fail(f"the WRITE_FIRST was not acknowledged: {got}")
    print("WRITE_FIRST acknowledged; the peer goes silent")
    touch(d, 'go')


def spoof(third, src, dst, info, d):
    qpn, _, _, _, sq_psn = info
    p = Peer(dst)
    aeth_ack = struct.pack('!I', 0x1f << 24)
    aeth_nak = struct.pack('!I', 0x62 << 24)
    p.send(third, OP_ACK, qpn, sq_psn, ext=aeth_ack)
    p.send(third, OP_ACK, qpn, sq_psn, ext=aeth_nak)
    print(f"spoofed ACK and NAK sent from {third}")
    touch(d, 'go')
    wait_file(d, 'checked', 40)
    p.send(src, OP_ACK, qpn, sq_psn, ext=aeth_ack)
    print(f"real ACK sent from {src}")


def window(src, dst, info, d, naks=200):
    qpn, _, _, _, sq_psn = info
    p = Peer(dst)
    aeth = lambda syn: struct.pack('!I', syn << 24)  # noqa: E731
    # The SEND itself may have gone out before this socket was bound: its first resend comes
    # with the victim's retransmit timer (4.3 s).
    end = time.monotonic() + 10
    while not any(op == OP_SEND_ONLY and psn == sq_psn for op, psn, _, _ in p.recv(0.5)):
        if time.monotonic() > end:
            fail(f"the victim's SEND (PSN {sq_psn}) did not arrive")
    p.send(src, OP_ACK, qpn, (sq_psn + 100) & 0xffffff, ext=aeth(0x1f))
    for _ in range(naks):
        p.send(src, OP_ACK, qpn, sq_psn, ext=aeth(0x60))
    resends = sum(1 for op, psn, _, _ in p.recv(2) if psn == sq_psn)
    print(f"a ghost ACK and {naks} sequence NAKs for PSN {sq_psn}: {resends} resends")
    if resends > 3:
        fail(f"{resends} resends for {naks} copies of one sequence NAK")
    touch(d, 'go')
    wait_file(d, 'checked', 40)
    p.send(src, OP_ACK, qpn, sq_psn, ext=aeth(0x1f))
    print(f"real ACK sent from {src}")


def read(src, dst, info, d):
    qpn, rkey, va, rq_psn, _ = info
    p = Peer(dst)
    secret = (b'SECRET' * 11)[:64]

    def data_in(got):
        return [body for op, _, _, body in got if op in READ_RESP and body]

    answered = lambda got: secret in data_in(got)  # noqa: E731
    p.send(src, OP_READ_REQ, qpn, rq_psn, ext=reth(va, rkey, 64))
    got = p.recv(3, answered)
    if secret not in data_in(got):
        fail(f"step 1: a current READ with the right rkey was not answered: {got}")
    print("step 1: current READ answered")
    p.send(src, OP_READ_REQ, qpn, rq_psn, ext=reth(va, rkey, 64))
    got = p.recv(3, answered)
    if secret not in data_in(got):
        fail(f"step 2: the duplicate of that READ was not replayed: {got}")
    print("step 2: duplicate READ replayed from the responder resource")
    p.send(src, OP_READ_REQ, qpn, rq_psn, ext=reth(va + 4096, rkey, 64))
    got = p.recv(2)
    if data_in(got):
        fail("step 3: an old PSN with a foreign va was executed (data came back)")
    print("step 3: old PSN with a foreign va ignored")
    p.send(src, OP_READ_REQ, qpn, (rq_psn - 5) & 0xffffff, ext=reth(va, rkey, 4096))
    got = p.recv(2)
    if data_in(got):
        fail("step 4: an old PSN never requested was executed (data came back)")
    print("step 4: old PSN never requested ignored")
    guesses = [rkey ^ 0x100, rkey ^ 0x200, rkey ^ 0x300, rkey]
    for g in guesses:
        p.send(src, OP_READ_REQ, qpn, (rq_psn - 10) & 0xffffff, ext=reth(va, g, 64))
        time.sleep(0.2)
    # half the PSN space is "behind": a guess needs no PSN at all
    p.send(src, OP_READ_REQ, qpn, (rq_psn - 0x7fffff) & 0xffffff, ext=reth(va, rkey ^ 1, 64))
    got = p.recv(2)
    if got:
        fail(f"step 5: old-PSN READs that no responder resource records were answered: {got}")
    print("step 5: an rkey guessing loop on old PSNs got no answer at all")
    for op in (OP_CMP_SWAP, OP_FETCH_ADD):
        p.send(src, op, qpn, (rq_psn - 3) & 0xffffff, ext=atmeth(va, rkey ^ 0x100, 1, 0))
    got = p.recv(2)
    if got:
        fail(f"step 6: old-PSN atomics with a bad rkey were answered: {got}")
    print("step 6: old-PSN atomics with a bad rkey got no answer")
    nxt = (b'SECRET' * 12)[4:68]
    p.send(src, OP_READ_REQ, qpn, (rq_psn + 1) & 0xffffff, ext=reth(va + 64, rkey, 64))
    got = p.recv(3, lambda got: nxt in data_in(got))
    if nxt not in data_in(got):
        fail(f"step 7: the next READ (PSN {rq_psn + 1}) was not answered: {got}")
    print("step 7: the next READ answered: the QP serves on")
    touch(d, 'go')


def uc(src, dst, info, d):
    qpn, _, _, psn, _ = info
    p = Peer(dst)
    mtu = 1024  # the victim's path MTU
    # a message whose MIDDLE is lost: FIRST, then LAST two PSNs on
    p.send(src, UC_FIRST, qpn, psn, payload=b'X' * mtu)
    p.send(src, UC_LAST, qpn, psn + 2, payload=b'X' * 10)
    # a MIDDLE and a LAST of no message
    p.send(src, UC_MIDDLE, qpn, psn + 3, payload=b'X' * mtu)
    p.send(src, UC_LAST, qpn, psn + 4, payload=b'X' * 5)
    # whole messages at a PSN the victim never saw: ONLY, then FIRST + LAST
    p.send(src, UC_ONLY, qpn, 2000, payload=b'O' * 100)
    p.send(src, UC_FIRST, qpn, 2001, payload=b'F' * mtu)
    p.send(src, UC_LAST, qpn, 2002, payload=b'L' * 50)
    # reordered: FIRST, LAST, MIDDLE
    p.send(src, UC_FIRST, qpn, 2003, payload=b'Y' * mtu)
    p.send(src, UC_LAST, qpn, 2005, payload=b'Y' * 7)
    p.send(src, UC_MIDDLE, qpn, 2004, payload=b'Y' * mtu)
    got = p.recv(1)
    if got:
        fail(f"a UC responder answered: {got}")
    print("UC packets sent; no answer came back (UC acknowledges nothing)")
    touch(d, 'go')


def stale(src, dst, info, d):
    qpn, _, _, _, sq_psn = info
    p = Peer(dst)
    aeth = struct.pack('!I', 0x1f << 24)

    def wait_read(psn):
        end = time.monotonic() + 10
        while not any(op == OP_READ_REQ and q == psn for op, q, _, _ in p.recv(0.005)):
            if time.monotonic() > end:
                fail(f"the victim's READ (PSN {psn}) did not arrive")

    def old_acks(psn, secs, read_psn):
        """ACKs of psn every 10 ms for secs; how many READ requests at read_psn came back."""
        n, end = 0, time.monotonic() + secs
        while time.monotonic() < end:
            p.send(src, OP_ACK, qpn, psn, ext=aeth)
            n += sum(1 for op, q, _, _ in p.recv(0.01) if op == OP_READ_REQ and q == read_psn)
        return n

    touch(d, 'go')
    wait_read(sq_psn)
    n = old_acks((sq_psn - 1) & 0xffffff, 0.6, sq_psn)
    p.send(src, 0x10, qpn, sq_psn, ext=aeth, payload=b'R' * 1024)
    print(f"READ 1: re-issued {n} times during 0.6 s of old ACKs, then answered")
    if n:
        fail(f"READ 1 was re-issued {n} times while the peer kept answering")
    # READ 2 is posted once READ 1 completed: its request, then the re-issues
    n = old_acks(sq_psn, 4, (sq_psn + 1) & 0xffffff)
    print(f"READ 2: sent {n} times during 4 s of old ACKs")
    if n != 3:
        fail(f"READ 2 was sent {n} times, not once and then retry_cnt (2) times")


def wait_send(p, psn, secs=10):
    """Wait for the victim's SEND_ONLY at psn."""
    end = time.monotonic() + secs
    while not any(op == OP_SEND_ONLY and q == psn for op, q, _, _ in p.recv(0.05)):
        if time.monotonic() > end:
            fail(f"the victim's SEND (PSN {psn}) did not arrive")


def idle(src, dst, info, d):
    qpn, _, _, _, sq_psn = info
    p = Peer(dst)
    old = (sq_psn - 1) & 0xffffff
    aeth = lambda syn: struct.pack('!I', syn << 24)  # noqa: E731
    p.send(src, OP_ACK, qpn, old, ext=aeth(0x62))      # NAK: remote access error
    p.send(src, OP_ACK, qpn, old, ext=aeth(0x20))      # RNR NAK, 655 ms
    time.sleep(0.5)
    print(f"a remote access NAK and an RNR NAK for PSN {old}, nothing outstanding")
    touch(d, 'go')
    wait_send(p, sq_psn)
    p.send(src, OP_ACK, qpn, old, ext=aeth(0x62))
    p.send(src, OP_ACK, qpn, old, ext=aeth(0x20))
    time.sleep(0.5)
    print(f"the SEND (PSN {sq_psn}) arrived; the same NAKs for PSN {old}, behind it")
    p.send(src, OP_ACK, qpn, sq_psn, ext=aeth(0x1f))
    print(f"real ACK of PSN {sq_psn} sent")


def rnr(src, dst, info, d):
    qpn, _, _, _, sq_psn = info
    p = Peer(dst)
    aeth = lambda syn: struct.pack('!I', syn << 24)  # noqa: E731
    touch(d, 'go')
    for i in range(3):
        psn = (sq_psn + i) & 0xffffff
        wait_send(p, psn)
        p.send(src, OP_ACK, qpn, psn, ext=aeth(0x21))  # RNR NAK, 10 us
        wait_send(p, psn, 5)
        p.send(src, OP_ACK, qpn, psn, ext=aeth(0x1f))
        print(f"SEND {i + 1} (PSN {psn}): RNR NAK, resent, ACK")


def mtu(src, dst, info, d):
    qpn, rkey, va, rq_psn, _ = info
    p = Peer(dst)
    p.rx.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: no response lost here
    length = 4 << 20
    touch(d, 'go')
    time.sleep(0.3)
    p.send(src, OP_READ_REQ, qpn, rq_psn, ext=reth(va, rkey, length))
    touch(d, 'reading')
    got, end = [], time.monotonic() + 20
    while time.monotonic() < end and not any(x[0] in (0x0f, 0x10) for x in got):
        got += [x for x in p.recv(0.2) if x[0] in READ_RESP]
    touch(d, 'read')
    last = [x for x in got if x[0] in (0x0f, 0x10)]
    size = sum(len(x[3]) for x in got)
    if not last:
        fail(f"the 4 MiB READ did not end: {len(got)} responses, {size} bytes")
    nxt = (last[0][1] + 1) & 0xffffff
    summary = (f"4 MiB READ: {len(got)} responses of {len(got[0][3])} bytes, {size} in all; "
               f"next PSN {nxt}")
    print(summary)
    p.send(src, OP_READ_REQ, qpn, nxt, ext=reth(va + 64, rkey, 64))
    end = time.monotonic() + 5
    want = (b'SECRET' * 12)[4:68]
    while time.monotonic() < end:
        if want in [body for op, _, _, body in p.recv(0.1) if op in READ_RESP]:
            break
    else:
        touch(d, 'done')
        fail(f"the READ after it (PSN {nxt}) was not answered")
    touch(d, 'done')
    if size != length:
        fail(f"the READ returned {size} bytes, not {length}")
    print(f"{summary}; the READ after it was answered: the QP serves on")


def flood(third, src, dst, info, d, n=5000):
    qpn, rkey, va, rq_psn, _ = info
    p = Peer(dst)
    p.rx.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: no response lost here
    length, mtu = 4 << 20, 1024
    junk = [build(third, dst, OP_SEND_ONLY, qpn, (rq_psn + 4096 + i) & 0xffffff, ackreq=True,
                  payload=b'T' * 16) for i in range(n)]
    touch(d, 'go')
    time.sleep(0.3)
    p.send(src, OP_READ_REQ, qpn, rq_psn, ext=reth(va, rkey, length))
    for pkt in junk:
        p.raw.sendto(pkt, (dst, 0))
    nxt = (rq_psn + length // mtu) & 0xffffff
    p.send(src, OP_READ_REQ, qpn, nxt, ext=reth(va + 64, rkey, 64))
    want = (b'SECRET' * 12)[4:68]
    got, end = [], time.monotonic() + 30
    while time.monotonic() < end:
        got += [x for x in p.recv(0.2) if x[0] in READ_RESP]
        if any(x[1] == nxt and x[3] == want for x in got):
            break
    size = sum(len(x[3]) for x in got if x[1] != nxt)
    touch(d, 'done')
    print(f"4 MiB READ: {size} bytes back; {n} SENDs from {third} behind it")
    if not any(x[1] == nxt and x[3] == want for x in got):
        fail(f"the peer's READ behind the flood (PSN {nxt}) was not answered")
    print(f"the peer's READ behind {n} packets from a third address was answered")


def main():
    scenarios = ('write-first', 'spoof', 'window', 'read', 'uc', 'stale', 'idle', 'rnr', 'mtu',
                 'flood')
    if len(sys.argv) < 2 or sys.argv[1] not in scenarios:
        sys.exit(__doc__)
    n = 5 if sys.argv[1] in ('spoof', 'flood') else 4
    args = sys.argv[2:]
    if len(args) != n:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    info_path = args[-2]
    wait_file(os.path.dirname(info_path) or '.', os.path.basename(info_path))
    _dir.append(args[-1])
    with open(info_path) as f:
        info = [int(x) for x in f.read().split()]
    {'write-first': write_first, 'spoof': spoof, 'window': window, 'read': read,
     'uc': uc, 'stale': stale, 'idle': idle, 'rnr': rnr, 'mtu': mtu, 'flood': flood}[sys.argv[1]](
        *args[:-2], info, args[-1])


if __name__ == '__main__':
    main()
