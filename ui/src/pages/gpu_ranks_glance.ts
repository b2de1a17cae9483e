// The GPU timeline pages of a run of several ranks (hosts) start here: one table, one row per
// rank, its bar on one scale across all ranks (components/ranks_table.ts), so 1.6 ms of exposed
// communication never looks as long as 11 ms; each rank's detail follows, folded. One function
// per tool picks the row's numbers and its bar's parts.
import { formatCount, formatPct, formatUs } from '../format';
import type { Column } from '../components/data_table';
import { numberColumn, ranksTable, type BarPart } from '../components/ranks_table';
import { OTHER_COLOUR, PALETTE } from '../charts/palette';
import type { GpuTimelineData } from './gpu_timeline_page';

type HostData = GpuTimelineData['hosts'][number];

interface Glance {
  title: string; // the table's heading
  columns: Column<HostData>[]; // the numbers, after the rank
  bar: (host: HostData) => BarPart[] | null; // null: the rank has none of it
  barTitle: string;
}

const num = (key: string, title: string, value: (r: HostData) => number | null, render: (v: number) => string) =>
  numberColumn<HostData>(key, title, value, render);

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
                { label: 'Computation', value: part(r, (b) => b.compute_pct) ?? 0, colour: PALETTE[1] },
                { label: 'Other work', value: part(r, (b) => b.non_compute_pct) ?? 0, colour: PALETTE[0] },
                { label: 'Idle', value: part(r, (b) => b.idle_pct) ?? 0, colour: OTHER_COLOUR },
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
                { label: 'Host wait', value: sum(r, 'host_wait_us') ?? 0, colour: PALETTE[3] },
                { label: 'Kernel wait', value: sum(r, 'kernel_wait_us') ?? 0, colour: PALETTE[2] },
                { label: 'Other', value: sum(r, 'other_us') ?? 0, colour: OTHER_COLOUR },
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
                { label: 'Beside computation', value: r.comm_compute_overlap.overlap_us, colour: PALETTE[1] },
                { label: 'Exposed', value: r.comm_compute_overlap.exposed_communication_us, colour: PALETTE[3] },
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
        bar: (r) => (r.kernel_launch_stats ? [{ label: 'Median delay', value: r.kernel_launch_stats.median_launch_delay_us, colour: PALETTE[0] }] : null),
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
        bar: (r) => (r.gpu_queue_length ? [{ label: 'Longest queue', value: max(r) ?? 0, colour: PALETTE[0] }] : null),
      };
    }
    default:
      return null;
  }
}

// The table, or null for a tool without one (or a run of one rank).
export function ranksGlance(tool: string, data: GpuTimelineData, run: string, window: HTMLElement | null): HTMLElement | null {
  const glance = glanceOf(tool);
  if (!glance) return null;
  return ranksTable<HostData>({
    title: glance.title,
    run,
    rows: data.hosts,
    rank: (r) => r.host,
    file: (r) => r.file || r.host,
    columns: glance.columns,
    bar: glance.bar,
    barTitle: glance.barTitle,
    unit: tool === 'gpu_queue_length' ? formatCount : formatUs,
    window,
  });
}
