// trace_viewer: the run's timeline on a canvas. Sections per device and for the host threads,
// each with its tracks (collapse a section or a track by its label; the URL remembers which);
// zoom with the wheel or W/S, pan by dragging or A/D. A reply of /api/trace spans the view and
// a span either side (viewport_plan.ts), so panning redraws from it, at most once a frame, and
// a new one is asked only when the view leaves it or the zoom changes; the last reply stays
// drawn, scaled, until the next arrives. Flow arrows of the visible events (launch → kernel,
// producer → consumer) can be hidden; the selected event's stay highlighted. Click an event
// for its details; shift-drag measures an interval; search highlights and steps through
// events by name.
import { h, clear } from '../dom';
import { pageHeader } from '../components/panel';
import { PALETTE } from '../charts/palette';
import {
  fetchEventDetails,
  fetchSearch,
  fetchViewport,
  type TraceEventBox,
  type TraceEventDetails,
  type TraceRow,
  type TraceSearchHit,
  type TraceViewport,
} from '../trace/trace_api';
import { clampRange, formatPs, panRange, timeTicks, zoomRange, type TimeRange } from '../trace/time_scale';
import { covers, rangeToFetch, type FetchedRange } from '../trace/viewport_plan';
import { formatCollapsed, parseCollapsed, rememberOption, sectionKey, trackKey } from '../trace/collapsed_tracks';
import type { PageContext, ToolPage } from './tool_page';
import './trace_viewer_page.css';

const ROW_PX = 20;
const HEADER_PX = 22;
const TRACK_GAP_PX = 4;
const AXIS_PX = 24;
const FETCH_DELAY_MS = 80;
// Flow arrows drawn per frame at most (the selected event's come on top of these): when more
// are in sight, every k-th, so that all tracks keep some.
const MAX_FLOWS_PER_FRAME = 600;
// Names drawn inside boxes: only in boxes this wide, and at most this many per frame (text
// is the dearest thing a frame draws).
const MIN_LABEL_PX = 40;
const MAX_LABELS_PER_FRAME = 1500;
// Runs of events under a pixel wide, merged: a flat grey (a pattern fill costs far more to
// raster than the boxes themselves).
const MERGED_FILL = '#bdc1c6';

interface RowPlace {
  row: TraceRow;
  line: number;
  y: number;
}

interface Label {
  text: string;
  y: number;
  height: number;
  key: string; // sectionKey or trackKey
  kind: 'section' | 'track';
  collapsed: boolean;
  rows: number; // a track's rows (1 when collapsed)
}

interface Layout {
  rows: RowPlace[];
  labels: Label[];
  lineY: Map<number, number>; // a track's first row (a collapsed section's header)
  eventY: Map<number, number>; // the middle of the row each listed event sits in
  height: number;
}

const EMPTY_LAYOUT: Layout = { rows: [], labels: [], lineY: new Map(), eventY: new Map(), height: 0 };

function colourOf(nameId: number): string {
  return PALETTE[(nameId * 2654435761) % PALETTE.length >>> 0] ?? PALETTE[0];
}

// A collapsed track shows its first row only (lane 0, depth 0: the outermost events).
function layoutOf(reply: TraceViewport, collapsed: Set<string>): Layout {
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
function firstEndingAfter(events: TraceEventBox[] | [number, number, number][], ps: number): number {
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

export const traceViewerPage: ToolPage = {
  async render(root: HTMLElement, ctx: PageContext): Promise<void> {
    const viewer = new TraceViewer(ctx);
    ctx.onDispose(() => viewer.dispose());
    root.append(
      pageHeader('Trace viewer', 'W/S or wheel: zoom · A/D or drag: pan · shift-drag: measure · click: details'),
      viewer.element,
    );
    await viewer.start();
  },
};

class TraceViewer {
  readonly element: HTMLElement;
  private readonly canvas = h('canvas', { class: 'trace-canvas' });
  // As tall as all the rows, so the scroller scrolls; the canvas inside it sticks to the top
  // of the scroller's view and is only as tall as that view (drawing and compositing cost
  // follow what is on screen, not how many tracks the trace has).
  private readonly canvasBox = h('div', { class: 'trace-canvas-box' }, this.canvas);
  private canvasTop = 0; // the layout's y at the canvas's top edge
  private labelsShown = ''; // what the label elements show now
  private readonly axis = h('canvas', { class: 'trace-axis' });
  private readonly labels = h('div', { class: 'trace-labels' });
  private readonly scroller: HTMLElement;
  private readonly rangeText = h('span', { class: 'trace-range' });
  private readonly measureText = h('span', { class: 'trace-measure' });
  private readonly tooltip = h('div', { class: 'trace-tooltip', hidden: true });
  private readonly details = h('div', { class: 'trace-details' });
  private readonly searchInput = h('input', { type: 'search', class: 'trace-search', placeholder: 'Search events by name' }) as HTMLInputElement;
  private readonly searchCount = h('span', { class: 'trace-search-count' });

  private total = 1;
  private view: TimeRange = { start: 0, end: 1 };
  private reply: TraceViewport | null = null;
  private fetched: FetchedRange | null = null; // what `reply` spans
  private layout: Layout = EMPTY_LAYOUT;
  private collapsed: Set<string>;
  private showFlows: boolean;
  private selected: TraceEventDetails | null = null;
  private measure: TimeRange | null = null;
  private measureMode = false;
  private searchText = '';
  private matchedNames = new Set<number>();
  private hits: TraceSearchHit[] = [];
  private hitIndex = -1;
  private fetchTimer = 0;
  private fetchAbort: AbortController | null = null;
  private fetchAgain = false; // the view changed while a fetch was in flight
  private drawFrame = 0;
  private readonly cleanups: (() => void)[] = [];
  private disposed = false;

  constructor(private readonly ctx: PageContext) {
    this.collapsed = parseCollapsed(ctx.options.collapsed);
    this.showFlows = ctx.options.flows !== '0';
    const flowsToggle = h(
      'button',
      { type: 'button', class: 'trace-button trace-flows-toggle', 'aria-pressed': String(this.showFlows), title: 'Show the flow arrows of visible events' },
      'Flows',
    );
    flowsToggle.addEventListener('click', () => {
      this.showFlows = !this.showFlows;
      flowsToggle.setAttribute('aria-pressed', String(this.showFlows));
      rememberOption('flows', this.showFlows ? '' : '0');
      this.scheduleDraw();
    });
    const measureToggle = h('button', { type: 'button', class: 'trace-button', 'aria-pressed': 'false' }, 'Measure');
    measureToggle.addEventListener('click', () => {
      this.measureMode = !this.measureMode;
      measureToggle.setAttribute('aria-pressed', String(this.measureMode));
    });
    const button = (label: string, title: string, onClick: () => void) =>
      h('button', { type: 'button', class: 'trace-button', title, onclick: onClick }, label);
    this.scroller = h('div', { class: 'trace-scroller' }, this.labels, this.canvasBox);
    this.element = h(
      'div',
      { class: 'trace-viewer' },
      h(
        'div',
        { class: 'trace-toolbar' },
        button('−', 'Zoom out (S)', () => this.zoom(2, 0.5)),
        button('+', 'Zoom in (W)', () => this.zoom(0.5, 0.5)),
        button('Reset', 'Show the whole trace', () => this.setView({ start: 0, end: this.total })),
        measureToggle,
        flowsToggle,
        this.rangeText,
        this.measureText,
        h('span', { class: 'trace-spacer' }),
        this.searchInput,
        button('◀', 'Previous match (shift+Enter)', () => this.step(-1)),
        button('▶', 'Next match (Enter)', () => this.step(1)),
        this.searchCount,
      ),
      h('div', { class: 'trace-axis-row' }, h('div', { class: 'trace-axis-gutter' }), this.axis),
      this.scroller,
      this.tooltip,
      this.details,
    );
    this.details.append(h('p', { class: 'muted' }, 'Click an event to see its details.'));
  }

  async start(): Promise<void> {
    this.listen();
    // A one-pixel-wide reply (cheap) tells the trace's length.
    const first = await fetchViewport(this.ctx.run, this.ctx.host, { start: 0, end: 1e15, width: 1 });
    this.total = Math.max(first.end_ps, 1);
    this.view = { start: 0, end: this.total };
    this.showRange();
    const range = rangeToFetch(this.view, this.plotWidth(), this.total);
    const reply = await fetchViewport(this.ctx.run, this.ctx.host, { ...range, width: range.widthPx });
    this.accept(reply, range);
  }

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.fetchTimer);
    window.cancelAnimationFrame(this.drawFrame);
    this.fetchAbort?.abort();
    this.cleanups.forEach((c) => c());
  }

  private plotWidth(): number {
    return Math.max(200, this.canvas.clientWidth || this.scroller.clientWidth - 200 || 1000);
  }

  private on<K extends keyof HTMLElementEventMap>(
    target: HTMLElement | Document | Window,
    type: K,
    fn: (e: HTMLElementEventMap[K]) => void,
    options?: AddEventListenerOptions,
  ): void {
    target.addEventListener(type, fn as EventListener, options);
    this.cleanups.push(() => target.removeEventListener(type, fn as EventListener, options));
  }

  private listen(): void {
    this.on(
      this.canvas,
      'wheel',
      (e) => {
        e.preventDefault();
        if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          this.setView(panRange(this.view, (e.deltaX / this.plotWidth()) * (this.view.end - this.view.start), this.total));
        } else {
          this.zoom(Math.pow(1.0015, e.deltaY), this.anchorOf(e.offsetX));
        }
      },
      { passive: false },
    );
    this.on(document, 'keydown', (e) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const span = this.view.end - this.view.start;
      const key = e.key.toLowerCase();
      if (key === 'w') this.zoom(0.8, 0.5);
      else if (key === 's') this.zoom(1.25, 0.5);
      else if (key === 'a') this.setView(panRange(this.view, -span * 0.15, this.total));
      else if (key === 'd') this.setView(panRange(this.view, span * 0.15, this.total));
      else return;
      e.preventDefault();
    });
    this.on(this.searchInput, 'keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      if (this.searchInput.value.trim() !== this.searchText) void this.search(this.searchInput.value.trim());
      else this.step(e.shiftKey ? -1 : 1);
    });
    this.on(this.canvas, 'mousedown', (e) => this.drag(e));
    this.on(this.canvas, 'mousemove', (e) => this.hover(e));
    this.on(this.canvas, 'mouseleave', () => (this.tooltip.hidden = true));
    this.on(this.scroller, 'scroll', () => this.scheduleDraw());
    this.on(window, 'resize', () => {
      this.scheduleDraw();
      this.scheduleFetch();
    });
  }

  private anchorOf(x: number): number {
    return Math.min(1, Math.max(0, x / this.plotWidth()));
  }

  private xOf(ps: number): number {
    return ((ps - this.view.start) / (this.view.end - this.view.start)) * this.plotWidth();
  }

  private psOf(x: number): number {
    return this.view.start + (x / this.plotWidth()) * (this.view.end - this.view.start);
  }

  private zoom(factor: number, anchor: number): void {
    this.setView(zoomRange(this.view, factor, anchor, this.total));
  }

  private setView(r: TimeRange): void {
    this.view = clampRange(r, this.total);
    this.showRange();
    this.scheduleDraw();
    if (!covers(this.fetched, this.view, this.plotWidth())) this.scheduleFetch();
  }

  // The visible range, for tests and scripts (the canvas says it only in pixels).
  private showRange(): void {
    this.element.setAttribute('data-start-ps', String(Math.round(this.view.start)));
    this.element.setAttribute('data-end-ps', String(Math.round(this.view.end)));
  }

  // Draws once in the next frame, however many view changes come before it.
  private scheduleDraw(): void {
    if (this.drawFrame || this.disposed) return;
    this.drawFrame = window.requestAnimationFrame(() => {
      this.drawFrame = 0;
      this.draw();
    });
  }

  // One fetch at a time, at most one per FETCH_DELAY_MS while the view keeps changing (a
  // long pan gets replies as it goes): a view change while one is in flight asks again when
  // it lands, and its reply is drawn meanwhile.
  private scheduleFetch(): void {
    this.element.setAttribute('data-loading', 'true');
    if (this.fetchAbort) {
      this.fetchAgain = true;
      return;
    }
    if (this.fetchTimer) return;
    this.fetchTimer = window.setTimeout(() => {
      this.fetchTimer = 0;
      void this.fetchNow();
    }, FETCH_DELAY_MS);
  }

  private async fetchNow(): Promise<void> {
    const abort = new AbortController();
    this.fetchAbort = abort;
    this.fetchAgain = false;
    const range = rangeToFetch(this.view, this.plotWidth(), this.total);
    try {
      const reply = await fetchViewport(this.ctx.run, this.ctx.host, { ...range, width: range.widthPx }, abort.signal);
      if (!abort.signal.aborted && !this.disposed) this.accept(reply, range);
    } catch (e) {
      if (!abort.signal.aborted) this.rangeText.textContent = `Could not load the trace: ${(e as Error).message}`;
    } finally {
      this.fetchAbort = null;
      if (!this.disposed && (this.fetchAgain || !covers(this.fetched, this.view, this.plotWidth()))) {
        this.fetchAgain = false;
        if (!covers(this.fetched, this.view, this.plotWidth())) this.scheduleFetch();
        else this.element.removeAttribute('data-loading');
      } else {
        this.element.removeAttribute('data-loading');
      }
    }
  }

  private accept(reply: TraceViewport, range: FetchedRange): void {
    this.reply = reply;
    this.fetched = range;
    this.matchNames();
    this.relayout();
  }

  private toggleCollapsed(key: string): void {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
    rememberOption('collapsed', formatCollapsed(this.collapsed));
    this.relayout();
  }

  private relayout(): void {
    if (!this.reply) return;
    this.layout = layoutOf(this.reply, this.collapsed);
    this.element.setAttribute('data-rows', String(this.layout.rows.length));
    // Replies while panning keep the same tracks: their labels stay as they are.
    const labelsShown = JSON.stringify(this.layout.labels) + String(this.reply.sections.length);
    if (labelsShown === this.labelsShown) {
      this.scheduleDraw();
      return;
    }
    this.labelsShown = labelsShown;
    clear(this.labels);
    this.labels.style.height = `${this.layout.height}px`;
    for (const l of this.layout.labels) {
      // A track of one row has nothing to hide: its label is plain text.
      const foldable = l.kind === 'section' || l.rows > 1;
      const el = h(
        'div',
        {
          class: l.kind === 'section' ? 'trace-section-label' : 'trace-track-label',
          style: `top:${l.y}px;height:${l.height}px`,
          title: l.text,
          'data-key': l.key,
        },
        l.text,
      );
      if (foldable) {
        el.setAttribute('role', 'button');
        el.setAttribute('aria-expanded', String(!l.collapsed));
        el.tabIndex = 0;
        el.addEventListener('click', () => this.toggleCollapsed(l.key));
        el.addEventListener('keydown', (e) => {
          if (e.key !== 'Enter' && e.key !== ' ') return;
          e.preventDefault();
          this.toggleCollapsed(l.key);
        });
      }
      this.labels.append(el);
    }
    if (this.reply.sections.length === 0) this.labels.append(h('p', { class: 'muted' }, 'This run has no events.'));
    this.scheduleDraw();
  }

  // Sizes a canvas for the device's pixels; drawing then uses CSS pixels, shifted up by `top`.
  private sizeCanvas(c: HTMLCanvasElement, height: number, top = 0): CanvasRenderingContext2D | null {
    const dpr = window.devicePixelRatio || 1;
    const width = c.clientWidth || this.plotWidth();
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

  // Draws the rows in sight (the scroller's visible band) from the reply in hand; within a
  // row only the boxes in the visible time range, found by binary search.
  private draw(): void {
    if (this.disposed) return;
    const began = performance.now();
    const width = this.plotWidth();
    this.rangeText.textContent = `${formatPs(this.view.start)} – ${formatPs(this.view.end)} (${formatPs(this.view.end - this.view.start)} visible)`;
    this.drawAxis(width);
    const fullHeight = Math.max(this.layout.height, 60);
    const boxHeight = `${fullHeight}px`;
    if (this.canvasBox.style.height !== boxHeight) this.canvasBox.style.height = boxHeight;
    const shown = Math.min(fullHeight, this.scroller.clientHeight || fullHeight);
    this.canvasTop = Math.max(0, Math.min(this.scroller.scrollTop, fullHeight - shown));
    const g = this.sizeCanvas(this.canvas, shown, this.canvasTop);
    if (!g) return;
    const top = this.canvasTop - ROW_PX;
    const bottom = this.canvasTop + shown + ROW_PX;
    g.clearRect(0, this.canvasTop, width, shown);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const names = this.reply?.names ?? {};
    g.fillStyle = '#f1f3f4';
    for (const l of this.layout.labels) if (l.kind === 'section' && l.y + l.height >= top && l.y <= bottom) g.fillRect(0, l.y, width, l.height);
    const psPerPx = (this.view.end - this.view.start) / width;
    const viewStart = this.view.start;
    const xOf = (ps: number) => (ps - viewStart) / psPerPx;
    const searching = this.matchedNames.size > 0;
    const selectedEvent = this.selected?.event;
    let labels = 0;
    for (const place of this.layout.rows) {
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
      let fill = ''; // setting the same fill again still parses it: skip that
      for (let i = firstEndingAfter(events, viewStart); i < events.length; ++i) {
        const [start, dur, nameId, event] = events[i];
        const x0 = xOf(start);
        if (x0 > width) break;
        const x1 = Math.max(xOf(start + dur), x0 + 1);
        const matched = searching && this.matchedNames.has(nameId);
        const dim = searching && !matched;
        if (dim) g.globalAlpha = 0.35;
        const colour = colourOf(nameId);
        if (colour !== fill) g.fillStyle = fill = colour;
        g.fillRect(x0, y, x1 - x0, hgt);
        if (dim) g.globalAlpha = 1;
        if (matched || selectedEvent === event) {
          fill = '';
          g.strokeStyle = selectedEvent === event ? '#202124' : '#c5221f';
          g.lineWidth = 2;
          g.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), hgt - 2);
        }
        const vx0 = Math.max(x0, 0);
        const vw = Math.min(x1, width) - vx0;
        if (vw > MIN_LABEL_PX && labels < MAX_LABELS_PER_FRAME) {
          ++labels;
          this.label(g, names[String(nameId)] ?? '', vx0 + 3, y + hgt / 2, vw - 5, dim);
          fill = '';
        }
      }
    }
    this.drawFlows(g, xOf, width);
    if (this.measure) {
      const x0 = xOf(this.measure.start);
      const x1 = xOf(this.measure.end);
      g.fillStyle = 'rgba(26, 115, 232, 0.12)';
      g.fillRect(Math.min(x0, x1), 0, Math.abs(x1 - x0), this.layout.height);
      g.strokeStyle = '#1a73e8';
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(x0, 0);
      g.lineTo(x0, this.layout.height);
      g.moveTo(x1, 0);
      g.lineTo(x1, this.layout.height);
      g.stroke();
    }
    // What a frame costs here, for the panning benchmark (bench/trace_viewer_pan_bench.mjs).
    this.element.setAttribute('data-draw-ms', (performance.now() - began).toFixed(2));
  }

  // An event's name inside its box, cut to the room there is (text widths are measured once
  // per name: measuring and clipping every box each frame costs more than drawing it).
  private readonly textWidths = new Map<string, number>();
  private label(g: CanvasRenderingContext2D, text: string, x: number, y: number, room: number, dim: boolean): void {
    let w = this.textWidths.get(text);
    if (w === undefined) {
      w = g.measureText(text).width;
      this.textWidths.set(text, w);
    }
    let shown = text;
    if (w > room) {
      const chars = Math.floor((room / w) * text.length) - 1;
      if (chars < 2) return;
      shown = text.slice(0, chars) + '…';
    }
    g.fillStyle = dim ? '#5f6368' : '#202124';
    g.fillText(shown, x, y);
  }

  private drawAxis(width: number): void {
    const g = this.sizeCanvas(this.axis, AXIS_PX);
    if (!g) return;
    g.clearRect(0, 0, width, AXIS_PX);
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#5f6368';
    g.strokeStyle = '#dadce0';
    g.textBaseline = 'top';
    for (const t of timeTicks(this.view, Math.max(2, Math.floor(width / 110)))) {
      const x = Math.round(this.xOf(t)) + 0.5;
      g.beginPath();
      g.moveTo(x, AXIS_PX - 8);
      g.lineTo(x, AXIS_PX);
      g.stroke();
      g.fillText(formatPs(t), x + 3, 4);
    }
    if (this.measure) {
      g.fillStyle = '#1a73e8';
      const x = (this.xOf(this.measure.start) + this.xOf(this.measure.end)) / 2;
      g.textAlign = 'center';
      g.fillText(formatPs(Math.abs(this.measure.end - this.measure.start)), x, 4);
      g.textAlign = 'start';
    }
  }

  // Where a flow's end sits: its event's row when the reply lists it, else its track's first row.
  private yOfEvent(event: number, line: number): number | null {
    const y = this.layout.eventY.get(event);
    if (y !== undefined) return y;
    const lineY = this.layout.lineY.get(line);
    return lineY === undefined ? null : lineY + ROW_PX / 2;
  }

  // The visible events' flows (when shown) in one thin path, at most about MAX_FLOWS_PER_FRAME
  // of them; then the selected event's, highlighted. The counts drawn go to data attributes.
  private drawFlows(g: CanvasRenderingContext2D, xOf: (ps: number) => number, width: number): void {
    let drawn = 0;
    let selectedDrawn = 0;
    const selected = this.selected?.event;
    const arrows = (list: [number, number, number, number][], colour: string, lineWidth: number) => {
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
    };
    const segment = (from: number, fromLine: number, fromPs: number, to: number, toLine: number, toPs: number) => {
      const x0 = xOf(fromPs);
      const x1 = xOf(toPs);
      if ((x0 < 0 && x1 < 0) || (x0 > width && x1 > width)) return null;
      const y0 = this.yOfEvent(from, fromLine);
      const y1 = this.yOfEvent(to, toLine);
      if (y0 === null || y1 === null) return null;
      return [x0, y0, x1, y1] as [number, number, number, number];
    };
    if (this.showFlows && this.reply) {
      let list: [number, number, number, number][] = [];
      for (const [from, to, , fromLine, fromPs, toLine, toPs] of this.reply.flows ?? []) {
        if (from === selected || to === selected) continue;
        const s = segment(from, fromLine, fromPs, to, toLine, toPs);
        if (s) list.push(s);
      }
      if (list.length > MAX_FLOWS_PER_FRAME) {
        const stride = Math.ceil(list.length / MAX_FLOWS_PER_FRAME);
        list = list.filter((_, i) => i % stride === 0);
      }
      arrows(list, 'rgba(95, 99, 104, 0.55)', 1);
      drawn = list.length;
    }
    const sel = this.selected;
    if (sel) {
      const list: [number, number, number, number][] = [];
      for (const f of sel.flows) {
        const s =
          f.direction === 'out'
            ? segment(sel.event, sel.line_index, sel.start_ps, f.event, f.line_index, f.start_ps)
            : segment(f.event, f.line_index, f.start_ps, sel.event, sel.line_index, sel.start_ps);
        if (s) list.push(s);
      }
      arrows(list, '#d93025', 2);
      selectedDrawn = list.length;
    }
    this.element.setAttribute('data-flows-drawn', String(drawn));
    this.element.setAttribute('data-selected-flows-drawn', String(selectedDrawn));
  }

  // What lies under a point: an event, a merged box, or nothing.
  private hit(x: number, y: number): { event?: number; nameId?: number; start: number; dur: number; count?: number } | null {
    const place = this.layout.rows.find((p) => y >= p.y && y < p.y + ROW_PX);
    if (!place) return null;
    const t = this.psOf(x);
    const slack = (2 / this.plotWidth()) * (this.view.end - this.view.start);
    let best: { event?: number; nameId?: number; start: number; dur: number; count?: number } | null = null;
    for (const [start, dur, nameId, event] of place.row.events)
      if (t >= start - slack && t <= start + dur + slack && (!best || dur < best.dur)) best = { event, nameId, start, dur };
    if (best) return best;
    for (const [start, dur, count] of place.row.merged)
      if (t >= start - slack && t <= start + dur + slack) return { start, dur, count };
    return null;
  }

  private hover(e: MouseEvent): void {
    const found = this.hit(e.offsetX, e.offsetY + this.canvasTop);
    if (!found) {
      this.tooltip.hidden = true;
      return;
    }
    const text =
      found.count !== undefined
        ? `${found.count.toLocaleString()} events merged (each under a pixel) · ${formatPs(found.dur)}`
        : `${this.reply?.names[String(found.nameId)] ?? ''} · ${formatPs(found.dur)}`;
    this.tooltip.textContent = text;
    this.tooltip.hidden = false;
    const box = this.element.getBoundingClientRect();
    this.tooltip.style.left = `${e.clientX - box.left + 12}px`;
    this.tooltip.style.top = `${e.clientY - box.top + 12}px`;
  }

  private drag(down: MouseEvent): void {
    if (down.button !== 0) return;
    down.preventDefault();
    const startX = down.offsetX;
    const startView = this.view;
    const measuring = down.shiftKey || this.measureMode;
    const startPs = this.psOf(startX);
    const rect = this.canvas.getBoundingClientRect();
    let moved = false;
    const move = (e: MouseEvent) => {
      const dx = e.clientX - rect.left - startX;
      if (Math.abs(dx) > 3) moved = true;
      if (!moved) return;
      if (measuring) {
        this.measure = { start: startPs, end: this.psOf(e.clientX - rect.left) };
        this.showMeasure();
        this.scheduleDraw();
      } else {
        const span = startView.end - startView.start;
        this.setView(panRange(startView, (-dx / this.plotWidth()) * span, this.total));
      }
    };
    const up = (e: MouseEvent) => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      if (!moved) {
        const found = this.hit(e.clientX - rect.left, e.clientY - rect.top + this.canvasTop);
        if (found?.event !== undefined) void this.select(found.event);
        else if (!measuring) {
          this.measure = null;
          this.showMeasure();
          this.scheduleDraw();
        }
      }
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
    this.cleanups.push(() => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    });
  }

  private showMeasure(): void {
    this.measureText.textContent = this.measure
      ? `Measured: ${formatPs(Math.abs(this.measure.end - this.measure.start))}`
      : '';
  }

  private async select(event: number): Promise<void> {
    clear(this.details);
    this.details.append(h('p', { class: 'muted' }, 'Loading…'));
    try {
      const d = await fetchEventDetails(this.ctx.run, this.ctx.host, event);
      if (this.disposed) return;
      this.selected = d;
      this.showDetails(d);
      this.scheduleDraw();
    } catch (e) {
      clear(this.details);
      this.details.append(h('p', { class: 'muted' }, `Could not load the event: ${(e as Error).message}`));
    }
  }

  private showDetails(d: TraceEventDetails): void {
    clear(this.details);
    const link = (ev: { event: number; name: string; start_ps: number; duration_ps: number }) =>
      h(
        'a',
        {
          href: '#',
          onclick: (e: Event) => {
            e.preventDefault();
            this.reveal(ev.start_ps, ev.duration_ps);
            void this.select(ev.event);
          },
        },
        ev.name,
      );
    const rows: [string, Node | string][] = [
      ['Start', formatPs(d.start_ps)],
      ['Duration', formatPs(d.duration_ps)],
      ['Where', `${d.host ? d.host + ' · ' : ''}${d.plane} · ${d.line}`],
    ];
    if (d.display_name) rows.push(['Display name', d.display_name]);
    if (d.step) rows.push(['Step', `${d.step.step_num} (${d.step.duration_ms.toFixed(3)} ms)`]);
    if (d.parent) rows.push(['Parent', link(d.parent)]);
    this.details.append(
      h('h2', { class: 'trace-details-name' }, d.name),
      h('dl', { class: 'kv' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    );
    if (d.stats.length)
      this.details.append(
        h('h3', {}, 'Stats'),
        h(
          'table',
          { class: 'trace-stats' },
          h('tbody', {}, ...d.stats.map((s) => h('tr', {}, h('th', {}, s.name), h('td', {}, String(s.value))))),
        ),
      );
    if (d.flows.length)
      this.details.append(
        h('h3', {}, 'Flows'),
        h(
          'ul',
          { class: 'trace-flows' },
          ...d.flows.map((f) =>
            h('li', {}, `${f.direction === 'out' ? '→' : '←'} ${f.kind}: `, link(f), ` · ${f.line} · ${formatPs(f.start_ps)}`),
          ),
        ),
      );
  }

  // Brings an event into view: centred, zoomed so it spans about a third of the width.
  private reveal(start: number, dur: number): void {
    const span = Math.max(dur * 3, (this.view.end - this.view.start) / 50, 10_000);
    const mid = start + dur / 2;
    this.setView({ start: mid - span / 2, end: mid + span / 2 });
  }

  private matchNames(): void {
    this.matchedNames.clear();
    if (!this.searchText || !this.reply) return;
    const q = this.searchText.toLowerCase();
    for (const [id, name] of Object.entries(this.reply.names))
      if (name.toLowerCase().includes(q)) this.matchedNames.add(Number(id));
  }

  private async search(text: string): Promise<void> {
    this.searchText = text;
    this.hits = [];
    this.hitIndex = -1;
    this.matchNames();
    if (!text) {
      this.searchCount.textContent = '';
      this.element.removeAttribute('data-matches');
      this.scheduleDraw();
      return;
    }
    this.searchCount.textContent = 'Searching…';
    try {
      const reply = await fetchSearch(this.ctx.run, this.ctx.host, text);
      if (text !== this.searchText || this.disposed) return;
      this.hits = reply.events;
      this.element.setAttribute('data-matches', String(reply.total));
      this.searchCount.textContent = `${reply.total.toLocaleString()} match${reply.total === 1 ? '' : 'es'}`;
      if (this.hits.length) this.step(1);
      else this.scheduleDraw();
    } catch (e) {
      this.searchCount.textContent = `Search failed: ${(e as Error).message}`;
    }
  }

  private step(delta: number): void {
    if (!this.hits.length) return;
    this.hitIndex = (this.hitIndex + delta + this.hits.length) % this.hits.length;
    const hit = this.hits[this.hitIndex];
    this.searchCount.textContent = `${this.hitIndex + 1} / ${this.element.getAttribute('data-matches') ?? this.hits.length} matches`;
    this.reveal(hit.start_ps, hit.duration_ps);
    void this.select(hit.event);
  }
}
