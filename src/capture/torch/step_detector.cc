#include "capture/torch/step_detector.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "capture/op_recorder.h"

namespace mlprof::libtorch {

namespace step_detection {
std::atomic<uint32_t> g_generation{1};
thread_local Detector t_detector __attribute__((tls_model("initial-exec")));
}  // namespace step_detection

namespace {

constexpr const char* kFromBatches =
    "mlprof's step inference: one step per DataLoader batch (the program marks no steps)";
constexpr const char* kFromBackward =
    "mlprof's step inference: one step per backward pass and optimizer update (the program marks no steps)";

// The thread that owns the session's steps (0: none yet).
std::atomic<uint32_t> g_owner{0};

using step_detection::Anchor;
using step_detection::Detector;
using step_detection::g_generation;
using step_detection::t_detector;

Detector& this_thread() {
  Detector& d = t_detector;
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  if (d.generation != generation) {
    const uint32_t tid = d.tid != 0 ? d.tid : uint32_t(syscall(SYS_gettid));
    d = Detector{};
    d.generation = generation;
    d.tid = tid;
  }
  return d;
}

// The first thread to ask owns the steps.
bool owns_steps(const Detector& d) {
  uint32_t owner = g_owner.load(std::memory_order_relaxed);
  if (owner == d.tid) return true;
  return owner == 0 && g_owner.compare_exchange_strong(owner, d.tid);
}

bool session_running() { return internal::g_trace_level.load(std::memory_order_relaxed) != 0; }

void begin_step(Detector& d, uint64_t now, int64_t first_step, const char* source) {
  if (internal::program_marks_steps()) {
    d.anchor = Anchor::kOff;
    return;
  }
  if (d.step_open && d.step_recorded) internal::inferred_step_end(d.step, d.step_start, now, source);
  d.step = d.step_open ? d.step + 1 : first_step;
  d.step_open = true;
  d.step_start = now;
  d.step_recorded = internal::inferred_step_begin(d.step) > 0;
}

}  // namespace

void reset_step_detection() noexcept {
  g_owner.store(0, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_relaxed);
}

void step_detection::on_top_level_op_slow(bool backward, bool (*grad_enabled)()) noexcept {
  Detector& d = this_thread();
  if (d.anchor == Anchor::kBatches || d.anchor == Anchor::kOff) return;
  if (backward) {
    if (!d.backward_seen && owns_steps(d)) {
      d.backward_seen = true;
      d.anchor = Anchor::kBackward;
    }
    return;
  }
  if (!d.backward_seen || !grad_enabled()) return;
  d.backward_seen = false;
  // The iteration before the first backward pass began out of sight: this is the second.
  begin_step(d, now_ticks(), 1, kFromBackward);
}

void on_input_request(uint64_t now) noexcept {
  if (!session_running()) return;
  Detector& d = this_thread();
  if (d.anchor == Anchor::kOff || !owns_steps(d)) return;
  if (d.anchor != Anchor::kBatches) {
    // Batches mark steps better than backward passes: start over with them.
    d.anchor = Anchor::kBatches;
    d.step_open = false;
  }
  begin_step(d, now, 0, kFromBatches);
}

}  // namespace mlprof::libtorch
