#include "capture/input_description.h"

namespace mlprof::capture {
namespace {

void append_list(std::string& out, const int64_t* values, size_t count) {
  out += '[';
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  out += ']';
}

struct Formatter {
  std::string out;
  bool first = true;
  void next() {
    if (!first) out += ',';
    first = false;
  }
  void tensor(DType type, const int64_t* dims, size_t rank) {
    next();
    out += dtype_name(type);
    append_list(out, dims, rank);
  }
  void int_list(const int64_t* values, size_t count) {
    next();
    append_list(out, values, count);
  }
  void integer(int64_t v) {
    next();
    out += std::to_string(v);
  }
  void real(double v) {
    next();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    out += buf;
  }
  void boolean(bool v) {
    next();
    out += v ? "true" : "false";
  }
  void dtype(DType type) {
    next();
    out += dtype_name(type);
  }
  void tag(InputTag t) {
    next();
    if (t == kInputOther) out += '?';
  }
};

// The first int list (the size of aten::empty), tensor (the self of empty_like) and dtype.
struct FactoryArguments {
  bool has_size = false, has_tensor = false, has_dtype = false;
  std::string size, tensor_shape;
  DType tensor_type = DType::kUnknown, given_type = DType::kUnknown;
  void tensor(DType type, const int64_t* dims, size_t rank) {
    if (has_tensor) return;
    has_tensor = true;
    tensor_type = type;
    append_list(tensor_shape, dims, rank);
  }
  void int_list(const int64_t* values, size_t count) {
    if (has_size) return;
    has_size = true;
    append_list(size, values, count);
  }
  void dtype(DType type) {
    if (has_dtype) return;
    has_dtype = true;
    given_type = type;
  }
  void integer(int64_t) {}
  void real(double) {}
  void boolean(bool) {}
  void tag(InputTag) {}
};

}  // namespace

std::string format_inputs(std::string_view bytes, bool truncated) {
  Formatter f;
  f.out = "(";
  for_each_input(bytes, f);
  if (truncated) f.out += f.first ? "..." : ",...";
  f.out += ')';
  return f.out;
}

bool factory_result(std::string_view bytes, std::string* data_type, std::string* shape) {
  FactoryArguments a;
  for_each_input(bytes, a);
  if (a.has_tensor) {  // empty_like(self, dtype=...)
    *shape = a.tensor_shape;
    *data_type = dtype_name(a.has_dtype ? a.given_type : a.tensor_type);
    return true;
  }
  if (!a.has_size) return false;
  *shape = a.size;
  *data_type = dtype_name(a.has_dtype ? a.given_type : DType::kFloat);  // LibTorch's default dtype
  return true;
}

}  // namespace mlprof::capture
