// mlprof capture ADDR[,ADDR...] --logdir L --duration-ms N: sampling mode. Asks the profiler
// server of each worker (mlprof::start_server, MLPROF_SERVER_PORT, or TensorFlow's
// tf.profiler.experimental.server.start) to record the same window, all into one run
// directory, and says per worker what came back.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_text_table.h"
#ifdef MLPROF_WITH_RPC_CLIENT
#include "rpc/capture_client.h"
#include "rpc/service_address.h"
#endif

namespace mlprof::cli {
namespace {

struct CaptureArgs {
  std::string addresses;
  std::string logdir;
  uint64_t duration_ms = 0;
  int host_tracer_level = 2;
  int device_tracer_level = 1;
  int retries = 2;
  int64_t delay_ms = -1;
};

#ifdef MLPROF_WITH_RPC_CLIENT

std::string format_bytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", double(bytes) / double(uint64_t{1} << 30));
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", double(bytes) / double(uint64_t{1} << 20));
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", double(bytes) / 1024);
  return fmt::format("{} B", bytes);
}

// The table's result column, one word and the file: the table would shorten a long sentence
// to fit the terminal, so what went wrong follows it (worker_notes, and a failure's error on
// stderr), whole and once.
std::string outcome(const rpc::WorkerCapture& w) {
  if (!w.ok) return "failed";
  if (w.empty_trace) return "empty";
  return w.xspace_path.empty() ? "ok" : "ok, " + w.xspace_path;
}

// A line for each worker that answered with nothing, wrapped to the terminal.
std::string worker_notes(const std::vector<rpc::WorkerCapture>& workers) {
  std::string out;
  for (const auto& w : workers)
    if (w.ok && w.empty_trace)
      out += wrap_text(w.address + ": nothing was recorded in the window (is the program annotated, and running?)",
                       text_width(), "  ", "    ") +
             "\n";
  return out;
}

int run_capture(const CaptureArgs& args) {
  rpc::CaptureRequest request;
  std::string error;
  if (!rpc::parse_service_addresses(args.addresses, &request.addresses, &error)) {
    return usage_error("capture: " + error);
  }
  request.logdir = args.logdir;
  request.duration_ms = args.duration_ms;
  request.host_tracer_level = args.host_tracer_level;
  request.device_tracer_level = args.device_tracer_level;
  request.retries = args.retries;
  request.delay_ms = args.delay_ms;

  fmt::print("Capturing {} ms from {} worker{}...\n", args.duration_ms, request.addresses.size(),
             request.addresses.size() == 1 ? "" : "s");
  std::fflush(stdout);
  const rpc::CaptureResult result = rpc::capture_profiles(request);
  if (!result.error.empty()) return bad_input(args.logdir, result.error);

  TextTable table({"worker", "events", "size", "result"}, {false, true, true, false}, 200);
  size_t succeeded = 0;
  for (const auto& w : result.workers) {
    succeeded += w.ok;
    table.add_row({w.address, w.ok ? fmt::format("{}", w.events) : "-", w.ok ? format_bytes(w.bytes) : "-", outcome(w)});
  }
  fmt::print("{}{}", table.render(), worker_notes(result.workers));
  fmt::print("Run {}: {} of {} workers captured, in {}\n", result.session_id, succeeded, result.workers.size(),
             result.run_dir);
  if (succeeded > 0) {
    fmt::print("Next: mlprof report {} --run {}{}\n", args.logdir, result.session_id,
               result.workers.size() > 1 ? " --tool pod_viewer" : "");
  }
  std::fflush(stdout);
  for (const auto& w : result.workers)
    if (!w.ok) std::fprintf(stderr, "mlprof: capture: %s: %s\n", w.address.c_str(), w.error.c_str());
  return result.all_ok() ? kOk : kBadInput;
}

#else

int run_capture(const CaptureArgs&) {
  std::fprintf(stderr,
               "mlprof capture: this mlprof was built without gRPC; install libgrpc++-dev and "
               "protobuf-compiler-grpc, then build again\n");
  return kUsageError;
}

#endif

}  // namespace

Command add_capture_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "capture", "Capture a profile from running workers' profiler servers (sampling mode), all into one run");
  sub->footer("Exit code 2 when a worker could not be captured; the other workers' profiles are kept.");
  auto a = std::make_shared<CaptureArgs>();
  sub->add_option("ADDRESSES", a->addresses,
                  "the workers' profiler servers: HOST:PORT[,HOST:PORT...] (a grpc:// prefix is fine)")
      ->required();
  sub->add_option("--logdir", a->logdir, "where the run goes: LOGDIR/plugins/profile/<run>/<worker>.xplane.pb")
      ->required();
  sub->add_option("--duration-ms", a->duration_ms, "how long to record, in milliseconds")
      ->required()
      ->check(CLI::Range(uint64_t{1}, uint64_t{24} * 3600 * 1000));
  sub->add_option("--host-tracer-level", a->host_tracer_level, "what the host records: 0 nothing, 1 the program's own annotations and steps, 2 also framework ops "
                  "(ATen), 3 also input shapes and memory allocations")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  sub->add_option("--device-tracer-level", a->device_tracer_level,
                  "GPU tracing: 0 off, 1 kernels, memory copies and the CUDA calls that launch them")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  sub->add_option("--retries", a->retries, "further attempts for a worker that is not reachable")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  sub->add_option("--delay-ms", a->delay_ms,
                  "start recording this long after the requests go out, so all workers start together "
                  "(default: 0 for one worker, 500 for several)")
      ->check(CLI::Range(int64_t{0}, int64_t{600'000}));
  return {sub, [a]() { return run_capture(*a); }};
}

}  // namespace mlprof::cli
