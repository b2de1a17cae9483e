// kernel_stats: the GPU kernels, one row per launch configuration and op, with whether each
// ran on Tensor Cores and whether its op could have; a summary says how much kernel time is
// in ops that could use Tensor Cores but did not.
import { h } from '../dom';
import { formatBytes, formatCount, formatMs, formatPct, formatUs } from '../format';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel, windowCaption } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { traceLinkTo } from '../trace_link';
import type { PageContext, ToolPage } from './tool_page';

interface KernelRow {
  rank: number;
  kernel_name: string;
  op_name: string;
  grid: number[];
  block: number[];
  registers_per_thread: number;
  static_shared_memory_bytes: number;
  dynamic_shared_memory_bytes: number;
  occupancy_pct: number | null;
  occurrences: number;
  total_duration_us: number;
  avg_duration_us: number;
  min_duration_us: number;
  max_duration_us: number;
  total_time_pct: number;
  uses_tensor_cores: boolean;
  op_is_tensor_core_eligible: boolean;
}

export interface KernelStatsData {
  summary: {
    kernel_launches: number;
    distinct_kernels: number;
    total_kernel_time_ms: number;
    tensor_core_time_pct: number;
    tensor_core_eligible_time_pct: number;
    eligible_without_tensor_cores_time_pct: number;
    window: string;
  };
  kernels: KernelRow[];
}

// Above this share of kernel time in eligible ops without Tensor Cores, the page says so.
const kMissedTensorCoresPct = 10;

export const kernelStatsPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<KernelStatsData>();
    root.append(toolHeader(ctx, null, csvButton(ctx)));
    if (data.kernels.length === 0) {
      root.append(notice('info', 'This profile has no GPU kernels.'));
      return;
    }
    root.append(summary(data), panel('Kernels', kernelTable(data.kernels, ctx)));
  },
};


function summary(data: KernelStatsData): HTMLElement {
  const s = data.summary;
  const missed = s.eligible_without_tensor_cores_time_pct;
  const advice =
    missed >= kMissedTensorCoresPct
      ? notice(
          'caution',
          `${formatPct(missed)} of kernel time is in ops that could use Tensor Cores but whose kernels did not. ` +
            'Try mixed precision (float16 or bfloat16), or TF32 on Ampere and later, and sizes that are multiples of 8.',
        )
      : null;
  return panel(
    'Summary',
    windowCaption(s.window),
    advice,
    keyValueList([
      ['Kernel launches', formatCount(s.kernel_launches)],
      ['Distinct kernels', formatCount(s.distinct_kernels)],
      ['Total kernel time', formatMs(s.total_kernel_time_ms)],
      ['Time on Tensor Cores', h('span', { 'data-testid': 'tensor-core-pct' }, formatPct(s.tensor_core_time_pct))],
      ['Time in ops that could use Tensor Cores', formatPct(s.tensor_core_eligible_time_pct)],
      ['…of which without Tensor Cores', formatPct(missed)],
    ]),
  );
}

const dims = (d: number[]) => d.join('×');
// Templated kernels have names thousands of characters long: shortened as the CLI does, where
// they differ, the whole name on hover (and in the filter).
const kShownNameLength = 38;
const yesNo = (v: boolean) => (v ? 'Yes' : 'No');

function kernelTable(rows: KernelRow[], ctx: PageContext): HTMLElement {
  // One kernel launched with several shapes has a row per launch shape: those rows say theirs
  // under the name (the launch column is hidden by default), so they do not read as repeats.
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const r of rows) (seen.has(r.kernel_name) ? repeated : seen).add(r.kernel_name);
  const launchOf = (r: KernelRow) => (repeated.has(r.kernel_name) ? `grid ${dims(r.grid)} · block ${dims(r.block)}` : undefined);
  const duration = (key: 'total_duration_us' | 'avg_duration_us' | 'min_duration_us' | 'max_duration_us', title: string) => ({
    key,
    title,
    numeric: true,
    value: (r: KernelRow) => r[key],
    render: (r: KernelRow) => formatUs(r[key]),
  });
  return dataTable<KernelRow>({
    label: 'Kernels',
    rows,
    sort: { key: 'rank', descending: false },
    filterPlaceholder: 'Filter by kernel or op',
    filterable: true,
    columns: [
      { key: 'rank', title: 'Rank', numeric: true, value: (r) => r.rank },
      { key: 'kernel_name', title: 'Kernel', name: true, shorten: kShownNameLength, value: (r) => r.kernel_name, link: (r) => traceLinkTo(ctx, { name: r.kernel_name }), aside: launchOf },
      { key: 'op_name', title: 'Op', name: true, value: (r) => r.op_name, render: (r) => r.op_name || '–', link: (r) => (r.op_name ? traceLinkTo(ctx, { name: r.op_name }) : undefined) },
      { key: 'occurrences', title: 'Count', numeric: true, value: (r) => r.occurrences, render: (r) => formatCount(r.occurrences) },
      duration('total_duration_us', 'Total'),
      duration('avg_duration_us', 'Avg'),
      { ...duration('min_duration_us', 'Min'), optional: true },
      { ...duration('max_duration_us', 'Max'), optional: true },
      { key: 'total_time_pct', title: '% of time', help: 'Of all kernel time', numeric: true, value: (r) => r.total_time_pct, render: (r) => formatPct(r.total_time_pct) },
      {
        key: 'uses_tensor_cores',
        title: 'Tensor Cores',
        help: 'The kernel ran on Tensor Cores (by its name)',
        value: (r) => yesNo(r.uses_tensor_cores),
      },
      {
        key: 'op_is_tensor_core_eligible',
        optional: true,
        title: 'Op eligible',
        help: 'The op could use Tensor Cores: convolutions, matrix products, recurrent cells',
        value: (r) => yesNo(r.op_is_tensor_core_eligible),
      },
      {
        key: 'launch',
        optional: true,
        title: 'Grid / block',
        help: 'Blocks in the grid and threads in a block (x×y×z)',
        value: (r) => `${dims(r.grid)} / ${dims(r.block)}`,
      },
      { key: 'registers_per_thread', optional: true, title: 'Registers', help: 'Per thread', numeric: true, value: (r) => r.registers_per_thread },
      {
        key: 'shared_memory',
        optional: true,
        title: 'Shared memory',
        help: 'Static + dynamic, per block',
        numeric: true,
        value: (r) => r.static_shared_memory_bytes + r.dynamic_shared_memory_bytes,
        render: (r) => `${formatBytes(r.static_shared_memory_bytes)} + ${formatBytes(r.dynamic_shared_memory_bytes)}`,
      },
      {
        key: 'occupancy_pct',
        optional: true,
        title: 'Occupancy',
        help: 'Theoretical occupancy of the launch, where the profile gives it',
        numeric: true,
        value: (r) => r.occupancy_pct ?? -1,
        render: (r) => formatPct(r.occupancy_pct),
      },
    ],
  });
}
