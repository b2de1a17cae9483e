// Which tracks a viewport reply carries events for: those in the scroller's sight plus a
// screen's height of margin above and below, so that a short vertical scroll draws from the
// reply in hand. At 100 M events one reply of every row of ten hosts is 80 MB (seconds for the
// server, half a second for the page to parse); the rows in sight are a small part of it. The
// server still lists every track and row, so the layout does not change.
import { linesInBand, type Layout } from './trace_layout';

// The lines whose events to ask for: the tracks within a screen of the view, and `extra` (a
// link's target, which the view scrolls to once the reply lands).
export function linesToFetch(layout: Layout, top: number, height: number, extra: number[] = []): number[] {
  const lines = new Set(linesInBand(layout, top - height, top + 2 * height));
  for (const l of extra) lines.add(l);
  return [...lines].sort((a, b) => a - b);
}

// Whether a reply that carries `fetched` (null: every track) has the events of the tracks in
// sight now.
export function coversTracks(fetched: ReadonlySet<number> | null, layout: Layout, top: number, height: number): boolean {
  if (fetched === null) return true;
  return linesInBand(layout, top, top + height).every((l) => fetched.has(l));
}

// The `lines` parameter: sorted line numbers with runs written as ranges ("0-4,9,12-13").
export function lineListParam(lines: number[]): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) ++j;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
