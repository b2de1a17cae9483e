// trace_viewer: the run's timeline on a canvas. Sections per device and for the host threads,
// each with its tracks (collapse a section by its header); zoom with the wheel or W/S, pan by
// dragging or A/D; each view change asks /api/trace for what the visible range holds at this
// width (the last reply stays drawn, scaled, until the next arrives). Click an event for its
// details and flow arrows; shift-drag measures an interval; search highlights and steps
// through events by name.
import { h, clear } from '../dom';
import { pageHeader } from '../components/panel';
import { PALETTE } from '../charts/palette';
import {
  fetchEventDetails,
  fetchSearch,
  fetchViewport,
  type TraceEventDetails,
  type TraceRow,
  type TraceSearchHit,
  type TraceViewport,
} from '../trace/trace_api';
import { clampRange, formatPs, panRange, timeTicks, zoomRange, type TimeRange } from '../trace/time_scale';
import type { PageContext, ToolPage } from './tool_page';
import './trace_viewer_page.css';

const ROW_PX = 20;
const HEADER_PX = 22;
const TRACK_GAP_PX = 4;
const AXIS_PX = 24;
const FETCH_DELAY_MS = 80;

interface RowPlace {
  row: TraceRow;
  line: number;
  y: number;
}

interface Layout {
  rows: RowPlace[];
  labels: { text: string; y: number; height: number; section?: string; collapsed?: boolean }[];
  lineY: Map<number, number>; // a track's first row
  height: number;
}

function colourOf(nameId: number): string {
  return PALETTE[(nameId * 2654435761) % PALETTE.length >>> 0] ?? PALETTE[0];
}

function layoutOf(reply: TraceViewport, collapsed: Set<string>): Layout {
  const out: Layout = { rows: [], labels: [], lineY: new Map(), height: 0 };
  let y = 0;
  for (const section of reply.sections) {
    const isCollapsed = collapsed.has(section.name);
    out.labels.push({ text: section.name, y, height: HEADER_PX, section: section.name, collapsed: isCollapsed });
    y += HEADER_PX;
    if (isCollapsed) continue;
    for (const track of section.tracks) {
      const rows = Math.max(1, track.rows.length);
      out.labels.push({ text: track.name, y, height: rows * ROW_PX });
      out.lineY.set(track.line, y);
      track.rows.forEach((row, i) => out.rows.push({ row, line: track.line, y: y + i * ROW_PX }));
      y += rows * ROW_PX + TRACK_GAP_PX;
    }
  }
  out.height = y + 8;
  return out;
}

function hatchPattern(ctx: CanvasRenderingContext2D): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = tile.height = 6;
  const t = tile.getContext('2d');
  if (!t) return '#bdc1c6';
  t.fillStyle = '#e8eaed';
  t.fillRect(0, 0, 6, 6);
  t.strokeStyle = '#9aa0a6';
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return ctx.createPattern(tile, 'repeat') ?? '#bdc1c6';
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
  private layout: Layout = { rows: [], labels: [], lineY: new Map(), height: 0 };
  private collapsed = new Set<string>();
  private selected: TraceEventDetails | null = null;
  private measure: TimeRange | null = null;
  private measureMode = false;
  private searchText = '';
  private matchedNames = new Set<number>();
  private hits: TraceSearchHit[] = [];
  private hitIndex = -1;
  private fetchTimer = 0;
  private fetchAbort: AbortController | null = null;
  private hatch: CanvasPattern | string = '#bdc1c6';
  private readonly cleanups: (() => void)[] = [];
  private disposed = false;

  constructor(private readonly ctx: PageContext) {
    const measureToggle = h('button', { type: 'button', class: 'trace-button', 'aria-pressed': 'false' }, 'Measure');
    measureToggle.addEventListener('click', () => {
      this.measureMode = !this.measureMode;
      measureToggle.setAttribute('aria-pressed', String(this.measureMode));
    });
    const button = (label: string, title: string, onClick: () => void) =>
      h('button', { type: 'button', class: 'trace-button', title, onclick: onClick }, label);
    this.scroller = h('div', { class: 'trace-scroller' }, this.labels, this.canvas);
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
    const ctx2d = this.canvas.getContext('2d');
    if (ctx2d) this.hatch = hatchPattern(ctx2d);
    this.listen();
    // A one-pixel-wide reply (cheap) tells the trace's length.
    const first = await fetchViewport(this.ctx.run, this.ctx.host, { start: 0, end: 1e15, width: 1 });
    this.total = Math.max(first.end_ps, 1);
    this.view = { start: 0, end: this.total };
    const reply = await fetchViewport(this.ctx.run, this.ctx.host, { ...this.view, width: this.plotWidth() });
    this.accept(reply);
  }

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.fetchTimer);
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
    this.on(window, 'resize', () => {
      this.draw();
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
    this.draw();
    this.scheduleFetch();
  }

  private scheduleFetch(): void {
    window.clearTimeout(this.fetchTimer);
    this.fetchTimer = window.setTimeout(() => void this.fetchNow(), FETCH_DELAY_MS);
  }

  private async fetchNow(): Promise<void> {
    this.fetchAbort?.abort();
    const abort = new AbortController();
    this.fetchAbort = abort;
    this.element.setAttribute('data-loading', 'true');
    try {
      const reply = await fetchViewport(this.ctx.run, this.ctx.host, { ...this.view, width: this.plotWidth() }, abort.signal);
      if (!abort.signal.aborted && !this.disposed) this.accept(reply);
    } catch (e) {
      if (!abort.signal.aborted) this.rangeText.textContent = `Could not load the trace: ${(e as Error).message}`;
    } finally {
      if (this.fetchAbort === abort) this.element.removeAttribute('data-loading');
    }
  }

  private accept(reply: TraceViewport): void {
    this.reply = reply;
    this.matchNames();
    this.relayout();
  }

  private relayout(): void {
    if (!this.reply) return;
    this.layout = layoutOf(this.reply, this.collapsed);
    clear(this.labels);
    this.labels.style.height = `${this.layout.height}px`;
    for (const l of this.layout.labels) {
      const el = h(
        'div',
        {
          class: l.section ? 'trace-section-label' : 'trace-track-label',
          style: `top:${l.y}px;height:${l.height}px`,
          title: l.text,
        },
        l.section ? `${l.collapsed ? '▸' : '▾'} ${l.text}` : l.text,
      );
      if (l.section) {
        const name = l.section;
        el.setAttribute('role', 'button');
        el.setAttribute('aria-expanded', String(!l.collapsed));
        el.addEventListener('click', () => {
          if (this.collapsed.has(name)) this.collapsed.delete(name);
          else this.collapsed.add(name);
          this.relayout();
        });
      }
      this.labels.append(el);
    }
    if (this.reply.sections.length === 0) this.labels.append(h('p', { class: 'muted' }, 'This run has no events.'));
    this.draw();
  }

  private sizeCanvas(c: HTMLCanvasElement, height: number): CanvasRenderingContext2D | null {
    const dpr = window.devicePixelRatio || 1;
    const width = c.clientWidth || this.plotWidth();
    c.style.height = `${height}px`;
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr);
      c.height = Math.round(height * dpr);
    }
    const g = c.getContext('2d');
    g?.setTransform(dpr, 0, 0, dpr, 0, 0);
    return g;
  }

  private draw(): void {
    if (this.disposed) return;
    const width = this.plotWidth();
    this.element.setAttribute('data-start-ps', String(Math.round(this.view.start)));
    this.element.setAttribute('data-end-ps', String(Math.round(this.view.end)));
    this.rangeText.textContent = `${formatPs(this.view.start)} – ${formatPs(this.view.end)} (${formatPs(this.view.end - this.view.start)} visible)`;
    this.drawAxis(width);
    const g = this.sizeCanvas(this.canvas, Math.max(this.layout.height, 60));
    if (!g) return;
    g.clearRect(0, 0, width, this.layout.height + 60);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const names = this.reply?.names ?? {};
    // Section header bands.
    for (const l of this.layout.labels)
      if (l.section) {
        g.fillStyle = '#f1f3f4';
        g.fillRect(0, l.y, width, l.height);
      }
    for (const place of this.layout.rows) {
      const y = place.y + 1;
      const hgt = ROW_PX - 2;
      g.fillStyle = this.hatch;
      for (const [start, dur] of place.row.merged) {
        const x0 = this.xOf(start);
        const x1 = Math.max(this.xOf(start + dur), x0 + 1);
        if (x1 < 0 || x0 > width) continue;
        g.fillRect(x0, y, x1 - x0, hgt);
      }
      for (const [start, dur, nameId, event] of place.row.events) {
        const x0 = this.xOf(start);
        const x1 = Math.max(this.xOf(start + dur), x0 + 1);
        if (x1 < 0 || x0 > width) continue;
        const matched = this.matchedNames.has(nameId);
        const dim = this.matchedNames.size > 0 && !matched;
        g.globalAlpha = dim ? 0.35 : 1;
        g.fillStyle = colourOf(nameId);
        g.fillRect(x0, y, x1 - x0, hgt);
        g.globalAlpha = 1;
        if (matched || this.selected?.event === event) {
          g.strokeStyle = this.selected?.event === event ? '#202124' : '#c5221f';
          g.lineWidth = 2;
          g.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), hgt - 2);
        }
        const vx0 = Math.max(x0, 0);
        const vw = Math.min(x1, width) - vx0;
        if (vw > 24) {
          g.save();
          g.beginPath();
          g.rect(vx0 + 2, y, vw - 4, hgt);
          g.clip();
          g.fillStyle = dim ? '#5f6368' : '#202124';
          g.fillText(names[String(nameId)] ?? '', vx0 + 3, y + hgt / 2);
          g.restore();
        }
      }
    }
    this.drawFlows(g);
    if (this.measure) {
      const x0 = this.xOf(this.measure.start);
      const x1 = this.xOf(this.measure.end);
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

  // The row an event sits in, when the reply lists it; else its track's first row.
  private yOfEvent(event: number, line: number): number | null {
    for (const place of this.layout.rows)
      if (place.line === line && place.row.events.some((e) => e[3] === event)) return place.y + ROW_PX / 2;
    const y = this.layout.lineY.get(line);
    return y === undefined ? null : y + ROW_PX / 2;
  }

  private drawFlows(g: CanvasRenderingContext2D): void {
    const sel = this.selected;
    if (!sel) return;
    const selY = this.yOfEvent(sel.event, sel.line_index);
    if (selY === null) return;
    g.strokeStyle = '#d93025';
    g.fillStyle = '#d93025';
    g.lineWidth = 1.5;
    for (const f of sel.flows) {
      const otherY = this.yOfEvent(f.event, f.line_index);
      if (otherY === null) continue;
      const [x0, y0, x1, y1] =
        f.direction === 'out'
          ? [this.xOf(sel.start_ps), selY, this.xOf(f.start_ps), otherY]
          : [this.xOf(f.start_ps), otherY, this.xOf(sel.start_ps), selY];
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
      g.stroke();
      const a = Math.atan2(y1 - y0, x1 - x0);
      g.beginPath();
      g.moveTo(x1, y1);
      g.lineTo(x1 - 8 * Math.cos(a - 0.4), y1 - 8 * Math.sin(a - 0.4));
      g.lineTo(x1 - 8 * Math.cos(a + 0.4), y1 - 8 * Math.sin(a + 0.4));
      g.closePath();
      g.fill();
    }
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
    const found = this.hit(e.offsetX, e.offsetY);
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
        this.draw();
      } else {
        const span = startView.end - startView.start;
        this.setView(panRange(startView, (-dx / this.plotWidth()) * span, this.total));
      }
    };
    const up = (e: MouseEvent) => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      if (!moved) {
        const found = this.hit(e.clientX - rect.left, e.clientY - rect.top);
        if (found?.event !== undefined) void this.select(found.event);
        else if (!measuring) {
          this.measure = null;
          this.showMeasure();
          this.draw();
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
      this.draw();
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
      this.draw();
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
      else this.draw();
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
