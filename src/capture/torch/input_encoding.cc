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

}  // namespace

size_t encode_inputs(const at::RecordFunction& fn, const OpName& name, char* out, size_t capacity,
                     bool* truncated) noexcept {
  const c10::ArrayRef<const c10::IValue> inputs = fn.inputs();
  // The short path for most inputs (InputWriter::small_tensor, small_integer); the first
  // other input and the rest take the writer's general entries.
  using capture::InputWriter;
  char* p = out;
  const char* const end = out + capacity;
  size_t i = 0;
  for (; i < inputs.size(); ++i) {
    const c10::IValue& v = inputs[i];
    char* next = nullptr;
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (t.defined()) {
        const c10::IntArrayRef sizes = t.sizes();
        next = InputWriter::small_tensor(p, end, dtype_of(t.scalar_type()), sizes.data(), sizes.size());
      }
    } else if (v.isInt() && int(i) != name.dtype_argument) {
      next = InputWriter::small_integer(p, end, v.toInt());
    }
    if (next == nullptr) break;
    p = next;
  }
  *truncated = false;
  if (i == inputs.size()) return size_t(p - out);
  InputWriter w(p, size_t(end - p));
  write_inputs(w, inputs, i, name);
  *truncated = w.truncated();
  return size_t(p - out) + w.size();
}

size_t encode_op_inputs(const void* op_inputs, char* out, size_t capacity, bool* truncated) noexcept {
  const auto& [fn, name] = *static_cast<const OpInputs*>(op_inputs);
  return encode_inputs(*fn, *name, out, capacity, truncated);
}

}  // namespace mlprof::libtorch
