// overview_page: per-step breakdown and its statistics, device compute precision, top ops,
// the run environment, the input-bound verdict and what to change first.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "analysis/critical_path/bottleneck.h"
#include "analysis/critical_path/recommendation.h"
#include "analysis/device_chips.h"
#include "analysis/device_work.h"
#include "analysis/fetch_outside_steps.h"
#include "analysis/framework_op_stats.h"
#include "analysis/input_bound.h"
#include "analysis/rank_step_table.h"
#include "analysis/run_environment.h"
#include "analysis/step_breakdown.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/gpu_timeline/timeline_rules.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct OverviewStep {
  int64_t step_num = 0;
  std::string host;
  int64_t begin_ps = 0;  // since the profile's origin
  int64_t total_ps = 0;
  std::array<int64_t, kNumCategories> breakdown_ps{};
};

struct TopOp {
  std::string name, type;
  bool on_device = false;
  uint64_t occurrences = 0;
  int64_t self_ps = 0;
  double self_pct = 0, cumulative_pct = 0;
};

struct OverviewPage {
  std::vector<OverviewStep> steps;  // the step-time graph
  std::vector<RankStepRow> ranks;   // one row per rank, for a run of several (rank_step_table.h)
  SeriesStats step_time_ms;
  std::array<SeriesStats, kNumCategories> category_ms;
  std::array<double, kNumCategories> breakdown_pct{};  // of the average step time
  InputBound input_bound;
  double bits16_pct = 0, bits32_pct = 0;  // of device compute time whose precision is known
  std::array<double, kNumPrecisions> precision_pct{};  // of device compute time, by Precision
  MatrixUnit matrix_unit = MatrixUnit::kNone;          // the run's device's
  std::vector<TopOp> top_ops;             // on the device, else on the host
  bool top_ops_on_device = false;
  RunEnvironment environment;
  DeviceChips chips;  // one row per TPU chip or GPU that ran XLA ops (device_chips.h)
  std::vector<Recommendation> recommendations;  // each with the step its change would give, where predicted
  std::optional<Bottleneck> bottleneck;  // what bounds the step (the headline), when there are steps
  bool whole_profile = false;  // no step selected (no markers, or none with device work): one pseudo step
  std::string step_marker;     // what marked the steps ("_r", "FunctionRun", ...)
  size_t steps_found = 0;      // before leaving any out
  StepsLeftOut steps_left_out;
  int64_t profiler_control_ps = 0;  // the profiler's own start and stop, left out of every step
  size_t hosts_with_steps() const;  // the hosts the steps were measured on
  // Where the top ops ran and whether their times are summed over devices: "on the TPU by self
  // time, summed over its 4 cores", following "Top 10 ops".
  std::string top_ops_where() const;
};

// What marked the steps (OverviewPage::step_marker), in words: "torch.profiler's step()",
// "Session.run calls", "the program's step annotations"; a step source that is a sentence
// already (mlprof's step inference) comes back as it is.
std::string step_marker_words(std::string_view marker);
// Where the steps came from, as a phrase: "marked by torch.profiler's step()", "found from the
// device's repeated module runs".
std::string step_source_words(std::string_view marker);
// Why steps found are left out of the analysis (step_grouping.h's StepsLeftOut), in words:
// "1 was cut by the capture's stop, 2 ran no device work"; empty when none is.
std::string steps_left_out_words(const StepsLeftOut& left_out);

// From analyses already computed (the CLI and benchmarks compute each once).
OverviewPage compute_overview_page(const model::Profile& profile, const StepAnalysis& steps,
                                   const FrameworkOpStats& op_stats, const TfDataBottleneckAnalysis& tf_data);
OverviewPage compute_overview_page(const model::Profile& profile);

// A memory whose peak comes within 10 % of its capacity (§5.5), and the op with the most bytes
// alive there.
struct MemoryPressure {
  std::string memory_id;
  int64_t capacity_bytes = 0, peak_heap_bytes = 0;
  int64_t peak_step = -1, peak_time_ps = 0;
  std::string top_op;  // empty when no op is known
  int64_t top_op_bytes = 0;
};
// Every memory of the profile close to running out, in compute_memory_peaks' order;
// `memories`, when given, is told how many memories the profile has in all.
std::vector<MemoryPressure> memory_pressure(const model::Profile& profile, size_t* memories = nullptr);

// The slowest input pipeline (tf_data_bottleneck_analysis.h), when it has a bottleneck.
struct SlowestPipeline {
  int64_t max_ps = 0;
  bool has_bottleneck = false;
  std::string bottleneck;  // its long name
  std::string suggestion;
};

// Everything the overview reads, from a whole run or joined from its hosts' summaries
// (host_summary.h): both paths make the page with compose_overview_page.
struct OverviewParts {
  bool whole_profile = false;
  std::string step_marker;
  size_t steps_found = 0;
  StepsLeftOut steps_left_out;
  FetchOutsideSteps fetch_outside;  // batches fetched between the steps
  int64_t profiler_control_ps = 0;
  std::vector<std::string> hosts;    // names, in the run's order
  std::vector<int64_t> host_ranks;   // their recorded ranks (-1: none), to label them (host_labels.h)
  std::vector<StepBreakdown> steps;  // the analysed steps; `host` indexes `hosts`
  int64_t host_bits16_ps = 0, host_bits32_ps = 0;  // host ops' precision in the steps (§ overview_page.cc)
  std::array<int64_t, kNumPrecisions> device_precision_ps{};  // device_compute_precision_ps in the steps
  RunEnvironment environment;
  std::vector<TopOp> top_ops;  // top_ops_of the run's op stats
  bool top_ops_on_device = false;
  std::optional<SlowestPipeline> slowest_pipeline;
  std::vector<MemoryPressure> memory;
  std::vector<TimelineAdvice> timeline;
  std::optional<Bottleneck> bottleneck;  // of the host whose steps are longest
};
// The host ops' 16- and 32-bit self time in the analysed steps (or the whole profile), read
// where no device compute says the precision.
void add_host_op_precision(const model::Profile& profile, const StepAnalysis& steps, int64_t* bits16_ps,
                           int64_t* bits32_ps);
// The 10 ops with the most self time: on the device when there is one, else on the host.
std::vector<TopOp> top_ops_of(const FrameworkOpStats& ops, bool* on_device);
OverviewPage compose_overview_page(const OverviewParts& parts);
// The advice the per-chip rows give (device_chips.h), once `page.chips` is set.
void add_chip_advice(OverviewPage& page);

nlohmann::json to_json(const OverviewPage& page);
// One row per step; for a profile with chips, one row per chip (device_chips.h).
std::string to_csv(const OverviewPage& page);

}  // namespace mlprof::analysis
