// mlprof diff A B --fail-above PCT as a CI job runs it: exit 3 when B's average step is more
// than PCT % slower, with the categories and ops that grew; 4 with one line saying why when the
// step times cannot be judged (the diff calls them not comparable); 0 otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/diff_gate.h"
#include "analysis/training_profile.h"
#include "cli/cli_runner.h"

namespace {

using namespace mlprof::testing;

// The same training without step markers: its train roots are plain events, so the run is one
// pseudo step over its whole profile.
tensorflow::profiler::XSpace without_step_markers(tensorflow::profiler::XSpace space) {
  for (auto& plane : *space.mutable_planes())
    for (auto& line : *plane.mutable_lines())
      for (auto& event : *line.mutable_events()) event.clear_stats();
  return space;
}

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

// One run with steps, the other without: the diff says "not comparable", so the gate neither
// passes nor fails, whatever the limit and whichever side lacks steps.
class DiffGateNotComparable : public DiffGate {
 protected:
  void SetUp() override {
    DiffGate::SetUp();
    write_xspace(dir_.path() + "/c/worker0.xplane.pb", without_step_markers(training_space({})));
  }
  std::string with_c(const std::string& a, const std::string& b, const std::string& args) {
    return "diff '" + dir_.path() + "/" + a + "/worker0.xplane.pb' '" + dir_.path() + "/" + b + "/worker0.xplane.pb' " +
           args;
  }
};

TEST_F(DiffGateNotComparable, ExitsWithItsOwnStatusAndSaysWhy) {
  for (const auto& [a, b, markers_missing] : {std::tuple{"a", "c", "B has no step markers"},
                                              std::tuple{"c", "a", "A has no step markers"}}) {
    for (const std::string limit : {"0", "1000"}) {
      SCOPED_TRACE(std::string(a) + " vs " + b + ", limit " + limit);
      const CliResult r = run_mlprof(with_c(a, b, "--fail-above " + limit));
      EXPECT_EQ(r.exit_code, 4) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find("cannot judge"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(markers_missing), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find(": ok"), std::string::npos) << r.err;
      EXPECT_NE(r.out.find("Not comparable"), std::string::npos) << r.out;  // the diff itself as usual
    }
  }
  // JSON stays clean on stdout and says the same.
  const CliResult r = run_mlprof(with_c("a", "c", "--fail-above 10 --format json"));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  ASSERT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["steps_compared"]["comparable"].get<bool>());
  // Without the gate the diff is no error.
  EXPECT_EQ(run_mlprof(with_c("a", "c", "")).exit_code, 0);
}

// Two runs without steps compare as whole profiles (the diff calls that comparable): judged.
TEST_F(DiffGateNotComparable, JudgesTwoWholeProfiles) {
  const CliResult r = run_mlprof(with_c("c", "c", "--fail-above 0"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(": ok"), std::string::npos) << r.err;
}

// A baseline with no step time leaves no percentage to judge: it is no pass either.
TEST(DiffGateVerdict, ABaselineWithoutStepTimeIsNotJudged) {
  mlprof::analysis::ProfileDiff diff;
  diff.steps_compared = mlprof::analysis::StepsCompared::kWholeProfiles;
  diff.step_time_ms = {0, 120};
  const auto gate = mlprof::analysis::check_diff_gate(diff, 10);
  EXPECT_FALSE(gate.judged());
  EXPECT_FALSE(gate.failed);
  EXPECT_NE(gate.not_judged_why.find("A has no step time"), std::string::npos) << gate.not_judged_why;
  diff.step_time_ms = {100, 120};
  EXPECT_TRUE(mlprof::analysis::check_diff_gate(diff, 10).judged());
  EXPECT_TRUE(mlprof::analysis::check_diff_gate(diff, 10).failed);
}

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
