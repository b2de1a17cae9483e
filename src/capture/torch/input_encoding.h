// The inputs of an op at host_tracer_level 3, in the binary form of
// capture/input_description.h: tensors' element types and shapes, int lists, scalars.
#pragma once

#include <cstddef>

#include "capture/torch/op_names.h"

namespace at {
struct RecordFunction;
}

namespace mlprof::libtorch {

// Writes into out[0, capacity) and returns the bytes used; `truncated` says whether
// inputs were left out for lack of room.
size_t encode_inputs(const at::RecordFunction& fn, const OpName& name, char* out, size_t capacity,
                     bool* truncated) noexcept;

}  // namespace mlprof::libtorch
