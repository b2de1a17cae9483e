// The trace viewer's mouse and keys: the wheel zooms around the pointer (sideways pans), W/S
// zoom and A/D pan, a drag pans, a shift-drag (or a drag in measure mode) measures, a click
// selects the event under it, and hovering names it in a tooltip.
import { formatPs, panRange, type TimeRange } from './time_scale';
import type { CounterPlace, Hit } from './trace_layout';

export interface InputHost {
  canvas: HTMLCanvasElement;
  view(): TimeRange;
  total(): number;
  plotWidth(): number;
  setView(r: TimeRange): void;
  zoom(factor: number, anchor: number): void;
  hit(x: number, y: number): Hit | null; // x, y: CSS pixels on the canvas
  measuring(): boolean; // measure mode is on
  setMeasure(r: TimeRange | null): void;
  measured(y0: number, y1: number): void; // a range selection ended; the band it crossed (canvas y)
  select(event: number): void;
  tooltip(text: string | null, clientX: number, clientY: number): void;
  names(): Record<string, string>;
  longNames(): Record<string, string>; // an HLO op's whole instruction text, shown under its name
  counterText(place: CounterPlace, value: number): string;
}

type Listen = <K extends keyof HTMLElementEventMap>(
  target: HTMLElement | Document | Window,
  type: K,
  fn: (e: HTMLElementEventMap[K]) => void,
  options?: AddEventListenerOptions,
) => () => void; // returns what removes the listener

// Adds the listeners through `on`, which removes them when the page goes.
export function listenTraceInput(host: InputHost, on: Listen): void {
  const anchorOf = (x: number) => Math.min(1, Math.max(0, x / host.plotWidth()));
  on(
    host.canvas,
    'wheel',
    (e) => {
      e.preventDefault();
      const view = host.view();
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        host.setView(panRange(view, (e.deltaX / host.plotWidth()) * (view.end - view.start), host.total()));
      } else {
        host.zoom(Math.pow(1.0015, e.deltaY), anchorOf(e.offsetX));
      }
    },
    { passive: false },
  );
  on(document, 'keydown', (e) => {
    const target = e.target as HTMLElement | null;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const view = host.view();
    const span = view.end - view.start;
    const key = e.key.toLowerCase();
    if (key === 'w') host.zoom(0.8, 0.5);
    else if (key === 's') host.zoom(1.25, 0.5);
    else if (key === 'a') host.setView(panRange(view, -span * 0.15, host.total()));
    else if (key === 'd') host.setView(panRange(view, span * 0.15, host.total()));
    else return;
    e.preventDefault();
  });
  on(host.canvas, 'mousedown', (e) => drag(host, e, on));
  on(host.canvas, 'mousemove', (e) => {
    const found = host.hit(e.offsetX, e.offsetY);
    if (!found) {
      host.tooltip(null, 0, 0);
      return;
    }
    const text = found.counter
      ? `${found.counter.counter.name}: ${host.counterText(found.counter, found.value ?? 0)}`
      : found.count !== undefined
        ? `${found.count.toLocaleString()} events merged (each under a pixel) · ${formatPs(found.dur)}`
        : hoverName(host, String(found.nameId), found.dur);
    host.tooltip(text, e.clientX, e.clientY);
  });
  on(host.canvas, 'mouseleave', () => host.tooltip(null, 0, 0));
}

function hoverName(host: InputHost, nameId: string, dur: number): string {
  const line = `${host.names()[nameId] ?? ''} · ${formatPs(dur)}`;
  const long = host.longNames()[nameId];
  return long ? `${line}\n${long}` : line;
}

function drag(host: InputHost, down: MouseEvent, on: Listen): void {
  if (down.button !== 0) return;
  down.preventDefault();
  const startX = down.offsetX;
  const startY = down.offsetY;
  const startView = host.view();
  const measuring = down.shiftKey || host.measuring();
  const psOf = (x: number) => startView.start + (x / host.plotWidth()) * (startView.end - startView.start);
  const startPs = psOf(startX);
  const rect = host.canvas.getBoundingClientRect();
  let moved = false;
  const stopMove = on(window, 'mousemove', (e) => {
    const dx = e.clientX - rect.left - startX;
    if (Math.abs(dx) > 3) moved = true;
    if (!moved) return;
    if (measuring) {
      host.setMeasure({ start: startPs, end: psOf(e.clientX - rect.left) });
    } else {
      const span = startView.end - startView.start;
      host.setView(panRange(startView, (-dx / host.plotWidth()) * span, host.total()));
    }
  });
  const stopUp = on(window, 'mouseup', (e) => {
    stopMove();
    stopUp();
    if (moved) {
      if (measuring) host.measured(startY, e.clientY - rect.top);
      return;
    }
    const found = host.hit(e.clientX - rect.left, e.clientY - rect.top);
    if (found?.event !== undefined) host.select(found.event);
    else if (!measuring) host.setMeasure(null);
  });
}
