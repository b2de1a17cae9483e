// `mlprof info` on TensorFlow's own file lists its 9 planes and its GPU stream lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

const std::string kTensorFlowFile = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";

TEST(CliInfoTensorFlow, ListsNinePlanesAndStreamLines) {
  if (!std::filesystem::exists(kTensorFlowFile))
    GTEST_SKIP() << "shared test data not found at " << kTensorFlowFile << " (only CI has it)";
  // The JSON speaks the format's words.
  const auto r = mlprof::testing::run_mlprof("info " + kTensorFlowFile + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info = nlohmann::json::parse(r.out);
  const auto& host = info["runs"][0]["hosts"][0];
  ASSERT_EQ(host["planes"].size(), 9u) << r.out;
  std::set<std::string> planes, lines;
  for (const auto& plane : host["planes"]) {
    planes.insert(plane["name"]);
    for (const auto& line : plane["lines"]) lines.insert(line["name"]);
  }
  EXPECT_TRUE(planes.count("/host:CPU"));
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_TRUE(planes.count("/device:GPU:" + std::to_string(gpu))) << gpu;
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("Stream #"); }));
  EXPECT_TRUE(lines.count("TensorFlow Ops"));
  EXPECT_EQ(host["hostnames"][0], "34.83.195.179:6003");
  // The text, the user's.
  const auto text = mlprof::testing::run_mlprof("info " + kTensorFlowFile);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("  machine: 34.83.195.179:6003\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  GPU 0 \"/device:GPU:0\": "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" timeline rows\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("  plane "), std::string::npos) << text.out;
}

}  // namespace
