# Section (d): DRAM I/O termination power per pin and energy per bit, with energydram
# (gaomy3832/energydram@09f66553d66852d891e511b1e27c1cf9fd9e04ea, energydram/termination.py)
import sys; sys.path.insert(0, '/work/runs/mcpat/energydram')
import energydram as ed
def report(tag, vdd, ranks, r, rate, **kw):
    t = ed.Termination(vdd, ranks, r, **kw)
    rd = t.read_power_total(); wr = t.write_power_total()
    print(f"{tag}: per pin (width=0) read: MC {t.read_power_memctlr()*1e3:.3f} mW, target rank {t.read_power_target_rank()*1e3:.3f} mW, other ranks {t.read_power_other_ranks()*1e3:.3f} mW, total {rd*1e3:.3f} mW")
    print(f"{tag}: per pin (width=0) write: MC {t.write_power_memctlr()*1e3:.3f} mW, target rank {t.write_power_target_rank()*1e3:.3f} mW, other ranks {t.write_power_other_ranks()*1e3:.3f} mW, total {wr*1e3:.3f} mW")
    print(f"{tag}: at {rate/1e9:g} Gb/s/pin: read {rd/rate*1e12:.3f} pJ per driven-low bit, {0.5*rd/rate*1e12:.3f} pJ/bit at 50% zeros; write {wr/rate*1e12:.3f} / {0.5*wr/rate*1e12:.3f} pJ/bit")
# 1) reproduce the package's DDR4 unit test (Micron DDR4_Power_Calc.xlsm default, RTTu2=40 for write): 2 ranks
r_ddr4 = ed.TermResistance(rz_dev=34, rz_mc=34, rtt_nom=40, rtt_wr=120, rtt_mc=120, rs=10)
report("DDR4-2400 2 ranks (test_termination.py:228-263 values)", 1.2, 2, r_ddr4, 2.4e9, level='high')
# 2) same resistances, 1 rank (cohscope DDR4 channel has one rank) -- our configuration choice
report("DDR4-2400 1 rank (same R, rankcnt=1)", 1.2, 1, r_ddr4, 2.4e9, level='high')
# 3) GDDR5 unit test resistances (\"Kenta & Makoto Excel sheet\"), 2 ranks, as in the test, single pin
r_g5 = ed.TermResistance(rz_dev=40, rz_mc=40, rtt_nom=60, rtt_wr=60, rtt_mc=60, rs=15)
report("GDDR5 2 ranks (test_termination.py:302-333 values), GTX480 3.696 Gb/s/pin", 1.5, 2, r_g5, 3.696e9, level='high')
report("GDDR5 1 rank (point-to-point), GTX480 3.696 Gb/s/pin", 1.5, 1, r_g5, 3.696e9, level='high')
# check test value reproduction (x32 device with DBI)
t = ed.Termination(1.5, 2, r_g5, width=32, with_dqs=False, with_dm=False, with_dbi=True, level='high')
print(f"check GDDR5 x32 test: read target rank {t.read_power_target_rank()*1e3:.1f} mW (test expects 317.2)")
