# builds penryn_uncore_<node>_<acc>.xml: Penryn (power_gating=0) + 2 DDR4-2400 MCs + cohscope 5x5 NoC
import re
def setp(block,k,v,kind='param'):
    b,n=re.subn(r'(<%s name="%s" value=")[^"]*(")'%(kind,k), r'\g<1>%s\g<2>'%v, block)
    if n!=1: raise SystemExit(k)
    return b
for node in ['45','32','22']:
  for acc in [100000,200000]:
    x=open(f'penryn_pg0_{node}nm.xml').read()
    s=x.index('id="system.mc"'); e=x.index('</component>',s); mc=x[s:e]
    for k,v in [('mc_clock','1200'),('peak_transfer_rate','19200'),('number_mcs','2'),('number_ranks','1'),('withPHY','1'),('databus_width','64')]: mc=setp(mc,k,v)
    for k,v in [('memory_accesses',acc),('memory_reads',acc//2),('memory_writes',acc//2)]: mc=setp(mc,k,v,'stat')
    x=x[:s]+mc+x[e:]
    s=x.index('id="system.NoC0"'); e=x.index('</component>',s); noc=x[s:e]
    for k,v in [('clockrate','1400'),('type','1'),('horizontal_nodes','5'),('vertical_nodes','5'),('has_global_link','1'),('input_ports','5'),('output_ports','5')]: noc=setp(noc,k,v)
    noc=noc.replace('<param name="flit_bits" value="256"/>','<param name="flit_bits" value="256"/>\n\t\t\t<param name="virtual_channel_per_port" value="1"/>\n\t\t\t<param name="input_buffer_entries_per_vc" value="16"/>')
    noc=setp(noc,'total_accesses',acc,'stat')
    x=x[:s]+noc+x[e:]
    open(f'penryn_uncore_{node}nm_{acc}.xml','w').write(x)
