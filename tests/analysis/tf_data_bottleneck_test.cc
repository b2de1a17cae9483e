// tf_data_bottleneck_analysis: the stage that sleeps is the bottleneck.
#include <gtest/gtest.h>

#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

TEST(TfDataBottleneck, TheSleepingReadIsTheBottleneck) {
  const TfDataBottleneckAnalysis a = compute_tf_data_bottleneck_analysis(import_space(training_space({})));
  ASSERT_EQ(a.pipelines.size(), 1u);
  const InputPipeline& pl = a.pipelines.front();
  EXPECT_EQ(pl.name, "Iterator::Prefetch");
  EXPECT_EQ(pl.host_name, "trainer");
  EXPECT_EQ(pl.calls, 20u);
  EXPECT_EQ(pl.slow_calls, 20u);  // 30 ms each
  ASSERT_EQ(pl.nodes.size(), 3u);
  ASSERT_GE(pl.bottleneck, 0);
  const IteratorNode& b = pl.nodes[size_t(pl.bottleneck)];
  EXPECT_EQ(b.long_name, "Iterator::Prefetch::Map::FileRead");
  EXPECT_EQ(b.type, "FileRead");
  EXPECT_EQ(pl.bottleneck_kind, "source");
  EXPECT_NE(pl.suggestion.find("in parallel"), std::string::npos);
  EXPECT_EQ(pl.critical_path.size(), 3u);
  EXPECT_TRUE(pl.nodes[0].is_async);
  // Within the 30 ms wait, FileRead ran about 8/9 of the time and Map itself about 1/9.
  EXPECT_NEAR(double(b.self_ps) / 1e9, 30.0 * 8 / 9, 2.0);
  const nlohmann::json j = to_json(a);
  EXPECT_EQ(j["summary"]["bottleneck"], "Iterator::Prefetch::Map::FileRead");
}

TEST(TfDataBottleneck, ASlowMapIsParallelizable) {
  TrainingShape shape;
  shape.read_ms = 1;
  shape.map_self_ms = 8;
  const TfDataBottleneckAnalysis a = compute_tf_data_bottleneck_analysis(import_space(training_space(shape)));
  ASSERT_EQ(a.pipelines.size(), 1u);
  const InputPipeline& pl = a.pipelines.front();
  EXPECT_EQ(pl.nodes[size_t(pl.bottleneck)].long_name, "Iterator::Prefetch::Map");
  EXPECT_EQ(pl.bottleneck_kind, "parallelizable");
  EXPECT_NE(pl.suggestion.find("parallelise"), std::string::npos);
}

TEST(TfDataBottleneck, FastCallsAreNotSlowAndMissingStagesAreFilledIn) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* t = host.line(1, "main", 0);
  // Iterator::Batch::Map is never traced; its child is.
  host.event(t, "Iterator::Batch", 0, 40 * kPsPerUs);
  host.event(t, "Iterator::Batch::Map::TFRecord", 5 * kPsPerUs, 30 * kPsPerUs);
  host.event(t, "Iterator::Batch", 100 * kPsPerUs, 60 * kPsPerUs);
  const TfDataBottleneckAnalysis a = compute_tf_data_bottleneck_analysis(import_space(space));
  ASSERT_EQ(a.pipelines.size(), 1u);
  const InputPipeline& pl = a.pipelines.front();
  EXPECT_EQ(pl.calls, 2u);
  EXPECT_EQ(pl.slow_calls, 1u);
  EXPECT_EQ(pl.max_ps, 60 * kPsPerUs);
  ASSERT_EQ(pl.nodes.size(), 3u);  // Batch, Batch::Map (filled in), Batch::Map::TFRecord
  // The slowest call (the second) overlaps no TFRecord read: the consumer is the bottleneck.
  EXPECT_EQ(pl.bottleneck, 0);
}

}  // namespace
}  // namespace mlprof::analysis
