// Kineto's JSON numbers read as fixed-point integers (model/pytorch/number.h), at the edges of
// int64: more than 18 digits leave the fast path for the exact one without overflowing on the
// way (found by the pytorch_importer fuzz target; UndefinedBehaviorSanitizer saw the overflow).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

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

// The padded variant against parse_fixed (checked above against the exact path) on random
// tokens of the shapes traces hold and near them, each followed by what a batch may hold after
// a number (digits included: they are past the token's end and must not count).
TEST(KinetoNumber, PaddedAgreesWithTheGeneralPath) {
  std::mt19937_64 rng(36);
  const std::string alphabet = "0123456789999.. \n-e\"x", after = "0123456789 ,}]\n.";
  for (int trial = 0; trial < 200000; ++trial) {
    std::string token;
    const int size = int(rng() % 26);
    const bool plain = rng() % 2 == 0;  // digits, a point and digits, spaces: the usual shapes
    for (int i = 0; i < size; ++i) token += plain ? "0123456789"[rng() % 10] : alphabet[rng() % alphabet.size()];
    if (plain && size > 2 && rng() % 2 == 0) token[rng() % size] = '.';
    if (plain && rng() % 4 == 0) token = "-" + token;
    if (plain && rng() % 4 == 0) token += std::string(rng() % 3 + 1, ' ');
    std::string buffer = token;
    for (int i = 0; i < 32; ++i) buffer += after[rng() % after.size()];
    const int decimals = int(rng() % 10);
    int64_t padded = -1, general = -1;
    const std::string_view view(buffer.data(), token.size());
    const bool padded_ok = parse_fixed_padded(view, decimals, &padded), general_ok = parse_fixed(view, decimals, &general);
    ASSERT_EQ(padded_ok, general_ok) << "'" << token << "' " << decimals;
    if (padded_ok) ASSERT_EQ(padded, general) << "'" << token << "' " << decimals;
  }
  int64_t v = 0;
  EXPECT_FALSE(parse_fixed_padded(std::string_view(), 3, &v));  // a missing field: no text to read at all
  const std::string ts = std::string("1669783687493592, \"dur\": 19}]") + std::string(32, '\0');  // padded, as a batch is
  ASSERT_TRUE(parse_fixed_padded(std::string_view(ts.data(), 16), 3, &v));
  EXPECT_EQ(v, 1669783687493592000);
  ASSERT_TRUE(parse_fixed_padded(std::string_view(ts.data() + 25, 2), 6, &v));
  EXPECT_EQ(v, 19000000);
}

// Shapes at the edges of the padded parse's fast path, each followed by digits (past the token's
// end, so they must not count) and by other text: the same as the general path gives.
TEST(KinetoNumber, PaddedAgreesAtTheEdgesOfItsFastPath) {
  const char* tokens[] = {"0", "-0", "-", "7", "12345678", "123456789", "1234567812345678", "12345678123456781",
                          "123456781234567812", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                          "1669783697141484", "1669783697141484.5", "1669783697141484.123", "1712195495406752.8",
                          "0.5", "1.", ".5", "1e3", "1.5e2", "-1.25E-1", "12 ", "12\n    ", "1 2", "\"12\"", "+1",
                          "00000000000000001", "99999999", "-99999999.99999999", "1.123456789", "45", "3.2",
                          // sixteen digits read as one vector; whitespace after a number of each length
                          "9999999999999999", "-9999999999999999", "0000000000000000", "16697836971414x4",
                          "166978369714148.", "1669783697141484 ", "1234567\n\t\r ", "12                ",
                          "12               ", "7\n      ", "73689\n    ", "1.5\n      ", "12\n\x01", "-7 ",
                          // negative numbers: the magnitude read as the others, the sign applied after
                          "-1", "-12345678", "-1.5", "-00", "-9223372036854775807", "-1669783697141484.5", "--1",
                          "-\"1\"", "-1e3", "- 1"};
  const char* afters[] = {"", "9", ",", "99999999999999999999999999999999", ".5"};
  for (const char* token : tokens) {
    for (const char* after : afters) {
      for (int decimals = 0; decimals <= 9; ++decimals) {
        const std::string buffer = std::string(token) + after + std::string(32, '\0');
        const std::string_view view(buffer.data(), std::strlen(token));
        int64_t padded = -1, general = -1;
        const bool padded_ok = parse_fixed_padded(view, decimals, &padded), general_ok = parse_fixed(view, decimals, &general);
        ASSERT_EQ(padded_ok, general_ok) << "'" << token << "' then '" << after << "', " << decimals;
        if (padded_ok) ASSERT_EQ(padded, general) << "'" << token << "' then '" << after << "', " << decimals;
      }
    }
  }
  int64_t v = 0;
  const std::string ts = "1669783697141484" + std::string(32, '\0');
  ASSERT_TRUE(parse_fixed_padded(std::string_view(ts.data(), 16), 3, &v));
  EXPECT_EQ(v, 1669783697141484000);
  const std::string negative = "-12345678.25," + std::string(32, '\0');
  ASSERT_TRUE(parse_fixed_padded(std::string_view(negative.data(), 12), 6, &v));
  EXPECT_EQ(v, -12345678250000);
}

}  // namespace
}  // namespace mlprof::model::kineto
