// The Profile model: one run (all its hosts) or one file, as columnar arrays that every tool
// scans. It is format-neutral: importers (xspace/importer.h, a PyTorch JSON importer) fill it,
// and tools never see a file format.
//
//   Profile ─ hosts ─ planes (a host's CPU, a device, metadata) ─ lines (threads, GPU streams,
//   derived lines such as "Steps") ─ events (columns) ─ stats (columns)
//
// Events of one line are contiguous, sorted by start (an enclosing event before the events it
// contains), and carry the index of their enclosing event on the same line (`parent`).
// Memory is about 32 bytes per event plus 13 per stat (docs/ARCHITECTURE.md §6 asks for ≤ 48 in all).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/string_table.h"
#include "model/well_known_strings.h"

namespace mlprof::model {

using EventIndex = uint32_t;
inline constexpr uint32_t kNone = UINT32_MAX;  // no parent, no host, no device ordinal...

// ---- Stats: typed values keyed by an interned name --------------------------------------

enum class StatType : uint8_t { kInt64, kUint64, kDouble, kString };

struct StatValue {
  StatType type = StatType::kInt64;
  union {
    int64_t i64 = 0;
    uint64_t u64;
    double f64;
    StringId str;  // kString (XStat str, bytes and ref values are all interned strings)
  };

  static StatValue of_int(int64_t v) { StatValue s; s.type = StatType::kInt64; s.i64 = v; return s; }
  static StatValue of_uint(uint64_t v) { StatValue s; s.type = StatType::kUint64; s.u64 = v; return s; }
  static StatValue of_double(double v) { StatValue s; s.type = StatType::kDouble; s.f64 = v; return s; }
  static StatValue of_string(StringId v) { StatValue s; s.type = StatType::kString; s.str = v; return s; }

  bool is_number() const { return type != StatType::kString; }
  // Numeric views; a string value reads as 0.
  int64_t as_int() const;
  uint64_t as_uint() const;
  double as_double() const;
};

// Stats in columns; owners refer to ranges [first, first + count). Stored in fixed blocks so
// that growing never copies nor holds twice the memory (importers need not count stats ahead).
class StatTable {
 public:
  void reserve(size_t n);  // allocates the blocks for n stats now
  // Inline: importers add, and analyses read, a stat at a time (tens of millions).
  void add(StringId key, StatValue value) {
    if (size_ == blocks_.size() * kBlockSize) add_block();
    set(size_++, key, value);
  }
  void set(size_t i, StringId key, StatValue value) {
    Block& b = *blocks_[i >> kBlockBits];
    b.key[i & kBlockMask] = key;
    b.type[i & kBlockMask] = value.type;
    b.bits[i & kBlockMask] = value.type == StatType::kString ? uint64_t(value.str) : value.u64;
  }
  void truncate(size_t n);  // drops stats [n, size())
  size_t size() const { return size_; }
  StringId key(size_t i) const { return blocks_[i >> kBlockBits]->key[i & kBlockMask]; }
  StatValue value(size_t i) const {
    const Block& b = *blocks_[i >> kBlockBits];
    StatValue v;
    v.type = b.type[i & kBlockMask];
    if (v.type == StatType::kString) v.str = StringId(b.bits[i & kBlockMask]);
    else v.u64 = b.bits[i & kBlockMask];
    return v;
  }
  size_t bytes_used() const { return blocks_.size() * sizeof(Block); }

 private:
  static constexpr size_t kBlockBits = 14;  // 16 Ki stats, 208 KiB a block
  static constexpr size_t kBlockSize = size_t(1) << kBlockBits;
  static constexpr size_t kBlockMask = kBlockSize - 1;
  struct Block {
    uint64_t bits[kBlockSize];
    StringId key[kBlockSize];
    StatType type[kBlockSize];
  };
  void add_block();

  std::vector<std::unique_ptr<Block>> blocks_;
  size_t size_ = 0;
};

struct StatRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

// ---- Hosts, planes, lines, event names ---------------------------------------------------

struct Host {
  StringId name = kEmptyString;     // TensorBoard's host: the file name without extension
  StringId hostname = kEmptyString; // what the capture recorded (XSpace hostnames), may be empty
  std::vector<StringId> more_hostnames;  // the XSpace's hostnames after the first, if any
  int64_t trace_clock_base_ns = 0;  // Kineto's baseTimeNanoseconds: the file's ts count from it
  int64_t rank = -1;                // the process's rank in its job, where the trace records it
                                    // (PyTorch's distributedInfo.rank); -1 otherwise
  uint32_t first_plane = 0;
  uint32_t num_planes = 0;
};

enum class PlaneKind : uint8_t {
  kHostThreads,      // "/host:CPU": one line per thread
  kDevice,           // "/device:GPU:0", "/device:TPU:1", ...
  kHostMetadata,     // "/host:metadata"
  kTaskEnvironment,  // "Task Environment"
  kOther,
};

struct Plane {
  StringId name = kEmptyString;
  int64_t id = 0;
  PlaneKind kind = PlaneKind::kOther;
  StringId device_type = kEmptyString;  // "GPU", "TPU", "CPU" for device planes
  uint32_t device_ordinal = kNone;      // n in "/device:GPU:n"
  uint32_t host = 0;                    // index into Profile::hosts
  uint32_t first_line = 0;
  uint32_t num_lines = 0;
  StatRange stats;                      // in Profile::metadata_stats (device capabilities...)
  uint32_t num_event_metadata = 0;      // XSpace: the names and stat names the plane declares
  uint32_t num_stat_metadata = 0;
};

enum class LineKind : uint8_t {
  kThread,          // a host thread (id = thread id)
  kStream,          // a device stream, "Stream #<id>(<kinds>)"
  kSteps,           // derived "Steps" line of a device plane
  kFrameworkOps,    // "Framework Ops" / "TensorFlow Ops"
  kNameScope,       // "Framework Name Scope" / "TensorFlow Name Scope"
  kXlaModules,      // "XLA Modules"
  kXlaOps,          // "XLA Ops"
  kKernelLaunch,    // derived launch-stats line
  kOther,
};

struct Line {
  StringId name = kEmptyString;
  StringId display_name = kEmptyString;
  int64_t id = 0;
  LineKind kind = LineKind::kOther;
  uint32_t plane = 0;         // index into Profile::planes
  uint32_t first_event = 0;   // the line's events are [first_event, first_event + num_events)
  uint32_t num_events = 0;
};

// What events share: a name with its stats. TraceMe-style names ("name#k=v,...#") are split
// at import: `name` is the part before '#', the arguments become stats here.
struct EventName {
  StringId name = kEmptyString;
  StringId display_name = kEmptyString;
  StatRange stats;  // in Profile::metadata_stats
};
using NameIndex = uint32_t;

// ---- Events ------------------------------------------------------------------------------

struct EventColumns {
  std::vector<int64_t> start_ps;     // since Profile::origin_ns (may be negative for later hosts)
  std::vector<int64_t> duration_ps;
  std::vector<NameIndex> name;       // index into Profile::names
  // No line column: the lines' ranges tile the events in line order (Profile::line_index).
  std::vector<EventIndex> parent;    // enclosing event on the same line, or kNone
  std::vector<uint32_t> first_stat;  // event i's stats: [first_stat[i], first_stat[i+1]) of event_stats

  size_t size() const { return start_ps.size(); }
  void reserve(size_t n);
  size_t bytes_used() const;
};

// ---- The profile -------------------------------------------------------------------------

struct Profile {
  Profile();

  std::string run;       // the run's name (directory), or the file's stem
  int64_t origin_ns = 0; // the time event starts are measured from, ns since the Unix epoch
                         // (or the file's own clock for files that do not use the epoch)

  StringTable strings;
  std::vector<Host> hosts;
  std::vector<Plane> planes;
  std::vector<Line> lines;
  std::vector<EventName> names;
  EventColumns events;
  StatTable event_stats;     // ranges given by events.first_stat
  StatTable metadata_stats;  // ranges given by Plane::stats and EventName::stats
  std::vector<std::string> warnings;  // from the files, prefixed with the host
  std::vector<std::string> errors;

  size_t num_events() const { return events.size(); }
  int64_t start_ps(EventIndex e) const { return events.start_ps[e]; }
  int64_t duration_ps(EventIndex e) const { return events.duration_ps[e]; }
  int64_t end_ps(EventIndex e) const { return events.start_ps[e] + events.duration_ps[e]; }
  StringId name_id(EventIndex e) const { return names[events.name[e]].name; }
  std::string_view name(EventIndex e) const { return strings.view(name_id(e)); }
  // The line whose range holds event e, by binary search over the lines (a few hundred):
  // the lines' event ranges tile the events in line order. LineCursor for walks.
  uint32_t line_index(EventIndex e) const;
  const Line& line_of(EventIndex e) const { return lines[line_index(e)]; }
  const Plane& plane_of(EventIndex e) const { return planes[line_of(e).plane]; }
  StatRange event_stat_range(EventIndex e) const {
    return {events.first_stat[e], events.first_stat[e + 1] - events.first_stat[e]};
  }

  // A stat of the event, else of its name (as TensorFlow's XEventVisitor reads them).
  std::optional<StatValue> stat(EventIndex e, StringId key) const;
  // A stat of a plane (device capabilities and the like).
  std::optional<StatValue> plane_stat(uint32_t plane, StringId key) const;
  std::string_view string_of(const StatValue& v) const {
    return v.type == StatType::kString ? strings.view(v.str) : std::string_view();
  }

  // Memory held by the model, for the benchmark and `mlprof info`.
  size_t bytes_used() const;
};

// Lines of events visited one after another: constant time while events stay on one line.
class LineCursor {
 public:
  explicit LineCursor(const Profile& p) : p_(p) {}
  uint32_t line_of(EventIndex e) {
    if (e - first_ >= count_) {  // unsigned: also e < first_
      line_ = p_.line_index(e);
      first_ = p_.lines[line_].first_event;
      count_ = p_.lines[line_].num_events;
    }
    return line_;
  }

 private:
  const Profile& p_;
  uint32_t line_ = 0;
  EventIndex first_ = 0;
  uint32_t count_ = 0;
};

}  // namespace mlprof::model
