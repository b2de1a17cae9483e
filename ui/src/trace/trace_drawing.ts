// Painting the trace viewer's canvases: the rows in sight with their boxes and labels, the
// measured interval, and the time axis. Only what lies in the visible band and time range is
// drawn (found by binary search within a row), so a frame costs what is on screen.
import { formatBytes } from '../format';
import { axisLabels, formatPs, type TimeRange } from './time_scale';
import type { TraceEventBox } from './trace_api';
import type { LayerPainter } from './panned_layer';
import { COUNTER_PX, nameColours, firstEndingAfter, lastAtOrBefore, ROW_PX, type CounterPlace, type Layout, type RowPlace } from './trace_layout';

export const AXIS_PX = 24;
// Names drawn inside boxes: in any box with room for a few letters, and at most this many per
// frame (text is the dearest thing a frame draws).
const MIN_LABEL_PX = 18;
const MAX_LABELS_PER_FRAME = 1500;
// Runs of events under a pixel wide, merged: a flat grey (a pattern fill costs far more to
// raster than the boxes themselves).
const MERGED_FILL = '#bdc1c6';

export interface Frame {
  layout: Layout;
  names: Record<string, string>;
  view: TimeRange;
  width: number; // CSS pixels
  top: number; // the visible band, in layout pixels
  height: number;
  matchedNames: Set<number>; // search matches (the others dim while searching)
  matchedLines: Set<number> | null; // the tracks the search looks at (null: all)
  selectedEvent: number | undefined;
  measure: TimeRange | null;
  noLabels?: boolean; // boxes only (a panned bitmap's strip, named by drawStripLabels)
  viewWidth?: number; // a strip's: the width of the view it is part of
  maxLabels?: number;
}

// Sizes a canvas for the device's pixels; drawing then uses CSS pixels, shifted up by `top`.
export function sizeCanvas(c: HTMLCanvasElement, width: number, height: number, top = 0): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  const cssHeight = `${height}px`;
  if (c.style.height !== cssHeight) c.style.height = cssHeight;
  if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
    c.width = Math.round(width * dpr);
    c.height = Math.round(height * dpr);
  }
  const g = c.getContext('2d');
  g?.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
  return g;
}

// The rows and counters are the first layer of a frame (panned_layer.ts).
export class TimelinePainter implements LayerPainter {
  drawFrame(g: CanvasRenderingContext2D, f: Frame): void {
    this.drawRows(g, f);
    this.drawCounters(g, f);
  }

  drawStrip(g: CanvasRenderingContext2D, f: Frame): void {
    this.drawFrame(g, f);
  }

  drawStripOverflow(g: CanvasRenderingContext2D, f: Frame, from: number, to: number): void {
    this.drawStripLabels(g, f, from, to);
  }

  // Text widths are measured once per name (and per shortened name): measuring and clipping
  // every box each frame costs more than drawing it.
  private readonly textWidths = new Map<string, number>();

  drawRows(g: CanvasRenderingContext2D, f: Frame): void {
    const { layout, width } = f;
    const top = f.top - ROW_PX;
    const bottom = f.top + f.height + ROW_PX;
    g.clearRect(0, f.top, width, f.height);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    g.fillStyle = '#f1f3f4';
    for (const l of layout.labels) if (l.kind === 'section' && l.y + l.height >= top && l.y <= bottom) g.fillRect(0, l.y, width, l.height);
    const psPerPx = (f.view.end - f.view.start) / width;
    const viewStart = f.view.start;
    const xOf = (ps: number) => (ps - viewStart) / psPerPx;
    const searching = f.matchedNames.size > 0;
    const colourOf = nameColours(f.names);
    let labels = 0;
    const maxLabels = f.maxLabels ?? MAX_LABELS_PER_FRAME;
    for (const place of layout.rows) {
      if (place.y + ROW_PX < top || place.y > bottom) continue;
      const y = place.y + 1;
      const hgt = ROW_PX - 2;
      const merged = place.row.merged;
      if (merged.length) {
        // Zoomed out, merged boxes fill neighbouring pixel columns: one rectangle per run of
        // touching boxes instead of one per column.
        g.fillStyle = MERGED_FILL;
        let runStart = NaN;
        let runEnd = NaN;
        for (let i = firstEndingAfter(merged, viewStart); i < merged.length; ++i) {
          const box = merged[i];
          const x0 = xOf(box[0]);
          if (x0 > width) break;
          const x1 = Math.max(xOf(box[0] + box[1]), x0 + 1);
          if (x0 <= runEnd + 0.5) {
            runEnd = Math.max(runEnd, x1);
            continue;
          }
          if (runEnd > runStart) g.fillRect(runStart, y, runEnd - runStart, hgt);
          runStart = x0;
          runEnd = x1;
        }
        if (runEnd > runStart) g.fillRect(runStart, y, runEnd - runStart, hgt);
      }
      const events = place.row.events;
      const inScope = searching && (!f.matchedLines || f.matchedLines.has(place.line));
      let fill = ''; // setting the same fill again still parses it: skip that
      for (let i = firstEndingAfter(events, viewStart); i < events.length; ++i) {
        const [start, dur, nameId, event] = events[i];
        const x0 = xOf(start);
        if (x0 > width) break;
        const x1 = Math.max(xOf(start + dur), x0 + 1);
        const matched = inScope && f.matchedNames.has(nameId);
        const dim = searching && !matched;
        if (dim) g.globalAlpha = 0.35;
        const colour = colourOf(nameId);
        if (colour !== fill) g.fillStyle = fill = colour;
        g.fillRect(x0, y, x1 - x0, hgt);
        if (dim) g.globalAlpha = 1;
        if (matched || f.selectedEvent === event) {
          fill = '';
          this.outline(g, f.selectedEvent === event, x0, x1, y, hgt);
        }
        if (f.noLabels) continue;
        const vx0 = Math.max(x0, 0);
        const vw = Math.min(x1, width) - vx0;
        if (vw > MIN_LABEL_PX && labels < maxLabels) {
          ++labels;
          this.label(g, f.names[String(nameId)] ?? '', vx0 + 3, y + hgt / 2, vw - 5, dim);
          fill = '';
        }
      }
    }
  }

  // The names of a panned bitmap's strip (the frame: 0 to f.width), drawn after its boxes and
  // outside its clip, so that a name may run on into the box's part drawn before: every box
  // in the strip that starts at or after `from` and is wide enough, named up to `to` (the
  // bitmap's drawn part, in the strip's pixels). Each box is painted again under its name, so
  // a name drawn before (cut shorter, by the edge of what was drawn then) does not show
  // through. Boxes that start left of `from` are named by drawEdgeLabels when in view.
  drawStripLabels(g: CanvasRenderingContext2D, f: Frame, from: number, to: number): void {
    const top = f.top - ROW_PX;
    const bottom = f.top + f.height + ROW_PX;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    const paint = this.boxPainter(g, f);
    let labels = 0;
    const maxLabels = f.maxLabels ?? MAX_LABELS_PER_FRAME;
    for (const place of f.layout.rows) {
      if (place.y + ROW_PX < top || place.y > bottom) continue;
      const events = place.row.events;
      for (let i = firstEndingAfter(events, f.view.start); i < events.length && labels < maxLabels; ++i) {
        const box = events[i];
        const x0 = (box[0] - f.view.start) / psPerPx;
        if (x0 > f.width) break;
        const right = Math.min((box[0] + box[1] - f.view.start) / psPerPx, to);
        if (x0 < from || right - x0 <= MIN_LABEL_PX) continue;
        ++labels;
        paint(place, box, x0, right, x0, right);
      }
    }
  }

  // The boxes cut by either edge of the frame, painted again within it and named there as a
  // fresh drawing names them: a panned bitmap named them where it had room, past the edges
  // (the left edge would hide the name's start, the right one cut it mid-letter).
  drawEdgeLabels(g: CanvasRenderingContext2D, f: Frame): void {
    const top = f.top - ROW_PX;
    const bottom = f.top + f.height + ROW_PX;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    const xOf = (ps: number) => (ps - f.view.start) / psPerPx;
    const paint = this.boxPainter(g, f);
    for (const place of f.layout.rows) {
      if (place.y + ROW_PX < top || place.y > bottom) continue;
      const events = place.row.events;
      const i = firstEndingAfter(events, f.view.start);
      if (i < events.length && events[i][0] < f.view.start) {
        const box = events[i];
        paint(place, box, xOf(box[0]), xOf(box[0] + box[1]), 0, Math.min(f.width, xOf(box[0] + box[1])));
      }
      // The last box that starts in the frame, when it ends past it.
      const j = firstEndingAfter(events, f.view.end);
      if (j < events.length && events[j][0] >= f.view.start && events[j][0] < f.view.end) {
        const box = events[j];
        paint(place, box, xOf(box[0]), xOf(box[0] + box[1]), xOf(box[0]), f.width);
      }
    }
  }

  // Paints a box (x0 to x1) again from `left` to `right` and names it there when there is
  // room: as drawRows would, but over what is there already.
  private boxPainter(g: CanvasRenderingContext2D, f: Frame) {
    const searching = f.matchedNames.size > 0;
    const colourOf = nameColours(f.names);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const hgt = ROW_PX - 2;
    return (place: RowPlace, box: TraceEventBox, x0: number, x1: number, left: number, right: number) => {
      const [, , nameId, event] = box;
      const y = place.y + 1;
      const matched = searching && (!f.matchedLines || f.matchedLines.has(place.line)) && f.matchedNames.has(nameId);
      const dim = searching && !matched;
      g.fillStyle = colourOf(nameId);
      // A dimmed box is see-through: clear it first, as the first was drawn on nothing.
      g.clearRect(left, y, right - left, hgt);
      if (dim) g.globalAlpha = 0.35;
      g.fillRect(left, y, right - left, hgt);
      g.globalAlpha = 1;
      if (matched || f.selectedEvent === event) this.outline(g, f.selectedEvent === event, x0, Math.max(x1, x0 + 1), y, hgt);
      if (right - left > MIN_LABEL_PX) this.label(g, f.names[String(nameId)] ?? '', left + 3, y + hgt / 2, right - left - 5, dim);
    };
  }

  private outline(g: CanvasRenderingContext2D, selected: boolean, x0: number, x1: number, y: number, hgt: number): void {
    g.strokeStyle = selected ? '#202124' : '#c5221f';
    g.lineWidth = 2;
    g.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), hgt - 2);
  }

  // Counter tracks: per pixel column the highest value in it (a peak stays visible however far
  // out the view is), drawn as one rectangle per run of equal columns with a darker top edge.
  // Rectangles only: a filled path of thousands of points costs a software rasterizer far
  // more than the frame's budget.
  private columnMax = new Float64Array(0);
  drawCounters(g: CanvasRenderingContext2D, f: Frame): void {
    const width = Math.ceil(f.width);
    if (this.columnMax.length < width) this.columnMax = new Float64Array(width);
    const cols = this.columnMax;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    for (const place of f.layout.counters) {
      if (place.y + COUNTER_PX < f.top || place.y > f.top + f.height) continue;
      const pts = place.counter.points;
      cols.fill(0, 0, width);
      // Each point's value holds from its time to the next point's.
      const first = Math.max(0, lastAtOrBefore(pts, f.view.start));
      for (let i = first; i < pts.length; ++i) {
        const x0 = Math.max(0, Math.floor((pts[i][0] - f.view.start) / psPerPx));
        if (x0 >= width) break;
        const next = i + 1 < pts.length ? (pts[i + 1][0] - f.view.start) / psPerPx : width;
        const x1 = Math.min(width, Math.max(x0 + 1, Math.ceil(next)));
        const v = pts[i][1];
        for (let x = x0; x < x1; ++x) if (v > cols[x]) cols[x] = v;
      }
      const base = place.y + COUNTER_PX - 1;
      const scale = place.max > 0 ? (COUNTER_PX - 4) / place.max : 0;
      const bytes = place.counter.unit === 'bytes';
      const fill = bytes ? '#e4d2f7' : '#c6dafc';
      const edge = bytes ? '#8430ce' : '#1967d2';
      for (let x = 0; x < width; ) {
        const v = cols[x];
        let end = x + 1;
        while (end < width && cols[end] === v) ++end;
        const h = v * scale;
        if (h > 0) {
          g.fillStyle = fill;
          g.fillRect(x, base - h, end - x, h);
        }
        g.fillStyle = edge;
        g.fillRect(x, base - h - 1, end - x, 1);
        x = end;
      }
    }
  }

  // Each counter track's scale at the frame's right edge, on a white patch so the line under
  // it does not cross the text (apart from drawCounters: a panned bitmap's right edge is not
  // the frame's).
  drawCounterScales(g: CanvasRenderingContext2D, f: Frame): void {
    g.font = '10px system-ui, sans-serif';
    g.textBaseline = 'top';
    for (const place of f.layout.counters) {
      if (place.y + COUNTER_PX < f.top || place.y > f.top + f.height) continue;
      const text = `max ${formatCounter(place, place.max)}`;
      const w = g.measureText(text).width;
      g.fillStyle = 'rgba(255, 255, 255, 0.85)';
      g.fillRect(f.width - w - 8, place.y, w + 8, 12);
      g.fillStyle = '#5f6368';
      g.fillText(text, f.width - w - 4, place.y + 1);
    }
    g.textBaseline = 'middle';
  }

  drawMeasure(g: CanvasRenderingContext2D, f: Frame): void {
    if (!f.measure) return;
    const xOf = (ps: number) => ((ps - f.view.start) / (f.view.end - f.view.start)) * f.width;
    const x0 = xOf(f.measure.start);
    const x1 = xOf(f.measure.end);
    g.fillStyle = 'rgba(26, 115, 232, 0.12)';
    g.fillRect(Math.min(x0, x1), 0, Math.abs(x1 - x0), f.layout.height);
    g.strokeStyle = '#1a73e8';
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(x0, 0);
    g.lineTo(x0, f.layout.height);
    g.moveTo(x1, 0);
    g.lineTo(x1, f.layout.height);
    g.stroke();
  }

  // An event's name inside its box, cut to the room there is (never wider: a panned bitmap
  // relies on it).
  private label(g: CanvasRenderingContext2D, text: string, x: number, y: number, room: number, dim: boolean): void {
    const w = this.textWidth(g, text);
    let shown = text;
    if (w > room) {
      // A first guess from the average letter, shortened until it fits.
      for (let chars = Math.floor((room / w) * text.length) - 1; ; --chars) {
        if (chars < 2) return;
        shown = text.slice(0, chars) + '…';
        if (this.textWidth(g, shown) <= room) break;
      }
    }
    g.fillStyle = dim ? '#5f6368' : '#202124';
    g.fillText(shown, x, y);
  }

  private textWidth(g: CanvasRenderingContext2D, text: string): number {
    let w = this.textWidths.get(text);
    if (w === undefined) {
      w = g.measureText(text).width;
      this.textWidths.set(text, w);
    }
    return w;
  }
}

export function formatCounter(place: CounterPlace, value: number): string {
  return place.counter.unit === 'bytes' ? formatBytes(value) : value.toLocaleString();
}

// `plotWidth`: the timeline canvas's width, which the axis's x follows (the axis may be wider,
// over the scroller's scrollbar).
export function drawAxis(axis: HTMLCanvasElement, view: TimeRange, plotWidth: number, measure: TimeRange | null): void {
  const width = axis.clientWidth || plotWidth;
  const g = sizeCanvas(axis, width, AXIS_PX);
  if (!g) return;
  const xOf = (ps: number) => ((ps - view.start) / (view.end - view.start)) * plotWidth;
  g.clearRect(0, 0, width, AXIS_PX);
  g.font = '11px system-ui, sans-serif';
  g.fillStyle = '#5f6368';
  g.strokeStyle = '#dadce0';
  g.textBaseline = 'top';
  const labels = axisLabels(view, Math.max(2, Math.floor(plotWidth / 110)));
  // The measured span's label, on a patch of its own over the ticks' labels: a tick's label it
  // would half cover ("126.1 ms ms") gives way.
  const measured = measure ? formatPs(Math.abs(measure.end - measure.start)) : '';
  const measuredWidth = measured ? g.measureText(measured).width : 0;
  const measuredX = measure ? (xOf(measure.start) + xOf(measure.end)) / 2 - measuredWidth / 2 : 0;
  // What the axis says, for screen readers and tests (a canvas's text cannot be read).
  const said = `Time axis: ${labels.map((l) => l.text).join(', ')}`;
  if (axis.getAttribute('aria-label') !== said) axis.setAttribute('aria-label', said);
  for (const { t, text } of labels) {
    const x = Math.round(xOf(t)) + 0.5;
    g.beginPath();
    g.moveTo(x, AXIS_PX - 8);
    g.lineTo(x, AXIS_PX);
    g.stroke();
    // A label that would run past the right edge goes left of its tick instead.
    const w = g.measureText(text).width;
    const left = x + 3 + w > width ? x - 3 - w : x + 3;
    if (measured && left < measuredX + measuredWidth + 4 && left + w > measuredX - 4) continue;
    g.fillText(text, left, 4);
  }
  if (measured) {
    g.fillStyle = '#e8f0fe';
    g.fillRect(measuredX - 4, 2, measuredWidth + 8, 15);
    g.fillStyle = '#1a73e8';
    g.fillText(measured, measuredX, 4);
  }
}
