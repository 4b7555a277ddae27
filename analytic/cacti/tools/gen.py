#!/usr/bin/env python3
"""Generate the CACTI 7 input files for cohscope's cache/SRAM geometries and the size sweep.

Every .cfg is CACTI's shipped cache.cfg (src/cache.cfg) with the lines below replaced (and
nothing else changed), so the settings not listed here are the shipped ones.

  gen.py SRC_DIR OUT_DIR   -> OUT_DIR/cfg/<run>.cfg and OUT_DIR/jobs.tsv
"""
import os
import re
import sys

# 40 and 28 nm are not in CACTI's tech_params/: CACTI interpolates linearly between the
# neighbouring nodes (45/32, 32/22; parameter.cc find_upper_and_lower_tech, README).
NODES_ALL = [90, 65, 45, 40, 32, 28, 22, 16]   # 16 nm is tried and refused by CACTI 7 (README)
NODES_SWEEP = [45, 40, 32, 28, 22]
KB = 1024

# ---------------------------------------------------------------------------------------------
# The geometries of configs/ (geometries.md gives file and key of each).
# (id, cacti type, size B, line/block B, assoc, out bits, tag bits or None = CACTI default,
#  search ports (cam only), note)
GEOMS = [
    # system gpu: configs/gtsc-16sm-gpu.cfg (default.cfg, gtsc-16sm.cfg) and gtx480-15sm.cfg
    ("gpu_l1",            "cache", 16 * KB, 128, 4, 1024, None, 0, ""),
    ("gpu_l2_bank",       "cache", 128 * KB, 128, 8, 1024, None, 0, ""),
    # the same arrays with a narrower data port: 64 B (half a line) or 32 B (one sector:
    # core.coalesce = "sector"; energy.md charges a whole line whatever the access size).
    # CACTI's energy is very sensitive to the port width (README, "Sensitivity").
    ("gpu_l1_out512",     "cache", 16 * KB, 128, 4, 512, None, 0, ""),
    ("gpu_l2_bank_out512", "cache", 128 * KB, 128, 8, 512, None, 0, ""),
    ("gpu_l1_out256",     "cache", 16 * KB, 128, 4, 256, None, 0, ""),
    ("gpu_l2_bank_out256", "cache", 128 * KB, 128, 8, 256, None, 0, ""),
    # configs/hlrc-128cu.cfg
    ("hlrc_l1",           "cache", 16 * KB, 64, 16, 512, None, 0, ""),
    ("hlrc_l2_bank",      "cache", 128 * KB, 64, 16, 512, None, 0, ""),
    ("hlrc_icache",       "cache", 32 * KB, 64, 8, 512, None, 0, "not modelled by cohscope"),
    # configs/apu-2200g*.cfg (tcp, tcc, corepair, dir, llc defaults: docs/configuration.md)
    ("apu_tcp",           "cache", 16 * KB, 64, 16, 512, None, 0, ""),
    ("apu_tcc_slice",     "cache", 256 * KB, 64, 16, 512, None, 0, ""),
    ("apu_sqc",           "cache", 32 * KB, 64, 8, 512, None, 0, "not modelled by cohscope"),
    ("corepair_l1d",      "cache", 64 * KB, 64, 2, 512, None, 0, ""),
    ("corepair_l1i",      "cache", 32 * KB, 64, 2, 512, None, 0, ""),
    ("corepair_l2",       "cache", 2048 * KB, 64, 8, 512, None, 0, ""),
    ("apu_llc",           "cache", 16384 * KB, 64, 16, 512, None, 0, ""),
    ("apu_llc_1mb",       "cache", 1024 * KB, 64, 16, 512, None, 0, "hsc-llc.sweep"),
    ("apu_llc_4mb",       "cache", 4096 * KB, 64, 16, 512, None, 0, "hsc-llc.sweep"),
    # directory cache: dir.entries x 1 B, 32-way; tag = a 64-B line address' tag
    # (42-bit address - log2(sets) - 6) + CACTI's 5 extra (status) bits
    ("apu_dir",           "cache", 262144, 1, 32, 8, 28, 0, "dir.tracking != none only"),
    ("apu_dir_65536",     "cache", 65536, 1, 32, 8, 30, 0, "hsc-dirsize.sweep"),
    ("apu_dir_16384",     "cache", 16384, 1, 32, 8, 32, 0, "hsc-dirsize.sweep"),
    ("apu_dir_4096",      "cache", 4096, 1, 32, 8, 34, 0, "hsc-dirsize.sweep"),
    # GPU timestamp / lease arrays beside gpu_l1 / gpu_l2_bank (separate RAMs)
    # L1: a set's timestamps read with its tags: 4 ways x 32 bits (gtsc wts+rts 2x16, tc-strong
    # one 32-bit lease end) or 4 x 64 bits (tc-weak: lease end + visibility time)
    ("gpu_l1_ts32",       "ram", 128 * 4, 16, 1, 128, None, 0, "gtsc, tc-strong"),
    ("gpu_l1_ts64",       "ram", 128 * 8, 32, 1, 256, None, 0, "tc-weak"),
    # L2 bank: one line's timestamps (1024 lines)
    ("gpu_l2_ts32",       "ram", 1024 * 4, 4, 1, 32, None, 0, "gtsc, tc-strong"),
    ("gpu_l2_ts64",       "ram", 1024 * 8, 8, 1, 64, None, 0, "tc-weak"),
    # per-warp tables: gtsc warp_ts (48 warps x 16 bits), tc-weak GWCT (48 x 32 bits)
    ("gpu_warp_ts",       "ram", 48 * 2, 2, 1, 16, None, 0, "gtsc"),
    ("gpu_gwct",          "ram", 48 * 4, 4, 1, 32, None, 0, "tc-weak"),
    # MSHRs as CAMs searched by line address: entries x 8 B payload (assumed), CACTI's
    # default CAM tag (48 bits). 32 and 64 are the configs' values; 8, 16, 128 other settings
    # of l1.mshrs / l2.mshrs a user may choose.
    ("gpu_mshr8",         "cam", 8 * 8, 8, 0, 64, None, 1, "mshrs = 8 (option)"),
    ("gpu_mshr16",        "cam", 16 * 8, 8, 0, 64, None, 1, "mshrs = 16 (option)"),
    ("gpu_mshr32",        "cam", 32 * 8, 8, 0, 64, None, 1, "l1.mshrs / l2.mshrs = 32"),
    ("gpu_mshr64",        "cam", 64 * 8, 8, 0, 64, None, 1, "gtx480-15sm l1.mshrs = 64"),
    ("gpu_mshr128",       "cam", 128 * 8, 8, 0, 64, None, 1, "mshrs = 128 (option)"),
]

# doubled-size GPU L1 and L2-bank geometries
DOUBLED = [
    ("gpu_l1_x2",         "cache", 32 * KB, 128, 4, 1024, None, 0, "doubled"),
    ("gpu_l2_bank_x2",    "cache", 256 * KB, 128, 8, 1024, None, 0, "doubled"),
    ("hlrc_l1_x2",        "cache", 32 * KB, 64, 16, 512, None, 0, "doubled"),
    ("hlrc_l2_bank_x2",   "cache", 256 * KB, 64, 16, 512, None, 0, "doubled"),
    ("apu_tcc_slice_x2",  "cache", 512 * KB, 64, 16, 512, None, 0, "doubled"),
]


SWEEP_LINES = (32, 64, 128)
SWEEP_ASSOCS = (1, 2, 4, 8, 16, 32)
SWEEP_SIZES = (1 * KB, 16384 * KB)   # powers of two from .. to


def sweep():
    """The size sweep: what a user may configure for a GPU/CPU cache (port = the line)."""
    out = []
    for line in SWEEP_LINES:
        for assoc in SWEEP_ASSOCS:
            size = SWEEP_SIZES[0]
            while size <= SWEEP_SIZES[1]:
                out.append(("sweep", "cache", size, line, assoc, line * 8, None, 0, "sweep"))
                size *= 2
    return out


# Settings replaced in the shipped cache.cfg (regex of the line -> new line).
def settings(node, ctype, size, block, assoc, out_bits, tag, search, mode):
    s = [
        (r"^-size \(bytes\)", "-size (bytes) %d" % size),
        (r"^-block size \(bytes\)", "-block size (bytes) %d" % block),
        (r"^-associativity", "-associativity %d" % assoc),
        (r"^-read-write port", "-read-write port 1"),
        (r"^-exclusive read port", "-exclusive read port 0"),
        (r"^-exclusive write port", "-exclusive write port 0"),
        (r"^-single ended read ports", "-single ended read ports 0"),
        (r"^-UCA bank count", "-UCA bank count 1"),
        (r"^-technology \(u\)", "-technology (u) %.3f" % (node / 1000.0)),
        (r"^-Data array cell type", '-Data array cell type - "itrs-hp"'),
        (r"^-Data array peripheral type", '-Data array peripheral type - "itrs-hp"'),
        (r"^-Tag array cell type", '-Tag array cell type - "itrs-hp"'),
        (r"^-Tag array peripheral type", '-Tag array peripheral type - "itrs-hp"'),
        (r"^-output/input bus width", "-output/input bus width %d" % out_bits),
        (r"^-operating temperature \(K\)", "-operating temperature (K) 350"),
        (r"^-cache type", '-cache type "%s"' % ctype),
        (r"^-tag size \(b\)", '-tag size (b) "default"' if tag is None else "-tag size (b) %d" % tag),
        (r"^-access mode", '-access mode (normal, sequential, fast) - "%s"' % mode),
        (r"^-Cache model", '-Cache model (NUCA, UCA)  - "UCA"'),
        (r"^-Wire signaling", '-Wire signaling (fullswing, lowswing, default) - "Global_30"'),
        (r"^-Wire inside mat", '-Wire inside mat - "global"'),
        (r"^-Wire outside mat", '-Wire outside mat - "global"'),
        (r"^-Print level", '-Print level (DETAILED, CONCISE) - "DETAILED"'),
        (r"^-Print input parameters", '-Print input parameters - "true"'),
    ]
    return s


def render(template, node, ctype, size, block, assoc, out_bits, tag, search, mode):
    nl = "\r\n" if "\r\n" in template else "\n"
    lines = template.split(nl)
    for pat, new in settings(node, ctype, size, block, assoc, out_bits, tag, search, mode):
        rx = re.compile(pat)
        hit = [i for i, l in enumerate(lines) if rx.match(l)]
        if len(hit) != 1:
            raise SystemExit("template: %r matches %d lines" % (pat, len(hit)))
        lines[hit[0]] = new
    text = nl.join(lines)
    if ctype == "cam":
        # not in the shipped cache.cfg: CAMs need a search port
        text += nl + "# added for a CAM (not in the shipped cache.cfg)" + nl + "-search port %d" % search + nl
    return text


def ram_variants():
    """The data array alone, as CACTI models it (cache type "ram": no tag array, no way select,
    CACTI picks its own organisation): one per configuration cache geometry."""
    out = []
    for gid, ctype, size, block, assoc, out_bits, tag, search, note in GEOMS:
        if ctype == "cache" and block > 1 and out_bits == 8 * block:
            out.append((gid + "_ram", "ram", size, block, 1, out_bits, None, 0, "data alone"))
    return out


def run_name(node, ctype, size, block, assoc, out_bits, tag, mode):
    return "n%d_%s_s%d_b%d_a%d_o%d_t%s%s" % (node, ctype, size, block, assoc, out_bits,
                                            "d" if tag is None else tag,
                                            "" if mode == "normal" else "_" + mode)


HEADER = ("run\tnode_nm\tcache_type\tsize_bytes\tline_bytes\tassoc\tout_bits\ttag_bits\t"
          "search_ports\taccess_mode\tfallback_for\tgeometry\n")


def write_jobs(template, out, runs, jobs_file):
    cfgdir = os.path.join(out, "cfg")
    os.makedirs(cfgdir, exist_ok=True)
    with open(os.path.join(out, jobs_file), "w") as jf:
        jf.write(HEADER)
        for key in sorted(runs):
            name = key[0] if isinstance(key, tuple) else key
            p, gids, fb = runs[key]
            node, ctype, size, block, assoc, out_bits, tag, search, mode = p
            with open(os.path.join(cfgdir, name + ".cfg"), "w", newline="") as f:
                f.write(render(template, *p))
            jf.write("%s\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%s\t%s\n" % (
                name, node, ctype, size, block, assoc, out_bits,
                "default" if tag is None else tag, search, mode, fb, "+".join(gids)))
    return len(set(k[0] if isinstance(k, tuple) else k for k in runs))


def main():
    src, out = sys.argv[1], sys.argv[2]
    template = open(os.path.join(src, "cache.cfg"), newline="").read()
    runs = {}   # run name -> [params, [geometry ids], fallback_for]
    if len(sys.argv) == 3:
        # pass 1: every geometry as asked, normal access mode
        plan = ([(g, NODES_ALL) for g in GEOMS + DOUBLED + ram_variants()]
                + [(g, NODES_SWEEP) for g in sweep()])
        for g, nodes in plan:
            gid, ctype, size, block, assoc, out_bits, tag, search, note = g
            for node in nodes:
                name = run_name(node, ctype, size, block, assoc, out_bits, tag, "normal")
                if name not in runs:
                    runs[name] = [(node, ctype, size, block, assoc, out_bits, tag, search,
                                   "normal"), [], ""]
                if gid not in runs[name][1]:
                    runs[name][1].append(gid)
        n = write_jobs(template, out, runs, "jobs.tsv")
    else:
        # pass 2 (gen.py SRC OUT --fallback REFUSED_TSV): for every cache run CACTI refused
        # in normal access mode (at a node it supports: "no valid data array organizations
        # found" / "no valid tag organizations found" = too few sets for a mat of
        # MINSUBARRAYROWS rows, "Number of sets is too small"), the same geometry in
        # sequential access mode; and, for the configuration geometries (not for points that
        # are only in the size sweep, whose smaller associativities are sweep points
        # themselves), in normal mode with the associativity halved, quartered, ... down to 2
        # when the refusal was an organisation one (parse.py keeps the largest one CACTI
        # accepts).
        import csv
        jobs = {j["run"]: j for j in csv.DictReader(open(os.path.join(out, "jobs.tsv")),
                                                    delimiter="\t")}
        for r in csv.DictReader(open(sys.argv[4]), delimiter="\t"):
            if "Invalid technology" in r["cacti_says"]:
                continue
            j = jobs[r["run"]]
            if j["cache_type"] != "cache":
                continue
            node, size, block = int(j["node_nm"]), int(j["size_bytes"]), int(j["line_bytes"])
            assoc, out_bits = int(j["assoc"]), int(j["out_bits"])
            tag = None if j["tag_bits"] == "default" else int(j["tag_bits"])
            gids = j["geometry"].split("+")
            cands = [(assoc, "sequential")]
            a = assoc // 2
            while (a >= 2 and gids != ["sweep"]
                   and "organizations found" in r["cacti_says"]):
                cands.append((a, "normal"))
                a //= 2
            for a, mode in cands:
                name = run_name(node, "cache", size, block, a, out_bits, tag, mode)
                # one row per (run, refused run it stands in for): a run can stand in for
                # several (it is written and run once)
                runs[(name, r["run"])] = [(node, "cache", size, block, a, out_bits, tag, 0,
                                           mode), gids, r["run"]]
        n = write_jobs(template, out, runs, "fallback-jobs.tsv")
    print("%d runs" % n)


if __name__ == "__main__":
    main()
