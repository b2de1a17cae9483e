// Where each section, track and row of the trace viewer sits, from a viewport reply and the
// collapsed keys: the y of every row and label, and of every listed event (for flow arrows).
import { PALETTE } from '../charts/palette';
import type { CounterTrack, TraceEventBox, TraceRow, TraceSection, TraceViewport } from './trace_api';
import { counterGroupKey, COUNTERS_KEY, EMPTY_DEVICES_KEY, PINNED_KEY, sectionKey, trackKey } from './collapsed_tracks';

export const ROW_PX = 20;
export const HEADER_PX = 22;
export const TRACK_GAP_PX = 4;
export const COUNTER_PX = 30;

export interface RowPlace {
  row: TraceRow;
  line: number;
  y: number;
}

export interface Label {
  text: string;
  y: number;
  height: number;
  key: string; // sectionKey, trackKey, counterGroupKey, COUNTERS_KEY or PINNED_KEY
  kind: 'section' | 'track' | 'counter' | 'group'; // group: a section's counters, folded
  collapsed: boolean;
  rows: number; // a track's rows (1 when collapsed)
  foldable: boolean; // a section with tracks, a track of several rows
  pinned?: boolean; // a track shown in the pinned group
  title?: string; // the tooltip, when more than the text
}

export interface CounterPlace {
  counter: CounterTrack;
  y: number;
  max: number; // the value at the top of the track
}

export interface Layout {
  rows: RowPlace[];
  labels: Label[];
  counters: CounterPlace[];
  lineY: Map<number, number>; // a track's first row (a collapsed section's header)
  rowsOfLine: Map<number, RowPlace[]>; // a track's rows in sight
  // The middle of the row of each listed event of a row whose event ids do not rise with time
  // (none in practice: a line's events are numbered in time order, so rowYOfEvent finds an
  // event by binary search; a map of every event costs ~0.3 µs each, 0.8 s for a reply of
  // 100 M events' hosts).
  eventY: Map<number, number>;
  height: number;
}

export const EMPTY_LAYOUT: Layout = { rows: [], labels: [], counters: [], lineY: new Map(), rowsOfLine: new Map(), eventY: new Map(), height: 0 };

// Devices first (where the work is; by name, GPU:2 before GPU:10, those without events among
// them), then host threads, then the rest in the reply's order. Returns the reply's indices,
// which the collapsed keys use.
const byName = new Intl.Collator('en', { numeric: true });
export function sectionOrder(sections: TraceSection[]): number[] {
  const rank = (s: TraceSection) => (s.kind === 'device' ? 0 : s.kind === 'host' ? 1 : 2);
  return sections
    .map((_, i) => i)
    .sort((a, b) => {
      const r = rank(sections[a]) - rank(sections[b]);
      if (r !== 0) return r;
      return rank(sections[a]) === 0 ? byName.compare(sections[a].name, sections[b].name) || a - b : a - b;
    });
}

// One colour per name, from the name itself (FNV-1a): the same kernel has the same colour on
// every rank and host, whatever number a reply gives its name.
export function colourOfName(name: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; ++i) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return PALETTE[(hash >>> 0) % PALETTE.length];
}

// The colours of a reply's name ids, each worked out once (a frame looks them up per event).
const coloursByReply = new WeakMap<Record<string, string>, Map<number, string>>();
export function nameColours(names: Record<string, string>): (nameId: number) => string {
  let colours = coloursByReply.get(names);
  if (!colours) coloursByReply.set(names, (colours = new Map()));
  const known = colours;
  return (nameId) => {
    let colour = known.get(nameId);
    if (colour === undefined) known.set(nameId, (colour = colourOfName(names[String(nameId)] ?? '')));
    return colour;
  };
}

// A collapsed track shows its first row only (lane 0, depth 0: the outermost events). Pinned
// tracks leave their section for a group at the top; counters come first of all.
export function layoutOf(
  reply: TraceViewport,
  collapsed: Set<string>,
  pinned: Set<string> = new Set(),
  counters: CounterTrack[] = [],
): Layout {
  const out: Layout = { rows: [], labels: [], counters: [], lineY: new Map(), rowsOfLine: new Map(), eventY: new Map(), height: 0 };
  let y = 0;
  const header = (text: string, key: string, title?: string, foldable = true): boolean => {
    const folded = foldable && collapsed.has(key);
    out.labels.push({ text, y, height: HEADER_PX, key, kind: 'section', collapsed: folded, rows: 0, title, foldable });
    y += HEADER_PX;
    return folded;
  };
  const track = (t: TraceSection['tracks'][number], isPinned: boolean) => {
    const tKey = trackKey(t.line);
    const trackCollapsed = collapsed.has(tKey) && t.rows.length > 1;
    const shown = trackCollapsed ? t.rows.slice(0, 1) : t.rows;
    const rows = Math.max(1, shown.length);
    out.labels.push({ text: t.name, y, height: rows * ROW_PX, key: tKey, kind: 'track', collapsed: trackCollapsed, rows: t.rows.length, foldable: t.rows.length > 1, pinned: isPinned });
    out.lineY.set(t.line, y);
    const places: RowPlace[] = [];
    shown.forEach((row, i) => {
      const rowY = y + i * ROW_PX;
      const place = { row, line: t.line, y: rowY };
      out.rows.push(place);
      places.push(place);
      if (!idsRise(row.events)) for (const e of row.events) out.eventY.set(e[3], rowY + ROW_PX / 2);
    });
    out.rowsOfLine.set(t.line, places);
    y += rows * ROW_PX + TRACK_GAP_PX;
  };
  const counterTracks = (list: CounterTrack[]) => {
    for (const counter of list) {
      const max = counter.points.reduce((m, p) => Math.max(m, p[1]), 0);
      out.labels.push({ text: counter.name, y, height: COUNTER_PX, key: COUNTERS_KEY, kind: 'counter', collapsed: false, rows: 1, foldable: false });
      out.counters.push({ counter, y, max });
      y += COUNTER_PX + TRACK_GAP_PX;
    }
  };
  // A section's counters (its streams' queues, its memory) fold into one row, so eight ranks
  // of four queues each do not push the work down; the row names them on hover.
  const counterGroup = (list: CounterTrack[], key: string) => {
    if (!list.length) return;
    const open = collapsed.has(key);
    out.labels.push({ text: `Counters (${list.length})`, y, height: ROW_PX, key, kind: 'group', collapsed: !open, rows: list.length, foldable: true, title: list.map((c) => c.name).join('\n') });
    y += ROW_PX + TRACK_GAP_PX;
    if (open) counterTracks(list);
  };
  const sectionNames = new Set(reply.sections.map((s) => s.name));
  const ownCounters = (name: string) => counters.filter((c) => c.section === name);
  const loose = counters.filter((c) => !sectionNames.has(c.section));
  if (loose.length) {
    const open = collapsed.has(COUNTERS_KEY);
    out.labels.push({ text: `Counters (${loose.length})`, y, height: HEADER_PX, key: COUNTERS_KEY, kind: 'section', collapsed: !open, rows: 0, foldable: true, title: loose.map((c) => c.name).join('\n') });
    y += HEADER_PX;
    if (open) counterTracks(loose);
  }
  const pinnedTracks = reply.sections.flatMap((s) => s.tracks.filter((t) => pinned.has(trackKey(t.line))));
  if (pinnedTracks.length && !header('Pinned', PINNED_KEY)) for (const t of pinnedTracks) track(t, true);
  const order = sectionOrder(reply.sections);
  for (const index of order.filter((i) => !reply.sections[i].empty)) {
    const section = reply.sections[index];
    const key = sectionKey(index);
    const sectionCollapsed = header(section.name, key);
    if (sectionCollapsed) {
      for (const t of section.tracks) if (!out.lineY.has(t.line)) out.lineY.set(t.line, y - HEADER_PX / 2 - ROW_PX / 2);
      continue;
    }
    counterGroup(ownCounters(section.name), counterGroupKey(index));
    for (const t of section.tracks) if (!pinned.has(trackKey(t.line))) track(t, false);
  }
  // Devices without events: one folded group at the end, so they never push a busy device
  // down; unfolded, each is a header saying why it is empty.
  const empty = order.filter((i) => reply.sections[i].empty);
  if (empty.length) {
    const open = collapsed.has(EMPTY_DEVICES_KEY);
    const names = empty.map((i) => reply.sections[i].name);
    out.labels.push({
      text: `Devices with no events (${empty.length})`,
      y,
      height: HEADER_PX,
      key: EMPTY_DEVICES_KEY,
      kind: 'section',
      collapsed: !open,
      rows: 0,
      title: names.join(', '),
      foldable: true,
    });
    y += HEADER_PX;
    if (open)
      for (const index of empty) {
        const section = reply.sections[index];
        header(`${section.name} (no events)`, sectionKey(index), `${section.name}: ${section.empty}`, false);
      }
  }
  out.height = y + 8;
  return out;
}

// The folds that hide a line from a link's target: its section's, when that is folded, and its
// track's (the event may lie below the first row a folded track shows). A pinned track shows
// outside its section, under the pinned group's fold.
export function foldsHiding(reply: TraceViewport, collapsed: Set<string>, pinned: Set<string>, line: number): string[] {
  const keys: string[] = [];
  const tKey = trackKey(line);
  if (collapsed.has(tKey)) keys.push(tKey);
  if (pinned.has(tKey)) {
    if (collapsed.has(PINNED_KEY)) keys.push(PINNED_KEY);
    return keys;
  }
  const index = reply.sections.findIndex((s) => s.tracks.some((t) => t.line === line));
  if (index >= 0 && collapsed.has(sectionKey(index))) keys.push(sectionKey(index));
  return keys;
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

// The last point at or before `ps` (-1: none).
export function lastAtOrBefore(points: [number, number][], ps: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] <= ps) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function idsRise(events: TraceEventBox[]): boolean {
  for (let i = 1; i < events.length; ++i) if (events[i][3] <= events[i - 1][3]) return false;
  return true;
}

// The middle of the row that lists `event` on `line`, if one in sight does.
export function rowYOfEvent(layout: Layout, event: number, line: number): number | undefined {
  const y = layout.eventY.get(event);
  if (y !== undefined) return y;
  for (const place of layout.rowsOfLine.get(line) ?? []) {
    const events = place.row.events;
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (events[mid][3] < event) lo = mid + 1;
      else hi = mid;
    }
    if (lo < events.length && events[lo][3] === event) return place.y + ROW_PX / 2;
  }
  return undefined;
}

// Where a flow's end sits: its event's row when the reply lists it, else its track's first row.
export function yOfEvent(layout: Layout, event: number, line: number): number | null {
  const y = rowYOfEvent(layout, event, line);
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
  counter?: CounterPlace; // a counter track, with its value at `start`
  value?: number;
}

// What lies under a point (`t` in ps, `y` in layout pixels): the shortest event there, a
// merged box, or nothing. `slack` widens every box by that many ps either side.
export function hitAt(layout: Layout, t: number, y: number, slack: number): Hit | null {
  const counter = layout.counters.find((c) => y >= c.y && y < c.y + COUNTER_PX);
  if (counter) {
    const pts = counter.counter.points;
    const i = lastAtOrBefore(pts, t);
    return { start: t, dur: 0, counter, value: i >= 0 ? pts[i][1] : 0 };
  }
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

// The lines of the tracks a vertical band (layout y) crosses, as Perfetto's area selection
// takes the tracks under it; none when it crosses only headers and counters.
export function linesInBand(layout: Layout, y0: number, y1: number): number[] {
  const top = Math.min(y0, y1);
  const bottom = Math.max(y0, y1);
  const lines: number[] = [];
  for (const l of layout.labels)
    if (l.kind === 'track' && l.y <= bottom && l.y + l.height >= top) lines.push(Number(l.key.slice(1)));
  return lines;
}
