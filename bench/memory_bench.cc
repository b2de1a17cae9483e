// memory_profile at scale (docs/ARCHITECTURE.md §6): 10 M allocator events analysed in ≤ 1 s.
//
// Writes an XSpace with MemoryAllocation / MemoryDeallocation events the way TensorFlow writes
// them (allocator_name, addr, allocation_bytes, requested_bytes, bytes_allocated,
// bytes_available, tf_op, id, region_type, data_type): four allocators (two GPU BFC
// allocators, the host's and the pinned host one) that reuse freed addresses, sizes from a few
// hundred bytes to hundreds of MiB, a few dozen ops, steps of 10,000 events. The file is
// written by a child process and loaded untimed; then compute_memory_profile is timed and one
// line is printed:
//   memory_bench: <events> events, <allocators> memories: memory_profile <wall> s (<cpu> s CPU),
//   <M events/s>; <= 1 s: met|NOT met; load average <L> on <N> cores
// CPU seconds are printed beside wall seconds because a shared machine stretches the latter.
// Two more lines: the memory the analysis took above the loaded profile (peak RSS, in all and
// per event), and the time of compute_memory_peaks, what the overview asks first.
//
// Usage: memory_bench [events, default 10000000]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "analysis/memory_profile.h"
#include "format/xspace_encoder.h"
#include "model/xspace/importer.h"
#include "process_stats.h"

namespace {

using Clock = std::chrono::steady_clock;
using mlprof::format::WireEvent;
using mlprof::format::WireStat;

enum StatId : int64_t {
  kAllocatorName = 1, kAddr, kAllocationBytes, kRequestedBytes, kBytesAllocated, kBytesAvailable, kTfOp, kStepId,
  kRegionType, kDataType,
  kStringBase = 100  // stat metadata whose names are the strings ref_value stats point at
};
enum NameId : uint32_t { kAllocationName = 1, kDeallocationName = 2 };

struct Allocator {
  const char* name;
  int64_t capacity;
  double share;  // of all events
};
constexpr std::array<Allocator, 4> kAllocators = {{{"GPU_0_bfc", int64_t(14) << 30, 0.62},
                                                   {"GPU_1_bfc", int64_t(14) << 30, 0.25},
                                                   {"cpu", int64_t(32) << 30, 0.10},
                                                   {"cuda_host_bfc", int64_t(2) << 30, 0.03}}};
constexpr int kOps = 48;
constexpr int64_t kEventsPerStep = 10'000;
constexpr int64_t kEventGapPs = 100'000;  // 100 ns apart

struct Block {
  uint64_t address;
  int64_t bytes;
};

// One allocator's running state: live blocks, freed addresses to hand out again.
struct AllocatorState {
  int64_t heap = 0;
  uint64_t next_address = 0;
  std::vector<Block> live;
  std::vector<std::vector<uint64_t>> free_by_class;  // reused addresses, by size class
};

int size_class(int64_t bytes) { return 63 - __builtin_clzll(uint64_t(bytes)); }

// Realistic sizes: mostly small temporaries, some activations, a few large weights/workspaces.
int64_t draw_size(std::mt19937_64& rng) {
  const uint64_t r = rng();
  const int kind = int(r % 100);
  const uint64_t x = r >> 8;
  if (kind < 60) return int64_t(256 + x % (64 << 10)) & ~int64_t(255);              // 256 B .. 64 KiB
  if (kind < 92) return int64_t((64 << 10) + x % (4 << 20)) & ~int64_t(255);        // .. 4 MiB
  return int64_t((4 << 20) + x % (256 << 20)) & ~int64_t(255);                      // .. 260 MiB
}

bool write_profile(const std::string& path, int64_t events, std::string* error) {
  using namespace mlprof::format;
  WireSpace space;
  space.hostnames.push_back("bench-host");
  WirePlane host;
  host.id = 1;
  host.name = "/host:CPU";
  for (auto [id, name] : {std::pair{kAllocatorName, "allocator_name"}, {kAddr, "addr"},
                          {kAllocationBytes, "allocation_bytes"}, {kRequestedBytes, "requested_bytes"},
                          {kBytesAllocated, "bytes_allocated"}, {kBytesAvailable, "bytes_available"},
                          {kTfOp, "tf_op"}, {kStepId, "id"}, {kRegionType, "region_type"}, {kDataType, "data_type"}})
    host.stat_metadata.push_back({id, name, ""});
  int64_t next_string = kStringBase;
  auto string_stat = [&](const std::string& s) {
    host.stat_metadata.push_back({next_string, s, ""});
    return uint64_t(next_string++);
  };
  std::vector<uint64_t> allocator_ref, op_ref, region_ref;
  for (const Allocator& a : kAllocators) allocator_ref.push_back(string_stat(a.name));
  const char* op_types[] = {"Conv2D", "MatMul", "Relu", "BiasAdd", "FusedBatchNormV3", "Softmax"};
  for (int i = 0; i < kOps; ++i)
    op_ref.push_back(string_stat("model/layer_" + std::to_string(i / 6) + "/" + op_types[i % 6] + ":" + op_types[i % 6]));
  for (const char* r : {"output", "temp", "persist"}) region_ref.push_back(string_stat(r));
  host.event_metadata.push_back({kAllocationName, "MemoryAllocation", ""});
  host.event_metadata.push_back({kDeallocationName, "MemoryDeallocation", ""});

  std::mt19937_64 rng(42);
  std::vector<AllocatorState> state(kAllocators.size());
  for (size_t a = 0; a < state.size(); ++a) {
    state[a].next_address = 0x7f0000000000ull + (uint64_t(a) << 40);
    state[a].free_by_class.resize(64);
  }
  std::vector<WireEvent> line_events[kAllocators.size()];
  for (auto& l : line_events) l.reserve(size_t(events / 3));
  host.stat_pool.reserve(size_t(events) * 8);
  host.stat_lists.reserve(size_t(events));
  for (int64_t i = 0; i < events; ++i) {
    const double u = double(rng() >> 11) / double(1ull << 53);
    size_t a = 0;
    for (double acc = kAllocators[0].share; a + 1 < kAllocators.size() && u > acc; acc += kAllocators[++a].share) {
    }
    AllocatorState& s = state[a];
    const int64_t capacity = kAllocators[a].capacity;
    // Allocate while well below capacity, free more often as the heap fills: a sawtooth per step.
    const double fill = double(s.heap) / double(capacity);
    const bool allocate = s.live.empty() || (double(rng() % 1000) / 1000.0) > 0.35 + 0.6 * fill;
    Block b{};
    if (allocate) {
      b.bytes = std::min(draw_size(rng), std::max<int64_t>(256, (capacity - s.heap) / 4));
      std::vector<uint64_t>& reuse = s.free_by_class[size_t(size_class(b.bytes))];
      if (!reuse.empty()) {
        b.address = reuse.back();
        reuse.pop_back();
      } else {
        b.address = s.next_address;
        s.next_address += uint64_t(1) << (size_class(b.bytes) + 1);
      }
      s.live.push_back(b);
      s.heap += b.bytes;
    } else {
      const size_t k = size_t(rng() % s.live.size());
      b = s.live[k];
      s.live[k] = s.live.back();
      s.live.pop_back();
      s.free_by_class[size_t(size_class(b.bytes))].push_back(b.address);
      s.heap -= b.bytes;
    }
    const uint32_t first = uint32_t(host.stat_pool.size());
    auto& pool = host.stat_pool;
    pool.push_back(WireStat::of_ref(kAllocatorName, allocator_ref[a]));
    pool.push_back(WireStat::of_uint64(kAddr, b.address));
    pool.push_back(WireStat::of_int64(kAllocationBytes, b.bytes));
    pool.push_back(WireStat::of_int64(kBytesAllocated, s.heap));
    pool.push_back(WireStat::of_int64(kBytesAvailable, capacity - s.heap));
    pool.push_back(WireStat::of_int64(kStepId, i / kEventsPerStep));
    if (allocate) {
      pool.push_back(WireStat::of_int64(kRequestedBytes, b.bytes - int64_t(rng() % 256)));
      pool.push_back(WireStat::of_ref(kTfOp, op_ref[(b.address >> 8) % kOps]));
      pool.push_back(WireStat::of_ref(kRegionType, region_ref[b.bytes >= (4 << 20) ? 2 : rng() % 2]));
      pool.push_back(WireStat::of_int64(kDataType, b.bytes % 3 == 0 ? 19 : 1));  // half or float
    }
    host.stat_lists.push_back({first, uint32_t(pool.size() - first)});
    line_events[a].push_back({i * kEventGapPs, 0, allocate ? kAllocationName : kDeallocationName,
                              uint32_t(host.stat_lists.size())});
  }
  const int64_t epoch_ns = 1'700'000'000'000'000'000;
  for (size_t a = 0; a < kAllocators.size(); ++a)
    host.lines.push_back({int64_t(100 + a), 0, "thread_" + std::to_string(a), "", epoch_ns, 0, line_events[a]});
  space.planes.push_back(std::move(host));
  return write_xspace_file(space, path, error);
}

// The profile is written by a child process so that its memory is gone before the analysis.
bool write_in_child(const std::string& path, int64_t events) {
  return mlprof::bench::run_in_child([&] {
    std::string error;
    const bool ok = write_profile(path, events, &error);
    if (!ok) std::fprintf(stderr, "memory_bench: %s\n", error.c_str());
    return ok;
  });
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t events = argc > 1 ? std::max<long long>(1, std::atoll(argv[1])) : 10'000'000;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mlprof_memory_bench_" + std::to_string(getpid()) + ".xplane.pb")).string();
  if (!write_in_child(path, events)) return 1;
  mlprof::model::Profile profile;
  std::string error;
  const bool loaded = mlprof::model::import_xspace_file(path, "bench-host", &profile, &error);
  std::filesystem::remove(path);
  if (!loaded) {
    std::fprintf(stderr, "memory_bench: %s: %s\n", path.c_str(), error.c_str());
    return 1;
  }

  mlprof::bench::reset_peak_rss();
  const size_t rss_before_kib = mlprof::bench::proc_status_kib("VmRSS");
  const auto start = Clock::now();
  const double cpu_start = mlprof::bench::process_cpu_seconds();
  const mlprof::analysis::MemoryProfile result = mlprof::analysis::compute_memory_profile(profile);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count(), cpu = mlprof::bench::process_cpu_seconds() - cpu_start;
  const size_t rss_peak_kib = mlprof::bench::proc_status_kib("VmHWM");

  // The overview's path: the peaks alone.
  const auto peaks_start = Clock::now();
  const double peaks_cpu_start = mlprof::bench::process_cpu_seconds();
  const size_t peaks = mlprof::analysis::compute_memory_peaks(profile).size();
  const double peaks_wall = std::chrono::duration<double>(Clock::now() - peaks_start).count(),
               peaks_cpu = mlprof::bench::process_cpu_seconds() - peaks_cpu_start;

  uint64_t analysed = 0;
  for (const auto& id : result.memory_ids) analysed += id.summary.num_allocs + id.summary.num_deallocs;
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  const char* verdict = wall <= 1.0 ? "met" : cpu <= 1.0 ? "met in CPU time, not in wall time" : "NOT met";
  std::printf("memory_bench: %llu events, %zu memories: memory_profile %.3f s (%.3f s CPU), %.1f M events/s; "
              "<= 1 s: %s; load average %.1f on %u cores\n",
              static_cast<unsigned long long>(analysed), result.memory_ids.size(), wall, cpu,
              double(analysed) / wall / 1e6, verdict, load, std::thread::hardware_concurrency());
  const size_t added_kib = rss_peak_kib > rss_before_kib ? rss_peak_kib - rss_before_kib : 0;
  std::printf("memory_bench: memory_profile peak memory %.1f MiB above the loaded profile, %.1f bytes/event\n",
              double(added_kib) / 1024, double(added_kib) * 1024 / double(events));
  std::printf("memory_bench: memory peaks alone (the overview's question), %zu memories: %.3f s (%.3f s CPU), "
              "%.1f M events/s\n",
              peaks, peaks_wall, peaks_cpu, double(analysed) / peaks_wall / 1e6);
  return analysed == uint64_t(events) ? 0 : 1;
}
