// input_pipeline_analyzer: host-side categories and the input op table.
#include <gtest/gtest.h>

#include "analysis/input_pipeline_analyzer.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

TEST(InputPipelineAnalyzer, ClassifiesInputOps) {
  EXPECT_EQ(classify_input_op("Iterator::Prefetch::Map::FileRead"), InputOpCategory::kReadInAdvance);
  EXPECT_EQ(classify_input_op("Iterator::Batch::Map::TFRecord"), InputOpCategory::kReadOnDemand);
  EXPECT_EQ(classify_input_op("Iterator::ParallelInterleave::TFRecord"), InputOpCategory::kReadInAdvance);
  EXPECT_EQ(classify_input_op("Iterator::Batch::Map"), InputOpCategory::kPreprocessing);
  EXPECT_EQ(classify_input_op("MemcpyH2D"), InputOpCategory::kEnqueue);
  EXPECT_EQ(classify_input_op("InfeedEnqueueTuple"), InputOpCategory::kEnqueue);
}

TEST(InputPipelineAnalyzer, LoaderWorkIsInputProcessingAndTheWaitIsNot) {
  const model::Profile p = import_space(training_space({}));
  const InputPipelineAnalysis a = compute_input_pipeline_analysis(p, analyze_steps(p));
  EXPECT_EQ(verdict_name(a.summary.verdict), "HIGHLY");
  EXPECT_NEAR(a.summary.input_pct, 30.0, 3.0);
  EXPECT_EQ(a.steps.size(), 20u);  // all: no capture window says any was cut
  EXPECT_NEAR(a.step_time_ms.avg, 100.0, 1e-6);
  EXPECT_NEAR(a.input_ms.avg, 30.0, 1e-6);
  // The loader: 222 Map calls of 9 ms, each 1 ms of its own and 8 ms in FileRead (in advance: under Prefetch).
  ASSERT_EQ(a.ops.size(), 2u);
  EXPECT_EQ(a.ops[0].name, "Iterator::Prefetch::Map::FileRead");
  EXPECT_EQ(a.ops[0].category, InputOpCategory::kReadInAdvance);
  EXPECT_EQ(a.ops[1].name, "Iterator::Prefetch::Map");
  EXPECT_EQ(a.ops[1].count, a.ops[0].count);
  EXPECT_NEAR(double(a.ops[0].self_ps) / double(a.ops[0].count) / 1e9, 8.0, 1e-9);
  EXPECT_NEAR(double(a.ops[1].self_ps) / double(a.ops[1].count) / 1e9, 1.0, 1e-9);
  EXPECT_NEAR(a.ops[0].self_pct, 100.0 * 8 / 9, 1e-6);
  EXPECT_NEAR(a.ops[1].total_pct, 100.0, 1e-6);
  EXPECT_EQ(a.category_self_ps[size_t(InputOpCategory::kReadInAdvance)], a.ops[0].self_ps);
  EXPECT_EQ(a.category_self_ps[size_t(InputOpCategory::kPreprocessing)], a.ops[1].self_ps);
  ASSERT_FALSE(a.recommendations.empty());
  EXPECT_NE(a.recommendations.front().find("FileRead"), std::string::npos);
  const std::string csv = to_csv(a);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
}

}  // namespace
}  // namespace mlprof::analysis
