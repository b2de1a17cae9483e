// mlprof report PATH --tool T: runs one analysis tool on a profile and prints its result as
// text (for a person), JSON or CSV (for scripts).
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <string_view>

#include "analysis/framework_op_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/memory_profile.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "cli/commands.h"
#include "cli/report_text.h"
#include "cli/progress_bar.h"
#include "model/load_profile.h"

namespace mlprof::cli {
namespace {

// XProf's tool ids (docs/ARCHITECTURE.md §4).
constexpr std::array<std::string_view, 7> kTools = {"overview_page", "input_pipeline_analyzer", "framework_op_stats",
                                                    "tf_data_bottleneck_analysis", "pod_viewer", "memory_profile", "kernel_stats"};
constexpr std::array<std::string_view, 0> kPlannedTools = {};

struct ReportOptions {
  std::string path;
  std::string tool = "overview_page";
  std::string run;
  std::string host;
  std::string format = "text";
  bool include_idle = false;
  analysis::MemoryProfileOptions memory;
};

// Renders a result in the chosen format.
template <typename Result>
void print(const Result& result, const std::string& format) {
  if (format == "json") fmt::print("{}\n", analysis::to_json(result).dump(2));
  else if (format == "csv") fmt::print("{}", analysis::to_csv(result));
  else fmt::print("{}", render_text(result));
}

int run_report(const ReportOptions& o) {
  bool known = false;
  for (auto t : kTools) known |= o.tool == t;
  if (!known) {
    for (auto t : kPlannedTools)
      if (o.tool == t) {
        std::fprintf(stderr, "mlprof: the %s tool is not available in this version\n", o.tool.c_str());
        return kUsageError;
      }
    std::fprintf(stderr, "mlprof: unknown tool \"%s\" (tools: %s)\n", o.tool.c_str(),
                 fmt::format("{}", fmt::join(kTools, ", ")).c_str());
    return kUsageError;
  }
  model::Profile profile;
  model::LoadError error;
  bool incomplete = false;  // some hosts could not be read: the report is of the others
  {
    ProgressBar bar("loading " + o.path);
    if (!model::load_profile({o.path, o.run, o.host, [&](double f) { bar.update(f); }}, &profile, &error)) {
      if (profile.hosts.empty()) return bad_input(error.path, error.problem);
      incomplete = true;
    }
  }
  if (incomplete) bad_input(error.path, error.problem);
  if (o.format == "text") fmt::print("Run {}, {} host(s), {} events\n\n", profile.run, profile.hosts.size(), profile.num_events());

  if (o.tool == "overview_page") {
    print(analysis::compute_overview_page(profile), o.format);
  } else if (o.tool == "input_pipeline_analyzer") {
    print(analysis::compute_input_pipeline_analysis(profile, analysis::analyze_steps(profile)), o.format);
  } else if (o.tool == "framework_op_stats") {
    print(analysis::compute_framework_op_stats(profile, {o.include_idle}), o.format);
  } else if (o.tool == "pod_viewer") {
    print(analysis::compute_pod_viewer(profile), o.format);
  } else if (o.tool == "memory_profile") {
    const analysis::MemoryProfile memory = analysis::compute_memory_profile(profile, o.memory);
    if (memory.memory_ids.empty() && !o.memory.memory_id.empty()) {
      std::fprintf(stderr, "mlprof: no memory \"%s\" in this profile (leave out --memory-id to list them)\n",
                   o.memory.memory_id.c_str());
      return kUsageError;
    }
    print(memory, o.format);
  } else if (o.tool == "kernel_stats") {
    print(analysis::compute_kernel_stats(profile), o.format);
  } else {
    print(analysis::compute_tf_data_bottleneck_analysis(profile), o.format);
  }
  return incomplete ? kBadInput : kOk;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "Analyse a profile with one tool (overview_page by default)");
  auto o = std::make_shared<ReportOptions>();
  sub->add_option("PATH", o->path, "a logdir, a run directory or an .xplane.pb file")->required();
  sub->add_option("--tool,-t", o->tool,
                  "overview_page, input_pipeline_analyzer, framework_op_stats, tf_data_bottleneck_analysis, pod_viewer, "
                  "memory_profile or kernel_stats")
      ->capture_default_str();
  sub->add_option("--run", o->run, "the run to analyse (default: the newest)");
  sub->add_option("--host", o->host, "analyse one host only (default: all hosts of the run)");
  sub->add_option("--format,-f", o->format, "text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  sub->add_flag("--include-idle", o->include_idle, "framework_op_stats: add idle time as an op");
  sub->add_option("--memory-id", o->memory.memory_id, "memory_profile: one memory (allocator) only");
  sub->add_option("--sort", o->memory.breakdown_sort,
                  "memory_profile: order of the breakdown at the peak: allocation, requested, occurrences or op")
      ->check(CLI::IsMember({"allocation", "requested", "occurrences", "op"}))
      ->capture_default_str();
  sub->add_option("--filter", o->memory.breakdown_filter, "memory_profile: breakdown rows whose op contains this text");
  add_jobs_option(sub);
  return {sub, [o]() { return run_report(*o); }};
}

}  // namespace mlprof::cli
