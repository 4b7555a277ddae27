#!/usr/bin/env bash
# Verification matrix of a suite (issue 39's "Done when"): every benchmark of `cohscope suite
# SUITE` at each size under every GPU protocol of the G-TSC set (none, noncoherent, tc-strong,
# tc-weak, gtsc) in detailed and hybrid mode, on configs/default.cfg, seed 1: one `cohscope
# suite` process per size, protocol and mode, JOBS (default 2) at a time. Prints one row per
# benchmark and size with ok / FAIL per protocol and mode, then the failures' messages, then
# the detailed gtsc runs' cycles, warp memory instructions and host seconds (docs/workloads.md,
# docs/performance.md). Exit status 1 when any run failed.
# Usage: [JOBS=N] bench/suite/verify.sh BUILD_DIR [SUITE|NAME,NAME...] [SIZE...]
#   (default: suite all, sizes tiny small default)
set -uo pipefail
build=${1:?usage: bench/suite/verify.sh BUILD_DIR [SUITE|NAME,NAME...] [SIZE...]}
suite=${2:-all}
shift
[ $# -gt 0 ] && shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(tiny small default)
src=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${JOBS:-2}
. "$src/bench/suite/suite_args.sh"
suite_args "$suite"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
protocols=(none noncoherent tc-strong tc-weak gtsc)
modes=(detailed hybrid)

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: configs/default.cfg, suite $suite, sizes ${sizes[*]}, seed 1"
for s in "${sizes[@]}"; do
	for p in "${protocols[@]}"; do
		for m in "${modes[@]}"; do
			"$build/cohscope" suite "${SUITE_ARGS[@]}" -c "$src/configs/default.cfg" -q \
				--set workload.size="$s" --set coherence.protocol="$p" \
				--set system.mode="$m" -o "$tmp/$s.$p.$m.json" 2>"$tmp/$s.$p.$m.err" &
			while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		done
	done
done
wait
python3 - "$tmp" "${sizes[*]}" "${protocols[*]}" "${modes[*]}" <<'PY'
import json, os, sys
d, sizes, protos, modes = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
runs, names, fails = {}, [], []
for s in sizes:
    for p in protos:
        for m in modes:
            f = os.path.join(d, '%s.%s.%s.json' % (s, p, m))
            rows = json.load(open(f)) if os.path.exists(f) and os.path.getsize(f) else []
            if not rows:
                fails.append('%s %s %s: %s' % (s, p, m, open(f[:-4] + 'err').read().strip()))
            for r in rows:
                runs[(r['benchmark'], s, p, m)] = r
                if r['benchmark'] not in names:
                    names.append(r['benchmark'])
cols = ['%s/%s' % (p, m[0]) for p in protos for m in modes]
print('\n| benchmark | size | ' + ' | '.join(cols) + ' |')
print('|---|---|' + '---|' * len(cols))
for n in names:
    for s in sizes:
        cells = []
        for p in protos:
            for m in modes:
                r = runs.get((n, s, p, m))
                ok = r is not None and r['verified']
                cells.append('ok' if ok else 'FAIL')
                if r is not None and not ok:
                    fails.append('%s %s %s %s: %s' % (n, s, p, m, r.get('error', '?')))
        print('| %s | %s | %s |' % (n, s, ' | '.join(cells)))
print('\nfailures: %d' % len(fails))
for f in fails:
    print('  ' + f)
print('\n| benchmark | size | gtsc detailed Mcycles | warp mem insts | host s | M ops/s |')
print('|---|---|---:|---:|---:|---:|')
for n in names:
    for s in sizes:
        r = runs.get((n, s, 'gtsc', 'detailed'))
        if r and r['verified']:
            mi, hs = r.get('mem_insts', 0), r['host_seconds']
            print('| %s | %s | %.3f | %d | %.2f | %.3f |' % (n, s, r['cycles'] / 1e6, mi, hs,
                                                          mi / hs / 1e6 if hs else 0))
sys.exit(1 if fails else 0)
PY
