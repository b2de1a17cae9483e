// A format-neutral, streamed description of a timeline for the Chrome and Perfetto writers:
// tracks (a thread of a process, or a lane of one), their events, and flows between events.
// Nothing here knows the Profile model; analysis/trace_viewer/trace_export.h feeds it from one.
//
// The caller announces a track, then gives that track's events sorted by start, each either
// enclosing or after the previous ones (no partial overlaps: split those onto other tracks).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mlprof::format {

struct TraceArg {
  enum class Type : uint8_t { kInt, kUint, kDouble, kString };
  std::string_view key;
  Type type = Type::kInt;
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double double_value = 0;
  std::string_view string_value;
};

struct TraceTrack {
  uint64_t pid = 0;               // the process (a host's CPU, or a device)
  std::string_view process_name;
  uint64_t tid = 0;               // unique within the process
  std::string_view thread_name;
  int32_t sort_index = 0;         // the order the viewer lists threads in
};

struct TraceEvent {
  int64_t start_ps = 0;  // since the writer's origin
  int64_t duration_ps = 0;
  std::string_view name;
  std::span<const TraceArg> args;
  std::span<const uint64_t> flows_out;  // flow ids that start at this event
  std::span<const uint64_t> flows_in;   // flow ids that end at this event
};

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  virtual void begin_track(const TraceTrack& track) = 0;
  virtual void event(const TraceEvent& event) = 0;
  // Completes the output; false with a reason when it could not be written.
  virtual bool finish(std::string* error) = 0;
};

}  // namespace mlprof::format
