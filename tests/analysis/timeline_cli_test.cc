// The GPU timeline tools as a user runs them: mlprof report --tool <id> on a real PyTorch trace
// in every format, with the required JSON keys per host, the scope option and its errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli/cli_runner.h"

namespace {

using mlprof::testing::CliResult;
using mlprof::testing::run_mlprof;

const std::string kTrace = std::string(MLPROF_TESTDATA) + "/pytorch/nccl_parser_config__nccl_data.json.gz";

#define SKIP_WITHOUT_TRACE() \
  if (!std::filesystem::exists(kTrace)) GTEST_SKIP() << kTrace << " not found (the real profiles are in ../shared/testdata)"

nlohmann::json report_json(const std::string& tool, const std::string& options = "") {
  const CliResult r = run_mlprof("report '" + kTrace + "' --tool " + tool + " --format json " + options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(TimelineCli, EveryToolInEveryFormat) {
  SKIP_WITHOUT_TRACE();
  for (const char* tool : {"gpu_time_breakdown", "gpu_idle_time", "comm_compute_overlap", "kernel_launch_stats",
                           "gpu_queue_length"})
    for (const char* format : {"text", "csv"}) {
      const CliResult r = run_mlprof("report '" + kTrace + "' --tool " + tool + " --format " + format);
      EXPECT_EQ(r.exit_code, 0) << tool << " " << format << ": " << r.err;
      EXPECT_FALSE(r.out.empty());
    }
  const auto breakdown = report_json("gpu_time_breakdown")["hosts"][0];
  EXPECT_TRUE(breakdown.contains("host"));
  EXPECT_TRUE(breakdown["gpu_time_breakdown"].contains("kernel_type_pct"));
  EXPECT_FALSE(breakdown.contains("gpu_idle_time"));  // each tool its own part
  EXPECT_EQ(report_json("gpu_idle_time")["hosts"][0]["gpu_idle_time"]["streams"].size(), 2u);
  EXPECT_TRUE(report_json("comm_compute_overlap")["hosts"][0]["comm_compute_overlap"]["overlap_pct"].is_number());
  // HTA 0.6.1 counts 1347 launch-bound kernels when it rounds times to whole microseconds.
  EXPECT_EQ(report_json("kernel_launch_stats", "--hta-rounding")["hosts"][0]["kernel_launch_stats"]["short_kernels"],
            1347);
  EXPECT_EQ(report_json("gpu_queue_length")["hosts"][0]["gpu_queue_length"]["streams"][0]["max"], 10);
}

TEST(TimelineCli, Scopes) {
  SKIP_WITHOUT_TRACE();
  const auto hta = report_json("gpu_time_breakdown");
  const auto steps = report_json("gpu_time_breakdown", "--scope steps");
  const auto all = report_json("gpu_time_breakdown", "--scope profile");
  EXPECT_EQ(hta["scope"], "hta");
  EXPECT_EQ(steps["scope"], "steps");
  // The profile's span holds the last step, which HTA's scope leaves out.
  EXPECT_GT(all["hosts"][0]["gpu_time_breakdown"]["span_us"].get<double>(),
            hta["hosts"][0]["gpu_time_breakdown"]["span_us"].get<double>());
  const CliResult bad = run_mlprof("report '" + kTrace + "' --tool gpu_idle_time --scope nowhere");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("hta,steps,profile"), std::string::npos) << bad.err;
}

}  // namespace
