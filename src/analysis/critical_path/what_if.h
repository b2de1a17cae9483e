// What-if (docs/ARCHITECTURE.md §5.9b): scale the work of a kind, a step-breakdown category, or an op or
// kernel name by a factor (0 removes it, 0.5 halves it), replay the same dependency graph and
// read the steps' new length. An op's factor reaches the ops it calls and the device work it
// launches.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/step_breakdown.h"
#include "analysis/tool_registry.h"
#include "model/profile.h"

namespace mlprof::analysis {

// A predicted saving below this share of the step is the replay's noise: the change gains nothing.
inline constexpr double kMinSavingShare = 0.01;

struct WhatIfChange {
  std::string target;  // a kind, a category or an op/kernel name
  double scale = 0;    // 0..1
};

// "TARGET=SCALE" entries, one a line or separated by ';' (the option repeated). Throws
// ToolRequestError for an entry that is not one, or a scale outside 0..1.
std::vector<WhatIfChange> parse_what_ifs(std::string_view text);

// The profile's event names by their text, and its XLA instructions by their HLO op name
// ("copy-done.2"): found once for the predictors of all windows (step_windows.h), so that each
// finds its targets' names without reading every name.
struct NamesByText {
  explicit NamesByText(const model::Profile& p);
  std::unordered_map<std::string_view, std::vector<model::NameIndex>> exact, hlo_op;
};

// The edges a target reaches (indices into DependencyGraph::edges, ascending), or nothing when it
// names nothing in the profile.
using EdgeList = std::vector<uint32_t>;
std::optional<EdgeList> match_what_if(const model::Profile& p, const DependencyGraph& g, std::string_view target);

// The same for several targets at once (one pass over the events for up to 64 names).
std::vector<std::optional<EdgeList>> match_what_ifs(const model::Profile& p, const DependencyGraph& g,
                                                    const std::vector<std::string>& targets,
                                                    const NamesByText* names = nullptr);

// Up to five targets spelt like `target`, for the usage error: kinds and categories, and the
// names of the events in the graph.
std::vector<std::string> close_targets(const model::Profile& p, const DependencyGraph& g, std::string_view target);
// The same among the names flagged in `names` (per NameIndex).
std::vector<std::string> close_targets(const model::Profile& p, const std::vector<uint8_t>& names,
                                       std::string_view target);

// The usage error for a target that names nothing: the close names but the steps' own markers.
ToolRequestError unmatched_target(const std::vector<std::string>& close_names,
                                  const std::set<std::string, std::less<>>& step_root_names, std::string_view target);

// Per NameIndex: whether the graph of the whole profile holds events so named (every host
// thread's event, the device work): what a name target can match in some window's graph.
std::vector<uint8_t> graph_event_names(const model::Profile& p, const StepAnalysis& steps, const GraphInputs& inputs);
// The names among those that a name target matches: the names equal to it, else the XLA
// instructions whose HLO op name it is. Empty: it names nothing.
std::vector<model::NameIndex> target_names(const model::Profile& p, const std::vector<uint8_t>& in_graphs,
                                           std::string_view target);

// The steps' mean length after scaling the matched edges, in ms (a whole replay).
double predicted_step_ms(const DependencyGraph& g, const EdgeList& matched, double scale);

class StepReach;  // step_reach.h

// Predictions for one graph, each made once per target and scale (the defaults and the
// bottleneck ask the same), each replay recomputing only what its change reaches
// (partial_replay.h).
class WhatIfPredictor {
 public:
  // `step_root_names`: the steps' own markers, never offered as close names.
  WhatIfPredictor(const model::Profile& p, const DependencyGraph& g,
                  std::set<std::string, std::less<>> step_root_names = {});
  ~WhatIfPredictor();

  // The graph's replay with the measured weights and its binding edges, where the caller has
  // made it already (else made on first use).
  void set_measured(Replay measured);

  // Makes the predictions of `changes` not made yet, the replays on every core. Throws as step_ms.
  void make(const std::vector<WhatIfChange>& changes);

  // Finds the edges of every target in one pass over the events.
  void match(const std::vector<WhatIfChange>& changes) { match_all(changes); }
  // Whether the target names a kind, a category, or an op or kernel of the steps (an XLA op by
  // its HLO op name too).
  bool matches(const std::string& target);
  // How many of the graph's edges the target reaches (0 where it names nothing).
  size_t num_edges(const std::string& target) { return matches(target) ? matched(target).size() : 0; }

  // The steps' mean length in ms after the change. Throws ToolRequestError when the target names
  // nothing, listing close names.
  double step_ms(const std::string& target, double scale);
  // The same summed over the reported steps, in ps (a window's share of the mean).
  double total_step_ps(const std::string& target, double scale);
  // The reported steps' measured lengths summed, in ps (as the graph replays them).
  double measured_total_ps();
  // Replays on at most this many threads (windows replayed side by side ask for fewer).
  void set_max_threads(unsigned n) { max_threads_ = std::max(1u, n); }
  // Finds names through `names` (which outlives the predictor) rather than reading every name.
  void set_names(const NamesByText* names) { names_ = names; }

  // Whether the target's work leads to a step's end through the dependencies the trace shows
  // (step_reach.h): where it does not, no change to it can shorten a step.
  bool reaches_steps(const std::string& target);

 private:
  struct Shared;
  void match_all(const std::vector<WhatIfChange>& changes);
  const EdgeList& matched(const std::string& target);
  std::optional<EdgeList> match_hlo_op_name(const std::string& target) const;
  Shared& shared();

  const model::Profile& p_;
  const DependencyGraph& g_;
  std::map<std::string, EdgeList, std::less<>> matched_;
  std::set<std::string, std::less<>> unmatched_;  // targets found to name nothing: not looked for again
  std::map<std::pair<std::string, double>, double> predicted_;  // the reported steps' total, ps
  unsigned max_threads_ = 8;
  const NamesByText* names_ = nullptr;
  std::set<std::string, std::less<>> step_root_names_;
  std::unique_ptr<StepReach> reach_;  // made on first use (step_reach.h)
  std::unique_ptr<Shared> shared_;  // measured times, out-edges, one replayer a thread: made on first use
};

}  // namespace mlprof::analysis
