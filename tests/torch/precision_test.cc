// On a host with no device, ops with half or bfloat16 inputs count as 16-bit compute in the
// overview's precision figure (their input types are recorded at host_tracer_level 3).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "analysis/overview_page.h"
#include "mlprof/mlprof.h"
#include "mlprof/torch.h"
#include "model/load_profile.h"

namespace mlprof::testing {
namespace {

namespace fs = std::filesystem;

analysis::OverviewPage overview_of_matmuls(int level) {
  const fs::path dir = fs::temp_directory_path() / ("mlprof_torch_precision_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const torch::Tensor half_input = torch::ones({96, 96}, torch::kBFloat16);
  const torch::Tensor float_input = torch::ones({96, 96});
  ProfilerOptions options;
  options.host_tracer_level = level;
  EXPECT_TRUE(start(dir.string(), options).ok());
  for (int i = 0; i < 20; ++i) {
    torch::mm(half_input, half_input);
    torch::mm(float_input, float_input);
  }
  const RunInfo run = stop();
  EXPECT_TRUE(run.status.ok()) << run.status.message();
  model::Profile profile;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({run.xspace_path}, &profile, &error)) << error.path << ": " << error.problem;
  fs::remove_all(dir);
  return analysis::compute_overview_page(profile);
}

TEST(TorchPrecision, Bfloat16OpsCountAs16BitCompute) {
  const analysis::OverviewPage page = overview_of_matmuls(3);
  EXPECT_GT(page.bits16_pct, 0);
  EXPECT_GT(page.bits32_pct, 0);
  EXPECT_NEAR(page.bits16_pct + page.bits32_pct, 100, 1e-6);
}

TEST(TorchPrecision, UnknownWithoutInputTypes) {
  const analysis::OverviewPage page = overview_of_matmuls(2);
  EXPECT_EQ(page.bits16_pct + page.bits32_pct, 0);
}

}  // namespace
}  // namespace mlprof::testing
