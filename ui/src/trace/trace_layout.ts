// Where each section, track and row of the trace viewer sits, from a viewport reply and the
// collapsed keys: the y of every row and label, and of every listed event (for flow arrows).
import { PALETTE } from '../charts/palette';
import type { TraceEventBox, TraceRow, TraceViewport } from './trace_api';
import { sectionKey, trackKey } from './collapsed_tracks';

export const ROW_PX = 20;
export const HEADER_PX = 22;
export const TRACK_GAP_PX = 4;

export interface RowPlace {
  row: TraceRow;
  line: number;
  y: number;
}

export interface Label {
  text: string;
  y: number;
  height: number;
  key: string; // sectionKey or trackKey
  kind: 'section' | 'track';
  collapsed: boolean;
  rows: number; // a track's rows (1 when collapsed)
}

export interface Layout {
  rows: RowPlace[];
  labels: Label[];
  lineY: Map<number, number>; // a track's first row (a collapsed section's header)
  eventY: Map<number, number>; // the middle of the row each listed event sits in
  height: number;
}

export const EMPTY_LAYOUT: Layout = { rows: [], labels: [], lineY: new Map(), eventY: new Map(), height: 0 };

export function colourOf(nameId: number): string {
  return PALETTE[(nameId * 2654435761) % PALETTE.length >>> 0] ?? PALETTE[0];
}

// A collapsed track shows its first row only (lane 0, depth 0: the outermost events).
export function layoutOf(reply: TraceViewport, collapsed: Set<string>): Layout {
  const out: Layout = { rows: [], labels: [], lineY: new Map(), eventY: new Map(), height: 0 };
  let y = 0;
  reply.sections.forEach((section, index) => {
    const key = sectionKey(index);
    const sectionCollapsed = collapsed.has(key);
    out.labels.push({ text: section.name, y, height: HEADER_PX, key, kind: 'section', collapsed: sectionCollapsed, rows: 0 });
    if (sectionCollapsed) for (const track of section.tracks) out.lineY.set(track.line, y + HEADER_PX / 2 - ROW_PX / 2);
    y += HEADER_PX;
    if (sectionCollapsed) return;
    for (const track of section.tracks) {
      const tKey = trackKey(track.line);
      const trackCollapsed = collapsed.has(tKey) && track.rows.length > 1;
      const shown = trackCollapsed ? track.rows.slice(0, 1) : track.rows;
      const rows = Math.max(1, shown.length);
      out.labels.push({ text: track.name, y, height: rows * ROW_PX, key: tKey, kind: 'track', collapsed: trackCollapsed, rows: track.rows.length });
      out.lineY.set(track.line, y);
      shown.forEach((row, i) => {
        const rowY = y + i * ROW_PX;
        out.rows.push({ row, line: track.line, y: rowY });
        for (const e of row.events) out.eventY.set(e[3], rowY + ROW_PX / 2);
      });
      y += rows * ROW_PX + TRACK_GAP_PX;
    }
  });
  out.height = y + 8;
  return out;
}

// The first event of a row (sorted by start, never overlapping, so by end too) that ends at
// or after `ps`.
export function firstEndingAfter(events: TraceEventBox[] | [number, number, number][], ps: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = events[mid];
    if (e[0] + e[1] < ps) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Where a flow's end sits: its event's row when the reply lists it, else its track's first row.
export function yOfEvent(layout: Layout, event: number, line: number): number | null {
  const y = layout.eventY.get(event);
  if (y !== undefined) return y;
  const lineY = layout.lineY.get(line);
  return lineY === undefined ? null : lineY + ROW_PX / 2;
}

export interface Hit {
  event?: number;
  nameId?: number;
  start: number;
  dur: number;
  count?: number; // a merged box's events
}

// What lies under a point (`t` in ps, `y` in layout pixels): the shortest event there, a
// merged box, or nothing. `slack` widens every box by that many ps either side.
export function hitAt(layout: Layout, t: number, y: number, slack: number): Hit | null {
  const place = layout.rows.find((p) => y >= p.y && y < p.y + ROW_PX);
  if (!place) return null;
  let best: Hit | null = null;
  for (const [start, dur, nameId, event] of place.row.events)
    if (t >= start - slack && t <= start + dur + slack && (!best || dur < best.dur)) best = { event, nameId, start, dur };
  if (best) return best;
  for (const [start, dur, count] of place.row.merged)
    if (t >= start - slack && t <= start + dur + slack) return { start, dur, count };
  return null;
}
