// Records that carry more than a name and two ticks: framework ops (LibTorch's), memory
// events and inferred steps. They share the chunks of record_format.h and start with a kind
// word; the exporter turns their fields into XStats (typed_record_export.h), so the hot
// path stores numbers and pointers only.
#pragma once

#include <cstdint>

#include "capture/record_format.h"

namespace mlprof::capture {

// Above record_format.h's kinds, below kFirstPointer.
enum TypedRecordKind : uint64_t {
  kOpRecord = 16,
  kMemoryRecord = 17,
  kInferredStepRecord = 18,
  kLogicalThreadRecord = 19,
};

inline bool is_typed_record(uint64_t first_word) {
  return first_word >= kOpRecord && first_word <= kLogicalThreadRecord;
}

enum OpFlags : uint16_t {
  kOpBackward = 1,        // run by the autograd engine for a backward node
  kOpUserScope = 2,       // a user's scope (RECORD_USER_SCOPE), not an ATen op
  kOpInputsTruncated = 4, // the input description did not fit
  kOpFactory = 8,         // allocates its result (aten::empty...): memory events name its caller
};

// A framework op, staged when it begins: `end` is 0 until it ends (the owner stores it
// atomically; the exporter may read meanwhile). 48 bytes, then `input_bytes` of input
// description (input_description.h), padded to 8.
struct OpRecord {
  uint64_t kind;        // kOpRecord
  const char* name;     // interned: lives for the process
  uint64_t start;
  uint64_t end;
  int64_t sequence_nr;  // autograd's sequence number, or -1
  uint32_t fwd_thread;  // backward ops: the framework's id of the forward thread, else 0
  uint16_t flags;       // OpFlags
  uint16_t input_bytes;
};
static_assert(sizeof(OpRecord) == 48);

// An allocation (bytes > 0) or a free (bytes < 0). Then `text_bytes` of optional strings
// (MemoryText entries), padded to 8.
struct MemoryRecord {
  uint64_t kind;             // kMemoryRecord
  uint64_t time;
  uint64_t address;
  int64_t bytes;
  int64_t bytes_allocated;   // the allocator's bytes in use after the event, or -1
  int64_t bytes_reserved;    // its pool (LibTorch's total_reserved), or -1
  const OpRecord* op;        // the innermost op open on the thread (this session), or null
  const OpRecord* owner;     // the innermost one that is not a factory op: the tf_op, or null
  int64_t step;              // the step it happened in, or -1
  int16_t device_type;       // c10::DeviceType numbering (0 CPU, 1 CUDA), -1 for user allocators
  int16_t device_index;
  uint32_t text_bytes;
};
static_assert(sizeof(MemoryRecord) == 80);

// Optional strings after a MemoryRecord: a MemoryTextField byte, a 16-bit length, the bytes.
enum MemoryTextField : uint8_t {
  kAllocatorName = 1,
  kOpName = 2,
  kRegionType = 3,
  kDataType = 4,
  kShape = 5,
};
// And numbers a user allocator may know: a field byte, then 8 bytes (int64).
enum MemoryNumberField : uint8_t {
  kRequestedBytes = 16,
  kBytesAvailable = 17,
  kPeakBytesInUse = 18,
  kLargestFreeChunk = 19,
  kStackReserved = 20,
};

// A step found by the framework integration when the program marks none: written when the
// next step begins, on the thread that ran it.
struct InferredStepRecord {
  uint64_t kind;        // kInferredStepRecord
  uint64_t start;
  uint64_t end;
  int64_t step;
  const char* source;   // literal: how the step was found
};

// The framework's own id of the writing thread (e.g. LibTorch's RecordFunction thread id),
// once per thread and session, so that backward ops can name their forward thread.
struct LogicalThreadRecord {
  uint64_t kind;  // kLogicalThreadRecord
  uint64_t logical_id;
};

}  // namespace mlprof::capture
