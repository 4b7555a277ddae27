#!/usr/bin/env bash
# tests/cli/study_hlrc.sh BINARY SOURCE_DIR
#
# cohscope study hlrc (docs/study.md), at tiny size on color (its three inputs):
# - the color sweep holds 3 inputs x 9 configurations and the RSP scaling sweep 4 CU counts x
#   2, all ok and verified, at the study's size; the sssp and pagerank sweeps do not run;
# - summary.md has every claim row V1-V23; V1 (hLRC over the baseline, the geometric mean of
#   three inputs), a cell of the speedup table, a Fig. 5 and a Fig. 6 row, Table 6's row of
#   color-3 and the 8-CU scaling cell equal the values recomputed from the points' results and
#   statistics; no row of an input not run;
# - what the seed and the protocols say: RSP sends 127 flushes per remote-scope operation at
#   128 CUs (one per other L1, V9; at tiny no steal succeeds, so no CAS broadcasts twice); the
#   kernel boundaries' actions are the same in every configuration (V23); hLRC's
#   synchronization classes add up to 100%;
# - the figures exist (.dat and .gp; .svg and .png with gnuplot);
# - --resume on the finished study runs no point and writes the same summary.md;
# - usage errors (a workload not in the study, a --set on a key the study varies) are one
#   "cohscope:" line, a non-zero status, nothing written.
. "$(dirname "$0")/lib.bash" "$@"

"$BIN" study hlrc --size tiny -w color --jobs 2 -o S >run.out 2>run.err
st=$?
[ $st -eq 0 ] || fail "study: status $st: $(head -3 run.err)"

for s in color:27 rsp-scale:8; do
	d=${s%%:*} n=${s##*:}
	got=$(python3 -c "
import json
p = json.load(open('S/$d/results.json'))['points']
v = sum(any('verified' in n for n in x['result']['notes']) for x in p)
print(len(p), sum(x['status'] == 'ok' for x in p), v, sorted({x['result']['size'] for x in p}),
      sorted({x['workload'] for x in p}))")
	[ "$got" = "$n $n $n ['tiny'] ['color']" ] ||
		fail "$d: points, ok, verified, sizes, workloads = $got, expected $n of each"
done
[ -e S/sssp ] && fail "the sssp sweep ran without sssp selected"

M=S/summary.md
[ -s $M ] || fail "no summary.md"
for c in V1 V2 V3 V4 V5 V6 V7 V8 V9 V10 V11 V12 V13 V14 V15 V16 V17 V18 V19 V20 V21 V22 V23; do
	grep -q "^| $c | " $M || fail "summary.md: no claim row $c"
done
grep -q 'mode: detailed; workload size: tiny' $M || fail "summary.md: mode and size line"
grep -q '^| SSSP-1\|^| PR-2' $M && fail "summary.md: a row of an input not run"
grep -q "/tmp/" $M && fail "summary.md holds a path outside the study"

python3 - S $M <<'PY' || fail "summary.md differs from the points' results"
import json, math, re, sys
d, md = sys.argv[1], sys.argv[2]
text = open(md).read()
rows = [[c.strip() for c in l.split('|')[1:-1]] for l in text.splitlines() if l.startswith('|')]
graphs = {'ecology1': 'color-1', 'coauthorsdblp': 'color-2', 'dictionary28': 'color-3'}

def points(sweep):
    out = {}
    for x in json.load(open('%s/%s/results.json' % (d, sweep)))['points']:
        st = json.load(open('%s/%s/points/%s.json' % (d, sweep, x['id'])))['stats']
        g = graphs.get(x['axes'].get('workload.graph', 'ecology1'))
        out[(g, x['axes']['config'], int(x['axes'].get('gpu.sms', 128)))] = (x['result'], st)
    return out

def total(st, name, bank=False):
    pat = re.compile(r'gpu\.%s\d+\.%s$' % ('l2\\.bank' if bank else 'sm', re.escape(name)))
    return sum(v for k, v in st.items() if pat.match(k))

p = points('color')
p.update(points('rsp-scale'))
cyc = lambda i, c, n=128: p[(i, c, n)][0]['cycles']
ins = ('color-1', 'color-2', 'color-3')

def claim(cid, what):
    for r in rows:
        if r[0] == cid and r[1].startswith(what):
            return r[3]
    raise AssertionError('no row %s %s' % (cid, what))

g = math.exp(sum(math.log(cyc(i, 'baseline') / cyc(i, 'hLRC')) for i in ins) / 3)
assert claim('V1', 'hLRC over the baseline') == '%+.1f%%' % (100 * (g - 1)), (g, claim('V1', 'hLRC'))
# V9: at 128 CUs every remote-scope operation flushes the 127 other L1s
st = p[('color-1', 'RSP', 128)][1]
ops = sum(total(p[(i, 'RSP', 128)][1], 'remote_ops', True) for i in ins)
fl = sum(total(p[(i, 'RSP', 128)][1], 'l1.remote_flush') for i in ins)
assert ops > 0 and fl == 127 * ops, (ops, fl)
bc = sum(total(p[(i, 'RSP', 128)][1], 'broadcasts', True) for i in ins)
assert claim('V9', "RSP's fan-out").startswith(
    '%.0f remote-scope operations in %.0f broadcasts (a steal\'s CAS makes two): 127.0 flushes per broadcast' % (ops, bc))
# V23: kernel start and end actions equal in every configuration
for i in ins:
    for n in ('l1.inv_kernel_start', 'l1.flush_kernel_end'):
        assert len({total(p[(i, c, 128)][1], n) for c in ('baseline', 'scope-only', 'steal-only',
                    'RSP', 'DeNovo-B', 'hLRC', 'hLRC-noprio', 'DeNovo-Rprio', 'hLRC-scoped')}) == 1, (i, n)
assert claim('V23', 'kernel-start').startswith('differ across the configurations by at most 0.0%')
# the speedup table: color-2 under DeNovo-B (column 4 of 9)
row = [r for r in rows if r[0] == 'color-2 (coauthorsdblp)'][0]
assert row[4] == '%.2f' % (cyc('color-2', 'baseline') / cyc('color-2', 'DeNovo-B')), row
# Fig. 5: color-1 under hLRC (kernel start, acquire, remote inval, atomic in, total / baseline)
st, sb = p[('color-1', 'hLRC', 128)][1], p[('color-1', 'baseline', 128)][1]
inv = ['l1.inv_kernel_start', 'l1.inv_acquire', 'l1.remote_inv', 'l1.inv_atomic_in']
row = [r for r in rows if r[:2] == ['color-1', 'hLRC'] and len(r) == 7][0]
want = ['%.0f' % total(st, n) for n in inv]
want.append('%.2f' % (sum(total(st, n) for n in inv) / sum(total(sb, n) for n in inv)))
assert row[2:] == want, (row, want)
# Fig. 6: color-3 under RSP
st = p[('color-3', 'RSP', 128)][1]
row = [r for r in rows if r[:2] == ['color-3', 'RSP'] and len(r) == 8][0]
assert row[4] == '%.0f' % total(st, 'l1.remote_flush') and row[3] == '0', row
# Table 6: color-3 under hLRC
st = p[('color-3', 'hLRC', 128)][1]
h, l2, rm = total(st, 'l1.reg.l1_hits'), total(st, 'reg.getr_l2', True), total(st, 'reg.getr_remote', True)
t = h + l2 + rm
row = [r for r in rows if r[0] == 'color-3' and len(r) == 6][0]
assert row[1] == '74.3%% / %.1f%%' % (100 * h / t), row
assert row[3] == '20%% / %.1f%%' % (100 * rm / t), row
assert row[5] == '%.0f' % t, row
assert abs(sum(float(c.split('/ ')[1].rstrip('%')) for c in row[1:4]) - 100) < 0.2, row
# the scaling table: 8 CUs
row = [r for r in rows if r[0] == '8' and len(r) == 2][0]
assert row[1] == '%.2f' % (cyc('color-1', 'baseline', 8) / cyc('color-1', 'RSP', 8)), row
PY

exts="dat gp"
command -v "${COHSCOPE_GNUPLOT:-gnuplot}" >/dev/null && exts="dat gp svg png"
for f in fig1-rsp-scaling fig4-performance fig5-invalidations fig6-flushes fig7-data-latency \
	fig8-sync-latency fig9-rprio fig10-scoped; do
	for e in $exts; do
		[ -s "S/figs/$f.$e" ] || fail "no figure S/figs/$f.$e"
	done
done
grep -q '"hLRC-scoped"' S/figs/fig10-scoped.dat || fail "fig10: no hLRC-scoped column"
grep -q '"color-1/8 CUs"' S/figs/fig1-rsp-scaling.dat || fail "fig1: no 8-CU cluster"

# ---- resume: no point runs, the same summary ----------------------------------------------------

cp $M summary.first
"$BIN" study hlrc --size tiny -w color --jobs 2 -o S --resume >resume.out 2>resume.err ||
	fail "resume: status $?: $(head -3 resume.err)"
[ "$(grep -c ' 0 to run' resume.out)" -eq 2 ] || fail "resume: $(grep '^sweep:' resume.out)"
cmp -s $M summary.first || fail "resume: summary.md differs"

# ---- errors -----------------------------------------------------------------------------------

mkdir e && cd e || exit 1
check_error 2 "study: -w color,bfs: 'bfs' is not a benchmark of the hLRC study" \
	study hlrc -w color,bfs -o D
check_error 2 "study: --set gpu.sms=64: the study's configurations" \
	study hlrc --set gpu.sms=64 -o D
check_error 2 "study: --set workload.scenario=rsp: the study's configurations" \
	study hlrc --set workload.scenario=rsp -o D
cd .. || exit 1

[ $fails -eq 0 ] && echo "study_hlrc: ok"
exit $((fails > 0))
