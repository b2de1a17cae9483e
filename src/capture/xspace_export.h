// Turns a closed session's capture memory into an XSpace file: a /host:CPU plane with one
// line per thread, a Task Environment plane, the host name and warnings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "capture/arena.h"
#include "capture/clock_fit.h"
#include "format/xspace_encoder.h"

namespace mlprof::capture {

struct DeviceTrace;

struct CaptureToExport {
  const Arena* arena = nullptr;
  ClockPair start;           // when recording started: the lines' timestamp_ns
  ClockPair stop;
  ClockPair calibration;     // an earlier pair, for a longer baseline of the tick rate
  uint64_t max_buffer_bytes = 0;
  std::string host_name;
  int64_t rank = -1;        // the process's rank in its job (RANK), -1: none
  int64_t world_size = -1;  // the job's size (WORLD_SIZE), -1: none
  std::vector<std::string> warnings;  // added to the XSpace's own
  // The largest file to write: protobuf cannot read a larger message. Events that would not
  // fit are left out (the latest first) and a warning says so.
  uint64_t max_file_bytes = format::kMaxXSpaceBytes;
  // GPU planes and the CUDA calls of host threads (cupti/device_tracer.h), or null.
  const DeviceTrace* device = nullptr;
};

struct ExportCounts {
  uint64_t events = 0;   // events written
  uint64_t dropped = 0;  // events lost because capture memory was full
};

// Writes the XSpace to `path`. Returns false with a one-line reason when it cannot.
bool export_xspace(const CaptureToExport& capture, const std::string& path, ExportCounts* counts,
                   std::string* error);

}  // namespace mlprof::capture
