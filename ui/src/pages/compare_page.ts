// Compare runs: run B against run A (a baseline). The average step time and its change, the
// step-time breakdown per category side by side, and the ops that got slower, faster, were
// added or removed (GET /api/diff). The selection lives in the URL hash:
// #compare=1&run_a=A&host_a=H&run_b=B&host_b=H
import { changeClass, changePctText, type ChangeFields } from './compare_change';
import { fetchDiff, type RunSummary } from '../api';
import { h } from '../dom';
import { formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { notice, panel } from '../components/panel';
import { pageHeader } from '../components/page_header';
import { groupedBarChart } from '../charts/grouped_bar_chart';
import { STEP_CATEGORIES } from '../step_categories';
import './compare_page.css';

export interface CompareState {
  run_a: string;
  host_a: string;
  run_b: string;
  host_b: string;
}

interface Change extends ChangeFields {
  a: number;
  b: number;
  change_ms: number;
}

interface OpChange extends ChangeFields {
  name: string;
  type: string;
  host_or_device: string;
  a_self_time_per_step_ms: number;
  b_self_time_per_step_ms: number;
  change_ms: number;
  status: 'added' | 'removed' | 'slower' | 'faster';
}

export interface DiffData {
  a: { name: string; steps: number; input_bound: string };
  b: { name: string; steps: number; input_bound: string };
  step_time_ms: Change;
  breakdown_ms: Record<string, Change>;
  ops: OpChange[];
}

export function isCompareHash(hash: string = window.location.hash): boolean {
  return new URLSearchParams(hash.replace(/^#/, '')).has('compare');
}

export function readCompareState(hash: string = window.location.hash): CompareState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return { run_a: p.get('run_a') ?? '', host_a: p.get('host_a') ?? '', run_b: p.get('run_b') ?? '', host_b: p.get('host_b') ?? '' };
}

export function compareHash(s: Partial<CompareState>): string {
  const p = new URLSearchParams();
  p.set('compare', '1');
  for (const key of ['run_a', 'host_a', 'run_b', 'host_b'] as const) if (s[key]) p.set(key, s[key]!);
  return `#${p.toString()}`;
}

// A signed change with its unit: "+1.2 ms", "−3 ms", "0 ms".
function signedMs(ms: number): string {
  if (ms > 0) return `+${formatMs(ms)}`;
  if (ms < 0) return `−${formatMs(-ms)}`;
  return formatMs(0);
}


function runPicker(
  side: 'a' | 'b',
  runs: RunSummary[],
  state: CompareState,
  navigate: (s: CompareState) => void,
): HTMLElement {
  const runKey = side === 'a' ? 'run_a' : 'run_b';
  const hostKey = side === 'a' ? 'host_a' : 'host_b';
  const runName = state[runKey];
  const runSelect = h(
    'select',
    { id: `compare-run-${side}`, 'aria-label': `Run ${side.toUpperCase()}` },
    h('option', { value: '', selected: !runName }, 'Choose a run…'),
    ...[...runs].reverse().map((r) => h('option', { value: r.name, selected: r.name === runName }, r.name)),
  );
  runSelect.addEventListener('change', () => navigate({ ...state, [runKey]: runSelect.value, [hostKey]: '' }));
  const hosts = runs.find((r) => r.name === runName)?.hosts ?? [];
  const hostOptions = hosts.length > 1 ? [{ value: '', label: 'All hosts' }] : [];
  hostOptions.push(...hosts.map((name) => ({ value: name, label: name })));
  const hostSelect = h(
    'select',
    { id: `compare-host-${side}`, 'aria-label': `Host of run ${side.toUpperCase()}`, disabled: hostOptions.length <= 1 },
    ...hostOptions.map((o) => h('option', { value: o.value, selected: o.value === state[hostKey] }, o.label)),
  );
  hostSelect.addEventListener('change', () => navigate({ ...state, [hostKey]: hostSelect.value }));
  return h(
    'div',
    { class: 'compare-side' },
    h('div', { class: 'field-label' }, side === 'a' ? 'Run A (baseline)' : 'Run B (compared with A)'),
    runSelect,
    hostSelect,
  );
}

// Renders the page into `root`; resolves once the comparison (or a prompt) is shown.
export async function renderComparePage(
  root: HTMLElement,
  runs: RunSummary[],
  state: CompareState,
  navigate: (s: CompareState) => void,
): Promise<void> {
  const swap = h('button', { type: 'button', class: 'button', id: 'compare-swap', disabled: !state.run_a || !state.run_b }, 'Swap A and B');
  swap.addEventListener('click', () =>
    navigate({ run_a: state.run_b, host_a: state.host_b, run_b: state.run_a, host_b: state.host_a }),
  );
  root.append(
    pageHeader('Compare runs', 'How run B differs from run A: step time, its breakdown, and ops', swap),
    h('div', { class: 'panel compare-pickers' }, runPicker('a', runs, state, navigate), runPicker('b', runs, state, navigate)),
  );
  if (!state.run_a || !state.run_b) {
    root.append(
      h(
        'div',
        { class: 'empty-state compare-empty' },
        h('p', {}, runs.length < 2 ? 'This logdir holds one run: there is nothing to compare it with yet.' : 'Pick run A and run B to compare them.'),
      ),
    );
    return;
  }
  const loading = h('div', { class: 'loading', role: 'status' }, 'Comparing…');
  root.append(loading);
  let data: DiffData;
  try {
    data = await fetchDiff<DiffData>(state.run_a, state.host_a, state.run_b, state.host_b);
  } catch (e) {
    loading.replaceWith(notice('error', h('strong', {}, 'Could not compare these runs. '), e instanceof Error ? e.message : String(e)));
    return;
  }
  loading.replaceWith(...renderDiff(data));
}

function renderDiff(d: DiffData): HTMLElement[] {
  const st = d.step_time_ms;
  const summary = panel(
    'Average step time',
    h(
      'div',
      { class: 'compare-summary' },
      h('div', { class: 'compare-stat' }, h('div', { class: 'muted' }, `A: ${d.a.name}`), h('div', { class: 'stat-value', 'data-testid': 'step-time-a' }, formatMs(st.a))),
      h('div', { class: 'compare-stat' }, h('div', { class: 'muted' }, `B: ${d.b.name}`), h('div', { class: 'stat-value', 'data-testid': 'step-time-b' }, formatMs(st.b))),
      h(
        'div',
        { class: 'compare-stat' },
        h('div', { class: 'muted' }, 'Change'),
        h('div', { class: `stat-value ${changeClass(st)}`, 'data-testid': 'step-time-change' }, `${signedMs(st.change_ms)} (${changePctText(st, formatPct)})`),
      ),
    ),
    h('p', { class: 'muted small' }, `${d.a.steps} steps in A, ${d.b.steps} in B. Input-bound: A ${d.a.input_bound || '–'}, B ${d.b.input_bound || '–'}.`),
  );

  const groups = STEP_CATEGORIES.filter((c) => {
    const v = d.breakdown_ms[c.key];
    return v && (v.a > 0 || v.b > 0);
  });
  const breakdown = panel(
    'Step-time breakdown',
    groups.length
      ? groupedBarChart({
          title: 'Average time per step, by category',
          series: [`A: ${d.a.name}`, `B: ${d.b.name}`],
          groups: groups.map((c) => ({ label: c.label, colour: c.colour, values: [d.breakdown_ms[c.key].a, d.breakdown_ms[c.key].b] })),
          unit: 'ms per step',
          formatValue: formatMs,
        })
      : h('p', { class: 'muted' }, 'Neither run has steps to break down.'),
    groups.length ? breakdownTable(d, groups) : null,
  );

  const sections: [OpChange['status'], string, string][] = [
    ['slower', 'Slower ops', 'No op got slower.'],
    ['faster', 'Faster ops', 'No op got faster.'],
    ['added', 'Added ops', 'No op is new in B.'],
    ['removed', 'Removed ops', 'No op of A is missing from B.'],
  ];
  // LibTorch ops are their own type: a type column would repeat the name (one choice for all tables).
  const typed = d.ops.some((o) => o.type && o.type !== o.name);
  const tables = sections.map(([status, title, empty]) =>
    panel(title, opTable(d.ops.filter((o) => o.status === status), title, empty, typed)),
  );
  return [summary, breakdown, ...tables];
}

function breakdownTable(d: DiffData, groups: typeof STEP_CATEGORIES): HTMLElement {
  type Row = { label: string; colour: string } & Change;
  const rows: Row[] = groups.map((c) => ({ label: c.label, colour: c.colour, ...d.breakdown_ms[c.key] }));
  return dataTable<Row>({
    label: 'Breakdown change',
    rows,
    filterable: false,
    columns: [
      {
        key: 'label',
        title: 'Category',
        value: (r) => r.label,
        render: (r) => h('span', {}, h('span', { class: 'legend-swatch', style: `background: ${r.colour}` }), r.label),
      },
      { key: 'a', title: 'A per step', numeric: true, value: (r) => r.a, render: (r) => formatMs(r.a) },
      { key: 'b', title: 'B per step', numeric: true, value: (r) => r.b, render: (r) => formatMs(r.b) },
      { key: 'change_ms', title: 'Change', numeric: true, value: (r) => r.change_ms, render: (r) => h('span', { class: changeClass(r) }, signedMs(r.change_ms)) },
      { key: 'change_pct', title: 'Change %', numeric: true, value: (r) => r.change_pct, render: (r) => (r.a || r.b ? changePctText(r, formatPct) : '–') },
    ],
  });
}

function opTable(rows: OpChange[], label: string, emptyText: string, typed: boolean): HTMLElement {
  return dataTable<OpChange>({
    label,
    rows,
    emptyText,
    sort: { key: 'change_ms', descending: rows[0]?.change_ms > 0 },
    columns: [
      { key: 'host_or_device', title: 'Host/device', value: (r) => r.host_or_device },
      ...(typed ? [{ key: 'type', title: 'Type', value: (r: OpChange) => r.type }] : []),
      { key: 'name', title: 'Operation', value: (r) => r.name, name: true },
      { key: 'a', title: 'A self time/step', numeric: true, value: (r) => r.a_self_time_per_step_ms, render: (r) => formatMs(r.a_self_time_per_step_ms) },
      { key: 'b', title: 'B self time/step', numeric: true, value: (r) => r.b_self_time_per_step_ms, render: (r) => formatMs(r.b_self_time_per_step_ms) },
      {
        key: 'change_ms',
        title: 'Change',
        numeric: true,
        value: (r) => r.change_ms,
        render: (r) => h('span', { class: changeClass(r) }, signedMs(r.change_ms)),
      },
      {
        key: 'change_pct',
        title: 'Change %',
        numeric: true,
        value: (r) => r.change_pct,
        render: (r) =>
          r.status === 'added' || r.status === 'removed'
            ? r.status
            : changePctText(r, formatPct),
      },
    ],
  });
}
