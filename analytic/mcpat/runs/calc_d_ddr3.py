# DDR3-1000 DQ termination with energydram (gaomy3832/energydram@09f6655), the package's DDR3
# test resistances (Micron DDR3_Power_Calc.xlsm defaults, test_termination.py:117-123), SSTL
# (level 'mid': current flows for 0s and 1s), 1 rank, 1.0 Gb/s per pin.
import sys; sys.path.insert(0, '/work/runs/mcpat/energydram')
import energydram as ed
r = ed.TermResistance(rz_dev=34, rz_mc=34, rtt_nom=40, rtt_wr=30, rtt_mc=60, rs=15)
for ranks in (2, 1):
    t = ed.Termination(1.5, ranks, r, level='mid')
    rd, wr = t.read_power_total(), t.write_power_total()
    print(f"DDR3 {ranks} rank(s): read {rd*1e3:.3f} mW/pin, write {wr*1e3:.3f} mW/pin; at 1.0 Gb/s: read {rd/1e9*1e12:.3f} pJ/bit, write {wr/1e9*1e12:.3f} pJ/bit")
