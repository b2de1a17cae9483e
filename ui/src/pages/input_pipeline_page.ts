// input_pipeline_analyzer: is the program input-bound, how long each step waits for input
// (device side), and where the host spends its input processing time (host side).
import { h } from '../dom';
import { formatCount, formatMs, formatPct } from '../format';
import { barList } from '../components/bar_list';
import { dataTable } from '../components/data_table';
import { keyValueList, panel } from '../components/panel';
import { toolHeader } from '../components/page_header';
import { recommendationList } from '../components/rich_text';
import { verdictBanner } from '../components/verdict';
import { stackedBarChart } from '../charts/stacked_bar_chart';
import { CATEGORY_LABELS, INPUT_OP_CATEGORIES, STEP_CATEGORIES } from '../step_categories';
import type { PageContext, ToolPage } from './tool_page';
import { inputRanksTable, type RankStepRow } from './step_ranks_glance';

interface SeriesStats {
  avg: number;
  stddev: number;
  min: number;
  max: number;
}

interface InputOp {
  op: string;
  count: number;
  total_time_ms: number;
  total_time_pct: number;
  total_self_time_ms: number;
  self_time_pct: number;
  category: string;
}

export interface InputPipelineData {
  summary: { input_pct: number; verdict: string; explanation: string };
  device_side: {
    steps: { step: number; host: string; total_ms: number; input_ms: number; input_pct: number }[];
    step_time_ms: SeriesStats;
    input_ms: SeriesStats;
    whole_profile_as_one_step: boolean;
  };
  host_side: {
    input_time_ms: number;
    categories: Record<string, { self_time_ms: number; pct: number }>;
    input_ops: InputOp[];
    no_input_ops: string; // one sentence when the profile has no input ops, else empty
  };
  recommendations: string[];
  ranks?: RankStepRow[]; // one row per rank, for a run of several
}

const HOST_CATEGORIES = INPUT_OP_CATEGORIES;
const INPUT_COLOUR = STEP_CATEGORIES[0].colour;

export const inputPipelinePage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<InputPipelineData>();
    root.append(
      toolHeader(ctx),
      verdictBanner(data.summary.verdict, data.summary.explanation),
      inputRanksTable(data.ranks, ctx.run, INPUT_COLOUR) ?? '',
      deviceSide(data, ctx),
      h('div', { class: 'grid' }, hostSide(data), recommendations(data.recommendations)),
      inputOpTable(data.host_side.input_ops),
    );
  },
};

function stats(s: SeriesStats): string {
  return `${formatMs(s.avg)} average · σ ${formatMs(s.stddev)} · range ${formatMs(s.min)} – ${formatMs(s.max)}`;
}

function deviceSide(data: InputPipelineData, ctx: PageContext): HTMLElement {
  const d = data.device_side;
  const multiHost = new Set(d.steps.map((s) => s.host)).size > 1;
  const chart = stackedBarChart(
    {
      labels: d.steps.map((s) => (multiHost ? `${s.step} (${s.host})` : String(s.step))),
      series: [
        { label: 'Waiting for input', colour: INPUT_COLOUR, values: d.steps.map((s) => s.input_ms) },
        { label: 'Rest of the step', colour: '#bdc1c6', values: d.steps.map((s) => Math.max(0, s.total_ms - s.input_ms)) },
      ],
      xLabel: 'Step',
      formatValue: formatMs,
      label: 'Step time and input wait per step',
    },
    ctx.onDispose,
  );
  return panel(
    'Device-side analysis',
    h('p', { class: 'muted small' }, 'Step time per step; red is the part spent waiting for input.'),
    h(
      'div',
      { class: 'split' },
      chart,
      keyValueList([
        ['Steps', d.whole_profile_as_one_step ? '1 (no step markers)' : formatCount(d.steps.length)],
        ['Step time', stats(d.step_time_ms)],
        ['Waiting for input', stats(d.input_ms)],
        ['Share waiting for input', formatPct(data.summary.input_pct)],
      ]),
    ),
  );
}

function hostSide(data: InputPipelineData): HTMLElement {
  const h_ = data.host_side;
  if (h_.no_input_ops) return panel('Host-side analysis', h('p', { class: 'muted' }, h_.no_input_ops));
  return panel(
    'Host-side analysis',
    h('p', {}, 'Input processing time on the host: ', h('strong', {}, formatMs(h_.input_time_ms)), ', of which:'),
    barList(
      HOST_CATEGORIES.map((c) => {
        const v = h_.categories[c.key] ?? { self_time_ms: 0, pct: 0 };
        return { label: c.label, fraction: v.pct / 100, colour: c.colour, value: `${formatMs(v.self_time_ms)} · ${formatPct(v.pct)}`, muted: v.pct === 0 };
      }),
      'Host-side input time by category',
    ),
  );
}

function recommendations(items: string[]): HTMLElement {
  return panel('Recommendations', recommendationList(items));
}

function inputOpTable(ops: InputOp[]): HTMLElement {
  const table = dataTable<InputOp>({
    label: 'Input op statistics',
    rows: ops,
    sort: { key: 'total_self_time_ms', descending: true },
    filterPlaceholder: 'Filter input ops',
    columns: [
      { key: 'op', title: 'Input op', value: (r) => r.op, name: true },
      { key: 'count', title: 'Count', numeric: true, value: (r) => r.count, render: (r) => formatCount(r.count) },
      { key: 'total_time_ms', title: 'Total time', numeric: true, value: (r) => r.total_time_ms, render: (r) => formatMs(r.total_time_ms) },
      { key: 'total_time_pct', title: 'Total %', numeric: true, value: (r) => r.total_time_pct, render: (r) => formatPct(r.total_time_pct) },
      {
        key: 'total_self_time_ms',
        title: 'Total self time',
        numeric: true,
        value: (r) => r.total_self_time_ms,
        render: (r) => formatMs(r.total_self_time_ms),
      },
      { key: 'self_time_pct', title: 'Self %', numeric: true, value: (r) => r.self_time_pct, render: (r) => formatPct(r.self_time_pct) },
      { key: 'category', title: 'Category', value: (r) => CATEGORY_LABELS[r.category] ?? r.category },
    ],
  });
  return h(
    'details',
    { class: 'panel input-ops' },
    h('summary', {}, `Input op statistics (${formatCount(ops.length)} ops)`),
    table,
  );
}
