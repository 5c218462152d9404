#!/usr/bin/env bash
# linux-rxe-probe.sh - run LinuxRxeProbe (RC SEND with an ICRC for IP ID 0 from an unconnected UDP socket)
# against ibv_rc_pingpong on the real Linux rxe in the rxepeer guest, with a host-side capture.
#
#   hw-rxe/src/test/sh/linux-rxe-probe.sh [MODE:SPORT...]
#     MODE = do (IP_MTU_DISCOVER=IP_PMTUDISC_DO: unconnected UDP gets IP ID 0) | want (the socket default:
#     the kernel picks a hashed per-destination ID) | default (leave the socket alone); SPORT 0 = ephemeral.
#     Default: want:4791 do:4791 do:0
#
# Needs: the guest up (shared/peer/linux-rxe/guest.sh up), hw-rxe test classes compiled
# (mvn -o -pl hw-rxe -am test-compile), root (ip netns exec). Output in $OUT (default /tmp/linux-rxe-probe):
# per port a pcap, the probe output, the server log, counters before/after, tshark lines.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODULE="$(cd "$HERE/../../.." && pwd)"                     # hw-rxe
PEER="${RXEPEER_DIR:-$(cd "$MODULE/../.." && pwd)/shared/peer/linux-rxe}"
[[ -x $PEER/guest.sh ]] || PEER=/work/shared/peer/linux-rxe
OUT="${OUT:-/tmp/linux-rxe-probe}"
mkdir -p "$OUT"
NETTY=$(find ~/.m2/repository/io/netty/netty-buffer ~/.m2/repository/io/netty/netty-common -name '*.jar' \
  -path '*4.2.*' ! -name '*sources*' | sort | tr '\n' ':')
CP="$MODULE/target/classes:$MODULE/target/test-classes:$NETTY"
G() { "$PEER/guest.sh" "$@"; }
cases=("$@"); ((${#cases[@]})) || cases=(want:4791 do:4791 do:0)
G exec 'dmesg -C' >/dev/null
overall=0
for c in "${cases[@]}"; do
  mode=${c%%:*}; sp=${c##*:}
  tag="$mode-sport$sp"
  echo "=== IP_MTU_DISCOVER $mode, source port $sp"
  ip netns exec rxepeer tcpdump -i rxetap0 -s 0 -U --immediate-mode -w "$OUT/$tag.pcap" \
      'udp port 4791 or tcp port 18515' >"$OUT/$tag.tcpdump.log" 2>&1 &
  tdpid=$!
  sleep 1
  G exec 'rdma stat show link rxe0/1' | tee "$OUT/$tag.counters-before"
  read -r spid slog src < <(G exec --bg 'ibv_rc_pingpong -d rxe0 -g 1 -n 1 -s 64')
  sleep 1
  ip netns exec rxepeer java --add-opens java.base/sun.nio.ch=ALL-UNNAMED -cp "$CP" \
      org.jrdma.hw.rxe.interop.LinuxRxeProbe --sport "$sp" --pmtudisc "$mode" --timeout 10000 \
      | tee "$OUT/$tag.probe.txt"
  rc=${PIPESTATUS[0]}
  # expected: IP_PMTUDISC_DO is ACKed; the socket default (want) gets a kernel-chosen IP ID and is dropped
  if [[ $mode == do ]]; then
    ((rc == 0)) && echo "CASE $tag: PASS (ACKed)" || { echo "CASE $tag: FAIL (not ACKed)"; overall=1; }
  else
    ((rc == 0)) && echo "CASE $tag: UNEXPECTED (ACKed)" || echo "CASE $tag: not ACKed (expected: kernel-chosen IP ID)"
  fi
  sleep 2
  G exec "rdma stat show link rxe0/1" | tee "$OUT/$tag.counters-after"
  G exec "kill $spid 2>/dev/null; sleep 0.5; echo server log:; cat $slog; echo server rc: \$(cat $src 2>/dev/null)" \
      | tee "$OUT/$tag.server.txt"
  sleep 1
  kill "$tdpid"; wait "$tdpid" 2>/dev/null
  echo "frame ip.src ip.dst ip.id DF udp.sport udp.dport opcode destqp psn aeth.syndrome icrc(as tshark shows it)"
  tshark -r "$OUT/$tag.pcap" -T fields -E separator=' ' -e frame.number -e ip.src -e ip.dst -e ip.id -e ip.flags.df \
      -e udp.srcport -e udp.dstport -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
      -e infiniband.aeth.syndrome -e infiniband.invariant.crc -Y udp 2>/dev/null | tee "$OUT/$tag.tshark.txt"
  python3 "$PEER/icrc-check.py" "$OUT/$tag.pcap" | tee -a "$OUT/$tag.tshark.txt"
done
G exec 'dmesg' > "$OUT/dmesg.txt"
echo "probe exit: $overall (output in $OUT)"
exit $overall
