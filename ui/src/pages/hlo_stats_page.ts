// hlo_stats: one row per HLO op, ranked by self time, with its FLOP rate, memory bandwidth,
// operational intensity and what bounds it; all chips summed (the page says over how many) or
// one chip, by the tool's `device` option.
import { h } from '../dom';
import { formatCount, formatPct, formatUs } from '../format';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { formatMs } from '../format';
import { notesNotice, peaksText } from './xla_notes';
import type { PageContext, ToolPage } from './tool_page';

interface HloStatsRow {
  rank: number;
  program: string;
  category: string;
  hlo_op_name: string;
  hlo_op_expression: string;
  tf_op_name: string;
  occurrences: number;
  total_time_us: number;
  avg_time_us: number;
  total_self_time_us: number;
  avg_self_time_us: number;
  total_self_time_pct: number;
  cumulative_total_self_time_pct: number;
  measured_flop_rate_gflops: number;
  model_flop_rate_gflops: number;
  measured_memory_bw_gib_s: number;
  hbm_bw_gib_s: number;
  operational_intensity: number;
  bound_by: string;
  async_partner: string;
  source_info: string;
}

export interface HloStatsData {
  devices: string;
  num_devices: number;
  device_type: string;
  peak_teraflops_per_second: number;
  peak_hbm_bw_gigabytes_per_second: number;
  busy_time_ms: number;
  notes: string[];
  rows: HloStatsRow[];
}

export const hloStatsPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<HloStatsData>();
    root.append(toolHeader(ctx, `Run ${ctx.run} · ${data.devices || 'XLA devices'}`, csvButton(ctx)));
    root.append(notesNotice(data.notes) ?? '');
    if (data.rows.length === 0) {
      root.append(notice('info', 'This profile has no XLA ops.'));
      return;
    }
    root.append(summary(data, ctx), panel('HLO ops', table(data.rows)));
  },
};


function summary(data: HloStatsData, ctx: PageContext): HTMLElement {
  const input = h('input', {
    type: 'text',
    size: 4,
    value: ctx.options.device ?? '',
    placeholder: 'all',
    'aria-label': 'Device number',
    'data-testid': 'device-input',
  });
  input.addEventListener('change', () => ctx.setOption('device', input.value.trim() || undefined));
  return panel(
    'Summary',
    keyValueList([
      ['Devices', `${data.devices}${data.device_type ? ` (${data.device_type})` : ''}`],
      ['One device only', h('label', { class: 'inline-control' }, input, ' (the n of /device:TPU:n; empty for all)')],
      ['Peaks (per device)', peaksText(data.peak_teraflops_per_second, data.peak_hbm_bw_gigabytes_per_second)],
      [data.num_devices > 1 ? `Busy time, summed over ${data.num_devices}` : 'Busy time', formatMs(data.busy_time_ms)],
      ['HLO ops', formatCount(data.rows.length)],
    ]),
  );
}

const rate = (v: number) => (v > 0 ? v.toFixed(1) : '–');

function table(rows: HloStatsRow[]): HTMLElement {
  return dataTable<HloStatsRow>({
    label: 'HLO ops',
    rows,
    sort: { key: 'rank', descending: false },
    filterPlaceholder: 'Filter by op, category, program or source',
    filterable: true,
    columns: [
      { key: 'rank', title: 'Rank', numeric: true, value: (r) => r.rank },
      { key: 'program', title: 'Program', name: true, value: (r) => r.program },
      { key: 'category', title: 'Category', value: (r) => r.category },
      {
        key: 'hlo_op_name',
        title: 'HLO op',
        name: true,
        value: (r) => r.hlo_op_name,
        render: (r) => h('span', { title: r.hlo_op_expression || r.hlo_op_name }, r.hlo_op_name),
      },
      { key: 'occurrences', title: 'Count', numeric: true, value: (r) => r.occurrences, render: (r) => formatCount(r.occurrences) },
      { key: 'total_time_us', title: 'Total', numeric: true, value: (r) => r.total_time_us, render: (r) => formatUs(r.total_time_us) },
      { key: 'total_self_time_us', title: 'Self', numeric: true, value: (r) => r.total_self_time_us, render: (r) => formatUs(r.total_self_time_us) },
      { key: 'total_self_time_pct', title: 'Self %', numeric: true, value: (r) => r.total_self_time_pct, render: (r) => formatPct(r.total_self_time_pct) },
      { key: 'measured_flop_rate_gflops', title: 'GFLOP/s', numeric: true, value: (r) => r.measured_flop_rate_gflops, render: (r) => rate(r.measured_flop_rate_gflops) },
      { key: 'hbm_bw_gib_s', title: 'HBM GiB/s', numeric: true, value: (r) => r.hbm_bw_gib_s, render: (r) => rate(r.hbm_bw_gib_s) },
      {
        key: 'operational_intensity',
        title: 'FLOP/byte',
        help: 'Operational intensity: FLOPs / bytes accessed',
        numeric: true,
        value: (r) => r.operational_intensity,
        render: (r) => (r.operational_intensity > 0 ? r.operational_intensity.toFixed(2) : '–'),
      },
      { key: 'bound_by', title: 'Bound by', value: (r) => r.bound_by },
      {
        key: 'async_partner',
        title: 'Async pair',
        help: "The other half of an async pair (copy-start/copy-done...): the rates are over the pairs' spans",
        name: true,
        value: (r) => r.async_partner,
      },
      { key: 'tf_op_name', title: 'Framework op', name: true, value: (r) => r.tf_op_name },
      { key: 'source_info', title: 'Source', name: true, value: (r) => r.source_info },
    ],
  });
}
