// A deallocation the profile never saw allocated (its block was allocated before the profile
// began, or the allocation event was lost) is reported as a warning, not a crash.
#include <gtest/gtest.h>

#include "analysis/memory_profile.h"
#include "analysis/training_profile.h"
#include "cli/report_text.h"

namespace mlprof::analysis {
namespace {

using testing::kPsPerMs;
using testing::StatArg;

model::Profile unmatched_free_profile() {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "executor", 1'700'000'000'000'000'000);
  struct Event {
    bool allocation;
    uint64_t address;
    int64_t bytes, heap;
  };
  // 0xB is freed without having been allocated; 0xA is allocated and freed normally.
  const Event events[] = {{true, 0xA, 1000, 1000}, {false, 0xB, 500, 500}, {false, 0xA, 1000, 0}};
  int64_t t = 1;
  for (const Event& e : events) {
    const std::vector<StatArg> stats = {{"allocator_name", std::string("GPU_0_bfc")}, {"addr", e.address},
                                        {"allocation_bytes", e.bytes}, {"bytes_allocated", e.heap},
                                        {"bytes_available", 10000 - e.heap}};
    host.event(line, e.allocation ? "MemoryAllocation" : "MemoryDeallocation", t++ * kPsPerMs, 0, stats);
  }
  return testing::import_space(space);
}

TEST(MemoryProfileUnmatchedFree, IsAWarningInTheResultAndTheText) {
  const MemoryProfile m = compute_memory_profile(unmatched_free_profile());
  ASSERT_EQ(m.memory_ids.size(), 1u);
  EXPECT_EQ(m.memory_ids[0].summary.num_allocs, 1u);
  EXPECT_EQ(m.memory_ids[0].summary.num_deallocs, 2u);
  EXPECT_EQ(m.memory_ids[0].summary.peak_heap_bytes, 1000);
  ASSERT_EQ(m.warnings.size(), 1u);
  const std::string& w = m.warnings[0];
  EXPECT_NE(w.find("GPU_0_bfc"), std::string::npos) << w;
  EXPECT_NE(w.find("1 deallocation (500 bytes) had no matching allocation"), std::string::npos) << w;
  EXPECT_NE(w.find("2.000 ms"), std::string::npos) << w;
  EXPECT_NE(w.find("0xb"), std::string::npos) << w;

  const nlohmann::json j = to_json(m);
  ASSERT_TRUE(j.contains("warnings"));
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_EQ(j["warnings"][0], w);

  const std::string text = cli::render_text(m, "");
  EXPECT_NE(text.find("Warning: " + w), std::string::npos) << text;
}

TEST(MemoryProfileUnmatchedFree, MatchedSequenceHasNoWarning) {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "executor", 1'700'000'000'000'000'000);
  host.event(line, "MemoryAllocation", kPsPerMs, 0,
             {{"allocator_name", std::string("cpu")}, {"addr", uint64_t(0xA)}, {"allocation_bytes", int64_t(64)}});
  host.event(line, "MemoryDeallocation", 2 * kPsPerMs, 0,
             {{"allocator_name", std::string("cpu")}, {"addr", uint64_t(0xA)}, {"allocation_bytes", int64_t(64)}});
  const MemoryProfile m = compute_memory_profile(testing::import_space(space));
  EXPECT_TRUE(m.warnings.empty());
  EXPECT_TRUE(to_json(m)["warnings"].empty());
}

}  // namespace
}  // namespace mlprof::analysis
