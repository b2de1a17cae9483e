// mlprof diff A B --fail-above PCT as a CI job runs it: exit 3 when B's average step is more
// than PCT % slower, with the categories and ops that grew; 0 otherwise.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/training_profile.h"
#include "cli/cli_runner.h"

namespace {

using namespace mlprof::testing;

class DiffGate : public ::testing::Test {
 protected:
  // A: 30 ms input + 70 ms compute per step; B: the compute takes 90 ms, so B's step is 20 % slower.
  void SetUp() override {
    TrainingShape slower;
    slower.compute_ms = 90;
    write_xspace(dir_.path() + "/a/worker0.xplane.pb", training_space({}));
    write_xspace(dir_.path() + "/b/worker0.xplane.pb", training_space(slower));
  }
  std::string diff(const std::string& args) {
    return "diff '" + dir_.path() + "/a/worker0.xplane.pb' '" + dir_.path() + "/b/worker0.xplane.pb' " + args;
  }
  TempDir dir_;
};

TEST_F(DiffGate, FailsWhenSlowerThanAllowed) {
  const CliResult r = run_mlprof(diff("--fail-above 10"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("20.0% slower than A's (limit 10.0%)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("host_compute"), std::string::npos) << r.err;  // the category that grew
  EXPECT_NE(r.err.find("backward"), std::string::npos) << r.err;      // an op that grew
  EXPECT_EQ(r.err.find("input "), std::string::npos) << r.err;        // unchanged: not listed
  EXPECT_NE(r.out.find("Average step time"), std::string::npos);      // the diff itself as usual
}

TEST_F(DiffGate, PassesWithinTheLimitAndKeepsJsonClean) {
  CliResult r = run_mlprof(diff("--fail-above 25"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_mlprof(diff("--fail-above 10 --format json"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(nlohmann::json::accept(r.out));
  // B against itself never fails; a negative limit is a usage error.
  r = run_mlprof("diff '" + dir_.path() + "/b/worker0.xplane.pb' '" + dir_.path() + "/b/worker0.xplane.pb' --fail-above 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_mlprof(diff("--fail-above -5")).exit_code, 1);
}

}  // namespace
