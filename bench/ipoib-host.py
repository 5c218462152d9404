#!/usr/bin/env python3
"""bench/ipoib-host.py OUT.json: the host's IP stack over jrdma IPoIB against a veth pair, in one run.

Two network namespaces per case. veth: a veth pair between them (the baseline). IPoIB datagram and connected: one
./jrdma --transient container with ib0 and ib1 (the two ports of lo0) attached to TUN devices moved into the
namespaces (`ipoib attach`). In each: 2000 warm-up pings, ping -c 300 -i 0.01 (RTT), then iperf3 single stream, RUNS runs of SECS
seconds each (mean and sample standard deviation). Needs root, iproute2 and iperf3."""
import json, os, re, signal, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("IPERF_RUNS", "3"))
SECS = int(os.environ.get("IPERF_SECS", "8"))
A, B = "jrdma-bench-a", "jrdma-bench-b"


def sh(*cmd, check=True, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stdout}{r.stderr}")
    return r.stdout


def netns_fresh():
    for ns in (A, B):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")


def measure(dst):
    # warm-up first: 2000 quick pings let the JIT compile jrdma's packet path (cold, a ping takes ~1 ms)
    sh("ip", "netns", "exec", A, "ping", "-q", "-c", "2000", "-i", "0.002", "-W", "5", dst)
    out = sh("ip", "netns", "exec", A, "ping", "-q", "-c", "300", "-i", "0.01", "-W", "5", dst)
    rtt = [float(x) for x in re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", out).groups()]
    runs = []
    for _ in range(RUNS):
        srv = subprocess.Popen(["ip", "netns", "exec", B, "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(1)
        j = json.loads(sh("ip", "netns", "exec", A, "iperf3", "-c", dst, "-t", str(SECS), "-J", timeout=SECS + 60))
        srv.wait(timeout=30)
        end = j["end"]
        runs.append({"gbps": end["sum_received"]["bits_per_second"] / 1e9,
                     "retransmits": end["sum_sent"].get("retransmits", 0)})
    g = [r["gbps"] for r in runs]
    return {"rtt_ms": {"min": rtt[0], "avg": rtt[1], "max": rtt[2], "mdev": rtt[3]},
            "gbps": statistics.mean(g), "gbps_sd": statistics.stdev(g) if len(g) > 1 else 0.0,
            "retransmits": sum(r["retransmits"] for r in runs) / len(runs), "runs": runs}


def veth():
    netns_fresh()
    sh("ip", "link", "add", "jbv0", "netns", A, "type", "veth", "peer", "name", "jbv1", "netns", B)
    for ns, dev, ip in ((A, "jbv0", "10.8.0.1/24"), (B, "jbv1", "10.8.0.2/24")):
        sh("ip", "-n", ns, "addr", "add", ip, "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
    try:
        return measure("10.8.0.2")
    finally:
        sh("ip", "netns", "del", A, check=False)
        sh("ip", "netns", "del", B, check=False)


def ipoib(mode):
    netns_fresh()
    pre = "" if mode == "datagram" else \
        "ip link set ib0 type ipoib mode connected; ip link set ib1 type ipoib mode connected; "
    batch = (pre + f"ipoib attach ib0 tun jbt0 netns {A} addr 10.8.1.1/24; "
             f"ipoib attach ib1 tun jbt1 netns {B} addr 10.8.1.2/24; sleep 600")
    log = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), f"jrdma-bench-ipoib-{mode}.log"), "w")
    c = subprocess.Popen([os.path.join(ROOT, "jrdma"), "--transient", batch], stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        deadline = time.time() + 180
        while subprocess.run(["ip", "-n", B, "link", "show", "jbt1"], capture_output=True).returncode != 0:
            if time.time() > deadline or c.poll() is not None:
                raise RuntimeError(f"the container did not attach the TUN devices (see {log.name})")
            time.sleep(1)
        sh("ip", "netns", "exec", A, "ping", "-c", "3", "-W", "5", "10.8.1.2")  # ARP and paths resolved first
        return measure("10.8.1.2")
    finally:
        os.killpg(c.pid, signal.SIGTERM)
        c.wait(timeout=30)
        sh("ip", "netns", "del", A, check=False)
        sh("ip", "netns", "del", B, check=False)


def main():
    res = {"runs": RUNS, "secs": SECS, "load": open("/proc/loadavg").read().split()[:3]}
    for name, f in (("veth", veth), ("datagram", lambda: ipoib("datagram")), ("connected", lambda: ipoib("connected"))):
        res[name] = f()
        print(f"{name}: {res[name]['gbps']:.3f} ± {res[name]['gbps_sd']:.3f} Gbit/s, "
              f"rtt avg {res[name]['rtt_ms']['avg']} ms, retransmits {res[name]['retransmits']:.0f}", flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
