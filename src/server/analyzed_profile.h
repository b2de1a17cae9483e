// A loaded profile with the analyses that several tools share (steps, op stats, tf.data
// pipelines), each computed on first use and kept, so that opening the overview after the
// op stats does not group steps twice. Safe to use from several request threads.
#pragma once

#include <mutex>
#include <optional>

#include "analysis/framework_op_stats.h"
#include "analysis/step_breakdown.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/trace_flows.h"
#include "analysis/trace_index.h"
#include "model/profile.h"

namespace mlprof::server {

// What the trace viewer asks of a profile: the viewport index and the flow arrows.
struct TraceTimeline {
  explicit TraceTimeline(const model::Profile& p) : index(p), flows(analysis::find_trace_flows(p)) {}
  analysis::TraceIndex index;
  analysis::TraceFlows flows;
};

class AnalyzedProfile {
 public:
  explicit AnalyzedProfile(model::Profile profile) : profile_(std::move(profile)) {}

  const model::Profile& profile() const { return profile_; }
  const analysis::StepAnalysis& steps() const;
  const analysis::FrameworkOpStats& op_stats() const;  // default options (no idle rows)
  const analysis::TfDataBottleneckAnalysis& tf_data() const;
  const TraceTimeline& trace() const;

 private:
  model::Profile profile_;
  mutable std::once_flag steps_once_, op_stats_once_, tf_data_once_, trace_once_;
  mutable std::optional<analysis::StepAnalysis> steps_;
  mutable std::optional<analysis::FrameworkOpStats> op_stats_;
  mutable std::optional<analysis::TfDataBottleneckAnalysis> tf_data_;
  mutable std::optional<TraceTimeline> trace_;
};

}  // namespace mlprof::server
