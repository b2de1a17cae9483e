// critical_path: what bounds the step. The bottleneck in one sentence; the longest chain of
// dependent work through each step by kind; what-if predictions (a kind, category, op or
// kernel removed or halved, replayed over the same graph); the ops and kernels on the path
// and the steps, each opening the trace viewer there.
import { h } from '../dom';
import { formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { bottleneckHeadline, type Bottleneck } from '../components/bottleneck_headline';
import { notice, panel, windowCaption } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { segmentBar } from '../components/segment_bar';
import { labelledPathKinds, targetLabel, type PathLabels } from '../path_kinds';
import { traceHash, traceLinkTo } from '../trace_link';
import type { StepPath } from '../trace/critical_path_overlay';
import type { PageContext, ToolPage } from './tool_page';

export interface PathTime {
  name: string;
  long_name?: string; // an XLA op's instruction text, where `name` is its HLO op name
  ms: number; // on the path, a step on average
}

export interface CriticalPathStep {
  host: string;
  step_num: number;
  step_ms: number;
  path_ms: number;
  kind_ms: Record<string, number>;
  top_ops: PathTime[];
  top_kernels: PathTime[];
  path?: StepPath; // the path's segments, for the trace viewer to draw
}

export interface WhatIf {
  target: string; // a path kind, a step category, or an op or kernel name
  scale: number; // 0 removes it, 0.5 halves it
  step_ms: number; // the step predicted after the change
  reaches_steps: boolean; // false: nothing the trace shows links the changed work to the steps
}

export interface CriticalPathData {
  average: {
    step_ms: number;
    path_ms: number;
    kind_ms: Record<string, number>;
    top_ops: PathTime[];
    top_kernels: PathTime[];
  };
  steps: CriticalPathStep[];
  what_if: WhatIf[];
  prediction_note: string; // where the graph cannot see a dependency; '' when it sees them all
  warnings: string[];
  bottleneck?: Bottleneck;
  // The device's words for the keys (kinds, top_ops, top_kernels), e.g. a TPU's "Program
  // launch" and "Top device ops"; absent: the GPU words below.
  labels?: PathLabels;
}

export const criticalPathPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<CriticalPathData>();
    root.append(toolHeader(ctx, null, csvButton(ctx)));
    if (data.steps.length === 0) {
      root.append(notice('info', 'This profile has no steps, so no critical path.'));
      return;
    }
    if (data.bottleneck) root.append(bottleneckHeadline(data.bottleneck, [showPathInTrace(ctx, data)]));
    root.append(
      ...data.warnings.map((w) => notice('caution', w)),
      pathByKind(data),
      whatIfPanel(data),
      onPathPanels(data, ctx),
      stepsPanel(data, ctx),
    );
  },
};

// The trace viewer on the first step, the critical path drawn.
export function showPathInTrace(ctx: PageContext, data: CriticalPathData): { href: string; text: string; testid: string } {
  const first = data.steps[0];
  return { href: traceHash(ctx.run, ctx.host, { step: first.step_num, criticalPath: true }), text: 'Show in trace →', testid: 'show-path-in-trace' };
}

// What the averages cover.
export function pathWindow(data: CriticalPathData): string {
  const hosts = new Set(data.steps.map((s) => s.host)).size;
  const n = data.steps.length;
  if (n === 1) return `the critical path of the one step (step ${data.steps[0].step_num})`;
  return `each step's critical path, the mean over ${n} steps${hosts > 1 ? ` on ${hosts} hosts` : ''}`;
}

// The path's time a step by kind, on one bar.
export function pathBar(data: CriticalPathData): HTMLElement {
  const a = data.average;
  return segmentBar(
    labelledPathKinds(data.labels).map((k) => {
      const ms = a.kind_ms[k.key] ?? 0;
      return { label: k.label, colour: k.colour, value: ms, text: `${formatMs(ms)} · ${formatPct(a.path_ms > 0 ? (100 * ms) / a.path_ms : 0)}` };
    }),
    'Critical path by kind',
  );
}

function pathByKind(data: CriticalPathData): HTMLElement {
  const a = data.average;
  return panel(
    'Critical path by kind',
    windowCaption(pathWindow(data)),
    h('p', { class: 'muted small' }, `${formatMs(a.path_ms)} of work that depends on the work before it, in a step of ${formatMs(a.step_ms)}. Waiting is not work: a blocked call's time goes to what it waits for.`),
    pathBar(data),
  );
}

interface WhatIfRow extends WhatIf {
  what: string; // what the target is: a kind of work, a step category, an op or a kernel
  saving_ms: number;
}

const scaleText = (scale: number) => (scale === 0 ? 'removed' : `× ${scale}`);

// What a what-if target names, for the table's second column.
function targetKind(data: CriticalPathData, target: string): string {
  if (!targetLabel(target, data.labels).isName) return labelledPathKinds(undefined).some((k) => k.key === target) ? 'work on the path' : 'step category';
  const kernel = data.labels?.kernel ?? 'kernel';
  if (data.average.top_kernels.some((t) => t.name === target)) return kernel;
  if (data.average.top_ops.some((t) => t.name === target)) return 'op';
  return `op or ${kernel}`;
}

// The what-if predictions against the measured step, largest saving first; with `limit`, only
// that many (the overview's few).
export function whatIfTable(data: CriticalPathData, limit?: number): HTMLElement {
  const measured = data.average.step_ms;
  let rows: WhatIfRow[] = data.what_if.map((w) => ({ ...w, what: targetKind(data, w.target), saving_ms: measured - w.step_ms }));
  if (limit !== undefined) rows = [...rows].sort((a, b) => b.saving_ms - a.saving_ms).slice(0, limit);
  return dataTable<WhatIfRow>({
    label: 'What-if',
    rows,
    sort: { key: 'saving_ms', descending: true },
    filterable: limit === undefined ? undefined : false,
    filterPlaceholder: 'Filter by target',
    columns: [
      {
        key: 'target',
        title: 'If this',
        name: true,
        shorten: 44,
        value: (r) => targetLabel(r.target, data.labels).label,
        help: 'A kind of work on the path, a step-time category, or an op or kernel by name',
      },
      { key: 'what', title: 'Is', value: (r) => r.what },
      { key: 'scale', title: 'took', numeric: true, value: (r) => r.scale, render: (r) => scaleText(r.scale), help: 'removed: no time; × 0.5: half the time' },
      {
        key: 'step_ms',
        title: 'Predicted step',
        numeric: true,
        value: (r) => r.step_ms,
        render: (r) =>
          r.reaches_steps === false
            ? h('span', { title: 'Nothing the trace shows links this work to the steps (a loader thread not marked with _p/_c, an untraced thread): the replay cannot tell what changing it would do.', 'data-testid': 'unlinked' }, `${formatMs(r.step_ms)} (not linked)`)
            : formatMs(r.step_ms),
      },
      { key: 'saving_ms', title: 'Saving', numeric: true, value: (r) => r.saving_ms, render: (r) => formatMs(r.saving_ms), help: `Against the measured step, ${formatMs(measured)}` },
      {
        key: 'saving_pct',
        title: 'Saving %',
        numeric: true,
        value: (r) => (measured > 0 ? (100 * r.saving_ms) / measured : 0),
        render: (r) => formatPct(measured > 0 ? (100 * r.saving_ms) / measured : 0),
      },
    ],
  });
}

function whatIfPanel(data: CriticalPathData): HTMLElement {
  return panel(
    'What if',
    windowCaption(pathWindow(data)),
    h('p', { class: 'muted small' }, `The step each change would give, replayed over the same dependencies; the measured step is ${formatMs(data.average.step_ms)}.`),
    data.prediction_note ? notice('caution', h('span', { 'data-testid': 'prediction-note' }, data.prediction_note)) : null,
    data.what_if.length ? whatIfTable(data) : h('p', { class: 'muted' }, 'No predictions.'),
  );
}

// The host whose steps have the most of a name on the path: where its link opens the trace.
function hostOf(data: CriticalPathData, key: 'top_ops' | 'top_kernels', name: string, ctx: PageContext): string {
  if (ctx.host) return ctx.host;
  let best = data.steps[0]?.host ?? '';
  let most = -1;
  for (const s of data.steps) {
    const ms = s[key].find((t) => t.name === name)?.ms ?? 0;
    if (ms > most) [best, most] = [s.host, ms];
  }
  return best;
}

function onPathTable(label: string, data: CriticalPathData, key: 'top_ops' | 'top_kernels', ctx: PageContext): HTMLElement {
  const path = data.average.path_ms;
  return dataTable<PathTime>({
    label,
    rows: data.average[key],
    filterable: false,
    sort: { key: 'ms', descending: true },
    columns: [
      {
        key: 'name',
        title: 'Name',
        name: true,
        shorten: 48,
        value: (r) => r.name,
        whole: (r) => r.long_name,
        // The trace viewer finds an event by its whole name.
        link: (r) => traceLinkTo({ run: ctx.run, host: hostOf(data, key, r.name, ctx) }, { name: r.long_name ?? r.name }),
      },
      { key: 'ms', title: 'On the path', numeric: true, value: (r) => r.ms, render: (r) => formatMs(r.ms), help: 'A step on average' },
      { key: 'pct', title: '% of path', numeric: true, value: (r) => (path > 0 ? (100 * r.ms) / path : 0), render: (r) => formatPct(path > 0 ? (100 * r.ms) / path : 0) },
    ],
  });
}

// The ops and the kernels on the path side by side; a list without rows is a line, not a panel.
function onPathPanels(data: CriticalPathData, ctx: PageContext): HTMLElement {
  const lists = [
    { title: `${data.labels?.top_ops ?? 'Top ops'} on the path`, label: 'Ops on the path', key: 'top_ops' as const, none: 'No host ops on the path.' },
    {
      title: `${data.labels?.top_kernels ?? 'Top kernels'} on the path`,
      label: 'Kernels on the path',
      key: 'top_kernels' as const,
      none: `No ${(data.labels?.top_kernels ?? 'Top kernels').replace(/^Top /, '')} on the path.`,
    },
  ];
  const shown = lists.filter((l) => data.average[l.key].length > 0);
  const empty = lists.filter((l) => data.average[l.key].length === 0).map((l) => h('p', { class: 'muted small' }, l.none));
  if (shown.length === 0) return panel('Ops and kernels on the path', ...empty);
  return h(
    'div',
    { class: 'grid grid-wide-halves' },
    ...shown.map((l) => panel(l.title, windowCaption(pathWindow(data)), onPathTable(l.label, data, l.key, ctx), ...empty)),
  );
}

// A step's largest kind on the path.
function largestKind(s: CriticalPathStep, labels: PathLabels): string {
  const kinds = labelledPathKinds(labels);
  let best = kinds[0];
  for (const k of kinds) if ((s.kind_ms[k.key] ?? 0) > (s.kind_ms[best.key] ?? 0)) best = k;
  return `${best.label} ${formatPct(s.path_ms > 0 ? (100 * (s.kind_ms[best.key] ?? 0)) / s.path_ms : 0)}`;
}

function stepsPanel(data: CriticalPathData, ctx: PageContext): HTMLElement {
  const multiHost = new Set(data.steps.map((s) => s.host)).size > 1;
  const used = labelledPathKinds(data.labels).filter((k) => data.steps.some((s) => (s.kind_ms[k.key] ?? 0) > 0));
  return panel(
    'Steps',
    h('p', { class: 'muted small' }, "Each step's critical path; a step opens the trace viewer on it, the path drawn."),
    dataTable<CriticalPathStep>({
      label: 'Steps',
      rows: data.steps,
      sort: { key: 'step_num', descending: false },
      pageSize: 20,
      columns: [
        { key: 'step_num', title: 'Step', numeric: true, value: (r) => r.step_num, link: (r) => traceLinkTo({ run: ctx.run, host: ctx.host || r.host }, { step: r.step_num, criticalPath: true }) },
        ...(multiHost ? [{ key: 'host', title: 'Host', value: (r: CriticalPathStep) => r.host }] : []),
        { key: 'step_ms', title: 'Step time', numeric: true, value: (r) => r.step_ms, render: (r) => formatMs(r.step_ms) },
        { key: 'path_ms', title: 'Critical path', numeric: true, value: (r) => r.path_ms, render: (r) => formatMs(r.path_ms) },
        { key: 'largest', title: 'Most on the path', value: (r) => largestKind(r, data.labels) },
        ...used.map((k) => ({
          key: k.key,
          title: k.label,
          numeric: true,
          optional: true,
          value: (r: CriticalPathStep) => r.kind_ms[k.key] ?? 0,
          render: (r: CriticalPathStep) => formatMs(r.kind_ms[k.key] ?? 0),
        })),
      ],
    }),
  );
}
