// The profiling session: start/stop, the step-range policy and the background writer.
#pragma once

#include <cstdint>
#include <string>

#include "capture/job_run.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {

// start() with a note of who started it: an auto-started session (environment variables)
// says so in errors and is written at process exit; `job` for one the environment started,
// which writes into its job's run (capture/job_run.h).
Status start_session(const std::string& logdir, const ProfilerOptions& options, bool auto_started,
                     const JobRun* job = nullptr);

// At process exit: stops and writes a session that start_session(..., true) began.
void stop_auto_started_session();

// The step-range policy, shared by StepTrace and steps an integration infers: a step that
// begins may switch a waiting session on (returns the level in force), and the end of the
// last step in the range switches recording off and has the session written.
int begin_step_in_range(int64_t step) noexcept;
void end_step_range_if_last(int64_t step) noexcept;

// From a signal handler (async-signal-safe): asks the session's thread to end the running
// session and write it, as stop() would, with a line on stderr naming `signal`. Returns the
// session's id, or 0 when there is nothing to wait for (no session, one already written, or
// one with no thread of its own).
uint64_t request_finish_from_signal(int signal) noexcept;
// Whether that session's run is written (or given up), its line on stderr said.
bool session_finished(uint64_t session_id) noexcept;
// From a signal handler that ends the program during the write: removes what the write made
// so far (its temporary file, an empty run directory, the run's reservation).
void abandon_write_in_progress() noexcept;

}  // namespace mlprof::capture
