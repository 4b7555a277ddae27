#!/usr/bin/env bash
# tests/cli/pannotia.sh BINARY SOURCE_DIR
#
# Seed 004's Pannotia workloads on per-CTA work-stealing queues (workloads/pannotia.c): sssp,
# color and pagerank, each on its three inputs of the seed (Table 5) at size tiny, detailed, on
# configs/default.cfg (16 SMs), under gtsc and tc-weak (coherent; they perform work-group-scope
# atomics at the L2 like agent-scope ones, so even the scenarios with work-group scope verify),
# in all four scenarios: every run must exit 0 with its "verified" note, and the stealing
# scenarios must have stolen somewhere, and the balance and time notes must be consistent. Each
# steal-only run twice: the same results JSON (minus host timing). Chunk 32 and a 64-lane machine once each; DeNovo-B on the 128-CU system with
# a 32 KB L2 (evictions of registered data). Bad parameters: one located line.
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/default.cfg
RUN=(run -c "$C" --set workload.size=tiny --set system.mode=detailed -q)
declare -A inputs=([sssp]="usa-road-d.bay usa-road-d.col c-68"
	[color]="ecology1 coauthorsdblp dictionary28"
	[pagerank]="usa-road-d.bay c-68 opf_10000")

# notes FILE: the run's notes, one a line
notes() {
	python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["result"]["notes"]))' "$1"
}

# same A B: equal results JSON without the host's timing
same() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
def load(p):
    d = json.load(open(p))
    d.pop("host", None)
    return d
sys.exit(0 if load(sys.argv[1]) == load(sys.argv[2]) else 1)
EOF
}

steals=0
for w in sssp color pagerank; do
	for g in ${inputs[$w]}; do
		for p in gtsc tc-weak; do
			for sc in baseline scope-only steal-only rsp; do
				n=$w-$g-$p-$sc
				"$BIN" "${RUN[@]}" -w "$w" --set workload.graph="$g" \
					--set coherence.protocol="$p" --set workload.scenario="$sc" \
					-o "$n.json" >"$n.out" 2>"$n.err"
				st=$?
				[ $st -eq 0 ] || { fail "$n: status $st: $(cat "$n.err")"; continue; }
				notes "$n.json" >"$n.notes"
				grep -q "^$w: $g, .*verified" "$n.notes" || fail "$n: notes: $(cat "$n.notes")"
				grep -q "^wsq: $sc, 16 queues x 2 x 32 lanes, chunk 64" "$n.notes" ||
					fail "$n: no queue note: $(cat "$n.notes")"
				# the balance note: idle after the own queue (a share of the task
				# phases) bounds the idle while another queue still held a task
				awk '/^wsq balance: / { seen = 1; a = $5 + 0; b = $14 + 0;
					x = substr($22, 2) + 0;
					if (!(b <= a && a < 100 && x <= $24 && $24 > 0)) bad = 1 }
					END { exit !(seen && !bad) }' "$n.notes" ||
					fail "$n: balance note: $(grep balance "$n.notes")"
				s=$(sed -n 's/.* \([0-9]*\) steals, .*/\1/p' "$n.notes")
				# the time note: every work-group pops and runs; a steal's find and
				# run times are there exactly when something was stolen
				awk -v s="${s:-0}" '/^wsq time: / { seen = 1;
					if (!($9 > 0 && $29 > 0 && ($14 > 0) == (s > 0) &&
					      ($35 > 0) == (s > 0))) bad = 1 }
					END { exit !(seen && !bad) }' "$n.notes" ||
					fail "$n: time note: $(grep 'wsq time' "$n.notes")"
				case $sc in
				baseline | scope-only)
					[ "$s" = 0 ] || fail "$n: $s steals without stealing"
					;;
				*) steals=$((steals + ${s:-0})) ;;
				esac
				if [ "$sc" = steal-only ]; then
					"$BIN" "${RUN[@]}" -w "$w" --set workload.graph="$g" \
						--set coherence.protocol="$p" --set workload.scenario="$sc" \
						-o "$n.2.json" >/dev/null 2>&1 || fail "$n: second run failed"
					same "$n.json" "$n.2.json" || fail "$n: two runs differ"
				fi
			done
		done
	done
done
[ $steals -gt 0 ] || fail "no steal in any stealing run"

# a smaller chunk steals more; 64-lane wavefronts (chunk 128); the other victim policies
"$BIN" "${RUN[@]}" -w color --set workload.graph=c-68 --set workload.scenario=rsp \
	--set workload.chunk=32 --set workload.victim=sticky -o chunk.json >/dev/null 2>chunk.err ||
	fail "chunk 32: $(cat chunk.err)"
notes chunk.json | grep -q "^wsq: rsp, 16 queues x 2 x 32 lanes, chunk 32, sticky victim: .* [1-9][0-9]* steals" ||
	fail "chunk 32: $(notes chunk.json)"
"$BIN" "${RUN[@]}" -w sssp --set core.lanes=64 --set workload.scenario=steal-only \
	--set workload.victim=ring -o l64.json >/dev/null 2>l64.err || fail "64 lanes: $(cat l64.err)"
notes l64.json | grep -q "^wsq: steal-only, 16 queues x 2 x 64 lanes, chunk 128, ring victim" ||
	fail "64 lanes: $(notes l64.json)"

# DeNovo-B with its registered data overflowing a 32 KB L2 (1 KB a bank on the 128-CU system).
# pagerank: a read that reached memory while an evicted line's owner data was on its way there
# read stale ranks (1 783 of 2 048 wrong before sc_home parked it). color: a read forwarded to
# the owner just before the bank evicted the line went to memory ahead of the owner's data
# (1 of 2 025 colors wrong before it waited for the eviction's recall)
for w in pagerank color; do
	"$BIN" run -c "$SRC/configs/hlrc-128cu.cfg" -q -w $w --set workload.size=tiny \
		--set coherence.protocol=denovo-b --set workload.scenario=steal-only \
		--set l2.size_kib=1 -o l2small-$w.json >/dev/null 2>l2small-$w.err ||
		fail "$w, denovo-b, 32 KB L2: $(cat l2small-$w.err)"
done
# DeNovo-Rprio with a 1 KB L1 on 4 CUs: a line evicted while its StReg was out wrote its bytes
# back behind the GetR, whose answer registered a copy without them (color did not converge,
# pagerank on opf_10000 had every rank wrong, before the L1 chose such a line last)
for w in color:ecology1:baseline pagerank:opf_10000:steal-only sssp:usa-road-d.bay:baseline; do
	IFS=: read -r wl g sc <<<"$w"
	"$BIN" run -c "$SRC/configs/hlrc-128cu.cfg" -q -w "$wl" --set workload.size=tiny \
		--set workload.graph="$g" --set coherence.protocol=denovo-rprio \
		--set workload.scenario="$sc" --set gpu.sms=4 --set l1.size_kib=1 \
		-o l1small-$wl.json >/dev/null 2>l1small-$wl.err ||
		fail "$wl, denovo-rprio, 1 KB L1: $(cat l1small-$wl.err)"
done

# bad parameters: one line naming the key or the file, status 3, nothing written
mkdir bad && cd bad || exit 1
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 2 1.0\n5 1 2\n' >../bad.mtx
check_error 3 "--set workload.graph=road: not one of auto, usa-road-d.bay" "${RUN[@]}" -w sssp \
	--set workload.graph=road -o o.json
check_error 3 "--set workload.scenario=stealing: not one of baseline" "${RUN[@]}" -w color \
	--set workload.scenario=stealing -o o.json
check_error 3 "--set workload.victim=nearest: not one of random, ring, sticky" "${RUN[@]}" \
	-w pagerank --set workload.victim=nearest -o o.json
check_error 3 "--set workload.chunk=-1: " "${RUN[@]}" -w sssp --set workload.chunk=-1 -o o.json
check_error 3 "--set workload.graph_file=$T/nofile.gr: $T/nofile.gr: cannot open" "${RUN[@]}" -w sssp \
	--set workload.graph_file="$T/nofile.gr" -o o.json
check_error 3 "color: workload.graph_file: $T/bad.mtx:4: " "${RUN[@]}" -w color \
	--set workload.graph_file="$T/bad.mtx" -o o.json
check_error 3 "pagerank: workload.chunk = 1 makes 65536 tasks for one queue" run -c "$C" \
	-q -w pagerank --set workload.size=default --set workload.chunk=1 --set gpu.sms=1 -o o.json
cd .. || exit 1

# a real file: a small Matrix Market graph is read and verified
printf '%%%%MatrixMarket matrix coordinate integer symmetric\n4 4 4\n2 1 5\n3 2 1\n4 3 2\n4 1 9\n' >g.mtx
"$BIN" "${RUN[@]}" -w sssp --set workload.graph_file="$T/g.mtx" -o file.json >/dev/null 2>file.err ||
	fail "graph_file: $(cat file.err)"
notes file.json | grep -q "^sssp: g.mtx, 4 nodes, 8 entries, .*4 nodes reached, every distance verified" ||
	fail "graph_file: $(notes file.json)"

[ $fails -eq 0 ] && echo "pannotia: all passed"
exit $((fails > 0))
