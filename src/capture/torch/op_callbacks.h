// LibTorch's RecordFunction callbacks: every ATen op, autograd node and user scope
// (RECORD_USER_SCOPE) becomes an op event on its thread (level 2; user scopes level 1), with
// its sequence number and, for backward ops, the forward thread; at level 3 with its input
// shapes and types, and with memory events. Top-level ops feed the step detection.
#pragma once

namespace mlprof::libtorch {

// Switches the callbacks on (registering them the first time), with inputs or without.
void enable_op_callbacks(bool with_inputs);
void disable_op_callbacks();

}  // namespace mlprof::libtorch
