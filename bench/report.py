#!/usr/bin/env python3
"""bench/report.py RESULTS_DIR: writes RESULTS_DIR/REPORT.md and RESULTS_DIR/bandwidth.png from what bench/run
left there (JMH JSON of the loopback, rxe bandwidth and pingpong runs, the MemoryFootprint JSON) and from the
interop logs of .ci/interop (INTEROP_LOGS, default /tmp/jrdma-interop), if present. Prints the report too."""
import glob
import json
import math
import os
import platform
import sys
import time

out = sys.argv[1]
interop_dir = os.environ.get("INTEROP_LOGS", "/tmp/jrdma-interop")


def load(name):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def runs(data):
    """{(benchmark method, params tuple): run}"""
    r = {}
    for run in data or []:
        params = tuple(sorted((run.get("params") or {}).items()))
        r[(run["benchmark"].split(".")[-1], params)] = run
    return r


def get(rs, name, **params):
    key = (name, tuple(sorted((k, str(v)) for k, v in params.items())))
    return rs.get(key)


def score(run):
    m = run["primaryMetric"]
    e = m["scoreError"]
    return m["score"], (e if isinstance(e, (int, float)) and not math.isnan(e) else float("nan"))


def ratio(a, ae, b, be):
    r = a / b
    re_ = r * math.sqrt((ae / a) ** 2 + (be / b) ** 2) if a and b else float("nan")
    return r, re_


def fmt_pm(v, e, f="{:.2f}"):
    return f.format(v) + ("" if math.isnan(e) else " ± " + f.format(e))


def size_str(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def verdict(r, re_, goal, at_least):
    met = r >= goal if at_least else r <= goal
    s = "**met**" if met else "**missed**"
    if not math.isnan(re_) and (r - re_ <= goal <= r + re_):
        s += " (goal inside the error bar)"
    return s


loop = load("loopback.json")
bw = load("rxe-bw.json")
bw_events = load("rxe-bw-events.json")  # RxeBandwidthBench.rdma, WRITE, wait=events (perftest -e)
pp = load("rxe-pingpong.json")
ppb = load("rxe-pingpong-busy.json")
mem = {d: load(f"memory-{d}.json") for d in ("loopback", "rxe")}
L, B, P = runs(loop), runs((bw or []) + (bw_events or [])), runs(pp)


def rdma(op, size, wait="poll"):
    """RxeBandwidthBench.rdma; runs from before the wait parameter existed polled"""
    return get(B, "rdma", op=op, size=size, wait=wait) or (get(B, "rdma", op=op, size=size) if wait == "poll" else None)


any_run = next(iter((loop or []) + (bw or []) + (pp or [])), None)
jvm = any_run["vmVersion"] + " (" + any_run["vmName"] + ")" if any_run else platform.python_version()
cores = os.cpu_count()

md = []
goals = []  # (goal, measured, verdict)
bounds = []
md.append("# jrdma benchmark report\n")
md.append(f"Written by `bench/run` on {time.strftime('%Y-%m-%d %H:%M %Z')}: **{cores} cores**, **JVM {jvm}**, "
          f"{platform.system()} {platform.release()}. Every figure is a ratio to its baseline measured in the same "
          "run on this machine (JMH, one fork each, `-Xms1g -Xmx1g`). ± is JMH's 99.9% confidence half-width; the "
          "error of a ratio is propagated from both. Raw JMH output: `loopback.json`, `rxe-bw.json`, "
          "`rxe-bw-events.json`, `rxe-pingpong.json`, `iser.json` (and `.txt`) beside this file.\n")
stamps = []
for part in ("loopback", "rxe", "memory", "iser", "verbs", "ipoib", "flood"):
    sp = os.path.join(out, f"run-{part}.txt")
    if os.path.exists(sp):
        stamps.append(f"`{part}`: {open(sp).read().strip()}")
if stamps:
    md.append("Parts and their runs (`ONLY=...` reruns one part and keeps the others' files; QUICK=1 is short "
              "iterations and fewer sizes, a rough look only; the load average is of the shared machine when the "
              "part started): " + "; ".join(stamps) + ".\n")
elif os.environ.get("QUICK") == "1":
    md.append("**QUICK=1 run: short iterations and fewer sizes, a rough look only.**\n")
goal_at = len(md)  # the goals table goes here

# ---------------------------------------------------------------- 1. hw-loopback WRITE vs bulk copy
plot_loop = []
md.append("## 1. hw-loopback RDMA WRITE against ByteBuffer bulk copy (the memory ceiling)\n")
if loop:
    md.append("`LoopbackWriteBench`: two RC QPs between the two ports of one hw-loopback device, WRITEs posted as "
              "chains of 16 (last signaled), 4 chains in flight, source and target rolling over 64 MiB regions "
              "(larger than the caches); the baseline copies the same sizes between the same buffers at the same "
              "offsets with `ByteBuffer.put(int, ByteBuffer, int, int)`. Sizes as perftest `-a`.\n")
    md.append("| size | RDMA WRITE GB/s | bulk copy GB/s | ratio | WRITE Mmsg/s |")
    md.append("|---:|---:|---:|---:|---:|")
    sizes = sorted({int(dict(k[1])["size"]) for k in L if k[0] == "rdmaWrite"})
    for s in sizes:
        w, c = get(L, "rdmaWrite", size=s), get(L, "bulkCopyBaseline", size=s)
        if not (w and c):
            continue
        (ws, we), (cs, ce) = score(w), score(c)
        r, re_ = ratio(ws, we, cs, ce)
        plot_loop.append((s, ws * s / 1e9, cs * s / 1e9))
        md.append(f"| {size_str(s)} | {fmt_pm(ws * s / 1e9, we * s / 1e9)} | {fmt_pm(cs * s / 1e9, ce * s / 1e9)} | "
                  f"{fmt_pm(r, re_)} | {ws / 1e6:.2f} |")
        if s == 65536:
            goals.append(("hw-loopback RDMA WRITE 64 KiB >= 0.8 x bulk copy", fmt_pm(r, re_), verdict(r, re_, 0.8, True)))
    mr = get(L, "rdmaWrite64")
    if mr:
        v, e = score(mr)
        md.append(f"\n64 B RDMA WRITE message rate (`LoopbackMessageRateBench`, chains of 16, one signaled in 16, "
                  f"perftest `-s 64 --cq-mod 16`): **{fmt_pm(v, e)} Mmsg/s**.\n")
    md.append("\n![bandwidth against message size](bandwidth.png)\n")
    md.append("At small sizes both columns measure per-message cost, not bandwidth: the bulk copy of 2 B is a "
              "bounds check and a few stores, a WRITE is a WQE copied into the SQ, key and bounds checks on both "
              "MRs and a CQE every 16. The ratio only means \"fraction of the memory ceiling\" from a few KiB on.\n")
else:
    md.append("Not run in this report.\n")
    goals.append(("hw-loopback RDMA WRITE 64 KiB >= 0.8 x bulk copy", "not run", "-"))

def rxe_counters(path):
    """{(op, size): (a's counters, b's counters)} from RxePair.close's lines in the JMH text output"""
    import re
    res = {}
    if not os.path.exists(path):
        return res
    text = open(path, errors="replace").read()
    for block in text.split("# Benchmark: ")[1:]:
        if not block.startswith("org.jrdma.bench.RxeBandwidthBench.rdma"):
            continue
        m = re.search(r"# Parameters: \(op = (\w+), size = (\d+)(?:, wait = (\w+))?\)", block)
        if not m:
            continue
        op = m.group(1) + (" (-e)" if m.group(3) == "events" else "")
        skip = {"sent_pkts", "rcvd_pkts", "rdma_sends", "rdma_recvs"}

        def keep(line):
            return " ".join(kv for kv in line.split() if kv.split("=")[0] not in skip)
        a = re.search(r"\ba: (\S+=.*)", block)
        b = re.search(r"^b: (\S+=.*)", block, re.M)
        res[(op, m.group(2))] = (keep(a.group(1)) if a else "", keep(b.group(1)) if b else "")
    return res


# ---------------------------------------------------------------- 2. hw-rxe WRITE/READ/SEND vs UDP blast and TCP
plot_rxe = {}
md.append("## 2. hw-rxe RDMA WRITE, READ and SEND against a Netty UDP blast (the transport ceiling)\n")
if bw:
    md.append("`RxeBandwidthBench`: two hw-rxe devices in one JVM on 127.X.Y.1 and .2 (netdev `lo`, RoCEv2 over "
              "real UDP 4791, Netty epoll, IB MTU 4096), one RC QP each, chains of 16 messages (last signaled), 4 "
              "chains in flight; READ with 128 outstanding (perftest's default `-o`, rxe's max_qp_rd_atom); SEND "
              "with b reposting each receive from its completion handler. The UDP blast sends the datagrams rxe "
              "sends for one message (WRITE FIRST/ONLY with RETH, MIDDLE/LAST: BTH + payload + ICRC) between two "
              "Netty epoll channels on the same kind of addresses, each on its own event loop as each rxe device "
              "is, window max(128, 2 x packets per message). READ responses and SENDs carry a few header bytes "
              "fewer or more than WRITE's; the same UDP baseline serves all three. The benchmark thread waits for a "
              "chain's completion by polling a's CQ with `Thread.yield()` (perftest's default), or, in the "
              "`WRITE (-e)` rows, sleeps until a's completion handler wakes it (perftest's `-e`): on two cores the "
              "poller's spin takes CPU from the transport's own threads, which do the work a NIC would.\n")
    md.append("| size | op | rxe MB/s | UDP blast MB/s | ratio to UDP | TCP MB/s | ratio to TCP |")
    md.append("|---:|---|---:|---:|---:|---:|---:|")
    sizes = sorted({int(dict(k[1])["size"]) for k in B if k[0] == "udpBlast"})
    for s in sizes:
        u, t = get(B, "udpBlast", size=s), get(B, "tcpStream", size=s)
        us_, ue = score(u) if u else (float("nan"), float("nan"))
        ts, te = score(t) if t else (float("nan"), float("nan"))
        plot_rxe.setdefault("UDP blast (Netty)", []).append((s, us_ * s / 1e6))
        plot_rxe.setdefault("TCP single stream", []).append((s, ts * s / 1e6))
        for op, wait in (("WRITE", "poll"), ("WRITE", "events"), ("READ", "poll"), ("SEND", "poll")):
            x = rdma(op, s, wait)
            if not x:
                continue
            xs, xe = score(x)
            label = op + (" (-e)" if wait == "events" else "")
            plot_rxe.setdefault("rxe " + label, []).append((s, xs * s / 1e6))
            ru, rue = ratio(xs, xe, us_, ue)
            rt, rte = ratio(xs, xe, ts, te)
            md.append(f"| {size_str(s)} | {label} | {fmt_pm(xs * s / 1e6, xe * s / 1e6, '{:.0f}')} | "
                      f"{fmt_pm(us_ * s / 1e6, ue * s / 1e6, '{:.0f}')} | {fmt_pm(ru, rue)} | "
                      f"{fmt_pm(ts * s / 1e6, te * s / 1e6, '{:.0f}')} | {fmt_pm(rt, rte)} |")
            if s == 65536 and op == "WRITE" and wait == "poll":
                goals.append(("hw-rxe RDMA WRITE 64 KiB >= 0.7 x Netty UDP blast (both poll or spin)", fmt_pm(ru, rue), verdict(ru, rue, 0.7, True)))
                goals.append(("hw-rxe RDMA WRITE 64 KiB >= 1.0 x single-stream TCP, polling the CQ (perftest's default)", fmt_pm(rt, rte), verdict(rt, rte, 1.0, True)))
            if s == 65536 and op == "WRITE" and wait == "events":
                goals.append(("hw-rxe RDMA WRITE 64 KiB >= 1.0 x single-stream TCP, waiting by completion events (perftest -e; TCP's threads block too)", fmt_pm(rt, rte), verdict(rt, rte, 1.0, True)))
    counters = rxe_counters(os.path.join(out, "rxe-bw.txt"))
    counters.update(rxe_counters(os.path.join(out, "rxe-bw-events.txt")))
    if counters:
        md.append("\nrxe's counters of both devices at the end of each rxe run (warm-up and measurement; a: requester "
                  "side, b: responder side; packet counts and rdma_sends/recvs left out):\n")
        md.append("| op | size | a | b |")
        md.append("|---|---:|---|---|")
        for (op, s), (ca, cb) in sorted(counters.items(), key=lambda x: (x[0][0], int(x[0][1]))):
            md.append(f"| {op} | {size_str(s)} | {ca or '-'} | {cb or '-'} |")
    md.append("")
    md.append("## 3. hw-rxe RDMA WRITE against a single-stream TCP transfer of the same bytes\n")
    md.append("`RxeBandwidthBench.tcpStream`: one TCP connection from 127.X.Y.1 to 127.X.Y.2, the 16 messages of a "
              "chain written with one gathering `SocketChannel.write` from the same kind of 16 MiB direct buffer at "
              "rolling offsets (one call per 16 messages, as one `postSend` per chain), a thread on the other end "
              "draining into a 1 MiB direct buffer. The TCP columns of the table above are this run; the goal "
              "row is in the goals table.\n")
    u, t = get(B, "udpBlast", size=65536), get(B, "tcpStream", size=65536)
    if u and t:
        md.append(f"The transport's own bound: the Netty UDP blast of a 64 KiB message's 16 datagrams reaches "
                  f"**{score(u)[0] / score(t)[0]:.2f}** of TCP at 64 KiB in this run, and no RoCEv2 implementation "
                  "on these sockets can beat the UDP blast (see the last section).\n")
else:
    md.append("Not run in this report.\n")
    for g in ("hw-rxe RDMA WRITE 64 KiB >= 0.7 x Netty UDP blast", "hw-rxe RDMA WRITE 64 KiB >= 1.0 x single-stream TCP"):
        goals.append((g, "not run", "-"))

# ---------------------------------------------------------------- 4. pingpong
md.append("## 4. hw-rxe RC pingpong latency against plain UDP\n")
if pp:
    md.append("`RxePingpongBench` in JMH SampleTime mode (every round trip timed, percentiles from the samples): "
              "8-byte RC SENDs (inline) between the two hw-rxe devices (24-byte packets: BTH + 8 + ICRC, plus "
              "rxe's ACK for each), against 24-byte datagrams between two blocking `DatagramChannel`s on the same "
              "kind of addresses (b echoes from a thread blocked in `receive`). One op is one round trip; the "
              "one-way latency is half of it. The chained variants time 100 round trips per invocation, so their "
              "percentiles are of 100-trip means and say little about the tail.\n")
    md.append("| variant | median RTT us | p99 RTT us | mean RTT us | median / UDP | p99 / UDP |")
    md.append("|---|---:|---:|---:|---:|---:|")
    base = get(P, "udpPingpong")

    def pct(run, p):
        return run["primaryMetric"]["scorePercentiles"][p]

    rows = [("udpPingpong", "plain UDP, blocking sockets (**baseline**)"),
            ("udpPingpongSpin", "plain UDP, a spins on a non-blocking receive"),
            ("nettyUdpPingpongChained", "UDP through two Netty epoll loops (hw-rxe's transport, no RoCE), chained x100"),
            ("rcPingpong", "RC: a's thread parks, woken by a's completion handler; b answers from its handler"),
            ("rcPingpongPoll", "RC: a's thread spins on poll_cq (ibv_rc_pingpong's default)"),
            ("udpPingpongChained", "plain UDP, blocking sockets, timed x100 (**baseline of the chained RC row**)"),
            ("rcPingpongChained", "**RC**: both sides answer from their completion handlers (on the thread that received), chained x100"),
            ("udpPingpongSpinBoth", "plain UDP, both ends spin on non-blocking receives")]
    PB = runs(ppb)
    busy_rows = [("rcPingpongChained", "RC chained x100, **busy-polling** receive threads (`-Djrdma.rxe.net.busyPoll=true`)"),
                 ("udpPingpongSpinBoth", "plain UDP, both ends spin (same JVM as the busy-poll row)")]
    for name, what, src in [(n, w, P) for n, w in rows] + [(n, w, PB) for n, w in busy_rows]:
        r = get(src, name)
        if not r:
            continue
        med, p99 = pct(r, "50.0"), pct(r, "99.0")
        mean, me = score(r)
        bm, b99 = (pct(base, "50.0"), pct(base, "99.0")) if base else (float("nan"),) * 2
        md.append(f"| {what} | {med:.1f} | {p99:.1f} | {fmt_pm(mean, me, '{:.1f}')} | {med / bm:.2f} | {p99 / b99:.2f} |")
    rc, uc = get(P, "rcPingpongChained"), get(P, "udpPingpongChained")
    if rc and uc:
        # like for like: in the blocking UDP pingpong each side answers on the thread that received, as each
        # side of the chained RC pingpong answers from its completion handler on the thread that received;
        # both are timed 100 round trips an op
        r50 = pct(rc, "50.0") / pct(uc, "50.0")
        mean_r = score(rc)[0] / score(uc)[0]
        others = "; ".join(f"{n}: {pct(get(P, n), '50.0') / pct(base, '50.0'):.2f}"
                           for n in ("rcPingpong", "rcPingpongPoll") if get(P, n) and base)
        goals.append(("hw-rxe RC pingpong latency <= 1.3 x plain UDP (chained RC against the chained blocking UDP pingpong, median of 100-trip means)",
                      f"{r50:.2f} (means: {mean_r:.2f}); against single UDP round trips: {others}",
                      verdict(r50, float("nan"), 1.3, False)))
    rb, ub = get(PB, "rcPingpongChained"), get(PB, "udpPingpongSpinBoth")
    if rb and ub and base:
        rs = pct(rb, "50.0") / pct(ub, "50.0")
        goals.append(("hw-rxe RC pingpong, busy-poll: chained RC with busy-polling receive threads <= 1.3 x UDP with both ends spinning",
                      f"{rs:.2f} (against blocking UDP: {pct(rb, '50.0') / pct(base, '50.0'):.2f})",
                      verdict(rs, float("nan"), 1.3, False)))
    md.append("")
else:
    md.append("Not run in this report.\n")
    goals.append(("hw-rxe RC pingpong median latency <= 1.3 x plain UDP", "not run", "-"))

# ---------------------------------------------------------------- 5. interop
md.append("## 5. jrdma against Linux rxe (functional only)\n")


def interop_rows():
    rows = []
    for direction, log_glob, rc_glob in (
            ("jrdma `ib_write_bw` client -> Linux `ib_write_bw` server", "ib_write_bw-65536-jrdma-client*.log", None),
            ("Linux `ib_write_bw` client -> jrdma `ib_write_bw` server", "ib_write_bw-65536-linux-client*.log",
             "ib_write_bw-65536-jrdma-server*.rc")):
        logs = sorted(glob.glob(os.path.join(interop_dir, log_glob)))
        if not logs:
            continue
        log = logs[-1]
        line = ""
        with open(log, errors="replace") as f:
            for l in f:
                if l.split()[:1] == ["65536"]:
                    line = l.split()
        ok = bool(line)
        if rc_glob:
            rcs = sorted(glob.glob(os.path.join(interop_dir, rc_glob)))
            ok = ok and bool(rcs) and open(rcs[-1]).read().strip() == "0"
        bwavg = f"{float(line[3]):.1f} MB/s (BW average; the guest runs under TCG: not a performance figure)" if len(line) > 3 else "-"
        rows.append(f"| {direction} | {'passed' if ok else 'FAILED'} | {bwavg} | `{os.path.basename(log)}` |")
    return rows


rows = interop_rows()
if rows:
    md.append("From the logs of `.ci/interop` in `" + interop_dir + "` (perftest 4.5 in a Linux 6.1 QEMU guest, "
              "`ib_write_bw -d rxe0 -x 1 -n 1000 -s 65536`, IB MTU 1024):\n")
    md.append("| direction | result | bandwidth | log |")
    md.append("|---|---|---|---|")
    md.extend(rows)
else:
    md.append("`ib_write_bw` against Linux rxe, both ways: **not run in this report (see .ci/interop)**; no "
              f"`{interop_dir}/ib_write_bw-65536-*.log` on this machine when the report was written.")
md.append("")

# ---------------------------------------------------------------- 6. memory
md.append("## 6. Memory\n")
md.append("### Footprint of a device with 1,000 RC QPs\n")
if any(mem.values()):
    md.append("`MemoryFootprint` (no JMH, `-Xms1g -Xmx1g`): used heap after full GCs (the minimum of 5 "
              "`System.gc()` rounds) and direct memory (`BufferPoolMXBean` \"direct\"; the Netty column is Netty's "
              "own counter of its direct buffers, pooled arenas included, which the direct column already holds "
              "unless Netty allocates without a Cleaner; the total counts them once), each as growth since the start of "
              "the JVM, after each step: the device (hw-loopback: 2 ports; hw-rxe: one device on a loopback address, "
              "its Netty channel), a PD and one 4 KiB MR, 1,000 CQs of 512 entries (one per QP, room for both "
              "queues), 1,000 RC QPs (max_send_wr = max_recv_wr = 256, one SGE, no inline), all connected pairwise "
              "to RTS, every RQ filled with 256 receives, and then every SQ slot used once (sq-cycled: 256 signaled "
              "8-byte RDMA WRITEs per QP, completed and polled).\n")
    md.append("| driver | step | heap MiB | direct KiB | Netty direct KiB |")
    md.append("|---|---|---:|---:|---:|")
    for d, m in mem.items():
        if not m:
            continue
        for st in m["steps"][1:]:
            md.append(f"| {d} | {st['step']} | {st['heap'] / 2**20:.1f} | {st['direct'] / 1024:.0f} | "
                      f"{st['nettyDirect'] / 1024:.0f} |")
    md.append("")
    for d, m in mem.items():
        if not m:
            continue
        st = {x["step"]: x for x in m["steps"]}
        # the worst step counts (sq-cycled, where there is one: slots used once, packet pools warmed up)
        # (direct already holds Netty's buffers unless Netty allocates without a Cleaner: "total" knows which)
        total = max(x.get("total", x["heap"] + x["direct"]) for x in m["steps"])
        cq = (st["cqs"]["heap"] - st["pd+mr"]["heap"]) / m["qps"]
        qp = (st["qps"]["heap"] - st["cqs"]["heap"]) / m["qps"]
        md.append(f"- {d}: **{total / 2**20:.1f} MiB** in all; per QP {qp / 1024:.1f} KiB "
                  f"({qp / (2 * m['depth']):.0f} B per SQ/RQ slot), per 512-entry CQ {cq / 1024:.1f} KiB "
                  f"({cq / 512:.0f} B per CQE).")
        goals.append((f"{d}: device with 1,000 RC QPs (256-deep SQ and RQ) < 64 MiB", f"{total / 2**20:.1f} MiB",
                      "**met**" if total < 64 * 2**20 else "**missed**"))
    md.append("")
else:
    md.append("Not run in this report.\n")

md.append("### Bytes allocated per operation on the WRITE fast path\n")
md.append("JMH `-prof gc`, `gc.alloc.rate.norm`: heap bytes allocated per operation (one message) by all threads "
          "of the JVM (JMH 1.37 sums `ThreadMXBean.getThreadAllocatedBytes` over every thread, so hw-rxe's Netty "
          "event loop and engine thread count).\n")
md.append("| benchmark | size | B/op |")
md.append("|---|---:|---:|")


def alloc(run):
    m = (run.get("secondaryMetrics") or {}).get("gc.alloc.rate.norm")
    return m["score"] if m else None


for label, rs, name, params in (("hw-loopback RDMA WRITE", L, "rdmaWrite", {}), ("ByteBuffer bulk copy", L, "bulkCopyBaseline", {}),
                                ("hw-loopback 64 B WRITE message rate", L, "rdmaWrite64", None),
                                ("hw-rxe RDMA WRITE", B, "rdma", {"op": "WRITE", "wait": "poll"}),
                                ("hw-rxe RDMA WRITE (-e)", B, "rdma", {"op": "WRITE", "wait": "events"}),
                                ("hw-rxe RDMA READ", B, "rdma", {"op": "READ", "wait": "poll"}),
                                ("hw-rxe SEND", B, "rdma", {"op": "SEND", "wait": "poll"}), ("Netty UDP blast", B, "udpBlast", {}),
                                ("TCP stream", B, "tcpStream", {})):
    if params is None:
        r = get(rs, name)
        if r and alloc(r) is not None:
            md.append(f"| {label} | 64 B | {alloc(r):.1f} |")
        continue
    for s in (64, 4096, 65536, 1048576):
        r = get(rs, name, size=s, **params)
        if r and alloc(r) is not None:
            md.append(f"| {label} | {size_str(s)} | {alloc(r):.1f} |")
md.append("")

# ---------------------------------------------------------------- 7. iSER
md.append("## 7. iSER: jrdma initiator -> jrdma target against hw-rxe\n")
ISER_GOALS = (("iSER 1 MiB sequential READ >= 0.8 x hw-rxe RDMA WRITE 1 MiB", "READ", "WRITE", 1048576, 0.8),
              ("iSER 1 MiB sequential WRITE >= 0.8 x hw-rxe RDMA READ 1 MiB", "WRITE", "READ", 1048576, 0.8),
              ("iSER 4 KiB random READ IOPS >= 0.5 x hw-rxe 4 KiB SEND message rate", "rand", "SEND", 4096, 0.5))
iser = load("iser.json")
I = runs(iser)
if iser:
    md.append("`IserBench` (`ONLY=iser`): the initiator service logged in to the target runtime over `RdmaIserTransport` "
              "on two hw-rxe devices in one JVM (127.X.Y.1 -> .2, RoCEv2 over real UDP, IB MTU 4096), one ramdisk LUN "
              "of 64 MiB written once in full before the run, queue depth 32 kept full: the benchmark thread takes a "
              "free slot (asleep until a completion frees one) and issues that slot's I/O from/into its own buffer, "
              "an `IserIoBuffer` from `IserSession.allocateBuffer` (zero-copy: the target's RDMA WRITE/READ move "
              "the bytes straight into and out of it, as ib_iser's mapped bios; `-p buf=copy` measures the copying "
              "`ByteBuffer` API instead). 1 MiB sequential READ is moved by the target's RDMA WRITE and WRITE by its RDMA READ (after "
              "8 KiB of immediate data), so each is set against that hw-rxe operation at 1 MiB; a 4 KiB READ is three "
              "messages (command SEND, RDMA WRITE, response SEND), set against the 4 KiB SEND message rate. The "
              "baselines are `RxeBandwidthBench.rdma` in the same JMH run with `wait=events` (the benchmark thread "
              "asleep until a's completion handler wakes it, as the iSER benchmark thread sleeps).\n")
    md.append("| load | iSER | hw-rxe baseline | ratio | goal | heap B/op (iSER) |")
    md.append("|---|---:|---:|---:|---:|---:|")
    for goal, what, base_op, size, want in ISER_GOALS:
        x = get(I, "randRead", buf="registered") if what == "rand" else get(I, "seq", buf="registered", rw=what)
        b = get(I, "rdma", op=base_op, size=size, wait="events")
        if not (x and b):
            goals.append((goal, "not run", "-"))
            continue
        (xs, xe), (bs, be) = score(x), score(b)
        r, re_ = ratio(xs, xe, bs, be)
        if size == 4096:
            cells = ("4 KiB random READ", f"{fmt_pm(xs / 1e3, xe / 1e3, '{:.1f}')} k IOPS",
                     f"SEND 4 KiB: {fmt_pm(bs / 1e3, be / 1e3, '{:.1f}')} k msg/s")
        else:
            cells = (f"1 MiB sequential {what}", f"{fmt_pm(xs * size / 1e6, xe * size / 1e6, '{:.0f}')} MB/s",
                     f"RDMA {base_op} 1 MiB: {fmt_pm(bs * size / 1e6, be * size / 1e6, '{:.0f}')} MB/s")
        a = alloc(x)
        md.append(f"| {' | '.join(cells)} | {fmt_pm(r, re_)} | {want} | {'-' if a is None else f'{a:.0f}'} |")
        goals.append((goal, fmt_pm(r, re_), verdict(r, re_, want, True)))
    md.append("\nThe other hw-rxe rows of the same run (context; MB/s = ops/s x size):\n")
    md.append("| op | size | ops/s | MB/s |")
    md.append("|---|---:|---:|---:|")
    for op in ("WRITE", "READ", "SEND"):
        for size in (4096, 1048576):
            b = get(I, "rdma", op=op, size=size, wait="events")
            if b:
                bs, be = score(b)
                md.append(f"| {op} | {size_str(size)} | {fmt_pm(bs, be, '{:.0f}')} | {fmt_pm(bs * size / 1e6, be * size / 1e6, '{:.0f}')} |")
    md.append("")
else:
    md.append("Not run in this report.\n")
    for goal, *_ in ISER_GOALS:
        goals.append((goal, "not run", "-"))

# ---------------------------------------------------------------- 8. verbs: QP churn
md.append("## 8. QP create/modify/destroy against 10,000 live QPs\n")
CHURN_GOAL = "QP create + modify(INIT) + destroy with 10,000 live QPs >= 0.8 x on an empty device"
churn = runs(load("verbs-churn.json"))
c0, c1 = get(churn, "createModifyDestroy", live=0), get(churn, "createModifyDestroy", live=10000)
if c0 and c1:
    (s0, e0), (s1, e1) = score(c0), score(c1)
    r, re_ = ratio(s1, e1, s0, e0)
    md.append("`QpChurnBench` (`ONLY=verbs`): one RC QP created, moved to INIT and destroyed per op on a hw-loopback "
              "device, with 10,000 other QPs alive against the same churn on an empty device (the baseline). "
              "Constant-time create and destroy keep the ratio near 1.\n")
    md.append("| live QPs | ops/s |")
    md.append("|---:|---:|")
    md.append(f"| 0 | {fmt_pm(s0, e0, '{:.0f}')} |")
    md.append(f"| 10,000 | {fmt_pm(s1, e1, '{:.0f}')} |")
    md.append("")
    goals.append((CHURN_GOAL, fmt_pm(r, re_), verdict(r, re_, 0.8, True)))
else:
    md.append("Not run in this report.\n")
    goals.append((CHURN_GOAL, "not run", "-"))

# ---------------------------------------------------------------- 9. IPoIB under the host's IP stack
md.append("## 9. IPoIB: the host's ping and iperf3 through TUN devices, against a veth pair\n")
IPOIB_GOALS = (("IPoIB connected mode iperf3 single stream >= 0.5 x veth", "connected", 0.5),
               ("IPoIB datagram mode iperf3 single stream >= 0.2 x veth", "datagram", 0.2))
ih = load("ipoib-host.json")
if ih:
    v = ih["veth"]
    md.append("`bench/ipoib-host.py` (`ONLY=ipoib`, root): two network namespaces; the baseline is a veth pair between "
              "them; IPoIB is one `./jrdma --transient` container with ib0 and ib1 (lo0's two ports) attached to TUN "
              "devices moved into the namespaces (`ipoib attach`), in datagram mode (MTU 2044) and connected mode "
              f"(MTU 65520). iperf3 single stream, {ih['runs']} runs of {ih['secs']} s (mean ± sample sd); "
              "`ping -c 300 -i 0.01` after 2000 warm-up pings (cold, jrdma's packet path is interpreted: ~1 ms).\n")
    md.append("| path | iperf3 Gbit/s | ratio to veth | TCP retransmits/run | ping RTT avg (min/max) ms |")
    md.append("|---|---:|---:|---:|---:|")
    for name in ("veth", "datagram", "connected"):
        x = ih[name]
        r, re_ = ratio(x["gbps"], x["gbps_sd"], v["gbps"], v["gbps_sd"])
        t = x["rtt_ms"]
        md.append(f"| {name} | {fmt_pm(x['gbps'], x['gbps_sd'])} | {fmt_pm(r, re_, '{:.3f}')} | "
                  f"{x['retransmits']:.0f} | {t['avg']:.3f} ({t['min']:.3f}/{t['max']:.3f}) |")
    md.append("")
    for goal, name, at in IPOIB_GOALS:
        x = ih[name]
        r, re_ = ratio(x["gbps"], x["gbps_sd"], v["gbps"], v["gbps_sd"])
        goals.append((goal, fmt_pm(r, re_, '{:.3f}'), verdict(r, re_, at, True)))
else:
    md.append("Not run in this report.\n")
    for goal, *_ in IPOIB_GOALS:
        goals.append((goal, "not run", "-"))

# ---------------------------------------------------------------- 10. hw-rxe under a flood
md.append("## 10. hw-rxe RDMA WRITE under a hostile flood\n")
fl = runs(load("flood.json"))
base = get(fl, "write", flood="none")
if base:
    sb, eb = score(base)
    md.append("`RxeFloodBench` (`ONLY=flood`): 64 KiB RDMA WRITEs from a to b over real UDP (16 per chain, 4 chains in "
              "flight) while one thread sends forged RoCEv2 packets with valid ICRCs to b's port 4791 as fast as one "
              "UDP socket goes: SEND ONLY to unknown QPNs, 2 GiB RDMA READ requests to the live QP spoofed from its "
              "peer's address with PSNs behind the responder's (duplicates), UD datagrams to a UD QP with no receive "
              "posted, and rdma_cm CM REQs (MADs on QP1, random comm IDs and QPNs, from an address nobody answers at) to "
              "an RDMA CM listener on b (MAD layer, IB CM and RDMA CM in the same JVM) whose handler refuses every "
              "request. Baseline: no flood, same run. b's counters per kind (dropped, duplicate_request, "
              "socket_drops) account for what was sent: `flood.txt`.\n")
    md.append("| flood | WRITE ops/s | GB/s | ratio to no flood |")
    md.append("|---|---:|---:|---:|")
    for kind in ("none", "UNKNOWN_QPN", "DUPLICATE_READS", "UD_DATAGRAMS", "CM_REQS"):
        run = get(fl, "write", flood=kind)
        if run:
            sc, er = score(run)
            r, re_ = ratio(sc, er, sb, eb)
            md.append(f"| {kind} | {fmt_pm(sc, er, '{:.0f}')} | {sc * 65536 / 1e9:.2f} | {fmt_pm(r, re_)} |")
    md.append("")
else:
    md.append("Not run in this report.\n")

# ---------------------------------------------------------------- goals and bounds
g = ["## Goals\n", "| goal | measured (ratio, or size) | |", "|---|---|---|"]
g += [f"| {a} | {b} | {c} |" for a, b, c in goals]
g.append("")
md[goal_at:goal_at] = g

md.append("## What bounds the missed goals\n")
md.append(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "BOUNDS.md")).read())

text = "\n".join(md) + "\n"
with open(os.path.join(out, "REPORT.md"), "w") as f:
    f.write(text)
print(text)

# ---------------------------------------------------------------- plot
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("bandwidth.png: not written, matplotlib is missing (pip install matplotlib)", file=sys.stderr)
    sys.exit(0)
fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
ax = axes[0]
if plot_loop:
    xs = [p[0] for p in plot_loop]
    ax.plot(xs, [p[1] for p in plot_loop], "o-", label="hw-loopback RDMA WRITE")
    ax.plot(xs, [p[2] for p in plot_loop], "s--", label="ByteBuffer bulk copy (ceiling)")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("message size (bytes)")
ax.set_ylabel("GB/s")
ax.set_title("hw-loopback, in one JVM (perftest -a sizes)")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
ax = axes[1]
styles = {"rxe WRITE": "o-", "rxe WRITE (-e)": "o:", "rxe READ": "^-", "rxe SEND": "v-", "UDP blast (Netty)": "s--", "TCP single stream": "d:"}
for name, pts in plot_rxe.items():
    pts = [p for p in pts if not math.isnan(p[1])]
    if pts:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], styles.get(name, "o-"), label=name)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("message size (bytes)")
ax.set_ylabel("MB/s")
ax.set_title("hw-rxe between 127.X.Y.1 and .2 (RoCEv2 over UDP, IB MTU 4096)")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.suptitle(f"jrdma bandwidth against message size: {cores} cores, JVM {jvm.split(' ')[0]}")
fig.tight_layout()
fig.savefig(os.path.join(out, "bandwidth.png"), dpi=110)
print(f"wrote {out}/REPORT.md and {out}/bandwidth.png", file=sys.stderr)
