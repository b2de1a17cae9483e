// Text renderings of the tools' results for a terminal: the verdict and recommendations
// first, then aligned tables with units.
#pragma once

#include <string>

#include "analysis/framework_op_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/memory_profile.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/profile_diff.h"
#include "analysis/tf_data_bottleneck_analysis.h"

namespace mlprof::cli {

std::string render_text(const analysis::OverviewPage& page);
std::string render_text(const analysis::InputPipelineAnalysis& analysis);
std::string render_text(const analysis::FrameworkOpStats& stats, size_t max_rows = 30);
std::string render_text(const analysis::TfDataBottleneckAnalysis& analysis);
std::string render_text(const analysis::ProfileDiff& diff);
std::string render_text(const analysis::KernelStatsTable& table, size_t max_rows = 30);
std::string render_text(const analysis::MemoryProfile& memory, size_t max_rows = 15);
std::string render_text(const analysis::PodViewer& pod);

}  // namespace mlprof::cli
