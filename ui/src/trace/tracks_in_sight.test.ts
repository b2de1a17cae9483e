import { describe, expect, it } from 'vitest';
import type { TraceViewport } from './trace_api';
import { layoutOf } from './trace_layout';
import { coversTracks, lineListParam, linesToFetch } from './tracks_in_sight';

// One host section of 40 one-row tracks: a 22 px header, then track i at y = 22 + 24 i
// (20 px rows, 4 px gaps).
const reply = {
  sections: [
    {
      name: '/host:CPU',
      kind: 'host',
      tracks: Array.from({ length: 40 }, (_, line) => ({ line, name: `thread ${line}`, rows: [{ lane: 0, depth: 0, events: [], merged: [] }] })),
    },
  ],
} as unknown as TraceViewport;
const layout = layoutOf(reply, new Set());
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('tracks in sight', () => {
  it('asks for the tracks within a screen above and below the view', () => {
    // The view shows y 502..622 (tracks 20-25); a screen either side is y 382..742: tracks 15-30.
    expect(linesToFetch(layout, 502, 120)).toEqual(range(15, 30));
    // At the top: y 0..240, tracks 0-9.
    expect(linesToFetch(layout, 0, 120)).toEqual(range(0, 9));
    // A link's target far below comes too.
    expect(linesToFetch(layout, 0, 120, [39])).toEqual([...range(0, 9), 39]);
  });

  it('knows when a vertical scroll brings tracks without events into sight', () => {
    const fetched = new Set(linesToFetch(layout, 502, 120));
    expect(coversTracks(fetched, layout, 502, 120)).toBe(true);
    expect(coversTracks(fetched, layout, 22 + 24 * 25, 120)).toBe(true); // tracks 25-30
    expect(coversTracks(fetched, layout, 22 + 24 * 28, 120)).toBe(false); // tracks 28-33
    expect(coversTracks(null, layout, 22 + 24 * 33, 120)).toBe(true); // a reply of every track
  });

  it('writes runs of lines as ranges', () => {
    expect(lineListParam([9, 0, 1, 2, 3, 4, 12, 13, 4])).toBe('0-4,9,12-13');
    expect(lineListParam([7])).toBe('7');
    expect(lineListParam([])).toBe('');
  });
});
