#include "analysis/analyzed_profile.h"

namespace mlprof::analysis {

const StepAnalysis& AnalyzedProfile::steps() const {
  std::call_once(steps_once_, [this] { steps_ = analyze_steps(profile_); });
  return *steps_;
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
