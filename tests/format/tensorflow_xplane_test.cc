// Reading a profile TensorFlow wrote (a GPU multi-worker BERT run, TensorFlow 2.4 era).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "format/xspace_reader.h"

namespace mlprof::format {
namespace {

class TensorFlowXPlane : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << "no TensorFlow test data at " << path
                   << " (../shared/testdata is only beside CI checkouts)";
    }
    std::string error;
    ASSERT_TRUE(read_xspace(path, &space_, &error)) << error;
  }
  tensorflow::profiler::XSpace space_;
};

int64_t count_events(const tensorflow::profiler::XPlane& plane) {
  int64_t n = 0;
  for (const auto& line : plane.lines()) n += line.events_size();
  return n;
}

TEST_F(TensorFlowXPlane, HasTheHostAndEightGpuPlanes) {
  ASSERT_EQ(space_.planes_size(), 9);
  EXPECT_EQ(space_.planes(0).name(), "/host:CPU");
  for (int gpu = 0; gpu < 8; ++gpu) {
    EXPECT_EQ(space_.planes(gpu + 1).name(), "/device:GPU:" + std::to_string(gpu));
  }
  ASSERT_EQ(space_.hostnames_size(), 1);
  EXPECT_EQ(space_.hostnames(0), "34.83.195.179:6003");
}

TEST_F(TensorFlowXPlane, EventCountsPerPlane) {
  std::map<std::string, std::pair<int, int64_t>> found;  // name -> (lines, events)
  for (const auto& plane : space_.planes()) found[plane.name()] = {plane.lines_size(), count_events(plane)};
  // Counted once from the file; GPU planes without traced work hold only device stats.
  const std::map<std::string, std::pair<int, int64_t>> expected = {
      {"/host:CPU", {22, 15354}},     {"/device:GPU:0", {0, 0}}, {"/device:GPU:1", {1, 19}},
      {"/device:GPU:2", {0, 0}},      {"/device:GPU:3", {0, 0}}, {"/device:GPU:4", {7, 3875}},
      {"/device:GPU:5", {0, 0}},      {"/device:GPU:6", {7, 3880}}, {"/device:GPU:7", {0, 0}}};
  EXPECT_EQ(found, expected);
}

TEST_F(TensorFlowXPlane, GpuPlanesHaveStreamAndDerivedLines) {
  std::map<std::string, std::vector<std::string>> lines;  // plane -> line names
  for (const auto& plane : space_.planes()) {
    for (const auto& line : plane.lines()) lines[plane.name()].push_back(line.name());
  }
  using Names = std::vector<std::string>;
  EXPECT_EQ(lines["/device:GPU:1"], Names{"Stream #123(MemcpyH2D)"});
  for (const std::string gpu : {"/device:GPU:4", "/device:GPU:6"}) {
    Names streams, derived;
    for (const std::string& name : lines[gpu]) (name.rfind("Stream #", 0) == 0 ? streams : derived).push_back(name);
    std::sort(derived.begin(), derived.end());
    EXPECT_EQ(streams.size(), 4u) << gpu;
    EXPECT_EQ(derived, (Names{"Steps", "TensorFlow Name Scope", "TensorFlow Ops"})) << gpu;
  }
  const Names& gpu4 = lines["/device:GPU:4"];
  EXPECT_NE(std::find(gpu4.begin(), gpu4.end(), "Stream #134(Compute)"), gpu4.end());
}

TEST_F(TensorFlowXPlane, HostEventsCarryTraceMeMetadataAsStats) {
  const auto& host = space_.planes(0);
  int64_t with_stats = 0;
  for (const auto& line : host.lines()) {
    for (const auto& event : line.events()) with_stats += event.stats_size() > 0;
  }
  EXPECT_GT(with_stats, 0);
  EXPECT_GT(host.stat_metadata_size(), 0);
}

}  // namespace
}  // namespace mlprof::format
