// The LibTorch integration (link mlprof::torch). While a session runs, whoever started it
// (mlprof::start, mlprof::Profile, MLPROF_LOGDIR), every ATen op, autograd node and user
// scope (RECORD_USER_SCOPE) is an event on its thread with its sequence number; at
// host_tracer_level 3 also its input shapes and types, and every allocation and free of
// LibTorch's allocators is a memory event. A program that marks no steps gets them inferred
// from its training loop.
//
// Include this header in one file of the program: it keeps the library linked (linkers drop
// a shared library nothing refers to). `mlprof run` needs neither: it preloads the library.
#pragma once

#include "mlprof/mlprof.h"

namespace mlprof::libtorch {

// True: the integration follows sessions. Refers to the library, so it stays linked.
MLPROF_API bool enabled() noexcept;

namespace detail {
inline const bool kLinked = enabled();
}  // namespace detail

}  // namespace mlprof::libtorch
