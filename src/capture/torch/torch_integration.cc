// Loading libmlprof_torch is all it takes: op tracing follows sessions, whether a program
// starts them (mlprof::start) or the environment does (MLPROF_LOGDIR, `mlprof run`, which
// preloads this library into an unmodified program).
#include <cstdlib>

#include "capture/op_recorder.h"
#include "capture/torch/op_callbacks.h"
#include "capture/torch/step_detector.h"
#include "mlprof/torch.h"

namespace mlprof::libtorch {
namespace {

void on_session_start(const ProfilerOptions& options) {
  if (options.host_tracer_level <= 0) return;
  reset_step_detection();
  enable_op_callbacks(/*with_inputs=*/options.host_tracer_level >= kVerbose);
  // LibTorch makes its callback registry on the first addGlobalCallback, and its destructor
  // then runs at exit before every exit handler registered earlier, among them the one that
  // writes a session the program left running: that handler's disableCallback would read a
  // destroyed registry. Registered again now, after the registry, it runs while it is whole.
  static const bool exit_handler_after_registry = std::atexit(internal::stop_session_at_exit) == 0;
  (void)exit_handler_after_registry;
}

void on_session_stop() { disable_op_callbacks(); }

// After libmlprof's own start-up (a dependency initialises first), so a session the
// environment started is already running and is joined at once.
__attribute__((constructor)) void join_sessions() {
  internal::add_session_listener({on_session_start, on_session_stop});
}

}  // namespace
}  // namespace mlprof::libtorch

namespace mlprof::libtorch {
bool enabled() noexcept { return true; }
}  // namespace mlprof::libtorch
