// What bounds the step, in one sentence (docs/ARCHITECTURE.md §5.9b): the kind whose removal from the
// critical path shortens the step most, its share of the path, the evidence, and what the
// change the overview recommends for it would save.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "analysis/critical_path/critical_path.h"

namespace mlprof::analysis {

struct Bottleneck {
  PathKind kind = PathKind::kIdle;
  double share_pct = 0;      // of the critical path
  std::string evidence;      // what on the path shows it
  std::string change;        // the change whose prediction is given, in words
  double step_ms = 0;        // the steps' mean length, as the graph gives it back
  double predicted_step_ms = 0;  // after the change
  bool on_tpu = false;           // said in a TPU's words (program launches, host offloading)
  double saving_ms() const { return step_ms - predicted_step_ms; }
  std::string sentence() const;  // the overview's first line
};

// The scale the recommended change applies to a kind: work that can be hidden or removed
// (input, launches, copies, idle time) to 0; work that can only be made faster to 0.5.
double recommended_scale(PathKind kind);

// Nothing when the profile has no steps.
std::optional<Bottleneck> bottleneck_of(const CriticalPath& path);

// The profile's, from its critical path without the default what-ifs (the overview's headline).
std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps);

nlohmann::json to_json(const Bottleneck& b);

}  // namespace mlprof::analysis
