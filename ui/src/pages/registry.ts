// Tool id (XProf's names, from the registry in src/analysis/tool_registry.cc, which the
// sidebar lists through the API) -> the page that shows it. Tools without a page of their own
// still show, through the generic page. To add a tool's page: write a module exporting a
// ToolPage (see tool_page.ts) and add one line here, and one to ToolData if it reads the
// tool's JSON.
import type { ToolPage } from './tool_page';
import { criticalPathPage, type CriticalPathData } from './critical_path_page';
import { frameworkOpStatsPage, type FrameworkOpStatsData } from './framework_op_stats_page';
import { genericPage } from './generic_page';
import { hloStatsPage, type HloStatsData } from './hlo_stats_page';
import { gpuTimelinePage, type GpuTimelineData } from './gpu_timeline_page';
import { stragglersPage, type StragglersData } from './gpu_timeline_page';
import { inputPipelinePage, type InputPipelineData } from './input_pipeline_page';
import { memoryProfilePage, type MemoryProfileData } from './memory_profile_page';
import { kernelStatsPage, type KernelStatsData } from './kernel_stats_page';
import { opProfilePage, type OpProfileData } from './op_profile_page';
import { overviewPage, type OverviewData } from './overview_page';
import { podViewerPage, type PodViewerData } from './pod_viewer_page';
import { rooflineModelPage, type RooflineModelData } from './roofline_model_page';
import { tfDataBottleneckPage, type TfDataBottleneckData } from './tf_data_bottleneck_page';
import { traceViewerPage } from './trace_viewer_page';

const pages: Record<string, ToolPage> = {
  overview_page: overviewPage,
  critical_path: criticalPathPage,
  input_pipeline_analyzer: inputPipelinePage,
  framework_op_stats: frameworkOpStatsPage,
  tf_data_bottleneck_analysis: tfDataBottleneckPage,
  memory_profile: memoryProfilePage,
  kernel_stats: kernelStatsPage,
  pod_viewer: podViewerPage,
  gpu_time_breakdown: gpuTimelinePage,
  gpu_idle_time: gpuTimelinePage,
  comm_compute_overlap: gpuTimelinePage,
  kernel_launch_stats: gpuTimelinePage,
  gpu_queue_length: gpuTimelinePage,
  stragglers: stragglersPage,
  op_profile: opProfilePage,
  hlo_stats: hloStatsPage,
  roofline_model: rooflineModelPage,
  trace_viewer: traceViewerPage,
};

// The JSON each page reads (its fetchData type), by tool id: the TypeScript side of the tool's
// JSON contract. tests/server/tool_json_contract.test.mjs type-checks what the server answers
// for every tool on fixture and real profiles against these types, so a key a page reads and
// the tool's to_json (src/analysis) does not write fails the build's tests.
export interface ToolData {
  overview_page: OverviewData;
  critical_path: CriticalPathData;
  input_pipeline_analyzer: InputPipelineData;
  framework_op_stats: FrameworkOpStatsData;
  tf_data_bottleneck_analysis: TfDataBottleneckData;
  memory_profile: MemoryProfileData;
  kernel_stats: KernelStatsData;
  pod_viewer: PodViewerData;
  gpu_time_breakdown: GpuTimelineData;
  gpu_idle_time: GpuTimelineData;
  comm_compute_overlap: GpuTimelineData;
  kernel_launch_stats: GpuTimelineData;
  gpu_queue_length: GpuTimelineData;
  stragglers: StragglersData;
  op_profile: OpProfileData;
  hlo_stats: HloStatsData;
  roofline_model: RooflineModelData;
}

export function pageFor(tool: string): ToolPage {
  return pages[tool] ?? genericPage;
}
