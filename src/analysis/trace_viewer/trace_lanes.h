// Where each event of a line goes in a timeline: a lane (events of one lane nest properly)
// and a depth within it. Events that partly overlap an open event (which nesting cannot show,
// and which Perfetto drops) move to the next lane that can take them.
#pragma once

#include <cstdint>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct LinePlacement {
  std::vector<uint16_t> lane;   // per event of the line, in the line's order
  std::vector<uint16_t> depth;  // nesting depth within its lane
  uint16_t num_lanes = 0;
};

LinePlacement place_line_events(const model::Profile& profile, uint32_t line);

}  // namespace mlprof::analysis
