#include "format/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace mlprof::format {
namespace {

TEST(Crc32c, MatchesTheStandardCheckValue) {
  const std::string text = "123456789";
  EXPECT_EQ(crc32c(text.data(), text.size()), 0xe3069283u);
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
}

TEST(Crc32c, CanBeComputedInPieces) {
  const std::string text = "hello, profiler";
  const uint32_t whole = crc32c(text.data(), text.size());
  EXPECT_EQ(crc32c(text.data() + 5, text.size() - 5, crc32c(text.data(), 5)), whole);
}

TEST(Crc32c, MaskIsTheTfRecordOne) {
  EXPECT_EQ(mask_crc(0), 0xa282ead8u);
  EXPECT_EQ(mask_crc(0x12345678u), ((0x12345678u >> 15) | (0x12345678u << 17)) + 0xa282ead8u);
}

}  // namespace
}  // namespace mlprof::format
