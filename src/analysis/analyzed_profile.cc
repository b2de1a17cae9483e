#include "analysis/analyzed_profile.h"

namespace mlprof::analysis {

const StepAnalysis& AnalyzedProfile::steps() const {
  std::lock_guard lock(steps_mutex_);
  // A grouping made alone stays: a tool may still be reading it.
  if (!steps_) steps_ = grouping_ ? analyze_steps(profile_, *grouping_) : analyze_steps(profile_);
  return *steps_;
}

const StepGrouping& AnalyzedProfile::step_grouping() const {
  std::lock_guard lock(steps_mutex_);
  if (steps_) return steps_->grouping;
  if (!grouping_) grouping_ = group_steps(profile_);
  return *grouping_;
}

const FrameworkOpStats& AnalyzedProfile::op_stats() const {
  std::call_once(op_stats_once_, [this] { op_stats_ = compute_framework_op_stats(profile_); });
  return *op_stats_;
}

const TfDataBottleneckAnalysis& AnalyzedProfile::tf_data() const {
  std::call_once(tf_data_once_, [this] { tf_data_ = compute_tf_data_bottleneck_analysis(profile_, steps()); });
  return *tf_data_;
}

const TraceTimeline& AnalyzedProfile::trace() const {
  std::call_once(trace_once_, [this] { trace_.emplace(profile_); });
  return *trace_;
}

const std::vector<CounterTrack>& AnalyzedProfile::trace_counters() const {
  std::call_once(counters_once_, [this] { counters_ = trace_counter_tracks(profile_, trace().flows); });
  return counters_;
}

}  // namespace mlprof::analysis
