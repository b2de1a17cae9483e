// A recommendation of the overview and what its change would buy (docs/ARCHITECTURE.md §5.9b): the
// changes the recommendations propose that the critical path can replay (input removed,
// launches halved, an op halved...), and the step time the what-if predicts for each. A
// recommendation whose change the graph cannot express carries no prediction.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "analysis/critical_path/bottleneck.h"
#include "analysis/critical_path/what_if.h"

namespace mlprof::analysis {

// A change a recommendation proposes, as the what-if that replays it.
struct RecommendedChange {
  WhatIfChange what_if;
  std::string words;  // "input took no time"
};

RecommendedChange input_removed();
RecommendedChange launches_halved(bool on_tpu);  // a TPU's are program launches
RecommendedChange collectives_halved();
RecommendedChange device_compute_halved();
RecommendedChange copies_removed();
RecommendedChange op_halved(const std::string& name);

// The what-ifs of every change above the overview may recommend, `top_op` the op it names.
std::vector<WhatIfChange> recommendation_what_ifs(const std::string& top_op, bool on_tpu);

struct Recommendation {
  std::string text;
  std::string change;  // the change predicted, in words; empty when none is
  WhatIfChange what_if;  // the same as critical_path's what-if (target empty when none is)
  std::optional<double> step_ms, predicted_step_ms;  // a step now and after the change, on the critical path
  bool reaches_steps = true;  // false: nothing the trace shows links the changed work to the steps
  bool about_bottleneck = false;  // bottleneck_recommendation's: more specific advice on its kind replaces it
  // Predicted, and the step no shorter for it: what the change shortens is not on the critical path.
  bool gains_nothing() const;
};

// The recommendation with the prediction of `change` from the bottleneck's critical path, when
// the path predicted it.
Recommendation recommendation(std::string text, const std::optional<Bottleneck>& path,
                              const std::optional<RecommendedChange>& change = std::nullopt);

// Where no other recommendation proposes a change to the kind that bounds the step, one that
// does, with the headline's prediction: a host-bound step otherwise got advice about everything
// but the host. Nothing for kinds a change cannot be recommended for (idle, waiting for a rank:
// the stragglers' advice speaks of those), nor where the change saves nothing.
std::optional<Recommendation> bottleneck_recommendation(const Bottleneck& b,
                                                        const std::vector<Recommendation>& others);

// The most valuable change first: the predicted recommendations change places among themselves,
// largest saving first and those that gain nothing last; the others keep their places (what
// cannot be replayed cannot be ranked against what can).
void rank_by_predicted_saving(std::vector<Recommendation>& recommendations);

// "(predicted step: 47.5 -> 32.1 ms)", "(predicted step: 619.3 ms either way: ...)" for a change
// that gains nothing (saying why: off the critical path, or linked to no step); empty without a
// prediction.
std::string prediction_words(const Recommendation& r);

// {text, predicted_step_ms, step_ms, change, what_if: {target, scale}, gains_nothing,
// reaches_steps}; nulls where nothing is predicted.
nlohmann::json to_json(const Recommendation& r);

}  // namespace mlprof::analysis
