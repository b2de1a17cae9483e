// The application: resolves the URL's selection against what the server has, draws the
// sidebar, and renders the chosen tool's page.
import { csvUrl, fetchRuns, fetchToolData, fetchTools, hasData, type RunSummary, type ToolInfo } from './api';
import { clear, h } from './dom';
import { humanize } from './format';
import { readViewState, viewStateHash, type ViewState } from './location_state';
import { notice } from './components/panel';
import { pageHeader } from './components/page_header';
import { compareHash, isCompareHash, readCompareState, renderComparePage } from './pages/compare_page';
import { pageFor } from './pages/registry';
import type { PageContext } from './pages/tool_page';
import { renderSidebar } from './sidebar';
import { setKnownTools } from './components/rich_text';

const RUN_POLL_MS = 10_000;
const DEFAULT_TOOL = 'overview_page';

export class App {
  private runs: RunSummary[] = [];
  private tools = new Map<string, ToolInfo[]>(); // by run and host
  private disposers: (() => void)[] = [];
  private renderToken = 0;

  constructor(
    private readonly sidebar: HTMLElement,
    private readonly main: HTMLElement,
  ) {}

  async start(): Promise<void> {
    window.addEventListener('hashchange', () => void this.show());
    // New captures appear in the run list without a reload.
    window.setInterval(() => {
      if (document.visibilityState === 'visible') void this.pollRuns();
    }, RUN_POLL_MS);
    await this.reloadRuns();
  }

  // Shows a run that may have just been written (a capture from the UI): the run list is
  // fetched again first. `tool` '' picks the default.
  async openRun(run: string, tool: string): Promise<void> {
    try {
      this.runs = await fetchRuns();
      this.tools.clear();
    } catch (e) {
      this.showError(e);
      return;
    }
    this.navigate({ run, host: '', tool, options: {} });
  }

  private async reloadRuns(): Promise<void> {
    try {
      this.runs = await fetchRuns();
      this.tools.clear();
    } catch (e) {
      this.showError(e);
      return;
    }
    await this.show();
  }

  private async pollRuns(): Promise<void> {
    try {
      const runs = await fetchRuns();
      if (JSON.stringify(runs) === JSON.stringify(this.runs)) return;
      this.runs = runs;
      this.tools.clear();
      const state = readViewState();
      // Only the sidebar changes, unless there was nothing to show before.
      if (!this.runs.some((r) => r.name === state.run) || this.main.querySelector('.empty-state')) await this.show();
      else await this.drawSidebar(state);
    } catch {
      // The server may be restarting; the next poll tries again.
    }
  }

  private async toolsFor(run: string, host: string): Promise<ToolInfo[]> {
    const key = `${run}\u0000${host}`;
    let tools = this.tools.get(key);
    if (!tools) {
      tools = await fetchTools(run, host);
      this.tools.set(key, tools);
    }
    return tools;
  }

  // Fills in what the URL leaves open: the newest run, its only host, the overview page.
  private async resolve(wanted: ViewState): Promise<ViewState | null> {
    if (this.runs.length === 0) return null;
    const run = this.runs.find((r) => r.name === wanted.run) ?? this.runs[this.runs.length - 1];
    let host = run.hosts.includes(wanted.host) ? wanted.host : '';
    if (run.hosts.length === 1) host = run.hosts[0];
    const tools = await this.toolsFor(run.name, host);
    // A tool asked for by name opens even without data (its page says why); otherwise the
    // overview, or the first tool with data.
    const withData = tools.filter(hasData);
    const tool =
      tools.find((t) => t.name === wanted.tool)?.name ??
      withData.find((t) => t.name === DEFAULT_TOOL)?.name ??
      withData[0]?.name ??
      '';
    const options = run.name === wanted.run && tool === wanted.tool ? wanted.options : {};
    return { run: run.name, host, tool, options };
  }

  private async drawSidebar(state: ViewState, comparing = false): Promise<ToolInfo[]> {
    const tools = state.run ? await this.toolsFor(state.run, state.host) : [];
    setKnownTools(tools);
    renderSidebar(this.sidebar, { runs: this.runs, tools, state, comparing }, {
      navigate: (next) => this.navigate(next),
      refreshRuns: () => void this.reloadRuns(),
    });
    return tools;
  }

  private navigate(state: ViewState): void {
    const hash = viewStateHash(state);
    if (hash !== window.location.hash) window.location.hash = hash;
    else void this.show();
  }

  // Tests (and anyone curious) can tell a settled view by <body data-view="#run=...">.
  private async show(): Promise<void> {
    const token = ++this.renderToken;
    delete document.body.dataset.view;
    await this.showView(token);
    if (token === this.renderToken) document.body.dataset.view = window.location.hash || '#';
  }

  private async showView(token: number): Promise<void> {
    if (isCompareHash()) {
      await this.showCompare(token);
      return;
    }
    let state: ViewState | null;
    try {
      state = await this.resolve(readViewState());
    } catch (e) {
      this.showError(e);
      return;
    }
    if (token !== this.renderToken) return;
    if (!state) {
      clear(this.sidebar);
      this.replacePage(this.emptyState());
      return;
    }
    const hash = viewStateHash(state);
    if (hash !== window.location.hash) history.replaceState(null, '', hash);

    const tools = await this.drawSidebar(state);
    if (token !== this.renderToken) return;
    const title = tools.find((t) => t.name === state.tool)?.title ?? humanize(state.tool);
    document.title = `${title} · ${state.run} · mlprof`;
    if (!state.tool) {
      this.replacePage(notice('info', 'No tool has data for this run. Pick another run or host.'));
      return;
    }
    const info = tools.find((t) => t.name === state.tool);
    if (info && !hasData(info)) {
      this.replacePage(noDataPage(info, state.run));
      return;
    }
    await this.renderPage(state, title, token);
  }

  // The compare page: two runs side by side. The sidebar shows run A's tools.
  private async showCompare(token: number): Promise<void> {
    const compare = readCompareState();
    let state: ViewState | null;
    try {
      state = await this.resolve({ run: compare.run_a, host: compare.host_a, tool: '', options: {} });
      if (token !== this.renderToken) return;
      if (!state) {
        clear(this.sidebar);
        this.replacePage(this.emptyState());
        return;
      }
      await this.drawSidebar(state, true);
    } catch (e) {
      this.showError(e);
      return;
    }
    if (token !== this.renderToken) return;
    document.title = 'Compare runs · mlprof';
    const root = h('div', { class: 'page', 'data-tool': 'compare' });
    this.replacePage(root);
    await renderComparePage(root, this.runs, compare, (next) => {
      const hash = compareHash(next);
      if (hash !== window.location.hash) window.location.hash = hash;
    });
    if (token === this.renderToken) root.setAttribute('data-ready', 'true');
  }

  private async renderPage(state: ViewState, title: string, token: number): Promise<void> {
    const root = h('div', { class: 'page', 'data-tool': state.tool });
    const disposers: (() => void)[] = [];
    this.replacePage(h('div', { class: 'loading', role: 'status' }, 'Loading…'));
    const ctx: PageContext = {
      run: state.run,
      host: state.host,
      tool: state.tool,
      title,
      options: state.options,
      fetchData: (options) => fetchToolData(state.run, state.host, state.tool, options ?? state.options),
      csvUrl: (options) => csvUrl(state.run, state.host, state.tool, options ?? state.options),
      setOption: (name, value) => {
        const options = { ...state.options };
        if (value === undefined || value === '') delete options[name];
        else options[name] = value;
        this.navigate({ ...state, options });
      },
      onDispose: (cleanup) => disposers.push(cleanup),
    };
    try {
      await pageFor(state.tool).render(root, ctx);
    } catch (e) {
      disposers.forEach((d) => d());
      if (token === this.renderToken) this.showError(e);
      return;
    }
    if (token !== this.renderToken) {
      disposers.forEach((d) => d());
      return;
    }
    this.replacePage(root);
    this.disposers = disposers;
    root.setAttribute('data-ready', 'true');
  }

  private replacePage(content: HTMLElement): void {
    this.disposers.forEach((d) => d());
    this.disposers = [];
    clear(this.main);
    this.main.appendChild(content);
  }

  private emptyState(): HTMLElement {
    return h(
      'div',
      { class: 'empty-state' },
      h('h1', {}, 'No profiles yet'),
      h('p', {}, 'This logdir holds no profile. Capture one, for example:'),
      h('pre', {}, 'mlprof run --logdir LOGDIR -- ./your_program\n# or, in C++: mlprof::Profile session("LOGDIR");'),
      h('p', { class: 'muted' }, 'New runs appear here on their own within a few seconds.'),
    );
  }

  private showError(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.replacePage(notice('error', h('strong', {}, 'Could not load this view. '), message));
  }
}

// A tool without data for the run: why, and what gives it some.
function noDataPage(tool: ToolInfo, run: string): HTMLElement {
  return h(
    'div',
    { class: 'page', 'data-tool': tool.name, 'data-ready': 'true', 'data-no-data': 'true' },
    pageHeader(tool.title, `Run ${run}`),
    notice(
      'info',
      h('strong', {}, `No data for ${tool.title} in this run. `),
      tool.reason ? `${tool.reason[0].toUpperCase()}${tool.reason.slice(1)}${/[.!?]$/.test(tool.reason) ? '' : '.'}` : '',
      tool.how_to_get ? h('p', { 'data-testid': 'how-to-get' }, `To get it: ${tool.how_to_get}`) : null,
    ),
  );
}
