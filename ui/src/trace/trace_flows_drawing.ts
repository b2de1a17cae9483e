// The trace viewer's flow arrows (launch → kernel, producer → consumer): the visible events'
// (when shown) in one thin grey path, at most about MAX_FLOWS_PER_FRAME of them; then the
// selected event's, highlighted on top.
import type { TraceEventDetails, TraceViewportFlow } from './trace_api';
import { yOfEvent, type Layout } from './trace_layout';

// When more are in sight, every k-th, so that all tracks keep some.
const MAX_FLOWS_PER_FRAME = 600;

export type Segment = [number, number, number, number]; // x0, y0, x1, y1

export interface FlowsDrawn {
  drawn: number; // the visible events' arrows
  selectedDrawn: number;
}

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
    const a = Math.atan2(y1 - y0, x1 - x0);
    g.moveTo(x1, y1);
    g.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
    g.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
    g.closePath();
  }
  g.fill();
}

export function drawFlows(
  g: CanvasRenderingContext2D,
  layout: Layout,
  xOf: (ps: number) => number,
  width: number,
  visibleFlows: TraceViewportFlow[] | null, // null: the visible events' flows are hidden
  selected: TraceEventDetails | null,
): FlowsDrawn {
  const segment = (from: number, fromLine: number, fromPs: number, to: number, toLine: number, toPs: number): Segment | null => {
    const x0 = xOf(fromPs);
    const x1 = xOf(toPs);
    if ((x0 < 0 && x1 < 0) || (x0 > width && x1 > width)) return null;
    const y0 = yOfEvent(layout, from, fromLine);
    const y1 = yOfEvent(layout, to, toLine);
    if (y0 === null || y1 === null) return null;
    return [x0, y0, x1, y1];
  };
  let drawn = 0;
  let selectedDrawn = 0;
  const selectedEvent = selected?.event;
  if (visibleFlows) {
    let list: Segment[] = [];
    for (const [from, to, , fromLine, fromPs, toLine, toPs] of visibleFlows) {
      if (from === selectedEvent || to === selectedEvent) continue;
      const s = segment(from, fromLine, fromPs, to, toLine, toPs);
      if (s) list.push(s);
    }
    if (list.length > MAX_FLOWS_PER_FRAME) {
      const stride = Math.ceil(list.length / MAX_FLOWS_PER_FRAME);
      list = list.filter((_, i) => i % stride === 0);
    }
    arrows(g, list, 'rgba(95, 99, 104, 0.55)', 1);
    drawn = list.length;
  }
  if (selected) {
    const list: Segment[] = [];
    for (const f of selected.flows) {
      const s =
        f.direction === 'out'
          ? segment(selected.event, selected.line_index, selected.start_ps, f.event, f.line_index, f.start_ps)
          : segment(f.event, f.line_index, f.start_ps, selected.event, selected.line_index, selected.start_ps);
      if (s) list.push(s);
    }
    arrows(g, list, '#d93025', 2);
    selectedDrawn = list.length;
  }
  return { drawn, selectedDrawn };
}
