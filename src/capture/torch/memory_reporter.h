// LibTorch's allocators report every allocation and free to the c10::MemoryReportingInfoBase
// found under DebugInfoKind::PROFILER_STATE in the allocating thread's ThreadLocalDebugInfo.
// Ours turns each report into a memory event at host_tracer_level 3. Being thread-local, it
// is installed on each thread that runs ops, when its first top-level op of a session begins
// (LibTorch hands the debug info on to autograd and intra-op worker threads itself).
#pragma once

namespace mlprof::libtorch {

// Installs the reporter on the calling thread unless it is already there; false when
// another profiler's state is in the way.
bool ensure_memory_reporter() noexcept;

// Takes it off again (after a session), so that LibTorch's own profilers, which take any
// state under PROFILER_STATE for a running profiler, can start on this thread.
void release_memory_reporter() noexcept;

}  // namespace mlprof::libtorch
