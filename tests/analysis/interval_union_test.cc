// Unions of time intervals that come in runs already ordered by begin (a line's events), in
// many runs, or in none: the same lengths and merged intervals whichever way they are ordered.
#include <gtest/gtest.h>

#include "analysis/interval_union.h"

namespace mlprof::analysis {
namespace {

TEST(IntervalUnion, TwoRunsInterleaved) {
  // [0,10) [5,20) [30,40) then [2,3) [15,35) [50,60): [0,40) and [50,60).
  std::vector<TimeInterval> v = {{0, 10}, {5, 20}, {30, 40}, {2, 3}, {15, 35}, {50, 60}};
  EXPECT_EQ(merged(v), (std::vector<TimeInterval>{{0, 40}, {50, 60}}));
  EXPECT_EQ(union_length(v), 50);
}

TEST(IntervalUnion, EveryIntervalItsOwnRun) {
  // Begins descending: ten runs of one, [90,95) down to [0,5), 5 ps each.
  std::vector<TimeInterval> v;
  for (int64_t k = 9; k >= 0; --k) v.push_back({10 * k, 10 * k + 5});
  EXPECT_EQ(merged(v).size(), 10u);
  EXPECT_EQ(merged(v).front(), (TimeInterval{0, 5}));
  EXPECT_EQ(union_length(v), 50);
}

TEST(IntervalUnion, LongRunsMergedIntoOneSpan) {
  // Odd and even picoseconds, 32 each, in two runs: together [0,64) without a gap.
  std::vector<TimeInterval> v;
  for (int64_t i = 0; i < 32; ++i) v.push_back({2 * i, 2 * i + 1});
  for (int64_t i = 0; i < 32; ++i) v.push_back({2 * i + 1, 2 * i + 2});
  EXPECT_EQ(merged(v), (std::vector<TimeInterval>{{0, 64}}));
  EXPECT_EQ(union_length(v), 64);
}

TEST(IntervalUnion, EqualBeginsAndTouchingEnds) {
  std::vector<TimeInterval> v = {{5, 6}, {0, 5}, {5, 9}};
  EXPECT_EQ(merged(v), (std::vector<TimeInterval>{{0, 9}}));
  EXPECT_EQ(union_length(v), 9);
  std::vector<TimeInterval> none;
  EXPECT_EQ(union_length(none), 0);
}

}  // namespace
}  // namespace mlprof::analysis
