import { describe, expect, it } from 'vitest';
import type { TraceViewport, TraceViewportFlow } from './trace_api';
import { FlowSegments, MAX_FLOWS_PER_VIEW } from './flow_segments';
import { layoutOf } from './trace_layout';

// One host section of two one-row tracks: a 22 px header, line 0's row at y 22 (middle 32),
// line 1's at 46 (middle 56). Line 0 lists events 0..n-1, line 1 events 1000..; a flow goes
// from line 0's event i at i µs to line 1's event 1000 + i, 2 µs later.
const reply = (n: number) =>
  ({
    sections: [
      {
        name: '/host:CPU',
        kind: 'host',
        tracks: [0, 1].map((line) => ({
          line,
          name: `thread ${line}`,
          rows: [{ lane: 0, depth: 0, events: Array.from({ length: n }, (_, i) => [i * 1e6 + line * 2e6, 1e5, 1, i + line * 1000]), merged: [] }],
        })),
      },
    ],
  }) as unknown as TraceViewport;
const launch = (i: number, toPs = i * 1e6 + 2e6): TraceViewportFlow => [i, 1000 + i, 'launch', 0, i * 1e6, 1, toPs];
const seen = (s: FlowSegments, start: number, end: number, stride = 1) => {
  const out: number[][] = [];
  s.forEachIn({ start, end }, 0, stride, (a, y0, b, y1) => out.push([a, y0, b, y1]));
  return out;
};

describe('flow segments', () => {
  const layout = layoutOf(reply(100), new Set());
  const flows = Array.from({ length: 100 }, (_, i) => launch(i));

  it('finds the arrows that cross a time range, with their rows', () => {
    const s = new FlowSegments({ layout, flows, selectedEvent: undefined });
    // From 10.5 µs to 12.5 µs: the arrows of events 9 (9 → 11 µs), 10, 11 and 12.
    expect(seen(s, 10.5e6, 12.5e6).map(([a]) => a / 1e6).sort((x, y) => x - y)).toEqual([9, 10, 11, 12]);
    expect(seen(s, 10.5e6, 12.5e6)[0].slice(1, 4).filter((_, k) => k !== 1)).toEqual([32, 56]);
  });

  it('leaves out the selected event’s arrows and those of tracks not laid out', () => {
    const s = new FlowSegments({ layout, flows: [...flows.slice(0, 3), [5, 7, 'launch', 9, 5e6, 1, 6e6]], selectedEvent: 1 });
    expect(seen(s, 0, 1e9).map(([a]) => a / 1e6).sort((x, y) => x - y)).toEqual([0, 2]);
  });

  it('finds a long arrow from far before the range', () => {
    const s = new FlowSegments({ layout, flows: [...flows, launch(0, 95e6)], selectedEvent: undefined });
    expect(seen(s, 90e6, 91e6).some(([a, , b]) => a === 0 && b === 95e6)).toBe(true);
  });

  it('keeps every k-th arrow, the same ones wherever the view is, so no view has too many', () => {
    const many = Array.from({ length: 50_000 }, (_, i) => launch(i % 100));
    const s = new FlowSegments({ layout, flows: many, selectedEvent: undefined });
    // 500 arrows end in each µs: a view of 10 µs crosses about 1,500 of them.
    const stride = s.stride(10e6);
    expect(stride).toBeGreaterThan(1);
    expect(seen(s, 20e6, 30e6, stride).length).toBeLessThanOrEqual(MAX_FLOWS_PER_VIEW * 2);
    const kept = (start: number) => new Set(seen(s, start, start + 10e6, stride).map((x) => x.join()));
    // An arrow in both views is kept in both or in neither.
    const a = kept(20e6);
    const b = kept(21e6);
    const both = seen(s, 21e6, 30e6, stride).map((x) => x.join());
    expect(both.every((x) => a.has(x) && b.has(x))).toBe(true);
  });
});
