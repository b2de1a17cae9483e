// memory_profile (docs/ARCHITECTURE.md §5.5, the seed's "Memory profile tool"): per memory (allocator),
// where memory use peaked and when, what was alive at the peak, and how fragmented the free
// memory was; for debugging out-of-memory errors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct MemoryProfileOptions {
  std::string memory_id;        // only this memory (empty: every one)
  std::string breakdown_sort = "allocation";  // allocation, requested, occurrences or op
  std::string breakdown_filter; // keep the breakdown's ops whose name contains this (any case)
  size_t max_timeline_points = 1000;
};

// At the peak: the most memory in use (stack + heap) in the profile, the first time reached.
struct MemorySummary {
  std::string memory_id;
  uint64_t num_allocs = 0;
  uint64_t num_deallocs = 0;
  // The memory's size: for a caching pool (PyTorch's) the device's memory where the profile
  // says it, else stack + heap + free (an allocator that reports its free memory, TensorFlow's
  // BFC); 0 when unknown (the CPU's, a device the profile does not describe, an allocator that
  // reports only what it allocated, like LibTorch's).
  int64_t capacity_bytes = 0;
  // What the capacity is: the device's memory, or the allocator's limit (TensorFlow's BFC
  // allocator may use less than the device has); empty when unknown.
  std::string capacity_source;
  int64_t reserved_bytes = 0;            // a caching allocator's pool at the peak ("Total Reserved"), or 0
  int64_t lifetime_peak_heap_bytes = 0;  // since the program started, as the allocator reports it
  int64_t peak_heap_bytes = 0;           // stack + heap at the peak
  int64_t peak_time_ps = 0;              // since the profile's origin
  int64_t peak_step = -1;
  int64_t stack_bytes = 0;               // at the peak
  int64_t heap_bytes = 0;
  int64_t free_bytes = 0;
  double fragmentation_pct = 0;
  uint64_t live_allocations = 0;         // blocks alive at the peak that the profile saw allocated
};

// A point of the timeline: the allocator's state after one event, and that event.
struct MemoryTimelinePoint {
  int64_t time_ps = 0;
  int64_t stack_bytes = 0;
  int64_t heap_bytes = 0;
  int64_t free_bytes = 0;
  double fragmentation_pct = 0;
  bool allocation = true;
  int64_t requested_bytes = 0;   // positive; the JSON gives frees as negative numbers
  int64_t allocation_bytes = 0;
  uint64_t address = 0;
  int64_t step = -1;
  std::string op, region_type, data_type, shape;
};

// Allocations alive at the peak, one row per op and kind of tensor (region, type, shape).
struct MemoryBreakdownRow {
  std::string op;  // "(allocated before the profile)" for heap the profile never saw allocated
  int64_t allocation_bytes = 0;
  int64_t requested_bytes = 0;
  uint64_t occurrences = 0;
  std::string region_type, data_type, shape;
};

struct MemoryIdProfile {
  MemorySummary summary;
  std::vector<MemoryTimelinePoint> timeline;  // time order, at most max_timeline_points
  std::vector<MemoryBreakdownRow> breakdown;  // sorted and filtered as the options say
};

struct MemoryProfile {
  std::vector<MemoryIdProfile> memory_ids;  // the largest peak first
  // What the input got wrong, one sentence each: e.g. deallocations with no matching
  // allocation (blocks allocated before the profile began, or allocation events lost).
  std::vector<std::string> warnings;
};

inline constexpr const char* kAllocatedBeforeProfile = "(allocated before the profile)";

MemoryProfile compute_memory_profile(const model::Profile& profile, const MemoryProfileOptions& options = {});

// Each memory's summary alone, the largest peak first: one pass over the events where the
// full profile takes two (no timeline, no breakdown, so live_allocations stays 0). For callers
// that only ask how close memory came to running out.
std::vector<MemorySummary> compute_memory_peaks(const model::Profile& profile);

nlohmann::json to_json(const MemoryProfile& profile);
std::string to_csv(const MemoryProfile& profile);  // the breakdown at the peak, one row per op

}  // namespace mlprof::analysis
