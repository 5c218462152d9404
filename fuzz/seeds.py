#!/usr/bin/env python3
"""Seed inputs for the Jazzer fuzz tests, from the Linux captures in the modules' test resources; written into the
Jazzer layout <module>/src/test/resources/<package>/<Class>Inputs/<method>/ that `mvn verify` replays. Run from the
repo root; re-running rewrites the seed files (findings, crash-*, are left alone)."""
import ipaddress, os, struct, sys

def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    end = "<" if struct.unpack("<I", data[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + "IIII", data[off:off + 16])[2]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl

def roce(path):
    """(source IPv4 or None, UDP payload) of every RoCEv2 packet."""
    for fr in frames(path):
        eth = struct.unpack(">H", fr[12:14])[0]
        if eth == 0x0800:
            proto, l4, src = fr[23], 14 + (fr[14] & 0xf) * 4, ".".join(map(str, fr[26:30]))
        elif eth == 0x86dd:
            proto, l4, src = fr[20], 54, None
        else:
            continue
        if proto == 17 and struct.unpack(">H", fr[l4 + 2:l4 + 4])[0] == 4791:
            yield src, fr[l4 + 8:]

def write(dst, name, data):
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, name), "wb") as f:
        f.write(data)

# ---- hw-rxe RxeRcvFuzzTest#rcv: [control, PSN delta, UDP payload], first packet of each opcode
def rxe_seeds():
    src = "hw-rxe/src/test/resources/vectors/roce"
    dst = "hw-rxe/src/test/resources/org/jrdma/hw/rxe/RxeRcvFuzzTestInputs/rcv"
    seen = set()
    for name in sorted(os.listdir(src)):
        if name.endswith(".pcap"):
            for _, p in roce(os.path.join(src, name)):
                if len(p) >= 12 and p[0] not in seen:
                    seen.add(p[0])
                    qp = {0: 0, 1: 1, 3: 2}.get(p[0] >> 5, 5)  # RC, UC, UD, else the BTH's QPN
                    write(dst, "%s-op%02x" % (name[:-5], p[0]), bytes([qp | 0x08 | 0x10 | 0x40 | 0x80, 0]) + p)
    return len(seen)

# ---- ulp-iser: the initiator's SENDs (RC SEND opcodes joined First..Last)
HDR = {0x00: 12, 0x01: 12, 0x02: 12, 0x03: 16, 0x04: 12, 0x05: 16, 0x16: 16, 0x17: 16}
LAST = {0x02, 0x03, 0x04, 0x05, 0x16, 0x17}

def iser_sends(path, initiator):
    cur = b""
    for src, p in roce(path):
        op = p[0]
        if src != initiator or op not in HDR:
            continue
        pad = (p[1] >> 4) & 3
        cur += p[HDR[op]:len(p) - 4 - pad]
        if op in LAST:
            yield cur
            cur = b""

def records(sends):
    return b"".join(struct.pack(">H", len(s)) + s for s in sends)

def iser_seeds():
    res = "ulp-iser/src/test/resources"
    dst = res + "/org/jrdma/ulp/iser/target/IserTargetFuzzTestInputs/sends"
    cdbs = res + "/org/jrdma/ulp/iser/scsi/CdbFuzzTestInputs/cdb"
    n, seen = 0, set()
    for cap in ("iser_session", "iser_nopout", "iser_discovery"):
        sends = list(iser_sends("%s/vectors/iser/%s.pcap" % (res, cap), "192.0.2.10"))
        logins = [s for s in sends if s[28] & 0x3f == 0x03]
        rest = [s for s in sends if s[28] & 0x3f != 0x03]
        write(dst, cap + "-login", bytes([0]) + records(logins + rest[:2]))  # the raw session start
        n += 1
        for s in rest:
            key = (s[28] & 0x3f, s[28 + 32])
            if key in seen:
                continue
            seen.add(key)
            control = 0x07 | (0x08 if cap == "iser_discovery" else 0)  # logged in, CmdSN and STags aimed
            write(dst, "%s-op%02x-%02x" % (cap, key[0], key[1]), bytes([control]) + records([s]))
            n += 1
            if key[0] == 0x01:  # SCSI Command: the CDB seed [CDB 16, EDTL 3 bytes, LUN 1 byte, data]
                bhs = s[28:76]
                for lun in (0, 1) if key[1] == 0x2a else (0,):  # a WRITE to the read-only LUN too
                    write(cdbs, "%s-%02x-lun%d" % (cap, key[1], lun), bhs[32:48] + bhs[21:24] + bytes([lun]) + s[76:])
                    n += 1
    return n

# ---- ulp-ipoib IpoibRxFuzzTest#frame: IPoIB frames (no capture holds one: built as Linux's ipoib sends them)
def ipv4(src, dst, proto, payload):
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0,
                      bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    words = struct.unpack(">10H", hdr)
    c = sum(words)
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    return hdr[:10] + struct.pack(">H", ~c & 0xffff) + hdr[12:] + payload

def arp(op, sender_qpn, sender_ip, target_ip):
    gid = bytes.fromhex("fe800000000000000002c90300000001")
    hw = struct.pack(">I", sender_qpn & 0xffffff) + gid
    ip = lambda a: bytes(map(int, a.split(".")))
    target_hw = bytes(20) if op == 1 else struct.pack(">I", 0x48) + gid
    return struct.pack(">HHBBH", 32, 0x0800, 20, 4, op) + hw + ip(sender_ip) + target_hw + ip(target_ip)

def ipv6(src, dst, next_header, hop_limit, upper, csum_at):
    a = lambda x: ipaddress.IPv6Address(x).packed
    pseudo = a(src) + a(dst) + struct.pack(">IxxxB", len(upper), next_header) + upper
    if len(pseudo) % 2:
        pseudo += b"\0"
    c = sum(struct.unpack(">%dH" % (len(pseudo) // 2), pseudo))
    while c >> 16:
        c = (c & 0xffff) + (c >> 16)
    upper = upper[:csum_at] + struct.pack(">H", ~c & 0xffff) + upper[csum_at + 2:]
    return struct.pack(">IHBB", 0x60000000, len(upper), next_header, hop_limit) + a(src) + a(dst) + upper

def nd(kind, flags, target, lladdr_qpn):
    """RFC 4861 NS (135) / NA (136) with RFC 4391's 24-byte IPoIB link-layer address option (type 1 / 2, length 3)."""
    opt = struct.pack(">BBxxI", 1 if kind == 135 else 2, 3, lladdr_qpn) + bytes.fromhex("fe800000000000000002c90300000001")
    return struct.pack(">BBHBxxx", kind, 0, 0, flags) + ipaddress.IPv6Address(target).packed + opt

def ipoib_seeds():
    dst = "ulp-ipoib/src/test/resources/org/jrdma/ulp/ipoib/impl/IpoibRxFuzzTestInputs/frame"
    enc = lambda ethertype, body: struct.pack(">HH", ethertype, 0) + body
    frames = {
        "arp-request": enc(0x0806, arp(1, 0x77, "10.0.0.9", "10.0.0.2")),
        "arp-reply": enc(0x0806, arp(2, 0x77, "10.0.0.9", "10.0.0.2")),
        "ipv4-udp": enc(0x0800, ipv4("10.0.0.9", "10.0.0.2", 17, struct.pack(">HHHH", 1, 2, 12, 0) + b"abcd")),
        "ipv4-icmp-echo": enc(0x0800, ipv4("10.0.0.9", "10.0.0.2", 1, bytes([8, 0, 0xf7, 0xfe, 0, 1, 0, 0]))),
        "ipv6": enc(0x86dd, bytes([0x60, 0, 0, 0, 0, 8, 17, 64]) + bytes(32) + struct.pack(">HHHH", 1, 2, 8, 0)),
        "short": bytes([0x08, 0x00]),
        # ND for ib1's link-local (fe80:: + lo0 port 2's GUID) from a peer fe80::2:c903:0:1, hop limit 255
        "ipv6-ns": enc(0x86dd, ipv6("fe80::2:c903:0:1", "ff02::1:ff00:201", 58, 255,
                                    nd(135, 0, "fe80::6a72:646d:0:201", 0x77), 2)),
        "ipv6-na": enc(0x86dd, ipv6("fe80::2:c903:0:1", "fe80::6a72:646d:0:201", 58, 255,
                                    nd(136, 0x60, "fe80::2:c903:0:1", 0x77), 2)),
        "ipv6-icmp-echo": enc(0x86dd, ipv6("fe80::2:c903:0:1", "fe80::6a72:646d:0:201", 58, 64,
                                           bytes([128, 0, 0, 0, 0, 1, 0, 1]) + b"abcd", 2)),
    }
    for name, f in frames.items():
        write(dst, name, f)
    return len(frames)

# ---- ib-mad MadFuzzTest#mad: MADs to QP1 (SA queries as saquery sends them, the layer's own cases)
def mad(mgmt_class, class_version, method, attr_id, tid, sa=None):
    hdr = struct.pack(">BBBBHHQHHI", 1, mgmt_class, class_version, method, 0, 0, tid, attr_id, 0, 0)
    body = bytes(232)
    if sa is not None:  # RMPP (12, inactive), SM_Key, AttributeOffset, reserved, ComponentMask, record
        comp_mask, record = sa
        body = bytes(12) + bytes(8) + struct.pack(">HHQ", 0, 0, comp_mask) + record
        body = body + bytes(232 - len(body))
    return hdr + body

def mad_seeds():
    dst = "ib-mad/src/test/resources/org/jrdma/ib/mad/MadFuzzTestInputs/mad"
    mgid = bytes.fromhex("ff12401bffff0000000000000000ffff")
    port_gid = bytes.fromhex("fe800000000000000000000000000002")
    seeds = {
        "sa-gettable-noderecord": mad(0x03, 2, 0x12, 0x0011, 1, (0, bytes(0))),
        "sa-gettable-portinforecord": mad(0x03, 2, 0x12, 0x0012, 2, (0, bytes(0))),
        "sa-get-pathrecord": mad(0x03, 2, 0x01, 0x0035, 3, (0x0c, bytes(8) + port_gid + port_gid)),
        "sa-set-mcmemberrecord-join": mad(0x03, 2, 0x13, 0x0038, 4,
                                          (0x10083, mgid + port_gid + bytes(16) + bytes([0, 0, 0, 0x10]))),
        "vendor-get": mad(0x30, 1, 0x01, 0x1234, 5),
        "perf-get-portcounters": mad(0x04, 1, 0x01, 0x0012, 6),
        "stray-getresp": mad(0x03, 2, 0x81, 0x0035, 0x777700000001),
        "short": bytes([1, 0x03, 2, 1]) + bytes(96),
    }
    for name, m in seeds.items():
        write(dst, name, m)
    return len(seeds)

if __name__ == "__main__":
    print(rxe_seeds(), "hw-rxe seeds;", iser_seeds(), "ulp-iser seeds;", ipoib_seeds(), "ulp-ipoib seeds;", mad_seeds(), "ib-mad seeds",
          file=sys.stderr)
