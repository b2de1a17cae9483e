// The one rule for whether a change between runs matters and how it is said as a percentage
// (the compare page and `mlprof diff` both use it). The cases are the ones the compare page was
// built against on real traces: a few µs in a 100 ms step, a new op of 0.1 % of a 166 ms step.
#include "analysis/change_significance.h"

#include <gtest/gtest.h>

namespace mlprof::analysis {
namespace {

TEST(ChangeSignificance, OnlyChangesThatMatter) {
  EXPECT_EQ(change_significance(100, 100.001, 0), ChangeSignificance::kNone);  // 1 µs in a 100 ms step
  EXPECT_EQ(change_significance(100, 101, 0), ChangeSignificance::kNone);      // 1 %: under the 2 % share
  EXPECT_EQ(change_significance(100, 110, 0), ChangeSignificance::kWorse);
  EXPECT_EQ(change_significance(0.02, 0, 0), ChangeSignificance::kBetter);
  EXPECT_EQ(change_significance(0, 0.005, 0), ChangeSignificance::kNone);      // 5 µs from nothing
  EXPECT_EQ(change_significance(0, 0.156, 166), ChangeSignificance::kNone);    // 0.1 % of the step
  EXPECT_EQ(change_significance(0, 2, 166), ChangeSignificance::kWorse);
  EXPECT_EQ(significance_name(ChangeSignificance::kWorse), "worse");
}

TEST(ChangeSignificance, NoHugePercentageFromANearZeroBaseline) {
  EXPECT_FALSE(change_percent(0.0001, 0.1966).pct.has_value());  // was "+196562.6 %"
  EXPECT_FALSE(change_percent(0, 3).pct.has_value());
  EXPECT_EQ(change_percent(0, 0).pct, 0.0);
  const ChangePercent large = change_percent(1, 25);
  ASSERT_TRUE(large.ratio.has_value());
  EXPECT_DOUBLE_EQ(*large.ratio, 25);
  EXPECT_DOUBLE_EQ(*change_percent(10, 12).pct, 20);
  EXPECT_FALSE(change_percent(10, 12).ratio.has_value());
  EXPECT_DOUBLE_EQ(*change_percent(10, 8).pct, -20);
}

}  // namespace
}  // namespace mlprof::analysis
