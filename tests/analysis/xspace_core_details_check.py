# Lists, for every .xplane.pb under a folder, the TPU planes' core_details chip ids, and
# whether any two planes of one host share a chip (a megacore chip).
import sys, os, collections
def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if c < 0x80: return r, i
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i); f, t = k >> 3, k & 7
        if t == 0: v, i = varint(b, i)
        elif t == 1: v = b[i:i+8]; i += 8
        elif t == 5: v = b[i:i+4]; i += 4
        elif t == 2: n, i = varint(b, i); v = b[i:i+n]; i += n
        else: raise ValueError('wire type %d' % t)
        yield f, t, v
def check(path):
    data = open(path, 'rb').read()
    out = []
    for f, t, plane in fields(data):
        if f != 1: continue
        name = b''; meta = {}; stats = []
        for pf, pt, pv in fields(plane):
            if pf == 2: name = pv
            elif pf == 5:  # map<int64, XStatMetadata>
                k = v = None
                for ef, et, ev in fields(pv):
                    if ef == 1: k = ev
                    elif ef == 2: v = ev
                nm = b''
                for mf, mt, mv in fields(v or b''):
                    if mf == 2: nm = mv
                meta[k] = nm
            elif pf == 6: stats.append(pv)
        for s in stats:
            mid = None; by = None
            for sf, st, sv in fields(s):
                if sf == 1: mid = sv
                elif sf == 6: by = sv
            if meta.get(mid) == b'core_details' and by is not None:
                d = {ff: vv for ff, tt, vv in fields(by) if tt == 0}
                out.append((name.decode(), d.get(4, 0), d.get(5, 0), d.get(6, 0)))
    return out
root = sys.argv[1]
for dp, dn, fn in os.walk(root):
    for n in sorted(fn):
        if not n.endswith('.xplane.pb'): continue
        p = os.path.join(dp, n)
        try: planes = check(p)
        except Exception as e: print(p, 'unreadable:', e); continue
        chips = collections.Counter(c for _, _, c, _ in planes)
        shared = {c: k for c, k in chips.items() if k > 1}
        print(os.path.relpath(p, root), 'core_details on', len(planes), 'planes;', 'megacore chips:' if shared else 'no chip has two cores', shared or '')
