// What framework integrations learn about sessions: when one starts and stops (listeners
// registered with internal::add_session_listener), the step running now, and whether the
// program marks steps itself. session.cc reports; op_recorder.cc and the integrations read.
#pragma once

#include <atomic>
#include <cstdint>

#include "mlprof/mlprof.h"

namespace mlprof::capture {

// From start_session(), once the session records (or waits for its step range).
void notify_session_started(const ProfilerOptions& options);
// From the session's end, before it is written.
void notify_session_stopping();

// In a forked child: no session runs there (the parent's is not the child's), and the
// listeners' lock may have been held by a thread the child does not have.
void reset_session_events_after_fork() noexcept;

// A StepTrace began step `step`.
void note_program_step(int64_t step) noexcept;

// The step memory events belong to (-1: none yet); set by StepTrace and inferred steps.
extern std::atomic<int64_t> g_current_step;
// Set by note_program_step(), cleared when a session starts.
extern std::atomic<bool> g_program_marks_steps;

}  // namespace mlprof::capture
