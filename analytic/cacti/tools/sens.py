#!/usr/bin/env python3
"""Sensitivity of the GPU L1, L2-bank and APU LLC results to the CACTI settings that are a choice.

  sens.py SRC_DIR OUT_DIR DUMP_BIN CSV
Takes the table's own .cfg of gpu_l1, gpu_l2_bank and apu_llc at 45 and 32 nm (OUT_DIR/cfg), changes one
setting at a time, runs cacti_dump (2 at a time) and writes CSV.
"""
import concurrent.futures as cf
import os
import re
import subprocess
import sys

BASES = {"gpu_l1": "cache_s16384_b128_a4_o1024_td", "gpu_l2_bank": "cache_s131072_b128_a8_o1024_td",
         "apu_llc": "cache_s16777216_b64_a16_o512_td"}
NODES = [45, 32]
# (variant, [(line regex, replacement)])
SIG = r"^-Wire signaling.*"
VARIANTS = [
    ("as in the table", []),
    ("Wire signaling Global (delay-optimal repeaters)", [(SIG, '-Wire signaling (fullswing, lowswing, default) - "Global"')]),
    ("Wire signaling default (CACTI may pick low-swing)", [(SIG, '-Wire signaling (fullswing, lowswing, default) - "default"')]),
    ("Wire inside/outside mat semi-global (shipped)", [(r"^-Wire inside mat.*", '-Wire inside mat - "semi-global"'),
                                                       (r"^-Wire outside mat.*", '-Wire outside mat - "semi-global"')]),
    ("Optimize ED (not ED^2)", [(r"^-Optimize ED or ED\^2.*", '-Optimize ED or ED^2 (ED, ED^2, NONE): "ED"')]),
    ("Optimize NONE; objective dynamic energy 0:100:0:0:0; deviate 100:100000:100000:100000:100000",
     [(r"^-Optimize ED or ED\^2.*", '-Optimize ED or ED^2 (ED, ED^2, NONE): "NONE"'),
      (r"^-design objective.*", "-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:100:0:0:0"),
      (r"^-deviate.*", "-deviate (delay, dynamic power, leakage power, cycle time, area) 100:100000:100000:100000:100000")]),
    ("Add ECC false", [(r"^-Add ECC.*", '-Add ECC - "false"')]),
    ("output/input bus width 512", [(r"^-output/input bus width.*", "-output/input bus width 512")]),
    ("output/input bus width 256", [(r"^-output/input bus width.*", "-output/input bus width 256")]),
    ("access mode sequential", [(r"^-access mode.*", '-access mode (normal, sequential, fast) - "sequential"')]),
    ("access mode fast", [(r"^-access mode.*", '-access mode (normal, sequential, fast) - "fast"')]),
    ("temperature 360 K (shipped)", [(r"^-operating temperature.*", "-operating temperature (K) 360")]),
    ("cells itrs-lstp (data and tag); peripheral itrs-hp",
     [(r"^-Data array cell type.*", '-Data array cell type - "itrs-lstp"'),
      (r"^-Tag array cell type.*", '-Tag array cell type - "itrs-lstp"')]),
    ("cells and peripheral itrs-lstp (data and tag)",
     [(r"^-Data array cell type.*", '-Data array cell type - "itrs-lstp"'),
      (r"^-Tag array cell type.*", '-Tag array cell type - "itrs-lstp"'),
      (r"^-Data array peripheral type.*", '-Data array peripheral type - "itrs-lstp"'),
      (r"^-Tag array peripheral type.*", '-Tag array peripheral type - "itrs-lstp"')]),
]


def run(src, dump, cfg):
    p = subprocess.run([dump, "-infile", cfg], cwd=src, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("DUMP array=total"):
            return dict(kv.split("=", 1) for kv in line[5:].split())
    return None


def main():
    src, out, dump, csv_path = [os.path.abspath(a) for a in sys.argv[1:5]]
    sdir = os.path.join(out, "sens")
    os.makedirs(sdir, exist_ok=True)
    tasks = []
    for gid, base in BASES.items():
        for node in NODES:
            text = open(os.path.join(out, "cfg", "n%d_%s.cfg" % (node, base)), newline="").read()
            nl = "\r\n" if "\r\n" in text else "\n"
            for i, (name, subs) in enumerate(VARIANTS):
                lines = text.split(nl)
                for rx, new in subs:
                    hits = [k for k, l in enumerate(lines) if re.match(rx, l)]
                    assert len(hits) == 1, (rx, hits)
                    lines[hits[0]] = new
                cfg = os.path.join(sdir, "n%d_%s_v%02d.cfg" % (node, gid, i))
                open(cfg, "w", newline="").write(nl.join(lines))
                tasks.append((gid, node, name, cfg))
    with cf.ThreadPoolExecutor(2) as ex:
        res = list(ex.map(lambda t: run(src, dump, t[3]), tasks))
    with open(csv_path, "w") as f:
        f.write("geometry,node_nm,variant,read_nj,write_nj,leakage_mw,access_ns,area_mm2\n")
        for (gid, node, name, cfg), r in zip(tasks, res):
            if r is None:
                f.write('%s,%d,"%s",refused,,,,\n' % (gid, node, name))
            else:
                f.write('%s,%d,"%s",%.4g,%.4g,%.4g,%.4g,%.4g\n' % (
                    gid, node, name, float(r["read_nj"]), float(r["write_nj"]),
                    float(r["sub_leak_mw"]) + float(r["gate_leak_mw"]), float(r["access_ns"]),
                    float(r["area_mm2"])))


if __name__ == "__main__":
    main()
