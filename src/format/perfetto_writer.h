// Perfetto's protobuf trace (docs/ARCHITECTURE.md §3.7), written without libprotobuf: one TracePacket
// per track descriptor and per begin or end of an event, each framed as field 1 of `Trace`.
// Process tracks carry the process, thread tracks the thread; events are begin/end pairs on
// their thread's track, flows are flow ids on the begin events (terminating on the target).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/trace_output_file.h"
#include "format/trace_writer.h"

namespace mlprof::format {

class PerfettoWriter final : public TraceWriter {
 public:
  // Event starts are measured from origin_ns (ns since the Unix epoch, or any clock).
  PerfettoWriter(TraceOutputFile& out, int64_t origin_ns);

  void begin_track(const TraceTrack& track) override;
  void event(const TraceEvent& event) override;
  bool finish(std::string* error) override;

 private:
  void end_events_until(int64_t ps, bool all);
  void write_packet(uint64_t timestamp_ns, bool with_timestamp);
  uint64_t timestamp_ns(int64_t ps) const;

  TraceOutputFile& out_;
  int64_t origin_ns_;
  std::unordered_map<uint64_t, uint64_t> process_uuid_;  // pid -> uuid of its track
  uint64_t next_uuid_ = 1;
  uint64_t track_uuid_ = 0;
  std::vector<int64_t> open_ends_ps_;  // ends of the current track's open events, innermost last
  bool first_packet_ = true;
  std::string body_, packet_, frame_;  // scratch, reused
};

}  // namespace mlprof::format
