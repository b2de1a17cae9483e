// tf_data_bottleneck_analysis: per input pipeline, the iterator graph of its slowest
// execution with the critical path in bold, the bottleneck iterator and what to change.
import { h } from '../dom';
import { formatCount, formatMs } from '../format';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel } from '../components/panel';
import { toolHeader } from '../components/page_header';
import { richText } from '../components/rich_text';
import type { ToolPage } from './tool_page';

interface IteratorNode {
  long_name: string;
  type: string;
  is_async: boolean;
  parent: number;
  children: number[];
  calls: number;
  total_time_ms: number;
  self_time_ms: number;
  on_critical_path: boolean;
}

interface Pipeline {
  host: string;
  name: string;
  calls: number;
  slow_calls: number;
  avg_latency_ms: number;
  min_latency_ms: number;
  max_latency_ms: number;
  iterators: IteratorNode[];
  critical_path: number[];
  bottleneck: { iterator: string; type: string; self_time_ms: number; kind: string; suggestion: string } | null;
}

export interface TfDataBottleneckData {
  pipelines: Pipeline[];
  summary: { host: string; pipeline: string; max_latency_ms: number; bottleneck: string; suggestion: string } | null;
  note: string; // why no problem is raised (the steps are not input-bound), else empty
}

export const tfDataBottleneckPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<TfDataBottleneckData>();
    root.append(toolHeader(ctx));
    if (data.summary) {
      root.append(
        notice(
          'caution',
          h('strong', {}, `The slowest input pipeline (${data.summary.pipeline} on ${data.summary.host}) is held up by ${data.summary.bottleneck}. `),
          ...richText(data.summary.suggestion),
        ),
      );
    } else if (data.note) {
      root.append(notice('info', data.note));
    }
    root.append(
      panel('Pipelines', pipelineTable(data.pipelines)),
      ...data.pipelines.map((p) => pipelinePanel(p)),
    );
  },
};

function pipelineTable(pipelines: Pipeline[]): HTMLElement {
  return dataTable<Pipeline>({
    label: 'Input pipelines',
    rows: pipelines,
    columns: [
      { key: 'host', title: 'Host', value: (p) => p.host },
      { key: 'name', title: 'Pipeline', value: (p) => p.name },
      { key: 'calls', title: 'Calls', numeric: true, value: (p) => p.calls, render: (p) => formatCount(p.calls) },
      { key: 'slow_calls', title: 'Slow calls (> 50 µs)', numeric: true, value: (p) => p.slow_calls, render: (p) => formatCount(p.slow_calls) },
      { key: 'avg_latency_ms', title: 'Avg latency', numeric: true, value: (p) => p.avg_latency_ms, render: (p) => formatMs(p.avg_latency_ms) },
      { key: 'max_latency_ms', title: 'Max latency', numeric: true, value: (p) => p.max_latency_ms, render: (p) => formatMs(p.max_latency_ms) },
      { key: 'bottleneck', title: 'Bottleneck', value: (p) => p.bottleneck?.iterator ?? '' },
    ],
  });
}

function pipelinePanel(p: Pipeline): HTMLElement {
  const bottleneck = p.bottleneck?.iterator;
  return panel(
    `${p.name} on ${p.host}`,
    h(
      'div',
      { class: 'split' },
      h(
        'div',
        {},
        h('h3', {}, 'Iterator graph of the slowest call'),
        h('p', { class: 'muted small' }, 'The critical path is in bold; the bottleneck is marked.'),
        p.iterators.length ? h('ul', { class: 'iterator-tree', 'aria-label': `Iterator graph of ${p.name}` }, treeNode(p, 0, bottleneck)) : null,
      ),
      keyValueList([
        ['Calls', `${formatCount(p.calls)} (${formatCount(p.slow_calls)} slower than 50 µs)`],
        ['Latency', `${formatMs(p.avg_latency_ms)} average · ${formatMs(p.min_latency_ms)} – ${formatMs(p.max_latency_ms)}`],
        ['Bottleneck', p.bottleneck ? `${p.bottleneck.iterator} (${p.bottleneck.kind}, ${formatMs(p.bottleneck.self_time_ms)} self)` : 'none found'],
        ['Suggestion', p.bottleneck ? h('span', {}, ...richText(p.bottleneck.suggestion)) : '–'],
      ]),
    ),
  );
}

function treeNode(p: Pipeline, index: number, bottleneck: string | undefined): HTMLElement {
  const n = p.iterators[index];
  const isBottleneck = n.long_name === bottleneck;
  const label = h(
    'div',
    {
      class: `iterator${n.on_critical_path ? ' critical' : ''}${isBottleneck ? ' bottleneck' : ''}`,
      title: n.long_name,
      'data-critical': n.on_critical_path ? 'true' : undefined,
    },
    h('span', { class: 'iterator-type' }, n.type),
    n.is_async ? h('span', { class: 'tag' }, 'async') : null,
    isBottleneck ? h('span', { class: 'tag tag-warning' }, 'bottleneck') : null,
    h('span', { class: 'iterator-times muted' }, `${formatMs(n.self_time_ms)} self · ${formatMs(n.total_time_ms)} total · ${formatCount(n.calls)} call${n.calls === 1 ? '' : 's'}`),
  );
  const children = n.children.filter((c) => c >= 0 && c < p.iterators.length);
  return h('li', {}, label, children.length ? h('ul', {}, ...children.map((c) => treeNode(p, c, bottleneck))) : null);
}
