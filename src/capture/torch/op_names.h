// Op names outlive their ops: LibTorch's RecordFunction::name() of backward nodes and
// autograd entries points into the RecordFunction, which dies with the op (docs/ARCHITECTURE.md §8).
// Every name is interned once per process; a per-thread cache keyed by the name's address
// (checked against the text, since a dead name's address is reused) makes the common case
// a hash, a load and a short compare.
#pragma once

#include <cstdint>

namespace mlprof::libtorch {

enum OpNameFlags : uint32_t {
  kAutogradEntry = 1,   // "autograd::engine::evaluate_function: ...": the engine runs a node
  kFactoryOp = 2,       // aten::empty and the like: allocates its result
  kInputRequest = 4,    // "enumerate(DataLoader)#...": a Python training loop asks for its next batch
};

struct OpName {
  const char* text;           // immortal
  uint32_t flags;             // OpNameFlags
  int8_t dtype_argument;      // factory ops: the position of their dtype= argument, else -1
};

// The interned name for `name` (any string that is valid during the call).
const OpName* intern_op_name(const char* name) noexcept;

}  // namespace mlprof::libtorch
