// mlprof run [--logdir L] [--run-name R] [--steps A:B] [--duration-ms N] [--host-tracer-level N]
//            [--python-tracer-level N] -- PROGRAM ARGS...
//
// Profiles an unmodified program: sets the environment variables that start a session when
// libmlprof loads (MLPROF_LOGDIR, ...) and preloads the LibTorch integration, so every ATen
// op, autograd node and allocation of a LibTorch program is traced with no code change.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "format/logdir.h"
#include "format/run_reservation.h"

namespace mlprof::cli {
namespace {

namespace fs = std::filesystem;

constexpr size_t kSharedNameBytes = 4096;  // a run name (a file name: 255 bytes at most)

struct RunOptions {
  std::string logdir = "logs";
  std::string run_name;
  std::string steps;
  int64_t duration_ms = -1;
  int host_tracer_level = -1;
  int python_tracer_level = -1;
  std::vector<std::string> command;
};

// "A:B" or "A,B" or "A" with 0 <= A <= B.
bool valid_steps(const std::string& text) {
  const size_t sep = text.find_first_of(":,");
  auto number = [](const std::string& s, long long* v) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    errno = 0;
    *v = std::strtoll(s.c_str(), nullptr, 10);
    return errno == 0;
  };
  long long first = 0, last = 0;
  if (!number(text.substr(0, sep), &first)) return false;
  last = first;
  if (sep != std::string::npos && !number(text.substr(sep + 1), &last)) return false;
  return last >= first;
}

fs::path this_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

// The library to preload: MLPROF_PRELOAD_LIBRARY if set; the LibTorch integration installed
// beside this program (bin/../lib) or in its build tree; else the plain SDK, which profiles
// what the program annotates itself.
std::string library_to_preload(std::string* note) {
  if (const char* forced = std::getenv("MLPROF_PRELOAD_LIBRARY"); forced != nullptr && *forced != '\0') return forced;
  std::vector<fs::path> candidates;
  const fs::path exe = this_executable();
  if (!exe.empty()) {
    const fs::path prefix = exe.parent_path().parent_path();
    candidates.push_back(prefix / MLPROF_INSTALL_LIBDIR / "libmlprof_torch.so");
    candidates.push_back(prefix / "lib" / "libmlprof_torch.so");
  }
#ifdef MLPROF_BUILT_TORCH_LIBRARY
  candidates.push_back(MLPROF_BUILT_TORCH_LIBRARY);
#endif
  std::error_code ec;
  for (const fs::path& c : candidates)
    if (fs::exists(c, ec)) return c.string();
  *note = "mlprof run: the LibTorch integration (libmlprof_torch.so) is not installed: only the program's own "
          "mlprof annotations are recorded";
  if (!exe.empty()) {
    const fs::path prefix = exe.parent_path().parent_path();
    for (const fs::path& c : {prefix / MLPROF_INSTALL_LIBDIR / "libmlprof.so", prefix / "lib" / "libmlprof.so"})
      if (fs::exists(c, ec)) return c.string();
  }
#ifdef MLPROF_BUILT_SDK_LIBRARY
  return MLPROF_BUILT_SDK_LIBRARY;
#else
  return "libmlprof.so";
#endif
}

// The runs the program (and programs it started) wrote, and the writes that failed, as
// libmlprof records them in MLPROF_RUN_RECORD (capture/run_record.h).
struct RecordedRuns {
  std::vector<std::string> written;  // run directories, the program's own last
  bool failed = false;
};

RecordedRuns read_run_record(const std::string& path, pid_t program) {
  RecordedRuns runs;
  std::ifstream in(path);
  std::vector<std::string> others;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    long pid = 0;
    std::string what, text;
    fields >> pid >> what;
    std::getline(fields >> std::ws, text);
    if (what == "failed") runs.failed = true;
    if (what == "wrote") (pid == program ? runs.written : others).push_back(text);
  }
  runs.written.insert(runs.written.begin(), others.begin(), others.end());
  return runs;
}

// A file for the record, where temporary files go.
std::string make_record_file(std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/mlprof-run-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    *error = "cannot make a temporary file in " + path.substr(0, path.rfind('/')) + ": " + std::strerror(errno);
    return "";
  }
  ::close(fd);
  return path;
}

int run_program(const RunOptions& o) {
  if (o.command.empty()) {
    std::fprintf(stderr, "mlprof run: no program given: mlprof run [options] -- PROGRAM [ARGS...]\n");
    return kUsageError;
  }
  if (!o.steps.empty() && !valid_steps(o.steps)) {
    std::fprintf(stderr, "mlprof run: --steps %s: expected FIRST:LAST with FIRST <= LAST, e.g. 10:15\n", o.steps.c_str());
    return kUsageError;
  }
  if (o.run_name.find('/') != std::string::npos || o.run_name == "." || o.run_name == "..") {
    std::fprintf(stderr, "mlprof run: --run-name %s: expected a directory name without '/'\n", o.run_name.c_str());
    return kUsageError;
  }
  // Said before the program runs: otherwise it would run unprofiled, and its run be lost.
  if (std::string why; !format::probe_writable_directory(o.logdir, &why)) {
    std::fprintf(stderr, "mlprof run: --logdir %s: cannot write there: %s\n", o.logdir.c_str(), why.c_str());
    return kBadInput;
  }
  std::string error;
  const std::string record = make_record_file(&error);
  if (record.empty()) {
    std::fprintf(stderr, "mlprof run: %s\n", error.c_str());
    return kBadInput;
  }
  std::string note;
  const std::string library = library_to_preload(&note);
  if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());

  // The environment the program starts with; the child changes only its own copy.
  std::string preload = library;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0')
    preload += std::string(":") + existing;
  const std::string host = format::local_host_name();
  // A new run's name is chosen in the program's process, and written here for this one, which
  // lets go of the reservation should the program never take it over.
  void* const shared = ::mmap(nullptr, kSharedNameBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::fprintf(stderr, "mlprof run: cannot map memory: %s\n", std::strerror(errno));
    return kBadInput;
  }
  char* const chosen_name = static_cast<char*>(shared);
  const ChildEnd end = run_child(o.command, [&]() -> std::string {
    // The run name is reserved in the program's process (its id survives exec): a second
    // `mlprof run` naming it while this one runs is refused, and one naming a new run takes
    // the next free second.
    std::string why, run_name = o.run_name;
    if (run_name.empty()) {
      run_name = format::reserve_new_run(o.logdir, host, std::time(nullptr), &why);
      if (run_name.empty()) return "--logdir " + o.logdir + ": cannot write there: " + why;
    } else {
      switch (format::reserve_run(o.logdir, o.run_name, host, &why)) {
        case format::Reservation::kReserved: break;
        case format::Reservation::kTaken: return "--run-name " + o.run_name + ": taken: " + why;
        case format::Reservation::kFailed: return "--logdir " + o.logdir + ": cannot write there: " + why;
      }
    }
    setenv("MLPROF_LOGDIR", o.logdir.c_str(), 1);
    if (!o.steps.empty()) setenv("MLPROF_STEPS", o.steps.c_str(), 1);
    else unsetenv("MLPROF_STEPS");
    if (o.duration_ms >= 0) setenv("MLPROF_DURATION_MS", std::to_string(o.duration_ms).c_str(), 1);
    // One run for the program and every process it starts; the program writes <host>.xplane.pb,
    // the others <host>.<rank or pid>.xplane.pb (capture/job_run.h).
    std::snprintf(chosen_name, kSharedNameBytes, "%s", run_name.c_str());
    setenv("MLPROF_RUN_NAME", run_name.c_str(), 1);
    setenv("MLPROF_RUN_PID", std::to_string(getpid()).c_str(), 1);
    if (o.host_tracer_level >= 0) setenv("MLPROF_HOST_TRACER_LEVEL", std::to_string(o.host_tracer_level).c_str(), 1);
    // Read by the mlprof Python package (not by libmlprof): it starts the Python tracer.
    if (o.python_tracer_level >= 0)
      setenv("MLPROF_PYTHON_TRACER_LEVEL", std::to_string(o.python_tracer_level).c_str(), 1);
    setenv("MLPROF_RUN_RECORD", record.c_str(), 1);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    return "";
  });
  const RecordedRuns runs = read_run_record(record, end.pid);
  ::unlink(record.c_str());
  // A program that never loaded libmlprof (a static one) leaves its reservation behind.
  const std::string run_name = chosen_name;
  ::munmap(shared, kSharedNameBytes);
  if (!run_name.empty() && end.pid > 0) format::release_run(o.logdir, run_name, host, end.pid);
  if (!end.not_started.empty()) {
    std::fprintf(stderr, "mlprof run: %s\n", end.not_started.c_str());
    return kBadInput;
  }
  if (!runs.written.empty()) {
    std::fprintf(stderr, "mlprof run: read the profile with: mlprof report %s\n", runs.written.back().c_str());
  } else if (!runs.failed) {  // a failure said why on stderr already
    std::fprintf(stderr, "mlprof run: no profile was written: %s\n",
                 WIFSIGNALED(end.wait_status)
                     ? (std::string("the program was ended by ") + strsignal(WTERMSIG(end.wait_status)) +
                        " before it could write one").c_str()
                     : "the program did not load libmlprof (a statically linked or set-user-ID program?)");
  }
  const bool profile_lost = runs.failed || runs.written.empty();
  if (profile_lost && WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) == 0) return kBadInput;
  return end_like(end.wait_status);
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Profile a program with no code change: mlprof run [options] -- PROGRAM [ARGS...].\n"
      "LibTorch programs are traced op by op (the torch integration is preloaded); with no step markers in the "
      "program, steps are inferred from its training loop. Exits with the program's exit code (2 when the "
      "program exits 0 but its profile could not be written). SIGINT, SIGTERM and SIGHUP sent to mlprof go on to "
      "the program, which writes its profile and ends; if mlprof is killed, the program gets SIGTERM.");
  sub->add_option("--logdir", options->logdir, "Where to write the profile (default: logs)");
  sub->add_option("--run-name", options->run_name, "The run's name under LOGDIR/plugins/profile (default: the local time)");
  sub->add_option("--steps", options->steps, "Record steps FIRST:LAST only, e.g. 10:15 (like Keras' profile_batch)");
  sub->add_option("--duration-ms", options->duration_ms, "Stop recording after N milliseconds")->check(CLI::NonNegativeNumber);
  sub->add_option("--host-tracer-level", options->host_tracer_level,
                  "1: user annotations and steps, 2: also framework ops (default), 3: also input shapes and memory")
      ->check(CLI::Range(0, 3));
  sub->add_option("--python-tracer-level", options->python_tracer_level,
                  "1: also every Python function call of a Python program, from where it imports the mlprof "
                  "package (as mlprof.start's python_tracer_level); 0: none (default)")
      ->check(CLI::Range(0, 1));
  sub->add_option("command", options->command, "The program and its arguments (after --)");
  sub->positionals_at_end();
  return {sub, [options] { return run_program(*options); }};
}

}  // namespace mlprof::cli
