// pod_viewer on a run of two synthetic workers whose stages take known times: one waits long
// for input (the straggler), the other computes.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/csv.h"
#include "analysis/pod_viewer.h"
#include "analysis/training_profile.h"
#include "format/scratch_dir.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

using testing::ScratchDir;
using testing::TrainingShape;

model::Profile two_worker_run(const ScratchDir& dir) {
  const std::string run = dir / "plugins/profile/run";
  std::filesystem::create_directories(run);
  testing::write_xspace(run + "/straggler.xplane.pb",
                        testing::training_space({.steps = 12, .input_wait_ms = 80, .compute_ms = 40, .loader = false}));
  testing::write_xspace(run + "/healthy.xplane.pb",
                        testing::training_space({.steps = 12, .input_wait_ms = 5, .compute_ms = 45, .loader = false}));
  model::Profile profile;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({run, "", ""}, &profile, &error)) << error.problem;
  return profile;
}

TEST(PodViewer, NamesTheSlowestWorkerAndEachWorkersBottleneck) {
  ScratchDir dir;
  const PodViewer pod = compute_pod_viewer(two_worker_run(dir));
  ASSERT_EQ(pod.workers.size(), 2u);
  const PodWorker* straggler = nullptr;
  const PodWorker* healthy = nullptr;
  for (const auto& w : pod.workers) (w.host == "straggler" ? straggler : healthy) = &w;
  ASSERT_TRUE(straggler && healthy);

  // 12 steps each, all analysed (none was cut by the capture).
  EXPECT_EQ(straggler->steps.size(), 12u);
  EXPECT_EQ(healthy->steps.size(), 12u);
  EXPECT_NEAR(straggler->step_time_ms.avg, 120, 0.01);
  EXPECT_NEAR(healthy->step_time_ms.avg, 50, 0.01);
  EXPECT_EQ(straggler->bottleneck, Category::kInput);
  EXPECT_NEAR(straggler->breakdown_pct[size_t(Category::kInput)], 100.0 * 80 / 120, 0.01);
  EXPECT_EQ(healthy->bottleneck, Category::kHostCompute);
  EXPECT_NEAR(healthy->breakdown_ms[size_t(Category::kHostCompute)], 45, 0.01);

  ASSERT_GE(pod.slowest_worker, 0);
  EXPECT_EQ(pod.workers[size_t(pod.slowest_worker)].host, "straggler");
  EXPECT_NEAR(pod.slowest_vs_fastest_pct, 140, 0.01);

  // Steps line up by number, each with both workers, the straggler slowest in every one.
  ASSERT_EQ(pod.steps.size(), 12u);
  for (const PodStep& step : pod.steps) {
    EXPECT_EQ(step.shares.size(), 2u);
    EXPECT_EQ(pod.workers[step.slowest_worker].host, "straggler");
  }
}

TEST(PodViewer, JsonAndCsvKeepTheKeysTheUiReads) {
  ScratchDir dir;
  const PodViewer pod = compute_pod_viewer(two_worker_run(dir));
  const nlohmann::json j = to_json(pod);
  EXPECT_EQ(j["worker_count"], 2);
  EXPECT_EQ(j["slowest_worker"]["host"], "straggler");
  EXPECT_EQ(j["slowest_worker"]["bottleneck"], "input");
  for (const auto& w : j["workers"]) {
    for (const char* key : {"host", "step_count", "step_time_ms", "breakdown_ms", "breakdown_pct", "bottleneck",
                            "bottleneck_pct", "is_slowest"})
      EXPECT_TRUE(w.contains(key)) << key;
    EXPECT_EQ(w["is_slowest"], w["host"] == "straggler");
  }
  ASSERT_EQ(j["steps"].size(), 12u);
  EXPECT_EQ(j["steps"][0]["workers"].size(), 2u);
  EXPECT_TRUE(j["steps"][0]["workers"][0]["breakdown_ms"].contains("input"));

  const std::string csv = to_csv(pod);
  EXPECT_EQ(csv.rfind("host,step,start_ms,total_ms,input_ms,", 0), 0u) << csv.substr(0, 80);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 25);  // header and 12 steps per worker
}

// CSV times keep every digit: a step three hours into a run starts at 10,800,000.123 ms, which
// six significant digits would print as 1.08e+07 for every step of that hour.
TEST(PodViewer, CsvNumbersKeepEveryDigit) {
  EXPECT_EQ(csv_number(10800000.123), "10800000.123");
  EXPECT_EQ(csv_number(-8870463729.202), "-8870463729.202");
  EXPECT_EQ(csv_number(0.1), "0.1");
  EXPECT_EQ(csv_number(120), "120");
}

TEST(PodViewer, AWorkerWithoutStepsIsListedWithoutABottleneck) {
  ScratchDir dir;
  const std::string run = dir / "plugins/profile/run";
  std::filesystem::create_directories(run);
  testing::write_xspace(run + "/stepping.xplane.pb", testing::training_space({.steps = 3, .loader = false}));
  tensorflow::profiler::XSpace idle;
  auto plane = testing::add_plane(&idle, 1, "/host:CPU");
  auto* line = plane.line(7, "helper", 1'700'000'000'000'000'000);
  plane.event(line, "setup", 0, 5 * testing::kPsPerMs);
  testing::write_xspace(run + "/idle.xplane.pb", idle);
  model::Profile profile;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({run, "", ""}, &profile, &error)) << error.problem;

  const nlohmann::json j = to_json(compute_pod_viewer(profile));
  ASSERT_EQ(j["workers"].size(), 2u);
  for (const auto& w : j["workers"]) {
    if (w["host"] != "idle") continue;
    EXPECT_EQ(w["step_count"], 0);
    EXPECT_EQ(w["bottleneck"], "");
    EXPECT_EQ(w["is_slowest"], false);
  }
  EXPECT_EQ(j["slowest_worker"]["host"], "stepping");
}

}  // namespace
}  // namespace mlprof::analysis
