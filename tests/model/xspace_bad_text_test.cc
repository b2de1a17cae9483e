// XSpace names and stats are bytes: a writer that cuts a name in the middle of a character,
// or stores a serialized proto as a bytes stat, makes text that is not UTF-8, and JSON writers
// abort on it. The importer makes it text once (U+FFFD for invalid sequences, hex for binary
// bytes) and says so; times past what the model holds are refused in one line.
#include <gtest/gtest.h>

#include "format/utf8_text.h"
#include "model/xspace_builder.h"
#include "model/event_time_limits.h"
#include "model/xspace/importer.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

TEST(Utf8Text, ValidatesAndRepairsByMaximalSubparts) {
  EXPECT_TRUE(format::is_valid_utf8("plain ascii, long enough for the word loop"));
  EXPECT_TRUE(format::is_valid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(format::is_valid_utf8("ab\xE2\x82"));          // cut mid-character
  EXPECT_FALSE(format::is_valid_utf8("\xC0\xAF"));            // overlong '/'
  EXPECT_FALSE(format::is_valid_utf8("\xED\xA0\x80"));        // a surrogate
  EXPECT_FALSE(format::is_valid_utf8("\xF4\x90\x80\x80"));    // past U+10FFFF
  EXPECT_FALSE(format::is_valid_utf8("0123456789\xFF"));
  // Unicode's example (Table 3-8): one U+FFFD per maximal subpart.
  EXPECT_EQ(format::make_valid_utf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD" "d");
  EXPECT_EQ(format::make_valid_utf8("ab\xE2\x82"), "ab\xEF\xBF\xBD");
  EXPECT_EQ(format::hex_bytes(std::string("\x00\x0a\xff", 3)), "000aff");
}

TEST(XSpaceImporter, InvalidUtf8BecomesReplacementCharactersWithAWarning) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* thread = host.line(1, "main", 1000);
  host.event(thread, "matmul\xE2\x82", 0, 10 * kPsPerUs, {{"note", std::string("x\xFFy")}});
  host.event(thread, "ok", 20 * kPsPerUs, 10 * kPsPerUs);
  auto* binary = thread->mutable_events(1)->add_stats();
  binary->set_metadata_id(host.stat_metadata("blob"));
  binary->set_bytes_value(std::string("\x08\x01\x12\x00\xfe", 5));
  auto* text = thread->mutable_events(1)->add_stats();
  text->set_metadata_id(host.stat_metadata("label"));
  text->set_bytes_value("plain text in bytes");
  const std::string bytes = space.SerializeAsString();

  Profile p;
  std::string error;
  ASSERT_TRUE(import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << error;
  ASSERT_EQ(p.num_events(), 2u);
  EXPECT_EQ(p.name(0), "matmul\xEF\xBF\xBD");
  const auto stat = [&](EventIndex e, std::string_view key) -> std::string {
    const StatRange r = p.event_stat_range(e);
    for (uint32_t s = r.first; s < r.first + r.count; ++s)
      if (p.strings.view(p.event_stats.key(s)) == key) return std::string(p.strings.view(p.event_stats.value(s).str));
    return "(none)";
  };
  EXPECT_EQ(stat(0, "note"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(stat(1, "blob"), "0x08011200fe");
  EXPECT_EQ(stat(1, "label"), "plain text in bytes");
  for (size_t id = 0; id < p.strings.size(); ++id)
    EXPECT_TRUE(format::is_valid_utf8(p.strings.view(StringId(id)))) << id;
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("2 names or text values hold bytes that are not UTF-8"), std::string::npos)
      << p.warnings[0];
}

TEST(XSpaceImporter, TimesPastTheModelAreRefusedInOneLine) {
  for (const auto& [offset, duration] : std::vector<std::pair<int64_t, int64_t>>{
           {0, INT64_MAX - 5}, {INT64_MAX - 100, 1000}, {0, int64_t(1) << 57}}) {
    tensorflow::profiler::XSpace space;
    auto gpu = add_plane(&space, 1, "/device:GPU:0");
    auto* stream = gpu.line(7, "Stream #7(Compute)", 1000);
    gpu.event(stream, "kernel", 0, 10 * kPsPerUs);
    gpu.event(stream, "forged", offset, duration);
    const std::string bytes = space.SerializeAsString();
    Profile p;
    std::string error;
    EXPECT_FALSE(import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << offset << " " << duration;
    EXPECT_NE(error.find("Stream #7(Compute)"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  // Twenty hours less a picosecond is still a time the model holds.
  tensorflow::profiler::XSpace space;
  auto gpu = add_plane(&space, 1, "/device:GPU:0");
  gpu.event(gpu.line(7, "Stream #7(Compute)", 1000), "long", 0, kMaxEventDurationPs);
  const std::string bytes = space.SerializeAsString();
  Profile p;
  std::string error;
  EXPECT_TRUE(import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << error;
}

}  // namespace
}  // namespace mlprof::model
