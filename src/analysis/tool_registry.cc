#include "analysis/tool_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <future>

#include "analysis/critical_path/critical_path.h"
#include "analysis/gpu_timeline/collectives.h"
#include "analysis/device_chips.h"
#include "analysis/framework_op_stats.h"
#include "analysis/op_stats_ranks.h"
#include "analysis/gpu_timeline/gpu_timeline_tools.h"
#include "analysis/hlo_ops.h"
#include "analysis/hlo_stats.h"
#include "analysis/host_summary.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/memory_profile.h"
#include "analysis/memory_profile_events.h"
#include "analysis/op_profile.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/roofline_model.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/trace_viewer/trace_viewer_link.h"

namespace mlprof::analysis {
namespace {

// Tools whose compute reads the profile alone, or the profile and its steps.
template <class Result, Result (*compute)(const model::Profile&)>
ToolResult of_profile(const AnalyzedProfile& p, const ToolOptionValues&) {
  return ToolResult::owned(compute(p.profile()));
}
template <class Result, Result (*compute)(const model::Profile&, const StepAnalysis&)>
ToolResult of_steps(const AnalyzedProfile& p, const ToolOptionValues&) {
  return ToolResult::owned(compute(p.profile(), p.steps()));
}

bool is_true(const ToolOptionValues& options, const std::string& name) {
  auto it = options.find(name);
  return it != options.end() && (it->second == "1" || it->second == "true");
}

bool has_events(const AnalyzedProfile& p) { return p.profile().num_events() > 0; }
constexpr std::string_view kNoEvents = "The profile has no events.";
constexpr std::string_view kRecordEvents =
    "Record while the program runs its steps: an mlprof::Profile session, MLPROF_LOGDIR=DIR, or mlprof capture "
    "for a running program.";

// overview_page: reads the analyses the other tools share. The op stats do not need the steps:
// they are made on a second core meanwhile (or here after them, when no thread can start).
ToolResult overview(const AnalyzedProfile& p, const ToolOptionValues&) {
  auto op_stats = std::async(std::launch::async | std::launch::deferred, [&p] { return &p.op_stats(); });
  const StepAnalysis& steps = p.steps();
  const TfDataBottleneckAnalysis& tf_data = p.tf_data();
  OverviewPage page = compute_overview_page(p.profile(), steps, *op_stats.get(), tf_data);
  page.chips = compute_device_chips(p.profile());
  add_chip_advice(page);
  return ToolResult::owned(std::move(page));
}
ToolResult overview_of_summary(const RunSummary& s, const ToolOptionValues&) {
  OverviewPage page = compose_overview_page(s.overview_parts());
  page.chips = s.chips();
  add_chip_advice(page);
  return ToolResult::owned(std::move(page));
}
// The stragglers among its recommendations read the pod's per-rank steps (of a run of several
// hosts); the top ops, the op totals.
constexpr SummaryForm kOverviewSummary{kOverview | kPodHostsOfRanks | kOpTotals, overview_of_summary};

// framework_op_stats
ToolResult op_stats(const AnalyzedProfile& p, const ToolOptionValues& options) {
  FrameworkOpStatsOptions o;
  o.include_idle = is_true(options, "include_idle");
  FrameworkOpStats stats = o.include_idle ? compute_framework_op_stats(p.profile(), o) : p.op_stats();
  stats.ranks = op_stats_rank_rows(p.profile());
  return ToolResult::owned(std::move(stats));
}
ToolResult op_stats_of_summary(const RunSummary& s, const ToolOptionValues& options) {
  FrameworkOpStatsOptions o;
  o.include_idle = is_true(options, "include_idle");
  FrameworkOpStats stats = finish_op_stats(s.op_totals(), o);
  stats.ranks = s.op_stats_ranks();
  return ToolResult::owned(std::move(stats));
}
constexpr SummaryForm kOpStatsSummary{kOpTotals, op_stats_of_summary};
bool has_ops(const AnalyzedProfile& p) { return !p.op_stats().rows.empty(); }
constexpr ToolOption kOpStatsOptions[] = {{.name = "include_idle", .help = "add idle time as an op", .is_flag = true}};

// tf_data_bottleneck_analysis
ToolResult tf_data(const AnalyzedProfile& p, const ToolOptionValues&) { return ToolResult::kept(p.tf_data()); }
bool has_pipelines(const AnalyzedProfile& p) { return !p.tf_data().pipelines.empty(); }

// pod_viewer: workers side by side, for a run with several hosts or a host with several chips
// (each chip a row of its own, device_chips.h); the stragglers need several hosts.
bool has_several_hosts(const AnalyzedProfile& p) { return p.profile().hosts.size() > 1 && has_events(p); }
bool has_several_hosts_or_chips(const AnalyzedProfile& p) {
  const model::Profile& profile = p.profile();
  if (!has_events(p)) return false;
  if (profile.hosts.size() > 1) return true;
  // Per-chip rows are made of XLA's ops (device_chips.h).
  size_t devices = 0;
  for (const model::Plane& plane : profile.planes) devices += plane.kind == model::PlaneKind::kDevice;
  return devices > 1 && has_hlo_ops(profile);
}
ToolResult pod_viewer_tool(const AnalyzedProfile& p, const ToolOptionValues&) {
  PodViewer pod = compute_pod_viewer(p.profile(), p.steps());
  pod.chips = compute_device_chips(p.profile());
  return ToolResult::owned(std::move(pod));
}
ToolResult pod_viewer_of_summary(const RunSummary& s, const ToolOptionValues&) {
  PodViewer pod = compute_pod_viewer(s.pod(), s.whole_profile());
  pod.chips = s.chips();
  return ToolResult::owned(std::move(pod));
}
constexpr SummaryForm kPodViewerSummary{kPodHosts, pod_viewer_of_summary};
// stragglers: from the same per-host steps and collective calls, so many ranks are read one
// file at a time.
ToolResult stragglers_of_summary(const RunSummary& s, const ToolOptionValues&) {
  std::vector<RankSteps> ranks;
  for (const PodHost& host : s.pod()) ranks.push_back(host.rank);
  return ToolResult::owned(compute_stragglers(ranks));
}
constexpr SummaryForm kStragglersSummary{kPodHosts, stragglers_of_summary};

// memory_profile: for profiles with allocator events.
ToolResult memory_profile(const AnalyzedProfile& p, const ToolOptionValues& options) {
  MemoryProfileOptions o;
  if (auto it = options.find("memory_id"); it != options.end()) o.memory_id = it->second;
  if (auto it = options.find("filter"); it != options.end()) o.breakdown_filter = it->second;
  if (auto it = options.find("sort"); it != options.end()) o.breakdown_sort = it->second;
  MemoryProfile memory = compute_memory_profile(p.profile(), o);
  if (memory.memory_ids.empty() && !o.memory_id.empty())
    throw ToolRequestError("memory_id", fmt::format("no memory \"{}\" in this profile (leave out {{option}} to list "
                                                    "the memories)", o.memory_id));
  return ToolResult::owned(std::move(memory));
}
bool has_memory(const AnalyzedProfile& p) { return has_memory_events(p.profile()); }
constexpr std::string_view kMemorySorts[] = {"allocation", "requested", "occurrences", "op"};
constexpr ToolOption kMemoryOptions[] = {
    {.name = "memory_id", .help = "one memory (allocator) only"},
    {.name = "sort", .help = "order of the breakdown at the peak", .choices = kMemorySorts},
    {.name = "filter", .help = "breakdown rows whose op contains this text"},
};

// kernel_stats: for profiles with GPU streams.
ToolResult kernel_stats_of_summary(const RunSummary& s, const ToolOptionValues&) {
  return ToolResult::owned(s.kernel_stats());
}
constexpr SummaryForm kKernelStatsSummary{kKernelRows, kernel_stats_of_summary};
bool has_kernels(const AnalyzedProfile& p) {
  const model::Profile& profile = p.profile();
  for (const model::Line& line : profile.lines)
    if (line.kind == model::LineKind::kStream && line.num_events > 0 &&
        profile.planes[line.plane].kind == model::PlaneKind::kDevice)
      return true;
  return false;
}

constexpr std::string_view kNoGpuWork = "No GPU kernels were found.";
constexpr std::string_view kRecordGpuWork =
    "These tools read a GPU's streams: mlprof records NVIDIA kernels and their launches through CUPTI, PyTorch's "
    "profiler with ProfilerActivity.CUDA (also on ROCm). A TPU's work is in the overview, the framework op stats "
    "and the trace viewer.";

// op_profile, hlo_stats, roofline_model: XLA's ops on TPUs and GPUs (hlo_ops.h).
bool has_xla_ops(const AnalyzedProfile& p) { return has_hlo_ops(p.profile()); }
constexpr std::string_view kNoXlaOps = "No XLA ops were found.";
constexpr std::string_view kRecordXlaOps =
    "Profile a JAX or TensorFlow program compiled by XLA on a TPU or GPU (jax.profiler.trace, "
    "tf.profiler.experimental.start): its device planes carry the XLA Ops line.";
ToolResult hlo_stats_tool(const AnalyzedProfile& p, const ToolOptionValues& options) {
  std::optional<uint32_t> device;
  if (auto it = options.find("device"); it != options.end() && !it->second.empty() && it->second != "all") {
    uint32_t n = 0;
    auto r = std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
    if (r.ec != std::errc() || r.ptr != it->second.data() + it->second.size())
      throw ToolRequestError("device", "option '{option}' takes a device number (the n of /device:TPU:n) or all, "
                                       "not '" + it->second + "'");
    device = n;
  }
  HloStats stats = compute_hlo_stats(collect_hlo_ops(p.profile()), device);
  if (device && stats.num_devices == 0)
    throw ToolRequestError("device", fmt::format("no device {} ran XLA ops in this profile", *device));
  return ToolResult::owned(std::move(stats));
}
constexpr ToolOption kHloStatsOptions[] = {{.name = "device", .help = "one device's ops (its number), or all"}};

// collectives: NCCL kernels, or a CPU job's gloo ops, with their sizes where PyTorch records them.
bool has_collectives(const AnalyzedProfile& p) { return !compute_collectives(p.profile()).rows.empty(); }

// critical_path: the steps' longest chain of dependent work and what-if predictions.
ToolResult critical_path_tool(const AnalyzedProfile& p, const ToolOptionValues& options) {
  auto it = options.find("what_if");
  const std::vector<WhatIfChange> changes = it == options.end() ? std::vector<WhatIfChange>{} : parse_what_ifs(it->second);
  return ToolResult::owned(compute_critical_path(p.profile(), p.steps(), changes));
}
constexpr ToolOption kCriticalPathOptions[] = {
    {.name = "what_if",
     .help = "TARGET=SCALE: the step time if the work of TARGET (a kind such as input or device_compute, a step "
             "category such as host_compute, or an op or kernel name) took SCALE (0..1) of its time; repeatable",
     .repeatable = true}};

// The registry: one line per tool, in the order the UI lists them.
const Tool kTools[] = {
    {"overview_page", "Overview", has_events, kNoEvents, kRecordEvents, {}, overview, &kOverviewSummary},
    {"critical_path", "Critical path", has_events, kNoEvents, kRecordEvents, kCriticalPathOptions, critical_path_tool},
    {"input_pipeline_analyzer", "Input pipeline", has_events, kNoEvents, kRecordEvents, {},
     of_steps<InputPipelineAnalysis, compute_input_pipeline_analysis>},
    {"framework_op_stats", "Framework op stats", has_ops, "No ops were found.",
     "Ops are the events of the host threads and devices: mark the program's work with mlprof::Trace, or "
     "profile a framework that records its ops.",
     kOpStatsOptions, op_stats, &kOpStatsSummary},
    {"tf_data_bottleneck_analysis", "Input pipeline bottleneck", has_pipelines, "No input pipelines were found.",
     "Name the input stages tf.data-style, e.g. Iterator::Prefetch on the training thread and "
     "Iterator::Prefetch::Map::FileRead on loader threads.",
     {}, tf_data},
    {"kernel_stats", "Kernel stats", has_kernels, "No GPU kernels were found.", kRecordGpuWork,
     {}, of_profile<KernelStatsTable, compute_kernel_stats>, &kKernelStatsSummary},
    {"pod_viewer", "Pod viewer", has_several_hosts_or_chips, "The run has one host.",
     "Profile every worker into the same run (one <host>.xplane.pb each), e.g. mlprof capture with the addresses "
     "of all workers.",
     {}, pod_viewer_tool, &kPodViewerSummary},
    // The GPU timeline (gpu_timeline_tools.h): Holistic Trace Analysis' and Nsight's questions.
    {"gpu_time_breakdown", "GPU time breakdown", has_kernels, kNoGpuWork, kRecordGpuWork, kGpuTimelineOptions,
     gpu_time_breakdown_tool},
    {"gpu_idle_time", "GPU idle time", has_kernels, kNoGpuWork, kRecordGpuWork, kGpuTimelineOptions, gpu_idle_time_tool},
    {"comm_compute_overlap", "Communication overlap", has_kernels, kNoGpuWork, kRecordGpuWork, kGpuTimelineOptions,
     comm_compute_overlap_tool},
    {"kernel_launch_stats", "Kernel launches", has_kernels, kNoGpuWork, kRecordGpuWork, kGpuTimelineOptions,
     kernel_launch_stats_tool},
    {"gpu_queue_length", "GPU queue length", has_kernels, kNoGpuWork, kRecordGpuWork, kGpuTimelineOptions,
     gpu_queue_length_tool},
    {"stragglers", "Stragglers", has_several_hosts, "The run has one host.",
     "Profile every rank into the same run (one trace or <host>.xplane.pb per rank), with step markers "
     "(PyTorch's ProfilerStep, mlprof::StepTrace).",
     {}, stragglers_tool, &kStragglersSummary},
    {"collectives", "Collectives", has_collectives, "No collective calls were found.",
     "Profile a torch.distributed job: NCCL kernels on the GPU, or gloo's ops on the CPU; PyTorch records "
     "message sizes and process groups (record_param_comms).",
     {}, collectives_tool},
    {"memory_profile", "Memory profile", has_memory, "No memory events were found.",
     "mlprof records allocator events (mlprof::record_allocation and LibTorch's allocator) at host tracer level 3 "
     "(MLPROF_HOST_TRACER_LEVEL=3); PyTorch's profiler writes them with profile_memory=True.",
     kMemoryOptions, memory_profile},
    {"op_profile", "Op profile", has_xla_ops, kNoXlaOps, kRecordXlaOps, {},
     of_profile<OpProfile, compute_op_profile>},
    {"hlo_stats", "HLO op stats", has_xla_ops, kNoXlaOps, kRecordXlaOps, kHloStatsOptions, hlo_stats_tool},
    {"roofline_model", "Roofline model", has_xla_ops, kNoXlaOps, kRecordXlaOps, {},
     of_profile<RooflineModel, compute_roofline_model>},
    {"trace_viewer", "Trace viewer", has_events, kNoEvents, kRecordEvents, {},
     of_profile<TraceViewerLink, compute_trace_viewer_link>},
};

void check_option(const Tool& tool, const std::string& name, const std::string& value) {
  for (const ToolOption& o : tool.options) {
    if (o.name != name) continue;
    if (o.is_flag && !(value == "1" || value == "true" || value == "0" || value == "false" || value.empty()))
      throw ToolRequestError(name, "option '{option}' takes 1 or 0, not '" + value + "'");
    if (!o.choices.empty() && std::find(o.choices.begin(), o.choices.end(), value) == o.choices.end())
      throw ToolRequestError(name, "option '{option}' takes " + spoken_list(o.choices) + ", not '" + value + "'");
    return;
  }
  throw ToolRequestError(name, "tool '" + std::string(tool.id) + "' has no option '{option}'");
}

// `problem` with "{option}" replaced by `option`.
std::string naming(std::string problem, std::string_view option) {
  constexpr std::string_view kPlace = "{option}";
  for (size_t at = problem.find(kPlace); at != std::string::npos; at = problem.find(kPlace, at + option.size()))
    problem.replace(at, kPlace.size(), option);
  return problem;
}

}  // namespace

ToolRequestError::ToolRequestError(std::string_view option, std::string problem)
    : std::runtime_error(naming(problem, option)), option_(option), problem_(std::move(problem)) {}

std::string ToolRequestError::worded_for(std::string (*spell)(std::string_view option)) const {
  return problem_.empty() ? what() : naming(problem_, spell(option_));
}

std::span<const Tool> tools() { return kTools; }

const Tool* find_tool(std::string_view id) {
  for (const Tool& t : kTools)
    if (t.id == id) return &t;
  return nullptr;
}

std::string tool_ids() {
  std::string out;
  for (const Tool& t : kTools) out += (out.empty() ? "" : ", ") + std::string(t.id);
  return out;
}

std::string spoken_list(std::span<const std::string_view> items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + std::string(items[i]);
  return out;
}

void check_options(const Tool& tool, const ToolOptionValues& options) {
  for (const auto& [name, value] : options) check_option(tool, name, value);
}

ToolResult run_tool(const Tool& tool, const AnalyzedProfile& profile, const ToolOptionValues& options) {
  check_options(tool, options);
  return tool.compute(profile, options);
}

ToolResult run_tool(const Tool& tool, const RunSummary& summary, const ToolOptionValues& options) {
  if (!tool.reads_summaries()) throw std::logic_error("tool " + std::string(tool.id) + " reads every event");
  check_options(tool, options);
  return tool.from_summary->compute(summary, options);
}

}  // namespace mlprof::analysis
