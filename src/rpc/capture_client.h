// The sampling-mode client (`mlprof capture`, the web UI's capture dialog): one Profile
// request per worker, all at once, with one session id and one start time so that every
// worker records the same window into one run directory. A worker that fails does not stop
// the others; an unavailable one is tried again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlprof::rpc {

struct CaptureRequest {
  std::vector<std::string> addresses;  // host:port, see service_address.h
  std::string logdir;                  // made absolute: the workers write under it
  uint64_t duration_ms = 0;
  int host_tracer_level = 2;
  int device_tracer_level = 1;
  int retries = 2;        // further attempts for a worker that is unavailable
  int64_t delay_ms = -1;  // start this long after sending; -1: 0 for one worker, 500 for more
};

struct WorkerCapture {
  std::string address;
  bool ok = false;
  bool empty_trace = false;  // the worker recorded nothing in the window
  std::string error;         // why not ok
  int attempts = 0;
  uint64_t events = 0, dropped = 0, bytes = 0;  // from an mlprof server; 0 from others
  std::string xspace_path;                      // where the worker wrote, when it says
};

struct CaptureResult {
  std::string error;       // set when no request was sent (the logdir cannot be written...)
  std::string session_id;  // the run's name
  std::string run_dir;     // <logdir>/plugins/profile/<session_id>
  std::vector<WorkerCapture> workers;  // in the order of the addresses

  bool all_ok() const;
};

CaptureResult capture_profiles(const CaptureRequest& request);

}  // namespace mlprof::rpc
