import { describe, expect, it } from 'vitest';
import type { TraceSection, TraceViewport } from './trace_api';
import { colourOfName, foldsHiding, layoutOf, linesInBand, nameColours, rowYOfEvent, sectionOrder, yOfEvent } from './trace_layout';

const section = (name: string, kind: TraceSection['kind'], lines: number[] = [], empty?: string): TraceSection => ({
  name,
  kind,
  empty,
  tracks: lines.map((line) => ({ line, name: `line ${line}`, rows: [{ lane: 0, depth: 0, events: [[0, 10, 1, line * 10]], merged: [] }] })),
});

describe('trace layout', () => {
  it('puts devices first, by name, then the host threads', () => {
    const sections = [section('/host:CPU', 'host'), section('/device:GPU:10', 'device'), section('/device:GPU:2', 'device'), section('/device:GPU:0', 'device', [], 'none')];
    expect(sectionOrder(sections)).toEqual([3, 2, 1, 0]);
  });

  it('moves pinned tracks to a group on top, after the counters', () => {
    const reply = { sections: [section('/host:CPU', 'host', [1, 2]), section('/device:GPU:0', 'device', [3])] } as unknown as TraceViewport;
    const counter = { name: 'Memory in use · GPU_0_bfc', section: '', unit: 'bytes', points: [[0, 5] as [number, number]] };
    const layout = layoutOf(reply, new Set(['counters']), new Set(['t2']), [counter]);
    expect(layout.labels.map((l) => l.text)).toEqual([
      'Counters (1)',
      'Memory in use · GPU_0_bfc',
      'Pinned',
      'line 2',
      '/device:GPU:0',
      'line 3',
      '/host:CPU',
      'line 1',
    ]);
    expect(layout.counters[0].max).toBe(5);
  });

  it('lists the devices without events once, at the end, folded', () => {
    const reply = {
      sections: [section('/device:GPU:1', 'device', [], 'no events'), section('/host:CPU', 'host', [1]), section('/device:GPU:0', 'device', [2]), section('/device:GPU:2', 'device', [], 'no events')],
    } as unknown as TraceViewport;
    const folded = layoutOf(reply, new Set());
    expect(folded.labels.map((l) => l.text)).toEqual(['/device:GPU:0', 'line 2', '/host:CPU', 'line 1', 'Devices with no events (2)']);
    expect(folded.labels.at(-1)).toMatchObject({ collapsed: true, foldable: true, title: '/device:GPU:1, /device:GPU:2' });
    // Unfolded, each is a header that does not fold, saying why.
    const open = layoutOf(reply, new Set(['empty']));
    expect(open.labels.slice(-3).map((l) => l.text)).toEqual(['Devices with no events (2)', '/device:GPU:1 (no events)', '/device:GPU:2 (no events)']);
    expect(open.labels.at(-1)).toMatchObject({ foldable: false, collapsed: false, title: '/device:GPU:2: no events' });
  });

  it('folds counter tracks by default, one row per section, unfolded by their key', () => {
    const reply = { sections: [section('/device:GPU:0', 'device', [3]), section('/host:CPU', 'host', [1])] } as unknown as TraceViewport;
    const queue = (stream: number) => ({ name: `Queue · Stream #${stream}`, section: '/device:GPU:0', unit: '', points: [[0, 1] as [number, number]] });
    const memory = { name: 'Memory in use · host', section: '', unit: 'bytes', points: [[0, 5] as [number, number]] };
    const folded = layoutOf(reply, new Set(), new Set(), [queue(7), queue(8), memory]);
    expect(folded.labels.map((l) => l.text)).toEqual(['Counters (1)', '/device:GPU:0', 'Counters (2)', 'line 3', '/host:CPU', 'line 1']);
    expect(folded.counters).toEqual([]);
    expect(folded.labels[2]).toMatchObject({ kind: 'group', key: 'c0', collapsed: true, foldable: true, title: 'Queue · Stream #7\nQueue · Stream #8' });
    const open = layoutOf(reply, new Set(['c0']), new Set(), [queue(7), queue(8), memory]);
    expect(open.labels.map((l) => l.text).slice(1, 5)).toEqual(['/device:GPU:0', 'Counters (2)', 'Queue · Stream #7', 'Queue · Stream #8']);
    expect(open.counters.map((c) => c.counter.name)).toEqual(['Queue · Stream #7', 'Queue · Stream #8']);
  });

  it('colours a name the same whatever its id, in every reply', () => {
    const rank0 = nameColours({ '3': 'ncclKernel_AllReduce', '4': 'sgemm' });
    const rank1 = nameColours({ '9': 'ncclKernel_AllReduce', '1': 'sgemm' });
    expect(rank0(3)).toBe(rank1(9));
    expect(rank0(4)).toBe(rank1(1));
    expect(rank0(3)).toBe(colourOfName('ncclKernel_AllReduce'));
    // Names spread over the palette rather than sharing one colour.
    const colours = new Set(Array.from({ length: 40 }, (_, i) => colourOfName(`kernel_${i}`)));
    expect(colours.size).toBeGreaterThan(6);
  });

  it('finds the tracks a band crosses', () => {
    const reply = { sections: [section('/host:CPU', 'host', [1, 2, 3])] } as unknown as TraceViewport;
    const layout = layoutOf(reply, new Set());
    const [, t1, t2] = layout.labels; // the header, then tracks 1 and 2
    expect(linesInBand(layout, t1.y + 2, t1.y + 5)).toEqual([1]);
    expect(linesInBand(layout, t1.y + 5, t2.y + 5)).toEqual([1, 2]);
    expect(linesInBand(layout, 1, 3)).toEqual([]); // the header alone
  });

  it('names the folds that hide a link\'s line: its section, its track, the pinned group', () => {
    const reply = { sections: [section('/host:CPU', 'host', [1, 2]), section('/device:GPU:0', 'device', [3])] } as unknown as TraceViewport;
    expect(foldsHiding(reply, new Set(), new Set(), 3)).toEqual([]);
    expect(foldsHiding(reply, new Set(['s1', 's0']), new Set(), 3)).toEqual(['s1']);
    expect(foldsHiding(reply, new Set(['s0', 't2']), new Set(), 2)).toEqual(['t2', 's0']);
    expect(foldsHiding(reply, new Set(['s0', 'pinned']), new Set(['t2']), 2)).toEqual(['pinned']);
    expect(foldsHiding(reply, new Set(['s0']), new Set(), 99)).toEqual([]);
  });

  it('finds the row of an event by its id, as a line numbers its events in time order', () => {
    // One track (line 7) of two rows: the outer events and the nested ones, ids rising in each.
    const rows = [
      { lane: 0, depth: 0, events: [[0, 100, 1, 10], [200, 100, 1, 13]], merged: [] },
      { lane: 0, depth: 1, events: [[10, 20, 2, 11], [40, 20, 2, 12], [210, 20, 2, 14]], merged: [] },
    ];
    // And one (line 8) whose row does not number its events in time order.
    const odd = [{ lane: 0, depth: 0, events: [[0, 10, 1, 31], [20, 10, 1, 30]], merged: [] }];
    const reply = {
      sections: [{ name: '/host:CPU', kind: 'host', tracks: [{ line: 7, name: 'main', rows }, { line: 8, name: 'odd', rows: odd }] }],
    } as unknown as TraceViewport;
    const layout = layoutOf(reply, new Set());
    const first = layout.lineY.get(7)!;
    // Rows are 20 px apart; an event's y is its row's middle.
    expect(rowYOfEvent(layout, 13, 7)).toBe(first + 10);
    expect(rowYOfEvent(layout, 12, 7)).toBe(first + 30);
    expect(rowYOfEvent(layout, 14, 7)).toBe(first + 30);
    expect(rowYOfEvent(layout, 15, 7)).toBeUndefined();
    expect(yOfEvent(layout, 15, 7)).toBe(first + 10); // not listed: its track's first row
    const oddY = layout.lineY.get(8)! + 10;
    expect(rowYOfEvent(layout, 30, 8)).toBe(oddY);
    expect(rowYOfEvent(layout, 31, 8)).toBe(oddY);
  });
});
