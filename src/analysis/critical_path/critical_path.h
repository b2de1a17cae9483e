// The critical_path tool (docs/ARCHITECTURE.md §5.9b): per step, the longest chain of dependent work from
// the step's start to its end (dependency_graph.h, longest_path.h), its time by kind, and the
// ops and kernels on it, per step and averaged; and what-if predictions (what_if.h): the step
// time after scaling a kind, a category or an op.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/path_kind.h"
#include "analysis/critical_path/path_segments.h"
#include "analysis/critical_path/step_windows.h"
#include "analysis/critical_path/what_if.h"
#include "analysis/run_environment.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct PathTime {
  std::string name;       // an XLA op by its HLO op name ("copy-done.2")
  double ms = 0;
  std::string long_name;  // the HLO instruction's whole text, where `name` is short for it
};

struct CriticalPathStep {
  std::string host;
  int64_t step_num = 0;
  double step_ms = 0;  // measured
  double path_ms = 0;  // the critical path's length, from the graph
  std::array<double, kNumPathKinds> kind_ms{};
  std::vector<PathTime> top_ops, top_kernels;  // the largest on the path, at most kTopPerStep
  StepPathSegments path;  // for the trace viewer to draw
};
inline constexpr size_t kTopPerStep = 5;
inline constexpr size_t kTopOverall = 10;

struct WhatIfPrediction {
  std::string target;
  double scale = 0;
  double step_ms = 0;  // the steps' mean length after the change
  // False where nothing the trace shows leads from the changed work to a step (step_reach.h):
  // found for changes that gain nothing.
  bool reaches_steps = true;
};

struct CriticalPath {
  std::vector<CriticalPathStep> steps;
  // Means over the steps.
  double step_ms = 0, path_ms = 0;
  bool on_tpu = false;  // the profile has TPU planes: said in a TPU's words (bottleneck.h)
  GpuVendor gpu_vendor = GpuVendor::kNvidia;  // a GPU's advice in its vendor's words (run_environment.h)
  std::array<double, kNumPathKinds> kind_ms{};
  std::vector<PathTime> top_ops, top_kernels;  // per step, at most kTopOverall
  std::vector<WhatIfPrediction> what_if;
  // Where predictions may be wrong: time on the path that no event covers, a graph that does
  // not give back the measured steps. Empty when none.
  std::string prediction_note;
  std::vector<std::string> warnings;  // dependencies cut for going back in time
  size_t consumer_links = 0, sync_links = 0, launch_links = 0;

  // The step time after the change recommended for the bottleneck (bottleneck.h).
  WhatIfPrediction bottleneck_change;
  // Per kind: the steps' mean length if that kind took no time (kWaitingForRank, and kIdle in a
  // PathDetail::kSummary: not predicted, the path's length).
  std::array<double, kNumPathKinds> removed_step_ms{};

  // The kind with the most time on the path.
  PathKind largest_kind() const;
  // What bounds the step: the kind whose removal shortens it most (a loader that runs beside
  // the step shows on the path only where the step waits for it, yet bounds it); the largest
  // kind on the path when no removal would save time.
  PathKind bottleneck() const;
  double saving_if_removed_ms(PathKind k) const { return path_ms - removed_step_ms[size_t(k)]; }
};

// What to predict besides `what_if`.
enum class WhatIfDefaults : uint8_t {
  kAdd,            // `what_if` empty: every kind on the path and its ten largest ops and kernels, at 0 and 0.5
  kNone,           // only `what_if` (the overview's headline reads the bottleneck alone)
  kSkipUnmatched,  // only `what_if`, leaving out targets that name nothing in the steps (the
                   // overview's recommendations name ops that may not lie in a step)
};

// How much of each step's path to give: its segments for the trace viewer too, or only its time
// by kind and its largest ops (what the overview's headline reads: no segments, and no
// prediction for removing the untraced gaps, which are never its bottleneck).
enum class PathDetail : uint8_t { kSegments, kSummary };

// Throws ToolRequestError for a target that names nothing, listing close names (unless
// kSkipUnmatched). The graph is built a window of steps at a time (step_windows.h), of about
// `window_events` events each (tests ask for small ones).
CriticalPath compute_critical_path(const model::Profile& profile, const StepAnalysis& steps,
                                   const std::vector<WhatIfChange>& what_if = {},
                                   WhatIfDefaults defaults = WhatIfDefaults::kAdd, size_t window_events = kWindowEvents);

// The same over the given spans (dependency_graph.h).
CriticalPath compute_critical_path_of_spans(const model::Profile& profile, const StepAnalysis& steps,
                                            const std::vector<StepSpan>& spans,
                                            const std::vector<WhatIfChange>& what_if = {},
                                            WhatIfDefaults defaults = WhatIfDefaults::kAdd,
                                            PathDetail detail = PathDetail::kSegments);

// The what-ifs asked of a path, given when first needed (once its graph is built and its path
// read), so that a caller can start the graph before it knows them.
using WhatIfSource = std::function<std::vector<WhatIfChange>()>;
CriticalPath compute_critical_path_of_spans(const model::Profile& profile, const StepAnalysis& steps,
                                            const std::vector<StepSpan>& spans, const WhatIfSource& what_if,
                                            WhatIfDefaults defaults, PathDetail detail,
                                            size_t window_events = kWindowEvents);

// The same over each instance of a host annotation (HTA's critical_path_analysis over an
// annotation), each ending when the work launched inside it does.
CriticalPath compute_critical_path_of_annotation(const model::Profile& profile, const StepAnalysis& steps,
                                                 std::string_view annotation,
                                                 const std::vector<WhatIfChange>& what_if = {});

// A what-if's target as the reports name it: an XLA op by its HLO op name (a target the
// what-if also takes), anything else as it is.
std::string what_if_target_name(const std::string& target);

// Keys as they are; `labels` gives each kind and list its display words in the device's terms.
nlohmann::json to_json(const CriticalPath& c);
std::string to_csv(const CriticalPath& c);  // one row per step: its time by kind

}  // namespace mlprof::analysis
