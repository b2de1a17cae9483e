// Kineto's JSON numbers read as fixed-point integers (model/pytorch/number.h), at the edges of
// int64: more than 18 digits leave the fast path for the exact one without overflowing on the
// way (found by the pytorch_importer fuzz target; UndefinedBehaviorSanitizer saw the overflow).
#include <gtest/gtest.h>

#include <cstdint>

#include "model/pytorch/number.h"

namespace mlprof::model::kineto {
namespace {

TEST(KinetoNumber, ReadsEighteenDigitsOnTheFastPath) {
  int64_t v = 0;
  ASSERT_TRUE(parse_fixed("1712195495406752.8", 3, &v));
  EXPECT_EQ(v, 1712195495406752800);
}

TEST(KinetoNumber, NineteenDigitsThatFitAreExact) {
  int64_t v = 0;
  ASSERT_TRUE(parse_fixed("1234567890123456789", 0, &v));
  EXPECT_EQ(v, 1234567890123456789);
  ASSERT_TRUE(parse_fixed("-9223372036854775808", 0, &v));
  EXPECT_EQ(v, INT64_MIN);
}

TEST(KinetoNumber, MoreDigitsThanInt64HoldsAreRefused) {
  int64_t v = 7;
  EXPECT_FALSE(parse_fixed("16940399940809126950", 0, &v));  // 20 digits: the fuzzer's timestamp
  EXPECT_FALSE(parse_fixed("9223372036854775808", 0, &v));
  EXPECT_FALSE(parse_fixed("999999999999999999.999", 3, &v));  // fits only before the scaling
  EXPECT_EQ(v, 7);
}

TEST(KinetoNumber, UpToEightDigitsAtATimeAgreeWithTheExactPath) {
  const char* tokens[] = {"12345678", "1669783687493506", "1669783687493506.123456", "00000000", "99999999",
                          "123456789", "1234567a", "12345678a", "1234567812345678x", "-1669783687493506",
                          "1669783687493506 ", "9223372036854775807", "12345678123456781", "1234/678", "1234:678",
                          "\"1669783687493506\"", "1.5e3", "12345678.9", "123456781234.5678",
                          // fewer than eight digits in an eight-byte window, then what ends them
                          "80      ", "6\n    \t", "123\n456789", "1234567 ", "0.5     ", "3:345678", "9/345678",
                          "-42     ", "12345678901234567890123", "1234567890123456789.5", "\x7f" "2345678", "1\xc9" "2345678",
                          // the decimals not written, scaled in one step: at and past what int64 holds
                          "9223372036854776", "922337203685477", "922337203685477.5", "18446744073709", "184467440737096", "19", "0", "-0.5",
                          "-9223372036854775"};
  for (const char* token : tokens) {
    for (int decimals : {0, 3, 6, 18, 19, 20, 25}) {
      int64_t fast = -1, exact = -1;
      const bool fast_ok = parse_fixed(token, decimals, &fast), exact_ok = parse_fixed_slowly(token, decimals, &exact);
      EXPECT_EQ(fast_ok, exact_ok) << token << " " << decimals;
      if (fast_ok && exact_ok) {
        EXPECT_EQ(fast, exact) << token << " " << decimals;
      }
    }
  }
  int64_t v = 0;
  ASSERT_TRUE(parse_fixed("1669783687493506", 3, &v));
  EXPECT_EQ(v, 1669783687493506000);
}

}  // namespace
}  // namespace mlprof::model::kineto
