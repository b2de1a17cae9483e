// The trace viewer's flow arrows (launch → kernel, producer → consumer): the visible events'
// (when shown) in one thin grey path, at most about MAX_FLOWS_PER_VIEW of them in a view's width
// (flow_segments.ts); then the selected event's, highlighted on top. The grey ones are a layer
// of their own while panning (panned_layer.ts): stroking hundreds of lines costs a software
// rasterizer several milliseconds a frame.
import type { TimeRange } from './time_scale';
import type { TraceEventDetails, TraceViewportFlow } from './trace_api';
import type { Frame } from './trace_drawing';
import type { LayerPainter } from './panned_layer';
import { FlowSegments } from './flow_segments';
import { yOfEvent, type Layout } from './trace_layout';

export type Segment = [number, number, number, number]; // x0, y0, x1, y1

const GREY = 'rgba(95, 99, 104, 0.55)';
const HEAD_PX = 7; // an arrowhead's length
const HEAD_COS = Math.cos(0.4);
const HEAD_SIN = Math.sin(0.4);

export function arrows(g: CanvasRenderingContext2D, list: Segment[], colour: string, lineWidth: number): void {
  g.strokeStyle = colour;
  g.fillStyle = colour;
  g.lineWidth = lineWidth;
  g.beginPath();
  for (const [x0, y0, x1, y1] of list) {
    g.moveTo(x0, y0);
    g.lineTo(x1, y1);
  }
  g.stroke();
  g.beginPath();
  for (const [x0, y0, x1, y1] of list) {
    // The head's two sides: the arrow's direction turned back by ±0.4 rad.
    const len = Math.hypot(x1 - x0, y1 - y0) || 1;
    const ux = (x1 - x0) / len;
    const uy = (y1 - y0) / len;
    g.moveTo(x1, y1);
    g.lineTo(x1 - HEAD_PX * (ux * HEAD_COS + uy * HEAD_SIN), y1 - HEAD_PX * (uy * HEAD_COS - ux * HEAD_SIN));
    g.lineTo(x1 - HEAD_PX * (ux * HEAD_COS - uy * HEAD_SIN), y1 - HEAD_PX * (uy * HEAD_COS + ux * HEAD_SIN));
    g.closePath();
  }
  g.fill();
}

// The visible events' arrows, as a layer: each frame's (or strip's) from the reply's index.
export class FlowArrows implements LayerPainter {
  private segments: FlowSegments | null = null;

  // The index for this reply, layout and selection (built when one of them changes).
  use(layout: Layout, flows: TraceViewportFlow[], selectedEvent: number | undefined): void {
    const key = { layout, flows, selectedEvent };
    if (!this.segments?.matches(key)) this.segments = new FlowSegments(key);
  }

  // The arrows a frame of this view shows (for tests and scripts).
  countInView(view: TimeRange): number {
    let n = 0;
    this.segments?.forEachIn(view, 0, this.segments.stride(view.end - view.start), () => ++n);
    return n;
  }

  drawFrame(g: CanvasRenderingContext2D, f: Frame): void {
    this.draw(g, f, f.width);
  }

  drawStrip(g: CanvasRenderingContext2D, f: Frame): void {
    g.clearRect(0, f.top, f.width, f.height);
    // The stride follows the whole view's span, not the strip's.
    this.draw(g, f, f.viewWidth ?? f.width);
  }

  private draw(g: CanvasRenderingContext2D, f: Frame, viewWidth: number): void {
    const s = this.segments;
    if (!s) return;
    const psPerPx = (f.view.end - f.view.start) / f.width;
    const top = f.top;
    const bottom = f.top + f.height;
    const list: Segment[] = [];
    // An arrowhead reaches HEAD_PX back from its tip, into a neighbouring strip.
    s.forEachIn(f.view, (HEAD_PX + 1) * psPerPx, s.stride(viewWidth * psPerPx), (fromPs, y0, toPs, y1) => {
      if (Math.max(y0, y1) < top || Math.min(y0, y1) > bottom) return;
      list.push([(fromPs - f.view.start) / psPerPx, y0, (toPs - f.view.start) / psPerPx, y1]);
    });
    arrows(g, list, GREY, 1);
  }
}

// The selected event's arrows, red, over everything; returns how many.
export function drawSelectedFlows(g: CanvasRenderingContext2D, layout: Layout, xOf: (ps: number) => number, width: number, selected: TraceEventDetails | null): number {
  if (!selected) return 0;
  const segment = (from: number, fromLine: number, fromPs: number, to: number, toLine: number, toPs: number): Segment | null => {
    const x0 = xOf(fromPs);
    const x1 = xOf(toPs);
    if ((x0 < 0 && x1 < 0) || (x0 > width && x1 > width)) return null;
    const y0 = yOfEvent(layout, from, fromLine);
    const y1 = yOfEvent(layout, to, toLine);
    if (y0 === null || y1 === null) return null;
    return [x0, y0, x1, y1];
  };
  const list: Segment[] = [];
  for (const f of selected.flows) {
    const s =
      f.direction === 'out'
        ? segment(selected.event, selected.line_index, selected.start_ps, f.event, f.line_index, f.start_ps)
        : segment(f.event, f.line_index, f.start_ps, selected.event, selected.line_index, selected.start_ps);
    if (s) list.push(s);
  }
  arrows(g, list, '#d93025', 2);
  return list.length;
}
