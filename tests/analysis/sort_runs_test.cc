// Sorted runs walked side by side visit their items as a stable sort of the whole would order
// them: equal items of an earlier run first, each run's own order kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "analysis/sort_runs.h"

namespace mlprof::analysis {
namespace {

using Item = std::pair<int, int>;  // key, tag saying which item it is
auto by_key = [](const Item& a, const Item& b) { return a.first < b.first; };

std::vector<Item> visited(const std::vector<Item>& v, const std::vector<size_t>& bounds) {
  std::vector<Item> out;
  visit_sorted_runs(v, bounds, by_key, [&](const Item& i) { out.push_back(i); });
  return out;
}

TEST(VisitSortedRuns, EqualKeysTakeTheEarlierRunFirst) {
  // Runs {1,3,3,5} {3,3,4} {0,3}: the 3s of run 0, then run 1's, then run 2's.
  const std::vector<Item> v = {{1, 0}, {3, 1}, {3, 2}, {5, 3}, {3, 4}, {3, 5}, {4, 6}, {0, 7}, {3, 8}};
  const std::vector<Item> want = {{0, 7}, {1, 0}, {3, 1}, {3, 2}, {3, 4}, {3, 5}, {3, 8}, {4, 6}, {5, 3}};
  EXPECT_EQ(visited(v, {0, 4, 7, 9}), want);
}

TEST(VisitSortedRuns, LongStretchesOfOneRunAndEmptyRuns) {
  // Run 0 holds 0..9, run 1 is empty, run 2 holds 20..24 then run 3 10..14: each whole in turn.
  std::vector<Item> v;
  for (int k = 0; k < 10; ++k) v.push_back({k, k});
  for (int k = 20; k < 25; ++k) v.push_back({k, k});
  for (int k = 10; k < 15; ++k) v.push_back({k, k});
  std::vector<int> keys;
  for (const Item& i : visited(v, {0, 10, 10, 15, 20})) keys.push_back(i.first);
  std::vector<int> want;
  for (int k = 0; k < 15; ++k) want.push_back(k);
  for (int k = 20; k < 25; ++k) want.push_back(k);
  EXPECT_EQ(keys, want);
  EXPECT_TRUE(visited({}, {0}).empty());
}

TEST(VisitSortedRuns, SameOrderAsAStableSortOfRandomRuns) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t runs = 1 + rng() % 8;
    std::vector<Item> v;
    std::vector<size_t> bounds;
    for (size_t r = 0; r < runs; ++r) {
      bounds.push_back(v.size());
      std::vector<int> keys(rng() % 12);
      for (int& k : keys) k = int(rng() % 6);  // few distinct keys: many ties
      std::sort(keys.begin(), keys.end());
      for (int k : keys) v.push_back({k, int(v.size())});
    }
    bounds.push_back(v.size());
    std::vector<Item> want = v;
    std::stable_sort(want.begin(), want.end(), by_key);
    EXPECT_EQ(visited(v, bounds), want) << "trial " << trial;
  }
}

}  // namespace
}  // namespace mlprof::analysis
