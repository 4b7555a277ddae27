#!/usr/bin/env python3
"""Check CACTI's 40 and 28 nm results (interpolated between 45/32 and 32/22 nm) against the
neighbouring nodes: for every array (row `array` cache/data/tag of a cache run; the one array of a
ram/cam run) present at all three nodes, is the value at 40 (28) nm between those at 45 and 32
(32 and 22) nm? Split by whether CACTI chose the same organisation (Ndwl, Ndbl, Nspd, bitline mux,
sense-amp muxes; from the DUMP lines of out/txt) for that array at the three nodes.

  interp_check.py CSV OUT_DIR > interp-check.txt
"""
import collections
import csv
import os
import re
import sys

COLS = ["read_nj", "write_nj", "leakage_mw", "sub_leakage_mw", "gate_leakage_mw", "access_ns",
        "cycle_ns", "area_mm2", "search_nj"]
TRIPLES = ((40, 45, 32), (28, 32, 22))


def orgs(out, run, cache):
    if run not in cache:
        res = {}
        for line in open(os.path.join(out, "txt", run + ".txt"), errors="replace"):
            if line.startswith("DUMP array=data") or line.startswith("DUMP array=tag"):
                kv = dict(p.split("=", 1) for p in line[5:].split())
                res[kv["array"]] = tuple(kv.get(k) for k in
                                         ("Ndwl", "Ndbl", "Nspd", "deg_bl_mux", "Ndsam1", "Ndsam2"))
        cache[run] = res
    return cache[run]


def main():
    csv_path, out = sys.argv[1:3]
    strip = lambda s: re.sub(r"^n\d+_", "", s)
    table = collections.defaultdict(dict)
    for r in csv.DictReader(open(csv_path)):
        table[(strip(r["run"]), r["array"], strip(r["fallback_for"]))][int(r["node_nm"])] = r
    cache = {}
    count = collections.Counter()
    outside = []
    for key in sorted(table):
        d = table[key]
        for mid, lo, hi in TRIPLES:
            if not all(n in d for n in (mid, lo, hi)):
                continue
            if key[1] == "cache":
                same = all(orgs(out, d[mid]["run"], cache) == orgs(out, d[n]["run"], cache)
                           for n in (lo, hi))
            else:
                o = [orgs(out, d[n]["run"], cache).get(key[1]) for n in (lo, mid, hi)]
                same = o[0] == o[1] == o[2]
            for c in COLS:
                if d[mid][c] == "":
                    continue
                a, v, b = (float(d[n][c]) for n in (lo, mid, hi))
                ok = min(a, b) <= v <= max(a, b)
                count[(mid, key[1], c, same, ok)] += 1
                if not ok:
                    outside.append((mid, key[1], c, same, d[mid]["run"], d[mid]["geometry"], a, v, b))
    print("# node array column same_org_at_3_nodes: inside/total")
    keys = sorted({k[:4] for k in count})
    for k in keys:
        ins, tot = count[k + (True,)], count[k + (True,)] + count[k + (False,)]
        print("%d %s %s %s: %d/%d" % (k[0], k[1], k[2], "same_org" if k[3] else "org_differs",
                                     ins, tot))
    print("\n# values outside their neighbours: node array column same_org run geometry "
          "lo_node_value mid_value hi_node_value")
    for o in outside:
        print("%d %s %s %s %s %s %.6g %.6g %.6g" % (o[0], o[1], o[2],
              "same_org" if o[3] else "org_differs", o[4], o[5], o[6], o[7], o[8]))


if __name__ == "__main__":
    main()
