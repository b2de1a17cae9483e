// Where the CPU goes while a PyTorch trace is read: each stage's CPU time, summed over the
// threads that ran it. The reader fills one when it is given one (parallel_ingest_bench does);
// a read without one takes no clock.
#pragma once

#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace mlprof::model {

struct IngestStages {
  enum Stage : uint8_t {
    kInflate,   // gzip to text (on the tokenising thread, straight into its window)
    kTokenise,  // the window slid and read, the text scanned and cut into batches
    kParse,     // simdjson on the batches: events to raw fields
    kIntern,    // names into the string table
    kBuild,     // raw fields into the trace's events, tracks and records (without interning)
    kIndex,     // the importer's op index, flow arrows and times
    kLines,     // events placed on their lines and grouped by line
    kSort,      // each line sorted by time
    kModel,     // the lines, events and stats written into the Profile
    kCount
  };
  static constexpr const char* kNames[kCount] = {"inflate", "tokenise", "parse", "intern", "build",
                                                 "index",   "lines",    "sort",  "model"};

  std::array<std::atomic<int64_t>, kCount> cpu_ns{};

  void add(Stage stage, int64_t ns) { cpu_ns[stage].fetch_add(ns, std::memory_order_relaxed); }
  double seconds(Stage stage) const { return double(cpu_ns[stage].load()) / 1e9; }
};

// This thread's CPU time in ns.
inline int64_t thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Adds the calling thread's CPU time over its scope to one stage; nothing when `stages` is null.
class StageTimer {
 public:
  StageTimer(IngestStages* stages, IngestStages::Stage stage)
      : stages_(stages), stage_(stage), begin_(stages ? thread_cpu_ns() : 0) {}
  ~StageTimer() { stop(); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;
  // Ends the scope early.
  void stop() {
    if (stages_ != nullptr) stages_->add(stage_, thread_cpu_ns() - begin_);
    stages_ = nullptr;
  }

 private:
  IngestStages* stages_;
  IngestStages::Stage stage_;
  int64_t begin_;
};

// For what is too short to take the thread's CPU clock around (one name interned): the
// monotonic clock, which the vDSO reads without a system call, on a thread that does not wait.
inline int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace mlprof::model
