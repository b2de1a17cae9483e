// Records that carry more than a name and two ticks: framework ops (LibTorch's), memory
// events and inferred steps. They share the chunks of record_format.h and start with a kind
// word; the exporter turns their fields into XStats (typed_record_export.h), so the hot
// path stores numbers and pointers only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "capture/op_name_ids.h"
#include "capture/record_format.h"

namespace mlprof::capture {

// Above record_format.h's kinds, below kFirstPointer.
enum TypedRecordKind : uint64_t {
  kOpRecord = 16,
  kMemoryRecord = 17,
  kInferredStepRecord = 18,
  kLogicalThreadRecord = 19,
  kOpEndRecord = 20,
  kOpTimeRecord = 21,
  kOpRecordSameInputs = 22,
};

// A record's kind from its first word: the word itself, or (for records that pack fields
// into it) its top byte, which no user-space pointer sets.
inline uint64_t typed_record_kind(uint64_t first_word) {
  return first_word >> 56 != 0 ? first_word >> 56 : first_word;
}

inline bool is_typed_record(uint64_t first_word) {
  const uint64_t kind = typed_record_kind(first_word);
  return kind >= kOpRecord && kind <= kOpRecordSameInputs;
}

enum OpFlags : uint16_t {
  kOpBackward = 1,        // run by the autograd engine for a backward node
  kOpUserScope = 2,       // a user's scope (RECORD_USER_SCOPE), not an ATen op
  kOpInputsTruncated = 4, // the input description did not fit
  kOpFactory = 8,         // allocates its result (aten::empty...): memory events name its caller
  kOpExtended = 16,       // an OpExtension follows the record
  kOpNamePointer = 32,    // the name has no id: its pointer follows the extension
  kOpForwardThreadIsOwn = 64,  // a backward op whose forward op ran on the op's own thread
  kOpInputs = 128,        // an input description follows: a 16-bit length, then its bytes
};

// A framework op, staged when it begins and completed when it ends: 16 bytes, as few as the
// hot path can write (each byte of capture memory costs page commits). The first word holds,
// from the top byte down: kOpRecord, OpFlags and the name's id (op_name_ids.h), then the low
// 32 bits of the start in ticks since the session's tick base; its high bits are those of
// the latest OpTimeRecord before it in its thread's segment. What follows, each part only
// when its flag says so: an OpExtension (a forward thread, a sequence number beyond 32 bits
// or a name without an id), the name's pointer, the input description (input_description.h)
// after its 16-bit length. The whole is padded to 8 bytes.
struct OpRecord {
  uint32_t start_low;
  uint32_t head;
  // 0 while the op runs (the owner stores it atomically when the op ends; the exporter may
  // read meanwhile); else the op's ticks + 1, or kLongOp when an OpEndRecord holds the end.
  uint32_t end;
  uint32_t sequence_low;  // the low 32 bits of autograd's sequence number + 1 (0: none)
};
static_assert(sizeof(OpRecord) == 16);

constexpr uint32_t kLongOp = UINT32_MAX;

struct OpExtension {
  uint32_t fwd_thread;      // backward ops: the framework's id of the forward thread, else 0
  uint32_t sequence_high;   // the high 32 bits of the sequence number + 1
};
static_assert(sizeof(OpExtension) == 8);

// The high 32 bits of the ticks since the tick base of the op records after it in its
// thread's segment: a writer puts one before its first op record in each segment, and
// again whenever those bits change (every 2^32 ticks, about 1.6 s at 2.6 GHz).
constexpr uint64_t op_time_record(uint32_t high) { return uint64_t(kOpTimeRecord) << 56 | high; }
inline uint32_t op_time_high(uint64_t word) { return uint32_t(word); }

// No high bits yet in this segment. Wider than the bits themselves, so that no start can
// match it: one read just before its session's tick base has all 32 high bits set.
constexpr uint64_t kNoOpTimeHigh = UINT64_MAX;

// The end of an op that ran kLongOp ticks or more, written when it ends.
struct OpEndRecord {
  uint64_t kind;  // kOpEndRecord
  const OpRecord* op;
  uint64_t end;
};

inline uint32_t op_head(uint16_t flags, uint16_t name_id) {
  return uint32_t(kOpRecord) << 24 | uint32_t(flags & 0xff) << 16 | name_id;
}
// What OpRecord::end holds for an op of `ticks`.
inline uint32_t op_end_word(uint64_t ticks) { return ticks < kLongOp - 1 ? uint32_t(ticks) + 1 : kLongOp; }

// An op record of kind kOpRecordSameInputs is an OpRecord whose inputs, not written, are
// those of the latest op record of the same name id before it in its thread's segment that
// carries them (kOpInputs): repeated inputs cost no capture memory. Its flags hold no
// kOpInputs, and it has no extension.
inline bool is_op_head(uint32_t head) { return head >> 24 == kOpRecord || head >> 24 == kOpRecordSameInputs; }
inline bool op_has_same_inputs(const OpRecord& r) { return r.head >> 24 == kOpRecordSameInputs; }
inline uint32_t same_inputs_head(uint32_t head) { return (head & 0x00ffffffu) | uint32_t(kOpRecordSameInputs) << 24; }
inline uint16_t op_flags(const OpRecord& r) { return uint16_t((r.head >> 16) & 0xff); }
inline uint16_t op_name_id(const OpRecord& r) { return uint16_t(r.head); }
inline const OpExtension* op_extension(const OpRecord& r) {
  return (op_flags(r) & kOpExtended) != 0 ? reinterpret_cast<const OpExtension*>(&r + 1) : nullptr;
}
// Autograd's sequence number, or -1.
inline int64_t op_sequence_nr(const OpRecord& r) {
  const OpExtension* x = op_extension(r);
  return int64_t((r.sequence_low | (x != nullptr ? uint64_t(x->sequence_high) << 32 : 0)) - 1);
}
inline uint32_t op_fwd_thread(const OpRecord& r) {
  const OpExtension* x = op_extension(r);
  return x != nullptr ? x->fwd_thread : 0;
}
// The bytes after the record before the input description's length: the extension and the
// name's pointer, those the flags say are there.
inline size_t op_fixed_tail_bytes(uint16_t flags) {
  return ((flags & kOpExtended) != 0 ? sizeof(OpExtension) : 0) + ((flags & kOpNamePointer) != 0 ? sizeof(const char*) : 0);
}
// The name's text: by its id, or from the pointer after the extension.
inline const char* op_name(const OpRecord& r) {
  const uint16_t flags = op_flags(r);
  if ((flags & kOpNamePointer) == 0) return op_name_of_id(op_name_id(r));
  const char* name;
  __builtin_memcpy(&name, reinterpret_cast<const char*>(&r + 1) + ((flags & kOpExtended) != 0 ? sizeof(OpExtension) : 0),
                   sizeof name);
  return name;
}
inline size_t op_input_bytes(const OpRecord& r) {
  const uint16_t flags = op_flags(r);
  if ((flags & kOpInputs) == 0) return 0;
  uint16_t n;
  __builtin_memcpy(&n, reinterpret_cast<const char*>(&r + 1) + op_fixed_tail_bytes(flags), sizeof n);
  return n;
}
// The input description's bytes, and the whole record's size.
inline const char* op_inputs(const OpRecord& r) {
  return reinterpret_cast<const char*>(&r + 1) + op_fixed_tail_bytes(op_flags(r)) + sizeof(uint16_t);
}
inline size_t op_record_bytes(const OpRecord& r) {
  const uint16_t flags = op_flags(r);
  const size_t inputs = (flags & kOpInputs) != 0 ? sizeof(uint16_t) + op_input_bytes(r) : 0;
  return round_up8(sizeof(OpRecord) + op_fixed_tail_bytes(flags) + inputs);
}

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
