#!/usr/bin/env bash
# tests/cli/sweep.sh BINARY SOURCE_DIR
#
# cohscope sweep and cohscope collect (docs/sweeps.md):
# - configs/sweeps/protocols.sweep: its 60 points (12 benchmarks x 5 configurations) pass the
#   check, in sweep order, and --dry-run writes nothing;
# - local pool: a sweep of 3 workloads x 3 named configurations x 2 leases (base relative to
#   the sweep file) gives 18 point files and results.csv / results.json in sweep order, every
#   point ok with its axis values applied, the CSV's figures those of each point's JSON (with
#   the hybrid estimates' half-widths, cycles_half right after cycles), and each progress
#   line ends with the point's cycles ± half-width;
#   --jobs 1 and --jobs 2 give the same bytes;
# - a sweep killed (SIGTERM) after its first point leaves only whole points (no temporary,
#   no merged results, status 143); --resume runs exactly the missing points, leaves the
#   finished files untouched, and ends with the bytes of an uninterrupted sweep;
# - a point that fails is a 'failed' row with the point's error; the others run; status 1;
#   --resume runs only that point again;
# - a malformed sweep file (two points running the same configuration and more than 100 000
#   points among them) is one line "cohscope: FILE:LINE: problem", status 3, nothing written
#   (no output directory); usage errors are status 2;
# - --emit-jobs + GNU parallel (-S :, localhost) + collect gives the local pool's bytes;
#   the generated Slurm script run task by task with SLURM_ARRAY_TASK_ID does too;
#   --emit-jobs --resume writes only the points not done;
# - collect: missing points are 'missing' rows (status 1); a directory without a manifest is
#   bad input.
. "$(dirname "$0")/lib.bash" "$@"

EX=$SRC/configs/sweeps/protocols.sweep
CFG=$SRC/configs/default.cfg

# ---- the example ------------------------------------------------------------------------------

"$BIN" sweep "$EX" --set workload.size=tiny --dry-run >dry.out 2>dry.err ||
	fail "example dry run: $(cat dry.err)"
[ "$(wc -l <dry.out)" -eq 60 ] || fail "example dry run: $(wc -l <dry.out) points, expected 60"
[ "$(sed -n 7p dry.out | cut -d' ' -f3)" = "cc__config=TC-SC" ] ||
	fail "example dry run: point 7 is $(sed -n 7p dry.out)"
[ "$(ls | tr '\n' ' ')" = "dry.err dry.out " ] || fail "dry run wrote something: $(ls)"

# ---- local pool -------------------------------------------------------------------------------

mkdir sw
rel=$(realpath --relative-to="$T/sw" "$CFG")
cat >sw/test.sweep <<EOF
base = "$rel";
workloads = ["hs", "bfs", "sgm"];
set = ["workload.size=tiny"];
axes = (
  { name = "config";
    values = (
      { name = "BL"; set = ["coherence.protocol=none"]; },
      { name = "TC-RC"; set = ["coherence.protocol=tc-weak", "core.consistency=rc"]; },
      { name = "GTSC-SC"; set = ["coherence.protocol=gtsc", "core.consistency=sc"]; }
    ); },
  { key = "gtsc.lease"; values = [8, 16]; }
);
EOF
"$BIN" sweep sw/test.sweep --dry-run >order.out 2>err || fail "test.sweep dry run: $(cat err)"
"$BIN" sweep sw/test.sweep -o pool2 --jobs 2 >pool2.out 2>pool2.err ||
	fail "pool --jobs 2: status $?: $(cat pool2.err)"
"$BIN" sweep sw/test.sweep -o pool1 --jobs 1 -q >pool1.out 2>pool1.err ||
	fail "pool --jobs 1: status $?: $(cat pool1.err)"
[ ! -s pool1.out ] || fail "-q printed progress"
[ "$(ls pool2/points | wc -l)" -eq 18 ] || fail "pool: $(ls pool2/points | wc -l) point files"
[ "$(grep -c '^\[.*\] ok ' pool2.out)" -eq 18 ] || fail "pool: not 18 progress lines"
for f in results.csv results.json; do
	cmp -s pool1/$f pool2/$f || fail "--jobs 1 and --jobs 2 give different $f"
done
python3 - pool2 order.out <<'PY' || fail "pool: merged results do not match the points"
import csv, json, sys
d = sys.argv[1]
order = [l.split()[1] for l in open(sys.argv[2])]
res = json.load(open(d + "/results.json"))
rows = list(csv.DictReader(open(d + "/results.csv")))
assert res["columns"] == ["config", "gtsc.lease"], res["columns"]
assert len(order) == 18 and order[0] == "hs__config=BL__gtsc.lease=8", order[0]
assert order[3] == "hs__config=TC-RC__gtsc.lease=16", order[3]
assert [p["name"] for p in res["points"]] == order, "results not in sweep order"
assert [r["name"] for r in rows] == order, "CSV not in sweep order"
proto = {"BL": "none", "TC-RC": "tc-weak", "GTSC-SC": "gtsc"}
model = {"BL": "rc", "TC-RC": "rc", "GTSC-SC": "sc"}
for i, (p, r) in enumerate(zip(res["points"], rows)):
    assert p["status"] == "ok" and r["status"] == "ok", p["name"]
    assert p["workload"] == ["hs", "bfs", "sgm"][i // 6] == r["workload"], p["name"]
    assert p["axes"]["config"] == ["BL", "TC-RC", "GTSC-SC"][i // 2 % 3] == r["config"]
    assert p["axes"]["gtsc.lease"] == ["8", "16"][i % 2] == r["gtsc.lease"], p["name"]
    point = json.load(open(d + "/points/" + p["id"] + ".json"))
    assert point["result"] == p["result"], p["name"]
    assert "host" not in p and "wall_s" not in r, "host time in merged results"
    assert p["result"]["protocol"] == proto[r["config"]] == r["protocol"], p["name"]
    assert p["result"]["consistency"] == model[r["config"]] == r["consistency"], p["name"]
    assert p["result"]["size"] == "tiny", p["name"]
    for k in ("cycles", "cycles_half", "traffic_bytes", "traffic_half", "noc_bytes",
              "dram_bytes", "l2_hit_rate", "energy_j", "energy_half_j"):
        assert float(r[k]) == float(p["result"][k]), (p["name"], k)
    assert r["error"] == "", p["name"]
# hybrid estimates carry their 95% half-width: the column right after the cycles
head = next(csv.reader(open(d + "/results.csv")))
assert head[head.index("cycles") + 1] == "cycles_half", head
assert all(r["mode"] == "hybrid" for r in rows), "not hybrid"
assert any(float(r["cycles_half"]) > 0 for r in rows), "no half-width above 0"
PY
# each progress line ends with the point's cycles ± the hybrid estimate's half-width
python3 - pool2 pool2.out <<'PY' || fail "pool: progress lines' cycles differ from the points"
import json, re, sys
res = {p["name"]: p["result"] for p in json.load(open(sys.argv[1] + "/results.json"))["points"]}
n = 0
for line in open(sys.argv[2]):
    m = re.match(r"\[ *\d+/18\] ok +[\d.]+ s  (\S+): (\d+) ± (\d+) cycles$", line)
    if not line.startswith("["):
        continue
    assert m, line
    r = res[m.group(1)]
    assert int(m.group(2)) == r["cycles"] and int(m.group(3)) == round(r["cycles_half"]), line
    n += 1
assert n == 18, n
PY
"$BIN" sweep sw/test.sweep -o pool2 -q 2>err
[ $? -eq 2 ] && grep -q "holds a sweep already" err || fail "a second sweep into pool2: $(cat err)"

# ---- killed, then resumed ----------------------------------------------------------------------

# two tiny points take milliseconds, two small ones much longer: the kill lands among them
cat >kill.sweep <<EOF
base = "$CFG";
workloads = ["hs"];
set = ["system.mode=detailed"];
axes = (
  { key = "workload.size"; values = ["tiny", "small"]; },
  { key = "coherence.protocol"; values = ["none", "gtsc"]; }
);
EOF
"$BIN" sweep kill.sweep -o clean -q --jobs 2 2>err || fail "kill.sweep clean run: $(cat err)"
"$BIN" sweep kill.sweep -o killed --jobs 1 >killed.out 2>killed.err &
pid=$!
for _ in $(seq 1 1500); do
	compgen -G "killed/points/*.json" >/dev/null && break
	sleep 0.02
done
kill -TERM $pid
wait $pid
rc=$?
done_before=$(ls killed/points 2>/dev/null | grep -c '\.json$')
if [ $rc -ne 143 ]; then
	fail "killed sweep: status $rc, expected 143: $(cat killed.err)"
elif [ "$done_before" -lt 1 ] || [ "$done_before" -ge 4 ]; then
	fail "killed sweep: $done_before points finished, expected 1 to 3"
else
	grep -q "stopped by signal 15" killed.err || fail "killed sweep: $(cat killed.err)"
	compgen -G "killed/points/*.tmp.*" >/dev/null && fail "killed sweep: temporary left"
	[ -e killed/results.csv ] || [ -e killed/results.json ] &&
		fail "killed sweep: merged results written"
	stat -c '%n %i %Y.%y' killed/points/*.json >before
	"$BIN" sweep kill.sweep -o killed --jobs 2 --resume >resume.out 2>resume.err ||
		fail "resume: status $?: $(cat resume.err)"
	ran=$(grep -c '^\[.*\] ok ' resume.out)
	[ "$ran" -eq $((4 - done_before)) ] ||
		fail "resume ran $ran points, expected $((4 - done_before))"
	grep -q "4 points, $((4 - done_before)) to run ($done_before done already)" resume.out ||
		fail "resume: $(head -n 1 resume.out)"
	stat -c '%n %i %Y.%y' $(cut -d' ' -f1 before) | cmp -s - before ||
		fail "resume rewrote finished points"
	for f in results.csv results.json; do
		cmp -s clean/$f killed/$f || fail "killed + resumed sweep: $f differs from a clean run"
	done
	echo "ok   killed after $done_before of 4 points, resumed: $ran run, results as a clean run's"
fi

# ---- a failing point ---------------------------------------------------------------------------

cat >fails.sweep <<EOF
base = "$CFG";
workloads = ["bfs"];
set = ["workload.size=tiny"];
axes = ({ key = "coherence.protocol"; values = ["none", "noncoherent", "gtsc"]; });
EOF
"$BIN" sweep fails.sweep -o fails >fails.out 2>fails.err
rc=$?
[ $rc -eq 1 ] || fail "failing point: status $rc, expected 1"
[ "$(wc -l <fails.err)" -eq 1 ] && grep -q "1 of 3 points failed" fails.err ||
	fail "failing point: stderr: $(cat fails.err)"
python3 - fails <<'PY' || fail "failing point: wrong rows"
import csv, json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert [p["status"] for p in res["points"]] == ["ok", "failed", "ok"]
assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
assert "livelock" in res["points"][1]["error"] and "livelock" in rows[1]["error"]
assert "result" not in res["points"][1] and rows[1]["cycles"] == ""
PY
"$BIN" sweep fails.sweep -o fails --resume >fails2.out 2>/dev/null
grep -q "3 points, 1 to run (2 done already)" fails2.out || fail "resume of a failed point: $(head -n 1 fails2.out)"

# ---- malformed sweep files ---------------------------------------------------------------------

bad() { # bad NAME STATUS FRAGMENT -- SWEEP-ARGS...
	local name=$1 want=$2 frag=$3 rc
	shift 4
	rm -rf badout
	timeout 20 "$BIN" sweep "$@" -o badout >stdout 2>stderr
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name: status $rc, expected $want: $(cat stderr)"
	elif [ "$(wc -l <stderr)" -ne 1 ] || ! grep -q "^cohscope: " stderr; then
		fail "$name: stderr is not one 'cohscope: ' line: $(cat stderr)"
	elif ! grep -qF -- "$frag" stderr; then
		fail "$name: message lacks '$frag': $(cat stderr)"
	elif [ -s stdout ] || [ -e badout ]; then
		fail "$name: something was written"
	else
		echo "ok   $name: $(cat stderr)"
	fi
}
sweep() { # sweep FILE LINES...: a sweep file with base and workloads, then LINES
	local f=$1
	shift
	printf 'base = "%s";\nworkloads = ["bfs"];\n' "$CFG" >"$f"
	printf '%s\n' "$@" >>"$f"
}
sweep syntax.sweep 'set = ["workload.size=tiny"];' 'axes = ( { key = "gtsc.lease"; values = [8 10]; } );'
bad syntax-error 3 "syntax.sweep:4: syntax error" -- syntax.sweep
sweep key.sweep 'axes = (' '  { key = "gtsc.leas"; values = [8, 10]; }' ');'
bad unknown-key 3 "key.sweep:4: gtsc.leas=8: unknown key 'leas'" -- key.sweep
sweep sec.sweep 'set = ["workload.size=tiny",' '  "gtsx.lease=3"];'
bad unknown-section 3 "sec.sweep:4: gtsx.lease=3: unknown section 'gtsx'" -- sec.sweep
sweep empty.sweep 'axes = (' '  { key = "gtsc.lease";' '    values = []; }' ');'
bad empty-axis 3 "empty.sweep:5: axis 'gtsc.lease' has no values" -- empty.sweep
printf 'base = "%s";\n' "$CFG" >nowl.sweep
bad no-workloads 3 "nowl.sweep:1: no workloads" -- nowl.sweep
printf 'base = "%s";\nworkloads = [];\n' "$CFG" >emptywl.sweep
bad empty-workloads 3 "emptywl.sweep:2: workloads is empty" -- emptywl.sweep
sweep named.sweep 'axes = ( { name = "config";' '  values = (); } );'
bad empty-named-axis 3 "named.sweep:4: axis 'config' has no values" -- named.sweep
sweep value.sweep 'axes = ( { key = "coherence.protocol";' '  values = ["none", "gtcs"]; } );'
bad bad-value 3 "value.sweep:4: coherence.protocol=gtcs: unknown protocol" -- value.sweep
sweep range.sweep 'axes = ( { key = "gtsc.lease"; values = [8,' '  0]; } );'
bad out-of-range 3 "range.sweep:4: gtsc.lease=0: out of range" -- range.sweep
printf 'base = "%s";\nworkloads = ["bfs",\n  "bsf"];\n' "$CFG" >wl.sweep
bad unknown-workload 3 "wl.sweep:3: unknown workload 'bsf' (did you mean 'bfs'?)" -- wl.sweep
printf 'workloads = ["bfs"];\nbase = "nothere.cfg";\n' >base.sweep
bad missing-base 3 "base.sweep:2: base 'nothere.cfg'" -- base.sweep
sweep top.sweep 'axis = ();'
bad unknown-setting 3 "top.sweep:3: unknown setting 'axis'" -- top.sweep
sweep both.sweep 'set = ["sim.seed=3"];' 'axes = ( { key = "sim.seed"; values = [1, 2]; } );'
bad axis-and-set 3 "both.sweep:4: 'sim.seed' is both an axis and in set (line 3)" -- both.sweep
sweep dup.sweep 'axes = ( { name = "c"; values = (' '  { name = "x"; set = ["sim.seed=1"]; },' \
	'  { name = "x"; set = ["sim.seed=2"]; } ); } );'
bad duplicate-value 3 "dup.sweep:5: axis 'c': value 'x' is listed twice" -- dup.sweep
sweep same.sweep 'axes = ( { name = "c"; values = (' '  { name = "x"; },' '  { name = "y"; } ); } );'
bad same-points 3 "same.sweep:5: points 'bfs__c=x' and 'bfs__c=y' run the same configuration" -- \
	same.sweep
sweep big.sweep 'axes = (' '  { key = "sim.seed"; values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; },' \
	'  { key = "gtsc.lease"; values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; },' \
	'  { key = "core.warps"; values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; },' \
	"  { key = \"gpu.sms\"; values = [$(seq -s, 1 101)]; }" ');'
bad too-many-points 3 "big.sweep:7: more than 100000 points, the limit of a sweep" -- big.sweep
sweep int.sweep 'axes = ( { key = "sim.seed"; values = [5000000000]; } );'
bad big-int 3 "int.sweep:3: integer 5000000000 needs the L suffix" -- int.sweep
bad missing-file 3 "nothere.sweep: cannot open" -- nothere.sweep
bad cmdline-set 3 "--set gtsc.leas=3: unknown key" -- kill.sweep --set gtsc.leas=3
bad cmdline-set-axis 2 "--set coherence.protocol=none: 'coherence.protocol' is an axis" -- \
	kill.sweep --set coherence.protocol=none
bad jobs-zero 2 "--jobs 0" -- kill.sweep --jobs 0
"$BIN" sweep kill.sweep >/dev/null 2>err
[ $? -eq 2 ] && grep -q "\-o DIR is required" err || fail "sweep without -o: $(cat err)"

# ---- GNU parallel and Slurm --------------------------------------------------------------------

"$BIN" sweep sw/test.sweep -o par --emit-jobs jobs.txt -q 2>err || fail "--emit-jobs: $(cat err)"
[ "$(wc -l <jobs.txt)" -eq 18 ] || fail "--emit-jobs: $(wc -l <jobs.txt) lines, expected 18"
[ "$(ls par/points | wc -l)" -eq 0 ] || fail "--emit-jobs ran points"
grep -q '^#SBATCH --array=0-17$' jobs.txt.slurm || fail "Slurm script: no --array=0-17"
"$BIN" collect par >collect0.out 2>collect0.err
[ $? -eq 1 ] && grep -q "18 of 18 points missing" collect0.err || fail "collect before the jobs ran"
grep -c ',missing,' par/results.csv | grep -qx 18 || fail "collect: not 18 missing rows"
if command -v parallel >/dev/null; then
	parallel -S : -j2 <jobs.txt >par.out 2>par.err || fail "parallel: status $?: $(cat par.err)"
	"$BIN" collect par -q 2>err || fail "collect after parallel: $(cat err)"
	for f in results.csv results.json; do
		cmp -s pool2/$f par/$f || fail "GNU parallel + collect: $f differs from the local pool's"
	done
else
	echo "SKIP GNU parallel: not installed (scripts/install-deps.sh installs it)"
fi

"$BIN" sweep sw/test.sweep -o slurm --emit-jobs sjobs -q 2>err || fail "--emit-jobs: $(cat err)"
for i in $(seq 0 17); do
	SLURM_ARRAY_TASK_ID=$i bash sjobs.slurm || fail "Slurm task $i: status $?"
done
SLURM_ARRAY_TASK_ID=18 bash sjobs.slurm 2>err
[ $? -eq 2 ] && grep -q "no line 19" err || fail "Slurm task 18 (none): $(cat err)"
bash sjobs.slurm 2>/dev/null && fail "Slurm script without SLURM_ARRAY_TASK_ID succeeded"
"$BIN" collect slurm -q 2>err || fail "collect after Slurm tasks: $(cat err)"
for f in results.csv results.json; do
	cmp -s pool2/$f slurm/$f || fail "Slurm tasks + collect: $f differs from the local pool's"
done

# --emit-jobs --resume: only what is not done
rm slurm/points/$(sed -n 3p order.out | cut -d' ' -f1).json
rm slurm/points/$(sed -n 18p order.out | cut -d' ' -f1).json
"$BIN" sweep sw/test.sweep -o slurm --resume --emit-jobs rjobs -q 2>err ||
	fail "--emit-jobs --resume: $(cat err)"
[ "$(wc -l <rjobs)" -eq 2 ] && grep -q '^#SBATCH --array=0-1$' rjobs.slurm ||
	fail "--emit-jobs --resume: $(wc -l <rjobs) jobs, expected 2"

# ---- collect errors ------------------------------------------------------------------------------

mkdir nomanifest
"$BIN" collect nomanifest 2>err
[ $? -eq 3 ] && grep -q "manifest.json: cannot open" err || fail "collect without manifest: $(cat err)"
"$BIN" collect nothere 2>err
[ $? -eq 3 ] || fail "collect of a missing directory: $(cat err)"
"$BIN" collect 2>err
[ $? -eq 2 ] || fail "collect without a directory: $(cat err)"
"$BIN" help sweep | grep -q "emit-jobs" || fail "help sweep"
"$BIN" collect --help | grep -q "usage: cohscope collect" || fail "collect --help"

exit $((fails > 0))
