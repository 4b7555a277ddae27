#!/usr/bin/env python3
"""Parse the cacti_dump outputs of run.sh into cacti-table.csv (and refused.tsv).

  parse.py OUT_DIR CSV REFUSED_TSV
"""
import csv
import math
import os
import re
import sys

ADDRESS_BITS, EXTRA_TAG_BITS = 42, 5   # CACTI 7 const.h


def log2floor(n):
    return int(math.floor(math.log2(n)))


def tag_bits(job):
    t = job["tag_bits"]
    if job["cache_type"] == "ram":
        return ""
    if job["cache_type"] == "cam":   # parameter.cc: a CAM's tag rounded up to bytes
        w = int(t) if t != "default" else ADDRESS_BITS + EXTRA_TAG_BITS
        return str(int(math.ceil(w / 8.0) * 8))
    if t != "default":
        return t
    # parameter.cc DynamicParameter: 42 + 5 - log2(capacity) + log2(2 * assoc - 1) (floors)
    return str(ADDRESS_BITS + EXTRA_TAG_BITS - log2floor(int(job["size_bytes"]))
               + log2floor(2 * int(job["assoc"]) - 1))


COLS = ["node_nm", "size_bytes", "assoc", "line_bytes", "banks", "ports", "array",
        "read_nj", "write_nj", "leakage_mw", "access_ns", "area_mm2",
        # extra columns
        "sub_leakage_mw", "gate_leakage_mw", "search_nj", "cycle_ns", "cache_type", "out_bits",
        "tag_bits", "access_mode", "geometry", "fallback_for", "note", "run"]


def main():
    out, csv_path, ref_path = sys.argv[1:4]
    jobs = list(csv.DictReader(open(os.path.join(out, "jobs.tsv")), delimiter="\t"))
    fb_path = os.path.join(out, "fallback-jobs.tsv")
    fb_jobs = (list(csv.DictReader(open(fb_path), delimiter="\t"))
               if os.path.exists(fb_path) else [])
    rows, refused, versions = [], [], set()
    results = {}
    for job in jobs + fb_jobs:
        txt_path = os.path.join(out, "txt", job["run"] + ".txt")
        txt = open(txt_path, errors="replace").read() if os.path.exists(txt_path) else ""
        m = re.search(r"CACTI \(version ([^)]*)\)", txt)
        if m:
            versions.add(m.group(1))
        dumps = {}
        for line in txt.splitlines():
            if line.startswith("DUMP array="):
                kv = dict(p.split("=", 1) for p in line[5:].split())
                dumps[kv["array"]] = kv
        results[job["run"]] = dumps if "total" in dumps else None
        if job.get("fallback_for"):
            continue
        if "total" not in dumps:
            msg = [l.strip() for l in txt.splitlines()
                   if re.search(r"[Ii]nvalid|must|[Ee]rror|ERROR|too small|No valid", l)]
            refused.append((job["run"], job["node_nm"], job["cache_type"], job["size_bytes"],
                            job["line_bytes"], job["assoc"], job["out_bits"], job["geometry"],
                            " | ".join(msg[:3]) or "no result (see txt)"))
            continue
        emit(rows, job, dumps, "")
    # fallbacks: per refused run, the sequential-mode run and the largest accepted
    # associativity in normal mode
    jobs_by_run = {j["run"]: j for j in jobs}
    by_orig = {}
    for job in fb_jobs:
        by_orig.setdefault(job["fallback_for"], []).append(job)
    fallback_summary = []
    for orig, cands in sorted(by_orig.items()):
        seq = [j for j in cands if j["access_mode"] == "sequential"]
        nor = sorted([j for j in cands if j["access_mode"] == "normal" and results.get(j["run"])],
                     key=lambda j: -int(j["assoc"]))
        o = jobs_by_run[orig]
        what = "%s B %s-way %s B lines (%s), refused in normal mode" % (
            o["size_bytes"], o["assoc"], o["line_bytes"], o["geometry"])
        got = []
        for j in seq:
            if results.get(j["run"]):
                emit(rows, j, results[j["run"]], "fallback for " + what + ": same geometry, "
                     "sequential access mode")
                got.append("sequential")
            else:
                got.append("sequential refused too")
        if nor:
            j = nor[0]
            emit(rows, j, results[j["run"]], "fallback for " + what + ": %s-way (largest "
                 "associativity CACTI accepts), normal access mode" % j["assoc"])
            got.append("normal %s-way" % j["assoc"])
        elif any(j["access_mode"] == "normal" for j in cands):
            got.append("no smaller associativity accepted")
        fallback_summary.append((orig, o["node_nm"], what, "; ".join(got)))
    with open(os.path.join(out, "fallbacks.tsv"), "w") as f:
        f.write("refused_run\tnode_nm\twhat\tfallbacks\n")
        for r in fallback_summary:
            f.write("\t".join(r) + "\n")
    # refused.tsv: every run refused in normal mode, and what the table has instead
    instead = {}
    for orig, node, what, got in fallback_summary:
        parts = got.split("; ")
        seq = ("in the table in sequential access mode (fallback rows)"
               if parts[0] == "sequential" else "sequential mode refused too")
        nor = [p for p in parts[1:] if p.startswith("normal ")]
        if nor:
            seq += "; %s-way in normal mode (fallback rows)" % nor[0].split()[1].split("-")[0]
        elif parts[0] != "sequential":
            seq = "left out: " + seq
        instead[orig] = seq
    refused = [r + (instead.get(r[0], "left out"),) for r in refused]
    finish(rows, refused, versions, jobs, fb_jobs, csv_path, ref_path)


def emit(rows, job, dumps, note):
        if job["cache_type"] == "cache":
            arrays = [("cache", dumps["total"]), ("data", dumps["data"]), ("tag", dumps["tag"])]
        else:   # ram / cam: one array, no tag array (total == data)
            arrays = [("data", dumps["data"])]
        ports = "1rw" + ("+%ssearch" % job["search_ports"] if int(job["search_ports"]) else "")
        for name, d in arrays:
            sub, gate = float(d["sub_leak_mw"]), float(d["gate_leak_mw"])
            rows.append({
                "node_nm": job["node_nm"], "size_bytes": job["size_bytes"],
                "assoc": job["assoc"], "line_bytes": job["line_bytes"], "banks": 1,
                "ports": ports, "array": name,
                "read_nj": "%.6g" % float(d["read_nj"]),
                "write_nj": "%.6g" % float(d["write_nj"]),
                "leakage_mw": "%.6g" % (sub + gate),
                "access_ns": "%.6g" % float(d["access_ns"]),
                "area_mm2": "%.6g" % float(d["area_mm2"]),
                "sub_leakage_mw": "%.6g" % sub, "gate_leakage_mw": "%.6g" % gate,
                "search_nj": "%.6g" % float(d["search_nj"]) if job["cache_type"] == "cam" else "",
                "cycle_ns": "%.6g" % float(d["cycle_ns"]),
                "cache_type": job["cache_type"], "out_bits": job["out_bits"],
                "tag_bits": tag_bits(job) if name != "data" or job["cache_type"] == "cam" else "",
                "access_mode": job["access_mode"], "geometry": job["geometry"],
                "fallback_for": job["fallback_for"], "note": note, "run": job["run"],
            })


def finish(rows, refused, versions, jobs, fb_jobs, csv_path, ref_path):
    order = {"cache": 0, "data": 1, "tag": 2}
    rows.sort(key=lambda r: (int(r["node_nm"]), r["cache_type"], int(r["size_bytes"]),
                             int(r["line_bytes"]), int(r["assoc"]), int(r["out_bits"]),
                             r["access_mode"], r["fallback_for"], r["run"], order[r["array"]]))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        w.writerows(rows)
    with open(ref_path, "w") as f:
        f.write("run\tnode_nm\tcache_type\tsize_bytes\tline_bytes\tassoc\tout_bits\tgeometry\t"
                "cacti_says\tinstead\n")
        for r in refused:
            f.write("\t".join(r) + "\n")
    print("%d rows; %d pass-1 runs, %d refused; %d fallback runs; CACTI version(s): %s"
          % (len(rows), len(jobs), len(refused), len(fb_jobs), ", ".join(sorted(versions))))


if __name__ == "__main__":
    main()
