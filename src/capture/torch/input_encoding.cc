#include "capture/torch/input_encoding.h"

#include <ATen/record_function.h>

#include "capture/input_description.h"

namespace mlprof::libtorch {
namespace {

using capture::DType;

DType dtype_of(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Float: return DType::kFloat;
    case c10::ScalarType::Double: return DType::kDouble;
    case c10::ScalarType::Half: return DType::kHalf;
    case c10::ScalarType::BFloat16: return DType::kBFloat16;
    case c10::ScalarType::Char: return DType::kInt8;
    case c10::ScalarType::Byte: return DType::kUInt8;
    case c10::ScalarType::Short: return DType::kInt16;
    case c10::ScalarType::Int: return DType::kInt32;
    case c10::ScalarType::Long: return DType::kInt64;
    case c10::ScalarType::Bool: return DType::kBool;
    case c10::ScalarType::ComplexFloat: return DType::kComplex64;
    case c10::ScalarType::ComplexDouble: return DType::kComplex128;
    default: return DType::kUnknown;
  }
}

// Inline: the writer's cursor stays in a register.
__attribute__((always_inline)) inline void write_tensor(capture::InputWriter& w, const at::Tensor& t) {
  if (!t.defined()) {
    w.tag(capture::kInputUndefinedTensor);
    return;
  }
  const auto sizes = t.sizes();
  w.tensor(dtype_of(t.scalar_type()), sizes.data(), sizes.size());
}

// Writes inputs[i] on, any kind, through the writer.
void write_inputs(capture::InputWriter& w, c10::ArrayRef<const c10::IValue> inputs, size_t i, const OpName& name) {
  int64_t values[255];
  // The tag tests first: they are inline, the list tests are calls.
  for (; i < inputs.size(); ++i) {
    const c10::IValue& v = inputs[i];
    if (v.isTensor()) {
      write_tensor(w, v.toTensor());
    } else if (v.isInt()) {
      if (int(i) == name.dtype_argument) w.dtype(dtype_of(static_cast<c10::ScalarType>(v.toInt())));
      else w.integer(v.toInt());
    } else if (v.isDouble()) {
      w.real(v.toDouble());
    } else if (v.isBool()) {
      w.boolean(v.toBool());
    } else if (v.isNone()) {
      w.tag(capture::kInputNone);
    } else if (v.isIntList()) {
      const c10::List<int64_t> list = v.toIntList();
      const size_t n = std::min<size_t>(list.size(), 255);
      for (size_t k = 0; k < n; ++k) values[k] = list.get(k);
      w.int_list(values, n);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList()) write_tensor(w, t);
    } else {
      w.tag(capture::kInputOther);
    }
  }
}

// The most dims a tensor written by the short path has; each below 64, so one byte each.
constexpr size_t kShortRank = 15;

}  // namespace

size_t encode_inputs(const at::RecordFunction& fn, const OpName& name, char* out, size_t capacity,
                     bool* truncated) noexcept {
  const c10::ArrayRef<const c10::IValue> inputs = fn.inputs();
  // The short path: defined tensors whose dims are below 64 and ints in [-64, 64), most
  // inputs, written as the writer would (a zigzag varint of a value in that range is one
  // byte) with one test of room each. The first other input and the rest take the writer.
  char* p = out;
  char* const end = out + capacity;
  size_t i = 0;
  for (; i < inputs.size(); ++i) {
    const c10::IValue& v = inputs[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (!t.defined()) break;
      const c10::IntArrayRef sizes = t.sizes();
      const size_t rank = sizes.size();
      if (rank > kShortRank || size_t(end - p) < 3 + kShortRank) break;
      uint64_t all_dims = 0;
      for (size_t d = 0; d < rank; ++d) {
        all_dims |= uint64_t(sizes[d]);
        p[3 + d] = char(uint64_t(sizes[d]) << 1);
      }
      if (all_dims >= 64) break;  // written again by the writer
      p[0] = char(capture::kInputTensor);
      p[1] = char(dtype_of(t.scalar_type()));
      p[2] = char(rank);
      p += 3 + rank;
    } else if (v.isInt() && int(i) != name.dtype_argument) {
      const int64_t x = v.toInt();
      if (x < -64 || x >= 64 || end - p < 2) break;
      p[0] = char(capture::kInputInt);
      p[1] = char((uint64_t(x) << 1) ^ uint64_t(x >> 63));
      p += 2;
    } else {
      break;
    }
  }
  if (i == inputs.size()) {
    *truncated = false;
    return size_t(p - out);
  }
  capture::InputWriter w(p, size_t(end - p));
  write_inputs(w, inputs, i, name);
  *truncated = w.truncated();
  return size_t(p - out) + w.size();
}

size_t encode_op_inputs(const void* op_inputs, char* out, size_t capacity, bool* truncated) noexcept {
  const auto& [fn, name] = *static_cast<const OpInputs*>(op_inputs);
  return encode_inputs(*fn, *name, out, capacity, truncated);
}

}  // namespace mlprof::libtorch
