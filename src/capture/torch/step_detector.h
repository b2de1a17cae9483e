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

#include <cstdint>

namespace mlprof::libtorch {

// A new session: forget the previous one's steps.
void reset_step_detection() noexcept;

// A top-level op (one no other op on its thread encloses) begins now. `backward`: run by
// the autograd engine; `grad_enabled` is asked only when a step may begin (most ops pay
// neither for it nor for reading the clock).
void on_top_level_op(bool backward, bool (*grad_enabled)()) noexcept;

// The calling thread asks its DataLoader for the next batch (mlprof/torch/data_loader.h).
__attribute__((visibility("default"))) void on_input_request(uint64_t now) noexcept;

}  // namespace mlprof::libtorch
