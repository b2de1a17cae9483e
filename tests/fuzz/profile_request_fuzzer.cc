// libFuzzer target: the profiler server's handling of a tensorflow.ProfileRequest, called
// directly (no network). The input is the request's wire bytes. read_profile_request must
// take or refuse it with a one-line reason; the service then runs it for real, with its
// times made short (a capture of 1 to 3 ms, a start time past or hours ahead) and its
// repository_root moved into a sandbox, and must answer without writing outside that root.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "fuzz/fuzz_check.h"
#include "fuzz/scratch_dir.h"
#include "rpc/profile_request.h"
#include "rpc/profiler_service.h"

namespace {

namespace fs = std::filesystem;
using mlprof::fuzz::check;

constexpr uint64_t kDayMs = uint64_t{24} * 3600 * 1000;

struct Sandbox {
  Sandbox() : dir("mlprof_fuzz_rpc"), root(dir.path() + "/nested/logdir") {}
  mlprof::fuzz::ScratchDir dir;
  std::string root;  // anything the service writes must land under here
  mlprof::rpc::ProfilerServiceImpl service;
};

Sandbox& sandbox() {
  static Sandbox s;
  return s;
}

uint64_t short_duration(uint64_t ms) { return ms == 0 || ms > kDayMs ? ms : 1 + ms % 3; }

// The request with what would make an execution slow, or write anywhere, replaced.
void bound(tensorflow::ProfileRequest* request, const std::string& root) {
  request->set_duration_ms(short_duration(request->duration_ms()));
  tensorflow::ProfileOptions* opts = request->mutable_opts();
  opts->set_duration_ms(short_duration(opts->duration_ms()));
  if (const uint64_t t = opts->start_timestamp_ns(); t != 0) {
    const uint64_t now_ns =
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    const uint64_t hour_ns = uint64_t{3600} * 1'000'000'000;
    opts->set_start_timestamp_ns(t % 2 == 0 ? 1 + t % now_ns : now_ns + hour_ns);
  }
  // A root that names a logdir's plugins/profile is written in place; any other through a
  // staging directory: keep that distinction, and an empty root empty.
  auto moved = [&](const std::string& given) {
    if (given.empty()) return given;
    const bool plugins = given.find("plugins/profile") != std::string::npos;
    return root + (plugins ? "/plugins/profile" : "/elsewhere");
  };
  request->set_repository_root(moved(request->repository_root()));
  opts->set_repository_path(moved(opts->repository_path()));
}

bool inside(const fs::path& p, const fs::path& dir) {
  const auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::ProfileRequest request;
  if (!request.ParseFromArray(data, int(size))) return 0;

  mlprof::rpc::RemoteCaptureRequest read;
  std::string error;
  const bool valid = mlprof::rpc::read_profile_request(request, &read, &error);
  if (valid) {
    check(read.duration_ms >= 1 && read.duration_ms <= kDayMs, "a taken request records for 1 ms to a day");
    check(read.host_tracer_level >= 0 && read.host_tracer_level <= 3, "the host tracer level is 0 to 3");
    check(read.device_tracer_level >= 0 && read.device_tracer_level <= 3, "the device tracer level is 0 to 3");
  } else {
    mlprof::fuzz::check_one_line_error(error);
  }

  Sandbox& box = sandbox();
  bound(&request, box.root);
  grpc::ServerContext context;
  tensorflow::ProfileResponse response;
  const grpc::Status status = box.service.Profile(&context, &request, &response);
  if (!valid) check(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT, "a refused request is INVALID_ARGUMENT");
  check(status.ok() || !status.error_message().empty(), "a failed capture says why");

  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(box.dir.path(), ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (!it->is_directory()) check(inside(it->path(), box.root), "the service writes only under repository_root");
  fs::remove_all(box.root, ec);
  return 0;
}
