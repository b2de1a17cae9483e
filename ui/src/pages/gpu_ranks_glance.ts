// The GPU timeline pages of a run of several ranks (hosts) start here: one table, one row per
// rank, its bar on one scale across all ranks (the longest rank's bar is the full width), so
// 1.6 ms of exposed communication never looks as long as 11 ms; each rank's detail follows,
// folded. One function per tool picks the row's numbers and its bar's parts.
import { h } from '../dom';
import { formatCount, formatPct, formatUs } from '../format';
import { dataTable, type Column } from '../components/data_table';
import { OTHER_COLOUR, PALETTE } from '../charts/palette';
import { traceLinkTo } from '../trace_link';
import type { GpuTimelineData } from './gpu_timeline_page';

type HostData = GpuTimelineData['hosts'][number];

interface Part {
  label: string;
  us: number;
  colour: string;
}

interface Glance {
  title: string; // the table's heading
  columns: Column<HostData>[]; // the numbers, after the rank
  bar: (host: HostData) => Part[] | null; // null: the rank has none of it
  barTitle: string;
}

const num = (key: string, title: string, value: (r: HostData) => number | null, render: (v: number) => string): Column<HostData> => ({
  key,
  title,
  numeric: true,
  value,
  render: (r) => {
    const v = value(r);
    return v === null ? '–' : render(v);
  },
});

function glanceOf(tool: string): Glance | null {
  switch (tool) {
    case 'gpu_time_breakdown': {
      const part = (r: HostData, pct: (b: NonNullable<HostData['gpu_time_breakdown']>) => number) =>
        r.gpu_time_breakdown ? (r.gpu_time_breakdown.span_us * pct(r.gpu_time_breakdown)) / 100 : null;
      return {
        title: 'GPU time per rank',
        barTitle: 'From the first to the last GPU work, on one scale',
        columns: [
          num('span', 'GPU span', (r) => r.gpu_time_breakdown?.span_us ?? null, formatUs),
          num('compute', 'Computation', (r) => r.gpu_time_breakdown?.compute_pct ?? null, formatPct),
          num('other', 'Other work', (r) => r.gpu_time_breakdown?.non_compute_pct ?? null, formatPct),
          num('idle', 'Idle', (r) => r.gpu_time_breakdown?.idle_pct ?? null, formatPct),
          num('comm', 'Communication (of busy)', (r) => r.gpu_time_breakdown?.kernel_type_pct.communication ?? null, formatPct),
        ],
        bar: (r) =>
          r.gpu_time_breakdown
            ? [
                { label: 'Computation', us: part(r, (b) => b.compute_pct) ?? 0, colour: PALETTE[1] },
                { label: 'Other work', us: part(r, (b) => b.non_compute_pct) ?? 0, colour: PALETTE[0] },
                { label: 'Idle', us: part(r, (b) => b.idle_pct) ?? 0, colour: OTHER_COLOUR },
              ]
            : null,
      };
    }
    case 'gpu_idle_time': {
      const sum = (r: HostData, key: 'idle_us' | 'host_wait_us' | 'kernel_wait_us' | 'other_us') =>
        r.gpu_idle_time ? r.gpu_idle_time.streams.reduce((s, x) => s + x[key], 0) : null;
      return {
        title: 'GPU idle time per rank, summed over its streams',
        barTitle: 'Idle time by cause, on one scale',
        columns: [
          num('idle', 'Idle', (r) => sum(r, 'idle_us'), formatUs),
          num('host', 'Host wait', (r) => sum(r, 'host_wait_us'), formatUs),
          num('kernel', 'Kernel wait', (r) => sum(r, 'kernel_wait_us'), formatUs),
          num('other', 'Other', (r) => sum(r, 'other_us'), formatUs),
          num('gap', 'Longest gap', (r) => (r.gpu_idle_time ? Math.max(0, ...r.gpu_idle_time.largest_gaps.map((g) => g.length_us)) : null), formatUs),
        ],
        bar: (r) =>
          r.gpu_idle_time
            ? [
                { label: 'Host wait', us: sum(r, 'host_wait_us') ?? 0, colour: PALETTE[3] },
                { label: 'Kernel wait', us: sum(r, 'kernel_wait_us') ?? 0, colour: PALETTE[2] },
                { label: 'Other', us: sum(r, 'other_us') ?? 0, colour: OTHER_COLOUR },
              ]
            : null,
      };
    }
    case 'comm_compute_overlap':
      return {
        title: 'Communication per rank',
        barTitle: 'Communication beside computation and exposed, on one scale',
        columns: [
          num('comm', 'Communication', (r) => r.comm_compute_overlap?.communication_us ?? null, formatUs),
          num('overlap', 'Beside computation', (r) => r.comm_compute_overlap?.overlap_us ?? null, formatUs),
          num('exposed', 'Exposed', (r) => r.comm_compute_overlap?.exposed_communication_us ?? null, formatUs),
          num('pct', 'Overlap', (r) => r.comm_compute_overlap?.overlap_pct ?? null, formatPct),
        ],
        bar: (r) =>
          r.comm_compute_overlap && r.comm_compute_overlap.communication_us > 0
            ? [
                { label: 'Beside computation', us: r.comm_compute_overlap.overlap_us, colour: PALETTE[1] },
                { label: 'Exposed', us: r.comm_compute_overlap.exposed_communication_us, colour: PALETTE[3] },
              ]
            : null,
      };
    case 'kernel_launch_stats':
      return {
        title: 'Kernel launches per rank',
        barTitle: 'Median launch delay, on one scale',
        columns: [
          num('launches', 'Launches', (r) => r.kernel_launch_stats?.launches ?? null, formatCount),
          num('bound', 'Launch-bound', (r) => r.kernel_launch_stats?.short_kernels ?? null, formatCount),
          num('median', 'Median delay', (r) => r.kernel_launch_stats?.median_launch_delay_us ?? null, formatUs),
          num('max', 'Max delay', (r) => r.kernel_launch_stats?.max_launch_delay_us ?? null, formatUs),
          num('long', 'Delays over 100 µs', (r) => r.kernel_launch_stats?.long_delay_kernels ?? null, formatCount),
        ],
        bar: (r) => (r.kernel_launch_stats ? [{ label: 'Median delay', us: r.kernel_launch_stats.median_launch_delay_us, colour: PALETTE[0] }] : null),
      };
    case 'gpu_queue_length': {
      const max = (r: HostData) => (r.gpu_queue_length ? Math.max(0, ...r.gpu_queue_length.streams.map((s) => s.max)) : null);
      return {
        title: 'GPU queue length per rank',
        barTitle: 'The longest queue of its streams, on one scale',
        columns: [
          num('streams', 'Streams', (r) => r.gpu_queue_length?.streams.length ?? null, formatCount),
          num('max', 'Longest queue', max, formatCount),
          num('mean', 'Highest mean', (r) => (r.gpu_queue_length ? Math.max(0, ...r.gpu_queue_length.streams.map((s) => s.mean)) : null), (v) => v.toFixed(2)),
        ],
        // Not microseconds: the bar's unit does not show, only its length.
        bar: (r) => (r.gpu_queue_length ? [{ label: 'Longest queue', us: max(r) ?? 0, colour: PALETTE[0] }] : null),
      };
    }
    default:
      return null;
  }
}

// A bar whose full width is `scale`: its parts side by side, each named on hover.
function scaledBar(parts: Part[], scale: number, unit: (v: number) => string): HTMLElement {
  const total = parts.reduce((s, p) => s + p.us, 0);
  return h(
    'span',
    { class: 'rank-bar', title: parts.map((p) => `${p.label}: ${unit(p.us)}`).join('\n'), 'data-total': String(total), 'data-scale': String(scale) },
    ...parts.map((p) => h('span', { class: 'rank-bar-part', style: `width:${scale > 0 ? (100 * p.us) / scale : 0}%;background:${p.colour}` })),
  );
}

// The table, or null for a tool without one (or a run of one rank).
export function ranksGlance(tool: string, data: GpuTimelineData, run: string, window: HTMLElement | null): HTMLElement | null {
  const glance = glanceOf(tool);
  if (!glance || data.hosts.length < 2) return null;
  const parts = new Map(data.hosts.map((r) => [r.host, glance.bar(r)]));
  const scale = Math.max(0, ...[...parts.values()].map((p) => (p ?? []).reduce((s, x) => s + x.us, 0)));
  const unit = tool === 'gpu_queue_length' ? formatCount : formatUs;
  const columns: Column<HostData>[] = [
    { key: 'rank', title: 'Rank', value: (r) => r.host, link: (r) => traceLinkTo({ run, host: r.file || r.host }, {}) },
    ...glance.columns,
    {
      key: 'bar',
      title: 'On one scale',
      help: `${glance.barTitle}: every rank on the same scale, the full width is the largest rank's`,
      value: (r) => (parts.get(r.host) ?? []).reduce((s, x) => s + x.us, 0),
      render: (r) => {
        const p = parts.get(r.host);
        return p ? scaledBar(p, scale, unit) : '–';
      },
    },
  ];
  const legend = (glance.bar(data.hosts[0]) ?? []).length > 0
    ? h('p', { class: 'rank-legend muted' }, ...(glance.bar(data.hosts[0]) ?? []).map((p) => h('span', {}, h('span', { class: 'swatch', style: `background:${p.colour}` }), p.label)))
    : null;
  return h(
    'section',
    { class: 'panel ranks-glance', 'data-testid': 'ranks-glance' },
    h('h2', {}, `${glance.title} (${data.hosts.length} ranks)`),
    window,
    legend,
    dataTable({ label: 'Ranks', rows: data.hosts, columns, filterable: false, sticky: 1 }),
  );
}
