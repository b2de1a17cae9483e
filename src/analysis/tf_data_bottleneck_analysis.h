// tf_data_bottleneck_analysis (docs/ARCHITECTURE.md §5.7): per host and input pipeline, the iterator tree
// rebuilt from long names, the critical path of the slowest execution, the bottleneck iterator
// and what to change.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/input_bound.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr int64_t kSlowCallPs = 50'000'000;  // 50 µs

struct IteratorNode {
  std::string long_name;  // "Iterator::Prefetch::Map"
  std::string type;       // "Map"
  bool is_async = false;
  int parent = -1;        // index in InputPipeline::nodes
  std::vector<int> children;
  // Within the slowest execution of the pipeline:
  uint64_t calls = 0;
  int64_t first_start_ps = 0;
  int64_t total_ps = 0;   // time this iterator ran while its parent waited
  int64_t self_ps = 0;    // total minus the time its children ran in that time
  bool on_critical_path = false;
};

struct InputPipeline {
  uint32_t host = 0;
  std::string host_name;
  std::string name;  // the root iterator's long name
  uint64_t calls = 0;
  uint64_t slow_calls = 0;  // executions longer than 50 µs
  int64_t total_ps = 0, min_ps = 0, max_ps = 0;
  int64_t slowest_start_ps = 0;
  std::vector<IteratorNode> nodes;  // nodes[0] is the root
  std::vector<int> critical_path;   // from the root
  int bottleneck = -1;
  std::string bottleneck_kind;      // "source" (files), "generator" (in-memory or user code),
                                    // "parallelizable", "sequential", "consumer"
  std::string suggestion;           // empty when the steps are not input-bound
};

struct TfDataBottleneckAnalysis {
  std::vector<InputPipeline> pipelines;  // slowest execution first
  // A bottleneck is a problem only when the steps wait for input: at least moderately
  // input-bound (input_bound.h). Otherwise the trees are shown with no suggestion, and `note`
  // says why.
  InputBound input_bound;
  std::string note;
};

TfDataBottleneckAnalysis compute_tf_data_bottleneck_analysis(const model::Profile& profile, const StepAnalysis& steps);
// The pipelines alone, slowest first, each with its suggestion whatever the steps' verdict.
std::vector<InputPipeline> find_input_pipelines(const model::Profile& profile);
TfDataBottleneckAnalysis compute_tf_data_bottleneck_analysis(const model::Profile& profile);  // analyzes the steps

nlohmann::json to_json(const TfDataBottleneckAnalysis& analysis);
std::string to_csv(const TfDataBottleneckAnalysis& analysis);  // one row per pipeline

}  // namespace mlprof::analysis
