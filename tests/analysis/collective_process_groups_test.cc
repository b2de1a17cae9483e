// Collective calls are matched across ranks within their process group (Kineto's `Process
// Group Name`): a call of another group is another collective. Ranks whose calls differ by
// group are compared where they match, and the rest is named in one line per problem.
//
// On real traces: the two NCCL ranks of HTA's trace_filter test (../shared/testdata/wild/hta/
// trace_filter__sampled_rank-*), copied to a temporary directory with a process group written on
// every NCCL kernel, as PyTorch 2 writes it; in one copy rank 1's kernels of step 552 are in
// another group. And built CPU traces (gloo) with the group on record_param_comms.
#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/step_grouping.h"
#include "model/load_profile.h"
#include "model/pytorch/importer.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

using mlprof::testing::gunzip;

const std::string kHta = std::string(MLPROF_TESTDATA) + "/wild/hta/trace_filter__sampled_rank-";
const char kNcclKernel[] = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";

// The start of the ProfilerStep named `step` in a trace's events.
double step_start(const nlohmann::json& trace, const std::string& step) {
  for (const nlohmann::json& e : trace.at("traceEvents"))
    if (e.value("name", "") == step) return e.at("ts").get<double>();
  ADD_FAILURE() << step << " not in the trace";
  return 0;
}

struct NcclCounts {
  size_t step_551 = 0, step_552 = 0;
};

// Writes rank r's trace to `dir`, every NCCL kernel in process group "0" and, from
// `other_group_from` on (a ProfilerStep's name), in group "7". Returns its kernels per step.
NcclCounts write_rank(int r, const std::filesystem::path& dir, const std::string& other_group_from) {
  nlohmann::json trace = nlohmann::json::parse(gunzip(kHta + std::to_string(r) + ".json.gz"));
  const double other_from = other_group_from.empty() ? 1e300 : step_start(trace, other_group_from);
  const double s551 = step_start(trace, "ProfilerStep#551"), s552 = step_start(trace, "ProfilerStep#552");
  NcclCounts counts;
  for (nlohmann::json& e : trace.at("traceEvents")) {
    if (e.value("cat", "") != "kernel" || e.value("name", "").rfind("ncclKernel", 0) != 0) continue;
    const double ts = e.at("ts").get<double>();
    counts.step_551 += ts >= s551 && ts < s552;
    counts.step_552 += ts >= s552;
    e["args"]["Collective name"] = "all_to_all";
    e["args"]["Process Group Name"] = ts >= other_from ? "7" : "0";
  }
  std::ofstream(dir / ("rank" + std::to_string(r) + ".json")) << trace.dump();
  return counts;
}

class HtaProcessGroups : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kHta + "0.json.gz") || !std::filesystem::exists(kHta + "1.json.gz"))
      GTEST_SKIP() << kHta << "{0,1}.json.gz not found (they are in ../shared/testdata)";
    dir_ = std::filesystem::temp_directory_path() /
           ("mlprof_process_groups_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  StragglerAnalysis analyse() {
    model::Profile p;
    model::LoadError error;
    EXPECT_TRUE(model::load_profile({dir_.string(), "", ""}, &p, &error)) << error.path << ": " << error.problem;
    return compute_stragglers(p, group_steps(p));
  }
  std::filesystem::path dir_;
};

// One group on every rank: as the traces without groups (every call matched, no problem named).
TEST_F(HtaProcessGroups, OneGroupMatchesEveryCall) {
  const NcclCounts r0 = write_rank(0, dir_, ""), r1 = write_rank(1, dir_, "");
  ASSERT_EQ(r0.step_551, 5u);
  ASSERT_EQ(r1.step_551, 5u);
  ASSERT_EQ(r0.step_552, 5u);
  ASSERT_EQ(r1.step_552, 5u);
  const StragglerAnalysis s = analyse();
  EXPECT_EQ(s.matched_calls, 10u);
  EXPECT_TRUE(s.mismatches.empty()) << ::testing::PrintToString(s.mismatches);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_GE(s.steps[1].latest, 0);
}

// Rank 1's calls of step 552 in group 7, rank 0's in group 0: step 551 is compared as before,
// step 552's calls are not (the others' arrival there is unknown), and one line says why, with
// no "made fewer calls" line for either rank.
TEST_F(HtaProcessGroups, ARankInAnotherGroupIsNamedAndTheRestCompared) {
  write_rank(0, dir_, "");
  write_rank(1, dir_, "");
  const StragglerAnalysis same = analyse();
  ASSERT_EQ(same.steps.size(), 2u);
  ASSERT_EQ(same.steps[0].step_num, 551);

  write_rank(1, dir_, "ProfilerStep#552");
  const StragglerAnalysis s = analyse();
  EXPECT_EQ(s.matched_calls, 5u);  // step 551's five calls
  ASSERT_EQ(s.mismatches.size(), 1u) << ::testing::PrintToString(s.mismatches);
  EXPECT_EQ(s.mismatches[0], std::string("rank 1's ") + kNcclKernel +
                                 " calls in step 552 are in process group 7, the other ranks' in process group 0: "
                                 "each is compared only within its group");
  ASSERT_EQ(s.steps.size(), 2u);
  // Step 551 as with one group; step 552 has no call the ranks share.
  EXPECT_EQ(s.steps[0].latest, same.steps[0].latest);
  EXPECT_DOUBLE_EQ(s.steps[0].latest_late_ms, same.steps[0].latest_late_ms);
  EXPECT_EQ(s.steps[1].latest, -1);
  ASSERT_GE(s.straggler, 0);
  EXPECT_EQ(s.ranks[size_t(s.straggler)].late_ms, same.steps[0].latest_late_ms);
  EXPECT_EQ(to_json(s)["mismatches"].size(), 1u);
}

// Built CPU traces: per step, record_param_comms (which carries the group, as Kineto writes
// it) around gloo:all_reduce. Rank 2 is 5 ms late at every call.
struct GlooRank {
  int rank = 0;
  std::vector<std::string> groups;  // per call of a step, its process group
  double late_us = 0;
};

std::string gloo_trace(const GlooRank& r) {
  std::string events;
  auto add = [&](const std::string& cat, const std::string& name, double ts, double dur, const std::string& args) {
    if (!events.empty()) events += ",\n";
    events += R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
              std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {)" + args + "}}";
  };
  for (int s = 0; s < 3; ++s) {
    const double t0 = 1000 + s * 100000.0;
    add("user_annotation", "ProfilerStep#" + std::to_string(s), t0, 99000, "");
    for (size_t c = 0; c < r.groups.size(); ++c) {
      const double begin = t0 + 10000 + double(c) * 20000;
      const double arrive = begin + r.late_us, leave = begin + 6000;
      if (r.late_us > 0) add("user_annotation", "extra_work", begin, r.late_us, "");
      add("cpu_op", "record_param_comms", arrive, leave - arrive,
          R"("Collective name": "allreduce", "Process Group Name": ")" + r.groups[c] +
              R"(", "Process Group Ranks": "[0, 1, 2]", "Group size": 3)");
      add("cpu_op", "gloo:all_reduce", arrive + 1, leave - arrive - 2, "");
    }
  }
  return R"({"distributedInfo": {"backend": "gloo", "rank": )" + std::to_string(r.rank) +
         R"(, "world_size": 3}, "traceEvents": [)" + events + "]}";
}

model::Profile gloo_job(const std::vector<GlooRank>& ranks) {
  model::Profile p;
  for (const GlooRank& r : ranks) {
    const std::string json = gloo_trace(r);
    std::string error;
    EXPECT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), "worker" + std::to_string(r.rank), &p,
                                                  &error))
        << error;
  }
  return p;
}

TEST(GlooProcessGroups, CallsReadTheirGroupFromRecordParamComms) {
  const model::Profile p = gloo_job({{0, {"0", "1"}}, {1, {"0", "1"}}, {2, {"0", "1"}, 5000}});
  const std::vector<RankSteps> ranks = rank_steps(p, group_steps(p), {});
  ASSERT_EQ(ranks.size(), 3u);
  ASSERT_EQ(ranks[0].calls.size(), 6u);
  EXPECT_EQ(ranks[0].calls[0].group, "0");
  EXPECT_EQ(ranks[0].calls[1].group, "1");
  EXPECT_EQ(ranks[0].calls[1].index, 1u);        // the step's second all_reduce
  EXPECT_EQ(ranks[0].calls[1].group_index, 0u);  // the first of group 1
  const StragglerAnalysis s = compute_stragglers(ranks);
  EXPECT_EQ(s.matched_calls, 6u);
  EXPECT_TRUE(s.mismatches.empty()) << ::testing::PrintToString(s.mismatches);
  ASSERT_EQ(s.straggler, 2);
  EXPECT_NEAR(s.ranks[2].late_ms, 5.0, 1e-6);
}

// Rank 2 makes its second call of each step in group 2 while ranks 0 and 1 make it in group 1:
// the first calls are compared among all three, the second among ranks 0 and 1 only, and rank 2's
// is named once for the three steps.
TEST(GlooProcessGroups, ARankInAnotherGroupIsNamedOnce) {
  const model::Profile p = gloo_job({{0, {"0", "1"}}, {1, {"0", "1"}, 5000}, {2, {"0", "2"}}});
  const StragglerAnalysis s = compute_stragglers(p, group_steps(p));
  EXPECT_EQ(s.matched_calls, 6u);  // 3 steps x (group 0's call, group 1's call)
  ASSERT_EQ(s.mismatches.size(), 1u) << ::testing::PrintToString(s.mismatches);
  EXPECT_EQ(s.mismatches[0],
            "rank 2's gloo:all_reduce calls in steps 0-2 are in process group 2, the other ranks' in process group 1: "
            "each is compared only within its group");
  ASSERT_EQ(s.straggler, 1);
  EXPECT_NEAR(s.ranks[1].late_ms, 5.0, 1e-6);
  EXPECT_EQ(s.ranks[2].calls_matched, 3u);
  EXPECT_EQ(s.ranks[0].calls_matched, 6u);
}

}  // namespace
}  // namespace mlprof::analysis
