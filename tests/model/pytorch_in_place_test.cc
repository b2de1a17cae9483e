// A plain trace file is read where it lies (mapped, its batches never copied or written): every
// text, good or bad, reads in place as the same bytes read through a copy do, to the error and
// its byte, read ahead or here, with cuts guessed or scanned.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "format/scratch_dir.h"
#include "model/cut_short_guard.h"
#include "model/string_table.h"
#include "model/xspace/mapped_file.h"

#include "model/pytorch/trace_file.h"
#include "model/pytorch/trace_parser.h"

namespace mlprof::model {
namespace {

using mlprof::testing::ScratchDir;

// Events with `between` between one event's '}' and the next one's '{', every `big`-th one with
// a string long enough to grow the window.
std::string trace_with(const std::string& between, size_t events, size_t big = 0) {
  std::string json = "{\"schemaVersion\": 1, \"traceEvents\": [";
  for (size_t i = 0; i < events; ++i) {
    if (i > 0) json += between;
    const std::string filler(big != 0 && i % big == 3 ? size_t(400) << 10 : 0, 'x');
    json += R"({"ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(i) + R"(", "pid": 1, "tid": )" +
            std::to_string(i % 3) + R"(, "ts": )" + std::to_string(1000 + 10 * i) +
            R"(, "dur": 5, "args": {"External id": )" + std::to_string(i) + R"(, "note": ")" + filler + "\"}}";
  }
  return json + "],\n\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}}";
}

// What a read gives: the error, or the events' names, times and ids.
std::string outcome(kineto::JsonSource& source, bool ahead, bool guess) {
  StringTable strings;
  kineto::Trace trace;
  std::string error;
  if (!kineto::read_trace(source, &strings, &trace, {}, &error, ahead, nullptr, guess)) return "error: " + error;
  std::string out = std::to_string(trace.events.size()) + " events";
  for (const kineto::Event& e : trace.events)
    out += "\n" + std::string(strings.view(e.name)) + " " + std::to_string(e.ts_ns) + " " + std::to_string(e.external_id);
  return out + "\nrank " + std::to_string(trace.rank.value_or(-1));
}

TEST(PyTorchInPlace, AFileReadInPlaceReadsAsItsBytesCopied) {
  const std::string kineto = trace_with(",\n  ", 20000);
  const std::string compact = trace_with(",", 20000);
  const std::string spaced = trace_with(" , ", 20000);  // no comma right after an event: copied
  const std::string mixed = trace_with(", ", 3000, 500);
  std::string missing_comma = kineto, trailing_comma = kineto, not_object = compact, unclosed = kineto, bad_time = spaced;
  missing_comma.erase(missing_comma.find("},\n", kineto.size() / 2) + 1, 1);
  trailing_comma.insert(trailing_comma.find("],\n\"distributedInfo\""), ",");
  not_object.insert(not_object.find("{\"ph\"", compact.size() / 3), "7,");
  unclosed.erase(unclosed.find("\"op15000\"") + 8, 1);
  bad_time.replace(bad_time.find("\"ts\": 1050"), 10, "\"ts\": \"x\"");
  struct Case {
    const char* what;
    const std::string& json;
  };
  const std::string cut_short = kineto.substr(0, kineto.size() / 2), empty_array = "{\"traceEvents\": []}";
  const std::string array_form = "[" + compact.substr(compact.find('[') + 1, compact.find("],\n") - compact.find('[') - 1) + "]";
  ScratchDir dir;
  for (const Case& c : {Case{"laid out as Kineto does", kineto}, Case{"compact", compact}, Case{"spaced", spaced},
                        Case{"events larger than the window", mixed}, Case{"a missing comma", missing_comma},
                        Case{"a trailing comma", trailing_comma}, Case{"an element no object", not_object},
                        Case{"an unclosed string", unclosed}, Case{"a bad time", bad_time}, Case{"cut short", cut_short},
                        Case{"no events", empty_array}, Case{"the array form", array_form}}) {
    SCOPED_TRACE(c.what);
    const std::string path = dir / "trace.json";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << c.json;
    for (bool ahead : {true, false}) {
      for (bool guess : {true, false}) {
        kineto::JsonSource copied, in_place;
        copied.open_bytes(c.json.data(), c.json.size());
        std::string error;
        ASSERT_TRUE(in_place.open_file(path, &error)) << error;
        size_t size = 0, capacity = 0;
        ASSERT_NE(in_place.text_in_place(&size, &capacity), nullptr);
        EXPECT_EQ(size, c.json.size());
        EXPECT_GE(capacity, size + kineto::JsonSource::kInPlacePadding);
        const std::string want = outcome(copied, ahead, guess), got = outcome(in_place, ahead, guess);
        EXPECT_TRUE(got == want) << (ahead ? "ahead" : "here") << (guess ? ", guessing: " : ": ") << got.substr(0, 300)
                                 << "\nversus\n" << want.substr(0, 300);
      }
    }
  }
}

// The text after the file's last byte reads as zeros, so that a parser may look past it.
TEST(PyTorchInPlace, TheTextEndsInZeroPadding) {
  ScratchDir dir;
  for (size_t size : {size_t(1), size_t(4095), size_t(4096), size_t(4097), size_t(100000)}) {
    const std::string path = dir / "t.json";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(size, ' ');
    kineto::JsonSource source;
    std::string error;
    ASSERT_TRUE(source.open_file(path, &error)) << error;
    size_t got = 0, capacity = 0;
    const char* text = source.text_in_place(&got, &capacity);
    ASSERT_NE(text, nullptr);
    ASSERT_EQ(got, size);
    for (size_t i = size; i < capacity; ++i) ASSERT_EQ(text[i], '\0') << size << " " << i;
  }
}

// A file written again shorter while it is read: the pages past its new end read as zeros (not a
// SIGBUS that ends the process), and the read fails saying so.
TEST(PyTorchInPlace, AFileCutShortWhileReadIsAnError) {
  const std::string json = trace_with(",\n  ", 20000);
  ScratchDir dir;
  const std::string path = dir / "trace.json";
  for (bool ahead : {true, false}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << json;
    kineto::JsonSource source;
    std::string error;
    ASSERT_TRUE(source.open_file(path, &error)) << error;
    std::filesystem::resize_file(path, json.size() / 3);
    StringTable strings;
    kineto::Trace trace;
    EXPECT_FALSE(kineto::read_trace(source, &strings, &trace, {}, &error, ahead, nullptr, true));
    EXPECT_EQ(error, kCutShortWhileRead);
    EXPECT_TRUE(source.cut_short());
  }
  // An XSpace file is mapped the same way.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(size_t(1) << 20, 'x');
  xspace::MappedFile file;
  std::string error;
  ASSERT_TRUE(file.open(path, &error)) << error;
  std::filesystem::resize_file(path, 1000);
  EXPECT_EQ(file.data()[999], 'x');
  EXPECT_EQ(file.data()[(size_t(1) << 20) - 1], 0);
  EXPECT_TRUE(file.cut_short());
}

}  // namespace
}  // namespace mlprof::model
