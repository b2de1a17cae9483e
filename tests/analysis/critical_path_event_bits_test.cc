// A set of the profile's events, one bit each (event_bits.h): what is set is in it until the set
// ends, a later set on the same thread starts empty though it reuses the bits, and two sets
// alive at once are apart.
#include <gtest/gtest.h>

#include "analysis/critical_path/event_bits.h"

namespace mlprof::analysis {
namespace {

TEST(EventBits, HoldsWhatIsSetAndStartsEmptyAfterAnother) {
  {
    EventBits bits(1000);
    bits.set(0);
    bits.set(63);
    bits.set(64);
    bits.set(999);
    EXPECT_TRUE(bits.test(0));
    EXPECT_TRUE(bits.test(63));
    EXPECT_TRUE(bits.test(64));
    EXPECT_TRUE(bits.test(999));
    EXPECT_FALSE(bits.test(1));
    EXPECT_FALSE(bits.test(65));
    EXPECT_FALSE(bits.test(model::kNone));
  }
  EventBits later(1000);
  for (model::EventIndex e : {0u, 63u, 64u, 999u}) EXPECT_FALSE(later.test(e)) << e;
}

TEST(EventBits, TwoAliveAtOnceAreApart) {
  EventBits a(200), b(200);
  a.set(5);
  b.set(7);
  EXPECT_TRUE(a.test(5));
  EXPECT_FALSE(a.test(7));
  EXPECT_TRUE(b.test(7));
  EXPECT_FALSE(b.test(5));
}

// A larger profile after a smaller one: the bits grow to hold it.
TEST(EventBits, GrowsForALargerProfile) {
  { EventBits small(10); small.set(9); }
  EventBits large(100000);
  EXPECT_FALSE(large.test(9));
  large.set(99999);
  EXPECT_TRUE(large.test(99999));
}

}  // namespace
}  // namespace mlprof::analysis
