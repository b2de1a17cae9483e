// mlprof::start_server / stop_server / server_port (include/mlprof/server.h).
#include "mlprof/server.h"

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <strings.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "rpc/profiler_service.h"

namespace mlprof {
namespace {

struct RunningServer {
  std::unique_ptr<rpc::ProfilerServiceImpl> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Immortal: stop_server() may run from an atexit handler.
std::mutex& server_mu() {
  static auto* mu = new std::mutex;
  return *mu;
}
RunningServer* g_server = nullptr;  // guarded by server_mu()

std::string listen_address(const std::string& bind, int port) {
  const bool ipv6 = bind.find(':') != std::string::npos && bind.front() != '[';
  return (ipv6 ? "[" + bind + "]" : bind) + ":" + std::to_string(port);
}

void stop_server_at_exit() { stop_server(); }

// gRPC's core prints a multi-line log of its own when it cannot bind, beside the one-line
// error start_server returns: it is silenced for the bind alone, then logs again at the level
// the environment asks for (GRPC_VERBOSITY, ERROR when unset), as it would have.
class GrpcLogSilenced {
 public:
  GrpcLogSilenced() { gpr_set_log_verbosity(kNothing); }
  ~GrpcLogSilenced() { gpr_set_log_verbosity(from_environment()); }
  GrpcLogSilenced(const GrpcLogSilenced&) = delete;
  GrpcLogSilenced& operator=(const GrpcLogSilenced&) = delete;

 private:
  static constexpr gpr_log_severity kNothing = gpr_log_severity(GPR_LOG_SEVERITY_ERROR + 1);
  static gpr_log_severity from_environment() {
    const char* v = std::getenv("GRPC_VERBOSITY");
    const std::string level = v == nullptr ? "" : v;
    if (strcasecmp(level.c_str(), "DEBUG") == 0) return GPR_LOG_SEVERITY_DEBUG;
    if (strcasecmp(level.c_str(), "INFO") == 0) return GPR_LOG_SEVERITY_INFO;
    if (strcasecmp(level.c_str(), "NONE") == 0) return kNothing;
    return GPR_LOG_SEVERITY_ERROR;
  }
};

}  // namespace

Status start_server(int port, const ServerOptions& options) {
  if (port < 0 || port > 65535) {
    return Status::error("mlprof::start_server: port " + std::to_string(port) + " is not between 0 and 65535",
                         StatusCode::kInvalidArgument);
  }
  std::lock_guard<std::mutex> lock(server_mu());
  if (g_server != nullptr) {
    return Status::error("mlprof::start_server: a profiler server already listens on port " +
                         std::to_string(g_server->port) + " in this process",
                         StatusCode::kAlreadyRunning);
  }
  auto running = std::make_unique<RunningServer>();
  running->service = std::make_unique<rpc::ProfilerServiceImpl>();
  const std::string address = listen_address(options.bind_address, port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &running->port);
  // gRPC sets SO_REUSEPORT by default, which would let a second server share a port already
  // in use instead of reporting it.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(running->service.get());
  {
    GrpcLogSilenced quiet;
    running->server = builder.BuildAndStart();
  }
  if (running->server == nullptr || running->port == 0) {
    return Status::error("mlprof::start_server: cannot listen on " + address +
                         " (the port is in use, or the address is not one of this machine's)",
                         StatusCode::kOutOfResources);
  }
  g_server = running.release();
  // Stopped before gRPC's own globals are torn down at exit, not while its threads still run.
  static std::once_flag at_exit_registered;
  std::call_once(at_exit_registered, [] { std::atexit(stop_server_at_exit); });
  return Status();
}

void stop_server() {
  std::lock_guard<std::mutex> lock(server_mu());
  if (g_server == nullptr) return;
  g_server->service->terminate_capture();
  // The capture in progress writes its file and answers; other calls are cut off after this.
  g_server->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(10));
  g_server->server->Wait();
  delete g_server;
  g_server = nullptr;
}

int server_port() {
  std::lock_guard<std::mutex> lock(server_mu());
  return g_server != nullptr ? g_server->port : 0;
}

}  // namespace mlprof
