// The dependency graph of a profile's steps (docs/ARCHITECTURE.md §5.9b): nodes are instants (an event's
// start or end, a step's end), edges are "cannot happen before": program order on each host
// thread, producer to consumer (`_p` to `_c`), a launch to its kernel or copy, order on each
// device stream, a kernel or copy to the host call that waits for it (synchronisations,
// blocking copies, recorded CUDA events), a rank's collective call to the last rank's arrival
// in it, and each step's own work to the step's end. An edge weighs the time of the
// work it stands for; waiting weighs nothing, so its length follows from its dependencies.
// Replaying the graph with the measured weights gives back the measured times; with some
// weights scaled it predicts the times after that change (what_if.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/critical_path/event_selection.h"
#include "analysis/critical_path/event_waits.h"
#include "analysis/critical_path/path_kind.h"
#include "analysis/critical_path/rank_waits.h"
#include "analysis/critical_path/unfilled_vector.h"
#include "analysis/critical_path/window_gpu_work.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr uint32_t kNoNode = UINT32_MAX;

// An edge's own facts; its source and weight are DependencyGraph::edge_from and edge_weight_ps
// (what a replay reads, side by side), so that an edge costs 28 bytes in all.
struct PathEdge {
  uint32_t to = 0;
  model::EventIndex event = model::kNone;  // whose time it is; kNone: time no event covers
  // The host event through which an op-name what-if reaches it: the event itself on a host
  // thread, the launching call for device work.
  model::EventIndex owner = model::kNone;
  uint16_t host = 0;  // index into Profile::hosts
  PathKind kind = PathKind::kIdle;
};
static_assert(sizeof(PathEdge) == 16, "an edge's facts pack into 16 bytes");

// One measured span (a step) in the graph.
struct GraphStep {
  uint32_t host = 0;
  int64_t step_num = 0;
  int64_t begin_ps = 0, end_ps = 0;  // measured window
  uint32_t begin_node = kNoNode;     // the start of the step's root, when it has one
  uint32_t sink = kNoNode;           // reached when all of the step's work is done
  int32_t previous = -1;             // the step before it on its host, if analysed
  // False for a step a window's graph holds only as the context of the next (step_windows.h):
  // its path and length are not read.
  bool reported = true;
};

struct DependencyGraph {
  // Nodes are numbered in dependency order: every edge goes from a lower number to a higher.
  UnfilledVector<int64_t> anchor_ps;  // per node: the measured time (where a node without dependencies is)
  UnfilledVector<PathEdge> edges;  // by target
  UnfilledVector<uint32_t> in_first;  // node v's in-edges: edges[in_first[v], in_first[v+1])
  // Per edge (same index): its source and its weight, side by side: what a replay reads.
  UnfilledVector<uint32_t> edge_from;
  UnfilledVector<int64_t> edge_weight_ps;
  std::vector<GraphStep> steps;
  EventSelection events;           // the events it was built from (a window's, or all)
  size_t cut_edges = 0;            // edges left out: they went back in time, or closed a cycle
  size_t consumer_links = 0, sync_links = 0, launch_links = 0;  // links found, for the notes
  size_t rank_links = 0;  // collective calls that waited for another rank's arrival

  size_t num_nodes() const { return anchor_ps.size(); }
  size_t num_reported_steps() const {
    size_t n = 0;
    for (const GraphStep& s : steps) n += s.reported;
    return n;
  }
};

// A span the graph measures: a step, or an annotation's instance.
struct StepSpan {
  uint32_t host = 0;
  int64_t step_num = 0;
  int64_t begin_ps = 0, end_ps = 0;
  model::EventIndex root = model::kNone;  // the event that marks it, if any
  // Its device work: the step group's (StepGrouping), or kLaunchedInside: the work launched by
  // calls inside the root on the root's thread (an annotation).
  uint32_t group = 0;
};
inline constexpr uint32_t kLaunchedInside = UINT32_MAX - 1;

// The analysed steps of `steps` (StepAnalysis::steps, same order) as spans.
std::vector<StepSpan> step_spans(const StepAnalysis& steps);
// The graph of the analysed steps.
DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps);
// Given spans instead; `steps` gives the grouping (which lines hold device work).
DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps,
                                       const std::vector<StepSpan>& spans);

// What a host event's name says of it: its kind when it produces nothing, whether it blocks.
struct HostNameKind {
  PathKind kind = PathKind::kHost;
  bool blocking = false;
};

// What the graphs of one profile share, found once: the ranks' waits and common clock, what
// each name says of a host event; for a graph of the whole profile, its device work with its
// launches and the waits on recorded CUDA events; for windows' graphs, what finding a window's
// device work needs (window_gpu_work.h).
struct GraphInputs {
  RankWaits rank_waits;
  GpuActivity activity;                 // whole
  std::vector<EventWaits> event_waits;  // whole: per activity.hosts
  WindowDeviceInputs windows;           // windows
  std::vector<HostNameKind> name_kinds;  // per name (Profile::names), not read again a window
  const LaunchJoin* launches = nullptr;  // windows: the steps' join of launches, where it has one
};
GraphInputs graph_inputs(const model::Profile& profile, const StepAnalysis& steps, bool whole);

// The graph of `events` only (a window's: step_windows.h), with the steps of `spans`; the first
// `context_spans` of them are there only as the steps before the others (GraphStep::reported).
// Its links are counted for the events starting in [counted.first, counted.second).
DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps,
                                       const std::vector<StepSpan>& spans, size_t context_spans,
                                       const GraphInputs& inputs, EventSelection events,
                                       std::pair<int64_t, int64_t> counted = {INT64_MIN, INT64_MAX});
// Each instance of the host-thread events named `name` as a span, ending when the last work
// launched inside it does.
std::vector<StepSpan> annotation_spans(const model::Profile& profile, std::string_view name);

}  // namespace mlprof::analysis
