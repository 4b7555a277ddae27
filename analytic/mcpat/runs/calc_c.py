# Section (c): Penryn per-committed-instruction core dynamic energy excl. L1I/L1D, and core leakage excl. L1s
import re,sys
def block(txt, header, start=0):
    i = txt.index(header, start)
    seg = txt[i:i+900]
    g = lambda k: float(re.search(k+r' = ([-0-9.e+]+)', seg).group(1))
    return dict(rt=g('Runtime Dynamic'), sub=g('Subthreshold Leakage'), gate=g('Gate Leakage'), peak=g('Peak Dynamic')), i
cycles, clock, insts = 100000, 2.6e9, 400000   # Penryn.xml lines 141 (core total_cycles), 41 (clock_rate 2600), 135 (committed_instructions)
T = cycles/clock
print(f"T = {cycles}/{clock:g} = {T:.6e} s; committed instructions = {insts}")
for f in sys.argv[1:]:
    txt = open(f).read()
    node = re.search(r'Technology (\d+) nm', txt).group(1)
    core, ci = block(txt, '\nCore:')
    ic, _ = block(txt, 'Instruction Cache:', ci)
    dc, _ = block(txt, 'Data Cache:', ci)
    l2, _ = block(txt, 'Total L2s:')
    rt = core['rt'] - ic['rt'] - dc['rt']
    E = rt*T/insts
    leak_core = core['sub'] + core['gate']; leak_l1 = ic['sub']+ic['gate']+dc['sub']+dc['gate']
    print(f"[{node} nm] {f}")
    print(f"  core RT {core['rt']} - L1I RT {ic['rt']} - L1D RT {dc['rt']} = {rt:.6g} W")
    print(f"  E/inst = {rt:.6g} W x {T:.6e} s / {insts} = {E*1e9:.4f} nJ  (incl. L1s: {core['rt']*T/insts*1e9:.4f} nJ)")
    print(f"  core leakage (sub {core['sub']} + gate {core['gate']}) = {leak_core:.6g} W; minus L1I ({ic['sub']}+{ic['gate']}) and L1D ({dc['sub']}+{dc['gate']}) = {leak_core-leak_l1:.6g} W")
    print(f"  L2 (6 MB shared) leakage {l2['sub']}+{l2['gate']} = {l2['sub']+l2['gate']:.6g} W; RT {l2['rt']} W")
    for m in re.finditer(r'COH (.*)', txt): print('  ', m.group(1))
