// The trace viewer's endpoints (src/server/trace_endpoint.h): a viewport of the timeline, one
// event's details, and search by name. Times are picoseconds since the trace's first event.

// [start_ps, duration_ps, name_id, event]
export type TraceEventBox = [number, number, number, number];
// [start_ps, duration_ps, count]: a run of events narrower than a pixel.
export type TraceMergedBox = [number, number, number];

export interface TraceRow {
  lane: number;
  depth: number;
  events: TraceEventBox[];
  merged: TraceMergedBox[];
}

export interface TraceTrack {
  line: number;
  name: string;
  rows: TraceRow[];
  left_out?: boolean; // not among the lines asked for: its rows are listed without events
}

export interface TraceSection {
  name: string;
  kind: 'device' | 'host' | 'other';
  tracks: TraceTrack[];
  empty?: string; // a device with no events: why
}

// [begin_ps, duration_ps, step_num]
export type TraceStep = [number, number, number];

// [from_event, to_event, kind, from_line, from_start_ps, to_line, to_start_ps]: an arrow with
// at least one end among the reply's events.
export type TraceViewportFlow = [number, number, 'launch' | 'producer_consumer', number, number, number, number];

export interface TraceViewport {
  begin_ps: number;
  end_ps: number;
  start_ps: number;
  end_ps_view: number;
  width_px: number;
  names: Record<string, string>;
  long_names?: Record<string, string>; // by name id: an HLO op's whole instruction text
  sections: TraceSection[];
  flows: TraceViewportFlow[];
  flows_truncated: boolean;
  steps?: TraceStep[]; // asked with steps=1
  device_span?: [number, number]; // asked with steps=1: from the first device event to the last one's end
}

export interface TraceEventRef {
  event: number;
  name: string;
  plane: string;
  line: string;
  line_index: number;
  start_ps: number;
  duration_ps: number;
  long_name?: string; // an XLA op's HLO instruction text; `name` is its HLO op name
}

export interface TraceFlowLink extends TraceEventRef {
  direction: 'in' | 'out';
  kind: string;
}

export interface TraceEventDetails extends TraceEventRef {
  display_name?: string;
  host: string;
  start_ms: number;
  duration_ms: number;
  parent?: TraceEventRef;
  stats: { name: string; value: unknown }[];
  step: { group_id: number; step_num: number; begin_ps: number; duration_ms: number } | null;
  flows: TraceFlowLink[];
}

export interface TraceSearchHit {
  event: number;
  name: string;
  line: number;
  start_ps: number;
  duration_ps: number;
  host: string;
  section: string; // the plane's name
  track: string;
}

export type SearchScope = 'all' | 'device' | 'host';
export type SearchOrder = 'start' | 'duration'; // duration: the longest first

export interface TraceSearchReply {
  total: number;
  events: TraceSearchHit[];
}

// One event found by its whole name (GET /api/trace/find).
export interface TraceFoundEvent {
  event: number;
  name: string;
  line: number;
  start_ps: number;
  duration_ps: number;
  occurrences: number;
}

// Per track and name: the self time inside the range (nested events' time left out).
export interface TraceRangeName {
  name: string;
  line: number;
  host: string;
  section: string;
  track: string;
  count: number;
  self_ps: number;
  total_ps: number; // nested events' time included
}

export interface TraceRangeSummary {
  start_ps: number;
  end_ps: number;
  events: number;
  distinct_names: number; // (track, name) pairs
  tracks: number; // tracks with an event in the range
  busy_ps: number; // self times summed: at most the range's length × tracks
  names: TraceRangeName[];
}

export interface CounterTrack {
  name: string;
  section: string; // the section it is drawn in (a device's, for its streams' queues), or ''
  unit: string; // 'bytes' or '' (a count)
  points: [number, number][]; // [t_ps, value from then on]
}

function query(path: string, params: Record<string, string | number>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '') q.set(k, String(v));
  return `${path}?${q.toString()}`;
}

async function get<T>(href: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(href, { headers: { Accept: 'application/json' }, signal });
  const body = (await res.json().catch(() => null)) as T & { error?: string };
  if (!res.ok || body === null) throw new Error(body?.error ?? `${href}: HTTP ${res.status}`);
  return body;
}

export function fetchViewport(
  run: string,
  host: string,
  view: { start: number; end: number; width: number },
  signal?: AbortSignal,
  steps = false,
  lines = '', // events only on these lines ("0-4,9": tracks_in_sight.ts); '': on every one
): Promise<TraceViewport> {
  const start = Math.max(0, Math.floor(view.start));
  const end = Math.max(start + 1, Math.ceil(view.end));
  const width = Math.min(20000, Math.max(1, Math.round(view.width)));
  return get(query('/api/trace', { run, host, start_ps: start, end_ps: end, width_px: width, steps: steps ? 1 : '', lines }), signal);
}

export function fetchRangeSummary(run: string, host: string, range: { start: number; end: number }, lines: number[]): Promise<TraceRangeSummary> {
  const start = Math.max(0, Math.floor(range.start));
  const end = Math.max(start + 1, Math.ceil(range.end));
  return get(query('/api/trace/summary', { run, host, start_ps: start, end_ps: end, lines: lines.join(',') }));
}

export async function fetchCounters(run: string, host: string): Promise<CounterTrack[]> {
  return (await get<{ counters: CounterTrack[] }>(query('/api/trace/counters', { run, host }))).counters;
}

export function fetchEventDetails(run: string, host: string, event: number): Promise<TraceEventDetails> {
  return get(query('/api/trace/event', { run, host, event }));
}

export function fetchSearch(
  run: string,
  host: string,
  q: string,
  opts: { scope?: SearchScope; sort?: SearchOrder; limit?: number } = {},
): Promise<TraceSearchReply> {
  return get(query('/api/trace/search', { run, host, q, limit: opts.limit ?? 1000, scope: opts.scope ?? 'all', sort: opts.sort ?? 'start' }));
}

// The event named `name` nearest `atMs` (the tools' clock), or the longest of that name.
export function fetchFoundEvent(run: string, host: string, name: string, atMs?: number): Promise<TraceFoundEvent> {
  return get(query('/api/trace/find', { run, host, name, at_ms: atMs ?? '' }));
}
