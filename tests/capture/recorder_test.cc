// The recorder under load: many threads, threads that come and go, a full buffer, and a
// session stopped while threads still write.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof {
namespace {

using testing::read_run;

ProfilerOptions options(uint64_t max_buffer_bytes = uint64_t{512} << 20) {
  ProfilerOptions o;
  o.run_name = "run";
  o.host_name = "testhost";
  o.max_buffer_bytes = max_buffer_bytes;
  return o;
}

const char* const kNames[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6"};

// Each thread writes `pairs` outer events (names cycling through kNames) holding one "leaf".
void write_pairs(int pairs) {
  for (int i = 0; i < pairs; ++i) {
    const char* name = kNames[i % 7];
    const uint64_t start = now_ticks();
    { MLPROF_TRACE("leaf"); }
    internal::record_literal(name, start, now_ticks());
  }
}

TEST(Recorder, EightThreadsAMillionEventsEachAllArrive) {
  constexpr int kThreads = 8;
  constexpr int kPairs = 500'000;  // 1 M events per thread
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options()).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(write_pairs, kPairs);
  for (auto& t : threads) t.join();
  const RunInfo run = stop();
  EXPECT_EQ(run.events, uint64_t{kThreads} * kPairs * 2);
  EXPECT_EQ(run.dropped, 0u);

  const auto space = read_run(run);
  const auto* host = testing::find_plane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), kThreads);
  int64_t leaf_id = 0;
  std::map<int64_t, int> name_index;  // metadata id -> index in kNames
  for (const auto& [id, meta] : host->event_metadata()) {
    if (meta.name() == "leaf") leaf_id = id;
    for (int i = 0; i < 7; ++i) if (meta.name() == kNames[i]) name_index[id] = i;
  }
  ASSERT_EQ(name_index.size(), 7u);
  for (const auto& line : host->lines()) {
    ASSERT_EQ(line.events_size(), 2 * kPairs);
    // Sorted by start: outer i, its leaf, outer i+1, ... every event once, in order, nested.
    for (int i = 0; i < kPairs; ++i) {
      const auto& outer = line.events(2 * i);
      const auto& leaf = line.events(2 * i + 1);
      ASSERT_EQ(name_index.at(outer.metadata_id()), i % 7) << "line " << line.id() << " pair " << i;
      ASSERT_EQ(leaf.metadata_id(), leaf_id);
      ASSERT_GE(leaf.offset_ps(), outer.offset_ps());
      ASSERT_LE(leaf.offset_ps() + leaf.duration_ps(), outer.offset_ps() + outer.duration_ps());
    }
  }
}

TEST(Recorder, ThreadsThatExitDuringTheSessionKeepTheirEvents) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options()).ok());
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) threads.emplace_back(write_pairs, 5000);
    for (auto& t : threads) t.join();
  }
  const RunInfo run = stop();
  EXPECT_EQ(run.events, 12u * 10000u);
  const auto space = read_run(run);
  int64_t events = 0;
  for (const auto& line : testing::find_plane(space, "/host:CPU")->lines()) {
    EXPECT_EQ(line.events_size() % 10000, 0);  // a reused thread id merges lines, never splits events
    events += line.events_size();
  }
  EXPECT_EQ(events, 120000);
}

TEST(Recorder, AFullBufferCountsEveryDroppedEvent) {
  constexpr uint64_t kBuffer = 4 * 64 * 1024;  // four chunks
  constexpr int kThreads = 3;
  constexpr int kPerThread = 30000;  // 10000 of each kind
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options(kBuffer)).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < kPerThread / 3; ++i) {
        { MLPROF_TRACE("literal"); }
        { Trace t(std::string("copied")); }
        { StepTrace s("step", i); }
      }
    });
  }
  for (auto& t : threads) t.join();
  const RunInfo run = stop();
  EXPECT_GT(run.dropped, 0u);
  EXPECT_EQ(run.events + run.dropped, uint64_t{kThreads} * kPerThread);
  const auto space = read_run(run);
  int64_t written = 0;
  for (const auto& line : testing::find_plane(space, "/host:CPU")->lines()) written += line.events_size();
  EXPECT_EQ(uint64_t(written), run.events);
  ASSERT_EQ(space.warnings_size(), 1);
  EXPECT_EQ(space.warnings(0), "mlprof dropped " + std::to_string(run.dropped) +
                                   " events: the capture buffer (max_buffer_bytes = 262144) was full");
}

TEST(Recorder, ABufferTooSmallForOneChunkDropsEverything) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options(1000)).ok());
  for (int i = 0; i < 100; ++i) MLPROF_TRACE("x");
  const RunInfo run = stop();
  EXPECT_EQ(run.events, 0u);
  EXPECT_EQ(run.dropped, 100u);
}

TEST(Recorder, StoppingWhileThreadsWriteIsSafe) {
  testing::ScratchDir dir;
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      while (!done.load(std::memory_order_relaxed)) {
        Trace outer(std::string("outer"));
        for (int i = 0; i < 100; ++i) MLPROF_TRACE("inner");
      }
    });
  }
  // Back-to-back sessions (small buffers: some fill up) while the threads never stop writing.
  for (int session = 0; session < 10; ++session) {
    ProfilerOptions o = options(uint64_t{1} << 20);
    o.run_name = "run" + std::to_string(session);  // a capture never overwrites a run
    ASSERT_TRUE(start(dir.path(), o).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const RunInfo run = stop();
    const auto space = read_run(run);
    const auto* host = testing::find_plane(space, "/host:CPU");
    ASSERT_NE(host, nullptr);
    for (const auto& line : host->lines()) {
      for (const auto& e : line.events()) ASSERT_GE(e.duration_ps(), 0);
    }
  }
  done = true;
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace mlprof
