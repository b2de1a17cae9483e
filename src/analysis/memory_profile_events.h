// Reads allocator events out of the Profile model for the memory profile (DESIGN.md §5.5).
// Every source writes them the way TensorFlow does: events named MemoryAllocation /
// MemoryDeallocation with stats (allocator_name, bytes_allocated, ...); TensorFlow's own,
// the capture SDK's (record_allocation and LibTorch's allocator) and the PyTorch importer's
// "[memory]" events all come through here, so one reader serves them all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// One allocation or deallocation with the allocator's state after it. Byte counts the
// event did not carry are filled in by read_memory_events (see there).
struct AllocatorEvent {
  model::EventIndex event = model::kNone;
  int64_t time_ps = 0;
  bool allocation = true;
  uint64_t address = 0;
  int64_t allocation_bytes = 0;  // the block handed out or returned (positive)
  int64_t requested_bytes = 0;   // what the caller asked for (positive)
  int64_t stack_bytes = 0;       // bytes_reserved: TensorFlow's stack reservation
  int64_t heap_bytes = 0;        // bytes_allocated: in use by allocations
  int64_t free_bytes = 0;        // bytes_available: held by the allocator, not in use
  int64_t peak_bytes_in_use = -1;  // the allocator's own peak since the program started, or -1
  double fragmentation_pct = 0;  // (free − largest free chunk) / free, as a percentage
  int64_t step = -1;             // the `id` stat: the step it happened in
  std::string_view op;           // the op that asked (tf_op, else the enclosing event)
  std::string_view region_type;  // "output", "temp", "persist", "dynamic"
  std::string_view data_type;    // "float", "half", ...
  std::string_view shape;        // "[4,384,1024]"

  int64_t in_use_bytes() const { return stack_bytes + heap_bytes; }
};

// The events of one memory (an allocator on a host), in time order.
struct AllocatorEvents {
  std::string memory_id;  // the allocator's name; "<host>/<allocator>" when several hosts have one
  std::vector<AllocatorEvent> events;
};

// All memories of the profile, sorted by memory id. String views point into `profile`.
// A byte count an event leaves out keeps the allocator's last value, except the heap,
// which then follows the allocations themselves (a user allocator may report only sizes).
std::vector<AllocatorEvents> read_memory_events(const model::Profile& profile);

// Whether the profile holds any memory event (cheap: stops at the first).
bool has_memory_events(const model::Profile& profile);

// TensorFlow writes data_type as its DataType enum: 1 -> "float", 19 -> "half", ...
std::string_view tensorflow_data_type_name(int64_t data_type);

}  // namespace mlprof::analysis
