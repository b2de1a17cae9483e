// The profiler's own start and stop, as the profiled program's Python stack records them:
// JAX's start_trace/stop_trace, TensorFlow's profiler start/stop, torch.profiler's start,
// stop and their trace calls. They are the profiler's work, not the program's: a step never
// counts them, nor what runs inside them (a stop_trace that writes the trace can take seconds).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

enum class ProfilerControl : uint8_t { kNone, kStart, kStop };

// Whether `name` is a Python frame (TraceMe's "$file.py:LINE function" or PyTorch's
// "path/file.py(LINE): function") or a built-in call that starts or stops a profiler.
ProfilerControl profiler_control_of_name(std::string_view name);

struct ProfilerControlCalls {
  // Per event (by EventIndex): 1 for a control call and everything nested in it on its
  // thread; empty when the profile has none (most profiles: no per-event cost).
  std::vector<uint8_t> inside;
  // The program's own time lies between the last start call's end before the first stop
  // call, and that stop call's begin (the frames enclosing them span both).
  int64_t program_begin_ps = INT64_MIN, program_end_ps = INT64_MAX;
  int64_t control_ps = 0;  // the outermost control calls' time
};
ProfilerControlCalls find_profiler_control_calls(const model::Profile& p);

}  // namespace mlprof::analysis
