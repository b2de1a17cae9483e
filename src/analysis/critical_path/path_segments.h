// A step's critical path as the trace viewer draws it (docs/ARCHITECTURE.md §5.9b): the pieces of
// longest_path.h in time order, each naming the event it is (host, line and event index as the
// trace viewer's links and replies use them) or the kind of time no event covers; adjacent
// pieces of one event, or of one kind without an event, merged into one segment.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct PathSegment {
  PathKind kind = PathKind::kIdle;
  std::string name;                        // the event's name; empty for time no event covers
  std::string host;                        // its host's name (Profile::hosts)
  model::EventIndex event = model::kNone;  // kNone: time no event covers
  uint32_t line = UINT32_MAX;              // the event's line (Profile::line_index)
  int64_t start_ps = 0, duration_ps = 0;   // the time it holds on the path (the profile's clock)
  int64_t event_start_ps = 0;              // the event's own start: where the viewer's clock meets this one
  uint32_t merged = 1;                     // >1: that many short segments on one line run together (no event)
};

struct StepPathSegments {
  std::vector<PathSegment> segments;  // in time order
  size_t left_out = 0;                // the shortest segments beyond the cap, not listed
  int64_t left_out_ps = 0;            // and their time on the path
};

// Segments listed per step. Where there are more, the short ones that follow each other on one
// line (a thread's run of small ops) first run together into one segment of that line; then,
// if still too many, only the longest are listed (a step of thousands of tiny ops would make
// the JSON as large as the trace).
inline constexpr size_t kMaxSegmentsPerStep = 200;
// Steps whose segments are listed: the first ones (the trace viewer opens on the first steps);
// later steps list none and count all of theirs as left out.
inline constexpr size_t kMaxStepsWithSegments = 32;
// What all listed steps share: a profile of few steps lists more of each (at most this many).
inline constexpr size_t kMaxSegmentsListed = 3200;

// The cap of the `index`-th of `steps` steps: 0 beyond the listed ones.
inline size_t segments_cap(size_t index, size_t steps) {
  if (index >= kMaxStepsWithSegments) return 0;
  const size_t listed = steps < kMaxStepsWithSegments ? steps : kMaxStepsWithSegments;
  const size_t share = listed > 0 ? kMaxSegmentsListed / listed : kMaxSegmentsListed;
  return share > kMaxSegmentsPerStep ? share : kMaxSegmentsPerStep;
}

// `path` as critical_path() gives it (from the step's end back), `r` the replay it came from.
StepPathSegments path_segments(const model::Profile& p, const DependencyGraph& g, const Replay& r,
                               const std::vector<PathPiece>& path, const GraphStep& step,
                               size_t max_segments = kMaxSegmentsPerStep);

// {segments: [{kind, name, host, event, line, event_start_ms, start_ms, duration_ms, merged}], left_out, left_out_ms};
// times in the tools' clock (milliseconds of the profile's time), as the trace viewer's links
// take them; `host` only where it is not the step's (another rank's work the step waited for).
nlohmann::json to_json(const StepPathSegments& s, std::string_view step_host);

}  // namespace mlprof::analysis
