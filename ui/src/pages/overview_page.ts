// overview_page: is the step input-, host- or device-bound, how each step's time splits,
// the top ops, the run environment and what to change first.
import { h } from '../dom';
import { formatCount, formatMs, formatPct } from '../format';
import { barList } from '../components/bar_list';
import { dataTable, type Column } from '../components/data_table';
import { keyValueList, panel, windowCaption } from '../components/panel';
import { toolHeader } from '../components/page_header';
import { recommendationList, type Recommendation } from '../components/rich_text';
import { bottleneckHeadline, type Bottleneck } from '../components/bottleneck_headline';
import { fetchToolData } from '../api';
import { viewStateHash } from '../location_state';
import { pathBar, pathWindow, showPathInTrace, whatIfTable, type CriticalPathData } from './critical_path_page';
import { verdictBanner } from '../components/verdict';
import { stackedBarChart } from '../charts/stacked_bar_chart';
import { labelledCategories, type CategoryValues, type StepCategory } from '../step_categories';
import { chipsPanel, type DeviceChipsData } from './device_chips';
import { peaksText } from './xla_notes';
import { stepRanksTable, type RankStepRow } from './step_ranks_glance';
import type { PageContext, ToolPage } from './tool_page';

interface SeriesStats {
  avg: number;
  stddev: number;
  min: number;
  max: number;
}

interface OverviewStep {
  step: number;
  host: string;
  total_ms: number;
  breakdown_ms: CategoryValues;
}

interface TopOp {
  name: string;
  type: string;
  host_or_device: string;
  occurrences: number;
  self_time_ms: number;
  self_time_pct: number;
  cumulative_self_time_pct: number;
}

interface RunEnvironment {
  host_count: number;
  hosts: string[];
  device_type: string;
  device_core_count: number;
  host_thread_count: number;
  devices: {
    host: string;
    name: string;
    core_count: number;
    compute_capability: string;
    memory_gib: number;
    model?: string; // TPU: `device_type_string` ("TPU v6 Lite")
    peak_teraflops_per_second?: number;
    peak_hbm_gigabytes_per_second?: number;
  }[];
  tpu_generation?: string; // "v6e"
  chip_count?: number;
}

export interface OverviewData {
  steps: OverviewStep[];
  summary: {
    step_time_ms: SeriesStats;
    breakdown_pct: CategoryValues;
    breakdown_ms: Record<string, SeriesStats>;
    step_count: number;
    steps_found: number;
    step_marker: string;
    step_marker_words: string; // what marked the steps, in words
    step_source: string | null; // "marked by ..." or, for steps found without markers, "found from ..."
    steps_left_out: string | null; // which of the steps found are left out, in words
    whole_profile_as_one_step: boolean;
    window: string; // what the summary covers: a step on average, or the whole profile
  };
  input_bound: { verdict: string; input_pct: number; explanation: string };
  precision: { bits16_pct: number; bits32_pct: number; window: string };
  top_ops: TopOp[];
  top_ops_where: string; // "on the 4 TPU cores by self time, summed over the 4 TPU cores"
  category_labels: Record<string, string>; // by category key, in the device's words
  run_environment: RunEnvironment;
  chips: DeviceChipsData | null;
  recommendations: Recommendation[];
  bottleneck: Bottleneck | null; // what bounds the step; null without steps
  ranks?: RankStepRow[]; // one row per rank, for a run of several
}

export const overviewPage: ToolPage = {
  async render(root, ctx) {
    // The critical path's figures come from its own tool; the overview reads without them.
    const [data, path] = await Promise.all([
      ctx.fetchData<OverviewData>(),
      fetchToolData<CriticalPathData>(ctx.run, ctx.host, 'critical_path').catch(() => null),
    ]);
    const categories = labelledCategories(data.category_labels);
    const pathPage = viewStateHash({ run: ctx.run, host: ctx.host, tool: 'critical_path', options: {} });
    root.append(toolHeader(ctx, subtitle(ctx)));
    if (data.bottleneck) {
      const links = [{ href: pathPage, text: 'The critical path and what-ifs →', testid: 'critical-path-link' }];
      if (path && path.steps.length) links.push(showPathInTrace(ctx, path));
      root.append(bottleneckHeadline(data.bottleneck, links));
    }
    root.append(
      verdictBanner(data.input_bound.verdict, data.input_bound.explanation),
      ...[stepRanksTable(data.ranks, ctx.run, categories)].filter((x): x is HTMLElement => x !== null),
      h('div', { class: 'grid grid-summary' }, performanceSummary(data, categories), stepTimeGraph(data, categories, ctx)),
      ...(path && path.steps.length ? [whatBoundsTheStep(path, pathPage)] : []),
      ...(data.chips ? [chipsPanel(data.chips, !data.summary.whole_profile_as_one_step)] : []),
      h(
        'div',
        { class: 'grid grid-details' },
        topOps(data),
        h('div', { class: 'stack' }, recommendations(data.recommendations), runEnvironment(data.run_environment)),
      ),
    );
  },
};

function subtitle(ctx: PageContext): string {
  return `Run ${ctx.run} · ${ctx.host || 'all hosts'}`;
}

function stepsLine(s: OverviewData['summary']): string {
  if (s.whole_profile_as_one_step) return 'No step markers: the whole profile counts as one step.';
  const dropped = s.steps_found - s.step_count;
  const leftOut = dropped > 0 && s.steps_left_out ? ` (of ${formatCount(s.steps_found)} found: ${s.steps_left_out})` : '';
  return `${formatCount(s.step_count)} steps${leftOut}, ${s.step_source ?? `marked by ${s.step_marker_words}`}`;
}

function performanceSummary(data: OverviewData, categories: StepCategory[]): HTMLElement {
  const s = data.summary;
  const t = s.step_time_ms;
  // Categories with time get a bar; the empty ones are listed in one line, so the eye goes
  // to what matters.
  const used = categories.filter((c) => (s.breakdown_ms[c.key]?.avg ?? 0) > 0);
  const unused = categories.filter((c) => !used.includes(c));
  const bars = barList(
    used.map((c) => {
      const pct = s.breakdown_pct[c.key] ?? 0;
      return {
        label: c.label,
        fraction: pct / 100,
        colour: c.colour,
        value: `${formatMs(s.breakdown_ms[c.key]?.avg ?? 0)} · ${formatPct(pct)}`,
      };
    }),
    'Step-time breakdown',
  );
  const zeros = unused.length
    ? h('p', { class: 'muted small' }, `No time in: ${unused.map((c) => c.label.toLowerCase()).join(', ')}.`)
    : null;
  const deviceCompute = s.breakdown_pct['device_compute'] ?? 0;
  const precision =
    deviceCompute > 0
      ? h(
          'span',
          {},
          `16-bit ${formatPct(data.precision.bits16_pct)} · 32-bit ${formatPct(data.precision.bits32_pct)}`,
          h('span', { class: 'figure-window figure-window-line', 'data-testid': 'precision-window' }, `over ${data.precision.window}`),
        )
      : 'No device compute in this profile';
  return panel(
    'Performance summary',
    windowCaption(s.window),
    h(
      'div',
      { class: 'headline' },
      h('span', { class: 'headline-value', 'data-testid': 'avg-step-time' }, formatMs(t.avg)),
      h('span', { class: 'muted' }, 'average step time'),
    ),
    h('p', { class: 'muted small', 'data-testid': 'step-count' }, stepsLine(s)),
    keyValueList([
      ['Standard deviation', formatMs(t.stddev)],
      ['Range', `${formatMs(t.min)} – ${formatMs(t.max)}`],
      ['Device compute precisions', precision],
    ]),
    h('h3', {}, 'Step-time breakdown (average per step)'),
    bars,
    zeros,
  );
}

function stepTimeGraph(data: OverviewData, categories: StepCategory[], ctx: PageContext): HTMLElement {
  const multiHost = new Set(data.steps.map((s) => s.host)).size > 1;
  const chart = stackedBarChart(
    {
      labels: data.steps.map((s) => (multiHost ? `${s.step} (${s.host})` : String(s.step))),
      series: categories.map((c) => ({
        label: c.label,
        colour: c.colour,
        values: data.steps.map((s) => s.breakdown_ms[c.key] ?? 0),
      })),
      xLabel: 'Step',
      formatValue: formatMs,
      label: 'Step-time graph',
    },
    ctx.onDispose,
  );
  return panel('Step-time graph', h('p', { class: 'muted small' }, 'Time per step by category; red is time spent waiting for input.'), chart);
}

function topOps(data: OverviewData): HTMLElement {
  const rows = data.top_ops.slice(0, 10);
  // LibTorch ops are their own type ("aten::mm"): a second column would repeat the name.
  const typed = rows.some((r) => r.type && r.type !== r.name);
  const columns: Column<TopOp>[] = [
    { key: 'self_time_pct', title: 'Self %', numeric: true, value: (r) => r.self_time_pct, render: (r) => formatPct(r.self_time_pct) },
    {
      key: 'cumulative_self_time_pct',
      title: 'Cumulative %',
      numeric: true,
      optional: true, // room for the op's name: TensorFlow's are long scope paths
      value: (r) => r.cumulative_self_time_pct,
      render: (r) => formatPct(r.cumulative_self_time_pct),
    },
    { key: 'self_time_ms', title: 'Self time', numeric: true, value: (r) => r.self_time_ms, render: (r) => formatMs(r.self_time_ms) },
  ];
  // JAX's types are its primitives ("broadcast_in_dim") beside long scope paths: a type past
  // TYPE_CHARS is cut, whole on hover, so that the half-width panel fits 1280 px.
  const TYPE_CHARS = 14;
  if (typed)
    columns.push({
      key: 'type',
      title: 'Type',
      value: (r) => r.type,
      render: (r) => (r.type.length > TYPE_CHARS ? h('span', { title: r.type }, `${r.type.slice(0, TYPE_CHARS - 1)}…`) : r.type),
    });
  // JAX's scope paths ("jit(f)/jit(main)/...") have no space to wrap at: shorter beside a type.
  const jaxPaths = typed && rows.some((r) => r.name.startsWith('jit(') || r.name.startsWith('pjit('));
  columns.push({ key: 'name', title: 'Op', value: (r) => r.name, name: true, shorten: jaxPaths ? 28 : 44 });
  return panel(
    `Top ${rows.length} ops ${data.top_ops_where}`,
    dataTable<TopOp>({ label: 'Top ops', rows, pageSize: 10, filterable: false, columns }),
  );
}

// A TPU as its file tells it: part and generation, chips and cores per chip, each chip's peaks.
function tpuRows(env: RunEnvironment): [string, string][] {
  const first = env.devices[0];
  const model = first?.model || env.device_type;
  const chips = env.chip_count ?? env.devices.length;
  const perChip = chips > 0 ? Math.round(env.device_core_count / chips) : 0;
  const peaks = [...new Set(env.devices.map((d) => peaksText(d.peak_teraflops_per_second ?? 0, d.peak_hbm_gigabytes_per_second ?? 0)))];
  return [
    ['TPU', env.tpu_generation ? `${model} (${env.tpu_generation})` : model],
    ['Chips', `${formatCount(chips)}${perChip > 0 ? `, ${perChip} core${perChip === 1 ? '' : 's'} each` : ''}`],
    ['Peak per chip', peaks.join('; ')],
  ];
}

function runEnvironment(env: RunEnvironment): HTMLElement {
  const hosts: [string, string] = ['Hosts', `${env.host_count}${env.hosts.length ? ` (${env.hosts.join(', ')})` : ''}`];
  const threads: [string, string] = ['Host threads with events', formatCount(env.host_thread_count)];
  if (env.device_type === 'TPU' && env.devices.length) return panel('Run environment', keyValueList([hosts, ...tpuRows(env), threads]));
  const rows: [string, string][] = [
    hosts,
    ['Device type', env.device_type],
    ['Device cores', env.device_core_count > 0 ? formatCount(env.device_core_count) : 'none (host only)'],
    threads,
  ];
  // Devices alike are counted once: "8 × GPU (80 cores · compute 7.0 · 15.8 GiB)".
  const kinds = new Map<string, number>();
  for (const d of env.devices) {
    const kind = d.name.replace(/^\/device:/, '').replace(/:\d+$/, '');
    const traits = [
      d.core_count ? `${d.core_count} cores` : '',
      d.compute_capability !== '0.0' ? `compute ${d.compute_capability}` : '',
      d.memory_gib ? `${d.memory_gib.toFixed(1)} GiB` : '',
    ].filter(Boolean);
    const text = traits.length ? `${kind} (${traits.join(' · ')})` : kind;
    kinds.set(text, (kinds.get(text) ?? 0) + 1);
  }
  if (kinds.size) rows.push(['Devices', [...kinds].map(([text, n]) => `${n} × ${text}`).join(', ')]);
  return panel('Run environment', keyValueList(rows));
}

// The critical path on one bar and the what-ifs that save most, with a link to the whole page.
const kOverviewWhatIfs = 5;

function whatBoundsTheStep(path: CriticalPathData, pathPage: string): HTMLElement {
  // The device's lists in its words ("Top device ops" on a TPU).
  const listed = (key: 'top_ops' | 'top_kernels', own: string) => (path.labels?.[key] ?? own).replace(/^Top /, '').toLowerCase();
  return panel(
    'What bounds the step',
    windowCaption(pathWindow(path)),
    h('h3', {}, `Critical path by kind (${formatMs(path.average.path_ms)} a step)`),
    pathBar(path),
    h('h3', {}, 'What if'),
    path.prediction_note ? h('p', { class: 'muted small' }, path.prediction_note) : null,
    whatIfTable(path, kOverviewWhatIfs),
    h('p', { class: 'small' }, h('a', { href: pathPage }, `All predictions, the ${listed('top_ops', 'Top ops')} and ${listed('top_kernels', 'Top kernels')} on the path, and each step →`)),
  );
}

function recommendations(items: Recommendation[]): HTMLElement {
  return panel('Recommendations', recommendationList(items));
}
