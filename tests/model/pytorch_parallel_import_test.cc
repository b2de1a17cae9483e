// The importer's work shared by two threads (the lines sorted on both, the times and nesting
// written beside the names and stats) gives the model that one thread gives, on generated
// traces with many threads, devices, streams and nested, shuffled events; and the flat op
// index that names GPU work's ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "format/scratch_dir.h"
#include "model/profile_equal.h"
#include "model/pytorch/importer.h"
#include "model/pytorch/ops_by_external_id.h"

namespace mlprof::model {
namespace {

using testing::ScratchDir;

std::string format(const char* pattern, auto... values) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

// A trace of `processes` processes with `threads` threads each (thread 1 runs the steps, the
// others run work beside them), `devices` GPUs of three streams, Python frames, memory
// records, annotations and synchronisations; ops nest three deep, some share a start, and the
// events are written in a shuffled order so that every line needs sorting.
std::string generated_trace(uint32_t seed, int processes, int threads, int devices, int64_t base_ns) {
  std::mt19937 random(seed);
  auto below = [&](int n) { return int(random() % uint32_t(n)); };
  std::vector<std::string> events;
  int64_t external = 1, correlation = 1;
  for (int p = 0; p < processes; ++p) {
    const int pid = 100 + p;
    for (int t = 1; t <= threads; ++t) {
      events.push_back(format(R"({"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "worker %d"}})",
                              pid, t, t));
      double ts = 1000 + below(50);
      for (int step = 0; step < 4; ++step) {
        const double step_start = ts;
        if (t == 1)
          events.push_back(format(
              R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, "ts": %.3f, "dur": 400, "args": {"External id": %lld}})",
              step, pid, t, step_start, (long long)external++));
        for (int op = 0; op < 12; ++op) {
          const double start = step_start + 1 + op * 30 + below(3);
          const int64_t id = external++;
          events.push_back(format(
              R"({"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "pid": %d, "tid": %d, "ts": %.3f, "dur": %d, "args": {"External id": %lld, "Input Dims": [[%d, 2]]}})",
              below(9), pid, t, start, 25, (long long)id, below(3)));
          // A child that starts with its parent (the longer comes first) and a grandchild.
          events.push_back(format(
              R"({"ph": "X", "cat": "cpu_op", "name": "aten::inner%d", "pid": %d, "tid": %d, "ts": %.3f, "dur": %d, "args": {"External id": %lld}})",
              below(4), pid, t, start, 10 + below(5), (long long)external++));
          events.push_back(format(
              R"({"ph": "X", "cat": "cpu_op", "name": "aten::leaf", "pid": %d, "tid": %d, "ts": %.3f, "dur": 2.5, "args": {"External id": %lld}})",
              pid, t, start + 3, (long long)external++));
          if (devices > 0 && below(2) == 0) {
            const int device = below(devices), stream = 7 + below(3);
            const int64_t c = correlation++;
            events.push_back(format(
                R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %.3f, "dur": 4, "args": {"External id": %lld, "correlation": %lld}})",
                pid, t, start + 12, (long long)id, (long long)c));
            events.push_back(format(
                R"({"ph": "s", "id": %lld, "pid": %d, "tid": %d, "ts": %.3f, "cat": "ac2g", "name": "ac2g"})",
                (long long)c, pid, t, start + 12));
            if (below(4) == 0) {
              events.push_back(format(
                  R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": %d, "tid": %d, "ts": %.3f, "dur": 3, "args": {"External id": %lld, "device": %d, "stream": %d, "correlation": %lld, "bytes": %d}})j",
                  device, stream, start + 20, (long long)id, device, stream, (long long)c, 512 * (1 + below(4))));
            } else {
              events.push_back(format(
                  R"({"ph": "X", "cat": "kernel", "name": "kernel_%d", "pid": %d, "tid": %d, "ts": %.3f, "dur": %d.25, "args": {"External id": %lld, "device": %d, "stream": %d, "correlation": %lld, "registers per thread": 32, "grid": [%d, 1, 1], "block": [128, 1, 1]}})",
                  below(5), device, stream, start + 20 + below(40), 5 + below(20), (long long)id, device, stream,
                  (long long)c, 1 + below(3)));
            }
            events.push_back(format(
                R"({"ph": "f", "id": %lld, "pid": %d, "tid": %d, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
                (long long)c, device, stream, start + 20));
            if (below(3) == 0)
              events.push_back(format(
                  R"({"ph": "X", "cat": "gpu_user_annotation", "name": "scope%d", "pid": %d, "tid": %d, "ts": %.3f, "dur": 30})",
                  below(3), device, stream, start + 15));
            if (below(5) == 0)
              events.push_back(format(
                  R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": %d, "tid": %d, "ts": %.3f, "dur": 2, "args": {"device": %d, "stream": %d, "correlation": %lld}})",
                  device, stream, start + 22, device, stream, (long long)correlation++));
          }
          if (below(3) == 0)
            events.push_back(format(
                R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %d, "tid": %d, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Addr": %d, "Bytes": %d, "Total Allocated": 8192, "Total Reserved": 20480}})",
                pid, t, start + 4, 4096 * below(4), below(2) ? 256 : -256));
          if (t == 1 && below(4) == 0)
            events.push_back(format(
                R"({"ph": "X", "cat": "python_function", "name": "train.py(%d): step", "pid": %d, "tid": %d, "ts": %.3f, "dur": 20})",
                10 + below(3), pid, t, start));
        }
        ts = step_start + 420;
      }
    }
  }
  // Shuffled in runs, as several writers' buffers interleave.
  for (size_t i = 0; i + 1 < events.size(); ++i)
    if (below(3) == 0) std::swap(events[i], events[i + 1 + size_t(below(int(std::min<size_t>(40, events.size() - i - 1))))]);
  std::string text = "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": " + std::to_string(base_ns) +
                     ", \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU zero\", \"numSms\": 80}],\n\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "") + events[i];
  return text + "\n]}\n";
}

// The files read one after another into one profile, with the work shared or not.
Profile read_all(const std::vector<std::string>& paths, bool shared) {
  Profile p;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string error;
    EXPECT_TRUE(import_pytorch_trace_file(paths[i], "host" + std::to_string(i), &p, &error, {}, shared)) << error;
  }
  return p;
}

TEST(PyTorchParallelImport, SharedWorkGivesTheModelOneThreadGives) {
  ScratchDir dir;
  std::vector<std::string> paths;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    paths.push_back(dir / ("rank" + std::to_string(seed) + ".pt.trace.json"));
    // Later hosts start before and after the first: negative and positive starts.
    std::ofstream(paths.back()) << generated_trace(seed, 1 + int(seed), 3 + int(seed), int(seed),
                                                   1'700'000'000'000'000'000 + (int64_t(seed) - 2) * 1'000'000);
  }
  const Profile serial = read_all(paths, false), shared = read_all(paths, true);
  ASSERT_EQ(serial.hosts.size(), 3u);
  EXPECT_GT(serial.lines.size(), 20u);
  EXPECT_GT(serial.planes.size(), 6u);
  testing::expect_same_profile(serial, shared);
}

// What the nesting means, checked on the model itself: each line in time order, each parent an
// earlier event of the same line that encloses its child.
TEST(PyTorchParallelImport, LinesSortedAndParentsEncloseTheirChildren) {
  ScratchDir dir;
  const std::string path = dir / "t.pt.trace.json";
  std::ofstream(path) << generated_trace(7, 2, 4, 2, 0);
  const Profile p = read_all({path}, true);
  size_t nested = 0;
  for (const Line& line : p.lines) {
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (e > line.first_event) {
        EXPECT_LE(p.start_ps(e - 1), p.start_ps(e));
        if (p.start_ps(e - 1) == p.start_ps(e)) {
          EXPECT_GE(p.duration_ps(e - 1), p.duration_ps(e));
        }
      }
      const EventIndex parent = p.events.parent[e];
      if (parent == kNone) continue;
      ++nested;
      EXPECT_GE(parent, line.first_event);
      EXPECT_LT(parent, e);
      EXPECT_LE(p.start_ps(parent), p.start_ps(e));
      EXPECT_GE(p.end_ps(parent), p.end_ps(e));
    }
  }
  // Each op holds a child that holds a leaf: two nested events an op at least.
  EXPECT_GE(nested, 2u * 2 * 4 * 4 * 12);
}

// A file whose times do not fit, read after a good one, leaves the profile's events as they
// were, whether the work is shared or not; and names the first event that does not fit.
TEST(PyTorchParallelImport, TimesThatDoNotFitLeaveTheEventsAsTheyWere) {
  ScratchDir dir;
  const std::string good = dir / "good.pt.trace.json", bad = dir / "bad.pt.trace.json";
  std::ofstream(good) << generated_trace(3, 1, 2, 1, 1'700'000'000'000'000'000);
  std::ofstream(bad) << R"({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1700000000000000, "dur": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1700000000000001, "dur": 99999999999},
    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared" : "one thread");
    Profile p = read_all({good}, shared);
    const size_t events = p.num_events();
    ASSERT_GT(events, 100u);
    std::string error;
    EXPECT_FALSE(import_pytorch_trace_file(bad, "bad", &p, &error, {}, shared));
    EXPECT_NE(error.find("an event at ts 1700000000000001 us lasts"), std::string::npos) << error;
    EXPECT_EQ(p.hosts.size(), 1u);
    EXPECT_EQ(p.events.start_ps.size(), events);
    EXPECT_EQ(p.events.duration_ps.size(), events);
    EXPECT_EQ(p.events.parent.size(), events);
    EXPECT_EQ(p.events.name.size(), events);
    EXPECT_EQ(p.events.first_stat.size(), events + 1);
  }
}

TEST(OpsByExternalId, FirstOpUnderAnIdKeepsIt) {
  kineto::OpsByExternalId ops;
  EXPECT_EQ(ops.find(5), kEmptyString);
  ops.emplace(5, StringId(40));
  ops.emplace(5, StringId(41));
  ops.emplace(-3, StringId(42));
  EXPECT_EQ(ops.find(5), StringId(40));
  EXPECT_EQ(ops.find(-3), StringId(42));
  EXPECT_EQ(ops.find(6), kEmptyString);
  EXPECT_EQ(ops.find(INT64_MIN), kEmptyString);
  EXPECT_EQ(ops.size(), 2u);
}

TEST(OpsByExternalId, DenseIdsGoInAnArrayAndSparseOnesInTheTable) {
  for (int64_t stride : {int64_t(1), int64_t(1) << 40}) {
    kineto::OpsByExternalId ops;
    std::vector<std::pair<int64_t, StringId>> added;
    for (int64_t i = 0; i < 1000; ++i) added.push_back({-5 + stride * i, StringId(100 + i)});
    added.push_back({-5 + stride * 7, StringId(99)});  // the first under an id keeps it
    ops.assign(added);
    EXPECT_EQ(ops.size(), 1000u) << stride;
    EXPECT_EQ(ops.find(-5), StringId(100)) << stride;
    EXPECT_EQ(ops.find(-5 + stride * 7), StringId(107)) << stride;
    EXPECT_EQ(ops.find(-5 + stride * 999), StringId(1099)) << stride;
    EXPECT_EQ(ops.find(-6), kEmptyString) << stride;
    EXPECT_EQ(ops.find(-5 + stride * 1000), kEmptyString) << stride;
    EXPECT_EQ(ops.find(INT64_MIN), kEmptyString) << stride;
    EXPECT_EQ(ops.find(INT64_MAX), kEmptyString) << stride;
    // Ids added afterwards, far from the others, keep what is there.
    ops.emplace(int64_t(1) << 62, StringId(7));
    ops.emplace(-5, StringId(8));
    EXPECT_EQ(ops.size(), 1001u) << stride;
    EXPECT_EQ(ops.find(int64_t(1) << 62), StringId(7)) << stride;
    EXPECT_EQ(ops.find(-5), StringId(100)) << stride;
    EXPECT_EQ(ops.find(-5 + stride * 500), StringId(600)) << stride;
  }
}

TEST(OpsByExternalId, IdsCountingUpFarApartShareNoPage) {
  // Three traces joined end to end, each counting its ids up from its own start.
  kineto::OpsByExternalId ops;
  std::vector<std::pair<int64_t, StringId>> added;
  for (int64_t trace = 0; trace < 3; ++trace)
    for (int64_t i = 1; i <= 5000; ++i) added.push_back({trace * 500'000 + i - 4096, StringId(trace * 10000 + i)});
  ops.assign(added);
  EXPECT_EQ(ops.size(), 15000u);
  for (int64_t trace = 0; trace < 3; ++trace) {
    EXPECT_EQ(ops.find(trace * 500'000 - 4095), StringId(trace * 10000 + 1)) << trace;
    EXPECT_EQ(ops.find(trace * 500'000 + 904), StringId(trace * 10000 + 5000)) << trace;
    EXPECT_EQ(ops.find(trace * 500'000 + 905), kEmptyString) << trace;
    EXPECT_EQ(ops.find(trace * 500'000 - 4096), kEmptyString) << trace;
  }
  EXPECT_EQ(ops.find(1'250'000), kEmptyString);
  ops.emplace(1'250'000, StringId(1));
  EXPECT_EQ(ops.find(1'250'000), StringId(1));
  EXPECT_EQ(ops.find(1'000'000 - 4095), StringId(20001));
  EXPECT_EQ(ops.size(), 15001u);
}

TEST(OpsByExternalId, GrowsPastWhatWasReservedWithStridedAndCountingIds) {
  kineto::OpsByExternalId ops;
  ops.reserve(10);
  constexpr int64_t kCount = 50000;
  for (int64_t i = 0; i < kCount; ++i) {
    ops.emplace(i << 20, StringId(i % 1000));    // a stride of a power of two
    ops.emplace(7'000'000'000 + i, StringId(3));  // counting up
  }
  EXPECT_EQ(ops.size(), size_t(2 * kCount));
  for (int64_t i = 0; i < kCount; i += 97) {
    EXPECT_EQ(ops.find(i << 20), StringId(i % 1000)) << i;
    EXPECT_EQ(ops.find(7'000'000'000 + i), StringId(3)) << i;
    EXPECT_EQ(ops.find((i << 20) + 1), kEmptyString) << i;
  }
}

}  // namespace
}  // namespace mlprof::model
