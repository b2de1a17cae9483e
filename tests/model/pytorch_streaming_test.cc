// The PyTorch importer reads a trace piece by piece: events that straddle the pieces, strings
// full of brackets, commas and escapes, top-level values after traceEvents, gzip read as it
// inflates, and the bounds it keeps (one event may not be larger than the window).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "format/scratch_dir.h"
#include "model/load_profile.h"
#include "model/string_table.h"

#include "model/pytorch/json_structure_scanner.h"
#include "model/pytorch/trace_file.h"
#include "model/pytorch/trace_parser.h"
#include "model/pytorch/trace_tokenizer.h"
#include "model/pytorch/importer.h"
#include "model/pytorch_test_support.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

// The scanner fed in pieces of every size finds the same ends as in one piece.
TEST(JsonStructureScanner, FollowsStringsEscapesAndNestingAcrossPieces) {
  // Three elements of an array, then its closing bracket at `close`.
  std::string text = R"({"a": "}]\"{[,", "b": [1, {"c": "\\"}]}, "x\\\\", [[], {}]  ] tail)";
  text.insert(7, 54, ' ');  // the first backslash at byte 63, the quote it escapes at byte 64
  const size_t close = text.find("] tail");
  const size_t last_end = text.find("}]  ]") + 2;
  for (size_t piece = 1; piece <= 2 * text.size(); ++piece) {
    const bool wide = piece > text.size();  // each piece size with 256-bit vectors, then without
    SCOPED_TRACE(std::to_string(piece) + (wide ? " wide" : ""));
    JsonStructureScanner scanner(wide);
    scanner.reset();
    JsonStructureScanner::Result r;
    size_t last = 0;
    const size_t size = wide ? piece - text.size() : piece;
    for (size_t from = 0; from < text.size(); from += size) {
      r = scanner.scan(text.data(), from, std::min(text.size(), from + size), false);
      if (r.last_value_end != 0) last = r.last_value_end;
      if (r.stop != JsonStructureScanner::Stop::kNone) break;
    }
    ASSERT_EQ(r.stop, JsonStructureScanner::Stop::kClose);
    EXPECT_EQ(r.at, close);
    EXPECT_EQ(last, last_end);
  }
}

TEST(JsonStructureScanner, StopsAtACommaOutsideNesting) {
  const std::string text = R"("a,b", [1, 2], {"c": 3}, 7)";
  for (bool wide : {true, false}) {
    JsonStructureScanner scanner(wide);
    scanner.reset();
    auto r = scanner.scan(text.data(), 0, text.size(), true);
    EXPECT_EQ(r.stop, JsonStructureScanner::Stop::kComma);
    EXPECT_EQ(r.at, 5u);
  }
}

// Enough events for many windows, each with text that looks like structure, and every
// top-level value the importer reads written after traceEvents.
std::string large_trace(size_t events) {
  std::string json = R"({"schemaVersion": 1, "traceEvents": [)";
  for (size_t i = 0; i < events; ++i) {
    json += i == 0 ? "\n" : ",\n";
    json += R"({"ph": "X", "cat": "cpu_op", "name": "op}{][,\"x\\", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(1000 + 10 * i) + R"(, "dur": 5, "args": {"External id": )" + std::to_string(i) +
            R"(, "Input Dims": [[2, 2], []], "Concrete Inputs": ["", "[1, {2}]"]}})";
  }
  json += R"(],
  "deviceProperties": [{"id": 0, "name": "GPU", "numSms": 80}],
  "distributedInfo": {"backend": "nccl", "rank": 7, "world_size": 8},
  "baseTimeNanoseconds": 1700000000000000000,
  "traceName": "a }{ name"
})";
  return json;
}

TEST(PyTorchStreaming, EventsAcrossManyWindowsAndValuesAfterTraceEvents) {
  const size_t kEvents = 20000;  // about 4 MiB of JSON
  const std::string json = large_trace(kEvents);
  ASSERT_GT(json.size(), size_t(3) << 20);
  for (const std::string& bytes : {json, gzip(json)}) {
    Profile p;
    std::string error;
    ASSERT_TRUE(import_pytorch_trace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << error;
    EXPECT_EQ(p.num_events(), kEvents);
    EXPECT_EQ(p.name(0), "op}{][,\"x\\");
    EXPECT_EQ(p.origin_ns, 1700000000000000000 + 1000 * 1000);
    EXPECT_EQ(p.strings.view(p.hosts[0].hostname), "rank7");
    EXPECT_EQ(p.start_ps(EventIndex(kEvents - 1)), int64_t(kEvents - 1) * 10 * 1000 * 1000);
  }
}

// Each batch is parsed in the window it was read into, the walk going on in another: events
// larger than the window (which then grows) between small ones, read ahead and read here, come
// out whole, in order, with their own names and times.
TEST(PyTorchStreaming, EventsLargerThanTheWindowBetweenSmallOnes) {
  std::string json = R"({"traceEvents": [)";
  const size_t kEvents = 3000;
  for (size_t i = 0; i < kEvents; ++i) {
    // Every 500th event carries a string of 300 KiB to 1.2 MiB.
    const std::string filler(i % 500 == 7 ? (size_t(300) << 10) * (1 + i / 1000) : 0, 'x');
    json += i == 0 ? "" : (i % 3 == 0 ? "," : ",\n  ");  // also "},{" with nothing between
    json += R"({"ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(i) + R"(", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(1000 + 10 * i) + R"(, "dur": 5, "args": {"note": ")" + filler + R"("}})";
  }
  json += "]}";
  ScratchDir dir;
  const std::string file = dir / "large_events.json";
  std::ofstream(file, std::ios::binary) << json;
  for (bool ahead : {true, false}) {
    SCOPED_TRACE(ahead ? "read ahead" : "read here");
    Profile p;
    std::string error;
    ASSERT_TRUE(import_pytorch_trace_file(file, "h", &p, &error, {}, ahead)) << error;
    ASSERT_EQ(p.num_events(), kEvents);
    for (size_t i = 0; i < kEvents; ++i) {
      ASSERT_EQ(p.name(EventIndex(i)), "op" + std::to_string(i));
      ASSERT_EQ(p.start_ps(EventIndex(i)), int64_t(i) * 10 * 1000 * 1000);
    }
  }
}

// A progress bar hears how far the read has come, window by window, up to the whole file.
// The events' room is sized from the text's size before reading: a gzip file's trailer says it,
// and a trailer that claims more than deflate can make is not believed.
TEST(PyTorchStreaming, TextSizeFromTheFileOrItsGzipTrailer) {
  const std::string json = large_trace(2000);
  std::string gz = gzip(json);
  kineto::JsonSource plain, inflated, forged;
  plain.open_bytes(json.data(), json.size());
  EXPECT_EQ(plain.text_size_hint(), json.size());
  inflated.open_bytes(gz.data(), gz.size());
  EXPECT_EQ(inflated.text_size_hint(), json.size());
  gz[gz.size() - 1] = '\x7f';  // about 2 GiB
  forged.open_bytes(gz.data(), gz.size());
  EXPECT_EQ(forged.text_size_hint(), gz.size() * 1032);
}

// Loads `path`, which holds `events` events, keeping each fraction of progress it reports.
void load_with_progress(const std::string& path, size_t events, std::vector<double>* fractions) {
  Profile p;
  LoadError error;
  ASSERT_TRUE(load_profile({path, "", "", [&](double f) { fractions->push_back(f); }}, &p, &error)) << error.problem;
  EXPECT_EQ(p.num_events(), events);
}

TEST(PyTorchStreaming, LoadingReportsProgressByBytesRead) {
  ScratchDir dir;
  const std::string path = dir / "large.pt.trace.json";
  std::ofstream(path, std::ios::binary) << large_trace(40000);
  std::vector<double> fractions;
  ASSERT_NO_FATAL_FAILURE(load_with_progress(path, 40000, &fractions));
  ASSERT_GE(fractions.size(), 4u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  // Reading the 8 MB in 1 MiB windows is told on the way (up to 0.9: the model is built after).
  EXPECT_GE(std::count_if(fractions.begin(), fractions.end(), [](double f) { return f > 0 && f < 0.85; }), 4);
  EXPECT_EQ(fractions.back(), 1.0);
}

TEST(PyTorchStreaming, AnEventLargerThanTheWindowLimitIsRefused) {
  std::string json = R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1, "args": {"big": ")";
  json.append(kineto::kMaxValueBytes + 10, 'x');
  json += R"("}}]})";
  Profile p;
  std::string error;
  EXPECT_FALSE(import_pytorch_trace_bytes(json.data(), json.size(), "h", &p, &error));
  EXPECT_NE(error.find("larger than 16 MiB"), std::string::npos) << error;
  EXPECT_EQ(p.num_events(), 0u);
}

TEST(PyTorchStreaming, MalformedSeparatorsAcrossWindows) {
  const std::string good = large_trace(12000);
  struct Case {
    const char* what;
    std::string json;
  };
  std::string missing_comma = good, trailing_comma = good, mismatched = good;
  missing_comma.erase(missing_comma.find(",\n", good.size() / 2), 1);
  trailing_comma.insert(trailing_comma.find("],\n  \"deviceProperties\""), ",");
  mismatched.replace(mismatched.find("],\n  \"deviceProperties\""), 1, "}");
  for (const Case& c : {Case{"a missing comma", missing_comma}, Case{"a trailing comma", trailing_comma},
                        Case{"a mismatched bracket", mismatched}, Case{"cut short", good.substr(0, good.size() / 2)}}) {
    SCOPED_TRACE(c.what);
    Profile p;
    std::string error;
    EXPECT_FALSE(import_pytorch_trace_bytes(c.json.data(), c.json.size(), "h", &p, &error));
    // simdjson reads the element after a trailing comma as one that is no object.
    EXPECT_TRUE(error.find("not valid JSON") != std::string::npos ||
                error.find("traceEvents[12000] is not an object") != std::string::npos)
        << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(p.num_events(), 0u);
  }
}

// Batches are parsed on several threads, each not knowing how many elements came before it:
// an element that is no object deep in the file is still named by its index in traceEvents,
// and of two such elements the first in the file's order is the one reported.
TEST(PyTorchStreaming, AnElementThatIsNoObjectIsNamedByItsIndexAcrossBatches) {
  const size_t kEvents = 60000;  // about 12 MiB: many batches
  const std::string good = large_trace(kEvents);
  auto element = [&](size_t i) { return good.rfind("{\"ph\"", good.find("\"External id\": " + std::to_string(i) + ",")); };
  std::string one = good, two = good;
  one.insert(element(41234), "7,\n");
  two.insert(element(52000), "8,\n");
  two.insert(element(30001), "7,\n");
  for (bool gz : {false, true}) {
    for (const auto& [json, index] : {std::pair{&one, 41234}, std::pair{&two, 30001}}) {
      const std::string bytes = gz ? gzip(*json) : *json;
      Profile p;
      std::string error;
      EXPECT_FALSE(import_pytorch_trace_bytes(bytes.data(), bytes.size(), "h", &p, &error));
      EXPECT_EQ(error, "not a PyTorch trace: traceEvents[" + std::to_string(index) + "] is not an object");
    }
  }
}

// The JSON is parsed on a thread of its own ahead of the trace building: the first error in
// the file's order is the one reported, whichever thread meets it, and a reader that stops at
// an early error (with many batches still to parse) stops that thread with it.
TEST(PyTorchStreaming, ErrorsInFileOrderWhileParsingAhead) {
  const size_t kEvents = 60000;  // about 12 MiB: many batches
  const std::string good = large_trace(kEvents);
  const std::string ts_of_5 = "\"ts\": " + std::to_string(1000 + 10 * 5);
  std::string bad_time = good, bad_time_then_bad_json = good, bad_json = good;
  bad_time.replace(bad_time.find(ts_of_5), ts_of_5.size(), "\"ts\": \"soon\"");
  bad_time_then_bad_json = bad_time;
  bad_time_then_bad_json.insert(bad_time_then_bad_json.find("\"ph\"", good.size() / 2), "{");
  bad_json.insert(bad_json.find("\"ph\"", good.size() / 2), "{");
  for (bool gz : {false, true}) {
    for (int repeat = 0; repeat < 5; ++repeat) {
      for (const std::string* json : {&bad_time, &bad_time_then_bad_json}) {
        const std::string bytes = gz ? gzip(*json) : *json;
        Profile p;
        std::string error;
        EXPECT_FALSE(import_pytorch_trace_bytes(bytes.data(), bytes.size(), "h", &p, &error));
        EXPECT_EQ(error, "traceEvents[5]: ts \"\"soon\"\" is not a time in range");
        EXPECT_EQ(p.num_events(), 0u);
      }
    }
    const std::string bytes = gz ? gzip(bad_json) : bad_json;
    Profile p;
    std::string error;
    EXPECT_FALSE(import_pytorch_trace_bytes(bytes.data(), bytes.size(), "h", &p, &error));
    EXPECT_EQ(error.rfind("not valid JSON", 0), 0u) << error;
  }
}

// Events as Kineto lays them out ("  {" and "  }" on lines of their own), each with `inner` in
// its args: the read ahead cuts the event array where that layout's separator stands.
std::string kineto_layout_trace(size_t events, const std::string& inner) {
  std::string json = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [";
  for (size_t i = 0; i < events; ++i) {
    json += i == 0 ? "\n  {\n" : ",\n  {\n";
    json += R"(    "ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(i) + R"(", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(1000 + 10 * i) + ",\n    \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i) + inner +
            "}\n  }";
  }
  json += "\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}\n}";
  return json;
}

// What a read gives, to compare reads: the error, or the events' names, times and ids.
std::string outcome(const std::string& path, bool ahead, bool guess) {
  kineto::JsonSource source;
  StringTable strings;
  kineto::Trace trace;
  std::string error;
  if (!source.open_file(path, &error)) return "cannot open: " + error;
  if (!kineto::read_trace(source, &strings, &trace, {}, &error, ahead, nullptr, guess)) return "error: " + error;
  std::string out = std::to_string(trace.events.size()) + " events";
  for (const kineto::Event& e : trace.events)
    out += "\n" + std::string(strings.view(e.name)) + " " + std::to_string(e.ts_ns) + " " + std::to_string(e.external_id);
  return out + "\nrank " + std::to_string(trace.rank.value_or(-1));
}

// Reads that guess where events end from the text's layout give what reads that scan every byte
// give, read ahead or here, plain or gzip: with the separator inside strings (whose line breaks
// simdjson refuses, as JSON does) and inside nested arrays of objects (so that some guesses are
// wrong), and with text that is no trace.
TEST(PyTorchStreaming, GuessedCutsReadAsScannedOnes) {
  const std::string separator = "\n  },\n  {";
  const std::string good = kineto_layout_trace(30000, "");
  const std::string in_strings = kineto_layout_trace(30000, R"(, "note": "a)" + separator + R"(b")");
  const std::string in_arrays = kineto_layout_trace(30000, R"(, "list": [{"k": 1)" + separator + R"("k": 2}])");
  // Arguments nested deeper than the fast scan reads, and an element nested deeper than simdjson reads.
  std::string deep = good, too_deep = good, deep_element = good;
  deep.insert(deep.find("\"External id\": 20000"), "\"deep\": " + std::string(100, '[') + std::string(100, ']') + ", ");
  too_deep.insert(too_deep.find("\"External id\": 20000"), "\"deep\": " + std::string(5000, '[') + std::string(5000, ']') + ", ");
  deep_element.insert(deep_element.find("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op20000\""),
                      std::string(100000, '[') + std::string(100000, ']') + ",\n  ");
  std::string missing_comma = good, unclosed = good, mismatched = good;
  missing_comma.erase(missing_comma.find(separator, good.size() / 2) + 4, 1);
  unclosed.erase(unclosed.find("\"op25000\"") + 8, 1);
  mismatched.replace(mismatched.find("\n  ],"), 4, "\n  }");
  struct Case {
    const char* what;
    const std::string& json;
    bool readable;
  };
  const std::string cut_short = good.substr(0, good.size() / 2), not_json = "not json", empty;
  ScratchDir dir;
  for (const Case& c : {Case{"laid out as Kineto does", good, true}, Case{"separator in strings", in_strings, false},
                        Case{"separator in nested arrays", in_arrays, true}, Case{"deep nesting", deep, true},
                        Case{"nesting 5000 deep", too_deep, true}, Case{"an element 100000 deep", deep_element, false},
                        Case{"a missing comma", missing_comma, false}, Case{"an unclosed string", unclosed, false},
                        Case{"a mismatched bracket", mismatched, false}, Case{"cut short", cut_short, false},
                        Case{"not JSON", not_json, false}, Case{"empty", empty, false}}) {
    for (bool gz : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (gz ? " (gzip)" : ""));
      const std::string path = dir / (gz ? "trace.json.gz" : "trace.json");
      std::ofstream(path, std::ios::binary | std::ios::trunc) << (gz ? gzip(c.json) : c.json);
      const std::string scanned = outcome(path, false, false);
      EXPECT_EQ(scanned.rfind("error: ", 0) != 0, c.readable) << scanned.substr(0, 200);
      if (c.readable) {
        EXPECT_EQ(scanned.substr(0, scanned.find('\n')), "30000 events");
      }
      for (bool ahead : {true, false}) {
        const std::string guessed = outcome(path, ahead, true);
        EXPECT_TRUE(guessed == scanned) << (ahead ? "ahead: " : "here: ") << guessed.substr(0, 200) << "\nversus\n"
                                        << scanned.substr(0, 200);
      }
    }
  }
}

// A guess inside a nested array of objects has the file read again: the progress bar, told
// of both reads, still only moves forward, up to the whole file.
TEST(PyTorchStreaming, ProgressOnlyMovesForwardWhenTheTextIsReadAgain) {
  ScratchDir dir;
  const std::string path = dir / "nested.pt.trace.json";
  // Most of each event after the separator inside it: most windows end past that one.
  std::ofstream(path, std::ios::binary)
      << kineto_layout_trace(40000, R"(, "list": [{"k": 1)" "\n  },\n  {" R"("k": 2, "pad": ")" + std::string(300, 'x') + "\"}]");
  std::vector<double> fractions;
  ASSERT_NO_FATAL_FAILURE(load_with_progress(path, 40000, &fractions));
  ASSERT_GE(fractions.size(), 4u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(fractions.back(), 1.0);
}

// A file or bytes in memory, plain or gzip, read again from the start after a part was read.
TEST(PyTorchStreaming, ASourceReadsAgainFromItsStart) {
  const std::string json = large_trace(3000);
  ScratchDir dir;
  for (bool gz : {false, true}) {
    const std::string bytes = gz ? gzip(json) : json;
    const std::string path = dir / "again.json";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    for (bool file : {false, true}) {
      SCOPED_TRACE(std::string(gz ? "gzip " : "plain ") + (file ? "file" : "bytes"));
      kineto::JsonSource source;
      std::string error;
      if (file) ASSERT_TRUE(source.open_file(path, &error)) << error;
      else source.open_bytes(bytes.data(), bytes.size());
      ASSERT_TRUE(source.can_rewind());
      std::vector<char> buffer(json.size() + 1);
      size_t got = 0;
      ASSERT_TRUE(source.read(buffer.data(), 1000, &got, &error)) << error;
      ASSERT_TRUE(source.rewind(&error)) << error;
      std::string text;
      do {
        ASSERT_TRUE(source.read(buffer.data(), buffer.size(), &got, &error)) << error;
        text.append(buffer.data(), got);
      } while (got > 0);
      EXPECT_TRUE(text == json) << text.size() << " bytes read of " << json.size();
    }
  }
}

}  // namespace
}  // namespace mlprof::model
