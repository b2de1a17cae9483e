// The model against TensorFlow's own file: everything the protobuf classes see, we see.
#include <gtest/gtest.h>

#include <filesystem>

#include "format/xspace_reader.h"
#include "model/xspace/importer.h"

namespace mlprof::model {
namespace {

const std::string kTensorFlowFile = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";

TEST(TensorFlowFile, ImportsEveryPlaneLineAndEvent) {
  if (!std::filesystem::exists(kTensorFlowFile))
    GTEST_SKIP() << "TensorFlow test data not found at " << kTensorFlowFile << " (needs ../shared/testdata)";
  Profile p;
  std::string error;
  ASSERT_TRUE(import_xspace_file(kTensorFlowFile, "worker", &p, &error)) << error;

  tensorflow::profiler::XSpace space;
  ASSERT_TRUE(format::read_xspace(kTensorFlowFile, &space, &error)) << error;
  size_t events = 0, lines = 0, stats = 0;
  for (const auto& plane : space.planes())
    for (const auto& line : plane.lines()) {
      ++lines;
      events += size_t(line.events_size());
      for (const auto& e : line.events()) stats += size_t(e.stats_size());
    }
  EXPECT_EQ(p.planes.size(), size_t(space.planes_size()));
  EXPECT_EQ(p.lines.size(), lines);
  EXPECT_EQ(p.num_events(), events);
  EXPECT_EQ(p.event_stats.size(), stats);
  EXPECT_EQ(p.strings.view(p.hosts[0].hostname), "34.83.195.179:6003");

  size_t gpus = 0, steps_lines = 0, op_lines = 0;
  for (const Plane& plane : p.planes) gpus += plane.kind == PlaneKind::kDevice;
  for (const Line& line : p.lines) {
    steps_lines += line.kind == LineKind::kSteps;
    op_lines += line.kind == LineKind::kFrameworkOps;
  }
  EXPECT_EQ(gpus, 8u);
  EXPECT_GE(steps_lines, 1u);
  EXPECT_GE(op_lines, 1u);
  // Lines are sorted and parents enclose their children.
  for (EventIndex e = 0; e < p.num_events(); ++e) {
    const EventIndex parent = p.events.parent[e];
    if (parent == kNone) continue;
    ASSERT_EQ(p.line_index(parent), p.line_index(e));
    ASSERT_LE(p.start_ps(parent), p.start_ps(e));
    ASSERT_GE(p.end_ps(parent), p.end_ps(e));
  }
}

}  // namespace
}  // namespace mlprof::model
