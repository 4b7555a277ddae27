#!/usr/bin/env bash
# tests/cli/fabric.sh BINARY SOURCE_DIR
#
# The system builder from the command line (tlm/system/fabric.h, docs/architecture.md §8):
# - `cohscope list roles` names the roles of the protocol families;
# - system gpu written out as an explicit layout gives the same result, bit for bit, as the
#   standard layout a configuration without `fabric` gets; so does the APU, whose
#   configs/apu-2200g.cfg writes its layout out;
# - an APU of another shape, made by configuration only: the directory first on the network,
#   two TCC slices, four DDR4 channels, a mesh: the hetero workloads verify, every TCC slice and
#   channel carried traffic, and the result's `fabric` object shows the layout;
# - gem5's tree of three crossbars joined by bridges verifies, carries traffic both ways, passes
#   the coherence checker, costs cycles, and its config dump runs the same; a point-to-point
#   link between two bridges (seed 003's CPU-GPU link shape) verifies and costs more;
# - bad layouts: one error line naming where, a non-zero exit, no output file.
. "$(dirname "$0")/lib.bash" "$@"

"$BIN" list roles >roles.txt || fail "list roles: exit $?"
for r in "gpu    l1" "gpu    l2" "scoped l1" "scoped l2" "apu    corepair" "apu    directory" \
	"apu    memctrl"; do
	grep -q "^  $r " roles.txt || fail "list roles: no '$r'"
done

same_result() { # name a.json b.json: equal but for host figures
	python3 - "$2" "$3" <<'PY' || fail "$1: results differ: $(cat diff.txt)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not k.startswith("host")}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o
a, b = strip(a), strip(b)
bad = [k for k in set(a["stats"]) | set(b["stats"]) if a["stats"].get(k) != b["stats"].get(k)]
if a["result"] != b["result"]:
    bad.append("result")
open("diff.txt", "w").write(" ".join(sorted(bad)[:10]))
sys.exit(1 if bad else 0)
PY
}

# system gpu: its standard layout written out (libconfig includes are relative to the file)
cp "$SRC/configs/gtsc-16sm.cfg" "$SRC/configs/gtsc-16sm-gpu.cfg" .
printf '%s\n' '@include "gtsc-16sm.cfg"' \
	'fabric = { groups = "channels, l2_banks, sms"; };' \
	'channels = { role = "memctrl"; };' \
	'l2_banks = { role = "l2"; net = "noc"; memory = "channels"; };' \
	'sms = { role = "l1"; net = "noc"; };' >gpu-explicit.cfg
for n in gpu-explicit gtsc-16sm; do
	"$BIN" run -c $n.cfg -w bfs --set workload.size=tiny --mode detailed -q -o $n.json \
		>$n.txt 2>&1 || fail "$n: exit $?: $(tail -1 $n.txt)"
done
same_result "gpu explicit layout" gpu-explicit.json gtsc-16sm.json

# the APU: its written-out layout against the standard one (fabric.groups empty)
A=$SRC/configs/apu-2200g.cfg
"$BIN" run -c "$A" -w hetero_histo --set workload.size=tiny -q -o apu-a.json >apu-a.txt 2>&1 ||
	fail "apu: exit $?: $(tail -1 apu-a.txt)"
"$BIN" run -c "$A" -w hetero_histo --set workload.size=tiny -q --set fabric.groups= \
	-o apu-b.json >apu-b.txt 2>&1 || fail "apu standard layout: exit $?: $(tail -1 apu-b.txt)"
same_result "apu explicit layout" apu-a.json apu-b.json

# an APU of another shape, by overrides of its layout
SHAPE=(--set "fabric.groups=directory, channels, tccs, corepairs, dmas, cus"
	--set tccs.count=2 --set channels.count=4 --set noc.topology=mesh)
for w in hetero_histo hetero_prodcons; do
	timeout 300 "$BIN" run -c "$A" "${SHAPE[@]}" -w $w --set workload.size=tiny -o $w.json \
		>$w.txt 2>&1 || fail "shape $w: exit $?: $(tail -1 $w.txt)"
	grep -q verified $w.txt || fail "shape $w: not verified"
	python3 - $w.json <<'PY' || fail "shape $w: $(cat err.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
s, fab = d["stats"], d["result"]["fabric"]
bad = []
g = {x["name"]: x for x in fab["groups"]}
if g["directory"]["endpoints"] != [0]:
    bad.append("directory at %s, listed first" % g["directory"]["endpoints"])
if g["tccs"]["endpoints"] != [1, 2] or g["corepairs"]["endpoints"] != [3, 4, 5, 6]:
    bad.append("endpoints %s %s" % (g["tccs"]["endpoints"], g["corepairs"]["endpoints"]))
if fab["networks"][0]["endpoints"] != 16:
    bad.append("%s endpoints" % fab["networks"][0]["endpoints"])
for c in range(4):
    if s.get("apu.dram%d.reads" % c, 0) <= 0:
        bad.append("channel %d read nothing" % c)
for t in range(2):
    if s.get("apu.tcc%d.probes" % t, 0) <= 0:
        bad.append("TCC slice %d never probed" % t)
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

# gem5's network: three crossbars joined by two bridges (configs/apu-2200g-tree.cfg)
TREE=$SRC/configs/apu-2200g-tree.cfg
for w in hetero_prodcons hetero_dma; do
	timeout 300 "$BIN" run -c "$TREE" -w $w --set workload.size=tiny -o tree-$w.json \
		>tree-$w.txt 2>&1 || fail "tree $w: exit $?: $(tail -1 tree-$w.txt)"
	grep -q verified tree-$w.txt || fail "tree $w: not verified"
	python3 - tree-$w.json <<'PY' || fail "tree: $(cat err.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
s, fab = d["stats"], d["result"]["fabric"]
bad = []
if [n["name"] for n in fab["networks"]] != ["cpu_xbar", "noc", "gpu_xbar"]:
    bad.append("networks %s" % fab["networks"])
for b in (0, 1):
    for k in ("fwd_ab", "fwd_ba"):
        if s.get("apu.bridge%d.%s" % (b, k), 0) <= 0:
            bad.append("bridge %d forwarded nothing (%s)" % (b, k))
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done
timeout 300 "$BIN" run -c "$TREE" -w hetero_rtest --set gpu.check=true --set workload.size=tiny \
	>tree-rtest.txt 2>&1 || fail "tree hetero_rtest: exit $?: $(tail -1 tree-rtest.txt)"
grep -q " 0 violations" tree-rtest.txt || fail "tree hetero_rtest: $(grep -i violation tree-rtest.txt)"
# the tree's extra hops cost time: the same work takes longer than on one crossbar
"$BIN" run -c "$A" -w hetero_dma --set workload.size=tiny -o flat-dma.json >/dev/null 2>&1 ||
	fail "flat hetero_dma: exit $?"
python3 - tree-hetero_dma.json flat-dma.json <<'PY' || fail "tree: $(cat err.txt)"
import json, sys
t, f = (json.load(open(p))["result"]["cycles"] for p in sys.argv[1:3])
open("err.txt", "w").write("tree %s cycles, one crossbar %s" % (t, f))
sys.exit(0 if t > f else 1)
PY

# a point-to-point link (the shape of seed 003's CPU-GPU link) between two bridges: the CPU
# cluster reaches the main crossbar over 100 ns of wire
LINK=(--set "fabric.groups=corepairs, cpu_bridge, link_bridge, cus, tccs, dmas, gpu_bridge, directory, channels"
	--set cpu_bridge.net2=pcie --set link_bridge.role=bridge --set link_bridge.net=noc
	--set link_bridge.net2=pcie --set pcie.topology=link --set pcie.clock_mhz=1000
	--set pcie.flit_bytes=16 --set pcie.link_latency=100 --set pcie.buffer_flits=9)
timeout 300 "$BIN" run -c "$TREE" "${LINK[@]}" -w hetero_dma --set workload.size=tiny \
	-o link-dma.json >link-dma.txt 2>&1 || fail "link hetero_dma: exit $?: $(tail -1 link-dma.txt)"
grep -q verified link-dma.txt || fail "link hetero_dma: not verified"
python3 - link-dma.json tree-hetero_dma.json <<'PY' || fail "link: $(cat err.txt)"
import json, sys
l, t = (json.load(open(p)) for p in sys.argv[1:3])
nets = [(n["name"], n["endpoints"]) for n in l["result"]["fabric"]["networks"]]
bad = []
if ("pcie", 2) not in nets:
    bad.append("networks %s" % nets)
if l["result"]["cycles"] <= t["result"]["cycles"]:
    bad.append("over the link %s cycles, the tree %s" % (l["result"]["cycles"], t["result"]["cycles"]))
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY

# the tree's dump (every group, network and bridge section) runs as the tree does
"$BIN" config -c "$TREE" -w hetero_dma --dump >tree-dump.cfg || fail "tree dump: exit $?"
for sec in fabric corepairs cpu_bridge gpu_bridge cpu_xbar gpu_xbar noc bridge; do
	grep -q "^$sec = {" tree-dump.cfg || fail "tree dump: no section $sec"
done
"$BIN" run -c tree-dump.cfg -w hetero_dma --set workload.size=tiny -q -o tree-dump.json \
	>/dev/null 2>&1 || fail "run of the tree's dump: exit $?"
"$BIN" run -c "$TREE" -w hetero_dma --set workload.size=tiny -q -o tree-dma2.json \
	>/dev/null 2>&1 || fail "tree hetero_dma: exit $?"
same_result "tree dump" tree-dump.json tree-dma2.json

# bad layouts
expect_error() { # name expected-text config --set...
	local name=$1 text=$2 cfg=$3 w=hetero_histo
	shift 3
	[ "$cfg" = apu-2200g ] || w=bfs
	"$BIN" run -c "$SRC/configs/$cfg.cfg" -w $w --set workload.size=tiny -o bad.json "$@" \
		>bad.out 2>bad.err
	local rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -qF -- "$text" bad.err ||
		fail "$name: status $rc: $(cat bad.err)"
	[ ! -e bad.json ] || fail "$name: wrote bad.json"
	rm -f bad.json
}
expect_error "group named like a component" \
	"'tcc' is already the section of a component" apu-2200g \
	--set "fabric.groups=corepairs, tcc, cus, dmas, directory, channels"
expect_error "unknown role" \
	"--set directory.role=directry: no role 'directry' in protocol family apu (did you mean 'directory'?)" \
	apu-2200g --set directory.role=directry
expect_error "two directories" "directory.count=2: at most 1 directory node(s)" apu-2200g \
	--set directory.count=2
expect_error "TCPs not one per CU" "the GPU side needs one TCP per CU" apu-2200g \
	--set cus.count=4
expect_error "group without a section" "'extra' names no section" apu-2200g \
	--set "fabric.groups=corepairs, cus, tccs, dmas, directory, channels, extra"
expect_error "uncacheable page" "io.cacheable=false: the apu protocols do not implement" \
	apu-2200g --set fabric.ranges=io --set io.size=0x100000 --set io.home=directory \
	--set io.cacheable=false
expect_error "allocation outside the ranges" "outside every range of fabric.ranges" \
	apu-2200g --set fabric.ranges=low --set low.size=0x10000 --set low.home=directory
expect_error "gpu banks not l2.banks" "the layout has 4 L2 banks and 4 channels" gtsc-16sm \
	--set l2_banks.count=4 --set channels.count=4
expect_error "gpu bank behind two sockets" "a l2 node has 1 memory socket(s)" gtsc-16sm \
	--set channels.count=16
expect_error "two networks, no bridge" "2 networks of messages need 1 bridges" apu-2200g \
	--set corepairs.net=cpu_xbar
expect_error "bridge without its second network" \
	"a bridge joins its network to another one: name it" apu-2200g \
	--set "fabric.groups=corepairs, b, cus, tccs, dmas, directory, channels" \
	--set b.role=bridge

exit $((fails > 0))
