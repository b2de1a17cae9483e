// mlprof serve LOGDIR: the web UI and its JSON API over every run under LOGDIR, until
// interrupted (Ctrl-C or SIGTERM end it cleanly with exit code 0).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "cli/load_request.h"
#include "format/profile_paths.h"
#include "server/profile_server.h"
#include "server/ui_assets.h"

namespace mlprof::cli {
namespace {

struct ServeArgs {
  std::string logdir;
  int port = 6006;
  std::string bind = "127.0.0.1";
  std::vector<std::string> allow_capture;
  std::vector<std::string> allow_hosts;
  unsigned jobs = 0;  // --jobs
};

// Stops the server on SIGINT or SIGTERM. The signals are blocked in every thread (the
// server's threads inherit the mask) and taken here with sigtimedwait, so stopping runs as
// ordinary code rather than inside a signal handler.
class StopOnSignal {
 public:
  explicit StopOnSignal(server::ProfileServer& server) {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
    watcher_ = std::thread([this, &server] {
      while (!done_) {
        const timespec poll{0, 100'000'000};
        const int sig = sigtimedwait(&signals_, nullptr, &poll);
        if (sig == SIGINT || sig == SIGTERM) {
          server.stop();
          return;
        }
      }
    });
  }
  ~StopOnSignal() {
    done_ = true;
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t signals_{};
  sigset_t previous_{};
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

int serve(const ServeArgs& args) {
  std::error_code ec;
  if (!std::filesystem::exists(args.logdir, ec)) return bad_input(args.logdir, "no such directory");
  // A PyTorch trace is one file, not a logdir: it is served as a run of its own.
  format::ProfileFileKind kind = format::ProfileFileKind::kXSpace;
  const bool pytorch_trace =
      std::filesystem::is_regular_file(args.logdir, ec) &&
      format::profile_file_kind(std::filesystem::path(args.logdir).filename().string(), &kind) &&
      kind == format::ProfileFileKind::kPyTorchJson;
  if (!pytorch_trace && !std::filesystem::is_directory(args.logdir, ec))
    return bad_input(args.logdir, "not a directory (give the logdir, or a PyTorch trace .json(.gz))");

  server::ServeOptions options{args.logdir, args.bind, args.port, args.allow_capture, args.allow_hosts};
  server::ProfileServer server(options, server::make_analysis_backend(args.jobs));
  std::string error;
  if (!server.bind(&error)) {
    fmt::print(stderr, "mlprof: {}\n", error);
    return kBadInput;
  }
  StopOnSignal stop_on_signal(server);  // before serve() starts the server's threads

  const auto runs = format::find_profiles(args.logdir).runs;
  fmt::print("mlprof: serving {} ({} run{}) at {}\n", args.logdir, runs.size(), runs.size() == 1 ? "" : "s",
             server.url());
  if (runs.empty()) fmt::print("mlprof: no profile yet; runs written under {} appear as they come\n", args.logdir);
  if (!server::ui_is_built())
    fmt::print("mlprof: this binary was built without the web UI (no npm at build time); the JSON API "
               "is at {}api/runs\n", server.url());
  if (!server::is_loopback_address(args.bind)) {
    if (args.allow_capture.empty())
      fmt::print("mlprof: listening beyond this machine: the Capture dialog is off (--allow-capture host:port,... "
                 "turns it on for those workers)\n");
    else
      fmt::print("mlprof: the Capture dialog may capture only from {}\n", fmt::join(args.allow_capture, ", "));
  }
  fmt::print("mlprof: press Ctrl-C to stop\n");
  std::fflush(stdout);
  server.serve();
  return kOk;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto* sub = app.add_subcommand("serve", "Serve the web UI for the profiles under LOGDIR");
  auto args = std::make_shared<ServeArgs>();
  sub->add_option("LOGDIR", args->logdir, "the logdir (runs live in LOGDIR/plugins/profile/<run>/), or a PyTorch trace .json(.gz) to serve alone")->required();
  sub->add_option("--port", args->port, "the port to listen on; 0 picks a free one")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  sub->add_option("--bind", args->bind,
                  "the address to listen on; only 127.0.0.1 (the default) keeps the profiles to this machine")
      ->capture_default_str();
  sub->add_option("--allow-capture", args->allow_capture,
                  "with --bind beyond loopback: the workers (host:port, comma-separated) the Capture dialog may "
                  "capture from; without it capture is off there")
      ->delimiter(',');
  sub->add_option("--allow-host", args->allow_hosts,
                  "more names the server answers to (comma-separated), beyond localhost, 127.0.0.1, ::1 and the "
                  "--bind address: the DNS name or proxy a browser reaches it by. Requests naming any other host "
                  "are refused, so a web page cannot point its own domain at this server")
      ->delimiter(',');
  add_jobs_option(sub, &args->jobs);
  return {sub, [args] { return serve(*args); }};
}

}  // namespace mlprof::cli
