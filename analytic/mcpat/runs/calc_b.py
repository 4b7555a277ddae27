# Section (b): per-flit router / link energies and router leakage from GPUWattch-McPAT NoC runs
import re
rows={}
for node in ['45','40','32','22']:
    try: t=open(f'gw_noc5x5_{node}nm.out').read()
    except: continue
    m=re.search(r'NOC router buffer_read_J (\S+) buffer_write_J (\S+) crossbar_J (\S+) arbiter_J (\S+) router_sub_leak_W (\S+) router_gate_leak_W (\S+) router_area_mm2 (\S+)',t)
    if not m: continue
    br,bw,xb,ar,sl,gl,area=map(float,m.groups())
    lc=float(re.search(r'router_longchan_sub_leak_W (\S+)',t).group(1))
    l=re.search(r'NOC link len_um (\S+) link_J_per_flit (\S+) link_sub_leak_W (\S+) link_gate_leak_W (\S+)',t)
    ll,lj,lsl,lgl=map(float,l.groups())
    llc=float(re.search(r'link_longchan_sub_leak_W (\S+)',t).group(1))
    chip=float(re.search(r'CHIP area_mm2 (\S+)',t).group(1))
    coeff=float(re.search(r'COEFF NOC_A,\s+raw_J_per_event (\S+)',t).group(1))
    r=br+bw+xb+ar
    rows[node]=dict(router=r,link46=lj*4600/ll,lpm=lj/(ll/1000),leak=lc+gl,leak_nolc=sl+gl)
    print(f"[{node} nm] chip area {chip} mm2; router per flit = buf rd {br*1e12:.3f} + buf wr {bw*1e12:.3f} + xbar {xb*1e12:.3f} + arb {ar*1e12:.3f} = {r*1e12:.2f} pJ (GPUWattch NOC_A raw coeff {coeff*1e12:.2f} pJ; x305.48 scaled = {coeff*305.48*1e12:.1f} pJ)")
    print(f"   link: McPAT length {ll:.1f} um, {lj*1e12:.2f} pJ/flit -> {lj/(ll/1000)*1e12:.2f} pJ/flit/mm = {lj/(ll/1000)/256*1e12:.4f} pJ/bit/mm; x4.6 mm = {lj*4600/ll*1e12:.1f} pJ/flit")
    print(f"   router leakage (long-channel sub {lc:.5g} + gate {gl:.5g}) = {lc+gl:.4f} W  [without long-channel reduction: {sl:.5g}+{gl:.5g} = {sl+gl:.4f} W]; router area {area} mm2")
    print(f"   link leakage per link (long-channel sub {llc:.4g} + gate {lgl:.4g}) at {ll:.0f} um")
if '32' in rows and '22' in rows:
    for k in ['router','link46','leak']:
        a,b=rows['32'][k],rows['22'][k]
        v=b+(a-b)*(28-22)/(32-22)
        print(f"28 nm (INFERRED, linear in feature size between 32 and 22): {k} = {b:.4g} + ({a:.4g}-{b:.4g})*6/10 = {v:.4g}")
