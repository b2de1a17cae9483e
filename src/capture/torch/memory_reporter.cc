#include "capture/torch/memory_reporter.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include <memory>

#include "capture/op_recorder.h"

namespace mlprof::libtorch {
namespace {

// LibTorch's profilers read whatever sits under PROFILER_STATE as their own state
// (ProfilerStateBase), so ours is one, of a disabled profiler: theirs can still start, and
// stack on top of it while they run.
class MemoryReporter final : public torch::profiler::impl::ProfilerStateBase {
 public:
  MemoryReporter()
      : ProfilerStateBase(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::Disabled)) {}

  torch::profiler::impl::ActiveProfilerType profilerType() override {
    return torch::profiler::impl::ActiveProfilerType::NONE;
  }

  void reportMemoryUsage(void* ptr, int64_t alloc_size, int64_t total_allocated, int64_t total_reserved,
                         c10::Device device) override {
    internal::AllocatorReport report;
    report.address = ptr;
    report.bytes = alloc_size;
    report.bytes_allocated = total_allocated;
    report.bytes_reserved = total_reserved;
    report.device_type = int16_t(device.type());
    report.device_index = int16_t(device.index());
    internal::record_memory_event(report);
  }

  // LibTorch's CPU allocator keeps its books (and reports) only while this says so.
  bool memoryProfilingEnabled() const override { return internal::recording_memory(); }
};

const std::shared_ptr<c10::DebugInfoBase>& reporter() {
  static auto* r = new std::shared_ptr<c10::DebugInfoBase>(std::make_shared<MemoryReporter>());
  return *r;
}

}  // namespace

bool ensure_memory_reporter() noexcept {
  // Asked at every top-level op at level 3: the common answer costs LibTorch's lookup only.
  static c10::DebugInfoBase* const ours_raw = reporter().get();
  if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) == ours_raw) return true;
  const std::shared_ptr<c10::DebugInfoBase>& ours = reporter();
  // Another profiler's state (LibTorch's own) keeps precedence while it is enabled.
  if (auto* other = dynamic_cast<c10::MemoryReportingInfoBase*>(
          c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE));
      other != nullptr && other->memoryProfilingEnabled()) {
    return false;
  }
  try {
    c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, ours);
    return true;
  } catch (...) {  // out of memory: this thread's memory goes unrecorded
    return false;
  }
}

void release_memory_reporter() noexcept {
  try {
    // Only when it is the latest debug info pushed: _pop cannot take out what is below.
    if (c10::ThreadLocalDebugInfo::_peek(c10::DebugInfoKind::PROFILER_STATE).get() == reporter().get())
      c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
  } catch (...) {  // something else is on top: leave it
  }
}

}  // namespace mlprof::libtorch
