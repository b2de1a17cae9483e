// The structural-index event reader (model/pytorch/event_scan.h): the fields it fills, read
// off the JSON by hand, and the batches it leaves to the On-Demand parser (which then reads
// them, or reports what is wrong, as before).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/pytorch/event_scan.h"

namespace mlprof::model::kineto {
namespace {

struct Batch {
  std::string text;
  PaddedJson json() const { return {text.data(), text.size() - 64, text.size(), 0}; }
};
Batch padded(std::string json) { return {json.append(64, '\0')}; }

TEST(KinetoEventScan, ReadsTheFieldsOfKinetoEvents) {
  const Batch batch = padded(R"([
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1669783687464277.5, "dur": 12,
     "args": {"External id": 31, "correlation": 42, "device": 0, "stream": 7, "grid": [2, 1, 1], "block": [128, 1, 1],
              "registers per thread": 32, "shared memory": 0, "est. achieved occupancy %": 12.5, "Ev Idx": 6,
              "Input Dims": [[1, 2], []], "note": "a \"quoted\" word"}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": "Spans", "tid": "1234", "ts": 5,
     "args": {"Addr": 140000000000000, "Bytes": -512, "Total Allocated": 1024, "Total Reserved": 2048,
              "Device Type": 1, "Device Id": 0, "cbid": 211}},
    {"ph": "M", "name": "thread_name", "pid": 3, "tid": 4, "cat": 17, "args": {"name": "main thread"}}
  ])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  ASSERT_EQ(raws.size(), 3u);

  const RawEvent& k = raws[0];
  EXPECT_EQ(k.ph, 'X');
  EXPECT_TRUE(k.has_cat);
  EXPECT_EQ(k.cat, "kernel");
  EXPECT_EQ(k.name, "k1");
  EXPECT_TRUE(k.pid.present);
  EXPECT_EQ(k.pid.value, 0);
  EXPECT_EQ(k.tid.value, 7);
  EXPECT_EQ(k.ts, "1669783687464277.5");
  EXPECT_EQ(k.dur, "12");
  EXPECT_EQ(k.external_id, 31);
  EXPECT_EQ(k.correlation, 42);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.stream, 7);
  ASSERT_NE(k.kernel_if(), nullptr);
  EXPECT_EQ(k.kernel_if()->grid[0], 2);
  EXPECT_EQ(k.kernel_if()->block[0], 128);
  EXPECT_EQ(k.kernel_if()->registers, 32);
  EXPECT_EQ(k.kernel_if()->shared_memory, 0);
  EXPECT_DOUBLE_EQ(k.kernel_if()->occupancy_pct, 12.5);
  EXPECT_FALSE(k.has_cbid);
  ASSERT_NE(k.op_args_if(), nullptr);
  EXPECT_EQ(k.op_args_if()->input_dims, "[[1, 2], []]");  // an array as its JSON text

  const RawEvent& m = raws[1];
  EXPECT_EQ(m.ph, 'i');
  EXPECT_FALSE(m.has_cat);
  EXPECT_FALSE(m.global_scope);  // "s": "t"
  EXPECT_EQ(m.pid.label, "Spans");
  EXPECT_TRUE(m.tid.present);
  EXPECT_EQ(m.tid.value, 1234);  // a quoted number is the number
  EXPECT_TRUE(m.tid.label.empty());
  ASSERT_NE(m.memory_if(), nullptr);
  EXPECT_EQ(m.memory_if()->addr, 140000000000000);
  EXPECT_EQ(m.memory_if()->bytes, -512);
  EXPECT_EQ(m.memory_if()->total_allocated, 1024);
  EXPECT_EQ(m.memory_if()->total_reserved, 2048);
  EXPECT_EQ(m.memory_if()->device_type, 1);
  EXPECT_EQ(m.memory_if()->device_id, 0);
  EXPECT_TRUE(m.has_cbid);

  const RawEvent& t = raws[2];
  EXPECT_EQ(t.ph, 'M');
  EXPECT_FALSE(t.has_cat);  // a category that is no string is none
  EXPECT_EQ(t.arg_name, "main thread");
  EXPECT_EQ(k.parts, &parts);
}

TEST(KinetoEventScan, TellsAGlobalInstant) {
  const Batch batch = padded(R"([{"ph": "i", "s": "g", "name": "a"}, {"ph": "i", "s": "p", "name": "b"}])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  ASSERT_EQ(raws.size(), 2u);
  EXPECT_TRUE(raws[0].global_scope);
  EXPECT_FALSE(raws[1].global_scope);
  EXPECT_EQ(raws[0].kernel_if(), nullptr);  // no arguments: no parts
  EXPECT_TRUE(parts.kernels.empty() && parts.memory.empty() && parts.op_args.empty());
}

TEST(KinetoEventScan, LeavesOtherBatchesToOnDemand) {
  const char* others[] = {
      R"([{"ph": "X", "name": "na\u006De"}])",                 // an escape in a string it keeps
      R"([{"ph": "X", "name": "n"}, 1])",                       // an element that is no object
      R"([{"ph": "X", "args": {"a": [1}}])",                    // brackets that do not match
      R"([{"ph": "X" "name": "n"}])",                           // a missing comma
      R"([{"ph" "X"}])",                                        // a missing colon
      R"([{"ph": "X",}])",                                      // a comma before '}'
      R"([{"ph": "X"}] {})",                                    // text after the batch
      R"([{"ph": "i", "args": {"Addr": 18446744073709551615}}])",  // an address past int64
      R"([{"ph": "X", "name": "bad \xff utf-8"}])",             // stage 1 refuses it
  };
  EventScan scan;
  for (const char* json : others) {
    std::vector<RawEvent> raws(2);
    RawParts parts;
    EXPECT_FALSE(scan.read(padded(json).json(), &raws, &parts)) << json;
    EXPECT_EQ(raws.size(), 2u) << json;  // as it was
  }
  std::vector<RawEvent> raws;
  RawParts parts;
  EXPECT_TRUE(scan.read(padded("[]").json(), &raws, &parts));
  EXPECT_TRUE(raws.empty());
}

// Each event's pid and tid as written, however often the one before repeats them.
TEST(KinetoEventScan, ReadsRepeatedThreadIds) {
  const Batch batch = padded(R"([
    {"ph": "X", "pid": 7, "tid": 7},
    {"ph": "X", "pid": 7, "tid": 12345678},
    {"ph": "X", "pid": 70, "tid": 12345678 },
    {"ph": "X", "pid": -7, "tid": 123456789},
    {"ph": "X", "pid": 7, "tid": 123456789},
    {"ph": "X", "pid": 1e3, "tid": 12345679}
  ])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  const int64_t pids[] = {7, 7, 70, -7, 7, 1000}, tids[] = {7, 12345678, 12345678, 123456789, 123456789, 12345679};
  ASSERT_EQ(raws.size(), 6u);
  for (size_t i = 0; i < raws.size(); ++i) {
    EXPECT_TRUE(raws[i].pid.present && raws[i].tid.present) << i;
    EXPECT_EQ(raws[i].pid.value, pids[i]) << i;
    EXPECT_EQ(raws[i].tid.value, tids[i]) << i;
  }
}

// What settle() works out for each phase: a launch's flow arrow its time and id, other arrows
// nothing; work its times, category and name's slot.
TEST(KinetoEventScan, SettlesWhatEachPhaseReads) {
  const Batch batch = padded(R"([
    {"ph": "s", "id": 42, "pid": 1, "tid": 2, "ts": 1669783697141476, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 43, "pid": 1, "tid": 7, "ts": 1669783697141484.5, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 1, "tid": 7, "ts": 12.5, "dur": 2.25, "args": {"device": 1, "stream": 7}},
    {"ph": "i", "name": "mark", "pid": 1, "tid": 2, "ts": 7, "dur": 3},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "ts": 0, "args": {"name": "main"}}
  ])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  ASSERT_EQ(raws.size(), 5u);
  EXPECT_TRUE(raws[0].launch_flow && raws[0].ts_ok && raws[0].flow_ok);
  EXPECT_EQ(raws[0].ts_value, 1669783697141476000);
  EXPECT_EQ(raws[0].flow_value, 42);
  EXPECT_FALSE(raws[1].launch_flow || raws[1].flow_ok);  // not a launch's arrow: dropped as it is
  const RawEvent& k = raws[2];
  EXPECT_TRUE(k.ts_ok && k.dur_ok);
  EXPECT_EQ(k.ts_value, 12500);
  EXPECT_EQ(k.dur_value, 2250000);
  EXPECT_EQ(k.category, Category::kKernel);  // any case
  EXPECT_FALSE(k.unknown_device);
  EXPECT_EQ(k.name_slot, InternCache::slot_of("k"));
  EXPECT_TRUE(raws[3].ts_ok);
  EXPECT_EQ(raws[3].ts_value, 7000);
  EXPECT_EQ(raws[3].category, Category::kInstant);
  EXPECT_FALSE(raws[3].dur_ok);  // an instant has no duration, whatever it says
  EXPECT_EQ(raws[4].arg_name, "main");
}

// Keys as traces write them (the colon right after the quote) and as they may be written: with
// whitespace before the colon, or with an escape (which makes a key match none).
TEST(KinetoEventScan, ReadsKeysHoweverTheirColonsAreSpaced) {
  const Batch batch = padded(R"([
    {"ph" : "X", "name"  :"n", "ts":5, "args" :{"External id"
      : 31, "correlation":42}},
    {"ph": "X", "na\u006De": "m", "cat": "kernel"}
  ])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  ASSERT_EQ(raws.size(), 2u);
  EXPECT_EQ(raws[0].ph, 'X');
  EXPECT_EQ(raws[0].name, "n");
  EXPECT_EQ(raws[0].ts, "5");
  EXPECT_EQ(raws[0].external_id, 31);
  EXPECT_EQ(raws[0].correlation, 42);
  EXPECT_TRUE(raws[1].name.empty());  // a key with an escape is not "name" as written
  EXPECT_EQ(raws[1].cat, "kernel");
}

// A launch's events alternate between the host thread and the device's stream: each pid and tid
// as written, whichever of the last two it repeats.
TEST(KinetoEventScan, ReadsAlternatingThreadIds) {
  const Batch batch = padded(R"([
    {"ph": "X", "pid": 783658, "tid": 783658},
    {"ph": "s", "pid": 783658, "tid": 783658},
    {"ph": "X", "pid": 1, "tid": 7},
    {"ph": "f", "pid": 1, "tid": 7},
    {"ph": "X", "pid": 783658, "tid": 785244},
    {"ph": "X", "pid": 1, "tid": 7},
    {"ph": "X", "pid": 2, "tid": 70},
    {"ph": "X", "pid": 783658, "tid": 7},
    {"ph": "X", "pid": 1, "tid": 785244}
  ])");
  EventScan scan;
  std::vector<RawEvent> raws;
  RawParts parts;
  ASSERT_TRUE(scan.read(batch.json(), &raws, &parts));
  const int64_t pids[] = {783658, 783658, 1, 1, 783658, 1, 2, 783658, 1};
  const int64_t tids[] = {783658, 783658, 7, 7, 785244, 7, 70, 7, 785244};
  ASSERT_EQ(raws.size(), 9u);
  for (size_t i = 0; i < raws.size(); ++i) {
    EXPECT_TRUE(raws[i].pid.present && raws[i].tid.present) << i;
    EXPECT_EQ(raws[i].pid.value, pids[i]) << i;
    EXPECT_EQ(raws[i].tid.value, tids[i]) << i;
  }
}

}  // namespace
}  // namespace mlprof::model::kineto
