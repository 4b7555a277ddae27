#!/usr/bin/env bash
# Characterises GPU workloads as docs/workloads.md's table does (issue 39): each one at one size
# on configs/default.cfg under the non-coherent L1 (W/L1), detailed mode, seed 1, with
# gpu.line_stats on. Per workload: warp memory instructions; their share of the issue slots
# (memory instructions / (warp instructions + compute issue slots), summed over the SMs); the L1
# load hit rate and the L2 hit rate; the share of the 128-byte lines its requests touch that more
# than one request touches; and for seed 003's twelve, its Table 1 (HW-CC L1 / L2 hit rates)
# beside, with our L1 and L2 hit rates as GPGPU-Sim (seed 003's simulator) would give them: a
# second run on its Fermi L1 (l1.write = evict: a store hit drops the line), counted as it
# counts, 1 - misses / accesses over loads and stores (and the L2's atomics), where a miss
# merged into a pending MSHR entry (HIT_RESERVED, a "pending hit") is not a miss. Prints a
# Markdown table; figures only, no thresholds (bench/README.md).
# Usage: bench/suite/characterise.sh BUILD_DIR [SIZE] [SUITE|NAME,NAME...]
#   (default: size default, suite all: the G-TSC suite and every port)
set -euo pipefail
build=${1:?usage: bench/suite/characterise.sh BUILD_DIR [SIZE] [SUITE|NAME,NAME...]}
size=${2:-default}
what=${3:-all}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$src/bench/suite/suite_args.sh"
suite_args "$what"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: configs/default.cfg, noncoherent (W/L1), size $size, detailed mode, seed 1"
# the suite's members (a tiny run names them), then one process per workload so each gets its
# statistics (cohscope suite -o keeps the summary)
"$build/cohscope" suite "${SUITE_ARGS[@]}" -c "$src/configs/default.cfg" -q -o "$tmp/suite.json" \
	--set workload.size=tiny --set coherence.protocol=noncoherent \
	--set system.mode=analytic >/dev/null || true
names=$(python3 -c "import json,sys; print(' '.join(r['benchmark'] for r in json.load(open(sys.argv[1]))))" \
	"$tmp/suite.json")
# seed 003's Table 1: its HW-CC GPU's L1 / L2 hit rates (%), NAME:L1:L2
export TABLE1="bp:62.4:70.0 bfs_rodinia:19.6:58.6 btree:81.8:61.8 cns:47.0:55.2 comd:62.5:97.1
	km:5.6:29.5 minife:46.7:20.4 mummer:60.0:30.0 needle:7.0:55.7 pathfinder:42.4:23.0
	srad:46.9:25.9 xsbench:30.7:63.0"
for n in $names; do
	"$build/cohscope" run -c "$src/configs/default.cfg" -w "$n" -q -o "$tmp/$n.json" \
		--set workload.size="$size" --set coherence.protocol=noncoherent \
		--set gpu.line_stats=true --mode detailed 2>"$tmp/$n.err" || true
	# seed 003's twelve again on the L1 of its GPGPU-Sim (a store hit drops the line), for the
	# column beside its Table 1
	case " $(echo $TABLE1) " in
	*" $n:"*)
		"$build/cohscope" run -c "$src/configs/default.cfg" -w "$n" -q \
			-o "$tmp/$n.evict.json" --set workload.size="$size" \
			--set coherence.protocol=noncoherent --set l1.write=evict \
			--mode detailed 2>"$tmp/$n.evict.err" || true
		;;
	esac
done
python3 - "$tmp" $names <<'PY'
import json, os, re, sys
d = sys.argv[1]
table1 = {e.split(':')[0]: tuple(float(x) for x in e.split(':')[1:])
          for e in os.environ['TABLE1'].split()}
print('| workload | suite | warp mem insts | mem share | L1 hit | L2 hit | lines touched | touched again | L1 / L2 hit as GPGPU-Sim counts, write-evict L1 | Table 1 L1 / L2 | check |')
print('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|')


def gpgpusim_rates(n, st):
    """L1 / L2 hit rates as GPGPU-Sim counts them (gpu-cache.cc cache_stats: misses are MISS and
    SECTOR_MISS; HIT_RESERVED, a pending hit, is not one), from the L1's and L2's declared
    counters summed over SMs and banks."""
    def total(pattern):
        keys = [k for k in st if re.fullmatch(pattern, k)]
        if not keys:
            sys.exit('characterise: %s: no statistic matches %s' % (n, pattern))
        return sum(st[k] for k in keys)
    # atomics go past GPGPU-Sim's L1 to the L2: not L1 accesses there
    l1_acc = total(r'gpu\.sm\d+\.l1\.accesses') - total(r'gpu\.sm\d+\.l1\.atomics')
    l1_miss = (total(r'gpu\.sm\d+\.l1\.load_misses') - total(r'gpu\.sm\d+\.l1\.mshr_merges') +
               total(r'gpu\.sm\d+\.l1\.store_misses'))
    l2_acc = total(r'gpu\.l2\.bank\d+\.accesses')
    l2_miss = (total(r'gpu\.l2\.bank\d+\.read_misses') - total(r'gpu\.l2\.bank\d+\.mshr_merges') +
               total(r'gpu\.l2\.bank\d+\.write_misses') + total(r'gpu\.l2\.bank\d+\.atomic_misses'))
    return '%.1f / %.1f' % (100.0 * (1 - l1_miss / max(1, l1_acc)),
                            100.0 * (1 - l2_miss / max(1, l2_acc)))


suite = {r['benchmark']: r for r in json.load(open(os.path.join(d, 'suite.json')))}
for n in sys.argv[2:]:
    f = os.path.join(d, n + '.json')
    if not os.path.exists(f) or os.path.getsize(f) == 0:
        err = open(os.path.join(d, n + '.err')).read().strip()
        print('| %s | %s | | | | | | | | | %s |' % (n, suite[n].get('suite') or '-', err))
        continue
    r = json.load(open(f))
    st, res = r['stats'], r['result']
    mem = sum(v for k, v in st.items() if k.endswith('.mem_insts') and k.startswith('gpu.sm'))
    insts = sum(v for k, v in st.items() if k.endswith('.insts') and k.count('.') == 2 and k.startswith('gpu.sm'))
    comp = sum(v for k, v in st.items() if k.endswith('.compute_cycles') and k.startswith('gpu.sm'))
    touched, again = st['gpu.lines_touched'], st['gpu.lines_retouched']
    ev, ev_err = os.path.join(d, n + '.evict.json'), os.path.join(d, n + '.evict.err')
    if os.path.exists(ev) and os.path.getsize(ev):
        gsim = gpgpusim_rates(n, json.load(open(ev))['stats'])
    elif os.path.exists(ev_err):
        gsim = 'failed: ' + open(ev_err).read().strip()
    else:
        gsim = ''
    t1 = table1.get(n)
    print('| %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %d | %.1f%% | %s | %s | verified |' % (
        n, suite[n].get('suite') or '-', mem, 100.0 * mem / max(1, insts + comp),
        100 * res['l1_load_hit_rate'], 100 * res['l2_hit_rate'], touched,
        100.0 * again / max(1, touched), gsim, '%.1f / %.1f' % t1 if t1 else ''))
PY
