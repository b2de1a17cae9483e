// Tool id (XProf's names, from the registry in src/analysis/tool_registry.cc, which the
// sidebar lists through the API) -> the page that shows it. Tools without a page of their own
// still show, through the generic page. To add a tool's page: write a module exporting a
// ToolPage (see tool_page.ts) and add one line here.
import type { ToolPage } from './tool_page';
import { frameworkOpStatsPage } from './framework_op_stats_page';
import { genericPage } from './generic_page';
import { inputPipelinePage } from './input_pipeline_page';
import { memoryProfilePage } from './memory_profile_page';
import { kernelStatsPage } from './kernel_stats_page';
import { overviewPage } from './overview_page';
import { podViewerPage } from './pod_viewer_page';
import { tfDataBottleneckPage } from './tf_data_bottleneck_page';
import { traceViewerPage } from './trace_viewer_page';

const pages: Record<string, ToolPage> = {
  overview_page: overviewPage,
  input_pipeline_analyzer: inputPipelinePage,
  framework_op_stats: frameworkOpStatsPage,
  tf_data_bottleneck_analysis: tfDataBottleneckPage,
  memory_profile: memoryProfilePage,
  kernel_stats: kernelStatsPage,
  pod_viewer: podViewerPage,
  trace_viewer: traceViewerPage,
};

export function pageFor(tool: string): ToolPage {
  return pages[tool] ?? genericPage;
}
