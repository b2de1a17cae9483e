// The session's view of GPU tracing: start it with the session, stop it with the session,
// and hand what it recorded to the XSpace exporter. The CUPTI tracer implements it when mlprof
// is built with CUDA; otherwise start_device_tracer() only says why there is none. Either way
// host tracing never depends on it: a failure is a warning in the profile, never an error.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "capture/clock_fit.h"
#include "format/xspace_encoder.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {

// A CUDA call made by a host thread, for that thread's line of /host:CPU.
struct HostDeviceCall {
  uint32_t tid = 0;                         // OS thread id: the line's id
  uint64_t start_ticks = 0, end_ticks = 0;  // on the capture clock, like every host record
  std::string encoded_name;                 // "cudaLaunchKernel#correlation_id=42#"
};

// What a device tracer adds to the XSpace. The planes' events and string stats point into
// this object's own storage: keep it alive until the XSpace is written.
struct DeviceTrace {
  std::vector<format::WirePlane> planes;  // "/device:GPU:<n>"
  std::vector<HostDeviceCall> host_calls;
  std::vector<std::string> warnings;
  uint64_t device_events = 0;

  std::deque<std::vector<format::WireEvent>> event_storage;
  std::deque<std::string> string_storage;
};

class DeviceTracer {
 public:
  virtual ~DeviceTracer() = default;
  // Stops recording and collects what is still buffered; called once, before export().
  virtual void stop() = 0;
  // Converts what was recorded. `start` and `stop` are the session's clock pairs.
  virtual void export_trace(const ClockPair& start, const ClockPair& stop, DeviceTrace* out) = 0;
};

// Starts tracing the GPUs for a session with options.device_tracer_level > 0. Returns null
// and sets `why_not` (one sentence with the fix) when it cannot.
std::unique_ptr<DeviceTracer> start_device_tracer(const ProfilerOptions& options, std::string* why_not);

// Whether `why_not` deserves a warning in the profile: a program that uses no CUDA on a
// machine without GPU tracing loses nothing, and its profile stays free of GPU noise.
bool device_tracing_failure_matters();

}  // namespace mlprof::capture
