// memory_profile (the seed's "Memory profile tool"): for one memory (allocator) at a time,
// the summary at the peak, the timeline of stack, heap and free memory with fragmentation
// (hover for the event behind a point), and the allocations alive at the peak by op, to
// debug out-of-memory errors and fragmentation.
import { h } from '../dom';
import { formatBytes, formatCount, formatMs, formatPct } from '../format';
import { dataTable } from '../components/data_table';
import { keyValueList, panel } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { memoryTimelineChart, type MemoryPoint } from '../charts/memory_timeline_chart';
import { traceLinkTo } from '../trace_link';
import type { PageContext, ToolPage } from './tool_page';
import './memory_profile_page.css';

interface MemorySummary {
  memory_id: string;
  num_allocs: number;
  num_deallocs: number;
  capacity_bytes: number; // 0 when the profile does not say the memory's size
  reserved_bytes: number; // a caching allocator's pool at the peak (PyTorch), else 0
  lifetime_peak_heap_bytes: number;
  peak_heap_bytes: number;
  peak_time_ms: number;
  peak_step: number;
  stack_bytes: number;
  heap_bytes: number;
  free_bytes: number;
  fragmentation_pct: number;
  live_allocations: number;
}

interface BreakdownRow {
  op: string;
  allocation_bytes: number;
  requested_bytes: number;
  occurrences: number;
  region_type: string;
  data_type: string;
  shape: string;
}

interface MemoryIdData {
  memory_id: string;
  summary: MemorySummary;
  timeline: MemoryPoint[];
  breakdown: BreakdownRow[];
}

export interface MemoryProfileData {
  memory_ids: MemoryIdData[];
}

export const memoryProfilePage: ToolPage = {
  async render(root, ctx) {
    // Every memory at once (small: the timeline has at most 1,000 points); the choice of one
    // stays in the URL as memory_id.
    const data = await ctx.fetchData<MemoryProfileData>({});
    const subtitle = `Run ${ctx.run} · ${ctx.host || 'all hosts'}`;
    if (data.memory_ids.length === 0) {
      root.append(toolHeader(ctx, subtitle), panel('No memory events', h('p', { class: 'muted' }, 'This profile holds no allocator events.')));
      return;
    }
    const selected = data.memory_ids.find((m) => m.memory_id === ctx.options.memory_id) ?? data.memory_ids[0];
    root.append(
      toolHeader(ctx, subtitle, memoryIdPicker(data, selected, ctx), csvButton(ctx, { memory_id: selected.memory_id }, 'Export breakdown as CSV')),
      h('div', { class: 'grid grid-summary' }, summaryPanel(selected.summary, ctx), timelinePanel(selected, ctx)),
      breakdownPanel(selected),
    );
  },
};

function memoryIdPicker(data: MemoryProfileData, selected: MemoryIdData, ctx: PageContext): HTMLElement {
  const select = h(
    'select',
    { id: 'memory-id-select', 'aria-label': 'Memory ID' },
    ...data.memory_ids.map((m) => h('option', { value: m.memory_id, selected: m === selected }, m.memory_id)),
  );
  select.addEventListener('change', () => ctx.setOption('memory_id', select.value));
  return h('label', { class: 'memory-id-picker', for: 'memory-id-select' }, 'Memory ID', select);
}

// The allocator's own event at a moment (the importers name every allocation so, §5.5).
const ALLOCATION_EVENT = 'MemoryAllocation';

function summaryPanel(s: MemorySummary, ctx: PageContext): HTMLElement {
  // The peak's moment links to the allocation that reached it, in the trace.
  const peakLink = traceLinkTo(ctx, { name: ALLOCATION_EVENT, atMs: s.peak_time_ms });
  const peakWhen = h(
    'span',
    {},
    'at ',
    h('a', { class: 'row-link peak-link', href: peakLink.href, title: peakLink.title }, formatMs(s.peak_time_ms)),
    s.peak_step >= 0 ? `, step ${s.peak_step}` : '',
  );
  return panel(
    'Memory profile summary',
    h(
      'div',
      { class: 'headline memory-peak' },
      h('span', { class: 'headline-value', 'data-testid': 'peak-memory' }, formatBytes(s.peak_heap_bytes)),
      h('span', { class: 'muted' }, 'peak memory in use, ', peakWhen),
    ),
    h('div', { 'data-testid': 'memory-summary' },
      keyValueList([
        ['Memory ID', s.memory_id],
        ['#Allocation', formatCount(s.num_allocs)],
        ['#Deallocation', formatCount(s.num_deallocs)],
        ['Memory capacity', s.capacity_bytes > 0 ? formatBytes(s.capacity_bytes) : 'unknown'],
        ...(s.reserved_bytes > 0 ? ([['Reserved by the caching allocator', formatBytes(s.reserved_bytes)]] as [string, string][]) : []),
        ['Peak heap usage (lifetime)', formatBytes(s.lifetime_peak_heap_bytes)],
        ['Stack reservation at the peak', formatBytes(s.stack_bytes)],
        ['Heap allocation at the peak', formatBytes(s.heap_bytes)],
        ['Free memory at the peak', formatBytes(s.free_bytes)],
        ['Fragmentation at the peak', formatPct(s.fragmentation_pct)],
      ]),
    ),
    h('p', { class: 'muted small' }, 'Fragmentation is the share of free memory outside the largest free chunk: (free − largest free chunk) / free.'),
  );
}

function timelinePanel(m: MemoryIdData, ctx: PageContext): HTMLElement {
  return panel(
    'Memory timeline',
    h('p', { class: 'muted small' }, 'Memory in use (left axis) and fragmentation (right axis); hover for the allocation or free behind a point. Click a legend entry to show or hide it.'),
    memoryTimelineChart(m.timeline, ctx.onDispose, { showFree: m.summary.capacity_bytes <= 4 * m.summary.peak_heap_bytes }),
  );
}

function breakdownPanel(m: MemoryIdData): HTMLElement {
  const bytes = (key: 'allocation_bytes' | 'requested_bytes', title: string) => ({
    key,
    title,
    numeric: true,
    value: (r: BreakdownRow) => r[key],
    render: (r: BreakdownRow) => formatBytes(r[key]),
  });
  return panel(
    `Memory breakdown at the peak (${formatCount(m.summary.live_allocations)} allocations alive)`,
    dataTable<BreakdownRow>({
      label: 'Memory breakdown',
      rows: m.breakdown,
      sort: { key: 'allocation_bytes', descending: true },
      filterPlaceholder: 'Filter by op name',
      filterable: true,
      emptyText: 'Nothing was allocated at the peak',
      columns: [
        { key: 'op', title: 'Op name', value: (r) => r.op, name: true },
        bytes('allocation_bytes', 'Allocation size'),
        bytes('requested_bytes', 'Requested size'),
        {
          key: 'occurrences',
          title: 'Occurrences',
          help: 'Allocations of this op alive at the peak ("–": allocated before the profile, count unknown)',
          numeric: true,
          value: (r) => r.occurrences,
          render: (r) => (r.occurrences > 0 ? formatCount(r.occurrences) : '–'),
        },
        { key: 'region_type', title: 'Region type', value: (r) => r.region_type },
        { key: 'data_type', title: 'Data type', value: (r) => r.data_type },
        { key: 'shape', title: 'Shape', value: (r) => r.shape },
      ],
    }),
  );
}
