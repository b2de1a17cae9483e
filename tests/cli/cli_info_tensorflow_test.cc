// `mlprof info` on TensorFlow's own file lists its 9 planes and its GPU stream lines.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_runner.h"

namespace {

const std::string kTensorFlowFile = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";

TEST(CliInfoTensorFlow, ListsNinePlanesAndStreamLines) {
  if (!std::filesystem::exists(kTensorFlowFile))
    GTEST_SKIP() << "shared test data not found at " << kTensorFlowFile << " (only CI has it)";
  const auto r = mlprof::testing::run_mlprof("info " + kTensorFlowFile);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int planes = 0;
  for (size_t at = r.out.find("  plane "); at != std::string::npos; at = r.out.find("  plane ", at + 1)) ++planes;
  EXPECT_EQ(planes, 9) << r.out;
  EXPECT_NE(r.out.find("\"/host:CPU\""), std::string::npos);
  for (int gpu = 0; gpu < 8; ++gpu)
    EXPECT_NE(r.out.find("\"/device:GPU:" + std::to_string(gpu) + "\""), std::string::npos) << gpu;
  EXPECT_NE(r.out.find("\"Stream #"), std::string::npos);
  EXPECT_NE(r.out.find("\"TensorFlow Ops\""), std::string::npos);
  EXPECT_NE(r.out.find("hostnames: 34.83.195.179:6003"), std::string::npos);
}

}  // namespace
