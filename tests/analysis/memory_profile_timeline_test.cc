// The memory timeline's reduction: at most 1,000 points out of 100 k events, and no high is
// lost: between two neighbouring kept points nothing rises above both of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "analysis/memory_profile.h"
#include "analysis/memory_profile_timeline.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

// The reduced curve has the original's upper envelope: every stretch between kept points
// (and before the first, after the last) peaks at one of its kept ends.
void expect_envelope_kept(const std::vector<int64_t>& v, const std::vector<size_t>& kept) {
  ASSERT_FALSE(kept.empty());
  ASSERT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  ASSERT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end()) << "no index twice";
  auto max_in = [&](size_t lo, size_t hi) { return *std::max_element(v.begin() + lo, v.begin() + hi + 1); };
  EXPECT_EQ(max_in(0, kept.front()), v[kept.front()]);
  EXPECT_EQ(max_in(kept.back(), v.size() - 1), v[kept.back()]);
  for (size_t i = 1; i < kept.size(); ++i)
    ASSERT_EQ(max_in(kept[i - 1], kept[i]), std::max(v[kept[i - 1]], v[kept[i]])) << "between " << kept[i - 1]
                                                                                   << " and " << kept[i];
  const size_t peak = size_t(std::max_element(v.begin(), v.end()) - v.begin());  // the first highest
  EXPECT_TRUE(std::binary_search(kept.begin(), kept.end(), peak));
}

// A training run: each of `steps` steps allocates `per_step` blocks of varying size, then frees them.
std::vector<int64_t> sawtooth(size_t steps, size_t per_step) {
  std::mt19937 rng(7);
  std::vector<int64_t> v;
  for (size_t s = 0; s < steps; ++s) {
    int64_t in_use = 1000;
    std::vector<int64_t> blocks;
    for (size_t i = 0; i < per_step / 2; ++i) blocks.push_back(1 + int64_t(rng() % 5000)), v.push_back(in_use += blocks.back());
    for (size_t i = 0; i < per_step / 2; ++i) v.push_back(in_use -= blocks[i]);
  }
  return v;
}

TEST(MemoryTimeline, KeepsEveryLocalMaximumOf100kEvents) {
  const std::vector<int64_t> v = sawtooth(400, 250);  // 100 k events, 400 peaks
  ASSERT_EQ(v.size(), 100'000u);
  const std::vector<size_t> maxima = local_maxima(v);
  ASSERT_EQ(maxima.size(), 400u);
  const std::vector<size_t> kept = select_timeline_points(v, 1000);
  EXPECT_LE(kept.size(), 1000u);
  for (size_t m : maxima) EXPECT_TRUE(std::binary_search(kept.begin(), kept.end(), m)) << m;
  expect_envelope_kept(v, kept);
}

TEST(MemoryTimeline, MoreMaximaThanPointsKeepsTheHighestOfEachStretch) {
  // Every other event is a local maximum: 50 k of them.
  std::mt19937 rng(11);
  std::vector<int64_t> v;
  for (size_t i = 0; i < 100'000; ++i) v.push_back(i % 2 ? 5000 + int64_t(rng() % 100000) : int64_t(rng() % 5000));
  ASSERT_GT(local_maxima(v).size(), 1000u);
  const std::vector<size_t> kept = select_timeline_points(v, 1000);
  EXPECT_EQ(kept.size(), 1000u);
  expect_envelope_kept(v, kept);
}

TEST(MemoryTimeline, RandomWalksKeepTheirEnvelope) {
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    std::vector<int64_t> v;
    int64_t x = 0;
    const size_t n = 2000 + rng() % 20000;
    for (size_t i = 0; i < n; ++i) v.push_back(x += int64_t(rng() % 7) - 3);  // plateaus included
    const size_t budget = 50 + rng() % 1000;
    const std::vector<size_t> kept = select_timeline_points(v, budget);
    EXPECT_LE(kept.size(), budget);
    expect_envelope_kept(v, kept);
  }
}

TEST(MemoryTimeline, PlateausAndShortSeries) {
  EXPECT_EQ(local_maxima(std::vector<int64_t>{5, 7, 7, 3}), (std::vector<size_t>{1}));
  EXPECT_EQ(local_maxima(std::vector<int64_t>{5, 7, 7, 9}), (std::vector<size_t>{3}));
  EXPECT_EQ(local_maxima(std::vector<int64_t>{9, 7, 7, 9}), (std::vector<size_t>{0, 3}));
  EXPECT_EQ(local_maxima(std::vector<int64_t>{4, 4, 4}), (std::vector<size_t>{0}));
  EXPECT_EQ(select_timeline_points(std::vector<int64_t>{1, 2, 3}, 1000), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(select_timeline_points(std::vector<int64_t>{}, 1000).empty());
}

TEST(MemoryTimeline, TheToolReducesAHundredThousandEvents) {
  // 50 k allocations and frees through the whole tool: ≤ 1,000 points, the peak among them.
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "executor", 1'700'000'000'000'000'000);
  const std::vector<int64_t> v = sawtooth(200, 500);
  int64_t previous = 0, peak = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const bool allocation = v[i] > previous;
    host.event(line, allocation ? "MemoryAllocation" : "MemoryDeallocation", int64_t(i + 1) * testing::kPsPerUs, 0,
               {{"allocator_name", std::string("GPU_0_bfc")}, {"addr", uint64_t(i)},
                {"allocation_bytes", std::abs(v[i] - previous)}, {"bytes_allocated", v[i]}});
    previous = v[i];
    peak = std::max(peak, v[i]);
  }
  const MemoryProfile m = compute_memory_profile(testing::import_space(space));
  ASSERT_EQ(m.memory_ids.size(), 1u);
  const auto& timeline = m.memory_ids[0].timeline;
  EXPECT_LE(timeline.size(), 1000u);
  EXPECT_EQ(m.memory_ids[0].summary.peak_heap_bytes, peak);
  EXPECT_EQ(m.memory_ids[0].summary.num_allocs + m.memory_ids[0].summary.num_deallocs, 100'000u);
  size_t maxima_kept = 0;
  for (size_t idx : local_maxima(v))
    for (const auto& p : timeline) maxima_kept += p.time_ps == int64_t(idx + 1) * testing::kPsPerUs;
  EXPECT_EQ(maxima_kept, 200u);
}

}  // namespace
}  // namespace mlprof::analysis
