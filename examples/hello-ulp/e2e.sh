#!/usr/bin/env bash
# e2e.sh [JRDMA_CHECKOUT]: hello-ulp in a running jrdma service container, as a user deploys a ULP.
#   A temporary home; ./jrdma --home H start; the bundle jar (mvn verify made it) dropped into H/deploy/;
#   attached commands: hello:devices, hello:ping lo0 (RDMA CM connect between lo0's ports, SEND and RDMA WRITE
#   echoed byte-exact), the PDs it used freed again (rdma res), its port moved by etc/org.example.hello.cfg, a
#   precise error for an unknown device; the jar
#   removed (the bundle goes); Gogo's install -s (install and start in one); ./jrdma stop.
# JRDMA_CHECKOUT defaults to ../.. (this example inside the jrdma repository). Last line: "hello-ulp e2e: N passed, N failed".
set -u -o pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
jrdma=$(readlink -f "${1:-$here/../..}")/jrdma
jar=$(ls "$here"/target/hello-ulp-*.jar 2>/dev/null | grep -v -- '-sources\|-tests' | head -1)
passed=0
failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }

[[ -x "$jrdma" ]] || { echo "e2e: no $jrdma"; exit 2; }
[[ -n "$jar" ]] || { echo "e2e: no target/hello-ulp-*.jar: run mvn verify first"; exit 2; }
home=$(mktemp -d "${TMPDIR:-/tmp}/hello-ulp-e2e.XXXXXX") || exit 2
cleanup() {
    local pid
    if [[ -f "$home/jrdma.pid" ]] && read -r pid <"$home/jrdma.pid" && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$home"
}
trap cleanup EXIT

j() { timeout 60 "$jrdma" --home "$home" "$@"; }
# until_ok SECONDS CMD...: runs CMD every 0.5 s until it succeeds; fails after SECONDS
until_ok() {
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        "$@" && return 0
        sleep 0.5
    done
    return 1
}
listening() { j hello:devices 2>/dev/null | grep -q '^lo0: '; }
gone() { ! j hello:devices >/dev/null 2>&1; }
pds() { j 'rdma res' | sed -n 's/^[0-9]*: lo0: pd \([0-9]*\) .*/\1/p'; }
ping_ok() {
    local out status
    out=$(j 'hello:ping lo0' 2>&1); status=$?
    if ((status == 0)) && grep -Eq '^hello: lo0: RC qp 0x[0-9a-f]+ \(port 1\) -> qp 0x[0-9a-f]+: SEND 64 bytes and RDMA WRITE 4096 bytes echoed byte-exact$' <<<"$out"; then
        pass "$1: hello:ping lo0: $out"
    else
        fail "$1: hello:ping lo0 exited $status: $out"
    fi
}

timeout 600 "$jrdma" --home "$home" start >/dev/null || { fail "./jrdma start failed"; echo "hello-ulp e2e: $passed passed, $failed failed"; exit 1; }
before=$(pds)
cp "$jar" "$home/deploy/hello-ulp.jar"
until_ok 60 listening && pass "deploy: the dropped bundle's IbClient got add for lo0 (hello:devices)" || fail "deploy: hello does not list lo0"
ping_ok deploy
out=$(j hello:devices)
grep -Eq '^lo0: fe80:[0-9a-f:]+ port 7471, answered 2, dropped 0$' <<<"$out" && pass "deploy: the listener answered both requests: $out" \
    || fail "deploy: hello:devices says: $out"
after=$(pds)
[[ -n "$before" && "$after" == "$before" ]] && pass "deploy: both sides freed their PDs (rdma res: lo0 pd $before before and after)" \
    || fail "deploy: lo0 pd $before before the ping, $after after"
# etc/: the component's configuration (Metatype PID org.example.hello) through FileInstall and ConfigAdmin; DS
# restarts the component: remove, then add with the new port
printf 'port = 7500\n' >"$home/etc/org.example.hello.cfg.tmp" && mv "$home/etc/org.example.hello.cfg.tmp" "$home/etc/org.example.hello.cfg"
on_7500() { j hello:devices 2>/dev/null | grep -Eq '^lo0: .* port 7500, answered 0, dropped 0$'; }
until_ok 60 on_7500 && pass "etc/: org.example.hello.cfg port = 7500 moved the listener (remove, add)" || fail "etc/: hello:devices says: $(j hello:devices 2>&1)"
ping_ok "etc/ port 7500"
err=$(j 'hello:ping nosuch' 2>&1 >/dev/null); status=$?
[[ $status -ne 0 && "$err" == "jrdma: hello: no device 'nosuch' (hello listens on [lo0])" ]] && pass "deploy: an unknown device is a precise error (exit $status)" \
    || fail "deploy: hello:ping nosuch exited $status: $err"

rm "$home/deploy/hello-ulp.jar"
until_ok 60 gone && pass "undeploy: removing the jar uninstalls the bundle (hello:devices is gone)" || fail "undeploy: hello:devices still answers"

cp "$jar" "$home/hello-ulp.jar"
out=$(j "install file:$home/hello-ulp.jar"); id=$(sed -n 's/^Bundle ID: \([0-9]*\)$/\1/p' <<<"$out")
if [[ -n "$id" ]] && j 'lb hello-ulp' | grep -q "^ *$id|Installed  |"; then
    pass "install: without -s the bundle is left Installed, as Felix's ($out)"
else
    fail "install: $out; lb: $(j 'lb hello-ulp' 2>&1)"
fi
[[ -n "$id" ]] && j "uninstall $id" >/dev/null
out=$(j "install -s file:$home/hello-ulp.jar"); status=$?
lb=$(j 'lb hello-ulp')
if ((status == 0)) && grep -q '^Bundle ID: [0-9]*$' <<<"$out" && grep -q '|Active     |.*|hello-ulp ' <<<"$lb"; then
    pass "install -s: installed and started in one command ($out)"
else
    fail "install -s exited $status ($out); lb: $lb"
fi
until_ok 60 listening || fail "install -s: hello does not list lo0"
ping_ok "install -s"

timeout 60 "$jrdma" --home "$home" stop >/dev/null && pass "./jrdma stop: exit 0" || fail "./jrdma stop failed"
echo "hello-ulp e2e: $passed passed, $failed failed"
((failed == 0))
