#include "rpc/profile_request.h"

#include <algorithm>

namespace mlprof::rpc {

namespace {
// Longer captures are surely a mistake (ms taken for µs?); the capture buffer bounds memory
// anyway, but a day-long RPC would hold the server's only capture slot.
constexpr uint64_t kMaxDurationMs = uint64_t{24} * 3600 * 1000;
}  // namespace

bool read_profile_request(const tensorflow::ProfileRequest& request, RemoteCaptureRequest* out, std::string* error) {
  const tensorflow::ProfileOptions& opts = request.opts();
  if (request.has_opts() && opts.version() > 0) {
    out->host_tracer_level = int(std::min<uint32_t>(opts.host_tracer_level(), 3));
    out->device_tracer_level = int(std::min<uint32_t>(opts.device_tracer_level(), 3));
  }
  out->duration_ms = opts.duration_ms() > 0 ? opts.duration_ms() : request.duration_ms();
  if (out->duration_ms == 0) {
    *error = "duration_ms is 0: say how long to record";
    return false;
  }
  if (out->duration_ms > kMaxDurationMs) {
    *error = "duration_ms " + std::to_string(out->duration_ms) + " is longer than a day";
    return false;
  }
  out->start_timestamp_ns = opts.start_timestamp_ns();
  out->repository_root = request.repository_root().empty() ? opts.repository_path() : request.repository_root();
  out->session_id = request.session_id().empty() ? opts.session_id() : request.session_id();
  out->host_name = !opts.override_hostname().empty() ? opts.override_hostname() : request.host_name();
  return true;
}

}  // namespace mlprof::rpc
