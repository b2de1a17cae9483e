// JsonStructureScanner on its own: where values end in text that arrives in pieces. The
// expected positions come from a byte-at-a-time reference written here from the JSON grammar
// (strings, escapes, nesting), not from the scanner's 64-byte blocks; both the 256-bit and the
// 128-bit paths are checked, and every way of cutting the text into two pieces.
#include "model/pytorch/json_structure_scanner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace mlprof::model {
namespace {

using Stop = JsonStructureScanner::Stop;

// The reference: one byte at a time, starting inside a container at depth 0.
JsonStructureScanner::Result reference_scan(const std::string& text, bool stop_at_comma) {
  JsonStructureScanner::Result r;
  int64_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (depth == 0) return {Stop::kClose, i, r.last_value_end};
      if (--depth == 0) r.last_value_end = i + 1;
    } else if (c == ',' && depth == 0 && stop_at_comma) {
      return {Stop::kComma, i, r.last_value_end};
    }
  }
  r.stop = Stop::kNone;
  return r;
}

JsonStructureScanner::Result scan_in_two(const std::string& text, size_t cut, bool wide, bool stop_at_comma) {
  JsonStructureScanner s(wide);
  JsonStructureScanner::Result r = s.scan(text.data(), 0, cut, stop_at_comma);
  if (r.stop != Stop::kNone) return r;
  const size_t first_end = r.last_value_end;
  r = s.scan(text.data(), cut, text.size(), stop_at_comma);
  if (r.last_value_end == 0) r.last_value_end = first_end;
  return r;
}

void expect_same(const JsonStructureScanner::Result& got, const JsonStructureScanner::Result& want,
                 const std::string& what) {
  EXPECT_EQ(int(got.stop), int(want.stop)) << what;
  if (want.stop != Stop::kNone) {
    EXPECT_EQ(got.at, want.at) << what;
  }
  EXPECT_EQ(got.last_value_end, want.last_value_end) << what;
}

TEST(JsonStructureScanner, ClosesTheContainerItStartedIn) {
  // Two events of a traceEvents array, then the array's own ']'.
  const std::string text = R"({"name": "a]}", "args": {"k": [1, 2]}}, {"name": "b\"}"}] , "x": 1)";
  for (bool wide : {true, false}) {
    JsonStructureScanner s(wide);
    const auto r = s.scan(text.data(), 0, text.size(), false);
    EXPECT_EQ(r.stop, Stop::kClose);
    EXPECT_EQ(text[r.at], ']');
    EXPECT_EQ(r.at, text.find("}] ,") + 1);
    EXPECT_EQ(r.last_value_end, text.find("}] ,") + 1);  // just past the second event
  }
}

TEST(JsonStructureScanner, StopsAtATopLevelCommaOnlyWhenAsked) {
  const std::string text = R"("s,t" , {"a": [1, 2]}, 3)";
  for (bool wide : {true, false}) {
    JsonStructureScanner s(wide);
    auto r = s.scan(text.data(), 0, text.size(), true);
    EXPECT_EQ(r.stop, Stop::kComma);
    EXPECT_EQ(r.at, 6u);  // not the comma inside the string
    s.reset();
    r = s.scan(text.data(), 0, text.size(), false);
    EXPECT_EQ(r.stop, Stop::kNone);
    EXPECT_EQ(r.last_value_end, text.find("]}") + 2);
  }
}

TEST(JsonStructureScanner, EscapesAndQuotesAcrossEveryCut) {
  // Backslash runs of every parity next to quotes, brackets inside strings, and values that
  // straddle the 64-byte blocks.
  std::string text;
  for (int n = 0; n < 6; ++n) {
    text += R"({"name": ")" + std::string(size_t(n), '\\') + (n % 2 ? "\"" : "") + R"(]}, x", "v": [{"q": "\\"}]}, )";
    text += std::string(size_t(7 * n), ' ');
  }
  text += R"({"last": "}"}])";
  const auto want = reference_scan(text, false);
  ASSERT_EQ(want.stop, Stop::kClose);
  for (bool wide : {true, false})
    for (size_t cut = 0; cut <= text.size(); ++cut)
      expect_same(scan_in_two(text, cut, wide, false), want,
                  std::string(wide ? "wide" : "narrow") + " cut at " + std::to_string(cut));
}

// Random text of the kind a trace holds: structure outside strings, and strings holding
// brackets, commas, quotes and backslashes (escaped as JSON escapes them).
std::string random_json_like(std::mt19937& rng) {
  const std::string outside = "{}[],: a1", inside = "ab]}[{,: ";
  std::string text;
  const size_t tokens = 1 + rng() % 80;
  for (size_t t = 0; t < tokens; ++t) {
    if (rng() % 3 != 0) {
      text += outside[rng() % outside.size()];
      continue;
    }
    text += '"';
    for (size_t n = rng() % 12; n > 0; --n) {
      if (rng() % 4 == 0) text += rng() % 2 ? "\\\"" : "\\\\";
      else text += inside[rng() % inside.size()];
    }
    if (t + 1 < tokens || rng() % 2) text += '"';  // the last may stay open
  }
  return text;
}

TEST(JsonStructureScanner, AgreesWithTheReferenceOnRandomText) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const std::string text = random_json_like(rng);
    for (bool comma : {false, true}) {
      const auto want = reference_scan(text, comma);
      for (bool wide : {true, false}) {
        const size_t cut = rng() % (text.size() + 1);
        expect_same(scan_in_two(text, cut, wide, comma), want, "trial " + std::to_string(trial) + ": " + text);
      }
    }
  }
}

TEST(JsonStructureScanner, ReportsDepthAndStringStateAtTheEndOfAPiece) {
  const std::string text = R"({"a": [ "open \" still)";
  JsonStructureScanner s;
  const auto r = s.scan(text.data(), 0, text.size(), false);
  EXPECT_EQ(r.stop, Stop::kNone);
  EXPECT_EQ(s.depth(), 2);
  EXPECT_TRUE(s.in_string());
}

// The path a scanner takes: the widest the machine allows unless MLPROF_JSON_SCANNER_BITS=128
// narrows it (ctest runs this file's tests again that way: json_structure_scanner_128).
TEST(JsonStructureScanner, TakesTheWidestPathAllowed) {
  const char* asked = std::getenv("MLPROF_JSON_SCANNER_BITS");
  const bool narrowed = asked != nullptr && std::strcmp(asked, "128") == 0;
#if defined(__x86_64__)
  const int widest = !narrowed && __builtin_cpu_supports("avx2") ? 256 : 128;
  EXPECT_EQ(JsonStructureScanner::widest_bits(), widest);
  EXPECT_STREQ(JsonStructureScanner().kernel_name(), widest == 256 ? "avx2" : "sse2");
  EXPECT_STREQ(JsonStructureScanner(false).kernel_name(), "sse2");
#else
  EXPECT_EQ(JsonStructureScanner::widest_bits(), 128);
  EXPECT_STREQ(JsonStructureScanner().kernel_name(), "scalar");
#endif
}

}  // namespace
}  // namespace mlprof::model
