import { describe, expect, it } from 'vitest';
import type { TraceViewport } from './trace_api';
import { layoutOf } from './trace_layout';
import { coversTracks, keepNearTracks, lineListParam, linesToFetch, tracksAwaited } from './tracks_in_sight';

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

  it('asks for two screens ahead of a scroll', () => {
    // Scrolling down from y 502: y 382..862, tracks 15-35; up: y 262..742, tracks 10-30.
    expect(linesToFetch(layout, 502, 120, [], 1)).toEqual(range(15, 35));
    expect(linesToFetch(layout, 502, 120, [], -1)).toEqual(range(10, 30));
  });

  it('asks for the next tracks before they come into sight', () => {
    const fetched = new Set(linesToFetch(layout, 502, 120)); // tracks 15-30
    // Tracks 25-30 in sight, 20-35 within a screen: 31-35 lack events.
    expect(coversTracks(fetched, layout, 22 + 24 * 25, 120)).toBe(true);
    expect(coversTracks(fetched, layout, 22 + 24 * 25, 120, true)).toBe(false);
    expect(coversTracks(fetched, layout, 22 + 24 * 20, 120, true)).toBe(true); // 15-30
  });

  it('names the tracks in sight still without events', () => {
    expect(tracksAwaited(new Set(range(15, 27)), layout, 22 + 24 * 25, 120)).toEqual([28, 29, 30]);
    expect(tracksAwaited(null, layout, 22 + 24 * 25, 120)).toEqual([]);
  });

  it('keeps the last reply’s events of the near tracks the next one left out', () => {
    const track = (line: number, events: number[][], leftOut: boolean) => ({
      line,
      name: `thread ${line}`,
      rows: [{ lane: 0, depth: 0, events, merged: [] }],
      ...(leftOut ? { left_out: true } : {}),
    });
    const reply = (tracks: ReturnType<typeof track>[], names: Record<string, string>, flows: unknown[]) =>
      ({ sections: [{ name: '/host:CPU', kind: 'host', tracks }], names, flows }) as unknown as TraceViewport;
    // Flows: event 1 (line 0) → 3 (line 2), 2 (line 1) → 9 (line 5), 1 → 5 (line 0).
    const oneToThree = [1, 3, 'launch', 0, 0, 2, 1];
    const oneToFive = [1, 5, 'launch', 0, 0, 0, 3];
    const last = reply([track(0, [[0, 5, 7, 1]], false), track(1, [[0, 5, 8, 2]], false), track(2, [], true)], { 7: 'a', 8: 'b' }, [
      oneToThree,
      [2, 9, 'launch', 1, 0, 5, 7],
      oneToFive,
    ]);
    const next = reply([track(0, [], true), track(1, [], true), track(2, [[1, 2, 9, 3]], false)], { 9: 'c' }, [oneToThree]);
    // Track 1 is too far from the view to keep.
    expect(keepNearTracks(last, next, new Set([0, 2]))).toEqual([0]);
    const tracks = next.sections[0].tracks;
    expect(tracks[0].rows[0].events).toEqual([[0, 5, 7, 1]]);
    expect(tracks[0].left_out).toBeUndefined();
    expect(tracks[1].left_out).toBe(true);
    expect(tracks[2].rows[0].events).toEqual([[1, 2, 9, 3]]);
    expect(next.names).toEqual({ 7: 'a', 8: 'b', 9: 'c' });
    // The kept track's flows, once each; not the far track's.
    expect(next.flows).toEqual([oneToThree, oneToFive]);
  });

  it('writes runs of lines as ranges', () => {
    expect(lineListParam([9, 0, 1, 2, 3, 4, 12, 13, 4])).toBe('0-4,9,12-13');
    expect(lineListParam([7])).toBe('7');
    expect(lineListParam([])).toBe('');
  });
});
