// Which tracks a viewport reply carries events for: those in the scroller's sight plus a
// screen's height of margin above and below (two ahead of a scroll), so that a vertical scroll
// draws from the reply in hand; the next is asked once the tracks within a screen of the view
// lack events, before they come into sight. At 100 M events one reply of every row of ten
// hosts is 80 MB (seconds for the server, half a second for the page to parse); the rows in
// sight are a small part of it. The server still lists every track and row, so the layout does
// not change, and a reply of the same time range keeps the last one's events of the tracks it
// leaves out that are still near (a scroll back draws them at once).
import type { TraceViewport, TraceViewportFlow } from './trace_api';
import { linesInBand, type Layout } from './trace_layout';

// Screens of tracks asked for either side of the view, and ahead of a scroll.
const MARGIN_SCREENS = 1;
const AHEAD_SCREENS = 2;
// How near the view the tracks must have events before the next reply is asked for: as far
// as a reply at rest carries them, so the first step of a scroll asks for the screens ahead.
const NEAR_SCREENS = MARGIN_SCREENS;
// How far from the view a last reply's events are kept.
const KEEP_SCREENS = 3;

// The lines whose events to ask for: the tracks within a screen of the view (two in the
// scroll's `direction`: > 0 down, < 0 up), and `extra` (a link's target, which the view
// scrolls to once the reply lands).
export function linesToFetch(layout: Layout, top: number, height: number, extra: number[] = [], direction = 0): number[] {
  const above = direction < 0 ? AHEAD_SCREENS : MARGIN_SCREENS;
  const below = direction > 0 ? AHEAD_SCREENS : MARGIN_SCREENS;
  const lines = new Set(linesInBand(layout, top - above * height, top + (1 + below) * height));
  for (const l of extra) lines.add(l);
  return [...lines].sort((a, b) => a - b);
}

// Whether a reply that carries `fetched` (null: every track) has the events of the tracks in
// sight now (`near`: and of those within a screen of it).
export function coversTracks(fetched: ReadonlySet<number> | null, layout: Layout, top: number, height: number, near = false): boolean {
  if (fetched === null) return true;
  const margin = near ? NEAR_SCREENS * height : 0;
  return linesInBand(layout, top - margin, top + height + margin).every((l) => fetched.has(l));
}

// The tracks in sight whose events no reply has brought yet (drawn as loading).
export function tracksAwaited(fetched: ReadonlySet<number> | null, layout: Layout, top: number, height: number): number[] {
  if (fetched === null) return [];
  return linesInBand(layout, top, top + height).filter((l) => !fetched.has(l));
}

// Gives `next`'s tracks it left out the events `last` had for them, for the tracks within
// three screens of the view (`near`), with their names and flows; both replies must span the
// same time at the same width. Returns the lines it filled. (A scroll within one time range
// asks only for the tracks the reply in hand lacks: a smaller reply, sooner.)
export function keepNearTracks(last: TraceViewport, next: TraceViewport, near: ReadonlySet<number>): number[] {
  const had = new Map<number, TraceViewport['sections'][number]['tracks'][number]>();
  for (const s of last.sections) for (const t of s.tracks) if (!t.left_out && near.has(t.line)) had.set(t.line, t);
  const filled: number[] = [];
  for (const s of next.sections)
    for (const t of s.tracks) {
      const old = had.get(t.line);
      if (!t.left_out || !old || old.rows.length !== t.rows.length) continue;
      t.rows = old.rows;
      delete t.left_out;
      filled.push(t.line);
    }
  // Their names, by the same ids (a name's id is the trace's, not the reply's).
  if (filled.length) {
    for (const [id, name] of Object.entries(last.names)) if (!(id in next.names)) next.names[id] = name;
    const longNames = (next.long_names ??= {});
    for (const [id, name] of Object.entries(last.long_names ?? {})) if (!(id in longNames)) longNames[id] = name;
    // The flows with an end on a kept track, but for those `next` has (its tracks' own).
    const kept = new Set(filled);
    const touches = (f: TraceViewportFlow) => kept.has(f[3]) || kept.has(f[5]);
    const listed = new Set(next.flows.filter(touches).map((f) => `${f[0]}>${f[1]}`));
    for (const f of last.flows) if (touches(f) && !listed.has(`${f[0]}>${f[1]}`)) next.flows.push(f);
  }
  return filled;
}

// The tracks near enough to the view to keep a last reply's events for.
export function linesToKeep(layout: Layout, top: number, height: number): Set<number> {
  return new Set(linesInBand(layout, top - KEEP_SCREENS * height, top + (1 + KEEP_SCREENS) * height));
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
