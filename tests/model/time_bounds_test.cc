// A profile's earliest and latest starts and ends, exactly: ends past int64 included.
#include <gtest/gtest.h>

#include <climits>

#include "model/profile_merge.h"

namespace mlprof::model {
namespace {

Profile with_events(std::initializer_list<std::pair<int64_t, int64_t>> start_and_duration) {
  Profile p;
  for (const auto& [start, duration] : start_and_duration) {
    p.events.start_ps.push_back(start);
    p.events.duration_ps.push_back(duration);
  }
  return p;
}

TEST(TimeBounds, NoEventsNoBounds) { EXPECT_FALSE(time_bounds(Profile()).any); }

TEST(TimeBounds, EarliestAndLatestStartsAndEnds) {
  const TimeBounds b = time_bounds(with_events({{10, 5}, {-3, 100}, {50, 0}}));
  ASSERT_TRUE(b.any);
  EXPECT_EQ(b.min_start_ps, -3);
  EXPECT_EQ(b.max_start_ps, 50);
  EXPECT_TRUE(b.min_end_ps == 15);
  EXPECT_TRUE(b.max_end_ps == 97);
}

TEST(TimeBounds, AnEndPastInt64IsExact) {
  const TimeBounds b = time_bounds(with_events({{0, 1}, {INT64_MAX - 1, 10}}));
  ASSERT_TRUE(b.any);
  EXPECT_EQ(b.min_start_ps, 0);
  EXPECT_EQ(b.max_start_ps, INT64_MAX - 1);
  EXPECT_TRUE(b.min_end_ps == 1);
  EXPECT_TRUE(b.max_end_ps == __int128(INT64_MAX) + 9);
}

}  // namespace
}  // namespace mlprof::model
