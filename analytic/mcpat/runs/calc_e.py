# Section (e)/(b-crosscheck): HP McPAT 1.3 uncore runs (Penryn + 2 DDR4-2400 MCs + 5x5 NoC), differential per access
import re,os
T=100000/2.6e9
def sect(txt, header, keys=('Subthreshold Leakage','Gate Leakage','Runtime Dynamic')):
    i=txt.index(header); seg=txt[i:i+600]
    return [float(re.search(k+r' = ([-0-9.e+]+)',seg).group(1)) for k in keys]
for node in ['45','32','22']:
    a=f'penryn_uncore_{node}nm_100000.out'; b=f'penryn_uncore_{node}nm_200000.out'
    if not (os.path.exists(b) and 'Memory Controller:' in open(b).read()): continue
    A=open(a).read(); B=open(b).read()
    print(f"[{node} nm] T = 100000/2.6e9 = {T:.6e} s; accesses 100000 (A) vs 200000 (B), half reads half writes, 64 B each")
    for h in ['Memory Controller:','Front End Engine:','Transaction Engine:','PHY:']:
        sa,ga,ra=sect(A,h); sb,gb,rb=sect(B,h)
        e=(rb-ra)*T/100000
        print(f"  {h:22s} RT {ra:.6g} W -> {rb:.6g} W; per access ({rb:.6g}-{ra:.6g}) x {T:.4e} / 100000 = {e*1e12:.2f} pJ ({e/512*1e12:.3f} pJ/bit); leakage per MC {sa:.4g}+{ga:.4g} = {sa+ga:.4g} W; access-independent RT {ra-(rb-ra):.4g} W")
    s,g,r=sect(A,'Router:'); print(f"  Router (per router): leakage {s:.6g}+{g:.6g} = {s+g:.4g} W; RT {r} W -> {r*T/100000*1e12:.2f} pJ per flit")
    s,g,r=sect(A,'Per Router Links:'); print(f"  Per Router Links: leakage {s:.6g}+{g:.6g} W; RT {r} W -> {r*T/100000*1e12:.2f} pJ per flit")
    for m in re.finditer(r'COH (NOC.*)',A): print('  ',m.group(1))
