// The GPU timeline tools (gpu_time_breakdown, gpu_idle_time, comm_compute_overlap,
// kernel_launch_stats, gpu_queue_length): per host (rank) the part its tool computes, with bars
// where a share reads faster than a number, and a picker for the time measured (HTA's scope,
// the analysed steps or the whole profile). And stragglers: each rank's compute, communication
// and wait per step, and the rank the others wait for.
import { h } from '../dom';
import { formatCount, formatMs, formatPct, formatUs } from '../format';
import { barList } from '../components/bar_list';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel, windowCaption } from '../components/panel';
import { toolHeader } from '../components/page_header';
import { OTHER_COLOUR, PALETTE } from '../charts/palette';
import { traceLinkTo } from '../trace_link';
import type { PageContext, ToolPage } from './tool_page';
import { ranksGlance } from './gpu_ranks_glance';
import './gpu_timeline_page.css';

interface KindTimes {
  busy_us: number;
  computation_us: number;
  communication_us: number;
  memory_us: number;
  other_us: number;
  idle_pct?: number;
}

interface Breakdown {
  span_us: number;
  idle_pct: number;
  compute_pct: number;
  non_compute_pct: number;
  kernel_type_pct: { computation: number; communication: number; memory: number };
  streams: (KindTimes & { stream: number; device: number; events: number })[];
}

interface IdleStream {
  stream: number;
  device: number;
  idle_us: number;
  host_wait_us: number;
  kernel_wait_us: number;
  other_us: number;
}

interface IdleTime {
  kernel_wait_threshold_us: number;
  streams: IdleStream[];
  largest_gaps: { stream: number; begin_ms: number; length_us: number; cause: string; next: string; launched_by: string }[];
}

interface Overlap {
  overlap_pct: number | null;
  communication_us: number;
  overlap_us: number;
  exposed_communication_us: number;
}

interface LaunchStats {
  launches: number;
  short_kernels: number;
  runtime_outliers: number;
  long_delay_kernels: number;
  median_launch_delay_us: number;
  mean_launch_delay_us: number;
  max_launch_delay_us: number;
  short_kernel_names: { name: string; op: string; count: number; gpu_us: number; cpu_us: number }[];
  longest_delays: { name: string; op: string; begin_ms: number; delay_us: number; cpu_us: number; gpu_us: number }[];
}

interface QueueLength {
  streams: { stream: number; device: number; max: number; mean: number; mean_at_changes: number }[];
}

export interface GpuTimelineData {
  scope: string;
  hosts: {
    host: string; // the rank's name ("rank 1", from the trace's distributedInfo), else its file's
    file: string; // the file it came from: what the trace viewer opens a host by
    scope_note: string;
    window: string; // what the figures cover (the scope picked)
    gpu_time_breakdown?: Breakdown;
    gpu_idle_time?: IdleTime;
    comm_compute_overlap?: Overlap;
    kernel_launch_stats?: LaunchStats;
    gpu_queue_length?: QueueLength;
  }[];
}

// One rank: its parts under its name. Several: first one row per rank on one scale
// (gpu_ranks_glance.ts), then each rank's parts folded under its name.
export const gpuTimelinePage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<GpuTimelineData>();
    root.append(toolHeader(ctx, null, scopePicker(ctx)));
    if (data.hosts.length === 0) {
      root.append(notice('info', 'This profile has no GPU work.'));
      return;
    }
    const many = data.hosts.length > 1;
    const windows = new Set(data.hosts.map((x) => x.window));
    const glance = ranksGlance(ctx.tool, data, ctx.run, windowCaption(windows.size === 1 ? data.hosts[0].window : 'each rank\'s own, named beside it below'));
    if (glance) root.append(glance);
    // Communication bars on one scale across ranks: the most any rank communicated.
    const commScale = Math.max(0, ...data.hosts.map((x) => x.comm_compute_overlap?.communication_us ?? 0));
    for (const host of data.hosts) {
      const parts: HTMLElement[] = [];
      if (host.gpu_time_breakdown) parts.push(...breakdownPanels(host.gpu_time_breakdown));
      const where = { run: ctx.run, host: host.file || host.host };
      if (host.gpu_idle_time) parts.push(...idlePanels(host.gpu_idle_time, where));
      if (host.comm_compute_overlap) parts.push(overlapPanel(host.comm_compute_overlap, commScale, many));
      if (host.kernel_launch_stats) parts.push(...launchPanels(host.kernel_launch_stats, where));
      if (host.gpu_queue_length) parts.push(queuePanel(host.gpu_queue_length));
      const caption = windowCaption(host.window);
      if (glance)
        root.append(h('details', { class: 'host-detail', 'data-host': host.host }, h('summary', {}, h('span', { class: 'host-title' }, host.host), caption), ...parts));
      else root.append(h('h2', { class: 'host-title' }, host.host), ...(caption ? [caption] : []), ...parts);
    }
  },
};

function scopePicker(ctx: PageContext): HTMLElement {
  const current = ctx.options.scope ?? 'hta';
  const choices: [string, string][] = [
    ['hta', 'As HTA: the profile less its last step'],
    ['steps', 'The analysed steps'],
    ['profile', 'The whole profile'],
  ];
  const select = h(
    'select',
    { id: 'gpu-scope-select', 'aria-label': 'Time measured' },
    ...choices.map(([value, label]) => h('option', { value, selected: value === current }, label)),
  );
  select.addEventListener('change', () => ctx.setOption('scope', select.value === 'hta' ? undefined : select.value));
  return select;
}

function share(label: string, pct: number, colour: string, value?: string) {
  return { label, fraction: pct / 100, colour, value: value ?? formatPct(pct) };
}

function breakdownPanels(b: Breakdown): HTMLElement[] {
  return [
    panel(
      `GPU time (${formatUs(b.span_us)} from the first to the last GPU work)`,
      barList(
        [
          share('Idle', b.idle_pct, OTHER_COLOUR),
          share('Computation', b.compute_pct, PALETTE[1]),
          share('Other work (communication, copies)', b.non_compute_pct, PALETTE[0]),
        ],
        'GPU time breakdown',
      ),
      h('p', { class: 'muted' }, 'Of the busy time:'),
      barList(
        [
          share('Computation', b.kernel_type_pct.computation, PALETTE[1]),
          share('Communication', b.kernel_type_pct.communication, PALETTE[0]),
          share('Memory copies and sets', b.kernel_type_pct.memory, PALETTE[2]),
        ],
        'Kinds of GPU work',
      ),
    ),
    panel(
      'Per stream',
      dataTable({
        label: 'GPU time per stream',
        rows: b.streams,
        columns: [
          { key: 'device', title: 'Device', numeric: true, value: (r) => r.device },
          { key: 'stream', title: 'Stream', numeric: true, value: (r) => r.stream },
          { key: 'events', title: 'Items', numeric: true, value: (r) => r.events, render: (r) => formatCount(r.events) },
          { key: 'busy', title: 'Busy', numeric: true, value: (r) => r.busy_us, render: (r) => formatUs(r.busy_us) },
          { key: 'comp', title: 'Computation', numeric: true, value: (r) => r.computation_us, render: (r) => formatUs(r.computation_us) },
          { key: 'comm', title: 'Communication', numeric: true, value: (r) => r.communication_us, render: (r) => formatUs(r.communication_us) },
          { key: 'mem', title: 'Memory', numeric: true, value: (r) => r.memory_us, render: (r) => formatUs(r.memory_us) },
          { key: 'idle', title: 'Idle', numeric: true, value: (r) => r.idle_pct ?? null, render: (r) => formatPct(r.idle_pct) },
        ],
      }),
    ),
  ];
}

// Where a row's link opens the trace: the run, and the host (rank) of the row's section.
type Where = { run: string; host: string };

function idlePanels(idle: IdleTime, where: Where): HTMLElement[] {
  const streams = idle.streams.map((s) =>
    panel(
      `Stream ${s.stream} (device ${s.device}): ${formatUs(s.idle_us)} idle`,
      barList(
        [
          share('Host wait', s.idle_us ? (100 * s.host_wait_us) / s.idle_us : 0, PALETTE[3], formatUs(s.host_wait_us)),
          share('Kernel wait', s.idle_us ? (100 * s.kernel_wait_us) / s.idle_us : 0, PALETTE[2], formatUs(s.kernel_wait_us)),
          share('Other', s.idle_us ? (100 * s.other_us) / s.idle_us : 0, OTHER_COLOUR, formatUs(s.other_us)),
        ],
        `Idle time of stream ${s.stream} by cause`,
      ),
    ),
  );
  return [
    notice(
      'info',
      `Host wait: the work after a gap was launched after the gap began (the host was late). Kernel wait: a gap under ${formatUs(idle.kernel_wait_threshold_us)} between work launched in time. Other: synchronisation, waiting on other streams.`,
    ),
    ...streams,
    panel(
      'Longest gaps',
      dataTable({
        label: 'Longest gaps',
        rows: idle.largest_gaps,
        columns: [
          { key: 'stream', title: 'Stream', numeric: true, value: (r) => r.stream },
          { key: 'at', title: 'At', numeric: true, value: (r) => r.begin_ms, render: (r) => formatMs(r.begin_ms) },
          { key: 'length', title: 'Length', numeric: true, value: (r) => r.length_us, render: (r) => formatUs(r.length_us) },
          { key: 'cause', title: 'Cause', value: (r) => r.cause },
          {
            key: 'next',
            title: 'Work after it',
            name: true,
            value: (r) => r.next,
            // The work that ends the gap, with the gap's start in view.
            link: (r) => traceLinkTo(where, { name: r.next, atMs: r.begin_ms + r.length_us / 1000, fromMs: r.begin_ms }),
          },
          { key: 'op', title: 'Launched by', name: true, value: (r) => r.launched_by },
        ],
      }),
    ),
  ];
}

// `scale`: the communication time a full bar stands for (the most of any rank, so ranks compare).
function overlapPanel(o: Overlap, scale: number, sharedScale: boolean): HTMLElement {
  if (o.overlap_pct === null) return panel('Communication/computation overlap', h('p', {}, 'No communication kernels.'));
  const of = (us: number) => (scale > 0 ? us / scale : 0);
  return panel(
    `Communication/computation overlap (${formatUs(o.communication_us)} of communication, ${formatPct(o.overlap_pct)} beside computation)`,
    sharedScale ? h('p', { class: 'muted small' }, `Bars on one scale across ranks: the full width is ${formatUs(scale)}.`) : null,
    barList(
      [
        { label: 'Beside computation', fraction: of(o.overlap_us), colour: PALETTE[1], value: formatUs(o.overlap_us) },
        { label: 'Exposed', fraction: of(o.exposed_communication_us), colour: PALETTE[3], value: formatUs(o.exposed_communication_us) },
      ],
      'Communication overlap',
    ),
  );
}

function launchPanels(k: LaunchStats, where: Where): HTMLElement[] {
  return [
    panel(
      'Kernel launches',
      keyValueList([
        ['Launches', formatCount(k.launches)],
        ['Launch-bound (GPU work shorter than its call)', `${formatCount(k.short_kernels)} (${formatPct(k.launches ? (100 * k.short_kernels) / k.launches : 0)})`],
        ['Launch delay (call end to work start)', `median ${formatUs(k.median_launch_delay_us)}, mean ${formatUs(k.mean_launch_delay_us)}, max ${formatUs(k.max_launch_delay_us)}`],
        ['Delays over 100 µs', formatCount(k.long_delay_kernels)],
        ['Calls over 50 µs', formatCount(k.runtime_outliers)],
      ]),
    ),
    panel(
      'Most frequent launch-bound work',
      dataTable({
        label: 'Launch-bound work',
        rows: k.short_kernel_names,
        columns: [
          { key: 'count', title: 'Count', numeric: true, value: (r) => r.count, render: (r) => formatCount(r.count) },
          { key: 'gpu', title: 'GPU', numeric: true, value: (r) => r.gpu_us, render: (r) => formatUs(r.gpu_us) },
          { key: 'cpu', title: 'Calls', numeric: true, value: (r) => r.cpu_us, render: (r) => formatUs(r.cpu_us) },
          { key: 'name', title: 'Name', name: true, value: (r) => r.name, link: (r) => traceLinkTo(where, { name: r.name }) },
          { key: 'op', title: 'Op', name: true, value: (r) => r.op },
        ],
      }),
    ),
    panel(
      'Longest launch delays',
      dataTable({
        label: 'Longest launch delays',
        rows: k.longest_delays,
        columns: [
          { key: 'at', title: 'At', numeric: true, value: (r) => r.begin_ms, render: (r) => formatMs(r.begin_ms) },
          { key: 'delay', title: 'Delay', numeric: true, value: (r) => r.delay_us, render: (r) => formatUs(r.delay_us) },
          { key: 'name', title: 'Name', name: true, value: (r) => r.name, link: (r) => traceLinkTo(where, { name: r.name, atMs: r.begin_ms }) },
          { key: 'op', title: 'Op', name: true, value: (r) => r.op },
        ],
      }),
    ),
  ];
}

function queuePanel(q: QueueLength): HTMLElement {
  return panel(
    'Work launched and not yet started, per stream (the trace viewer draws it over time)',
    dataTable({
      label: 'GPU queue length',
      rows: q.streams,
      columns: [
        { key: 'device', title: 'Device', numeric: true, value: (r) => r.device },
        { key: 'stream', title: 'Stream', numeric: true, value: (r) => r.stream },
        { key: 'max', title: 'Max', numeric: true, value: (r) => r.max },
        { key: 'mean', title: 'Mean (over time)', numeric: true, value: (r) => r.mean, render: (r) => r.mean.toFixed(2) },
        { key: 'hta', title: 'Mean at changes (HTA)', numeric: true, value: (r) => r.mean_at_changes, render: (r) => r.mean_at_changes.toFixed(2) },
      ],
    }),
  );
}

interface StragglerRank {
  host: string; // the rank's name ("rank 1", from the trace's distributedInfo), else its file's
  file?: string; // the host (file) the rank was read from: where its trace opens
  steps: number;
  step_ms: number;
  compute_ms: number;
  communication_ms: number;
  wait_ms: number;
  slowest_in_steps: number;
  calls_matched: number;
  late_ms: number;
  straggler: boolean;
}

export interface StragglersData {
  compute_is: string;
  straggler: string | null;
  straggler_vs_median_pct: number;
  matched_calls: number;
  min_late_ms: number;
  window: string;
  summary: string;
  causes: { name: string; excess_ms: number }[];
  ranks: StragglerRank[];
  steps: { step_num: number; slowest: string; slowest_vs_median_pct: number; latest: string | null; latest_late_ms: number }[];
}

export const stragglersPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<StragglersData>();
    root.append(toolHeader(ctx, `Run ${ctx.run}`));
    if (data.steps.length === 0) {
      root.append(notice('info', 'Stragglers need two or more ranks with steps.'));
      return;
    }
    const load = data.compute_is === 'gpu_compute' ? 'GPU compute' : 'step time';
    root.append(
      data.straggler
        ? notice('warning', data.summary)
        : notice('ok', data.matched_calls > 0
            ? `No rank arrives ${formatMs(data.min_late_ms)} or more after the others at the ${data.matched_calls} collective calls matched across ranks.`
            : `No rank's ${load} stands out.`),
    );
    // Ranks that meet in collectives finish together: their arrival tells who the others wait for.
    const byArrival = data.matched_calls > 0;
    const shown = (r: StragglerRank) =>
      byArrival ? Math.max(0, r.late_ms) : data.compute_is === 'gpu_compute' ? r.compute_ms : r.step_ms;
    const most = Math.max(...data.ranks.map(shown), 1e-9);
    // Ranks are named from their traces; their trace opens by the host (file) they came from.
    const fileOf = new Map(data.ranks.map((r) => [r.host, r.file ?? r.host]));
    const traceOf = (rank: string, target: { step?: number } = {}) => traceLinkTo({ run: ctx.run, host: fileOf.get(rank) ?? rank }, target);
    root.append(
      panel(
        byArrival ? 'Late at collective calls, per step, by rank' : `${load} per step, by rank`,
        windowCaption(data.window),
        barList(
          data.ranks.map((r) => ({
            label: r.host,
            fraction: shown(r) / most,
            colour: r.straggler ? PALETTE[3] : PALETTE[1],
            value: formatMs(byArrival ? r.late_ms : shown(r)),
          })),
          byArrival ? 'Lateness per rank' : 'Compute per rank',
        ),
      ),
      panel(
        'Ranks (means per step; wait: time in collectives beyond the rank that waits least; late: its latest arrival at a collective call of the step, after the other ranks\' median)',
        dataTable({
          label: 'Ranks',
          rows: data.ranks,
          columns: [
            { key: 'host', title: 'Rank', name: true, value: (r) => r.host, link: (r) => traceOf(r.host) },
            { key: 'step', title: 'Step', numeric: true, value: (r) => r.step_ms, render: (r) => formatMs(r.step_ms) },
            { key: 'compute', title: 'Compute', numeric: true, value: (r) => r.compute_ms, render: (r) => formatMs(r.compute_ms) },
            { key: 'comm', title: 'Communication', numeric: true, value: (r) => r.communication_ms, render: (r) => formatMs(r.communication_ms) },
            { key: 'wait', title: 'Wait', numeric: true, value: (r) => r.wait_ms, render: (r) => formatMs(r.wait_ms) },
            { key: 'late', title: 'Late', numeric: true, value: (r) => r.late_ms, render: (r) => (r.calls_matched > 0 ? formatMs(r.late_ms) : '–') },
            { key: 'slowest', title: 'Slowest in', numeric: true, value: (r) => r.slowest_in_steps },
          ],
        }),
      ),
      panel(
        'Steps',
        dataTable({
          label: 'Steps',
          rows: data.steps,
          columns: [
            { key: 'step', title: 'Step', numeric: true, value: (r) => r.step_num },
            ...(byArrival
              ? [
                  {
                    key: 'latest',
                    title: 'Latest at the calls',
                    name: true,
                    value: (r: (typeof data.steps)[number]) => r.latest ?? '–',
                    link: (r: (typeof data.steps)[number]) => (r.latest ? traceOf(r.latest, { step: r.step_num }) : undefined),
                  },
                  { key: 'late', title: 'Late', numeric: true, value: (r: (typeof data.steps)[number]) => r.latest_late_ms, render: (r: (typeof data.steps)[number]) => formatMs(r.latest_late_ms) },
                ]
              : []),
            {
              key: 'slowest',
              title: byArrival ? 'Most work' : 'Slowest',
              name: true,
              value: (r) => r.slowest,
              link: (r) => traceOf(r.slowest, { step: r.step_num }),
            },
            { key: 'excess', title: 'Its excess', numeric: true, value: (r) => r.slowest_vs_median_pct, render: (r) => formatPct(r.slowest_vs_median_pct) },
          ],
        }),
      ),
    );
  },
};
