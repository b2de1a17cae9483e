// The overview recommends saving memory when an allocator's peak comes within 10 % of its
// capacity, with the peak, the capacity, the step and the op holding the most bytes there.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/overview_page.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using testing::kPsPerMs;
using testing::StatArg;

constexpr int64_t kGiB = int64_t(1) << 30;

// Twenty steps of 100 ms; in step 12 two ops allocate `conv_bytes` and `matmul_bytes` on a
// 16 GiB GPU allocator, then free them.
model::Profile profile_with_memory(int64_t conv_bytes, int64_t matmul_bytes) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "main", 1'700'000'000'000'000'000);
  for (int64_t s = 0; s < 20; ++s) {
    host.event(main, "train", s * 100 * kPsPerMs, 100 * kPsPerMs, {{"step_num", s}, {"_r", int64_t(1)}});
    host.event(main, "train_step", s * 100 * kPsPerMs, 90 * kPsPerMs);
  }
  auto* line = host.line(102, "executor", 1'700'000'000'000'000'000);
  struct Event {
    bool allocation;
    uint64_t address;
    int64_t bytes;
    std::string op;
  };
  const Event events[] = {{true, 0x1000, conv_bytes, "conv1"}, {true, 0x2000, matmul_bytes, "matmul"},
                          {false, 0x2000, matmul_bytes, "matmul"}, {false, 0x1000, conv_bytes, "conv1"}};
  int64_t heap = 0, t = 12 * 100 * kPsPerMs + 40 * kPsPerMs;
  for (const Event& e : events) {
    heap += e.allocation ? e.bytes : -e.bytes;
    const std::vector<StatArg> stats = {{"allocator_name", std::string("GPU_0_bfc")}, {"addr", e.address},
                                        {"allocation_bytes", e.bytes}, {"bytes_allocated", heap},
                                        {"bytes_available", 16 * kGiB - heap}, {"bytes_reserved", int64_t(0)},
                                        {"tf_op", e.op}, {"id", int64_t(12)}};
    host.event(line, e.allocation ? "MemoryAllocation" : "MemoryDeallocation", t, 0, stats);
    t += kPsPerMs;
  }
  return testing::import_space(space);
}

std::vector<std::string> memory_recommendations(const OverviewPage& page) {
  std::vector<std::string> out;
  for (const Recommendation& r : page.recommendations)
    if (r.text.find("Memory peaks") != std::string::npos) out.push_back(r.text);
  return out;
}

TEST(OverviewMemoryRecommendation, PeakAt95PercentIsRecommendedWithItsNumbers) {
  // 8 + 7.2 = 15.2 GiB of 16 GiB: 95 %.
  const OverviewPage page = compute_overview_page(profile_with_memory(8 * kGiB, 72 * kGiB / 10));
  const auto memory = memory_recommendations(page);
  ASSERT_EQ(memory.size(), 1u);
  const std::string& r = memory[0];
  EXPECT_NE(r.find("Memory peaks at 95% of GPU_0_bfc's capacity (15.2 of 16.0 GiB) at step 12"), std::string::npos) << r;
  EXPECT_NE(r.find("smaller batch"), std::string::npos) << r;
  EXPECT_NE(r.find("mixed precision"), std::string::npos) << r;
  EXPECT_NE(r.find("8.0 GiB, were allocated by conv1"), std::string::npos) << r;
}

TEST(OverviewMemoryRecommendation, PeakAt50PercentIsNotMentioned) {
  const OverviewPage page = compute_overview_page(profile_with_memory(4 * kGiB, 4 * kGiB));
  EXPECT_TRUE(memory_recommendations(page).empty());
  EXPECT_FALSE(page.recommendations.empty());  // the other recommendations are still made
}

TEST(OverviewMemoryRecommendation, NoMemoryEventsNoMemoryRecommendation) {
  const OverviewPage page = compute_overview_page(testing::import_space(testing::training_space({})));
  EXPECT_TRUE(memory_recommendations(page).empty());
}

}  // namespace
}  // namespace mlprof::analysis
