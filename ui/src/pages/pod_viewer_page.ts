// pod_viewer: the workers of a multi-host run side by side. Each worker's step time split
// into the step-time categories (the average step, or one step picked in the selector), each
// worker's bottleneck, and which worker is slowest: the straggler the others wait for.
import './pod_viewer_page.css';
import { h } from '../dom';
import { formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { notice, panel, windowCaption } from '../components/panel';
import { toolHeader } from '../components/page_header';
import { stackedBarChart } from '../charts/stacked_bar_chart';
import { labelledCategories, type CategoryValues, type StepCategory } from '../step_categories';
import { chipsPanel, type DeviceChipsData } from './device_chips';
import type { PageContext, ToolPage } from './tool_page';

interface PodWorker {
  host: string;
  step_count: number;
  step_time_ms: { avg: number; stddev: number; min: number; max: number };
  breakdown_ms: CategoryValues;
  breakdown_pct: CategoryValues;
  bottleneck: string;
  bottleneck_pct: number;
  is_slowest: boolean;
}

interface PodStep {
  step: number;
  slowest_host: string;
  workers: { host: string; start_ms: number; total_ms: number; breakdown_ms: CategoryValues }[];
}

export interface PodViewerData {
  workers: PodWorker[];
  steps: PodStep[];
  slowest_worker: { host: string; avg_step_time_ms: number; slower_than_fastest_pct: number; bottleneck: string } | null;
  worker_count: number;
  whole_profile_as_one_step: boolean;
  window: string;
  category_labels: Record<string, string>; // by category key, in the device's words
  chips: DeviceChipsData | null; // one row per TPU chip (or GPU that ran XLA ops)
}

// The page's own URL option (read here, never sent to the server): the step shown.
const STEP_OPTION = 'step';

export const podViewerPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<PodViewerData>({});
    const step = data.steps.find((s) => String(s.step) === ctx.options[STEP_OPTION]);
    const categories = labelledCategories(data.category_labels);
    const chips = data.chips?.chips.length ?? 0;
    const workers = `${data.worker_count} worker${data.worker_count === 1 ? '' : 's'}`;
    // Without steps on any worker the breakdown has nothing to draw; a TPU's chips still have theirs.
    const anySteps = data.workers.some((w) => w.step_count > 0);
    root.append(
      toolHeader(ctx, `Run ${ctx.run} · ${workers}${chips ? ` · ${chips} chips` : ''}`),
      slowestBanner(data, categories),
      ...(data.chips ? [chipsPanel(data.chips, !data.whole_profile_as_one_step)] : []),
      ...(anySteps ? [breakdownPanel(data, categories, step, ctx)] : []),
      workerTable(data, categories),
    );
  },
};

function categoryLabel(categories: StepCategory[], key: string): string {
  return categories.find((c) => c.key === key)?.label ?? key;
}

function slowestBanner(data: PodViewerData, categories: StepCategory[]): HTMLElement {
  const s = data.slowest_worker;
  if (!s) {
    return notice(
      'info',
      data.whole_profile_as_one_step
        ? 'No step markers in this run: mark each training step to compare workers step by step (the overview says how, in the program’s framework).'
        : 'No worker has steps in this run.',
    );
  }
  const banner = notice(
    data.worker_count > 1 && s.slower_than_fastest_pct >= 5 ? 'warning' : 'info',
    // One worker is no slowest: it is the run's only one.
    h('strong', {}, data.worker_count > 1 ? `Slowest worker: ${s.host}` : `The one worker: ${s.host}`),
    `, ${formatMs(s.avg_step_time_ms)} per step on average`,
    data.worker_count > 1 ? ` (${formatPct(s.slower_than_fastest_pct)} slower than the fastest)` : '',
    `; its bottleneck is ${categoryLabel(categories, s.bottleneck).toLowerCase()}.`,
  );
  banner.dataset.testid = 'slowest-worker';
  return banner;
}

function breakdownPanel(data: PodViewerData, categories: StepCategory[], step: PodStep | undefined, ctx: PageContext): HTMLElement {
  const select = h(
    'select',
    { id: 'pod-step-select', 'aria-label': 'Step' },
    h('option', { value: '' }, 'Average step'),
    ...data.steps.map((s) => h('option', { value: s.step, selected: s === step }, `Step ${s.step}`)),
  );
  select.addEventListener('change', () => ctx.setOption(STEP_OPTION, select.value || undefined));

  // One bar per worker: the chosen step's share, or its average step.
  const workers = data.workers.filter((w) => w.step_count > 0);
  const values = (key: string) =>
    workers.map((w) =>
      step ? (step.workers.find((x) => x.host === w.host)?.breakdown_ms[key] ?? 0) : (w.breakdown_ms[key] ?? 0),
    );
  const chart = stackedBarChart(
    {
      labels: workers.map((w) => w.host),
      series: categories.map((c) => ({ label: c.label, colour: c.colour, values: values(c.key) })),
      xLabel: 'Worker',
      formatValue: formatMs,
      label: 'Step-time breakdown per worker',
    },
    ctx.onDispose,
  );
  const caption = step
    ? `Step ${step.step}: the slowest worker was ${step.slowest_host}.`
    : 'The average step of each worker; pick a step to see that step alone.';
  return panel(
    'Step-time breakdown per worker',
    windowCaption(step ? `step ${step.step} of each worker` : data.window),
    h('div', { class: 'pod-step-picker' }, h('label', { for: 'pod-step-select', class: 'muted small' }, 'Show'), select),
    h('p', { class: 'muted small', 'data-testid': 'pod-caption' }, caption),
    chart,
  );
}

// A category shows by default where it takes a visible share of some worker's step; the
// others wait in the table's "Columns" menu, so the table fits the window.
const kShownCategoryPct = 1;

function workerTable(data: PodViewerData, categories: StepCategory[]): HTMLElement {
  const matters = (key: string) => data.workers.some((w) => (w.breakdown_pct[key] ?? 0) >= kShownCategoryPct);
  return panel(
    'Workers',
    dataTable<PodWorker>({
      label: 'Workers',
      rows: data.workers,
      filterable: false,
      sticky: 1, // the worker stays while the categories scroll sideways
      sort: { key: 'avg', descending: true },
      columns: [
        { key: 'host', title: 'Worker', value: (w) => w.host, render: (w) => (w.is_slowest && data.worker_count > 1 ? `${w.host} (slowest)` : w.host) },
        { key: 'steps', title: 'Steps', numeric: true, value: (w) => w.step_count },
        { key: 'avg', title: 'Avg step', help: 'The worker’s average step time', numeric: true, value: (w) => w.step_time_ms.avg, render: (w) => (w.step_count ? formatMs(w.step_time_ms.avg) : '–') },
        {
          key: 'bottleneck',
          title: 'Bottleneck',
          value: (w) => w.bottleneck,
          render: (w) => (w.bottleneck ? `${categoryLabel(categories, w.bottleneck)} · ${formatPct(w.bottleneck_pct)}` : '–'),
          help: 'The category that takes the most time in the worker’s average step',
        },
        ...categories.map((c) => ({
          key: c.key,
          title: c.label,
          numeric: true,
          optional: !matters(c.key),
          value: (w: PodWorker) => w.breakdown_ms[c.key] ?? 0,
          render: (w: PodWorker) => formatMs(w.breakdown_ms[c.key] ?? 0),
        })),
      ],
    }),
  );
}
