// Memory events from a program's own allocators, for the memory profile (what TensorFlow's
// allocators report): call record_allocation() after handing out a block and
// record_deallocation() when it comes back. Recorded at host_tracer_level 3; otherwise a
// call costs one relaxed atomic load. LibTorch's allocations are recorded on their own when
// the torch integration is loaded.
#pragma once

#include <cstdint>
#include <string_view>

#include "mlprof/mlprof.h"

namespace mlprof {

// One allocator event. Only `address` and `bytes` are required; a field left at its
// default is not recorded. Strings are copied.
struct MemoryEvent {
  std::string_view allocator = "host";  // the memory it comes from ("host", "gpu_0_bfc", ...)
  const void* address = nullptr;
  uint64_t bytes = 0;                   // the block handed out (or returned)
  uint64_t requested_bytes = 0;         // what the caller asked for (0: same as bytes)
  // The allocator's state after the event:
  int64_t bytes_in_use = -1;            // heap bytes allocated
  int64_t bytes_reserved = -1;          // stack-like reserved bytes
  int64_t bytes_available = -1;         // free bytes it holds
  int64_t peak_bytes_in_use = -1;
  int64_t largest_free_chunk = -1;      // for fragmentation
  // What the block holds:
  std::string_view op;                  // the op that asked (default: the traced op open on this thread)
  std::string_view region_type;         // "output", "temp", "persist"
  std::string_view data_type;           // "float", "half", ...
  std::string_view shape;               // "[64,512,28,28]"
  int64_t step = -1;                    // default: the step running now
};

MLPROF_API void record_allocation(const MemoryEvent& event) noexcept;
MLPROF_API void record_deallocation(const MemoryEvent& event) noexcept;

}  // namespace mlprof
