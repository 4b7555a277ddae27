#!/usr/bin/env bash
# tests/cli/traffic.sh BINARY SOURCE_DIR
#
# Traffic and the NoC's energy under every registered GPU protocol (issue 38). Each protocol runs
# stream, which moves data, at tiny size on 4 SMs of the 16-SM configuration (a mesh), once on
# the GPU's request/response face and, for the families that use it, on the one-way face of the
# scoped family; their networks name their vnets differently, so the result must come from what
# the network declares, not from a stat name (the scoped family reported 0 B before). Per run:
#   - noc_bytes > 0 and equal to the network's own byte counter (gpu.noc.bytes);
#   - the wires carry what the flits hold: flits x flit_bytes >= bytes > (flits - packets) x
#     flit_bytes (a packet's last flit may be part full, no other);
#   - noc_traffic by vnet kind adds up to the totals (packets, flits, bytes);
#   - the NoC's dynamic energy is router events x pJ + link events x pJ, and the router events
#     are the flits plus the link flits (a flit crosses hops + 1 routers and hops links).
. "$(dirname "$0")/lib.bash" "$@"

CFG=$SRC/configs/gtsc-16sm.cfg
mapfile -t protos < <("$BIN" list protocols | awk 'NR > 1 { print $1 }')
[ "${#protos[@]}" -ge 12 ] || fail "list protocols gave ${#protos[@]} protocols"

for p in "${protos[@]}"; do
	if ! timeout 120 "$BIN" run -c "$CFG" -w stream --mode detailed -q -o "$p.json" \
		--set workload.size=tiny --set gpu.sms=4 --set noc.flit_bytes=32 \
		--set coherence.protocol="$p" 2>"$p.err"; then
		fail "$p: run failed: $(cat "$p.err")"
		continue
	fi
	python3 - "$p" "$p.json" <<'EOF' || fail "$p: traffic or NoC energy (above)"
import json, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
r, s = d["result"], d["stats"]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
nb, pk, fl, by = r["noc_bytes"], s["gpu.noc.packets"], s["gpu.noc.flits"], s["gpu.noc.bytes"]
need(nb > 0, f"noc_bytes {nb}")
need(nb == by, f"noc_bytes {nb} != gpu.noc.bytes {by}")
need(r["traffic_bytes"] == nb, f"traffic_bytes {r['traffic_bytes']} != noc_bytes {nb}")
need(fl * 32 >= by > (fl - pk) * 32, f"{by} B in {fl} flits of {pk} packets")
kinds = r["noc_traffic"]
need("request" in kinds and "response" in kinds, f"kinds {sorted(kinds)}")
for key, tot in (("packets", pk), ("flits", fl), ("bytes", by)):
    got = sum(k[key] for k in kinds.values())
    need(got == tot, f"noc_traffic {key} add up to {got}, not {tot}")
ev = r["energy_events"]
rt, lk = ev["noc_router"], ev["noc_link"]
need(rt["count"] == fl + lk["count"], f"router events {rt['count']} != {fl} + {lk['count']}")
need(lk["count"] > 0, "no link flit on a mesh")
dyn = r["energy"]["noc"]["dynamic_j"]
want = (rt["count"] * rt["pj"] + lk["count"] * lk["pj"]) * 1e-12
need(dyn > 0 and abs(dyn - want) <= 1e-9 * want, f"NoC dynamic {dyn} J, want {want}")
for b in bad:
    print(f"  {name}: {b}")
sys.exit(1 if bad else 0)
EOF
done

exit $((fails > 0))
