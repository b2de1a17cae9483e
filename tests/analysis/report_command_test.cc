// mlprof report and mlprof diff as a user runs them: formats, run and host selection, errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/training_profile.h"
#include "cli/cli_runner.h"

namespace {

using namespace mlprof::testing;

class ReportCommand : public ::testing::Test {
 protected:
  // A logdir with two runs; the newer has two hosts, one input-bound and one not.
  void SetUp() override {
    TrainingShape compute_bound;
    compute_bound.input_wait_ms = 0.5;
    compute_bound.compute_ms = 99.5;
    const std::string profiles = dir_.path() + "/plugins/profile/";
    write_xspace(profiles + "2024_01_01_00_00_00/worker0.xplane.pb", training_space(compute_bound));
    write_xspace(profiles + "2024_01_02_00_00_00/worker0.xplane.pb", training_space({}));
    write_xspace(profiles + "2024_01_02_00_00_00/worker1.xplane.pb", training_space(compute_bound));
  }
  std::string q(const std::string& s) { return "'" + s + "'"; }
  TempDir dir_;
};

TEST_F(ReportCommand, TextShowsTheVerdictAndRecommendationsFirst) {
  const CliResult r = run_mlprof("report " + q(dir_.path()) + " --host worker0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t verdict = r.out.find("HIGHLY input-bound"), recs = r.out.find("Recommendations"),
               table = r.out.find("Step-time breakdown");
  ASSERT_NE(verdict, std::string::npos) << r.out;
  EXPECT_LT(verdict, recs);
  EXPECT_LT(recs, table);
  EXPECT_NE(r.out.find("FileRead"), std::string::npos);
}

TEST_F(ReportCommand, JsonHasTheRequiredKeys) {
  const CliResult r = run_mlprof("report " + q(dir_.path()) + " --host worker0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 20u);  // all 20: none was cut by a capture
  for (const char* key : {"input", "output", "compilation", "kernel_launch", "host_compute", "device_to_device",
                          "device_collectives", "device_compute", "other"}) {
    EXPECT_TRUE(j["steps"][0]["breakdown_ms"].contains(key)) << key;
    EXPECT_TRUE(j["summary"]["breakdown_pct"].contains(key)) << key;
  }
  for (const char* key : {"avg", "stddev", "min", "max"}) EXPECT_TRUE(j["summary"]["step_time_ms"].contains(key));
  EXPECT_EQ(j["input_bound"]["verdict"], "HIGHLY");
  EXPECT_NEAR(j["input_bound"]["input_pct"].get<double>(), 30.0, 3.0);
  EXPECT_TRUE(j["precision"].contains("bits16_pct"));
  EXPECT_TRUE(j["top_ops"].is_array());
  EXPECT_TRUE(j["run_environment"].is_object());
  EXPECT_TRUE(j["recommendations"].is_array());
}

TEST_F(ReportCommand, RunAndHostSelection) {
  // Both hosts of the newest run: 40 steps, average input 15 %.
  auto j = nlohmann::json::parse(run_mlprof("report " + q(dir_.path()) + " --format json").out);
  EXPECT_EQ(j["steps"].size(), 40u);
  EXPECT_EQ(j["run_environment"]["host_count"], 2);
  j = nlohmann::json::parse(run_mlprof("report " + q(dir_.path()) + " --host worker1 --format json").out);
  EXPECT_EQ(j["input_bound"]["verdict"], "NOT");
  j = nlohmann::json::parse(run_mlprof("report " + q(dir_.path()) + " --run 2024_01_01_00_00_00 --format json").out);
  EXPECT_EQ(j["input_bound"]["verdict"], "NOT");

  CliResult r = run_mlprof("report " + q(dir_.path()) + " --host nobody");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("worker0, worker1"), std::string::npos) << r.err;
  r = run_mlprof("report " + q(dir_.path()) + " --run 1999_01_01_00_00_00");
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(ReportCommand, EveryToolInEveryFormat) {
  for (const char* tool : {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "tf_data_bottleneck_analysis"}) {
    for (const char* format : {"text", "json", "csv"}) {
      const CliResult r =
          run_mlprof("report " + q(dir_.path()) + " --host worker0 --tool " + tool + " --format " + format);
      EXPECT_EQ(r.exit_code, 0) << tool << " " << format << ": " << r.err;
      EXPECT_FALSE(r.out.empty()) << tool << " " << format;
      if (std::string(format) == "json") {
        EXPECT_TRUE(nlohmann::json::accept(r.out)) << tool;
      }
    }
  }
  const CliResult csv = run_mlprof("report " + q(dir_.path()) + " --host worker0 --tool framework_op_stats --format csv");
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 6);  // header + one row per op
  const CliResult idle =
      run_mlprof("report " + q(dir_.path()) + " --host worker0 --tool framework_op_stats --format csv --include-idle");
  EXPECT_NE(idle.out.find("IDLE"), std::string::npos);
}

TEST_F(ReportCommand, UsageAndBadInput) {
  EXPECT_EQ(run_mlprof("report " + q(dir_.path()) + " --tool no_such_tool").exit_code, 1);
  EXPECT_EQ(run_mlprof("report " + q(dir_.path()) + " --format xml").exit_code, 1);
  TempDir empty;
  CliResult r = run_mlprof("report " + q(empty.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  write_file(empty.path() + "/text.xplane.pb", "just some text\n");
  r = run_mlprof("report " + q(empty.path() + "/text.xplane.pb"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("text.xplane.pb"), std::string::npos);
  EXPECT_NE(r.err.find("not an XSpace"), std::string::npos) << r.err;
  r = run_mlprof("report " + q(empty.path() + "/missing.xplane.pb"));
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(ReportCommand, DiffTwoRuns) {
  const std::string profiles = dir_.path() + "/plugins/profile/";
  CliResult r = run_mlprof("diff " + q(profiles + "2024_01_01_00_00_00") + " " +
                           q(profiles + "2024_01_02_00_00_00/worker0.xplane.pb"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Average step time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NOT -> HIGHLY"), std::string::npos) << r.out;
  r = run_mlprof("diff " + q(profiles + "2024_01_01_00_00_00") + " " + q(profiles + "2024_01_02_00_00_00") +
                 " --host worker0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["breakdown_ms"]["input"]["change_ms"].get<double>(), 29.5, 1e-6);
  EXPECT_EQ(run_mlprof("diff " + q(profiles) + "nothing " + q(profiles)).exit_code, 2);
}

}  // namespace

namespace {

// A run that recorded nothing (a program with no annotations or framework ops) gets no verdict
// or table of zeros, but why there is nothing and how to record it.
TEST(ReportCommandEmptyRun, SaysThereIsNothingInsteadOfAVerdict) {
  TempDir dir;
  TrainingShape nothing;
  nothing.steps = 0;
  nothing.loader = false;
  const std::string host = dir.path() + "/plugins/profile/2024_01_01_00_00_00/worker0.xplane.pb";
  write_xspace(host, training_space(nothing));
  for (const char* tool : {"overview_page", "framework_op_stats", "input_pipeline_analyzer"}) {
    const CliResult r = run_mlprof("report '" + dir.path() + "' --tool " + tool);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("0 events"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string(tool) == "framework_op_stats" ? "No ops were found" : "The profile has no events"),
              std::string::npos)
        << tool << ":\n" << r.out;
    EXPECT_EQ(r.out.find("input-bound"), std::string::npos) << tool << ":\n" << r.out;
  }
}

}  // namespace
