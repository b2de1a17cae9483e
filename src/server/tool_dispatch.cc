#include "server/tool_dispatch.h"

#include <array>

#include "analysis/framework_op_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/memory_profile.h"
#include "analysis/memory_profile_events.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "server/tool_backend.h"

namespace mlprof::server {
namespace {

// Profiles may hold names that are not valid UTF-8: replace those bytes rather than fail.
std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

bool bool_option(const ToolOptionValues& options, const std::string& name) {
  auto it = options.find(name);
  if (it == options.end()) return false;
  if (it->second == "1" || it->second == "true") return true;
  if (it->second == "0" || it->second == "false" || it->second.empty()) return false;
  throw QueryError(400, "option '" + name + "' takes 1 or 0, not '" + it->second + "'");
}

bool always(const AnalyzedProfile& p) { return p.profile().num_events() > 0; }

// overview_page
analysis::OverviewPage overview(const AnalyzedProfile& p) {
  return analysis::compute_overview_page(p.profile(), p.steps(), p.op_stats(), p.tf_data());
}
std::string overview_json(const AnalyzedProfile& p, const ToolOptionValues&) { return dump(to_json(overview(p))); }
std::string overview_csv(const AnalyzedProfile& p, const ToolOptionValues&) { return to_csv(overview(p)); }

// input_pipeline_analyzer
analysis::InputPipelineAnalysis input_pipeline(const AnalyzedProfile& p) {
  return analysis::compute_input_pipeline_analysis(p.profile(), p.steps());
}
std::string input_pipeline_json(const AnalyzedProfile& p, const ToolOptionValues&) {
  return dump(to_json(input_pipeline(p)));
}
std::string input_pipeline_csv(const AnalyzedProfile& p, const ToolOptionValues&) { return to_csv(input_pipeline(p)); }

// framework_op_stats
analysis::FrameworkOpStats op_stats(const AnalyzedProfile& p, const ToolOptionValues& options) {
  analysis::FrameworkOpStatsOptions o;
  o.include_idle = bool_option(options, "include_idle");
  return o.include_idle ? analysis::compute_framework_op_stats(p.profile(), o) : p.op_stats();
}
bool has_ops(const AnalyzedProfile& p) { return !p.op_stats().rows.empty(); }
std::string op_stats_json(const AnalyzedProfile& p, const ToolOptionValues& o) { return dump(to_json(op_stats(p, o))); }
std::string op_stats_csv(const AnalyzedProfile& p, const ToolOptionValues& o) { return to_csv(op_stats(p, o)); }
constexpr std::array<std::string_view, 1> kOpStatsOptions = {"include_idle"};

// tf_data_bottleneck_analysis
bool has_pipelines(const AnalyzedProfile& p) { return !p.tf_data().pipelines.empty(); }
std::string tf_data_json(const AnalyzedProfile& p, const ToolOptionValues&) { return dump(to_json(p.tf_data())); }
std::string tf_data_csv(const AnalyzedProfile& p, const ToolOptionValues&) { return to_csv(p.tf_data()); }

// pod_viewer: workers side by side, for a run with several hosts
bool has_several_hosts(const AnalyzedProfile& p) { return p.profile().hosts.size() > 1 && always(p); }
std::string pod_viewer_json(const AnalyzedProfile& p, const ToolOptionValues&) {
  return dump(to_json(analysis::compute_pod_viewer(p.profile(), p.steps())));
}
std::string pod_viewer_csv(const AnalyzedProfile& p, const ToolOptionValues&) {
  return to_csv(analysis::compute_pod_viewer(p.profile(), p.steps()));
}

// memory_profile: for profiles with allocator events
analysis::MemoryProfile memory_profile(const AnalyzedProfile& p, const ToolOptionValues& options) {
  analysis::MemoryProfileOptions o;
  if (auto it = options.find("memory_id"); it != options.end()) o.memory_id = it->second;
  if (auto it = options.find("filter"); it != options.end()) o.breakdown_filter = it->second;
  if (auto it = options.find("sort"); it != options.end()) {
    if (!analysis::is_memory_breakdown_sort(it->second))
      throw QueryError(400, "option 'sort' takes allocation, requested, occurrences or op, not '" + it->second + "'");
    o.breakdown_sort = it->second;
  }
  return analysis::compute_memory_profile(p.profile(), o);
}
bool has_memory(const AnalyzedProfile& p) { return analysis::has_memory_events(p.profile()); }
std::string memory_json(const AnalyzedProfile& p, const ToolOptionValues& o) { return dump(to_json(memory_profile(p, o))); }
std::string memory_csv(const AnalyzedProfile& p, const ToolOptionValues& o) { return to_csv(memory_profile(p, o)); }
constexpr std::array<std::string_view, 3> kMemoryOptions = {"memory_id", "sort", "filter"};

// kernel_stats: for profiles with GPU streams
bool has_kernels(const AnalyzedProfile& p) {
  const model::Profile& profile = p.profile();
  for (const model::Line& line : profile.lines)
    if (line.kind == model::LineKind::kStream && line.num_events > 0 &&
        profile.planes[line.plane].kind == model::PlaneKind::kDevice)
      return true;
  return false;
}
std::string kernel_stats_json(const AnalyzedProfile& p, const ToolOptionValues&) {
  return dump(to_json(analysis::compute_kernel_stats(p.profile())));
}
std::string kernel_stats_csv(const AnalyzedProfile& p, const ToolOptionValues&) {
  return to_csv(analysis::compute_kernel_stats(p.profile()));
}

// trace_viewer: the page reads the timeline from /api/trace (trace_endpoint.h); the tool's own
// JSON only says where.
std::string trace_viewer_json(const AnalyzedProfile& p, const ToolOptionValues&) {
  return dump({{"api", "/api/trace"}, {"num_events", p.profile().num_events()}});
}
// A timeline has no table form: say where the events can be had instead of an empty CSV.
std::string trace_viewer_csv(const AnalyzedProfile&, const ToolOptionValues&) {
  throw QueryError(400, "trace_viewer has no CSV form: use /api/trace, or mlprof convert --to chrome|perfetto");
}

const ToolEntry kTools[] = {
    {"overview_page", "Overview", always, overview_json, overview_csv, {}},
    {"input_pipeline_analyzer", "Input pipeline", always, input_pipeline_json, input_pipeline_csv, {}},
    {"framework_op_stats", "Framework op stats", has_ops, op_stats_json, op_stats_csv, kOpStatsOptions},
    {"tf_data_bottleneck_analysis", "Input pipeline bottleneck", has_pipelines, tf_data_json, tf_data_csv, {}},
    {"kernel_stats", "Kernel stats", has_kernels, kernel_stats_json, kernel_stats_csv, {}},
    {"pod_viewer", "Pod viewer", has_several_hosts, pod_viewer_json, pod_viewer_csv, {}},
    {"memory_profile", "Memory profile", has_memory, memory_json, memory_csv, kMemoryOptions},
    {"trace_viewer", "Trace viewer", always, trace_viewer_json, trace_viewer_csv, {}},
};

}  // namespace

std::span<const ToolEntry> tool_entries() { return kTools; }

const ToolEntry* find_tool(std::string_view name) {
  for (const auto& t : kTools)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace mlprof::server
