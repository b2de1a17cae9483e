// The inputs of an op at host_tracer_level 3, in the binary form of
// capture/input_description.h: tensors' element types and shapes, int lists, scalars.
#pragma once

#include <cstddef>

#include "capture/torch/op_names.h"

namespace at {
struct RecordFunction;
}

namespace mlprof::libtorch {

// What encode_inputs reads.
struct OpInputs {
  const at::RecordFunction* fn;
  const OpName* name;
};

// Writes the inputs of `fn` (an op named `name`) into out[0, capacity) and returns the bytes
// used; `truncated` says whether inputs were left out for lack of room.
size_t encode_inputs(const at::RecordFunction& fn, const OpName& name, char* out, size_t capacity,
                     bool* truncated) noexcept;

// The same as an InputEncoder (capture/op_recorder.h) of an OpInputs.
size_t encode_op_inputs(const void* op_inputs, char* out, size_t capacity, bool* truncated) noexcept;

}  // namespace mlprof::libtorch
