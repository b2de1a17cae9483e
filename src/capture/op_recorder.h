// The capture side of framework integrations (src/capture/torch/): ops, memory events and
// inferred steps go into the calling thread's buffer as typed records (typed_records.h).
// Exported from libmlprof for libmlprof_torch; not part of the public SDK.
//
// Each thread keeps a stack of its open ops, so that a memory event knows the op that asked
// for the memory (tf_op) and an op's end lands in the record its begin staged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "capture/typed_records.h"
#include "mlprof/mlprof.h"

namespace mlprof::internal {

// Writes an op's input description (input_description.h) into out[0, capacity) and returns
// the bytes used; sets *truncated when inputs were left out for lack of room.
using InputEncoder = size_t (*)(const void* context, char* out, size_t capacity, bool* truncated) noexcept;

// Begins an op on the calling thread and returns the depth it runs at (0: top level). It is
// recorded when `level` records; `name` must live for the process (interned). When `encode`
// is given, it writes the op's inputs (at most `max_input_bytes`) straight into the record.
// Every op_begin must be matched by an op_end on the same thread.
MLPROF_API int op_begin(const char* name, int level, int64_t sequence_nr, uint32_t fwd_thread,
                        uint16_t flags, InputEncoder encode = nullptr, const void* context = nullptr,
                        size_t max_input_bytes = 0) noexcept;
// Returns the depth left (0: the thread's top-level op ended).
MLPROF_API int op_end() noexcept;

// The depth of the calling thread's op stack (0: no op open).
MLPROF_API int op_depth() noexcept;

// An allocator's report of one event (LibTorch's reportMemoryUsage); see MemoryRecord.
struct AllocatorReport {
  const void* address = nullptr;
  int64_t bytes = 0;               // > 0 allocation, < 0 free
  int64_t bytes_allocated = -1;
  int64_t bytes_reserved = -1;
  int16_t device_type = -1;
  int16_t device_index = -1;
};

// Records a memory event on the calling thread at host_tracer_level 3, tied to its open op
// and the current step.
MLPROF_API void record_memory_event(const AllocatorReport& report) noexcept;

// True while a session records memory events (host_tracer_level 3).
inline bool recording_memory() { return tracing(kVerbose); }

// Steps found by an integration when the program marks none. Begins step `step`: may switch
// a step-range session on (like StepTrace); returns the level now in force.
MLPROF_API int inferred_step_begin(int64_t step) noexcept;
// Records step `step` [start, end) on the calling thread, saying how it was found (a
// literal), and ends a step-range session after its last step.
MLPROF_API void inferred_step_end(int64_t step, uint64_t start, uint64_t end, const char* source) noexcept;
// True once the program has marked a step itself (StepTrace) in the running session: an
// integration then leaves steps alone.
MLPROF_API bool program_marks_steps() noexcept;

// Records the framework's id of the calling thread for this session (see LogicalThreadRecord).
MLPROF_API void record_logical_thread(uint64_t logical_id) noexcept;

// Session start and stop, for integrations that switch their hooks on and off. Called
// with the options in force (start) from the thread that starts the session, and (stop)
// before the session is written: from the thread that calls mlprof::stop(), or the
// session's own when it ends by itself. Adding a listener while a session runs calls its
// start.
struct SessionListener {
  void (*on_start)(const ProfilerOptions& options);
  void (*on_stop)();
};
MLPROF_API void add_session_listener(const SessionListener& listener);

// Stops and writes the running session, as the exit handler that start() registers does. For
// an integration whose framework makes statics on first use after that handler was
// registered: exit handlers and static destructors run in reverse order, so the integration
// registers this one again after them, and the session is written while they still exist.
MLPROF_API void stop_session_at_exit();

}  // namespace mlprof::internal
