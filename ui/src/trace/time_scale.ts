// The trace viewer's arithmetic: the visible time range (zoom, pan, clamping to the trace),
// ticks of the time axis, and how a duration in picoseconds reads.

export interface TimeRange {
  start: number; // ps since the trace's first event
  end: number;
}

const MIN_SPAN_PS = 1000; // 1 ns

export function clampRange(r: TimeRange, total: number): TimeRange {
  const limit = Math.max(total, MIN_SPAN_PS);
  let span = Math.min(Math.max(r.end - r.start, MIN_SPAN_PS), limit);
  let start = Math.min(Math.max(r.start, 0), limit - span);
  if (!Number.isFinite(start)) start = 0;
  if (!Number.isFinite(span)) span = limit;
  return { start, end: start + span };
}

// Zooms by `factor` (< 1 zooms in) keeping the time at `anchor` (0..1 of the width) in place.
export function zoomRange(r: TimeRange, factor: number, anchor: number, total: number): TimeRange {
  const span = r.end - r.start;
  const at = r.start + span * anchor;
  const next = span * factor;
  return clampRange({ start: at - next * anchor, end: at - next * anchor + next }, total);
}

export function panRange(r: TimeRange, deltaPs: number, total: number): TimeRange {
  return clampRange({ start: r.start + deltaPs, end: r.end + deltaPs }, total);
}

export function formatPs(ps: number): string {
  const abs = Math.abs(ps);
  const fmt = (v: number) => String(Number(v.toPrecision(4)));
  if (abs >= 1e12) return `${fmt(ps / 1e12)} s`;
  if (abs >= 1e9) return `${fmt(ps / 1e9)} ms`;
  if (abs >= 1e6) return `${fmt(ps / 1e6)} µs`;
  if (abs >= 1e3) return `${fmt(ps / 1e3)} ns`;
  return `${fmt(ps)} ps`;
}

// Tick positions at 1, 2 or 5 times a power of ten, about `target` of them over the range.
export function timeTicks(r: TimeRange, target: number): number[] {
  const span = r.end - r.start;
  if (!(span > 0) || target < 1) return [];
  const raw = span / target;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let t = Math.ceil(r.start / step) * step; t <= r.end && ticks.length < 1000; t += step) ticks.push(t);
  return ticks;
}

const UNITS: [number, string][] = [
  [1e12, 's'],
  [1e9, 'ms'],
  [1e6, 'µs'],
  [1e3, 'ns'],
  [1, 'ps'],
];

// Past this many units, a time in the step's unit has too many digits to read
// ("27216109000 ps" deep inside a trace): it reads in its own unit instead, with decimals.
const MAX_WHOLE_UNITS = 1e5;

// `t` in the largest unit it fills, with the decimals that tell times `resolution` apart
// ("27.2161090 ms").
export function formatPrecise(t: number, resolution: number): string {
  const [scale, unit] = UNITS.find(([s]) => Math.abs(t) >= s) ?? UNITS[UNITS.length - 1];
  const decimals = Math.min(12, Math.max(0, Math.ceil(Math.log10(scale / Math.max(resolution, 1e-3)))));
  return `${(t / scale).toFixed(decimals)} ${unit}`;
}

// The axis's labels: every tick in one unit, the largest that keeps the step a whole number
// of it or more ("0 ms", "200 ms", ... rather than "0 ps", "200 ms", ..., "1 s"). Deep in a
// long trace the first tick reads in full and the others as offsets from it
// ("27.2161090 ms", "+200 ps", "+400 ps").
export function axisLabels(r: TimeRange, target: number): { t: number; text: string }[] {
  const ticks = timeTicks(r, target);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : r.end - r.start;
  const [scale, unit] = UNITS.find(([s]) => step >= s) ?? UNITS[UNITS.length - 1];
  const whole = (v: number) => String(Number(v.toPrecision(12)));
  if (ticks.length && Math.abs(ticks[ticks.length - 1] / scale) >= MAX_WHOLE_UNITS) {
    const base = ticks[0];
    return ticks.map((t, i) => ({ t, text: i === 0 ? formatPrecise(base, step) : `+${whole((t - base) / scale)} ${unit}` }));
  }
  return ticks.map((t) => ({ t, text: `${whole(t / scale)} ${unit}` }));
}

// A range as text, both ends in the unit of its span ("0 ms – 250 ms"); deep in a long trace,
// in the unit of its ends with the decimals its span needs ("27.2161090 – 27.2161100 ms").
export function formatRange(r: TimeRange): string {
  const span = r.end - r.start;
  const [scale, unit] = UNITS.find(([s]) => span >= s) ?? UNITS[UNITS.length - 1];
  if (Math.abs(r.end / scale) >= MAX_WHOLE_UNITS) {
    const start = formatPrecise(r.start, span / 10);
    const end = formatPrecise(r.end, span / 10);
    const [startNumber, startUnit] = start.split(' ');
    return end.endsWith(` ${startUnit}`) ? `${startNumber} – ${end}` : `${start} – ${end}`;
  }
  const fmt = (v: number) => String(Number((v / scale).toFixed(3)));
  return `${fmt(r.start)} – ${fmt(r.end)} ${unit}`;
}
