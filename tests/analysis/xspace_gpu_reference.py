#!/usr/bin/python3
# Reference figures for the GPU timeline analyses on an XSpace, written independently of mlprof
# from Holistic Trace Analysis' published rules (HTA 0.6.1, DEFINITIONS.md), over the whole
# profile. Input: `protoc --decode=tensorflow.profiler.XSpace xplane.proto < file.xplane.pb`.
import re, sys, statistics

# protoc's text form, read into nested dicts (repeated fields as lists).
def parse(path):
    root = {'planes': []}
    stack = [root]
    for raw in open(path):
        line = raw.strip()
        if line.endswith('{'):
            name = line[:-1].strip()
            node = {}
            parent = stack[-1]
            parent.setdefault(name, []).append(node)
            stack.append(node)
        elif line == '}':
            stack.pop()
        elif ':' in line:
            k, v = line.split(':', 1)
            v = v.strip()
            if v.startswith('"'):
                v = bytes(v[1:-1], 'utf-8').decode('unicode_escape')
            else:
                try: v = int(v)
                except ValueError:
                    try: v = float(v)
                    except ValueError: pass
            stack[-1][k.strip()] = v
    return root


def kind(n):
    if re.match(r'(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)', n): return 'communication'
    if re.match(r'(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)', n): return 'memory'
    if not re.match(r'(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)', n): return 'computation'
    return 'other'

def union(iv):
    iv = sorted(iv); total = 0; b = e = None
    for s, t in iv:
        if e is None or s > e:
            if e is not None: total += e - b
            b, e = s, t
        else: e = max(e, t)
    if e is not None: total += e - b
    return total

x = parse(sys.argv[1])
def meta(p, key):
    return {m['key']: m['value'][0].get('name', '') for m in p.get(key, [])}
launch = {}
work = []  # (device, stream, begin, end, name, corr)
for p in x['planes']:
    em, sm = meta(p, 'event_metadata'), meta(p, 'stat_metadata')
    for l in p.get('lines', []):
        base = l.get('timestamp_ns', 0) * 1000
        stream = p['name'].startswith('/device:GPU') and l.get('name', '').startswith('Stream #')
        for e in l.get('events', []):
            b = base + e.get('offset_ps', 0); d = e.get('duration_ps', 0)
            corr = None
            for s in e.get('stats', []):
                if sm.get(s.get('metadata_id')) == 'correlation_id':
                    corr = s.get('uint64_value', s.get('int64_value'))
            if p['name'] == '/host:CPU' and corr is not None: launch.setdefault(corr, (b, b + d))
            if stream: work.append((p['name'], l['id'], b, b + d, em.get(e['metadata_id'], ''), corr))
us = lambda ps: ps / 1e6
span = max(w[3] for w in work) - min(w[2] for w in work)
busy = union([(w[2], w[3]) for w in work])
comp = union([(w[2], w[3]) for w in work if kind(w[4]) == 'computation'])
ccm = union([(w[2], w[3]) for w in work if kind(w[4]) != 'other'])
print('span_us %.3f idle_pct %.6f compute_pct %.6f' % (us(span), 100 * (span - busy) / span, 100 * comp / span))
for k in ('computation', 'communication', 'memory'):
    print('kind_pct', k, '%.6f' % (100 * union([(w[2], w[3]) for w in work if kind(w[4]) == k]) / ccm))
delays, short, longd, n = [], 0, 0, 0
for key in sorted(set((w[0], w[1]) for w in work)):
    ws = sorted([w for w in work if (w[0], w[1]) == key], key=lambda w: w[2])
    cause = {'host_wait': 0, 'kernel_wait': 0, 'other': 0}
    for prev, w in zip(ws, ws[1:]):
        gap = w[2] - prev[3]
        l = launch.get(w[5])
        c = 'host_wait' if l and l[0] > prev[3] else 'kernel_wait' if gap < 30e6 else 'other'
        cause[c] += gap
    q, qmax, changes = 0, 0, []
    for w in ws:
        l = launch.get(w[5])
        if l: changes += [(l[0], 1), (w[2], -1)]
    for t, dlt in sorted(changes): q += dlt; qmax = max(qmax, q)
    print('stream', key[0], key[1], ' '.join('%s %.3f' % (c, us(v)) for c, v in cause.items()), 'queue_max', qmax)
for w in work:
    l = launch.get(w[5])
    if not l: continue
    n += 1
    cpu, gpu = l[1] - l[0], w[3] - w[2]
    delays.append(max(0, w[2] - l[1]))
    short += cpu <= 50e6 and gpu < cpu
    longd += delays[-1] > 100e6
print('launches', n, 'short', short, 'long_delay', longd, 'median_delay_us %.3f' % us(statistics.median(delays)))
