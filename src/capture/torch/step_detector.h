// Steps of a LibTorch program that marks none (no StepTrace): one step per DataLoader batch
// when the training thread asks a traced DataLoader for batches, else one step per backward
// pass and optimizer update. A step begins at the first top-level op that runs with grad
// mode on after a backward pass (the optimizer runs with grad off, the next forward pass
// with it on) and ends where the next one begins; its number counts iterations from 0.
//
// The first thread that shows a step (runs a backward pass or asks for a batch) owns the
// steps of the session; steps are written on it, so its ops nest inside them. A step-range
// session (MLPROF_STEPS=A:B) switches on and off at these steps.
#pragma once

#include <atomic>
#include <cstdint>

namespace mlprof::libtorch {

// A new session: forget the previous one's steps.
void reset_step_detection() noexcept;

namespace step_detection {

// Bumped per session: a thread's state from an earlier session is stale.
extern std::atomic<uint32_t> g_generation;

enum class Anchor : uint8_t { kNone, kBackward, kBatches, kOff };

// Per thread, touched only by it. Trivial (all zero at first), so that other files reach
// the thread_local without a call.
struct Detector {
  uint32_t generation;
  uint32_t tid;
  Anchor anchor;
  bool backward_seen;  // since the current step began
  bool step_open;
  bool step_recorded;  // its begin found the session recording
  int64_t step;        // while step_open
  uint64_t step_start;
};

// initial-exec: no call to find it (libmlprof_torch is a shared object).
extern constinit thread_local Detector t_detector __attribute__((tls_model("initial-exec")));

void on_top_level_op_slow(bool backward, bool (*grad_enabled)()) noexcept;

}  // namespace step_detection

// A top-level op (one no other op on its thread encloses) begins now. `backward`: run by
// the autograd engine; `grad_enabled` is asked only when a step may begin (most ops pay
// neither for it nor for reading the clock). Inline: a forward op before any backward pass
// and a backward op after the first of its pass are all most ops are, and change nothing.
inline void on_top_level_op(bool backward, bool (*grad_enabled)()) noexcept {
  const step_detection::Detector& d = step_detection::t_detector;
  if (__builtin_expect(d.generation == step_detection::g_generation.load(std::memory_order_relaxed) &&
                           backward == d.backward_seen, 1)) {
    return;
  }
  step_detection::on_top_level_op_slow(backward, grad_enabled);
}

// The calling thread asks its DataLoader for the next batch (mlprof/torch/data_loader.h).
__attribute__((visibility("default"))) void on_input_request(uint64_t now) noexcept;

}  // namespace mlprof::libtorch
