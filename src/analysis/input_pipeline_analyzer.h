// input_pipeline_analyzer (docs/ARCHITECTURE.md §5.4): is the program input-bound, the device-side step
// times and waiting for input, and where the host spends its input processing time.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/input_bound.h"
#include "analysis/input_wait_callee.h"
#include "analysis/rank_step_table.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

enum class InputOpCategory : uint8_t { kReadOnDemand, kReadInAdvance, kPreprocessing, kEnqueue, kWaitForWorkers };
inline constexpr size_t kNumInputOpCategories = 5;
inline constexpr std::array<std::string_view, kNumInputOpCategories> kInputOpCategoryKeys = {
    "reading_data_from_files_on_demand", "reading_data_from_files_in_advance", "data_preprocessing",
    "enqueuing_data_to_device", "waiting_for_input_from_workers"};
// How each category reads in a sentence or a table.
inline constexpr std::array<std::string_view, kNumInputOpCategories> kInputOpCategoryLabels = {
    "Reading data from files on demand", "Reading data from files in advance", "Data preprocessing",
    "Enqueuing data to be transferred to device", "Waiting for input from the loader's workers"};

// By name: tf.data iterators by their source and stages, host-to-device copies and infeed, and
// PyTorch's DataLoader iterations (preprocessing on the step's thread with no workers, waiting
// for the worker processes with them). A runtime call that copies to the device is an enqueue
// whatever its name; the analysis finds those by their device work.
InputOpCategory classify_input_op(std::string_view name);

struct InputOpRow {
  std::string name;
  InputOpCategory category = InputOpCategory::kPreprocessing;
  uint64_t count = 0;
  int64_t total_ps = 0;
  int64_t self_ps = 0;
  double total_pct = 0;  // of all input ops' self time (the input processing time)
  double self_pct = 0;
};

struct InputPipelineAnalysis {
  InputBound summary;
  bool whole_profile = false;
  // Device side, per step (ms): step time and time waiting for input.
  struct StepRow {
    int64_t step_num = 0;
    std::string host;
    double total_ms = 0, input_ms = 0;
  };
  std::vector<StepRow> steps;
  SeriesStats step_time_ms, input_ms;
  std::vector<RankStepRow> ranks;  // one row per rank, for a run of several (rank_step_table.h)
  // Host side.
  std::array<int64_t, kNumInputOpCategories> category_self_ps{};
  int64_t input_self_ps = 0;
  std::vector<InputOpRow> ops;  // by self time, largest first
  std::string no_input_ops;     // when there are none: one sentence saying so (else empty)
  // The Python code the steps' threads ran while they waited for input, when the trace has stacks.
  std::optional<InputWaitCallee> wait_callee;
  std::vector<std::string> recommendations;
};

InputPipelineAnalysis compute_input_pipeline_analysis(const model::Profile& profile, const StepAnalysis& steps);

nlohmann::json to_json(const InputPipelineAnalysis& analysis);
std::string to_csv(const InputPipelineAnalysis& analysis);  // the input op table

}  // namespace mlprof::analysis
