// Writes MemoryRecords (typed_records.h) for LibTorch's allocator reports and for the public
// mlprof::record_allocation(); both tie the event to the op open on the thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "capture/op_recorder.h"
#include "capture/typed_records.h"

namespace mlprof::capture {

// The ops a memory event belongs to (see MemoryRecord::op and ::owner).
struct OpContext {
  const OpRecord* op = nullptr;
  const OpRecord* owner = nullptr;
};
// From the calling thread's op stack: its open ops of the session it is attached to
// (op_recorder.cc).
OpContext open_op_context() noexcept;

// What only a user's allocator knows; empty strings and negative numbers are left out.
struct MemoryExtras {
  std::string_view allocator_name, op_name, region_type, data_type, shape;
  int64_t requested_bytes = -1;
  int64_t bytes_available = -1;
  int64_t peak_bytes_in_use = -1;
  int64_t largest_free_chunk = -1;
  int64_t stack_reserved = -1;
  int64_t step = -1;
};

// Records one event on the calling thread (the caller checked the level).
void write_memory_record(const internal::AllocatorReport& event, const MemoryExtras* extras) noexcept;

}  // namespace mlprof::capture
