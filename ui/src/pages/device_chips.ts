// The per-chip rows the pod viewer and the overview share (the JSON's `chips`): one row per TPU
// chip (or GPU that ran XLA ops), every figure the chip's own; its steps are the runs of its
// most-run XLA program where the host marks none. What the file lacked reads as one muted line
// per missing stat, under the table.
import { h } from '../dom';
import { formatCount, formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { richText } from '../components/rich_text';
import { peaksText } from './xla_notes';

export interface ChipRowData {
  host: string;
  device: string;
  model: string;
  global_chip_id: number;
  cores: number;
  module_runs: number;
  module_time_ms: number;
  main_module: string;
  main_module_runs: number;
  main_module_avg_ms: number;
  busy_ms: number; // while any of its cores ran an op
  core_busy_ms: number; // its cores' busy time summed: what compute, collectives and copies split
  core_devices: string; // a megacore chip's cores, "/device:TPU:0, /device:TPU:1"
  compute_ms: number;
  collective_ms: number;
  async_copy_ms: number;
  flop_utilisation_pct: number;
  hbm_bandwidth_utilisation_pct: number;
  peak_teraflops_per_second: number;
  peak_hbm_gigabytes_per_second: number;
}

export interface DeviceChipsData {
  figures: string; // "per chip: no figure is summed over chips"
  module_runs: string; // what a chip's steps are
  chips: ChipRowData[];
  missing_stats: string[];
  busiest: number;
  least_busy: number;
}

// A utilisation known only with the file's peaks: '–' where the chip has none.
function utilisation(pct: number, peak: number): string {
  return peak > 0 ? formatPct(pct) : '–';
}

// `hostMarksSteps`: whether the host's markers give the steps; else the chips' program runs do.
export function chipsPanel(data: DeviceChipsData, hostMarksSteps: boolean): HTMLElement {
  const chips = data.chips;
  const busiest = chips[data.busiest];
  const hosts = new Set(chips.map((c) => c.host)).size;
  const main = chips.find((c) => c.main_module_runs > 0);
  const model = chips[0]?.model ?? '';
  const samePeaks = chips.every(
    (c) => c.peak_teraflops_per_second === chips[0].peak_teraflops_per_second && c.peak_hbm_gigabytes_per_second === chips[0].peak_hbm_gigabytes_per_second,
  );
  // A chip of several TensorCores (megacore): its split is of the cores' time, not its busy time.
  const megacore = chips.some((c) => c.cores > 1);
  // A TPU's chips are chips; GPUs that ran XLA ops are devices.
  const noun = model.startsWith('TPU') ? 'Chip' : 'Device';
  const table = dataTable<ChipRowData>({
    label: 'Chips',
    rows: chips,
    filterable: false,
    sticky: 1,
    columns: [
      {
        key: 'device',
        title: noun,
        value: (c) => c.device,
        render: (c) => (hosts > 1 ? `${c.device} (${c.host})` : c.device) + (c === busiest && chips.length > 1 ? ' (busiest)' : ''),
      },
      { key: 'chip_id', title: 'Chip id', numeric: true, value: (c) => c.global_chip_id, render: (c) => (c.global_chip_id >= 0 ? String(c.global_chip_id) : '–'), help: 'core_details: the chip’s global id', optional: chips.every((c) => c.global_chip_id < 0) },
      { key: 'cores', title: 'Cores', numeric: true, value: (c) => c.cores, optional: chips.every((c) => c.cores <= 1) },
      {
        key: 'steps',
        title: 'Steps',
        numeric: true,
        value: (c) => c.main_module_runs,
        render: (c) => formatCount(c.main_module_runs),
        help: 'Runs of the chip’s most-run XLA program: its steps where the host marks none',
      },
      { key: 'avg_step', title: 'Avg step', numeric: true, value: (c) => c.main_module_avg_ms, render: (c) => (c.main_module_runs ? formatMs(c.main_module_avg_ms) : '–') },
      {
        key: 'busy',
        title: 'Busy',
        numeric: true,
        value: (c) => c.busy_ms,
        render: (c) => formatMs(c.busy_ms),
        help: megacore
          ? 'Time any of the chip’s cores ran an XLA op (their busy times united, as XProf does)'
          : 'Time any XLA op ran on the chip: compute + collectives + async copies',
      },
      {
        // A megacore chip's split is of its cores' time summed, which exceeds its busy time.
        key: 'core_busy',
        title: 'Core time',
        numeric: true,
        value: (c) => c.core_busy_ms,
        render: (c) => (c.cores > 1 ? h('span', { title: c.core_devices }, formatMs(c.core_busy_ms)) : formatMs(c.core_busy_ms)),
        help: 'The chip’s cores’ busy times summed: compute + collectives + async copies',
        optional: !megacore,
      },
      { key: 'compute', title: 'Compute', numeric: true, value: (c) => c.compute_ms, render: (c) => formatMs(c.compute_ms) },
      { key: 'collectives', title: 'Collectives', numeric: true, value: (c) => c.collective_ms, render: (c) => formatMs(c.collective_ms) },
      {
        key: 'async_copies',
        title: 'Async copies',
        numeric: true,
        value: (c) => c.async_copy_ms,
        render: (c) => formatMs(c.async_copy_ms),
        help: 'copy-start / copy-done: copies between host and HBM (host offloading) or between memories',
      },
      {
        key: 'flop_util',
        title: 'FLOP util',
        numeric: true,
        value: (c) => c.flop_utilisation_pct,
        render: (c) => utilisation(c.flop_utilisation_pct, c.peak_teraflops_per_second),
        help: 'FLOPs / (busy time × the chip’s peak FLOP rate)',
      },
      {
        key: 'hbm_util',
        title: 'HBM util',
        numeric: true,
        value: (c) => c.hbm_bandwidth_utilisation_pct,
        render: (c) => utilisation(c.hbm_bandwidth_utilisation_pct, c.peak_hbm_gigabytes_per_second),
        help: 'HBM bytes / (busy time × the chip’s peak HBM bandwidth)',
      },
    ],
  });
  return h(
    'section',
    { class: 'panel', 'data-testid': 'chips' },
    h('h2', {}, `${noun}s · ${chips.length}${model ? ` × ${model}` : ''}`),
    h('p', { class: 'figure-window', 'data-testid': 'chips-figures' }, `${data.figures[0]?.toUpperCase() ?? ''}${data.figures.slice(1)}.`),
    main
      ? h(
          'p',
          { class: 'muted small', 'data-testid': 'chips-steps' },
          `${hostMarksSteps ? 'A chip’s steps' : 'No step markers on the host: a chip’s steps'} are the runs of its most-run XLA program (${main.main_module} on ${main.device}).`,
        )
      : null,
    samePeaks && chips[0]
      ? h('p', { class: 'muted small' }, `Peak per chip: ${peaksText(chips[0].peak_teraflops_per_second, chips[0].peak_hbm_gigabytes_per_second)}.`)
      : null,
    table,
    ...data.missing_stats.map((line) => h('p', { class: 'muted small', 'data-testid': 'missing-stat' }, ...richText(line))),
  );
}

