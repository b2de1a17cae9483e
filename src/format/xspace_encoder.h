// Writes an XSpace (docs/ARCHITECTURE.md §3.1) in protobuf wire format without libprotobuf, so the
// capture SDK needs nothing beyond the C++ standard library.
//
// The caller describes the space with the Wire* structs below; events are passed as spans
// the caller owns, so a 10 M-event capture is never copied. Sizes are computed first and
// the bytes are then streamed to the file through a fixed buffer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/utf8_text.h"

namespace mlprof::format {

// protobuf parsers use int32 sizes: a larger XSpace cannot be read back.
constexpr uint64_t kMaxXSpaceBytes = (uint64_t{1} << 31) - 1;

struct WireStat {
  enum class Type : uint8_t { kInt64, kUint64, kDouble, kString, kRef };

  int64_t metadata_id = 0;
  Type type = Type::kInt64;
  union {
    int64_t int64_value = 0;
    uint64_t uint64_value;  // also ref_value: the id of a stat metadata naming the string
    double double_value;
  };
  std::string_view str_value;  // kString; must outlive the write

  static WireStat of_int64(int64_t id, int64_t v) { WireStat s; s.metadata_id = id; s.int64_value = v; return s; }
  static WireStat of_uint64(int64_t id, uint64_t v) { WireStat s; s.metadata_id = id; s.type = Type::kUint64; s.uint64_value = v; return s; }
  static WireStat of_double(int64_t id, double v) { WireStat s; s.metadata_id = id; s.type = Type::kDouble; s.double_value = v; return s; }
  static WireStat of_string(int64_t id, std::string_view v) { WireStat s; s.metadata_id = id; s.type = Type::kString; s.str_value = v; return s; }
  static WireStat of_ref(int64_t id, uint64_t ref) { WireStat s; s.metadata_id = id; s.type = Type::kRef; s.uint64_value = ref; return s; }
};

// A run of WirePlane::stat_pool: the stats of one or more events.
struct WireStatList {
  uint32_t first = 0;
  uint32_t count = 0;
};

// 24 bytes: one per captured event.
struct WireEvent {
  int64_t offset_ps = 0;    // from the line's timestamp_ns
  int64_t duration_ps = 0;
  uint32_t metadata_id = 0;
  uint32_t stats = 0;       // 1 + index into WirePlane::stat_lists; 0: no stats
};

struct WireLine {
  int64_t id = 0;
  int64_t display_id = 0;
  std::string name;
  std::string display_name;
  int64_t timestamp_ns = 0;  // ns since the Unix epoch
  int64_t duration_ps = 0;
  std::span<const WireEvent> events;  // owned by the caller, must outlive the write
};

struct WireEventMetadata {
  int64_t id = 0;
  std::string name;
  std::string display_name;
};

struct WireStatMetadata {
  int64_t id = 0;
  std::string name;
  std::string description;
};

struct WirePlane {
  int64_t id = 0;
  std::string name;
  std::vector<WireLine> lines;
  std::vector<WireEventMetadata> event_metadata;
  std::vector<WireStatMetadata> stat_metadata;
  std::vector<WireStat> stats;             // the plane's own stats
  std::vector<WireStat> stat_pool;         // events' stats, in runs named by stat_lists
  std::vector<WireStatList> stat_lists;
};

struct WireSpace {
  std::vector<WirePlane> planes;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  std::vector<std::string> hostnames;
};

// proto3 readers reject a file whose string fields are not UTF-8, so names and string
// values built from arbitrary bytes (or cut mid-character) must be repaired first
// (is_valid_utf8 and make_valid_utf8, format/utf8_text.h).

// Serialized size of one event (the bytes its field in XLine.events takes, tag included).
uint64_t wire_event_field_size(const WirePlane& plane, const WireEvent& event);

// Serialized size of the whole space.
uint64_t xspace_size(const WireSpace& space);

// Serializes into memory (tests and small spaces).
std::string encode_xspace(const WireSpace& space);

// Streams the space to `path` through a temporary file and a rename. Returns false with a
// one-line reason naming the file when it cannot.
bool write_xspace_file(const WireSpace& space, const std::string& path, std::string* error);

}  // namespace mlprof::format
