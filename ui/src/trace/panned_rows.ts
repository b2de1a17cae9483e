// The trace viewer's rows and counters while panning: drawn once into a bitmap a view's width
// wider on either side, which each frame copies shifted (one drawImage) instead of filling
// every box again; a fill per event costs a software rasterizer ~10 ms a frame at 10 M
// events. The bitmap is drawn again when the view leaves it, the zoom changes, the band of
// rows in sight moves, or what the rows show changes (a reply, a fold, a search, a selection).
// Frames that are not a pan (zooming, scrolling up and down) draw directly, as a bitmap three
// views wide would cost three frames' drawing each.
import type { TimeRange } from './time_scale';
import type { Frame, TimelinePainter } from './trace_drawing';

// Chromium refuses canvases wider than 32767 pixels; this keeps the bitmap's memory modest.
const MAX_BITMAP_DEVICE_PX = 12000;
// A pan keeps the zoom: the span may still change in its last bits from one frame to the next.
const SAME_DENSITY = 1e-6;

// What the rows look like, apart from where the view is.
interface Content {
  layout: Frame['layout'];
  names: Frame['names'];
  searchVersion: number;
  matchedLines: Frame['matchedLines'];
  selectedEvent: Frame['selectedEvent'];
  top: number;
  height: number;
  width: number;
  dpr: number;
}

function sameContent(a: Content, b: Content): boolean {
  return (
    a.layout === b.layout &&
    a.names === b.names &&
    a.searchVersion === b.searchVersion &&
    a.matchedLines === b.matchedLines &&
    a.selectedEvent === b.selectedEvent &&
    a.top === b.top &&
    a.height === b.height &&
    a.width === b.width &&
    a.dpr === b.dpr
  );
}

export interface DrawnRows {
  view: TimeRange; // the view the pixels show: the frame's, or within half a device pixel of it
  fromBitmap: boolean;
}

export class PannedRows {
  private readonly bitmap = document.createElement('canvas');
  private built: { content: Content; start: number; psPerPx: number } | null = null;
  private last: { content: Content; start: number; psPerPx: number } | null = null;
  builds = 0; // for tests and the bench: how often the bitmap was drawn

  // Draws the frame's rows and counters into `g` (sized by sizeCanvas for the frame's band).
  draw(g: CanvasRenderingContext2D, f: Frame, painter: TimelinePainter, searchVersion: number): DrawnRows {
    const dpr = window.devicePixelRatio || 1;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    const content: Content = {
      layout: f.layout,
      names: f.names,
      searchVersion,
      matchedLines: f.matchedLines,
      selectedEvent: f.selectedEvent,
      top: f.top,
      height: f.height,
      width: f.width,
      dpr,
    };
    const sameDensity = (other: number) => Math.abs(other - psPerPx) <= psPerPx * SAME_DENSITY;
    const panning = this.last !== null && sameContent(this.last.content, content) && sameDensity(this.last.psPerPx) && this.last.start !== f.view.start;
    this.last = { content, start: f.view.start, psPerPx };
    const fresh = this.built !== null && sameContent(this.built.content, content) && sameDensity(this.built.psPerPx);
    let drawn = fresh ? this.blit(g, f, psPerPx, dpr) : null;
    if (drawn) return { view: drawn, fromBitmap: true };
    if (panning) {
      this.build(f, content, painter, psPerPx, dpr);
      drawn = this.blit(g, f, psPerPx, dpr);
      if (drawn) return { view: drawn, fromBitmap: true };
    }
    painter.drawRows(g, f);
    painter.drawCounters(g, f);
    return { view: f.view, fromBitmap: false };
  }

  // The bitmap spans the view and up to a view's width either side, at the view's density.
  private build(f: Frame, content: Content, painter: TimelinePainter, psPerPx: number, dpr: number): void {
    const margin = Math.max(0, Math.min(f.width, (MAX_BITMAP_DEVICE_PX / dpr - f.width) / 2));
    const width = f.width + 2 * margin;
    const start = f.view.start - margin * psPerPx;
    const c = this.bitmap;
    const w = Math.round(width * dpr);
    const h = Math.round(f.height * dpr);
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, -f.top * dpr);
    g.clearRect(0, f.top, width, f.height);
    const frame: Frame = {
      ...f,
      view: { start, end: start + width * psPerPx },
      width,
      labelsAtStart: true,
      maxLabels: Math.round((f.maxLabels ?? 1500) * (width / f.width)),
    };
    painter.drawRows(g, frame);
    painter.drawCounters(g, frame);
    this.built = { content, start, psPerPx };
    ++this.builds;
  }

  // Copies the bitmap's part in view, shifted by whole device pixels (a fractional shift
  // would blur every edge); null when the view is not inside it.
  private blit(g: CanvasRenderingContext2D, f: Frame, psPerPx: number, dpr: number): TimeRange | null {
    if (!this.built) return null;
    const sx = Math.round(((f.view.start - this.built.start) / psPerPx) * dpr);
    const w = Math.round(f.width * dpr);
    if (sx < 0 || sx + w > this.bitmap.width) return null;
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, g.canvas.width, g.canvas.height);
    g.drawImage(this.bitmap, sx, 0, w, this.bitmap.height, 0, 0, w, this.bitmap.height);
    g.restore();
    const start = this.built.start + (sx / dpr) * psPerPx;
    return { start, end: start + (f.view.end - f.view.start) };
  }
}
