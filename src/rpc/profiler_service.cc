#include "rpc/profiler_service.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "format/logdir.h"
#include "mlprof/mlprof.h"
#include "rpc/capture_destination.h"
#include "rpc/capture_metadata.h"
#include "rpc/profile_request.h"

namespace mlprof::rpc {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A start time further ahead than this is a client clock gone wrong, not a plan.
constexpr auto kMaxStartDelay = std::chrono::minutes(10);

grpc::Status invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "mlprof profiler server: " + message);
}

// How a capture that could not start is answered: a session already running in the process
// (most often a programmatic or MLPROF_LOGDIR one) is ALREADY_EXISTS, as for a capture
// already running here; a logdir that cannot be written is this host's state, not the
// request's.
grpc::StatusCode grpc_code_of(StatusCode code) {
  switch (code) {
    case StatusCode::kAlreadyRunning: return grpc::StatusCode::ALREADY_EXISTS;
    case StatusCode::kInvalidArgument: return grpc::StatusCode::INVALID_ARGUMENT;
    case StatusCode::kCannotWrite: return grpc::StatusCode::FAILED_PRECONDITION;
    case StatusCode::kOutOfResources: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case StatusCode::kOk:
    case StatusCode::kInternal: break;
  }
  return grpc::StatusCode::INTERNAL;
}

// start_timestamp_ns is wall-clock time (the client's); waits run on the steady clock.
SteadyClock::time_point steady_time_of(uint64_t unix_ns) {
  const auto wall_now = std::chrono::system_clock::now().time_since_epoch();
  const auto ahead = std::chrono::nanoseconds(int64_t(unix_ns)) - wall_now;
  return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(ahead);
}

uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : uint64_t(size);
}

// Holds the slot for the length of one Profile call.
class SlotClaim {
 public:
  explicit SlotClaim(CaptureSlot& slot) : slot_(slot) {}
  ~SlotClaim() { if (held_) slot_.release(); }
  bool claim(const std::string& session_id, std::string* holder) { return held_ = slot_.claim(session_id, holder); }

 private:
  CaptureSlot& slot_;
  bool held_ = false;
};

}  // namespace

grpc::Status ProfilerServiceImpl::Profile(grpc::ServerContext* context, const tensorflow::ProfileRequest* request,
                                          tensorflow::ProfileResponse* response) {
  RemoteCaptureRequest capture;
  std::string error;
  if (!read_profile_request(*request, &capture, &error)) return invalid(error);
  if (capture.session_id.empty()) capture.session_id = format::run_name_at(std::time(nullptr));
  CaptureDestination destination;
  if (!plan_destination(capture.repository_root, capture.session_id, &destination, &error)) return invalid(error);
  const std::string host = capture.host_name.empty() ? format::local_host_name() : capture.host_name;

  SlotClaim claim(slot_);
  std::string holder;
  if (!claim.claim(capture.session_id, &holder)) {
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        "mlprof profiler server on " + host + ": a capture is already running (session " + holder +
                            "); wait for it to finish, or end it with Terminate");
  }
  auto cancelled = [context] { return context->IsCancelled(); };

  if (capture.start_timestamp_ns > 0) {
    const auto start = steady_time_of(capture.start_timestamp_ns);
    if (start > SteadyClock::now() + kMaxStartDelay) {
      return invalid("start_timestamp_ns is more than 10 minutes ahead of this host's clock");
    }
    // A start time already past (a retried request, skewed clocks) starts at once.
    const auto end = slot_.wait_until(start, cancelled);
    if (end == CaptureSlot::WaitEnd::kTerminated)
      return grpc::Status(grpc::StatusCode::CANCELLED, "the capture was terminated before it started");
    if (end == CaptureSlot::WaitEnd::kCancelled)
      return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away before the capture started");
  }

  // A program's own start() takes over from the session MLPROF_LOGDIR started; a remote capture
  // is not the program and takes over from nothing.
  if (is_active()) {
    abandon_destination(destination);
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        "mlprof profiler server on " + host + ": a profiling session is already running in the process");
  }
  ProfilerOptions options;
  options.host_tracer_level = capture.host_tracer_level;
  options.device_tracer_level = capture.device_tracer_level;
  options.run_name = destination.run_name;
  options.host_name = host;
  if (const Status started = start(destination.logdir, options); !started.ok()) {
    abandon_destination(destination);
    return grpc::Status(grpc_code_of(started.code()), "mlprof profiler server on " + host + ": " + started.message());
  }
  // A client that goes away ends the capture early; what was recorded is still written.
  slot_.wait_until(SteadyClock::now() + std::chrono::milliseconds(capture.duration_ms), cancelled);
  const RunInfo run = stop();
  std::string final_path;
  if (!run.status.ok() || !complete_destination(destination, run.xspace_path, &final_path, &error)) {
    abandon_destination(destination);
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "mlprof profiler server on " + host + ": " + (run.status.ok() ? error : run.status.message()));
  }

  response->set_empty_trace(run.events == 0);
  const uint64_t bytes = file_size_or_zero(final_path);
  context->AddTrailingMetadata(kEventsMetadataKey, std::to_string(run.events));
  context->AddTrailingMetadata(kDroppedMetadataKey, std::to_string(run.dropped));
  context->AddTrailingMetadata(kBytesMetadataKey, std::to_string(bytes));
  context->AddTrailingMetadata(kPathMetadataKey, final_path);
  std::fprintf(stderr, "mlprof: captured session %s: %llu events%s, wrote %s\n", capture.session_id.c_str(),
               static_cast<unsigned long long>(run.events), run.dropped > 0 ? " (some dropped)" : "",
               final_path.c_str());
  return grpc::Status::OK;
}

grpc::Status ProfilerServiceImpl::Terminate(grpc::ServerContext*, const tensorflow::TerminateRequest* request,
                                            tensorflow::TerminateResponse*) {
  if (slot_.terminate(request->session_id())) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::NOT_FOUND, "mlprof profiler server: no capture with session id \"" +
                                                       request->session_id() + "\" is running");
}

grpc::Status ProfilerServiceImpl::Monitor(grpc::ServerContext*, const tensorflow::MonitorRequest*,
                                          tensorflow::MonitorResponse* response) {
  const std::string holder = slot_.holder();
  response->set_data("mlprof profiler server on " + format::local_host_name() + ": " +
                     (holder.empty() ? std::string("idle") : "capturing session " + holder));
  return grpc::Status::OK;
}

}  // namespace mlprof::rpc
