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
  // The other changes asked of the same critical path (the overview's recommendations'), each
  // predicted; a target that names nothing in the steps is left out.
  std::vector<WhatIfPrediction> what_if;
  double input_path_pct = 0;           // input's share of the critical path
  double input_removed_step_ms = 0;    // the step if input took no time
  // Why the headline is not input where the step breakdown counts most of the step as input
  // (set by the overview, which has the breakdown); empty otherwise.
  std::string input_note;
  double saving_ms() const { return step_ms - predicted_step_ms; }
  std::string sentence() const;  // the overview's first line
};

// The scale the recommended change applies to a kind: work that can be hidden or removed
// (input, launches, copies, idle time) to 0; work that can only be made faster to 0.5.
double recommended_scale(PathKind kind);

// Nothing when the profile has no steps.
std::optional<Bottleneck> bottleneck_of(const CriticalPath& path);

// The profile's, from its critical path without the default what-ifs (the overview's headline),
// with the predictions of `changes` over the same path.
std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps,
                                          const std::vector<WhatIfChange>& changes = {});

// The same with the changes given when the first path is read (the overview builds the graph
// while its top op, which the changes name, is still being found).
std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps,
                                          const WhatIfSource& changes);

// Where the step breakdown counts more than half of the step as input (`input_pct`, of which
// `device_waits_host_pct` points is the device waiting for the host) and the bottleneck is not
// input: why, in words. Empty where they agree.
std::string input_disagreement(const Bottleneck& b, double input_pct, double device_waits_host_pct);
inline constexpr double kInputMajorityPct = 50;

// "21.303 ms", or "0.105 us" where the step it is read beside (`reference_ms`) is under a
// millisecond: the sentences' durations, in the step's unit.
std::string step_duration(double ms, double reference_ms);

nlohmann::json to_json(const Bottleneck& b);

}  // namespace mlprof::analysis
