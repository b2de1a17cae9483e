// framework_op_stats (the seed's "TensorFlow stats"): self time by op and by op type on the
// host and the device as four pies, and every op in a sortable, filterable table that
// exports as CSV.
import { h } from '../dom';
import { formatCount, formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { panel, windowCaption } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { pieChart } from '../charts/pie_chart';
import { traceLinkTo } from '../trace_link';
import { opRanksTable, type RankOpsRow } from './step_ranks_glance';
import type { PageContext, ToolPage } from './tool_page';

interface OpRow {
  host_or_device: string;
  type: string;
  operation: string;
  occurrences: number;
  total_time_ms: number;
  avg_time_ms: number;
  total_self_time_ms: number;
  avg_self_time_ms: number;
  device_self_time_pct: number;
  device_cumulative_self_time_pct: number;
  host_self_time_pct: number;
  host_cumulative_self_time_pct: number;
}

interface Slice {
  name: string;
  self_time_ms: number;
  pct: number;
}

export interface FrameworkOpStatsData {
  ops: OpRow[];
  include_idle: boolean;
  window: string;
  host_self_time_ms: number;
  device_self_time_ms: number;
  pie: { host_by_op: Slice[]; host_by_type: Slice[]; device_by_op: Slice[]; device_by_type: Slice[] };
  ranks?: RankOpsRow[]; // one row per rank, for a run of several
}

// Rows carry their rank (by self time, within host or device) as the analysis ordered them.
type RankedRow = OpRow & { rank: number };

export const frameworkOpStatsPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<FrameworkOpStatsData>();
    const rows: RankedRow[] = data.ops.map((r, i) => ({ ...r, rank: i + 1 }));
    // LibTorch ops are their own type ("aten::mm"): a type column or pie would repeat the name.
    const typed = rows.some((r) => r.type && r.type !== r.operation);
    root.append(
      toolHeader(ctx, null, idleToggle(ctx), csvButton(ctx)),
      opRanksTable(data.ranks, ctx.run) ?? '',
      pies(data, typed),
      panel('Ops', opTable(rows, typed, ctx)),
    );
  },
};

function idleToggle(ctx: PageContext): HTMLElement {
  const box = h('input', { type: 'checkbox', id: 'include-idle', checked: ctx.options.include_idle === '1' });
  box.addEventListener('change', () => ctx.setOption('include_idle', box.checked ? '1' : undefined));
  return h('label', { class: 'toggle', for: 'include-idle' }, box, 'Include idle time');
}


function pies(data: FrameworkOpStatsData, typed: boolean): HTMLElement {
  const toSlices = (slices: Slice[]) => slices.map((s) => ({ label: s.name, value: s.self_time_ms }));
  const figures: HTMLElement[] = [];
  const sides = [
    { side: 'host', total: data.host_self_time_ms, byOp: data.pie.host_by_op, byType: data.pie.host_by_type },
    { side: 'device', total: data.device_self_time_ms, byOp: data.pie.device_by_op, byType: data.pie.device_by_type },
  ];
  for (const s of sides) {
    if (s.total <= 0) continue;
    figures.push(pieChart({ title: `Self time on the ${s.side}, by op`, slices: toSlices(s.byOp), formatValue: formatMs }));
    if (typed) figures.push(pieChart({ title: `Self time on the ${s.side}, by op type`, slices: toSlices(s.byType), formatValue: formatMs }));
  }
  const note = data.device_self_time_ms <= 0 ? h('p', { class: 'muted small' }, 'No device ops in this profile.') : null;
  return panel('Self-time distribution', windowCaption(data.window), h('div', { class: 'pie-grid' }, ...figures), note);
}

function opTable(rows: RankedRow[], typed: boolean, ctx: PageContext): HTMLElement {
  const pctColumn = (key: keyof OpRow, title: string, help: string, optional = false) => ({
    key,
    title,
    help,
    optional,
    numeric: true,
    value: (r: RankedRow) => r[key] as number,
    render: (r: RankedRow) => formatPct(r[key] as number),
  });
  return dataTable<RankedRow>({
    label: 'Framework ops',
    rows,
    sort: { key: 'rank', descending: false },
    filterPlaceholder: typed ? 'Filter by op, type, host or device' : 'Filter by op, host or device',
    filterable: true,
    columns: [
      { key: 'rank', title: 'Rank', numeric: true, value: (r) => r.rank },
      { key: 'host_or_device', title: 'Host/device', value: (r) => r.host_or_device },
      ...(typed ? [{ key: 'type', title: 'Type', value: (r: RankedRow) => r.type }] : []),
      { key: 'operation', title: 'Operation', value: (r) => r.operation, name: true, link: (r) => traceLinkTo(ctx, { name: r.operation }) },
      { key: 'occurrences', title: 'Count', help: 'Occurrences', numeric: true, value: (r) => r.occurrences, render: (r) => formatCount(r.occurrences) },
      {
        key: 'total_time_ms',
        title: 'Total time',
        help: 'Including the time spent in child ops',
        numeric: true,
        value: (r) => r.total_time_ms,
        render: (r) => formatMs(r.total_time_ms),
      },
      { key: 'avg_time_ms', title: 'Avg time', optional: true, numeric: true, value: (r) => r.avg_time_ms, render: (r) => formatMs(r.avg_time_ms) },
      {
        key: 'total_self_time_ms',
        title: 'Self time',
        help: 'Total, without the time spent in child ops',
        numeric: true,
        value: (r) => r.total_self_time_ms,
        render: (r) => formatMs(r.total_self_time_ms),
      },
      { key: 'avg_self_time_ms', title: 'Avg self time', optional: true, numeric: true, value: (r) => r.avg_self_time_ms, render: (r) => formatMs(r.avg_self_time_ms) },
      pctColumn('device_self_time_pct', 'Device %', 'Share of all self time on the device (0 for host ops)'),
      pctColumn('device_cumulative_self_time_pct', 'Device cumul. %', 'Cumulative share on the device, in rank order', true),
      pctColumn('host_self_time_pct', 'Host %', 'Share of all self time on the host (0 for device ops)'),
      pctColumn('host_cumulative_self_time_pct', 'Host cumul. %', 'Cumulative share on the host, in rank order', true),
    ],
  });
}
