// What a tensorflow.ProfileRequest asks for, read the way TensorFlow's server reads it:
// options from `opts` unless an old client left them unset (version 0), the duration from
// opts.duration_ms else the request's, the host from override_hostname else host_name.
// max_events is not used: the session bounds its memory in bytes (max_buffer_bytes).
#pragma once

#include <cstdint>
#include <string>

#include "rpc/profiler_service.pb.h"

namespace mlprof::rpc {

struct RemoteCaptureRequest {
  int host_tracer_level = 2;
  int device_tracer_level = 1;
  uint64_t duration_ms = 0;
  uint64_t start_timestamp_ns = 0;  // 0: start at once
  std::string repository_root;
  std::string session_id;
  std::string host_name;  // empty: this machine's name
};

// False, with a one-line reason, for a request the server cannot run.
bool read_profile_request(const tensorflow::ProfileRequest& request, RemoteCaptureRequest* out, std::string* error);

}  // namespace mlprof::rpc
