// The trace viewer's index: for each line of the profile, rows of events that never overlap
// (a lane and a depth, trace_lanes.h), each sorted by start. Because a row's events do not
// overlap, its ends are sorted too, so a viewport's events are found by binary search; a
// hierarchy of block maxima of durations finds the next event wide enough to draw without
// scanning the narrow ones. A query costs about O(rows × (log n + boxes drawn)), whatever
// the number of events: about 1.2 bytes per event on top of the model (trace_row_events.h,
// and block maxima rounded up to 16-bit floating-point numbers).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/trace_viewer/trace_row_events.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct TraceRow {
  uint16_t lane = 0, depth = 0;
  TraceRowEvents events;                           // sorted by start (and by end)
  std::vector<std::vector<uint16_t>> max_duration; // [L]: per block of 32^(L+1) events, its longest
                                                   // duration, rounded up (duration_ceiling)
};

// A duration in 16 bits, never less than the duration: a 10-bit mantissa and a 6-bit
// exponent, so a block's maximum costs 2 bytes and skipping a block stays safe.
uint16_t encode_duration_ceiling(int64_t duration_ps);
inline int64_t decode_duration_ceiling(uint16_t code) { return int64_t(code & 1023) << (code >> 10); }

struct TraceTrackRows {
  uint32_t line = 0;          // index into Profile::lines
  std::vector<TraceRow> rows; // by lane, then depth
};

// What a viewport shows of one row: events at least one pixel wide, and for runs of narrower
// events starting in the same pixel column, one box with their count (a run of one is shown
// as that event).
struct TraceBox {
  int64_t start_ps = 0;
  int64_t duration_ps = 0;
  model::EventIndex event = model::kNone;  // the event, or kNone for a merged box
  uint32_t count = 1;                      // events the box stands for
};

struct TraceViewport {
  int64_t start_ps = 0, end_ps = 0;  // in the model's time (since Profile::origin_ns)
  uint32_t width_px = 1000;
};

class TraceIndex {
 public:
  explicit TraceIndex(const model::Profile& profile);

  // Tracks in the order the viewer shows them: by plane; on a device, steps and op lines
  // before streams. Empty lines have no track.
  const std::vector<TraceTrackRows>& tracks() const { return tracks_; }
  int64_t begin_ps() const { return begin_ps_; }  // the span of every event
  int64_t end_ps() const { return end_ps_; }
  size_t bytes_used() const;

  // The boxes of one row in the viewport, by start.
  void query_row(const TraceRow& row, const TraceViewport& view, std::vector<TraceBox>& out) const;

 private:
  size_t first_wide(const TraceRow& row, size_t from, size_t to, int64_t min_duration) const;

  const model::Profile& profile_;
  std::vector<TraceTrackRows> tracks_;
  int64_t begin_ps_ = 0, end_ps_ = 0;
};

}  // namespace mlprof::analysis
