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

# ---- ib-cm CmFuzzTest#cm: [control, CM MAD]: every CM MAD of the Linux captures (one per attribute), and the
# messages no capture holds (MRA, REJ, SIDR_REQ/REP, LAP, APR) built on a captured header. Control 0x03 aims the
# comm IDs at a live id and a REQ/SIDR_REQ at the listener (CmFuzzTest's javadoc); 0x00 leaves them as captured.
def cm_seeds():
    src = "ib-cm/src/test/resources/vectors/roce"
    dst = "ib-cm/src/test/resources/org/jrdma/ib/cm/impl/CmFuzzTestInputs/cm"
    names = {0x10: "req", 0x11: "mra", 0x12: "rej", 0x13: "rep", 0x14: "rtu", 0x15: "dreq", 0x16: "drep",
             0x17: "sidr-req", 0x18: "sidr-rep", 0x19: "lap", 0x1a: "apr"}
    got = {}
    for name in sorted(os.listdir(src)):
        if name.endswith(".pcap"):
            for _, p in roce(os.path.join(src, name)):
                # UD SEND Only to QP1: BTH 12 + DETH 8, then the MAD
                if p[0] == 0x64 and struct.unpack(">I", p[4:8])[0] & 0xffffff == 1 and len(p) >= 20 + 256:
                    m = p[20:20 + 256]
                    attr = struct.unpack(">H", m[16:18])[0]
                    if m[1] == 0x07 and attr not in got:
                        got[attr] = (name[:-5], m)
    base = got[0x10][1][:24]
    def built(attr, body):
        return base[:16] + struct.pack(">H", attr) + base[18:24] + body + bytes(232 - len(body))
    comm = struct.pack(">II", 0x11223344, 0x55667788)
    extra = {
        0x11: built(0x11, comm + bytes([0x00, 0x14 << 3])),             # MRA of a REQ, service timeout 20
        0x12: built(0x12, comm + bytes([0x00, 0]) + struct.pack(">H", 28)),  # REJ consumer defined
        0x17: built(0x17, struct.pack(">IHH", 0x99aabbcc, 0xffff, 0) + struct.pack(">Q", 0x0000000001110000 | 7174)
                    + bytes([0, 0x40, 0x1c, 0x06]) + bytes(12) + bytes([127, 61, 7, 3]) + bytes(12) + bytes([127, 61, 7, 2])),
        0x18: built(0x18, struct.pack(">IBBH", 0x99aabbcc, 0, 0, 0) + struct.pack(">I", 0x42 << 8)
                    + struct.pack(">Q", 0x0000000001110000 | 7174) + struct.pack(">I", 0x01234567)),
        0x19: built(0x19, comm + struct.pack(">I", 0x42 << 8)),
        0x1a: built(0x1a, comm + bytes([0, 0])),
    }
    n = 0
    for attr, (cap, m) in sorted(got.items()):
        write(dst, "%s-%s" % (names.get(attr, "attr%x" % attr), cap), bytes([0x03]) + m)
        write(dst, "%s-%s-unaimed" % (names.get(attr, "attr%x" % attr), cap), bytes([0x00]) + m)
        n += 2
    for attr, m in sorted(extra.items()):
        if attr not in got:
            write(dst, names[attr], bytes([0x03]) + m)
            n += 1
    write(dst, "bad-class-version", bytes([0x08]) + base[:2] + bytes([1]) + base[3:] + bytes(232))
    return n + 1

# ---- ib-tools PingpongPeerFuzzTest: a hostile peer on the pingpong side channel (rdma-core 44's messages, from
# ib-tools' HandshakeTest: ibv_rc_pingpong -g 1 between two rxe devices). #peer: [control, bytes the peer sends];
# control bits 0-1 the tool (rc, uc, ud, srq), bit 2 the tool is the client, bit 3 -g 0. #message: the bytes.
def pingpong_seeds():
    dst = "ib-tools/src/test/resources/org/jrdma/ib/tools/PingpongPeerFuzzTestInputs/"
    client = b"0000:00001b:3cea02:00000000000000000000ffffc000020a\0"
    server = b"0000:00001b:01c9fa:00000000000000000000ffffc000020b\0"
    lid = b"0001:00001b:3cea02:00000000000000000000000000000000\0"  # an IB peer on LID 1 (no GRH)
    done = b"done\0"
    peer = {
        "rc-captured-client-done": bytes([0x00]) + client + done,       # no -g: cannot route a GID, status 1
        "rc-g0-captured-client-done": bytes([0x08]) + client + done,    # routed: waits for the first SEND
        "rc-lid-client-no-done": bytes([0x00]) + lid,                   # no "done": status 1
        "uc-lid-client-done": bytes([0x01]) + lid + done,
        "ud-lid-client-done": bytes([0x02]) + lid + done,
        "srq-16-clients-done": bytes([0x03]) + lid * 16 + done,
        "rc-short": bytes([0x00]) + b"0000:0000",
        "rc-junk-52": bytes([0x00]) + bytes(range(0x30, 0x30 + 52)),
        "rc-tool-client-captured-server": bytes([0x04]) + server,
        "ud-tool-client-lid-server": bytes([0x06]) + lid,
        "rc-tool-client-short": bytes([0x04]) + b"00",
        "empty": bytes([0x00]),
    }
    for name, b in peer.items():
        write(dst + "peer", name, b)
    for name, b in {"captured-client": client, "captured-server": server, "lid": lid, "junk": b"zz:-0x:ffffffffffffffffff:\n"}.items():
        write(dst + "message", name, b)
    return len(peer) + 4

# ---- argument vectors of the Gogo commands: [control (the tool), args separated by NUL]
def argv(control, line):
    return bytes([control]) + b"\0".join(w.encode() for w in line.split(" ")) if line else bytes([control])

def shell_seeds():
    dst = "ib-core/src/test/resources/org/jrdma/ib/core/shell/ShellArgsFuzzTestInputs/args"
    rdma = ["link", "link show", "link show mlx0/1", "link show rxe0/9", "link add rxe1 type rxe netdev eth0",
            "link add rxe1 type rxe netdev eth0 mtu 99999999", "link add rxe1 type siw netdev eth0",
            "link add rxe1 type rxe netdev nosuch0", "link delete rxe0", "link delete mlx0", "dev", "dev show mlx0",
            "-j link show", "-d dev", "-p -j -d res show qp", "res", "res show qp lqpn 1", "res show cq", "stat",
            "stat show link mlx0/1", "stat qp show", "help", "-V", "link help", "monitor"]
    devinfo = ["", "-v", "-d mlx0", "-d mlx0 -i 2", "-i 9", "-l", "-d rxe0 -i 1 -v", "--ib-dev=mlx0 --ib-port=1", "-x"]
    devices = ["", "-x"]
    n = 0
    for i, line in enumerate(rdma):
        write(dst, "rdma-%02d" % i, argv(0, line)); n += 1
    for i, line in enumerate(devinfo):
        write(dst, "ibv_devinfo-%02d" % i, argv(1, line)); n += 1
    for i, line in enumerate(devices):
        write(dst, "ibv_devices-%02d" % i, argv(2, line)); n += 1
    return n

# ---- perftest PerftestFuzzTest: #peer [control, what the peer sends]: the client's (or server's) side of the
# captured exchanges of perftest 4.5 (handshakes.txt: version, page size, cache line, key records, "done") as one
# stream; control bits 0-1 the tool (send_bw, write_bw, read_bw, send_lat), bit 2 the tool is the client.
# #args [control (the tool of Perftest.all()), NUL-separated arguments].
def handshake(name, from_client):
    import ast, re
    out, inside = b"", False
    for line in open("perftest/src/test/resources/vectors/roce/handshakes.txt"):
        if line.startswith("== "):
            inside = line.startswith("== " + name + ".pcap")
            continue
        m = re.match(r"\s*\d+ \S+:(\d+) -> \S+:(\d+) len=(\d+)\s+(b'.*')$", line.rstrip("\n"))
        if inside and m and (m.group(2) == "18515") == from_client:
            out += ast.literal_eval(m.group(4))
    return out

def perftest_seeds():
    dst = "perftest/src/test/resources/org/jrdma/perftest/PerftestFuzzTestInputs/"
    peer = {}
    for control, cap in [(0, "send_bw"), (2, "read_bw_16k"), (3, "send_lat")]:
        peer["server-" + cap] = bytes([control]) + handshake(cap, True)
        peer["client-" + cap] = bytes([control | 4]) + handshake(cap, False)
    peer["server-short"] = bytes([1]) + handshake("send_bw", True)[:10]
    peer["server-junk"] = bytes([1]) + bytes(range(256))
    for name, b in peer.items():
        write(dst + "peer", name, b)
    lines = ["", "-a", "-s 64 -n 5", "--size=4K --report_gbits -q 4 -t 16 -m 1024 -x 3 -R -F", "-D 10",
             "-s 0", "-s 99999999999", "-n -1", "-q 0", "-m 17", "-x 300", "-d mlx0 -i 3", "-p 70000", "-h",
             "--version", "-c UD", "-c XRC", "-z -R", "-Q 0", "-l 9", "10.0.0.1", "--run_infinitely -D 1",
             "-S 9", "--mr_per_qp -q 2", "--output=bandwidth", "-w 1 -W 2"]
    n = len(peer)
    for tool in range(0, 12, 5):
        for i, line in enumerate(lines):
            write(dst + "args", "t%02d-%02d" % (tool, i), argv(tool, line)); n += 1
    return n

def rping_seeds():
    dst = "ib-cm/src/test/resources/org/jrdma/ib/cm/tools/RpingArgsFuzzTestInputs/args"
    lines = ["", "-s", "-s -a 127.0.0.1 -p 7174", "-c -a 127.0.0.1 -C 10 -S 100 -vVd", "-c -a ::1 -I ::1",
             "-s -S 65536", "-s -S 22", "-c -C -1 -a 127.0.0.1", "-s -x", "-s -t 5", "-sP -p 99999", "-c -a",
             "-c -a 300.1.1.1", "-s -q -d", "-sva127.0.0.1", "-c -S 65535 -a 127.0.0.1 --", "-c -I 10.0.0.1 -a 10.0.0.2"]
    for i, line in enumerate(lines):
        write(dst, "rping-%02d" % i, argv(0, line))
    return len(lines)

def ip_seeds():
    dst = "ulp-ipoib/src/test/resources/org/jrdma/ulp/ipoib/shell/IpArgsFuzzTestInputs/args"
    lines = ["link", "l show", "-d link show ib1", "-s -s link", "link show dev ib7", "addr", "a show dev ib0",
             "addr add 10.0.0.1/24 dev ib0", "addr add 10.0.0.1/33 dev ib0", "addr add 10.0.0.300 dev ib0",
             "addr del 10.0.0.1/24 dev ib0", "addr add 10.0.0.1/24", "neigh", "neigh show dev ib0",
             "link set ib0 down", "link set dev ib1 mtu 1500", "link set ib1 mtu 99999999", "link set ib0 mtu x",
             "link set ib0 type ipoib mode connected", "link set ib0 type ipoib mode datagram", "-j link", "help",
             "link help", "route", "-4 addr", "-o addr", "addr flush dev ib0"]
    for i, line in enumerate(lines):
        write(dst, "ip-%02d" % i, argv(0, line))
    return len(lines)

def iser_args_seeds():
    dst = "ulp-iser/src/test/resources/org/jrdma/ulp/iser/shell/IserArgsFuzzTestInputs/"
    tcli = ["ls", "/ ls", "/backstores/ramdisk create r0 1G", "/backstores/ramdisk create name=r0 size=100G",
            "/backstores/ramdisk create r0 0", "/backstores/ramdisk create r0 1X", "/backstores/ramdisk create r0 1G nullio=true",
            "/iscsi create iqn.2003-01.org.linux-iscsi.host:sn.1", "/iscsi create", "/iscsi create notaniqn",
            "/iscsi/iqn.2003-01.org.linux-iscsi.host:sn.1/tpg1/portals create 0.0.0.0 3260",
            "/iscsi/iqn.x/tpg1/luns create /backstores/ramdisk/r0", "/iscsi/iqn.x/tpg1 set attribute authentication=0",
            "/iscsi/iqn.x/tpg1/portals/0.0.0.0:3260 enable_iser true", "/ get global", "/ clearconfig confirm=True",
            "sessions", "/backstores delete r0", "ls / 2", "/iscsi/iqn.x/tpg1/acls create iqn.y", "cd /iscsi", ".. ls"]
    adm = ["", "-m discovery -t st -p 192.0.2.11", "-m discovery -t sendtargets -p 192.0.2.11:3260 -I iser",
           "-m node -T iqn.2003-01.org.linux-iscsi.host:sn.1 -p 192.0.2.11 -l", "-m node -T iqn.x -p [fd00::1]:3260 -u",
           "-m session", "-m session -r 1 -u", "-m node", "-m foo", "-m discovery -t st", "-m discovery -p 1.2.3.4:0",
           "--mode=discovery --type=st --portal=192.0.2.11 --interface=iser", "-m node -l", "-I tcp -m session", "-x"]
    for i, line in enumerate(tcli):
        write(dst + "targetcli", "tcli-%02d" % i, argv(0, line))
    for i, line in enumerate(adm):
        write(dst + "iscsiadm", "iscsiadm-%02d" % i, argv(0, line))
    return len(tcli) + len(adm)

# ---- ib-mad MadFuzzTest#smp: SMPs to QP0 of A (as ibnetdiscover and opensm send them)
def smp_seeds():
    dst = "ib-mad/src/test/resources/org/jrdma/ib/mad/MadFuzzTestInputs/smp"
    def lr(method, attr, tid, mod=0, data=b""):
        hdr = struct.pack(">BBBBHHQHHI", 1, 0x01, 1, method, 0, 0, tid, attr, 0, mod)
        body = bytes(8) + bytes(32) + data  # M_Key, reserved, SMP data at 64
        return hdr + body + bytes(232 - len(body))
    def dr(method, attr, tid, hop_cnt, path=b"", mod=0, direction=False, hop_ptr=0):
        status = 0x8000 if direction else 0
        hdr = struct.pack(">BBBBHBBQHHI", 1, 0x81, 1, method, status, hop_ptr, hop_cnt, tid, attr, 0, mod)
        body = bytes(8) + struct.pack(">HH", 0xffff, 0xffff) + bytes(28) + bytes(64)
        body += (bytes([0]) + path).ljust(64, b"\0") + bytes(64)  # initial path (slot 0 unused), return path
        return hdr + body
    seeds = {
        "lr-get-nodeinfo": lr(0x01, 0x0011, 1),
        "lr-get-portinfo": lr(0x01, 0x0015, 2, 1),
        "lr-get-nodedesc": lr(0x01, 0x0010, 3),
        "lr-get-sminfo": lr(0x01, 0x0020, 4),
        "lr-set-portinfo": lr(0x02, 0x0015, 5, 1),
        "lr-get-unknown-attr": lr(0x01, 0x0099, 6),
        "dr-get-nodeinfo-0hops": dr(0x01, 0x0011, 7, 0),
        "dr-get-nodeinfo-1hop": dr(0x01, 0x0011, 8, 1, b"\x01"),
        "dr-get-portinfo-1hop": dr(0x01, 0x0015, 9, 1, b"\x01", 1),
        "dr-bad-hop-count": dr(0x01, 0x0011, 10, 65, b"\x01" * 63),
        "dr-response-direction": dr(0x81, 0x0011, 11, 1, b"\x01", 0, True, 1),
        "short": bytes([1, 0x81, 1, 1]) + bytes(60),
    }
    for name, m in seeds.items():
        write(dst, name, m)
    return len(seeds)

if __name__ == "__main__":
    print(rxe_seeds(), "hw-rxe seeds;", iser_seeds(), "ulp-iser seeds;", ipoib_seeds(), "ulp-ipoib seeds;", mad_seeds(), "ib-mad seeds;", cm_seeds(), "ib-cm seeds;", pingpong_seeds(), "ib-tools seeds;", shell_seeds(), "ib-core shell seeds;", perftest_seeds(), "perftest seeds;", rping_seeds(), "rping seeds;", ip_seeds(), "ip seeds;", iser_args_seeds(), "targetcli/iscsiadm seeds;", smp_seeds(), "SMP seeds",
          file=sys.stderr)
