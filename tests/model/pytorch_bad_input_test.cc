// Bad input never crashes the PyTorch importer: each case gives a one-line reason and leaves
// the profile as it was; load_profile names the file at fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "format/scratch_dir.h"
#include "model/load_profile.h"
#include "model/pytorch/importer.h"
#include "model/pytorch_test_support.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

constexpr const char* kValidTrace = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 3}}
]})";

struct BadCase {
  const char* what;
  std::string bytes;
  const char* reason;  // a part of the expected message
};

std::string event_with(const std::string& field) {
  return R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, )" + field + "}]}";
}

std::vector<BadCase> bad_cases() {
  const std::string valid_gz = gzip(kValidTrace);
  std::string corrupt_gz = valid_gz;
  for (size_t i = 12; i < corrupt_gz.size() - 8; i += 3) corrupt_gz[i] = char(corrupt_gz[i] ^ 0x5a);
  return {
      {"an empty file", "", "empty file"},
      {"only whitespace", " \n\t ", "empty file"},
      // The array form (PyTorch without Kineto) holds the events alone.
      {"an array form event without ts", R"([{"ph": "X", "name": "a"}])", "ts is missing"},
      {"an empty array form", "[]", "no events"},
      {"content after the array form", R"([{"ph": "X", "name": "a", "ts": 1}] [])", "content after the top-level array"},
      {"a truncated array form", R"([{"ph": "X", "name": "a", "ts": 1},)", "not valid JSON"},
      {"text that starts like null", "not json", "not valid JSON"},
      {"text that starts like true", "trace", "not valid JSON"},
      {"a JSON number", "42", "the JSON is a number"},
      {"a JSON string", R"("trace")", "the JSON is a string"},
      {"JSON null", "null", "the JSON is null"},
      {"an object that is no trace", R"({"name": "config", "lr": 0.1})", "no traceEvents"},
      {"traceEvents not an array", R"({"traceEvents": {"ph": "X"}})", "traceEvents is not an array"},
      {"an event that is no object", R"({"traceEvents": [1, 2]})", "traceEvents[0] is not an object"},
      {"no events at all", R"({"traceEvents": []})", "no events"},
      {"only metadata", R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}}]})",
       "no events"},
      {"a missing ts", event_with(R"("dur": 1)"), "ts is missing"},
      {"a ts that is no number", event_with(R"("ts": "soon", "dur": 1)"), "not a time in range"},
      {"a huge ts", event_with(R"("ts": 1e300, "dur": 1)"), "not a time in range"},
      {"a ts of 30 digits", event_with(R"("ts": 123456789012345678901234567890, "dur": 1)"), "not a time in range"},
      {"a huge dur", event_with(R"("ts": 1, "dur": 99999999999999999999)"), "not a time in range"},
      {"a huge negative ts", event_with(R"("ts": -9.3e15, "dur": 1)"), "not a time in range"},
      // The message quotes the token without the line break after it (found by fuzzing).
      {"a ts with a control character", event_with("\"ts\": 12\x18" "34\n   , \"dur\": 1"),
       "ts \"12?34\" is not a time in range"},
      {"times further apart than the model holds",
       R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
                           {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 1}]})",
       "out of range"},
      {"a huge baseTimeNanoseconds",
       R"({"baseTimeNanoseconds": 99999999999999999999, "traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})",
       "baseTimeNanoseconds is out of range"},
      {"a base time that overflows with ts",
       R"({"baseTimeNanoseconds": 9223372036854775000, "traceEvents": [{"ph": "X", "name": "a", "ts": 1000000}]})",
       "out of range"},
      {"truncated JSON", std::string(kValidTrace).substr(0, 90), "not valid JSON"},
      {"a broken string", R"({"traceEvents": [{"ph": "X", "name": "a)", "not valid JSON"},
      {"content after the trace", std::string(kValidTrace) + " {}", "content after the top-level object"},
      {"binary bytes", std::string("\x00\x01\x02\xff\xfe garbage", 14), "not valid JSON"},
      {"a truncated gzip file", valid_gz.substr(0, valid_gz.size() / 2), "truncated gzip data"},
      {"a gzip header alone", valid_gz.substr(0, 10), "truncated gzip data"},
      {"a corrupt gzip file", corrupt_gz, "gzip data"},
      {"gzip of something else", gzip("hello, world"), "not valid JSON"},
  };
}

TEST(PyTorchBadInput, OneLineReasonAndTheProfileUntouched) {
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.what);
    Profile p;
    std::string error;
    EXPECT_FALSE(import_pytorch_trace_bytes(c.bytes.data(), c.bytes.size(), "h", &p, &error));
    EXPECT_NE(error.find(c.reason), std::string::npos) << "error: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_TRUE(p.hosts.empty());
    EXPECT_TRUE(p.planes.empty());
    EXPECT_EQ(p.num_events(), 0u);
  }
}

// Arguments nested deeper than any trace nests them are skipped or refused, never a crash.
TEST(PyTorchBadInput, DeepNestingIsSafe) {
  std::string deep = R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "args": {"x": )";
  for (int i = 0; i < 100000; ++i) deep += "[";
  for (int i = 0; i < 100000; ++i) deep += "]";
  deep += "}}]}";
  Profile p;
  std::string error;
  if (!import_pytorch_trace_bytes(deep.data(), deep.size(), "h", &p, &error)) {
    EXPECT_NE(error.find("not valid JSON"), std::string::npos) << error;
    EXPECT_TRUE(p.hosts.empty());
  } else {
    EXPECT_EQ(p.num_events(), 1u);
  }
}

TEST(PyTorchBadInput, AFailedHostLeavesTheOthers) {
  Profile p;
  std::string error;
  ASSERT_TRUE(import_pytorch_trace_bytes(kValidTrace, std::strlen(kValidTrace), "good", &p, &error)) << error;
  const size_t events = p.num_events(), planes = p.planes.size();
  const int64_t origin = p.origin_ns;
  const std::string bad = event_with(R"("ts": 1e300)");
  EXPECT_FALSE(import_pytorch_trace_bytes(bad.data(), bad.size(), "bad", &p, &error));
  EXPECT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.num_events(), events);
  EXPECT_EQ(p.planes.size(), planes);
  EXPECT_EQ(p.origin_ns, origin);
}

TEST(PyTorchBadInput, LoadProfileNamesTheFile) {
  ScratchDir dir;
  const std::string good = dir / "rank0.pt.trace.json", bad = dir / "rank1.pt.trace.json.gz";
  std::ofstream(good) << kValidTrace;
  std::ofstream(bad, std::ios::binary) << gzip(kValidTrace).substr(0, 40);
  Profile p;
  LoadError error;
  ASSERT_FALSE(load_profile({dir.path(), "", ""}, &p, &error));
  EXPECT_EQ(error.path, bad);
  EXPECT_EQ(error.problem, "truncated gzip data");

  Profile one;
  ASSERT_TRUE(load_profile({good, "", ""}, &one, &error)) << error.problem;
  EXPECT_EQ(one.num_events(), 2u);

  Profile missing;
  EXPECT_FALSE(load_profile({dir / "nothing.pt.trace.json", "", ""}, &missing, &error));
  Profile directory;
  std::filesystem::create_directories(dir / "folder.json");
  EXPECT_FALSE(import_pytorch_trace_file(dir / "folder.json", "h", &directory, &error.problem));
  EXPECT_NE(error.problem.find("directory"), std::string::npos);
}

// simdjson reads SIMDJSON_FORCE_IMPLEMENTATION on first use: a name it lacks, or an empty one,
// would fail every read as "not valid JSON (simdjson does not have an implementation supported
// by this CPU...)". The reader names the variable instead, and the names that would do.
class ForcedImplementation {
 public:
  explicit ForcedImplementation(const char* name) {
    if (const char* was = std::getenv(kName)) was_ = was;
    setenv(kName, name, 1);
  }
  ~ForcedImplementation() {
    if (was_) setenv(kName, was_->c_str(), 1);
    else unsetenv(kName);
  }

 private:
  static constexpr const char* kName = "SIMDJSON_FORCE_IMPLEMENTATION";
  std::optional<std::string> was_;
};

TEST(PyTorchBadInput, ASimdjsonImplementationOfNoNameIsNamed) {
  for (const std::string name : {"nosuch", "", "fall\nback"}) {
    SCOPED_TRACE(name);
    ForcedImplementation forced(name.c_str());
    Profile p;
    std::string error;
    EXPECT_FALSE(import_pytorch_trace_bytes(kValidTrace, std::strlen(kValidTrace), "h", &p, &error));
    std::string shown = name;
    std::replace(shown.begin(), shown.end(), '\n', '?');
    EXPECT_EQ(error.rfind("SIMDJSON_FORCE_IMPLEMENTATION is \"" + shown +
                              "\": simdjson has no implementation of that name (this processor runs: ",
                          0),
              0u)
        << error;
    // Every build of simdjson has its portable implementation, and every processor runs it.
    EXPECT_NE(error.find("fallback"), std::string::npos) << error;
    EXPECT_TRUE(error.ends_with("); unset it or set one of those")) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_TRUE(p.hosts.empty());
  }
  // A name it has reads the trace.
  ForcedImplementation fallback("fallback");
  Profile p;
  std::string error;
  EXPECT_TRUE(import_pytorch_trace_bytes(kValidTrace, std::strlen(kValidTrace), "h", &p, &error)) << error;
  EXPECT_EQ(p.num_events(), 2u);
}

// A file read beside others is parsed on its reading thread alone: the same reason for every
// bad input, and the same profile from a good one.
TEST(PyTorchBadInput, ParsedHereAsAhead) {
  ScratchDir dir;
  std::vector<BadCase> cases = bad_cases();
  cases.push_back({"a valid trace", kValidTrace, ""});
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string file = dir / "trace.json";
    std::ofstream(file, std::ios::binary | std::ios::trunc) << c.bytes;
    Profile ahead, here;
    std::string ahead_error, here_error;
    const bool ok = import_pytorch_trace_file(file, "h", &ahead, &ahead_error, {}, true);
    EXPECT_EQ(import_pytorch_trace_file(file, "h", &here, &here_error, {}, false), ok);
    EXPECT_EQ(here_error, ahead_error);
    EXPECT_EQ(here.num_events(), ahead.num_events());
    EXPECT_EQ(here.events.start_ps, ahead.events.start_ps);
    EXPECT_EQ(here.strings.size(), ahead.strings.size());
  }
}

}  // namespace
}  // namespace mlprof::model
