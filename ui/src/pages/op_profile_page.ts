// op_profile: XLA's device time by category, then by op, with FLOP and HBM bandwidth
// utilisation against the device's peaks; one view per chip and one for all of them (which
// says that its figures are summed over the chips).
import { h } from '../dom';
import { formatCount, formatMs, formatPct } from '../format';
import { barList } from '../components/bar_list';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { PALETTE } from '../charts/palette';
import { notesNotice, peaksText, utilText } from './xla_notes';
import type { PageContext, ToolPage } from './tool_page';

interface OpProfileNode {
  name: string;
  time_ms: number;
  self_time_ms: number;
  occurrences: number;
  flops: number;
  hbm_bytes: number;
  flop_utilization: number;
  hbm_bandwidth_utilization: number;
  bound_by: string;
  xla?: { category: string; expression: string; provenance: string; source: string };
  num_children?: number;
  children?: OpProfileNode[];
}

interface OpProfileView {
  device: string;
  devices: number;
  device_type: string;
  peak_teraflops_per_second: number;
  peak_hbm_bw_gigabytes_per_second: number;
  busy_time_ms: number;
  by_category: OpProfileNode;
  by_program: OpProfileNode;
}

export interface OpProfileData {
  device_type: string;
  views: OpProfileView[];
  notes: string[];
}

const VIEW_OPTION = 'view';

export const opProfilePage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<OpProfileData>({}); // every view: `view` is the page's own option
    root.append(toolHeader(ctx, `Run ${ctx.run} · ${data.device_type || 'XLA devices'}`, csvButton(ctx, {})));
    root.append(notesNotice(data.notes) ?? '');
    if (data.views.length === 0) {
      root.append(notice('info', 'This profile has no XLA ops.'));
      return;
    }
    const chosen = data.views.find((v) => v.device === ctx.options[VIEW_OPTION]) ?? data.views[0];
    root.append(viewPicker(data.views, chosen, ctx), summary(chosen), categories(chosen), programs(chosen), opTable(chosen));
  },
};


// The view is the page's own choice (the JSON holds every view): kept in the URL so that a link
// opens the same chip.
function viewPicker(views: OpProfileView[], chosen: OpProfileView, ctx: PageContext): HTMLElement {
  const select = h(
    'select',
    { 'aria-label': 'Device', 'data-testid': 'device-select' },
    ...views.map((v) => h('option', { value: v.device, selected: v === chosen }, v.device)),
  );
  select.addEventListener('change', () => ctx.setOption(VIEW_OPTION, select.value === views[0].device ? undefined : select.value));
  return h('label', { class: 'inline-control' }, 'Device ', select);
}

function summary(v: OpProfileView): HTMLElement {
  const root = v.by_category;
  return panel(
    'Summary',
    keyValueList([
      ['Device', `${v.device}${v.device_type ? ` (${v.device_type})` : ''}`],
      ['Peaks (per device)', peaksText(v.peak_teraflops_per_second, v.peak_hbm_bw_gigabytes_per_second)],
      [v.devices > 1 ? `Busy time, summed over ${v.devices}` : 'Busy time', formatMs(v.busy_time_ms)],
      ['FLOP utilisation', h('span', { 'data-testid': 'flop-util' }, utilText(root.flop_utilization))],
      ['HBM bandwidth utilisation', h('span', { 'data-testid': 'hbm-util' }, utilText(root.hbm_bandwidth_utilization))],
    ]),
  );
}

function categories(v: OpProfileView): HTMLElement {
  const cats = v.by_category.children ?? [];
  const total = v.by_category.time_ms || 1;
  return panel(
    'Time by category',
    barList(
      cats.map((c, i) => ({
        label: c.name,
        fraction: c.time_ms / total,
        colour: PALETTE[i % PALETTE.length],
        value: `${formatMs(c.time_ms)} · ${formatPct((100 * c.time_ms) / total)}`,
      })),
      'Time by category',
    ),
  );
}

// XLA modules (jit_* programs) by time: which compiled function the time went to.
function programs(v: OpProfileView): HTMLElement {
  const list = v.by_program.children ?? [];
  const total = v.by_program.time_ms || 1;
  return panel(
    'Time by program',
    barList(
      list.map((p, i) => ({
        label: p.name,
        fraction: p.time_ms / total,
        colour: PALETTE[i % PALETTE.length],
        value: `${formatMs(p.time_ms)} · ${formatPct((100 * p.time_ms) / total)}`,
      })),
      'Time by program',
    ),
  );
}

interface OpRow {
  category: string;
  node: OpProfileNode;
  share: number;
}

function opTable(v: OpProfileView): HTMLElement {
  const total = v.by_category.time_ms || 1;
  const rows: OpRow[] = (v.by_category.children ?? []).flatMap((c) =>
    (c.children ?? []).map((node) => ({ category: c.name, node, share: (100 * node.self_time_ms) / total })),
  );
  return panel(
    'Ops',
    dataTable<OpRow>({
      label: 'Ops',
      rows,
      sort: { key: 'time', descending: true },
      filterPlaceholder: 'Filter by op or category',
      columns: [
        { key: 'category', title: 'Category', value: (r) => r.category },
        {
          key: 'op',
          title: 'Op',
          name: true,
          value: (r) => r.node.name,
          render: (r) => h('span', { title: r.node.xla?.expression || r.node.name }, r.node.name),
        },
        { key: 'count', title: 'Count', numeric: true, value: (r) => r.node.occurrences, render: (r) => formatCount(r.node.occurrences) },
        { key: 'time', title: 'Time', numeric: true, value: (r) => r.node.time_ms, render: (r) => formatMs(r.node.time_ms) },
        { key: 'share', title: '% of busy', numeric: true, value: (r) => r.share, render: (r) => formatPct(r.share) },
        {
          key: 'flop_util',
          title: 'FLOP util.',
          help: 'FLOPs / (time × peak FLOP rate), capped at 100% as XProf',
          numeric: true,
          value: (r) => r.node.flop_utilization,
          render: (r) => utilText(r.node.flop_utilization),
        },
        {
          key: 'hbm_util',
          title: 'HBM util.',
          help: 'HBM bytes / (time × peak HBM bandwidth), capped at 100% as XProf',
          numeric: true,
          value: (r) => r.node.hbm_bandwidth_utilization,
          render: (r) => utilText(r.node.hbm_bandwidth_utilization),
        },
        { key: 'bound_by', title: 'Bound by', value: (r) => r.node.bound_by },
        { key: 'source', title: 'Source', name: true, value: (r) => r.node.xla?.source ?? '' },
      ],
    }),
  );
}
