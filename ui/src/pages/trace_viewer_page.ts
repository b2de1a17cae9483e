// trace_viewer: the run's timeline on a canvas. Sections per device and for the host threads,
// each with its tracks (collapse a section or a track by its label; the URL remembers which);
// zoom with the wheel or W/S, pan by dragging or A/D. A reply of /api/trace spans the view and
// two spans either side (viewport_plan.ts), so panning redraws from it, at most once a frame, and
// a new one is asked when the view nears its edge or the zoom changes; the last reply stays
// drawn, scaled, until the next arrives. A reply has events only on the tracks within a screen
// of the scroller's view (tracks_in_sight.ts), and a scroll that nears others asks for them;
// tracks in sight still without events show a loading hatch. While panning, the rows and the
// flow arrows are bitmaps shifted each frame (panned_layer.ts). It opens on the
// steps (the first few when there are many), devices first, counter tracks (GPU queue length,
// memory in use) at the top; tracks can be pinned there too. The selected event's flow arrows
// (launch → kernel, producer → consumer) are drawn; every visible event's only when asked.
// Click an event for its details; shift-drag selects a range and lists its self time per track
// and name; search highlights events by name, lists the matches (device tracks, host threads
// or both; by start or the longest first) and steps through them.
//
// This file holds the view's state and the fetching; the parts live in src/trace: layout
// (trace_layout), painting (trace_drawing, trace_flows_drawing), mouse and keys (trace_input),
// the details pane (trace_details), search (trace_search) and the track labels.
import { clear, h } from '../dom';
import { toolHeader } from '../components/page_header';
import {
  fetchCounters,
  fetchEventDetails,
  fetchFoundEvent,
  fetchRangeSummary,
  fetchViewport,
  type CounterTrack,
  type TraceEventDetails,
  type TraceEventRef,
  type TraceStep,
  type TraceViewport,
} from '../trace/trace_api';
import { clampRange, formatPs, formatRange, zoomRange, type TimeRange } from '../trace/time_scale';
import { coversAhead, rangeToFetch, sameFetch, type FetchedRange } from '../trace/viewport_plan';
import { formatCollapsed, parseCollapsed, rememberOption, trackKey } from '../trace/collapsed_tracks';
import { EMPTY_LAYOUT, foldsHiding, hitAt, layoutOf, linesInBand, rowYOfEvent, type Layout } from '../trace/trace_layout';
import { drawAxis, formatCounter, sizeCanvas, TimelinePainter } from '../trace/trace_drawing';
import { PannedLayer } from '../trace/panned_layer';
import { coversTracks, keepNearTracks, lineListParam, linesToFetch, linesToKeep, tracksAwaited } from '../trace/tracks_in_sight';
import { drawAwaited } from '../trace/awaited_tracks_drawing';
import { rangeSummaryView } from '../trace/trace_range_summary';
import { drawSelectedFlows, FlowArrows } from '../trace/trace_flows_drawing';
import { drawCriticalPath, leftOutNote, loadCriticalPath, pathOfStep, type ViewerPath } from '../trace/critical_path_overlay';
import { listenTraceInput } from '../trace/trace_input';
import { showDetails, showDetailsMessage } from '../trace/trace_details';
import { TraceSearch } from '../trace/trace_search';
import { renderTrackLabels } from '../trace/trace_track_labels';
import { initialView, stepView } from '../trace/initial_view';
import { readTraceTarget, type TraceTarget } from '../trace_link';
import type { PageContext, ToolPage } from './tool_page';
import './trace_viewer_page.css';

const FETCH_DELAY_MS = 80;
// Below the timeline, the details pane keeps this much of the window.
const DETAILS_PX = 220;

export const traceViewerPage: ToolPage = {
  async render(root: HTMLElement, ctx: PageContext): Promise<void> {
    const viewer = new TraceViewer(ctx);
    ctx.onDispose(() => viewer.dispose());
    root.append(
      toolHeader(ctx, 'W/S or wheel: zoom · A/D or drag: pan · shift-drag: measure · click: details'),
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
  private readonly search: TraceSearch;
  private readonly painter = new TimelinePainter();
  private readonly pannedRows = new PannedLayer(this.painter, true);
  private readonly flowArrows = new FlowArrows();
  private readonly pannedFlows = new PannedLayer(this.flowArrows, false);
  private replies = 0; // replies taken: the flow arrows' layer starts anew with each

  private total = 1;
  private view: TimeRange = { start: 0, end: 1 };
  private reply: TraceViewport | null = null;
  private fetched: FetchedRange | null = null; // what `reply` spans
  private fetchedLines: Set<number> | null = null; // the tracks it has events for (null: all)
  private fetchedLinesKey = '';
  private lastScrollTop = 0;
  private scrollDirection = 0; // the last vertical scroll's: > 0 down, < 0 up
  private shape: TraceViewport | null = null; // the first reply: every track and row, to plan the first real one
  private layout: Layout = EMPTY_LAYOUT;
  private collapsed: Set<string>;
  private pinned: Set<string>;
  private counters: CounterTrack[] = [];
  private showFlows: boolean;
  private showPath: boolean;
  private paths: ViewerPath[] | null = null; // the critical path, once loaded
  private readonly pathToggle: HTMLElement;
  private readonly pathText = h('span', { class: 'trace-path-note', 'data-testid': 'critical-path-note', hidden: true });
  private pathStep: number | undefined; // a link's step: the view goes to its path once loaded
  private summaryToken = 0;
  private selected: TraceEventDetails | null = null;
  private measure: TimeRange | null = null;
  private measureMode = false;
  private fetchTimer = 0;
  private fetchAbort: AbortController | null = null;
  private fetchingLines: Set<number> | null = null; // the tracks the fetch in flight asks for (null: all)
  private fetchAgain = false; // the view changed while a fetch was in flight
  private urgent = false; // tracks in sight wait for their events: the next fetch goes at once
  private drawFrame = 0;
  // An event to scroll to once a reply lists it (a link's target): its track, else nothing.
  private scrollTo: { event: number; line: number } | null = null;
  private readonly cleanups: (() => void)[] = [];
  private disposed = false;

  constructor(private readonly ctx: PageContext) {
    this.collapsed = parseCollapsed(ctx.options.collapsed);
    this.pinned = parseCollapsed(ctx.options.pinned);
    // The selected event's arrows always; every visible event's only when asked (they hide
    // the tracks under a mesh).
    this.showFlows = ctx.options.flows === '1';
    const flowsToggle = h(
      'button',
      {
        type: 'button',
        class: 'trace-button trace-flows-toggle',
        'aria-pressed': String(this.showFlows),
        title: 'Draw the flow arrows of every visible event (the selected event’s are always drawn)',
      },
      'All flows',
    );
    flowsToggle.addEventListener('click', () => {
      this.showFlows = !this.showFlows;
      flowsToggle.setAttribute('aria-pressed', String(this.showFlows));
      rememberOption('flows', this.showFlows ? '1' : '');
      this.scheduleDraw();
    });
    // The critical path of each step in view, from the critical_path tool.
    this.showPath = ctx.options.critical_path === '1';
    this.pathToggle = h(
      'button',
      {
        type: 'button',
        class: 'trace-button trace-path-toggle',
        'aria-pressed': String(this.showPath),
        title: 'Outline the events on each step’s critical path and draw the arrows between them',
      },
      'Critical path',
    );
    this.pathToggle.addEventListener('click', () => {
      this.showPath = !this.showPath;
      this.pathToggle.setAttribute('aria-pressed', String(this.showPath));
      rememberOption('critical_path', this.showPath ? '1' : '');
      void this.ensurePath();
      this.scheduleDraw();
    });
    const measureToggle = h('button', { type: 'button', class: 'trace-button', 'aria-pressed': 'false' }, 'Measure');
    measureToggle.addEventListener('click', () => {
      this.measureMode = !this.measureMode;
      measureToggle.setAttribute('aria-pressed', String(this.measureMode));
    });
    const button = (label: string, title: string, onClick: () => void) =>
      h('button', { type: 'button', class: 'trace-button', title, onclick: onClick }, label);
    this.element = h('div', { class: 'trace-viewer' });
    this.search = new TraceSearch({
      run: ctx.run,
      host: ctx.host,
      element: this.element,
      names: () => this.reply?.names ?? {},
      sections: () => this.reply?.sections ?? [],
      goTo: (hit) => {
        this.reveal(hit.start_ps, hit.duration_ps);
        // Its track in sight too, however far down (its row once a reply lists it).
        this.scrollTo = { event: hit.event, line: hit.line };
        this.scrollToTarget();
        void this.select(hit.event);
      },
      redraw: () => this.scheduleDraw(),
      resized: () => {
        this.fitHeight();
        this.scheduleDraw();
      },
      alive: () => !this.disposed,
    });
    this.scroller = h('div', { class: 'trace-scroller' }, this.labels, this.canvasBox);
    this.element.append(
      h(
        'div',
        { class: 'trace-toolbar' },
        button('−', 'Zoom out (S)', () => this.zoom(2, 0.5)),
        button('+', 'Zoom in (W)', () => this.zoom(0.5, 0.5)),
        button('Reset', 'Show the whole trace', () => this.setView({ start: 0, end: this.total })),
        measureToggle,
        flowsToggle,
        this.pathToggle,
        h('span', { class: 'trace-spacer' }),
        this.search.input,
        this.search.scopeSelect,
        button('◀', 'Previous match (shift+Enter)', () => this.search.step(-1)),
        button('▶', 'Next match (Enter)', () => this.search.step(1)),
        this.search.count,
      ),
      // What is in view, measured and drawn: a line of its own, so the toolbar never cuts it.
      h('div', { class: 'trace-status' }, this.rangeText, this.measureText, this.pathText),
      h('div', { class: 'trace-axis-row' }, h('div', { class: 'trace-axis-gutter' }), this.axis),
      this.scroller,
      this.tooltip,
      this.search.panel,
      this.details,
    );
    showDetailsMessage(this.details, 'Click an event to see its details; shift-drag to see what a range holds.');
  }

  async start(): Promise<void> {
    this.listen();
    // A one-pixel-wide reply (cheap) tells the trace's length and its steps.
    const [first, counters] = await Promise.all([
      fetchViewport(this.ctx.run, this.ctx.host, { start: 0, end: 1e15, width: 1 }, undefined, true),
      fetchCounters(this.ctx.run, this.ctx.host).catch(() => [] as CounterTrack[]),
    ]);
    this.counters = counters.filter((c) => c.points.length > 1);
    this.total = Math.max(first.end_ps, 1);
    this.shape = first;
    this.view = clampRange(initialView(first.steps ?? [], this.total, first.device_span), this.total);
    this.element.setAttribute('data-steps', String(first.steps?.length ?? 0));
    const target = readTraceTarget(this.ctx.options);
    if (target) await this.openAt(target, first.steps ?? []);
    this.showRange();
    void this.ensurePath();
    // The page is put in the document once render() returns: only then has the canvas its
    // width (and the timeline its place for its height), which the first real reply needs.
    this.scheduleFetch();
  }

  // A link's target: a step, or an event found by name (near a time), selected and in view
  // (with the moment the link names before it, such as an idle gap's start).
  private async openAt(target: TraceTarget, steps: TraceStep[]): Promise<void> {
    if (target.step !== undefined) {
      const view = stepView(steps, target.step);
      if (view) this.view = clampRange(view, this.total);
      // The critical path's steps may be found where the trace has no markers: its path says where.
      if (target.criticalPath) this.pathStep = target.step;
      else if (!view) showDetailsMessage(this.details, `This trace has no step ${target.step}.`);
    }
    if (!target.name) return;
    try {
      const found = await fetchFoundEvent(this.ctx.run, this.ctx.host, target.name, target.atMs);
      if (this.disposed) return;
      let start = found.start_ps;
      if (target.fromMs !== undefined && target.atMs !== undefined) start = Math.min(start, found.start_ps - (target.atMs - target.fromMs) * 1e9);
      const end = found.start_ps + found.duration_ps;
      // The event (and what comes before it) in the middle third of the view.
      // An instant (an allocation, a marker) gets 10 µs around it, so that the ops it lies in show.
      const span = Math.max(end - start, 10_000_000) * 3;
      const mid = (start + end) / 2;
      this.view = clampRange({ start: mid - span / 2, end: mid + span / 2 }, this.total);
      this.scrollTo = { event: found.event, line: found.line };
      this.element.setAttribute('data-found-event', String(found.event));
      void this.select(found.event);
    } catch (e) {
      showDetailsMessage(this.details, `Could not find ${target.name} in this trace: ${(e as Error).message}`);
    }
  }

  // Loads the critical path the first time it is asked for.
  private pathLoading = false;
  private async ensurePath(): Promise<void> {
    if (!this.showPath || this.paths || this.pathLoading) return;
    this.pathLoading = true;
    this.setPathNote('Finding the critical path…');
    try {
      this.paths = await loadCriticalPath(this.ctx.run, this.ctx.host);
      if (this.disposed) return;
      this.setPathNote(this.paths.length ? '' : 'No critical path: this trace has no steps.');
      if (this.pathStep !== undefined) {
        // A link's step: its path in view, with a little room either side.
        const path = pathOfStep(this.paths, this.pathStep);
        if (path) {
          const room = (path.endPs - path.startPs) * 0.03;
          this.setView({ start: path.startPs - room, end: path.endPs + room });
        } else showDetailsMessage(this.details, `The critical path has no step ${this.pathStep}.`);
        this.pathStep = undefined;
      }
      this.scheduleDraw();
    } catch (e) {
      this.setPathNote(`Could not find the critical path: ${(e as Error).message}`);
    } finally {
      this.pathLoading = false;
    }
  }

  private setPathNote(text: string): void {
    if (this.pathText.textContent === text) return;
    this.pathText.textContent = text;
    this.pathText.hidden = text === '';
  }

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.fetchTimer);
    window.cancelAnimationFrame(this.drawFrame);
    this.fetchAbort?.abort();
    this.cleanups.forEach((c) => c());
  }

  // The timeline takes the window's height below its top, leaving room for the details.
  private heightFitted = false;
  private fitHeight(): void {
    if (!this.element.isConnected) return;
    this.heightFitted = true;
    const top = this.scroller.getBoundingClientRect().top + window.scrollY;
    // The table of search matches, when shown, takes its height and its margin from the timeline.
    const matches = this.search.panel.hidden ? 0 : this.search.panel.offsetHeight + 8 + 24;
    this.scroller.style.maxHeight = `${Math.max(240, window.innerHeight - top - DETAILS_PX - matches)}px`;
  }

  private plotWidth(): number {
    return Math.max(200, this.canvas.clientWidth || this.scroller.clientWidth - 240 || 1000);
  }

  private on<K extends keyof HTMLElementEventMap>(
    target: HTMLElement | Document | Window,
    type: K,
    fn: (e: HTMLElementEventMap[K]) => void,
    options?: AddEventListenerOptions,
  ): () => void {
    const remove = () => target.removeEventListener(type, fn as EventListener, options);
    target.addEventListener(type, fn as EventListener, options);
    this.cleanups.push(remove);
    return remove;
  }

  private listen(): void {
    listenTraceInput(
      {
        canvas: this.canvas,
        view: () => this.view,
        total: () => this.total,
        plotWidth: () => this.plotWidth(),
        setView: (r) => this.setView(r),
        zoom: (factor, anchor) => this.zoom(factor, anchor),
        hit: (x, y) => this.hit(x, y),
        measuring: () => this.measureMode,
        setMeasure: (r) => {
          this.measure = r;
          this.showMeasure();
          this.scheduleDraw();
        },
        measured: (y0, y1) => void this.summarizeRange(linesInBand(this.layout, y0 + this.canvasTop, y1 + this.canvasTop)),
        select: (event) => void this.select(event),
        tooltip: (text, clientX, clientY) => this.showTooltip(text, clientX, clientY),
        names: () => this.reply?.names ?? {},
        longNames: () => this.reply?.long_names ?? {},
        counterText: (place, value) => formatCounter(place, value),
      },
      (target, type, fn, options) => this.on(target, type, fn, options),
    );
    this.on(this.search.input, 'keydown', (e) => this.search.onKey(e));
    this.on(this.scroller, 'scroll', () => {
      const top = this.scroller.scrollTop;
      if (top !== this.lastScrollTop) this.scrollDirection = Math.sign(top - this.lastScrollTop);
      this.lastScrollTop = top;
      this.scheduleDraw();
      this.checkTracksInSight();
    });
    this.on(window, 'resize', () => {
      this.fitHeight();
      this.scheduleDraw();
      this.scheduleFetch();
    });
  }

  // The event under a point of the canvas (CSS pixels), with two pixels of slack.
  private hit(x: number, y: number) {
    const t = this.view.start + (x / this.plotWidth()) * (this.view.end - this.view.start);
    const slack = (2 / this.plotWidth()) * (this.view.end - this.view.start);
    return hitAt(this.layout, t, y + this.canvasTop, slack);
  }

  private showTooltip(text: string | null, clientX: number, clientY: number): void {
    if (text === null) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.textContent = text;
    this.tooltip.hidden = false;
    // Beside the pointer, on whichever side keeps it inside the window.
    const box = this.element.getBoundingClientRect();
    this.tooltip.style.left = this.tooltip.style.top = '0px'; // measured where it has room
    const tip = this.tooltip.getBoundingClientRect();
    const gap = 12;
    const x = clientX + gap + tip.width <= window.innerWidth ? clientX + gap : Math.max(0, clientX - gap - tip.width);
    const y = clientY + gap + tip.height <= window.innerHeight ? clientY + gap : Math.max(0, clientY - gap - tip.height);
    this.tooltip.style.left = `${x - box.left}px`;
    this.tooltip.style.top = `${y - box.top}px`;
  }

  private zoom(factor: number, anchor: number): void {
    this.setView(zoomRange(this.view, factor, anchor, this.total));
  }

  private setView(r: TimeRange): void {
    this.view = clampRange(r, this.total);
    this.showRange();
    this.scheduleDraw();
    if (!coversAhead(this.fetched, this.view, this.plotWidth(), this.total)) this.scheduleFetch();
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
  // it lands, and its reply is drawn meanwhile. Tracks in sight without events (`urgent`)
  // are asked for without the delay.
  private scheduleFetch(): void {
    this.element.setAttribute('data-loading', 'true');
    if (this.fetchAbort) {
      this.fetchAgain = true;
      return;
    }
    if (this.fetchTimer && !this.urgent) return;
    window.clearTimeout(this.fetchTimer);
    this.fetchTimer = window.setTimeout(
      () => {
        this.fetchTimer = 0;
        void this.fetchNow();
      },
      this.urgent ? 0 : FETCH_DELAY_MS,
    );
  }

  private async fetchNow(): Promise<void> {
    const abort = new AbortController();
    this.fetchAbort = abort;
    this.fetchAgain = false;
    this.urgent = false;
    // A reply that still spans the view and its margins keeps its time: only tracks are lacking.
    const keepTime = this.fetched && coversAhead(this.fetched, this.view, this.plotWidth(), this.total);
    const range = keepTime && this.fetched ? this.fetched : rangeToFetch(this.view, this.plotWidth(), this.total);
    let lines = this.linesToAsk();
    // A scroll within the same time asks only for the tracks the reply in hand lacks (accept
    // keeps the others').
    if (lines && this.fetchedLines && sameFetch(this.fetched, range)) {
      const have = this.fetchedLines;
      const lacking = lines.filter((l) => !have.has(l));
      if (lacking.length) lines = lacking;
    }
    this.fetchingLines = lines ? new Set(lines) : null;
    try {
      const reply = await fetchViewport(this.ctx.run, this.ctx.host, { ...range, width: range.widthPx }, abort.signal, false, lineListParam(lines ?? []));
      if (!abort.signal.aborted && !this.disposed) this.accept(reply, range, lines);
    } catch (e) {
      if (!abort.signal.aborted) this.rangeText.textContent = `Could not load the trace: ${(e as Error).message}`;
    } finally {
      this.fetchAbort = null;
      if (!this.disposed && (this.fetchAgain || this.needsFetch())) {
        this.fetchAgain = false;
        if (this.needsFetch()) this.scheduleFetch();
        else this.element.removeAttribute('data-loading');
      } else {
        this.element.removeAttribute('data-loading');
      }
    }
  }

  // Whether the reply in hand lacks the view's time or the tracks in sight.
  private needsFetch(): boolean {
    if (!coversAhead(this.fetched, this.view, this.plotWidth(), this.total)) return true;
    return !coversTracks(this.fetchedLines, this.layout, this.scroller.scrollTop, this.sightHeight(), true);
  }

  // The scroller's height once fitted (before the first layout it has no content to show it).
  private sightHeight(): number {
    if (!this.heightFitted) this.fitHeight();
    return Math.max(this.scroller.clientHeight, Number.parseFloat(this.scroller.style.maxHeight) || 0) || window.innerHeight;
  }

  // The tracks to ask events for: those within a screen of the scroller's view, and a link's
  // target; null (every track) before the first reply tells the tracks.
  private linesToAsk(): number[] | null {
    const layout = this.layout.labels.length ? this.layout : this.shape ? layoutOf(this.shape, this.collapsed, this.pinned, this.counters) : null;
    if (!layout) return null;
    const extra = this.scrollTo ? [this.scrollTo.line] : [];
    const lines = linesToFetch(layout, this.scroller.scrollTop, this.sightHeight(), extra, this.scrollDirection);
    // None in sight (counters only): one still, since an empty list asks for every track.
    const first = layout.labels.find((l) => l.kind === 'track');
    if (!lines.length && first) lines.push(Number(first.key.slice(1)));
    return lines.length ? lines : null;
  }

  // A scroll or a fold that brings tracks without events near the view asks for them; a jump
  // past what the fetch in flight asks for drops that fetch (its reply would not draw the
  // tracks in sight, and the next would wait for it: 0.6 s instead of 0.3 s at 100 M events).
  private checkTracksInSight(): void {
    if (!this.reply) return;
    const top = this.scroller.scrollTop;
    const height = this.sightHeight();
    if (coversTracks(this.fetchedLines, this.layout, top, height, true)) return;
    if (!coversTracks(this.fetchedLines, this.layout, top, height)) this.urgent = true;
    if (this.fetchAbort && this.fetchingLines && this.fetchedLines) {
      const coming = new Set([...this.fetchedLines, ...this.fetchingLines]);
      if (!coversTracks(coming, this.layout, top, height)) this.fetchAbort.abort();
    }
    this.scheduleFetch();
  }

  private accept(reply: TraceViewport, range: FetchedRange, lines: number[] | null): void {
    const began = performance.now();
    // Of the same time: the last reply's events of the tracks near the view that this one left out.
    const last = this.reply;
    if (last && lines && this.fetchedLines && sameFetch(this.fetched, range)) {
      const kept = keepNearTracks(last, reply, linesToKeep(this.layout, this.scroller.scrollTop, this.sightHeight()));
      lines = [...lines, ...kept].sort((a, b) => a - b);
    }
    this.reply = reply;
    ++this.replies;
    this.fetched = range;
    this.fetchedLines = lines ? new Set(lines) : null;
    this.fetchedLinesKey = lines ? lineListParam(lines) : '';
    this.search.matchNames();
    this.relayout();
    // What taking a reply costs, for the panning benchmark.
    this.element.setAttribute('data-accept-ms', (performance.now() - began).toFixed(2));
  }

  private toggleCollapsed(key: string): void {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
    rememberOption('collapsed', formatCollapsed(this.collapsed));
    this.relayout();
  }

  private togglePinned(key: string): void {
    if (this.pinned.has(key)) this.pinned.delete(key);
    else this.pinned.add(key);
    rememberOption('pinned', formatCollapsed(this.pinned));
    this.relayout();
  }

  private relayout(): void {
    if (!this.reply) return;
    this.layout = layoutOf(this.reply, this.collapsed, this.pinned, this.counters);
    this.element.setAttribute('data-rows', String(this.layout.rows.length));
    // Replies while panning keep the same tracks: their labels stay as they are.
    const labelsShown = JSON.stringify(this.layout.labels) + String(this.reply.sections.length);
    if (labelsShown !== this.labelsShown) {
      this.labelsShown = labelsShown;
      renderTrackLabels(this.labels, this.layout, {
        toggle: (key) => this.toggleCollapsed(key),
        pin: (key) => this.togglePinned(key),
      });
      if (this.reply.sections.length === 0) this.labels.append(h('p', { class: 'muted' }, 'This run has no events.'));
    }
    this.scrollToTarget();
    this.scheduleDraw();
    this.checkTracksInSight();
  }

  // Brings a link's event into the scroller's view: its row, a third of the way down.
  private scrollToTarget(): void {
    if (!this.scrollTo || !this.reply) return;
    // A link unfolds what hides its event (once: the folds are gone on the next layout).
    const folds = foldsHiding(this.reply, this.collapsed, this.pinned, this.scrollTo.line);
    if (folds.length) {
      for (const key of folds) this.collapsed.delete(key);
      rememberOption('collapsed', formatCollapsed(this.collapsed));
      this.relayout();
      return;
    }
    const eventY = rowYOfEvent(this.layout, this.scrollTo.event, this.scrollTo.line);
    const y = eventY ?? this.layout.lineY.get(this.scrollTo.line);
    if (y === undefined) return;
    if (!this.heightFitted) this.fitHeight();
    this.scroller.scrollTop = Math.max(0, y - this.scroller.clientHeight / 3);
    this.element.setAttribute('data-found-y', String(Math.round(y))); // for tests: the row scrolled to
    if (eventY !== undefined) this.scrollTo = null;
  }

  // Draws the rows in sight (the scroller's visible band) from the reply in hand.
  private draw(): void {
    if (this.disposed) return;
    if (!this.heightFitted) this.fitHeight();
    const began = performance.now();
    const width = this.plotWidth();
    this.rangeText.textContent = `${formatRange(this.view)} (${formatPs(this.view.end - this.view.start)} visible)`;
    drawAxis(this.axis, this.view, width, this.measure);
    const fullHeight = Math.max(this.layout.height, 60);
    const boxHeight = `${fullHeight}px`;
    if (this.canvasBox.style.height !== boxHeight) this.canvasBox.style.height = boxHeight;
    const shown = Math.min(fullHeight, this.scroller.clientHeight || fullHeight);
    this.canvasTop = Math.max(0, Math.min(this.scroller.scrollTop, fullHeight - shown));
    const g = sizeCanvas(this.canvas, this.canvas.clientWidth || width, shown, this.canvasTop);
    if (!g) return;
    const frame = {
      layout: this.layout,
      names: this.reply?.names ?? {},
      view: this.view,
      width,
      top: this.canvasTop,
      height: shown,
      matchedNames: this.search.matchedNames,
      matchedLines: this.search.matchedLines,
      selectedEvent: this.selected?.event,
      measure: this.measure,
    };
    // The rows from the panned bitmap when it holds them; the rest is drawn over them at the
    // view the bitmap's pixels show.
    // A reply with other tracks' events redraws the bitmap (the same span keeps it otherwise).
    const look = { tracks: `${this.labelsShown}|${this.fetchedLinesKey}`, searchVersion: this.search.version, selectedEvent: this.selected?.event };
    const rows = this.pannedRows.draw(g, frame, look, this.fetched);
    const drawn = { ...frame, view: rows.view };
    if (rows.fromBitmap) this.painter.drawEdgeLabels(g, drawn);
    const awaited = tracksAwaited(this.reply ? this.fetchedLines : null, this.layout, this.canvasTop, shown);
    drawAwaited(g, this.layout, awaited, width);
    this.element.setAttribute('data-tracks-awaited', String(awaited.length));
    this.painter.drawCounterScales(g, drawn);
    this.element.setAttribute('data-rows-bitmaps', String(this.pannedRows.builds));
    this.element.setAttribute('data-rows-strips', String(this.pannedRows.strips));
    const psPerPx = (rows.view.end - rows.view.start) / width;
    const xOf = (ps: number) => (ps - rows.view.start) / psPerPx;
    const flowsBegan = performance.now();
    let flowsDrawn = 0;
    if (this.showFlows && this.reply) {
      // A reply's arrows join its rows, which the last one's may not (an end it did not list
      // is drawn at its track's first row): the layer starts anew with each reply.
      this.flowArrows.use(this.layout, this.reply.flows, this.selected?.event);
      this.pannedFlows.draw(g, drawn, { ...look, tracks: `${look.tracks}|${this.replies}` }, this.fetched);
      flowsDrawn = this.flowArrows.countInView(rows.view);
    }
    const selectedDrawn = drawSelectedFlows(g, this.layout, xOf, width, this.selected);
    this.element.setAttribute('data-flows-ms', (performance.now() - flowsBegan).toFixed(2));
    this.element.setAttribute('data-flows-drawn', String(flowsDrawn));
    this.element.setAttribute('data-selected-flows-drawn', String(selectedDrawn));
    if (this.showPath && this.paths) {
      const outlined = drawCriticalPath(g, this.layout, this.paths, rows.view, xOf, width);
      this.element.setAttribute('data-path-outlined', String(outlined.outlined));
      this.element.setAttribute('data-path-arrows', String(outlined.arrows));
      this.element.setAttribute('data-path-longest-event', String(outlined.longestEvent ?? ''));
      this.setPathNote(leftOutNote(this.paths, this.view));
    } else {
      this.element.setAttribute('data-path-outlined', '0');
      if (!this.showPath) this.setPathNote('');
    }
    this.painter.drawMeasure(g, drawn);
    // What a frame costs here, for the panning benchmark (bench/trace_viewer_pan_bench.mjs).
    this.element.setAttribute('data-draw-ms', (performance.now() - began).toFixed(2));
  }

  private showMeasure(): void {
    this.measureText.textContent = this.measure
      ? `Measured: ${formatPs(Math.abs(this.measure.end - this.measure.start))}`
      : '';
  }

  // The selected range's events per name, from the server (merged boxes included).
  // `lines`: the tracks the selection crossed (none: every track).
  private async summarizeRange(lines: number[]): Promise<void> {
    const range = this.measure;
    if (!range || range.start === range.end) return;
    const token = ++this.summaryToken;
    const r = { start: Math.min(range.start, range.end), end: Math.max(range.start, range.end) };
    showDetailsMessage(this.details, 'Summing up the range…');
    try {
      const summary = await fetchRangeSummary(this.ctx.run, this.ctx.host, r, lines);
      if (this.disposed || token !== this.summaryToken) return;
      clear(this.details);
      const names = new Map(this.layout.labels.map((l) => [l.key, l.text]));
      this.details.append(rangeSummaryView(summary, lines.map((line) => names.get(trackKey(line)) ?? `line ${line}`)));
    } catch (e) {
      showDetailsMessage(this.details, `Could not sum up the range: ${(e as Error).message}`);
    }
  }

  private async select(event: number): Promise<void> {
    ++this.summaryToken;
    showDetailsMessage(this.details, 'Loading…');
    try {
      const d = await fetchEventDetails(this.ctx.run, this.ctx.host, event);
      if (this.disposed) return;
      this.selected = d;
      this.element.setAttribute('data-selected-event', String(d.event)); // for tests
      showDetails(this.details, d, (ev: TraceEventRef) => {
        this.reveal(ev.start_ps, ev.duration_ps);
        void this.select(ev.event);
      });
      this.scheduleDraw();
    } catch (e) {
      showDetailsMessage(this.details, `Could not load the event: ${(e as Error).message}`);
    }
  }

  // Brings an event into view: centred, zoomed so it spans about a third of the width.
  private reveal(start: number, dur: number): void {
    const span = Math.max(dur * 3, (this.view.end - this.view.start) / 50, 10_000);
    const mid = start + dur / 2;
    this.setView({ start: mid - span / 2, end: mid + span / 2 });
  }
}
