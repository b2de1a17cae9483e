#include "rpc/capture_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "format/event_file.h"
#include "format/logdir.h"
#include "rpc/capture_metadata.h"
#include "rpc/profiler_service.grpc.pb.h"

namespace mlprof::rpc {
namespace {

using std::chrono::milliseconds;

// TensorFlow's client sends this; mlprof's server bounds memory by bytes instead.
constexpr uint64_t kMaxEvents = 1'000'000;

// A fresh channel per attempt, with its own subchannels: a shared one would remember the
// failed connection and fail the retry at once without trying again.
std::shared_ptr<grpc::Channel> open_channel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);  // workers are reached directly, never via http_proxy
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

uint64_t metadata_number(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata, const char* key) {
  auto it = metadata.find(key);
  if (it == metadata.end()) return 0;
  try {
    return std::stoull(std::string(it->second.data(), it->second.size()));
  } catch (...) {
    return 0;
  }
}

std::string status_text(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE: return "unavailable (is the worker running, with a profiler server on this port?): " + status.error_message();
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "no answer before the deadline";
    case grpc::StatusCode::UNIMPLEMENTED: return "not a profiler server (no tensorflow.ProfilerService there)";
    default: return status.error_message();
  }
}

tensorflow::ProfileRequest make_request(const CaptureRequest& r, const std::string& repository_root,
                                        const std::string& session_id, const std::string& host_name,
                                        uint64_t start_timestamp_ns) {
  tensorflow::ProfileRequest request;
  request.set_duration_ms(r.duration_ms);
  request.set_max_events(kMaxEvents);
  request.add_tools("trace_viewer");
  request.set_repository_root(repository_root);
  request.set_session_id(session_id);
  request.set_host_name(host_name);
  tensorflow::ProfileOptions* opts = request.mutable_opts();
  opts->set_version(1);
  opts->set_host_tracer_level(uint32_t(std::max(0, r.host_tracer_level)));
  opts->set_device_tracer_level(uint32_t(std::max(0, r.device_tracer_level)));
  opts->set_duration_ms(r.duration_ms);
  opts->set_start_timestamp_ns(start_timestamp_ns);
  opts->set_session_id(session_id);
  opts->set_repository_path(repository_root);
  return request;
}

// One worker, on its own thread: Profile, again while the worker is unavailable.
void capture_worker(const CaptureRequest& r, const tensorflow::ProfileRequest& request, milliseconds deadline,
                    WorkerCapture* out) {
  for (out->attempts = 1;; ++out->attempts) {
    auto stub = tensorflow::ProfilerService::NewStub(open_channel(out->address));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + deadline);
    tensorflow::ProfileResponse response;
    const grpc::Status status = stub->Profile(&context, request, &response);
    if (status.ok()) {
      const auto& trailers = context.GetServerTrailingMetadata();
      out->ok = true;
      out->empty_trace = response.empty_trace();
      out->events = metadata_number(trailers, kEventsMetadataKey);
      out->dropped = metadata_number(trailers, kDroppedMetadataKey);
      out->bytes = metadata_number(trailers, kBytesMetadataKey);
      if (auto it = trailers.find(kPathMetadataKey); it != trailers.end())
        out->xspace_path.assign(it->second.data(), it->second.size());
      return;
    }
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || out->attempts > r.retries) {
      out->error = status_text(status);
      if (out->attempts > 1) out->error += " (after " + std::to_string(out->attempts) + " attempts)";
      return;
    }
    std::this_thread::sleep_for(milliseconds(std::min(1000, 100 << std::min(out->attempts, 4))));
  }
}

// The run's name: the local time, moved on by a second while a run of that name exists. Its
// directory is made here, so that two captures started in one second get different runs.
bool reserve_session(const std::string& profile_dir, std::string* session_id, std::string* error) {
  std::error_code ec;
  for (std::time_t t = std::time(nullptr);; ++t) {
    const std::string name = format::run_name_at(t);
    if (std::filesystem::create_directory(profile_dir + "/" + name, ec)) {
      *session_id = name;
      return true;
    }
    if (ec) {
      *error = "cannot create a run directory in " + profile_dir + ": " + ec.message();
      return false;
    }
  }
}

}  // namespace

bool CaptureResult::all_ok() const {
  return error.empty() && !workers.empty() &&
         std::all_of(workers.begin(), workers.end(), [](const WorkerCapture& w) { return w.ok; });
}

CaptureResult capture_profiles(const CaptureRequest& r) {
  CaptureResult result;
  if (r.addresses.empty()) {
    result.error = "no worker address given";
    return result;
  }
  if (r.duration_ms == 0) {
    result.error = "the duration is 0 ms";
    return result;
  }
  std::error_code ec;
  const std::string logdir = std::filesystem::absolute(r.logdir, ec).lexically_normal().string();
  const std::string profile_dir = (std::filesystem::path(logdir) / "plugins" / "profile").string();
  // The event file TensorBoard needs goes in first, so workers sharing this filesystem find it.
  if (!format::make_directories(profile_dir, &result.error) ||
      !format::ensure_empty_event_file(logdir, format::local_host_name(), int64_t(std::time(nullptr)), &result.error)) {
    return result;
  }
  if (!reserve_session(profile_dir, &result.session_id, &result.error)) return result;
  result.run_dir = profile_dir + "/" + result.session_id;

  const int64_t delay_ms = r.delay_ms >= 0 ? r.delay_ms : (r.addresses.size() > 1 ? 500 : 0);
  const auto start = std::chrono::system_clock::now() + milliseconds(delay_ms);
  const uint64_t start_ns =
      delay_ms > 0 ? uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count()) : 0;
  // TensorFlow's rule: twice the duration, at least a minute, plus the delay.
  const milliseconds deadline(std::max<int64_t>(60'000, 2 * int64_t(r.duration_ms)) + delay_ms);

  result.workers.resize(r.addresses.size());
  std::vector<tensorflow::ProfileRequest> requests;
  for (size_t i = 0; i < r.addresses.size(); ++i) {
    result.workers[i].address = r.addresses[i];
    requests.push_back(make_request(r, profile_dir, result.session_id, r.addresses[i], start_ns));
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < r.addresses.size(); ++i)
    threads.emplace_back(capture_worker, std::cref(r), std::cref(requests[i]), deadline, &result.workers[i]);
  for (auto& t : threads) t.join();
  // No worker wrote: leave no empty run behind (remove() keeps a directory that has files).
  std::filesystem::remove(result.run_dir, ec);
  return result;
}

}  // namespace mlprof::rpc
