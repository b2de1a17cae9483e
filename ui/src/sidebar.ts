// The left column, like TensorBoard's Profile tab: run and host pickers, then the tools.
import { hasData, type RunSummary, type ToolInfo } from './api';
import { clear, h } from './dom';
import { viewStateHash, type ViewState } from './location_state';
import { compareHash } from './pages/compare_page';

export const ALL_HOSTS_LABEL = 'All hosts';

export interface SidebarModel {
  runs: RunSummary[];
  tools: ToolInfo[];
  state: ViewState; // the resolved selection
  comparing?: boolean; // the compare page is shown
}

export interface SidebarActions {
  navigate(state: ViewState): void;
  refreshRuns(): void;
}

// A picker shows about this many characters; a longer name is also written out in full below
// it, wrapped, so it is read whole and the same as the pages write it.
const PICKER_CHARS = 24;

function fullName(name: string): HTMLElement | null {
  return name.length > PICKER_CHARS ? h('div', { class: 'field-full-name', 'data-testid': 'full-name' }, name) : null;
}

export function renderSidebar(root: HTMLElement, model: SidebarModel, actions: SidebarActions): void {
  clear(root);
  const { runs, tools, state } = model;
  const run = runs.find((r) => r.name === state.run);

  // Newest run first, as the user most often wants the capture just taken.
  const runSelect = h(
    'select',
    { id: 'run-select', 'aria-label': 'Run' },
    ...[...runs].reverse().map((r) => h('option', { value: r.name, selected: r.name === state.run }, r.name)),
  );
  runSelect.addEventListener('change', () =>
    actions.navigate({ run: runSelect.value, host: '', tool: state.tool, options: {} }),
  );

  const hosts = run?.hosts ?? [];
  const hostOptions = hosts.length > 1 ? [{ value: '', label: ALL_HOSTS_LABEL }] : [];
  hostOptions.push(...hosts.map((name) => ({ value: name, label: name })));
  const hostSelect = h(
    'select',
    { id: 'host-select', 'aria-label': 'Host', disabled: hostOptions.length <= 1 },
    ...hostOptions.map((o) => h('option', { value: o.value, selected: o.value === state.host }, o.label)),
  );
  hostSelect.addEventListener('change', () =>
    actions.navigate({ run: state.run, host: hostSelect.value, tool: state.tool, options: {} }),
  );

  const refresh = h(
    'button',
    { type: 'button', class: 'icon-button', title: 'Look for new runs', 'aria-label': 'Look for new runs' },
    '↻',
  );
  refresh.addEventListener('click', () => actions.refreshRuns());

  // Tools with data first; those without (GPU tools on a TPU run, the pod viewer of one host)
  // once at the end, folded, greyed, each saying why on hover; their page says how to get it.
  // One page is highlighted: the compare page's link when comparing, else the tool's.
  const link = (t: ToolInfo) =>
    h(
      'a',
      {
        href: viewStateHash({ run: state.run, host: state.host, tool: t.name, options: {} }),
        'aria-current': t.name === state.tool && !model.comparing ? 'page' : undefined,
        'data-tool': t.name,
        class: hasData(t) ? undefined : 'no-data',
        title: hasData(t) ? undefined : `No data: ${t.reason ?? ''}${t.how_to_get ? ` (${t.how_to_get})` : ''}`,
      },
      t.title,
    );
  const without = tools.filter((t) => !hasData(t));
  const withData = tools.filter(hasData);
  const fold = without.length
    ? h(
        'details',
        {
          class: 'tools-without-data',
          'data-testid': 'tools-without-data',
          // Open where nothing else is listed, or where the page shown is one of them.
          open: withData.length === 0 || without.some((t) => t.name === state.tool && !model.comparing),
        },
        h('summary', { class: 'muted small', title: without.map((t) => t.title).join(', ') }, `${without.length} ${without.length === 1 ? 'tool' : 'tools'} without data for this run`),
        ...without.map(link),
      )
    : null;
  const nav = h('nav', { class: 'tool-nav', 'aria-label': 'Tools' }, ...withData.map(link), fold);

  runSelect.title = state.run;
  hostSelect.title = state.host || ALL_HOSTS_LABEL;
  root.append(
    h('div', { class: 'field' }, h('div', { class: 'field-label' }, h('span', {}, 'Run'), refresh), runSelect, fullName(state.run)),
    h('div', { class: 'field' }, h('div', { class: 'field-label' }, 'Host'), hostSelect, fullName(state.host)),
    h('div', { class: 'field' }, h('div', { class: 'field-label' }, 'Tools'), tools.some(hasData) ? nav : h('div', {}, h('p', { class: 'muted' }, 'No tool has data for this run.'), nav)),
    h(
      'nav',
      { class: 'compare-nav', 'aria-label': 'Compare' },
      h(
        'a',
        {
          href: compareHash({ run_a: state.run, host_a: state.host }),
          'aria-current': model.comparing ? 'page' : undefined,
          'data-testid': 'compare-runs-link',
        },
        'Compare runs',
      ),
    ),
  );
}
