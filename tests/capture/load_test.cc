// The capture path under load: writers that never pause while sessions start and stop,
// threads that come and go during a session, and a capture buffer far too small.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "capture/load_scale.h"
#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof {
namespace {

using testing::load_size;

ProfilerOptions options(const std::string& run_name, uint64_t max_buffer_bytes) {
  ProfilerOptions o;
  o.run_name = run_name;
  o.host_name = "testhost";
  o.max_buffer_bytes = max_buffer_bytes;
  return o;
}

// Each event of a line with its "seq" stat, in the line's order.
std::map<std::string, std::vector<int64_t>> seqs_by_line(const tensorflow::profiler::XPlane& host) {
  int64_t seq_id = -1;
  for (const auto& [id, meta] : host.stat_metadata()) {
    if (meta.name() == "seq") seq_id = id;
  }
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& line : host.lines()) {
    std::vector<int64_t>& seqs = out[line.name()];
    for (const auto& e : line.events()) {
      int64_t seq = -1;
      for (const auto& s : e.stats()) {
        if (s.metadata_id() == seq_id) seq = s.int64_value();
      }
      seqs.push_back(seq);
    }
  }
  return out;
}

// What the controlling thread saw of one writer around one session: the last event the
// writer had finished right before start(), right after it (start() returns a moment after
// the session begins recording), right before stop() and right after it.
struct WriterWindow {
  int64_t before_start = -1;
  int64_t after_start = -1;
  int64_t before_stop = -1;
  int64_t after_stop = -1;
};

struct Cycle {
  uint64_t buffer = 0;
  RunInfo run;
  std::vector<WriterWindow> writers;
};

// Events after `after_start` may still have seen no session for a few events (the start
// became visible to the writer a moment later); past this many, every one must count.
constexpr int64_t kStartSlack = 4;
// The small buffer (every other session) holds this many chunks, fewer than the writers.
constexpr uint64_t kSmallBuffer = uint64_t{256} << 10;
constexpr int kSmallBufferChunks = 4;
constexpr uint64_t kLargeBuffer = uint64_t{8} << 20;

TEST(Load, SixteenWritersWhileSessionsStartAndStop) {
  constexpr int kWriters = 16;
  const int cycles = load_size(50, 30);
  const auto session_length = std::chrono::microseconds(testing::kUnderSanitizer ? 3000 : 2000);
  const int64_t min_events_per_session = load_size(3000, 600);
  testing::ScratchDir dir;

  std::atomic<bool> quit{false};
  std::vector<std::atomic<int64_t>> done(kWriters);
  for (auto& d : done) d.store(-1);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      set_thread_name("writer-" + std::to_string(w));
      // The writers take every cycle the controlling thread and the session's own leave;
      // at equal priority, 16 busy threads on a small machine would starve the stops.
      setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 19);
      for (int64_t seq = 0; !quit.load(std::memory_order_relaxed); ++seq) {
        { Trace t("w", {{"seq", seq}}); }
        done[w].store(seq, std::memory_order_release);
      }
    });
  }

  std::vector<Cycle> results(cycles);
  for (int c = 0; c < cycles; ++c) {
    // Every other session has a buffer of 4 chunks, fewer than the writers: most of them
    // drop all they write; the others hold ~170000 events, more than the writers usually
    // finish in a session.
    const uint64_t buffer = c % 2 == 0 ? kLargeBuffer : kSmallBuffer;
    Cycle& cycle = results[c];
    cycle.buffer = buffer;
    cycle.writers.resize(kWriters);
    for (int w = 0; w < kWriters; ++w) cycle.writers[w].before_start = done[w].load(std::memory_order_acquire);
    ASSERT_TRUE(start(dir.path(), options("cycle_" + std::to_string(c), buffer)).ok());
    for (int w = 0; w < kWriters; ++w) cycle.writers[w].after_start = done[w].load(std::memory_order_acquire);
    // Until the writers have finished some events in the session (on a busy machine they,
    // at the lowest priority, may not run for a while), and at least a moment.
    const auto session_start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(session_length);
    auto finished_in_session = [&] {
      int64_t n = 0;
      for (int w = 0; w < kWriters; ++w) n += done[w].load(std::memory_order_acquire) - cycle.writers[w].after_start;
      return n;
    };
    // Writers past the start's slack: each holds a chunk or drops. A small buffer's session
    // waits for more of them than it has chunks, so that it drops for sure; on a loaded
    // machine the writers, at the lowest priority, may take a while to get there.
    auto writers_in_session = [&] {
      int n = 0;
      for (int w = 0; w < kWriters; ++w)
        n += done[w].load(std::memory_order_acquire) > cycle.writers[w].after_start + kStartSlack + 1;
      return n;
    };
    const bool small = buffer == kSmallBuffer;
    const auto most_wait = std::chrono::milliseconds(small ? 5000 : 100);
    while ((finished_in_session() < min_events_per_session || (small && writers_in_session() <= kSmallBufferChunks)) &&
           std::chrono::steady_clock::now() - session_start < most_wait) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    for (int w = 0; w < kWriters; ++w) cycle.writers[w].before_stop = done[w].load(std::memory_order_acquire);
    cycle.run = stop();
    for (int w = 0; w < kWriters; ++w) cycle.writers[w].after_stop = done[w].load(std::memory_order_acquire);
  }
  quit = true;
  for (auto& t : writers) t.join();

  std::vector<int64_t> last_seen(kWriters, -1);  // across runs: no event in two runs
  int runs_with_drops = 0;
  for (int c = 0; c < cycles; ++c) {
    SCOPED_TRACE("cycle " + std::to_string(c));
    const Cycle& cycle = results[c];
    const auto space = testing::read_run(cycle.run);
    const auto* host = testing::find_plane(space, "/host:CPU");
    ASSERT_NE(host, nullptr);
    int64_t written = 0;
    for (const auto& line : host->lines()) written += line.events_size();
    EXPECT_EQ(uint64_t(written), cycle.run.events);
    if (cycle.run.dropped > 0) {
      ++runs_with_drops;
      ASSERT_EQ(space.warnings_size(), 1);
      EXPECT_EQ(space.warnings(0), "mlprof dropped " + std::to_string(cycle.run.dropped) +
                                       " events: the capture buffer (max_buffer_bytes = " +
                                       std::to_string(cycle.buffer) + ") was full");
    } else {
      EXPECT_EQ(space.warnings_size(), 0);
    }

    const auto lines = seqs_by_line(*host);
    uint64_t must_have_dropped = 0, may_have_dropped = 0;
    for (const auto& [name, seqs] : lines) ASSERT_TRUE(name.starts_with("writer-")) << name;
    for (int w = 0; w < kWriters; ++w) {
      const WriterWindow& window = cycle.writers[w];
      const auto it = lines.find("writer-" + std::to_string(w));
      if (it == lines.end()) {
        // Never got a chunk: whatever it finished within the session was dropped.
        must_have_dropped += std::max<int64_t>(0, window.before_stop - (window.after_start + kStartSlack));
        may_have_dropped += window.after_stop + 1 - window.before_start;
        continue;
      }
      const std::vector<int64_t>& seqs = it->second;
      // One thread's events, in order, none missing in between.
      for (size_t i = 1; i < seqs.size(); ++i) {
        ASSERT_EQ(seqs[i], seqs[0] + int64_t(i)) << it->first << " event " << i;
      }
      EXPECT_GT(seqs.front(), window.before_start) << it->first;
      EXPECT_LE(seqs.front(), window.after_start + kStartSlack) << it->first;
      EXPECT_GT(seqs.front(), last_seen[w]) << it->first << ": an event in two runs";
      EXPECT_LE(seqs.back(), window.after_stop + 1) << it->first;
      last_seen[w] = seqs.back();
      // What the writer finished before stop() and is not in the run was dropped.
      must_have_dropped += std::max<int64_t>(0, window.before_stop - seqs.back());
      may_have_dropped += window.after_stop + 1 - seqs.back();
    }
    EXPECT_GE(cycle.run.dropped, must_have_dropped);
    EXPECT_LE(cycle.run.dropped, may_have_dropped);
  }
  EXPECT_GT(runs_with_drops, 0);
}

}  // namespace
}  // namespace mlprof

// The sanitizers' allocators say what they hold here (glibc's mallinfo2 then reports nothing).
extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace mlprof {
namespace {

// Heap bytes in use.
size_t heap_in_use() {
  if (__sanitizer_get_current_allocated_bytes != nullptr) return __sanitizer_get_current_allocated_bytes();
  return mallinfo2().uordblks;
}

// Address space in KiB (/proc/self/statm counts pages).
size_t address_space_kib() {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0;
  statm >> size;
  return size * size_t(sysconf(_SC_PAGESIZE)) / 1024;
}

TEST(Load, ThreadsComingAndGoingDuringASession) {
  const int threads = load_size(400, 160);
  constexpr int kWave = 16;
  constexpr int kEvents = 100;  // half literal names, half copied
  testing::ScratchDir dir;
  // glibc reserves 64 MiB of address space for each malloc arena it makes for concurrent
  // threads (up to eight per core), which would swamp the capture's own mapping below.
  mallopt(M_ARENA_MAX, 1);
  const size_t address_space_before = address_space_kib();
  ASSERT_TRUE(start(dir.path(), options("churn", uint64_t{512} << 20)).ok());
  std::vector<long> tids(threads);
  for (int first = 0; first < threads; first += kWave) {
    std::vector<std::thread> wave;
    for (int i = first; i < std::min(threads, first + kWave); ++i) {
      wave.emplace_back([&tids, i] {
        tids[i] = syscall(SYS_gettid);
        set_thread_name("churn-" + std::to_string(i));
        for (int e = 0; e < kEvents / 2; ++e) {
          { MLPROF_TRACE("literal"); }
          { Trace t(std::string_view("copied")); }
        }
      });
    }
    for (auto& t : wave) t.join();
  }
  const RunInfo run = stop();
  EXPECT_EQ(run.events, uint64_t(threads) * kEvents);
  EXPECT_EQ(run.dropped, 0u);
  // The threads that exited let go of the session's 512 MiB: it is unmapped at stop().
  EXPECT_LT(address_space_kib(), address_space_before + 256 * 1024);

  const auto space = testing::read_run(run);
  const auto* host = testing::find_plane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  // One line per thread, named by it, with its events, even where the kernel gave an
  // exited thread's id to a new one.
  std::map<std::string, std::pair<int64_t, int>> lines;  // name -> id, events
  for (const auto& line : host->lines()) lines[line.name()] = {line.id(), line.events_size()};
  EXPECT_EQ(lines.size(), size_t(threads));
  for (int i = 0; i < threads; ++i) {
    const std::string name = "churn-" + std::to_string(i);
    ASSERT_EQ(lines.count(name), 1u) << name;
    EXPECT_EQ(lines.at(name), std::make_pair(int64_t(tids[i]), kEvents)) << name;
  }
}

TEST(Load, ThousandsOfShortLivedThreadsShareChunksWithinASmallCap) {
  // 4,000 threads, eight at a time, five events each: 640 KB of records with their
  // threads' segments. A chunk per thread would need 250 MiB; an exiting thread gives its
  // chunk's free space to the next, so 2 MiB (32 chunks) holds them all.
  const int threads = load_size(4000, 800);
  constexpr int kWave = 8;
  constexpr int kEvents = 5;
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options("short_lived", uint64_t{2} << 20)).ok());
  for (int first = 0; first < threads; first += kWave) {
    std::vector<std::thread> wave;
    for (int i = first; i < std::min(threads, first + kWave); ++i) {
      wave.emplace_back([] {
        for (int e = 0; e < kEvents; ++e) MLPROF_TRACE("short");
      });
    }
    for (auto& t : wave) t.join();
  }
  const RunInfo run = stop();
  EXPECT_EQ(run.dropped, 0u);
  EXPECT_EQ(run.events, uint64_t(threads) * kEvents);
  const auto space = testing::read_run(run);
  const auto* host = testing::find_plane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  // Every thread's events on its own line (the OS reuses ids, each thread keeps its line).
  EXPECT_EQ(host->lines_size(), threads);
  for (const auto& line : host->lines()) EXPECT_EQ(line.events_size(), kEvents) << line.name();
}

TEST(Load, NamedThreadsThatExitLeaveNothingBehind) {
  // Threads named once each, by names never seen again: the library keeps no name of a
  // thread that has exited once no session can still need it.
  auto churn = [](int round, bool with_session, const std::string& logdir) {
    if (with_session) {
      ASSERT_TRUE(start(logdir, options("names_" + std::to_string(round), uint64_t{64} << 20)).ok());
    }
    for (int wave = 0; wave < 20; ++wave) {
      std::vector<std::thread> threads;
      for (int i = 0; i < 10; ++i) {
        threads.emplace_back([=] {
          set_thread_name("a thread with a long and unique name, round " + std::to_string(round) +
                          ", wave " + std::to_string(wave) + ", number " + std::to_string(i));
          MLPROF_TRACE("named");
        });
      }
      for (auto& t : threads) t.join();
    }
    if (with_session) {
      const RunInfo run = stop();
      EXPECT_EQ(run.events, 200u);
    }
  };
  testing::ScratchDir dir;
  churn(0, true, dir.path());  // warm-up: the allocator's and the library's one-time costs
  churn(1, false, dir.path());
  const size_t before = heap_in_use();
  for (int round = 2; round < 6; ++round) churn(round, round % 2 == 0, dir.path());
  const size_t after = heap_in_use();
  // 800 names of ~80 bytes would be 64 KiB and more; allow some allocator noise.
  EXPECT_LT(after, before + 16 * 1024) << "heap grew from " << before << " to " << after;
}

TEST(Load, AThreadSwitchingNamesInASessionKeepsAFewCopies) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options("renames", uint64_t{64} << 20)).ok());
  long tid = 0;
  size_t before = 0, after = 0;
  std::thread([&] {
    tid = syscall(SYS_gettid);
    set_thread_name("a worker that is idle");
    before = heap_in_use();
    for (int i = 0; i < 20000; ++i) {
      set_thread_name(i % 2 == 0 ? "a worker that is busy" : "a worker that is idle");
      MLPROF_TRACE("task");
    }
    after = heap_in_use();
  }).join();
  const RunInfo run = stop();
  EXPECT_EQ(run.events, 20000u);
  EXPECT_LT(after, before + 4096) << "heap grew from " << before << " to " << after;
  const auto space = testing::read_run(run);
  const auto* host = testing::find_plane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), 1);
  EXPECT_EQ(host->lines(0).id(), tid);
  EXPECT_EQ(host->lines(0).name(), "a worker that is idle");  // the name it had last
}

// Resident memory in KiB (/proc/self/statm counts pages).
size_t resident_kib() {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * size_t(sysconf(_SC_PAGESIZE)) / 1024;
}

TEST(Load, AFullBufferDropsExactlyAndMemoryStaysUnderTheCap) {
  constexpr uint64_t kCap = uint64_t{2} << 20;  // 32 chunks
  constexpr int kThreads = 8;
  const int per_thread = load_size(60000, 12000);  // 4 kinds of events, in turn
  testing::ScratchDir dir;
  const size_t resident_before = resident_kib();
  ASSERT_TRUE(start(dir.path(), options("full", kCap)).ok());
  std::vector<std::thread> threads;
  std::atomic<int> finished{0};
  std::atomic<size_t> resident_peak{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      const std::string copied = "a copied name of some length, " + std::string(40, 'x');
      for (int i = 0; i < per_thread / 4; ++i) {
        { MLPROF_TRACE("literal"); }
        { Trace c(copied); }
        { Trace a("with_args", {{"i", i}, {"s", "text"}}); }
        { StepTrace s("step", i); }
      }
      if (finished.fetch_add(1) + 1 == kThreads) resident_peak = resident_kib();
    });
  }
  for (auto& t : threads) t.join();
  const RunInfo run = stop();
  const uint64_t attempted = uint64_t(kThreads) * (per_thread / 4) * 4;
  EXPECT_GT(run.dropped, attempted / 2);  // ~100 bytes an event: most do not fit in 2 MiB
  EXPECT_EQ(run.events + run.dropped, attempted);
  const auto space = testing::read_run(run);
  int64_t written = 0;
  for (const auto& line : testing::find_plane(space, "/host:CPU")->lines()) written += line.events_size();
  EXPECT_EQ(uint64_t(written), run.events);
  ASSERT_EQ(space.warnings_size(), 1);
  EXPECT_EQ(space.warnings(0), "mlprof dropped " + std::to_string(run.dropped) +
                                   " events: the capture buffer (max_buffer_bytes = 2097152) was full");
  if (!testing::kUnderSanitizer) {  // their shadow memory grows with what is written
    // The writers attempted ~50 MB; the capture held at most the cap (plus thread stacks
    // and the test's own allocations).
    EXPECT_LT(resident_peak.load(), resident_before + kCap / 1024 + 6 * 1024)
        << "KiB resident: " << resident_before << " before, " << resident_peak.load() << " at the end";
  }
}

}  // namespace
}  // namespace mlprof
