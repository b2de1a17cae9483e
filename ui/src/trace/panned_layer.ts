// A layer of the trace viewer's timeline while panning (the rows and counters; the flow
// arrows over them): drawn into a bitmap a view's width wider
// on either side, which each frame copies shifted (one drawImage) instead of filling every box
// again; a fill per event costs a software rasterizer ~10 ms a frame at 10 M events. The view's
// part is drawn first, the margins a strip a frame; when the view nears the bitmap's edge, the
// bitmap moves its pixels back by whole device pixels and draws the strips that come in; a
// reply with the same tracks keeps the pixels it has and draws only where the last reply had no
// data. The bitmap starts anew when the zoom changes,
// the band of rows in sight moves, or what the layer shows changes (a fold, a search, a
// selection). Frames that are not a pan (zooming, scrolling up and down) draw directly, as a
// bitmap three views wide would cost three frames' drawing each.
import type { TimeRange } from './time_scale';
import type { Frame } from './trace_drawing';

// What a layer draws: a whole frame directly, or one strip of its bitmap.
export interface LayerPainter {
  drawFrame(g: CanvasRenderingContext2D, f: Frame): void;
  // The strip `f` (0 to f.width), with `g` clipped to it.
  drawStrip(g: CanvasRenderingContext2D, f: Frame): void;
  // Then, outside the clip, what may run on into the part drawn before (names): up to what
  // the bitmap holds with this strip, `from` to `to` in the strip's pixels.
  drawStripOverflow?(g: CanvasRenderingContext2D, f: Frame, from: number, to: number): void;
}

// Chromium refuses canvases wider than 32767 pixels; this keeps the bitmap's memory modest.
const MAX_BITMAP_DEVICE_PX = 12000;
// A pan keeps the zoom: the span may still change in its last bits from one frame to the next.
const SAME_DENSITY = 1e-6;
// How much of each margin is drawn per frame, in views' widths.
const FILL_PER_FRAME = 1 / 16;

// What the pixels show, apart from where the view is and which reply drew them.
export interface LayerLook {
  tracks: string; // where every track and row sits (the labels' layout)
  searchVersion: number;
  selectedEvent: number | undefined;
}

interface Key extends LayerLook {
  top: number;
  height: number;
  width: number;
  dpr: number;
}

function sameKey(a: Key, b: Key): boolean {
  return (
    a.tracks === b.tracks &&
    a.searchVersion === b.searchVersion &&
    a.selectedEvent === b.selectedEvent &&
    a.top === b.top &&
    a.height === b.height &&
    a.width === b.width &&
    a.dpr === b.dpr
  );
}

function sameRange(a: TimeRange | null, b: TimeRange | null): boolean {
  return a === b || (a !== null && b !== null && a.start === b.start && a.end === b.end);
}

function intersect(a: TimeRange | null, b: TimeRange | null): TimeRange | null {
  if (!a || !b) return null;
  const start = Math.max(a.start, b.start);
  const end = Math.min(a.end, b.end);
  return start < end ? { start, end } : null;
}

interface Bitmap {
  key: Key;
  psPerPx: number;
  start: number; // the time at the bitmap's left edge
  width: number; // CSS pixels
  margin: number; // CSS pixels either side of the view, when centred
  drawn: TimeRange | null; // the part drawn, from `layout` where `data` has it, blank beyond
  layout: Frame['layout'] | null; // the reply it was last drawn from
  data: TimeRange | null; // and what that reply spans
}

export interface DrawnLayer {
  view: TimeRange; // the view the pixels show: the frame's, or within half a device pixel of it
  fromBitmap: boolean;
}

// Where a bitmap's pixels go while it moves them back: one for every layer, as it holds
// nothing between frames.
let spare: HTMLCanvasElement | null = null;

export class PannedLayer {
  private bitmap = document.createElement('canvas');
  private built: Bitmap | null = null;
  private last: { key: Key; start: number; psPerPx: number } | null = null;
  builds = 0; // for tests and the bench: bitmaps started anew
  strips = 0; // and strips drawn into one

  // `opaque`: the layer is the first drawn, so a frame from the bitmap clears what was there.
  constructor(
    private readonly painter: LayerPainter,
    private readonly opaque: boolean,
  ) {}

  // Draws the frame's layer into `g` (sized by sizeCanvas for the frame's band).
  // `data`: what the reply behind `f.layout` spans.
  draw(g: CanvasRenderingContext2D, f: Frame, look: LayerLook, data: TimeRange | null): DrawnLayer {
    const dpr = window.devicePixelRatio || 1;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    const key: Key = { ...look, top: f.top, height: f.height, width: f.width, dpr };
    const sameDensity = (other: number) => Math.abs(other - psPerPx) <= psPerPx * SAME_DENSITY;
    const panning = this.last !== null && sameKey(this.last.key, key) && sameDensity(this.last.psPerPx) && this.last.start !== f.view.start;
    this.last = { key, start: f.view.start, psPerPx };
    const b = this.built;
    if (b && sameKey(b.key, key) && sameDensity(b.psPerPx)) {
      this.follow(b, f, dpr, data);
      const view = this.blit(b, g, f, dpr);
      if (view) return { view, fromBitmap: true };
    } else if (panning) {
      const fresh = this.start(f, key, psPerPx, dpr);
      this.follow(fresh, f, dpr, data);
      const view = this.blit(fresh, g, f, dpr);
      if (view) return { view, fromBitmap: true };
    }
    this.painter.drawFrame(g, f);
    return { view: f.view, fromBitmap: false };
  }

  // A blank bitmap centred on the view, at its density.
  private start(f: Frame, key: Key, psPerPx: number, dpr: number): Bitmap {
    const margin = Math.max(0, Math.min(f.width, (MAX_BITMAP_DEVICE_PX / dpr - f.width) / 2));
    const width = f.width + 2 * margin;
    this.bitmap.width = Math.round(width * dpr);
    this.bitmap.height = Math.round(f.height * dpr);
    ++this.builds;
    const b: Bitmap = { key, psPerPx, start: f.view.start - margin * psPerPx, width, margin, drawn: null, layout: null, data: null };
    this.built = b;
    return b;
  }

  // Keeps the view inside the bitmap (moving its pixels when the view nears an edge) and draws
  // what it lacks: at once what is in view, then the margins a little each frame (a fraction of
  // a view's width either side), so that no frame draws much more than a view's worth.
  private follow(b: Bitmap, f: Frame, dpr: number, data: TimeRange | null): void {
    const x = (f.view.start - b.start) / b.psPerPx; // the view's left edge on the bitmap
    if (x < b.margin / 2 || x + f.width > b.width - b.margin / 2) {
      const shift = Math.round((x - b.margin) * dpr); // device pixels; > 0: the view went right
      spare ??= document.createElement('canvas');
      if (spare.width !== this.bitmap.width || spare.height !== this.bitmap.height) {
        spare.width = this.bitmap.width;
        spare.height = this.bitmap.height;
      }
      const g = spare.getContext('2d');
      if (!g) return;
      g.setTransform(1, 0, 0, 1, 0, 0);
      g.clearRect(0, 0, spare.width, spare.height);
      if (Math.abs(shift) < this.bitmap.width) g.drawImage(this.bitmap, -shift, 0);
      [this.bitmap, spare] = [spare, this.bitmap];
      b.start += (shift / dpr) * b.psPerPx;
    }
    const whole = { start: b.start, end: b.start + b.width * b.psPerPx };
    // A new reply: what was drawn from the last one's data stays, what was drawn blank beyond it goes.
    if (b.layout !== f.layout || !sameRange(b.data, data)) {
      b.drawn = intersect(b.drawn, b.data);
      b.layout = f.layout;
      b.data = data;
    }
    let drawn = intersect(b.drawn, whole);
    const need = intersect(f.view, whole);
    if (need && (!drawn || need.start < drawn.start || need.end > drawn.end)) {
      if (drawn && need.start <= drawn.end && need.end >= drawn.start) {
        const after = { start: Math.min(drawn.start, need.start), end: Math.max(drawn.end, need.end) };
        if (need.start < drawn.start) this.drawStrip(b, f, dpr, { start: need.start, end: drawn.start }, after);
        if (need.end > drawn.end) this.drawStrip(b, f, dpr, { start: drawn.end, end: need.end }, after);
        drawn = after;
      } else {
        this.drawStrip(b, f, dpr, need, need);
        drawn = need;
      }
    }
    if (drawn) {
      const step = f.width * FILL_PER_FRAME * b.psPerPx;
      if (drawn.start > whole.start) {
        const after = { start: Math.max(whole.start, drawn.start - step), end: drawn.end };
        this.drawStrip(b, f, dpr, { start: after.start, end: drawn.start }, after);
        drawn = after;
      }
      if (drawn.end < whole.end) {
        const after = { start: drawn.start, end: Math.min(whole.end, drawn.end + step) };
        this.drawStrip(b, f, dpr, { start: drawn.end, end: after.end }, after);
        drawn = after;
      }
    }
    b.drawn = drawn;
  }

  // Draws a time range of the bitmap anew from the frame's layout, within whole device pixels:
  // its boxes inside it, then their names, which may run on into `drawn` (what the bitmap
  // holds with this strip).
  private drawStrip(b: Bitmap, f: Frame, dpr: number, part: TimeRange, drawn: TimeRange): void {
    const x0 = Math.max(0, Math.floor(((part.start - b.start) / b.psPerPx) * dpr));
    const x1 = Math.min(this.bitmap.width, Math.ceil(((part.end - b.start) / b.psPerPx) * dpr));
    const g = this.bitmap.getContext('2d');
    if (!g || x1 <= x0) return;
    const width = (x1 - x0) / dpr;
    const start = b.start + (x0 / dpr) * b.psPerPx;
    const strip: Frame = {
      ...f,
      view: { start, end: start + width * b.psPerPx },
      width,
      viewWidth: f.width,
      noLabels: true,
      maxLabels: Math.ceil((f.maxLabels ?? 1500) * (width / f.width)),
    };
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.beginPath();
    g.rect(x0, 0, x1 - x0, this.bitmap.height);
    g.clip();
    g.setTransform(dpr, 0, 0, dpr, x0, -f.top * dpr);
    this.painter.drawStrip(g, strip);
    g.restore();
    ++this.strips;
    if (!this.painter.drawStripOverflow) return;
    g.save();
    g.setTransform(dpr, 0, 0, dpr, x0, -f.top * dpr);
    const from = Math.max(0, (drawn.start - b.start) / b.psPerPx) - x0 / dpr;
    const to = Math.min(b.width, (drawn.end - b.start) / b.psPerPx) - x0 / dpr;
    this.painter.drawStripOverflow(g, strip, from, to);
    g.restore();
  }

  // Copies the bitmap's part in view, shifted by whole device pixels (a fractional shift
  // would blur every edge); null when the view is not inside it.
  private blit(b: Bitmap, g: CanvasRenderingContext2D, f: Frame, dpr: number): TimeRange | null {
    const sx = Math.round(((f.view.start - b.start) / b.psPerPx) * dpr);
    const w = Math.round(f.width * dpr);
    if (sx < 0 || sx + w > this.bitmap.width) return null;
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    if (this.opaque) g.clearRect(0, 0, g.canvas.width, g.canvas.height);
    g.drawImage(this.bitmap, sx, 0, w, this.bitmap.height, 0, 0, w, this.bitmap.height);
    g.restore();
    const start = b.start + (sx / dpr) * b.psPerPx;
    return { start, end: start + (f.view.end - f.view.start) };
  }
}
