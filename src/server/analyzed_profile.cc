#include "server/analyzed_profile.h"

namespace mlprof::server {

const analysis::StepAnalysis& AnalyzedProfile::steps() const {
  std::call_once(steps_once_, [this] { steps_ = analysis::analyze_steps(profile_); });
  return *steps_;
}

const analysis::FrameworkOpStats& AnalyzedProfile::op_stats() const {
  std::call_once(op_stats_once_, [this] { op_stats_ = analysis::compute_framework_op_stats(profile_); });
  return *op_stats_;
}

const analysis::TfDataBottleneckAnalysis& AnalyzedProfile::tf_data() const {
  std::call_once(tf_data_once_, [this] { tf_data_ = analysis::compute_tf_data_bottleneck_analysis(profile_); });
  return *tf_data_;
}

const TraceTimeline& AnalyzedProfile::trace() const {
  std::call_once(trace_once_, [this] { trace_.emplace(profile_); });
  return *trace_;
}

}  // namespace mlprof::server
