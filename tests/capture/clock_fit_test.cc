#include "capture/clock_fit.h"

#include <gtest/gtest.h>

#include <random>

namespace mlprof::capture {
namespace {

TEST(TickConverter, FollowsTheLineThroughThePairs) {
  // 2 ticks per ns: 1 tick = 500 ps.
  const ClockPair start{1'000'000, 5'000, 1'700'000'000'000'000'000};
  const ClockPair stop{3'000'000, 1'005'000, 1'700'000'000'001'000'000};
  const TickConverter clock(start, start, stop);
  EXPECT_EQ(clock.origin_unix_ns(), 1'700'000'000'000'000'000);
  EXPECT_EQ(clock.ps_since_origin(1'000'000), 0);
  EXPECT_EQ(clock.ps_since_origin(1'000'001), 500);
  EXPECT_EQ(clock.ps_since_origin(3'000'000), 1'000'000'000);
  EXPECT_EQ(clock.ps_since_origin(999'998), -1000);
}

TEST(TickConverter, IsMonotoneSoNestedEventsStayNested) {
  // An awkward rate: 2.596 GHz.
  const ClockPair start{123'456'789, 0, 0};
  const ClockPair stop{123'456'789 + 2'596'000'000ull, 1'000'000'000, 1'000'000'000};
  const TickConverter clock(start, start, stop);
  std::mt19937_64 random(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t a = start.ticks + random() % (uint64_t{1} << 40);
    const uint64_t b = a + random() % 1000;
    ASSERT_LE(clock.ps_since_origin(a), clock.ps_since_origin(b));
  }
  EXPECT_NEAR(double(clock.ps_since_origin(stop.ticks)), 1e12, 1.0);
}

TEST(TickConverter, UnusablePairsFallBackToNanosecondTicks) {
  const ClockPair same{100, 7, 7};
  const TickConverter clock(same, same, same);
  EXPECT_EQ(clock.ps_since_origin(101), 1000);
}

TEST(ClockPair, ReadsAllThreeClocks) {
  const ClockPair a = read_clock_pair();
  const ClockPair b = read_clock_pair();
  EXPECT_LE(a.ticks, b.ticks);
  EXPECT_LE(a.monotonic_ns, b.monotonic_ns);
  EXPECT_GT(a.unix_ns, 1'600'000'000'000'000'000);
}

}  // namespace
}  // namespace mlprof::capture
