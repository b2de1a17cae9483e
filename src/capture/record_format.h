// The layout of capture memory, shared by the recorder (writer) and the exporter (reader).
//
// Each thread writes into fixed-size chunks it owns, one thread at a time: a thread that
// exits gives its chunk's free space to the next one that needs a chunk. A chunk starts with
// a ChunkHeader and holds records back to back, 8-byte aligned; each owner's records follow
// a ThreadSegmentRecord naming it. A record starts with one word: either the pointer of a
// literal name with bits of the duration above it (a LiteralRecord; the first page of memory
// is never mapped, so that word is >= kFirstPointer) or a small RecordKind.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mlprof::capture {

constexpr size_t kChunkBytes = size_t{64} << 10;

struct ChunkHeader {
  // Bytes from the chunk's start up to the end of the last complete record. The owner
  // stores it with release after writing a record; the exporter loads it with acquire.
  std::atomic<uint32_t> published;
  std::atomic<uint32_t> next_free;          // while given back: the next one's index + 1 (Arena)
  std::atomic<uint64_t> dropped;            // events the owners lost once capture memory was full
};
static_assert(sizeof(ChunkHeader) % 8 == 0);

constexpr uint64_t kFirstPointer = 4096;

enum RecordKind : uint64_t {
  kCopiedName = 1,  // CopiedNameRecord + the name's bytes, padded to 8
  kStep = 2,        // StepRecord
  kThreadSegment = 3,  // ThreadSegmentRecord
  kLongLiteral = 4,    // LongLiteralRecord
};

// The thread whose records follow, up to the next segment or the chunk's end.
struct ThreadSegmentRecord {
  uint64_t kind;                            // kThreadSegment
  uint32_t tid;                             // the owner's OS thread id
  // The owner's number in the process: tells apart threads the OS gave the same id, one
  // after the other, so that each keeps a line of its own.
  uint32_t thread_serial;
  std::atomic<const char*> thread_name;     // set_thread_name() name (kept until the session is written), or null
  char os_thread_name[16];                  // the OS name when the owner began the segment
};
static_assert(sizeof(ThreadSegmentRecord) == 40);

// A Trace with a literal name: 16 bytes, since fewer bytes a scope are fewer pages to commit
// (a page costs about as much as 170 of the ideal recorder's 24-byte records). The first word
// is the name's pointer (below 2^47 in user space) with the duration's low 9 bits above it,
// its top byte left 0 (typed_records.h packs kinds there); the second, the start as ticks
// since the session's tick base (below 2^46: 7.5 hours at 2.6 GHz) with the duration's next
// 18 bits above it: 2^27 ticks (52 ms at 2.6 GHz) at most. Other scopes are LongLiteralRecords.
struct LiteralRecord {
  uint64_t name_and_duration_low;
  uint64_t start_and_duration_high;
};

constexpr int kLiteralNameBits = 47;
constexpr int kLiteralDurationLowBits = 9;
constexpr int kLiteralStartBits = 46;
constexpr int kLiteralDurationBits = kLiteralDurationLowBits + (64 - kLiteralStartBits);

// Whether a scope fits a LiteralRecord (`since_base`: its start less the tick base).
inline bool fits_literal_record(const char* name, uint64_t since_base, uint64_t duration) {
  return ((reinterpret_cast<uintptr_t>(name) >> kLiteralNameBits) | (since_base >> kLiteralStartBits) |
          (duration >> kLiteralDurationBits)) == 0;
}

inline LiteralRecord pack_literal_record(const char* name, uint64_t since_base, uint64_t duration) {
  constexpr uint64_t low = (uint64_t{1} << kLiteralDurationLowBits) - 1;
  return {reinterpret_cast<uintptr_t>(name) | (duration & low) << kLiteralNameBits,
          since_base | (duration >> kLiteralDurationLowBits) << kLiteralStartBits};
}

struct UnpackedLiteral {
  const char* name;
  uint64_t start;  // ticks
  uint64_t end;
};

inline UnpackedLiteral unpack_literal_record(const LiteralRecord& r, uint64_t tick_base) {
  constexpr uint64_t name_mask = (uint64_t{1} << kLiteralNameBits) - 1;
  constexpr uint64_t start_mask = (uint64_t{1} << kLiteralStartBits) - 1;
  const uint64_t duration = (r.name_and_duration_low >> kLiteralNameBits) |
                            (r.start_and_duration_high >> kLiteralStartBits) << kLiteralDurationLowBits;
  const uint64_t start = tick_base + (r.start_and_duration_high & start_mask);
  return {reinterpret_cast<const char*>(r.name_and_duration_low & name_mask), start, start + duration};
}
static_assert(kLiteralNameBits + kLiteralDurationLowBits == 56, "the first word's top byte stays 0");

// A literal-name Trace that a LiteralRecord cannot hold: 32 bytes.
struct LongLiteralRecord {
  uint64_t kind;  // kLongLiteral
  const char* name;
  uint64_t start;
  uint64_t end;
};

// A Trace whose name (maybe "name#k=v,...#") was copied at begin. `end` stays 0 until the
// Trace ends; it is written atomically because the exporter may read it meanwhile.
struct CopiedNameRecord {
  uint64_t kind;  // kCopiedName
  uint64_t length;
  uint64_t start;
  uint64_t end;
  // followed by `length` bytes
};

// A StepTrace: 40 bytes.
struct StepRecord {
  uint64_t kind;  // kStep
  const char* name;
  int64_t step;
  uint64_t start;
  uint64_t end;
};

constexpr size_t round_up8(size_t n) { return (n + 7) & ~size_t{7}; }

constexpr size_t copied_record_bytes(size_t name_length) {
  return sizeof(CopiedNameRecord) + round_up8(name_length);
}

// The longest name a copied record can hold; longer names are truncated.
constexpr size_t kMaxCopiedName =
    kChunkBytes - sizeof(ChunkHeader) - sizeof(ThreadSegmentRecord) - sizeof(CopiedNameRecord);

}  // namespace mlprof::capture
