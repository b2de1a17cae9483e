// lower_bound_near against std::lower_bound: the same answer from every hint, on a range worked
// by hand (with repeated values) and on random sorted ranges.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "analysis/lower_bound_near.h"

namespace mlprof::analysis {
namespace {

size_t near_index(const std::vector<int>& v, size_t hint, int value) {
  return size_t(lower_bound_near(v.begin(), v.end(), v.begin() + ptrdiff_t(hint), value, std::less<>()) - v.begin());
}

TEST(LowerBoundNear, GivesTheFirstEntryNotLessFromAnyHint) {
  const std::vector<int> v = {1, 3, 3, 3, 7, 9, 9, 12};
  for (size_t hint = 0; hint <= v.size(); ++hint) {
    EXPECT_EQ(near_index(v, hint, 0), 0u) << hint;
    EXPECT_EQ(near_index(v, hint, 3), 1u) << hint;  // the first of the repeated 3s
    EXPECT_EQ(near_index(v, hint, 4), 4u) << hint;
    EXPECT_EQ(near_index(v, hint, 9), 5u) << hint;
    EXPECT_EQ(near_index(v, hint, 12), 7u) << hint;
    EXPECT_EQ(near_index(v, hint, 13), 8u) << hint;  // past the end
  }
  const std::vector<int> empty;
  EXPECT_EQ(near_index(empty, 0, 5), 0u);
}

TEST(LowerBoundNear, EqualsTheWholeSearchOnRandomRanges) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<int> v(random() % 300);
    for (int& x : v) x = int(random() % 100);
    std::sort(v.begin(), v.end());
    for (int probe = 0; probe < 50; ++probe) {
      const int value = int(random() % 110) - 5;
      const size_t hint = v.empty() ? 0 : random() % (v.size() + 1);
      const size_t expected = size_t(std::lower_bound(v.begin(), v.end(), value) - v.begin());
      ASSERT_EQ(near_index(v, hint, value), expected) << "value " << value << " hint " << hint << " size " << v.size();
    }
  }
}

}  // namespace
}  // namespace mlprof::analysis
