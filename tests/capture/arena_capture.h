// A capture to export straight from an arena a test filled (no session): its clock pairs and
// a fixed host name, as the white-box export tests need.
#pragma once

#include "capture/arena.h"
#include "capture/xspace_export.h"

namespace mlprof::capture {

inline CaptureToExport arena_capture(Arena* arena, const ClockPair& start, const ClockPair& stop,
                                     const ClockPair& calibration) {
  CaptureToExport capture;
  capture.arena = arena;
  capture.start = start;
  capture.stop = stop;
  capture.calibration = calibration;
  capture.host_name = "h";
  return capture;
}

}  // namespace mlprof::capture
