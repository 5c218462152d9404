#!/usr/bin/env python3
"""Seeds for hw-rxe's RxeRcvFuzzTest from the Linux rxe captures: the first packet of each opcode,
as the fuzz input [control, PSN delta, UDP payload]. Control: aimed at the QP of the opcode's transport, PSN,
P_Key, Q_Key and RETH/AtomicETH fixed (bits 3,4,6,7), ICRC recomputed. Run from the repo root."""
import os, struct, sys

SRC = "hw-rxe/src/test/resources/vectors/roce"
DST = "hw-rxe/src/test/resources/org/jrdma/hw/rxe/RxeRcvFuzzTestInputs/rcv"

def udp_payloads(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        eth = struct.unpack(">H", frame[12:14])[0]
        if eth == 0x0800:
            ihl = (frame[14] & 0xf) * 4
            proto, l4 = frame[14 + 9], 14 + ihl
        elif eth == 0x86dd:
            proto, l4 = frame[14 + 6], 14 + 40
        else:
            continue
        if proto != 17 or struct.unpack(">H", frame[l4 + 2:l4 + 4])[0] != 4791:
            continue
        yield frame[l4 + 8:]

def transport(op):
    return {0: 0, 1: 1, 3: 2}.get(op >> 5, 5)

os.makedirs(DST, exist_ok=True)
seen = set()
for name in sorted(os.listdir(SRC)):
    if not name.endswith(".pcap"):
        continue
    for p in udp_payloads(os.path.join(SRC, name)):
        if len(p) < 12 or p[0] in seen:
            continue
        seen.add(p[0])
        control = transport(p[0]) | 0x08 | 0x10 | 0x40 | 0x80
        out = os.path.join(DST, "%s-op%02x" % (name[:-5], p[0]))
        with open(out, "wb") as f:
            f.write(bytes([control, 0]) + p)
print(len(seen), "seeds in", DST, file=sys.stderr)
