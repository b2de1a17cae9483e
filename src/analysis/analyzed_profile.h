// A loaded profile with the analyses that several tools share (steps, op stats, tf.data
// pipelines), each computed on first use and kept, so that opening the overview after the
// input pipeline does not group steps twice, nor the op stats after the overview. The tools of tool_registry.h read from it, in the server
// and in `mlprof report` alike. Safe to use from several request threads.
#pragma once

#include <mutex>
#include <optional>

#include "analysis/framework_op_stats.h"
#include "analysis/step_breakdown.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/trace_viewer/trace_counters.h"
#include "analysis/trace_viewer/trace_flows.h"
#include "analysis/trace_viewer/trace_index.h"
#include "model/profile.h"

namespace mlprof::analysis {

// What the trace viewer asks of a profile: the viewport index and the flow arrows.
struct TraceTimeline {
  explicit TraceTimeline(const model::Profile& p) : index(p), flows(find_trace_flows(p)) {}
  TraceIndex index;
  TraceFlows flows;
};

class AnalyzedProfile {
 public:
  explicit AnalyzedProfile(model::Profile profile) : profile_(std::move(profile)) {}

  const model::Profile& profile() const { return profile_; }
  const StepAnalysis& steps() const;
  // The steps' grouping alone (which events belong to which step), for tools that need no
  // breakdown: the steps' own when they are made, else made once by itself.
  const StepGrouping& step_grouping() const;
  const FrameworkOpStats& op_stats() const;  // default options (no idle rows)
  const TfDataBottleneckAnalysis& tf_data() const;
  const TraceTimeline& trace() const;
  // The trace viewer's counter tracks (GPU queue length, memory in use): asked again at each
  // opening of the page, made once.
  const std::vector<CounterTrack>& trace_counters() const;

 private:
  model::Profile profile_;
  mutable std::once_flag op_stats_once_, tf_data_once_, trace_once_, counters_once_;
  mutable std::mutex steps_mutex_;  // for steps_ and grouping_
  mutable std::optional<StepAnalysis> steps_;
  mutable std::optional<StepGrouping> grouping_;  // made alone, before the steps
  mutable std::optional<FrameworkOpStats> op_stats_;
  mutable std::optional<TfDataBottleneckAnalysis> tf_data_;
  mutable std::optional<TraceTimeline> trace_;
  mutable std::vector<CounterTrack> counters_;
};

}  // namespace mlprof::analysis
