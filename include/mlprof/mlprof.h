// mlprof capture SDK: the one header a profiled program includes.
//
// Shaped on the TensorFlow profiler's API:
//   mlprof::start(logdir, options) / mlprof::stop()   programmatic mode
//   mlprof::Profile p(logdir, options);                the same as a scope
//   mlprof::Trace t("name");  MLPROF_TRACE("name");    scoped annotations (TraceMe)
//   mlprof::StepTrace s("train", step);                step markers (StepMarker)
//
// Cost: a disabled annotation is one relaxed atomic load and a predicted branch.
// An enabled one reads the clock twice and writes a fixed-size record into a
// per-thread buffer: no lock, no heap allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mlprof/clock.h"
#include "mlprof/trace_arg.h"

// The library is built with hidden visibility; this marks what it exports.
#if defined(__GNUC__)
#define MLPROF_API __attribute__((visibility("default")))
#else
#define MLPROF_API
#endif

namespace mlprof {

// Annotation levels, as TraceMeLevel: options.host_tracer_level records levels <= it.
enum TraceLevel : int {
  kCritical = 1,  // user annotations, steps
  kInfo = 2,      // framework ops
  kVerbose = 3,   // everything, including metadata-heavy detail
};

struct ProfilerOptions {
  int host_tracer_level = 2;     // 0 records nothing from the host tracer
  int device_tracer_level = 1;   // 0 disables GPU tracing (CUPTI) when built in
  // Upper bound on capture memory; records that do not fit are counted as dropped and
  // reported in the XSpace warnings.
  uint64_t max_buffer_bytes = uint64_t{512} << 20;
  // Step-range policy (Keras' profile_batch='A,B'): when first_step >= 0 the session
  // records only from the start of step first_step to the end of step last_step, and
  // ends as soon as that range is complete: its run is written on the session's own thread.
  int64_t first_step = -1;
  int64_t last_step = -1;
  // Ends the session on its own after this many milliseconds (0: never), as a range does.
  uint64_t duration_ms = 0;
  // Run directory name under <logdir>/plugins/profile/; default: local time YYYY_MM_DD_HH_MM_SS.
  std::string run_name;
  // Host name for the file name and XSpace.hostnames; default: gethostname().
  std::string host_name;
};

// What kind of failure a Status reports, for callers that act on it (the profiler server
// answers a busy session differently from an unwritable logdir).
enum class StatusCode {
  kOk,
  kAlreadyRunning,     // a session (or a server on the port) already runs
  kInvalidArgument,    // the arguments themselves are wrong
  kCannotWrite,        // the logdir cannot be made or written to
  kOutOfResources,     // memory or address space, a thread, a port
  kInternal,
};

// Outcome of start(): ok, or a message saying why not (a session already runs, ...).
class Status {
 public:
  Status() = default;
  static Status error(std::string message, StatusCode code = StatusCode::kInternal) {
    Status s;
    s.message_ = std::move(message);
    s.code_ = code == StatusCode::kOk ? StatusCode::kInternal : code;
    return s;
  }
  bool ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// What stop() wrote.
struct RunInfo {
  Status status;
  std::string run_dir;      // <logdir>/plugins/profile/<run>
  std::string xspace_path;  // <run_dir>/<host>.xplane.pb
  uint64_t events = 0;      // events written
  uint64_t dropped = 0;     // events that did not fit under max_buffer_bytes
};

// Starts a session that writes into logdir. Fails (without side effects) if a session runs;
// fails too, with the reason, when logdir cannot be made or written to (it is made, and a file
// is created there and removed again, to find out), and when options.run_name names a run that
// already holds this host's profile (a capture never overwrites one). A session that ended on its own (its step
// range or duration is over) does not count as running: start() waits for its run to be
// written, if need be, and starts.
// A session the environment started (MLPROF_LOGDIR, as `mlprof run` sets it) gives way to the
// program's own: start() ends it unwritten, says so in one line on stderr, and starts this
// one, so the program's start() and stop() choose what is recorded, and where.
// A session still running when the program calls exit() or quick_exit() or returns from
// main() is written then, and stderr says so in one line. A child made by fork() does not
// inherit the session: it records nothing until it starts its own.
MLPROF_API Status start(const std::string& logdir, const ProfilerOptions& options = {});
// Stops the running session and writes it. Safe while other threads still annotate. After a
// session that ended on its own, the first stop() returns the run it wrote (waiting for the
// writing to end); a stop() with no session since the last one fails.
MLPROF_API RunInfo stop();
// True from start() until the session ends: at stop(), or, for a session with a step range or a
// duration, once that is over and its run is written (also while it waits for its first step).
MLPROF_API bool is_active();

// Names the calling thread's line in the trace (also applies to later sessions).
MLPROF_API void set_thread_name(std::string_view name);

namespace internal {
// One line on stderr for a Profile whose session did not start, or whose run was not written.
MLPROF_API void report_profile_failure(const Status& status) noexcept;
}  // namespace internal

// RAII session, like tf.profiler.experimental.Profile. A session that cannot start (the logdir
// cannot be written, another session runs, ...) is said in one line on stderr, and status()
// says why for programs that check; the program goes on unprofiled. The destructor stops and
// writes the session, and says in one line on stderr when the run could not be written.
class Profile {
 public:
  explicit Profile(const std::string& logdir, const ProfilerOptions& options = {})
      : status_(start(logdir, options)) {
    if (!status_.ok()) internal::report_profile_failure(status_);
  }
  ~Profile() {
    if (!status_.ok()) return;
    const RunInfo run = stop();
    if (!run.status.ok()) internal::report_profile_failure(run.status);
  }
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  // Whether the session started, else why not.
  const Status& status() const { return status_; }

 private:
  Status status_;
};

namespace internal {
// The level currently recorded; 0 when no session records, -1 while a step-range session
// waits for its first step (only StepTrace reacts to that). Read on every annotation.
extern MLPROF_API std::atomic<int> g_trace_level;

inline bool tracing(int level) {
  return __builtin_expect(level <= g_trace_level.load(std::memory_order_relaxed), 0);
}

// Record sinks (src/capture/). `name` is a string literal kept as a pointer (it must live
// until the session is written); the other forms copy the bytes into the thread's buffer.
MLPROF_API void record_literal(const char* name, uint64_t start_ticks, uint64_t end_ticks) noexcept;
MLPROF_API void record_copy(std::string_view name, uint64_t start_ticks, uint64_t end_ticks) noexcept;
MLPROF_API void record_with_args(std::string_view name, const TraceArg* args, size_t num_args,
                                 uint64_t start_ticks, uint64_t end_ticks) noexcept;
// Step markers: step begin may switch a step-range session on, step end may switch it off.
MLPROF_API int step_begin(int64_t step) noexcept;  // returns the level in force for this step
MLPROF_API void step_end(const char* name, int64_t step, uint64_t start_ticks,
                         uint64_t end_ticks) noexcept;
}  // namespace internal

// Encodes "name#k1=v1,k2=v2#" the way TraceMeEncode does.
MLPROF_API std::string encode(std::string_view name, std::initializer_list<TraceArg> args);

// A scoped annotation (TraceMe). Records [construction, destruction) on this thread.
class MLPROF_API Trace {
 public:
  // A string literal: stored as a pointer, interned at export.
  template <size_t N>
  explicit Trace(const char (&name)[N], int level = kCritical) noexcept {
    if (internal::tracing(level)) { literal_ = name; start_ = now_ticks(); }
  }
  // A writable char array is not a literal: its bytes may change, so they are copied.
  template <size_t N>
  explicit Trace(char (&name)[N], int level = kCritical) noexcept
      : Trace(std::string_view(name), level) {}
  // A name built at run time: copied into the buffer.
  explicit Trace(std::string_view name, int level = kCritical) noexcept {
    if (internal::tracing(level)) begin_copy(name);
  }
  explicit Trace(const std::string& name, int level = kCritical) noexcept
      : Trace(std::string_view(name), level) {}
  // Name plus metadata, encoded as name#k=v,...# only when this level records.
  Trace(std::string_view name, std::initializer_list<TraceArg> args, int level = kCritical) noexcept {
    if (internal::tracing(level)) begin_args(name, args);
  }
  // A callable returning the (possibly encoded) name, called only when this level records.
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<std::string, F>>>
  explicit Trace(F&& make_name, int level = kCritical) {
    if (internal::tracing(level)) begin_copy(make_name());
  }

  ~Trace() {
    if (start_ != 0) end();
  }
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

 private:
  void begin_copy(std::string_view name) noexcept;
  void begin_args(std::string_view name, std::initializer_list<TraceArg> args) noexcept;
  void end() noexcept {
    const uint64_t stop = now_ticks();
    if (literal_ != nullptr) internal::record_literal(literal_, start_, stop);
    else end_copy(stop);
  }
  void end_copy(uint64_t stop) noexcept;

  uint64_t start_ = 0;              // 0: this Trace records nothing
  const char* literal_ = nullptr;   // set: a literal-name event, recorded whole at the end
  // Otherwise the name was copied into the thread's buffer at begin (the caller's view may
  // die first); the end tick goes into that staged record, if it still belongs to the
  // session the thread writes to (epoch_).
  uint64_t* end_slot_;
  uint64_t epoch_;
};

// A step marker: a Trace with step_num=<step> and _r=1 (a root the analysis splits steps on).
// Put the code that fetches the next batch inside the step.
class StepTrace {
 public:
  template <size_t N>
  StepTrace(const char (&name)[N], int64_t step) noexcept : name_(name), step_(step) {
    // Nonzero while a session records (> 0) or a step-range session waits for its range (< 0).
    if (internal::g_trace_level.load(std::memory_order_relaxed) != 0) {
      if (internal::step_begin(step) > 0) start_ = now_ticks();
    }
  }
  ~StepTrace() {
    if (start_ != 0) internal::step_end(name_, step_, start_, now_ticks());
  }
  StepTrace(const StepTrace&) = delete;
  StepTrace& operator=(const StepTrace&) = delete;

 private:
  const char* name_;
  int64_t step_;
  uint64_t start_ = 0;
};

}  // namespace mlprof

#define MLPROF_CONCAT_INNER(a, b) a##b
#define MLPROF_CONCAT(a, b) MLPROF_CONCAT_INNER(a, b)
// MLPROF_TRACE("name") or MLPROF_TRACE("name", level): a Trace for the rest of the scope.
#define MLPROF_TRACE(...) ::mlprof::Trace MLPROF_CONCAT(mlprof_trace_, __LINE__)(__VA_ARGS__)
