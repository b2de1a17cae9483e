#include "capture/session.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "capture/arena.h"
#include "capture/clock_fit.h"
#include "capture/cupti/device_tracer.h"
#include "capture/job_run.h"
#include "capture/op_recorder.h"
#include "capture/recorder.h"
#include "capture/run_record.h"
#include "capture/session_events.h"
#include "capture/signal_exit.h"
#include "capture/thread_name.h"
#include "capture/wakeup.h"
#include "capture/xspace_export.h"
#include "format/logdir.h"
#include "format/run_reservation.h"

namespace mlprof {

namespace internal {
std::atomic<int> g_trace_level{0};
}  // namespace internal

namespace capture {
namespace {

// What becomes of a session's recording, decided once: the session's thread may begin to write
// it (its steps or duration are over) just as a program's start() takes over from it.
enum class Fate { kRecording, kWritten, kDropped };

struct Session {
  uint64_t id = 0;
  std::string logdir;
  ProfilerOptions options;
  std::string host;               // options.host_name, else this machine's
  bool run_reserved = false;      // options.run_name, reserved at start for this host
  bool auto_started = false;
  std::optional<JobRun> job;     // a session the environment started: one process of a job
  bool stopped_at_exit = false;  // the program exited without stop(): say so on stderr
  pid_t pid = 0;
  Arena* arena = nullptr;
  ClockPair start;
  std::chrono::steady_clock::time_point deadline;
  std::thread thread;  // run_session_thread; none if it could not be started
  bool finished = false;
  std::atomic<Fate> fate{Fate::kRecording};
  RunInfo result;
  std::unique_ptr<DeviceTracer> device;  // GPU tracing, when asked for and possible
  std::string device_failure;            // else why not
};

// Everything start/stop share. Immortal: used by atexit handlers and after fork.
struct Control {
  std::mutex api_mu;                // serialises start and stop
  Session* session = nullptr;       // guarded by api_mu
  uint64_t last_session_id = 0;     // guarded by api_mu
  Wakeup wake_session;              // finish requested, or writers near the committed end
  std::atomic<uint64_t> finish_requested{0};  // highest session id asked to finish
  // In a forked child, the parent's session at the fork: never written or freed there (its
  // thread is not in the child), only kept reachable, so leak checkers do not report it.
  Session* parents_session = nullptr;
};

Control& control() {
  static Control* c = new Control;
  return *c;
}

std::atomic<bool> g_active{false};
// For a signal handler (signal_exit.h): the session it may have written (one with its own
// thread: 0 when none), the last session whose finish() is over, and the signal, for the
// line on stderr.
std::atomic<uint64_t> g_signal_writable_session{0};
std::atomic<uint64_t> g_finished_session{0};
std::atomic<int> g_exit_signal{0};

// The files of the run being written, for a signal handler that abandons the write: the
// temporary file (format/xspace_encoder.h writes <file>.tmp, renamed when whole), the run
// directory made for it, and the run's reservation. Set on the session thread before the
// write, and `g_write_paths_set` after them.
struct WritePaths {
  char temp[4096];
  char run_dir[4096];
  char reservation[4096];
};
WritePaths g_write_paths;
std::atomic<bool> g_write_paths_set{false};

void copy_path(char (&to)[4096], const std::string& from) {
  const size_t n = std::min(from.size(), sizeof to - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

void note_write_paths(const format::RunLocation& location, const std::string& logdir, const std::string& host) {
  g_write_paths_set.store(false);
  copy_path(g_write_paths.temp, location.xspace_path + ".tmp");
  copy_path(g_write_paths.run_dir, location.run_dir);
  copy_path(g_write_paths.reservation, format::run_reservation_path(logdir, location.run_name, host));
  g_write_paths_set.store(true);
}
// The step-range policy of the running session (-1: none).
std::atomic<int64_t> g_first_step{-1};
std::atomic<int64_t> g_last_step{-1};
std::atomic<int> g_range_level{0};
std::atomic<bool> g_range_started{false};
// Taken when the library loads: a long baseline for the tick rate.
ClockPair g_load_pair;

__attribute__((constructor)) void on_library_load() { g_load_pair = read_clock_pair(); }

void request_finish(uint64_t session_id) {
  Control& c = control();
  uint64_t requested = c.finish_requested.load(std::memory_order_relaxed);
  while (requested < session_id &&
         !c.finish_requested.compare_exchange_weak(requested, session_id, std::memory_order_release)) {
  }
  c.wake_session.notify();
}

RunInfo write_run(const Session& s, const ClockPair& stop) {
  RunInfo info;
  const std::string host = s.job ? job_file_host(s.host, *s.job) : s.host;
  format::RunLocation location;
  std::string error;
  if (!format::prepare_run(s.logdir, s.options.run_name, host, std::time(nullptr), &location, &error)) {
    info.status = Status::error("mlprof: " + error);
    return info;
  }
  // Let go of once the file is in place (or given up): the file itself then keeps the name.
  struct Release {
    const std::string &logdir, &run, &host;
    ~Release() {
      g_write_paths_set.store(false);
      format::release_run(logdir, run, host);
    }
  } release{s.logdir, location.run_name, host};
  note_write_paths(location, s.logdir, host);
  info.run_dir = location.run_dir;
  info.xspace_path = location.xspace_path;

  CaptureToExport capture;
  capture.arena = s.arena;
  capture.start = s.start;
  capture.stop = stop;
  capture.calibration = g_load_pair;
  capture.max_buffer_bytes = s.options.max_buffer_bytes;
  capture.host_name = host;
  const JobRank rank = job_rank();
  capture.rank = rank.rank;
  capture.world_size = rank.world_size;
  DeviceTrace device;
  if (s.device != nullptr) {
    s.device->export_trace(s.start, stop, &device);
    capture.device = &device;
    capture.warnings.insert(capture.warnings.end(), device.warnings.begin(), device.warnings.end());
  } else if (!s.device_failure.empty() && device_tracing_failure_matters()) {
    capture.warnings.push_back("mlprof recorded no GPU activity: " + s.device_failure);
  }
  if (s.options.first_step >= 0 && !g_range_started.load()) {
    capture.warnings.push_back("mlprof recorded nothing: no step in the range " +
                               std::to_string(s.options.first_step) + ".." +
                               std::to_string(s.options.last_step) + " began");
  }
  ExportCounts counts;
  if (!export_xspace(capture, location.xspace_path, &counts, &error)) {
    info.status = Status::error("mlprof: " + error);
    rmdir(location.run_dir.c_str());  // the run directory made for it, if it is empty: no empty run listed
    return info;  // no events written
  }
  info.events = counts.events;
  info.dropped = counts.dropped;
  if (s.job && counts.events == 0 && leave_out_empty_file(*s.job, location.run_dir, location.xspace_path)) {
    ::unlink(location.xspace_path.c_str());
    rmdir(location.run_dir.c_str());  // when no other process of the job wrote there
    info.run_dir.clear();
    info.xspace_path.clear();  // recorded nothing, wrote nothing
  }
  return info;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

// One line on stderr for a run written with no stop() the program sees: the environment's
// session, one still running when the program exited, or one a signal ended. Written with
// write(2): a thread the signal stopped may hold stderr's lock.
void report_written_run(const Session& s) {
  const int signal = g_exit_signal.load();
  std::string line;
  if (s.result.status.ok()) {
    line = "mlprof: ";
    if (signal != 0) line += std::string("the program got ") + signal_name(signal) + " during a profiling session: ";
    else if (s.stopped_at_exit && !s.auto_started) line += "the program exited during a profiling session: ";
    line += "wrote " + s.result.xspace_path + " (" + std::to_string(s.result.events) + " events" +
            (s.result.dropped > 0 ? ", some dropped: see the warnings" : "") + ")";
  } else if (signal == 0 && (s.auto_started || !s.stopped_at_exit)) {
    line = s.result.status.message();
  } else {
    std::string why = s.result.status.message();
    if (why.starts_with("mlprof: ")) why.erase(0, 8);
    line = std::string("mlprof: the program ") +
           (signal != 0 ? std::string("got ") + signal_name(signal) : std::string("exited")) +
           " during a profiling session, which could not be written: " + why;
  }
  line += '\n';
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

// Ends recording and writes the run (unless a program's start() dropped it); on the session
// thread, or in stop() when there is none.
void finish(Session& s) {
  if (s.finished) return;
  s.finished = true;
  Fate recording = Fate::kRecording;
  const bool write = s.fate.compare_exchange_strong(recording, Fate::kWritten);
  internal::g_trace_level.store(0, std::memory_order_relaxed);
  notify_session_stopping();
  g_epoch.store(0, std::memory_order_release);  // writers let go of the arena
  if (s.device != nullptr) s.device->stop();     // flushes what the GPU finished
  const ClockPair stop = read_clock_pair();
  if (s.arena != nullptr) s.arena->close();
  g_arena.store(nullptr, std::memory_order_release);
  if (write) {
    try {
      s.result = write_run(s, stop);
    } catch (const std::exception& e) {  // bad_alloc on a huge capture: report, never crash
      s.result.status = Status::error(std::string("mlprof: cannot write the profile: ") + e.what());
    }
  } else {
    s.result.status = Status::error("mlprof: the session ended unwritten: the program started its own");
  }
  if (s.arena != nullptr) s.arena->release();
  thread_names_capture_ends();
  s.device.reset();
  if (s.run_reserved) format::release_run(s.logdir, s.options.run_name, s.host);  // unwritten: let go
  if (write && !(s.result.status.ok() && s.result.xspace_path.empty())) {
    if (s.result.status.ok()) record_run_written(s.result.run_dir);
    else record_run_failed(s.result.status.message());
    if (s.auto_started || s.stopped_at_exit || g_exit_signal.load() != 0) report_written_run(s);
  }
  g_finished_session.store(s.id);
  end_program_after_signal_write(g_exit_signal.load());
}

// A writer nearing the committed end of the arena.
void wake_session_thread() { control().wake_session.notify(); }

// Each session's own thread: commits capture pages ahead of the writers, ends the session
// when its steps or duration are over (or stop() asks), and writes the run.
void run_session_thread(Session* s) {
  pthread_setname_np(pthread_self(), "mlprof_session");
  block_exit_signals_on_this_thread();  // their handler waits for this thread
  Control& c = control();
  for (;;) {
    register_python_exit_when_ready();
    const uint32_t ticket = c.wake_session.ticket();
    if (c.finish_requested.load(std::memory_order_acquire) >= s->id) break;
    const auto now = std::chrono::steady_clock::now();
    if (s->options.duration_ms > 0 && now >= s->deadline) break;
    s->arena->commit_ahead();
    // Also every 50 ms, to keep pace with writers that take chunks slowly.
    auto wake = now + std::chrono::milliseconds(50);
    if (s->options.duration_ms > 0) wake = std::min(wake, s->deadline);
    c.wake_session.wait(ticket, wake - now);
  }
  finish(*s);
  // A session whose steps or duration are over has ended with its run written: a new one may
  // start, and stop() only collects this one's RunInfo. (stop() waits for this thread.)
  g_active.store(false);
}

// Whether the session has stopped recording for good on its own: its step range is complete
// or its duration is over. Its thread writes (or has written) the run. Called under api_mu,
// where only the range's end can have asked it to finish (stop() holds api_mu until it is gone).
bool ended_on_its_own(const Session& s) {
  if (control().finish_requested.load(std::memory_order_acquire) >= s.id) return true;
  return s.options.duration_ms > 0 && std::chrono::steady_clock::now() >= s.deadline;
}

RunInfo stop_locked(Control& c) {
  Session* s = c.session;
  if (s->thread.joinable()) {
    request_finish(s->id);
    s->thread.join();
  } else {
    finish(*s);
  }
  c.session = nullptr;
  g_active.store(false);
  RunInfo result = std::move(s->result);
  delete s;
  Arena::unmap_idle_arenas();
  return result;
}

// In a forked child: the parent's session is not ours to write (the child records nothing
// until it starts a session of its own, and never writes the parent's run, even at exit),
// its capture memory is given back, and the locks a parent thread held are made anew.
Status reserve_named_run(const std::string& logdir, const std::string& run_name, const std::string& host) {
  if (run_name.empty()) return Status();  // named when written, after the free second then
  std::string why;
  switch (format::reserve_run(logdir, run_name, host, &why)) {
    case format::Reservation::kReserved: return Status();
    case format::Reservation::kTaken:
      return Status::error("mlprof::start: run_name '" + run_name + "' is taken: " + why +
                               "; choose another run_name, or remove that run",
                           StatusCode::kInvalidArgument);
    case format::Reservation::kFailed: break;
  }
  return Status::error("mlprof::start: " + why, StatusCode::kCannotWrite);
}

void after_fork_in_child() {
  internal::g_trace_level.store(0);
  g_epoch.store(0);
  if (Arena* parents = g_arena.exchange(nullptr)) parents->unmap_in_forked_child();
  Arena::reset_lock_in_forked_child();
  g_active.store(false);
  g_signal_writable_session.store(0);
  g_exit_signal.store(0);
  g_first_step.store(-1);
  g_last_step.store(-1);
  reset_thread_after_fork();
  reset_thread_names_after_fork();
  reset_session_events_after_fork();
  Control& c = control();
  new (&c.api_mu) std::mutex;
  if (c.session != nullptr) c.parents_session = c.session;  // the parent's: left alone
  c.session = nullptr;
}

// exit() or a return from main() with a session running (started by this process, not
// inherited over fork): the run is written, as stop() would, and stderr says so.
void stop_session_at_exit() {
  Control& c = control();
  std::lock_guard<std::mutex> lock(c.api_mu);
  if (c.session == nullptr || c.session->pid != getpid()) return;
  // One that ended on its own was written then, and said nothing: it was no exit's doing.
  if (!ended_on_its_own(*c.session)) c.session->stopped_at_exit = true;
  stop_locked(c);
}

// Before a new session starts: one that ended on its own, which no stop() collected, is let
// go (its thread has written the run, or is writing it: that is waited for). A failure to
// write it is said on stderr, since no stop() will return it.
void let_go_of_ended_session(Control& c) {
  const bool auto_started = c.session->auto_started;  // its own failures are on stderr already
  const RunInfo run = stop_locked(c);
  if (!run.status.ok() && !auto_started) std::fprintf(stderr, "%s\n", run.status.message().c_str());
}

// The program's own start() under `mlprof run` (a session started from MLPROF_LOGDIR): the
// program's start() and stop() choose what is recorded, as the program's profiler API calls do
// under Nsight Systems' --capture-range=cudaProfilerApi. The environment's session ends
// unwritten, so that no run of the time before (imports, set-up) sits beside the program's.
void yield_to_program(Control& c, const std::string& program_logdir) {
  Session& s = *c.session;
  Fate recording = Fate::kRecording;
  const bool dropped = s.fate.compare_exchange_strong(recording, Fate::kDropped);  // else it ended on its own
  const std::string environment_logdir = s.logdir;
  notify_session_stopping();  // on the caller's thread, as stop() does
  stop_locked(c);
  if (dropped) {
    std::fprintf(stderr,
                 "mlprof: the program starts its own profiling session (writing to %s); the one MLPROF_LOGDIR "
                 "started (writing to %s) ends unwritten\n",
                 program_logdir.c_str(), environment_logdir.c_str());
  }
}

__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
}

}  // namespace

Status start_session(const std::string& logdir, const ProfilerOptions& options, bool auto_started,
                     const JobRun* job) {
  if (logdir.empty()) return Status::error("mlprof::start: the logdir is empty", StatusCode::kInvalidArgument);
  ProfilerOptions o = options;
  o.host_tracer_level = std::clamp(o.host_tracer_level, 0, 3);
  if (o.first_step >= 0 && o.last_step < 0) o.last_step = o.first_step;
  if (o.first_step >= 0 && o.last_step < o.first_step) {
    return Status::error("mlprof::start: last_step (" + std::to_string(o.last_step) +
                         ") is before first_step (" + std::to_string(o.first_step) + ")",
                         StatusCode::kInvalidArgument);
  }

  Control& c = control();
  std::lock_guard<std::mutex> lock(c.api_mu);
  if (c.session != nullptr && ended_on_its_own(*c.session)) let_go_of_ended_session(c);
  const bool program_takes_over = c.session != nullptr && c.session->auto_started && !auto_started;
  if (c.session != nullptr && !program_takes_over) {
    return Status::error("mlprof::start: a profiling session is already running (writing to " + c.session->logdir +
                         "); call mlprof::stop() before starting another",
                         StatusCode::kAlreadyRunning);
  }
  // Said now rather than when the run is written, after the whole session was lost (and before
  // the environment's session gives way to this one).
  if (std::string why; !format::probe_writable_directory(logdir, &why)) {
    return Status::error("mlprof::start: cannot write to the logdir " + logdir + ": " + why, StatusCode::kCannotWrite);
  }
  const std::string host = o.host_name.empty() ? format::local_host_name() : o.host_name;
  // A named run is reserved now: two captures naming it at once cannot both write it. A job's
  // run is shared: its members' files are reserved when written, each under its own name.
  const std::string reserved_name = job == nullptr || job->leader ? o.run_name : "";
  if (Status reserved = reserve_named_run(logdir, reserved_name, host); !reserved.ok()) return reserved;
  if (program_takes_over) {
    yield_to_program(c, logdir);  // lets go of its own reservation, which may be this one
    if (Status reserved = reserve_named_run(logdir, reserved_name, host); !reserved.ok()) return reserved;
  }
  Arena::unmap_idle_arenas();
  // Registered with the first session: atexit handlers and static destructors run in
  // reverse order, and writing a session uses no object that a static destructor ends.
  static const bool exit_handler_registered =
      std::atexit(stop_session_at_exit) == 0 && std::at_quick_exit(stop_session_at_exit) == 0;
  (void)exit_handler_registered;
  auto s = std::make_unique<Session>();
  s->id = ++c.last_session_id;
  s->logdir = logdir;
  s->options = o;
  s->host = host;
  s->run_reserved = !reserved_name.empty();
  if (job != nullptr) s->job = *job;
  s->auto_started = auto_started;
  s->pid = getpid();
  s->arena = Arena::create(s->id, o.max_buffer_bytes, wake_session_thread);
  if (s->arena == nullptr) {
    if (s->run_reserved) format::release_run(logdir, reserved_name, host);
    return Status::error("mlprof::start: cannot reserve " + std::to_string(o.max_buffer_bytes) +
                         " bytes of address space for the capture buffer (max_buffer_bytes)",
                         StatusCode::kOutOfResources);
  }
  // Before the start pair, so that the session spans the GPU trace; a failure only leaves a
  // warning for the profile: host tracing goes on.
  if (o.device_tracer_level > 0) {
    try {
      s->device = start_device_tracer(o, &s->device_failure);
    } catch (const std::exception& e) {
      s->device_failure = std::string("the GPU tracer could not start: ") + e.what();
    }
  }
  s->start = read_clock_pair();
  s->arena->set_tick_base(s->start.ticks);
  // From the recorded start, so the written span is never shorter than duration_ms (starting
  // the GPU tracer above can take a while).
  s->deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.duration_ms);

  g_first_step.store(o.first_step);
  g_last_step.store(o.first_step >= 0 ? o.last_step : -1);
  g_range_level.store(o.host_tracer_level);
  g_range_started.store(false);
  thread_names_capture_begins();
  g_arena.store(s->arena, std::memory_order_release);
  g_epoch.store(s->id, std::memory_order_release);
  internal::g_trace_level.store(o.first_step >= 0 ? -1 : o.host_tracer_level);
  notify_session_started(o);

  try {
    s->thread = std::thread(run_session_thread, s.get());
  } catch (const std::exception& e) {
    // Without it, pages are committed by the writers and stop() writes the run itself; only
    // a session that must end on its own cannot run.
    if (o.first_step >= 0 || o.duration_ms > 0) {
      finish(*s);
      Arena::unmap_idle_arenas();
      return Status::error(std::string("mlprof::start: cannot start the session thread: ") + e.what(),
                           StatusCode::kOutOfResources);
    }
  }
  if (s->thread.joinable()) g_signal_writable_session.store(s->id);
  c.session = s.release();
  g_active.store(true);
  write_sessions_on_exit_signals();
  return Status();
}

void stop_auto_started_session() {
  Control& c = control();
  std::lock_guard<std::mutex> lock(c.api_mu);
  if (c.session == nullptr || !c.session->auto_started || c.session->pid != getpid()) return;
  stop_locked(c);  // finish() reports on stderr
}

uint64_t request_finish_from_signal(int signal) noexcept {
  const uint64_t id = g_signal_writable_session.load();
  if (id == 0 || g_finished_session.load() >= id) return 0;
  g_exit_signal.store(signal);
  request_finish(id);
  return id;
}

bool session_finished(uint64_t session_id) noexcept { return g_finished_session.load() >= session_id; }

void abandon_write_in_progress() noexcept {
  if (!g_write_paths_set.load()) return;
  ::unlink(g_write_paths.temp);
  ::rmdir(g_write_paths.run_dir);  // only if nothing else is in it
  ::unlink(g_write_paths.reservation);
}

}  // namespace capture

Status start(const std::string& logdir, const ProfilerOptions& options) {
  return capture::start_session(logdir, options, false);
}

RunInfo stop() {
  capture::Control& c = capture::control();
  std::lock_guard<std::mutex> lock(c.api_mu);
  if (c.session == nullptr) {
    RunInfo info;
    info.status = Status::error("mlprof::stop: no profiling session is running");
    return info;
  }
  capture::notify_session_stopping();  // on the caller's thread: integrations tidy it up
  return capture::stop_locked(c);
}

bool is_active() { return capture::g_active.load(); }

namespace capture {

int begin_step_in_range(int64_t step) noexcept {
  int level = internal::g_trace_level.load(std::memory_order_relaxed);
  if (level >= 0) return level;
  // A step-range session waiting for its first step.
  if (step < g_first_step.load(std::memory_order_relaxed) || step > g_last_step.load(std::memory_order_relaxed)) {
    return 0;
  }
  if (internal::g_trace_level.compare_exchange_strong(level, g_range_level.load())) {
    g_range_started.store(true);
  }
  return internal::g_trace_level.load(std::memory_order_relaxed);
}

void end_step_range_if_last(int64_t step) noexcept {
  const int64_t last = g_last_step.load(std::memory_order_relaxed);
  if (last < 0 || step < last) return;
  // The range is complete: the first thread to see it switches recording off and wakes
  // the session thread, so the run is written off this thread.
  int level = internal::g_trace_level.load(std::memory_order_relaxed);
  if (level <= 0 || !internal::g_trace_level.compare_exchange_strong(level, 0)) return;
  const uint64_t session = g_epoch.load(std::memory_order_acquire);
  if (session == 0) return;
  try {
    request_finish(session);
  } catch (...) {  // a failed lock: the session is then written by stop()
  }
}

}  // namespace capture

namespace internal {

int step_begin(int64_t step) noexcept {
  capture::note_program_step(step);
  return capture::begin_step_in_range(step);
}

void step_end(const char* name, int64_t step, uint64_t start_ticks, uint64_t end_ticks) noexcept {
  capture::record_step(name, step, start_ticks, end_ticks);
  capture::end_step_range_if_last(step);
}

void stop_session_at_exit() { capture::stop_session_at_exit(); }

void report_profile_failure(const Status& status) noexcept {
  std::string line = status.message();
  if (line.starts_with("mlprof::start: ")) line = "mlprof::Profile: not profiling: " + line.substr(15);
  else if (line.starts_with("mlprof: ")) line = "mlprof::Profile: " + line.substr(8);
  line += '\n';
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace internal
}  // namespace mlprof
