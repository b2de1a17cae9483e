// What-if (docs/ARCHITECTURE.md §5.9b): scale the work of a kind, a step-breakdown category, or an op or
// kernel name by a factor (0 removes it, 0.5 halves it), replay the same dependency graph and
// read the steps' new length. An op's factor reaches the ops it calls and the device work it
// launches.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct WhatIfChange {
  std::string target;  // a kind, a category or an op/kernel name
  double scale = 0;    // 0..1
};

// "TARGET=SCALE" entries, one a line or separated by ';' (the option repeated). Throws
// ToolRequestError for an entry that is not one, or a scale outside 0..1.
std::vector<WhatIfChange> parse_what_ifs(std::string_view text);

// The edges a target reaches (1 where matched), or nothing when it names nothing in the profile.
std::optional<std::vector<uint8_t>> match_what_if(const model::Profile& p, const DependencyGraph& g,
                                                   std::string_view target);

// The same for several targets at once (one pass over the events for up to 64 names).
std::vector<std::optional<std::vector<uint8_t>>> match_what_ifs(const model::Profile& p, const DependencyGraph& g,
                                                                const std::vector<std::string>& targets);

// Up to five targets spelt like `target`, for the usage error: kinds and categories, and the
// names of the events in the graph.
std::vector<std::string> close_targets(const model::Profile& p, const DependencyGraph& g, std::string_view target);

// The steps' mean length after scaling the matched edges, in ms.
double predicted_step_ms(const DependencyGraph& g, const std::vector<uint8_t>& matched, double scale);

}  // namespace mlprof::analysis
