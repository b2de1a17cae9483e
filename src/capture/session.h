// The profiling session: start/stop, the step-range policy and the background writer.
#pragma once

#include <string>

#include "mlprof/mlprof.h"

namespace mlprof::capture {

// start() with a note of who started it: an auto-started session (environment variables)
// says so in errors and is written at process exit.
Status start_session(const std::string& logdir, const ProfilerOptions& options, bool auto_started);

// At process exit: stops and writes a session that start_session(..., true) began.
void stop_auto_started_session();

}  // namespace mlprof::capture
