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

// The step-range policy, shared by StepTrace and steps an integration infers: a step that
// begins may switch a waiting session on (returns the level in force), and the end of the
// last step in the range switches recording off and has the session written.
int begin_step_in_range(int64_t step) noexcept;
void end_step_range_if_last(int64_t step) noexcept;

}  // namespace mlprof::capture
