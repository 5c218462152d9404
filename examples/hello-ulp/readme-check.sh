#!/usr/bin/env bash
# readme-check.sh [README]: the README's ULP section is this example; every code block of README.md whose first
# line names a file of it ("// examples/hello-ulp/..." or "<!-- examples/hello-ulp/... -->") must appear in that
# file verbatim (whole, or a contiguous excerpt), so the README cannot drift from what CI builds and runs.
set -u -o pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
readme=${1:-$root/README.md}
python3 - "$root" "$readme" <<'PY'
import re, sys
root, readme = sys.argv[1], sys.argv[2]
text = open(readme, encoding='utf-8').read()
blocks = re.findall(r'^```[a-z]*\n(.*?)^```$', text, re.S | re.M)
head = re.compile(r'^(?://|<!--)\s*(examples/hello-ulp/\S+?)(?:\s*-->)?\s*$')
checked, bad = 0, []
for b in blocks:
    first, _, body = b.partition('\n')
    m = head.match(first)
    if not m:
        continue
    checked += 1
    try:
        src = open(f'{root}/{m.group(1)}', encoding='utf-8').read()
    except OSError as e:
        bad.append(f'{m.group(1)}: {e.strerror}')
        continue
    if body not in src:
        lines = body.splitlines()
        where = next((i for i in range(len(lines), 0, -1) if '\n'.join(lines[:i]) in src), 0)
        bad.append(f'{m.group(1)}: the README block differs from the file after its line {where + 1}')
for b in bad:
    print('FAIL: readme: ' + b)
print(f'readme-check: {checked} block(s) of {readme} checked against examples/hello-ulp, {len(bad)} differ')
sys.exit(1 if bad or checked == 0 else 0)
PY
